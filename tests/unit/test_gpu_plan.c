#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "fabric/cuda.h"
#include "probes/gpu_plan.h"
#include "readers/sysfs.h"
#include "tests/tap/tap.h"
#include "topo/model.h"

/* What the GPU probes decide before they touch a GPU, checked where there is none: the pointer
 * chains (one cycle, every index inside the buffer, no run of neighbours a prefetcher could
 * follow), the chases' plans (the timed loads never on a node the warm-up touched; the flush
 * against the L2; the L2 chain inside the L2), the buffers against the L2, the SM copy's grid
 * from the multiprocessor count, the page alignment dma-buf export needs, and a live /sys that
 * shows nothing (a sandboxed kernel) read as unknown rather than refused. */

#define MIB ((size_t)1 << 20)

/* Walk steps loads from word start, marking each node loaded; 1 when no node was loaded twice
 * (counting marks already set by an earlier walk), with *end where it stopped. */
static int walk_marks(const uint64_t *chain, size_t words, size_t per, unsigned char *seen,
                      uint64_t start, uint64_t steps, uint64_t *end)
{
    uint64_t at = start;
    int fresh = 1;

    for (uint64_t k = 0; k < steps; k++) {
        if (at >= words || at % per)
            return 0;
        fresh &= !seen[at / per];
        seen[at / per] = 1;
        at = chain[at];
    }
    *end = at;
    return fresh;
}

static void chains(void)
{
    const size_t sizes[][2] = { { MIB, 64 }, { 64 * MIB, 4096 }, { 4096 + 8 * 3, 8 } };

    for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
        size_t span = sizes[t][0], stride = sizes[t][1], words = span / 8, per = stride / 8;
        uint64_t *c = xcalloc(words, sizeof(*c)), end = 0;
        unsigned char *seen;
        size_t n = gpu_chain_build(c, span, stride, 42), adjacent = 0, inside = 1, others = 0;

        is_int((long long)n, (long long)(span / stride), "%zu bytes of %zu-byte nodes: %zu nodes",
               span, stride, span / stride);
        seen = xcalloc(n, 1);
        ok(walk_marks(c, words, per, seen, 0, n, &end) && end == 0,
           "...one cycle: %zu loads from word 0 visit every node once and come back", n);
        for (size_t i = 0; i < n; i++) {
            inside &= c[i * per] < words && c[i * per] % per == 0;
            adjacent += c[i * per] == (i + 1) * per;
            for (size_t w = 1; w < per; w++)
                others += c[i * per + w] != 0;
        }
        ok(inside && others == 0,
           "...every index is a node inside the chain, nothing else written");
        ok(adjacent * 100 < n || n < 100,
           "...in a random order (%zu of %zu steps to the next node)", adjacent, n);
        is_int((long long)gpu_chain_walk(c, words, 0, n), 0, "gpu_chain_walk agrees");
        free(seen);
        free(c);
    }
    {
        uint64_t c[64] = { 0 }, d[64];
        ok(gpu_chain_build(c, sizeof(c), 0, 1) == 0 && gpu_chain_build(c, sizeof(c), 12, 1) == 0 &&
               gpu_chain_build(c, 36, 8, 1) == 0 && gpu_chain_build(c, 64, 128, 1) == 0 &&
               gpu_chain_build(NULL, 64, 8, 1) == 0,
           "unusable sizes give no chain (stride 0, not a multiple of 8, span past the words, "
           "span under a node)");
        gpu_chain_build(c, sizeof(c), 64, 7);
        memcpy(d, c, sizeof(c));
        is_int((long long)gpu_chain_build(d, sizeof(d), 64, 7), 8, "the same seed...");
        ok(!memcmp(c, d, sizeof(c)), "...lays out the same chain");
        d[c[0]] = 64; /* the second load leaves the chain */
        ok(gpu_chain_walk(d, 64, 0, 1) == c[0] && gpu_chain_walk(d, 64, 0, 2) == UINT64_MAX &&
               gpu_chain_walk(d, 64, 64, 0) == UINT64_MAX,
           "a walk that leaves the chain says so (what the GPU calls an illegal address)");
    }
}

static void memory_plan(void)
{
    struct gpu_chase_plan p;
    const struct {
        size_t span, l2;
        uint64_t steps, warm, timed;
        size_t flush;
        const char *what;
    } c[] = {
        { 256 * MIB, 50 * MIB, 20000, 20000, 20000, 100 * MIB, "H100: 256 MiB, L2 50 MiB" },
        { 256 * MIB, 60 * MIB, 20000, 20000, 20000, 120 * MIB, "H200: L2 60 MiB" },
        { 504 * MIB, 126 * MIB, 20000, 20000, 20000, 252 * MIB, "B200: L2 126 MiB" },
        { 512 * MIB, 0, 20000, 20000, 20000, 256 * MIB, "L2 unknown: taken as 128 MiB" },
        { 256 * MIB, 200 * MIB, 20000, 20000, 20000, 256 * MIB,
          "a flush past the buffer: the buffer" },
        { 64 * MIB, 6 * MIB, 20000, 8192, 8192, 12 * MIB, "16384 nodes: half each" },
        { 64 * MIB, 6 * MIB, 8192, 8192, 8192, 12 * MIB, "steps at half the nodes" },
        { 64 * MIB, 6 * MIB, 8193, 8192, 8192, 12 * MIB, "one step past half" },
        { 64 * MIB, 6 * MIB, 5000, 5000, 5000, 12 * MIB, "fewer steps than nodes" },
        { 16 * 1024 + 100, 6 * MIB, 3, 2, 2, 16 * 1024 + 100, "4 nodes (a ragged span)" },
    };

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        int rc = gpu_chase_plan_memory(&p, c[i].span, c[i].l2, c[i].steps);
        ok(rc == 0 && p.stride == 4096 && p.nodes == c[i].span / 4096 &&
               p.warm_steps == c[i].warm && p.timed_steps == c[i].timed &&
               p.flush_bytes == c[i].flush,
           "memory chase, %s: warm %llu, timed %llu, flush %zu MiB (got %d: %llu, %llu, %zu)",
           c[i].what, (unsigned long long)c[i].warm, (unsigned long long)c[i].timed,
           c[i].flush >> 20, rc, (unsigned long long)p.warm_steps,
           (unsigned long long)p.timed_steps, p.flush_bytes >> 20);
    }
    ok(gpu_chase_plan_memory(&p, 3 * 4096 + 4095, 0, 100) < 0 &&
           gpu_chase_plan_memory(&p, 256 * MIB, 0, 0) < 0,
       "no memory chase in 3 nodes, or of no steps");
    /* the property the plan is for, on real chains: the timed loads find no node the warm-up
     * loaded, and the flush is at least twice the L2 where the buffer allows */
    for (size_t span = 16 * MIB; span <= 64 * MIB; span *= 4) {
        size_t words = span / 8;
        uint64_t *chain = xcalloc(words, sizeof(*chain)), mid = 0, end = 0;
        unsigned char *seen;
        gpu_chase_plan_memory(&p, span, 2 * MIB, 20000);
        gpu_chain_build(chain, p.span, p.stride, 0x9e3779b97f4a7c15ull);
        seen = xcalloc(p.nodes, 1);
        ok(walk_marks(chain, words, 512, seen, 0, p.warm_steps, &mid) &&
               walk_marks(chain, words, 512, seen, mid, p.timed_steps, &end) &&
               mid == gpu_chain_walk(chain, words, 0, p.warm_steps) &&
               end == gpu_chain_walk(chain, words, mid, p.timed_steps),
           "%zu MiB: the %llu timed loads touch none of the warm-up's %llu nodes", span >> 20,
           (unsigned long long)p.timed_steps, (unsigned long long)p.warm_steps);
        ok(p.flush_bytes == 4 * MIB, "...after a flush of twice the L2");
        free(seen);
        free(chain);
    }
}

static void l2_plan(void)
{
    struct gpu_chase_plan p;
    const struct {
        size_t l2, span; /* the L2, the chain */
    } c[] = {
        { 50 * MIB, MIB },          { 0, MIB },           { 4 * MIB, MIB },
        { 4 * MIB - 64, MIB - 64 }, { 2 * MIB, MIB / 2 }, { 512 * 1024, 128 * 1024 },
        { 3 * MIB + 100, 786432 }, /* a quarter, down to whole nodes */
    };

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        size_t want = c[i].span;
        int rc = gpu_chase_plan_l2(&p, c[i].l2, 20000);
        ok(rc == 0 && p.span == want && p.stride == 64 && p.nodes == want / 64 &&
               p.warm_steps == want / 64 && p.timed_steps == 20000 && p.flush_bytes == 0,
           "L2 chase, L2 %zu B: %zu B of 64-byte nodes, every node warmed, no flush (got %zu)",
           c[i].l2, want, p.span);
    }
    ok(gpu_chase_plan_l2(&p, 16 * 1024 - 1, 1) < 0 && gpu_chase_plan_l2(&p, 16 * 1024, 1) == 0 &&
           gpu_chase_plan_l2(&p, 50 * MIB, 0) < 0,
       "no L2 chase under 4 KiB of chain (an L2 under 16 KiB), or of no steps");
    {
        size_t words;
        uint64_t *chain, end = 1;
        unsigned char *seen;
        gpu_chase_plan_l2(&p, 50 * MIB, 20000);
        words = p.span / 8;
        chain = xcalloc(words, sizeof(*chain));
        gpu_chain_build(chain, p.span, p.stride, 0x9e3779b97f4a7c15ull);
        seen = xcalloc(p.nodes, 1);
        ok(walk_marks(chain, words, 8, seen, 0, p.warm_steps, &end) && end == 0 &&
               memchr(seen, 0, p.nodes) == NULL,
           "the L2 warm-up loads every node once and ends where the timed chase starts");
        free(seen);
        free(chain);
    }
}

static void spans_and_grids(void)
{
    const struct {
        size_t copy, l2, want;
    } s[] = {
        { 256 * MIB, 50 * MIB, 256 * MIB }, { 64 * MIB, 0, 256 * MIB },
        { 512 * MIB, 50 * MIB, 512 * MIB }, { 0, 126 * MIB, 504 * MIB },
        { 64 * MIB, 64 * MIB, 256 * MIB },  { 64 * MIB, 64 * MIB + 1, 258 * MIB },
        { 300 * MIB + 1, 0, 302 * MIB },
    };
    const struct {
        int mp, threads;
        unsigned block;
        uint64_t words;
        unsigned want;
        const char *what;
    } g[] = {
        { 132, 2048, 512, 1ull << 24, 528, "H100/H200 (132 SMs x 2048 threads)" },
        { 108, 2048, 512, 1ull << 24, 432, "A100 (108 x 2048)" },
        { 84, 1536, 512, 1ull << 24, 252, "A10 (84 x 1536)" },
        { 148, 2048, 256, 1ull << 24, 1184, "B200, blocks of 256" },
        { 40, 1024, 512, 1ull << 24, 80, "T4 (40 x 1024)" },
        { 0, 0, 512, 1ull << 24, 1024, "nothing known: 1024" },
        { 0, 2048, 512, 1ull << 24, 1024, "no multiprocessor count: 1024" },
        { 132, 0, 512, 1ull << 24, 528, "thread count unknown: 2048 taken" },
        { 132, 256, 512, 1ull << 24, 132, "blocks larger than a multiprocessor runs: one each" },
        { 132, 2048, 512, 512 * 4 * 10, 10, "a small copy: one block per 2048 words" },
        { 132, 2048, 512, 512 * 4 * 527, 527, "527 groups" },
        { 132, 2048, 512, 512 * 4 * 527 + 1, 528, "one word more: 528" },
        { 132, 2048, 512, 512 * 4 * 528 + 1, 528, "past the grid: the grid" },
        { 132, 2048, 512, 1, 1, "one word: one block" },
        { 132, 2048, 512, 0, 1, "nothing to copy: still one block" },
        { 132, 2048, 0, 1ull << 24, 132 * 2048, "blocks of 0 threads taken as 1" },
    };

    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
        is_int((long long)gpu_buffer_span(s[i].copy, s[i].l2), (long long)s[i].want,
               "buffers for %zu MiB copies, L2 %zu B: %zu MiB", s[i].copy >> 20, s[i].l2,
               s[i].want >> 20);
    for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
        unsigned want = g[i].want;
        is_int(gpu_copy_grid(g[i].mp, g[i].threads, g[i].block, g[i].words), want,
               "SM copy grid, %s: %u blocks", g[i].what, want);
    }
}

static void alignment(void)
{
    const size_t pages[] = { 4096, 65536 };
    const size_t sizes[] = { 1, 100, 4095, 4096, 4097, 65536, 65537, 3 * MIB + 5 };
    const uint64_t raws[] = { 0x7f0000000000ull, 0x7f0000000100ull, 0x7f0000000200ull,
                              0x7f0000000ff0ull, 0x7f0000001000ull, 0x7f000000fe00ull };
    int all = 1, n = 0;

    is_int((long long)fabric_cuda_round(1, 4096), 4096, "one byte: one page");
    is_int((long long)fabric_cuda_round(4096, 4096), 4096, "a page: a page");
    is_int((long long)fabric_cuda_round(4097, 4096), 8192, "a page and a byte: two");
    is_int((long long)fabric_cuda_round(0, 4096), 0, "nothing: nothing");
    is_int((long long)fabric_cuda_alloc_bytes(1000, 4096), 8192, "1000 bytes: a page and one more");
    is_int((long long)fabric_cuda_align(0x7f0000000100ull, 4096), 0x7f0000001000ll,
           "an address 256 bytes into a page: the next page");
    is_int((long long)fabric_cuda_align(0x7f0000001000ull, 4096), 0x7f0000001000ll,
           "an aligned address stays");
    is_int((long long)fabric_cuda_align(0x7f0000001001ull, 4096), 0x7f0000002000ll,
           "one byte past a page: the next");
    for (size_t p = 0; p < 2; p++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            for (size_t r = 0; r < sizeof(raws) / sizeof(raws[0]); r++) {
                size_t page = pages[p], size = sizes[s];
                uint64_t raw = raws[r], d = fabric_cuda_align(raw, page);
                size_t len = fabric_cuda_round(size, page);
                n++;
                if (d % page || len % page || len < size || d < raw ||
                    d + len > raw + fabric_cuda_alloc_bytes(size, page)) {
                    all = 0;
                    diag("page %zu, size %zu, allocation at %#llx: buffer %#llx + %zu", page, size,
                         (unsigned long long)raw, (unsigned long long)d, len);
                }
            }
    ok(all,
       "%d cases: the buffer starts and ends on a page, holds the size asked for and lies "
       "inside its allocation",
       n);
}

static void live_sysfs(void)
{
    char root[256], sub[300];
    struct topo_node *node;
    ry_error_t err = { "" };

    snprintf(root, sizeof(root), "%s/railyard-live.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root)) {
        ok(0, "cannot create a temporary directory");
        return;
    }
    node = topo_node_create();
    is_int(topo_sysfs_discover_live(node, root, &err), 0,
           "a live sysfs with neither class/ nor bus/ (a sandboxed kernel): read %s", err.text);
    ok(node->sources && strstr(node->sources, "neither class/ nor bus/") && !node->nics_listed &&
           node->nnics == 0,
       "...as telling nothing: said in the sources (%s), RDMA NICs unknown",
       node->sources ? node->sources : "");
    topo_node_destroy(node);
    node = topo_node_create();
    ok(topo_sysfs_discover(node, root, 0, &err) < 0 && strstr(err.text, "not a sysfs tree"),
       "a captured tree like it is still refused: %s", err.text);
    topo_node_destroy(node);
    snprintf(sub, sizeof(sub), "%s/class", root);
    mkdir(sub, 0755);
    node = topo_node_create();
    ok(topo_sysfs_discover_live(node, root, &err) == 0 && node->nics_listed &&
           !strstr(node->sources ? node->sources : "", "neither"),
       "with class/ there, it is read as sysfs (no RDMA device listed: none)");
    topo_node_destroy(node);
    rmdir(sub);
    rmdir(root);
    node = topo_node_create();
    ok(topo_sysfs_discover_live(node, root, &err) < 0 && strstr(err.text, root),
       "a root that is not there is an error naming it: %s", err.text);
    topo_node_destroy(node);
}

int main(void)
{
    chains();
    memory_plan();
    l2_plan();
    spans_and_grids();
    alignment();
    live_sysfs();
    return done_testing();
}

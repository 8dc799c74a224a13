#include "config.h"

#include <stdlib.h>

#include "common/xmalloc.h"
#include "probes/gpu_plan.h"

#define MIB ((size_t)1 << 20)

size_t gpu_chain_build(uint64_t *chain, size_t span, size_t stride, uint64_t seed)
{
    size_t n, per, *order;

    if (!chain || stride < 8 || stride % 8 || span % 8 || span < stride)
        return 0;
    n = span / stride;
    per = stride / 8;
    order = xcalloc(n, sizeof(*order));
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates: a random order of the nodes */
        size_t k, t;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        k = (size_t)(seed >> 33) % (i + 1);
        t = order[i];
        order[i] = order[k];
        order[k] = t;
    }
    /* followed in that order, the nodes make one cycle through all of them */
    for (size_t i = 0; i < n; i++)
        chain[order[i] * per] = (uint64_t)(order[(i + 1) % n] * per);
    free(order);
    return n;
}

uint64_t gpu_chain_walk(const uint64_t *chain, size_t words, uint64_t start, uint64_t steps)
{
    uint64_t at = start;

    for (uint64_t k = 0; k < steps; k++) {
        if (at >= words)
            return UINT64_MAX;
        at = chain[at];
    }
    return at < words ? at : UINT64_MAX;
}

int gpu_chase_plan_memory(struct gpu_chase_plan *p, size_t span, size_t l2_bytes, uint64_t steps)
{
    size_t l2 = l2_bytes ? l2_bytes : 128 * MIB;

    p->stride = 4096;
    p->span = span / p->stride * p->stride;
    p->nodes = p->span / p->stride;
    if (p->nodes < 4 || steps == 0)
        return -1;
    /* the timed loads and the warm-up's never share a node: neither finds the other's lines */
    p->timed_steps = steps < p->nodes / 2 ? steps : p->nodes / 2;
    p->warm_steps = steps < p->nodes - p->timed_steps ? steps : p->nodes - p->timed_steps;
    p->flush_bytes = 2 * l2 < span ? 2 * l2 : span;
    return 0;
}

int gpu_chase_plan_l2(struct gpu_chase_plan *p, size_t l2_bytes, uint64_t steps)
{
    size_t span = MIB;

    if (l2_bytes && l2_bytes < 4 * MIB)
        span = l2_bytes / 4 / 64 * 64;
    if (span < 4096 || steps == 0)
        return -1;
    p->stride = 64;
    p->span = span;
    p->nodes = span / 64;
    p->warm_steps = p->nodes; /* every node once: the timed loads all hit L2 */
    p->timed_steps = steps;
    p->flush_bytes = 0;
    return 0;
}

size_t gpu_buffer_span(size_t copy_bytes, size_t l2_bytes)
{
    size_t span = 256 * MIB, align = 2 * MIB;

    if (copy_bytes > span)
        span = copy_bytes;
    if (l2_bytes > span / 4)
        span = 4 * l2_bytes;
    return (span + align - 1) / align * align;
}

unsigned gpu_copy_grid(int multiprocessors, int max_threads_per_mp, unsigned block,
                       uint64_t words16)
{
    uint64_t grid, groups;
    unsigned per_mp;

    if (block == 0)
        block = 1;
    if (multiprocessors <= 0)
        grid = 1024;
    else {
        per_mp = max_threads_per_mp > 0 ? (unsigned)max_threads_per_mp / block : 2048 / block;
        grid = (uint64_t)multiprocessors * (per_mp ? per_mp : 1);
    }
    groups = (words16 + (uint64_t)block * 4 - 1) / ((uint64_t)block * 4);
    if (grid > groups)
        grid = groups;
    return grid ? (unsigned)grid : 1;
}

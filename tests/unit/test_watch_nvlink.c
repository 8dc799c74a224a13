#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/tap/tap.h"
#include "watch/nvlink.h"

/* The NVLink reader's deadlines and what it hands the watch, with a source of links of the
 * test's own in place of NVML (there is no GPU here): one that answers, one with nothing to
 * sample, one whose driver failed, and one whose open or read blocks until the test lets it
 * go (a pipe nobody writes to yet). */

static int gate[2] = { -1, -1 }; /* a read of gate[0] blocks until the test writes */
static int block_open, block_sample, opens, samples, absent, failed_open;
static size_t nlinks = 6, skip_link = 99;
static struct topo_nvlink_sample links[8];

static void wait_gate(void)
{
    char c;
    if (read(gate[0], &c, 1) < 0)
        perror("read");
}

static void *src_open(char *why, size_t len, int *failed)
{
    opens++;
    if (block_open)
        wait_gate();
    if (absent || failed_open) {
        *failed = failed_open;
        snprintf(why, len, "%s", failed_open ? "NVML failed: Unknown Error" : "no NVIDIA driver");
        return NULL;
    }
    *failed = 0;
    return links;
}

static size_t src_sample(void *h, const struct topo_nvlink_sample **out)
{
    static struct topo_nvlink_sample v[8];
    size_t n = 0;

    samples++;
    if (block_sample)
        wait_gate();
    for (size_t i = 0; i < nlinks; i++)
        if (i != skip_link)
            v[n++] = ((struct topo_nvlink_sample *)h)[i];
    *out = v;
    return n;
}

static void src_close(void *h)
{
    (void)h;
}

static const struct watch_nvl_ops src = { src_open, src_sample, src_close };

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void reset(void)
{
    block_open = block_sample = opens = samples = absent = failed_open = 0;
    nlinks = 6;
    skip_link = 99;
}

int main(void)
{
    const struct topo_nvlink_sample *v;
    struct watch_nvl *r;
    char why[160], name[96];
    long got;
    double t0;

    if (pipe(gate) < 0)
        skip_all("no pipe");
    for (unsigned i = 0; i < 6; i++) { /* 2 GPUs of 3 links; GPU1's link 2 inactive */
        links[i].gpu = i / 3;
        links[i].link = i % 3;
        snprintf(links[i].busid, sizeof(links[i].busid), "0000:%02x:00.0", 0x18 + (i / 3));
        links[i].active = i != 5;
        links[i].have_errors = 1 << 2; /* CRC flit only */
        links[i].errors[2] = 10 * i;
    }

    /* links read */
    reset();
    r = watch_nvl_new(&src);
    got = watch_nvl_read(r, 1, 5, &v, why, sizeof(why));
    ok(got == 6 && v && v[4].gpu == 1 && v[4].link == 1 && opens == 1,
       "6 links read at the first read, NVML opened once (%ld: %s)", got, why);
    got = watch_nvl_read(r, 1, 5, &v, why, sizeof(why));
    ok(got == 6 && opens == 1 && samples == 2, "...and again, not opened again (%ld)", got);
    watch_nvl_subject(&v[5], name, sizeof(name));
    is_str(name, "GPU1/nvlink2", "a link's name: GPU and link as nvidia-smi numbers them");
    {
        unsigned g = 9, l = 9;
        ok(watch_nvl_subject_parse(name, &g, &l) && g == 1 && l == 2,
           "...read back: GPU 1, link 2");
        ok(!watch_nvl_subject_parse("GPU1/nvlink2x", &g, &l) &&
               !watch_nvl_subject_parse("mlx5_0/1", &g, &l) &&
               !watch_nvl_subject_parse("GPU1", &g, &l),
           "...and nothing else: trailing text, a port, a GPU alone");
    }
    {
        struct watch_sample s;
        watch_nvl_sample(&v[5], 42, &s);
        ok(s.nvlink && s.t == 42 && s.state == WATCH_DOWN && s.ctr[WATCH_NVL_CRC_FLIT] == 50 &&
               s.ctr[WATCH_NVL_REPLAY] == -1 && s.ctr[WATCH_NVL_CRC_DATA] == -1 &&
               s.ctr[WATCH_SYMBOL_ERRORS] == -1,
           "a link as the engine takes it: inactive is down, the counters NVML gave, others -1");
        watch_nvl_sample(&v[0], 43, &s);
        ok(s.state == WATCH_UP && s.ctr[WATCH_NVL_CRC_FLIT] == 0, "an active link is up");
    }
    watch_nvl_free(r);

    /* nothing to sample, a driver that failed: for good */
    for (int f = 0; f < 2; f++) {
        reset();
        absent = !f;
        failed_open = f;
        r = watch_nvl_new(&src);
        got = watch_nvl_read(r, 1, 5, &v, why, sizeof(why));
        ok(got == (f ? -3 : -2) && strstr(why, f ? "NVML failed" : "no NVIDIA driver"),
           "%s: %ld with why (%s)", f ? "the driver failed" : "no driver", got, why);
        got = watch_nvl_read(r, 1, 5, &v, why, sizeof(why));
        ok(got == (f ? -3 : -2) && opens == 1, "...said again, NVML not asked again (opens %d)",
           opens);
        watch_nvl_free(r);
    }

    /* a read that hangs: said at its deadline, then still hanging; once it returns, read again */
    reset();
    r = watch_nvl_new(&src);
    watch_nvl_read(r, 1, 5, &v, why, sizeof(why));
    block_sample = 1;
    t0 = mono();
    got = watch_nvl_read(r, 0.3, 5, &v, why, sizeof(why));
    ok(got == -1 && strstr(why, "did not answer in time (0.3 s)") && mono() - t0 < 2,
       "a read that hangs: -1 at its deadline (%.2f s: %s)", mono() - t0, why);
    t0 = mono();
    got = watch_nvl_read(r, 0.3, 5, &v, why, sizeof(why));
    ok(got == -1 && strstr(why, "still hangs") && mono() - t0 < 0.2 && samples == 2,
       "...next time: still hangs, said at once, NVML not asked again (%s)", why);
    block_sample = 0;
    if (write(gate[1], "x", 1) != 1)
        perror("write");
    for (int i = 0; i < 50 && samples == 2; i++)
        usleep(10000);
    usleep(20000);
    got = watch_nvl_read(r, 0.3, 5, &v, why, sizeof(why));
    ok(got == -1 && strstr(why, "came back"), "...it came back: read again next time (%s)", why);
    got = watch_nvl_read(r, 0.3, 5, &v, why, sizeof(why));
    is_int(got, 6, "...and the next read has the links");
    watch_nvl_free(r);

    /* an open that hangs: the longer deadline of the first read, said as the open */
    reset();
    block_open = 1;
    r = watch_nvl_new(&src);
    t0 = mono();
    got = watch_nvl_read(r, 0.1, 0.4, &v, why, sizeof(why));
    ok(got == -1 && strstr(why, "(0.4 s) when it was opened") && mono() - t0 >= 0.35,
       "an open that hangs: -1 after the open's deadline, 0.4 s not 0.1 (%.2f s: %s)", mono() - t0,
       why);
    /* ended while it hangs: freed at once, its thread frees the rest when the open returns */
    t0 = mono();
    watch_nvl_free(r);
    ok(mono() - t0 < 0.2, "ended while NVML hangs: at once (%.2f s)", mono() - t0);
    if (write(gate[1], "x", 1) != 1)
        perror("write");
    usleep(100000);

    /* the subjects: ports first, the links added as first seen, in NVML's order */
    {
        struct watch_subjects s = { 0 };
        size_t active, added;
        const struct topo_nvlink_sample *x = links;
        watch_subjects_grow(&s, 1);
        s.n = s.nsys = 1;
        snprintf(s.ports[0].subject, sizeof(s.ports[0].subject), "mlx5_0/1");
        added = watch_subjects_nvlinks(&s, 6, x, "", 10, &active);
        ok(added == 6 && active == 5 && s.n == 7 && !strcmp(s.ports[6].subject, "GPU1/nvlink2") &&
               s.ports[6].nvlink && !s.ports[0].nvlink && !strcmp(s.ports[4].dev, "0000:19:00.0") &&
               s.ports[5].port == 1 && s.s[6].t == 10 && s.s[6].state == WATCH_DOWN,
           "6 links after the port, named, with their GPU's address, sampled (%zu added, %zu "
           "active)",
           added, active);
        {
            struct topo_nvlink_sample y[6];
            memcpy(y, links, sizeof(y));
            y[2] = links[4]; /* out of order, GPU1/nvlink2 missing */
            y[4] = links[2];
            added = watch_subjects_nvlinks(&s, 5, y, "", 11, &active);
            ok(added == 0 && s.n == 7 && s.s[3].t == 11 && s.s[5].t == 11 && s.s[1].t == 11,
               "read again, in another order: none added, each found (%zu)", added);
            ok(!s.why[1][0] && !s.why[5][0] && strstr(s.why[6], "no longer gives") && !s.why[0][0],
               "...a link NVML no longer gives: not sampled, said why (%s)", s.why[6]);
        }
        snprintf(s.why[0], sizeof(s.why[0]), "port's own");
        added = watch_subjects_nvlinks(&s, -1, NULL, "NVML's read still hangs", 12, &active);
        ok(added == 0 && !strcmp(s.why[1], "NVML's read still hangs") &&
               !strcmp(s.why[6], "NVML's read still hangs") && !strcmp(s.why[0], "port's own"),
           "no read: every link not sampled, with why; the port's own left alone");
        watch_subjects_free(&s);
    }
    close(gate[0]);
    close(gate[1]);
    return done_testing();
}

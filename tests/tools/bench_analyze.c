/* bench_analyze N R: the fabric analysis (fault localization) of a synthetic all-pairs result,
 * N nodes x R rails, one port slow and one link failed, as scripts/bench-report generates it;
 * prints "analyse <seconds>" and the findings. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/xmalloc.h"
#include "fabric/analyze.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024, r = argc > 2 ? atoi(argv[2]) : 8;
    size_t nl = (size_t)n * (size_t)(n - 1) / 2 * (size_t)r, k = 0;
    struct fabric_link *l = xcalloc(nl, sizeof(*l));
    struct fabric_port *ports = xcalloc((size_t)n * (size_t)r, sizeof(*ports));
    double *expect = xcalloc((size_t)r, sizeof(*expect));
    char **names = xcalloc((size_t)n, sizeof(*names));
    struct topo_findings f = { 0 };
    struct timespec t0, t1;
    int round = 0;

    if (n < 2 || r < 1)
        return 2;
    for (int i = 0; i < n; i++) {
        names[i] = xmalloc(16);
        snprintf(names[i], 16, "gpu%04d", i + 1);
    }
    for (int i = 0; i < n * r; i++)
        ports[i].carrier = 1;
    for (int i = 0; i < r; i++)
        expect[i] = 360;
    for (int a = 1; a <= n; a++)
        for (int b = a + 1; b <= n; b++, round++)
            for (int q = 0; q < r; q++, k++) {
                struct fabric_link *x = &l[k];
                x->round = round;
                x->rail = q;
                x->a = a - 1;
                x->b = b - 1;
                x->ok = !(a == 5 && b == 900 && q == 6);
                x->bw_gbps = (a == 17 || b == 17) && q == 3 ? 180 : 390 + (a * 7 + b * 13 + q) % 10;
                x->lat_p50_us = 3.1;
                x->lat_p99_us = 4.0;
                x->retrans = -1;
                x->errors_a = x->errors_b = -1;
            }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    {
        struct fabric_input in = { n, r, names, ports, expect, l, nl, NULL, 0, NULL, 0, 0, 0 };
        fabric_analyze(&in, &f);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("analyse %.3f\n",
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    for (size_t i = 0; i < f.n; i++)
        if (f.v[i].sev != TOPO_SEV_OK)
            printf("%s %s %s\n", f.v[i].sev == TOPO_SEV_FAIL ? "FAIL" : "WARN", f.v[i].check,
                   f.v[i].subject);
    return 0;
}

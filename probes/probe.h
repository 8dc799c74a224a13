#ifndef RAILYARD_PROBES_PROBE_H
#define RAILYARD_PROBES_PROBE_H

#include <stddef.h>

#include "src/common/error.h"

/* The probe interface: a probe is a const table of callbacks, listed explicitly in
 * probes/registry.c (the only place where optional probes appear under #ifdef HAVE_X).
 * Probes measure; the shared engine times, repeats and reports. No probe prints or exits. */

enum {
    PROBE_NEED_MPI = 1 << 0,
    PROBE_NEED_VERBS = 1 << 1,
    PROBE_NEED_CUDA = 1 << 2,
};

struct probe_run; /* the engine's per-run context */

struct probe_result {
    const char *metric; /* "bw_gbps" */
    double value;
    int valid;      /* 0: not measured */
    char where[64]; /* "mlx5_0:1", "gpu0->gpu3" */
};

struct probe {
    const char *name;    /* unique, lowercase, no spaces */
    const char *summary; /* one line for `railyard list-probes` */
    unsigned needs;      /* PROBE_NEED_* */
    /* cheap; -1 = skip, with the reason in err ("no RDMA device") */
    int (*available)(ry_error_t *err);
    int (*setup)(struct probe_run *run, void **state, ry_error_t *err);
    int (*measure)(struct probe_run *run, void *state, struct probe_result *res, size_t max,
                   ry_error_t *err);
    void (*teardown)(void *state);
};

#endif

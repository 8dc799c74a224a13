#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "fabric/host.h"
#include "fabric/mpi.h"
#include "fabric/nccl.h"
#include "fabric/run.h"

/* A step of the collective phase over MPI (fabric/run.h): rank 0 gives each rank its group,
 * every rank times its group's collective (MPI on host memory or NCCL on the GPU's), and rank 0
 * collects the seconds. What the figures mean is fabric/coll_phase.c's. */

/* This rank's part of a collective step: every rank takes part in making the step's
 * communicators (MPI_Comm_split over the world); a rank of a group then times its collective
 * (two warm-ups, then as many iterations as the group's first rank finds fill the duration) and
 * says its seconds per iteration. */
void fabric_run_coll(const struct fabric_run *r, const struct fabric_go *g,
                     struct fabric_result *res)
{
    enum fabric_coll op = (enum fabric_coll)g->coll_op;
    size_t size = (size_t)g->coll_size;
    double deadline = fabric_now() + g->coll_timeout, warm = -1, sec = -1;
    struct fabric_host_sample h0, h1;
    struct fabric_mpi_coll *mh = NULL;
    struct fabric_nccl *nh = NULL;
    ry_error_t err = { "" };
    MPI_Comm comm = MPI_COMM_NULL;
    int32_t iters = 1;
    int me = 0, bad = 0;

    memset(res, 0, sizeof(*res));
    res->round = g->round;
    res->ok = 1;
    res->coll_sec = -1;
    res->cpu_frac = res->wait_frac = res->pressure_frac = -1;
    res->bytes = res->wire_bytes = res->bytes2 = res->wire_bytes2 = -1;
    MPI_Comm_split(MPI_COMM_WORLD, g->coll_color >= 0 ? g->coll_color : MPI_UNDEFINED, r->rank,
                   &comm);
    if (g->coll_color < 0 || comm == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(comm, &me);
    fabric_host_sample(&h0);
    if (g->coll_nccl) {
        unsigned char id[FABRIC_NCCL_ID_BYTES] = { 0 };
        int n = 0;
        MPI_Comm_size(comm, &n);
        /* the first rank's id, or its failure as an id of zeros */
        if (me == 0 && fabric_nccl_unique_id(id, &err) < 0)
            memset(id, 0, sizeof(id));
        if (fabric_mpi_bcast(&comm, id, (int)sizeof(id), 0, deadline, &err) < 0)
            bad = 1;
        else {
            int zero = 1;
            for (size_t i = 0; i < sizeof(id); i++)
                zero &= id[i] == 0;
            if (zero && !err.text[0])
                snprintf(err.text, sizeof(err.text), "the first rank could not make an NCCL id");
            if (zero || !(nh = fabric_nccl_open(id, n, me, r->me.gpu, size, &err)))
                bad = 1;
        }
    } else if (!(mh = fabric_mpi_coll_open(&comm, size))) {
        snprintf(err.text, sizeof(err.text), "%zu bytes is too large for MPI", size);
        bad = 1;
    }
    /* warm-ups: connections made, buffers touched; the second one timed */
    for (int i = 0; i < 2 && !bad; i++)
        bad = (nh ? fabric_nccl_time(nh, op, size, 1, deadline, &warm, &err)
                  : fabric_mpi_coll_time(mh, op, size, 1, deadline, &warm, &err)) < 0;
    /* the count of iterations, from the first rank's warm-up, agreed with every rank of the
     * group: a rank that failed says -1, and the others stop with it rather than wait for it */
    {
        int v = bad         ? -1
                : me != 0   ? INT_MAX
                : warm <= 0 ? 1
                            : (int)fmin(100000, fmax(1, ceil(g->coll_duration / warm)));
        if (fabric_mpi_min(&comm, &v, deadline, &err) < 0)
            bad = 1;
        else if (v < 0 && !bad) {
            bad = 1;
            snprintf(err.text, sizeof(err.text), "another rank of the group failed");
        }
        iters = v;
    }
    if (!bad)
        bad = (nh ? fabric_nccl_time(nh, op, size, iters, deadline, &sec, &err)
                  : fabric_mpi_coll_time(mh, op, size, iters, deadline, &sec, &err)) < 0;
    fabric_host_sample(&h1);
    fabric_host_load(&h0, &h1, &res->cpu_frac, &res->wait_frac, &res->pressure_frac);
    res->ok = !bad;
    res->coll_sec = bad ? -1 : sec;
    res->coll_iters = iters;
    if (bad)
        snprintf(res->error, sizeof(res->error), "%s", err.text);
    fabric_nccl_close(nh);
    /* a communicator with a collective still in flight stays */
    if (!mh || !fabric_mpi_coll_broken(mh))
        MPI_Comm_free(&comm);
    fabric_mpi_coll_close(mh);
}

/* Rank 0: one step of the phase: the groups e[0..n-1] (op, size, rail, nodes set) side by side,
 * their figures filled in and kept. 0, or -1 when a rank was lost (the phase stops). */
int fabric_run_coll_step(struct fabric_run *r, struct fabric_coll_entry *e, int n)
{
    struct fabric_result mine;
    double timeout = r->o.round_timeout + r->o.coll_duration;
    char what[64];
    size_t lost = r->nfailed;

    fabric_run_coll_gos(r, e, n, timeout);
    r->coll_steps++;
    fabric_run_send_go(r, 0);
    fabric_run_coll(r, &r->gos[0], &mine);
    snprintf(what, sizeof(what), "collective step %d", r->coll_steps);
    fabric_run_collect(r, what, timeout, &mine);
    fabric_run_coll_results(r, e, n);
    return r->nfailed > lost ? -1 : 0;
}

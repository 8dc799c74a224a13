#include "config.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "common/error.h"
#include "common/sysfs.h"
#include "common/xmalloc.h"
#include "fabric/cuda.h"
#include "fabric/mpi.h"
#include "fabric/nccl.h"
#include "readers/numa.h"
#include "fabric/run.h"

/* The start of a run (fabric/run.h): MPI_Init with a deadline, each rank's place (node and
 * rail), the start-up exchange of every rank's facts (with the side channel, ranks that MPI
 * cannot reach are found and judged without), and rank 0's layout of the nodes, rails and
 * rounds. */

/* ---- MPI_Init's deadline ----
 * MPI_Init waits for every rank (Open MPI's and Slurm's PMIx fence): a rank that never started
 * (killed at its start, a node that could not launch it) stops the others there for good,
 * before railyard-fabric has a word to say. A watchdog thread gives MPI_Init the start-up
 * deadline (--start-timeout, read from argv before MPI_Init may parse it), then says why on
 * stderr and leaves with exit status 2: the run could not be judged. */
#ifndef RAILYARD_SMPI
#include <pthread.h>
#include <stdatomic.h>

/* what the watchdog and MPI_Init's caller share (on the caller's stack: railyard-fabric keeps
 * no writable globals, as ranks share one process under SMPI) */
struct init_watch {
    double limit;
    atomic_int done;
};

static void *init_watchdog(void *arg)
{
    struct init_watch *w = arg;
    double end = fabric_now() + w->limit;
    char msg[256];
    int n;

    while (!atomic_load(&w->done)) {
        if (fabric_now() > end) {
            n = snprintf(msg, sizeof(msg),
                         "railyard-fabric: MPI_Init did not complete in %.0f s (a rank did not "
                         "start, or the launcher cannot reach one): not judged\n",
                         w->limit);
            if (write(STDERR_FILENO, msg, (size_t)n) < 0) {
                /* nothing more to say */
            }
            _exit(2);
        }
        struct timespec ts = { 0, 100000000 };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* the --start-timeout in argv, else the default (60 s) */
static double start_timeout_arg(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--start-timeout") && i + 1 < argc)
            v = argv[i + 1];
        else if (!strncmp(argv[i], "--start-timeout=", 16))
            v = argv[i] + 16;
        if (v && atof(v) > 0)
            return atof(v);
    }
    return 60;
}

static void mpi_init_with_deadline(int *argc, char ***argv)
{
    struct init_watch w = { .limit = start_timeout_arg(*argc, *argv) };
    pthread_t t;
    int watched;

    atomic_init(&w.done, 0);
    watched = pthread_create(&t, NULL, init_watchdog, &w) == 0;
    MPI_Init(argc, argv);
    atomic_store(&w.done, 1);
    if (watched)
        pthread_join(t, NULL);
}
#else
static void mpi_init_with_deadline(int *argc, char ***argv)
{
    MPI_Init(argc, argv); /* a simulated rank always starts */
}
#endif

void fabric_run_start(struct fabric_run *r, int *argc, char ***argv)
{
    memset(r, 0, sizeof(*r));
    r->node = -1;
    r->coll_step = fabric_run_coll_step;
    mpi_init_with_deadline(argc, argv);
    r->argc = *argc;
    r->argv = *argv;
    MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    {
        /* the side channel: without it (no PMIx server, or a build without PMIx) the start-up
         * exchange is MPI's alone, and a rank that MPI cannot reach stops the run (exit 2) */
        char why[160];
        if (fabric_side_open(&r->side, why, sizeof(why)) < 0 && getenv("RAILYARD_FABRIC_DEBUG"))
            fprintf(stderr, "railyard-fabric: rank %d: no side channel: %s\n", r->rank, why);
    }
    {
        /* the host's name (under SMPI: the simulated host's) */
        char pn[MPI_MAX_PROCESSOR_NAME];
        int len = 0;
        if (MPI_Get_processor_name(pn, &len) != MPI_SUCCESS || len <= 0)
            gethostname(pn, sizeof(pn) - 1), len = (int)strnlen(pn, sizeof(pn) - 1);
        snprintf(r->host, sizeof(r->host), "%.*s", len, pn);
    }
    r->started = fabric_now();
}

int fabric_run_open(struct fabric_run *r)
{
    ry_error_t err = { "" };

    r->t = !strcmp(r->o.transport, "verbs") ? &fabric_transport_verbs
           : !strcmp(r->o.transport, "mpi") ? &fabric_transport_mpi
                                            : &fabric_transport_tcp;
    if (r->o.map && !(r->map = topo_map_load(r->o.map, &err))) {
        if (r->rank == 0)
            fabric_run_log(r, "%s", err.text);
        return 2;
    }
    return FABRIC_GO_ON;
}

static int name_cmp(const void *a, const void *b)
{
    return ry_natcmp(*(char *const *)a, *(char *const *)b);
}

/* The NUMA node the rank is bound to: -1 when it may run anywhere. */
#ifndef RAILYARD_SMPI
static int bound_numa(void)
{
    cpu_set_t set;
    int cpus[CPU_SETSIZE];
    size_t ncpu = 0;

    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            cpus[ncpu++] = c;
    return topo_numa_of_cpus(NULL, cpus, ncpu);
}
#endif

struct placing { /* a rank -> rank 0 when rank 0 places the ranks */
    char node[FABRIC_NAME_LEN];
    int32_t rail; /* --nic-hosts: from the host name; -1 otherwise */
};

/* This rank's node and rail (me->host, local_rank, local_size). By default the ranks that share
 * its machine (MPI's shared-memory communicator) are its node's, and its rail is its place
 * among them. Where the machine is not the node (RAILYARD_FABRIC_NODE; Slurm's SLURMD_NODENAME,
 * as several slurmd may share one machine; --nic-hosts, a simulated host per NIC named
 * NODE-rRAIL) rank 0 gathers the node names and tells each rank its place: no rank holds every
 * other's name. */
static int place(struct fabric_run *r, struct fabric_rank_info *me)
{
    const char *forced = getenv("RAILYARD_FABRIC_NODE");
    struct placing mine, *all = NULL;
    int32_t pl[2] = { -1, 0 }, *pls = NULL;
    MPI_Request req;
    int rc = FABRIC_GO_ON;

    memset(&mine, 0, sizeof(mine));
    mine.rail = -1;
    if (r->o.nic_hosts) {
        char *dash = strrchr(r->host, '-'), *end = NULL;
        long rail = dash && dash[1] == 'r' ? strtol(dash + 2, &end, 10) : -1;
        if (!end || end == dash + 2 || *end || rail < 0 || rail > 255)
            mine.rail = -2; /* not NODE-rRAIL: rank 0 says so */
        else {
            mine.rail = (int32_t)rail;
            *dash = '\0';
        }
    } else {
        const char *slurm = getenv("SLURMD_NODENAME");
        int lr, ls;
        /* the launcher knows each rank's place on its host: no MPI message needed (one that
         * could not leave a rank whose MPI runs on a dead port) */
        if ((!forced || !*forced) && fabric_side_local(&r->side, &lr, &ls) == 0) {
            if (slurm && *slurm)
                snprintf(r->host, sizeof(r->host), "%s", slurm);
            me->local_rank = lr;
            me->local_size = ls;
            snprintf(me->host, sizeof(me->host), "%s", r->host);
            return FABRIC_GO_ON;
        }
        if (!forced || !*forced)
            forced = slurm;
        if (!forced || !*forced) {
            MPI_Comm node_comm;
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm);
            MPI_Comm_rank(node_comm, &me->local_rank);
            MPI_Comm_size(node_comm, &me->local_size);
            MPI_Comm_free(&node_comm);
            snprintf(me->host, sizeof(me->host), "%s", r->host);
            return FABRIC_GO_ON;
        }
        snprintf(r->host, sizeof(r->host), "%s", forced);
    }
    snprintf(mine.node, sizeof(mine.node), "%s", r->host);
    snprintf(me->host, sizeof(me->host), "%s", r->host);
    if (r->rank == 0)
        all = xcalloc((size_t)r->size, sizeof(*all));
    MPI_Igather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, 0,
                MPI_COMM_WORLD, &req);
    if (!fabric_run_wait_until(&req, fabric_now() + r->o.start_timeout)) {
        fabric_run_log(r, "the start-up exchange did not finish within %g s: a rank did not start",
                       r->o.start_timeout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (r->rank == 0) {
        /* group the ranks by node: sort their indices by (node name, rail or world rank) */
        int *ix = xcalloc((size_t)r->size, sizeof(*ix));
        pls = xcalloc((size_t)r->size * 2, sizeof(*pls));
        for (int k = 0; k < r->size; k++) {
            ix[k] = k;
            if (all[k].rail == -2 && rc == FABRIC_GO_ON) {
                fabric_run_log(r, "--nic-hosts: rank %d runs on host %s, not <node>-r<rail>", k,
                               all[k].node);
                rc = 2;
            }
        }
        for (int a = 1; a < r->size; a++) { /* insertion sort on mostly sorted input */
            int v = ix[a], b = a - 1;
            while (b >= 0) {
                const struct placing *x = &all[ix[b]], *y = &all[v];
                int c = name_cmp(&(const char *){ x->node }, &(const char *){ y->node });
                if (c < 0 || (c == 0 && (x->rail >= 0 ? x->rail < y->rail : ix[b] < v)))
                    break;
                ix[b + 1] = ix[b];
                b--;
            }
            ix[b + 1] = v;
        }
        for (int a = 0; a < r->size;) {
            int e = a;
            while (e < r->size && !strcmp(all[ix[e]].node, all[ix[a]].node))
                e++;
            for (int k = a; k < e; k++) {
                int32_t lr = all[ix[k]].rail >= 0 ? all[ix[k]].rail : k - a;
                if (all[ix[k]].rail >= 0 && lr != k - a && rc == FABRIC_GO_ON) {
                    fabric_run_log(r, "--nic-hosts: node %s has no host %s-r%d or two of one rail",
                                   all[ix[a]].node, all[ix[a]].node, k - a);
                    rc = 2;
                }
                pls[2 * ix[k]] = lr;
                pls[2 * ix[k] + 1] = e - a;
            }
            a = e;
        }
        free(ix);
        free(all);
    }
    MPI_Iscatter(pls, 2, MPI_INT32_T, pl, 2, MPI_INT32_T, 0, MPI_COMM_WORLD, &req);
    if (!fabric_run_wait_until(&req, fabric_now() + r->o.start_timeout)) {
        fabric_run_log(r, "the start-up exchange did not finish within %g s: a rank did not start",
                       r->o.start_timeout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(pls);
    me->local_rank = pl[0];
    me->local_size = pl[1];
    return rc;
}

/* Has rank 0 gone on without this rank (its start-up message never came)? Then it says so. */
int fabric_run_dropped_me(struct fabric_run *r)
{
    size_t nb = ((size_t)r->size + 7) / 8;
    unsigned char *dropped = xcalloc(nb, 1);
    int me =
        fabric_side_get(&r->side, 0, FABRIC_SIDE_DROPPED, dropped, nb, fabric_now() + 2) == 0 &&
        dropped[r->rank / 8] & (1u << (r->rank % 8));

    free(dropped);
    if (me)
        fabric_run_log(
            r,
            "rank %d (%s, rail %d): its start-up message did not reach rank 0 over MPI in "
            "%.0f s: rank 0 judges without it",
            r->rank, r->me.host, r->me.local_rank, fabric_now() - r->started);
    return me;
}

/* The start-up exchange where the side channel holds every rank's facts: each rank sends them
 * to rank 0 over MPI (point to point: a rank that cannot send holds up no other). A rank whose
 * message has not come FABRIC_REACH_GRACE s after the last that did, and whose facts the side
 * channel has, is alive but reaches no rank over MPI: where its MPI runs on its rail
 * (UCX_NET_DEVICES, Open MPI's btl_tcp_if_include), its port is dead or cabled elsewhere. Rank 0
 * takes its facts from the side channel and fails its links unmeasured; the analysis names the
 * port. A rank with no facts either did not start: the run stops (exit 2), as without the side
 * channel. */
static int hello(struct fabric_run *r, int placed)
{
    MPI_Request *reqs, one;
    int missing = r->size - 1, nofacts = 0, outcount, *idx;
    enum fabric_hello_verdict verdict;
    double start = fabric_now(), last = start, next_look = start + FABRIC_REACH_GRACE,
           deadline = start + r->o.start_timeout;
    struct timespec nap = { 0, 1000000 };

    if (r->rank != 0) {
        MPI_Isend(&r->me, (int)sizeof(r->me), MPI_BYTE, 0, FABRIC_TAG_HELLO, MPI_COMM_WORLD, &one);
        /* sent, or rank 0 says it went on without this rank, or the deadline (a send cannot be
         * taken back: it stays posted until the rank leaves) */
        while (!fabric_run_poll_until(&one, fabric_now() + FABRIC_REACH_GRACE + 1))
            if (fabric_run_dropped_me(r) || fabric_now() > start + r->o.start_timeout) {
                r->unheard = 1;
                break;
            }
        return placed;
    }
    r->info[0] = r->me;
    r->unreached = xcalloc((size_t)r->size, 1);
    reqs = xcalloc((size_t)r->size, sizeof(*reqs));
    idx = xcalloc((size_t)r->size, sizeof(*idx));
#ifdef RAILYARD_SMPI
    /* simulated ranks all send it: taken as they come (SMPI keeps a receive that a test found
     * done among the rank's requests under way for the whole run: fabric/protocol.c); idx,
     * unused here, holds each rank's came-in-time flag, and every rank's message is read */
    fabric_run_smpi_gather(r, FABRIC_TAG_HELLO, r->info, sizeof(*r->info), NULL, idx, deadline);
    missing = 0;
#else
    for (int k = 1; k < r->size; k++)
        MPI_Irecv(&r->info[k], (int)sizeof(r->info[k]), MPI_BYTE, k, FABRIC_TAG_HELLO,
                  MPI_COMM_WORLD, &reqs[k]);
#endif
    while (fabric_run_hello_step(missing, fabric_now(), deadline, last, next_look) !=
           FABRIC_HELLO_END) {
        double now;
        MPI_Testsome(r->size - 1, reqs + 1, &outcount, idx, MPI_STATUSES_IGNORE);
        now = fabric_now();
        if (outcount != MPI_UNDEFINED && outcount > 0) {
            missing -= outcount;
            last = now;
            continue;
        }
        if (fabric_run_hello_step(missing, now, deadline, last, next_look) == FABRIC_HELLO_LOOK) {
            /* the ones still missing: alive (their facts published) or not started */
            struct fabric_rank_info probe;
            int alive = 1;
            for (int k = 1; k < r->size && alive; k++)
                if (reqs[k] != MPI_REQUEST_NULL)
                    alive = fabric_side_get(&r->side, k, FABRIC_SIDE_FACTS, &probe, sizeof(probe),
                                            fabric_now() + 2) == 0;
            if (alive)
                break;
            next_look = fabric_now() + 5;
        }
        nanosleep(&nap, NULL);
    }
    for (int k = 1; k < r->size; k++) {
        if (reqs[k] == MPI_REQUEST_NULL)
            continue;
        MPI_Cancel(&reqs[k]);
        MPI_Request_free(&reqs[k]);
        if (fabric_side_get(&r->side, k, FABRIC_SIDE_FACTS, &r->info[k], sizeof(r->info[k]),
                            fabric_now() + 5) < 0) {
            nofacts++;
            continue;
        }
        r->unreached[k] = 1;
        r->nunreached++;
        fabric_run_log(
            r,
            "rank %d (%s, rail %d, carrier %s) is running, but no MPI message of it came in "
            "%.0f s: its links fail unmeasured",
            k, r->info[k].host, r->info[k].local_rank,
            r->info[k].carrier < 0 ? "unknown"
            : r->info[k].carrier   ? "up"
                                   : "down",
            fabric_now() - start);
    }
    free(reqs);
    free(idx);
    if (r->nunreached) {
        size_t nb = ((size_t)r->size + 7) / 8;
        unsigned char *dropped = xcalloc(nb, 1);
        for (int k = 1; k < r->size; k++)
            if (r->unreached[k])
                dropped[k / 8] |= (unsigned char)(1u << (k % 8));
        fabric_side_put(&r->side, FABRIC_SIDE_DROPPED, dropped, nb);
        free(dropped);
    }
    verdict = fabric_run_hello_verdict(r->size, r->nunreached, nofacts);
    if (verdict == FABRIC_HELLO_NOT_STARTED) {
        fabric_run_log(r, "the start-up exchange did not finish within %g s: a rank did not start",
                       r->o.start_timeout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (verdict == FABRIC_HELLO_CUT_OFF) {
        /* most of the others unreachable: rank 0's own path is the likelier fault */
        fabric_run_log(
            r,
            "rank 0 (%s, rail %d) heard over MPI from %d of %d ranks: it cannot judge the "
            "others (its own port: carrier %s)",
            r->me.host, r->me.local_rank, r->size - 1 - r->nunreached, r->size - 1,
            r->me.carrier < 0 ? "unknown"
            : r->me.carrier   ? "up"
                              : "down");
        return 2;
    }
    return placed;
}

/* The collective phase's GPU of this rank, when NCCL may be used: its rail's number modulo the
 * GPUs it sees (CUDA_VISIBLE_DEVICES narrows them), where libnccl.so.2 loads; else why not. */
static void coll_gpu(const struct fabric_run *r, struct fabric_rank_info *me)
{
    ry_error_t err = { "" };
    int count = 0, version = 0;
    int (*get_count)(int *);

    me->gpu = -1;
    if (!r->o.coll_mask || !strcmp(r->o.coll_lib, "mpi"))
        return;
#ifdef RAILYARD_SMPI
    snprintf(me->nccl_why, sizeof(me->nccl_why), "a simulated rank has no GPU");
    return;
#endif
    if (fabric_cuda_load(&err) == 0 &&
        (*(void **)&get_count = fabric_cuda_sym("cuDeviceGetCount")) &&
        (get_count(&count) != 0 || count <= 0))
        snprintf(err.text, sizeof(err.text), "no GPU on this node");
    if (count > 0 && fabric_nccl_load(me->local_rank % count, &version, &err) == 0) {
        me->gpu = me->local_rank % count;
        return;
    }
    snprintf(me->nccl_why, sizeof(me->nccl_why), "%s", err.text[0] ? err.text : "no GPU");
}

/* Identify nodes and rails (place()), this rank's netdev from the map; set the transport up on
 * it; rank 0 learns every rank's end. */
int fabric_run_identify(struct fabric_run *r)
{
    struct fabric_rank_info *me = &r->me;
    ry_error_t err = { "" };
    MPI_Request req;
    MPI_Comm world = MPI_COMM_WORLD; /* the mpi transport keeps a copy */
    struct fabric_setup su;
    int placed = place(r, me);

    r->rail = me->local_rank;
    if (r->map) {
        r->type = r->o.node_type ? topo_map_type_by_name(r->map, r->o.node_type)
                                 : topo_map_type_for_host(r->map, r->host);
        if (!r->type && r->map->ntypes == 1 && !r->o.node_type)
            r->type = &r->map->types[0];
    }
    if (r->type) {
        for (size_t i = 0; i < r->type->nnics; i++)
            if (r->type->nics[i].rail == r->rail && r->type->nics[i].netdev)
                snprintf(r->netdev, sizeof(r->netdev), "%s", r->type->nics[i].netdev);
    } else
        snprintf(r->netdev, sizeof(r->netdev), r->o.netdev_fmt, r->rail);
    su = (struct fabric_setup){ r->netdev, r->host, &r->o.vo, r->rank, &world };
    if (placed != FABRIC_GO_ON)
        snprintf(me->ep.error, sizeof(me->ep.error), "not placed");
    else if ((r->netdev[0] || r->t == &fabric_transport_mpi) &&
             r->t->setup(&su, &me->ep, &r->ts, &err) < 0) {
        snprintf(me->ep.error, sizeof(me->ep.error), "%s", err.text);
        me->ep.unusable = 1;
    } else if (!r->netdev[0] && r->t != &fabric_transport_mpi)
        snprintf(me->ep.error, sizeof(me->ep.error), "the map has no netdev for rail %d", r->rail);
    me->ep.rank = r->rank;
    me->carrier = r->netdev[0] ? fabric_run_carrier(r->netdev) : -1;
#ifdef RAILYARD_SMPI
    /* simulated ranks have no placement of their own */
    me->nic_numa = me->rank_numa = -1;
#else
    me->nic_numa = r->netdev[0] ? topo_numa_of_netdev(NULL, r->netdev) : -1;
    me->rank_numa = bound_numa();
#endif
    coll_gpu(r, me);

    if (r->rank == 0)
        r->info = xcalloc((size_t)r->size, sizeof(*r->info));
    if (r->side.open && fabric_side_put(&r->side, FABRIC_SIDE_FACTS, me, sizeof(*me)) == 0)
        return hello(r, placed);
    MPI_Igather(me, (int)sizeof(*me), MPI_BYTE, r->info, (int)sizeof(*me), MPI_BYTE, 0,
                MPI_COMM_WORLD, &req);
    if (!fabric_run_wait_until(&req, fabric_now() + r->o.start_timeout)) {
        fabric_run_log(r, "the start-up exchange did not finish within %g s: a rank did not start",
                       r->o.start_timeout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return placed;
}

/* rank 0: the ranks no message goes to, from the start: the unreachable ones */
int *fabric_run_lost_at_start(const struct fabric_run *r)
{
    int *lost = xcalloc((size_t)r->size, sizeof(*lost));
    for (int k = 0; r->unreached && k < r->size; k++)
        lost[k] = r->unreached[k];
    return lost;
}

/* Lay out (rank 0): nodes in natural order of their names, each (node, rail) to its rank, the
 * schedule, the goodput expected per rail. */
int fabric_run_lay_out(struct fabric_run *r)
{
    const struct map_node_type *type = r->type;
    char **names = xcalloc((size_t)r->size, sizeof(*names));
    ry_error_t err = { "" };
    int n = 0, rc;

    for (int i = 0; i < r->size; i++) {
        int seen = 0;
        for (int k = 0; k < n; k++)
            seen |= !strcmp(names[k], r->info[i].host);
        if (!seen)
            names[n++] = xstrdup(r->info[i].host);
    }
    qsort(names, (size_t)n, sizeof(*names), name_cmp);
    r->nodes = n;
    r->names = names;
    r->rails = r->info[0].local_size;
    for (int i = 0; i < r->size; i++)
        if (r->info[i].local_size != r->rails) {
            if (r->rank == 0)
                fabric_run_log(
                    r, "nodes run different numbers of ranks: give every node one rank per rail");
            return 2;
        }
    if (type) {
        int maprails = 0;
        for (size_t i = 0; i < type->nnics; i++)
            if (type->nics[i].rail >= 0)
                maprails++;
        if (maprails != r->rails) {
            if (r->rank == 0)
                fabric_run_log(r,
                               "%d ranks per node, but node type '%s' of %s has %d rails: run one "
                               "rank per rail",
                               r->rails, type->name, r->o.map, maprails);
            return 2;
        }
    } else if (r->map) {
        if (r->rank == 0)
            fabric_run_log(r, "%s: host %s is in no host list of the map (use --node-type)",
                           r->o.map, r->host);
        return 2;
    }
    if (r->nodes < 2) {
        if (r->rank == 0)
            fabric_run_log(r,
                           "all ranks run on one node (%s): railyard-fabric tests links between "
                           "nodes",
                           names[0]);
        return 2;
    }
    r->rank_of = xcalloc((size_t)r->nodes * (size_t)r->rails, sizeof(*r->rank_of));
    for (int i = 0; i < r->size; i++)
        for (int k = 0; k < n; k++)
            if (!strcmp(names[k], r->info[i].host))
                r->rank_of[k * r->rails + r->info[i].local_rank] = i;
    for (int k = 0; k < n; k++)
        if (!strcmp(names[k], r->host))
            r->node = k;

    /* a rank that cannot test at all (memory kind or transport unavailable on its node) makes
     * the run unable to judge: exit 2, never a port fault */
    {
        int unusable = 0;
        for (int i = 0; i < r->size; i++)
            if (r->info[i].ep.unusable) {
                if (r->rank == 0)
                    fabric_run_log(r, "%s rail %d: %s", r->info[i].host, r->info[i].local_rank,
                                   r->info[i].ep.error);
                unusable = 1;
            }
        if (unusable) {
            if (r->rank == 0)
                fabric_run_log(r, "cannot judge the links: the test cannot run on every rank");
            return 2;
        }
    }

    if (!strcmp(r->o.schedule, "all-pairs"))
        rc = fabric_schedule_all_pairs(r->nodes, &r->sched, &err);
    else if (!strcmp(r->o.schedule, "ring"))
        rc = fabric_schedule_ring(r->nodes, r->o.shift, &r->sched, &err);
    else if (!strcmp(r->o.schedule, "custom"))
        rc = fabric_schedule_custom(r->o.pairs, r->nodes, r->names, &r->sched, &err);
    else
        rc = fabric_schedule_neighbor(r->nodes, &r->sched, &err);
    if (rc < 0) {
        if (r->rank == 0)
            fabric_run_log(r, "%s", err.text);
        return 2;
    }
    r->lat_only = xcalloc(r->sched.n ? r->sched.n : 1, 1);
    /* --spread: rings of shifts n/2, n/4 ... measured as the schedule is: each node with nodes
     * ever farther along the list, whole leaves with other leaves, so that the pairs cross the
     * spines by every route and not only where the schedule's pairs straddle two leaves; the
     * ring schedule's own shift is measured already, and a shift under 4 stays within a leaf */
    for (int sh = r->nodes / 2, k = 0; k < r->o.spread && sh >= 4; sh /= 2, k++) {
        struct fabric_schedule extra;
        if (!(!strcmp(r->o.schedule, "ring") && sh == r->o.shift) &&
            fabric_schedule_ring(r->nodes, sh, &extra, &err) == 0)
            fabric_run_append_rounds(r, &extra, 0);
    }
    /* --latency-sweep: rings of shifts 2..k+1 (each pair once: shifts below half the nodes) */
    for (int sh = 2; sh <= r->o.lat_sweep + 1 && 2 * sh < r->nodes; sh++) {
        struct fabric_schedule extra;
        if (fabric_schedule_ring(r->nodes, sh, &extra, &err) == 0)
            fabric_run_append_rounds(r, &extra, 1);
    }

    r->expect = xcalloc((size_t)r->rails, sizeof(*r->expect));
    for (int k = 0; k < r->rails; k++) {
        r->expect[k] = -1;
        for (size_t i = 0; type && i < type->nnics; i++)
            if (type->nics[i].rail == k) {
                if (type->thresholds.rail_bw_gbps > 0)
                    r->expect[k] = type->thresholds.rail_bw_gbps;
                else if (type->nics[i].rate_gbps > 0)
                    /* TCP goodput is ~95% of the line rate (headers) */
                    r->expect[k] = type->nics[i].rate_gbps * 0.9;
            }
    }
    r->coll_ratio = -1;
    /* the map's wire limits: unset is the default, 0 is none */
    if (type) {
        double g = type->thresholds.goodput_ratio_min, e = type->thresholds.ecn_marked_max;
        r->goodput_min = g < 0 ? 0 : g == 0 ? -1 : g;
        r->ecn_max = e < 0 ? 0 : e == 0 ? -1 : e;
        r->coll_ratio = type->thresholds.collective_busbw_ratio_min;
    }
    r->type_name = type ? type->name : NULL;
    r->map_cluster = r->map ? r->map->cluster : NULL;
    r->rank_lost = fabric_run_lost_at_start(r);
    r->res = xcalloc((size_t)r->size, sizeof(*r->res));
    r->got = xcalloc((size_t)r->size, sizeof(*r->got));
    r->gos = xcalloc((size_t)r->size, sizeof(*r->gos));
    return FABRIC_GO_ON;
}

#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "common/xmalloc.h"
#include "fabric/mpi.h"
#include "fabric/verbs.h"

/* The mpi transport: a link measured with MPI point-to-point messages between its two ranks,
 * over whatever path the MPI library takes for them (UCX over the rail's HCA, Open MPI's tcp
 * BTL, SimGrid's simulated network). Bandwidth as a window of non-blocking sends of the message
 * size answered by one small acknowledgement (osu_bw's pattern), repeated for the duration;
 * latency as a ping-pong of 8-byte messages (osu_latency's). The receiver times the windows and
 * sends its figures back in the last acknowledgement.
 *
 * Every call of one link's two ends uses its own tag (a count per peer that both ends advance
 * alike), so a message left over from a call that timed out never matches a later one, with this
 * peer or another. A call that times out leaves its requests posted (MPI cannot cancel a send):
 * the buffers then stay until the process ends. Payload is never checked: a late message landing
 * in a buffer in use harms no figure. */

/* Under SimGrid's SMPI (scripts/sim-cluster) the payload is never looked at: the data buffers
 * are SMPI's shared memory, never copied, so 8,192 simulated ranks fit in one machine. Every
 * other allocation stays real (railyard builds it with SMPI_NO_OVERRIDE_MALLOC). */
#ifdef RAILYARD_SMPI
#define DATA_ALLOC(n) SMPI_SHARED_MALLOC(n)
#define DATA_FREE(p)  SMPI_SHARED_FREE(p)
#else
#define DATA_ALLOC(n) xcalloc(1, (n))
#define DATA_FREE(p)  free(p)
#endif

#define TAG_BASE 1000
#define TAG_SPAN 8000

struct mpi_state {
    MPI_Comm comm;
    int rank, size;
    int window;
    size_t msg;
    char *sbuf, *rbuf; /* one message to send; window messages to receive into */
    unsigned *epoch;   /* per peer rank: calls made with it */
    MPI_Request *reqs; /* window */
    int broken;        /* a call timed out with requests in flight: keep the buffers */
    char where[96];    /* "node rank 3": how messages name this end */
};

struct ack {               /* receiver -> sender after each window */
    double more;           /* 1: send another window */
    double bytes, seconds; /* the receiver's count and time so far */
};

static void nap_for(double d)
{
    struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };
    nanosleep(&ts, NULL);
}

/* Wait for n requests until the deadline. 1 all done, 0 timed out.
 * Without pace it spins, as osu_latency does: for the ping-pong, where a sleep would be longer
 * than what is measured. With pace it sleeps between tests for 1/256 of what the same wait took
 * the last time (*pace; the first time from 10 us doubling, after 200 us of spinning): a window
 * of sends is then timed within ~0.5%, and a rank does not spin a core away from the ranks of
 * the other rails (eight ranks on a node, and a busy one).
 * Under SimGrid's SMPI a spin takes no simulated time and each test costs the simulation dearly
 * at thousands of ranks: a wait that has worked before on this link (known) blocks (the
 * platform does not change under a running simulation); the first ones sleep in simulated time
 * between tests, from 1 us doubling to 1 ms, so that a link too slow to carry its first window
 * by the deadline fails as it would on a real fabric. */
static int wait_all(int n, MPI_Request *reqs, double deadline, int known, double *pace)
{
    double t0 = fabric_now(), nap;
    int done = 0;

#ifdef RAILYARD_SMPI
    if (known) {
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        if (pace)
            *pace = fabric_now() - t0;
        return 1;
    }
    nap = 1e-6;
#else
    (void)known;
    nap = pace && *pace > 0 ? *pace / 256 : 1e-5;
#endif
    for (;;) {
        double now;
        MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
        now = fabric_now();
        if (done) {
            if (pace)
                *pace = now - t0;
            return 1;
        }
        if (now > deadline)
            return 0;
#ifdef RAILYARD_SMPI
        nap_for(nap < deadline - now ? nap : deadline - now + 1e-6);
        nap = nap * 2 < 1e-3 ? nap * 2 : 1e-3;
#else
        if (!pace || (*pace <= 0 && now - t0 < 2e-4))
            continue; /* spin */
        nap_for(nap < deadline - now ? nap : deadline - now + 1e-6);
        if (*pace <= 0)
            nap = nap * 2 < 1e-3 ? nap * 2 : 1e-3;
#endif
    }
}

static int mpi_setup(const struct fabric_setup *su, struct fabric_endpoint *local, void **state,
                     ry_error_t *err)
{
    struct mpi_state *st;
    struct fabric_verbs_opts dflt;
    const struct fabric_verbs_opts *o = su->opts;

    memset(local, 0, sizeof(*local));
    *state = NULL;
    if (!su->mpi_comm)
        return ry_errorf(err, "the mpi transport runs only inside railyard-fabric's MPI job");
    if (!o) {
        fabric_verbs_opts_init(&dflt);
        o = &dflt;
    }
    st = xcalloc(1, sizeof(*st));
    st->comm = *(MPI_Comm *)su->mpi_comm;
    MPI_Comm_rank(st->comm, &st->rank);
    MPI_Comm_size(st->comm, &st->size);
    st->window = o->window > 0 ? o->window : 16;
    st->msg = o->msg > 8 ? o->msg : 8;
    st->sbuf = DATA_ALLOC(st->msg);
    st->rbuf = DATA_ALLOC((size_t)st->window * st->msg);
    st->epoch = xcalloc((size_t)st->size, sizeof(*st->epoch));
    st->reqs = xcalloc((size_t)st->window, sizeof(*st->reqs));
    snprintf(st->where, sizeof(st->where), "%s%srank %d", su->node ? su->node : "",
             su->node && *su->node ? " " : "", st->rank);
    *state = st;
    local->ok = 1;
    local->rank = st->rank;
    snprintf(local->addr, sizeof(local->addr), "mpi rank %d", st->rank);
    return 0;
}

/* the tag of this call with peer (both ends count their calls with each other alike) */
static int next_tag(struct mpi_state *st, int peer)
{
    return TAG_BASE + (int)(st->epoch[peer]++ % TAG_SPAN) * 4;
}

static int check_peer(const struct mpi_state *st, const struct fabric_endpoint *peer,
                      ry_error_t *err)
{
    if (peer->rank < 0 || peer->rank >= st->size || peer->rank == st->rank)
        return ry_errorf(err, "%s: no such peer rank %d", st->where, peer->rank);
    return 0;
}

static int timed_out(struct mpi_state *st, const char *what, int peer, ry_error_t *err)
{
    st->broken = 1;
    return ry_errorf(err, "%s: %s with rank %d did not finish by the deadline", st->where, what,
                     peer);
}

/* The start of a bandwidth test: out cleared, the call's tag, the duration sent (sender) or
 * received (receiver) by connect_by. The tag, or -1. */
static int start(struct mpi_state *st, const struct fabric_endpoint *peer, int sender,
                 double *duration, double connect_by, struct fabric_stats *out, ry_error_t *err)
{
    MPI_Request hr;
    double hw = 0;
    int tag;

    fabric_stats_clear(out);
    if (check_peer(st, peer, err) < 0)
        return -1;
    tag = next_tag(st, peer->rank);
    if (sender)
        MPI_Isend(duration, 1, MPI_DOUBLE, peer->rank, tag + 2, st->comm, &hr);
    else
        MPI_Irecv(duration, 1, MPI_DOUBLE, peer->rank, tag + 2, st->comm, &hr);
    if (!wait_all(1, &hr, connect_by, 0, &hw))
        return timed_out(st, "the start", peer->rank, err);
    return tag;
}

static int mpi_send(void *state, const struct fabric_endpoint *peer, double duration, int streams,
                    double connect_by, double deadline, struct fabric_stats *out, ry_error_t *err)
{
    struct mpi_state *st = state;
    struct ack a = { 1, 0, 0 };
    double wt = 0, at = 0; /* what a window, an acknowledgement took */
    int p = peer->rank, tag;

    (void)streams; /* one MPI stream per link: the MPI library spreads it as it does */
    /* the receiver keeps the time: it learns the duration first */
    if ((tag = start(st, peer, 1, &duration, connect_by, out, err)) < 0)
        return -1;
    for (int first = 1; a.more > 0; first = 0) {
        MPI_Request ar;
        for (int i = 0; i < st->window; i++)
            MPI_Isend(st->sbuf, (int)st->msg, MPI_BYTE, p, tag, st->comm, &st->reqs[i]);
        MPI_Irecv(&a, 3, MPI_DOUBLE, p, tag + 1, st->comm, &ar);
        /* the first window also sets the connection up: it answers to connect_by */
        if (!wait_all(st->window, st->reqs, first ? connect_by : deadline, !first, &wt) ||
            !wait_all(1, &ar, first ? connect_by : deadline, !first, &at))
            return timed_out(st, first ? "the first window" : "a window", p, err);
    }
    out->bytes = (long long)a.bytes;
    out->seconds = a.seconds;
    out->bw_gbps = a.seconds > 0 ? a.bytes * 8 / a.seconds / 1e9 : 0;
    snprintf(out->mem, sizeof(out->mem), "host (MPI)");
    return 0;
}

static int mpi_recv(void *state, const struct fabric_endpoint *peer, int streams, double connect_by,
                    double deadline, struct fabric_stats *out, ry_error_t *err)
{
    struct mpi_state *st = state;
    struct ack a = { 1, 0, 0 };
    double t0 = 0, duration = 0, wt = 0, at = 0;
    int p = peer->rank, tag;

    (void)streams;
    if ((tag = start(st, peer, 0, &duration, connect_by, out, err)) < 0)
        return -1;
    for (int first = 1;; first = 0) {
        MPI_Request ar;
        for (int i = 0; i < st->window; i++)
            MPI_Irecv(st->rbuf + (size_t)i * st->msg, (int)st->msg, MPI_BYTE, p, tag, st->comm,
                      &st->reqs[i]);
        if (!wait_all(st->window, st->reqs, first ? connect_by : deadline, !first, &wt))
            return timed_out(st, first ? "the first window" : "a window", p, err);
        if (first) /* a warm-up window: the time counts from its end */
            t0 = fabric_now();
        else {
            a.bytes += (double)st->window * (double)st->msg;
            a.seconds = fabric_now() - t0;
        }
        a.more = a.seconds < duration;
        MPI_Isend(&a, 3, MPI_DOUBLE, p, tag + 1, st->comm, &ar);
        if (!wait_all(1, &ar, deadline, !first, &at))
            return timed_out(st, "an acknowledgement", p, err);
        if (!a.more)
            break;
    }
    out->bytes = (long long)a.bytes;
    out->seconds = a.seconds;
    out->bw_gbps = a.seconds > 0 ? a.bytes * 8 / a.seconds / 1e9 : 0;
    snprintf(out->mem, sizeof(out->mem), "host (MPI)");
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ping-pong: iters round trips after one warm-up, then a message that ends the pong */
static int mpi_ping(void *state, const struct fabric_endpoint *peer, int iters, double deadline,
                    struct fabric_stats *out, ry_error_t *err)
{
    struct mpi_state *st = state;
    double *lat, msg[1];
    int p = peer->rank, tag;

    if (iters <= 0)
        return 0;
    if (check_peer(st, peer, err) < 0)
        return -1;
    tag = next_tag(st, p) + 2;
    lat = xcalloc((size_t)iters, sizeof(*lat));
    for (int i = -1; i <= iters; i++) {
        MPI_Request rq[2];
        double t = fabric_now();
        msg[0] = i < iters; /* 0: the end */
        MPI_Isend(msg, 1, MPI_DOUBLE, p, tag, st->comm, &rq[0]);
        if (i == iters) {
            if (!wait_all(1, rq, deadline, i > 0, NULL)) {
                free(lat);
                return timed_out(st, "the ping-pong", p, err);
            }
            break;
        }
        MPI_Irecv(msg, 1, MPI_DOUBLE, p, tag + 1, st->comm, &rq[1]);
        if (!wait_all(2, rq, deadline, i > 0, NULL)) {
            free(lat);
            return timed_out(st, "the ping-pong", p, err);
        }
        if (i >= 0)
            lat[i] = (fabric_now() - t) / 2 * 1e6;
    }
    qsort(lat, (size_t)iters, sizeof(*lat), cmp_double);
    out->lat_p50_us = lat[iters / 2];
    out->lat_p99_us = lat[(size_t)((iters - 1) * 0.99)];
    free(lat);
    return 0;
}

static int mpi_pong(void *state, const struct fabric_endpoint *peer, double deadline,
                    ry_error_t *err)
{
    struct mpi_state *st = state;
    double msg[1], hw = 0;
    int p = peer->rank, tag;

    if (check_peer(st, peer, err) < 0)
        return -1;
    tag = next_tag(st, p) + 2;
    for (int i = 0;; i++) {
        MPI_Request rq;
        MPI_Irecv(msg, 1, MPI_DOUBLE, p, tag, st->comm, &rq);
        if (!wait_all(1, &rq, deadline, i > 0, i > 0 ? NULL : &hw))
            return timed_out(st, "the ping-pong", p, err);
        if (msg[0] == 0)
            return 0;
        MPI_Isend(msg, 1, MPI_DOUBLE, p, tag + 1, st->comm, &rq);
        if (!wait_all(1, &rq, deadline, i > 0, i > 0 ? NULL : &hw))
            return timed_out(st, "the ping-pong", p, err);
    }
}

static void mpi_teardown(void *state)
{
    struct mpi_state *st = state;

    if (!st)
        return;
    if (!st->broken) { /* requests of a timed-out call may still use the buffers */
        DATA_FREE(st->sbuf);
        DATA_FREE(st->rbuf);
        free(st->reqs);
    }
    free(st->epoch);
    free(st);
}

const struct fabric_transport fabric_transport_mpi = {
    .name = "mpi",
    .polls = 0, /* it sleeps while a window flies: its CPU time means what it says */
    .setup = mpi_setup,
    .send = mpi_send,
    .recv = mpi_recv,
    .ping = mpi_ping,
    .pong = mpi_pong,
    .teardown = mpi_teardown,
};

/* ---- the collective phase on host memory ---- */

struct fabric_mpi_coll {
    MPI_Comm comm;
    int size_ranks;
    char *sbuf, *rbuf;
    size_t len;
    int calls;   /* collectives waited for so far: after the first, SMPI blocks */
    double pace; /* what the last one took (wait_all) */
    int broken;
    MPI_Op sum; /* MPI_SUM; under SMPI an operation that leaves the data as it is */
};

#ifdef RAILYARD_SMPI
/* Under SMPI the payload is never looked at (DATA_ALLOC): adding it up would cost the one machine
 * that runs every rank the arithmetic of the whole cluster, for nothing the simulation times */
static void sum_untouched(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;
}
#endif

struct fabric_mpi_coll *fabric_mpi_coll_open(void *comm, size_t size)
{
    struct fabric_mpi_coll *h;

    if (size > (size_t)INT_MAX * 4) /* MPI counts are ints of 4-byte floats */
        return NULL;
    h = xcalloc(1, sizeof(*h));
    h->comm = *(MPI_Comm *)comm;
    MPI_Comm_size(h->comm, &h->size_ranks);
    h->len = size;
    h->sbuf = DATA_ALLOC(size);
    h->rbuf = DATA_ALLOC(size);
#ifdef RAILYARD_SMPI
    MPI_Op_create(sum_untouched, 1, &h->sum);
#else
    h->sum = MPI_SUM;
#endif
    return h;
}

#ifdef RAILYARD_SMPI
/* Under SMPI a simulated collective cannot hang, and SMPI's non-blocking collectives are naive
 * (every rank sends its whole buffer to every other): the blocking ones run, with the algorithms
 * scripts/sim-cluster selects (rings), and the request comes back done. */
static int start_coll(struct fabric_mpi_coll *h, enum fabric_coll k, size_t count, MPI_Request *req)
{
    int n = (int)count;

    *req = MPI_REQUEST_NULL;
    switch (k) {
    case FABRIC_COLL_ALLREDUCE:
        return MPI_Allreduce(h->sbuf, h->rbuf, n, MPI_FLOAT, h->sum, h->comm);
    case FABRIC_COLL_ALLGATHER:
        return MPI_Allgather(h->sbuf, n, MPI_FLOAT, h->rbuf, n, MPI_FLOAT, h->comm);
    case FABRIC_COLL_REDUCESCATTER:
        return MPI_Reduce_scatter_block(h->sbuf, h->rbuf, n, MPI_FLOAT, h->sum, h->comm);
    case FABRIC_COLL_ALLTOALL:
        return MPI_Alltoall(h->sbuf, n, MPI_FLOAT, h->rbuf, n, MPI_FLOAT, h->comm);
    default: return MPI_ERR_OTHER;
    }
}
#else
static int start_coll(struct fabric_mpi_coll *h, enum fabric_coll k, size_t count, MPI_Request *req)
{
    int n = (int)count;

    switch (k) {
    case FABRIC_COLL_ALLREDUCE:
        return MPI_Iallreduce(h->sbuf, h->rbuf, n, MPI_FLOAT, h->sum, h->comm, req);
    case FABRIC_COLL_ALLGATHER:
        return MPI_Iallgather(h->sbuf, n, MPI_FLOAT, h->rbuf, n, MPI_FLOAT, h->comm, req);
    case FABRIC_COLL_REDUCESCATTER:
        return MPI_Ireduce_scatter_block(h->sbuf, h->rbuf, n, MPI_FLOAT, h->sum, h->comm, req);
    case FABRIC_COLL_ALLTOALL:
        return MPI_Ialltoall(h->sbuf, n, MPI_FLOAT, h->rbuf, n, MPI_FLOAT, h->comm, req);
    default: return MPI_ERR_OTHER;
    }
}
#endif

int fabric_mpi_coll_time(struct fabric_mpi_coll *h, enum fabric_coll k, size_t size, int iters,
                         double deadline, double *seconds, ry_error_t *err)
{
    size_t count = fabric_coll_count(k, size, h->size_ranks);
    double t0;

    *seconds = -1;
    if (h->broken)
        return ry_errorf(err, "an earlier collective missed its deadline");
    if (count == 0 || count > INT_MAX || size > h->len)
        return ry_errorf(err, "%zu bytes cannot be split among %d ranks", size, h->size_ranks);
    t0 = fabric_now();
    for (int i = 0; i < iters; i++) {
        MPI_Request req;
        int rc = start_coll(h, k, count, &req);
        if (rc != MPI_SUCCESS) {
            char s[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, s, &len);
            return ry_errorf(err, "MPI %s: %.*s", fabric_coll_name(k), len, s);
        }
        if (!wait_all(1, &req, deadline, h->calls > 0, &h->pace)) {
            h->broken = 1;
            return ry_errorf(err, "MPI %s did not finish by the deadline", fabric_coll_name(k));
        }
        h->calls++;
    }
    *seconds = (fabric_now() - t0) / iters;
    return 0;
}

int fabric_mpi_coll_broken(const struct fabric_mpi_coll *h)
{
    return h->broken;
}

void fabric_mpi_coll_close(struct fabric_mpi_coll *h)
{
    if (!h)
        return;
    if (!h->broken) { /* a late collective may still write them */
        DATA_FREE(h->sbuf);
        DATA_FREE(h->rbuf);
    }
#ifdef RAILYARD_SMPI
    MPI_Op_free(&h->sum);
#endif
    free(h);
}

int fabric_mpi_min(void *comm, int *value, double deadline, ry_error_t *err)
{
    MPI_Request req;
    double pace = 0;
    int mine = *value;

    MPI_Iallreduce(&mine, value, 1, MPI_INT, MPI_MIN, *(MPI_Comm *)comm, &req);
    if (!wait_all(1, &req, deadline, 0, &pace))
        return ry_errorf(err, "the group's ranks did not agree by the deadline");
    return 0;
}

int fabric_mpi_bcast(void *comm, void *buf, int len, int root, double deadline, ry_error_t *err)
{
    MPI_Request req;
    double pace = 0;

    MPI_Ibcast(buf, len, MPI_BYTE, root, *(MPI_Comm *)comm, &req);
    if (!wait_all(1, &req, deadline, 0, &pace))
        return ry_errorf(err, "the collective's start did not reach every rank by the deadline");
    return 0;
}

#ifndef RAILYARD_FABRIC_TRANSPORT_H
#define RAILYARD_FABRIC_TRANSPORT_H

/* fabric/: the link tests of railyard-fabric: the run and its phases (fabric/run.h), transports,
 * schedules, the hosts' load, fault localization over the pair graph. */

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* A link-test transport of railyard-fabric: a const table of callbacks, one per way of moving
 * data between two ports (tcp over the rail's netdev, fabric/tcp.c; RDMA over libibverbs,
 * fabric/verbs.c, set up with fabric/verbs.h). Every call takes an absolute deadline
 * (CLOCK_MONOTONIC seconds) and returns -1 with err filled when it passes: no call blocks
 * without one. */

struct fabric_endpoint {
    char addr[48]; /* the rail's address, textual */
    uint16_t port;
    int32_t ok;       /* 0: the rank could not set up (error says why) */
    int32_t unusable; /* 1: the test cannot run on this node at all (a missing driver or
                         library, not a port fault): the run cannot judge */
    int32_t rank;     /* mpi: the rank in MPI_COMM_WORLD */
    char error[320];
};

struct fabric_stats {
    double bw_gbps;       /* goodput measured by the receiver */
    double seconds;       /* how long data flowed */
    long long bytes;      /* delivered to the receiver */
    long long retrans;    /* sender's TCP retransmissions, -1 unknown */
    long long wire_bytes; /* the sender's data on the wire, resends for loss included, -1 unknown */
    double ce_frac;       /* the share of the data packets delivered marked CE (ECN), -1 unknown */
    double lat_p50_us, lat_p99_us;
    char mem[160]; /* verbs: the memory the data moved through ("host (NUMA node 0)") */
};

struct fabric_verbs_opts; /* fabric/verbs.h */

/* What a transport is set up with: no transport keeps options or identity in globals (under
 * SimGrid's SMPI every rank is a thread of one process). */
struct fabric_setup {
    const char *netdev; /* the rail's network interface ("" for mpi: the MPI stack picks) */
    const char *node;   /* the node's name, for messages */
    const struct fabric_verbs_opts *opts; /* verbs: op, queue pairs; verbs and mpi: window,
                                             message size */
    int rank;                             /* mpi: this rank in MPI_COMM_WORLD */
    void *mpi_comm; /* mpi: an MPI_Comm * the transport's messages travel on */
};

struct fabric_transport {
    const char *name;
    /* 1: it busy-polls for completions (verbs): its ranks use a full CPU by design, so their
     * CPU time says nothing of being host-limited (their wait for a CPU still does) */
    int polls;
    /* bind to the rail's network interface; fill local (ok=0 with a reason when the port
     * fails; -1 when the test cannot run on this node at all) */
    int (*setup)(const struct fabric_setup *su, struct fabric_endpoint *local, void **state,
                 ry_error_t *err);
    /* send for duration seconds over streams connections, which must connect by connect_by;
     * out gets the receiver's figures */
    int (*send)(void *state, const struct fabric_endpoint *peer, double duration, int streams,
                double connect_by, double deadline, struct fabric_stats *out, ry_error_t *err);
    /* accept streams connections from peer (others are refused) by connect_by, and measure */
    int (*recv)(void *state, const struct fabric_endpoint *peer, int streams, double connect_by,
                double deadline, struct fabric_stats *out, ry_error_t *err);
    /* ping-pong of small messages: one-way latency percentiles into out */
    int (*ping)(void *state, const struct fabric_endpoint *peer, int iters, double deadline,
                struct fabric_stats *out, ry_error_t *err);
    int (*pong)(void *state, const struct fabric_endpoint *peer, double deadline, ry_error_t *err);
    void (*teardown)(void *state);
};

extern const struct fabric_transport fabric_transport_tcp;
/* RDMA writes over libibverbs (RC), the control channel on the tcp transport's listener; NULL
 * members when railyard is built without libibverbs. */
extern const struct fabric_transport fabric_transport_verbs;
/* CLOCK_MONOTONIC in seconds */
double fabric_now(void);
/* zero s, its counters unknown (-1) */
void fabric_stats_clear(struct fabric_stats *s);

#endif

#ifndef RAILYARD_FABRIC_TRANSPORT_H
#define RAILYARD_FABRIC_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "src/common/error.h"

/* A link-test transport of railyard-fabric: a const table of callbacks (tcp today, verbs
 * next). Every call takes an absolute deadline (CLOCK_MONOTONIC seconds) and returns -1 with
 * err filled when it passes: no call blocks without one. */

struct fabric_endpoint {
    char addr[48]; /* the rail's address, textual */
    uint16_t port;
    int32_t ok;       /* 0: the rank could not set up (error says why) */
    int32_t unusable; /* 1: the test cannot run on this node at all (a missing driver or
                         library, not a port fault): the run cannot judge */
    char error[320];
};

struct fabric_stats {
    double bw_gbps; /* goodput measured by the receiver */
    double seconds; /* how long data flowed */
    long long bytes;
    long long retrans; /* sender's TCP retransmissions, -1 unknown */
    double lat_p50_us, lat_p99_us;
    char mem[160]; /* verbs: the memory the data moved through ("host (NUMA node 0)") */
};

struct fabric_transport {
    const char *name;
    /* 1: it busy-polls for completions (verbs): its ranks use a full CPU by design, so their
     * CPU time says nothing of being host-limited (their wait for a CPU still does) */
    int polls;
    /* bind to the rail's network interface; fill local (ok=0 with a reason when the port
     * fails; -1 when the test cannot run on this node at all) */
    int (*setup)(const char *netdev, struct fabric_endpoint *local, void **state, ry_error_t *err);
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
/* options of the verbs transport, set before setup */
enum fabric_verbs_op { FABRIC_OP_WRITE = 0, FABRIC_OP_READ, FABRIC_OP_SEND };
struct fabric_verbs_opts {
    enum fabric_verbs_op op;
    int qps;         /* queue pairs per link (1..16) */
    int window;      /* work requests in flight per queue pair */
    size_t msg;      /* bytes per work request */
    int tos;         /* RoCE traffic class, -1 the port's default */
    int gid_index;   /* -1: chosen from the GID table */
    int verify;      /* check every byte received, not a sample */
    const char *mem; /* "host", "cuda", "cuda:N", "cuda:BUSID" */
    int qp_timeout;  /* local ACK timeout, 4.096 us x 2^n (1..31) */
};
extern struct fabric_verbs_opts fabric_verbs_opts;
/* "write" -> FABRIC_OP_WRITE...; -1 when unknown */
int fabric_verbs_op_parse(const char *s);
const char *fabric_verbs_op_name(enum fabric_verbs_op op);

/* Register GPU memory [dptr, dptr + size) with RDMA device dev: by dma-buf when dmabuf_fd >= 0,
 * else (or when that fails) the device pointer itself (nvidia-peermem). 0 with how ("dma-buf",
 * "peer memory"), or -1 with err naming both attempts. */
int fabric_verbs_register_gpu(const char *dev, uint64_t dptr, size_t size, int dmabuf_fd, char *how,
                              size_t howlen, ry_error_t *err);

/* The tcp transport's control-channel helpers (fabric/tcp.c) for other transports: state is
 * what fabric_transport_tcp.setup made. */
int fabric_tcp_dial(void *tcp_state, const struct fabric_endpoint *peer, double deadline,
                    ry_error_t *err);
int fabric_tcp_accept(void *tcp_state, const struct fabric_endpoint *peer, double deadline,
                      ry_error_t *err);
int fabric_tcp_xfer(int fd, void *buf, size_t len, int writing, double deadline, ry_error_t *err);

/* GID selection (fabric/gid.c): from a port's GID table, the index to use on netdev: override
 * when >= 0; else a RoCE v2 GID of netdev with an IPv4-mapped address, else any RoCE v2 GID of
 * netdev, else a RoCE v1 one (IB ports: 0). -1 when none fits. */
struct fabric_gid {
    int index;
    char gid[48];  /* "fe80:0000:..." as sysfs writes it */
    char type[16]; /* "RoCE v2", "RoCE v1", "IB/RoCE v1" */
    char ndev[32];
};
int fabric_pick_gid(const struct fabric_gid *t, int n, const char *netdev, int infiniband,
                    int override);

/* CLOCK_MONOTONIC in seconds */
double fabric_now(void);

#endif

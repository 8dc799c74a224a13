#ifndef RAILYARD_FABRIC_VERBS_H
#define RAILYARD_FABRIC_VERBS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* The verbs transport (fabric_transport_verbs in fabric/transport.h): its options, and the
 * parts of it that need no RDMA device, unit-tested on their own (fabric/verbs_util.c,
 * fabric/window.c). */

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
/* the defaults: RDMA write, 1 queue pair, 16 in flight, 64 KiB, host memory */
void fabric_verbs_opts_init(struct fabric_verbs_opts *o);
/* "write" -> FABRIC_OP_WRITE...; -1 when unknown */
int fabric_verbs_op_parse(const char *s);
const char *fabric_verbs_op_name(enum fabric_verbs_op op);

/* Work requests in flight: depth per queue pair, qps queue pairs. */
struct fabric_window {
    int qps, depth, next;
    uint64_t *posted, *completed; /* per queue pair */
    int inflight;                 /* all queue pairs */
    uint64_t done;                /* completions in all */
};

void fabric_window_init(struct fabric_window *w, int qps, int depth);
void fabric_window_free(struct fabric_window *w);
/* The queue pair to post on next (round-robin over those with room), -1 when all are full. */
int fabric_window_pick(struct fabric_window *w);
/* Record a post on qp: returns the wr_id to give the work request; *slot gets its buffer slot
 * (0 .. qps * depth - 1), which no other request in flight uses. */
uint64_t fabric_window_post(struct fabric_window *w, int qp, int *slot);
/* Record the completion of wr_id (*slot gets its slot when slot is not NULL): 0, or -1 when
 * wr_id is not the oldest request in flight on its queue pair. */
int fabric_window_complete(struct fabric_window *w, uint64_t wr_id, int *slot);

/* What a work-completion status (enum ibv_wc_status) usually means, for the message that names
 * it: "the peer stopped acknowledging: ...". NULL for success or an unknown status. */
const char *fabric_wc_hint(int status);
/* A hint for a verbs call that failed with errno e ("ibv_reg_mr", ENOMEM -> the locked-memory
 * limit), NULL when there is none worth giving. */
const char *fabric_verbs_errno_hint(const char *call, int e);

#endif

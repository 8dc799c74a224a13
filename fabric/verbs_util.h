#ifndef RAILYARD_FABRIC_VERBS_UTIL_H
#define RAILYARD_FABRIC_VERBS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "src/common/error.h"

/* The parts of the verbs transport that need no RDMA device, unit-tested on their own. */

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

/* RDMA port counters (sysfs ports/N/counters and ports/N/hw_counters), sampled around a round.
 * Error counters are summed; congestion counters (CNPs, ECN marks) are reported, not counted
 * as errors. */
#define FABRIC_HWC_MAX 48
struct fabric_hwc {
    int n;
    char name[FABRIC_HWC_MAX][40];
    uint64_t val[FABRIC_HWC_MAX];
    int error[FABRIC_HWC_MAX]; /* 1 error counter, 0 congestion */
};
/* The RDMA device and port behind netdev (RoCE: the port whose GID 0 is on netdev; IPoIB: the
 * device's port 1). 0, or -1 when netdev has no RDMA port. root as in topo/sysfs.h. */
int fabric_rdma_port(const char *root, const char *netdev, char *dev, size_t len, int *port);
/* Read the counters of dev/port that are present: 0, or -1 when there is none. */
int fabric_hwc_sample(const char *root, const char *dev, int port, struct fabric_hwc *s);
/* Error counters that rose from a to b, summed (counters in b only are ignored); text gets
 * "out_of_sequence +3, np_cnp_sent +120" (every counter that rose, errors first). */
long long fabric_hwc_delta(const struct fabric_hwc *a, const struct fabric_hwc *b, char *text,
                           size_t len);

#endif

#ifndef RAILYARD_FABRIC_PORT_COUNTERS_H
#define RAILYARD_FABRIC_PORT_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

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
 * device's port 1). 0, or -1 when netdev has no RDMA port. root as in common/sysfs.h. */
int fabric_rdma_port(const char *root, const char *netdev, char *dev, size_t len, int *port);
/* Read the counters of dev/port that are present: 0, or -1 when there is none. */
int fabric_hwc_sample(const char *root, const char *dev, int port, struct fabric_hwc *s);
/* Error counters that rose from a to b, summed (counters in b only are ignored); text gets
 * "out_of_sequence +3, np_cnp_sent +120" (every counter that rose, errors first). */
long long fabric_hwc_delta(const struct fabric_hwc *a, const struct fabric_hwc *b, char *text,
                           size_t len);

#endif

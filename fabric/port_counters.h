#ifndef RAILYARD_FABRIC_PORT_COUNTERS_H
#define RAILYARD_FABRIC_PORT_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

/* RDMA port counters (sysfs ports/N/counters and ports/N/hw_counters), sampled around a round.
 * Error counters are summed; congestion counters (CNPs, ECN marks) are reported, not counted
 * as errors; traffic counters (packets sent and received) are neither. */
#define FABRIC_HWC_MAX     56
#define FABRIC_HWC_TRAFFIC 2
struct fabric_hwc {
    int n;
    char name[FABRIC_HWC_MAX][40];
    uint64_t val[FABRIC_HWC_MAX];
    int error[FABRIC_HWC_MAX]; /* 1 error counter, 0 congestion, FABRIC_HWC_TRAFFIC traffic */
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

/* What a port received from a to b: RoCE/IB packets, of them those the responder threw away
 * out of sequence (go-back-N drops what follows a lost packet until it is resent; duplicates,
 * which a stalled requester also resends, are not counted), and those marked CE (mlx5's
 * np_ecn_marked_roce_packets); and the packets it sent. -1 where the device has no such counter.
 * The waste is unknown when the port sent receive-not-ready NAKs meanwhile (what follows one is
 * thrown away too, the receiver's doing). 0, or -1 when the packets received or the waste are
 * unknown. */
struct fabric_hwc_rx {
    long long pkts, wasted, marked, sent;
};
int fabric_hwc_received(const struct fabric_hwc *a, const struct fabric_hwc *b,
                        struct fabric_hwc_rx *rx);

#endif

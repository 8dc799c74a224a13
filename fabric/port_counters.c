#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/sysfs.h"
#include "fabric/port_counters.h"

static const char *const error_counters[] = {
    /* ports/N/counters (IB PMA, also on RoCE ports) */
    "symbol_error",
    "port_rcv_errors",
    "link_error_recovery",
    "link_downed",
    "port_xmit_discards",
    "local_link_integrity_errors",
    "excessive_buffer_overrun_errors",
    "port_rcv_remote_physical_errors",
    /* hw_counters: mlx5 */
    "out_of_sequence",
    "packet_seq_err",
    "implied_nak_seq_err",
    "local_ack_timeout_err",
    "rnr_nak_retry_err",
    "out_of_buffer",
    "duplicate_request",
    "req_cqe_error",
    "resp_cqe_error",
    "req_remote_access_errors",
    "resp_remote_access_errors",
    "req_remote_invalid_request",
    "resp_local_length_error",
    "rx_icrc_encapsulated",
    "roce_adp_retrans",
    "roce_slow_restart",
    /* hw_counters: rxe */
    "out_of_seq_request",
    "rcvd_seq_err",
    "rcvd_rnr_err",
    "send_rnr_err",
    "retry_exceeded_err",
    "retry_rnr_exceeded_err",
    "completer_retry_err",
    "send_err",
};

/* what a port carried: ports/N/counters (IB PMA; RoCE ports of mlx5 too), hw_counters (rxe) */
static const char *const traffic_counters[] = {
    "port_rcv_packets",
    "port_xmit_packets",
};
static const char *const traffic_hw_counters[] = {
    "rcvd_pkts",
    "sent_pkts",
};

static const char *const congestion_counters[] = {
    "np_cnp_sent",
    "rp_cnp_handled",
    "np_ecn_marked_roce_packets",
    "rp_cnp_ignored",
};

int fabric_rdma_port(const char *root, const char *netdev, char *dev, size_t len, int *port)
{
    char **devs;
    size_t n;
    int found = -1;

    if (ry_sysfs_list(root, &devs, &n, NULL, "class/infiniband") < 0)
        return -1;
    for (size_t i = 0; i < n && found < 0; i++) {
        char buf[64];
        for (int p = 1; p <= 4 && found < 0; p++)
            if (ry_sysfs_read(root, buf, sizeof(buf), NULL,
                              "class/infiniband/%s/ports/%d/gid_attrs/ndevs/0", devs[i], p) == 0 &&
                !strcmp(buf, netdev)) {
                snprintf(dev, len, "%s", devs[i]);
                *port = p;
                found = 0;
            }
        if (found < 0 &&
            ry_sysfs_exists(root, "class/infiniband/%s/device/net/%s", devs[i], netdev)) {
            snprintf(dev, len, "%s", devs[i]);
            *port = 1;
            found = 0;
        }
    }
    ry_sysfs_list_free(devs, n);
    return found;
}

static void sample_list(const char *root, const char *dev, int port, const char *dir,
                        const char *const *names, size_t count, int error, struct fabric_hwc *s)
{
    for (size_t i = 0; i < count && s->n < FABRIC_HWC_MAX; i++) {
        uint64_t v;
        if (ry_sysfs_read_u64(root, &v, NULL, "class/infiniband/%s/ports/%d/%s/%s", dev, port, dir,
                              names[i]) < 0)
            continue;
        snprintf(s->name[s->n], sizeof(s->name[0]), "%s", names[i]);
        s->val[s->n] = v;
        s->error[s->n] = error;
        s->n++;
    }
}

int fabric_hwc_sample(const char *root, const char *dev, int port, struct fabric_hwc *s)
{
    size_t ne = sizeof(error_counters) / sizeof(error_counters[0]);

    memset(s, 0, sizeof(*s));
    sample_list(root, dev, port, "counters", error_counters, 8, 1, s);
    sample_list(root, dev, port, "hw_counters", error_counters + 8, ne - 8, 1, s);
    sample_list(root, dev, port, "hw_counters", congestion_counters,
                sizeof(congestion_counters) / sizeof(congestion_counters[0]), 0, s);
    sample_list(root, dev, port, "counters", traffic_counters, 2, FABRIC_HWC_TRAFFIC, s);
    sample_list(root, dev, port, "hw_counters", traffic_hw_counters, 2, FABRIC_HWC_TRAFFIC, s);
    return s->n ? 0 : -1;
}

/* counter name's rise from a to b; -1 when b lacks it, 0 when a does (or it fell) */
static long long rise(const struct fabric_hwc *a, const struct fabric_hwc *b, const char *name)
{
    for (int j = 0; j < b->n; j++)
        if (!strcmp(b->name[j], name)) {
            for (int i = 0; i < a->n; i++)
                if (!strcmp(a->name[i], name))
                    return b->val[j] > a->val[i] ? (long long)(b->val[j] - a->val[i]) : 0;
            return 0;
        }
    return -1;
}

/* the sum of the rises of those of names that b has; -1 when it has none */
static long long rises(const struct fabric_hwc *a, const struct fabric_hwc *b,
                       const char *const *names, size_t n)
{
    long long sum = -1;

    for (size_t i = 0; i < n; i++) {
        long long d = rise(a, b, names[i]);
        if (d >= 0)
            sum = (sum < 0 ? 0 : sum) + d;
    }
    return sum;
}

int fabric_hwc_received(const struct fabric_hwc *a, const struct fabric_hwc *b,
                        struct fabric_hwc_rx *rx)
{
    static const char *const pkts[] = { "rcvd_pkts", "port_rcv_packets" };
    static const char *const sent[] = { "sent_pkts", "port_xmit_packets" };
    /* not duplicate_request: a requester stalled past its ack timeout resends what arrived
     * (Soft-RoCE in a starved guest did, on a clean link); a packet out of sequence follows one
     * that was lost */
    static const char *const waste[] = { "out_of_sequence", "out_of_seq_request" };
    static const char *const marked[] = { "np_ecn_marked_roce_packets" };
    /* receive-not-ready: the responder had no receive posted, NAKed and threw away what followed
     * until the requester retried (an --op send under emulation did on a clean link: 131 RNR NAKs,
     * 131 out of sequence): the receiver's pace, not the wire's */
    static const char *const rnr[] = { "send_rnr_err", "out_of_buffer" };

    /* rxe counts its RoCE packets in hw_counters; the PMA counter, where both are, counts every
     * packet of the port */
    rx->pkts = rise(a, b, pkts[0]) >= 0 ? rise(a, b, pkts[0]) : rise(a, b, pkts[1]);
    rx->sent = rise(a, b, sent[0]) >= 0 ? rise(a, b, sent[0]) : rise(a, b, sent[1]);
    rx->wasted = rises(a, b, waste, 2);
    rx->marked = rises(a, b, marked, 1);
    if (rises(a, b, rnr, 2) > 0)
        rx->wasted = -1; /* what was thrown away is not the wire's to answer for */
    return rx->pkts > 0 && rx->wasted >= 0 ? 0 : -1;
}

long long fabric_hwc_delta(const struct fabric_hwc *a, const struct fabric_hwc *b, char *text,
                           size_t len)
{
    long long total = 0;
    size_t used = 0;

    if (text && len)
        text[0] = '\0';
    for (int pass = 1; pass >= 0; pass--)
        for (int j = 0; j < b->n; j++) {
            if (b->error[j] != pass)
                continue;
            for (int i = 0; i < a->n; i++) {
                long long d;
                int w;
                if (strcmp(a->name[i], b->name[j]) || b->val[j] <= a->val[i])
                    continue;
                d = (long long)(b->val[j] - a->val[i]);
                if (pass)
                    total += d;
                if (text && used < len) {
                    w = snprintf(text + used, len - used, "%s%s +%lld", used ? ", " : "",
                                 b->name[j], d);
                    used += w > 0 ? (size_t)w : 0;
                }
            }
        }
    if (text && used >= len && len > 4)
        memcpy(text + len - 4, "...", 4);
    return total;
}

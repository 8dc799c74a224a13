#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fabric/transport.h"
#include "fabric/verbs_util.h"
#include "topo/sysfs.h"

struct fabric_verbs_opts fabric_verbs_opts = {
    FABRIC_OP_WRITE, 1, 16, 64 * 1024, -1, -1, 0, "host", 14,
};

static const char *const op_names[] = { "write", "read", "send" };

int fabric_verbs_op_parse(const char *s)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, op_names[i]))
            return i;
    return -1;
}

const char *fabric_verbs_op_name(enum fabric_verbs_op op)
{
    return (unsigned)op < 3 ? op_names[op] : "?";
}

/* Work-completion statuses by their values in enum ibv_wc_status (part of the libibverbs ABI;
 * fabric/verbs.c checks the values at build time). */
const char *fabric_wc_hint(int status)
{
    switch (status) {
    case 1: return "a message longer than the receive buffer, or a local length error";
    case 2: return "the queue pair refused the request (state or opcode)";
    case 4: return "the local buffer is not registered for this access";
    case 5: return "flushed: the queue pair had already failed on an earlier request";
    case 7: return "the peer answered with an unexpected opcode";
    case 8: return "the local buffer could not be written (memory registration)";
    case 9: return "the peer refused the request (length or opcode)";
    case 10: return "the peer refused the remote address or key";
    case 11: return "the peer could not complete the operation";
    case 12:
        return "the peer stopped acknowledging (link down, wrong GID or route, peer queue pair "
               "gone, or packets lost on a lossy RoCE fabric)";
    case 13: return "the peer had no receive posted (receiver not ready) for too long";
    case 15: return "the peer refused the RDMA read (read/atomic depth or access rights)";
    case 16: return "the peer aborted the operation";
    case 19: return "fatal device error: the adapter needs attention";
    case 20: return "the peer's response did not come in time";
    case 21: return "general error reported by the provider";
    default: return NULL;
    }
}

const char *fabric_verbs_errno_hint(const char *call, int e)
{
    if (!call)
        return NULL;
    if (!strncmp(call, "ibv_reg", 7) && (e == ENOMEM || e == EPERM || e == EAGAIN))
        return "the locked-memory limit is too low (ulimit -l; Slurm: PropagateResourceLimits, "
               "systemd: LimitMEMLOCK=infinity)";
    if (!strcmp(call, "ibv_reg_dmabuf_mr") &&
        (e == EOPNOTSUPP || e == ENOSYS || e == EPROTONOSUPPORT))
        return "the provider or kernel does not import dma-buf";
    if (!strcmp(call, "ibv_reg_mr(device memory)") && (e == EFAULT || e == EINVAL))
        return "no peer-memory client: load nvidia-peermem, or use a driver with dma-buf";
    if (!strncmp(call, "ibv_modify_qp(RTR)", 18) && (e == EINVAL || e == ETIMEDOUT))
        return "check the GID index (--gid-index) and that both ends share a path MTU";
    if (!strcmp(call, "ibv_create_qp") && (e == ENOMEM || e == EINVAL))
        return "the device refused the queue sizes (--window, --qps)";
    if (!strcmp(call, "ibv_open_device") && (e == EACCES || e == EPERM))
        return "no permission on /dev/infiniband (group rdma, or udev rules)";
    return NULL;
}

/* ---- port counters ---- */

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

    if (topo_sysfs_list(root, &devs, &n, NULL, "class/infiniband") < 0)
        return -1;
    for (size_t i = 0; i < n && found < 0; i++) {
        char buf[64];
        for (int p = 1; p <= 4 && found < 0; p++)
            if (topo_sysfs_read(root, buf, sizeof(buf), NULL,
                                "class/infiniband/%s/ports/%d/gid_attrs/ndevs/0", devs[i],
                                p) == 0 &&
                !strcmp(buf, netdev)) {
                snprintf(dev, len, "%s", devs[i]);
                *port = p;
                found = 0;
            }
        if (found < 0 &&
            topo_sysfs_exists(root, "class/infiniband/%s/device/net/%s", devs[i], netdev)) {
            snprintf(dev, len, "%s", devs[i]);
            *port = 1;
            found = 0;
        }
    }
    topo_sysfs_list_free(devs, n);
    return found;
}

static void sample_list(const char *root, const char *dev, int port, const char *dir,
                        const char *const *names, size_t count, int error, struct fabric_hwc *s)
{
    for (size_t i = 0; i < count && s->n < FABRIC_HWC_MAX; i++) {
        uint64_t v;
        if (topo_sysfs_read_u64(root, &v, NULL, "class/infiniband/%s/ports/%d/%s/%s", dev, port,
                                dir, names[i]) < 0)
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
    return s->n ? 0 : -1;
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

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/sysfs.h"
#include "fabric/verbs.h"

void fabric_verbs_opts_init(struct fabric_verbs_opts *o)
{
    *o = (struct fabric_verbs_opts){ FABRIC_OP_WRITE, 1, 16, 64 * 1024, -1, -1, 0, "host", 14 };
}

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

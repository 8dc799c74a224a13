#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "common/sysfs.h"
#include "common/xmalloc.h"
#include "fabric/gid.h"
#include "fabric/gpu_mr.h"
#include "fabric/mem.h"
#include "fabric/port_counters.h"
#include "fabric/tcp.h"
#include "fabric/transport.h"
#include "fabric/verbs.h"

/* The verbs transport: RC queue pairs between the two ends of a rail, their numbers exchanged
 * on a TCP control connection of the same rail (the tcp transport's listener).
 *
 * Bandwidth, data flowing from the sender to the receiver for the round's duration, msg bytes
 * per work request, window requests in flight per queue pair, spread over qps queue pairs:
 *   write  the sender RDMA-writes into the receiver's buffer; a write completes at the sender
 *          once the receiver's HCA acknowledged it, so completed bytes arrived;
 *   read   the receiver RDMA-reads the sender's buffer (the duration comes in the hello);
 *   send   the receiver posts receives, the sender sends; the receiver counts what arrived.
 * The receiving side checks the pattern in what arrived (a sample, or every byte with
 * --verify). Latency: 8-byte RDMA-write ping-pong on host memory, each side polling its own.
 * Every verbs error names the device, the port and the call, with the likely cause. */

/* the values fabric_wc_hint() knows statuses by */
_Static_assert(IBV_WC_RETRY_EXC_ERR == 12 && IBV_WC_RNR_RETRY_EXC_ERR == 13 &&
                   IBV_WC_REM_ACCESS_ERR == 10 && IBV_WC_WR_FLUSH_ERR == 5 &&
                   IBV_WC_GENERAL_ERR == 21,
               "enum ibv_wc_status changed");

#define CTL_SIZE 4096 /* host memory for the ping-pong words */
#define MAX_QPS  16

struct verbs_state {
    struct fabric_verbs_opts o; /* as given at setup */
    char host[64], netdev[32], dev[64];
    char where[160]; /* "gpu01 mlx5_0 port 1": how messages name the port */
    int inline_ok;   /* the queue pairs take 8 bytes of inline data */
    int port, gid_index, infiniband;
    void *tcp; /* control channel */
    struct ibv_context *ctx;
    struct ibv_device_attr dattr;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_mr *mr, *ctl_mr;
    struct fabric_mem mem;
    char *ctl;
    size_t region; /* qps * window * msg */
    struct ibv_port_attr attr;
    union ibv_gid gid;
    int dmabuf_fd;
};

struct qp_info {
    uint32_t qpn, psn, rkey, mtu, ctl_rkey, rd_atom;
    uint64_t addr, ctl_addr;
    uint16_t lid;
    uint8_t gid[16];
};

struct hello { /* sender -> receiver, after the queue pairs */
    int32_t op, qps, window;
    int64_t msg;
    double duration;
};

struct done_msg {
    int64_t bytes;
    double seconds;
    int64_t all_slots; /* every slot of the region was written at least once */
};

static int verr(const struct verbs_state *st, ry_error_t *err, const char *call, int e)
{
    const char *hint = fabric_verbs_errno_hint(call, e ? e : EIO);
    return ry_errorf(err, "%s: %s: %s%s%s", st->where, call, strerror(e ? e : EIO),
                     hint ? ": " : "", hint ? hint : "");
}

static int wcerr(const struct verbs_state *st, ry_error_t *err, const struct ibv_wc *wc)
{
    const char *hint = fabric_wc_hint(wc->status);
    const char *what = wc->opcode == IBV_WC_RDMA_READ ? "RDMA read"
                       : wc->opcode == IBV_WC_SEND    ? "send"
                       : wc->opcode & IBV_WC_RECV     ? "receive"
                                                      : "RDMA write";
    return ry_errorf(err, "%s: %s completed with '%s'%s%s", st->where, what,
                     ibv_wc_status_str(wc->status), hint ? ": " : "", hint ? hint : "");
}

/* the RDMA device and port whose network interface is netdev */
/* open st->dev into st->ctx */
static int open_device(struct verbs_state *st, ry_error_t *err)
{
    struct ibv_device **list;
    int n, listed = 0, e = 0;

    if (!(list = ibv_get_device_list(&n)))
        return ry_errorf(err, "ibv_get_device_list: %s", strerror(errno));
    for (int i = 0; i < n && !listed; i++)
        if (!strcmp(ibv_get_device_name(list[i]), st->dev)) {
            listed = 1;
            if (!(st->ctx = ibv_open_device(list[i])))
                e = errno;
        }
    ibv_free_device_list(list);
    if (!listed)
        return ry_errorf(err, "%s: not listed by libibverbs (no provider for it?)", st->where);
    if (!st->ctx)
        return verr(st, err, "ibv_open_device", e);
    return 0;
}

static int find_port(struct verbs_state *st, ry_error_t *err)
{
    if (fabric_rdma_port(NULL, st->netdev, st->dev, sizeof(st->dev), &st->port) < 0)
        return ry_errorf(err, "%s: no RDMA device has this netdev", st->where);
    snprintf(st->where, sizeof(st->where), "%s%s%s port %d", st->host, st->host[0] ? " " : "",
             st->dev, st->port);
    return open_device(st, err);
}

static int pick_gid(struct verbs_state *st, ry_error_t *err)
{
    struct fabric_gid t[32];
    int n = 0;

    for (int i = 0; i < 32; i++) {
        struct fabric_gid *g = &t[n];
        memset(g, 0, sizeof(*g));
        g->index = i;
        if (ry_sysfs_read(NULL, g->gid, sizeof(g->gid), NULL,
                          "class/infiniband/%s/ports/%d/gids/%d", st->dev, st->port, i) < 0)
            break;
        ry_sysfs_read(NULL, g->type, sizeof(g->type), NULL,
                      "class/infiniband/%s/ports/%d/gid_attrs/types/%d", st->dev, st->port, i);
        ry_sysfs_read(NULL, g->ndev, sizeof(g->ndev), NULL,
                      "class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d", st->dev, st->port, i);
        n++;
    }
    st->gid_index = fabric_pick_gid(t, n, st->netdev, st->infiniband, st->o.gid_index);
    if (st->gid_index < 0)
        return ry_errorf(err, "%s: no usable GID for %s%s", st->where, st->netdev,
                         st->o.gid_index >= 0 ? " at the given --gid-index" : "");
    if (ibv_query_gid(st->ctx, (uint8_t)st->port, st->gid_index, &st->gid))
        return verr(st, err, "ibv_query_gid", errno);
    return 0;
}

static void verbs_teardown(void *state)
{
    struct verbs_state *st = state;

    if (!st)
        return;
    if (st->mr)
        ibv_dereg_mr(st->mr);
    if (st->ctl_mr)
        ibv_dereg_mr(st->ctl_mr);
    if (st->dmabuf_fd >= 0)
        close(st->dmabuf_fd);
    if (st->cq)
        ibv_destroy_cq(st->cq);
    if (st->pd)
        ibv_dealloc_pd(st->pd);
    if (st->ctx)
        ibv_close_device(st->ctx);
    fabric_mem_free(&st->mem);
    free(st->ctl);
    if (st->tcp)
        fabric_transport_tcp.teardown(st->tcp);
    free(st);
}

#define MR_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* GPU memory [dptr, dptr + size) on st->pd: the dma-buf fd when there is one (why_no_fd says
 * why not otherwise), else the device pointer itself (nvidia-peermem). *how gets "dma-buf" or
 * "peer memory"; NULL with err naming both attempts. */
static struct ibv_mr *reg_gpu(const struct verbs_state *st, uint64_t dptr, size_t size,
                              int dmabuf_fd, const char *why_no_fd, const char **how,
                              ry_error_t *err)
{
    struct ibv_mr *mr;
    ry_error_t e1 = { "" };

    ry_errorf(&e1, "%s", why_no_fd ? why_no_fd : "no dma-buf to import");
#if HAVE_DECL_IBV_REG_DMABUF_MR
    if (dmabuf_fd >= 0) {
        if ((mr = ibv_reg_dmabuf_mr(st->pd, 0, size, dptr, dmabuf_fd, MR_ACCESS))) {
            *how = "dma-buf";
            return mr;
        }
        verr(st, &e1, "ibv_reg_dmabuf_mr", errno);
    }
#else
    (void)dmabuf_fd;
    ry_errorf(&e1, "libibverbs has no ibv_reg_dmabuf_mr");
#endif
    if ((mr = ibv_reg_mr(st->pd, (void *)(uintptr_t)dptr, size, MR_ACCESS))) {
        *how = "peer memory";
        return mr;
    }
    verr(st, err, "ibv_reg_mr(device memory)", errno);
    ry_error_prefix(err, "dma-buf: %s; ", e1.text);
    return NULL;
}

/* Register the data buffer: host memory as it is, device memory through reg_gpu. */
static int register_mem(struct verbs_state *st, ry_error_t *err)
{
    ry_error_t e1 = { "" };
    const char *how;
    size_t used = strlen(st->mem.desc);

    if (!st->mem.cuda) {
        if (!(st->mr = ibv_reg_mr(st->pd, st->mem.host, st->mem.size, MR_ACCESS)))
            return verr(st, err, "ibv_reg_mr", errno);
        return 0;
    }
    fabric_cuda_dmabuf(&st->mem.dev, &st->dmabuf_fd, &e1);
    if (!(st->mr = reg_gpu(st, st->mem.dev.dptr, st->mem.size, st->dmabuf_fd, e1.text, &how, err)))
        return -1;
    snprintf(st->mem.desc + used, sizeof(st->mem.desc) - used, ", %s", how);
    return 0;
}

static int verbs_setup(const struct fabric_setup *su, struct fabric_endpoint *local, void **state,
                       ry_error_t *err)
{
    const char *netdev = su->netdev;
    struct verbs_state *st = xcalloc(1, sizeof(*st));
    const struct fabric_verbs_opts *o = &st->o;
    ry_error_t e = { "" };
    int cqe;

    *state = st;
    if (su->opts)
        st->o = *su->opts;
    else
        fabric_verbs_opts_init(&st->o);
    st->dmabuf_fd = -1;
    snprintf(st->netdev, sizeof(st->netdev), "%s", netdev);
    /* the node the messages name: the one railyard-fabric is told, else this machine */
    if (su->node && *su->node)
        snprintf(st->host, sizeof(st->host), "%s", su->node);
    else if (gethostname(st->host, sizeof(st->host) - 1) < 0)
        st->host[0] = '\0';
    if (fabric_transport_tcp.setup(su, local, &st->tcp, err) < 0)
        return -1;
    if (!local->ok)
        return 0;
    snprintf(st->where, sizeof(st->where), "%s%s%s", st->host, st->host[0] ? " " : "", netdev);
    if (find_port(st, &e) < 0)
        goto bad;
    if (ibv_query_port(st->ctx, (uint8_t)st->port, &st->attr)) {
        verr(st, &e, "ibv_query_port", errno);
        goto bad;
    }
    st->infiniband = st->attr.link_layer == IBV_LINK_LAYER_INFINIBAND;
    if (pick_gid(st, &e) < 0)
        goto bad;
    if (st->attr.state != IBV_PORT_ACTIVE) {
        ry_errorf(&e, "%s is %s, not ACTIVE", st->where, ibv_port_state_str(st->attr.state));
        goto bad;
    }
    if (ibv_query_device(st->ctx, &st->dattr)) {
        verr(st, &e, "ibv_query_device", errno);
        goto bad;
    }
    if (o->window + 4 > st->dattr.max_qp_wr) {
        ry_errorf(&e, "%s: --window %d is more than the device's %d work requests per queue pair",
                  st->where, o->window, st->dattr.max_qp_wr - 4);
        goto bad;
    }
    st->region = (size_t)o->qps * (size_t)o->window * o->msg;
    if (fabric_mem_alloc(&st->mem, o->mem, st->dev, netdev, st->region, &e) < 0) {
        /* no such memory on this node: the run cannot judge, no port is at fault */
        local->ok = 0;
        return ry_errorf(err, "%s: --mem %s: %s", st->where, o->mem, e.text);
    }
    st->ctl = xcalloc(1, CTL_SIZE);
    if (!(st->pd = ibv_alloc_pd(st->ctx))) {
        verr(st, &e, "ibv_alloc_pd", errno);
        goto bad;
    }
    cqe = o->qps * (o->window + 4) * 2;
    if (cqe > st->dattr.max_cqe)
        cqe = st->dattr.max_cqe;
    if (!(st->cq = ibv_create_cq(st->ctx, cqe, NULL, NULL, 0))) {
        verr(st, &e, "ibv_create_cq", errno);
        goto bad;
    }
    if (register_mem(st, &e) < 0)
        goto bad;
    if (!(st->ctl_mr = ibv_reg_mr(st->pd, st->ctl, CTL_SIZE,
                                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))) {
        verr(st, &e, "ibv_reg_mr", errno);
        goto bad;
    }
    return 0;
bad:
    local->ok = 0;
    snprintf(local->error, sizeof(local->error), "%s", e.text);
    return 0; /* the rank takes part; its links fail with this reason */
}

static struct ibv_qp *make_qp(struct verbs_state *st, struct qp_info *me, ry_error_t *err)
{
    const struct fabric_verbs_opts *o = &st->o;
    struct ibv_qp_init_attr ia = {
        .send_cq = st->cq,
        .recv_cq = st->cq,
        .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = (uint32_t)o->window + 4,
                 .max_recv_wr = (uint32_t)o->window + 4,
                 .max_send_sge = 1,
                 .max_recv_sge = 1 },
    };
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
                             .pkey_index = 0,
                             .port_num = (uint8_t)st->port,
                             .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                                                IBV_ACCESS_LOCAL_WRITE };
    struct ibv_qp *qp;

    /* the 8-byte ping-pong writes go inline (in the work request, as perftest sends them) where
     * the device takes inline data; the others are not affected */
    ia.cap.max_inline_data = 64;
    if (!(qp = ibv_create_qp(st->pd, &ia))) {
        ia.cap.max_inline_data = 0;
        qp = ibv_create_qp(st->pd, &ia);
    }
    st->inline_ok = qp && ia.cap.max_inline_data >= 8;
    if (!qp) {
        verr(st, err, "ibv_create_qp", errno);
        return NULL;
    }
    if ((errno = ibv_modify_qp(
             qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))) {
        verr(st, err, "ibv_modify_qp(INIT)", errno);
        ibv_destroy_qp(qp);
        return NULL;
    }
    memset(me, 0, sizeof(*me));
    me->qpn = qp->qp_num;
    me->psn = (uint32_t)(lrand48() & 0xffffff);
    me->rkey = st->mr->rkey;
    me->addr = st->mem.cuda ? st->mem.dev.dptr : (uint64_t)(uintptr_t)st->mem.host;
    me->ctl_rkey = st->ctl_mr->rkey;
    me->ctl_addr = (uint64_t)(uintptr_t)st->ctl;
    me->lid = st->attr.lid;
    me->mtu = st->attr.active_mtu;
    me->rd_atom = (uint32_t)(st->dattr.max_qp_rd_atom > 0 ? st->dattr.max_qp_rd_atom : 1);
    memcpy(me->gid, st->gid.raw, 16);
    return qp;
}

static int connect_qp(struct verbs_state *st, struct ibv_qp *qp, const struct qp_info *me,
                      const struct qp_info *peer, ry_error_t *err)
{
    struct ibv_qp_attr a;
    int init_rd = st->dattr.max_qp_init_rd_atom > 0 ? st->dattr.max_qp_init_rd_atom : 1;
    int rd = (int)peer->rd_atom < init_rd ? (int)peer->rd_atom : init_rd;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = (enum ibv_mtu)(peer->mtu < me->mtu ? peer->mtu : me->mtu);
    a.dest_qp_num = peer->qpn;
    a.rq_psn = peer->psn;
    a.max_dest_rd_atomic = (uint8_t)(me->rd_atom > 16 ? 16 : me->rd_atom);
    a.min_rnr_timer = 12;
    a.ah_attr.port_num = (uint8_t)st->port;
    a.ah_attr.dlid = peer->lid;
    if (!st->infiniband) {
        a.ah_attr.is_global = 1;
        memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
        a.ah_attr.grh.sgid_index = (uint8_t)st->gid_index;
        a.ah_attr.grh.hop_limit = 64;
        if (st->o.tos >= 0)
            a.ah_attr.grh.traffic_class = (uint8_t)st->o.tos;
    }
    if ((errno =
             ibv_modify_qp(qp, &a,
                           IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                               IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
        return verr(st, err, "ibv_modify_qp(RTR)", errno);
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = (uint8_t)st->o.qp_timeout;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = me->psn;
    a.max_rd_atomic = (uint8_t)(rd > 16 ? 16 : rd);
    if ((errno = ibv_modify_qp(qp, &a,
                               IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)))
        return verr(st, err, "ibv_modify_qp(RTS)", errno);
    return 0;
}

/* post one work request on qp: data ops use the data buffer at off, op IBV_WR_RDMA_WRITE,
 * IBV_WR_RDMA_READ or IBV_WR_SEND; recv posts a receive instead */
static int post(struct verbs_state *st, struct ibv_qp *qp, int opcode, int recv,
                const struct qp_info *peer, size_t off, size_t len, uint64_t id, int signaled,
                ry_error_t *err)
{
    struct ibv_sge sge = {
        .addr = (st->mem.cuda ? st->mem.dev.dptr : (uint64_t)(uintptr_t)st->mem.host) + off,
        .length = (uint32_t)len,
        .lkey = st->mr->lkey
    };

    if (recv) {
        struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad;
        if ((errno = ibv_post_recv(qp, &wr, &bad)))
            return verr(st, err, "ibv_post_recv", errno);
        return 0;
    }
    struct ibv_send_wr wr = { .wr_id = id,
                              .sg_list = &sge,
                              .num_sge = 1,
                              .opcode = (enum ibv_wr_opcode)opcode,
                              .send_flags = signaled ? IBV_SEND_SIGNALED : 0u },
                       *bad;
    if (opcode != IBV_WR_SEND && peer) {
        wr.wr.rdma.remote_addr = peer->addr + off;
        wr.wr.rdma.rkey = peer->rkey;
    }
    if ((errno = ibv_post_send(qp, &wr, &bad)))
        return verr(st, err, "ibv_post_send", errno);
    return 0;
}

/* one completion (deadline): 0 with *wc, or -1 naming the status */
static int reap(struct verbs_state *st, double deadline, struct ibv_wc *wc, ry_error_t *err)
{
    for (;;) {
        int n = ibv_poll_cq(st->cq, 1, wc);
        if (n < 0)
            return verr(st, err, "ibv_poll_cq", EIO);
        if (n == 1)
            return wc->status == IBV_WC_SUCCESS ? 0 : wcerr(st, err, wc);
        if (fabric_now() > deadline)
            return ry_errorf(err, "%s: no completion before the deadline", st->where);
    }
}

struct link {
    int fd, nqp;
    struct ibv_qp *qp[MAX_QPS];
    struct qp_info remote[MAX_QPS];
};

static void link_close(struct link *l)
{
    for (int i = 0; i < l->nqp; i++)
        ibv_destroy_qp(l->qp[i]);
    if (l->fd >= 0)
        close(l->fd);
    l->nqp = 0;
    l->fd = -1;
}

/* the control connection and nqp connected queue pairs: dial (sender) or accept (receiver) */
static int pair_up(struct verbs_state *st, const struct fabric_endpoint *peer, int dialing, int nqp,
                   double by, struct link *l, ry_error_t *err)
{
    struct qp_info me[MAX_QPS];

    memset(l, 0, sizeof(*l));
    l->fd = -1;
    if (!st->ctx || !st->mr)
        return ry_errorf(err, "%s is not set up for verbs", st->netdev);
    l->fd = dialing ? fabric_tcp_dial(st->tcp, peer, by, err)
                    : fabric_tcp_accept(st->tcp, peer, by, err);
    if (l->fd < 0)
        return -1;
    memset(st->ctl, 0, 16); /* before the peer can write into it */
    for (; l->nqp < nqp; l->nqp++)
        if (!(l->qp[l->nqp] = make_qp(st, &me[l->nqp], err)))
            goto fail;
    if (fabric_tcp_xfer(l->fd, me, sizeof(me[0]) * (size_t)nqp, 1, by, err) < 0 ||
        fabric_tcp_xfer(l->fd, l->remote, sizeof(l->remote[0]) * (size_t)nqp, 0, by, err) < 0)
        goto fail;
    for (int i = 0; i < nqp; i++)
        if (connect_qp(st, l->qp[i], &me[i], &l->remote[i], err) < 0)
            goto fail;
    return 0;
fail:
    link_close(l);
    return -1;
}

/* the pattern in the slots that data reached: all of them once each was written, else the
 * first (posts start there) */
static int check_slots(struct verbs_state *st, const struct done_msg *d, const char *what,
                       ry_error_t *err)
{
    size_t msg = st->o.msg;
    size_t len = d->all_slots ? st->region : d->bytes > 0 ? msg : 0;

    if (fabric_mem_check(&st->mem, 0, len, msg, st->o.verify, err) < 0)
        return ry_error_prefix(err, "%s: %s: ", st->where, what);
    return 0;
}

static void fill_stats(const struct verbs_state *st, const struct done_msg *d,
                       struct fabric_stats *out)
{
    out->bytes = d->bytes;
    out->seconds = d->seconds;
    out->bw_gbps = d->seconds > 0 ? (double)d->bytes * 8 / d->seconds / 1e9 : 0;
    out->retrans = -1;
    snprintf(out->mem, sizeof(out->mem), "%s", st->mem.desc);
}

/* post RDMA writes or reads for duration seconds over every queue pair, window each */
static int stream(struct verbs_state *st, struct link *l, int opcode, double duration,
                  double deadline, struct done_msg *done, ry_error_t *err)
{
    const struct fabric_verbs_opts *o = &st->o;
    struct fabric_window w;
    double t0 = fabric_now(), end = t0 + duration;
    int rc = 0;

    fabric_window_init(&w, l->nqp, o->window);
    done->bytes = 0;
    while (fabric_now() < end || w.inflight > 0) {
        struct ibv_wc wc;
        int qp = fabric_now() < end ? fabric_window_pick(&w) : -1;
        if (qp >= 0) {
            int slot;
            uint64_t id = fabric_window_post(&w, qp, &slot);
            if ((rc = post(st, l->qp[qp], opcode, 0, &l->remote[qp], (size_t)slot * o->msg, o->msg,
                           id, 1, err)) < 0)
                break;
            continue;
        }
        if ((rc = reap(st, deadline, &wc, err)) < 0)
            break;
        if (fabric_window_complete(&w, wc.wr_id, NULL) < 0) {
            rc = ry_errorf(err, "%s: completion out of order (wr_id %#llx)", st->where,
                           (unsigned long long)wc.wr_id);
            break;
        }
        done->bytes += (int64_t)o->msg;
    }
    done->seconds = fabric_now() - t0;
    done->all_slots = 1;
    for (int q = 0; q < w.qps; q++)
        done->all_slots &= w.completed[q] >= (uint64_t)w.depth;
    fabric_window_free(&w);
    return rc;
}

static int verbs_send(void *state, const struct fabric_endpoint *peer, double duration, int streams,
                      double connect_by, double deadline, struct fabric_stats *out, ry_error_t *err)
{
    struct verbs_state *st = state;
    const struct fabric_verbs_opts *o = &st->o;
    struct hello h = { (int32_t)o->op, o->qps, o->window, (int64_t)o->msg, duration };
    struct done_msg done = { 0, 0, 0 };
    struct link l;
    int rc = -1;
    char ready;

    (void)streams;
    fabric_stats_clear(out);
    if (fabric_mem_fill(&st->mem, o->msg, err) < 0 ||
        pair_up(st, peer, 1, o->qps, connect_by < deadline ? connect_by : deadline, &l, err) < 0)
        return -1;
    if (fabric_tcp_xfer(l.fd, &h, sizeof(h), 1, deadline, err) < 0 ||
        fabric_tcp_xfer(l.fd, &ready, 1, 0, deadline, err) < 0)
        goto out;
    if (o->op == FABRIC_OP_READ) {
        /* the receiver pulls; its figures come back */
        if (fabric_tcp_xfer(l.fd, &done, sizeof(done), 0, deadline, err) < 0)
            goto out;
    } else {
        if (stream(st, &l, o->op == FABRIC_OP_SEND ? IBV_WR_SEND : IBV_WR_RDMA_WRITE, duration,
                   deadline, &done, err) < 0 ||
            fabric_tcp_xfer(l.fd, &done, sizeof(done), 1, deadline, err) < 0)
            goto out;
        if (o->op == FABRIC_OP_SEND && /* what the receiver counted */
            fabric_tcp_xfer(l.fd, &done, sizeof(done), 0, deadline, err) < 0)
            goto out;
    }
    fill_stats(st, &done, out);
    rc = 0;
out:
    link_close(&l);
    return rc;
}

/* send/recv: keep window receives posted per queue pair, count and check what arrives, until
 * the sender's total has arrived */
static int receive_sends(struct verbs_state *st, struct link *l, double deadline,
                         struct done_msg *got, ry_error_t *err)
{
    const struct fabric_verbs_opts *o = &st->o;
    struct done_msg sent = { -1, 0, 0 };
    struct fabric_window w;
    int rc = 0;
    char ready = 1;

    fabric_window_init(&w, l->nqp, o->window);
    for (int qp = 0; qp < l->nqp && rc == 0; qp++)
        for (int k = 0; k < o->window && rc == 0; k++) {
            int slot;
            uint64_t id = fabric_window_post(&w, qp, &slot);
            rc = post(st, l->qp[qp], 0, 1, NULL, (size_t)slot * o->msg, o->msg, id, 0, err);
        }
    if (rc == 0)
        rc = fabric_tcp_xfer(l->fd, &ready, 1, 1, deadline, err);
    got->bytes = 0;
    while (rc == 0 && (sent.bytes < 0 || got->bytes < sent.bytes)) {
        struct ibv_wc wc;
        int n = ibv_poll_cq(st->cq, 1, &wc), slot;
        if (n < 0) {
            rc = verr(st, err, "ibv_poll_cq", EIO);
            break;
        }
        if (n == 0) {
            struct pollfd p = { l->fd, POLLIN, 0 };
            if (sent.bytes < 0 && poll(&p, 1, 0) == 1) {
                rc = fabric_tcp_xfer(l->fd, &sent, sizeof(sent), 0, deadline, err);
                got->seconds = sent.seconds;
            } else if (fabric_now() > deadline)
                rc = ry_errorf(err, "%s: %lld of %lld bytes arrived before the deadline", st->where,
                               (long long)got->bytes, (long long)sent.bytes);
            continue;
        }
        if (wc.status != IBV_WC_SUCCESS) {
            rc = wcerr(st, err, &wc);
            break;
        }
        if (fabric_window_complete(&w, wc.wr_id, &slot) < 0) {
            rc = ry_errorf(err, "%s: receive completed out of order", st->where);
            break;
        }
        got->bytes += wc.byte_len;
        if (wc.byte_len != o->msg)
            rc = ry_errorf(err, "%s: a %u-byte message where %zu were sent", st->where, wc.byte_len,
                           o->msg);
        /* each message is checked as it lands, but GPU memory only with --verify: a copy to
         * the host per message would slow the link being measured (checked once below) */
        else if ((st->mem.cuda && !o->verify) ||
                 (rc = fabric_mem_check(&st->mem, (size_t)slot * o->msg, o->msg, o->msg, o->verify,
                                        err)) == 0) {
            int qp = (int)(wc.wr_id >> 48);
            uint64_t id = fabric_window_post(&w, qp, &slot);
            rc = post(st, l->qp[qp], 0, 1, NULL, (size_t)slot * o->msg, o->msg, id, 0, err);
        }
    }
    if (rc == 0 && st->mem.cuda && !o->verify && got->bytes > 0 &&
        fabric_mem_check(&st->mem, 0, o->msg, o->msg, 0, err) < 0) /* the first slot */
        rc = ry_error_prefix(err, "%s: send: ", st->where);
    fabric_window_free(&w);
    return rc;
}

static int verbs_recv(void *state, const struct fabric_endpoint *peer, int streams,
                      double connect_by, double deadline, struct fabric_stats *out, ry_error_t *err)
{
    struct verbs_state *st = state;
    const struct fabric_verbs_opts *o = &st->o;
    struct done_msg done = { 0, 0, 0 };
    struct hello h;
    struct link l;
    int rc = -1;
    char ready = 1;

    (void)streams;
    fabric_stats_clear(out);
    if (fabric_mem_clear(&st->mem, err) < 0 ||
        pair_up(st, peer, 0, o->qps, connect_by < deadline ? connect_by : deadline, &l, err) < 0)
        return -1;
    if (fabric_tcp_xfer(l.fd, &h, sizeof(h), 0, deadline, err) < 0)
        goto out;
    if (h.op != (int32_t)o->op || h.qps != o->qps || h.window != o->window ||
        h.msg != (int64_t)o->msg) {
        ry_errorf(err,
                  "the peer runs another verbs test (%s, %d queue pairs, window %d, %lld "
                  "bytes)",
                  fabric_verbs_op_name((enum fabric_verbs_op)h.op), h.qps, h.window,
                  (long long)h.msg);
        goto out;
    }
    switch (o->op) {
    case FABRIC_OP_WRITE:
        if (fabric_tcp_xfer(l.fd, &ready, 1, 1, deadline, err) < 0 ||
            fabric_tcp_xfer(l.fd, &done, sizeof(done), 0, deadline, err) < 0)
            goto out;
        /* the sender's writes must have left its pattern in every slot they reached */
        if (check_slots(st, &done, "RDMA write", err) < 0)
            goto out;
        break;
    case FABRIC_OP_READ:
        if (fabric_tcp_xfer(l.fd, &ready, 1, 1, deadline, err) < 0 ||
            stream(st, &l, IBV_WR_RDMA_READ, h.duration, deadline, &done, err) < 0)
            goto out;
        if (check_slots(st, &done, "RDMA read", err) < 0)
            goto out;
        if (fabric_tcp_xfer(l.fd, &done, sizeof(done), 1, deadline, err) < 0)
            goto out;
        break;
    case FABRIC_OP_SEND:
        if (receive_sends(st, &l, deadline, &done, err) < 0 ||
            fabric_tcp_xfer(l.fd, &done, sizeof(done), 1, deadline, err) < 0)
            goto out;
        break;
    }
    fill_stats(st, &done, out);
    rc = 0;
out:
    link_close(&l);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ping-pong on the control buffers: each side writes the round number from its ctl + 8 into
 * the other's ctl word and polls its own */
static int pingpong(struct verbs_state *st, struct link *l, int iters, int pinger, double deadline,
                    double *lat, ry_error_t *err)
{
    volatile uint64_t *slot = (volatile uint64_t *)st->ctl;
    uint64_t *send = (uint64_t *)(st->ctl + 8);
    struct ibv_sge sge = { (uint64_t)(uintptr_t)send, 8, st->ctl_mr->lkey };
    struct ibv_send_wr wr, *bad;
    struct ibv_wc wc;

    for (int i = 1; i <= iters; i++) {
        double t = fabric_now();
        int signaled = i % 8 == 0 || i == iters;
        if (!pinger)
            while (*slot != (uint64_t)i)
                if (fabric_now() > deadline)
                    return ry_errorf(err, "%s: ping %d never arrived before the deadline",
                                     st->where, i);
        *send = (uint64_t)i;
        /* one write in 8 is signaled and reaped (the send queue must not fill); the others
         * are not waited for, so the round trip is the peer's answer, not an acknowledgement */
        memset(&wr, 0, sizeof(wr));
        wr.wr_id = (uint64_t)i;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_RDMA_WRITE;
        wr.send_flags =
            (signaled ? IBV_SEND_SIGNALED : 0u) | (st->inline_ok ? IBV_SEND_INLINE : 0u);
        wr.wr.rdma.remote_addr = l->remote[0].ctl_addr;
        wr.wr.rdma.rkey = l->remote[0].ctl_rkey;
        if ((errno = ibv_post_send(l->qp[0], &wr, &bad)))
            return verr(st, err, "ibv_post_send", errno);
        if (signaled && reap(st, deadline, &wc, err) < 0)
            return -1;
        if (pinger) {
            while (*slot != (uint64_t)i)
                if (fabric_now() > deadline)
                    return ry_errorf(err, "%s: pong %d never arrived before the deadline",
                                     st->where, i);
            lat[i - 1] = (fabric_now() - t) / 2 * 1e6;
        }
    }
    return 0;
}

static int verbs_ping(void *state, const struct fabric_endpoint *peer, int iters, double deadline,
                      struct fabric_stats *out, ry_error_t *err)
{
    struct verbs_state *st = state;
    struct link l;
    int rc = -1;
    int32_t n = iters;
    double *lat;
    char ready;

    if (iters < 1 || pair_up(st, peer, 1, 1, deadline, &l, err) < 0)
        return -1;
    lat = xcalloc((size_t)iters, sizeof(*lat));
    /* the first ping waits for the peer's queue pair to be ready to receive: one that reached
     * it before (still INIT) would be dropped and resent after the ACK timeout, a retransmission
     * of railyard's own making in the latency and the port's counters */
    if (fabric_tcp_xfer(l.fd, &n, sizeof(n), 1, deadline, err) == 0 &&
        fabric_tcp_xfer(l.fd, &ready, 1, 0, deadline, err) == 0 &&
        pingpong(st, &l, iters, 1, deadline, lat, err) == 0) {
        qsort(lat, (size_t)iters, sizeof(*lat), cmp_double);
        out->lat_p50_us = lat[iters / 2];
        out->lat_p99_us = lat[(iters * 99) / 100 < iters ? (iters * 99) / 100 : iters - 1];
        rc = 0;
    }
    free(lat);
    link_close(&l);
    return rc;
}

static int verbs_pong(void *state, const struct fabric_endpoint *peer, double deadline,
                      ry_error_t *err)
{
    struct verbs_state *st = state;
    struct link l;
    int rc = -1;
    int32_t n;
    char ready = 1;

    if (pair_up(st, peer, 0, 1, deadline, &l, err) < 0)
        return -1;
    if (fabric_tcp_xfer(l.fd, &n, sizeof(n), 0, deadline, err) == 0 && n > 0 && n < 10000000 &&
        fabric_tcp_xfer(l.fd, &ready, 1, 1, deadline, err) == 0)
        rc = pingpong(st, &l, n, 0, deadline, NULL, err);
    link_close(&l);
    return rc;
}

int fabric_verbs_register_gpu(const char *dev, uint64_t dptr, size_t size, int dmabuf_fd, char *how,
                              size_t howlen, ry_error_t *err)
{
    struct verbs_state st;
    struct ibv_mr *mr = NULL;
    const char *kind;
    int rc = -1;

    memset(&st, 0, sizeof(st));
    snprintf(st.dev, sizeof(st.dev), "%s", dev);
    snprintf(st.where, sizeof(st.where), "%s", dev);
    st.port = 1;
    how[0] = '\0';
    if (open_device(&st, err) < 0)
        return -1;
    if (!(st.pd = ibv_alloc_pd(st.ctx)))
        verr(&st, err, "ibv_alloc_pd", errno);
    else if ((mr = reg_gpu(&st, dptr, size, dmabuf_fd, NULL, &kind, err))) {
        snprintf(how, howlen, "%s",
                 !strcmp(kind, "dma-buf") ? "registered by dma-buf"
                                          : "registered as peer memory (nvidia-peermem)");
        rc = 0;
    }
    if (mr)
        ibv_dereg_mr(mr);
    if (st.pd)
        ibv_dealloc_pd(st.pd);
    ibv_close_device(st.ctx);
    return rc;
}

const struct fabric_transport fabric_transport_verbs = {
    .name = "verbs",
    .polls = 1,
    .setup = verbs_setup,
    .send = verbs_send,
    .recv = verbs_recv,
    .ping = verbs_ping,
    .pong = verbs_pong,
    .teardown = verbs_teardown,
};

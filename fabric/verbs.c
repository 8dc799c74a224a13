#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fabric/transport.h"
#include "src/common/xmalloc.h"
#include "topo/sysfs.h"

/* The verbs transport: RDMA writes over an RC queue pair between the two ends of a rail, the
 * queue pair's numbers exchanged on a TCP control connection of the same rail (the tcp
 * transport's listener). Bandwidth: 64 KiB writes, WINDOW of them in flight, for the round's
 * duration; a write completes at the sender once the receiver's HCA has acknowledged it, so the
 * sender's completed bytes are what arrived. Latency: 8-byte write ping-pong, each side polling
 * its own memory. Every verbs error names the host's device, port and the call. */

#define MSG     (64 * 1024)
#define WINDOW  16
#define REGION  (MSG * WINDOW)
#define SLOT    (REGION) /* the ping-pong word after the data */
#define BUFSIZE (REGION + 64)

int fabric_verbs_gid_index = -1;

struct verbs_state {
    char netdev[32], dev[64];
    int port, gid_index, infiniband;
    void *tcp; /* control channel */
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_mr *mr;
    char *buf;
    struct ibv_port_attr attr;
    union ibv_gid gid;
};

struct qp_info {
    uint32_t qpn, psn, rkey, mtu;
    uint64_t addr;
    uint16_t lid;
    uint8_t gid[16];
};

static int verr(const struct verbs_state *st, ry_error_t *err, const char *call, int e)
{
    return ry_errorf(err, "%s port %d: %s: %s", st->dev, st->port, call, strerror(e ? e : EIO));
}

/* the RDMA device and port whose network interface is netdev */
static int find_port(struct verbs_state *st, ry_error_t *err)
{
    struct ibv_device **list;
    int n;

    if (!(list = ibv_get_device_list(&n)))
        return ry_errorf(err, "ibv_get_device_list: %s", strerror(errno));
    for (int i = 0; i < n && !st->dev[0]; i++) {
        const char *name = ibv_get_device_name(list[i]);
        char buf[64];
        for (int p = 1; p <= 4 && !st->dev[0]; p++) {
            if (topo_sysfs_read(NULL, buf, sizeof(buf), NULL,
                                "class/infiniband/%s/ports/%d/gid_attrs/ndevs/0", name, p) == 0 &&
                !strcmp(buf, st->netdev)) {
                snprintf(st->dev, sizeof(st->dev), "%s", name);
                st->port = p;
            }
        }
        if (!st->dev[0] &&
            topo_sysfs_read(NULL, buf, sizeof(buf), NULL,
                            "class/infiniband/%s/device/net/%s/dev_id", name, st->netdev) == 0) {
            snprintf(st->dev, sizeof(st->dev), "%s", name); /* IPoIB: the first port */
            st->port = 1;
            st->infiniband = 1;
        }
        if (st->dev[0])
            st->ctx = ibv_open_device(list[i]);
    }
    ibv_free_device_list(list);
    if (!st->dev[0])
        return ry_errorf(err, "no RDMA device has netdev %s", st->netdev);
    if (!st->ctx)
        return verr(st, err, "ibv_open_device", errno);
    return 0;
}

static int pick_gid(struct verbs_state *st, ry_error_t *err)
{
    struct fabric_gid t[32];
    int n = 0;

    for (int i = 0; i < 32; i++) {
        struct fabric_gid *g = &t[n];
        memset(g, 0, sizeof(*g));
        g->index = i;
        if (topo_sysfs_read(NULL, g->gid, sizeof(g->gid), NULL,
                            "class/infiniband/%s/ports/%d/gids/%d", st->dev, st->port, i) < 0)
            break;
        topo_sysfs_read(NULL, g->type, sizeof(g->type), NULL,
                        "class/infiniband/%s/ports/%d/gid_attrs/types/%d", st->dev, st->port, i);
        topo_sysfs_read(NULL, g->ndev, sizeof(g->ndev), NULL,
                        "class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d", st->dev, st->port, i);
        n++;
    }
    st->gid_index = fabric_pick_gid(t, n, st->netdev, st->infiniband, fabric_verbs_gid_index);
    if (st->gid_index < 0)
        return ry_errorf(err, "%s port %d: no usable GID for %s%s", st->dev, st->port, st->netdev,
                         fabric_verbs_gid_index >= 0 ? " at the given --gid-index" : "");
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
    if (st->cq)
        ibv_destroy_cq(st->cq);
    if (st->pd)
        ibv_dealloc_pd(st->pd);
    if (st->ctx)
        ibv_close_device(st->ctx);
    free(st->buf);
    if (st->tcp)
        fabric_transport_tcp.teardown(st->tcp);
    free(st);
}

static int verbs_setup(const char *netdev, struct fabric_endpoint *local, void **state,
                       ry_error_t *err)
{
    struct verbs_state *st = xcalloc(1, sizeof(*st));
    ry_error_t e = { "" };

    *state = st;
    snprintf(st->netdev, sizeof(st->netdev), "%s", netdev);
    if (fabric_transport_tcp.setup(netdev, local, &st->tcp, err) < 0)
        return -1;
    if (!local->ok)
        return 0;
    if (find_port(st, &e) < 0 || pick_gid(st, &e) < 0)
        goto bad;
    if (ibv_query_port(st->ctx, (uint8_t)st->port, &st->attr)) {
        verr(st, &e, "ibv_query_port", errno);
        goto bad;
    }
    if (st->attr.state != IBV_PORT_ACTIVE) {
        ry_errorf(&e, "%s port %d is %s, not ACTIVE", st->dev, st->port,
                  ibv_port_state_str(st->attr.state));
        goto bad;
    }
    st->buf = xcalloc(1, BUFSIZE);
    if (!(st->pd = ibv_alloc_pd(st->ctx))) {
        verr(st, &e, "ibv_alloc_pd", errno);
        goto bad;
    }
    if (!(st->cq = ibv_create_cq(st->ctx, WINDOW * 2 + 8, NULL, NULL, 0))) {
        verr(st, &e, "ibv_create_cq", errno);
        goto bad;
    }
    if (!(st->mr = ibv_reg_mr(st->pd, st->buf, BUFSIZE,
                              IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                  IBV_ACCESS_REMOTE_READ))) {
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
    struct ibv_qp_init_attr ia = {
        .send_cq = st->cq,
        .recv_cq = st->cq,
        .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = WINDOW + 4,
                 .max_recv_wr = 4,
                 .max_send_sge = 1,
                 .max_recv_sge = 1 },
    };
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
                             .pkey_index = 0,
                             .port_num = (uint8_t)st->port,
                             .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                                                IBV_ACCESS_LOCAL_WRITE };
    struct ibv_qp *qp = ibv_create_qp(st->pd, &ia);

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
    me->addr = (uint64_t)(uintptr_t)st->buf;
    me->lid = st->attr.lid;
    me->mtu = st->attr.active_mtu;
    memcpy(me->gid, st->gid.raw, 16);
    return qp;
}

static int connect_qp(struct verbs_state *st, struct ibv_qp *qp, const struct qp_info *me,
                      const struct qp_info *peer, ry_error_t *err)
{
    struct ibv_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = (enum ibv_mtu)(peer->mtu < me->mtu ? peer->mtu : me->mtu);
    a.dest_qp_num = peer->qpn;
    a.rq_psn = peer->psn;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.port_num = (uint8_t)st->port;
    a.ah_attr.dlid = peer->lid;
    if (!st->infiniband || st->attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
        a.ah_attr.is_global = 1;
        memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
        a.ah_attr.grh.sgid_index = (uint8_t)st->gid_index;
        a.ah_attr.grh.hop_limit = 64;
    }
    if ((errno =
             ibv_modify_qp(qp, &a,
                           IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                               IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
        return verr(st, err, "ibv_modify_qp(RTR)", errno);
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = me->psn;
    a.max_rd_atomic = 1;
    if ((errno = ibv_modify_qp(qp, &a,
                               IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)))
        return verr(st, err, "ibv_modify_qp(RTS)", errno);
    return 0;
}

static int post_write(struct verbs_state *st, struct ibv_qp *qp, const struct qp_info *peer,
                      size_t off, size_t len, uint64_t id, int signaled, ry_error_t *err)
{
    struct ibv_sge sge = { .addr = (uint64_t)(uintptr_t)(st->buf + off),
                           .length = (uint32_t)len,
                           .lkey = st->mr->lkey };
    struct ibv_send_wr wr = { .wr_id = id,
                              .sg_list = &sge,
                              .num_sge = 1,
                              .opcode = IBV_WR_RDMA_WRITE,
                              .send_flags = signaled ? IBV_SEND_SIGNALED : 0u };
    struct ibv_send_wr *bad;

    wr.wr.rdma.remote_addr = peer->addr + off;
    wr.wr.rdma.rkey = peer->rkey;
    if ((errno = ibv_post_send(qp, &wr, &bad)))
        return verr(st, err, "ibv_post_send", errno);
    return 0;
}

/* wait for one completion (deadline): 0, or -1 naming the status */
static int reap(struct verbs_state *st, double deadline, ry_error_t *err)
{
    struct ibv_wc wc;

    for (;;) {
        int n = ibv_poll_cq(st->cq, 1, &wc);
        if (n < 0)
            return verr(st, err, "ibv_poll_cq", EIO);
        if (n == 1) {
            if (wc.status != IBV_WC_SUCCESS)
                return ry_errorf(err, "%s port %d: RDMA write completed with '%s'", st->dev,
                                 st->port, ibv_wc_status_str(wc.status));
            return 0;
        }
        if (fabric_now() > deadline)
            return ry_errorf(err, "%s port %d: no completion before the deadline", st->dev,
                             st->port);
    }
}

/* the control connection and a connected QP: dial (sender) or accept (receiver) */
static struct ibv_qp *pair_up(struct verbs_state *st, const struct fabric_endpoint *peer,
                              int dialing, double by, int *fd, struct qp_info *remote,
                              ry_error_t *err)
{
    struct qp_info me;
    struct ibv_qp *qp = NULL;

    if (!st->ctx || !st->mr) {
        ry_errorf(err, "%s is not set up for verbs", st->netdev);
        return NULL;
    }
    *fd = dialing ? fabric_tcp_dial(st->tcp, peer, by, err)
                  : fabric_tcp_accept(st->tcp, peer, by, err);
    if (*fd < 0)
        return NULL;
    memset(st->buf + SLOT, 0, 16); /* before the peer can write into it */
    if (!(qp = make_qp(st, &me, err)))
        goto fail;
    if (fabric_tcp_xfer(*fd, &me, sizeof(me), 1, by, err) < 0 ||
        fabric_tcp_xfer(*fd, remote, sizeof(*remote), 0, by, err) < 0 ||
        connect_qp(st, qp, &me, remote, err) < 0)
        goto fail;
    return qp;
fail:
    if (qp)
        ibv_destroy_qp(qp);
    close(*fd);
    *fd = -1;
    return NULL;
}

struct done_msg {
    int64_t bytes;
    double seconds;
};

static void fill_stats(const struct done_msg *d, struct fabric_stats *out)
{
    out->bytes = d->bytes;
    out->seconds = d->seconds;
    out->bw_gbps = d->seconds > 0 ? (double)d->bytes * 8 / d->seconds / 1e9 : 0;
    out->retrans = -1;
}

static int verbs_send(void *state, const struct fabric_endpoint *peer, double duration, int streams,
                      double connect_by, double deadline, struct fabric_stats *out, ry_error_t *err)
{
    struct verbs_state *st = state;
    struct qp_info remote;
    struct done_msg done = { 0, 0 };
    struct ibv_qp *qp;
    int fd, inflight = 0, rc = -1;
    double t0, end;
    uint64_t n = 0;

    (void)streams;
    memset(out, 0, sizeof(*out));
    if (!(qp = pair_up(st, peer, 1, connect_by < deadline ? connect_by : deadline, &fd, &remote,
                       err)))
        return -1;
    for (size_t i = 0; i < REGION; i++)
        st->buf[i] = (char)(i * 7 + 1);
    t0 = fabric_now();
    end = t0 + duration;
    while (fabric_now() < end || inflight > 0) {
        if (fabric_now() < end && inflight < WINDOW) {
            if (post_write(st, qp, &remote, (n % WINDOW) * MSG, MSG, n, 1, err) < 0)
                goto out;
            n++;
            inflight++;
            continue;
        }
        if (reap(st, deadline, err) < 0)
            goto out;
        inflight--;
        done.bytes += MSG;
    }
    done.seconds = fabric_now() - t0;
    if (fabric_tcp_xfer(fd, &done, sizeof(done), 1, deadline, err) < 0)
        goto out;
    fill_stats(&done, out);
    rc = 0;
out:
    ibv_destroy_qp(qp);
    close(fd);
    return rc;
}

static int verbs_recv(void *state, const struct fabric_endpoint *peer, int streams,
                      double connect_by, double deadline, struct fabric_stats *out, ry_error_t *err)
{
    struct verbs_state *st = state;
    struct qp_info remote;
    struct done_msg done;
    struct ibv_qp *qp;
    int fd, rc = -1;

    (void)streams;
    memset(out, 0, sizeof(*out));
    if (!(qp = pair_up(st, peer, 0, connect_by < deadline ? connect_by : deadline, &fd, &remote,
                       err)))
        return -1;
    if (fabric_tcp_xfer(fd, &done, sizeof(done), 0, deadline, err) < 0)
        goto out;
    /* the data the sender's writes left in this buffer must be its pattern */
    for (size_t i = 0; i < REGION && i < (size_t)done.bytes; i += 4093)
        if (st->buf[i] != (char)(i * 7 + 1)) {
            ry_errorf(err, "%s port %d: data written by the peer differs at offset %zu", st->dev,
                      st->port, i);
            goto out;
        }
    fill_stats(&done, out);
    rc = 0;
out:
    memset(st->buf, 0, REGION);
    ibv_destroy_qp(qp);
    close(fd);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ping-pong: each side writes the round number into the other's slot and polls its own */
static int pingpong(struct verbs_state *st, struct ibv_qp *qp, const struct qp_info *remote,
                    int iters, int pinger, double deadline, double *lat, ry_error_t *err)
{
    volatile uint64_t *slot = (volatile uint64_t *)(st->buf + SLOT);
    uint64_t *send = (uint64_t *)(st->buf + SLOT + 8);

    for (int i = 1; i <= iters; i++) {
        double t = fabric_now();
        if (!pinger)
            while (*slot != (uint64_t)i)
                if (fabric_now() > deadline)
                    return ry_errorf(err, "%s port %d: ping %d never arrived", st->dev, st->port,
                                     i);
        *send = (uint64_t)i;
        /* one write in 8 is signaled and reaped (the send queue must not fill); the others
         * are not waited for, so the round trip is the peer's answer, not an acknowledgement */
        if (post_write(st, qp, remote, SLOT + 8, 8, (uint64_t)i, i % 8 == 0 || i == iters, err) < 0)
            return -1;
        if ((i % 8 == 0 || i == iters) && reap(st, deadline, err) < 0)
            return -1;
        if (pinger) {
            while (*slot != (uint64_t)i)
                if (fabric_now() > deadline)
                    return ry_errorf(err, "%s port %d: pong %d never arrived", st->dev, st->port,
                                     i);
            lat[i - 1] = (fabric_now() - t) / 2 * 1e6;
        }
    }
    return 0;
}

static int verbs_ping(void *state, const struct fabric_endpoint *peer, int iters, double deadline,
                      struct fabric_stats *out, ry_error_t *err)
{
    struct verbs_state *st = state;
    struct qp_info remote;
    struct ibv_qp *qp;
    int fd, rc = -1;
    int32_t n = iters;
    double *lat;

    memset(out, 0, sizeof(*out));
    if (iters < 1 || !(qp = pair_up(st, peer, 1, deadline, &fd, &remote, err)))
        return -1;
    lat = xcalloc((size_t)iters, sizeof(*lat));
    remote.addr -= 8; /* writes go from our SLOT + 8 to the peer's SLOT */
    if (fabric_tcp_xfer(fd, &n, sizeof(n), 1, deadline, err) == 0 &&
        pingpong(st, qp, &remote, iters, 1, deadline, lat, err) == 0) {
        qsort(lat, (size_t)iters, sizeof(*lat), cmp_double);
        out->lat_p50_us = lat[iters / 2];
        out->lat_p99_us = lat[(iters * 99) / 100 < iters ? (iters * 99) / 100 : iters - 1];
        rc = 0;
    }
    free(lat);
    ibv_destroy_qp(qp);
    close(fd);
    return rc;
}

static int verbs_pong(void *state, const struct fabric_endpoint *peer, double deadline,
                      ry_error_t *err)
{
    struct verbs_state *st = state;
    struct qp_info remote;
    struct ibv_qp *qp;
    int fd, rc = -1;
    int32_t n;

    if (!(qp = pair_up(st, peer, 0, deadline, &fd, &remote, err)))
        return -1;
    remote.addr -= 8;
    if (fabric_tcp_xfer(fd, &n, sizeof(n), 0, deadline, err) == 0 && n > 0 && n < 10000000)
        rc = pingpong(st, qp, &remote, n, 0, deadline, NULL, err);
    ibv_destroy_qp(qp);
    close(fd);
    return rc;
}

const struct fabric_transport fabric_transport_verbs = {
    .name = "verbs",
    .setup = verbs_setup,
    .send = verbs_send,
    .recv = verbs_recv,
    .ping = verbs_ping,
    .pong = verbs_pong,
    .teardown = verbs_teardown,
};

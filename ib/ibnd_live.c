#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "common/xmalloc.h"
#include "ib/ibfabric.h"

/* Live fabric discovery through libibnetdisc (directed-route SMPs from the local port) and PMA
 * counters through libibmad (LID-routed, so a subnet manager must have assigned LIDs). The same
 * calls run on a real fabric and on ibsim (through libumad2sim). */

/* PortInfo:CapabilityMask IsExtendedSpeedsSupported (IBA 14.2.5.6) */
#define PI_CAP_EXT_SPEEDS 0x4000u
/* PMA ClassPortInfo:CapabilityMask: PortCountersExtended with all fields (0x200) or without
 * the IETF-style ones (0x400) */
#define PM_CAP_EXT_WIDTH        0x0200u
#define PM_CAP_EXT_WIDTH_NOIETF 0x0400u

int ibf_live_available(void)
{
    return 1;
}

static int width_lanes(unsigned w)
{
    switch (w) {
    case 1: return 1;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
    case 16: return 2;
    }
    return 0;
}

static enum ibf_speed decode_speed(const uint8_t *info, unsigned capmask)
{
    unsigned ext = 0, sp = mad_get_field((void *)info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);

    if (capmask & PI_CAP_EXT_SPEEDS)
        ext = mad_get_field((void *)info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
    switch (ext) {
    case 1: return IBF_FDR;
    case 2: return IBF_EDR;
    case 4: return IBF_HDR;
    case 8: return IBF_NDR;
    }
    switch (sp) {
    case 1: return IBF_SDR;
    case 2: return IBF_DDR;
    case 4: return IBF_QDR;
    }
    return IBF_SPEED_UNKNOWN;
}

struct ptr_idx {
    const void *p;
    size_t i;
};

static int cmp_ptr(const void *a, const void *b)
{
    const struct ptr_idx *x = a, *y = b;
    return x->p < y->p ? -1 : x->p > y->p;
}

static int index_of(const struct ptr_idx *v, size_t n, const void *p)
{
    struct ptr_idx key = { p, 0 }, *hit = bsearch(&key, v, n, sizeof(*v), cmp_ptr);
    return hit ? (int)hit->i : -1;
}

/* f from a fabric libibnetdisc discovered or loaded from its cache (fab is destroyed) */
static void from_ibnd(struct ibf_fabric *f, ibnd_fabric_t *fab)
{
    ibnd_node_t *nd;
    struct ptr_idx *idx;
    size_t count = 0, k = 0;

    for (nd = fab->nodes; nd; nd = nd->next)
        count++;
    idx = xcalloc(count ? count : 1, sizeof(*idx));
    for (nd = fab->nodes; nd; nd = nd->next) {
        char id[32];
        size_t n;
        enum ibf_node_type t = nd->type == IB_NODE_SWITCH   ? IBF_SWITCH
                               : nd->type == IB_NODE_ROUTER ? IBF_ROUTER
                                                            : IBF_CA;
        snprintf(id, sizeof(id), "%c-%016" PRIx64,
                 t == IBF_SWITCH   ? 'S'
                 : t == IBF_ROUTER ? 'R'
                                   : 'H',
                 nd->guid);
        n = ibf_add_node(f, t, nd->guid, id, nd->nodedesc, nd->numports);
        f->nodes[n].lid = nd->smalid;
        idx[k].p = nd;
        idx[k++].i = n;
    }
    qsort(idx, count, sizeof(*idx), cmp_ptr);
    for (nd = fab->nodes; nd; nd = nd->next) {
        int ni = index_of(idx, count, nd);
        struct ibf_node *n = &f->nodes[ni];
        unsigned capmask0 = 0;

        if (nd->type == IB_NODE_SWITCH && nd->ports[0])
            capmask0 = mad_get_field(nd->ports[0]->info, 0, IB_PORT_CAPMASK_F);
        for (int p = 1; p <= nd->numports; p++) {
            ibnd_port_t *pt = nd->ports[p];
            struct ibf_port *q = &n->ports[p];
            unsigned capmask;
            if (!pt)
                continue;
            capmask = nd->type == IB_NODE_SWITCH ? capmask0
                                                 : mad_get_field(pt->info, 0, IB_PORT_CAPMASK_F);
            q->present = 1;
            q->guid = pt->guid;
            q->lid = nd->type == IB_NODE_SWITCH ? nd->smalid : pt->base_lid;
            q->state = (int)mad_get_field(pt->info, 0, IB_PORT_STATE_F);
            q->phys = (int)mad_get_field(pt->info, 0, IB_PORT_PHYS_STATE_F);
            if (q->phys == IBF_PHYS_LINKUP) {
                q->width = width_lanes(mad_get_field(pt->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F));
                q->speed = decode_speed(pt->info, capmask);
            }
            if (pt->remoteport) {
                q->remote = index_of(idx, count, pt->remoteport->node);
                q->remote_port = pt->remoteport->portnum;
            }
        }
    }
    free(idx);
    ibnd_destroy_fabric(fab);
    ibf_name_nodes(f, NULL);
}

int ibf_discover(struct ibf_fabric *f, const struct ibf_live_opts *o, ry_error_t *err)
{
    ibnd_config_t cfg;
    ibnd_fabric_t *fab;

    memset(f, 0, sizeof(*f));
    memset(&cfg, 0, sizeof(cfg));
    cfg.timeout_ms = (unsigned)(o->timeout_ms > 0 ? o->timeout_ms : 500);
    cfg.retries = (unsigned)(o->retries >= 0 ? o->retries : 2);
    fab = ibnd_discover_fabric((char *)o->ca, o->port, NULL, &cfg);
    if (!fab)
        return ry_errorf(err,
                         "fabric discovery failed from %s port %d (no usable HCA port, or ib_umad "
                         "not loaded, or no access to /dev/infiniband/umad*)",
                         o->ca ? o->ca : "the first HCA", o->port);
    if (o->cache) {
        /* written aside and renamed: a console starting meanwhile never reads half a file */
        char *tmp = xasprintf("%s.tmp.%ld", o->cache, (long)getpid());
        unlink(tmp);
        if (ibnd_cache_fabric(fab, tmp, IBND_CACHE_FABRIC_FLAG_DEFAULT) != 0 ||
            rename(tmp, o->cache) != 0)
            unlink(tmp); /* no cache: the next start discovers, as without one */
        free(tmp);
    }
    from_ibnd(f, fab);
    if (o->ca)
        f->source = xasprintf("live from %s port %d", o->ca, o->port ? o->port : 1);
    else
        f->source = xasprintf("live from the first active local HCA port");
    return 0;
}

int ibf_discover_cached(struct ibf_fabric *f, const char *path, ry_error_t *err)
{
    ibnd_fabric_t *fab;
    struct stat st;
    char when[32];

    memset(f, 0, sizeof(*f));
    if (stat(path, &st) != 0)
        return ry_errorf(err, "%s: %s", path, strerror(errno));
    if (!(fab = ibnd_load_fabric(path, 0)))
        return ry_errorf(err, "%s: not a fabric cache libibnetdisc can load", path);
    from_ibnd(f, fab);
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&st.st_mtime));
    f->source = xasprintf("discovery cached %s", when);
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const int pc_fields[] = {
    [IBF_SYMBOL_ERR] = IB_PC_ERR_SYM_F,
    [IBF_LINK_RECOVERY] = IB_PC_LINK_RECOVERS_F,
    [IBF_LINK_DOWNED] = IB_PC_LINK_DOWNED_F,
    [IBF_RCV_ERR] = IB_PC_ERR_RCV_F,
    [IBF_RCV_REMOTE_PHYS] = IB_PC_ERR_PHYSRCV_F,
    [IBF_RCV_SWITCH_RELAY] = IB_PC_ERR_SWITCH_REL_F,
    [IBF_XMIT_DISCARDS] = IB_PC_XMT_DISCARDS_F,
    [IBF_XMIT_CONSTRAINT] = IB_PC_ERR_XMTCONSTR_F,
    [IBF_RCV_CONSTRAINT] = IB_PC_ERR_RCVCONSTR_F,
    [IBF_LOCAL_INTEGRITY] = IB_PC_ERR_LOCALINTEG_F,
    [IBF_EXCESS_OVERRUN] = IB_PC_ERR_EXCESS_OVR_F,
    [IBF_VL15_DROPPED] = IB_PC_VL15_DROPPED_F,
    [IBF_XMIT_WAIT] = IB_PC_XMT_WAIT_F,
    [IBF_XMIT_DATA] = IB_PC_XMT_BYTES_F,
    [IBF_RCV_DATA] = IB_PC_RCV_BYTES_F,
    [IBF_XMIT_PKTS] = IB_PC_XMT_PKTS_F,
    [IBF_RCV_PKTS] = IB_PC_RCV_PKTS_F,
};

int ibf_mad_open(struct ibf_live_opts *o, ry_error_t *err)
{
    int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS, IB_PERFORMANCE_CLASS };

    if (!o->mad && !(o->mad = mad_rpc_open_port((char *)o->ca, o->port, classes, 4)))
        return ry_errorf(err, "cannot open the MAD port of %s port %d",
                         o->ca ? o->ca : "the first HCA", o->port);
    return 0;
}

void *ibf_port_mad_open(const char *ca, int port, int timeout_ms, ry_error_t *err)
{
    int classes[] = { IB_SMI_DIRECT_CLASS, IB_PERFORMANCE_CLASS };
    struct ibmad_port *mad = mad_rpc_open_port((char *)ca, port, classes, 2);

    if (!mad) {
        ry_errorf(err, "%s port %d: cannot open its MAD port (ib_umad not loaded?)", ca, port);
        return NULL;
    }
    mad_rpc_set_timeout(mad, timeout_ms);
    mad_rpc_set_retries(mad, 1);
    return mad;
}

int ibf_port_mad_read(void *mad, const char *ca, int port, struct ibf_port_read *r, ry_error_t *err)
{
    uint8_t pi[IB_SMP_DATA_SIZE] = { 0 }, pc[1024] = { 0 }; /* (a whole MAD: what is copied) */
    ib_portid_t self, lid;
    unsigned mylid;

    memset(r, 0, sizeof(*r));
    r->link_downed = r->link_recovery = r->symbol = r->rcv_errors = r->local_integrity =
        r->buffer_overrun = -1;
    /* its own PortInfo: directed route, no hop */
    memset(&self, 0, sizeof(self));
    if (str2drpath(&self.drpath, (char *)"0", 0, 0) < 0 ||
        !smp_query_via(pi, &self, IB_ATTR_PORT_INFO, (unsigned)port, 0, mad))
        return ry_errorf(err, "%s port %d: its PortInfo did not answer", ca, port);
    r->state = (int)mad_get_field(pi, 0, IB_PORT_STATE_F);
    r->phys = (int)mad_get_field(pi, 0, IB_PORT_PHYS_STATE_F);
    mylid = mad_get_field(pi, 0, IB_PORT_LID_F);
    if (!mylid || mylid >= 0xc000)
        return 0; /* no LID yet: the PMA cannot be asked */
    ib_portid_set(&lid, (int)mylid, 0, 0);
    if (!pma_query_via(pc, &lid, port, 0, IB_GSI_PORT_COUNTERS, mad))
        return 0; /* the state is known; the counters unread this time */
    r->link_downed = mad_get_field(pc, 0, IB_PC_LINK_DOWNED_F);
    r->link_recovery = mad_get_field(pc, 0, IB_PC_LINK_RECOVERS_F);
    r->symbol = mad_get_field(pc, 0, IB_PC_ERR_SYM_F);
    r->rcv_errors = mad_get_field(pc, 0, IB_PC_ERR_RCV_F);
    r->local_integrity = mad_get_field(pc, 0, IB_PC_ERR_LOCALINTEG_F);
    r->buffer_overrun = mad_get_field(pc, 0, IB_PC_ERR_EXCESS_OVR_F);
    return 0;
}

void ibf_port_mad_close(void *mad)
{
    if (mad)
        mad_rpc_close_port(mad);
}

void ibf_mad_close(struct ibf_live_opts *o)
{
    if (o->mad)
        mad_rpc_close_port(o->mad);
    o->mad = NULL;
}

/* ---- PMA queries kept in flight together ----
 * Asking one port and waiting for its answer before asking the next costs a round trip per
 * query: at a thousand ports and two queries each that is most of a refresh, and most of the CPU
 * a console spends (a wake-up per answer). Up to PMA_WINDOW Gets are outstanding at once and
 * each answer is matched to its query by the low 32 bits of the transaction ID (the kernel keeps
 * the high ones for its agent). A query unanswered after the timeout is sent again with a new
 * ID, up to the retries; a late answer to an abandoned ID is ignored. */
#define PMA_WINDOW 32

enum pma_kind { PMA_CPI, PMA_PC, PMA_PCX };

struct pma_query {
    size_t node;
    int port;
    enum pma_kind kind;
    int tries;
    uint32_t tid; /* of the last send */
    double sent;
    int done; /* 0 pending, 1 answered, -1 given up */
};

struct pma_engine {
    struct ibmad_port *srcport;
    int fd, agent, timeout, retries;
    uint32_t next_tid;
    uint8_t *sbuf, *rbuf;
    size_t answered, failed;
};

static int pma_send(struct pma_engine *e, const struct ibf_fabric *f, struct pma_query *q)
{
    static const unsigned attr[] = { [PMA_CPI] = CLASS_PORT_INFO,
                                     [PMA_PC] = IB_GSI_PORT_COUNTERS,
                                     [PMA_PCX] = IB_GSI_PORT_COUNTERS_EXT };
    uint8_t data[IB_PC_DATA_SZ];
    ib_rpc_t rpc;
    ib_portid_t dest;
    int len;

    memset(&rpc, 0, sizeof(rpc));
    memset(data, 0, sizeof(data));
    memset(&dest, 0, sizeof(dest));
    q->tid = e->next_tid++;
    if (!q->tid) /* 0 would let libibmad choose one */
        q->tid = e->next_tid++;
    rpc.mgtclass = IB_PERFORMANCE_CLASS;
    rpc.method = IB_MAD_METHOD_GET;
    rpc.attr.id = attr[q->kind];
    rpc.timeout = e->timeout;
    rpc.datasz = IB_PC_DATA_SZ;
    rpc.dataoffs = IB_PC_DATA_OFFS;
    rpc.trid = q->tid;
    mad_set_field(data, 0, IB_PC_PORT_SELECT_F, (uint32_t)q->port);
    ib_portid_set(&dest, f->nodes[q->node].ports[q->port].lid, 0, 0);
    dest.qp = 1;
    dest.qkey = IB_DEFAULT_QP1_QKEY;
    memset(e->sbuf, 0, umad_size() + IB_MAD_SIZE);
    len = mad_build_pkt(e->sbuf, &rpc, &dest, NULL, data);
    q->tries++;
    q->sent = now();
    if (len < 0 || umad_send(e->fd, e->agent, e->sbuf, len, e->timeout, 0) < 0)
        return -1;
    return 0;
}

/* an answer's data into the fabric */
static void pma_take(struct ibf_fabric *f, const struct pma_query *q, const uint8_t *mad, int slot)
{
    struct ibf_node *n = &f->nodes[q->node];
    struct ibf_port *p = &n->ports[q->port];
    struct ibf_sample *s = &p->s[slot];
    uint8_t *d = (uint8_t *)mad + IB_PC_DATA_OFFS;

    switch (q->kind) {
    case PMA_CPI: {
        unsigned cap = mad_get_field(d, 0, IB_CPI_CAPMASK_F);
        n->pma_ext = (cap & (PM_CAP_EXT_WIDTH | PM_CAP_EXT_WIDTH_NOIETF)) != 0;
        break;
    }
    case PMA_PC:
        s->t = now();
        for (int c = 0; c < IBF_NCTR; c++) /* the 64-bit data counters may have come first */
            if (!s->extended || (c != IBF_XMIT_DATA && c != IBF_RCV_DATA && c != IBF_XMIT_PKTS &&
                                 c != IBF_RCV_PKTS))
                s->v[c] = mad_get_field(d, 0, (enum MAD_FIELDS)pc_fields[c]);
        s->valid = 1;
        break;
    case PMA_PCX:
        s->extended = 1;
        s->v[IBF_XMIT_DATA] = mad_get_field64(d, 0, IB_PC_EXT_XMT_BYTES_F);
        s->v[IBF_RCV_DATA] = mad_get_field64(d, 0, IB_PC_EXT_RCV_BYTES_F);
        s->v[IBF_XMIT_PKTS] = mad_get_field64(d, 0, IB_PC_EXT_XMT_PKTS_F);
        s->v[IBF_RCV_PKTS] = mad_get_field64(d, 0, IB_PC_EXT_RCV_PKTS_F);
        break;
    }
}

static void pma_give_up(struct pma_engine *e, struct ibf_fabric *f, struct pma_query *q,
                        const char *why)
{
    struct ibf_node *n = &f->nodes[q->node];
    struct ibf_port *p = &n->ports[q->port];

    q->done = -1;
    e->failed++;
    switch (q->kind) {
    case PMA_CPI: n->pma_ext = -1; break; /* asked again at the next sample */
    case PMA_PC:
        free(p->error);
        p->error = xasprintf("PortCounters query to LID %d port %d %s", p->lid, q->port, why);
        break;
    case PMA_PCX: break; /* the 32-bit data counters of PortCounters stay */
    }
}

/* run queries q[0..n) to their end (answered or given up); the answers of PC/PCX land in slot */
static void pma_run(struct pma_engine *e, struct ibf_fabric *f, struct pma_query *q, size_t n,
                    int slot)
{
    size_t fly[PMA_WINDOW], nfly = 0, next = 0;

    while (next < n || nfly) {
        double t, wait_until;
        int len = IB_MAD_SIZE, rc;

        /* a fabric that stopped answering altogether: do not wait on every port */
        if (e->failed >= 16 && !e->answered)
            break;
        while (nfly < PMA_WINDOW && next < n) {
            struct pma_query *x = &q[next++];
            if (pma_send(e, f, x) < 0)
                pma_give_up(e, f, x, "could not be sent");
            else
                fly[nfly++] = (size_t)(x - q);
        }
        if (!nfly)
            continue;
        wait_until = q[fly[0]].sent + e->timeout / 1e3;
        for (size_t i = 1; i < nfly; i++)
            if (q[fly[i]].sent + e->timeout / 1e3 < wait_until)
                wait_until = q[fly[i]].sent + e->timeout / 1e3;
        t = now();
        rc =
            umad_recv(e->fd, e->rbuf, &len, wait_until > t ? (int)((wait_until - t) * 1e3) + 1 : 0);
        if (rc >= 0) {
            uint8_t *mad = umad_get_mad(e->rbuf);
            uint32_t tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F);
            for (size_t i = 0; i < nfly; i++) {
                struct pma_query *x = &q[fly[i]];
                if (x->tid != tid)
                    continue;
                if (umad_status(e->rbuf)) /* the kernel's own timeout of this send */
                    break;                /* retried below when its time is up */
                if (mad_get_field(mad, 0, IB_MAD_STATUS_F))
                    pma_give_up(e, f, x, "answered with an error status");
                else {
                    pma_take(f, x, mad, slot);
                    x->done = 1;
                    e->answered++;
                }
                fly[i] = fly[--nfly];
                break;
            }
        }
        /* the ones whose time is up: again with a new ID, or given up */
        t = now();
        for (size_t i = 0; i < nfly;) {
            struct pma_query *x = &q[fly[i]];
            if (t < x->sent + e->timeout / 1e3) {
                i++;
                continue;
            }
            if (x->tries <= e->retries && pma_send(e, f, x) == 0) {
                i++;
                continue;
            }
            pma_give_up(e, f, x, "failed (no answer)");
            fly[i] = fly[--nfly];
        }
    }
    for (size_t i = 0; i < n; i++) /* what the early stop left */
        if (!q[i].done)
            pma_give_up(e, f, &q[i], "not asked (the fabric stopped answering)");
}

/* Is port p of node i an HCA port whose data counters its leaf's port also counts (read there,
 * with one_end)? */
static int mirrored(const struct ibf_fabric *f, size_t i, int p)
{
    const struct ibf_node *n = &f->nodes[i];
    const struct ibf_port *pt = &n->ports[p];
    const struct ibf_node *r;

    if (n->type != IBF_CA || pt->remote < 0)
        return 0;
    r = &f->nodes[pt->remote];
    return r->type == IBF_SWITCH && r->pma_ext > 0 && pt->remote_port >= 1 &&
           pt->remote_port <= r->nports && r->ports[pt->remote_port].present &&
           r->ports[pt->remote_port].lid != 0;
}

int ibf_sample_counters(struct ibf_fabric *f, const struct ibf_live_opts *o, int slot,
                        ry_error_t *err)
{
    static uint32_t tid_base;
    int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS, IB_PERFORMANCE_CLASS };
    struct pma_engine e;
    struct pma_query *q = NULL;
    size_t nq = 0, cap = 0, asked = 0;

    if (slot < 0 || slot > 1)
        return ry_errorf(err, "bad counter sample slot %d", slot);
    memset(&e, 0, sizeof(e));
    e.srcport = o->mad ? o->mad : mad_rpc_open_port((char *)o->ca, o->port, classes, 4);
    if (!e.srcport)
        return ry_errorf(err, "cannot open the MAD port of %s port %d",
                         o->ca ? o->ca : "the first HCA", o->port);
    e.fd = mad_rpc_portid(e.srcport);
    e.agent = mad_rpc_class_agent(e.srcport, IB_PERFORMANCE_CLASS);
    e.timeout = o->timeout_ms > 0 ? o->timeout_ms : 500;
    e.retries = o->retries >= 0 ? o->retries : 2;
    if (!tid_base) /* IDs differ between processes sharing the port, and across samples */
        tid_base = (uint32_t)time(NULL) * 2654435761u;
    e.next_tid = tid_base;
    e.sbuf = xcalloc(1, umad_size() + IB_MAD_SIZE);
    e.rbuf = xcalloc(1, umad_size() + IB_MAD_SIZE);

    /* which ports: every cabled one with a LID (or only one host's cables) */
    for (size_t i = 0; i < f->n; i++) {
        struct ibf_node *n = &f->nodes[i];
        for (int p = 1; p <= n->nports; p++) {
            struct ibf_port *pt = &n->ports[p];
            if (!pt->present || pt->remote < 0)
                continue;
            if (o->only_host && !(n->host && !strcmp(n->host, o->only_host)) &&
                !(f->nodes[pt->remote].host && !strcmp(f->nodes[pt->remote].host, o->only_host)))
                continue;
            if (o->want && !o->want(f, (int)i, p, o->want_arg))
                continue; /* not this time: its last sample stays */
            asked++;
            memset(&pt->s[slot], 0, sizeof(pt->s[slot]));
            free(pt->error);
            pt->error = NULL;
            if (pt->lid == 0) {
                pt->error = xstrdup("no LID (has a subnet manager run?)");
                continue;
            }
            if (nq + 2 > cap)
                q = xrealloc(q, (cap = cap ? 2 * cap : 256) * sizeof(*q));
            memset(&q[nq], 0, sizeof(*q));
            q[nq].node = i;
            q[nq++].port = p;
        }
    }
    /* ClassPortInfo once per node (does its PMA have PortCountersExtended?), then the counters */
    {
        struct pma_query *c = xcalloc(nq ? nq : 1, sizeof(*c));
        size_t nc = 0;
        for (size_t k = 0; k < nq; k++) {
            struct ibf_node *n = &f->nodes[q[k].node];
            if (n->pma_ext < 0) {
                c[nc] = q[k];
                c[nc++].kind = PMA_CPI;
                n->pma_ext = -2; /* asked in this batch */
            }
        }
        pma_run(&e, f, c, nc, slot);
        for (size_t k = 0; k < nc; k++) /* not asked: the fabric stopped answering */
            if (f->nodes[c[k].node].pma_ext == -2)
                f->nodes[c[k].node].pma_ext = -1;
        free(c);
    }
    {
        size_t base = nq;
        for (size_t k = 0; k < base; k++) {
            const struct ibf_node *n = &f->nodes[q[k].node];
            q[k].kind = PMA_PC;
            if (n->pma_ext > 0 && !(o->one_end && mirrored(f, q[k].node, q[k].port))) {
                if (nq + 1 > cap)
                    q = xrealloc(q, (cap *= 2) * sizeof(*q));
                q[nq] = q[k];
                q[nq++].kind = PMA_PCX;
            }
        }
    }
    e.answered = e.failed = 0;
    pma_run(&e, f, q, nq, slot);
    if (o->one_end) {
        /* an HCA's data counters from its leaf's port, both directions crossed; where the
         * leaf's did not answer, asked of the HCA after all */
        size_t nx = 0;
        struct pma_query *x = xcalloc(nq ? nq : 1, sizeof(*x));
        for (size_t k = 0; k < nq; k++) {
            struct ibf_port *pt = &f->nodes[q[k].node].ports[q[k].port];
            const struct ibf_sample *o2;
            if (q[k].kind != PMA_PC || q[k].done != 1 || !mirrored(f, q[k].node, q[k].port))
                continue;
            o2 = &f->nodes[pt->remote].ports[pt->remote_port].s[slot];
            if (o2->extended) {
                pt->s[slot].v[IBF_XMIT_DATA] = o2->v[IBF_RCV_DATA];
                pt->s[slot].v[IBF_RCV_DATA] = o2->v[IBF_XMIT_DATA];
                pt->s[slot].v[IBF_XMIT_PKTS] = o2->v[IBF_RCV_PKTS];
                pt->s[slot].v[IBF_RCV_PKTS] = o2->v[IBF_XMIT_PKTS];
                pt->s[slot].extended = 1;
                pt->s[slot].other_end = 1;
            } else {
                x[nx] = q[k];
                x[nx].kind = PMA_PCX;
                x[nx].tries = 0;
                x[nx++].done = 0;
            }
        }
        pma_run(&e, f, x, nx, slot);
        free(x);
    }
    tid_base = e.next_tid;
    /* a port whose PortCounters did not answer has no sample, whatever PCX said */
    for (size_t k = 0; k < nq; k++)
        if (q[k].kind == PMA_PC && q[k].done != 1)
            f->nodes[q[k].node].ports[q[k].port].s[slot].valid = 0;
    free(q);
    free(e.sbuf);
    free(e.rbuf);
    if (!o->mad)
        mad_rpc_close_port(e.srcport);
    if (slot + 1 > f->nsamples)
        f->nsamples = slot + 1;
    if (asked && !e.answered)
        return ry_errorf(err,
                         "no port answered a PMA counter query (%zu asked): is the subnet "
                         "manager running and the fabric reachable?",
                         asked);
    return 0;
}

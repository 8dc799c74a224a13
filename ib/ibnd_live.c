#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#include "ib/ibfabric.h"
#include "src/common/xmalloc.h"

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

int ibf_discover(struct ibf_fabric *f, const struct ibf_live_opts *o, ry_error_t *err)
{
    ibnd_config_t cfg;
    ibnd_fabric_t *fab;
    ibnd_node_t *nd;
    struct ptr_idx *idx;
    size_t count = 0, k = 0;

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
    if (o->ca)
        f->source = xasprintf("live from %s port %d", o->ca, o->port ? o->port : 1);
    else
        f->source = xasprintf("live from the first active local HCA port");
    ibf_name_nodes(f, NULL);
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

void ibf_mad_close(struct ibf_live_opts *o)
{
    if (o->mad)
        mad_rpc_close_port(o->mad);
    o->mad = NULL;
}

int ibf_sample_counters(struct ibf_fabric *f, const struct ibf_live_opts *o, int slot,
                        ry_error_t *err)
{
    int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS, IB_PERFORMANCE_CLASS };
    struct ibmad_port *srcport;
    size_t asked = 0, answered = 0, failed_in_a_row = 0;
    int timeout = o->timeout_ms > 0 ? o->timeout_ms : 500;

    if (slot < 0 || slot > 1)
        return ry_errorf(err, "bad counter sample slot %d", slot);
    srcport = o->mad ? o->mad : mad_rpc_open_port((char *)o->ca, o->port, classes, 4);
    if (!srcport)
        return ry_errorf(err, "cannot open the MAD port of %s port %d",
                         o->ca ? o->ca : "the first HCA", o->port);
    mad_rpc_set_timeout(srcport, timeout);
    mad_rpc_set_retries(srcport, o->retries >= 0 ? o->retries : 2);
    for (size_t i = 0; i < f->n; i++) {
        struct ibf_node *n = &f->nodes[i];

        for (int p = 1; p <= n->nports; p++) {
            struct ibf_port *q = &n->ports[p];
            struct ibf_sample *s = &q->s[slot];
            uint8_t buf[1024];
            ib_portid_t portid;

            if (!q->present || q->remote < 0)
                continue;
            if (o->only_host && !(n->host && !strcmp(n->host, o->only_host)) &&
                !(f->nodes[q->remote].host && !strcmp(f->nodes[q->remote].host, o->only_host)))
                continue;
            asked++;
            memset(s, 0, sizeof(*s));
            free(q->error);
            q->error = NULL;
            if (q->lid == 0) {
                q->error = xstrdup("no LID (has a subnet manager run?)");
                continue;
            }
            memset(&portid, 0, sizeof(portid));
            ib_portid_set(&portid, q->lid, 0, 0);
            if (n->pma_ext < 0) { /* ClassPortInfo once per node, for both samples */
                memset(buf, 0, sizeof(buf));
                if (pma_query_via(buf, &portid, p, timeout, CLASS_PORT_INFO, srcport)) {
                    unsigned cap = mad_get_field(buf, 0, IB_CPI_CAPMASK_F);
                    n->pma_ext = (cap & (PM_CAP_EXT_WIDTH | PM_CAP_EXT_WIDTH_NOIETF)) != 0;
                } else
                    n->pma_ext = 0;
            }
            memset(buf, 0, sizeof(buf));
            if (!pma_query_via(buf, &portid, p, timeout, IB_GSI_PORT_COUNTERS, srcport)) {
                q->error = xasprintf("PortCounters query to LID %d port %d failed", q->lid, p);
                /* a fabric that stopped answering altogether: do not wait on every port */
                if (++failed_in_a_row >= 16 && !answered)
                    goto done;
                continue;
            }
            failed_in_a_row = 0;
            s->t = now();
            for (int c = 0; c < IBF_NCTR; c++)
                s->v[c] = mad_get_field(buf, 0, (enum MAD_FIELDS)pc_fields[c]);
            if (n->pma_ext > 0) {
                memset(buf, 0, sizeof(buf));
                if (pma_query_via(buf, &portid, p, timeout, IB_GSI_PORT_COUNTERS_EXT, srcport)) {
                    s->extended = 1;
                    s->v[IBF_XMIT_DATA] = mad_get_field64(buf, 0, IB_PC_EXT_XMT_BYTES_F);
                    s->v[IBF_RCV_DATA] = mad_get_field64(buf, 0, IB_PC_EXT_RCV_BYTES_F);
                    s->v[IBF_XMIT_PKTS] = mad_get_field64(buf, 0, IB_PC_EXT_XMT_PKTS_F);
                    s->v[IBF_RCV_PKTS] = mad_get_field64(buf, 0, IB_PC_EXT_RCV_PKTS_F);
                }
            }
            s->valid = 1;
            answered++;
        }
    }
done:
    if (!o->mad)
        mad_rpc_close_port(srcport);
    if (slot + 1 > f->nsamples)
        f->nsamples = slot + 1;
    if (asked && !answered)
        return ry_errorf(err,
                         "no port answered a PMA counter query (%zu asked): is the subnet "
                         "manager running and the fabric reachable?",
                         asked);
    return 0;
}

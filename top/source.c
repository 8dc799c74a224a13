#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/sysfs.h"
#include "common/xmalloc.h"
#include "fabric/port_counters.h"
#include "ib/ibcheck.h"
#include "readers/nvml.h"
#include "top/source.h"

double top_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* one error counter into a sample: its value added to *sum, "name=value" appended to the list
 * (len bytes, *used so far) when it is not zero */
static void add_counter(char *list, size_t len, size_t *used, uint64_t *sum, const char *name,
                        uint64_t v)
{
    *sum += v;
    if (v && *used + 1 < len)
        *used += (size_t)snprintf(list + *used, len - *used, "%s%s=%llu", *used ? " " : "", name,
                                  (unsigned long long)v);
    if (*used >= len)
        *used = len - 1;
}

/* the map's NIC of this host named dev (an RDMA device or its netdev), or NULL */
static const struct map_nic *map_nic(const struct topo_map *map, const char *host, const char *dev)
{
    const struct map_node_type *t = map && host ? topo_map_type_for_host(map, host) : NULL;

    for (size_t i = 0; t && i < t->nnics; i++)
        if (!strcmp(t->nics[i].name, dev) || (t->nics[i].netdev && !strcmp(t->nics[i].netdev, dev)))
            return &t->nics[i];
    return NULL;
}

/* ---- local RDMA ports: /sys/class/infiniband ---- */

static int sample_sysfs(struct top_source *s, struct top_model *m, double now, ry_error_t *err)
{
    char **devs = NULL, **ports = NULL, buf[128];
    size_t ndev = 0, nport = 0, found = 0;
    ry_error_t e;

    if (ry_sysfs_list(s->sysfs_root, &devs, &ndev, &e, "class/infiniband") < 0 || !ndev) {
        ry_sysfs_list_free(devs, ndev);
        snprintf(m->empty_why, sizeof(m->empty_why),
                 "no RDMA device under %s/class/infiniband (--source netdev for Ethernet rails, "
                 "--source fabric for the InfiniBand fabric)",
                 ry_sysfs_root(s->sysfs_root));
        return 0;
    }
    for (size_t d = 0; d < ndev; d++) {
        if (ry_sysfs_list(s->sysfs_root, &ports, &nport, &e, "class/infiniband/%s/ports", devs[d]) <
            0)
            continue;
        for (size_t k = 0; k < nport; k++) {
            int pn = atoi(ports[k]);
            struct top_port *p = top_model_port(m, s->host, devs[d], pn);
            const struct map_nic *nic = map_nic(s->map, s->host, devs[d]);
            struct fabric_hwc hw;
            uint64_t tx = 0, rx = 0, errs = 0;
            char names[160] = "";
            size_t used = 0;
            found++;
            if (nic && (nic->port > 0 ? nic->port : 1) == pn) {
                p->rail = nic->rail;
                p->expect_gbps = nic->rate_gbps > 0 ? nic->rate_gbps : NAN;
            }
            if (ry_sysfs_read(s->sysfs_root, buf, sizeof(buf), &e,
                              "class/infiniband/%s/ports/%s/state", devs[d], ports[k]) == 0) {
                const char *colon = strchr(buf, ':');
                snprintf(p->state_text, sizeof(p->state_text), "%.23s",
                         colon ? colon + 1 + strspn(colon + 1, " ") : buf);
                p->state = atoi(buf) == 4 ? TOP_STATE_UP : TOP_STATE_DOWN;
            }
            if (ry_sysfs_read(s->sysfs_root, buf, sizeof(buf), &e,
                              "class/infiniband/%s/ports/%s/rate", devs[d], ports[k]) == 0)
                p->rate_gbps = strtod(buf, NULL);
            /* port_xmit_data counts 4-octet words, as the PMA does */
            if (ry_sysfs_read_u64(s->sysfs_root, &tx, &e,
                                  "class/infiniband/%s/ports/%s/counters/port_xmit_data", devs[d],
                                  ports[k]) < 0 ||
                ry_sysfs_read_u64(s->sysfs_root, &rx, &e,
                                  "class/infiniband/%s/ports/%s/counters/port_rcv_data", devs[d],
                                  ports[k]) < 0)
                continue; /* no counters: rates stay n/a */
            if (fabric_hwc_sample(s->sysfs_root, devs[d], pn, &hw) == 0)
                for (int j = 0; j < hw.n; j++)
                    if (hw.error[j] == 1) {
                        add_counter(names, sizeof(names), &used, &errs, hw.name[j], hw.val[j]);
                    }
            top_port_sample(p, now, tx * 4, rx * 4, errs, names);
        }
        ry_sysfs_list_free(ports, nport);
        ports = NULL;
        nport = 0;
    }
    ry_sysfs_list_free(devs, ndev);
    if (!found)
        snprintf(m->empty_why, sizeof(m->empty_why), "RDMA devices without ports under %s",
                 ry_sysfs_root(s->sysfs_root));
    (void)err;
    return 0;
}

/* ---- Ethernet rails: /sys/class/net/<if>/statistics ---- */

static int sample_netdev(struct top_source *s, struct top_model *m, double now, ry_error_t *err)
{
    static const char *const errnames[] = { "rx_errors",  "tx_errors",     "rx_dropped",
                                            "tx_dropped", "rx_crc_errors", "rx_missed_errors" };
    char **ifs = NULL, buf[64];
    size_t nif = 0, found = 0;
    ry_error_t e;

    if (ry_sysfs_list(s->sysfs_root, &ifs, &nif, err, "class/net") < 0)
        return -1;
    for (size_t i = 0; i < nif; i++) {
        struct top_port *p;
        const struct map_nic *nic;
        uint64_t tx, rx, v, errs = 0;
        char names[160] = "";
        size_t used = 0;
        int speed, rail;
        int counted;
        if (!strcmp(ifs[i], "lo") || (s->netdev_match && fnmatch(s->netdev_match, ifs[i], 0)))
            continue;
        /* an interface without statistics is not one to watch; one whose counters could not
         * be read this time stays, said (a port does not vanish from the rails for a refresh) */
        if (!ry_sysfs_exists(s->sysfs_root, "class/net/%s/statistics", ifs[i]))
            continue;
        counted = ry_sysfs_read_u64(s->sysfs_root, &tx, &e, "class/net/%s/statistics/tx_bytes",
                                    ifs[i]) == 0 &&
                  ry_sysfs_read_u64(s->sysfs_root, &rx, &e, "class/net/%s/statistics/rx_bytes",
                                    ifs[i]) == 0;
        found++;
        p = top_model_port(m, s->host, ifs[i], 0);
        if (counted)
            p->unread[0] = '\0';
        else
            snprintf(p->unread, sizeof(p->unread), "%.150s", e.text);
        nic = map_nic(s->map, s->host, ifs[i]);
        if (nic) {
            p->rail = nic->rail;
            p->expect_gbps = nic->rate_gbps > 0 ? nic->rate_gbps : NAN;
        } else if (sscanf(ifs[i], "rail%d", &rail) == 1 && rail >= 0) /* the demo cluster */
            p->rail = rail;
        if (ry_sysfs_read(s->sysfs_root, buf, sizeof(buf), &e, "class/net/%s/operstate", ifs[i]) ==
            0) {
            uint64_t flags = 1;
            snprintf(p->state_text, sizeof(p->state_text), "%.23s", buf);
            p->state = !strcmp(buf, "up")     ? TOP_STATE_UP
                       : !strcmp(buf, "down") ? TOP_STATE_DOWN
                                              : TOP_STATE_UNKNOWN;
            /* an interface nobody brought up (IFF_UP clear) is not judged */
            if (p->state == TOP_STATE_DOWN &&
                ry_sysfs_read_u64(s->sysfs_root, &flags, &e, "class/net/%s/flags", ifs[i]) == 0 &&
                !(flags & 1)) {
                p->state = TOP_STATE_UNKNOWN;
                snprintf(p->state_text, sizeof(p->state_text), "disabled");
            }
        }
        if (ry_sysfs_read_int(s->sysfs_root, &speed, &e, "class/net/%s/speed", ifs[i]) == 0 &&
            speed > 0)
            p->rate_gbps = speed / 1000.0;
        for (size_t k = 0; k < sizeof(errnames) / sizeof(errnames[0]); k++)
            if (ry_sysfs_read_u64(s->sysfs_root, &v, &e, "class/net/%s/statistics/%s", ifs[i],
                                  errnames[k]) == 0) {
                add_counter(names, sizeof(names), &used, &errs, errnames[k], v);
            }
        if (counted)
            top_port_sample(p, now, tx, rx, errs, names);
    }
    ry_sysfs_list_free(ifs, nif);
    if (!found)
        snprintf(m->empty_why, sizeof(m->empty_why), "no network interface%s%s under %s/class/net",
                 s->netdev_match ? " matching " : "", s->netdev_match ? s->netdev_match : "",
                 ry_sysfs_root(s->sysfs_root));
    return 0;
}

/* ---- the InfiniBand fabric: cabled ports through the PMA (libibmad) ---- */

/* Up to read_all cabled ports (TOP_FABRIC_ALL unless --read-all) a refresh reads every one.
 * Past it (a fabric of a thousand nodes has tens of thousands) a refresh reads the cables of the
 * rows around the selection and of the ports judged not ok, and a share of the rest in turn, so
 * that every port is read every TOP_FABRIC_SHARE refreshes: a port's rates are then over its own
 * last two reads. The PMA queries are most of the console's cost: at 1024 x 8 (16,896 ports) an
 * eighth a refresh cost 7.5% of a core at 1 Hz, a sixteenth 4.6% (scripts/bench-top). */
#define TOP_FABRIC_SHARE  16
#define TOP_FABRIC_AROUND 64 /* rows either side of the selection: more than a screen */

static int want_port(const struct ibf_fabric *f, int node, int port, void *arg)
{
    const struct top_source *s = arg;
    (void)f;
    return s->want[s->base[node] + (size_t)port - 1];
}

/* after a discovery: rails and the flat port index */
static void fabric_setup(struct top_source *s)
{
    struct ibf_fabric *f = &s->fab;

    free(s->rail);
    s->rail = xcalloc(f->n ? f->n : 1, sizeof(*s->rail));
    ibf_rails(f, s->map, s->rail);
    free(s->base);
    free(s->fnode);
    free(s->fport);
    free(s->want);
    s->base = xcalloc(f->n + 1, sizeof(*s->base));
    s->nflat = s->ncabled = s->cursor = 0;
    for (size_t i = 0; i < f->n; i++) {
        s->base[i] = s->nflat;
        s->nflat += (size_t)f->nodes[i].nports;
    }
    /* what the map says of each HCA (its rail's port) does not change with the counters */
    free(s->rail_port);
    s->rail_port = xcalloc(f->n + 1, sizeof(*s->rail_port));
    for (size_t i = 0; i < f->n; i++)
        s->rail_port[i] = f->nodes[i].type == IBF_CA ? ibf_hca_rail_port(f, s->map, (int)i) : 0;
    s->fnode = xcalloc(s->nflat + 1, sizeof(*s->fnode));
    s->fport = xcalloc(s->nflat + 1, sizeof(*s->fport));
    s->want = xcalloc(s->nflat + 1, 1);
    for (size_t i = 0; i < f->n; i++)
        for (int p = 1; p <= f->nodes[i].nports; p++) {
            size_t k = s->base[i] + (size_t)p - 1;
            s->fnode[k] = (int)i;
            s->fport[k] = p;
            s->ncabled += f->nodes[i].ports[p].present && f->nodes[i].ports[p].remote >= 0;
        }
}

static int cabled(const struct top_source *s, size_t k)
{
    const struct ibf_port *q = &s->fab.nodes[s->fnode[k]].ports[s->fport[k]];
    return q->present && q->remote >= 0;
}

/* the end of a cable by which a turn takes it: the lower flat index */
static int canonical(const struct top_source *s, size_t k)
{
    const struct ibf_port *q = &s->fab.nodes[s->fnode[k]].ports[s->fport[k]];
    return s->base[q->remote] + (size_t)q->remote_port - 1 >= k;
}

/* both ends of a cable: an HCA's traffic is read at its leaf's end (one_end) */
static int want_cable(struct top_source *s, size_t k)
{
    const struct ibf_port *q = &s->fab.nodes[s->fnode[k]].ports[s->fport[k]];
    int fresh = !s->want[k];

    s->want[k] = 1;
    if (q->remote >= 0)
        s->want[s->base[q->remote] + (size_t)q->remote_port - 1] = 1;
    return fresh;
}

/* the ports this refresh reads (s->want) */
static void choose_ports(struct top_source *s, const struct top_model *m)
{
    size_t quota, got = 0, from;

    if (s->ncabled <= (s->read_all > 0 ? s->read_all : TOP_FABRIC_ALL)) {
        memset(s->want, 1, s->nflat);
        return;
    }
    memset(s->want, 0, s->nflat);
    from = m->selected > TOP_FABRIC_AROUND ? m->selected - TOP_FABRIC_AROUND : 0;
    for (size_t k = from; k < m->nshown && k < from + 2 * TOP_FABRIC_AROUND; k++) {
        const struct top_port *p = &m->p[m->order[k]];
        if (p->src >= 0 && (size_t)p->src < s->nflat)
            want_cable(s, (size_t)p->src);
    }
    for (size_t i = 0; i < m->n; i++)
        if (m->p[i].src >= 0 && (size_t)m->p[i].src < s->nflat &&
            (m->p[i].sev == TOP_FAIL || m->p[i].sev == TOP_WARN))
            want_cable(s, (size_t)m->p[i].src);
    quota = (s->ncabled / 2 + TOP_FABRIC_SHARE - 1) / TOP_FABRIC_SHARE; /* cables */
    for (size_t n = 0; n < s->nflat && got < quota; n++) {
        size_t k = s->cursor;
        s->cursor = (s->cursor + 1) % s->nflat;
        /* a cable once in a turn: at the end the turn meets first */
        if (cabled(s, k) && canonical(s, k) && want_cable(s, k))
            got++;
    }
}

static int discover(struct top_source *s, struct top_model *m, int from_cache, ry_error_t *err)
{
    struct ibf_fabric nf;

    if (from_cache ? ibf_discover_cached(&nf, s->live.cache, err) < 0
                   : ibf_discover(&nf, &s->live, err) < 0)
        return -1;
    if (!from_cache && ibf_mad_open(&s->live, err) < 0) {
        ibf_fabric_free(&nf);
        return -1;
    }
    ibf_fabric_free(&s->fab);
    s->fab = nf;
    ibf_name_nodes(&s->fab, NULL);
    fabric_setup(s);
    /* the rows of another discovery are not these */
    top_model_clear_ports(m);
    s->discovered = 1;
    s->cached = from_cache;
    snprintf(m->source, sizeof(m->source), "fabric (PMA): %s%s", s->fab.source,
             from_cache ? ", discovering now" : "");
    return 0;
}

static int sample_fabric(struct top_source *s, struct top_model *m, double now, ry_error_t *err)
{
    struct ibf_fabric *f = &s->fab;
    struct topo_findings fnd = { 0 };
    int counted[IBF_NERRCTR];

    if (!s->discovered) {
        /* a console's first screen from the last discovery (a large fabric takes seconds to
         * discover), the live one at the next refresh; a batch run never shows a cached one */
        ry_error_t cerr;
        if (!(s->cache_first && s->live.cache && discover(s, m, 1, &cerr) == 0) &&
            discover(s, m, 0, err) < 0)
            return -1;
    } else if (s->cached && discover(s, m, 0, err) < 0)
        return -1;
    f = &s->fab;
    for (int k = 0; k < IBF_NERRCTR; k++) { /* the map's limits, once a refresh */
        long long total, rising;
        ibf_counter_limits(s->map, k, &total, &rising);
        counted[k] = rising >= 0;
    }
    if (!s->cached) {
        choose_ports(s, m);
        /* a port read now: its last sample becomes the older one */
        for (size_t k = 0; k < s->nflat; k++)
            if (s->want[k]) {
                struct ibf_port *q = &f->nodes[s->fnode[k]].ports[s->fport[k]];
                if (q->s[1].valid)
                    q->s[0] = q->s[1];
            }
        s->live.want = want_port;
        s->live.want_arg = s;
        if (ibf_sample_counters(f, &s->live, 1, err) < 0)
            return -1;
        for (size_t k = 0; k < s->nflat; k++)
            if (s->want[k]) { /* read for the first time: no older sample yet */
                struct ibf_port *q = &f->nodes[s->fnode[k]].ports[s->fport[k]];
                if (!q->s[0].valid)
                    q->s[0] = q->s[1];
            }
        f->nsamples = 2;
    }
    for (size_t i = 0; i < f->n; i++) {
        const struct ibf_node *n = &f->nodes[i];
        int rp = s->rail_port[i];
        for (int pn = 1; pn <= n->nports; pn++) {
            const struct ibf_port *q = &n->ports[pn];
            const struct ibf_sample *x = &q->s[1];
            struct top_port *p;
            uint64_t errs = 0;
            char names[160] = "";
            size_t used = 0;
            if (q->remote < 0)
                continue; /* not cabled */
            /* an HCA by its host, else by its NodeDescription (what an admin recognizes;
             * the layout makes it inert), a switch by its name */
            size_t before = m->n;
            p = top_model_port(m,
                               n->type == IBF_CA && n->host                 ? n->host
                               : n->type == IBF_CA && n->desc && n->desc[0] ? n->desc
                                                                            : n->name,
                               n->type == IBF_CA && n->hca ? n->hca : "", pn);
            if (m->n != before) { /* a new row: what the discovery says of its cable, once */
                ibf_port_label(f, q->remote, q->remote_port, p->peer, sizeof(p->peer));
                p->src = (int)(s->base[i] + (size_t)pn - 1);
                if (pn == rp)
                    p->rail = s->rail[i];
                if (n->type == IBF_CA && f->nodes[q->remote].type == IBF_SWITCH)
                    p->peer_rail = s->rail[q->remote] >= 0 ? s->rail[q->remote] : -1;
            }
            p->state = q->state == IBF_STATE_ACTIVE ? TOP_STATE_UP
                       : q->state                   ? TOP_STATE_DOWN
                                                    : TOP_STATE_UNKNOWN;
            snprintf(p->state_text, sizeof(p->state_text), "%.23s",
                     q->state ? ibf_state_name(q->state) : "n/a");
            p->rate_gbps = q->width && q->speed ? q->width * ibf_speed_nominal_gbps(q->speed) : NAN;
            if (s->cached) {
                snprintf(p->unread, sizeof(p->unread), "counters: after the live discovery");
                continue;
            }
            if (!s->want[p->src]) /* not read this refresh: its rates stay those of its reads */
                continue;
            if (!x->valid) { /* its rates are no longer known, and the row says why */
                p->nsamples = 0;
                snprintf(p->unread, sizeof(p->unread), "%.150s",
                         q->error ? q->error : "the PMA did not answer");
                continue;
            }
            p->unread[0] = '\0';
            for (int k = 0; k < IBF_NERRCTR; k++) {
                if (!counted[k]) /* not an error of the port (VL15Dropped, relay errors) */
                    continue;
                add_counter(names, sizeof(names), &used, &errs, ibf_ctr_name((enum ibf_ctr)k),
                            x->v[k]);
            }
            top_port_sample(p, now, x->v[IBF_XMIT_DATA] * 4, x->v[IBF_RCV_DATA] * 4, errs, names);
        }
    }
    /* the live findings: the fabric judged with the last two samples */
    top_model_clear_findings(m);
    m->source_findings = 1;
    {
        struct ibf_expect e = { s->map, NULL, NULL, NULL, NULL, 0 };
        f->interval = m->p && m->n && m->p[0].nsamples == 2 ? m->p[0].t[1] - m->p[0].t[0] : 0;
        ibf_analyze(f, &e, &fnd, NULL);
    }
    for (size_t i = 0; i < fnd.n; i++) {
        char text[256];
        if (fnd.v[i].sev != TOPO_SEV_FAIL && fnd.v[i].sev != TOPO_SEV_WARN)
            continue;
        snprintf(text, sizeof(text), "%s%s%s", fnd.v[i].observed ? fnd.v[i].observed : "",
                 fnd.v[i].expected ? ", expected " : "",
                 fnd.v[i].expected ? fnd.v[i].expected : "");
        top_model_add_finding(m, fnd.v[i].sev == TOPO_SEV_FAIL ? TOP_FAIL : TOP_WARN,
                              fnd.v[i].check, fnd.v[i].subject, text);
    }
    topo_findings_free(&fnd);
    return 0;
}

int top_source_sample(struct top_source *s, struct top_model *m, double now, ry_error_t *err)
{
    switch (s->kind) {
    case TOP_SRC_NETDEV: return sample_netdev(s, m, now, err);
    case TOP_SRC_FABRIC: return sample_fabric(s, m, now, err);
    case TOP_SRC_FOLLOW: return top_follow_sample(s, m, err);
    default: return sample_sysfs(s, m, now, err);
    }
}

/* ---- NVLink: every GPU link through NVML ---- */

int top_nvlink_open(struct top_source *s, struct top_model *m)
{
    char why[200];

    if (!(s->nvl = topo_nvml_links_open(why, sizeof(why), NULL))) {
        snprintf(m->nvlink_why, sizeof(m->nvlink_why), "NVLink: n/a, %s", why);
        return -1;
    }
    return 0;
}

void top_nvlink_sample(struct top_source *s, struct top_model *m, double now)
{
    const struct topo_nvlink_sample *v;
    size_t n;

    if (!s->nvl)
        return;
    n = topo_nvml_links_sample(s->nvl, &v);
    top_nvlink_rows(m, v, n, now);
}

void top_nvlink_rows(struct top_model *m, const struct topo_nvlink_sample *v, size_t n, double now)
{
    static const char *const names[] = { "replay", "recovery", "crc_flit", "crc_data" };

    for (size_t i = 0; i < n; i++) {
        const struct topo_nvlink_sample *x = &v[i];
        char gpu[64];
        struct top_port *p;
        int gpu_up = 0;
        snprintf(gpu, sizeof(gpu), "GPU%u %s", x->gpu, x->busid);
        p = top_model_nvlink(m, gpu, (int)x->link);
        for (size_t j = 0; j < n; j++)
            gpu_up |= v[j].gpu == x->gpu && v[j].active;
        /* a link down beside links that are up is a fault; a GPU none of whose links is up
         * (a PCIe card without its bridge) is not judged */
        p->state = x->active ? TOP_STATE_UP : gpu_up ? TOP_STATE_DOWN : TOP_STATE_UNKNOWN;
        snprintf(p->state_text, sizeof(p->state_text), "%s", x->active ? "Active" : "Down");
        p->peer[0] = '\0';
        if (!gpu_up)
            snprintf(p->peer, sizeof(p->peer), "no NVLink of this GPU is up (no bridge?)");
        for (size_t j = 0; j < n && x->remote[0] && !p->peer[0]; j++) /* another GPU here? */
            if (!strcmp(v[j].busid, x->remote))
                snprintf(p->peer, sizeof(p->peer), "GPU%u %s", v[j].gpu, v[j].busid);
        if (x->remote[0] && !p->peer[0] && !strcmp(x->remote, "ffffffff:ff:ff.0"))
            snprintf(p->peer, sizeof(p->peer), "NVSwitch fabric"); /* Blackwell: one address */
        else if (x->remote[0] && !p->peer[0])
            snprintf(p->peer, sizeof(p->peer), "%s (NVSwitch)", x->remote);
        if (x->have_data && x->have_errors) {
            char list[160];
            size_t used = 0;
            uint64_t sum = 0;
            list[0] = '\0';
            for (int c = 0; c < 4; c++) {
                if (!(x->have_errors & (1 << c)))
                    continue;
                sum += x->errors[c];
                if (used < sizeof(list))
                    used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s=%llu",
                                             used ? " " : "", names[c], x->errors[c]);
            }
            top_port_sample(p, now, x->tx_kib * 1024, x->rx_kib * 1024, sum, list);
        } else if (!strstr(p->peer, "counters n/a")) {
            size_t l = strlen(p->peer);
            snprintf(p->peer + l, sizeof(p->peer) - l, "%scounters n/a (not given by the driver)",
                     l ? "; " : "");
        }
    }
    if (!n)
        snprintf(m->nvlink_why, sizeof(m->nvlink_why),
                 "NVLink: the driver reports no NVLink link on this node's GPUs (PCIe only)");
}

void top_source_free(struct top_source *s)
{
    if (s->kind == TOP_SRC_FABRIC)
        ibf_mad_close(&s->live);
    ibf_fabric_free(&s->fab);
    free(s->rail);
    s->rail = NULL;
    free(s->base);
    free(s->fnode);
    free(s->fport);
    free(s->want);
    free(s->rail_port);
    s->rail_port = NULL;
    s->base = NULL;
    s->fnode = s->fport = NULL;
    s->want = NULL;
    s->discovered = 0;
    topo_nvml_links_close(s->nvl);
    s->nvl = NULL;
}

#include "config.h"

#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xmalloc.h"
#include "ib/ibcheck.h"

double ibf_speed_nominal_gbps(enum ibf_speed s)
{
    switch (s) {
    case IBF_SDR: return 2.5;
    case IBF_DDR: return 5;
    case IBF_QDR: return 10;
    case IBF_FDR10: return 10;
    case IBF_FDR: return 14;
    case IBF_EDR: return 25;
    case IBF_HDR: return 50;
    case IBF_NDR: return 100;
    case IBF_XDR: return 200;
    default: return 0;
    }
}

static const struct {
    long long total, rising;
} default_limits[IBF_NERRCTR] = {
    [IBF_SYMBOL_ERR] = { 10, 0 },       [IBF_LINK_RECOVERY] = { 10, 0 },
    [IBF_LINK_DOWNED] = { 10, 0 },      [IBF_RCV_ERR] = { 10, 0 },
    [IBF_RCV_REMOTE_PHYS] = { 100, 0 }, [IBF_RCV_SWITCH_RELAY] = { -1, -1 },
    [IBF_XMIT_DISCARDS] = { 100, 10 },  [IBF_XMIT_CONSTRAINT] = { 100, 0 },
    [IBF_RCV_CONSTRAINT] = { 100, 0 },  [IBF_LOCAL_INTEGRITY] = { 10, 0 },
    [IBF_EXCESS_OVERRUN] = { 10, 0 },   [IBF_VL15_DROPPED] = { -1, -1 },
};

void ibf_counter_limits(const struct topo_map *map, int ctr, long long *total, long long *rising)
{
    *total = default_limits[ctr].total;
    *rising = default_limits[ctr].rising;
    for (size_t i = 0; map && i < map->fabric.ncounters; i++)
        if (!strcmp(map->fabric.counters[i].name, ibf_ctr_name((enum ibf_ctr)ctr))) {
            if (map->fabric.counters[i].total >= 0)
                *total = map->fabric.counters[i].total;
            if (map->fabric.counters[i].rising >= 0)
                *rising = map->fabric.counters[i].rising;
        }
}

struct ctx {
    const struct ibf_fabric *f;
    const struct ibf_expect *e;
    struct topo_findings *out;
    struct ibf_notes *notes;
    char **claimed;             /* per node, per port: a finding already names this port */
    int *rail;                  /* per node: ibf_rails */
    const struct map_nic **nic; /* per node: an HCA's NIC in the map (nic_table), NULL none */
    int *ref_of;                /* per live node: index in the reference, -1 */
    int *live_of;               /* per reference node: index in the live fabric, -1 */
    char **reported;            /* names of absent HCAs already reported */
    size_t nreported;
    struct keyed *by_host; /* the CAs by host (check_missing) */
    size_t nby_host;
};

static void note(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct ctx *c, const char *fmt, ...)
{
    va_list ap;
    char buf[512];

    if (!c->notes)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    c->notes->v = xrealloc(c->notes->v, (c->notes->n + 1) * sizeof(char *));
    c->notes->v[c->notes->n++] = xstrdup(buf);
}

void ibf_notes_free(struct ibf_notes *n)
{
    for (size_t i = 0; i < n->n; i++)
        free(n->v[i]);
    free(n->v);
    n->v = NULL;
    n->n = 0;
}

static int host_is(const struct ibf_fabric *f, int node, const char *host)
{
    return node >= 0 && f->nodes[node].host && !strcmp(f->nodes[node].host, host);
}

/* Whether a subject ("n1/mlx5_0:1", "n1/mlx5_0:1<->n2/mlx5_0:1", "n3:1" where a name map gave
 * the host only) names one of host's HCAs at either end: the host's whole name, so that n1 is
 * not n10. What a finding says of a node the live fabric lacks (a reference's cable) is known by
 * its subject only. */
static int names_host(const char *subject, const char *host)
{
    size_t len = strlen(host);

    for (const char *end = subject; end; end = strstr(end, "<->")) {
        if (end != subject)
            end += 3;
        if (!strncmp(end, host, len) && (end[len] == '/' || end[len] == ':'))
            return 1;
    }
    return 0;
}

/* Add a finding about port a:pa (and b:pb, -1 if none); honours only_host; claims the ports. */
static void add(struct ctx *c, enum topo_sev sev, const char *check, const char *subject,
                const char *expected, const char *observed, const char *hint, int a, int pa, int b,
                int pb)
{
    const char *h = c->e->only_host;

    if (a >= 0 && pa >= 0 && pa <= c->f->nodes[a].nports)
        c->claimed[a][pa] = 1;
    if (b >= 0 && pb >= 0 && pb <= c->f->nodes[b].nports)
        c->claimed[b][pb] = 1;
    if (h && !host_is(c->f, a, h) && !host_is(c->f, b, h) && !names_host(subject, h))
        return;
    topo_findings_add(c->out, sev, check, subject, expected, observed, hint);
}

static const char *label(const struct ibf_fabric *f, int n, int p, char *buf, size_t len)
{
    return ibf_port_label(f, n, p, buf, len);
}

static const char *link_label(const struct ibf_fabric *f, int a, int pa, int b, int pb, char *buf,
                              size_t len)
{
    char x[200], y[200];
    /* the HCA end first, else the lower name */
    if (b >= 0 && ((f->nodes[b].type == IBF_CA) > (f->nodes[a].type == IBF_CA) ||
                   ((f->nodes[b].type == IBF_CA) == (f->nodes[a].type == IBF_CA) &&
                    (strcmp(f->nodes[b].name, f->nodes[a].name) < 0 ||
                     (!strcmp(f->nodes[b].name, f->nodes[a].name) && pb < pa))))) {
        int t = a, tp = pa;
        a = b, pa = pb, b = t, pb = tp;
    }
    snprintf(buf, len, "%s<->%s", label(f, a, pa, x, sizeof(x)), label(f, b, pb, y, sizeof(y)));
    return buf;
}

/* ---- what the map says about an HCA ---- */

static const struct map_nic *map_nic_of(const struct topo_map *map, const char *host,
                                        const char *hca)
{
    const struct map_node_type *t;
    const struct map_nic *only = NULL;
    size_t nib = 0;

    if (!map || !host || !(t = topo_map_type_for_host(map, host)))
        return NULL;
    for (size_t i = 0; i < t->nnics; i++) {
        if (t->nics[i].link_layer == TOPO_LL_ETHERNET)
            continue;
        if (hca && !strcmp(t->nics[i].name, hca))
            return &t->nics[i];
        nib++;
        only = &t->nics[i];
    }
    return !hca && nib == 1 ? only : NULL; /* a name map gave the host only */
}

static int map_has_rails(const struct topo_map *map)
{
    for (size_t t = 0; map && t < map->ntypes; t++)
        for (size_t i = 0; i < map->types[t].nnics; i++)
            if (map->types[t].nics[i].rail >= 0)
                return 1;
    return 0;
}

static int switch_rail_by_name(const struct topo_map *map, const struct ibf_node *n)
{
    for (size_t r = 0; map && r < map->nrails; r++)
        for (size_t s = 0; s < map->rails[r].nswitches; s++) {
            const char *pat = map->rails[r].switches[s];
            if (!fnmatch(pat, n->name, 0) || !fnmatch(pat, n->desc, 0) || !strcmp(pat, n->id))
                return map->rails[r].id;
        }
    return -1;
}

static int names_switches(const struct topo_map *map)
{
    for (size_t r = 0; map && r < map->nrails; r++)
        if (map->rails[r].nswitches)
            return 1;
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The rail most of a switch's HCAs belong to: -1 none of them has one, -2 a tie. Rails are
 * whatever the map numbers them (0 to 1023). */
static int majority_rail(const struct map_nic *const *nics, const struct ibf_node *n)
{
    int *r = xcalloc((size_t)n->nports + 1, sizeof(int)), nr = 0, best = -1, bestv = 0, tie = 0;

    for (int p = 1; p <= n->nports; p++) {
        const struct ibf_port *q = &n->ports[p];
        const struct map_nic *nic;
        if (q->remote < 0) /* a switch or router has no host: no NIC */
            continue;
        nic = nics[q->remote];
        if (nic && nic->rail >= 0)
            r[nr++] = nic->rail;
    }
    qsort(r, (size_t)nr, sizeof(int), cmp_int);
    for (int a = 0, b; a < nr; a = b) {
        for (b = a + 1; b < nr && r[b] == r[a]; b++)
            ;
        if (b - a > bestv)
            best = r[a], bestv = b - a, tie = 0;
        else if (b - a == bestv)
            tie = 1;
    }
    free(r);
    return tie ? -2 : best;
}

/* Every HCA's NIC in the map (NULL: none, or not an HCA), looked up once: matching a host
 * against the map's host lists, several times for each of 8,000 HCAs, was the largest part of
 * the analysis that the console runs at every refresh. Freed by the caller. */
static const struct map_nic **nic_table(const struct ibf_fabric *f, const struct topo_map *map)
{
    const struct map_nic **nic = xcalloc(f->n ? f->n : 1, sizeof(*nic));

    for (size_t i = 0; i < f->n; i++)
        if (f->nodes[i].type == IBF_CA)
            nic[i] = map_nic_of(map, f->nodes[i].host, f->nodes[i].hca);
    return nic;
}

static void rails_of(const struct ibf_fabric *f, const struct topo_map *map,
                     const struct map_nic *const *nics, int *rail)
{
    int by_name = names_switches(map);

    for (size_t i = 0; i < f->n; i++) {
        const struct ibf_node *n = &f->nodes[i];

        rail[i] = -1;
        if (n->type == IBF_CA)
            rail[i] = nics[i] ? nics[i]->rail : -1;
        else if (n->type == IBF_SWITCH)
            rail[i] = by_name ? switch_rail_by_name(map, n) : majority_rail(nics, n);
    }
}

/* Rail of every switch: from the map's switch names, else the rail most of its HCAs belong to
 * (-2 when there is no majority); of every HCA, its NIC's rail in the map (-1 none). */
void ibf_rails(const struct ibf_fabric *f, const struct topo_map *map, int *rail)
{
    const struct map_nic **nic = nic_table(f, map);

    rails_of(f, map, nic, rail);
    free(nic);
}

int ibf_hca_rail_port(const struct ibf_fabric *f, const struct topo_map *map, int node)
{
    const struct map_nic *nic = map_nic_of(map, f->nodes[node].host, f->nodes[node].hca);

    return nic && nic->rail >= 0 ? nic->port : 0; /* a map's NIC port is 1 to 255, 1 unless set */
}

static int is_leaf(const struct ibf_fabric *f, int n)
{
    const struct ibf_node *x = &f->nodes[n];

    if (x->type != IBF_SWITCH)
        return 0;
    for (int p = 1; p <= x->nports; p++)
        if (x->ports[p].remote >= 0 && f->nodes[x->ports[p].remote].type == IBF_CA)
            return 1;
    return 0;
}

static void check_rails(struct ctx *c)
{
    const struct ibf_fabric *f = c->f;
    size_t unnamed = 0, unmapped = 0;

    if (!map_has_rails(c->e->map)) {
        note(c, "rail alignment not judged: %s",
             c->e->map ? "the map gives no NIC a rail" : "no map (--map)");
        return;
    }
    for (size_t i = 0; i < f->n; i++) {
        const struct ibf_node *n = &f->nodes[i];
        const struct map_nic *nic;
        const struct ibf_port *q;
        char subj[200], exp[64], obs[300], sw[200];
        int port, s;

        if (n->type != IBF_CA)
            continue;
        if (!n->host) {
            unnamed++;
            continue;
        }
        if (!(nic = c->nic[i])) {
            unmapped++;
            continue;
        }
        if (nic->rail < 0)
            continue;
        port = nic->port;
        if (port > n->nports)
            continue;
        q = &n->ports[port];
        if (q->remote < 0 || f->nodes[q->remote].type != IBF_SWITCH)
            continue; /* not cabled: the link checks say so */
        s = q->remote;
        if (c->rail[s] == nic->rail)
            continue;
        if (c->rail[s] == -2)
            continue; /* a leaf without a majority rail cannot be judged */
        label(f, (int)i, port, subj, sizeof(subj));
        snprintf(exp, sizeof(exp), "leaf of rail %d", nic->rail);
        if (c->rail[s] >= 0)
            snprintf(obs, sizeof(obs), "cabled to %s port %d (rail %d)", f->nodes[s].name,
                     q->remote_port, c->rail[s]);
        else
            snprintf(obs, sizeof(obs), "cabled to %s port %d (no rail)", f->nodes[s].name,
                     q->remote_port); /* a leaf: this HCA is on it */
        snprintf(sw, sizeof(sw), "move the cable to a free port of a rail-%d leaf", nic->rail);
        add(c, TOPO_SEV_FAIL, "rail.cabling", subj, exp, obs, sw, (int)i, port, s, q->remote_port);
    }
    if (unnamed)
        note(c,
             "%zu HCAs have no \"<host> <hca>\" NodeDescription or name-map entry: their rail "
             "is not judged",
             unnamed);
    if (unmapped)
        note(c, "%zu HCAs are not NICs of a host in the map: their rail is not judged", unmapped);
    /* leaf-to-leaf cables do not belong in a rail-optimized fabric */
    for (size_t i = 0; i < f->n; i++) {
        const struct ibf_node *n = &f->nodes[i];
        if (!is_leaf(f, (int)i))
            continue;
        for (int p = 1; p <= n->nports; p++) {
            const struct ibf_port *q = &n->ports[p];
            char subj[420];
            if (q->remote < 0 || (size_t)q->remote <= i || !is_leaf(f, q->remote))
                continue; /* (nothing has claimed a cable between switches yet) */
            link_label(f, (int)i, p, q->remote, q->remote_port, subj, sizeof(subj));
            add(c, TOPO_SEV_FAIL, "fabric.link.extra", subj, "no leaf-to-leaf cable",
                "leaf-to-leaf cable", "leaves connect to spines only: remove the cable", (int)i, p,
                q->remote, q->remote_port);
        }
    }
}

/* the CA nodes sorted by a name (their NodeDescription, or their host: CAs without one are
 * left out), ties in the fabric's order: grouping and lookups by sorting, not by comparing every
 * node with every other (a 1024-node fabric has 8,000 HCAs) */
struct keyed {
    const char *key;
    size_t i;
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int d = strcmp(x->key, y->key);
    return d ? d : x->i < y->i ? -1 : x->i > y->i;
}

static struct keyed *cas_sorted(const struct ibf_fabric *f, int by_host, size_t *count)
{
    struct keyed *v = xcalloc(f->n ? f->n : 1, sizeof(*v));
    size_t n = 0;

    for (size_t i = 0; i < f->n; i++) {
        const struct ibf_node *x = &f->nodes[i];
        if (x->type != IBF_CA || (by_host && !x->host))
            continue;
        v[n].key = by_host ? x->host : x->desc ? x->desc : "";
        v[n++].i = i;
    }
    qsort(v, n, sizeof(*v), cmp_keyed);
    *count = n;
    return v;
}

struct dup_group {
    size_t start, count; /* in the sorted CAs */
    size_t first;        /* node index of its first member */
};

static int cmp_group(const void *a, const void *b)
{
    const struct dup_group *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

static void check_duplicates(struct ctx *c)
{
    const struct ibf_fabric *f = c->f;
    size_t n, ng = 0;
    struct keyed *v = cas_sorted(f, 0, &n);
    struct dup_group *g = xcalloc(n ? n : 1, sizeof(*g));

    /* a NodeDescription that more than one HCA answers with, judged at its first HCA (when that
     * one has the "<host> <hca>" form), in the fabric's order */
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && !strcmp(v[b].key, v[a].key); b++)
            ;
        if (b - a > 1 && f->nodes[v[a].i].hca) {
            g[ng].start = a;
            g[ng].count = b - a;
            g[ng++].first = v[a].i;
        }
    }
    qsort(g, ng, sizeof(*g), cmp_group);
    for (size_t k = 0; k < ng; k++) {
        const struct ibf_node *x = &f->nodes[g[k].first];
        char obs[400], exp[64];
        size_t len = 0;
        for (size_t j = 0; j < g[k].count && len < sizeof(obs); j++)
            len += (size_t)snprintf(obs + len, sizeof(obs) - len, "%s%016llx", j ? ", " : "GUIDs ",
                                    (unsigned long long)f->nodes[v[g[k].start + j].i].guid);
        snprintf(exp, sizeof(exp), "1 HCA, found %zu", g[k].count);
        add(c, TOPO_SEV_FAIL, "fabric.desc.duplicate", x->desc, exp, obs,
            "set each HCA's NodeDescription to \"<host> <hca>\" (rdma-ndd, or "
            "/sys/class/infiniband/<hca>/node_desc)",
            (int)g[k].first, -1, -1, -1);
    }
    free(g);
    free(v);
}

/* this host's own HCAs (found by GUID) should say "<host> <hca>": the fabric tools and the
 * other nodes see the cabling through it */
static void check_own_descs(struct ctx *c)
{
    for (size_t i = 0; c->e->only_host && i < c->e->nown; i++) {
        int n = ibf_find_guid(c->f, c->e->own_guid[i]);
        char *want, subj[300];
        if (n < 0)
            continue;
        want = xasprintf("%s %s", c->e->only_host, c->e->own_hca[i]);
        snprintf(subj, sizeof(subj), "%s/%s", c->e->only_host, c->e->own_hca[i]);
        if (strcmp(c->f->nodes[n].desc, want))
            topo_findings_add(c->out, TOPO_SEV_WARN, "fabric.desc.mismatch", subj, want,
                              c->f->nodes[n].desc,
                              "the fabric sees this HCA under another NodeDescription: run "
                              "rdma-ndd, or write /sys/class/infiniband/<hca>/node_desc");
        free(want);
    }
}

/* ---- the reference dump ---- */

static int ref_match(const struct ibf_fabric *live, const struct ibf_fabric *ref, size_t r)
{
    const struct ibf_node *rn = &ref->nodes[r];

    if (rn->guid) {
        int i = ibf_find_guid(live, rn->guid);
        if (i >= 0)
            return i;
        return -1;
    }
    for (size_t i = 0; i < live->n; i++)
        if (!strcmp(live->nodes[i].name, rn->name))
            return (int)i;
    return -1;
}

/* The reference's port for live port (n, p) where the reference has the same cable there (its
 * two ends matched), else NULL */
static const struct ibf_port *ref_port_of(const struct ctx *c, int n, int p)
{
    const struct ibf_fabric *ref = c->e->ref;
    const struct ibf_port *q = &c->f->nodes[n].ports[p], *rq;
    int rn = c->ref_of[n];

    if (!ref || rn < 0 || p > ref->nodes[rn].nports || q->remote < 0)
        return NULL;
    rq = &ref->nodes[rn].ports[p];
    return rq->remote >= 0 && rq->remote == c->ref_of[q->remote] &&
                   rq->remote_port == q->remote_port
               ? rq
               : NULL;
}

/* Expected width and speed of the cable at live port (n, p): the reference's, or 0 */
static void ref_expect(const struct ctx *c, int n, int p, int *width, enum ibf_speed *speed)
{
    const struct ibf_port *rq = ref_port_of(c, n, p);

    *width = rq ? rq->width : 0;
    *speed = rq ? rq->speed : IBF_SPEED_UNKNOWN;
}

/* Expected width and speed of a cable the reference has elsewhere: an HCA's cable moved to
 * another switch port is the same cable, and fabric.link.moved names it; judged against the
 * fabric's most common width it would be a second finding that claims the ports and hides the
 * move. What the reference has for the HCA port's cable (a dump gives both ends of a cable the
 * lower of what they print), or 0. */
static void moved_expect(const struct ctx *c, int n, int p, int *width, enum ibf_speed *speed)
{
    const struct ibf_fabric *ref = c->e->ref;
    const struct ibf_port *q = &c->f->nodes[n].ports[p];
    int ends[2][2] = { { n, p }, { q->remote, q->remote_port } };

    for (int k = 0; k < 2 && ref && !*width && !*speed; k++) {
        int ln = ends[k][0], lp = ends[k][1], rn = c->ref_of[ln];
        const struct ibf_port *rq;
        if (c->f->nodes[ln].type != IBF_CA || rn < 0 || lp > ref->nodes[rn].nports ||
            (rq = &ref->nodes[rn].ports[lp])->remote < 0)
            continue;
        *width = rq->width;
        *speed = rq->speed;
    }
}

static void check_reference(struct ctx *c)
{
    const struct ibf_fabric *f = c->f, *ref = c->e->ref;

    for (size_t r = 0; r < ref->n; r++) {
        const struct ibf_node *rn = &ref->nodes[r];
        for (int p = 1; p <= rn->nports; p++) {
            const struct ibf_port *rq = &rn->ports[p];
            int la = c->live_of[r], lb, rb = rq->remote, rbp = rq->remote_port;
            char subj[420], exp[300], obs[300], x[200], y[200];

            if (rb < 0 || (size_t)rb < r || ((size_t)rb == r && rbp < p))
                continue; /* each cable once */
            lb = c->live_of[rb];
            if (la >= 0 && p <= f->nodes[la].nports && f->nodes[la].ports[p].remote == lb &&
                lb >= 0 && f->nodes[la].ports[p].remote_port == rbp)
                continue; /* where it should be */
            if ((la >= 0 && p <= f->nodes[la].nports && c->claimed[la][p]) ||
                (lb >= 0 && rbp <= f->nodes[lb].nports && c->claimed[lb][rbp]))
                continue; /* already explained (rail.cabling) */
            /* name the cable by the reference's names */
            snprintf(x, sizeof(x), "%s:%d", rn->name, p);
            snprintf(y, sizeof(y), "%s:%d", ref->nodes[rb].name, rbp);
            if ((ref->nodes[rb].type == IBF_CA && rn->type != IBF_CA) ||
                ((ref->nodes[rb].type == IBF_CA) == (rn->type == IBF_CA) && strcmp(y, x) < 0))
                snprintf(subj, sizeof(subj), "%s<->%s", y, x);
            else
                snprintf(subj, sizeof(subj), "%s<->%s", x, y);
            for (int side = 0; side < 2; side++) {
                int ln = side ? lb : la, lp = side ? rbp : p, on = side ? la : lb;
                int op = side ? p : rbp;
                const struct ibf_port *q;
                if (ln < 0 || lp > f->nodes[ln].nports)
                    continue;
                q = &f->nodes[ln].ports[lp];
                if (q->remote >= 0 && (q->remote != on || q->remote_port != op)) {
                    char l[200], o[200];
                    label(f, ln, lp, l, sizeof(l));
                    snprintf(exp, sizeof(exp), "cable to %s", side ? x : y);
                    snprintf(obs, sizeof(obs), "cabled to %s",
                             label(f, q->remote, q->remote_port, o, sizeof(o)));
                    add(c, TOPO_SEV_FAIL, "fabric.link.moved", l, exp, obs,
                        "put the cable back where the reference fabric has it, or refresh the "
                        "reference",
                        ln, lp, q->remote, q->remote_port);
                    goto next;
                }
            }
            for (int side = 0; side < 2; side++) {
                int ln = side ? lb : la, lp = side ? rbp : p;
                const struct ibf_port *q;
                if (ln < 0 || lp > f->nodes[ln].nports)
                    continue;
                q = &f->nodes[ln].ports[lp];
                if (q->present && q->remote < 0 && q->state) {
                    if (q->phys)
                        snprintf(obs, sizeof(obs), "%s/%s at %s", ibf_state_name(q->state),
                                 ibf_phys_name(q->phys), label(f, ln, lp, x, sizeof(x)));
                    else
                        snprintf(obs, sizeof(obs), "%s at %s", ibf_state_name(q->state),
                                 label(f, ln, lp, x, sizeof(x)));
                    add(c, TOPO_SEV_FAIL, "link.state", subj, "Active", obs,
                        q->phys == IBF_PHYS_POLLING
                            ? "Polling: no peer answers; check the cable, its seating and the "
                              "far end's power"
                            : "the port does not train; check the port's configuration",
                        ln, lp, -1, -1);
                    goto next;
                }
            }
            add(c, TOPO_SEV_FAIL, "fabric.link.missing", subj, "cable present", "not found",
                "the cable, or a whole node, is gone from the fabric", la, p, lb, rbp);
        next:
            for (int side = 0; side < 2; side++) {
                int rr = side ? rb : (int)r;
                if (c->live_of[rr] < 0 && ref->nodes[rr].type == IBF_CA) {
                    c->reported = xrealloc(c->reported, (c->nreported + 1) * sizeof(char *));
                    c->reported[c->nreported++] = xstrdup(ref->nodes[rr].name);
                }
            }
        }
    }
    /* cables the reference does not have */
    for (size_t i = 0; i < f->n; i++) {
        const struct ibf_node *n = &f->nodes[i];
        for (int p = 1; p <= n->nports; p++) {
            const struct ibf_port *q = &n->ports[p];
            char subj[420];
            if (q->remote < 0 || (size_t)q->remote < i ||
                ((size_t)q->remote == i && q->remote_port < p))
                continue;
            if (c->claimed[i][p] || c->claimed[q->remote][q->remote_port] ||
                ref_port_of(c, (int)i, p))
                continue;
            link_label(f, (int)i, p, q->remote, q->remote_port, subj, sizeof(subj));
            add(c, TOPO_SEV_FAIL, "fabric.link.extra", subj, "not in the reference fabric",
                "cable present",
                "a cable the reference does not have: remove it, or refresh the "
                "reference",
                (int)i, p, q->remote, q->remote_port);
        }
    }
}

/* ---- per cable: state, width, speed ---- */

static int mode_width(const struct ibf_fabric *f, int isl)
{
    int count[13] = { 0 }, best = 0;

    for (size_t i = 0; i < f->n; i++)
        for (int p = 1; p <= f->nodes[i].nports; p++) {
            const struct ibf_port *q = &f->nodes[i].ports[p];
            if (q->remote < 0 || q->width <= 0 || q->width > 12)
                continue;
            if (isl != (f->nodes[i].type == IBF_SWITCH && f->nodes[q->remote].type == IBF_SWITCH))
                continue;
            count[q->width]++;
        }
    for (int w = 12; w >= 1; w--) /* a tie goes to the wider: a degraded link is the odd one */
        if (count[w] > count[best])
            best = w;
    return best;
}

static enum ibf_speed mode_speed(const struct ibf_fabric *f, int isl)
{
    int count[IBF_NSPEEDS] = { 0 }, best = 0;

    for (size_t i = 0; i < f->n; i++)
        for (int p = 1; p <= f->nodes[i].nports; p++) {
            const struct ibf_port *q = &f->nodes[i].ports[p];
            if (q->remote < 0 || !q->speed)
                continue;
            if (isl != (f->nodes[i].type == IBF_SWITCH && f->nodes[q->remote].type == IBF_SWITCH))
                continue;
            count[q->speed]++;
        }
    for (int s = IBF_NSPEEDS - 1; s >= 1; s--)
        if (count[s] > count[best])
            best = s;
    return (enum ibf_speed)best;
}

static void check_links(struct ctx *c)
{
    const struct ibf_fabric *f = c->f;
    const struct topo_map *map = c->e->map;
    int isl_w = mode_width(f, 1), ca_w = mode_width(f, 0);
    enum ibf_speed isl_s = mode_speed(f, 1), fabric_s;
    size_t slow_ca[IBF_NSPEEDS] = { 0 }, nslow = 0;

    fabric_s = map && map->fabric.speed ? (enum ibf_speed)map->fabric.speed : isl_s;
    for (size_t i = 0; i < f->n; i++) {
        const struct ibf_node *n = &f->nodes[i];
        for (int p = 1; p <= n->nports; p++) {
            const struct ibf_port *q = &n->ports[p], *rq;
            int b = q->remote, bp = q->remote_port, isl, ew, ca = -1;
            enum ibf_speed es;
            char subj[420], exp[64], obs[64];
            const struct map_nic *nic = NULL;

            if (b < 0 || (size_t)b < i || ((size_t)b == i && bp < p))
                continue;
            rq = &f->nodes[b].ports[bp];
            isl = n->type == IBF_SWITCH && f->nodes[b].type == IBF_SWITCH;
            if (!isl)
                ca = n->type == IBF_CA ? (int)i : b;
            subj[0] = '\0'; /* named when a finding needs it (SUBJ): most cables are fine */
#define SUBJ() (subj[0] ? subj : link_label(f, (int)i, p, b, bp, subj, sizeof(subj)))
            if ((q->state && q->state != IBF_STATE_ACTIVE) ||
                (rq->state && rq->state != IBF_STATE_ACTIVE)) {
                const struct ibf_port *bad = q->state && q->state != IBF_STATE_ACTIVE ? q : rq;
                snprintf(obs, sizeof(obs), "%s/%s", ibf_state_name(bad->state),
                         ibf_phys_name(bad->phys));
                add(c, TOPO_SEV_FAIL, "link.state", SUBJ(), "Active", obs,
                    bad->state == IBF_STATE_INIT
                        ? "the link is up but not Active: is a subnet manager running?"
                        : "the link does not reach Active",
                    (int)i, p, b, bp);
                continue;
            }
            ref_expect(c, (int)i, p, &ew, &es);
            moved_expect(c, (int)i, p, &ew, &es); /* where the reference has it elsewhere */
            if (!ew)
                ew = map && map->fabric.width ? map->fabric.width : isl ? isl_w : ca_w;
            if (ca >= 0)
                nic = c->nic[ca];
            if (!es && nic) { /* an unset rate (-1) is within 5% of no speed */
                /* the speed that gives the NIC's rate at the expected width */
                for (int s = 1; s < IBF_NSPEEDS && !es; s++)
                    if (s != IBF_FDR10 && fabs(ibf_speed_nominal_gbps((enum ibf_speed)s) * ew -
                                               nic->rate_gbps) < 0.05 * nic->rate_gbps)
                        es = (enum ibf_speed)s;
            }
            if (!es && (isl || (map && map->fabric.speed)))
                es = fabric_s;
            if (q->width && ew && q->width < ew) {
                snprintf(exp, sizeof(exp), "%dx", ew);
                snprintf(obs, sizeof(obs), "%dx", q->width);
                add(c, TOPO_SEV_FAIL, "link.width", SUBJ(), exp, obs,
                    "the link trained on fewer lanes: reseat or replace the cable, check the "
                    "port for damage",
                    (int)i, p, b, bp);
            }
            if (q->speed && es && q->speed < es) {
                snprintf(exp, sizeof(exp), "%s", ibf_speed_name(es));
                snprintf(obs, sizeof(obs), "%s", ibf_speed_name(q->speed));
                add(c, TOPO_SEV_FAIL, "link.speed", SUBJ(), exp, obs,
                    "the link trained at a lower speed: check the cable type and the port's "
                    "speed settings (ibportstate), then reseat",
                    (int)i, p, b, bp);
            } else if (q->speed && !es && ca >= 0 && fabric_s && q->speed < fabric_s) {
                slow_ca[q->speed]++;
                nslow++;
            }
        }
    }
#undef SUBJ
    if (nslow) {
        char buf[256];
        size_t len = 0;
        for (int s = 1; s < IBF_NSPEEDS; s++)
            if (slow_ca[s] && len < sizeof(buf))
                len +=
                    (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%zu at %s", len ? ", " : "",
                                     slow_ca[s], ibf_speed_name((enum ibf_speed)s));
        note(c,
             "%zu HCA links run below the fabric's %s (%s): not judged without an expected "
             "speed (the map's NIC rate_gbps or fabric: speed)",
             nslow, ibf_speed_name(fabric_s), buf);
    }
}

/* ---- HCAs the map promises ---- */

struct missing_ctx {
    struct ctx *c;
    size_t count;
};

static int missing_host(const char *host, void *arg)
{
    struct missing_ctx *m = arg;
    struct ctx *c = m->c;
    const struct ibf_fabric *f = c->f;
    const struct map_node_type *t = topo_map_type_for_host(c->e->map, host);

    if (++m->count > 100000)
        return 1;
    if (!t || (c->e->only_host && strcmp(c->e->only_host, host)))
        return 0;
    for (size_t k = 0; k < t->nnics; k++) {
        const struct map_nic *nic = &t->nics[k];
        char name[300], subj[320], exp[64];
        int found = 0;
        if (nic->rail < 0 || nic->link_layer == TOPO_LL_ETHERNET)
            continue;
        snprintf(name, sizeof(name), "%s/%s", host, nic->name);
        {
            size_t lo = 0, hi = c->nby_host; /* the first of this host's CAs */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (strcmp(c->by_host[mid].key, host) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (size_t j = lo; j < c->nby_host && !found && !strcmp(c->by_host[j].key, host);
                 j++) {
                const struct ibf_node *n = &f->nodes[c->by_host[j].i];
                found = (n->hca && !strcmp(n->hca, nic->name)) ||
                        (!n->hca && map_nic_of(c->e->map, host, NULL) == nic);
            }
        }
        for (size_t i = 0; i < c->nreported && !found; i++)
            found = !strcmp(c->reported[i], name);
        if (c->e->ref && !found) /* renamed HCA: its GUID is still in the fabric */
            for (size_t r = 0; r < c->e->ref->n && !found; r++)
                found = c->live_of[r] >= 0 && !strcmp(c->e->ref->nodes[r].name, name);
        if (found)
            continue;
        snprintf(subj, sizeof(subj), "%s:%d", name, nic->port);
        snprintf(exp, sizeof(exp), "cabled to a leaf of rail %d", nic->rail);
        topo_findings_add(c->out, TOPO_SEV_FAIL, "fabric.link.missing", subj, exp,
                          "not in the fabric",
                          "the HCA is not reachable: its link is down, the node is off, or its "
                          "NodeDescription does not say \"<host> <hca>\"");
    }
    return 0;
}

static void check_missing(struct ctx *c)
{
    struct missing_ctx m = { c, 0 };

    if (!map_has_rails(c->e->map))
        return;
    c->by_host = cas_sorted(c->f, 1, &c->nby_host);
    for (size_t i = 0; i < c->e->map->nnodes; i++)
        if (ry_hostlist_expand(c->e->map->nodes[i].hostlist, missing_host, &m, NULL) != 0)
            break;
    free(c->by_host);
    c->by_host = NULL;
    c->nby_host = 0;
}

/* ---- counters ---- */

static void check_counters(struct ctx *c)
{
    const struct ibf_fabric *f = c->f;
    size_t unread = 0;
    long long totals[IBF_NERRCTR], risings[IBF_NERRCTR];

    if (f->nsamples == 0)
        return;
    for (int k = 0; k < IBF_NERRCTR; k++) /* the map's limits, once */
        ibf_counter_limits(c->e->map, k, &totals[k], &risings[k]);
    for (size_t i = 0; i < f->n; i++) {
        const struct ibf_node *n = &f->nodes[i];
        for (int p = 1; p <= n->nports; p++) {
            const struct ibf_port *q = &n->ports[p];
            char subj[200], peer[200], exp[64], obs[400];
            if (q->remote < 0)
                continue;
            if (!q->s[0].valid) {
                unread++;
                continue;
            }
            subj[0] = '\0'; /* named when a counter is past its limit: most ports are fine */
            for (int k = 0; k < IBF_NERRCTR; k++) {
                long long total = totals[k], rising = risings[k];
                uint64_t v0 = q->s[0].v[k], max = (1ull << ibf_ctr_bits((enum ibf_ctr)k)) - 1;
                int rose = f->nsamples > 1 && q->s[1].valid && rising >= 0 && q->s[1].v[k] >= v0 &&
                           q->s[1].v[k] - v0 > (uint64_t)rising;
                if (!subj[0] && (rose || (total >= 0 && v0 > (uint64_t)total))) {
                    label(f, (int)i, p, subj, sizeof(subj));
                    label(f, q->remote, q->remote_port, peer, sizeof(peer));
                }
                if (rose) {
                    snprintf(exp, sizeof(exp), "rising by <= %lld", rising);
                    snprintf(obs, sizeof(obs), "%s +%llu in %.1f s (cable to %s)",
                             ibf_ctr_name((enum ibf_ctr)k), (unsigned long long)(q->s[1].v[k] - v0),
                             q->s[1].t - q->s[0].t, peer);
                    add(c, TOPO_SEV_FAIL, "port.errors.rising", subj, exp, obs,
                        k == IBF_LINK_DOWNED || k == IBF_LINK_RECOVERY
                            ? "the link is flapping: reseat or replace the cable"
                            : "errors are climbing now: replace the cable or move it to another "
                              "port to tell cable from port",
                        (int)i, -1, q->remote, -1);
                } else if (total >= 0 && v0 > (uint64_t)total) {
                    snprintf(exp, sizeof(exp), "<= %lld", total);
                    snprintf(obs, sizeof(obs), "%s %llu%s (cable to %s)",
                             ibf_ctr_name((enum ibf_ctr)k), (unsigned long long)v0,
                             v0 == max ? ", saturated" : "", peer);
                    add(c, TOPO_SEV_WARN, "port.errors", subj, exp, obs,
                        "errors since the counters were last cleared: watch whether they rise "
                        "(clear with perfquery -R)",
                        (int)i, -1, q->remote, -1);
                }
            }
        }
    }
    if (unread)
        note(c, "%zu cabled ports did not answer the counter queries", unread);
}

int ibf_analyze(const struct ibf_fabric *f, const struct ibf_expect *e, struct topo_findings *out,
                struct ibf_notes *notes)
{
    struct ctx c = { .f = f, .e = e, .out = out, .notes = notes };
    size_t first = out->n;

    c.claimed = xcalloc(f->n ? f->n : 1, sizeof(char *));
    for (size_t i = 0; i < f->n; i++)
        c.claimed[i] = xcalloc((size_t)f->nodes[i].nports + 1, 1);
    c.rail = xcalloc(f->n ? f->n : 1, sizeof(int));
    c.ref_of = xcalloc(f->n ? f->n : 1, sizeof(int));
    for (size_t i = 0; i < f->n; i++)
        c.ref_of[i] = -1;
    if (e->ref) {
        c.live_of = xcalloc(e->ref->n ? e->ref->n : 1, sizeof(int));
        for (size_t r = 0; r < e->ref->n; r++) {
            c.live_of[r] = ref_match(f, e->ref, r);
            if (c.live_of[r] >= 0 && c.ref_of[c.live_of[r]] >= 0)
                c.live_of[r] = -1; /* two reference nodes with one name: not matched */
            else if (c.live_of[r] >= 0)
                c.ref_of[c.live_of[r]] = (int)r;
        }
    }
    if (f->hops_limited)
        note(c.notes ? &c : &c, "the dump covers a limited number of hops: cables beyond it are "
                                "not judged");
    if (f->ndiscovery_errors) {
        char obs[600] = "";
        size_t k = 0;
        snprintf(obs, sizeof(obs), "%zu discovery error%s: ", f->ndiscovery_errors,
                 f->ndiscovery_errors == 1 ? "" : "s");
        for (; k < f->ndiscovery_errors && k < 4; k++) {
            size_t n = strlen(obs);
            snprintf(obs + n, sizeof(obs) - n, "%s%s", k ? "; " : "", f->discovery_errors[k]);
        }
        if (k < f->ndiscovery_errors) {
            size_t n = strlen(obs);
            snprintf(obs + n, sizeof(obs) - n, "; +%zu more", f->ndiscovery_errors - k);
        }
        topo_findings_add(out, TOPO_SEV_WARN, "fabric.discovery.incomplete", "fabric",
                          "every node answers discovery", obs,
                          "ibnetdiscover could not reach part of the fabric: what lies behind "
                          "these directed-route paths is not judged; check the port at the end "
                          "of each path (ibportstate, ibqueryerrors) and discover again");
    }
    c.nic = nic_table(f, e->map);
    rails_of(f, e->map, c.nic, c.rail);
    check_duplicates(&c);
    check_own_descs(&c);
    check_rails(&c);
    check_links(&c);
    if (e->ref)
        check_reference(&c);
    check_missing(&c);
    check_counters(&c);
    (void)first;
    topo_findings_override(out, e->map, NULL);

    for (size_t i = 0; i < f->n; i++)
        free(c.claimed[i]);
    free(c.claimed);
    free(c.rail);
    free(c.nic);
    free(c.ref_of);
    free(c.live_of);
    for (size_t i = 0; i < c.nreported; i++)
        free(c.reported[i]);
    free(c.reported);
    return 0;
}

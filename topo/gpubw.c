#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "topo/compare.h"
#include "topo/gpubw.h"
#include "topo/map.h"
#include "topo/model.h"
#include "topo/pci.h"
#include "topo/reference.h"

/* ---- captures ---- */

struct topo_bw_capture *topo_bw_capture_new(const char *path, const char *tool)
{
    struct topo_bw_capture *c = xcalloc(1, sizeof(*c));

    c->path = xstrdup(path);
    c->tool = xstrdup(tool);
    return c;
}

void topo_bw_capture_free(struct topo_bw_capture *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->ngpus; i++) {
        free(c->model[i]);
        free(c->busid[i]);
    }
    for (size_t i = 0; i < c->ngroups; i++)
        free(c->groups[i]);
    for (size_t i = 0; i < c->nwaived; i++)
        free(c->waived[i]);
    free(c->model);
    free(c->busid);
    free(c->peer);
    free(c->node_gpu);
    free(c->groups);
    free(c->waived);
    free(c->v);
    free(c->corrupt);
    free(c->broke);
    free(c->path);
    free(c->tool);
    free(c);
}

void topo_bw_capture_gpu(struct topo_bw_capture *c, int i)
{
    int n = i + 1, *peer;

    if (i < c->ngpus)
        return;
    c->model = xrealloc(c->model, (size_t)n * sizeof(*c->model));
    c->busid = xrealloc(c->busid, (size_t)n * sizeof(*c->busid));
    c->node_gpu = xrealloc(c->node_gpu, (size_t)n * sizeof(*c->node_gpu));
    peer = xcalloc((size_t)n * (size_t)n, sizeof(*peer));
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            peer[a * n + b] = a < c->ngpus && b < c->ngpus ? c->peer[a * c->ngpus + b] : -1;
    for (int k = c->ngpus; k < n; k++) {
        c->model[k] = c->busid[k] = NULL;
        c->node_gpu[k] = -1;
    }
    free(c->peer);
    c->peer = peer;
    c->ngpus = n;
}

int topo_bw_capture_group(struct topo_bw_capture *c, const char *name)
{
    for (size_t i = 0; i < c->ngroups; i++)
        if (!strcmp(c->groups[i], name))
            return (int)i;
    xgrow(&c->groups, &c->groups_alloc, c->ngroups + 1, sizeof(*c->groups));
    c->groups[c->ngroups] = xstrdup(name);
    return (int)c->ngroups++;
}

void topo_bw_capture_add(struct topo_bw_capture *c, const struct topo_bw *v)
{
    xgrow(&c->v, &c->alloc, c->n + 1, sizeof(*c->v));
    c->v[c->n++] = *v;
    topo_bw_capture_gpu(c, v->a > v->b ? v->a : v->b);
}

void topo_bw_capture_waive(struct topo_bw_capture *c, const char *fmt, ...)
{
    char buf[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    xgrow(&c->waived, &c->waived_alloc, c->nwaived + 1, sizeof(*c->waived));
    c->waived[c->nwaived++] = xstrdup(buf);
}

int topo_bw_peer(const struct topo_bw_capture *c, int a, int b)
{
    if (a < 0 || b < 0 || a >= c->ngpus || b >= c->ngpus)
        return -1;
    return c->peer[a * c->ngpus + b];
}

/* ---- judging ---- */

/* One (check, subject) verdict: the worst figure seen for it. */
struct verdict {
    const char *check;
    char subject[96];
    enum topo_sev sev;
    double score; /* value / threshold for bandwidth, threshold / value for latency: < 1 low */
    char expected[200], observed[240], hint[320];
};

struct judge {
    const struct topo_node *node;
    const struct map_thresholds *th; /* the node type's floors, or NULL */
    const char *host;
    struct topo_findings *out;
    struct verdict *v;
    size_t n, alloc;
    /* per check: figures judged (by any rule) */
    int judged[16];
};

static const char *const bw_checks[] = {
    "gpu.pcie.bw",        "gpu.pcie.latency", "gpu.p2p.bw",      "gpu.p2p.latency",
    "gpu.p2p.access",     "gpu.mem.bw",       "gpu.l2.latency",  "gpu.mem.latency",
    "gpu.launch.latency", "gpu.gdr.bw",       "nic.loopback.bw", NULL,
};

static void count_judged(struct judge *j, const char *check)
{
    for (int i = 0; bw_checks[i]; i++)
        if (!strcmp(bw_checks[i], check))
            j->judged[i]++;
}

static void subject_of(const struct judge *j, char *buf, size_t len, int a, int b)
{
    if (b < 0 || a == b)
        snprintf(buf, len, "%s/gpu%d", j->host, a);
    else
        snprintf(buf, len, "%s/gpu%d-gpu%d", j->host, a < b ? a : b, a < b ? b : a);
}

/* Record a low or high figure; the worst one per (check, subject) is kept. */
static void low(struct judge *j, enum topo_sev sev, const char *check, int a, int b, double score,
                const char *expected, const char *observed, const char *hint)
{
    char subject[96];
    struct verdict *x = NULL;

    subject_of(j, subject, sizeof(subject), a, b);
    for (size_t i = 0; i < j->n; i++)
        if (!strcmp(j->v[i].check, check) && !strcmp(j->v[i].subject, subject))
            x = &j->v[i];
    if (x && (x->sev > sev || (x->sev == sev && x->score <= score)))
        return;
    if (!x) {
        xgrow(&j->v, &j->alloc, j->n + 1, sizeof(*j->v));
        x = &j->v[j->n++];
        x->check = check;
        snprintf(x->subject, sizeof(x->subject), "%s", subject);
    }
    x->sev = sev;
    x->score = score;
    snprintf(x->expected, sizeof(x->expected), "%s", expected);
    snprintf(x->observed, sizeof(x->observed), "%s", observed);
    snprintf(x->hint, sizeof(x->hint), "%s", hint ? hint : "");
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static const char *kind_check(enum topo_bw_kind k)
{
    switch (k) {
    case TOPO_BW_H2D:
    case TOPO_BW_D2H:
    case TOPO_BW_HOST_BIDIR:
    case TOPO_BW_HOST_ALL: return "gpu.pcie.bw";
    case TOPO_BW_HOST_LATENCY: return "gpu.pcie.latency";
    case TOPO_BW_P2P:
    case TOPO_BW_P2P_BIDIR:
    case TOPO_BW_P2P_HOST:
    case TOPO_BW_P2P_HOST_BIDIR:
    case TOPO_BW_P2P_OTHER: return "gpu.p2p.bw";
    case TOPO_BW_P2P_LATENCY:
    case TOPO_BW_P2P_HOST_LATENCY: return "gpu.p2p.latency";
    case TOPO_BW_LOCAL: return "gpu.mem.bw";
    case TOPO_BW_L2_LATENCY: return "gpu.l2.latency";
    case TOPO_BW_MEM_LATENCY: return "gpu.mem.latency";
    case TOPO_BW_LAUNCH_LATENCY: return "gpu.launch.latency";
    case TOPO_BW_GDR: return "gpu.gdr.bw";
    case TOPO_BW_NIC_LOOP: return "nic.loopback.bw";
    }
    return "gpu.p2p.bw";
}

int topo_bw_is_latency(enum topo_bw_kind k)
{
    return k == TOPO_BW_P2P_LATENCY || k == TOPO_BW_P2P_HOST_LATENCY || k == TOPO_BW_HOST_LATENCY ||
           k == TOPO_BW_L2_LATENCY || k == TOPO_BW_MEM_LATENCY || k == TOPO_BW_LAUNCH_LATENCY;
}

static int is_pair(const struct topo_bw *v)
{
    return v->b >= 0 && v->a != v->b;
}

/* the node's number for the capture's GPU i (the capture's own when the node lists none) */
static int lab(const struct topo_bw_capture *c, int i)
{
    return i >= 0 && i < c->ngpus && c->node_gpu[i] >= 0 ? c->node_gpu[i] : i;
}

/* what the figure is, for the observed text */
static void describe(const struct topo_bw_capture *c, const struct topo_bw *v, char *buf,
                     size_t len)
{
    char who[48];

    if (is_pair(v))
        snprintf(who, sizeof(who), "gpu%d->gpu%d", lab(c, v->a), lab(c, v->b));
    else
        snprintf(who, sizeof(who), "gpu%d", lab(c, v->a));
    snprintf(buf, len, "%.*f %s (%s, %s %s, %s line %d)", topo_bw_is_latency(v->kind) ? 2 : 1,
             v->value, topo_bw_is_latency(v->kind) ? "us" : "GB/s", who, c->tool,
             c->groups[v->group], base_name(c->path), v->line);
}

/* ---- the map's thresholds for GPU figures ---- */

enum { MK_H2D, MK_P2P, MK_LOCAL, MK_GDR, MK_P2P_LAT, MK_L2_LAT, MK_MEM_LAT, MK_LAUNCH_LAT, MK_N };

static const char *const mk_name[MK_N] = {
    "h2d_gbps",       "nvlink_pair_gbps", "local_gbps",     "gdr_bw_gbps",
    "p2p_latency_us", "l2_latency_us",    "mem_latency_us", "launch_latency_us",
};

static int mk_ceiling(int k)
{
    return k >= MK_P2P_LAT;
}

/* the threshold itself, through the map's one table of keys */
static double *mk_field(struct map_thresholds *th, int k)
{
    return topo_map_threshold(th, mk_name[k]);
}

/* which of the map's thresholds judges figure v, or -1 */
static int map_key(const struct topo_bw_capture *c, const struct topo_bw *v)
{
    switch (v->kind) {
    case TOPO_BW_H2D:
    case TOPO_BW_D2H: return MK_H2D;
    case TOPO_BW_P2P: return topo_bw_peer(c, v->a, v->b) != 0 ? MK_P2P : -1;
    case TOPO_BW_LOCAL: return MK_LOCAL;
    case TOPO_BW_GDR: return MK_GDR;
    case TOPO_BW_P2P_LATENCY: return topo_bw_peer(c, v->a, v->b) != 0 ? MK_P2P_LAT : -1;
    case TOPO_BW_L2_LATENCY: return MK_L2_LAT;
    case TOPO_BW_MEM_LATENCY: return MK_MEM_LAT;
    case TOPO_BW_LAUNCH_LATENCY: return MK_LAUNCH_LAT;
    default: return -1;
    }
}

/* a figure in the map's units: a local copy as bytes copied, whichever way the tool counts */
static double map_value(const struct topo_bw *v)
{
    return v->kind == TOPO_BW_LOCAL && v->counts_rw ? v->value / 2 : v->value;
}

int topo_bw_golden(const struct topo_node *node, struct map_thresholds *th, char *warn,
                   size_t warn_len)
{
    double *x = NULL;
    size_t alloc = 0, wl = 0;
    int odd = 0;

    if (warn_len)
        warn[0] = '\0';
    for (int k = 0; k < MK_N; k++) {
        double lim = -1;
        /* each test's median; the slowest test sets the floor (a copy-engine and an SM copy
         * differ, and so do reads and writes) */
        for (size_t ci = 0; ci < node->nbw; ci++) {
            const struct topo_bw_capture *c = node->bw[ci];
            for (size_t g = 0; g < c->ngroups; g++) {
                size_t n = 0;
                double m;
                for (size_t i = 0; i < c->n; i++) {
                    if ((size_t)c->v[i].group != g || map_key(c, &c->v[i]) != k)
                        continue;
                    xgrow(&x, &alloc, n + 1, sizeof(*x));
                    x[n++] = map_value(&c->v[i]);
                }
                if (!n || (m = topo_bw_median(x, n)) <= 0)
                    continue;
                m *= mk_ceiling(k) ? TOPO_BW_GOLDEN_CEIL : TOPO_BW_GOLDEN_FLOOR;
                if (lim < 0 || (mk_ceiling(k) ? m > lim : m < lim))
                    lim = m;
            }
        }
        /* rounded away from the figures: a floor down, a ceiling up (past binary noise:
         * 0.85 x 26 is 22.0999...); none measured (-1) or a floor that rounds to 0 sets none */
        lim = mk_ceiling(k) ? ceil(lim * 100 - 1e-6) / 100 : floor(lim * 10 + 1e-6) / 10;
        if (lim <= 0)
            continue;
        *mk_field(th, k) = lim;
        /* the golden node's own figures beyond what it sets */
        for (size_t ci = 0; ci < node->nbw; ci++) {
            const struct topo_bw_capture *c = node->bw[ci];
            for (size_t i = 0; i < c->n; i++) {
                double v = map_value(&c->v[i]);
                int r;
                if (map_key(c, &c->v[i]) != k || (mk_ceiling(k) ? v <= lim : v >= lim))
                    continue;
                if (odd++ < 4 && wl < warn_len) {
                    char who[48];
                    if (is_pair(&c->v[i]))
                        snprintf(who, sizeof(who), "gpu%d->gpu%d", lab(c, c->v[i].a),
                                 lab(c, c->v[i].b));
                    else
                        snprintf(who, sizeof(who), "gpu%d", lab(c, c->v[i].a));
                    r = snprintf(warn + wl, warn_len - wl,
                                 "%s%s line %d: %s %s %.2f is beyond the map's %s %.2f",
                                 wl ? "\n" : "", base_name(c->path), c->v[i].line, who,
                                 c->groups[c->v[i].group], v, mk_name[k], lim);
                    wl += r > 0 ? (size_t)r : 0;
                    if (wl >= warn_len)
                        wl = warn_len;
                }
            }
        }
    }
    free(x);
    return odd;
}

static const struct topo_gpu *node_gpu(const struct judge *j, const struct topo_bw_capture *c,
                                       int i)
{
    int k = i >= 0 && i < c->ngpus ? c->node_gpu[i] : -1;
    return k >= 0 && (size_t)k < j->node->ngpus ? &j->node->gpus[k] : NULL;
}

static const struct topo_gpu_ref *gpu_ref(const struct judge *j, const struct topo_bw_capture *c,
                                          int i)
{
    const struct topo_gpu *g = node_gpu(j, c, i);
    const struct topo_gpu_ref *r = g ? topo_ref_gpu_for(g) : NULL, *named;

    /* a reference from the compute capability alone knows no host link: a model the capture
     * names (nvbandwidth's "Device 0: NVIDIA GB300") says which */
    if ((!r || (r->pcie_gen <= 0 && r->c2c_gbps <= 0)) && i >= 0 && i < c->ngpus &&
        (named = topo_ref_gpu(c->model[i])))
        r = named;
    return r;
}

/* What GPU i's reference says its host link carries, each way; <0 unknown. */
static double ref_host_gbytes(const struct judge *j, const struct topo_bw_capture *c, int i)
{
    const struct topo_gpu_ref *r = gpu_ref(j, c, i);

    /* (a superchip's host path is its NVLink-C2C, which host_bound takes as it is: no link
     * caps it) */
    if (r && r->pcie_gen > 0 && r->pcie_width > 0)
        return topo_pci_link_gbytes(r->pcie_gen, r->pcie_width);
    return -1;
}

/* The bound of GPU i's host link in GB/s (each way) and what it is; <0 unknown. */
static double host_bound(const struct judge *j, const struct topo_bw_capture *c, int i, char *what,
                         size_t len)
{
    const struct topo_gpu *g = node_gpu(j, c, i);
    const struct topo_gpu_ref *r = gpu_ref(j, c, i);
    double gb = -1;
    int gen = 0, width = 0, at;

    /* a superchip's GPU reaches host memory over NVLink-C2C: the PCIe link the topology shows
     * it with is not on that path (a GB300's Gen5 x16 would set a floor a quarter of its own) */
    if (r && r->c2c_gbps > 0) {
        snprintf(what, len, "NVLink-C2C of a %s", r->name);
        return r->c2c_gbps;
    }
    if (g && g->c2c_links > 0)
        return -1; /* over C2C, of a rate no reference gives */
    if (g && g->loc.busid[0]) {
        at = topo_node_host_link(j->node, &g->loc, &g->link, &gb, &gen, &width);
        if (at != -2 && gb > 0) {
            if (at >= 0)
                snprintf(what, len, "the link of %s above gpu%d", j->node->bridges[at].busid,
                         lab(c, i));
            else
                snprintf(what, len, "gpu%d's own link", lab(c, i));
            if (gen > 0 && width > 0)
                snprintf(what + strlen(what), len - strlen(what), ", Gen%d x%d", gen, width);
            return gb;
        }
    }
    if (r && r->pcie_gen > 0 && r->pcie_width > 0) {
        snprintf(what, len, "Gen%d x%d, a %s's host link by reference", r->pcie_gen, r->pcie_width,
                 r->name);
        return topo_pci_link_gbytes(r->pcie_gen, r->pcie_width);
    }
    return -1;
}

/* The bound of a peer copy between GPUs a and b (one direction), its floor and what it is. */
static double p2p_bound(const struct judge *j, const struct topo_bw_capture *c, int a, int b,
                        double *floor, char *what, size_t len)
{
    const struct topo_gpu_ref *ra = gpu_ref(j, c, a), *rb = gpu_ref(j, c, b);
    char wa[120] = "", wb[120] = "";
    double ha, hb;
    int nv;

    if (node_gpu(j, c, a) && node_gpu(j, c, b) && j->node->gpus_listed) {
        nv = topo_node_nvlink_count(j->node, (size_t)lab(c, a), (size_t)lab(c, b));
        if (nv > 0) {
            if (!ra || ra->nvlink_gbps <= 0)
                return -1;
            *floor = TOPO_BW_FLOOR_NVLINK;
            snprintf(what, len, "NV%d of %g GB/s each", nv, ra->nvlink_gbps);
            return nv * ra->nvlink_gbps;
        }
    } else if (!ra || !rb || ra->nvlink_links > 0 || rb->nvlink_links > 0) {
        /* from the capture alone an NVLink part's pair may have any number of links */
        return -1;
    }
    ha = host_bound(j, c, a, wa, sizeof(wa));
    hb = host_bound(j, c, b, wb, sizeof(wb));
    if (ha <= 0 || hb <= 0)
        return -1;
    *floor = TOPO_BW_FLOOR_PCIE_P2P;
    snprintf(what, len, "PCIe: %s", ha <= hb ? wa : wb);
    return ha <= hb ? ha : hb;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double topo_bw_median(double *v, size_t n)
{
    if (n == 0)
        return -1;
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* figures the sibling rule compares: pairs with peer access only, when access is said */
static int sibling_member(const struct topo_bw_capture *c, const struct topo_bw *v)
{
    if (v->kind == TOPO_BW_P2P || v->kind == TOPO_BW_P2P_BIDIR || v->kind == TOPO_BW_P2P_LATENCY)
        return topo_bw_peer(c, v->a, v->b) != 0;
    return 1;
}

static double group_median(const struct topo_bw_capture *c, int group, enum topo_bw_kind kind,
                           size_t *count)
{
    double *x = xcalloc(c->n + 1, sizeof(*x)), m;
    size_t n = 0;

    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].group == group && c->v[i].kind == kind && sibling_member(c, &c->v[i]))
            x[n++] = c->v[i].value;
    m = topo_bw_median(x, n);
    free(x);
    *count = n;
    return m;
}

static const struct topo_bw *host_staged(const struct topo_bw_capture *c, const struct topo_bw *v)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].kind == TOPO_BW_P2P_HOST && c->v[i].a == v->a && c->v[i].b == v->b)
            return &c->v[i];
    return NULL;
}

/* the host-memory loop through the NIC of a GPU-memory loop figure */
static const struct topo_bw *nic_host_loop(const struct topo_bw_capture *c, const struct topo_bw *v)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].kind == TOPO_BW_NIC_LOOP && c->v[i].nic1 == v->nic1 && c->v[i].a == v->a)
            return &c->v[i];
    return NULL;
}

/* The bound of a loop through a NIC: its port's rate (GB/s); <0 for a software RDMA device
 * (rxe, siw: the host's CPUs move the data) or a rate not known. */
static double nic_bound(const struct judge *j, const struct topo_bw *v, char *what, size_t len)
{
    const struct topo_nic *n;
    double rate = -1;

    if (v->nic1 <= 0 || (size_t)v->nic1 > j->node->nnics)
        return -1;
    n = &j->node->nics[v->nic1 - 1];
    if (!strncmp(n->name, "rxe", 3) || !strncmp(n->name, "siw", 3))
        return -1;
    for (size_t p = 0; p < n->nports; p++)
        if (n->ports[p].state == 4 && n->ports[p].rate_gbps > rate)
            rate = n->ports[p].rate_gbps;
    if (rate <= 0)
        return -1;
    snprintf(what, len, "%s's port at %g Gb/s", n->name, rate);
    return rate / 8;
}

/* The hint for a GPU low against its siblings: the link that caps its host path when the
 * topology shows one narrower than the GPU's own reference. */
static const char *hint_gpu(const struct judge *j, const struct topo_bw_capture *c, int i,
                            char *hint, size_t len)
{
    char what[160];
    double ref = ref_host_gbytes(j, c, i), path = host_bound(j, c, i, what, sizeof(what));

    if (node_gpu(j, c, i) && path > 0 && ref > 0 && path < 0.9 * ref && strstr(what, "link"))
        snprintf(hint, len,
                 "its host path is capped by %s (%.1f GB/s where a %s link carries "
                 "%.1f): reseat or replace that link, check the BIOS PCIe speed",
                 what, path, gpu_ref(j, c, i)->name, ref);
    else
        snprintf(hint, len,
                 "well below the node's other GPUs: compare its link (railyard "
                 "inventory), clocks and throttling (nvidia-smi -q -d PERFORMANCE)");
    return hint;
}

static void judge_value(struct judge *j, const struct topo_bw_capture *c, const struct topo_bw *v,
                        int *nobound)
{
    const char *check = kind_check(v->kind);
    char obs[240], exp[200], what[160], hint[320];
    double bound = -1, floor = 0, m, t;
    size_t count;
    int any = 0, mk;

    describe(c, v, obs, sizeof(obs));
    if (v->nic1 > 0 && (size_t)v->nic1 <= j->node->nnics) {
        size_t ol = strlen(obs);
        snprintf(obs + ol, sizeof(obs) - ol, " through %s", j->node->nics[v->nic1 - 1].name);
    }
    /* (b) the map's floors and ceilings; a floor takes the place of the links' bound (a
     * ceiling judges a latency, which has none) */
    t = -1;
    if (j->th && (mk = map_key(c, v)) >= 0 &&
        (t = *mk_field((struct map_thresholds *)j->th, mk)) > 0) {
        double x = map_value(v);
        count_judged(j, check);
        if (mk_ceiling(mk) ? x > t : x < t) {
            snprintf(exp, sizeof(exp), "%s %.*f %s (the map's %s)",
                     mk_ceiling(mk) ? "<=" : ">=", mk_ceiling(mk) ? 2 : 1, t,
                     mk_ceiling(mk) ? "us" : "GB/s", mk_name[mk]);
            low(j, TOPO_SEV_FAIL, check, lab(c, v->a), lab(c, v->b), mk_ceiling(mk) ? t / x : x / t,
                exp, obs,
                v->kind == TOPO_BW_LOCAL && v->counts_rw
                    ? "below what the map's golden node measured (this tool counts a local "
                      "copy's bytes read and written: the map's figure is bytes copied, half)"
                : mk_ceiling(mk) ? "above what the map's golden node measured for this node type"
                                 : "below what the map's golden node measured for this node type");
        }
    }
    /* (a) the bound of the links */
    if (t > 0) {
        /* judged by the map */
    } else if (v->kind == TOPO_BW_H2D || v->kind == TOPO_BW_D2H) {
        bound = host_bound(j, c, v->a, what, sizeof(what));
        floor = TOPO_BW_FLOOR_HOST;
    } else if (v->kind == TOPO_BW_GDR || v->kind == TOPO_BW_NIC_LOOP) {
        bound = nic_bound(j, v, what, sizeof(what));
        floor = TOPO_BW_FLOOR_GDR;
    } else if ((v->kind == TOPO_BW_P2P || v->kind == TOPO_BW_P2P_BIDIR) &&
               topo_bw_peer(c, v->a, v->b) != 0) {
        bound = p2p_bound(j, c, v->a, v->b, &floor, what, sizeof(what));
        if (bound > 0 && v->kind == TOPO_BW_P2P_BIDIR) {
            bound *= 2;
            snprintf(what + strlen(what), sizeof(what) - strlen(what), ", both ways");
        }
    }
    if (bound > 0) {
        t = floor * bound;
        any = 1;
        if (v->value < t) {
            snprintf(exp, sizeof(exp), ">= %.1f GB/s (%.2f x %.1f GB/s: %s)", t, floor, bound,
                     what);
            snprintf(hint, sizeof(hint),
                     "below what %s carries when healthy: a link trained below its capability, "
                     "a shared uplink or a GPU held back (lspci -vv LnkSta; nvidia-smi -q -d "
                     "PERFORMANCE)",
                     what);
            low(j, TOPO_SEV_FAIL, check, lab(c, v->a), lab(c, v->b), v->value / t, exp, obs, hint);
        }
    } else if (t <= 0 && (v->kind == TOPO_BW_H2D || v->kind == TOPO_BW_D2H ||
                          v->kind == TOPO_BW_GDR || v->kind == TOPO_BW_NIC_LOOP ||
                          ((v->kind == TOPO_BW_P2P || v->kind == TOPO_BW_P2P_BIDIR) &&
                           topo_bw_peer(c, v->a, v->b) != 0))) {
        (*nobound)++;
    }
    /* peer copies slower than copies staged through host memory */
    if (v->kind == TOPO_BW_P2P && topo_bw_peer(c, v->a, v->b) != 0) {
        const struct topo_bw *h = host_staged(c, v);
        if (h) {
            any = 1;
            t = TOPO_BW_P2P_VS_HOST * h->value;
            if (v->value < t) {
                snprintf(exp, sizeof(exp),
                         ">= %.1f GB/s (%.2f x %.1f GB/s through host memory, "
                         "line %d)",
                         t, TOPO_BW_P2P_VS_HOST, h->value, h->line);
                low(j, TOPO_SEV_FAIL, check, lab(c, v->a), lab(c, v->b), v->value / t, exp, obs,
                    "peer copies are slower than copies through host memory: peer traffic on "
                    "this path is broken or redirected (IOMMU, PCIe ACS: railyard check --gdr "
                    "shows ACS)");
            }
        }
    }
    /* GPU memory through the NIC slower than host memory through the same NIC */
    if (v->kind == TOPO_BW_GDR) {
        const struct topo_bw *h = nic_host_loop(c, v);
        if (h) {
            any = 1;
            t = TOPO_BW_GDR_VS_HOST * h->value;
            if (v->value < t) {
                snprintf(exp, sizeof(exp), ">= %.1f GB/s (%.2f x %.1f GB/s from host memory)", t,
                         TOPO_BW_GDR_VS_HOST, h->value);
                low(j, TOPO_SEV_FAIL, check, lab(c, v->a), -1, v->value / t, exp, obs,
                    "GPUDirect RDMA is slower than host memory through the same NIC: the path "
                    "between the GPU and the NIC goes through the CPU or is redirected (railyard "
                    "check --gdr: gdr.path, gdr.acs), or peer memory is not in use");
            }
        }
    }
    /* no healthy path between GPUs, or a GPU and its host, takes a millisecond */
    if (topo_bw_is_latency(v->kind)) {
        any = 1;
        if (v->value > TOPO_BW_LATENCY_CEILING_US) {
            snprintf(exp, sizeof(exp), "<= %.0f us (no healthy path takes that long)",
                     TOPO_BW_LATENCY_CEILING_US);
            low(j, TOPO_SEV_FAIL, check, lab(c, v->a), lab(c, v->b),
                TOPO_BW_LATENCY_CEILING_US / v->value, exp, obs,
                v->kind == TOPO_BW_P2P_HOST_LATENCY
                    ? "a copy staged through host memory takes milliseconds: look at the "
                      "destination GPU's host path (IOMMU, PCIe ACS, the GPU's BAR mapping)"
                    : "the path answers in milliseconds: look at both GPUs' links");
        }
    }
    /* (c) the node's own GPUs and pairs */
    if (sibling_member(c, v) && (m = group_median(c, v->group, v->kind, &count)) > 0 &&
        count >= 3) {
        any = 1;
        if (topo_bw_is_latency(v->kind)) {
            t = m * TOPO_BW_SIBLING_LAT;
            if (t < m + 5)
                t = m + 5;
            if (v->value > t) {
                snprintf(exp, sizeof(exp), "<= %.2f us (the node's median %.2f us, %d figures)", t,
                         m, (int)count);
                low(j, TOPO_SEV_FAIL, check, lab(c, v->a), lab(c, v->b), t / v->value, exp, obs,
                    is_pair(v) ? "far slower than the node's other pairs: check the path between "
                                 "the two GPUs (nvidia-smi topo -m, nvlink --status)"
                               : "far slower than the node's other GPUs: check its host link");
            }
        } else {
            t = m * TOPO_BW_SIBLING;
            if (v->value < t) {
                snprintf(exp, sizeof(exp),
                         ">= %.1f GB/s (%.2f x the node's median %.1f GB/s, "
                         "%d figures)",
                         t, TOPO_BW_SIBLING, m, (int)count);
                low(j, TOPO_SEV_FAIL, check, lab(c, v->a), lab(c, v->b), v->value / t, exp, obs,
                    is_pair(v) ? "well below the node's other pairs: check the NVLinks or PCIe "
                                 "path of the two GPUs (nvidia-smi nvlink --status and -e for "
                                 "error counters; nvidia-smi topo -m)"
                               : hint_gpu(j, c, v->a, hint, sizeof(hint)));
            }
        }
    }
    if (any)
        count_judged(j, check);
}

static void judge_capture(struct judge *j, const struct topo_bw_capture *c)
{
    int nobound = 0, nv_node;
    char obs[300];

    if (c->corrupt) {
        snprintf(obs, sizeof(obs), "%s: %s", c->tool, c->corrupt);
        topo_findings_add(j->out, TOPO_SEV_FAIL, "gpu.copy.verify", j->host,
                          "copied data equal to what was written", obs,
                          "a copy returned other data than was written: run it again; when it "
                          "repeats, the GPU memory or a link on the path corrupts data (look for "
                          "Xid errors in dmesg; nvidia-smi -q -d ECC)");
    }
    if (c->broke)
        topo_findings_unjudged(j->out,
                               "%s: the run ended before its report (%s): what it "
                               "did not print is not judged",
                               c->path, c->broke);
    for (size_t i = 0; i < c->nwaived; i++) {
        snprintf(obs, sizeof(obs), "%s waived %s", c->tool, c->waived[i]);
        topo_findings_add(j->out, TOPO_SEV_WARN, "gpu.p2p.access", j->host,
                          "peer access between the GPUs", obs,
                          "the tool found no peer access between some GPUs (a platform or driver "
                          "that does not allow P2P, an IOMMU, PCIe ACS): peer copies go through "
                          "host memory");
        count_judged(j, "gpu.p2p.access");
    }
    /* peer access, per pair */
    for (int a = 0; a < c->ngpus; a++)
        for (int b = a + 1; b < c->ngpus; b++) {
            int ab = topo_bw_peer(c, a, b), ba = topo_bw_peer(c, b, a), path_nv = 0;
            if (ab < 0 && ba < 0)
                continue;
            count_judged(j, "gpu.p2p.access");
            if (ab != 0 && ba != 0)
                continue;
            nv_node = node_gpu(j, c, a) && node_gpu(j, c, b) && j->node->gpus_listed;
            if (nv_node)
                path_nv = topo_node_nvlink_count(j->node, (size_t)lab(c, a), (size_t)lab(c, b)) > 0;
            snprintf(obs, sizeof(obs), "no peer access %s (%s, %s): copies go through host memory",
                     ab == 0 && ba == 0 ? "either way"
                     : ab == 0          ? "from the lower GPU"
                                        : "from the higher GPU",
                     c->tool, base_name(c->path));
            low(j, path_nv ? TOPO_SEV_FAIL : TOPO_SEV_WARN, "gpu.p2p.access", lab(c, a), lab(c, b),
                0, path_nv ? "peer access (the GPUs share NVLinks)" : "peer access", obs,
                path_nv ? "the pair shares NVLinks yet has no peer access: the driver or fabric "
                          "manager failed to set them up (nvidia-smi topo -p2p n; systemctl "
                          "status nvidia-fabricmanager)"
                        : "no peer access over PCIe: the platform or driver does not allow it "
                          "(GeForce cards, an IOMMU, PCIe ACS between the GPUs, or GPUs under "
                          "different CPUs)");
        }
    for (size_t i = 0; i < c->n; i++)
        judge_value(j, c, &c->v[i], &nobound);
    if (nobound)
        topo_findings_unjudged(j->out,
                               "%s: %d figure%s against the node's own GPUs only: no link bound "
                               "known (give the node's topology with --nccl-topo, --hwloc-xml, "
                               "--sysfs-root or --bundle, or name the GPU model)",
                               c->path, nobound, nobound == 1 ? "" : "s");
}

void topo_bw_judge(const struct topo_node *node, const char *host, const struct map_thresholds *th,
                   struct topo_findings *out)
{
    struct judge j = { .node = node, .th = th, .host = host, .out = out };
    char obs[160];

    for (size_t i = 0; i < node->nbw; i++)
        judge_capture(&j, node->bw[i]);
    for (size_t i = 0; i < j.n; i++)
        topo_findings_add(out, j.v[i].sev, j.v[i].check, j.v[i].subject, j.v[i].expected,
                          j.v[i].observed, j.v[i].hint[0] ? j.v[i].hint : NULL);
    /* a check that judged figures and found none low passes */
    for (int k = 0; bw_checks[k]; k++) {
        size_t bad = 0;
        if (!j.judged[k])
            continue;
        for (size_t i = 0; i < j.n; i++)
            bad += !strcmp(j.v[i].check, bw_checks[k]);
        if (bad)
            continue;
        snprintf(obs, sizeof(obs), "%d figure%s judged, 0 GPUs or pairs low", j.judged[k],
                 j.judged[k] == 1 ? "" : "s");
        topo_findings_add(out, TOPO_SEV_OK, bw_checks[k], host, NULL, obs, NULL);
    }
    free(j.v);
}

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/analyze.h"
#include "src/common/xmalloc.h"

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double fabric_median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), dcmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double fabric_percentile(double *v, size_t n, double p)
{
    size_t k;

    qsort(v, n, sizeof(*v), dcmp);
    k = (size_t)ceil(p / 100.0 * (double)n);
    return v[k ? k - 1 : 0];
}

/* per port: its edges classified */
struct port_view {
    int edges, failed, low, good;
    double min_bw;
    int culprit_unreach, culprit_bw;
};

struct ctx {
    const struct fabric_input *in;
    struct topo_findings *out;
    double *ref; /* per rail: the reference below which a link is low */
    struct port_view *pv;
};

static struct port_view *pv(struct ctx *c, int node, int rail)
{
    return &c->pv[node * c->in->rails + rail];
}

static void finding(struct ctx *c, enum topo_sev sev, const char *check, const char *exp,
                    const char *obs, const char *hint, const char *fmt, int x, int y, int rail)
{
    char subject[256];

    if (y >= 0)
        snprintf(subject, sizeof(subject), fmt, c->in->node_names[x], c->in->node_names[y], rail);
    else
        snprintf(subject, sizeof(subject), fmt, c->in->node_names[x], rail);
    topo_findings_add(c->out, sev, check, subject, exp, obs, hint);
}

static int is_low(struct ctx *c, const struct fabric_link *l)
{
    return l->ok && c->ref[l->rail] > 0 && l->bw_gbps < c->ref[l->rail];
}

/* Left out of the localization: a link whose rank died, and a failed link of a node that lost a
 * rank (a rank dying mid-round resets its partners before rank 0 sees the death; the node is
 * named rank.failed and needs a new test anyway). */
static int excluded(const struct fabric_input *in, const struct fabric_link *l)
{
    if (l->rank_failed)
        return 1;
    for (size_t i = 0; !l->ok && i < in->nfailed; i++)
        if (in->failed_nodes[i] == l->a || in->failed_nodes[i] == l->b)
            return 1;
    return 0;
}

/* does node q have an edge on rail r, other than with p, that is not failed (and, when
 * want_good, not low either)? */
static int partner_fine_elsewhere(struct ctx *c, int q, int p, int rail, int want_good)
{
    for (size_t i = 0; i < c->in->nlinks; i++) {
        const struct fabric_link *l = &c->in->links[i];
        if (l->rail != rail || excluded(c->in, l) || (l->a != q && l->b != q) || l->a == p ||
            l->b == p)
            continue;
        if (l->ok && (!want_good || !is_low(c, l)))
            return 1;
    }
    return 0;
}

/* Is port (n, r) the culprit of its bad edges (failed ones when unreach, else low ones)? All
 * its edges of that kind must be bad, and against each partner it must carry more of the
 * blame: more bad edges than the partner, or the partner fine with someone else. A pair that
 * only sees each other stays unexplained (a finding on the pair). */
static int culprit(struct ctx *c, int n, int r, int unreach)
{
    struct port_view *v = pv(c, n, r);
    int mine = unreach ? v->failed : v->low;

    if (mine == 0 || (unreach ? v->failed != v->edges : v->low != v->edges - v->failed))
        return 0;
    for (size_t i = 0; i < c->in->nlinks; i++) {
        const struct fabric_link *l = &c->in->links[i];
        struct port_view *w;
        int q;
        if (l->rail != r || excluded(c->in, l) || (l->a != n && l->b != n))
            continue;
        if (unreach ? l->ok : !is_low(c, l))
            continue;
        q = l->a == n ? l->b : l->a;
        w = pv(c, q, r);
        if ((unreach ? w->failed : w->low) >= mine && !partner_fine_elsewhere(c, q, n, r, !unreach))
            return 0;
    }
    return 1;
}

static void classify(struct ctx *c)
{
    const struct fabric_input *in = c->in;

    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        int ends[2] = { l->a, l->b };
        if (excluded(in, l))
            continue;
        for (int e = 0; e < 2; e++) {
            struct port_view *v = pv(c, ends[e], l->rail);
            v->edges++;
            if (!l->ok)
                v->failed++;
            else if (is_low(c, l)) {
                v->low++;
                if (v->min_bw < 0 || l->bw_gbps < v->min_bw)
                    v->min_bw = l->bw_gbps;
            } else
                v->good++;
        }
    }
    for (int n = 0; n < in->nodes; n++)
        for (int r = 0; r < in->rails; r++) {
            pv(c, n, r)->culprit_unreach = culprit(c, n, r, 1);
            pv(c, n, r)->culprit_bw = culprit(c, n, r, 0);
        }
}

static void report_ports(struct ctx *c)
{
    const struct fabric_input *in = c->in;
    char e[96], o[96];

    for (int n = 0; n < in->nodes; n++)
        for (int r = 0; r < in->rails; r++) {
            struct port_view *v = pv(c, n, r);
            const struct fabric_port *p = &in->ports[n * in->rails + r];
            if (v->culprit_unreach) {
                if (p->carrier == 0)
                    finding(c, TOPO_SEV_FAIL, "nic.port.state", "link up", "no carrier",
                            "the link is down: check the cable, the transceiver and the switch "
                            "port",
                            "%s/rail%d", n, -1, r);
                else
                    finding(c, TOPO_SEV_FAIL, "rail.cabling", "reaches the peers of its rail",
                            "link up, reaches none of its rail's peers",
                            "cabled to another rail's switch? its other rails work: trace the "
                            "cable of this port",
                            "%s/rail%d", n, -1, r);
            } else if (v->culprit_bw) {
                snprintf(e, sizeof(e), ">= %.3g Gb/s", c->ref[r]);
                snprintf(o, sizeof(o), "%.3g Gb/s with every partner", v->min_bw);
                finding(c, TOPO_SEV_FAIL, "link.bandwidth", e, o,
                        "this port is slow with every partner while they are fine elsewhere: "
                        "check its link speed, cable and error counters",
                        "%s/rail%d", n, -1, r);
            } else if (v->edges > 0 && v->good == v->edges) {
                snprintf(e, sizeof(e), ">= %.3g Gb/s", c->ref[r]);
                snprintf(o, sizeof(o), "%d link%s fine", v->good, v->good == 1 ? "" : "s");
                finding(c, TOPO_SEV_OK, "link.bandwidth", e, o, NULL, "%s/rail%d", n, -1, r);
            }
        }
}

static void report_links(struct ctx *c)
{
    const struct fabric_input *in = c->in;
    char e[96], o[512];

    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        struct port_view *va, *vb;
        if (excluded(in, l))
            continue;
        va = pv(c, l->a, l->rail);
        vb = pv(c, l->b, l->rail);
        if (!l->ok && !va->culprit_unreach && !vb->culprit_unreach) {
            snprintf(o, sizeof(o), "unreachable: %s", l->error);
            finding(c, TOPO_SEV_FAIL, "link.unreachable", "reachable", o,
                    "neither end is unreachable elsewhere: check the path between them",
                    "%s<->%s/rail%d", l->a, l->b, l->rail);
        } else if (is_low(c, l) && !va->culprit_bw && !vb->culprit_bw && !va->culprit_unreach &&
                   !vb->culprit_unreach) {
            snprintf(e, sizeof(e), ">= %.3g Gb/s", c->ref[l->rail]);
            snprintf(o, sizeof(o), "%.3g Gb/s", l->bw_gbps);
            finding(c, TOPO_SEV_FAIL, "link.path", e, o,
                    "slow between these two only: the path between them (leaf, spine) or one "
                    "port that is slow in one direction",
                    "%s<->%s/rail%d", l->a, l->b, l->rail);
        }
        if (l->ok && (l->errors_a > 0 || l->errors_b > 0)) {
            snprintf(o, sizeof(o),
                     "%lld errors/drops on %s%s%s%s, %lld on %s%s%s%s during the test",
                     l->errors_a > 0 ? l->errors_a : 0, in->node_names[l->a],
                     l->counters_a[0] ? " (" : "", l->counters_a, l->counters_a[0] ? ")" : "",
                     l->errors_b > 0 ? l->errors_b : 0, in->node_names[l->b],
                     l->counters_b[0] ? " (" : "", l->counters_b, l->counters_b[0] ? ")" : "");
            finding(c, TOPO_SEV_WARN, "link.errors", "no new errors", o,
                    "the link carried traffic with errors: not all of it was goodput",
                    "%s<->%s/rail%d", l->a, l->b, l->rail);
        }
    }
}

/* Same-leaf peer sets: the peers a port reaches at about the rail's lowest latency. A port
 * plugged into another leaf of a non-blocking fabric keeps its bandwidth but not its leaf
 * latency: its set differs from the node's other rails. */
/* a link with a node that lost a rank: its timing was disturbed by the death */
static int touches_failed(const struct fabric_input *in, const struct fabric_link *l)
{
    for (size_t i = 0; i < in->nfailed; i++)
        if (in->failed_nodes[i] == l->a || in->failed_nodes[i] == l->b)
            return 1;
    return l->rank_failed;
}

static void report_leaf_sets(struct ctx *c)
{
    const struct fabric_input *in = c->in;
    int rails = in->rails, nodes = in->nodes;
    double *minlat;
    unsigned char *near;

    if (rails < 2)
        return;
    minlat = xcalloc((size_t)rails, sizeof(*minlat));
    near = xcalloc((size_t)nodes * (size_t)nodes * (size_t)rails, 1);
    for (int r = 0; r < rails; r++)
        minlat[r] = -1;
    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        if (l->ok && l->lat_p50_us > 0 && !touches_failed(in, l) &&
            (minlat[l->rail] < 0 || l->lat_p50_us < minlat[l->rail]))
            minlat[l->rail] = l->lat_p50_us;
    }
    /* 2 for "measured and near", 1 for "measured and far" */
    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        unsigned char v;
        if (!l->ok || l->lat_p50_us <= 0 || minlat[l->rail] <= 0 || touches_failed(in, l))
            continue;
        v = l->lat_p50_us <= 1.5 * minlat[l->rail] + 20 ? 2 : 1;
        near[((size_t)l->a * nodes + l->b) * rails + l->rail] = v;
        near[((size_t)l->b * nodes + l->a) * rails + l->rail] = v;
    }
    for (int n = 0; n < nodes; n++)
        for (int r = 0; r < rails; r++) {
            int differs = 0, agree = 0;
            if (pv(c, n, r)->culprit_unreach)
                continue;
            for (int q = 0; q < nodes; q++) {
                unsigned char mine = near[((size_t)n * nodes + q) * rails + r];
                int others_near = 0, others_far = 0;
                if (!mine)
                    continue;
                for (int s = 0; s < rails; s++) {
                    unsigned char x = near[((size_t)n * nodes + q) * rails + s];
                    if (s == r || !x)
                        continue;
                    others_near += x == 2;
                    others_far += x == 1;
                }
                if ((mine == 2 && others_far && !others_near) ||
                    (mine == 1 && others_near && !others_far))
                    differs++;
                else if (others_near || others_far)
                    agree++;
            }
            /* a leaf is judged from at least 3 peers and 2 that disagree: one latency taken
             * on a busy host is no evidence */
            if (differs >= 2 && differs + agree >= 3 && differs > agree)
                finding(c, TOPO_SEV_WARN, "rail.cabling", "the same leaf peers as its other rails",
                        "other leaf peers (latency)",
                        "plugged into another leaf of its rail: bandwidth is fine through the "
                        "spines, latency is not",
                        "%s/rail%d", n, -1, r);
        }
    free(minlat);
    free(near);
}

static void ctx_init(struct ctx *c)
{
    const struct fabric_input *in = c->in;
    size_t cells = (size_t)in->nodes * (size_t)in->rails;

    c->ref = xcalloc((size_t)in->rails, sizeof(*c->ref));
    c->pv = xcalloc(cells ? cells : 1, sizeof(*c->pv));
    for (size_t i = 0; i < cells; i++)
        c->pv[i].min_bw = -1;
    for (int r = 0; r < in->rails; r++) {
        double *v = xcalloc(in->nlinks ? in->nlinks : 1, sizeof(*v));
        size_t n = 0;
        for (size_t i = 0; i < in->nlinks; i++)
            if (in->links[i].rail == r && in->links[i].ok && !in->links[i].rank_failed)
                v[n++] = in->links[i].bw_gbps;
        /* low: below the map's floor, or without one below 80% of the rail's median */
        if (in->expect_gbps && in->expect_gbps[r] > 0)
            c->ref[r] = in->expect_gbps[r];
        else
            c->ref[r] = n > 0 ? 0.8 * fabric_median(v, n) : -1;
        free(v);
    }
    classify(c);
}

size_t fabric_suspects(const struct fabric_input *in, int *suspect, int *good)
{
    struct ctx c = { in, NULL, NULL, NULL };
    size_t n = 0;

    ctx_init(&c);
    for (int k = 0; k < in->nodes; k++) {
        suspect[k] = 0;
        good[k] = 1;
    }
    for (int k = 0; k < in->nodes; k++)
        for (int r = 0; r < in->rails; r++) {
            struct port_view *v = pv(&c, k, r);
            if (v->culprit_bw || v->culprit_unreach)
                suspect[k] = 1;
            if (v->good != v->edges)
                good[k] = 0;
        }
    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        if (excluded(in, l) || (l->ok && !is_low(&c, l)))
            continue;
        good[l->a] = good[l->b] = 0;
        if (!pv(&c, l->a, l->rail)->culprit_bw && !pv(&c, l->a, l->rail)->culprit_unreach &&
            !pv(&c, l->b, l->rail)->culprit_bw && !pv(&c, l->b, l->rail)->culprit_unreach)
            suspect[l->a] = suspect[l->b] = 1;
    }
    for (int k = 0; k < in->nodes; k++) {
        if (suspect[k])
            good[k] = 0;
        n += suspect[k] != 0;
    }
    free(c.ref);
    free(c.pv);
    return n;
}

void fabric_analyze(const struct fabric_input *in, struct topo_findings *out)
{
    struct ctx c = { in, out, NULL, NULL };

    ctx_init(&c);
    for (size_t i = 0; i < in->nfailed; i++)
        finding(&c, TOPO_SEV_FAIL, "rank.failed", "finished", "died or hung (no result in time)",
                "the rank was lost: check the node (dmesg, the job's stderr)", "%s",
                in->failed_nodes[i], -1, 0);
    report_ports(&c);
    report_links(&c);
    report_leaf_sets(&c);
    free(c.ref);
    free(c.pv);
}

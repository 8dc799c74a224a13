#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "fabric/analyze.h"
#include "fabric/host.h"

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
    /* links whose sender counted its wire bytes, and of them: lossy, or marked (ECN) without
     * loss; culprit_loss, culprit_ecn: 0, or the directions its bad links all have (DIR_*) */
    int wired, lossy, marked;
    int culprit_loss, culprit_ecn;
};

enum { DIR_OUT = 1, DIR_IN = 2, DIR_BOTH = 3 };

struct ctx {
    const struct fabric_input *in;
    struct topo_findings *out;
    double *ref; /* per rail: the reference below which a link is low */
    struct port_view *pv;
    unsigned char *incon; /* per link: measured on a starved host, inconclusive */
    unsigned char *super; /* per link: superseded by a better measurement of its pair */
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

/* the limits of fabric_input (0: the default, <0: none) */
static double limit(double v, double dflt)
{
    return v == 0 ? dflt : v;
}

/* measured, and its sender counted what it put on the wire */
static int wired(const struct fabric_link *l)
{
    return l->ok && l->wire_bytes > 0 && l->bytes > 0;
}

/* Left out of the wire's judgement: a link whose rank died, or of a node that lost one. A link
 * slow on a starved host still counted its bytes on the wire: what it resent, it resent. */
static int wire_excluded(const struct ctx *c, const struct fabric_link *l)
{
    if (l->rank_failed || !wired(l))
        return 1;
    for (size_t i = 0; i < c->in->nfailed; i++)
        if (c->in->failed_nodes[i] == l->a || c->in->failed_nodes[i] == l->b)
            return 1;
    return 0;
}

static double goodput_ratio(const struct fabric_link *l)
{
    return (double)l->bytes / (double)l->wire_bytes;
}

static int is_lossy(const struct ctx *c, const struct fabric_link *l)
{
    double min = limit(c->in->goodput_min, FABRIC_GOODPUT_MIN);

    return wired(l) && min > 0 && goodput_ratio(l) < min;
}

/* marked CE past the limit, without loss (a lossy link is named for its loss) */
static int is_marked(const struct ctx *c, const struct fabric_link *l)
{
    double max = limit(c->in->ecn_max, FABRIC_ECN_MAX);

    return wired(l) && !is_lossy(c, l) && max > 0 && l->ce_frac > max;
}

/* Not judged as measured: a link whose rank died, a failed link of a node that lost a rank (a
 * rank dying mid-round resets its partners before rank 0 sees the death; the node is named
 * rank.failed and needs a new test anyway), and an inconclusive one. */
static int unjudged(const struct ctx *c, const struct fabric_link *l)
{
    const struct fabric_input *in = c->in;

    if (l->rank_failed || (c->incon && c->incon[l - in->links]))
        return 1;
    for (size_t i = 0; !l->ok && i < in->nfailed; i++)
        if (in->failed_nodes[i] == l->a || in->failed_nodes[i] == l->b)
            return 1;
    return 0;
}

static int superseded(const struct ctx *c, const struct fabric_link *l)
{
    return c->super && c->super[l - c->in->links];
}

/* Left out of the localization: a link not judged, and one whose pair was measured better */
static int excluded(const struct ctx *c, const struct fabric_link *l)
{
    return unjudged(c, l) || superseded(c, l);
}

/* Clean enough to prove its ends good: a link that resent more than the limit does not, even
 * where the map tolerates it (the limit is then the default): TCP over a lossy port can keep
 * up with one partner and not with another, the more on a busy host. */
static int wire_clean(const struct ctx *c, const struct fabric_link *l)
{
    double min = c->in->goodput_min > FABRIC_GOODPUT_MIN ? c->in->goodput_min : FABRIC_GOODPUT_MIN;

    return !wired(l) || goodput_ratio(l) >= min;
}

/* does node q have an edge on rail r, other than with p, that is not failed (and, when
 * want_good, neither low nor resending past the limit)? */
static int partner_fine_elsewhere(struct ctx *c, int q, int p, int rail, int want_good)
{
    for (size_t i = 0; i < c->in->nlinks; i++) {
        const struct fabric_link *l = &c->in->links[i];
        if (l->rail != rail || excluded(c, l) || (l->a != q && l->b != q) || l->a == p || l->b == p)
            continue;
        if (l->ok && (!want_good || (!is_low(c, l) && wire_clean(c, l))))
            return 1;
    }
    return 0;
}

/* Is port (n, r) the culprit of its bad edges (failed ones when unreach, else low ones)? A port
 * without carrier is, for every link it failed: that evidence needs no partner. Otherwise all
 * its edges of that kind must be bad, and its partners must clear it: one of them proven good
 * (fine with someone else), or every one of them with fewer bad edges of that kind. A pair that
 * only sees each other stays unexplained (a finding on the pair), and so does a node whose
 * partners are as bad as it is (the retest pairs it with known-good nodes). */
static int culprit(struct ctx *c, int n, int r, int unreach)
{
    struct port_view *v = pv(c, n, r);
    int mine = unreach ? v->failed : v->low, all_less = 1;

    if (mine == 0)
        return 0;
    if (unreach && c->in->ports[n * c->in->rails + r].carrier == 0)
        return 1;
    if (unreach ? v->failed != v->edges : v->low != v->edges - v->failed)
        return 0;
    for (size_t i = 0; i < c->in->nlinks; i++) {
        const struct fabric_link *l = &c->in->links[i];
        struct port_view *w;
        int q;
        if (l->rail != r || excluded(c, l) || (l->a != n && l->b != n))
            continue;
        if (unreach ? l->ok : !is_low(c, l))
            continue;
        q = l->a == n ? l->b : l->a;
        if (partner_fine_elsewhere(c, q, n, r, !unreach))
            return 1;
        w = pv(c, q, r);
        all_less &= (unreach ? w->failed : w->low) < mine;
    }
    return all_less;
}

/* does node q have a link on rail r, other than with p, whose wire figures are clean of what
 * (loss, or marks)? */
static int partner_clean_elsewhere(struct ctx *c, int q, int p, int rail, int loss)
{
    for (size_t i = 0; i < c->in->nlinks; i++) {
        const struct fabric_link *l = &c->in->links[i];
        if (l->rail != rail || wire_excluded(c, l) || (l->a != q && l->b != q) || l->a == p ||
            l->b == p)
            continue;
        if (loss ? !is_lossy(c, l) : !is_lossy(c, l) && !is_marked(c, l))
            return 1;
    }
    return 0;
}

/* Is port (n, r) the culprit of its lossy (loss) or marked links, and in which direction? Every
 * link it had in that direction (both, what it received, what it sent; one direction needs two
 * links) shows it, none in the other shows it (for one direction), and each partner is clean with
 * another port, or all of them show it less often: as culprit() for goodput. A port that drops what
 * it receives makes its senders resend; one that drops what it sends resends itself. Returns DIR_*,
 * or 0. */
static int wire_culprit(struct ctx *c, int n, int r, int loss)
{
    static const int dirs[] = { DIR_BOTH, DIR_IN, DIR_OUT };
    struct port_view *v = pv(c, n, r);
    int mine = loss ? v->lossy : v->marked;

    for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
        int edges = 0, bad = 0, bad_other = 0, cleared = 0, all_less = 1, seen = 0;
        for (size_t i = 0; i < c->in->nlinks; i++) {
            const struct fabric_link *l = &c->in->links[i];
            int dir, is_bad;
            if (l->rail != r || wire_excluded(c, l) || (l->a != n && l->b != n))
                continue;
            dir = l->a == n ? DIR_OUT : DIR_IN;
            is_bad = loss ? is_lossy(c, l) : is_marked(c, l);
            if (!(dirs[d] & dir)) {
                bad_other += is_bad;
                continue;
            }
            seen |= dir;
            edges++;
            if (is_bad) {
                int q = l->a == n ? l->b : l->a;
                struct port_view *w = pv(c, q, r);
                bad++;
                cleared |= partner_clean_elsewhere(c, q, n, r, loss);
                all_less &= (loss ? w->lossy : w->marked) < mine;
            }
        }
        /* both directions are judged from a link each way, one direction from two partners at
         * least: a single lossy link is as much its sender's fault as its receiver's */
        if (seen == dirs[d] && edges > (dirs[d] == DIR_BOTH ? 0 : 1) && bad == edges &&
            bad_other == 0 && (cleared || all_less))
            return dirs[d];
    }
    return 0;
}

static void classify(struct ctx *c)
{
    const struct fabric_input *in = c->in;

    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        int ends[2] = { l->a, l->b }, wire = !wire_excluded(c, l);
        /* its wire is counted even where its goodput is not judged (a starved host) */
        for (int e = 0; wire && e < 2; e++) {
            struct port_view *v = pv(c, ends[e], l->rail);
            v->wired++;
            v->lossy += is_lossy(c, l);
            v->marked += is_marked(c, l);
        }
        if (excluded(c, l))
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
            pv(c, n, r)->culprit_loss = pv(c, n, r)->lossy ? wire_culprit(c, n, r, 1) : 0;
            pv(c, n, r)->culprit_ecn = pv(c, n, r)->marked ? wire_culprit(c, n, r, 0) : 0;
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
        if (unjudged(c, l))
            continue;
        va = pv(c, l->a, l->rail);
        vb = pv(c, l->b, l->rail);
        if (superseded(c, l))
            ; /* its pair is judged by a better measurement; its counters still rose */
        else if (!l->ok && !va->culprit_unreach && !vb->culprit_unreach) {
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

/* the direction of l as port (n, rail) sees it */
static int dir_of(const struct fabric_link *l, int n)
{
    return l->a == n ? DIR_OUT : DIR_IN;
}

/* is l explained by a culprit end (loss, or marks) whose direction covers it? */
static int wire_explained(struct ctx *c, const struct fabric_link *l, int loss)
{
    const struct port_view *va = pv(c, l->a, l->rail), *vb = pv(c, l->b, l->rail);
    int ca = loss ? va->culprit_loss : va->culprit_ecn,
        cb = loss ? vb->culprit_loss : vb->culprit_ecn;

    return (ca & dir_of(l, l->a)) || (cb & dir_of(l, l->b));
}

static const char *dir_words(int dir)
{
    return dir == DIR_IN    ? "every link it received"
           : dir == DIR_OUT ? "every link it sent"
                            : "every link";
}

/* Goodput against the wire: the culprit ports, then the pairs they do not explain. */
static void report_wire(struct ctx *c)
{
    const struct fabric_input *in = c->in;
    double gmin = limit(in->goodput_min, FABRIC_GOODPUT_MIN),
           emax = limit(in->ecn_max, FABRIC_ECN_MAX);
    char e[96], o[320];

    for (int n = 0; n < in->nodes; n++)
        for (int r = 0; r < in->rails; r++) {
            const struct port_view *v = pv(c, n, r);
            /* what the port sent and what was sent to it: bytes on the wire and delivered */
            double wire[2] = { 0, 0 }, got[2] = { 0, 0 }, worst = 1, ce = 0;
            int dir = v->culprit_loss ? v->culprit_loss : v->culprit_ecn;
            if (!dir)
                continue;
            for (size_t i = 0; i < in->nlinks; i++) {
                const struct fabric_link *l = &in->links[i];
                int d;
                if (l->rail != r || (l->a != n && l->b != n) || wire_excluded(c, l))
                    continue;
                d = dir_of(l, n) == DIR_OUT ? 0 : 1;
                wire[d] += (double)l->wire_bytes;
                got[d] += (double)l->bytes;
                if (!(dir & dir_of(l, n)))
                    continue;
                if (goodput_ratio(l) < worst)
                    worst = goodput_ratio(l);
                if (l->ce_frac > ce)
                    ce = l->ce_frac;
            }
            if (v->culprit_loss) {
                snprintf(e, sizeof(e), ">= %.4g%% of the wire delivered", 100 * gmin);
                snprintf(o, sizeof(o),
                         "%.2f%% delivered at worst, on %s; it sent %.2g%% of its bytes again, "
                         "its partners %.2g%% of theirs to it",
                         100 * worst, dir_words(dir),
                         wire[0] > 0 ? 100 * (1 - got[0] / wire[0]) : 0,
                         wire[1] > 0 ? 100 * (1 - got[1] / wire[1]) : 0);
                finding(c, TOPO_SEV_FAIL, "link.goodput", e, o,
                        dir == DIR_IN ? "packets sent to this port are lost (its partners resend "
                                        "them): check its receive side, cable, transceiver, "
                                        "FEC and symbol errors"
                        : dir == DIR_OUT ? "packets this port sends are lost (it resends them): "
                                           "check its transmit side, cable and the switch port's "
                                           "receive errors"
                                         : "this port loses packets with every partner while they "
                                           "are clean elsewhere: check its cable, transceiver, "
                                           "error counters and the switch port",
                        "%s/rail%d", n, -1, r);
            } else {
                snprintf(e, sizeof(e), "<= %.3g%% of packets marked CE", 100 * emax);
                snprintf(o, sizeof(o), "up to %.3g%% marked, on %s, nothing lost", 100 * ce,
                         dir_words(dir));
                finding(c, TOPO_SEV_WARN, "link.congestion", e, o,
                        "a switch queue toward or from this port fills (ECN marks) with no other "
                        "traffic in the test: check the switch port's buffers and PFC/ECN settings",
                        "%s/rail%d", n, -1, r);
            }
        }
    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        if (wire_excluded(c, l))
            continue;
        if (is_lossy(c, l) && !wire_explained(c, l, 1)) {
            snprintf(e, sizeof(e), ">= %.4g%% of the wire delivered", 100 * gmin);
            char resent[64] = ""; /* tcp counts its segments resent */
            if (l->retrans >= 0)
                snprintf(resent, sizeof(resent), ", %lld segments sent again", l->retrans);
            snprintf(o, sizeof(o), "%.2f%%: %lld of %lld bytes on the wire arrived%s",
                     100 * goodput_ratio(l), l->bytes, l->wire_bytes, resent);
            finding(c, TOPO_SEV_FAIL, "link.goodput", e, o,
                    "lossy between these two only (the sender resent what was lost): the path "
                    "between them, or one end lossy in one direction",
                    "%s->%s/rail%d", l->a, l->b, l->rail);
        } else if (is_marked(c, l) && !wire_explained(c, l, 0)) {
            snprintf(e, sizeof(e), "<= %.3g%% of packets marked CE", 100 * emax);
            snprintf(o, sizeof(o), "%.3g%% marked, nothing lost", 100 * l->ce_frac);
            finding(c, TOPO_SEV_WARN, "link.congestion", e, o,
                    "a queue on the path between these two fills (ECN marks) with no other "
                    "traffic in the test: check the switches' buffers and ECN settings",
                    "%s->%s/rail%d", l->a, l->b, l->rail);
        }
    }
}

/* Same-leaf peer sets: the peers a port reaches at about the rail's lowest latency. A port
 * plugged into another leaf of a non-blocking fabric keeps its bandwidth but not its leaf
 * latency: its set differs from the node's other rails. */
/* a link with a node that lost a rank: its timing was disturbed by the death; a link one of
 * whose ranks waited for a CPU, or whose host was short of CPU: its latency is the scheduler's */
static int touches_failed(const struct fabric_input *in, const struct fabric_link *l)
{
    if (l->wait_a >= FABRIC_HOST_WAIT || l->wait_b >= FABRIC_HOST_WAIT ||
        l->pressure_a >= FABRIC_HOST_WAIT || l->pressure_b >= FABRIC_HOST_WAIT)
        return 1;
    for (size_t i = 0; i < in->nfailed; i++)
        if (in->failed_nodes[i] == l->a || in->failed_nodes[i] == l->b)
            return 1;
    return l->rank_failed;
}

/* a link of a culprit port: a slow port moves less data and answers its ping-pongs on a quieter
 * host, a dead one not at all; its latencies say nothing about leaves */
static int touches_culprit(struct ctx *c, const struct fabric_link *l)
{
    const struct port_view *a = pv(c, l->a, l->rail), *b = pv(c, l->b, l->rail);

    return a->culprit_bw || a->culprit_unreach || b->culprit_bw || b->culprit_unreach;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the latency sweep says nodes a and b are near on rail r (the same leaf) */
static int swept_near(const struct ctx *c, int a, int b, int r, double leaf_lat)
{
    const struct fabric_input *in = c->in;

    for (size_t i = 0; leaf_lat > 0 && i < in->nlat; i++) {
        const struct fabric_link *l = &in->lat_links[i];
        if (l->rail == r && l->ok && l->lat_p50_us > 0 &&
            ((l->a == a && l->b == b) || (l->a == b && l->b == a)) &&
            l->lat_p50_us <= leaf_lat * 1.15)
            return 1;
    }
    return 0;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return x < y ? -1 : x > y;
}

/* how many distinct values among v[0..n) (sorts v) */
static size_t distinct(size_t *v, size_t n)
{
    size_t k = 0;

    qsort(v, n, sizeof(*v), cmp_size);
    for (size_t i = 0; i < n; i++)
        k += i == 0 || v[i] != v[i - 1];
    return k;
}

/* The spine layer: slow pairs that neither end explains (link.path), every one of them between
 * two leaves by its latency, and pairs that failed between ports fine elsewhere (link.unreachable:
 * behind a spine slow enough, a window misses its deadline; a pair the latency sweep puts on one
 * leaf is not the spine's), at least three, or three pairs of nodes where any failed: the fault is
 * above the leaves (a spine switch, a leaf-spine cable), a switch's, not a node's. Two hosts that
 * hung mid-round fail two pairs. leaf_lat: per rail, the latency that parts same-leaf peers from
 * the others, <= 0 unknown. A slow pair within a leaf is not the spine's: it vetoes the spine,
 * unless pairs failed behind it and the spine's pairs are at least SPINE_OVER_OTHER times as many
 * (a port moved to another leaf, whose pair now crosses the slow spine, is one such beside the
 * hundreds of pairs that failed behind it; slow paths alone are no such weight). The link.path
 * and link.unreachable findings of those pairs are folded under it (it counts them; each link
 * stays in the run's links). */
#define SPINE_OVER_OTHER 4
static int spine_layer(struct ctx *c, const double *leaf_lat)
{
    const struct fabric_input *in = c->in;
    size_t far = 0, dead = 0, other = 0, npaths, *pairs = xcalloc(in->nlinks + 1, sizeof(*pairs));
    unsigned rails = 0;
    char o[224], list[64] = "", **paths = xcalloc(in->nlinks + 1, sizeof(*paths));

    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        int lo = l->a < l->b ? l->a : l->b, hi = l->a < l->b ? l->b : l->a;
        if (excluded(c, l) || touches_culprit(c, l))
            continue;
        if (!l->ok) {
            if (swept_near(c, l->a, l->b, l->rail, leaf_lat[l->rail]))
                continue;
            dead++;
        } else if (!is_low(c, l))
            continue;
        else if (leaf_lat[l->rail] > 0 && l->lat_p50_us > leaf_lat[l->rail] * 1.15)
            far++;
        else {
            other++;
            continue;
        }
        /* the subject report_links gave its link.path or link.unreachable finding */
        pairs[far + dead - 1] = (size_t)lo * (size_t)in->nodes + (size_t)hi;
        paths[far + dead - 1] =
            xasprintf("%s<->%s/rail%d", in->node_names[l->a], in->node_names[l->b], l->rail);
        if (l->rail < 32)
            rails |= 1u << l->rail;
    }
    npaths = far + dead;
    if ((other > 0 && (dead == 0 || other * SPINE_OVER_OTHER > npaths)) ||
        !(far >= 3 || (dead > 0 && distinct(pairs, npaths) >= 3))) {
        for (size_t i = 0; i < npaths; i++)
            free(paths[i]);
        free(paths);
        free(pairs);
        return 0;
    }
    for (int r = 0; r < in->rails && r < 32; r++)
        if (rails & 1u << r) {
            size_t len = strlen(list);
            if (len + 8 >= sizeof(list)) {
                snprintf(list + len, sizeof(list) - len, ",...");
                break;
            }
            snprintf(list + len, sizeof(list) - len, "%s%d", len ? "," : "", r);
        }
    if (dead == 0)
        snprintf(o, sizeof(o), "%zu slow paths, every one between two leaves (rails %s)", far,
                 list);
    else if (far == 0)
        snprintf(o, sizeof(o),
                 "%zu paths unreachable between ports fine elsewhere, %zu pairs of nodes "
                 "(rails %s)",
                 dead, distinct(pairs, npaths), list);
    else
        snprintf(o, sizeof(o),
                 "%zu slow paths between two leaves and %zu unreachable between ports fine "
                 "elsewhere (rails %s)",
                 far, dead, list);
    topo_findings_add(c->out, TOPO_SEV_FAIL, "fabric.spine", "spine layer",
                      "full goodput between leaves", o,
                      "the ports are fine and the leaves are fine within: a spine switch or a "
                      "leaf-spine cable is slow; check the spine layer's ports and counters "
                      "(ibdiagnet, the switches)");
    qsort(paths, npaths, sizeof(*paths), cmp_str);
    for (size_t i = 0; i < c->out->n; i++) {
        struct topo_finding *x = &c->out->v[i];
        if ((!strcmp(x->check, "link.path") || !strcmp(x->check, "link.unreachable")) &&
            x->sev != TOPO_SEV_OK && bsearch(&x->subject, paths, npaths, sizeof(*paths), cmp_str))
            x->sev = TOPO_SEV_IGNORE;
    }
    topo_findings_compact(c->out);
    for (size_t i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    free(pairs);
    return 1;
}

/* link i of the measured links and then of the latency sweep's */
static const struct fabric_link *any_link(const struct fabric_input *in, size_t i)
{
    return i < in->nlinks ? &in->links[i] : &in->lat_links[i - in->nlinks];
}

/* rail r's latency below which a peer is on the same leaf: the middle of the widest gap between
 * the rail's latencies, when it is a gap (a factor of 1.8 or more, at least two links below it,
 * each side spread less than the gap); -1 when they form one group, a leaf as far as they tell
 * (a busy host spreads latencies evenly, a second leaf stands apart). A side's spread leaves out
 * its n/128 farthest latencies, and each side has more links than that: at 256 nodes two pings of
 * a port on another rail's leaf, queued to 7.7 us beside 2.7 us between the leaves, spread the
 * upper side wider than the gap and hid the leaves of the whole rail. skip_low: without the
 * measured links that were slow, whose latency is a queue's as much as a distance's */
static double rail_boundary(struct ctx *c, int r, int skip_low)
{
    const struct fabric_input *in = c->in;
    double *v = xcalloc(in->nlinks + in->nlat + 1, sizeof(*v)), best = 0, at = -1;
    size_t n = 0;

    for (size_t i = 0; i < in->nlinks + in->nlat; i++) {
        const struct fabric_link *l = any_link(in, i);
        if (l->rail == r && l->ok && l->lat_p50_us > 0 && !touches_failed(in, l) &&
            !touches_culprit(c, l) && !(skip_low && i < in->nlinks && is_low(c, l)))
            v[n++] = l->lat_p50_us;
    }
    if (n >= 3) {
        /* the gap is taken across k values: up to k-1 latencies that stray into it (a hiccup of
         * a host, a queue behind a slow spine) do not close it; at 1024 nodes two links of
         * 3,200 did */
        size_t k = n / 256 + 1, t = n / 128;
        fabric_median(v, n); /* sorts */
        for (size_t i = 1; i + k < n; i++) {
            double gap = v[i + k] / v[i];
            /* two groups, each tighter than the gap between them: noise spreads evenly */
            if (i + 1 > t && n - i - k > t && gap >= 1.8 && gap > best && v[i] / v[t] < gap &&
                v[n - 1 - t] / v[i + k] < gap) {
                best = gap;
                at = sqrt(v[i] * v[i + k]);
            }
        }
    }
    free(v);
    return at;
}

/* per rail, the latency below which a peer is on the same leaf (-1: one group, unknown): told
 * by the links that were not slow first (behind a slow spine, a queue stretches the latencies of
 * the paths through it until they blur the gap, or open a wider one of their own), by all where
 * those alone form one group (every path between the leaves slow) */
static double *leaf_boundaries(struct ctx *c)
{
    int rails = c->in->rails;
    double *leaf_lat = xcalloc((size_t)rails, sizeof(*leaf_lat));

    for (int r = 0; r < rails; r++) {
        leaf_lat[r] = rail_boundary(c, r, 1);
        if (leaf_lat[r] < 0)
            leaf_lat[r] = rail_boundary(c, r, 0);
    }
    return leaf_lat;
}

/* a link of a port that reaches none of its peers (down, or on another rail's switch) */
static int touches_dead(struct ctx *c, const struct fabric_link *l)
{
    return pv(c, l->a, l->rail)->culprit_unreach || pv(c, l->b, l->rail)->culprit_unreach;
}

/* port (n, r) is no bandwidth culprit after all, its slowness the spine layer's: its
 * link.bandwidth finding withdrawn */
static void spine_slowed(struct ctx *c, int n, int r)
{
    char subject[256];

    snprintf(subject, sizeof(subject), "%s/rail%d", c->in->node_names[n], r);
    for (size_t i = 0; i < c->out->n; i++)
        if (!strcmp(c->out->v[i].check, "link.bandwidth") && !strcmp(c->out->v[i].subject, subject))
            c->out->v[i].sev = TOPO_SEV_IGNORE;
    topo_findings_compact(c->out);
    pv(c, n, r)->culprit_bw = 0;
}

/* A port on another leaf of its rail: its peers are near where its other rails' are far and far
 * where they are near (rail.cabling, a warning). spine_slow: the spine layer was named slow; a
 * port slow with every partner then votes with its latencies too, since on another leaf every
 * path of it crosses the spines: slow there is the spine's, and its link.bandwidth finding is
 * folded under the cabling one (with the spines fine, a slow port's latencies say nothing of
 * its leaf). */
static void vote_leaves(struct ctx *c, const double *leaf_lat, int spine_slow)
{
    const struct fabric_input *in = c->in;
    int rails = in->rails, nodes = in->nodes;
    unsigned char *near = xcalloc((size_t)nodes * (size_t)nodes * (size_t)rails, 1);

    /* 2 for "measured and near", 1 for "measured and far" */
    for (size_t i = 0; i < in->nlinks + in->nlat; i++) {
        const struct fabric_link *l = any_link(in, i);
        unsigned char v;
        if (!l->ok || l->lat_p50_us <= 0 || touches_failed(in, l) ||
            (spine_slow ? touches_dead(c, l) : touches_culprit(c, l)))
            continue;
        /* a latency close to the boundary votes for neither side */
        if (leaf_lat[l->rail] > 0 && l->lat_p50_us > leaf_lat[l->rail] / 1.15 &&
            l->lat_p50_us < leaf_lat[l->rail] * 1.15)
            continue;
        v = leaf_lat[l->rail] < 0 || l->lat_p50_us <= leaf_lat[l->rail] ? 2 : 1;
        near[((size_t)l->a * nodes + l->b) * rails + l->rail] = v;
        near[((size_t)l->b * nodes + l->a) * rails + l->rail] = v;
    }
    for (int n = 0; n < nodes; n++) {
        int faulty = -1;
        /* a node with a port that reaches nobody (down, or on another rail's switch) disturbs
         * its own rails' latencies (traffic and ARP through the wrong switch): its remaining
         * rails are too few to outvote each other, and are not judged */
        for (int r = 0; r < rails && faulty < 0; r++)
            if (pv(c, n, r)->culprit_unreach)
                faulty = r;
        if (faulty >= 0 && rails - 1 < 3) {
            topo_findings_unjudged(c->out,
                                   "%s: the same-leaf peers of its rails, since its rail%d port "
                                   "reaches none of its peers",
                                   in->node_names[n], faulty);
            continue;
        }
        for (int r = 0; r < rails; r++) {
            int differs = 0, agree = 0;
            /* (a culprit port has no vote: its links were left out of near above) */
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
                else if (others_near && mine == 2)
                    agree++;
            }
            /* a leaf is judged from at least 3 peers that disagree, more than agree: a port on
             * another leaf flips all its peers of one leaf; a latency or two taken on a busy
             * host is no evidence. A peer agrees where it is near on this rail and on another; one
             * far here and on another rail has no vote: it is on another leaf, or its own port is
             * astray, which tells nothing of this one (far on every rail, they outvoted a port on
             * another leaf of its rail with a near peer there: 256 x 8 campaign, scenario 60) */
            if (differs >= 3 && differs > agree && pv(c, n, r)->culprit_bw) {
                spine_slowed(c, n, r);
                finding(c, TOPO_SEV_WARN, "rail.cabling", "the same leaf peers as its other rails",
                        "other leaf peers (latency), slow with every partner",
                        "plugged into another leaf of its rail: every path of it crosses the "
                        "spine layer, which is slow; move the cable to its own leaf",
                        "%s/rail%d", n, -1, r);
            } else if (differs >= 3 && differs > agree)
                finding(c, TOPO_SEV_WARN, "rail.cabling", "the same leaf peers as its other rails",
                        "other leaf peers (latency)",
                        "plugged into another leaf of its rail: bandwidth is fine through the "
                        "spines, latency is not",
                        "%s/rail%d", n, -1, r);
        }
    }
    free(near);
}

/* With the spine layer named slow: a port slow with every partner whose every link crossed the
 * spines (far by latency) cannot be told from the spines: slow there is the spine layer's, its
 * own speed is not judged (said, never a pass; a retest against a peer of its own leaf measures
 * it), and its link.bandwidth finding is withdrawn. One with a link within its leaf stays. */
static void spine_explains(struct ctx *c, const double *leaf_lat)
{
    const struct fabric_input *in = c->in;

    for (int n = 0; n < in->nodes; n++)
        for (int r = 0; r < in->rails; r++) {
            struct port_view *v = pv(c, n, r);
            size_t far = 0, near = 0;
            if (!v->culprit_bw || leaf_lat[r] <= 0)
                continue;
            for (size_t i = 0; i < in->nlinks; i++) {
                const struct fabric_link *l = &in->links[i];
                if (l->rail != r || (l->a != n && l->b != n) || excluded(c, l) || !l->ok)
                    continue;
                if (l->lat_p50_us > leaf_lat[r] * 1.15)
                    far++;
                else
                    near++;
            }
            if (far == 0 || near > 0)
                continue;
            spine_slowed(c, n, r);
            topo_findings_unjudged(c->out,
                                   "%s/rail%d: its speed, since every link of it crossed the spine "
                                   "layer, which is slow (--retest measures it within its leaf)",
                                   in->node_names[n], r);
        }
}

/* the leaves of each rail, from the latencies: a port on another leaf (with two rails or more:
 * one rail has no other to tell it), and a slow spine layer, with what it explains */
static void report_leaf_sets(struct ctx *c)
{
    double *leaf_lat = leaf_boundaries(c);
    int spine_slow = spine_layer(c, leaf_lat);

    if (c->in->rails >= 2)
        vote_leaves(c, leaf_lat, spine_slow);
    if (spine_slow)
        spine_explains(c, leaf_lat);
    free(leaf_lat);
}

/* What a starved host explains: a link low by no more than the share of the round its ranks
 * could not run or its hosts were short of CPU (and any low link of a CPU-bound rank), or one
 * that failed by a deadline while an end's rank waited for a CPU. Pressure alone does not
 * explain a failure: a host short of CPU part of the round still answers within a deadline of
 * seconds, and a miscabled or dead port must not hide behind a busy host. */
static int inconclusive(const struct ctx *c, const struct fabric_link *l)
{
    double share;

    if (l->rank_failed)
        return 0;
    if (!l->ok) /* a rank that waited a tenth of the round or more */
        return fabric_host_share(l->cpu_a, l->wait_a, -1, l->cpu_b, l->wait_b, -1) <=
                   1 - FABRIC_HOST_WAIT &&
               (strstr(l->error, "deadline") != NULL || strstr(l->error, "timed out") != NULL);
    /* (a share of 1, no host at fault, explains nothing: below the floor and not below it) */
    share =
        fabric_host_share(l->cpu_a, l->wait_a, l->pressure_a, l->cpu_b, l->wait_b, l->pressure_b);
    return l->bw_gbps < c->ref[l->rail] && l->bw_gbps >= share * c->ref[l->rail];
}

static void report_inconclusive(struct ctx *c)
{
    const struct fabric_input *in = c->in;

    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        const char *who = l->wait_a >= l->wait_b ? in->node_names[l->a] : in->node_names[l->b];
        double wait = l->wait_a >= l->wait_b ? l->wait_a : l->wait_b;
        /* a failure is never explained by pressure alone (inconclusive) */
        double press = !l->ok ? -1 : l->pressure_a >= l->pressure_b ? l->pressure_a : l->pressure_b;
        /* the figure the rule went by: a pressure counts for at most FABRIC_HOST_PRESSURE_MAX */
        double counted = press < FABRIC_HOST_PRESSURE_MAX ? press : FABRIC_HOST_PRESSURE_MAX;
        const char *pwho =
            l->pressure_a >= l->pressure_b ? in->node_names[l->a] : in->node_names[l->b];
        char what[64];
        if (!c->incon[i])
            continue;
        if (l->ok)
            snprintf(what, sizeof(what), "%.3g Gb/s", l->bw_gbps);
        else
            snprintf(what, sizeof(what), "no answer in time");
        if (l->cpu_a >= FABRIC_HOST_CPU || l->cpu_b >= FABRIC_HOST_CPU)
            topo_findings_unjudged(c->out,
                                   "%s->%s/rail%d: %s while the rank of %s used a full CPU: "
                                   "host-limited, not judged (measure it on a quieter host)",
                                   in->node_names[l->a], in->node_names[l->b], l->rail, what,
                                   l->cpu_a >= l->cpu_b ? in->node_names[l->a]
                                                        : in->node_names[l->b]);
        else if (counted > wait)
            topo_findings_unjudged(c->out,
                                   "%s->%s/rail%d: %s while the host of %s was short of CPU "
                                   "(tasks waiting for one) %.0f%% of the round: host-limited, "
                                   "not judged",
                                   in->node_names[l->a], in->node_names[l->b], l->rail, what, pwho,
                                   100 * press);
        else
            topo_findings_unjudged(c->out,
                                   "%s->%s/rail%d: %s while the rank of %s waited for a CPU "
                                   "%.0f%% of the round: host-limited, not judged",
                                   in->node_names[l->a], in->node_names[l->b], l->rail, what, who,
                                   100 * wait);
    }
}

/* Each port's best goodput on rail r (-1: no link measured): of every link that carried data,
 * or (judged) only of those not excluded (an inconclusive link is) */
static void port_best(const struct ctx *c, int r, double *best, int judged)
{
    const struct fabric_input *in = c->in;

    for (int k = 0; k < in->nodes; k++)
        best[k] = -1;
    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        if (l->rail != r || !l->ok || l->rank_failed || (judged && excluded(c, l)))
            continue;
        if (l->bw_gbps > best[l->a])
            best[l->a] = l->bw_gbps;
        if (l->bw_gbps > best[l->b])
            best[l->b] = l->bw_gbps;
    }
}

struct pair_key {
    int rail, a, b;
    size_t i;
};

static int pair_cmp(const void *x, const void *y)
{
    const struct pair_key *p = x, *q = y;

    if (p->rail != q->rail)
        return p->rail < q->rail ? -1 : 1;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

/* A pair (sender, receiver, rail) measured more than once (a retest) is judged by its best
 * judged measurement (one that carried data before one that failed, then the faster, then the
 * latest): a link never runs faster than it can, but a busy host or a passing burst can make it
 * run slower. It supersedes the pair's other judged ones, and its inconclusive ones that were no
 * faster (one that was is kept: it is named not judged, and measured again). */
static void supersede(struct ctx *c)
{
    const struct fabric_input *in = c->in;
    struct pair_key *k = xcalloc(in->nlinks ? in->nlinks : 1, sizeof(*k));

    c->super = xcalloc(in->nlinks ? in->nlinks : 1, 1);
    for (size_t i = 0; i < in->nlinks; i++) {
        k[i].rail = in->links[i].rail;
        k[i].a = in->links[i].a;
        k[i].b = in->links[i].b;
        k[i].i = i;
    }
    qsort(k, in->nlinks, sizeof(*k), pair_cmp);
    for (size_t g = 0, end; g < in->nlinks; g = end) {
        const struct fabric_link *best = NULL;
        for (end = g; end < in->nlinks && k[end].rail == k[g].rail && k[end].a == k[g].a &&
                      k[end].b == k[g].b;
             end++) {
            const struct fabric_link *l = &in->links[k[end].i];
            if (!unjudged(c, l) &&
                (!best || l->ok > best->ok || (l->ok && best->ok && l->bw_gbps >= best->bw_gbps) ||
                 (!l->ok && !best->ok)))
                best = l;
        }
        for (size_t m = g; best && m < end; m++) {
            const struct fabric_link *l = &in->links[k[m].i];
            if (l == best || l->rank_failed)
                continue;
            if (c->incon[k[m].i] ? !l->ok || (best->ok && l->bw_gbps <= best->bw_gbps)
                                 : !unjudged(c, l)) {
                c->super[k[m].i] = 1;
                c->incon[k[m].i] = 0;
            }
        }
    }
    free(k);
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
        double *best = xcalloc((size_t)in->nodes + 1, sizeof(*best));
        size_t n = 0;
        /* each port's best link: a healthy port reaches full speed with a healthy partner, a
         * slow one with none. Their median is the rail's speed as long as most ports are
         * healthy, however often the slow ones were measured (the retests measure suspects
         * again, and a median of links would sink with them). */
        port_best(c, r, best, 0);
        for (int k = 0; k < in->nodes; k++)
            if (best[k] >= 0)
                best[n++] = best[k];
        /* low: below the map's floor, or without one below 80% of that median */
        if (in->expect_gbps && in->expect_gbps[r] > 0)
            c->ref[r] = in->expect_gbps[r];
        else
            c->ref[r] = n > 0 ? 0.8 * fabric_median(best, n) : -1;
        free(best);
    }
    c->incon = xcalloc(in->nlinks ? in->nlinks : 1, 1);
    for (size_t i = 0; i < in->nlinks; i++)
        c->incon[i] = inconclusive(c, &in->links[i]);
    supersede(c);
    classify(c);
}

/* A port no link proved: not a culprit, and not one good link (its partners all failed or were
 * slow themselves): its own health is unknown until it meets a good node */
static int unproven(const struct port_view *v)
{
    return v->edges > 0 && v->good == 0 && !v->culprit_bw && !v->culprit_unreach;
}

/* the count of suspects; c released. (A suspect is never good: each link that makes a node one
 * cleared its good, and a port culprit or unproven has such a link.) */
static size_t done_suspects(struct ctx *c, const int *suspect)
{
    size_t n = 0;

    for (int k = 0; k < c->in->nodes; k++)
        n += suspect[k] != 0;
    free(c->ref);
    free(c->pv);
    free(c->incon);
    free(c->super);
    return n;
}

/* a culprit port at end n of l explains it, as report_links judges: a failure only an
 * unreachable port, a low link a slow one too */
static int port_explains(struct ctx *c, const struct fabric_link *l, int n)
{
    const struct port_view *v = pv(c, n, l->rail);

    return v->culprit_unreach || (l->ok && v->culprit_bw);
}

/* pair (a, b) added to pairs, once */
static void add_retest_pair(struct fabric_pair **pairs, size_t *n, size_t *alloc, int a, int b)
{
    for (size_t i = 0; i < *n; i++)
        if ((*pairs)[i].a == a && (*pairs)[i].b == b)
            return;
    xgrow(pairs, alloc, *n + 1, sizeof(**pairs));
    (*pairs)[*n].a = a;
    (*pairs)[(*n)++].b = b;
}

/* What a retest pass measures again. Nodes: on pass 0 every culprit; on every pass the nodes
 * with a port no good link proved, and the ends of a bad link nobody explains where one of them
 * is unproven on its rail (a good node tells which). Pairs (when pairs is not NULL): the pair of
 * an inconclusive link, and of a bad link nobody explains whose ends are both proven on its rail
 * (only the pair itself can say whether it was the path or a passing moment). good: 2 every
 * link fine, 1 every bad link of a culprit partner and the node no suspect, else 0. */
static size_t plan(const struct fabric_input *in, int pass, int *suspect, int *good,
                   struct fabric_pair **pairs, size_t *npairs)
{
    struct ctx c = { in, NULL, NULL, NULL, NULL, NULL };
    unsigned char *loose = xcalloc((size_t)in->nodes + 1, 1);
    size_t alloc = 0;

    ctx_init(&c);
    if (pairs) {
        *pairs = NULL;
        *npairs = 0;
    }
    for (int k = 0; k < in->nodes; k++) {
        suspect[k] = 0;
        good[k] = loose[k] = 1;
    }
    for (int k = 0; k < in->nodes; k++)
        for (int r = 0; r < in->rails; r++) {
            struct port_view *v = pv(&c, k, r);
            if ((pass == 0 && (v->culprit_bw || v->culprit_unreach || v->culprit_loss)) ||
                unproven(v))
                suspect[k] = 1;
        }
    for (size_t i = 0; i < in->nlinks; i++) {
        const struct fabric_link *l = &in->links[i];
        int ea, eb;
        if (superseded(&c, l))
            continue;
        if (c.incon[i]) { /* measured on a starved host: measure it again */
            good[l->a] = good[l->b] = loose[l->a] = loose[l->b] = 0;
            if (pairs)
                add_retest_pair(pairs, npairs, &alloc, l->a, l->b);
            else
                suspect[l->a] = suspect[l->b] = 1;
            continue;
        }
        if (!wire_excluded(&c, l) && (is_lossy(&c, l) || is_marked(&c, l))) {
            good[l->a] = good[l->b] = loose[l->a] = loose[l->b] = 0;
            if (pass == 0 && !wire_explained(&c, l, is_lossy(&c, l)))
                suspect[l->a] = suspect[l->b] = 1;
        }
        if (excluded(&c, l) || (l->ok && !is_low(&c, l)))
            continue;
        good[l->a] = good[l->b] = 0;
        ea = port_explains(&c, l, l->a);
        eb = port_explains(&c, l, l->b);
        loose[l->a] &= eb;
        loose[l->b] &= ea;
        if (ea || eb)
            continue;
        if (pairs && pv(&c, l->a, l->rail)->good > 0 && pv(&c, l->b, l->rail)->good > 0)
            add_retest_pair(pairs, npairs, &alloc, l->a, l->b);
        else
            suspect[l->a] = suspect[l->b] = 1;
    }
    for (int k = 0; k < in->nodes; k++)
        good[k] = good[k] ? 2 : loose[k] && !suspect[k] ? 1 : 0;
    free(loose);
    return done_suspects(&c, suspect);
}

size_t fabric_suspects(const struct fabric_input *in, int *suspect, int *good)
{
    return plan(in, 0, suspect, good, NULL, NULL);
}

size_t fabric_retest_suspects(const struct fabric_input *in, int pass, int *suspect, int *good,
                              struct fabric_pair **pairs, size_t *npairs)
{
    return plan(in, pass, suspect, good, pairs, npairs);
}

int fabric_retest_schedule(const struct fabric_input *in, int pass, struct fabric_schedule *s,
                           size_t *nsuspects, size_t *npairs, ry_error_t *err)
{
    int *suspect = xcalloc((size_t)in->nodes + 1, sizeof(int)),
        *good = xcalloc((size_t)in->nodes + 1, sizeof(int)),
        *list = xcalloc((size_t)in->nodes + 1, sizeof(int));
    struct fabric_pair *pairs;
    struct fabric_schedule extra;
    size_t n, alloc;
    int rc = 0;

    *nsuspects = 0;
    plan(in, pass, suspect, good, &pairs, npairs);
    n = alloc = *npairs;
    for (int k = 0; k < in->nodes; k++)
        if (suspect[k])
            list[(*nsuspects)++] = k;
    /* the bisect's pairs after the pairs measured again, all packed together: as few rounds
     * as the nodes allow */
    if (*nsuspects > 0 &&
        (rc = fabric_schedule_bisect(in->nodes, list, *nsuspects, good, &extra, err)) == 0) {
        for (size_t r = 0; r < extra.n; r++)
            for (size_t i = 0; i < extra.rounds[r].n; i++) {
                xgrow(&pairs, &alloc, n + 1, sizeof(*pairs));
                pairs[n++] = extra.rounds[r].pairs[i];
            }
        fabric_schedule_free(&extra);
    }
    fabric_schedule_pack(in->nodes, pairs, n, s);
    free(pairs);
    free(suspect);
    free(good);
    free(list);
    return rc;
}

/* Outliers: per rail, each port's best goodput (a slow port is slow with every partner, a fine
 * one shows its speed with at least one); a port far below the rail's median, by robust
 * statistics (median and MAD, so the outliers do not move the yardstick), is named even when it
 * clears every floor: the slow node that passes every check but drags a large job. Far below:
 * under both 80% of the median and the median less four scaled MADs. Culprit ports (already
 * failed: too slow, unreachable, or losing packets with every partner, which is why they lag),
 * starved or excluded links and rails with fewer than four ports measured are left out. */
static int explained(const struct port_view *v)
{
    return v->culprit_bw || v->culprit_unreach || v->culprit_loss;
}

static void report_outliers(struct ctx *c)
{
    const struct fabric_input *in = c->in;
    double *best = xcalloc((size_t)in->nodes, sizeof(*best));
    double *v = xcalloc((size_t)in->nodes, sizeof(*v));

    for (int r = 0; r < in->rails; r++) {
        size_t n = 0;
        double med, mad, cut;
        port_best(c, r, best, 1);
        for (int k = 0; k < in->nodes; k++)
            if (best[k] > 0 && !explained(pv(c, k, r)))
                v[n++] = best[k];
        if (n < 4)
            continue;
        med = fabric_median(v, n);
        for (size_t i = 0; i < n; i++)
            v[i] = fabs(v[i] - med);
        mad = 1.4826 * fabric_median(v, n); /* scaled: a standard deviation for normal data */
        cut = fmin(0.8 * med, med - 4 * mad);
        for (int k = 0; k < in->nodes; k++) {
            char e[96], o[96];
            /* a port under the floor with every partner is a failure already: its own, or
             * its links' (link.path) */
            if (best[k] <= 0 || best[k] >= cut || explained(pv(c, k, r)) || best[k] < c->ref[r])
                continue;
            snprintf(e, sizeof(e), "near the rail's median %.3g Gb/s (MAD %.2g)", med,
                     mad / 1.4826);
            snprintf(o, sizeof(o), "%.3g Gb/s at best (%.0f%% below)", best[k],
                     100 * (1 - best[k] / med));
            finding(c, TOPO_SEV_WARN, "link.outlier", e, o,
                    "clears the floor but lags the other nodes: a job over many nodes runs at "
                    "its pace; check its link speed, cable and error counters",
                    "%s/rail%d", k, -1, r);
        }
    }
    free(best);
    free(v);
}

void fabric_analyze(const struct fabric_input *in, struct topo_findings *out)
{
    struct ctx c = { in, out, NULL, NULL, NULL, NULL };

    ctx_init(&c);
    for (size_t i = 0; i < in->nfailed; i++)
        finding(&c, TOPO_SEV_FAIL, "rank.failed", "finished", "died or hung (no result in time)",
                "the rank was lost: check the node (dmesg, the job's stderr)", "%s",
                in->failed_nodes[i], -1, 0);
    report_ports(&c);
    report_links(&c);
    report_wire(&c);
    report_leaf_sets(&c);
    report_outliers(&c);
    report_inconclusive(&c);
    free(c.ref);
    free(c.pv);
    free(c.incon);
    free(c.super);
}

/* A link's error from its two ends (the sender's first): when one end only saw the other hang
 * up, the other end's own error is the cause ("RDMA read: byte 4096 differs" rather than
 * "connection closed by the peer"). "" when both ends succeeded. */
const char *fabric_link_error(int ok_a, const char *err_a, int ok_b, const char *err_b)
{
    if (!ok_a && !ok_b && strstr(err_a, "closed by the peer") &&
        !strstr(err_b, "closed by the peer"))
        return err_b;
    return !ok_a ? err_a : !ok_b ? err_b : "";
}

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric/analyze.h"
#include "fabric/host.h"
#include "fabric/tcp.h"
#include "tests/tap/tap.h"

static char *names[] = { "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8" };

/* a link on rail r between a and b, bw in Gb/s (< 0: unreachable) */
static struct fabric_link L(int round, int r, int a, int b, double bw) {
    struct fabric_link l;

    memset(&l, 0, sizeof(l));
    l.round = round;
    l.rail = r;
    l.a = a;
    l.b = b;
    l.ok = bw >= 0;
    l.bw_gbps = bw;
    l.lat_p50_us = l.lat_p99_us = 30;
    l.retrans = l.errors_a = l.errors_b = 0;
    if (!l.ok)
        strcpy(l.error, "connect: No route to host");
    return l;
}

/* 4 nodes, 2 rails, neighbor rounds (0,1)(2,3) then (1,2)(3,0), every link at 0.95 Gb/s */
static void
healthy4x2(struct fabric_link *h)
{
    const int pairs[4][3] = { { 0, 0, 1 }, { 0, 2, 3 }, { 1, 1, 2 }, { 1, 3, 0 } };

    for (int p = 0; p < 4; p++)
        for (int r = 0; r < 2; r++)
            h[2 * p + r] = L(pairs[p][0], r, pairs[p][1], pairs[p][2], .95);
}

/* the number of warnings in f; *what the subject of the last, copied (so it outlives f, and a
 * message that reads it in the same call as this one reads a string that is still there) */
static size_t warnings(const struct topo_findings *f, const char **what)
{
    static char last[128];
    size_t n = 0;

    last[0] = '\0';
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].sev == TOPO_SEV_WARN) {
            n++;
            snprintf(last, sizeof(last), "%s", f->v[i].subject);
        }
    *what = last;
    return n;
}

/* the first failure of f, or an empty one */
static const struct topo_finding *first_fail(const struct topo_findings *f)
{
    static const struct topo_finding none = { TOPO_SEV_OK, (char *)"", (char *)"",
                                              (char *)"",  (char *)"", (char *)"" };

    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].sev == TOPO_SEV_FAIL)
            return &f->v[i];
    return &none;
}

static const char *fails_in(const struct fabric_input *in);

/* "check subject" of every failure, joined with ';' */
static const char *fails(const struct fabric_link *links, size_t n, int nodes, int rails,
                         const int *carrier_down, const double *expect)
{
    struct fabric_port ports[512];
    struct fabric_input in;

    for (int i = 0; i < nodes * rails; i++)
        ports[i].carrier = carrier_down && carrier_down[i] ? 0 : 1;
    in = (struct fabric_input){
        nodes, rails, names, ports, expect, links, n, NULL, 0, NULL, 0, 0, 0
    };
    return fails_in(&in);
}

/* the same of an input made by the caller (its limits, its failed nodes) */
static const char *fails_in(const struct fabric_input *in)
{
    static char buf[8192];
    struct topo_findings f = { 0 };

    fabric_analyze(in, &f);
    topo_findings_sort(&f);
    buf[0] = '\0';
    for (size_t i = 0; i < f.n; i++)
        if (f.v[i].sev != TOPO_SEV_OK) {
            strcat(buf, buf[0] ? ";" : "");
            strcat(buf, f.v[i].check);
            strcat(buf, " ");
            strcat(buf, f.v[i].subject);
        }
    topo_findings_free(&f);
    return buf;
}

/* the same with its wire counted: delivered bytes, bytes on the wire, share marked CE */
static struct fabric_link W(int round, int r, int a, int b, double bw, long long bytes,
                            long long wire, double ce) {
    struct fabric_link l = L(round, r, a, b, bw);

    l.bytes = bytes;
    l.wire_bytes = wire;
    l.ce_frac = ce;
    return l;
}

/* what the finding of this severity, check and subject observed ("none": no such finding) */
static const char *
said(const struct fabric_link *links, size_t n, int nodes, int rails, const double *expect,
     enum topo_sev sev, const char *check, const char *subject)
{
    static char buf[256];
    struct fabric_port ports[512];
    struct fabric_input in = {
        nodes, rails, names, ports, expect, links, n, NULL, 0, NULL, 0, 0, 0
    };
    struct topo_findings f = { 0 };

    for (int i = 0; i < nodes * rails; i++)
        ports[i].carrier = 1;
    fabric_analyze(&in, &f);
    snprintf(buf, sizeof(buf), "none");
    for (size_t i = 0; i < f.n; i++)
        if (f.v[i].sev == sev && !strcmp(f.v[i].check, check) && !strcmp(f.v[i].subject, subject)) {
            snprintf(buf, sizeof(buf), "%s", f.v[i].observed ? f.v[i].observed : "");
            break;
        }
    topo_findings_free(&f);
    return buf;
}

/* 8 nodes on two leaves (n1-n4, n5-n8), every pair on every rail, near and far their
 * latencies; the pairs between the leaves slow on the rails of slow (bit r); returns the count */
static size_t two_leaves(struct fabric_link *v, int rails, double near, double far,
                         unsigned long long slow)
{
    size_t k = 0;

    for (int a = 0; a < 8; a++)
        for (int b = a + 1; b < 8; b++)
            for (int r = 0; r < rails; r++) {
                int across = a / 4 != b / 4;
                v[k] = L((int)k / rails, r, a, b, across && (slow >> r & 1) ? .2 : .95);
                v[k].lat_p50_us = v[k].lat_p99_us = across ? far : near;
                k++;
            }
    return k;
}

/* the names n1..n64, for the larger fabrics */
static char **names64(void)
{
    static char buf[64][8];
    static char *nm[64];

    for (int i = 0; i < 64; i++) {
        snprintf(buf[i], sizeof(buf[i]), "n%d", i + 1);
        nm[i] = buf[i];
    }
    return nm;
}

/* Every pair of 64 nodes on 3 rails, bandwidth fine, each latency lat(a, b, r) (links in the
 * order a < b, then rail) analyzed: the rail.cabling warnings, how many and *what the last one's
 * port. */
struct lat64 {
    double (*lat)(struct lat64 *, int a, int b, int r);
    int nhigh, nlow, n055, n20, other_leaf, tie;
    double high, low, stray;
};

static size_t analyze64(struct lat64 *m, const char **what)
{
    size_t nb = 64 * 63 / 2 * 3, k = 0, nw;
    struct fabric_link *v = calloc(nb, sizeof(*v));
    struct fabric_port ports[64 * 3];
    struct topo_findings f = { 0 };

    for (int i = 0; i < 64 * 3; i++)
        ports[i].carrier = 1;
    for (int a = 0; a < 64; a++)
        for (int b = a + 1; b < 64; b++)
            for (int r = 0; r < 3; r++) {
                v[k] = L((int)k / 3, r, a, b, .95);
                v[k].lat_p50_us = v[k].lat_p99_us = m->lat(m, a, b, r);
                k++;
            }
    struct fabric_input in = { 64, 3, names64(), ports, NULL, v, k, NULL, 0, NULL, 0, 0, 0 };
    fabric_analyze(&in, &f);
    nw = warnings(&f, what);
    topo_findings_free(&f);
    free(v);
    return nw;
}

/* two leaves per rail (n1..n48, n49..n64), 1.2 us within a leaf and 2.7 us across (2,016
 * latencies a rail: 15 of them may stray beyond either group); n1's rail-1 port on another rail's
 * leaf, 3.0 us from every peer of its rail. nhigh of n1's rail-1 pings at high us (queued), nlow
 * rail-1 latencies within leaf 0 (not n1's) at low us. */
static double astray_lat(struct lat64 *m, int a, int b, int r)
{
    if (r == 1 && a == 0)
        return m->nhigh-- > 0 ? m->high : 3.0;
    if (r == 1 && b < 48 && m->nlow-- > 0)
        return m->low;
    return a / 48 == b / 48 ? 1.2 : 2.7;
}

static size_t leaves_astray(int nhigh, double high, int nlow, double low, const char **what)
{
    struct lat64 m = { .lat = astray_lat, .nhigh = nhigh, .high = high, .nlow = nlow, .low = low };

    return analyze64(&m, what);
}

/* two leaves (n1-n32, n33-n64), 0.5 us within a leaf and 2.0 between (a gap of 4: the boundary is
 * 1.0 us exactly, and a rail of 1,960 latencies takes its gap across 8 of them, so 7 may stray
 * into it). n1's rail-1 port reads near to 3 peers of the other leaf (n33-n35: they differ) and
 * was measured on rail 1 with 4 more peers only, each at latency stray: n2-n5 (its own leaf) or
 * n36-n39 (the other one). With tie, two of rail 1's latencies within the leaves read 0.55 and
 * all but two of those between read 2.2: the gap of 4 is then also 0.55 to 2.2 (a boundary of
 * 1.1), and the first of the two widest gaps is the one. */
static double band_lat(struct lat64 *m, int a, int b, int r)
{
    int across = a / 32 != b / 32;

    if (r == 1 && a == 0) {
        int lo = m->other_leaf == 1 ? 35 : 1;
        if (b >= 32 && b < 35) /* 2: no peer of the other leaf measured */
            return m->other_leaf == 2 ? -1 : 0.5;
        return b >= lo && b < lo + 4 ? m->stray : -1;
    }
    if (r == 1 && m->tie && !across && m->n055 < 2)
        return m->n055++, 0.55;
    if (r == 1 && m->tie && across)
        return m->n20++ < 2 ? 2.0 : 2.2;
    return across ? 2.0 : 0.5;
}

static size_t band_case(double stray, int other_leaf, int tie, const char **what)
{
    struct lat64 m = { .lat = band_lat, .stray = stray, .other_leaf = other_leaf, .tie = tie };

    return analyze64(&m, what);
}

/* 8 nodes on two leaves on 3 rails (3 and 60 us), rail 0's latencies only those of n1 to the
 * peers lat gives (-1: none): the boundary from 3 or 4 latencies. Returns the warnings. */
static size_t few_on_rail0(const double lat[8], const char **what)
{
    struct fabric_link v[28 * 3];
    struct fabric_port ports[8 * 3];
    struct topo_findings f = { 0 };
    size_t k = two_leaves(v, 3, 3, 60, 0), nw;

    for (int i = 0; i < 8 * 3; i++)
        ports[i].carrier = 1;
    for (size_t i = 0; i < k; i++)
        if (v[i].rail == 0)
            v[i].lat_p50_us = v[i].lat_p99_us = v[i].a == 0 ? lat[v[i].b] : -1;
    struct fabric_input in = { 8, 3, names, ports, NULL, v, k, NULL, 0, NULL, 0, 0, 0 };
    fabric_analyze(&in, &f);
    nw = warnings(&f, what);
    topo_findings_free(&f);
    return nw;
}

/* The leaves from the fewest latencies, and each side of the gap spread less than it: n1's
 * rail-0 latencies to n5 and n6 (the other leaf on rails 1 and 2) below a gap, to n2 (and n3)
 * above it, is its rail-0 port on the other leaf; without a gap every peer is near */
static void leaf_few_edges(void)
{
    const char *what = "";
    const struct {
        double lat[8];
        size_t warned;
        const char *why;
    } c[] = {
        { { -1, 60, -1, -1, 3, 3, -1, -1 }, 1, "3 latencies, 3 3 60: a gap, n1/rail0 warned" },
        { { -1, 12, -1, -1, 3, 6, -1, -1 },
          0,
          "3 6 12: the lower side spread as wide as the gap (2): no gap, nothing warned" },
        { { -1, 11.9, -1, -1, 3, 6, -1, -1 },
          0,
          "3 6 11.9: the lower side spread wider than the gap: nothing warned" },
        { { -1, 2, 4, -1, 1, 1, -1, -1 },
          0,
          "1 1 2 4: the upper side spread as wide as the gap (2): no gap, nothing warned" },
        { { -1, 2.1, 4, -1, 1, 1, -1, -1 },
          1,
          "1 1 2.1 4: the upper side tighter than the gap (1.9 < 2.1): n1/rail0 warned" },
    };

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        size_t nw = few_on_rail0(c[i].lat, &what);
        ok(nw == c[i].warned && (!nw || !strcmp(what, "n1/rail0")), "leaf gap: %s (%zu, %s)",
           c[i].why, nw, nw ? what : "");
    }
}

/* the one not-judged line of a fabric of 4 nodes on 2 rails whose n1->n2 rail-1 link is l */
static const char *unjudged_of(const struct fabric_link *l, const double *expect)
{
    static char buf[256];
    struct fabric_link x[8] = {
        L(0, 0, 0, 1, .95), *l,
        L(0, 0, 2, 3, .95), L(0, 1, 2, 3, .95),
        L(1, 0, 1, 2, .95), L(1, 1, 1, 2, .95),
        L(1, 0, 3, 0, .95), L(1, 1, 3, 0, .95),
    };
    struct fabric_port ports[8];
    struct topo_findings f = { 0 };
    struct fabric_input in = { 4, 2, names, ports, expect, x, 8, NULL, 0, NULL, 0, 0, 0 };

    for (int i = 0; i < 8; i++)
        ports[i].carrier = 1;
    fabric_analyze(&in, &f);
    snprintf(buf, sizeof(buf), "%s",
             f.nunjudged == 1 ? f.unjudged[0]
             : f.nunjudged    ? "several"
                              : "none");
    topo_findings_free(&f);
    return buf;
}

/* A link low by what its starved host explains is not judged: the share of the floor the host
 * left it, at its edge; and whom the line names where both ends are alike */
static void host_edges(void)
{
    const double expect[2] = { 0.9, 0.9 };
    struct fabric_link l = L(0, 1, 0, 1, 0.45);

    l.wait_a = 0.5; /* half the round: the floor's half, 0.45, is what the host explains */
    is_str(unjudged_of(&l, expect),
           "n1->n2/rail1: 0.45 Gb/s while the rank of n1 waited for a CPU 50% of the round: "
           "host-limited, not judged",
           "host: a link at the share of the floor its host left it exactly: not judged");
    l.bw_gbps = 0.449;
    is_str(unjudged_of(&l, expect), "none", "host: ...just below that share: judged");
    is_str(
        fails((struct fabric_link[8]){ L(0, 0, 0, 1, .95), l, L(0, 0, 2, 3, .95),
                                       L(0, 1, 2, 3, .95), L(1, 0, 1, 2, .95), L(1, 1, 1, 2, .95),
                                       L(1, 0, 3, 0, .95), L(1, 1, 3, 0, .95) },
              8, 4, 2, NULL, expect),
        "link.path n1<->n2/rail1", "host: ...and named, as the pair");
    l = L(0, 1, 0, 1, 0.5);
    l.wait_a = l.wait_b = 0.45; /* both ranks waited as long: the sender is named */
    is_str(unjudged_of(&l, expect),
           "n1->n2/rail1: 0.5 Gb/s while the rank of n1 waited for a CPU 45% of the round: "
           "host-limited, not judged",
           "host: both ranks waited as long: the sender named");
    l = L(0, 1, 0, 1, 0.5);
    l.wait_a = l.wait_b = 0.02;
    l.pressure_a = l.pressure_b = 0.45; /* both hosts as short of CPU: the sender's named */
    is_str(unjudged_of(&l, expect),
           "n1->n2/rail1: 0.5 Gb/s while the host of n1 was short of CPU (tasks waiting for one) "
           "45% of the round: host-limited, not judged",
           "host: both hosts as short of CPU: the sender's named");
    l.pressure_a = l.pressure_b = 0.5; /* at the cap exactly */
    is_str(unjudged_of(&l, expect),
           "n1->n2/rail1: 0.5 Gb/s while the host of n1 was short of CPU (tasks waiting for one) "
           "50% of the round: host-limited, not judged",
           "host: ...50%%, the cap exactly");
    l = L(0, 1, 0, 1, 0.5);
    l.cpu_a = 0.9; /* a full CPU, exactly */
    is_str(unjudged_of(&l, expect),
           "n1->n2/rail1: 0.5 Gb/s while the rank of n1 used a full CPU: host-limited, not judged "
           "(measure it on a quieter host)",
           "host: the sender's rank at 90%% of a CPU exactly: CPU-bound");
    l.cpu_a = 0;
    l.cpu_b = 0.9;
    is_str(unjudged_of(&l, expect),
           "n1->n2/rail1: 0.5 Gb/s while the rank of n2 used a full CPU: host-limited, not judged "
           "(measure it on a quieter host)",
           "host: ...the receiver's: CPU-bound, the receiver named");
    l.cpu_a = l.cpu_b = 0.95;
    is_str(unjudged_of(&l, expect),
           "n1->n2/rail1: 0.5 Gb/s while the rank of n1 used a full CPU: host-limited, not judged "
           "(measure it on a quieter host)",
           "host: both ranks as CPU-bound: the sender named");
    l.cpu_a = l.cpu_b = 0.89;
    is_str(unjudged_of(&l, expect), "none", "host: both at 89%% of a CPU: judged");
    l = L(0, 1, 0, 1, 0.5);
    l.wait_b = 0.45;
    l.pressure_a = 0.45; /* the rank's wait and the host's pressure alike: the wait is said */
    is_str(unjudged_of(&l, expect),
           "n1->n2/rail1: 0.5 Gb/s while the rank of n2 waited for a CPU 45% of the round: "
           "host-limited, not judged",
           "host: a rank's wait as long as a host's pressure: the wait said");
    l.pressure_a = 0.46;
    is_str(unjudged_of(&l, expect),
           "n1->n2/rail1: 0.5 Gb/s while the host of n1 was short of CPU (tasks waiting for one) "
           "46% of the round: host-limited, not judged",
           "host: ...the pressure a little longer: the pressure said");
}

/* Suspects for a retest: a port no link proved (its one link low, its partner the culprit) is
 * one; a port that measured nothing is not */
static void suspect_edges(void)
{
    const double expect[1] = { 0.9 };
    /* n2 slow with n1 and n3 (a culprit); n1 measured once, with n2; n3 fine with n4; n5 none */
    struct fabric_link x[4] = { L(0, 0, 0, 1, 0.29), L(1, 0, 1, 2, 0.29), L(2, 0, 2, 3, .95),
                                L(3, 0, 3, 2, .95) };
    struct fabric_port ports[5];
    struct fabric_input in = { 5, 1, names, ports, expect, x, 4, NULL, 0, NULL, 0, 0, 0 };
    int suspect[5], good[5];

    for (int i = 0; i < 5; i++)
        ports[i].carrier = 1;
    fabric_suspects(&in, suspect, good);
    ok(suspect[0] && suspect[1] && !suspect[2] && !suspect[3] && !suspect[4],
       "suspects: the culprit n2 and n1, proven by no link; not n5, which measured nothing "
       "(%d %d %d %d %d)",
       suspect[0], suspect[1], suspect[2], suspect[3], suspect[4]);
    fabric_retest_suspects(&in, 1, suspect, good, NULL, NULL);
    ok(suspect[0] && !suspect[1] && !suspect[4],
       "suspects, a later pass: n1, still unproven; not the culprit n2, explained; not n5 "
       "(%d %d %d %d %d)",
       suspect[0], suspect[1], suspect[2], suspect[3], suspect[4]);
    /* the wire: 4 nodes on a ring, every sender counting its bytes on the wire */
    {
        struct fabric_link w[4] = {
            W(0, 0, 0, 1, .95, 1000000, 1000000, 0),
            W(0, 0, 2, 3, .95, 1000000, 1000000, 0),
            W(1, 0, 1, 2, .95, 1000000, 1000000, 0),
            W(1, 0, 3, 0, .95, 1000000, 1000000, 0),
        };
        struct fabric_input win = { 4, 1, names, ports, expect, w, 4, NULL, 0, NULL, 0, 0, 0 };
        is_int((long long)fabric_suspects(&win, suspect, good), 0, "suspects: a clean wire: none");
        ok(good[0] && good[1] && good[2] && good[3], "...every node good");
        w[1].wire_bytes = 1010000; /* n3->n4 resent 1%: a pair neither end explains */
        is_int((long long)fabric_suspects(&win, suspect, good), 2,
               "suspects: one lossy link: two suspects");
        ok(suspect[2] && suspect[3] && !good[2] && !good[3] && good[0] && good[1],
           "...its two ends, neither good; n1 and n2 good (%d%d%d%d, %d%d%d%d)", suspect[0],
           suspect[1], suspect[2], suspect[3], good[0], good[1], good[2], good[3]);
        w[2].wire_bytes = 1010000; /* and n2->n3: n3 lossy with both partners, the culprit */
        is_int((long long)fabric_suspects(&win, suspect, good), 1,
               "suspects: a port lossy with every partner: one suspect");
        ok(suspect[2] && !good[1] && !good[2] && !good[3] && good[0],
           "...n3; its partners not good, not suspects (%d%d%d%d, %d%d%d%d)", suspect[0],
           suspect[1], suspect[2], suspect[3], good[0], good[1], good[2], good[3]);
        w[1].wire_bytes = w[2].wire_bytes = 1000000;
        w[1].ce_frac = 0.05; /* n3->n4 marked, without loss */
        is_int((long long)fabric_suspects(&win, suspect, good), 2,
               "suspects: one link marked past the limit: two suspects");
        ok(suspect[2] && suspect[3] && good[0] && good[1], "...its two ends");
    }
}

/* A pair measured more than once (a retest) is judged by its best judged measurement: the
 * same sender, receiver and rail only; a failure or a slower one is superseded, an
 * inconclusive one only where it was no faster */
static void supersede_edges(void)
{
    const double expect[2] = { 0.9, 0.9 };
    /* 4 nodes, 2 rails, neighbor rounds, then x[8] the retest of one pair */
    struct fabric_link h[8];
    struct fabric_link x[10];
    struct fabric_port ports[8];
    struct fabric_input in = { 4, 2, names, ports, expect, x, 9, NULL, 0, NULL, 0, 0, 0 };
    struct topo_findings f;

    healthy4x2(h);
    for (int i = 0; i < 8; i++)
        ports[i].carrier = 1;
    memcpy(x, h, sizeof(h));
    x[0].bw_gbps = 0.29; /* n1->n2 rail 0 low once... */
    x[8] = L(2, 0, 0, 1, .95);
    is_str(fails(x, 9, 4, 2, NULL, expect), "",
           "supersede: a pair low once, fine when measured again: no finding");
    x[8].bw_gbps = 0.3; /* ...and low again, a little faster */
    is_str(fails(x, 9, 4, 2, NULL, expect), "link.path n1<->n2/rail0",
           "supersede: low both times: the pair named once");
    x[8].bw_gbps = 0.29; /* equal */
    is_str(fails(x, 9, 4, 2, NULL, expect), "link.path n1<->n2/rail0",
           "supersede: low both times, equal: named once");
    x[8] = L(2, 0, 1, 0, .95); /* the other direction is a link of its own */
    is_str(fails(x, 9, 4, 2, NULL, expect), "link.path n1<->n2/rail0",
           "supersede: the reverse direction fine: the low one still named");
    x[8] = L(2, 1, 0, 1, .95); /* the same pair on the other rail */
    is_str(fails(x, 9, 4, 2, NULL, expect), "link.path n1<->n2/rail0",
           "supersede: the other rail fine: the low one still named");
    x[8] = L(2, 0, 0, 2, .95); /* the same sender, another receiver */
    is_str(fails(x, 9, 4, 2, NULL, expect), "link.path n1<->n2/rail0",
           "supersede: another receiver fine: the low one still named");
    /* a failure and a success of the same pair, in either order */
    memcpy(x, h, sizeof(h));
    x[0] = L(0, 0, 0, 1, -1);
    x[8] = L(2, 0, 0, 1, .95);
    is_str(fails(x, 9, 4, 2, NULL, expect), "", "supersede: failed once, then fine: no finding");
    x[0] = L(0, 0, 0, 1, .95);
    x[8] = L(2, 0, 0, 1, -1);
    is_str(fails(x, 9, 4, 2, NULL, expect), "", "supersede: fine, then failed: no finding");
    x[0] = L(0, 0, 0, 1, .95);
    x[8] = L(2, 0, 0, 1, 0.29); /* fine, then slower: the faster stands, whichever came last */
    is_str(fails(x, 9, 4, 2, NULL, expect), "", "supersede: fine, then low: no finding");
    x[0] = L(0, 0, 0, 1, 0);
    x[8] = L(2, 0, 0, 1, -1); /* moved nothing, then failed (a figure of 0 as well) */
    x[8].bw_gbps = 0;
    is_str(fails(x, 9, 4, 2, NULL, expect), "link.path n1<->n2/rail0",
           "supersede: 0 Gb/s, then failed with a figure of 0: the measurement stands (slow, "
           "not unreachable)");
    x[8] = L(2, 0, 0, 1, -1);
    x[0] = L(0, 0, 0, 1, -1);
    is_str(fails(x, 9, 4, 2, NULL, expect), "link.unreachable n1<->n2/rail0",
           "supersede: failed both times: unreachable, named once");
    x[8].wait_b = 0.6; /* the second failure inconclusive: the first stands */
    strcpy(x[8].error, "no answer before the deadline");
    is_str(fails(x, 9, 4, 2, NULL, expect), "link.unreachable n1<->n2/rail0",
           "supersede: failed, then no answer while starved: unreachable as the first said");
    /* inconclusive measurements: a judged one supersedes those no faster */
    memcpy(x, h, sizeof(h));
    x[0].bw_gbps = 0.29;       /* judged low... */
    x[8] = L(2, 0, 0, 1, 0.7); /* ...then 0.7 while n2's rank waited 35%: inconclusive, */
    x[8].wait_b = 0.35;        /* faster: kept (not judged, and measured again) */
    memset(&f, 0, sizeof(f));
    fabric_analyze(&in, &f);
    ok(f.nunjudged == 1 && strstr(f.unjudged[0], "n1->n2/rail0: 0.7 Gb/s"),
       "supersede: an inconclusive measurement faster than the judged one is named not judged: "
       "%s",
       f.nunjudged ? f.unjudged[0] : "(none)");
    topo_findings_free(&f);
    is_str(fails(x, 9, 4, 2, NULL, expect), "link.path n1<->n2/rail0",
           "supersede: ...and the judged one stands");
    x[8].bw_gbps = 0.25; /* slower than the judged 0.29, waited 80%: superseded */
    x[8].wait_b = 0.8;
    memset(&f, 0, sizeof(f));
    fabric_analyze(&in, &f);
    ok(f.nunjudged == 0,
       "supersede: an inconclusive measurement slower than the judged one is "
       "not named (%zu)",
       f.nunjudged);
    topo_findings_free(&f);
    x[8].bw_gbps = 0.29; /* equal: superseded too */
    memset(&f, 0, sizeof(f));
    fabric_analyze(&in, &f);
    ok(f.nunjudged == 0, "supersede: ...equal to it: not named either (%zu)", f.nunjudged);
    topo_findings_free(&f);
    x[0] = L(0, 0, 0, 1, 0.7); /* inconclusive first, then judged fine */
    x[0].wait_b = 0.35;
    x[8] = L(2, 0, 0, 1, .95);
    memset(&f, 0, sizeof(f));
    fabric_analyze(&in, &f);
    ok(f.nunjudged == 0 && f.nfail == 0,
       "supersede: inconclusive, then judged fine: judged, nothing named (%zu not judged, %zu "
       "failed)",
       f.nunjudged, f.nfail);
    topo_findings_free(&f);
    /* inconclusive both times: not judged, both named */
    x[8] = L(2, 0, 0, 1, 0.6);
    x[8].wait_b = 0.45;
    memset(&f, 0, sizeof(f));
    fabric_analyze(&in, &f);
    ok(f.nunjudged == 2 && f.nfail == 0,
       "supersede: inconclusive both times: both not judged (%zu), nothing failed (%zu)",
       f.nunjudged, f.nfail);
    topo_findings_free(&f);
    /* a superseded measurement's error counters still count */
    memcpy(x, h, sizeof(h));
    x[0].bw_gbps = 0.29;
    x[0].errors_a = 7;
    x[8] = L(2, 0, 0, 1, .95);
    is_str(fails(x, 9, 4, 2, NULL, expect), "link.errors n1<->n2/rail0",
           "supersede: the slow measurement's rising counters still named (a warning)");
    /* a slow port measured again stays slow: n2's rail 1, retested against n4 */
    memcpy(x, h, sizeof(h));
    x[1].bw_gbps = x[5].bw_gbps = 0.29;
    x[8] = L(2, 1, 3, 1, 0.3);
    is_str(fails(x, 9, 4, 2, NULL, expect), "link.bandwidth n2/rail1",
           "supersede: a slow port retested against a good node: still named");
    /* the retest's plan: a pair low once between proven ends is measured again as a pair... */
    {
        struct fabric_schedule s;
        size_t ns, np;
        ry_error_t err;
        int rc;
        memcpy(x, h, sizeof(h));
        x[6].bw_gbps = 0.29; /* n4->n1 rail 0 */
        in.nlinks = 8;
        rc = fabric_retest_schedule(&in, 0, &s, &ns, &np, &err);
        ok(rc == 0 && ns == 0 && np == 1 && s.n == 1 && s.rounds[0].n == 1 &&
               s.rounds[0].pairs[0].a == 3 && s.rounds[0].pairs[0].b == 0,
           "retest: a pair low once between proven ends: n4->n1 measured again, no suspect "
           "(%zu suspects, %zu pairs, %zu rounds)",
           ns, np, s.n);
        fabric_schedule_free(&s);
        /* ...and once it was fine, nothing more */
        x[8] = L(2, 0, 3, 0, .95);
        in.nlinks = 9;
        rc = fabric_retest_schedule(&in, 1, &s, &ns, &np, &err);
        ok(rc == 0 && ns == 0 && np == 0 && s.n == 0,
           "retest: ...fine when measured again: nothing left (%zu suspects, %zu pairs, %zu "
           "rounds)",
           ns, np, s.n);
        fabric_schedule_free(&s);
        /* a slow port: its node against the best-proven node, n4 (every link fine) before n1
         * and n3 (slow only with it) */
        memcpy(x, h, sizeof(h));
        x[1].bw_gbps = x[5].bw_gbps = 0.29;
        in.nlinks = 8;
        rc = fabric_retest_schedule(&in, 0, &s, &ns, &np, &err);
        ok(rc == 0 && ns == 1 && np == 0 && s.n == 1 && s.rounds[0].n == 1 &&
               s.rounds[0].pairs[0].a == 3 && s.rounds[0].pairs[0].b == 1,
           "retest: a slow port's node n2 against n4, the node with only good links");
        fabric_schedule_free(&s);
        /* no node good: the suspects are not retested, and the reason said */
        memcpy(x, h, sizeof(h));
        for (int i = 0; i < 8; i++)
            x[i].bw_gbps = 0.29;
        rc = fabric_retest_schedule(&in, 0, &s, &ns, &np, &err);
        ok(rc < 0 && ns == 4 && s.n == 0 && strstr(err.text, "known-good"),
           "retest: every link low: 4 suspects, no good node to pair them with (%s)", err.text);
        fabric_schedule_free(&s);
        /* pairs measured again: each once, however many rails found it doubtful; two pairs
         * with the same sender, or the same receiver, both */
        memcpy(x, h, sizeof(h));
        x[6].bw_gbps = x[7].bw_gbps = 0.29; /* n4->n1 low on both rails, the ends proven */
        rc = fabric_retest_schedule(&in, 0, &s, &ns, &np, &err);
        ok(rc == 0 && ns == 0 && np == 1 && s.n == 1 && s.rounds[0].n == 1,
           "retest: a pair low on both rails: measured again once (%zu pairs, %zu rounds)", np,
           s.n);
        fabric_schedule_free(&s);
        memcpy(x, h, sizeof(h));
        x[6].bw_gbps = 0.6; /* n4->n1 rail 0 inconclusive (its receiver waited half the round) */
        x[6].wait_b = 0.5;
        x[8] = L(2, 0, 3, 2, 0.6); /* and n4->n3 alike: the same sender */
        x[8].wait_b = 0.5;
        in.nlinks = 9;
        rc = fabric_retest_schedule(&in, 0, &s, &ns, &np, &err);
        ok(rc == 0 && ns == 0 && np == 2 && s.n == 2,
           "retest: two inconclusive links of one sender: both pairs, in two rounds (%zu suspects, "
           "%zu pairs, %zu rounds)",
           ns, np, s.n);
        fabric_schedule_free(&s);
        x[8] = L(2, 0, 1, 0, 0.6); /* n2->n1 instead: the same receiver */
        x[8].wait_b = 0.5;
        rc = fabric_retest_schedule(&in, 0, &s, &ns, &np, &err);
        ok(rc == 0 && ns == 0 && np == 2 && s.n == 2,
           "retest: two inconclusive links into one receiver: both pairs (%zu suspects, %zu "
           "pairs, %zu rounds)",
           ns, np, s.n);
        fabric_schedule_free(&s);
        /* a failed link at a slow port: the slow port does not explain it (link.unreachable
         * is named), so it is retested: n4 and n2, whose rail 1 no good link proved */
        memcpy(x, h, sizeof(h));
        x[1].bw_gbps = x[5].bw_gbps = 0.29; /* n2's rail 1 slow with n1 and n3 */
        x[8] = L(2, 1, 3, 1, -1);           /* n4->n2 rail 1 failed */
        in.nlinks = 9;
        ok(strstr(fails(x, 9, 4, 2, NULL, expect), "link.unreachable n2<->n4/rail1") ||
               strstr(fails(x, 9, 4, 2, NULL, expect), "link.unreachable n4<->n2/rail1"),
           "a failed link at a slow port: named unreachable (%s)", fails(x, 9, 4, 2, NULL, expect));
        {
            struct fabric_pair *pairs = NULL;
            int suspect[4], good[4];
            is_int((long long)fabric_retest_suspects(&in, 1, suspect, good, &pairs, &np), 2,
                   "retest, pass 1: the failed link at a slow port: two suspects");
            ok(np == 0 && suspect[1] && suspect[3], "...n2 and n4, no pair (%zu)", np);
            free(pairs);
        }
        in.nlinks = 8;
    }
    /* a lossy measurement superseded by a clean one of the same pair: nothing to retest */
    {
        const long long M = 1000000;
        struct fabric_link w[5] = {
            W(0, 0, 0, 1, .95, M, M, 0), W(0, 0, 2, 3, .94, M, 1010000, 0),
            W(1, 0, 1, 2, .95, M, M, 0), W(1, 0, 3, 0, .95, M, M, 0),
            W(2, 0, 2, 3, .95, M, M, 0),
        };
        struct fabric_input win = { 4, 1, names, ports, expect, w, 5, NULL, 0, NULL, 0, 0, 0 };
        int suspect[4], good[4];
        is_int((long long)fabric_suspects(&win, suspect, good), 0,
               "suspects: n3->n4 lossy once, clean and faster when measured again: none");
        ok(good[0] == 2 && good[1] == 2 && good[2] == 2 && good[3] == 2,
           "...every node good (%d %d %d %d)", good[0], good[1], good[2], good[3]);
        /* a low link nobody explains between n1, proven by no link (its only one), and n2,
         * proven only by a fast link that resent (which clears no partner): the pair is not
         * measured again, its ends are bisected (n1 needs a good node), either direction */
        for (int dir = 0; dir < 2; dir++) {
            struct fabric_pair *pairs = NULL;
            size_t np = 0;
            w[0] = dir ? W(0, 0, 1, 0, .29, M, M, 0) : W(0, 0, 0, 1, .29, M, M, 0);
            w[1] = W(0, 0, 2, 3, .95, M, M, 0);
            w[2] = W(1, 0, 1, 2, .95, M, 1010000, 0);
            win.nlinks = 3;
            fabric_retest_suspects(&win, 0, suspect, good, &pairs, &np);
            ok(np == 0 && suspect[0] && suspect[1],
               "retest: %s low, n1 unproven: no pair measured again (%zu), both ends bisected "
               "(%d %d)",
               dir ? "n2->n1" : "n1->n2", np, suspect[0], suspect[1]);
            free(pairs);
        }
    }
}

/* 8 nodes on one rail, rounds (i, i+1) and (i, i+2), each link at its slower end's speed sp */
static size_t ring8(struct fabric_link *o, const double *sp)
{
    size_t n = 0;

    for (int i = 0; i < 8; i++) {
        o[n] = L(0, 0, i, (i + 1) % 8, 0);
        o[n + 1] = L(1, 0, i, (i + 2) % 8, 0);
        for (int j = 0; j < 2; j++, n++)
            o[n].bw_gbps = sp[o[n].a] < sp[o[n].b] ? sp[o[n].a] : sp[o[n].b];
    }
    return n;
}

/* Outliers at their edges: a warning, with the median and the MAD it went by; the cut at 80% of
 * the median and at the median less four scaled MADs, each where it is the lower; four ports
 * measured, the fewest judged; slow ports (failures) left out of the median */
static void outlier_edges(void)
{
    const double lo[1] = { 0.5 };
    struct fabric_link o[16];
    size_t n;
    /* a spread of 0.05 about 1.0: four scaled MADs make 0.7035, under 80% (the cut) */
    double sp[8] = { 1.05, 1.05, 1.05, 0.7, 0.95, 1, 0.95, 1 };

    n = ring8(o, sp);
    is_str(said(o, n, 8, 1, lo, TOPO_SEV_WARN, "link.outlier", "n4/rail0"),
           "0.7 Gb/s at best (30% below)",
           "outlier: under the median less four scaled MADs (0.7035): a warning");
    {
        struct fabric_port ports[8];
        struct topo_findings f = { 0 };
        struct fabric_input in = { 8, 1, names, ports, lo, o, n, NULL, 0, NULL, 0, 0, 0 };
        for (int i = 0; i < 8; i++)
            ports[i].carrier = 1;
        const char *e = "none";
        fabric_analyze(&in, &f);
        for (size_t i = 0; i < f.n; i++)
            if (f.v[i].sev == TOPO_SEV_WARN)
                e = f.v[i].expected ? f.v[i].expected : "(null)";
        ok(f.nfail == 0 && f.nwarn == 1 && !strcmp(e, "near the rail's median 1 Gb/s (MAD 0.05)"),
           "outlier: ...near the median 1 Gb/s, MAD 0.05 (%zu failures; %s)", f.nfail, e);
        topo_findings_free(&f);
    }
    sp[3] = 0.71;
    n = ring8(o, sp);
    is_str(fails(o, n, 8, 1, NULL, lo), "", "outlier: ...0.71, over that cut: none");
    /* no spread: the cut is 80% of the median, 0.8 exactly: at it, not an outlier */
    for (int i = 0; i < 8; i++)
        sp[i] = 1;
    sp[3] = 0.8;
    n = ring8(o, sp);
    is_str(fails(o, n, 8, 1, NULL, lo), "", "outlier: at 80%% of the median exactly: none");
    sp[3] = 0.79;
    n = ring8(o, sp);
    is_str(fails(o, n, 8, 1, NULL, lo), "link.outlier n4/rail0",
           "outlier: ...just under it: named");
    /* n1 and n5 slow with every partner (failures, 0.3): out of the median, which the others
     * make 0.95 (MAD 0.05): n2 at 0.6 is under its cut (0.6535); counted in, they would make
     * it 0.9 and the cut 0.307 */
    {
        const double s2[8] = { 0.3, 0.6, 0.9, 0.9, 0.3, 1, 1, 1 };
        n = ring8(o, s2);
        is_str(fails(o, n, 8, 1, NULL, lo),
               "link.bandwidth n1/rail0;link.bandwidth n5/rail0;link.outlier n2/rail0",
               "outlier: two slow ports named, left out of the median: n2 an outlier");
    }
    /* four ports measured, the fewest that are judged */
    {
        struct fabric_link f4[4] = { L(0, 0, 0, 1, 1), L(0, 0, 2, 3, 0.7), L(1, 0, 1, 2, 1),
                                     L(1, 0, 3, 0, 0.7) };
        is_str(fails(f4, 4, 4, 1, NULL, lo), "link.outlier n4/rail0",
               "outlier: four ports measured: judged, n4 named");
    }
}

/* Rails to compare: with two, a port on the other leaf is told from its one other rail (which
 * of the two is moved, the latencies cannot say: both are warned about); with one there is no
 * other, and a port that reaches nobody leaves nothing unjudged to say */
static void leaf_rails_edges(void)
{
    struct fabric_link v[28 * 2];
    struct fabric_port ports[8 * 2];
    struct topo_findings f = { 0 };
    const char *what = "";
    size_t k = two_leaves(v, 2, 3, 60, 0), nw;

    for (int i = 0; i < 8 * 2; i++)
        ports[i].carrier = 1;
    for (size_t i = 0; i < k; i++) /* n1's rail-1 port on the other leaf */
        if (v[i].a == 0 && v[i].rail == 1)
            v[i].lat_p50_us = v[i].lat_p99_us = v[i].b < 4 ? 60 : 3;
    struct fabric_input in = { 8, 2, names, ports, NULL, v, k, NULL, 0, NULL, 0, 0, 0 };
    fabric_analyze(&in, &f);
    nw = warnings(&f, &what);
    {
        char got[128] = "";
        for (size_t i = 0; i < f.n; i++)
            if (f.v[i].sev == TOPO_SEV_WARN &&
                strlen(got) + strlen(f.v[i].subject) + 2 < sizeof(got))
                strcat(strcat(got, got[0] ? ";" : ""), f.v[i].subject);
        ok(nw == 2 && f.nfail == 0 && !strcmp(got, "n1/rail0;n1/rail1"),
           "leaf rails: two rails, n1's rail 1 on the other leaf: its two rails warned (%s)", got);
    }
    topo_findings_free(&f);
    k = two_leaves(v, 1, 3, 60, 0);
    for (size_t i = 0; i < k; i++) /* one rail, n3's port reaching nobody */
        if (v[i].a == 2 || v[i].b == 2) {
            v[i].ok = 0;
            strcpy(v[i].error, "connect: No route to host");
        }
    in.rails = 1;
    in.nlinks = k;
    memset(&f, 0, sizeof(f));
    fabric_analyze(&in, &f);
    ok(f.nfail == 1 && !strcmp(first_fail(&f)->subject, "n3/rail0") && f.nunjudged == 0 &&
           warnings(&f, &what) == 0,
       "leaf rails: one rail, n3's port reaching nobody: rail.cabling on it, no leaf left "
       "unjudged (%zu failures, %zu unjudged%s%s)",
       f.nfail, f.nunjudged, f.nunjudged ? ": " : "", f.nunjudged ? f.unjudged[0] : "");
    topo_findings_free(&f);
}

/* The boundary between the leaves' latencies and the band about it (a factor of 1.15 either
 * way) where a latency votes for neither leaf, at their edges: n1's rail 1 is warned about where
 * its 4 stray peers do not vote, not where they agree with its other rails. */
static void leaf_band_edges(void)
{
    const char *what = "";
    const struct {
        double stray;
        int other_leaf, tie;
        size_t warned;
        const char *why;
    } c[] = {
        { 1.0, 0, 0, 1, "at the boundary (1.0 us, within the band): no vote, n1/rail1 warned" },
        { 1.0 / 1.15, 0, 0, 0,
          "at the band's lower edge exactly: near, they agree, nothing warned" },
        { 1.15, 1, 0, 1,
          "at its upper edge exactly (peers of the other leaf): far on every rail, no vote, "
          "n1/rail1 warned" },
        { 1.1, 1, 0, 1, "inside its upper edge: no vote, n1/rail1 warned" },
        { 1.15, 2, 0, 1,
          "at its upper edge exactly (peers of its own leaf, alone): far, they disagree, "
          "n1/rail1 warned" },
        { 1.1, 2, 0, 0,
          "inside its upper edge (peers of its own leaf, alone): no vote, nothing warned" },
        { 0, 0, 0, 1, "reading 0 (not measured): no vote, n1/rail1 warned" },
        { 0.9, 0, 1, 1,
          "two gaps of 4 (0.5 to 2.0, 0.55 to 2.2): the first is the boundary, 0.9 within its "
          "band: no vote, n1/rail1 warned" },
        { 0.9, 0, 0, 1, "...0.9 with one gap: the same" },
        { 0.85, 0, 1, 0, "...0.85, below the band: near, they agree, nothing warned" },
    };

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        size_t nw = band_case(c[i].stray, c[i].other_leaf, c[i].tie, &what);
        ok(nw == c[i].warned && (!nw || !strcmp(what, "n1/rail1")),
           "leaf band: 4 peers at %.4g us %s (%zu, %s)", c[i].stray, c[i].why, nw, nw ? what : "");
    }
}

/* Each rule at its edges, and the links each of its loops may look at: a pair whose second end
 * is the first node, figures at their limits exactly, links of other rails and of other nodes
 * that must not clear a port, a partner's link in either direction. */
static void rule_edges(void)
{
    const double expect[2] = { 0.9, 0.9 };
    /* 4 nodes, 2 rails, neighbor rounds: (0,1)(2,3) then (1,2)(3,0) */
    struct fabric_link h[8];
    struct fabric_link x[9];

    healthy4x2(h);
    /* a pair's subject names both ends, the first node too */
    memcpy(x, h, sizeof(h));
    x[6].bw_gbps = 0.29;
    is_str(fails(x, 8, 4, 2, NULL, expect), "link.path n4<->n1/rail0",
           "edges: a slow pair whose receiver is the first node is named by both ends");
    x[6] = L(1, 0, 3, 0, -1);
    is_str(fails(x, 8, 4, 2, NULL, expect), "link.unreachable n4<->n1/rail0",
           "edges: ...and an unreachable one");
    is_str(said(x, 8, 4, 2, expect, TOPO_SEV_FAIL, "link.unreachable", "n4<->n1/rail0"),
           "unreachable: connect: No route to host", "edges: ...a failure, with its error");
    /* the floor: a link at it exactly is not low */
    memcpy(x, h, sizeof(h));
    x[1].bw_gbps = x[5].bw_gbps = 0.9;
    is_str(fails(x, 8, 4, 2, NULL, expect), "", "edges: n2's rail 1 at the floor exactly: fine");
    x[1].bw_gbps = x[5].bw_gbps = 0.8999;
    is_str(fails(x, 8, 4, 2, NULL, expect), "link.bandwidth n2/rail1",
           "edges: ...and just under it: named");
    /* the figure named: the slowest of the port's links, whichever came first */
    x[1].bw_gbps = 0.29;
    x[5].bw_gbps = 0.31;
    is_str(said(x, 8, 4, 2, expect, TOPO_SEV_FAIL, "link.bandwidth", "n2/rail1"),
           "0.29 Gb/s with every partner",
           "edges: a port slow at 0.29 and 0.31 Gb/s: the slower is said");
    x[1].bw_gbps = 0;
    x[5].bw_gbps = 0.3;
    is_str(said(x, 8, 4, 2, expect, TOPO_SEV_FAIL, "link.bandwidth", "n2/rail1"),
           "0 Gb/s with every partner", "edges: ...at 0 and 0.3 Gb/s: 0");
    /* a port without links on a rail is not said to be fine there */
    {
        const struct fabric_link r0c[4] = { L(0, 0, 0, 1, .95), L(0, 0, 2, 3, .95),
                                            L(1, 0, 1, 2, .95), L(1, 1, 0, 1, .95) };
        struct fabric_link r0[4];
        memcpy(r0, r0c, sizeof(r0));
        is_str(said(r0, 4, 4, 2, expect, TOPO_SEV_OK, "link.bandwidth", "n3/rail1"), "none",
               "edges: n3 measured nothing on rail 1: nothing said of it");
        is_str(said(r0, 4, 4, 2, expect, TOPO_SEV_OK, "link.bandwidth", "n1/rail1"), "1 link fine",
               "edges: ...while n1, measured there once, is fine");
        is_str(said(r0, 4, 4, 2, expect, TOPO_SEV_OK, "link.bandwidth", "n2/rail0"), "2 links fine",
               "edges: ...and n2, twice on rail 0");
        r0[2].bw_gbps = 0.29; /* n2-n3 slow, both fine elsewhere: a pair, n2 not all fine */
        is_str(said(r0, 4, 4, 2, expect, TOPO_SEV_OK, "link.bandwidth", "n2/rail0"), "none",
               "edges: ...and not when one of its links is slow");
    }
    /* the wire: judged only where the sender counted bytes and some arrived */
    {
        struct fabric_link w[9];
        for (int i = 0; i < 8; i++)
            w[i] = W(h[i].round, h[i].rail, h[i].a, h[i].b, .95, 1000000, 1000000, 0);
        memcpy(x, w, sizeof(w));
        x[2].ce_frac = x[4].ce_frac = 0.05; /* n3's rail 0 marked both ways */
        x[2].wire_bytes = x[4].wire_bytes = 0;
        is_str(fails(x, 8, 4, 2, NULL, expect), "",
               "edges: marks on links whose sender counted no bytes on the wire: not judged");
        x[2].wire_bytes = x[4].wire_bytes = x[2].bytes = x[4].bytes = 1;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.congestion n3/rail0",
               "edges: ...one byte on the wire, one delivered: judged");
        x[2].bytes = x[4].bytes = 0;
        x[2].wire_bytes = x[4].wire_bytes = 1000000;
        x[2].ce_frac = x[4].ce_frac = 0;
        is_str(fails(x, 8, 4, 2, NULL, expect), "",
               "edges: bytes on the wire and none delivered: not judged by the wire");
        /* the limits exactly: 99.5% delivered and 0.1% marked pass, a hair past them do not */
        {
            const struct {
                long long bytes;
                double ce;
                const char *want, *what;
            } lim[] = {
                { 995000, 0, "", "99.5% delivered exactly: fine" },
                { 994999, 0, "link.goodput n3/rail0", "...99.4999%: lossy" },
                { 1000000, 0.001, "", "0.1% marked exactly: fine" },
                { 1000000, 0.0011, "link.congestion n3/rail0", "...0.11%: marked" },
            };
            for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
                memcpy(x, w, sizeof(w));
                x[2].bytes = x[4].bytes = lim[i].bytes;
                x[2].ce_frac = x[4].ce_frac = lim[i].ce;
                is_str(fails(x, 8, 4, 2, NULL, expect), lim[i].want, "edges: %s", lim[i].what);
            }
        }
        /* a third link of n3 whose wire is unknown takes nothing from its two lossy ones */
        memcpy(x, w, sizeof(w));
        x[2].wire_bytes = x[4].wire_bytes = 1010000;
        x[8] = W(2, 0, 2, 0, .95, 1000000, -1, -1);
        is_str(fails(x, 9, 4, 2, NULL, expect), "link.goodput n3/rail0",
               "edges: n3 lossy on its two wired links, its third not counted: n3 named");
        /* every link of rail 0 lossy: every node as lossy as its partners, none clean
         * elsewhere: no port is the culprit, each link is named */
        memcpy(x, w, sizeof(w));
        x[0].wire_bytes = x[2].wire_bytes = x[4].wire_bytes = x[6].wire_bytes = 1010000;
        is_str(fails(x, 8, 4, 2, NULL, expect),
               "link.goodput n1->n2/rail0;link.goodput n3->n4/rail0;link.goodput n2->n3/rail0;"
               "link.goodput n4->n1/rail0",
               "edges: a rail lossy everywhere: each link, no port");
    }
    /* the spine layer at its edges */
    {
        struct fabric_link *v = calloc(28 * 40, sizeof(*v));
        size_t k = two_leaves(v, 3, 0.6, 1.3, 7);
        int down[24] = { 0 };
        is_str(said(v, k, 8, 3, NULL, TOPO_SEV_FAIL, "fabric.spine", "spine layer"),
               "48 slow paths, every one between two leaves (rails 0,1,2)",
               "spine: at InfiniBand's latencies (0.6 and 1.3 us): named");
        is_str(fails(v, k, 8, 3, NULL, NULL), "fabric.spine spine layer",
               "spine: its 48 slow paths folded under it, no link.path beside it");
        k = two_leaves(v, 2, 3, 60, 3);
        is_str(said(v, k, 8, 2, NULL, TOPO_SEV_FAIL, "fabric.spine", "spine layer"),
               "32 slow paths, every one between two leaves (rails 0,1)",
               "spine: two rails are enough");
        /* n8's rail 0 slow with everyone, its own leaf too: its links are its own, not the
         * spine's evidence either way */
        k = two_leaves(v, 3, 3, 60, 7);
        for (size_t i = 0; i < k; i++)
            if (v[i].b == 7 && v[i].rail == 0)
                v[i].bw_gbps = .2;
        ok(strcmp(said(v, k, 8, 3, NULL, TOPO_SEV_FAIL, "fabric.spine", "spine layer"), "none") &&
               strcmp(said(v, k, 8, 3, NULL, TOPO_SEV_FAIL, "link.bandwidth", "n8/rail0"), "none"),
           "spine: beside a slow port (n8/rail0), named with it");
        ok(!strstr(fails(v, k, 8, 3, NULL, NULL), "link.path"),
           "spine: beside a slow port, no link.path left: %s", fails(v, k, 8, 3, NULL, NULL));
        /* n8's rail 0 without carrier: one link failed, one slow within its leaf */
        k = two_leaves(v, 3, 3, 60, 7);
        for (size_t i = 0; i < k; i++)
            if (v[i].b == 7 && v[i].rail == 0 && v[i].a == 6) {
                v[i].ok = 0;
                strcpy(v[i].error, "connect: No route to host");
            } else if (v[i].b == 7 && v[i].rail == 0 && v[i].a == 4)
                v[i].bw_gbps = .2;
        down[7 * 3 + 0] = 1;
        ok(strstr(fails(v, k, 8, 3, down, NULL), "fabric.spine spine layer") &&
               strstr(fails(v, k, 8, 3, down, NULL), "nic.port.state n8/rail0"),
           "spine: beside a port without carrier (n8/rail0), named with it");
        /* n4's rail 0 measured only with the other leaf (its links within its leaf not in the
         * run), the spine layer slow: n4/rail0 is slow with every partner, and every link of it
         * crossed the spines: its speed is not judged (no link.bandwidth), and said so; with one
         * link within its leaf slow as well it is the port's own, named */
        for (int own = 0; own < 2; own++) {
            struct fabric_port ports[24];
            struct topo_findings f = { 0 };
            size_t m = 0;
            k = two_leaves(v, 3, 3, 60, 7);
            for (size_t i = 0; i < k; i++) {
                int mine = v[i].rail == 0 && v[i].b == 3; /* n1..n3 with n4 */
                if (mine && own && v[i].a == 0)           /* n1-n4 within the leaf, slow */
                    v[i].bw_gbps = .2;
                else if (mine)
                    continue;
                v[m++] = v[i];
            }
            for (int i = 0; i < 24; i++)
                ports[i].carrier = 1;
            struct fabric_input in = { 8, 3, names, ports, NULL, v, m, NULL, 0, NULL, 0, 0, 0 };
            fabric_analyze(&in, &f);
            topo_findings_sort(&f);
            int unjudged = f.nunjudged == 1 && strstr(f.unjudged[0], "n4/rail0: its speed");
            topo_findings_free(&f);
            is_str(fails(v, m, 8, 3, NULL, NULL),
                   own ? "fabric.spine spine layer;link.bandwidth n4/rail0"
                       : "fabric.spine spine layer",
                   "spine: n4/rail0 slow %s",
                   own ? "within its leaf too: named" : "only across the slow spines: not named");
            ok(unjudged == !own, "...%s", own ? "and judged" : "its speed said not judged");
        }
        /* three slow paths between the leaves are the least that is a spine's: two are not */
        k = two_leaves(v, 3, 3, 60, 0);
        for (size_t i = 0; i < k; i++)
            if (v[i].rail == 0 && v[i].b == v[i].a + 4 && v[i].a < 3)
                v[i].bw_gbps = .2;
        is_str(said(v, k, 8, 3, NULL, TOPO_SEV_FAIL, "fabric.spine", "spine layer"),
               "3 slow paths, every one between two leaves (rails 0)",
               "spine: three slow paths between the leaves: named");
        is_str(fails(v, k, 8, 3, NULL, NULL), "fabric.spine spine layer",
               "spine: the three folded under it");
        for (size_t i = 0; i < k; i++)
            if (v[i].rail == 0 && v[i].a == 2 && v[i].b == 6)
                v[i].bw_gbps = .95;
        is_str(said(v, k, 8, 3, NULL, TOPO_SEV_FAIL, "fabric.spine", "spine layer"), "none",
               "spine: two: not named (each is its pair's)");
        is_str(fails(v, k, 8, 3, NULL, NULL), "link.path n1<->n5/rail0;link.path n2<->n6/rail0",
               "spine: two: each named as its path");
        /* a slow path is far when its latency is past 1.15 times the boundary (here 4 us: 2 and
         * 8 us): a fourth slow path at 4.6 us exactly is no spine's evidence, and stops the
         * three; at 4.61 us it is the fourth (its host waited: its latency left the boundary
         * alone, its bandwidth is still judged) */
        for (int g = 0; g < 2; g++) {
            k = two_leaves(v, 3, 2, 8, 0);
            for (size_t i = 0; i < k; i++)
                if (v[i].rail == 0 && v[i].b == v[i].a + 4 && v[i].a < 3)
                    v[i].bw_gbps = .2;
                else if (v[i].rail == 0 && v[i].a == 3 && v[i].b == 7) {
                    v[i].bw_gbps = .2;
                    v[i].wait_a = 0.1;
                    v[i].lat_p50_us = v[i].lat_p99_us = g ? 4.61 : 4 * 1.15;
                }
            is_str(said(v, k, 8, 3, NULL, TOPO_SEV_FAIL, "fabric.spine", "spine layer"),
                   g ? "4 slow paths, every one between two leaves (rails 0)" : "none",
                   "spine: a fourth slow path at %s the boundary: %s",
                   g ? "4.61 us, past 1.15 times" : "4.6 us, 1.15 times",
                   g ? "one more" : "not between leaves, no spine");
            is_str(fails(v, k, 8, 3, NULL, NULL),
                   g ? "fabric.spine spine layer"
                     : "link.path n1<->n5/rail0;link.path n2<->n6/rail0;link.path n3<->n7/rail0;"
                       "link.path n4<->n8/rail0",
                   "spine: %s", g ? "four folded under it" : "no spine: the four paths named");
        }
        /* behind a slow spine the paths through it queue: rail 0's three slow paths at 3.0 us
         * and three at 6.4 us, beside its other paths between the leaves at 2.7 and within at
         * 1.2, blur every gap (2.7 to 6.4 is no tighter than the gap below it); the links
         * that were not slow part the leaves (at 1.8 us), and the six are the spine's. The
         * rails whose every path between the leaves is slow (the cases above) fall back on
         * all their links */
        for (int q = 0; q < 2; q++) {
            k = two_leaves(v, 3, 1.2, 2.7, 0);
            for (size_t i = 0; i < k; i++)
                if (v[i].rail == 0 && v[i].a < 3 &&
                    (v[i].b == v[i].a + 4 || v[i].b == v[i].a + 5)) {
                    v[i].bw_gbps = .2;
                    v[i].lat_p50_us = v[i].lat_p99_us = v[i].b == v[i].a + 4 ? 6.4 : q ? 3.0 : 2.7;
                }
            is_str(said(v, k, 8, 3, NULL, TOPO_SEV_FAIL, "fabric.spine", "spine layer"),
                   "6 slow paths, every one between two leaves (rails 0)",
                   "spine: six slow paths queued to %s: named",
                   q ? "3.0 and 6.4 us" : "2.7 and 6.4 us");
            is_str(fails(v, k, 8, 3, NULL, NULL), "fabric.spine spine layer",
                   "spine: ...and nothing else (no port on the wrong leaf)");
        }
        /* behind a spine slow enough a window misses its deadline: pairs that failed between
         * ports fine elsewhere are the spine's evidence too, from three pairs of nodes (two hosts
         * that hung mid-round fail two); a pair the latency sweep puts on one leaf is not the
         * spine's, nor a link of a port that reaches nobody */
        {
            static const struct {
                int rails;   /* the dead pairs fail on rails 0..rails-1 */
                int pairs;   /* n1-n5, n2-n6, n3-n7 (and n4-n8 with 4) */
                int slow;    /* and slow paths: n1-n6, n2-n7 on rail 0 (0, 1 or 2 of them) */
                int swept;   /* the sweep measured n3-n7 on rail 0: 1 near (1 us), 2 far (5 us) */
                int n7_down; /* n7's rail 0 reaches nobody */
                const char *said, *fails, *what;
            } dc[] = {
                { 2, 3, 0, 0, 0,
                  "6 paths unreachable between ports fine elsewhere, 3 pairs of nodes (rails 0,1)",
                  "fabric.spine spine layer", "three pairs on two rails: named, folded" },
                { 1, 3, 0, 0, 0,
                  "3 paths unreachable between ports fine elsewhere, 3 pairs of nodes (rails 0)",
                  "fabric.spine spine layer", "three pairs on one rail: named" },
                { 3, 2, 0, 0, 0, "none",
                  "link.unreachable n1<->n5/rail0;link.unreachable n1<->n5/rail1;"
                  "link.unreachable n1<->n5/rail2;link.unreachable n2<->n6/rail0;"
                  "link.unreachable n2<->n6/rail1;link.unreachable n2<->n6/rail2",
                  "two pairs on three rails (six paths): not named, each its own" },
                { 1, 3, 0, 1, 0, "none",
                  "link.unreachable n1<->n5/rail0;link.unreachable n2<->n6/rail0;"
                  "link.unreachable n3<->n7/rail0",
                  "three pairs, one on one leaf by the sweep: not named" },
                { 1, 3, 0, 2, 0,
                  "3 paths unreachable between ports fine elsewhere, 3 pairs of nodes (rails 0)",
                  "fabric.spine spine layer", "...between two leaves by the sweep: named" },
                { 2, 3, 0, 1, 0,
                  "5 paths unreachable between ports fine elsewhere, 3 pairs of nodes (rails 0,1)",
                  "fabric.spine spine layer;link.unreachable n3<->n7/rail0",
                  "...the sweep on rail 0 only: its rail 1 still counts, its rail 0 stays" },
                { 1, 1, 2, 0, 0,
                  "2 slow paths between two leaves and 1 unreachable between ports fine elsewhere "
                  "(rails 0)",
                  "fabric.spine spine layer", "two slow paths and one failed pair: named" },
                { 1, 1, 1, 0, 0, "none", "link.path n1<->n6/rail0;link.unreachable n1<->n5/rail0",
                  "one slow path and one failed pair: not named" },
                { 1, 3, 0, 0, 1, "none", NULL,
                  "three pairs, one with a port that reaches nobody (n7/rail0): not named" },
                { 1, 4, 0, 0, 1,
                  "3 paths unreachable between ports fine elsewhere, 3 pairs of nodes (rails 0)",
                  NULL, "...and a fourth pair: named from the other three" },
            };
            for (size_t t = 0; t < sizeof(dc) / sizeof(dc[0]); t++) {
                struct fabric_port ports[24];
                struct fabric_link sw = L(0, 0, 2, 6, .95);
                struct topo_findings f = { 0 };
                const char *s = "none";
                k = two_leaves(v, 3, 1, 5, 0);
                for (size_t i = 0; i < k; i++) {
                    int pair = v[i].b == v[i].a + 4 && v[i].a < dc[t].pairs;
                    if ((pair && v[i].rail < dc[t].rails) ||
                        (dc[t].n7_down && v[i].rail == 0 && (v[i].a == 6 || v[i].b == 6))) {
                        v[i].ok = 0;
                        v[i].bw_gbps = 0;
                        strcpy(v[i].error,
                               "n1 rank 0: the first window did not finish by the deadline");
                    } else if (v[i].rail == 0 && v[i].b == v[i].a + 5 && v[i].a < dc[t].slow)
                        v[i].bw_gbps = .2;
                }
                sw.lat_p50_us = sw.lat_p99_us = dc[t].swept == 2 ? 5 : 1;
                for (int i = 0; i < 24; i++)
                    ports[i].carrier = 1;
                struct fabric_input in = {
                    8, 3, names, ports, NULL, v, k, NULL, 0, &sw, dc[t].swept ? 1 : 0, 0, 0
                };
                fabric_analyze(&in, &f);
                for (size_t i = 0; i < f.n; i++)
                    if (f.v[i].sev == TOPO_SEV_FAIL && !strcmp(f.v[i].check, "fabric.spine"))
                        s = f.v[i].observed;
                is_str(s, dc[t].said, "spine, failed pairs: %s", dc[t].what);
                topo_findings_free(&f);
                if (dc[t].fails)
                    is_str(fails_in(&in), dc[t].fails, "...its findings");
            }
        }
        /* a slow pair within a leaf is not the spine's: it vetoes the spine unless the spine's
         * pairs are four times as many (a port on another leaf crossing the slow spine, beside
         * the pairs that failed behind it): four failed pairs and one slow pair within a leaf
         * (n2<->n3) name the spine, three do not */
        for (int pairs = 3; pairs <= 4; pairs++) {
            struct fabric_port ports[24];
            struct topo_findings f = { 0 };
            const char *s = "none";
            k = two_leaves(v, 3, 1, 5, 0);
            for (size_t i = 0; i < k; i++) {
                if (v[i].rail == 0 && v[i].b == v[i].a + 4 && v[i].a < pairs) {
                    v[i].ok = 0;
                    v[i].bw_gbps = 0;
                    strcpy(v[i].error,
                           "n1 rank 0: the first window did not finish by the deadline");
                } else if (v[i].rail == 0 && v[i].a == 1 && v[i].b == 2)
                    v[i].bw_gbps = .2;
            }
            for (int i = 0; i < 24; i++)
                ports[i].carrier = 1;
            struct fabric_input in = { 8, 3, names, ports, NULL, v, k, NULL, 0, NULL, 0, 0, 0 };
            fabric_analyze(&in, &f);
            for (size_t i = 0; i < f.n; i++)
                if (f.v[i].sev == TOPO_SEV_FAIL && !strcmp(f.v[i].check, "fabric.spine"))
                    s = f.v[i].observed;
            is_str(s,
                   pairs == 4 ? "4 paths unreachable between ports fine elsewhere, 4 pairs of "
                                "nodes (rails 0)"
                              : "none",
                   "spine, %d failed pairs beside a slow pair within a leaf: %s", pairs,
                   pairs == 4 ? "named (four times as many)" : "not named");
            topo_findings_free(&f);
            is_str(fails_in(&in),
                   pairs == 4 ? "fabric.spine spine layer;link.path n2<->n3/rail0"
                              : "link.path n2<->n3/rail0;link.unreachable n1<->n5/rail0;"
                                "link.unreachable n2<->n6/rail0;link.unreachable n3<->n7/rail0",
                   "...the slow pair within the leaf named on its own either way");
        }
        /* one rail: its leaves part by latency as well, a slow spine layer is named */
        k = two_leaves(v, 1, 3, 60, 1);
        is_str(said(v, k, 8, 1, NULL, TOPO_SEV_FAIL, "fabric.spine", "spine layer"),
               "16 slow paths, every one between two leaves (rails 0)", "spine: one rail: named");
        /* 33 rails, 1 to 32 slow between the leaves: the list of rails is cut, rail 0 is not
         * in it, and rail 32 (past the 32 the list tells) adds nothing */
        k = two_leaves(v, 33, 3, 60, ~1ull & ((1ull << 33) - 1));
        is_str(said(v, k, 8, 33, NULL, TOPO_SEV_FAIL, "fabric.spine", "spine layer"),
               "512 slow paths, every one between two leaves (rails "
               "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,...)",
               "spine: 32 rails slow: the list cut after 22, rail 0 left out");
        free(v);
    }
    /* the leaf sets at their edges: a gap of 1.8 between the leaves' latencies and one just
     * under it; latencies that read 0; three peers that disagree, against three that agree or
     * none; a fourth rail beside a port that reaches nobody */
    {
        struct fabric_link *v = calloc(28 * 4, sizeof(*v));
        size_t k;
        const char *what = "";
        struct topo_findings f = { 0 };
        struct fabric_port ports[32];
        for (int i = 0; i < 32; i++)
            ports[i].carrier = 1;
        struct fabric_input in = { 8, 3, names, ports, NULL, v, 0, NULL, 0, NULL, 0, 0, 0 };
        static const double far[2] = { 4.5, 4.475 }; /* 1.8 and 1.79 times 2.5 */
        for (int g = 0; g < 2; g++) {
            in.nlinks = k = two_leaves(v, 3, 2.5, far[g], 0);
            for (size_t i = 0; i < k; i++) /* n1's rail-1 port on the other leaf */
                if (v[i].a == 0 && v[i].rail == 1)
                    v[i].lat_p50_us = v[i].lat_p99_us = v[i].b < 4 ? far[g] : 2.5;
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            is_int((long long)warnings(&f, &what), g == 0 ? 1 : 0,
                   "leaves: 2.5 and %g us (a gap of %s): %s (%s)", far[g], g ? "1.79" : "1.8",
                   g ? "one leaf, nothing judged" : "two leaves, n1/rail1 warned", what);
            topo_findings_free(&f);
        }
        /* n8's four rail-0 latencies across the leaves read 0: not measured, no vote */
        for (size_t i = 0; i < k; i++)
            if (v[i].a == 0 && v[i].rail == 1)
                v[i].lat_p50_us = v[i].lat_p99_us = v[i].b < 4 ? 4.5 : 2.5;
            else if (v[i].b == 7 && v[i].rail == 0 && v[i].a < 4)
                v[i].lat_p50_us = v[i].lat_p99_us = 0;
            else if (v[i].lat_p50_us > 2.5)
                v[i].lat_p50_us = v[i].lat_p99_us = 4.5;
        memset(&f, 0, sizeof(f));
        fabric_analyze(&in, &f);
        {
            size_t nw0 = warnings(&f, &what);
            ok(nw0 == 1 && !strcmp(what, "n1/rail1"),
               "leaves: n8's rail-0 latencies across the leaves read 0: no vote, n1/rail1 alone "
               "(%zu, %s, %zu failures, %zu unjudged %s)",
               nw0, what, f.nfail, f.nunjudged, f.nunjudged ? f.unjudged[0] : "");
        }
        topo_findings_free(&f);
        /* three peers that disagree on n1's rail 1 (n5-n7 near there), against three that
         * agree (n2-n4 near on every rail; n8 not measured there): not judged; against none
         * (n2-n4 not measured): the warning */
        for (int g = 0; g < 2; g++) {
            in.nlinks = k = two_leaves(v, 3, 3, 60, 0);
            for (size_t i = 0; i < k; i++)
                if (v[i].a == 0 && v[i].rail == 1 && v[i].b >= 4 && v[i].b < 7)
                    v[i].lat_p50_us = v[i].lat_p99_us = 3;
                else if (v[i].a == 0 && v[i].rail == 1 && (v[i].b == 7 || g == 1))
                    v[i].lat_p50_us = v[i].lat_p99_us = -1;
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            is_int((long long)warnings(&f, &what), g, "leaves: 3 peers disagree, %s agree: %s",
                   g ? "none" : "3", g ? "n1/rail1 warned" : "not judged");
            topo_findings_free(&f);
        }
        /* n1's rail-1 port near none of its peers (on another rail's leaf): n2-n4 far there
         * disagree, and n5-n7, far on every rail, agree without telling a leaf: warned; with
         * two that disagree (n4 not measured there), not judged */
        for (int g = 0; g < 2; g++) {
            in.nlinks = k = two_leaves(v, 3, 3, 60, 0);
            for (size_t i = 0; i < k; i++)
                if (v[i].a == 0 && v[i].rail == 1 && v[i].b < 4)
                    v[i].lat_p50_us = v[i].lat_p99_us = g && v[i].b == 3 ? -1 : 60;
                else if (v[i].a == 0 && v[i].rail == 1 && v[i].b == 7)
                    v[i].lat_p50_us = v[i].lat_p99_us = -1;
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            is_int((long long)warnings(&f, &what), !g,
                   "leaves: a port near none of its peers, %s disagree, 3 far agree: %s",
                   g ? "2" : "3", g ? "not judged" : "n1/rail1 warned");
            topo_findings_free(&f);
        }
        /* n1's rail-1 port on another leaf of its rail, near one peer there: the peers far on
         * every rail have no vote, those near on every rail do. 0: n3, n4 far there, n5 near
         * disagree, n6-n8 far on every rail: warned; 1: n4, n5, n6 disagree, n2, n3 near on
         * every rail, n7, n8 far on every rail: warned; 2: n5-n7 disagree, n2-n4 near on every
         * rail, n8 far on every rail: not judged */
        {
            static const double lat1[3][7] = { { -1, 60, 60, 3, 60, 60, 60 },
                                               { 3, 3, 60, 3, 3, 60, 60 },
                                               { 3, 3, 3, 3, 3, 3, 60 } };
            for (int g = 0; g < 3; g++) {
                in.nlinks = k = two_leaves(v, 3, 3, 60, 0);
                for (size_t i = 0; i < k; i++)
                    if (v[i].a == 0 && v[i].rail == 1)
                        v[i].lat_p50_us = v[i].lat_p99_us = lat1[g][v[i].b - 1];
                memset(&f, 0, sizeof(f));
                fabric_analyze(&in, &f);
                is_int((long long)warnings(&f, &what), g < 2,
                       "leaves: a port near a peer of another leaf, %s: %s",
                       g == 0   ? "3 disagree, 3 far on every rail"
                       : g == 1 ? "3 disagree, 2 near and 2 far on every rail"
                                : "3 disagree, 3 near and 1 far on every rail",
                       g < 2 ? "n1/rail1 warned" : "not judged");
                topo_findings_free(&f);
            }
        }
        /* four rails, n2's rail 0 reaching nobody: its three other rails still outvote each
         * other, so its rail 3 on the other leaf is warned about */
        in.rails = 4;
        in.nlinks = k = two_leaves(v, 4, 3, 60, 0);
        for (size_t i = 0; i < k; i++) {
            if ((v[i].a == 1 || v[i].b == 1) && v[i].rail == 0) {
                v[i].ok = 0;
                strcpy(v[i].error, "connect: No route to host");
            }
            if ((v[i].a == 1 || v[i].b == 1) && v[i].rail == 3)
                v[i].lat_p50_us = v[i].lat_p99_us = v[i].lat_p50_us == 3 ? 60 : 3;
        }
        memset(&f, 0, sizeof(f));
        fabric_analyze(&in, &f);
        ok(warnings(&f, &what) == 1 && !strcmp(what, "n2/rail3") && f.nunjudged == 0 &&
               f.nfail == 1 && !strcmp(first_fail(&f)->subject, "n2/rail0"),
           "leaves: 4 rails, n2's rail 0 reaches nobody: rail.cabling on it, and its rail 3 "
           "warned (%s, %zu unjudged)",
           what, f.nunjudged);
        topo_findings_free(&f);
        free(v);
    }
    /* a link whose rank died is the death's, not a starved host's: never host-limited */
    {
        struct fabric_port ports[8];
        struct topo_findings f = { 0 };
        struct fabric_input in = { 4, 2, names, ports, expect, x, 8, NULL, 0, NULL, 0, 0, 0 };
        for (int i = 0; i < 8; i++)
            ports[i].carrier = 1;
        memcpy(x, h, sizeof(h));
        x[4] = L(1, 0, 1, 2, -1);
        strcpy(x[4].error, "recv from n3: no answer before the deadline");
        x[4].rank_failed = 1;
        x[4].wait_a = 0.4;
        fabric_analyze(&in, &f);
        is_int((long long)f.nunjudged, 0, "a dead rank's link on a starved host: not host-limited");
        topo_findings_free(&f);
    }
    /* a port that loses what it sends and received nothing (its partners resent none), and one
     * that loses what it receives and sent nothing (it resent none of its bytes) */
    for (int in_ = 0; in_ < 2; in_++) {
        const long long M = 1000000;
        /* n3 and its partners n2, n4; each partner clean with n1 */
        struct fabric_link d[4] = {
            W(0, 0, 2, 1, .95, M, 1010000, 0),
            W(1, 0, 2, 3, .95, M, 1010000, 0),
            W(2, 0, 0, 1, .95, M, M, 0),
            W(3, 0, 0, 3, .95, M, M, 0),
        };
        for (int i = 0; in_ && i < 4; i++) { /* every link the other way */
            int t = d[i].a;
            d[i].a = d[i].b;
            d[i].b = t;
        }
        is_str(said(d, 4, 4, 1, expect, TOPO_SEV_FAIL, "link.goodput", "n3/rail0"),
               in_ ? "99.01% delivered at worst, on every link it received; it sent 0% of its "
                     "bytes again, its partners 0.99% of theirs to it"
                   : "99.01% delivered at worst, on every link it sent; it sent 0.99% of its "
                     "bytes again, its partners 0% of theirs to it",
               "edges: a %s: %s resent 0%%",
               in_ ? "receiver that sent nothing" : "sender that received nothing",
               in_ ? "it" : "its partners");
    }
    /* marks named by the direction that has them: n3 receives marked packets from n2 and n4,
     * and what it sends to n1 is lost (a pair's finding) and marked more: not its marks' */
    {
        const long long M = 1000000;
        const struct fabric_link m[5] = {
            W(0, 0, 1, 2, .95, M, M, .05),      W(1, 0, 3, 2, .95, M, M, .05),
            W(2, 0, 2, 0, .95, M, 1010000, .3), W(3, 0, 1, 0, .95, M, M, 0),
            W(4, 0, 3, 0, .95, M, M, 0),
        };
        is_str(said(m, 5, 4, 1, expect, TOPO_SEV_WARN, "link.congestion", "n3/rail0"),
               "up to 5% marked, on every link it received, nothing lost",
               "edges: a port marked on what it receives: the marks of that direction");
    }
    /* a starved host's links at their edges: a failure by a timeout is the host's too; a link
     * at the floor is not low, so not inconclusive either; a CPU-bound rank is named */
    {
        struct fabric_port ports[8];
        struct topo_findings f = { 0 };
        struct fabric_input in = { 4, 2, names, ports, expect, x, 8, NULL, 0, NULL, 0, 0, 0 };
        const double no_floor[2] = { 0.9, 0 };
        for (int i = 0; i < 8; i++)
            ports[i].carrier = 1;
        memcpy(x, h, sizeof(h));
        x[4] = L(1, 0, 1, 2, -1);
        strcpy(x[4].error, "recv from n3: timed out");
        x[4].wait_a = 0.4;
        is_str(fails(x, 8, 4, 2, NULL, expect), "",
               "starved: a link that timed out while an end waited for a CPU: inconclusive");
        memcpy(x, h, sizeof(h));
        x[1].bw_gbps = 0.9;
        x[1].wait_b = 0.3;
        fabric_analyze(&in, &f);
        is_int((long long)(f.nfail + f.nunjudged), 0,
               "starved: a link at the floor exactly on a starved host: judged fine, nothing "
               "unjudged");
        topo_findings_free(&f);
        memcpy(x, h, sizeof(h));
        x[1].bw_gbps = 0.29;
        x[1].cpu_a = 0.97;
        memset(&f, 0, sizeof(f));
        fabric_analyze(&in, &f);
        ok(f.nunjudged == 1 &&
               !strcmp(f.unjudged[0], "n1->n2/rail1: 0.29 Gb/s while the rank of n1 used a full "
                                      "CPU: host-limited, not judged (measure it on a quieter "
                                      "host)"),
           "starved: a CPU-bound rank is named as such: %s", f.nunjudged ? f.unjudged[0] : "");
        topo_findings_free(&f);
        /* a rail without a floor (0) is judged against its ports' median */
        memcpy(x, h, sizeof(h));
        x[1].bw_gbps = x[5].bw_gbps = 0.29;
        is_str(fails(x, 8, 4, 2, NULL, no_floor), "link.bandwidth n2/rail1",
               "no floor on rail 1 (0): n2 judged against the median of its ports");
    }
    /* the retest's suspects: every culprit on the first pass, only what is still unexplained
     * on the later ones */
    {
        struct fabric_port ports[8];
        int suspect[4], good[4];
        struct fabric_input in = { 4, 2, names, ports, expect, x, 8, NULL, 0, NULL, 0, 0, 0 };
        for (int i = 0; i < 8; i++)
            ports[i].carrier = 1;
        memcpy(x, h, sizeof(h));
        x[1].bw_gbps = x[5].bw_gbps = 0.29; /* n2's rail 1 slow: a culprit */
        is_int((long long)fabric_retest_suspects(&in, 0, suspect, good, NULL, NULL), 1,
               "suspects: pass 0, a slow port: its node");
        ok(suspect[1] && !good[1], "suspects: ...n2, not good");
        is_int((long long)fabric_retest_suspects(&in, 1, suspect, good, NULL, NULL), 0,
               "suspects: pass 1, the port explains its links: none");
        memcpy(x, h, sizeof(h));
        x[0].bw_gbps = 0.29; /* n1-n2 rail 0: a pair */
        is_int((long long)fabric_retest_suspects(&in, 1, suspect, good, NULL, NULL), 2,
               "suspects: pass 1, a pair neither end explains: both ends");
        ok(suspect[0] && suspect[1] && !suspect[2] && !suspect[3], "suspects: ...n1 and n2");
        {
            /* ...and where the pairs are asked for: both ends are proven on rail 0 (fine with
             * n4 and n3), so the pair itself is measured again, its ends no suspects */
            struct fabric_pair *pairs = NULL;
            size_t np = 0;
            is_int((long long)fabric_retest_suspects(&in, 1, suspect, good, &pairs, &np), 0,
                   "suspects: pass 1, a pair of proven ends: no suspect");
            ok(np == 1 && pairs[0].a == 0 && pairs[0].b == 1,
               "suspects: ...the pair n1->n2 measured again (%zu pairs)", np);
            free(pairs);
        }
        memcpy(x, h, sizeof(h));
        x[2] = L(0, 0, 2, 3, -1);
        x[4] = L(1, 0, 1, 2, -1);
        ports[2 * 2 + 0].carrier = 0; /* n3's rail 0 without carrier */
        is_int((long long)fabric_retest_suspects(&in, 0, suspect, good, NULL, NULL), 1,
               "suspects: pass 0, a port without carrier: its node");
        ok(suspect[2] && !suspect[1] && !suspect[3], "suspects: ...n3 alone");
    }
    /* which links clear a partner: its own, on the port's rail, with another node */
    {
        const struct fabric_link j[3] = { L(0, 0, 0, 1, .29), L(1, 0, 1, 2, .29),
                                          L(2, 0, 2, 3, .95) };
        const struct fabric_link k[4] = { L(0, 0, 0, 1, .29), L(1, 0, 2, 3, .29),
                                          L(2, 0, 2, 4, .95), L(3, 0, 3, 4, .95) };
        const struct fabric_link t[5] = { L(0, 0, 0, 1, .29), L(1, 0, 0, 2, .29),
                                          L(2, 0, 1, 2, .29), L(0, 0, 3, 4, .95),
                                          L(1, 1, 0, 3, .29) };
        const struct fabric_link u[5] = { L(0, 0, 0, 1, .29), L(1, 0, 1, 2, .29), L(2, 0, 0, 3, -1),
                                          L(0, 0, 3, 4, .95), L(1, 0, 2, 4, .95) };
        is_str(fails(j, 3, 4, 1, NULL, expect), "link.bandwidth n2/rail0",
               "clears: n1's one slow link is n2's, slow with n3 too, who is fine with n4: n2 "
               "alone (n3-n4 is no evidence for n2)");
        is_str(fails(k, 4, 5, 1, NULL, expect), "link.path n1<->n2/rail0;link.path n3<->n4/rail0",
               "clears: two slow pairs apart: each pair, no port (the other pair's links are not "
               "n1's)");
        is_str(fails(t, 5, 5, 2, NULL, expect),
               "link.path n1<->n2/rail0;link.path n1<->n3/rail0;link.path n2<->n3/rail0;"
               "link.path n1<->n4/rail1",
               "clears: a slow triangle on rail 0 and n1's slow rail-1 link to n4, who is fine on "
               "rail 0: every pair, no port (rail 1 says nothing of rail 0)");
        is_str(fails(u, 5, 5, 1, NULL, expect),
               "link.bandwidth n2/rail0;link.unreachable n1<->n4/rail0",
               "clears: n1 slow with n2 and unreachable from n4: n2 named, n1's failed link is "
               "no bandwidth evidence");
    }
    /* a node whose rank died: its links are nobody's fault, its own rails' included */
    {
        struct fabric_port ports[8];
        int lost[1] = { 2 };
        struct fabric_input in = { 4, 2, names, ports, expect, x, 8, lost, 1, NULL, 0, 0, 0 };
        for (int i = 0; i < 8; i++)
            ports[i].carrier = 1;
        memcpy(x, h, sizeof(h));
        for (int i = 2; i <= 5; i++) {
            x[i].ok = 0;
            x[i].rank_failed = 1;
        }
        is_str(fails_in(&in), "rank.failed n3",
               "lost rank: every link of n3 failed with it: rank.failed alone");
        memcpy(x, h, sizeof(h));
        lost[0] = 0;
        x[2] = L(0, 0, 2, 3, -1); /* n3-n4 unreachable, n1 lost its rank */
        is_str(fails_in(&in), "link.unreachable n3<->n4/rail0;rank.failed n1",
               "lost rank: a failed link of two other nodes is still judged");
    }
    /* which links clear a partner of a lossy or marked port */
    {
        const long long M = 1000000, LOSSY = 1010000;
        /* n1 lossy both ways (to n2, from n3); n2 and n3 as lossy as n1 (a second lossy link
         * each); n2 sends clean to n5: it clears n1. n3 is named as the sender it is */
        struct fabric_link s1[6] = {
            W(0, 0, 0, 1, .95, M, LOSSY, 0), W(1, 0, 2, 0, .95, M, LOSSY, 0),
            W(2, 0, 1, 3, .95, M, LOSSY, 0), W(3, 0, 2, 4, .95, M, LOSSY, 0),
            W(4, 0, 1, 4, .95, M, M, 0),     W(5, 0, 3, 4, .95, M, M, 0),
        };
        is_str(fails(s1, 5, 5, 1, NULL, expect),
               "link.goodput n1/rail0;link.goodput n3/rail0;link.goodput n2->n4/rail0",
               "clears: n2 clean as a sender elsewhere clears n1");
        s1[4] = W(4, 0, 4, 1, .95, M, M, 0);
        is_str(fails(s1, 5, 5, 1, NULL, expect),
               "link.goodput n1/rail0;link.goodput n3/rail0;link.goodput n2->n4/rail0",
               "clears: ...and as a receiver");
        s1[4].rail = 1; /* n2's clean link on the other rail; n4-n5 clean on rail 0 */
        is_str(fails(s1, 6, 5, 2, NULL, expect), "link.goodput n2/rail0;link.goodput n3/rail0",
               "clears: n2's clean link on rail 1 does not clear n1, nor does n4-n5's (which "
               "clears n2's partner n4: n2 and n3 explain n1's links)");
    }
    {
        const long long M = 1000000, LOSSY = 1010000;
        /* n1 loses what it receives from n2 and n3, sends clean to n2; n2 and n3 each lossy
         * toward another node too: n1's own clean link does not clear n2 */
        const struct fabric_link s4[5] = {
            W(0, 0, 1, 0, .95, M, LOSSY, 0), W(1, 0, 2, 0, .95, M, LOSSY, 0),
            W(2, 0, 0, 1, .95, M, M, 0),     W(3, 0, 1, 3, .95, M, LOSSY, 0),
            W(4, 0, 2, 4, .95, M, LOSSY, 0),
        };
        /* marks: n1 marked both ways, its partners marked elsewhere too: no port */
        const struct fabric_link s5[5] = {
            W(0, 0, 0, 1, .95, M, M, .05), W(1, 0, 2, 0, .95, M, M, .05),
            W(2, 0, 1, 3, .95, M, M, .05), W(3, 0, 2, 4, .95, M, M, .05),
            W(4, 0, 1, 4, .95, M, M, .05),
        };
        is_str(fails(s4, 5, 5, 1, NULL, expect),
               "link.goodput n3/rail0;link.goodput n2->n1/rail0;link.goodput n2->n4/rail0",
               "clears: n1's clean link to n2 does not clear n2 for n1 (n3, lossy to n1 and n5, "
               "is the sender)");
        is_str(fails(s5, 5, 5, 1, NULL, expect),
               "link.congestion n2/rail0;link.congestion n3->n1/rail0;"
               "link.congestion n3->n5/rail0",
               "clears: a partner's marked link elsewhere does not clear n1 for marks");
    }
}

int main(void)
{
    double expect[2] = { 0.9, 0.9 };
    /* 4 nodes, 2 rails, neighbor rounds: (0,1)(2,3) then (1,2)(3,0) */
    struct fabric_link h[8] = {
        L(0, 0, 0, 1, .95), L(0, 1, 0, 1, .95), L(0, 0, 2, 3, .95), L(0, 1, 2, 3, .95),
        L(1, 0, 1, 2, .95), L(1, 1, 1, 2, .95), L(1, 0, 3, 0, .95), L(1, 1, 3, 0, .95),
    };
    struct fabric_link x[8];
    int down[8] = { 0 };

    is_str(fails(h, 8, 4, 2, NULL, expect), "", "healthy: no finding");
    memcpy(x, h, sizeof(x));
    x[1].bw_gbps = x[5].bw_gbps = 0.29; /* n2 rail 1 slow with both partners */
    is_str(fails(x, 8, 4, 2, NULL, expect), "link.bandwidth n2/rail1", "degraded port localized");
    is_str(fails(x, 8, 4, 2, NULL, NULL), "link.bandwidth n2/rail1",
           "degraded port localized without a map (fleet median)");
    x[1].bw_gbps = x[5].bw_gbps = 0.75; /* without a map the floor is 80% of the median, 0.76 */
    is_str(fails(x, 8, 4, 2, NULL, NULL), "link.bandwidth n2/rail1",
           "without a map: 0.75 Gb/s, under 80%% of the rail's 0.95: named");
    x[1].bw_gbps = x[5].bw_gbps = 0.77;
    is_str(fails(x, 8, 4, 2, NULL, NULL), "", "without a map: ...0.77 Gb/s, over it: fine");
    /* the rail's median is each port's best: n4's, which moved nothing (0 Gb/s with both
     * partners), counts too: 0, 0.78, 1 and 1 make 0.89, so n2-n3's 0.78 clears 80% of it */
    memcpy(x, h, sizeof(x));
    x[0].bw_gbps = 1;                /* n1-n2 rail 0 */
    x[4].bw_gbps = 0.78;             /* n2-n3 rail 0 */
    x[2].bw_gbps = x[6].bw_gbps = 0; /* n3-n4 and n4-n1 rail 0 */
    is_str(fails(x, 8, 4, 2, NULL, NULL), "link.bandwidth n4/rail0",
           "without a map: a port at 0 Gb/s counts in the median: n4 alone named");
    /* a link whose rank died is no yardstick, whatever figure it holds */
    memcpy(x, h, sizeof(x));
    x[0].bw_gbps = 5;
    x[0].rank_failed = 1;
    ok(strstr(fails(x, 8, 4, 2, NULL, NULL), "link.") == NULL,
       "without a map: a dead rank's link at 5 Gb/s moves no floor (%s)",
       fails(x, 8, 4, 2, NULL, NULL));
    memcpy(x, h, sizeof(x));
    x[2] = L(0, 0, 2, 3, -1);
    x[4] = L(1, 0, 1, 2, -1); /* n3 rail 0 reaches nobody */
    down[2 * 2 + 0] = 1;
    is_str(fails(x, 8, 4, 2, down, expect), "nic.port.state n3/rail0",
           "port without carrier: nic.port.state");
    is_str(fails(x, 8, 4, 2, NULL, expect), "rail.cabling n3/rail0",
           "port up but unreachable: rail.cabling");
    /* all faults of the demo together */
    memcpy(x, h, sizeof(x));
    x[1].bw_gbps = 0.29;
    x[5].bw_gbps = 0.29; /* n2 rail1 slow */
    x[2] = L(0, 0, 2, 3, -1);
    x[4] = L(1, 0, 1, 2, -1); /* n3 rail0 down */
    x[3] = L(0, 1, 2, 3, -1);
    x[7] = L(1, 1, 3, 0, -1); /* n4 rail1 miscabled */
    is_str(fails(x, 8, 4, 2, down, expect),
           "link.bandwidth n2/rail1;nic.port.state n3/rail0;rail.cabling n4/rail1",
           "three faults together: exactly the three culprits");
    /* goodput against the wire: every sender counted its bytes on the wire */
    {
        struct fabric_link w[8];
        memcpy(w, h, sizeof(w));
        for (int i = 0; i < 8; i++) {
            w[i].bytes = 1000000;
            w[i].wire_bytes = 1000000;
            w[i].ce_frac = 0;
        }
        memcpy(x, w, sizeof(x));
        is_str(fails(x, 8, 4, 2, NULL, expect), "", "wire counted, nothing lost: no finding");
        x[2].wire_bytes = x[4].wire_bytes = 1004000; /* 99.6%: within the default 99.5% */
        is_str(fails(x, 8, 4, 2, NULL, expect), "", "0.4%% resent: within the limit");
        x[2].wire_bytes = x[4].wire_bytes = 1010000; /* n3 rail 0 loses 1%, both directions */
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.goodput n3/rail0",
               "a port lossy with both partners: link.goodput names the port");
        x[4].wire_bytes = 1000000;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.goodput n3->n4/rail0",
               "one lossy link: its sender or its receiver, so the pair is named");
        is_str(said(x, 8, 4, 2, expect, TOPO_SEV_FAIL, "link.goodput", "n3->n4/rail0"),
               "99.01%: 1000000 of 1010000 bytes on the wire arrived, 0 segments sent again",
               "...with what arrived and the segments resent (none counted)");
        x[2].retrans = -1;
        is_str(said(x, 8, 4, 2, expect, TOPO_SEV_FAIL, "link.goodput", "n3->n4/rail0"),
               "99.01%: 1000000 of 1010000 bytes on the wire arrived",
               "...and without them where the sender did not count them");
        x[2].retrans = 0;
        x[2].ce_frac = 0.3;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.goodput n3->n4/rail0",
               "a lossy link that is also marked is named for its loss only");
        memcpy(x, w, sizeof(x));
        x[2].ce_frac = x[4].ce_frac = 0.05;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.congestion n3/rail0",
               "marks without loss on both links of a port: link.congestion names the port");
        {
            const char *what = "";
            struct fabric_port ports[8];
            struct topo_findings f = { 0 };
            struct fabric_input in = { 4, 2, names, ports, expect, x, 8, NULL, 0, NULL, 0, 0, 0 };
            for (int i = 0; i < 8; i++)
                ports[i].carrier = 1;
            fabric_analyze(&in, &f);
            is_int((long long)warnings(&f, &what), 1, "...a warning, not a failure: %s", what);
            topo_findings_free(&f);
            memset(&f, 0, sizeof(f));
            in.ecn_max = 0.1;
            fabric_analyze(&in, &f);
            is_int((long long)warnings(&f, &what), 0, "...none under a limit of 10%% marked");
            topo_findings_free(&f);
            memset(&f, 0, sizeof(f));
            memcpy(x, w, sizeof(x));
            x[2].wire_bytes = x[4].wire_bytes = 1100000;
            in.goodput_min = -1;
            fabric_analyze(&in, &f);
            is_int((long long)f.nfail, 0, "no goodput limit (0 in the map): 10%% resent passes");
            topo_findings_free(&f);
            memset(&f, 0, sizeof(f));
            in.goodput_min = 0.8;
            fabric_analyze(&in, &f);
            is_int((long long)f.nfail, 0, "a limit of 80%% delivered: 91%% passes");
            topo_findings_free(&f);
            memset(&f, 0, sizeof(f));
            in.goodput_min = 0.95;
            fabric_analyze(&in, &f);
            is_str(first_fail(&f)->observed,
                   "90.91% delivered at worst, on every link; it sent 9.1% of its bytes again, "
                   "its partners 9.1% of theirs to it",
                   "a limit of 95%%: named, with the share delivered (of n3's own links only)");
            is_int((long long)f.nfail, 1, "...and nothing else");
            topo_findings_free(&f);
            /* a lossy link of a node that lost its rank is not judged by its wire (the rank's
             * death reset its connections): either end */
            memcpy(x, w, sizeof(x));
            x[2].wire_bytes = 1010000; /* n3->n4, rail 0 */
            in.goodput_min = 0;
            for (int k = 1; k <= 3; k++) {
                int lost[1] = { k }, named = 0;
                in.failed_nodes = lost;
                in.nfailed = 1;
                memset(&f, 0, sizeof(f));
                fabric_analyze(&in, &f);
                for (size_t i = 0; i < f.n; i++)
                    named += !strcmp(f.v[i].check, "link.goodput");
                is_int(named, k == 1 ? 1 : 0, "a lossy n3->n4 link, %s lost its rank: %s", names[k],
                       k == 1 ? "judged (not an end of it)" : "not judged by its wire");
                topo_findings_free(&f);
            }
            in.failed_nodes = NULL;
            in.nfailed = 0;
        }
        /* marks on both of n3's links, one of them lossy too: that one is named for its loss,
         * the other alone does not make the port congested */
        memcpy(x, w, sizeof(x));
        x[2].ce_frac = x[4].ce_frac = 0.05;
        x[2].wire_bytes = 1010000;
        is_str(fails(x, 8, 4, 2, NULL, expect),
               "link.goodput n3->n4/rail0;link.congestion n2->n3/rail0",
               "a lossy link is not counted as marked: the port is not named for marks");
        /* a link slow on a starved host (not judged for its goodput) still counted its wire */
        memcpy(x, w, sizeof(x));
        x[2].wire_bytes = x[4].wire_bytes = 1010000;
        x[4].bw_gbps = 0.6;
        x[4].wait_b = 0.5;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.goodput n3/rail0",
               "a lossy link slow on a starved host still counts for its port's loss");
        /* one direction's link unknown: the other alone does not name the port */
        x[2].wire_bytes = -1;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.goodput n2->n3/rail0",
               "a port's only wired link lossy: the pair, not the port");
        /* a link whose sender counted nothing (verbs, mpi) is not judged by its wire */
        memcpy(x, w, sizeof(x));
        x[2].wire_bytes = x[4].wire_bytes = -1;
        x[2].bytes = 10; /* nonsense, but unknown wire */
        is_str(fails(x, 8, 4, 2, NULL, expect), "", "unknown wire bytes: not judged by them");
    }
    /* a port that loses what it receives, from two senders; what it sends arrives */
    {
        struct fabric_link r[6] = { L(0, 0, 1, 2, .95), L(0, 0, 3, 0, .95), L(1, 0, 0, 2, .95),
                                    L(1, 0, 3, 1, .95), L(2, 0, 2, 3, .95), L(3, 0, 2, 0, .95) };
        struct fabric_port ports[4];
        struct topo_findings f = { 0 };
        struct fabric_input in = { 4, 1, names, ports, expect, r, 6, NULL, 0, NULL, 0, 0, 0 };
        for (int i = 0; i < 6; i++) {
            r[i].bytes = r[i].wire_bytes = 5000000;
            r[i].ce_frac = 0;
        }
        for (int i = 0; i < 4; i++)
            ports[i].carrier = 1;
        r[0].wire_bytes = r[2].wire_bytes = 5100000; /* into n3: 2% resent */
        is_str(fails(r, 6, 4, 1, NULL, expect), "link.goodput n3/rail0",
               "a port lossy on what it receives, from two senders: named");
        fabric_analyze(&in, &f);
        is_str(first_fail(&f)->observed,
               "98.04% delivered at worst, on every link it received; it sent 0% of its bytes "
               "again, its partners 2% of theirs to it",
               "...as the receiver that drops: what it sent, and what was sent to it");
        ok(strstr(first_fail(&f)->hint, "sent to this port are lost") != NULL, "...the hint: %s",
           first_fail(&f)->hint);
        topo_findings_free(&f);
        r[0].wire_bytes = r[2].wire_bytes = 5000000;
        r[4].wire_bytes = r[5].wire_bytes = 5100000; /* what n3 sends: it resends */
        memset(&f, 0, sizeof(f));
        fabric_analyze(&in, &f);
        ok(f.nfail == 1 && !strcmp(first_fail(&f)->subject, "n3/rail0") &&
               strstr(first_fail(&f)->observed, "every link it sent") &&
               strstr(first_fail(&f)->hint, "it resends"),
           "a port lossy on what it sends, to two receivers: named as the sender: %s",
           first_fail(&f)->observed);
        topo_findings_free(&f);
    }
    /* a partner as lossy as the port, but clean with a third node, clears the port; and a
     * sender lossy to two receivers that are clean elsewhere is named as the sender */
    {
        struct fabric_link p[6] = { L(0, 0, 2, 3, .95), L(0, 0, 1, 2, .95), L(1, 0, 1, 4, .95),
                                    L(1, 0, 0, 1, .95), L(2, 0, 3, 0, .95), L(2, 0, 4, 0, .95) };
        for (int i = 0; i < 6; i++) {
            p[i].bytes = p[i].wire_bytes = 5000000;
            p[i].ce_frac = 0;
        }
        p[0].wire_bytes = p[1].wire_bytes = p[2].wire_bytes = 5100000;
        is_str(fails(p, 6, 5, 1, NULL, expect), "link.goodput n2/rail0;link.goodput n3/rail0",
               "partners clean elsewhere clear a port even when as lossy as it");
    }
    /* two nodes, one of whose ports has no carrier: that evidence needs no partner */
    {
        struct fabric_link two[2] = { L(0, 0, 0, 1, -1), L(0, 1, 0, 1, .95) };
        int nocarrier[4] = { 1, 0, 0, 0 };
        is_str(fails(two, 2, 2, 2, nocarrier, expect), "nic.port.state n1/rail0",
               "two nodes, a port without carrier: named by its carrier, not left to the pair");
    }
    /* two nodes only: the pair is blamed, not a port */
    {
        struct fabric_link two[2] = { L(0, 0, 0, 1, 0.3), L(0, 1, 0, 1, -1) };
        is_str(fails(two, 2, 2, 2, NULL, expect),
               "link.path n1<->n2/rail0;link.unreachable n1<->n2/rail1",
               "two nodes: the pair is named");
    }
    /* a rank that died: its links are not link faults */
    memcpy(x, h, sizeof(x));
    x[4].rank_failed = x[5].rank_failed = 1;
    x[4].ok = x[5].ok = 0;
    {
        struct fabric_port ports[8];
        int failed[] = { 2 };
        struct topo_findings f = { 0 };
        struct fabric_input in = { 4, 2, names, ports, expect, x, 8, failed, 1, NULL, 0, 0, 0 };
        for (int i = 0; i < 8; i++)
            ports[i].carrier = 1;
        fabric_analyze(&in, &f);
        ok(f.nfail == 1 && !strcmp(f.v[0].check, "rank.failed") && !strcmp(f.v[0].subject, "n3"),
           "a lost rank is rank.failed on its node, nothing else");
        topo_findings_free(&f);
        /* n3's rail-0 rank died mid-round: its rail-1 link with n2 failed too (a reset), but
         * was not marked; a failed link of a node that lost a rank blames no port */
        x[5].rank_failed = 0;
        memset(&f, 0, sizeof(f));
        fabric_analyze(&in, &f);
        ok(f.nfail == 1 && !strcmp(f.v[0].check, "rank.failed") && !strcmp(f.v[0].subject, "n3"),
           "a failed link of a node with a lost rank blames no port (%zu failures)", f.nfail);
        topo_findings_free(&f);
    }
    /* errors that rose during a test are a warning */
    memcpy(x, h, sizeof(x));
    x[0].errors_b = 12;
    {
        struct fabric_port ports[8];
        struct topo_findings f = { 0 };
        struct fabric_input in = { 4, 2, names, ports, expect, x, 8, NULL, 0, NULL, 0, 0, 0 };
        for (int i = 0; i < 8; i++)
            ports[i].carrier = 1;
        fabric_analyze(&in, &f);
        ok(f.nfail == 0 && f.nwarn == 1, "rising error counters: one warning");
        topo_findings_free(&f);
    }
    {
        /* suspects for a retest: the culprit, and both ends of an unexplained pair */
        struct fabric_port ports[8];
        int suspect[4], good[4];
        struct fabric_input in = { 4, 2, names, ports, expect, x, 8, NULL, 0, NULL, 0, 0, 0 };
        for (int i = 0; i < 8; i++)
            ports[i].carrier = 1;
        memcpy(x, h, sizeof(x));
        x[1].bw_gbps = x[5].bw_gbps = 0.29;
        is_int((long long)fabric_suspects(&in, suspect, good), 1, "one suspect");
        ok(suspect[1] && !suspect[0] && !suspect[2] && !suspect[3], "...node n2");
        ok(good[3] == 2 && good[0] == 1 && good[1] == 0 && good[2] == 1,
           "n4 the only node with only good links (2); n1 and n3, slow only with the culprit, "
           "good (1); the culprit n2 not (%d %d %d %d)",
           good[0], good[1], good[2], good[3]);
        memcpy(x, h, sizeof(x));
        x[0].bw_gbps = 0.29; /* n1-n2 rail 0 low, both fine elsewhere */
        is_int((long long)fabric_suspects(&in, suspect, good), 2,
               "an unexplained pair: two suspects");
        ok(suspect[0] && suspect[1], "...both of its ends");
        /* the findings, not only the suspects: a pair low while both ends are fine with their
         * other partners is the path between them; neither port is blamed */
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.path n1<->n2/rail0",
               "a pair that neither end explains is named as the pair, not as a port");
    }
    {
        /* a port seen through one link only, low, whose partner is fine with two others: the
         * port is the culprit (its partner has as many bad links, but is fine elsewhere) */
        struct fabric_link one[3] = { L(0, 0, 0, 1, 0.29), L(1, 0, 1, 2, .95), L(2, 0, 1, 3, .95) };
        is_str(fails(one, 3, 4, 1, NULL, expect), "link.bandwidth n1/rail0",
               "a port whose one link is low, its partner fine elsewhere: the port is named");
    }
    /* same-leaf latency sets: 8 nodes on two leaves per rail, 3 rails (the majority of a node's
     * rails tells which one differs), n1's rail-1 cable on the other leaf; all pairs measured
     * (3 us within a leaf, 60 us through the spines) */
    {
        char *n8[] = { "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8" };
        struct fabric_link ap[84];
        struct fabric_port ports[24];
        struct topo_findings f = { 0 };
        size_t k = 0, nw = 0;
        const char *what = "";
        for (int a = 0; a < 8; a++)
            for (int b = a + 1; b < 8; b++)
                for (int r = 0; r < 3; r++) {
                    int la = a / 4, lb = b / 4;
                    if (r == 1 && a == 0)
                        la = 1; /* n1's rail-1 port is on the other leaf */
                    ap[k] = L((int)k / 3, r, a, b, .95);
                    ap[k].lat_p50_us = ap[k].lat_p99_us = la == lb ? 3 : 60;
                    k++;
                }
        for (int i = 0; i < 24; i++)
            ports[i].carrier = 1;
        {
            struct fabric_input in = { 8, 3, n8, ports, NULL, ap, k, NULL, 0, NULL, 0, 0, 0 };
            fabric_analyze(&in, &f);
        }
        nw = warnings(&f, &what);
        ok(nw == 1 && !strcmp(what, "n1/rail1"),
           "a port on another leaf of its rail: one rail.cabling warning (%zu, %s)", nw, what);
        topo_findings_free(&f);
        /* the same fabric at InfiniBand's latencies, under a microsecond within a leaf (0.6 us,
         * 1.3 us through the spines): the leaf boundary lies under 1 us too */
        {
            struct fabric_link ib[84];
            memcpy(ib, ap, k * sizeof(*ap));
            for (size_t i = 0; i < k; i++)
                ib[i].lat_p50_us = ib[i].lat_p99_us = ap[i].lat_p50_us == 3 ? 0.6 : 1.3;
            struct fabric_input in = { 8, 3, n8, ports, NULL, ib, k, NULL, 0, NULL, 0, 0, 0 };
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            nw = warnings(&f, &what);
            ok(nw == 1 && !strcmp(what, "n1/rail1"),
               "...at 0.6 us within a leaf and 1.3 us across: the same warning (%zu, %s)", nw,
               what);
            topo_findings_free(&f);
        }
        /* the same latencies taken while n1's host was short of CPU: the scheduler's, no leaf */
        {
            struct fabric_link busy[84];
            memcpy(busy, ap, k * sizeof(*ap));
            for (size_t i = 0; i < k; i++)
                if (busy[i].a == 0 && busy[i].rail == 1)
                    busy[i].pressure_a = 0.4;
            struct fabric_input in = { 8, 3, n8, ports, NULL, busy, k, NULL, 0, NULL, 0, 0, 0 };
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            nw = warnings(&f, &what);
            is_int((long long)nw, 0, "... taken on a host short of CPU: no leaf judged");
            topo_findings_free(&f);
            /* each end's wait and pressure at a tenth of the round exactly: the scheduler's; a
             * hair under it: the leaf's */
            for (int which = 0; which < 8; which++) {
                double v = which < 4 ? FABRIC_HOST_WAIT : FABRIC_HOST_WAIT - 0.001;
                static const char *const field[4] = { "wait_a", "wait_b", "pressure_a",
                                                      "pressure_b" };
                memcpy(busy, ap, k * sizeof(*ap));
                for (size_t i = 0; i < k; i++) {
                    struct fabric_link *l = &busy[i];
                    double *at[4] = { &l->wait_a, &l->wait_b, &l->pressure_a, &l->pressure_b };
                    if (l->a == 0 && l->rail == 1)
                        *at[which % 4] = v;
                }
                memset(&f, 0, sizeof(f));
                fabric_analyze(&in, &f);
                is_int((long long)warnings(&f, &what), which < 4 ? 0 : 1,
                       "... %s %.3f on n1's rail-1 links: %s", field[which % 4], v,
                       which < 4 ? "no leaf judged" : "the warning");
                topo_findings_free(&f);
            }
        }
        /* rail 1 at InfiniBand's latencies, rails 0 and 2 at Ethernet's; and a link of rail 0
         * whose latency reads 0 (not measured): each rail's leaves from its own latencies */
        {
            struct fabric_link mix[84];
            memcpy(mix, ap, k * sizeof(*ap));
            for (size_t i = 0; i < k; i++)
                if (mix[i].rail == 1)
                    mix[i].lat_p50_us = mix[i].lat_p99_us = ap[i].lat_p50_us == 3 ? 0.6 : 1.3;
            struct fabric_input in = { 8, 3, n8, ports, NULL, mix, k, NULL, 0, NULL, 0, 0, 0 };
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            nw = warnings(&f, &what);
            ok(nw == 1 && !strcmp(what, "n1/rail1"),
               "... rail 1 at 0.6/1.3 us beside rails at 3/60 us: the same warning (%zu, %s)", nw,
               what);
            topo_findings_free(&f);
            mix[3].lat_p50_us = mix[3].lat_p99_us = 0; /* n1-n3, rail 0 */
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            nw = warnings(&f, &what);
            ok(nw == 1 && !strcmp(what, "n1/rail1"),
               "... and a rail-0 latency of 0 (not measured) left out: the same (%zu, %s)", nw,
               what);
            topo_findings_free(&f);
        }
        /* the same with n1's rank lost: its latencies were disturbed by the death, no leaf */
        {
            int lost[1] = { 0 };
            struct fabric_input in = { 8, 3, n8, ports, NULL, ap, k, lost, 1, NULL, 0, 0, 0 };
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            is_int((long long)warnings(&f, &what), 0,
                   "... n1's rank lost: its latencies judge no leaf (%s)", what);
            topo_findings_free(&f);
            lost[0] = 7; /* n8's: only its own links are left out, n1/rail1 is still warned */
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            nw = warnings(&f, &what);
            ok(nw == 1 && !strcmp(what, "n1/rail1"),
               "... n8's rank lost: n1/rail1 still warned from its other peers (%zu, %s)", nw,
               what);
            topo_findings_free(&f);
        }
        /* n2's, then n8's rail-2 port slow with every partner and its latencies inverted (near
         * the other leaf, far from its own): a culprit, at either end of its links, whose
         * latencies say nothing of leaves */
        for (int who = 1; who < 8; who += 6) {
            struct fabric_link slow[84];
            char port[16];
            memcpy(slow, ap, k * sizeof(*ap));
            for (size_t i = 0; i < k; i++)
                if ((slow[i].a == who || slow[i].b == who) && slow[i].rail == 2) {
                    slow[i].bw_gbps = 0.3;
                    slow[i].lat_p50_us = slow[i].lat_p99_us = ap[i].lat_p50_us == 3 ? 60 : 3;
                }
            snprintf(port, sizeof(port), "%s/rail2", n8[who]);
            struct fabric_input in = { 8, 3, n8, ports, NULL, slow, k, NULL, 0, NULL, 0, 0, 0 };
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            nw = warnings(&f, &what);
            ok(nw == 1 && !strcmp(what, "n1/rail1") && f.nfail == 1 &&
                   !strcmp(first_fail(&f)->subject, port),
               "... %s slow, its latencies inverted: link.bandwidth on it, and still only "
               "n1/rail1 warned (%zu, %s, %s)",
               port, nw, what, first_fail(&f)->subject);
            topo_findings_free(&f);
        }
        /* the spine layer slow (every pair between the leaves at 0.2 on every rail) and n7's
         * rail-2 port on the other leaf, measured with its own leaf's peers only (as a
         * neighbour schedule does): every path of it crosses the slow spines, so it is slow
         * with every partner, and far where its other rails are near. The spine layer and the
         * cable are named; the port's slowness is the spine's (no link.bandwidth). With the
         * spines fine, the same slow port with far latencies is the port's own (link.bandwidth,
         * no cabling: a slow port's latencies say nothing of its leaf); and far latencies
         * without the slowness are a cable on another leaf, named as ever. */
        for (int spine = 0; spine < 3; spine++) {
            struct fabric_link sp[84];
            size_t m = 0;
            for (size_t i = 0; i < k; i++) {
                struct fabric_link lk = ap[i];
                int across = lk.a / 4 != lk.b / 4, mine = lk.rail == 2 && (lk.a == 6 || lk.b == 6);
                if (lk.a == 0 && lk.rail == 1) /* n1's rail 1 as the fabric above has it */
                    across = !across;
                if (mine && across)
                    continue; /* n7's rail 2 measured with its own leaf only */
                if (mine) {
                    lk.lat_p50_us = lk.lat_p99_us = 60;
                    lk.bw_gbps = spine < 2 ? .2 : .95;
                } else if (across && spine == 0)
                    lk.bw_gbps = .2;
                sp[m++] = lk;
            }
            const char *want[] = {
                "fabric.spine spine layer;rail.cabling n1/rail1;rail.cabling n7/rail2",
                "link.bandwidth n7/rail2;rail.cabling n1/rail1",
                "rail.cabling n1/rail1;rail.cabling n7/rail2"
            };
            const char *says[] = {
                "a slow spine: the spine and n7/rail2's cable, its slowness folded",
                "spines fine: n7/rail2 slow is its own, no cabling said",
                "n7/rail2 far and not slow: on the other leaf, as ever"
            };
            is_str(fails(sp, m, 8, 3, NULL, NULL), want[spine], "leaves: %s", says[spine]);
        }
        /* the same, the latencies from a latency sweep's ping-pong links (no goodput) and the
         * measured links carrying none: the same warning */
        {
            struct fabric_link bw[84];
            for (size_t i = 0; i < k; i++) {
                bw[i] = ap[i];
                bw[i].lat_p50_us = bw[i].lat_p99_us = -1;
            }
            struct fabric_input in = { 8, 3, n8, ports, NULL, bw, k, NULL, 0, ap, k, 0, 0 };
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            nw = warnings(&f, &what);
            ok(nw == 1 && !strcmp(what, "n1/rail1") && f.nfail == 0,
               "latencies of a latency sweep alone: the same rail.cabling warning (%zu, %s)", nw,
               what);
            topo_findings_free(&f);
        }
        /* 64 nodes on two leaves per rail, all pairs, n1's rail-1 port on the other leaf, and
         * two rail-0 latencies stray into the gap between the leaves (a host's hiccup): the
         * leaves still part, and only n1/rail1 is warned about */
        {
            size_t nb = 64 * 63 / 2 * 3, kb = 0;
            struct fabric_link *big = calloc(nb, sizeof(*big));
            struct fabric_port bports[64 * 3];
            int strays = 0;
            for (int i = 0; i < 64 * 3; i++)
                bports[i].carrier = 1;
            for (int a = 0; a < 64; a++)
                for (int b = a + 1; b < 64; b++)
                    for (int r = 0; r < 3; r++) {
                        int la = a / 32, lb = b / 32;
                        if (r == 1 && a == 0)
                            la = 1;
                        big[kb] = L((int)kb / 3, r, a, b, .95);
                        big[kb].lat_p50_us = big[kb].lat_p99_us = la == lb ? 1.2 : 2.7;
                        if (r == 0 && la == lb && a >= 2 && strays < 2) {
                            big[kb].lat_p50_us = big[kb].lat_p99_us = 2.1;
                            strays++;
                        }
                        kb++;
                    }
            struct fabric_input in = { 64,   3, names64(), bports, NULL, big, kb,
                                       NULL, 0, NULL,      0,      0,    0 };
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            nw = warnings(&f, &what);
            ok(nw == 1 && !strcmp(what, "n1/rail1"),
               "two latencies astray in the gap between the leaves: still one rail.cabling "
               "warning (%zu, %s)",
               nw, what);
            topo_findings_free(&f);
            free(big);
        }
        /* latencies astray beyond the two groups, as at 256 x 8 (a port on another rail's leaf,
         * two of its pings queued behind a slow spine's traffic): up to 15 of 2,016 are left out
         * of a side's spread, and a side of 15 or fewer is no group; the leaves still part, and
         * only n1/rail1 is warned about */
        {
            static const struct {
                int nhigh;
                double high;
                int nlow;
                double low;
                const char *what;
            } astray[] = {
                { 0, 0, 0, 0, "a port on another rail's leaf, 3.0 us from its rail" },
                { 2, 7.6, 0, 0,
                  "...two of its pings at 7.6 us, which spread the upper side wider "
                  "than the gap" },
                { 15, 7.6, 0, 0, "...15 of its pings at 7.6 us, as many as a side may leave out" },
                { 2, 20, 0, 0, "...two of its pings at 20 us, a wider gap above two links only" },
                { 0, 0, 2, 0.4,
                  "...two latencies within a leaf at 0.4 us, a wider gap below two "
                  "links only" },
                { 0, 0, 15, 0.5,
                  "...15 latencies within a leaf at 0.5 us, a side of as many as "
                  "it may leave out" },
            };
            for (size_t i = 0; i < sizeof(astray) / sizeof(astray[0]); i++) {
                nw = leaves_astray(astray[i].nhigh, astray[i].high, astray[i].nlow, astray[i].low,
                                   &what);
                ok(nw == 1 && !strcmp(what, "n1/rail1"), "%s: one rail.cabling warning (%zu, %s)",
                   astray[i].what, nw, what);
            }
        }
        /* the spine layer: every pair between the two leaves slow on every rail, within a leaf
         * fine: one fabric.spine failure, no port named, no node at fault */
        {
            size_t nspine = 0, nport = 0;
            k = 0;
            for (int a = 0; a < 8; a++)
                for (int b = a + 1; b < 8; b++)
                    for (int r = 0; r < 3; r++) {
                        int far = a / 4 != b / 4;
                        ap[k] = L((int)k / 3, r, a, b, far ? .2 : .95);
                        ap[k].lat_p50_us = ap[k].lat_p99_us = far ? 60 : 3;
                        k++;
                    }
            struct fabric_input in = { 8, 3, n8, ports, NULL, ap, k, NULL, 0, NULL, 0, 0, 0 };
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            for (size_t i = 0; i < f.n; i++) {
                nspine += f.v[i].sev == TOPO_SEV_FAIL && !strcmp(f.v[i].check, "fabric.spine");
                nport += f.v[i].sev == TOPO_SEV_FAIL && !strcmp(f.v[i].check, "link.bandwidth");
            }
            ok(nspine == 1 && nport == 0,
               "slow between leaves only: one fabric.spine, no port (%zu, %zu)", nspine, nport);
            is_str(said(ap, k, 8, 3, NULL, TOPO_SEV_FAIL, "fabric.spine", "spine layer"),
                   "48 slow paths, every one between two leaves (rails 0,1,2)",
                   "...with the count of slow paths and the rails");
            topo_findings_free(&f);
            for (size_t i = 0; i < k; i++) /* rail 1 fine between the leaves */
                if (ap[i].rail == 1)
                    ap[i].bw_gbps = .95;
            is_str(said(ap, k, 8, 3, NULL, TOPO_SEV_FAIL, "fabric.spine", "spine layer"),
                   "32 slow paths, every one between two leaves (rails 0,2)",
                   "...rails 0 and 2 slow between the leaves: those two named");
            /* one pair within a leaf slow as well: not the spine layer's alone, not said */
            ap[0].bw_gbps = .2; /* n1-n2 rail 0, same leaf */
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
            nspine = 0;
            for (size_t i = 0; i < f.n; i++)
                nspine += !strcmp(f.v[i].check, "fabric.spine");
            ok(nspine == 0, "a slow pair within a leaf too: no fabric.spine (%zu)", nspine);
            topo_findings_free(&f);
        }
        /* n2's rail-0 port on another rail's switch (reaches nobody, carrier up), and the
         * latencies of its other two rails disturbed: the failure is named, the two healthy
         * rails are not warned about (they are too few to outvote each other) */
        k = 0;
        for (int a = 0; a < 8; a++)
            for (int b = a + 1; b < 8; b++)
                for (int r = 0; r < 3; r++) {
                    int la = a / 4, lb = b / 4;
                    ap[k] = L((int)k / 3, r, a, b, (a == 1 || b == 1) && r == 0 ? -1 : .95);
                    ap[k].lat_p50_us = ap[k].lat_p99_us = la == lb ? 3 : 60;
                    if ((a == 1 || b == 1) && r == 1)
                        ap[k].lat_p50_us = ap[k].lat_p99_us = la == lb ? 60 : 3;
                    k++;
                }
        {
            struct fabric_input in = { 8, 3, n8, ports, NULL, ap, k, NULL, 0, NULL, 0, 0, 0 };
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
        }
        topo_findings_sort(&f);
        ok(f.nfail == 1 && !strcmp(f.v[0].check, "rail.cabling") &&
               !strcmp(f.v[0].subject, "n2/rail0") && f.nwarn == 0,
           "a miscabled port: named; its node's other rails' latencies not warned about "
           "(%zu failures, %zu warnings)",
           f.nfail, f.nwarn);
        ok(f.nunjudged == 1 && strstr(f.unjudged[0], "n2: the same-leaf peers"),
           "... and said not judged: %s", f.nunjudged ? f.unjudged[0] : "(none)");
        topo_findings_free(&f);
        /* 4 nodes, two peers each: n2's two rail-0 latencies taken on a busy host (200 us) are
         * too few to judge a leaf */
        memcpy(x, h, sizeof(x));
        for (int i = 0; i < 8; i++)
            x[i].lat_p50_us = x[i].lat_p99_us = 20;
        x[0].lat_p50_us = x[4].lat_p50_us = 200;
        {
            struct fabric_input in = { 4, 2, names, ports, expect, x, 8, NULL, 0, NULL, 0, 0, 0 };
            memset(&f, 0, sizeof(f));
            fabric_analyze(&in, &f);
        }
        is_int((long long)f.nwarn, 0, "two noisy latencies of one node judge no leaf");
        topo_findings_free(&f);
    }
    /* measurements on a starved host: inconclusive, never a finding */
    {
        struct fabric_port ports[8];
        struct topo_findings f = { 0 };
        struct fabric_input in = { 4, 2, names, ports, expect, x, 8, NULL, 0, NULL, 0, 0, 0 };
        int suspect[4], good[4];
        for (int i = 0; i < 8; i++)
            ports[i].carrier = 1;
        is_int((long long)(fabric_host_share(0.1, 0, 0, 0.2, 0, 0) * 100), 100,
               "share: ranks that never waited, hosts never short of CPU: 1");
        is_int((long long)(fabric_host_share(0.1, -1, -1, 0.2, -1, -1) * 100), 100,
               "share: nothing known: 1");
        is_int((long long)(fabric_host_share(0.1, 0.02, 0.05, 0.2, 0.05, 0.08) * 100 + 0.5), 92,
               "share: small waits explain what they lost too: the host short of CPU 8%%: 0.92");
        is_int((long long)(fabric_host_share(0.1, 0.03, -1, 0.2, 0.01, -1) * 100 + 0.5), 97,
               "share: a rank that waited 3%%: 0.97");
        is_int((long long)(fabric_host_share(0.1, 0.35, -1, 0.2, 0.05, -1) * 100 + 0.5), 65,
               "share: an end that waited 35%% of the round: 0.65");
        is_int((long long)(fabric_host_share(0.1, 0.02, 0.2, 0.2, 0.05, 0.45) * 100 + 0.5), 55,
               "share: a host short of CPU 45%% of the round: 0.55");
        is_int((long long)(fabric_host_share(0.1, 0.3, 0.2, 0.2, 0.05, -1) * 100 + 0.5), 70,
               "share: the longer of wait and pressure: 0.7");
        is_int((long long)(fabric_host_share(0.1, 0.02, 0.95, 0.2, 0.05, 0.9) * 100 + 0.5), 50,
               "share: a pressure explains at most half the floor: 0.5");
        is_int((long long)(fabric_host_share(0.1, 0.7, 0.95, 0.2, 0.05, 0.9) * 100 + 0.5), 30,
               "share: the rank's own wait is not capped: 0.3");
        is_int((long long)(fabric_host_share(0.95, 0, -1, 0.2, 0, -1) * 100), 0,
               "share: a CPU-bound end: 0");
        memcpy(x, h, sizeof(x));
        x[1].bw_gbps = 0.7; /* n1-n2 rail 1 below the 0.9 floor... */
        x[1].wait_b = 0.35; /* ...while n2's rank waited for a CPU 35% of the round */
        is_str(fails(x, 8, 4, 2, NULL, expect), "",
               "a link low by what its starved host explains: no finding (was link.path)");
        fabric_analyze(&in, &f);
        ok(f.nunjudged == 1 && strstr(f.unjudged[0], "n1->n2/rail1: 0.7 Gb/s while the rank of "
                                                     "n2 waited for a CPU 35% of the round"),
           "... it is named as not judged: %s", f.nunjudged ? f.unjudged[0] : "(none)");
        topo_findings_free(&f);
        fabric_suspects(&in, suspect, good);
        ok(suspect[0] && suspect[1] && !suspect[2] && !suspect[3], "... and retested");
        x[1].bw_gbps = 0.29; /* far lower than the lost CPU time explains: the link */
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.path n1<->n2/rail1",
               "a link lower than its host's wait explains is judged");
        x[1].wait_b = 0.05; /* the wait under the threshold: judged as measured */
        x[1].bw_gbps = 0.7;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.path n1<->n2/rail1",
               "a wait under a tenth of the round changes nothing");
        x[1].cpu_a = 0.97; /* the sender used a full core: its host was the limit */
        x[1].bw_gbps = 0.29;
        is_str(fails(x, 8, 4, 2, NULL, expect), "",
               "a CPU-bound end: the low link is inconclusive");
        memcpy(x, h, sizeof(x));
        x[4] = L(1, 0, 1, 2, -1);
        strcpy(x[4].error, "connect 10.0.0.3:7000: no answer before the deadline");
        x[4].wait_a = 0.4;
        is_str(fails(x, 8, 4, 2, NULL, expect), "",
               "a link that missed its deadline while an end waited for a CPU: inconclusive");
        x[4].wait_a = 0;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.unreachable n2<->n3/rail0",
               "the same without the wait: unreachable");
        x[4].wait_b = 0.1; /* the receiver's, a tenth of the round exactly: inconclusive */
        is_str(fails(x, 8, 4, 2, NULL, expect), "",
               "missed its deadline, the receiver's rank waited 10%%: inconclusive");
        x[4].wait_b = 0.099; /* a hair under: a small wait does not explain a failure */
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.unreachable n2<->n3/rail0",
               "missed its deadline, the receiver's rank waited 9.9%%: unreachable");
        x[4].wait_b = 0;
        x[4].wait_a = 0.099;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.unreachable n2<->n3/rail0",
               "...the sender's 9.9%%: unreachable");
        x[4].wait_a = 0;
        /* a degraded port still found beside the starved links */
        memcpy(x, h, sizeof(x));
        x[1].bw_gbps = x[5].bw_gbps = 0.29; /* n2 rail 1 slow with both partners */
        x[1].wait_b = x[5].wait_a = 0.2;
        x[2].bw_gbps = 0.8;
        x[2].wait_a = 0.3; /* n3-n4 rail 0 a little low on a busy n3 */
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.bandwidth n2/rail1",
               "busy hosts: the degraded port is still named, the busy link is not");
        x[3].lat_p50_us = 900; /* a latency taken while waiting: not a leaf's evidence */
        x[3].wait_a = 0.5;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.bandwidth n2/rail1", "... nor its latency");
        /* a port lossy both ways under a map that tolerates its loss (goodput_ratio_min 0.97):
         * n3->n4 low from the loss, n2->n3 fine though it resent too, n4->n1 low on a starved
         * host (not judged). n3, proven fine only by a link that resent, does not clear n4: the
         * low link is the pair's, and n4, whose other partner was not judged, is not named */
        {
            memcpy(x, h, sizeof(x));
            for (int i = 0; i < 8; i++)
                x[i].bytes = x[i].wire_bytes = 1000000;
            x[2].wire_bytes = x[4].wire_bytes = 1010000; /* n3's rail 0 resends 1% both ways */
            x[2].bw_gbps = 0.62;                         /* n3->n4 low: judged (no wait) */
            x[6].bw_gbps = 0.7;                          /* n4->n1 low while n4 waited 40% */
            x[6].wait_a = 0.4;
            in.goodput_min = 0.97;
            is_str(fails_in(&in), "link.path n3<->n4/rail0",
                   "a port that lost packets, fine with one partner, clears no other: the pair");
            x[4].wire_bytes = 1000000; /* n2->n3 clean: n3 is proven fine, n4 is named */
            is_str(fails_in(&in), "link.bandwidth n4/rail0",
                   "...the same where n3's other link resent nothing: n4 named");
            x[4].wire_bytes = 1004000; /* 99.6% delivered: within the default, clean enough */
            is_str(fails_in(&in), "link.bandwidth n4/rail0",
                   "...and where it resent 0.4%%, within the default limit: n4 named");
            x[4].wire_bytes = 1000000;
            x[4].bytes = 995000; /* 99.5% delivered: the default limit itself, clean enough */
            is_str(fails_in(&in), "link.bandwidth n4/rail0",
                   "...and where it delivered 99.5%%, the default limit exactly: n4 named");
            x[4].bytes = 994999;
            is_str(fails_in(&in), "link.path n3<->n4/rail0",
                   "...and where it delivered 99.4999%%, just under it: the pair");
            x[4].bytes = 1000000;
            x[4].wire_bytes = 1006000; /* 99.4%: past the default, within the map's */
            is_str(fails_in(&in), "link.path n3<->n4/rail0",
                   "...and where it resent 0.6%%, past the default limit: the pair");
            in.goodput_min = 0.999; /* a map stricter than the default: its limit is the one */
            x[4].wire_bytes = 1002000;
            x[2].wire_bytes = 1000000;
            is_str(fails_in(&in), "link.goodput n2->n3/rail0;link.path n3<->n4/rail0",
                   "...a stricter map: 0.2%% resent is lossy, clears nothing");
            in.goodput_min = 0;
        }
        /* the host short of CPU while the rank itself did not wait: the kernel's network work
         * (softirq threads) waited, which the rank's own run delay does not see */
        memcpy(x, h, sizeof(x));
        x[1].bw_gbps = 0.85; /* n1-n2 rail 1 a little under the 0.9 floor */
        x[1].wait_a = x[1].wait_b = 0.02;
        x[1].pressure_b = 0.5; /* while tasks of n2's host waited for a CPU half the round */
        is_str(fails(x, 8, 4, 2, NULL, expect), "",
               "a link low by what its host's CPU pressure explains: no finding (was link.path)");
        memset(&f, 0, sizeof(f));
        fabric_analyze(&in, &f);
        ok(f.nunjudged == 1 && strstr(f.unjudged[0], "n1->n2/rail1: 0.85 Gb/s while the host of "
                                                     "n2 was short of CPU"),
           "... it is named as not judged, with the host: %s",
           f.nunjudged ? f.unjudged[0] : "(none)");
        ok(f.nunjudged == 1 && strstr(f.unjudged[0], " 50% of the round"), "... and the share");
        topo_findings_free(&f);
        x[1].wait_b = 0.55;
        x[1].pressure_b = 0.7; /* pressure counts for 0.5 at most: the rank's wait decided */
        memset(&f, 0, sizeof(f));
        fabric_analyze(&in, &f);
        ok(f.nunjudged == 1 && strstr(f.unjudged[0], "the rank of n2 waited for a CPU 55%"),
           "... named by the rank's wait when that, not the capped pressure, decided: %s",
           f.nunjudged ? f.unjudged[0] : "(none)");
        topo_findings_free(&f);
        x[1].wait_b = 0.02;
        x[1].pressure_b = 0.5;
        x[1].bw_gbps = 0.4; /* lower than the pressure explains */
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.path n1<->n2/rail1",
               "a link lower than its host's CPU pressure explains is judged");
        x[1].pressure_b = 0.95; /* however short of CPU the host, under half the floor */
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.path n1<->n2/rail1",
               "a link under half the floor is judged on a host short of CPU 95%% of the round");
        x[1].bw_gbps = 0.5;
        is_str(fails(x, 8, 4, 2, NULL, expect), "", "...and one over half of it is not");
        x[1].pressure_b = 0.5;
        x[1].bw_gbps = 0.85;
        x[1].pressure_b = 0.06; /* a small pressure explains a small shortfall: 94% of 0.9 */
        is_str(fails(x, 8, 4, 2, NULL, expect), "",
               "pressure 6%%, a link at 0.85 (over 94%% of the floor): not judged");
        x[1].bw_gbps = 0.84;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.path n1<->n2/rail1",
               "pressure 6%%, a link at 0.84 (under 94%% of the floor): judged");
        x[1].pressure_b = 0.01;
        x[1].wait_b = 0.07; /* the rank's wait the longer: 93% of 0.9 is 0.837 */
        is_str(fails(x, 8, 4, 2, NULL, expect), "",
               "a rank that waited 7%%, a link at 0.84 (over 93%% of the floor): not judged");
        x[1].bw_gbps = 0.83;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.path n1<->n2/rail1",
               "a rank that waited 7%%, a link at 0.83 (under it): judged");
        x[1].pressure_b = -1;
        x[1].pressure_a = 0.3; /* either end's host */
        is_str(fails(x, 8, 4, 2, NULL, expect), "", "the sender's host short of CPU: no finding");
        /* a failure is not explained by pressure alone: a dead port behind a busy host */
        memcpy(x, h, sizeof(x));
        x[4] = L(1, 0, 1, 2, -1);
        strcpy(x[4].error, "connect 10.0.0.3:7000: no answer before the deadline");
        x[4].pressure_a = x[4].pressure_b = 0.6;
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.unreachable n2<->n3/rail0",
               "a link that missed its deadline on a host short of CPU: still unreachable");
    }
    {
        const char *psi = "some avg10=12.50 avg60=8.00 avg300=2.40 total=8434751\n"
                          "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        is_int((long long)(fabric_host_parse_pressure(psi) * 1e6 + 0.5), 8434751,
               "pressure: the \"some\" total, in seconds");
        is_int((long long)(fabric_host_parse_pressure("full avg10=0.00 total=77\n"
                                                      "some avg10=1.00 total=5000000\n") +
                           0.5),
               5, "pressure: the \"some\" line wherever it is");
        ok(fabric_host_parse_pressure("full avg10=0.00 total=77\n") < 0,
           "pressure: no \"some\" line: unknown");
        ok(fabric_host_parse_pressure("some avg10=1.00\nfull total=5\n") < 0,
           "pressure: a \"some\" line without a total: unknown (not the next line's)");
        ok(fabric_host_parse_pressure("") < 0, "pressure: empty: unknown");
    }
    {
        struct fabric_host_sample a, b;
        double cpu, wait, press;
        volatile double spin = 0;
        fabric_host_sample(&a);
        for (int i = 0; i < 20000000; i++)
            spin += i;
        fabric_host_sample(&b);
        fabric_host_load(&a, &b, &cpu, &wait, &press);
        ok(b.wall > a.wall && cpu > 0 && cpu <= 1 && (wait < 0 || (wait >= 0 && wait <= 1)),
           "the thread's load over a busy loop: ran %.2f, waited %.2f of it", cpu, wait);
        if (access("/proc/pressure/cpu", R_OK) == 0)
            ok(a.pressure >= 0 && b.pressure >= a.pressure && press >= 0 && press <= 1,
               "the host's CPU pressure read (%.2f of the loop)", press);
        else
            ok(a.pressure < 0 && press < 0, "a kernel without /proc/pressure/cpu: unknown");
        a.cpu = -1;
        a.pressure = 5e9;
        fabric_host_load(&a, &b, &cpu, &wait, &press);
        ok(cpu < 0 && press < 0,
           "an unknown CPU time stays unknown, and a pressure that went back");
        a.pressure = b.pressure - 100 * (b.wall - a.wall);
        fabric_host_load(&a, &b, &cpu, &wait, &press);
        ok(press == 1, "a pressure share is at most 1");
    }
    {
        double v[] = { 5, 1, 3, 2, 4 };
        is_int((long long)(fabric_median(v, 5) * 10), 30, "median of 5");
        double w[] = { 4, 1, 3, 2 };
        is_int((long long)(fabric_median(w, 4) * 10), 25, "median of 4");
        double p[100];
        for (int i = 0; i < 100; i++)
            p[i] = 100 - i;
        is_int((long long)fabric_percentile(p, 100, 99), 99, "p99 of 1..100");
        is_int((long long)fabric_percentile(p, 100, 50), 50, "p50 of 1..100");
    }
    {
        /* a link's error: the end that failed on its own, not the one that saw it hang up */
        const char *hung = "receive: connection closed by the peer";
        const char *own = "rxe_b0: RDMA read: byte 4096 differs";
        is_str(fabric_link_error(0, hung, 0, own), own, "the receiver's own error, not the echo");
        is_str(fabric_link_error(0, own, 0, hung), own, "the sender's own error, not the echo");
        is_str(fabric_link_error(0, hung, 1, ""), hung, "only one end failed: its error");
        is_str(fabric_link_error(1, "", 0, own), own, "the receiver alone failed");
        is_str(fabric_link_error(0, hung, 0, hung), hung, "both hung up: the sender's");
        is_str(fabric_link_error(0, "a: deadline", 0, "b: x"), "a: deadline",
               "two errors of their own: the sender's first");
        is_str(fabric_link_error(1, "", 1, ""), "", "both ends fine: no error");
    }
    {
        /* outliers: 8 nodes on one rail, a ring of rounds (i, i+1) and (i, i+2); floor 0.5 */
        struct fabric_link o[16];
        double lo[1] = { 0.5 };
        size_t n = 0;
        for (int i = 0; i < 8; i++) {
            o[n++] = L(0, 0, i, (i + 1) % 8, 0.95 + 0.002 * i);
            o[n++] = L(1, 0, i, (i + 2) % 8, 0.95 - 0.002 * i);
        }
        is_str(fails(o, n, 8, 1, NULL, lo), "", "outliers: a healthy rail has none");
        for (size_t i = 0; i < n; i++)
            if (o[i].a == 4 || o[i].b == 4)
                o[i].bw_gbps = 0.6; /* n5: above the floor, 37% below the others */
        is_str(fails(o, n, 8, 1, NULL, lo), "link.outlier n5/rail0",
               "a port that clears the floor but lags the rail: link.outlier (a warning)");
        {
            /* a link of n5's that failed after it moved data at full speed: a failure's
             * figure is not the port's best */
            struct fabric_link of[17];
            memcpy(of, o, sizeof(o));
            of[16] = L(2, 0, 4, 0, 0.95);
            of[16].ok = 0;
            strcpy(of[16].error, "connection reset by peer");
            ok(strstr(fails(of, 17, 8, 1, NULL, lo), "link.outlier n5/rail0") != NULL,
               "...with a failed link of 0.95 Gb/s beside: still an outlier (%s)",
               fails(of, 17, 8, 1, NULL, lo));
        }
        for (size_t i = 0; i < n; i++)
            if (o[i].a == 4 || o[i].b == 4)
                o[i].bw_gbps = 0.8; /* 16% below: within 20% of the median */
        is_str(fails(o, n, 8, 1, NULL, lo), "", "16%% below the median: not an outlier");
        for (size_t i = 0; i < n; i++)
            if (o[i].b == 4)
                o[i].bw_gbps = 0.6; /* slow to receive, fine to send: its best is 0.8 */
        is_str(fails(o, n, 8, 1, NULL, lo), "",
               "a port whose best link is one it sent: not an outlier");
        for (size_t i = 0; i < n; i++)
            if (o[i].a == 4 || o[i].b == 4)
                o[i].bw_gbps = o[i].a == 4 ? 0.6 : 0.8; /* ...and the other way round */
        is_str(fails(o, n, 8, 1, NULL, lo), "", "...nor one whose best link is one it received");
        for (size_t i = 0; i < n; i++)
            if (o[i].a == 4 || o[i].b == 4)
                o[i].bw_gbps = 0.5; /* at the floor exactly: it clears it, and lags */
        is_str(fails(o, n, 8, 1, NULL, lo), "link.outlier n5/rail0",
               "at the floor with every partner: an outlier, not a failure");
        {
            /* n5 lags because it loses packets: the loss is the finding, the lag it causes is
             * not named again as an outlier; a lossy link of n5's alone explains no lag */
            struct fabric_link w[16];
            memcpy(w, o, sizeof(w));
            for (size_t i = 0; i < n; i++) {
                w[i].bw_gbps = w[i].a == 4 || w[i].b == 4 ? 0.6 : 0.95;
                w[i].bytes = w[i].wire_bytes = 1000000;
                if (w[i].a == 4 || w[i].b == 4)
                    w[i].wire_bytes = 1010000; /* 1% resent, with every partner */
            }
            is_str(fails(w, n, 8, 1, NULL, lo), "link.goodput n5/rail0",
                   "a port lossy with every partner, lagging the rail: link.goodput alone");
            for (size_t i = 0; i < n; i++)
                if (w[i].a == 4 || w[i].b == 4)
                    w[i].wire_bytes = w[i].a == 4 && w[i].b == 5 ? 1010000 : 1000000;
            is_str(fails(w, n, 8, 1, NULL, lo), "link.goodput n5->n6/rail0;link.outlier n5/rail0",
                   "...lossy toward one partner only: that link's goodput, and the lag with "
                   "every partner is still an outlier");
        }
        for (size_t i = 0; i < n; i++)
            if (o[i].a == 4 || o[i].b == 4)
                o[i].bw_gbps = 0.6;
        {
            /* each port's own speed; a link runs at its slower end's */
            const double sp[8] = { 1.3, 0.7, 1.2, 0.8, 0.6, 1.1, 0.75, 1.25 };
            for (size_t i = 0; i < n; i++)
                o[i].bw_gbps = sp[o[i].a] < sp[o[i].b] ? sp[o[i].a] : sp[o[i].b];
            is_str(fails(o, n, 8, 1, NULL, lo), "",
                   "a rail whose ports spread widely (large MAD): 0.6 is within four MADs");
        }
        {
            struct fabric_link three[2] = { L(0, 0, 0, 1, 0.95), L(0, 0, 1, 4, 0.6) };
            is_str(fails(three, 2, 8, 1, NULL, lo), "",
                   "fewer than four ports measured on the rail: no outlier judged");
        }
        for (size_t i = 0; i < n; i++)
            o[i].bw_gbps = o[i].a == 4 || o[i].b == 4 ? 0.6 : 0.95;
        o[0].wait_a = 0.5; /* a starved host: the link says nothing */
        for (size_t i = 0; i < n; i++)
            if (o[i].a == 4 || o[i].b == 4)
                o[i].bw_gbps = 0.3; /* below the floor: a culprit, not an outlier */
        is_str(fails(o, n, 8, 1, NULL, lo), "link.bandwidth n5/rail0",
               "a port below the floor is a failure, not also an outlier");
    }
    {
        /* the reason Slurm shows: one node's failures, the first one, "+N" for the others */
        struct topo_findings f = { 0 };
        char buf[96] = "untouched";
        topo_findings_add(&f, TOPO_SEV_FAIL, "link.bandwidth", "n2/rail1", ">= 0.18 Gb/s",
                          "0.05 Gb/s with every partner", NULL);
        topo_findings_add(&f, TOPO_SEV_FAIL, "rail.cabling", "n2/rail0",
                          "reaches the peers of its rail",
                          "link up, reaches none of its rail's peers", NULL);
        topo_findings_add(&f, TOPO_SEV_FAIL, "link.path", "n1<->n3/rail0", NULL, "0.1 Gb/s", NULL);
        topo_findings_add(&f, TOPO_SEV_WARN, "link.outlier", "n4/rail0", NULL, "slow", NULL);
        topo_findings_sort(&f);
        is_int((long long)topo_findings_reason(&f, "n4", 1, "railyard: ", buf, sizeof(buf)), 0,
               "reason: a node with a warning only has no failure");
        is_str(buf, "untouched", "...and its buffer is left alone");
        is_int((long long)topo_findings_reason(&f, "n2", 1, "railyard: fabric ", buf, sizeof(buf)),
               2, "reason: n2's two failures, not n1<->n3's");
        is_str(buf, "railyard: fabric link.bandwidth rail1 0.05 Gb/s with every partner +1",
               "reason: the first failure, the node cut from the subject, +1; too long for its "
               "expected value");
        is_int((long long)topo_findings_reason(&f, "n1", 1, "railyard: ", buf, sizeof(buf)), 0,
               "reason: a pair's failure pins neither node");
        topo_findings_reason(&f, "n2", 0, "railyard: ", buf, sizeof(buf));
        ok(strlen(buf) <= 80 && strstr(buf, " +2"), "reason: every failure counted (%s)", buf);
        topo_findings_free(&f);
        memset(&f, 0, sizeof(f));
        topo_findings_add(&f, TOPO_SEV_FAIL, "rail.cabling", "n2/rail0",
                          "reaches the peers of its rail",
                          "link up, reaches none of its rail's peers", NULL);
        topo_findings_reason(&f, "n2", 1, "railyard: fabric ", buf, sizeof(buf));
        is_str(buf, "railyard: fabric rail.cabling rail0 link up, reaches none of its rail's peers",
               "reason: cut at 80 characters at a word gap, not inside a word");
        /* a clause the cut leaves with fewer than 12 characters of its own goes with it (the
         * watch's ", still" of ", still on at <time>"), one of 12 stays */
        for (int keep = 0; keep < 2; keep++) {
            char obs[160], want[160];
            const char *clause = keep ? "abcdefghijkl" : "abcdefghijk";
            topo_findings_free(&f);
            memset(&f, 0, sizeof(f));
            snprintf(obs, sizeof(obs), "2 flaps, %s %040d", clause, 0);
            topo_findings_add(&f, TOPO_SEV_FAIL, "watch.port.flapping", "n2/mlx5_1:1",
                              "none within 300 s", obs, NULL);
            topo_findings_reason(&f, "n2", 0, "railyard: ", buf, sizeof(buf));
            snprintf(want, sizeof(want), "railyard: watch.port.flapping mlx5_1:1 2 flaps%s%s",
                     keep ? ", " : "", keep ? clause : "");
            is_str(buf, want, "reason: a clause cut to %zu characters %s", strlen(clause),
                   keep ? "stays" : "goes with the cut");
        }
        topo_findings_free(&f);
        /* too long without an expected value: cut at the last word gap */
        memset(&f, 0, sizeof(f));
        topo_findings_add(&f, TOPO_SEV_FAIL, "link.bandwidth", "n2/rail1", NULL,
                          "0.05 Gb/s with every partner while the other ports of its rail were "
                          "fine throughout",
                          NULL);
        topo_findings_reason(&f, "n2", 1, "railyard: fabric ", buf, sizeof(buf));
        is_str(buf, "railyard: fabric link.bandwidth rail1 0.05 Gb/s with every partner while the",
               "reason: no expected value, too long: cut at a word gap (%zu characters)",
               strlen(buf));
        topo_findings_free(&f);
        /* a subject that is the node, or one that only begins with its name, keeps its text */
        memset(&f, 0, sizeof(f));
        topo_findings_add(&f, TOPO_SEV_FAIL, "rank.failed", "n1", "finished", "died or hung", NULL);
        topo_findings_reason(&f, "n1", 1, "railyard: fabric ", buf, sizeof(buf));
        is_str(buf, "railyard: fabric rank.failed died or hung exp finished",
               "reason: a subject that is the node itself: no subject said");
        topo_findings_free(&f);
        /* the 80 characters' edge: 80 kept whole, 81 lose the expected value (never a cut one) */
        memset(&f, 0, sizeof(f));
        topo_findings_add(&f, TOPO_SEV_FAIL, "rank.failed", "n1",
                          "finished within the deadline of 12 s each", "died or hung", NULL);
        topo_findings_reason(&f, "n1", 1, "railyard: ", buf, sizeof(buf));
        is_str(buf,
               "railyard: rank.failed died or hung exp finished within the deadline of 12 s each",
               "reason: 80 characters kept whole (%zu)", strlen(buf));
        topo_findings_free(&f);
        memset(&f, 0, sizeof(f));
        topo_findings_add(&f, TOPO_SEV_FAIL, "rank.failed", "n1",
                          "finished within the deadline of 120 s each", "died or hung", NULL);
        topo_findings_reason(&f, "n1", 1, "railyard: ", buf, sizeof(buf));
        is_str(buf, "railyard: rank.failed died or hung",
               "reason: 81 characters: the expected value goes whole");
        topo_findings_free(&f);
        /* too long without an expected value: cut at the last gap only past the prefix and 20
         * characters (here a gap at 30 is not, 31 is) */
        memset(&f, 0, sizeof(f));
        topo_findings_add(
            &f, TOPO_SEV_FAIL, "rank.failed", "n1", NULL,
            "vanished /sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error_extended", NULL);
        topo_findings_reason(&f, "n1", 1, "railyard: ", buf, sizeof(buf));
        is_str(buf,
               "railyard: rank.failed vanished /sys/class/infiniband/mlx5_0/ports/1/counters/sym",
               "reason: the last gap 20 characters past the prefix: not cut there");
        topo_findings_free(&f);
        memset(&f, 0, sizeof(f));
        topo_findings_add(
            &f, TOPO_SEV_FAIL, "rank.failed", "n1", NULL,
            "truncated /sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error_extended", NULL);
        topo_findings_reason(&f, "n1", 1, "railyard: ", buf, sizeof(buf));
        is_str(buf, "railyard: rank.failed truncated",
               "reason: the last gap 21 characters past the prefix: cut there");
        topo_findings_free(&f);
        memset(&f, 0, sizeof(f));
        topo_findings_add(&f, TOPO_SEV_FAIL, "link.path", "n10<->n3/rail0", NULL, "0.1 Gb/s", NULL);
        topo_findings_reason(&f, "n1", 0, "railyard: fabric ", buf, sizeof(buf));
        is_str(buf, "railyard: fabric link.path n10<->n3/rail0 0.1 Gb/s",
               "reason: n1's, of n10's pair: the subject whole");
        topo_findings_free(&f);
    }
    { /* link.errors: an end's interface counted errors or drops while the link ran (either end,
       * a link that carried traffic; unknown counters are no errors) */
        memcpy(x, h, sizeof(x));
        x[2].errors_a = 1; /* n3, rail 0, toward n4 */
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.errors n3<->n4/rail0",
               "link.errors: one error on the sending end: a warning on that link");
        memcpy(x, h, sizeof(x));
        x[5].errors_b = 1; /* n3, rail 1, from n2 */
        is_str(fails(x, 8, 4, 2, NULL, expect), "link.errors n2<->n3/rail1",
               "link.errors: one error on the receiving end: a warning on that link");
        memcpy(x, h, sizeof(x));
        x[2].errors_a = x[2].errors_b = -1;
        is_str(fails(x, 8, 4, 2, NULL, expect), "", "link.errors: counters unknown: no finding");
        x[2].errors_a = 1; /* one error on n3, n4's counters unknown: 1 and 0, each where it is */
        is_str(said(x, 8, 4, 2, expect, TOPO_SEV_WARN, "link.errors", "n3<->n4/rail0"),
               "1 errors/drops on n3, 0 on n4 during the test",
               "link.errors: one error on the sending end, the other's unknown: 1 and 0");
        x[2].errors_a = -1;
        x[2].errors_b = 1;
        is_str(said(x, 8, 4, 2, expect, TOPO_SEV_WARN, "link.errors", "n3<->n4/rail0"),
               "0 errors/drops on n3, 1 on n4 during the test",
               "link.errors: ...on the receiving end, the sender's unknown: 0 and 1");
    }
    { /* TCP's wire: what arrived and what was resent for loss; a resend the receiver already
       * had (D-SACK: the sender's timer fired early on a starved host) was not lost */
        struct fabric_tcp_counts c;
        fabric_tcp_counts_init(&c);
        is_int(fabric_tcp_wire_bytes(24000000, &c), 24000000, "wire: nothing resent");
        c.segs_retrans = 10;
        c.bytes_retrans = 14480;
        is_int(fabric_tcp_wire_bytes(24000000, &c), 24014480, "wire: 10 segments resent, all lost");
        c.dsack_dups = 4;
        is_int(fabric_tcp_wire_bytes(24000000, &c), 24008688,
               "wire: 4 of 10 resent segments the receiver had already: 6 counted");
        c.dsack_dups = 9;
        is_int(fabric_tcp_wire_bytes(24000000, &c), 24001448,
               "wire: 9 of 10 duplicates: 1 counted");
        c.dsack_dups = 10;
        is_int(fabric_tcp_wire_bytes(24000000, &c), 24000000, "wire: every resend a duplicate");
        c.dsack_dups = 12;
        is_int(fabric_tcp_wire_bytes(24000000, &c), 24000000,
               "wire: more duplicates reported than resends (the network's own): none counted");
        c.dsack_dups = -1;
        is_int(fabric_tcp_wire_bytes(24000000, &c), 24014480,
               "wire: a kernel that does not report duplicates: every resend counted");
        c.bytes_retrans = -1;
        is_int(fabric_tcp_wire_bytes(24000000, &c), -1, "wire: resent bytes unknown");
    }
    rule_edges();
    leaf_band_edges();
    leaf_few_edges();
    leaf_rails_edges();
    host_edges();
    suspect_edges();
    supersede_edges();
    outlier_edges();
    return done_testing();
}

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ib/ibcheck.h"
#include "ib/ibfabric.h"
#include "tests/tap/tap.h"

/* The rules of ib/ibcheck.c one at a time, each at its edges, on small fabrics written as
 * ibnetdiscover prints them and maps built in memory (no libyaml needed): the built-in
 * references, the map's limits and expectations, rail alignment by switch name and by majority,
 * the reference dump, the HCAs a map promises, the counters, and which findings a host check
 * keeps. */

/* a node of a dump: 'S' switch or 'H' HCA, its GUID, NodeDescription and port count */
struct nd {
    char type;
    unsigned guid;
    const char *desc;
    int nports;
};
/* a cable: node a port pa to node b port pb (indexes into the nodes), its "4xHDR" */
struct cb {
    int a, pa, b, pb;
    const char *rate;
};

static void dump_port(char *buf, size_t *len, size_t cap, const struct nd *n, int p, int b, int pb,
                      const char *rate)
{
    *len += (size_t)snprintf(buf + *len, cap - *len, "[%d]\t\"%c-%016x\"[%d]\t# \"%s\" lid %d %s\n",
                             p, n[b].type, n[b].guid, pb, n[b].desc, b + 1, rate);
}

/* the dump of nodes and cables, parsed into f (a dump that does not parse ends the test) */
static void build(struct ibf_fabric *f, const struct nd *n, size_t nn, const struct cb *c,
                  size_t nc)
{
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    ry_error_t err = { "" };

    for (size_t i = 0; i < nn; i++) {
        if (n[i].type == 'S')
            len += (size_t)snprintf(buf + len, cap - len,
                                    "\nSwitch\t%d \"S-%016x\"\t# \"%s\" enhanced port 0 lid %zu "
                                    "lmc 0\n",
                                    n[i].nports, n[i].guid, n[i].desc, i + 1);
        else
            len += (size_t)snprintf(buf + len, cap - len, "\nCa\t%d \"H-%016x\"\t# \"%s\"\n",
                                    n[i].nports, n[i].guid, n[i].desc);
        for (size_t k = 0; k < nc; k++) {
            if (c[k].a == (int)i)
                dump_port(buf, &len, cap, n, c[k].pa, c[k].b, c[k].pb, c[k].rate);
            if (c[k].b == (int)i)
                dump_port(buf, &len, cap, n, c[k].pb, c[k].a, c[k].pa, c[k].rate);
        }
    }
    if (ibf_parse_ibnetdiscover_buffer(f, buf, len, "t.topo", &err) != 0) {
        printf("Bail out! the test's dump does not parse: %s\n%s", err.text, buf);
        exit(1);
    }
    free(buf);
}

static int node_named(const struct ibf_fabric *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->nodes[i].name, name))
            return (int)i;
    return -1;
}

/* the findings of a check (about subject, when not NULL) */
static size_t count(const struct topo_findings *fnd, const char *check, const char *subject)
{
    size_t k = 0;
    for (size_t i = 0; i < fnd->n; i++)
        k += !strcmp(fnd->v[i].check, check) && (!subject || !strcmp(fnd->v[i].subject, subject));
    return k;
}

static const struct topo_finding *first(const struct topo_findings *fnd, const char *check)
{
    for (size_t i = 0; i < fnd->n; i++)
        if (!strcmp(fnd->v[i].check, check))
            return &fnd->v[i];
    return NULL;
}

/* every finding, "check subject" per line, for messages */
static const char *all(const struct topo_findings *fnd)
{
    static char buf[2048];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < fnd->n && len < sizeof(buf); i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s %s", i ? "; " : "",
                                fnd->v[i].check, fnd->v[i].subject);
    return buf;
}

static int has_note(const struct ibf_notes *notes, const char *text)
{
    for (size_t i = 0; i < notes->n; i++)
        if (strstr(notes->v[i], text))
            return 1;
    return 0;
}

/* a map of one node type "g" (hosts) with the NICs given; rails from the NICs, the switch
 * names of rail r in sw[r] (NULL: none) */
struct hmap {
    struct topo_map m;
    struct map_node_type t;
    struct map_nodes nodes[2];
    struct map_rail rails[4];
    char *sw[4][2];
};

static void mkmap(struct hmap *h, const char *hosts, struct map_nic *nics, size_t nnics,
                  const char *const sw[4])
{
    memset(h, 0, sizeof(*h));
    h->t.name = (char *)"g";
    h->t.nics = nics;
    h->t.nnics = nnics;
    h->t.nvlink_links = -1;
    h->nodes[0].hostlist = (char *)hosts;
    h->nodes[0].type = (char *)"g";
    h->m.cluster = (char *)"t";
    h->m.types = &h->t;
    h->m.ntypes = 1;
    h->m.nodes = h->nodes;
    h->m.nnodes = 1;
    h->m.rails = h->rails;
    h->m.fabric.interval = -1;
    for (int r = 0; r < 4; r++) {
        int used = 0;
        for (size_t i = 0; i < nnics; i++)
            used |= nics[i].rail == r;
        if (!used)
            continue;
        h->rails[h->m.nrails].id = r;
        if (sw && sw[r]) {
            h->sw[r][0] = (char *)sw[r];
            h->rails[h->m.nrails].switches = h->sw[r];
            h->rails[h->m.nrails].nswitches = 1;
        }
        h->m.nrails++;
    }
}

static struct map_nic ib_nic(const char *name, int rail)
{
    struct map_nic n = { .name = (char *)name,
                         .rail = rail,
                         .port = 1,
                         .link_layer = TOPO_LL_INFINIBAND,
                         .rate_gbps = -1 };
    return n;
}

/* findings whose severity is not their check's (counted over every analysis, said at the end):
 * counters above their limit, an incomplete discovery and a host's own NodeDescription warn;
 * everything else fails */
static int wrong_severity;

static void analyze(const struct ibf_fabric *f, const struct ibf_expect *e,
                    struct topo_findings *fnd, struct ibf_notes *notes)
{
    topo_findings_free(fnd);
    memset(fnd, 0, sizeof(*fnd));
    if (notes) {
        ibf_notes_free(notes);
        memset(notes, 0, sizeof(*notes));
    }
    ibf_analyze(f, e, fnd, notes);
    for (size_t i = 0; i < fnd->n; i++) {
        const char *k = fnd->v[i].check;
        enum topo_sev want = !strcmp(k, "port.errors") ||
                                     !strcmp(k, "fabric.discovery.incomplete") ||
                                     !strcmp(k, "fabric.desc.mismatch")
                                 ? TOPO_SEV_WARN
                                 : TOPO_SEV_FAIL;
        if (fnd->v[i].sev != want && !wrong_severity++)
            diag("%s %s: severity %d, not %d", k, fnd->v[i].subject, fnd->v[i].sev, want);
    }
}

static void finish(struct topo_findings *fnd, struct ibf_notes *notes, struct ibf_fabric *f)
{
    topo_findings_free(fnd);
    if (notes)
        ibf_notes_free(notes);
    ibf_fabric_free(f);
}

static void test_speeds(void)
{
    static const double want[IBF_NSPEEDS] = { 0, 2.5, 5, 10, 10, 14, 25, 50, 100, 200 };
    int right = 1;
    for (int s = 0; s < IBF_NSPEEDS; s++)
        if (ibf_speed_nominal_gbps((enum ibf_speed)s) != want[s]) {
            diag("%s: %g, not %g", ibf_speed_name((enum ibf_speed)s),
                 ibf_speed_nominal_gbps((enum ibf_speed)s), want[s]);
            right = 0;
        }
    ok(right, "each speed's nominal lane rate: SDR 2.5 ... XDR 200 Gb/s, unknown 0");
    ok(ibf_speed_nominal_gbps(IBF_NSPEEDS) == 0 &&
           ibf_speed_nominal_gbps((enum ibf_speed) - 1) == 0,
       "a speed out of range is 0, never read past the table");
}

static void test_limits(void)
{
    struct map_counter_limit lim[] = {
        { (char *)"SymbolErrorCounter", 0, -1, 0, 0 }, /* total 0: the lowest limit */
        { (char *)"PortXmitDiscards", -1, 0, 0, 0 },   /* rising 0, total left built-in */
        { (char *)"LinkDownedCounter", 3, 2, 0, 0 },
    };
    struct topo_map m = { 0 };
    long long t, r;

    ibf_counter_limits(NULL, IBF_XMIT_DISCARDS, &t, &r);
    ok(t == 100 && r == 10, "built-in: PortXmitDiscards total 100, rising 10 (%lld, %lld)", t, r);
    ibf_counter_limits(NULL, IBF_VL15_DROPPED, &t, &r);
    ok(t == -1 && r == -1, "built-in: VL15Dropped not judged");
    m.fabric.counters = lim;
    m.fabric.ncounters = 3;
    ibf_counter_limits(&m, IBF_SYMBOL_ERR, &t, &r);
    ok(t == 0 && r == 0, "map: SymbolErrorCounter total 0 is a limit, not unset (%lld, %lld)", t,
       r);
    ibf_counter_limits(&m, IBF_XMIT_DISCARDS, &t, &r);
    ok(t == 100 && r == 0,
       "map: PortXmitDiscards rising 0 overrides 10, total -1 keeps 100 "
       "(%lld, %lld)",
       t, r);
    ibf_counter_limits(&m, IBF_LINK_DOWNED, &t, &r);
    ok(t == 3 && r == 2, "map: LinkDownedCounter 3 and 2 (%lld, %lld)", t, r);
    ibf_counter_limits(&m, IBF_RCV_ERR, &t, &r);
    ok(t == 10 && r == 0, "map: PortRcvErrors, which the map leaves out, stays built-in");
}

/* one leaf, HCAs n1 and n2 on it, the HCA first in the dump (node 0) */
static const struct nd leaf_nodes[] = {
    { 'H', 0x11, "n1 mlx5_0", 1 },
    { 'S', 0x100, "leaf", 8 },
    { 'H', 0x12, "n2 mlx5_0", 1 },
};

static void sample(struct ibf_port *q, uint64_t v0, uint64_t v1, int k)
{
    q->s[0] = (struct ibf_sample){ .valid = 1, .t = 10 };
    q->s[1] = (struct ibf_sample){ .valid = 1, .t = 13 };
    q->s[0].v[k] = v0;
    q->s[1].v[k] = v1;
}

static void test_counters(void)
{
    static const struct cb cables[] = { { 0, 1, 1, 1, "4xHDR" }, { 2, 1, 1, 2, "4xHDR" } };
    struct map_counter_limit lim[] = { { (char *)"SymbolErrorCounter", 0, -1, 0, 0 },
                                       { (char *)"PortXmitDiscards", -1, 0, 0, 0 } };
    struct topo_map m = { 0 };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct ibf_notes notes = { 0 };
    const struct topo_finding *x;
    int n1, n2;

    build(&f, leaf_nodes, 3, cables, 2);
    n1 = node_named(&f, "n1/mlx5_0");
    n2 = node_named(&f, "n2/mlx5_0");
    f.nsamples = 2;
    m.fabric.counters = lim;
    m.fabric.ncounters = 2;
    m.fabric.interval = -1;
    e.map = &m;
    /* n1: SymbolErrorCounter at 1 against the map's 0; n2 at 0 */
    sample(&f.nodes[n1].ports[1], 1, 1, IBF_SYMBOL_ERR);
    sample(&f.nodes[n2].ports[1], 0, 0, IBF_SYMBOL_ERR);
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "port.errors", "n1/mlx5_0:1") == 1 && count(&fnd, "port.errors", NULL) == 1,
       "a map's total of 0: 1 error warns, 0 does not (%s)", all(&fnd));
    x = first(&fnd, "port.errors");
    ok(x && x->sev == TOPO_SEV_WARN && !strcmp(x->expected, "<= 0") &&
           !strcmp(x->observed, "SymbolErrorCounter 1 (cable to leaf:1)"),
       "... a warning, '<= 0', the counter and the cable named (%s)", x ? x->observed : "none");
    ok(has_note(&notes, "2 cabled ports did not answer the counter queries"),
       "the leaf's two unread ports are counted in a note");
    /* PortXmitDiscards rising by 1 against the map's 0: fails; the built-in 10 would pass it */
    sample(&f.nodes[n1].ports[1], 0, 0, IBF_SYMBOL_ERR);
    sample(&f.nodes[n2].ports[1], 5, 6, IBF_XMIT_DISCARDS);
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "port.errors.rising");
    ok(fnd.n == 1 && x && x->sev == TOPO_SEV_FAIL && !strcmp(x->subject, "n2/mlx5_0:1") &&
           !strcmp(x->expected, "rising by <= 0") &&
           !strcmp(x->observed, "PortXmitDiscards +1 in 3.0 s (cable to leaf:2)"),
       "a map's rising 0: +1 fails, named with the time between the samples (%s)", all(&fnd));
    ok(x && strstr(x->hint, "climbing"), "... a discard's hint is about errors climbing");
    /* a counter that went down between the samples (cleared) is not a rise; its first value
     * is judged against the total */
    sample(&f.nodes[n2].ports[1], 150, 2, IBF_XMIT_DISCARDS);
    analyze(&f, &e, &fnd, NULL);
    ok(count(&fnd, "port.errors.rising", NULL) == 0 &&
           count(&fnd, "port.errors", "n2/mlx5_0:1") == 1,
       "a counter cleared between the samples: no rise, its first value over 100 warns (%s)",
       all(&fnd));
    /* one sample: no rise is judged, the total is */
    f.nsamples = 1;
    sample(&f.nodes[n2].ports[1], 50, 99, IBF_XMIT_DISCARDS);
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 0, "one sample: a second value is not read (%s)", all(&fnd));
    /* the second sample of a port not read: its total is judged, not its rise */
    f.nsamples = 2;
    f.nodes[n2].ports[1].s[1].valid = 0;
    f.nodes[n2].ports[1].s[0].v[IBF_XMIT_DISCARDS] = 101;
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 1 && count(&fnd, "port.errors", "n2/mlx5_0:1") == 1,
       "a port whose second sample failed: its first value is judged (%s)", all(&fnd));
    /* a saturated counter says so; a link counter's rise names flapping */
    e.map = NULL;
    sample(&f.nodes[n2].ports[1], 0, 0, IBF_XMIT_DISCARDS);
    sample(&f.nodes[n1].ports[1], 255, 255, IBF_LINK_DOWNED);
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "port.errors");
    ok(x && !strcmp(x->observed, "LinkDownedCounter 255, saturated (cable to leaf:1)"),
       "a counter at its field's maximum (8 bits) says saturated (%s)", x ? x->observed : "none");
    sample(&f.nodes[n1].ports[1], 254, 254, IBF_LINK_DOWNED);
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "port.errors");
    ok(x && !strcmp(x->observed, "LinkDownedCounter 254 (cable to leaf:1)"),
       "one below the maximum is not saturated");
    sample(&f.nodes[n1].ports[1], 0, 1, IBF_LINK_RECOVERY);
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "port.errors.rising");
    ok(x && strstr(x->hint, "flapping"), "LinkErrorRecoveryCounter rising: the link is flapping");
    sample(&f.nodes[n1].ports[1], 0, 1, IBF_LINK_DOWNED);
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "port.errors.rising");
    ok(x && strstr(x->hint, "flapping"), "LinkDownedCounter rising: the link is flapping");
    sample(&f.nodes[n1].ports[1], 0, 1, IBF_RCV_ERR);
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "port.errors.rising");
    ok(x && !strstr(x->hint, "flapping"), "PortRcvErrors rising: not called flapping");
    /* no samples at all: no counter finding, no note */
    f.nsamples = 0;
    analyze(&f, &e, &fnd, &notes);
    ok(fnd.n == 0 && !has_note(&notes, "did not answer"),
       "no samples: the counters are not judged");
    finish(&fnd, &notes, &f);
}

/* which findings a host check (only_host) keeps: its own HCAs', found by node or by name */
static void test_only_host(void)
{
    static const struct nd nodes[] = {
        { 'H', 0x11, "n1 mlx5_0", 1 },
        { 'S', 0x100, "leaf", 8 },
        { 'H', 0x12, "n10 mlx5_0", 1 },
        { 'H', 0x13, "n2 mlx5_0", 1 },
    };
    static const struct cb cables[] = { { 0, 1, 1, 1, "2xHDR" },
                                        { 2, 1, 1, 2, "2xHDR" },
                                        { 3, 1, 1, 3, "4xHDR" },
                                        { 1, 7, 1, 8, "4xHDR" } };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct map_nic nics[] = { ib_nic("mlx5_0", 0) };
    struct hmap h;

    build(&f, nodes, 4, cables, 4);
    mkmap(&h, "n[1-2],n10", nics, 1, NULL);
    h.m.fabric.width = 4;
    e.map = &h.m;
    analyze(&f, &e, &fnd, NULL);
    ok(count(&fnd, "link.width", NULL) == 2,
       "n1's and n10's 2x links are short of the map's 4x "
       "(%s)",
       all(&fnd));
    e.only_host = "n1";
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 1 && count(&fnd, "link.width", "n1/mlx5_0:1<->leaf:1") == 1,
       "only_host n1 keeps n1's link, not n10's (%s)", all(&fnd));
    e.only_host = "n10";
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 1 && count(&fnd, "link.width", "n10/mlx5_0:1<->leaf:2") == 1,
       "only_host n10 keeps n10's (%s)", all(&fnd));
    e.only_host = "n2";
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 0, "only_host n2, whose link is right: nothing, not the leaf's own loop cable (%s)",
       all(&fnd));
    /* an HCA named otherwise than after its host (a name map) is still the host's: by node,
     * at either end and at index 0 */
    free(f.nodes[0].name);
    f.nodes[0].name = strdup("hca-a");
    e.only_host = "n1";
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 1 && count(&fnd, "link.width", "hca-a:1<->leaf:1") == 1,
       "an HCA renamed by a name map: still n1's, found by its node (%s)", all(&fnd));
    finish(&fnd, NULL, &f);
}

/* a cable's name: the HCA end first, else the lower name, else the lower port */
static void test_labels(void)
{
    static const struct nd nodes[] = {
        { 'S', 0x200, "spine-b", 8 },
        { 'S', 0x100, "spine-a", 8 },
        { 'H', 0x11, "n1 mlx5_0", 1 },
    };
    static const struct cb cables[] = {
        { 0, 1, 1, 1, "1xHDR" }, { 0, 2, 1, 2, "4xHDR" }, { 0, 3, 1, 3, "4xHDR" },
        { 0, 5, 0, 4, "1xHDR" }, { 1, 6, 1, 5, "4xHDR" }, { 0, 8, 2, 1, "4xHDR" },
    };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };

    build(&f, nodes, 3, cables, 6);
    f.nodes[0].ports[8].state = IBF_STATE_INIT;
    analyze(&f, &e, &fnd, NULL);
    ok(count(&fnd, "link.width", "spine-a:1<->spine-b:1") == 1,
       "an ISL between two switches: the lower name first (%s)", all(&fnd));
    ok(count(&fnd, "link.width", "spine-b:4<->spine-b:5") == 1,
       "a cable between two ports of one switch: the lower port first");
    ok(count(&fnd, "link.state", "n1/mlx5_0:1<->spine-b:8") == 1,
       "an HCA's cable: the HCA end first, though the switch's record comes first");
    ok(fnd.n == 3, "nothing else: the widths of the other ISLs are the norm (%s)", all(&fnd));
    ok(first(&fnd, "link.state") && strstr(first(&fnd, "link.state")->hint, "subnet manager") &&
           !strcmp(first(&fnd, "link.state")->observed, "Initialize/LinkUp"),
       "a port in Initialize: is a subnet manager running?");
    /* the other end in a state other than Active: named from that end */
    f.nodes[0].ports[8].state = IBF_STATE_ACTIVE;
    f.nodes[2].ports[1].state = IBF_STATE_ARMED;
    analyze(&f, &e, &fnd, NULL);
    ok(first(&fnd, "link.state") && !strcmp(first(&fnd, "link.state")->observed, "Armed/LinkUp") &&
           strstr(first(&fnd, "link.state")->hint, "does not reach Active"),
       "the far end Armed: its state is the one said (%s)",
       first(&fnd, "link.state") ? first(&fnd, "link.state")->observed : "none");
    finish(&fnd, NULL, &f);
}

/* rail alignment: two leaves, rail 0's and rail 1's; the map says which by switch name, by
 * pattern, NodeDescription or node id, or else by the rail most of a leaf's HCAs have */
static const struct nd rail_nodes[] = {
    { 'S', 0x100, "leaf-r0", 8 },  { 'S', 0x200, "leaf-r1", 8 },  { 'S', 0x300, "spine", 8 },
    { 'H', 0x11, "n1 mlx5_0", 1 }, { 'H', 0x12, "n1 mlx5_1", 2 }, { 'H', 0x21, "n2 mlx5_0", 1 },
    { 'H', 0x22, "n2 mlx5_1", 2 }, { 'H', 0x31, "n3 mlx5_0", 1 }, { 'H', 0x32, "n3 mlx5_1", 2 },
};

static void test_rails(void)
{
    /* every host's mlx5_0 on leaf-r0; mlx5_1 carries rail 1 on its port 2: n1's and n2's on
     * leaf-r1, n3's on leaf-r0 (miscabled); each leaf has one uplink */
    static const struct cb cables[] = {
        { 3, 1, 0, 1, "4xHDR" }, { 5, 1, 0, 2, "4xHDR" }, { 7, 1, 0, 3, "4xHDR" },
        { 4, 2, 1, 1, "4xHDR" }, { 6, 2, 1, 2, "4xHDR" }, { 8, 2, 0, 4, "4xHDR" },
        { 0, 8, 2, 1, "4xHDR" }, { 1, 8, 2, 2, "4xHDR" },
    };
    struct map_nic nics[] = { ib_nic("mlx5_0", 0), ib_nic("mlx5_1", 1) };
    const char *by_name[4] = { "leaf-r0", "leaf-r1", NULL, NULL };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct ibf_notes notes = { 0 };
    const struct topo_finding *x;
    struct hmap h;
    int rail[16];

    nics[1].port = 2;
    build(&f, rail_nodes, 9, cables, 8);
    /* by majority: leaf-r0 has three rail-0 HCAs and one rail-1, so n3's mlx5_1 is the odd one */
    mkmap(&h, "n[1-3]", nics, 2, NULL);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    x = first(&fnd, "rail.cabling");
    ok(fnd.n == 1 && x && !strcmp(x->subject, "n3/mlx5_1:2") &&
           !strcmp(x->expected, "leaf of rail 1") &&
           !strcmp(x->observed, "cabled to leaf-r0 port 4 (rail 0)") && x->sev == TOPO_SEV_FAIL,
       "by majority: n3's rail-1 port on rail 0's leaf, the map's port 2 named (%s)", all(&fnd));
    ok(x && strstr(x->hint, "rail-1 leaf"), "... and where it belongs");
    ibf_rails(&f, &h.m, rail);
    ok(rail[0] == 0 && rail[1] == 1 && rail[2] == -1 && rail[3] == 0 && rail[4] == 1,
       "rails: the leaves 0 and 1, the spine none (no HCA), each HCA its NIC's");
    ok(ibf_hca_rail_port(&f, &h.m, 4) == 2 && ibf_hca_rail_port(&f, &h.m, 3) == 1,
       "the port that carries the rail: the map's, else 1");
    /* a tie of votes: leaf-r0 with two rail-0 and two rail-1 HCAs cannot be judged */
    free(f.nodes[7].host);
    f.nodes[7].host = strdup("n9");
    nics[0].rail = 0;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "rail.cabling", NULL) == 1, "n3's mlx5_0 unmapped: still a majority");
    ok(has_note(&notes, "1 HCAs are not NICs of a host in the map"), "... the unmapped HCA noted");
    free(f.nodes[5].host);
    f.nodes[5].host = strdup("n9");
    analyze(&f, &e, &fnd, &notes);
    ibf_rails(&f, &h.m, rail);
    ok(rail[0] == -2 && count(&fnd, "rail.cabling", NULL) == 0,
       "one rail-0 and one rail-1 HCA on a leaf: no majority, not judged (%s)", all(&fnd));
    free(f.nodes[5].host);
    f.nodes[5].host = strdup("n2");
    free(f.nodes[7].host);
    f.nodes[7].host = strdup("n3");
    /* by name: the map names rail 1's switch; leaf-r0, named for no rail, is "no rail" */
    by_name[0] = NULL;
    mkmap(&h, "n[1-3]", nics, 2, by_name);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "rail.cabling", NULL) == 4 && count(&fnd, "rail.cabling", "n1/mlx5_0:1") == 1 &&
           count(&fnd, "rail.cabling", "n3/mlx5_1:2") == 1,
       "leaves named for rail 1 only: every HCA on leaf-r0 is on no rail (%s)", all(&fnd));
    x = first(&fnd, "rail.cabling");
    ok(x && !strcmp(x->observed, "cabled to leaf-r0 port 1 (no rail)"), "... said so (%s)",
       x ? x->observed : "none");
    by_name[0] = "leaf-r[0]";
    by_name[1] = "S-0000000000000200";
    mkmap(&h, "n[1-3]", nics, 2, by_name);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "rail.cabling", NULL) == 1 && count(&fnd, "rail.cabling", "n3/mlx5_1:2") == 1,
       "switches named by a pattern and by node id: n3's mlx5_1 again (%s)", all(&fnd));
    /* the NodeDescription matches where the name does not (a name map renamed the switch) */
    free(f.nodes[1].name);
    f.nodes[1].name = strdup("renamed");
    by_name[1] = "leaf-r1";
    mkmap(&h, "n[1-3]", nics, 2, by_name);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "rail.cabling", NULL) == 1, "a switch renamed: found by its NodeDescription");
    /* a map whose NIC port is beyond the HCA's ports: not judged, not read past the ports */
    nics[1].port = 3;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "rail.cabling", NULL) == 0, "a NIC port the HCA does not have: not judged");
    nics[1].port = 2;
    /* rails numbered past 63 (a map may number them to 1023): the majority is found as well */
    nics[0].rail = 100;
    nics[1].rail = 1000;
    mkmap(&h, "n[1-3]", nics, 2, NULL);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    x = first(&fnd, "rail.cabling");
    ok(fnd.n == 1 && x && !strcmp(x->subject, "n3/mlx5_1:2") &&
           !strcmp(x->observed, "cabled to leaf-r0 port 4 (rail 100)") &&
           !strcmp(x->expected, "leaf of rail 1000"),
       "rails 100 and 1000: n3's rail-1000 port on rail 100's leaf, the other HCAs right (%s)",
       all(&fnd));
    ibf_rails(&f, &h.m, rail);
    ok(rail[0] == 100 && rail[1] == 1000, "... the leaves' rails 100 and 1000 (%d, %d)", rail[0],
       rail[1]);
    nics[0].rail = 0;
    nics[1].rail = 1;
    /* no rail in the map, no map */
    nics[0].rail = nics[1].rail = -1;
    analyze(&f, &e, &fnd, &notes);
    ok(fnd.n == 0 && has_note(&notes, "rail alignment not judged: the map gives no NIC a rail"),
       "a map without rails: alignment not judged, said why");
    e.map = NULL;
    analyze(&f, &e, &fnd, &notes);
    ok(fnd.n == 0 && has_note(&notes, "rail alignment not judged: no map (--map)"),
       "no map: said so");
    finish(&fnd, &notes, &f);
}

/* leaf-to-leaf cables are extra in a rail-optimized fabric; an HCA without "<host> <hca>" is
 * counted, not judged */
static void test_leaf_to_leaf(void)
{
    /* leaf-a's one HCA is node 0; two HCAs cabled to each other are no leaves */
    static const struct nd nodes[] = {
        { 'H', 0x11, "n1 mlx5_0", 1 }, { 'S', 0x100, "leaf-a", 8 },   { 'S', 0x200, "leaf-b", 8 },
        { 'S', 0x300, "spine", 8 },    { 'H', 0x21, "n2 mlx5_0", 1 }, { 'H', 0x31, "lonely", 1 },
        { 'H', 0x41, "n3 mlx5_0", 1 }, { 'H', 0x51, "n4 mlx5_0", 1 },
    };
    static const struct cb cables[] = {
        { 0, 1, 1, 1, "4xHDR" }, { 4, 1, 2, 1, "4xHDR" }, { 5, 1, 2, 2, "4xHDR" },
        { 1, 8, 3, 1, "4xHDR" }, { 2, 8, 3, 2, "4xHDR" }, { 2, 5, 1, 5, "4xHDR" },
        { 1, 6, 2, 6, "4xHDR" }, { 6, 1, 7, 1, "4xHDR" }, { 1, 3, 1, 4, "4xHDR" },
    };
    struct map_nic nics[] = { ib_nic("mlx5_0", 0) };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct ibf_notes notes = { 0 };
    struct hmap h;

    build(&f, nodes, 8, cables, 9);
    mkmap(&h, "n[1-4]", nics, 1, NULL);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "fabric.link.extra", NULL) == 2 &&
           count(&fnd, "fabric.link.extra", "leaf-a:5<->leaf-b:5") == 1 &&
           count(&fnd, "fabric.link.extra", "leaf-a:6<->leaf-b:6") == 1 && fnd.n == 2,
       "two leaf-to-leaf cables, each once, the lower name first; the spine's are fine, and so is "
       "leaf-a's cable to itself (%s)",
       all(&fnd));
    ok(has_note(&notes, "1 HCAs have no \"<host> <hca>\" NodeDescription"),
       "an HCA without a host's name is counted in a note");
    finish(&fnd, &notes, &f);
}

/* per cable, what is expected: the map's fabric width and speed, the NIC's rate at the expected
 * width (within 5%), the built-in norm of ISLs; HCA links without an expectation are noted */
static void test_links(void)
{
    static const struct nd nodes[] = {
        { 'S', 0x100, "leaf", 16 },    { 'S', 0x300, "spine", 8 },    { 'H', 0x11, "n1 mlx5_0", 1 },
        { 'H', 0x21, "n2 mlx5_0", 1 }, { 'H', 0x31, "n3 mlx5_0", 1 }, { 'H', 0x41, "n4 mlx5_0", 1 },
    };
    static const struct cb cables[] = {
        { 2, 1, 0, 1, "4xHDR" },  { 3, 1, 0, 2, "4xEDR" },  { 4, 1, 0, 3, "4xDDR" },
        { 5, 1, 0, 4, "4xSDR" },  { 0, 9, 1, 1, "4xHDR" },  { 0, 10, 1, 2, "4xHDR" },
        { 0, 11, 1, 3, "4xEDR" }, { 0, 12, 1, 4, "2xHDR" }, { 0, 13, 1, 5, "4xHDR" },
    };
    struct map_nic nics[] = { ib_nic("mlx5_0", 0) };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct ibf_notes notes = { 0 };
    const struct topo_finding *x;
    struct hmap h;

    build(&f, nodes, 6, cables, 9);
    /* built-in: the ISLs' norm is 4xHDR; HCA links are judged only for width */
    analyze(&f, &e, &fnd, &notes);
    ok(fnd.n == 2 && count(&fnd, "link.speed", "leaf:11<->spine:3") == 1 &&
           count(&fnd, "link.width", "leaf:12<->spine:4") == 1,
       "no map: the EDR ISL and the 2x ISL, against the ISLs' norm (%s)", all(&fnd));
    x = first(&fnd, "link.speed");
    ok(x && !strcmp(x->expected, "HDR") && !strcmp(x->observed, "EDR"),
       "... HDR expected, EDR seen");
    ok(has_note(&notes, "3 HCA links run below the fabric's HDR (1 at SDR, 1 at DDR, 1 at EDR)"),
       "the HCA links below the fabric's speed are counted by speed in a note (%s)",
       notes.n ? notes.v[0] : "no note");
    /* the map's NIC rate: 200 Gb/s at 4x is HDR; n2's EDR, n3's DDR and n4's SDR fail */
    nics[0].rate_gbps = 200;
    mkmap(&h, "n[1-4]", nics, 1, NULL);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "link.speed", NULL) == 4 && count(&fnd, "link.speed", "n2/mlx5_0:1<->leaf:2") &&
           count(&fnd, "link.speed", "n4/mlx5_0:1<->leaf:4") &&
           !has_note(&notes, "HCA links run below"),
       "NIC rate 200 at 4x: HDR expected of each HCA link (%s)", all(&fnd));
    /* 5% of the NIC's rate either side: 191 Gb/s is HDR at 4x, 190 is nothing */
    nics[0].rate_gbps = 191;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "link.speed", "n2/mlx5_0:1<->leaf:2") == 1, "191 Gb/s: within 5%% of HDR's 200");
    nics[0].rate_gbps = 209;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "link.speed", "n2/mlx5_0:1<->leaf:2") == 1, "209 Gb/s: within 5%% of 200");
    nics[0].rate_gbps = 190;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "link.speed", "n2/mlx5_0:1<->leaf:2") == 0 &&
           has_note(&notes, "3 HCA links run below"),
       "190 Gb/s: no speed gives it at 4x (5%% off), so HCA links are not judged (%s)", all(&fnd));
    nics[0].rate_gbps = 100;
    analyze(&f, &e, &fnd, &notes);
    x = first(&fnd, "link.speed");
    ok(count(&fnd, "link.speed", "n2/mlx5_0:1<->leaf:2") == 0 &&
           count(&fnd, "link.speed", "n3/mlx5_0:1<->leaf:3") == 1,
       "100 Gb/s at 4x is EDR: n2's EDR is right, n3's DDR is not (%s)", all(&fnd));
    nics[0].rate_gbps = 20;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "link.speed", "n3/mlx5_0:1<->leaf:3") == 0 &&
           count(&fnd, "link.speed", "n4/mlx5_0:1<->leaf:4") == 1,
       "20 Gb/s at 4x is DDR: n3's DDR is right, n4's SDR is not (%s)", all(&fnd));
    nics[0].rate_gbps = 10;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "link.speed", NULL) == 1 && !has_note(&notes, "HCA links run below"),
       "10 Gb/s at 4x is SDR (2.5 a lane): every HCA link is judged, none is slower (%s)",
       all(&fnd));
    /* the map's fabric speed and width, for every link */
    nics[0].rate_gbps = -1;
    h.m.fabric.speed = IBF_EDR;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "link.speed", NULL) == 2 && count(&fnd, "link.speed", "n3/mlx5_0:1<->leaf:3") &&
           count(&fnd, "link.speed", "n4/mlx5_0:1<->leaf:4") &&
           count(&fnd, "link.width", NULL) == 1,
       "fabric speed EDR: the EDR links are right, DDR and SDR fail; the 2x ISL too (%s)",
       all(&fnd));
    h.m.fabric.width = 2;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "link.width", NULL) == 0, "fabric width 2: a 2x link is not short");
    h.m.fabric.width = 8;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "link.width", NULL) == 9, "fabric width 8: every link is short (%s)", all(&fnd));
    finish(&fnd, &notes, &f);
}

/* the norm of widths: the most common of each kind (ISL, HCA link), a tie to the wider */
static void test_width_norm(void)
{
    static const struct nd nodes[] = {
        { 'S', 0x100, "leaf", 16 },
        { 'S', 0x300, "spine", 8 },
        { 'H', 0x11, "n1 mlx5_0", 1 },
        { 'H', 0x21, "n2 mlx5_0", 1 },
    };
    static const struct cb cables[] = {
        { 2, 1, 0, 1, "1xHDR" },  { 3, 1, 0, 2, "2xHDR" },  { 0, 9, 1, 1, "8xHDR" },
        { 0, 10, 1, 2, "8xHDR" }, { 0, 11, 1, 3, "4xHDR" },
    };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };

    build(&f, nodes, 4, cables, 5);
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 2 && count(&fnd, "link.width", "n1/mlx5_0:1<->leaf:1") == 1 &&
           count(&fnd, "link.width", "leaf:11<->spine:3") == 1,
       "HCA links 1x and 2x: a tie, the wider is the norm; ISLs 8x, 8x, 4x: 8x (%s)", all(&fnd));
    finish(&fnd, NULL, &f);
}

/* against a reference dump: a cable moved, one gone (a port Down or Polling, or not there at
 * all), one added; each named once, by the reference's names */
static const struct nd ref_nodes[] = {
    { 'S', 0x100, "leaf", 16 },
    { 'S', 0x300, "spine", 8 },
    { 'H', 0x11, "n1 mlx5_0", 1 },
    { 'H', 0x21, "n2 mlx5_0", 1 },
};

static void test_reference(void)
{
    static const struct cb ref_cables[] = { { 2, 1, 0, 1, "2xHDR" },
                                            { 3, 1, 0, 2, "2xHDR" },
                                            { 0, 9, 1, 1, "4xHDR" },
                                            { 0, 10, 1, 2, "4xHDR" } };
    struct cb live[5];
    struct map_nic nics[] = { ib_nic("mlx5_0", 0) };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f, ref;
    struct topo_findings fnd = { 0 };
    const struct topo_finding *x;
    struct hmap h;

    build(&ref, ref_nodes, 4, ref_cables, 4);
    e.ref = &ref;
    build(&f, ref_nodes, 4, ref_cables, 4);
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 0, "the reference against itself: nothing (%s)", all(&fnd));
    ibf_fabric_free(&f);

    /* n1 moved from leaf:1 to leaf:5, at the reference's 2x */
    memcpy(live, ref_cables, sizeof(ref_cables));
    live[0].pb = 5;
    build(&f, ref_nodes, 4, live, 4);
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "fabric.link.moved");
    ok(fnd.n == 1 && x && !strcmp(x->subject, "n1/mlx5_0:1") &&
           !strcmp(x->expected, "cable to leaf:1") && !strcmp(x->observed, "cabled to leaf:5"),
       "a cable moved: named once, at the HCA, where it was and where it is (%s)", all(&fnd));
    ibf_fabric_free(&f);
    /* moved and trained at 1x: the reference's 2x for that cable is the expectation, not the
     * norm of HCA links (4x here) */
    live[0].rate = "1xHDR";
    live[1].rate = "4xHDR";
    build(&f, ref_nodes, 4, live, 4);
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "link.width");
    ok(fnd.n == 1 && x && !strcmp(x->subject, "n1/mlx5_0:1<->leaf:5") && !strcmp(x->expected, "2x"),
       "the moved cable at 1x: 2x expected, from the reference (%s)", all(&fnd));
    ok(count(&fnd, "link.width", "n2/mlx5_0:1<->leaf:2") == 0,
       "n2's cable at 4x where the reference has 2x: wider is not a fault");
    ibf_fabric_free(&f);
    /* moved and trained at EDR: the reference's HDR for that cable is the expected speed (HCA
     * links have none else without a map) */
    live[0].rate = "2xEDR";
    live[1].rate = "2xEDR";
    build(&f, ref_nodes, 4, live, 4);
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "link.speed");
    ok(count(&fnd, "link.speed", NULL) == 2 && x && !strcmp(x->expected, "HDR") &&
           !strcmp(fnd.v[1].expected, "HDR") &&
           count(&fnd, "link.speed", "n1/mlx5_0:1<->leaf:5") == 1 &&
           count(&fnd, "link.speed", "n2/mlx5_0:1<->leaf:2") == 1,
       "the moved cable and n2's at EDR: HDR expected of both, from the reference (%s)", all(&fnd));
    ibf_fabric_free(&f);

    /* the ISL leaf:10<->spine:2 gone: the port Down and Polling, Down, or not there */
    memcpy(live, ref_cables, sizeof(ref_cables));
    build(&f, ref_nodes, 4, live, 3);
    f.nodes[0].ports[10].phys = IBF_PHYS_POLLING;
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "link.state");
    ok(fnd.n == 1 && x && !strcmp(x->subject, "leaf:10<->spine:2") &&
           !strcmp(x->observed, "Down/Polling at leaf:10") && strstr(x->hint, "Polling:"),
       "a missing ISL whose port polls: link.state, Polling named (%s)", all(&fnd));
    f.nodes[0].ports[10].phys = 0;
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "link.state");
    ok(fnd.n == 1 && x && !strcmp(x->observed, "Down at leaf:10") &&
           strstr(x->hint, "does not train"),
       "... Down without a physical state: said plainly (%s)", x ? x->observed : all(&fnd));
    f.nodes[0].ports[10].state = 0;
    f.nodes[1].ports[2].state = 0;
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "fabric.link.missing");
    ok(fnd.n == 1 && x && !strcmp(x->subject, "leaf:10<->spine:2") &&
           !strcmp(x->observed, "not found"),
       "... neither port's state known: the cable is missing (%s)", all(&fnd));
    ibf_fabric_free(&f);

    /* n2 gone from the fabric: one finding, not another from the map's HCAs */
    {
        static const struct cb no_n2[] = { { 2, 1, 0, 1, "2xHDR" },
                                           { 0, 9, 1, 1, "4xHDR" },
                                           { 0, 10, 1, 2, "4xHDR" } };
        build(&f, ref_nodes, 3, no_n2, 3);
        f.nodes[0].ports[2].state = 0;
        mkmap(&h, "n[1-2]", nics, 1, NULL);
        e.map = &h.m;
        analyze(&f, &e, &fnd, NULL);
        ok(fnd.n == 1 && count(&fnd, "fabric.link.missing", "n2/mlx5_0:1<->leaf:2") == 1,
           "an HCA gone: its cable missing, the HCA named once (%s)", all(&fnd));
        e.map = NULL;
        ibf_fabric_free(&f);
    }

    /* the HCA first in the dump (node 0), its cable moved and trained at 1x: the width finding
     * claims both ends, so the move is not said a second time */
    {
        static const struct nd hca_first[] = { { 'H', 0x11, "n1 mlx5_0", 1 },
                                               { 'S', 0x100, "leaf", 16 } };
        static const struct cb was[] = { { 0, 1, 1, 1, "2xHDR" } };
        static const struct cb now[] = { { 0, 1, 1, 5, "1xHDR" } };
        static const struct cb now2[] = { { 0, 1, 1, 5, "2xHDR" } };
        struct ibf_fabric r1;
        build(&r1, hca_first, 2, was, 1);
        build(&f, hca_first, 2, now, 1);
        e.ref = &r1;
        analyze(&f, &e, &fnd, NULL);
        ok(fnd.n == 1 && count(&fnd, "link.width", "n1/mlx5_0:1<->leaf:5") == 1,
           "node 0's moved cable at 1x: one finding (%s)", all(&fnd));
        ibf_fabric_free(&f);
        build(&f, hca_first, 2, now2, 1);
        analyze(&f, &e, &fnd, NULL);
        ok(fnd.n == 1 && count(&fnd, "fabric.link.moved", "n1/mlx5_0:1") == 1,
           "node 0's cable moved at its width: moved, named at node 0 (%s)", all(&fnd));
        e.ref = &ref;
        ibf_fabric_free(&f);
        ibf_fabric_free(&r1);
    }

    /* node 0's cable to itself, at 1x: its finding claims both its ports, so the reference's
     * cable that one of them had is not said moved as well */
    {
        static const struct nd sw[] = { { 'S', 0x100, "leaf", 16 }, { 'S', 0x300, "spine", 8 } };
        static const struct cb was[] = { { 0, 9, 1, 1, "4xHDR" },
                                         { 0, 10, 1, 2, "4xHDR" },
                                         { 0, 11, 1, 3, "4xHDR" } };
        static const struct cb now[] = { { 0, 9, 1, 1, "4xHDR" },
                                         { 0, 10, 1, 2, "4xHDR" },
                                         { 0, 4, 0, 11, "1xHDR" } };
        struct ibf_fabric r1;
        build(&r1, sw, 2, was, 3);
        build(&f, sw, 2, now, 3);
        f.nodes[1].ports[3].state = 0;
        e.ref = &r1;
        analyze(&f, &e, &fnd, NULL);
        ok(fnd.n == 1 && count(&fnd, "link.width", "leaf:4<->leaf:11") == 1,
           "a switch's port cabled to another of its ports at 1x: one finding (%s)", all(&fnd));
        ibf_fabric_free(&f);
        {
            static const struct cb loop4x[] = { { 0, 9, 1, 1, "4xHDR" },
                                                { 0, 10, 1, 2, "4xHDR" },
                                                { 0, 11, 1, 3, "4xHDR" },
                                                { 0, 4, 0, 5, "4xHDR" } };
            build(&f, sw, 2, loop4x, 4);
            analyze(&f, &e, &fnd, NULL);
            ok(fnd.n == 1 && count(&fnd, "fabric.link.extra", "leaf:4<->leaf:5") == 1,
               "... at 4x, a cable the reference does not have: extra, once (%s)", all(&fnd));
        }
        e.ref = &ref;
        ibf_fabric_free(&f);
        ibf_fabric_free(&r1);
    }

    /* a back-to-back cable between two HCAs, one of them gone: a host check of either keeps it,
     * the gone one's by the subject's second end */
    {
        static const struct nd b2b[] = { { 'S', 0x100, "leaf", 16 },
                                         { 'H', 0x11, "n1 mlx5_0", 2 },
                                         { 'H', 0x21, "n2 mlx5_0", 1 } };
        static const struct cb was[] = { { 1, 1, 0, 1, "4xHDR" }, { 2, 1, 1, 2, "4xHDR" } };
        struct ibf_fabric r1;
        build(&r1, b2b, 3, was, 2);
        build(&f, b2b, 2, was, 1);
        f.nodes[1].ports[2].state = 0;
        e.ref = &r1;
        analyze(&f, &e, &fnd, NULL);
        ok(fnd.n == 1 && count(&fnd, "fabric.link.missing", "n1/mlx5_0:2<->n2/mlx5_0:1") == 1,
           "an HCA-to-HCA cable gone: named by both HCAs (%s)", all(&fnd));
        e.only_host = "n2";
        analyze(&f, &e, &fnd, NULL);
        ok(fnd.n == 1, "a host check of n2, which the fabric lacks: kept by its name (%s)",
           all(&fnd));
        e.only_host = "n1";
        analyze(&f, &e, &fnd, NULL);
        ok(fnd.n == 1, "... and of n1, by its node");
        e.only_host = "n";
        analyze(&f, &e, &fnd, NULL);
        ok(fnd.n == 0, "a host whose name begins the others' (n): nothing (%s)", all(&fnd));
        /* the reference names the gone HCA by its host only (a name map's "n2") */
        free(r1.nodes[2].name);
        free(r1.nodes[2].hca);
        r1.nodes[2].name = strdup("n2");
        r1.nodes[2].hca = NULL;
        e.only_host = "n2";
        analyze(&f, &e, &fnd, NULL);
        ok(fnd.n == 1 && count(&fnd, "fabric.link.missing", "n1/mlx5_0:2<->n2:1") == 1,
           "... named by its host only: still n2's (%s)", all(&fnd));
        e.only_host = NULL;
        e.ref = &ref;
        ibf_fabric_free(&f);
        ibf_fabric_free(&r1);
    }

    /* a cable the reference does not have, between two nodes it has */
    memcpy(live, ref_cables, sizeof(ref_cables));
    live[4] = (struct cb){ 0, 11, 1, 3, "4xHDR" };
    build(&f, ref_nodes, 4, live, 5);
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "fabric.link.extra");
    ok(fnd.n == 1 && x && !strcmp(x->subject, "leaf:11<->spine:3") &&
           !strcmp(x->expected, "not in the reference fabric"),
       "an extra ISL (%s)", all(&fnd));
    finish(&fnd, NULL, &f);
    ibf_fabric_free(&ref);
}

/* the HCAs the map promises: each host's NICs with a rail that are not Ethernet */
static void test_missing(void)
{
    static const struct cb cables[] = { { 2, 1, 0, 1, "4xHDR" }, { 3, 1, 0, 2, "4xHDR" } };
    struct map_nic nics[] = { ib_nic("mlx5_0", 0), ib_nic("mlx5_1", 1), ib_nic("mlx5_2", 0),
                              ib_nic("mlx5_3", -1) };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    const struct topo_finding *x;
    struct hmap h;

    nics[1].link_layer = TOPO_LL_ETHERNET;
    nics[2].port = 2;
    build(&f, ref_nodes, 4, cables, 2);
    mkmap(&h, "n[1-3]", nics, 4, NULL);
    e.map = &h.m;
    analyze(&f, &e, &fnd, NULL);
    ok(count(&fnd, "fabric.link.missing", NULL) == 4 &&
           count(&fnd, "fabric.link.missing", "n3/mlx5_0:1") == 1 &&
           count(&fnd, "fabric.link.missing", "n1/mlx5_2:2") == 1 &&
           count(&fnd, "fabric.link.missing", "n3/mlx5_2:2") == 1,
       "n1's, n2's and n3's mlx5_2 (port 2) and n3's mlx5_0 are missing; the Ethernet NIC and "
       "the one without a rail are not (%s)",
       all(&fnd));
    x = first(&fnd, "fabric.link.missing");
    ok(x && !strcmp(x->expected, "cabled to a leaf of rail 0") &&
           !strcmp(x->observed, "not in the fabric"),
       "... expected on a leaf of its rail");
    e.only_host = "n3";
    analyze(&f, &e, &fnd, NULL);
    ok(count(&fnd, "fabric.link.missing", NULL) == 2, "only_host n3: n3's two only (%s)",
       all(&fnd));
    e.only_host = "n1";
    analyze(&f, &e, &fnd, NULL);
    ok(count(&fnd, "fabric.link.missing", NULL) == 1 &&
           count(&fnd, "fabric.link.missing", "n1/mlx5_2:2") == 1,
       "only_host n1: its mlx5_2 only (%s)", all(&fnd));
    finish(&fnd, NULL, &f);
}

/* ibnetdiscover's own errors in a dump: a warning that lists at most four, and how many more */
static void test_discovery_errors(void)
{
    static const struct cb cables[] = { { 2, 1, 0, 1, "4xHDR" } };
    char *errs[] = { (char *)"e1", (char *)"e2", (char *)"e3",
                     (char *)"e4", (char *)"e5", (char *)"e6" };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct ibf_notes notes = { 0 };
    const struct topo_finding *x;

    build(&f, ref_nodes, 3, cables, 1);
    f.discovery_errors = errs;
    f.ndiscovery_errors = 1;
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "fabric.discovery.incomplete");
    ok(x && x->sev == TOPO_SEV_WARN && !strcmp(x->observed, "1 discovery error: e1"),
       "one discovery error: a warning naming it (%s)", x ? x->observed : "none");
    f.ndiscovery_errors = 4;
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "fabric.discovery.incomplete");
    ok(x && !strcmp(x->observed, "4 discovery errors: e1; e2; e3; e4"), "four: each named (%s)",
       x ? x->observed : "none");
    f.ndiscovery_errors = 6;
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "fabric.discovery.incomplete");
    ok(x && !strcmp(x->observed, "6 discovery errors: e1; e2; e3; e4; +2 more"),
       "six: four named and how many more (%s)", x ? x->observed : "none");
    f.discovery_errors = NULL;
    f.ndiscovery_errors = 0;
    analyze(&f, &e, &fnd, &notes);
    ok(fnd.n == 0 && !has_note(&notes, "limited number of hops"), "none: no warning, no note");
    f.hops_limited = 1;
    analyze(&f, &e, &fnd, &notes);
    ok(has_note(&notes, "limited number of hops"), "a dump of limited hops: noted");
    finish(&fnd, &notes, &f);
}

/* this host's own HCAs, found by GUID, should say "<host> <hca>" */
static void test_own_descs(void)
{
    static const struct cb cables[] = { { 2, 1, 0, 1, "4xHDR" }, { 3, 1, 0, 2, "4xHDR" } };
    const uint64_t guids[] = { 0x11, 0x21, 0x99 };
    const char *const hcas[] = { "mlx5_0", "mlx5_7", "mlx5_9" };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    const struct topo_finding *x;

    build(&f, ref_nodes, 4, cables, 2);
    e.own_guid = guids;
    e.own_hca = hcas;
    e.nown = 3;
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 0, "no host to check: own HCAs are not judged");
    e.only_host = "n1";
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "fabric.desc.mismatch");
    ok(fnd.n == 1 && x && x->sev == TOPO_SEV_WARN && !strcmp(x->subject, "n1/mlx5_7") &&
           !strcmp(x->expected, "n1 mlx5_7") && !strcmp(x->observed, "n2 mlx5_0"),
       "host n1 whose mlx5_7 (GUID 0x21) says \"n2 mlx5_0\": a warning; its mlx5_0 is right, "
       "a GUID not in the fabric is left (%s)",
       all(&fnd));
    finish(&fnd, NULL, &f);
}

/* an HCA a name map names by its host only ("n3"): the map's one InfiniBand NIC of that host
 * is the one; with two, which one is not known */
static void test_host_only(void)
{
    static const struct nd nodes[] = {
        { 'S', 0x100, "leaf-r0", 8 },  { 'S', 0x200, "leaf-r1", 8 },  { 'H', 0x11, "n1 mlx5_0", 1 },
        { 'H', 0x21, "n2 mlx5_0", 1 }, { 'H', 0x31, "n3 mlx5_0", 1 },
    };
    static const struct cb cables[] = { { 2, 1, 0, 1, "4xHDR" },
                                        { 3, 1, 0, 2, "4xHDR" },
                                        { 4, 1, 1, 1, "4xHDR" } };
    struct map_nic nics[] = { ib_nic("mlx5_0", 0), ib_nic("eth0", 1), ib_nic("mlx5_1", 1) };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct ibf_notes notes = { 0 };
    struct hmap h;

    const char *const by_name[4] = { "leaf-r0", "leaf-r1", NULL, NULL };

    nics[1].link_layer = TOPO_LL_ETHERNET;
    build(&f, nodes, 5, cables, 3);
    free(f.nodes[4].name);
    free(f.nodes[4].hca);
    f.nodes[4].name = strdup("n3");
    f.nodes[4].hca = NULL;
    /* one InfiniBand NIC (and an Ethernet one): n3's HCA is its mlx5_0, of rail 0, on rail 1's
     * leaf; nothing is missing */
    mkmap(&h, "n[1-3]", nics, 2, by_name);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    ok(fnd.n == 1 && count(&fnd, "rail.cabling", "n3:1") == 1,
       "an HCA named n3 alone, the host's one InfiniBand NIC of rail 0, on rail 1's leaf (%s)",
       all(&fnd));
    ok(ibf_hca_rail_port(&f, &h.m, 4) == 1, "... its rail's port is 1");
    /* two InfiniBand NICs: n3's HCA is neither; both are missing */
    mkmap(&h, "n[1-3]", nics, 3, by_name);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "rail.cabling", NULL) == 0 && has_note(&notes, "1 HCAs are not NICs"),
       "with two InfiniBand NICs, the host-only HCA is not judged (%s)", all(&fnd));
    ok(count(&fnd, "fabric.link.missing", "n3/mlx5_0:1") == 1 &&
           count(&fnd, "fabric.link.missing", "n3/mlx5_1:1") == 1,
       "... and n3's two NICs are called missing (%s)", all(&fnd));
    ok(ibf_hca_rail_port(&f, &h.m, 4) == 0, "... no rail port");
    finish(&fnd, &notes, &f);
}

/* a leaf's rail by majority, node 0's vote deciding it; an HCA whose device the map does not
 * list is no NIC of the map, even where the host has one InfiniBand NIC */
static void test_votes(void)
{
    static const struct nd nodes[] = {
        { 'H', 0x11, "n1 mlx5_0", 1 }, { 'S', 0x100, "leaf", 8 },  { 'H', 0x21, "n2 mlx5_0", 1 },
        { 'H', 0x31, "n3 mlx5_1", 1 }, { 'S', 0x300, "spine", 8 },
    };
    static const struct cb cables[] = { { 0, 1, 1, 1, "4xHDR" },
                                        { 2, 1, 1, 2, "4xHDR" },
                                        { 3, 1, 1, 3, "4xHDR" },
                                        { 1, 8, 4, 1, "4xHDR" } };
    struct map_nic nics[] = { ib_nic("mlx5_0", 0), ib_nic("mlx5_1", 1), ib_nic("mlx5_3", -1) };
    const char *const by_name[4] = { "leaf", NULL, NULL, NULL };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct ibf_notes notes = { 0 };
    struct hmap h;

    build(&f, nodes, 5, cables, 4);
    mkmap(&h, "n[1-3]", nics, 3, NULL);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    ok(fnd.n == 4 && count(&fnd, "rail.cabling", "n3/mlx5_1:1") == 1,
       "two rail-0 HCAs (one of them node 0) and a rail-1 one on a leaf: the rail-1 one is "
       "miscabled; the others' mlx5_1 and n3's mlx5_0 are missing (%s)",
       all(&fnd));
    /* n1's device not in the map: the map's only InfiniBand NIC is not taken for it */
    nics[1].link_layer = TOPO_LL_ETHERNET;
    free(f.nodes[3].hca);
    f.nodes[3].hca = strdup("mlx5_7");
    mkmap(&h, "n[1-3]", nics, 2, NULL);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    ok(has_note(&notes, "1 HCAs are not NICs of a host in the map") &&
           count(&fnd, "fabric.link.missing", "n3/mlx5_0:1") == 1 &&
           count(&fnd, "rail.cabling", NULL) == 0,
       "n3's mlx5_7, a device the map does not list: not its mlx5_0, which is missing (%s)",
       all(&fnd));
    /* an HCA whose NIC has no rail in the map is not judged for its rail */
    nics[1].link_layer = TOPO_LL_INFINIBAND;
    free(f.nodes[3].hca);
    f.nodes[3].hca = strdup("mlx5_1");
    free(f.nodes[2].hca);
    f.nodes[2].hca = strdup("mlx5_3");
    mkmap(&h, "n[1-3]", nics, 3, by_name);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "rail.cabling", NULL) == 1 && count(&fnd, "rail.cabling", "n3/mlx5_1:1") == 1,
       "on rail 0's leaf: n3's rail-1 HCA is miscabled, n2's mlx5_3, of no rail, is not (%s)",
       all(&fnd));
    finish(&fnd, &notes, &f);
}

/* an HCA that is node 0: its NIC's rate is its expectation, its slow link is counted; a port
 * whose state is not known leaves the state to the other end */
static void test_links_node0(void)
{
    static const struct nd nodes[] = {
        { 'H', 0x11, "n1 mlx5_0", 1 },
        { 'S', 0x100, "leaf", 16 },
        { 'S', 0x300, "spine", 8 },
        { 'H', 0x21, "n2 mlx5_0", 1 },
    };
    static const struct cb cables[] = { { 0, 1, 1, 1, "4xEDR" },
                                        { 3, 1, 1, 2, "4xEDR" },
                                        { 1, 9, 2, 1, "4xHDR" } };
    struct map_nic nics[] = { ib_nic("mlx5_0", 0) };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct ibf_notes notes = { 0 };
    const struct topo_finding *x;
    struct hmap h;

    build(&f, nodes, 4, cables, 3);
    analyze(&f, &e, &fnd, &notes);
    ok(fnd.n == 0 && has_note(&notes, "2 HCA links run below the fabric's HDR (2 at EDR)"),
       "no map: both EDR HCA links counted in the note, node 0's too (%s)",
       notes.n ? notes.v[0] : all(&fnd));
    nics[0].rate_gbps = 200;
    mkmap(&h, "n[1-2]", nics, 1, NULL);
    e.map = &h.m;
    analyze(&f, &e, &fnd, &notes);
    ok(fnd.n == 2 && count(&fnd, "link.speed", "n1/mlx5_0:1<->leaf:1") == 1,
       "NIC rate 200: both EDR links fail, node 0's too (%s)", all(&fnd));
    /* n1's port state not known, the leaf's end Armed: the leaf's state is said */
    f.nodes[0].ports[1].state = 0;
    f.nodes[1].ports[1].state = IBF_STATE_ARMED;
    analyze(&f, &e, &fnd, &notes);
    x = first(&fnd, "link.state");
    ok(x && !strcmp(x->observed, "Armed/LinkUp"),
       "one end's state unknown, the other Armed: Armed is said (%s)", x ? x->observed : "none");
    /* both ends' states unknown: no state finding, the link judged on */
    f.nodes[1].ports[1].state = 0;
    analyze(&f, &e, &fnd, &notes);
    ok(count(&fnd, "link.state", NULL) == 0 && count(&fnd, "link.speed", NULL) == 2,
       "both states unknown: not a state finding (%s)", all(&fnd));
    finish(&fnd, &notes, &f);
}

/* an HCA cabled to another HCA, or not cabled at all, is not judged for its rail: only a
 * switch at the far end has one */
static void test_rails_no_switch(void)
{
    static const struct nd nodes[] = {
        { 'S', 0x100, "leaf", 8 },     { 'H', 0x11, "n1 mlx5_0", 1 }, { 'H', 0x21, "n2 mlx5_1", 1 },
        { 'H', 0x31, "n3 mlx5_0", 1 }, { 'H', 0x41, "n4 mlx5_0", 1 }, { 'H', 0x51, "n5 mlx5_0", 1 },
    };
    static const struct cb cables[] = { { 1, 1, 2, 1, "4xHDR" },
                                        { 4, 1, 0, 1, "4xHDR" },
                                        { 5, 1, 0, 2, "4xHDR" } };
    struct map_nic nics[] = { ib_nic("mlx5_0", 0), ib_nic("mlx5_1", 1) };
    const char *const by_name[4] = { "leaf", NULL, NULL, NULL };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct hmap h;

    build(&f, nodes, 6, cables, 3);
    mkmap(&h, "n[1-5]", nics, 2, by_name);
    e.map = &h.m;
    analyze(&f, &e, &fnd, NULL);
    ok(count(&fnd, "rail.cabling", NULL) == 0,
       "n1's rail-0 HCA cabled to n2's rail-1 HCA, n3's HCA not cabled: no rail finding (%s)",
       all(&fnd));
    finish(&fnd, NULL, &f);
}

/* what the reference has for a cable in its place is its expectation: ISLs whose norm is 2x
 * are judged against the reference's 4x, in either order of the nodes in the two dumps; a cable
 * whose far end differs from the reference's has no such expectation */
static void test_reference_expect(void)
{
    static const struct nd leaf_first[] = { { 'S', 0x100, "leaf", 16 },
                                            { 'S', 0x300, "spine", 8 } };
    static const struct nd spine_first[] = { { 'S', 0x300, "spine", 8 },
                                             { 'S', 0x100, "leaf", 16 } };
    static const struct cb ref4[] = { { 0, 9, 1, 1, "4xHDR" },
                                      { 0, 10, 1, 2, "4xHDR" },
                                      { 0, 16, 1, 3, "4xHDR" } };
    static const struct cb ref4_swapped[] = { { 1, 9, 0, 1, "4xHDR" },
                                              { 1, 10, 0, 2, "4xHDR" },
                                              { 1, 16, 0, 3, "4xHDR" } };
    static const struct cb live2[] = { { 0, 9, 1, 1, "2xHDR" },
                                       { 0, 10, 1, 2, "2xHDR" },
                                       { 0, 16, 1, 3, "2xHDR" } };
    /* leaf:9 and leaf:10 to the other's spine port; leaf:16 in place */
    static const struct cb crossed[] = { { 0, 9, 1, 2, "2xHDR" },
                                         { 0, 10, 1, 1, "2xHDR" },
                                         { 0, 16, 1, 3, "2xHDR" } };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f, ref;
    struct topo_findings fnd = { 0 };

    build(&f, leaf_first, 2, live2, 3);
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 0, "three ISLs at 2x, no reference: 2x is their norm (%s)", all(&fnd));
    build(&ref, leaf_first, 2, ref4, 3);
    e.ref = &ref;
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 3 && count(&fnd, "link.width", NULL) == 3 &&
           count(&fnd, "link.width", "leaf:16<->spine:3") && first(&fnd, "link.width") &&
           !strcmp(first(&fnd, "link.width")->expected, "4x"),
       "the reference has them at 4x: each fails, leaf's last port too (%s)", all(&fnd));
    ibf_fabric_free(&ref);
    build(&ref, spine_first, 2, ref4_swapped, 3);
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 3 && count(&fnd, "link.width", NULL) == 3,
       "the same with the reference listing the spine first: the cables are in place (%s)",
       all(&fnd));
    ibf_fabric_free(&f);
    build(&f, leaf_first, 2, ref4, 3);
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 0, "the fabric as the reference that lists the spine first: nothing (%s)",
       all(&fnd));
    ibf_fabric_free(&ref);
    ibf_fabric_free(&f);
    /* node 0's cable to itself, 4x in the reference, 2x now as every ISL: it fails */
    {
        static const struct cb ref_loop[] = { { 0, 9, 1, 1, "4xHDR" }, { 0, 4, 0, 5, "4xHDR" } };
        static const struct cb live_loop[] = { { 0, 9, 1, 1, "2xHDR" }, { 0, 4, 0, 5, "2xHDR" } };
        build(&ref, leaf_first, 2, ref_loop, 2);
        build(&f, leaf_first, 2, live_loop, 2);
        analyze(&f, &e, &fnd, NULL);
        ok(fnd.n == 2 && count(&fnd, "link.width", "leaf:4<->leaf:5") == 1,
           "node 0's cable to itself at 2x where the reference has 4x: it fails too (%s)",
           all(&fnd));
        ibf_fabric_free(&ref);
    }
    ibf_fabric_free(&f);
    build(&ref, spine_first, 2, ref4_swapped, 3);
    build(&f, leaf_first, 2, crossed, 3);
    analyze(&f, &e, &fnd, NULL);
    ok(count(&fnd, "link.width", NULL) == 1 && count(&fnd, "link.width", "leaf:16<->spine:3") == 1,
       "two ISLs crossed: only the one in place has the reference's 4x to fail (%s)", all(&fnd));
    ok(fnd.n == 3 && count(&fnd, "fabric.link.moved", "spine:1") == 1 &&
           count(&fnd, "fabric.link.extra", "leaf:9<->spine:2") == 1,
       "... the crossed ones named once each: the first moved, the other then extra (%s)",
       all(&fnd));
    finish(&fnd, NULL, &f);
    ibf_fabric_free(&ref);
}

/* the reference's cables the live fabric lacks, each named once: between two nodes it lacks
 * (no live port to claim), and a switch's cable to itself on the reference's node 0 */
static void test_reference_gone(void)
{
    static const struct nd nodes[] = { { 'S', 0x300, "spine", 8 },
                                       { 'S', 0x100, "leaf", 16 },
                                       { 'S', 0x200, "leaf2", 16 },
                                       { 'H', 0x51, "n5 mlx5_0", 1 } };
    static const struct cb was[] = { { 1, 9, 0, 1, "4xHDR" },
                                     { 2, 9, 0, 6, "4xHDR" },
                                     { 3, 1, 2, 1, "4xHDR" },
                                     { 0, 4, 0, 5, "4xHDR" } };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f, ref;
    struct topo_findings fnd = { 0 };

    build(&ref, nodes, 4, was, 4);
    build(&f, nodes, 2, was, 1);
    for (int p = 2; p <= 8; p++)
        f.nodes[0].ports[p].state = 0;
    e.ref = &ref;
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 3 && count(&fnd, "fabric.link.missing", "n5/mlx5_0:1<->leaf2:1") == 1 &&
           count(&fnd, "fabric.link.missing", "leaf2:9<->spine:6") == 1 &&
           count(&fnd, "fabric.link.missing", "spine:4<->spine:5") == 1,
       "a leaf and its HCA gone, and the spine's cable to itself: three cables missing, each "
       "once (%s)",
       all(&fnd));
    finish(&fnd, NULL, &f);
    ibf_fabric_free(&ref);
}

/* an HCA whose NodeDescription changed since the reference: found by its GUID, it is not one
 * of the map's HCAs gone missing */
static void test_renamed(void)
{
    /* the renamed HCA is node 0 of both dumps */
    static const struct nd was[] = { { 'H', 0x21, "n2 mlx5_0", 1 },
                                     { 'H', 0x11, "n1 mlx5_0", 1 },
                                     { 'S', 0x100, "leaf", 8 } };
    static const struct nd now[] = { { 'H', 0x21, "localhost mlx5_0", 1 },
                                     { 'H', 0x11, "n1 mlx5_0", 1 },
                                     { 'S', 0x100, "leaf", 8 } };
    static const struct cb cables[] = { { 1, 1, 2, 1, "4xHDR" }, { 0, 1, 2, 2, "4xHDR" } };
    struct map_nic nics[] = { ib_nic("mlx5_0", 0) };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f, ref;
    struct topo_findings fnd = { 0 };
    struct hmap h;

    build(&f, now, 3, cables, 2);
    mkmap(&h, "n[1-2]", nics, 1, NULL);
    e.map = &h.m;
    analyze(&f, &e, &fnd, NULL);
    ok(count(&fnd, "fabric.link.missing", "n2/mlx5_0:1") == 1,
       "without a reference, n2's HCA under another name is missing (%s)", all(&fnd));
    build(&ref, was, 3, cables, 2);
    e.ref = &ref;
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 0, "with the reference, its GUID says it is n2's: nothing missing or moved (%s)",
       all(&fnd));
    /* a host of the map the reference does not have either: missing */
    mkmap(&h, "n[1-3]", nics, 1, NULL);
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 1 && count(&fnd, "fabric.link.missing", "n3/mlx5_0:1") == 1,
       "n3, in the map but in neither fabric: missing (%s)", all(&fnd));
    /* the hosts of a second line of the map's nodes are looked for too */
    h.nodes[1].hostlist = (char *)"n4";
    h.nodes[1].type = (char *)"g";
    h.m.nnodes = 2;
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 2 && count(&fnd, "fabric.link.missing", "n4/mlx5_0:1") == 1,
       "n4, of the map's second line of nodes: missing too (%s)", all(&fnd));
    mkmap(&h, "n[1-2]", nics, 1, NULL);
    /* a reference node without a GUID is found by its name */
    ref.nodes[2].guid = 0;
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 0, "a reference switch without a GUID: found by its name (%s)", all(&fnd));
    free(ref.nodes[2].name);
    ref.nodes[2].name = strdup("leaf-gone");
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 2 && count(&fnd, "fabric.link.moved", NULL) == 2,
       "... by another name: not found, the HCAs' cables lead elsewhere than the reference's "
       "(%s)",
       all(&fnd));
    finish(&fnd, NULL, &f);
    ibf_fabric_free(&ref);
}

/* a cable moved to the same port number of another switch is moved; a cable gone from both
 * switches' last ports leaves them Down */
static void test_reference_edges(void)
{
    static const struct nd nodes[] = { { 'S', 0x100, "leaf", 16 },
                                       { 'S', 0x200, "leaf2", 16 },
                                       { 'S', 0x300, "spine", 8 },
                                       { 'H', 0x11, "n1 mlx5_0", 1 } };
    static const struct cb was[] = { { 3, 1, 0, 1, "4xHDR" },
                                     { 0, 16, 2, 8, "4xHDR" },
                                     { 1, 9, 2, 1, "4xHDR" } };
    static const struct cb now[] = { { 3, 1, 1, 1, "4xHDR" }, { 1, 9, 2, 1, "4xHDR" } };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f, ref;
    struct topo_findings fnd = { 0 };
    const struct topo_finding *x;

    build(&ref, nodes, 4, was, 3);
    build(&f, nodes, 4, now, 2);
    e.ref = &ref;
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "fabric.link.moved");
    ok(x && !strcmp(x->subject, "n1/mlx5_0:1") && !strcmp(x->observed, "cabled to leaf2:1"),
       "n1 moved from leaf port 1 to leaf2 port 1: moved (%s)", all(&fnd));
    x = first(&fnd, "link.state");
    ok(fnd.n == 2 && x && !strcmp(x->subject, "leaf:16<->spine:8") &&
           !strcmp(x->observed, "Down at leaf:16"),
       "the cable of leaf's and spine's last ports gone: Down at leaf:16 (%s)", all(&fnd));
    finish(&fnd, NULL, &f);
    ibf_fabric_free(&ref);
}

/* the width norm: 1x links count (a fabric of 1x links is not short of 2x), a width not known
 * does not; a cable to node 0 counts */
static void test_width_norm_edges(void)
{
    static const struct nd nodes[] = { { 'S', 0x100, "leaf", 16 }, { 'S', 0x300, "spine", 8 } };
    static const struct cb cables[] = { { 0, 9, 1, 1, "1xHDR" },
                                        { 0, 10, 1, 2, "1xHDR" },
                                        { 0, 11, 1, 3, "1xHDR" },
                                        { 0, 12, 1, 4, "2xHDR" },
                                        { 0, 13, 1, 5, "2xHDR" } };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };

    build(&f, nodes, 2, cables, 5);
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 0, "three ISLs at 1x, two at 2x: 1x is the norm, nothing is short (%s)", all(&fnd));
    /* three widths not known (live discovery): the two 2x then outnumber the one 1x left */
    for (int p = 9; p <= 10; p++)
        f.nodes[0].ports[p].width = f.nodes[1].ports[p - 8].width = 0;
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 1 && count(&fnd, "link.width", "leaf:11<->spine:3") == 1,
       "two 1x ISLs' widths not known: 2x is the norm, the 1x left is short (%s)", all(&fnd));
    ibf_fabric_free(&f);
    /* three 1x cables to node 0 and two 2x between two others: each cable counts at both ends */
    {
        static const struct nd three[] = { { 'S', 0x100, "leaf", 16 },
                                           { 'S', 0x300, "spine", 8 },
                                           { 'S', 0x400, "spine2", 8 } };
        static const struct cb c3[] = { { 1, 1, 0, 1, "1xHDR" },
                                        { 1, 2, 0, 2, "1xHDR" },
                                        { 1, 3, 0, 3, "1xHDR" },
                                        { 1, 4, 2, 1, "2xHDR" },
                                        { 1, 5, 2, 2, "2xHDR" } };
        build(&f, three, 3, c3, 5);
        analyze(&f, &e, &fnd, NULL);
        ok(fnd.n == 0, "three 1x ISLs to node 0, two 2x elsewhere: 1x is the norm (%s)", all(&fnd));
    }
    finish(&fnd, NULL, &f);
}

/* the ISLs' speed norm counts ISLs only, both ends of each, cables to node 0 too; 12x links
 * count in the width norm */
static void test_speed_norm(void)
{
    static const struct nd nodes[] = {
        { 'S', 0x100, "leaf", 16 },    { 'S', 0x300, "spine", 8 },    { 'S', 0x400, "spine2", 8 },
        { 'H', 0x11, "n1 mlx5_0", 1 }, { 'H', 0x21, "n2 mlx5_0", 1 }, { 'H', 0x31, "n3 mlx5_0", 1 },
        { 'H', 0x41, "n4 mlx5_0", 1 }, { 'H', 0x51, "n5 mlx5_0", 1 },
    };
    static const struct cb cables[] = {
        { 0, 9, 1, 1, "4xHDR" }, { 0, 10, 1, 2, "4xHDR" }, { 0, 11, 1, 3, "4xHDR" },
        { 1, 4, 2, 1, "4xEDR" }, { 1, 5, 2, 2, "4xEDR" },  { 3, 1, 0, 1, "4xEDR" },
        { 4, 1, 0, 2, "4xEDR" }, { 5, 1, 0, 3, "4xEDR" },  { 6, 1, 0, 4, "4xEDR" },
        { 7, 1, 0, 5, "4xEDR" },
    };
    static const struct cb wide[] = { { 1, 1, 2, 1, "12xHDR" },
                                      { 1, 2, 2, 2, "12xHDR" },
                                      { 1, 3, 2, 3, "8xHDR" } };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct ibf_notes notes = { 0 };

    build(&f, nodes, 8, cables, 10);
    analyze(&f, &e, &fnd, &notes);
    ok(fnd.n == 2 && count(&fnd, "link.speed", "spine:4<->spine2:1") == 1 &&
           count(&fnd, "link.speed", "spine:5<->spine2:2") == 1,
       "three HDR ISLs to node 0, two EDR ISLs elsewhere, five EDR HCA links: HDR is the ISLs' "
       "norm, the EDR ISLs fail (%s)",
       all(&fnd));
    ok(has_note(&notes, "5 HCA links run below the fabric's HDR (5 at EDR)"),
       "... the HCA links below it are noted (%s)", notes.n ? notes.v[0] : "no note");
    ibf_fabric_free(&f);
    /* speeds not known (live discovery) do not count: two EDR ISLs outnumber an FDR one */
    {
        static const struct cb mixed[] = { { 1, 1, 2, 1, "4xHDR" },
                                           { 1, 2, 2, 2, "4xHDR" },
                                           { 1, 3, 2, 3, "4xEDR" },
                                           { 1, 4, 2, 4, "4xEDR" },
                                           { 1, 5, 2, 5, "4xFDR" } };
        build(&f, nodes, 3, mixed, 5);
        for (int p = 1; p <= 2; p++)
            f.nodes[1].ports[p].speed = f.nodes[2].ports[p].speed = IBF_SPEED_UNKNOWN;
        analyze(&f, &e, &fnd, &notes);
        ok(fnd.n == 1 && count(&fnd, "link.speed", "spine:5<->spine2:5") == 1 &&
               !strcmp(fnd.v[0].expected, "EDR"),
           "two ISLs' speeds not known, two EDR, one FDR: the FDR one fails against EDR (%s)",
           all(&fnd));
        ibf_fabric_free(&f);
    }
    /* an HDR ISL and an EDR one: a tie goes to the faster, the slower is the odd one */
    {
        static const struct cb tie[] = { { 1, 1, 2, 1, "4xHDR" }, { 1, 2, 2, 2, "4xEDR" } };
        build(&f, nodes, 3, tie, 2);
        analyze(&f, &e, &fnd, &notes);
        ok(fnd.n == 1 && count(&fnd, "link.speed", "spine:2<->spine2:2") == 1,
           "one HDR ISL and one EDR: the EDR one fails (%s)", all(&fnd));
        ibf_fabric_free(&f);
    }
    /* a width no InfiniBand link has (13x, a garbled dump) is left out of the norm */
    {
        static const struct cb odd[] = { { 1, 1, 2, 1, "4xHDR" },
                                         { 1, 2, 2, 2, "4xHDR" },
                                         { 1, 3, 2, 3, "13xHDR" } };
        build(&f, nodes, 3, odd, 3);
        analyze(&f, &e, &fnd, &notes);
        ok(fnd.n == 0, "two 4x ISLs and a 13x one: 4x is the norm, nothing fails (%s)", all(&fnd));
        ibf_fabric_free(&f);
    }
    build(&f, nodes, 3, wide, 3);
    analyze(&f, &e, &fnd, &notes);
    ok(fnd.n == 1 && count(&fnd, "link.width", "spine:3<->spine2:3") == 1 &&
           !strcmp(fnd.v[0].expected, "12x"),
       "two 12x ISLs and an 8x one: 12x is the norm, the 8x fails (%s)", all(&fnd));
    finish(&fnd, &notes, &f);
}

/* node 0's own NodeDescription; two HCAs answering with one */
static void test_descs_node0(void)
{
    static const struct nd nodes[] = { { 'H', 0x11, "n1 mlx5_0", 1 },
                                       { 'S', 0x100, "leaf", 8 },
                                       { 'H', 0x21, "n1 mlx5_0", 1 } };
    static const struct cb cables[] = { { 0, 1, 1, 1, "4xHDR" }, { 2, 1, 1, 2, "4xHDR" } };
    const uint64_t guids[] = { 0x11 };
    const char *const hcas[] = { "mlx5_4" };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };

    build(&f, nodes, 3, cables, 2);
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 1 && count(&fnd, "fabric.desc.duplicate", "n1 mlx5_0") == 1,
       "two HCAs answering \"n1 mlx5_0\": one finding (%s)", all(&fnd));
    e.only_host = "n1";
    e.own_guid = guids;
    e.own_hca = hcas;
    e.nown = 1;
    analyze(&f, &e, &fnd, NULL);
    ok(count(&fnd, "fabric.desc.mismatch", "n1/mlx5_4") == 1,
       "node 0, host n1's mlx5_4 by its GUID, says \"n1 mlx5_0\": a warning (%s)", all(&fnd));
    finish(&fnd, NULL, &f);
}

/* the map's hosts are looked for up to 100,000 of them (a map's host list is not expanded
 * without end) */
static void test_missing_cap(void)
{
    static const struct cb cables[] = { { 2, 1, 0, 1, "4xHDR" } };
    struct map_nic nics[] = { ib_nic("mlx5_0", 0) };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f;
    struct topo_findings fnd = { 0 };
    struct hmap h;

    build(&f, ref_nodes, 3, cables, 1);
    mkmap(&h, "x[1-100001]", nics, 1, NULL);
    e.map = &h.m;
    analyze(&f, &e, &fnd, NULL);
    ok(fnd.n == 100000 && !strcmp(fnd.v[fnd.n - 1].subject, "x100000/mlx5_0:1"),
       "a map of 100,001 hosts none of which the fabric has: the first 100,000 are missing "
       "(%zu)",
       fnd.n);
    finish(&fnd, NULL, &f);
}

/* two reference switches under one name and without GUIDs: the live switch of that name is the
 * first's; the second is not found */
static void test_reference_twins(void)
{
    static const struct nd ref_nodes2[] = { { 'S', 0x100, "sw", 8 },
                                            { 'S', 0x200, "sw-b", 8 },
                                            { 'S', 0x300, "spine", 8 } };
    static const struct cb was[] = { { 0, 1, 2, 1, "4xHDR" }, { 1, 1, 2, 2, "4xHDR" } };
    static const struct nd live_nodes[] = { { 'S', 0x100, "sw", 8 }, { 'S', 0x300, "spine", 8 } };
    static const struct cb now[] = { { 0, 1, 1, 1, "4xHDR" } };
    struct ibf_expect e = { 0 };
    struct ibf_fabric f, ref;
    struct topo_findings fnd = { 0 };
    const struct topo_finding *x;

    build(&ref, ref_nodes2, 3, was, 2);
    ref.nodes[0].guid = ref.nodes[1].guid = 0;
    free(ref.nodes[1].name);
    ref.nodes[1].name = strdup("sw");
    build(&f, live_nodes, 2, now, 1);
    e.ref = &ref;
    analyze(&f, &e, &fnd, NULL);
    x = first(&fnd, "link.state");
    ok(fnd.n == 1 && x && !strcmp(x->subject, "spine:2<->sw:1") &&
           !strcmp(x->observed, "Down at spine:2"),
       "the first \"sw\" is the live one, in place; the second's cable is gone (%s)", all(&fnd));
    finish(&fnd, NULL, &f);
    ibf_fabric_free(&ref);
}

int main(void)
{
    test_speeds();
    test_limits();
    test_counters();
    test_only_host();
    test_labels();
    test_rails();
    test_leaf_to_leaf();
    test_links();
    test_width_norm();
    test_reference();
    test_missing();
    test_discovery_errors();
    test_own_descs();
    test_host_only();
    test_votes();
    test_links_node0();
    test_rails_no_switch();
    test_reference_expect();
    test_reference_gone();
    test_renamed();
    test_reference_edges();
    test_width_norm_edges();
    test_speed_norm();
    test_descs_node0();
    test_missing_cap();
    test_reference_twins();
    is_int(wrong_severity, 0, "every finding of every case has its check's severity");
    return done_testing();
}

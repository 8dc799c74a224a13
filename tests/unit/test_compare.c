#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "topo/compare.h"
#include "topo/map.h"
#include "topo/model.h"
#include "topo/pci.h"
#include "tests/tap/tap.h"

/* topo/compare.c on nodes made up here: the NVLinks a GPU is held to when no reference knows
 * its model (its siblings': the GPUs of its kind), and what makes two GPUs one kind. */

struct gpu_spec {
    const char *model; /* NULL unknown */
    unsigned vendor, device;
    int sm;
    int links, active;
};

static struct topo_node *mk_node(const struct gpu_spec *s, size_t n, int switched)
{
    struct topo_node *node = topo_node_create();

    node->gpus_listed = 1;
    for (size_t i = 0; i < n; i++) {
        struct topo_gpu *g = topo_node_add_gpu(node);
        g->vendor = xstrdup("NVIDIA");
        g->model = xstrdup(s[i].model);
        g->pci_vendor = s[i].vendor;
        g->pci_device = s[i].device;
        g->sm = s[i].sm;
        g->nvlink_links = s[i].links;
        g->nvlink_active = s[i].active;
        snprintf(g->loc.busid, sizeof(g->loc.busid), "0000:%02x:00.0", (unsigned)(0x10 + i) & 0xff);
        if (switched && s[i].active > 0)
            topo_node_add_switch_nvlink(node, g->loc.busid, "nvswitch0", s[i].active);
    }
    return node;
}

/* a finding as these tests compare it: "sev expected / observed", the hint after it in [] */
static const char *finding_text(const struct topo_finding *x, int hint, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s / %s%s%s%s", topo_sev_name(x->sev), x->expected ? x->expected : "-",
             x->observed ? x->observed : "-", hint ? " [" : "", hint && x->hint ? x->hint : "",
             hint ? "]" : "");
    return buf;
}

/* gpuN's nvlink.state finding, or NULL */
static const struct topo_finding *nvlink_of(const struct topo_findings *f, int gpu)
{
    char subject[32];

    snprintf(subject, sizeof(subject), "n1/gpu%d", gpu);
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].check, "nvlink.state") && !strcmp(f->v[i].subject, subject))
            return &f->v[i];
    return NULL;
}

/* gpu's verdict, "sev expected / observed", or "none" */
static const char *verdict(const struct gpu_spec *s, size_t n, int switched, int gpu, char *buf,
                           size_t len)
{
    struct topo_node *node = mk_node(s, n, switched);
    struct topo_findings f = { 0 };
    const struct topo_finding *x;

    topo_compare(node, "n1", NULL, NULL, &f);
    x = nvlink_of(&f, gpu);
    if (x)
        finding_text(x, 0, buf, len);
    else
        snprintf(buf, len, "none");
    topo_findings_free(&f);
    topo_node_destroy(node);
    return buf;
}

#define LIKE " (like the other GPUs of this kind)"

struct nic_spec {
    unsigned vendor, device; /* 0 unknown */
    const char *hca_type;    /* NULL unknown */
    int cur_width, max_width;
};

/* RDMA NICs mlx5_0.. of no kind a reference knows, each on a PCIe link of its widths */
static struct topo_node *mk_nics(const struct nic_spec *s, size_t n)
{
    struct topo_node *node = topo_node_create();

    node->nics_listed = 1;
    for (size_t i = 0; i < n; i++) {
        struct topo_nic *x = topo_node_add_nic(node);
        char name[16];
        snprintf(name, sizeof(name), "mlx5_%u", (unsigned)i & 0xff);
        x->name = xstrdup(name);
        x->rdma = 1;
        x->pci_vendor = s[i].vendor;
        x->pci_device = s[i].device;
        x->hca_type = xstrdup(s[i].hca_type);
        x->link.cur_width = s[i].cur_width;
        x->link.max_width = s[i].max_width;
        x->link.cur_gen = x->link.max_gen = 4;
    }
    return node;
}

/* NIC nic's nic.pcie.width verdict ("sev expected / observed", or "none"), and in why the first
 * line not judged about it */
static const char *nic_verdict(const struct nic_spec *s, size_t n, int nic, char *buf, size_t len,
                               char *why, size_t wlen)
{
    struct topo_node *node = mk_nics(s, n);
    struct topo_findings f = { 0 };
    char subject[32], pre[32];

    snprintf(subject, sizeof(subject), "n1/mlx5_%d", nic);
    snprintf(pre, sizeof(pre), "n1/mlx5_%d:", nic);
    topo_compare(node, "n1", NULL, NULL, &f);
    snprintf(buf, len, "none");
    for (size_t i = 0; i < f.n; i++)
        if (!strcmp(f.v[i].check, "nic.pcie.width") && !strcmp(f.v[i].subject, subject))
            finding_text(&f.v[i], 0, buf, len);
    snprintf(why, wlen, "none");
    for (size_t i = 0; i < f.nunjudged; i++)
        if (!strncmp(f.unjudged[i], pre, strlen(pre))) {
            snprintf(why, wlen, "%s", f.unjudged[i]);
            break;
        }
    topo_findings_free(&f);
    topo_node_destroy(node);
    return buf;
}

#define NLIKE " (like the other NICs of this kind)"

struct port_spec {
    const char *hca_type;
    int state, phys_state; /* -1 unknown */
    double rate;           /* Gb/s, -1 unknown */
    int width;             /* lanes, 0 unknown */
    const char *speed;
    enum topo_link_layer ll;
};

/* NICs mlx5_0.. with one port each (port 1) */
static struct topo_node *mk_ports(const struct port_spec *s, size_t n)
{
    struct topo_node *node = topo_node_create();

    node->nics_listed = 1;
    for (size_t i = 0; i < n; i++) {
        struct topo_nic *x = topo_node_add_nic(node);
        struct topo_port *p = topo_nic_add_port(x);
        char name[16];
        snprintf(name, sizeof(name), "mlx5_%u", (unsigned)i & 0xff);
        x->name = xstrdup(name);
        x->hca_type = xstrdup(s[i].hca_type);
        x->rdma = 1;
        p->num = 1;
        p->state = s[i].state;
        p->phys_state = s[i].phys_state;
        p->rate_gbps = s[i].rate;
        p->width = s[i].width;
        p->speed = xstrdup(s[i].speed);
        p->link_layer = s[i].ll;
    }
    return node;
}

/* the finding of check on port 1 of mlx5_<nic>: "sev expected / observed [hint]", or "none" */
static const char *port_verdict(const struct port_spec *s, size_t n, int nic, const char *check,
                                char *buf, size_t len)
{
    struct topo_node *node = mk_ports(s, n);
    struct topo_findings f = { 0 };
    char subject[32];

    snprintf(subject, sizeof(subject), "n1/mlx5_%d:1", nic);
    topo_compare(node, "n1", NULL, NULL, &f);
    snprintf(buf, len, "none");
    for (size_t i = 0; i < f.n; i++)
        if (!strcmp(f.v[i].check, check) && !strcmp(f.v[i].subject, subject))
            finding_text(&f.v[i], 1, buf, len);
    topo_findings_free(&f);
    topo_node_destroy(node);
    return buf;
}

#define IB  TOPO_LL_INFINIBAND
#define ETH TOPO_LL_ETHERNET

/* the findings as "sev check subject" lines */
static const char *lines(const struct topo_findings *f, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < f->n; i++) {
        size_t at = strlen(buf);
        snprintf(buf + at, len - at, "%s%s %s %s", i ? ", " : "", topo_sev_name(f->v[i].sev),
                 f->v[i].check, f->v[i].subject);
    }
    return buf;
}

static void test_findings(void)
{
    struct topo_findings f = { 0 };
    char buf[1200], want[1200] = "";
    size_t count = 99;

    /* the order: failures, warnings, passes; by check within each; as found within a check */
    topo_findings_add(&f, TOPO_SEV_OK, "nic.port.state", "n1/a", NULL, "ok", NULL);
    topo_findings_add(&f, TOPO_SEV_WARN, "nvlink.state", "n2/gpu0", NULL, "w", NULL);
    topo_findings_add(&f, TOPO_SEV_FAIL, "nic.port.rate", "n3/b", NULL, "f", NULL);
    topo_findings_add(&f, TOPO_SEV_FAIL, "gpu.driver", "n1/gpu0", NULL, "f", NULL);
    topo_findings_add(&f, TOPO_SEV_WARN, "gpu.model", "n2/gpu1", NULL, "w", NULL);
    topo_findings_add(&f, TOPO_SEV_FAIL, "nic.port.rate", "n1/a", NULL, "f", NULL);
    topo_findings_sort(&f);
    is_str(lines(&f, buf, sizeof(buf)),
           "fail gpu.driver n1/gpu0, fail nic.port.rate n3/b, fail nic.port.rate n1/a, "
           "warn gpu.model n2/gpu1, warn nvlink.state n2/gpu0, ok nic.port.state n1/a",
           "sort: failures, warnings, passes; checks in order; n3 before n1 as found");
    ok(f.nfail == 3 && f.nwarn == 2 && f.nok == 1, "sort: the counts stand");
    topo_findings_free(&f);
    /* two findings are sorted too, one alone stays */
    topo_findings_add(&f, TOPO_SEV_OK, "nic.port.state", "n1/a", NULL, "ok", NULL);
    topo_findings_add(&f, TOPO_SEV_FAIL, "nic.port.rate", "n3/b", NULL, "f", NULL);
    topo_findings_sort(&f);
    is_str(lines(&f, buf, sizeof(buf)), "fail nic.port.rate n3/b, ok nic.port.state n1/a",
           "sort: two findings, the failure first");
    topo_findings_free(&f);
    topo_findings_add(&f, TOPO_SEV_WARN, "nvlink.state", "n2/gpu0", NULL, "w", NULL);
    topo_findings_sort(&f);
    is_str(lines(&f, buf, sizeof(buf)), "warn nvlink.state n2/gpu0", "sort: one finding stays");
    topo_findings_free(&f);
    /* many of one check: the order they were found in, whatever qsort does with ties */
    for (int i = 0; i < 40; i++) {
        char s[16];
        size_t at = strlen(want);
        snprintf(s, sizeof(s), "n%d/x", (i * 17) % 40);
        topo_findings_add(&f, TOPO_SEV_FAIL, "link.bandwidth", s, NULL, "o", NULL);
        snprintf(want + at, sizeof(want) - at, "%sfail link.bandwidth %s", i ? ", " : "", s);
        if (i % 3 == 0)
            topo_findings_add(&f, TOPO_SEV_OK, "link.bandwidth", s, NULL, "o", NULL);
    }
    topo_findings_sort(&f);
    f.n = 40; /* the failures only */
    is_str(lines(&f, buf, sizeof(buf)), want, "sort: 40 failures of one check keep their order");
    f.n = 54;
    topo_findings_free(&f);

    /* a node's first failure: its own subjects ("n1", "n1/..."), not n10's nor a pair's */
    topo_findings_add(&f, TOPO_SEV_FAIL, "link.path", "n1<->n2/rail0", NULL, "o", NULL);
    topo_findings_add(&f, TOPO_SEV_FAIL, "nic.port.rate", "n10/mlx5_0:1", NULL, "o", NULL);
    topo_findings_add(&f, TOPO_SEV_WARN, "link.outlier", "n1/rail0", NULL, "o", NULL);
    topo_findings_add(&f, TOPO_SEV_FAIL, "rank.failed", "n1", NULL, "o", NULL);
    topo_findings_add(&f, TOPO_SEV_FAIL, "link.bandwidth", "n1/rail1", NULL, "o", NULL);
    {
        const struct topo_finding *x = topo_findings_first_fail(&f, "n1", 1, &count);
        ok(x && !strcmp(x->check, "rank.failed") && count == 2,
           "first failure of n1: its own, two of them (%zu)", count);
        x = topo_findings_first_fail(&f, "n1", 0, &count);
        ok(x && !strcmp(x->check, "link.path") && count == 4,
           "first failure of the run: the pair's, four in all");
        x = topo_findings_first_fail(&f, "n2", 1, &count);
        ok(!x && count == 0, "first failure of n2: none of its own");
        ok(topo_findings_first_fail(&f, "n10", 1, NULL) == &f.v[1],
           "first failure of n10: its port, no count asked");
    }
    /* the map's overrides: the node type's first, then the cluster's; a prefix ending in '.';
     * a pass is never raised; ignore drops the finding */
    {
        struct map_severity ts[] = { { "link.", TOPO_SEV_WARN },
                                     { "rank.failed", TOPO_SEV_IGNORE } };
        struct map_severity ms[] = { { "link.path", TOPO_SEV_FAIL },
                                     { "nic.port", TOPO_SEV_WARN } };
        struct map_node_type type;
        struct topo_map map;
        memset(&type, 0, sizeof(type));
        memset(&map, 0, sizeof(map));
        type.severity = ts;
        type.nseverity = 2;
        map.severity = ms;
        map.nseverity = 2;
        topo_findings_add(&f, TOPO_SEV_OK, "link.bandwidth", "n1/rail0", NULL, "o", NULL);
        topo_findings_override(&f, &map, &type);
        is_str(lines(&f, buf, sizeof(buf)),
               "fail link.path n1<->n2/rail0, fail nic.port.rate n10/mlx5_0:1, warn link.outlier "
               "n1/rail0, warn link.bandwidth n1/rail1, ok link.bandwidth n1/rail0",
               "overrides: link. warns, the cluster's link.path fails again, rank.failed "
               "dropped, 'nic.port' (no dot) matches nothing, a pass stays");
        ok(f.nfail == 2 && f.nwarn == 2 && f.nok == 1 && f.n == 5, "overrides: counted again");
        topo_findings_override(&f, NULL, NULL);
        ok(f.nfail == 2 && f.nwarn == 2 && f.nok == 1 && f.n == 5, "overrides: none: no change");
    }
    topo_findings_free(&f);

    /* check ids: whole, or a prefix ending in '.' */
    ok(topo_check_id_known("nic.port.rate"), "check ids: nic.port.rate");
    ok(topo_check_id_known("nic.port."), "check ids: the prefix nic.port.");
    ok(!topo_check_id_known("nic.port"), "check ids: nic.port (no dot) is not one");
    ok(!topo_check_id_known("nic.port.rat"), "check ids: nor a part of one");
    ok(!topo_check_id_known(""), "check ids: nor nothing");
    {
        /* nothing, right after a dot: never read as the prefix "." of every check */
        static const char dotted[] = "nic.";
        ok(!topo_check_id_known(dotted + 4), "check ids: nor nothing that follows a dot");
    }
    {
        /* an empty name right after a dot in memory: the name's own length decides, never the
         * byte before it */
        char after_dot[] = "nic.port.";
        ok(!topo_check_id_known(after_dot + strlen(after_dot)),
           "check ids: nor nothing after a dot");
    }
    ok(!topo_check_id_known("zz."), "check ids: nor a prefix of none");
}

/* nothing to judge: both lists given, no GPU, no bandwidth, no NIC a driver could be hiding */
static void test_nothing_to_judge(void)
{
    struct topo_node *node = topo_node_create();
    struct topo_nic *x;

    ok(!topo_node_nothing_to_judge(node), "nothing to judge: not when the lists were not read");
    node->gpus_listed = 1;
    ok(!topo_node_nothing_to_judge(node), "nothing to judge: ...nor the NICs'");
    node->nics_listed = 1;
    ok(topo_node_nothing_to_judge(node), "nothing to judge: both read, both empty");
    x = topo_node_add_nic(node);
    x->pci_vendor = 0x8086;
    x->pci_class = 0x0200;
    ok(topo_node_nothing_to_judge(node), "nothing to judge: a plain Ethernet NIC");
    x->pci_class = 0x0207;
    ok(!topo_node_nothing_to_judge(node), "nothing to judge: not an InfiniBand controller");
    x->pci_class = 0x0c06;
    ok(!topo_node_nothing_to_judge(node), "nothing to judge: ...nor class 0c06");
    x->pci_class = 0x0200;
    x->pci_vendor = 0x15b3;
    ok(!topo_node_nothing_to_judge(node), "nothing to judge: ...nor a Mellanox part");
    x->pci_vendor = 0x8086;
    x->rdma = 1;
    ok(!topo_node_nothing_to_judge(node), "nothing to judge: ...nor an RDMA device");
    x->rdma = 0;
    node->nbw = 1;
    ok(!topo_node_nothing_to_judge(node), "nothing to judge: ...nor a bandwidth figure");
    node->nbw = 0;
    topo_node_add_gpu(node);
    ok(!topo_node_nothing_to_judge(node), "nothing to judge: ...nor a GPU");
    topo_node_destroy(node);
}

/* a node type of the map that says only what a test sets */
static void mk_type(struct map_node_type *t)
{
    memset(t, 0, sizeof(*t));
    t->name = "gpu";
    t->gpu_count = -1;
    t->gpu_sm = -1;
    t->nvlink_links = -1;
    topo_map_thresholds_unset(&t->thresholds);
}

/* check's finding on subject (under n1/) against type: "sev expected / observed", or "none";
 * the unjudged lines joined in why */
static int typed_hint; /* typed() gives the hint too */
static const char *typed(const struct topo_node *node, const struct map_node_type *type,
                         const char *check, const char *subject, char *buf, size_t len, char *why,
                         size_t wlen)
{
    struct topo_findings f = { 0 };
    char s[64];

    snprintf(s, sizeof(s), "n1%s%s", *subject ? "/" : "", subject);
    topo_compare(node, "n1", NULL, type, &f);
    snprintf(buf, len, "none");
    for (size_t i = 0; i < f.n; i++)
        if (!strcmp(f.v[i].check, check) && !strcmp(f.v[i].subject, s))
            finding_text(&f.v[i], typed_hint, buf, len);
    if (why) {
        why[0] = '\0';
        for (size_t i = 0; i < f.nunjudged; i++)
            snprintf(why + strlen(why), wlen - strlen(why), "%s%s", i ? " | " : "", f.unjudged[i]);
    }
    topo_findings_free(&f);
    return buf;
}

/* a GPU of another vendor (an RCCL dump's AMD MI300X with 3 xGMI links): its peer links are
 * listed as not judged, never passed in silence; an NVIDIA GPU, or one of no known vendor, is
 * judged as before */
static void test_other_vendor(void)
{
    static const struct {
        unsigned vendor;
        const char *name; /* the vendor its reader named, NULL none */
        int xgmi;
        const char *said; /* NULL: not said to be another vendor's */
    } v[] = {
        { 0x1002, "AMD", 3,
          "n1/gpu0: nvlink.state: a GPU of AMD (PCI vendor 1002): its peer links (3 xGMI in the "
          "input) are not judged" },
        { 0x1002, "AMD", 1,
          "n1/gpu0: nvlink.state: a GPU of AMD (PCI vendor 1002): its peer links (1 xGMI in the "
          "input) are not judged" },
        { 0x1002, "AMD", 0,
          "n1/gpu0: nvlink.state: a GPU of AMD (PCI vendor 1002): its peer links are not judged" },
        { 0x10de, "NVIDIA", 3, NULL },
        { 0, "NVIDIA", 3, NULL },
        { 0, NULL, 3, NULL }, /* no vendor known: judged as NVIDIA's */
    };
    char buf[400], why[2000];

    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        struct gpu_spec s[] = { { "AMD Instinct MI300X", v[i].vendor, 0x74a1, -1, 0, 0 } };
        struct topo_node *node = mk_node(s, 1, 0);
        free(node->gpus[0].vendor);
        node->gpus[0].vendor = v[i].name ? xstrdup(v[i].name) : NULL;
        node->gpus[0].xgmi_links = v[i].xgmi;
        typed(node, NULL, "nvlink.state", "gpu0", buf, sizeof(buf), why, sizeof(why));
        ok((v[i].said ? strstr(why, v[i].said) != NULL : !strstr(why, "nvlink.state: a GPU of")) &&
               !strcmp(buf, "none"),
           "a GPU of PCI vendor %04x (%s), %d xGMI links: its peer links %s (%s)", v[i].vendor,
           v[i].name ? v[i].name : "no name", v[i].xgmi,
           v[i].said ? "listed as not judged" : "not said to be another vendor's", why);
        topo_node_destroy(node);
    }
}

static void test_gpu_kind(void)
{
    struct gpu_spec s[] = { { "NVIDIA H100 80GB HBM3", 0x10de, 0x2330, 90, 18, 18 },
                            { "NVIDIA H100 80GB HBM3", 0x10de, 0x2330, 90, 18, 18 } };
    struct topo_node *node = mk_node(s, 2, 1);
    struct map_node_type t;
    char buf[400], why[2000];

    mk_type(&t);
    is_str(typed(node, &t, "gpu.model", "gpu0", buf, sizeof(buf), NULL, 0), "none",
           "gpu.model: a node type that names no kind: not judged");
    t.gpu_pci_vendor = 0x10de;
    t.gpu_pci_device = 0x2330;
    t.gpu_model = "NVIDIA B200";
    is_str(typed(node, &t, "gpu.model", "gpu1", buf, sizeof(buf), NULL, 0),
           "ok NVIDIA B200 (10de:2330) / NVIDIA H100 80GB HBM3 (10de:2330, 9.0)",
           "gpu.model: the PCI id first: the same id passes, whatever the names");
    t.gpu_pci_device = 0x2901;
    is_str(typed(node, &t, "gpu.model", "gpu1", buf, sizeof(buf), NULL, 0),
           "fail NVIDIA B200 (10de:2901) / NVIDIA H100 80GB HBM3 (10de:2330, 9.0)",
           "gpu.model: another device id: another kind");
    t.gpu_pci_device = 0x2330;
    t.gpu_pci_vendor = 0x1002;
    is_str(typed(node, &t, "gpu.model", "gpu1", buf, sizeof(buf), NULL, 0),
           "fail NVIDIA B200 (1002:2330) / NVIDIA H100 80GB HBM3 (10de:2330, 9.0)",
           "gpu.model: another vendor: another kind");
    t.gpu_pci_vendor = 0;
    t.gpu_pci_device = 0;
    is_str(typed(node, &t, "gpu.model", "gpu0", buf, sizeof(buf), NULL, 0),
           "fail NVIDIA B200 / NVIDIA H100 80GB HBM3 (10de:2330, 9.0)",
           "gpu.model: no id in the map: by name, another");
    t.gpu_model = "NVIDIA H100 80GB HBM3";
    is_str(typed(node, &t, "gpu.model", "gpu0", buf, sizeof(buf), NULL, 0),
           "ok NVIDIA H100 80GB HBM3 / NVIDIA H100 80GB HBM3 (10de:2330, 9.0)",
           "gpu.model: by name, the same");
    t.gpu_model = NULL;
    t.gpu_sm = 100;
    is_str(typed(node, &t, "gpu.model", "gpu0", buf, sizeof(buf), NULL, 0),
           "fail compute capability 10.0 / NVIDIA H100 80GB HBM3 (10de:2330, 9.0)",
           "gpu.model: only a compute capability: 10.0 is not 9.0");
    t.gpu_sm = 90;
    is_str(typed(node, &t, "gpu.model", "gpu0", buf, sizeof(buf), NULL, 0),
           "ok compute capability 9.0 / NVIDIA H100 80GB HBM3 (10de:2330, 9.0)",
           "gpu.model: 9.0 is");
    t.gpu_sm = -1;
    t.gpu_pci_vendor = 0x10de;
    t.gpu_pci_device = 0x2330;
    free(node->gpus[0].model);
    node->gpus[0].model = NULL;
    node->gpus[0].pci_vendor = node->gpus[0].pci_device = 0;
    node->gpus[0].sm = -1;
    is_str(typed(node, &t, "gpu.model", "gpu0", buf, sizeof(buf), NULL, 0), "warn 10de:2330 / -",
           "gpu.model: the input names the GPU by nothing: a warning");
    node->gpus[0].sm = 90;
    t.gpu_sm = 90;
    is_str(typed(node, &t, "gpu.model", "gpu0", buf, sizeof(buf), NULL, 0),
           "ok 10de:2330, compute capability 9.0 / compute capability 9.0",
           "gpu.model: an id in the map, only a capability in the input: by the capability");
    node->gpus[0].pci_vendor = 0x10de; /* a vendor without its device is no id */
    is_str(typed(node, &t, "gpu.model", "gpu0", buf, sizeof(buf), NULL, 0),
           "ok 10de:2330, compute capability 9.0 / compute capability 9.0",
           "gpu.model: the input's vendor alone is said by nothing: by the capability");
    node->gpus[0].pci_vendor = 0;

    /* the count */
    t.gpu_count = 2;
    is_str(typed(node, &t, "gpu.count", "", buf, sizeof(buf), NULL, 0), "ok 2 / 2",
           "gpu.count: 2 of 2");
    t.gpu_count = 3;
    is_str(typed(node, &t, "gpu.count", "", buf, sizeof(buf), NULL, 0), "fail 3 / 2",
           "gpu.count: 2 of 3");
    t.gpu_count = 1;
    is_str(typed(node, &t, "gpu.count", "", buf, sizeof(buf), NULL, 0), "fail 1 / 2",
           "gpu.count: 2 where the map has 1");
    typed_hint = 1; /* the hint of a missing GPU: where one is missing, never at the count */
    t.gpu_count = 2;
    is_str(typed(node, &t, "gpu.count", "", buf, sizeof(buf), NULL, 0), "ok 2 / 2 []",
           "gpu.count: 2 of 2, no hint");
    t.gpu_count = 3;
    ok(strstr(typed(node, &t, "gpu.count", "", buf, sizeof(buf), NULL, 0), "[a GPU is missing") !=
           NULL,
       "gpu.count: 2 of 3, the hint of a missing GPU (%s)", buf);
    typed_hint = 0;

    /* the PCIe link: the map's generation and width; the rate alone where that is all */
    t.gpu_count = -1;
    t.pcie_gen = 5;
    t.pcie_width = 16;
    node->gpus[1].link.max_gen = 5;
    node->gpus[1].link.cur_width = 8;
    is_str(typed(node, &t, "gpu.pcie.width", "gpu1", buf, sizeof(buf), NULL, 0), "fail x16 / x8",
           "gpu.pcie.width: x8 of x16");
    is_str(typed(node, &t, "gpu.pcie.gen", "gpu1", buf, sizeof(buf), NULL, 0), "ok Gen5 / Gen5",
           "gpu.pcie.gen: Gen5 (the link's maximum)");
    typed_hint = 1; /* at the expected value: no hint; below it, the hint */
    is_str(typed(node, &t, "gpu.pcie.gen", "gpu1", buf, sizeof(buf), NULL, 0), "ok Gen5 / Gen5 []",
           "gpu.pcie.gen: Gen5 of Gen5, no hint");
    ok(strstr(typed(node, &t, "gpu.pcie.width", "gpu1", buf, sizeof(buf), NULL, 0), "x8 [") &&
           !strstr(buf, "x8 []"),
       "gpu.pcie.width: x8 of x16, with a hint (%s)", buf);
    typed_hint = 0;
    node->gpus[1].link.max_gen = 0;
    node->gpus[1].link.cur_gen = 4;
    is_str(typed(node, &t, "gpu.pcie.gen", "gpu1", buf, sizeof(buf), NULL, 0), "fail Gen5 / Gen4",
           "gpu.pcie.gen: no maximum given: the current one, Gen4 of Gen5");
    t.pcie_gen = 0;
    is_str(typed(node, &t, "gpu.pcie.gen", "gpu1", buf, sizeof(buf), NULL, 0), "fail Gen5 / Gen4",
           "gpu.pcie.gen: a map's generation of 0 is none given: the reference's Gen5");
    t.pcie_gen = 5;
    node->gpus[0].link.cur_gbytes = 63.015385;
    is_str(typed(node, &t, "gpu.pcie.gen", "gpu0", buf, sizeof(buf), why, sizeof(why)),
           "ok Gen5 / 63.0 GB/s (the rate only)",
           "gpu.pcie: only the rate, Gen5 x16's: passes both");
    node->gpus[0].link.cur_gbytes = 31.5;
    is_str(typed(node, &t, "gpu.pcie.gen", "gpu0", buf, sizeof(buf), why, sizeof(why)), "none",
           "gpu.pcie: only a lower rate: not judged");
    ok(strstr(why, "n1/gpu0: gpu.pcie.gen and .width: the input gives only the link's rate (31.5 "
                   "GB/s, below the 63.0 GB/s of Gen5 x16), not its generation and width; a "
                   "GPU slows its link when idle") != NULL,
       "gpu.pcie: ...said with both figures: %s", why);
    node->gpus[0].link.cur_gbytes = 0;
    typed(node, &t, "gpu.pcie.gen", "gpu0", buf, sizeof(buf), why, sizeof(why));
    ok(strstr(why, "n1/gpu0: gpu.pcie.gen and .width: the input says nothing of its PCIe link "
                   "(Gen5 x16 expected)") != NULL,
       "gpu.pcie: nothing of the link: not judged, what was expected said");
    node->gpus[0].link.cur_width = 16;
    typed(node, &t, "gpu.pcie.width", "gpu0", buf, sizeof(buf), why, sizeof(why));
    ok(!strcmp(buf, "ok x16 / x16") &&
           strstr(why, "n1/gpu0: gpu.pcie.gen: the input does not give the link's generation"),
       "gpu.pcie: the width alone: judged, the generation not (%s)", buf);
    is_str(typed(node, &t, "gpu.pcie.gen", "gpu0", buf, sizeof(buf), NULL, 0), "none",
           "gpu.pcie.gen: the input gives no generation: no finding");
    node->gpus[0].link.cur_width = 1;
    is_str(typed(node, &t, "gpu.pcie.width", "gpu0", buf, sizeof(buf), NULL, 0), "fail x16 / x1",
           "gpu.pcie.width: x1 of x16");
    t.pcie_width = 1;
    is_str(typed(node, &t, "gpu.pcie.width", "gpu0", buf, sizeof(buf), NULL, 0), "ok x1 / x1",
           "gpu.pcie.width: x1 where the map says x1");
    t.pcie_gen = 1;
    node->gpus[0].link.max_gen = 1;
    is_str(typed(node, &t, "gpu.pcie.gen", "gpu0", buf, sizeof(buf), NULL, 0), "ok Gen1 / Gen1",
           "gpu.pcie.gen: Gen1 where the map says Gen1");
    node->gpus[0].link.cur_width = node->gpus[0].link.max_width = 0;
    is_str(typed(node, &t, "gpu.pcie.width", "gpu0", buf, sizeof(buf), NULL, 0), "none",
           "gpu.pcie.width: the input gives no width: no finding");
    node->gpus[0].link.max_gen = 0;
    /* a link the input says nothing of: what was expected, said as the map gives it (a width
     * alone, a generation alone, Gen1 x1) */
    {
        static const struct {
            int gen, width;
            const char *want;
        } exp[] = {
            { -1, 16, "link (x16 expected)" },   { 5, -1, "link (Gen5 expected)" },
            { 1, 1, "link (Gen1 x1 expected)" }, { 1, -1, "link (Gen1 expected)" },
            { -1, 1, "link (x1 expected)" },
        };
        for (size_t i = 0; i < sizeof(exp) / sizeof(exp[0]); i++) {
            t.pcie_gen = exp[i].gen;
            t.pcie_width = exp[i].width;
            typed(node, &t, "gpu.pcie.gen", "gpu0", buf, sizeof(buf), why, sizeof(why));
            /* the map names a term: gpu0's missing reference is no reason to leave it */
            ok(strstr(why, exp[i].want) != NULL && !strstr(why, "gpu0: no built-in reference"),
               "gpu.pcie: nothing of the link, the map's gen %d width %d: '%s' (%s)", exp[i].gen,
               exp[i].width, exp[i].want + strlen("link "), why);
        }
    }
    /* the rate alone, under 1 GB/s: Gen1 x1's 0.25 passes both terms, 0.1 is said below it */
    t.pcie_gen = 1;
    t.pcie_width = 1;
    node->gpus[0].link.cur_gbytes = 0.25;
    is_str(typed(node, &t, "gpu.pcie.gen", "gpu0", buf, sizeof(buf), NULL, 0),
           "ok Gen1 / 0.2 GB/s (the rate only)",
           "gpu.pcie: only the rate, Gen1 x1's 0.25 GB/s: passes");
    /* hwloc's six decimals: a rate within 1e-3 of the link's is the link's, at that edge too */
    node->gpus[0].link.cur_gbytes = 0.25 * (1 - 1e-3);
    is_str(typed(node, &t, "gpu.pcie.gen", "gpu0", buf, sizeof(buf), NULL, 0),
           "ok Gen1 / 0.2 GB/s (the rate only)", "gpu.pcie: a rate of 0.999 x Gen1 x1's: passes");
    node->gpus[0].link.cur_gbytes = 0.2497;
    is_str(typed(node, &t, "gpu.pcie.gen", "gpu0", buf, sizeof(buf), NULL, 0), "none",
           "gpu.pcie: a rate of 0.2497 GB/s, under 0.999 x Gen1 x1's: not judged");
    node->gpus[0].link.cur_gbytes = 0.1;
    typed(node, &t, "gpu.pcie.gen", "gpu0", buf, sizeof(buf), why, sizeof(why));
    ok(strstr(why, "rate (0.1 GB/s, below the 0.2 GB/s of Gen1 x1)") != NULL,
       "gpu.pcie: only a rate of 0.1 GB/s: not judged, below Gen1 x1's said (%s)", why);
    node->gpus[0].link.cur_gbytes = 0;
    t.pcie_gen = 5;
    t.pcie_width = 16;

    /* the driver: asked and answering, asked and silent, not asked */
    node->gpu_driver = 1;
    is_str(typed(node, &t, "gpu.driver", "gpu0", buf, sizeof(buf), NULL, 0),
           "ok answering / answering", "gpu.driver: answering");
    node->gpu_driver = 0;
    is_str(typed(node, &t, "gpu.driver", "gpu1", buf, sizeof(buf), NULL, 0),
           "fail answering / no NVIDIA driver", "gpu.driver: silent: a failure");
    node->gpu_driver_note = xstrdup("NVML: driver/library version mismatch");
    is_str(typed(node, &t, "gpu.driver", "gpu1", buf, sizeof(buf), NULL, 0),
           "fail answering / NVML: driver/library version mismatch",
           "gpu.driver: ...with what NVML said");
    free(node->gpus[1].vendor);
    node->gpus[1].vendor = xstrdup("AMD");
    node->gpus[1].pci_vendor = 0x1002;
    is_str(typed(node, &t, "gpu.driver", "gpu1", buf, sizeof(buf), NULL, 0), "none",
           "gpu.driver: not asked of another vendor's GPU");
    node->gpus[1].vendor[0] = 'x';
    node->gpus[1].pci_vendor = 0x10de;
    is_str(typed(node, &t, "gpu.driver", "gpu1", buf, sizeof(buf), NULL, 0),
           "fail answering / NVML: driver/library version mismatch",
           "gpu.driver: an NVIDIA PCI id whatever the vendor's name");
    node->gpu_driver = -1;
    is_str(typed(node, &t, "gpu.driver", "gpu1", buf, sizeof(buf), NULL, 0), "none",
           "gpu.driver: a captured input (the driver not asked): no finding");
    topo_node_destroy(node);
}

static struct map_nic map_nic(const char *name)
{
    struct map_nic m;

    memset(&m, 0, sizeof(m));
    m.name = (char *)name;
    m.rail = -1;
    m.port = 1;
    m.rate_gbps = -1;
    m.near_gpu = -1;
    m.numa = -1;
    return m;
}

/* NICs against the map's node type: counted, each port against its entry */
static void test_map_nics(void)
{
    struct port_spec s[] = { { "MT4129", 4, 5, 400, 4, "NDR", IB },
                             { "MT4129", 4, 5, 200, 4, "HDR", IB },
                             { "MT4129", 4, 5, 400, 4, "NDR", ETH } };
    struct topo_node *node = mk_ports(s, 3);
    struct map_nic m[4];
    struct map_node_type t;
    char buf[400], *ign[1] = { "mlx5_2" };

    mk_type(&t);
    m[0] = map_nic("mlx5_0");
    m[1] = map_nic("mlx5_1");
    m[2] = map_nic("mlx5_2");
    t.nics = m;
    t.nnics = 3;
    is_str(typed(node, &t, "nic.count", "", buf, sizeof(buf), NULL, 0), "ok 3 / 3",
           "nic.count: the three the map lists");
    m[1].rate_gbps = 400;
    m[0].rate_gbps = 400;
    is_str(typed(node, &t, "nic.port.rate", "mlx5_1:1", buf, sizeof(buf), NULL, 0),
           "fail 400 Gb/s / 200 Gb/s", "nic.port.rate: 200 of the map's 400");
    is_str(typed(node, &t, "nic.port.rate", "mlx5_0:1", buf, sizeof(buf), NULL, 0),
           "ok 400 Gb/s / 400 Gb/s", "nic.port.rate: 400 of 400");
    typed_hint = 1;
    is_str(typed(node, &t, "nic.port.rate", "mlx5_0:1", buf, sizeof(buf), NULL, 0),
           "ok 400 Gb/s / 400 Gb/s []", "nic.port.rate: 400 of 400, no hint");
    typed_hint = 0;
    m[1].rate_gbps = 200;
    is_str(typed(node, &t, "nic.port.rate", "mlx5_1:1", buf, sizeof(buf), NULL, 0),
           "ok 200 Gb/s / 200 Gb/s", "nic.port.rate: 200 of 200 (the map's, not its peers')");
    m[1].rate_gbps = 0;
    is_str(typed(node, &t, "nic.port.rate", "mlx5_1:1", buf, sizeof(buf), NULL, 0),
           "ok 0 Gb/s / 200 Gb/s",
           "nic.port.rate: a map rate of 0 is the map's word, not its peers' 400");
    m[1].rate_gbps = 200;
    m[2].link_layer = IB;
    is_str(typed(node, &t, "nic.port.link_layer", "mlx5_2:1", buf, sizeof(buf), NULL, 0),
           "fail InfiniBand / Ethernet", "nic.port.link_layer: Ethernet where the map has IB");
    m[2].link_layer = ETH;
    is_str(typed(node, &t, "nic.port.link_layer", "mlx5_2:1", buf, sizeof(buf), NULL, 0),
           "ok Ethernet / Ethernet", "nic.port.link_layer: the same");
    typed_hint = 1;
    is_str(typed(node, &t, "nic.port.link_layer", "mlx5_2:1", buf, sizeof(buf), NULL, 0),
           "ok Ethernet / Ethernet []", "nic.port.link_layer: the same, no hint");
    m[2].link_layer = IB;
    is_str(typed(node, &t, "nic.port.link_layer", "mlx5_2:1", buf, sizeof(buf), NULL, 0),
           "fail InfiniBand / Ethernet [the port runs the other protocol: set LINK_TYPE with "
           "mlxconfig]",
           "nic.port.link_layer: the other protocol, the hint says how to set it");
    typed_hint = 0;
    m[2].link_layer = ETH;
    m[2].port = 2;
    is_str(typed(node, &t, "nic.port.state", "mlx5_2:1", buf, sizeof(buf), NULL, 0), "none",
           "nic.port: a port the map does not carry a rail on is not judged");
    m[2].port = 1;

    /* one listed twice (two rails on one device) counts once; one missing; one not listed */
    m[3] = map_nic("mlx5_0");
    t.nnics = 4;
    is_str(typed(node, &t, "nic.count", "", buf, sizeof(buf), NULL, 0), "ok 3 / 3",
           "nic.count: a NIC the map lists twice counts once");
    m[3] = map_nic("mlx5_9");
    is_str(typed(node, &t, "nic.count", "", buf, sizeof(buf), NULL, 0), "fail 4 / 3",
           "nic.count: one missing of four");
    is_str(typed(node, &t, "nic.count", "mlx5_9", buf, sizeof(buf), NULL, 0),
           "fail present / missing", "nic.count: ...named");
    node->missing_nics = xcalloc(1, sizeof(char *));
    node->missing_nics[0] = xstrdup("mlx5_9");
    node->nmissing_nics = 1;
    is_str(typed(node, &t, "nic.count", "mlx5_9", buf, sizeof(buf), NULL, 0),
           "fail present / missing", "nic.count: one the input says is gone: named once");
    {
        struct topo_findings f = { 0 };
        int named = 0;
        topo_compare(node, "n1", NULL, &t, &f);
        for (size_t i = 0; i < f.n; i++)
            named += !strcmp(f.v[i].subject, "n1/mlx5_9");
        is_int(named, 1, "nic.count: ...once, not twice");
        topo_findings_free(&f);
    }
    t.nnics = 2;
    is_str(typed(node, &t, "nic.count", "mlx5_2", buf, sizeof(buf), NULL, 0),
           "warn not in the map / present", "nic.count: an RDMA device the map does not list");
    t.ignore = ign;
    t.nignore = 1;
    is_str(typed(node, &t, "nic.count", "mlx5_2", buf, sizeof(buf), NULL, 0), "none",
           "nic.count: ...none when the map ignores it");
    t.nnics = 3;
    is_str(typed(node, &t, "nic.count", "", buf, sizeof(buf), NULL, 0), "ok 2 / 2",
           "nic.count: an ignored NIC is neither expected nor counted");

    /* the NUMA node the map puts a NIC on */
    t.nignore = 0;
    m[0].numa = 1;
    node->nics[0].loc.numa = 0;
    is_str(typed(node, &t, "affinity.numa", "mlx5_0", buf, sizeof(buf), NULL, 0),
           "fail NUMA 1 / NUMA 0", "affinity.numa: the NIC on the other socket");
    node->nics[0].loc.numa = 1;
    is_str(typed(node, &t, "affinity.numa", "mlx5_0", buf, sizeof(buf), NULL, 0),
           "ok NUMA 1 / NUMA 1", "affinity.numa: on its own");
    m[0].numa = 0;
    is_str(typed(node, &t, "affinity.numa", "mlx5_0", buf, sizeof(buf), NULL, 0),
           "fail NUMA 0 / NUMA 1", "affinity.numa: the map's NUMA 0 is a NUMA node like another");
    node->nics[0].loc.numa = 0;
    is_str(typed(node, &t, "affinity.numa", "mlx5_0", buf, sizeof(buf), NULL, 0),
           "ok NUMA 0 / NUMA 0", "affinity.numa: NUMA 0 on both sides");
    typed_hint = 1;
    is_str(typed(node, &t, "affinity.numa", "mlx5_0", buf, sizeof(buf), NULL, 0),
           "ok NUMA 0 / NUMA 0 []", "affinity.numa: ...no hint");
    m[0].numa = 1;
    is_str(typed(node, &t, "affinity.numa", "mlx5_0", buf, sizeof(buf), NULL, 0),
           "fail NUMA 1 / NUMA 0 [the NIC sits in a slot of the other socket]",
           "affinity.numa: the other socket, with its hint");
    typed_hint = 0;
    m[0].numa = 1;
    {
        /* a NIC the map ignores: never judged, on the wrong socket or not */
        char *ig[1] = { "mlx5_0" };
        node->nics[0].loc.numa = 0;
        t.ignore = ig;
        t.nignore = 1;
        is_str(typed(node, &t, "affinity.numa", "mlx5_0", buf, sizeof(buf), NULL, 0), "none",
               "affinity.numa: the NIC on the other socket, ignored by the map: no finding");
        t.nignore = 0;
        t.ignore = NULL;
    }
    node->nics[0].loc.numa = -1;
    is_str(typed(node, &t, "affinity.numa", "mlx5_0", buf, sizeof(buf), NULL, 0), "none",
           "affinity.numa: the input does not say: no finding");
    topo_node_destroy(node);
    {
        /* a NIC no reference knows: its generation is not judged, and said so, unless its map
         * entry gives its PCIe link (a generation or a width, 1 and up) */
        struct nic_spec u[] = { { 0x15b3, 0xfff0, NULL, 16, 16 } };
        char why[2000];
        node = mk_nics(u, 1);
        mk_type(&t);
        m[0] = map_nic("mlx5_0");
        t.nics = m;
        t.nnics = 1;
        typed(node, &t, "nic.count", "", buf, sizeof(buf), why, sizeof(why));
        ok(strstr(why, "n1/mlx5_0: no built-in reference for PCI 15b3:fff0") != NULL,
           "NIC of no reference, its map entry without pcie: said not judged (%s)", why);
        m[0].pcie_gen = 1;
        typed(node, &t, "nic.count", "", buf, sizeof(buf), why, sizeof(why));
        ok(!strstr(why, "no built-in reference"), "...its map entry gives gen 1: judged (%s)", why);
        m[0].pcie_gen = 0;
        m[0].pcie_width = 1;
        typed(node, &t, "nic.count", "", buf, sizeof(buf), why, sizeof(why));
        ok(!strstr(why, "no built-in reference"), "...its map entry gives width 1: judged (%s)",
           why);
        /* the map's width first, 1 included; without one, what the NIC can train to */
        node->nics[0].link.cur_width = 1;
        is_str(typed(node, &t, "nic.pcie.width", "mlx5_0", buf, sizeof(buf), why, sizeof(why)),
               "ok x1 / x1", "nic.pcie.width: x1 where the map says x1");
        ok(!strstr(why, "does not give"), "...x1 is a width the input gives (%s)", why);
        m[0].pcie_width = 0;
        m[0].pcie_gen = 4;
        node->nics[0].link.cur_width = 8;
        is_str(typed(node, &t, "nic.pcie.width", "mlx5_0", buf, sizeof(buf), NULL, 0),
               "fail x16 (what the NIC can train to) / x8",
               "nic.pcie.width: a map entry without a width: what the NIC can train to");
        {
            /* the edges at Gen1 and x1, and a term the input does not give */
            struct topo_pcie_link *l = &node->nics[0].link;
            m[0].pcie_gen = 1;
            l->cur_gen = l->max_gen = 1;
            is_str(typed(node, &t, "nic.pcie.gen", "mlx5_0", buf, sizeof(buf), NULL, 0),
                   "ok Gen1 / Gen1", "nic.pcie.gen: Gen1 where the map says Gen1");
            m[0].pcie_gen = 4;
            l->max_gen = 4;
            is_str(typed(node, &t, "nic.pcie.gen", "mlx5_0", buf, sizeof(buf), why, sizeof(why)),
                   "fail Gen4 / Gen1", "nic.pcie.gen: trained at Gen1 of Gen4: Gen1");
            ok(!strstr(why, "does not give"), "...Gen1 is a generation the input gives (%s)", why);
            l->cur_gen = l->max_gen = 0;
            is_str(typed(node, &t, "nic.pcie.gen", "mlx5_0", buf, sizeof(buf), why, sizeof(why)),
                   "none", "nic.pcie.gen: the input gives no generation: no finding");
            ok(strstr(why, "n1/mlx5_0: nic.pcie.gen: the input does not give the link's "
                           "generation") != NULL,
               "...said not judged (%s)", why);
            m[0].pcie_gen = 1;
            typed(node, &t, "nic.pcie.gen", "mlx5_0", buf, sizeof(buf), why, sizeof(why));
            ok(strstr(why, "nic.pcie.gen: the input does not give") != NULL,
               "...and so where the map wants Gen1 (%s)", why);
            m[0].pcie_gen = 0;
            typed(node, &t, "nic.pcie.gen", "mlx5_0", buf, sizeof(buf), why, sizeof(why));
            ok(!strstr(why, "nic.pcie.gen: the input does not give"),
               "...never where no generation is expected (%s)", why);
            l->cur_gen = l->max_gen = 4;
            m[0].pcie_width = 16;
            l->cur_width = l->max_width = 0;
            is_str(typed(node, &t, "nic.pcie.width", "mlx5_0", buf, sizeof(buf), why, sizeof(why)),
                   "none", "nic.pcie.width: the input gives no width: no finding");
            ok(strstr(why, "n1/mlx5_0: nic.pcie.width: the input does not give the link's width") !=
                   NULL,
               "...said not judged (%s)", why);
            m[0].pcie_width = 1;
            typed(node, &t, "nic.pcie.width", "mlx5_0", buf, sizeof(buf), why, sizeof(why));
            ok(strstr(why, "nic.pcie.width: the input does not give") != NULL,
               "...and so where the map wants x1 (%s)", why);
            l->cur_gen = l->max_gen = 1;
            m[0].pcie_width = 16;
            typed(node, &t, "nic.pcie.width", "mlx5_0", buf, sizeof(buf), why, sizeof(why));
            ok(strstr(why, "n1/mlx5_0: nic.pcie.width: the input does not give the link's width") !=
                   NULL,
               "...and so where the link is at Gen1, the width unread (%s)", why);
            l->cur_gen = l->max_gen = 4;
            m[0].pcie_width = 0;
            typed(node, &t, "nic.pcie.width", "mlx5_0", buf, sizeof(buf), why, sizeof(why));
            ok(!strstr(why, "nic.pcie.width: the input does not give"),
               "...never where no width is expected (%s)", why);
        }
        topo_node_destroy(node);
        /* a NIC a reference knows (ConnectX-7) is never said to have none */
        u[0].device = 0x1021;
        node = mk_nics(u, 1);
        m[0] = map_nic("mlx5_0");
        typed(node, &t, "nic.count", "", buf, sizeof(buf), why, sizeof(why));
        ok(!strstr(why, "no built-in reference"),
           "a ConnectX-7 without pcie in its entry: its "
           "reference judges (%s)",
           why);
        topo_node_destroy(node);
        /* a virtual function: its link is the hypervisor's, listed under not judged, with or
         * without the map's pcie for it, never passed in silence */
        u[0].device = 0x101e;
        u[0].cur_width = 1;
        node = mk_nics(u, 1);
        for (int k = 0; k < 2; k++) {
            m[0].pcie_gen = k ? 5 : 0;
            m[0].pcie_width = k ? 16 : 0;
            is_str(typed(node, &t, "nic.pcie.width", "mlx5_0", buf, sizeof(buf), why, sizeof(why)),
                   "none", "a virtual function (ConnectX VF) at x1%s: its width not judged",
                   k ? ", the map giving Gen5 x16" : "");
            ok(strstr(why, "n1/mlx5_0: nic.pcie.gen and .width: a virtual function (ConnectX VF): "
                           "its PCIe link is the hypervisor's") != NULL,
               "...listed under not judged, saying why (%s)", why);
            is_str(typed(node, &t, "nic.pcie.gen", "mlx5_0", buf, sizeof(buf), NULL, 0), "none",
                   "...nor its generation");
        }
        topo_node_destroy(node);
    }
}

/* nvlink.state against the map, the built-in reference, or the links the GPU has */
static void test_nvlink_refs(void)
{
    struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 18, 18 },
                            { "Acme X1", 0x10de, 0x1234, 90, 18, 12 },
                            { "Acme X1", 0x10de, 0x1234, 90, 18, 0 } };
    struct topo_node *node = mk_node(s, 3, 0);
    struct map_node_type t;
    char buf[400], why[2000];

    mk_type(&t);
    t.nvlink_links = 18;
    is_str(typed(node, &t, "nvlink.state", "gpu0", buf, sizeof(buf), NULL, 0),
           "ok 18 active / 18 active", "nvlink: 18 of the map's 18");
    typed_hint = 1;
    is_str(typed(node, &t, "nvlink.state", "gpu0", buf, sizeof(buf), NULL, 0),
           "ok 18 active / 18 active []", "nvlink: 18 of 18, no hint");
    typed_hint = 0;
    is_str(typed(node, &t, "nvlink.state", "gpu1", buf, sizeof(buf), NULL, 0),
           "fail 18 active / 12 active", "nvlink: 12 of 18: a failure");
    {
        struct topo_findings f = { 0 };
        topo_compare(node, "n1", NULL, &t, &f);
        for (size_t i = 0; i < f.n; i++)
            if (!strcmp(f.v[i].check, "nvlink.state") && f.v[i].sev == TOPO_SEV_FAIL) {
                const char *h = f.v[i].hint ? f.v[i].hint : "";
                if (!strcmp(f.v[i].subject, "n1/gpu1"))
                    ok(!strncmp(h, "NVLinks are down", 16), "nvlink: some down: %s", h);
                else
                    ok(!strncmp(h, "the GPU has lost every NVLink while its siblings have", 52),
                       "nvlink: all down, siblings fine: %s", h);
            }
        topo_findings_free(&f);
    }
    node->gpus[0].nvlink_active = node->gpus[1].nvlink_active = 0;
    {
        struct topo_findings f = { 0 };
        int n = 0;
        topo_compare(node, "n1", NULL, &t, &f);
        for (size_t i = 0; i < f.n; i++)
            n += !strcmp(f.v[i].check, "nvlink.state") && f.v[i].hint &&
                 !strncmp(f.v[i].hint, "all NVLinks are inactive", 24);
        is_int(n, 3, "nvlink: every GPU down: the fabric manager's hint on each");
        topo_findings_free(&f);
    }
    /* the input says nothing of NVLink: not judged, never a pass */
    node->gpus[2].nvlink_active = node->gpus[2].nvlink_links = -1;
    is_str(typed(node, &t, "nvlink.state", "gpu2", buf, sizeof(buf), why, sizeof(why)), "none",
           "nvlink: unknown: no finding");
    ok(strstr(why, "n1/gpu2: nvlink.state: the input says nothing of NVLink (18 active "
                   "expected by the map)") != NULL,
       "nvlink: ...said as not judged, the map's 18");
    /* without a map or a reference: the links the GPU has, each should be up */
    t.nvlink_links = -1;
    node->gpus[0].nvlink_active = 0;
    node->gpus[1].nvlink_active = 10;
    node->gpus[1].nvlink_links = 12;
    is_str(typed(node, &t, "nvlink.state", "gpu1", buf, sizeof(buf), NULL, 0),
           "fail 12 active / 10 active", "nvlink: no reference: 10 of its 12 present");
    topo_node_destroy(node);

    /* one GPU of a board, shown alone (a VM): the reference alone does not fail it */
    {
        struct gpu_spec one[] = { { "NVIDIA H100 80GB HBM3", 0x10de, 0x2330, 90, 0, 0 } };
        node = mk_node(one, 1, 0);
        is_str(typed(node, NULL, "nvlink.state", "gpu0", buf, sizeof(buf), NULL, 0),
               "warn 18 active / no NVLink exposed", "nvlink: an H100 alone with none: a warning");
        mk_type(&t);
        t.nvlink_links = 18;
        is_str(typed(node, &t, "nvlink.state", "gpu0", buf, sizeof(buf), NULL, 0),
               "fail 18 active / 0 active", "nvlink: ...a map that wants 18 fails it");
        node->gpus[0].nvlink_links = 18;
        is_str(typed(node, NULL, "nvlink.state", "gpu0", buf, sizeof(buf), NULL, 0),
               "fail 18 active / 0 active", "nvlink: ...and so do links present but down");
        topo_node_destroy(node);
    }
    /* no map, no reference, no sibling with a link up: the links a GPU has should be up; a GPU
     * with none has nothing to be held to */
    {
        struct gpu_spec down[] = { { "Acme X1", 0x10de, 0x1234, 90, 12, 0 },
                                   { "Acme X1", 0x10de, 0x1234, 90, 12, 0 } };
        node = mk_node(down, 2, 0);
        is_str(typed(node, NULL, "nvlink.state", "gpu0", buf, sizeof(buf), NULL, 0),
               "fail 12 active / 0 active",
               "nvlink: 12 links present, none up, nothing else known");
        node->gpus[0].nvlink_links = node->gpus[1].nvlink_links = 1;
        is_str(typed(node, NULL, "nvlink.state", "gpu0", buf, sizeof(buf), NULL, 0),
               "fail 1 active / 0 active", "nvlink: one link present, down: the same");
        node->gpus[0].nvlink_links = node->gpus[1].nvlink_links = 0;
        is_str(typed(node, NULL, "nvlink.state", "gpu0", buf, sizeof(buf), NULL, 0), "none",
               "nvlink: no link present and nothing else known: no finding");
        topo_node_destroy(node);
    }
    /* a map that wants no NVLink: its 0 is the yardstick, not the model's 18 nor a sibling's */
    {
        struct gpu_spec two[] = { { "NVIDIA H100 80GB HBM3", 0x10de, 0x2330, 90, 0, 0 },
                                  { "NVIDIA H100 80GB HBM3", 0x10de, 0x2330, 90, -1, -1 },
                                  { "NVIDIA H100 80GB HBM3", 0x10de, 0x2330, 90, 18, 18 } };
        node = mk_node(two, 3, 0);
        mk_type(&t);
        t.nvlink_links = 0;
        is_str(typed(node, &t, "nvlink.state", "gpu0", buf, sizeof(buf), NULL, 0),
               "ok 0 active / 0 active", "nvlink: a map of 0 NVLinks: an H100 with none passes");
        is_str(typed(node, &t, "nvlink.state", "gpu1", buf, sizeof(buf), why, sizeof(why)), "none",
               "nvlink: a map of 0, NVLink unknown: no finding");
        ok(!strstr(why, "gpu1: nvlink.state"),
           "nvlink: ...and nothing to judge: none expected (%s)", why);
        is_str(typed(node, &t, "nvlink.state", "gpu2", buf, sizeof(buf), NULL, 0),
               "ok 0 active / 18 active", "nvlink: a map of 0: one with 18 up passes against 0");
        t.nvlink_links = 1;
        typed(node, &t, "nvlink.state", "gpu1", buf, sizeof(buf), why, sizeof(why));
        ok(strstr(why, "gpu1: nvlink.state: the input says nothing of NVLink (1 active expected "
                       "by the map)") != NULL,
           "nvlink: a map of 1, NVLink unknown: said not judged");
        t.nvlink_links = -1;
        is_str(typed(node, &t, "nvlink.state", "gpu0", buf, sizeof(buf), NULL, 0),
               "fail 18 active / 0 active", "nvlink: without the map's 0, the model's 18");
        topo_node_destroy(node);
    }
}

/* the edges at 0 and 1: a node type of no GPU, a map that sets no PCIe link, one sibling link */
static void test_edges(void)
{
    struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 1, 1 },
                            { "Acme X1", 0x10de, 0x1234, 90, 1, 0 } };
    struct topo_node *node = mk_node(s, 2, 0);
    struct map_node_type t;
    char buf[400], why[2000];

    mk_type(&t);
    t.gpu_count = 0;
    is_str(typed(node, &t, "gpu.count", "", buf, sizeof(buf), why, sizeof(why)), "fail 0 / 2",
           "gpu.count: a node type of no GPU, two found");
    ok(strstr(why, "n1/gpu0: no built-in reference for 'Acme X1': its PCIe link is not judged "
                   "(give gpus.pcie in the map)") != NULL,
       "a GPU no reference knows, a map without its PCIe link: said as not judged");
    {
        struct topo_findings f = { 0 };
        topo_compare(node, "n1", NULL, &t, &f);
        for (size_t i = 0; i < f.n; i++)
            if (!strcmp(f.v[i].subject, "n1/gpu1") && !strcmp(f.v[i].check, "nvlink.state"))
                ok(f.v[i].hint && !strncmp(f.v[i].hint,
                                           "the GPU has lost every NVLink while its "
                                           "siblings have theirs",
                                           60),
                   "nvlink: none up beside a sibling with its one: the siblings' hint");
        topo_findings_free(&f);
    }
    t.pcie_width = 16;
    typed(node, &t, "gpu.count", "", buf, sizeof(buf), why, sizeof(why));
    ok(!strstr(why, "no built-in reference"), "...not when the map gives the width");
    topo_node_destroy(node);
    {
        /* the cluster's ignore list, without a node type: the NIC and its ports left alone */
        struct port_spec p[] = { { "MT4129", 1, 3, 400, 4, "NDR", IB },
                                 { "MT4129", 4, 5, 400, 4, "NDR", IB } };
        struct topo_map map;
        struct topo_findings f = { 0 };
        char *ign[1] = { "mlx5_0" };
        int of0 = 0, of1 = 0;
        memset(&map, 0, sizeof(map));
        map.ignore = ign;
        map.nignore = 1;
        node = mk_ports(p, 2);
        topo_compare(node, "n1", &map, NULL, &f);
        for (size_t i = 0; i < f.n; i++) {
            of0 += !strncmp(f.v[i].subject, "n1/mlx5_0", 9);
            of1 += !strncmp(f.v[i].subject, "n1/mlx5_1", 9);
        }
        for (size_t i = 0; i < f.nunjudged; i++)
            of0 += strstr(f.unjudged[i], "mlx5_0") != NULL;
        ok(of0 == 0 && of1 > 0 && f.nfail == 0,
           "the cluster's ignore list: mlx5_0 (down) said nothing of, not even as not judged; "
           "mlx5_1 judged");
        topo_findings_free(&f);
        topo_node_destroy(node);
    }
    {
        /* a port numbered 0 (a socket NIC's, as NCCL numbers it) down, beside port 1 down, no
         * node type (all ports judged): the cluster's ignore entry "NIC:0" or "host/NIC:0"
         * leaves port 0 alone, never port 1; "NIC:1" does not reach port 0. (With a node type
         * only the map's ports are judged, 1 to 255: port 0 never is.) */
        struct port_spec p[] = { { "MT4129", 1, 3, 400, 4, "NDR", IB } };
        char *lists[3] = { "mlx5_0:0", "n1/mlx5_0:0", "mlx5_0:1" };
        for (int k = 0; k < 3; k++) {
            struct topo_map map;
            struct topo_findings f = { 0 };
            struct topo_port *zero;
            char got[200] = "";
            node = mk_ports(p, 1);
            zero = topo_nic_add_port(&node->nics[0]);
            zero->num = 0;
            zero->state = 1;
            zero->phys_state = 3;
            zero->link_layer = ETH;
            memset(&map, 0, sizeof(map));
            map.ignore = &lists[k];
            map.nignore = 1;
            topo_compare(node, "n1", &map, NULL, &f);
            for (size_t i = 0; i < f.n; i++)
                if (!strcmp(f.v[i].check, "nic.port.state") && f.v[i].sev != TOPO_SEV_OK)
                    snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
                             got[0] ? " " : "", f.v[i].subject);
            is_str(got, k < 2 ? "n1/mlx5_0:1" : "n1/mlx5_0:0", "the cluster's ignore %s: %s",
                   lists[k],
                   k < 2 ? "port 0 left alone, port 1 judged" : "port 1 left alone, port 0 judged");
            topo_findings_free(&f);
            topo_node_destroy(node);
        }
    }
    node = mk_node(s, 0, 0);
    is_str(typed(node, &t, "gpu.count", "", buf, sizeof(buf), NULL, 0), "ok 0 / 0",
           "gpu.count: none of none");
    topo_node_destroy(node);
}

/* the node's gpu0 below bridge b: able to train at Gen5 x16, idle at Gen1 x16 */
static void idle_gpu_below(struct topo_node *node, int b)
{
    node->gpus[0].loc.up = b;
    node->gpus[0].link.max_gen = 5;
    node->gpus[0].link.max_width = 16;
    node->gpus[0].link.cur_gen = 1;
    node->gpus[0].link.cur_width = 16;
}

/* pcie.path: a GPU (Gen5 x16, 63 GB/s) below a switch: root port 0000:00:01.0 -> the switch's
 * upstream port 0000:01:00.0 (its link: gen x width as trained, else only its rate) -> a
 * downstream port above the GPU */
static const char *path_verdict(int gen, int width, double rate, int map_gen, int map_width,
                                int gpu_width_unread, char *buf, size_t len)
{
    struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 0, 0 } };
    struct topo_node *node = mk_node(s, 1, 0);
    struct map_node_type t;
    struct topo_findings f = { 0 };
    int root = topo_node_add_bridge(node, "0000:00:01.0", -1);
    int up = topo_node_add_bridge(node, "0000:01:00.0", root);
    int down = topo_node_add_bridge(node, "0000:02:00.0", up);

    node->bridges[root].faces_down = node->bridges[down].faces_down = 1;
    node->bridges[root].link.cur_gen = node->bridges[root].link.max_gen = 5;
    node->bridges[root].link.cur_width = node->bridges[root].link.max_width = 16;
    node->bridges[up].link.max_gen = 5;
    node->bridges[up].link.max_width = 16;
    node->bridges[up].link.cur_gen = gen;
    node->bridges[up].link.cur_width = width;
    node->bridges[up].link.cur_gbytes = rate;
    node->bridges[down].link.max_gen = 5;
    node->bridges[down].link.max_width = 16;
    idle_gpu_below(node, down);
    if (gpu_width_unread == 1) {
        node->gpus[0].link.max_width = 0; /* the width it can train to unread: as trained */
    } else if (gpu_width_unread == 2) {
        node->gpus[0].link.max_width = 1; /* an x1 GPU, its width as trained unread */
        node->gpus[0].link.cur_width = 0;
    }
    mk_type(&t);
    t.pcie_gen = map_gen;
    t.pcie_width = map_width;
    topo_compare(node, "n1", NULL, &t, &f);
    snprintf(buf, len, "none");
    for (size_t i = 0; i < f.n; i++)
        if (!strcmp(f.v[i].check, "pcie.path")) {
            char x[300];
            snprintf(buf, len, "%s %s", f.v[i].subject, finding_text(&f.v[i], 0, x, sizeof(x)));
        }
    topo_findings_free(&f);
    topo_node_destroy(node);
    return buf;
}

static const char *path_findings(struct topo_node *node, int hint, char *buf, size_t len);

/* pcie.path of a GPU (idle) below a switch's downstream port, the switch's upstream port
 * bridge 0; with root, below a root port (bridge 0, facing down). The top bridge is trained at
 * Gen4 x16 of its Gen5 x16 (unread 1: its generation as trained and its rate unread, 2: its
 * width as trained unread; Gen4 x16 the most it can; 3: nothing of its link read), the others
 * at Gen5 x16 */
static const char *gen4_bridge_verdict(int root, int unread, char *buf, size_t len)
{
    struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 0, 0 } };
    struct topo_node *node = mk_node(s, 1, 0);
    int top = root ? topo_node_add_bridge(node, "0000:00:01.0", -1) : -1;
    int up = topo_node_add_bridge(node, "0000:01:00.0", top);
    int down = topo_node_add_bridge(node, "0000:02:00.0", up);

    node->bridges[down].faces_down = 1;
    if (root)
        node->bridges[top].faces_down = 1;
    for (size_t b = 0; b < node->nbridges; b++) {
        node->bridges[b].link.max_gen = 5;
        node->bridges[b].link.max_width = node->bridges[b].link.cur_width = 16;
        node->bridges[b].link.cur_gen = b == 0 ? 4 : 5;
    }
    if (unread == 1) {
        node->bridges[0].link.cur_gen = 0;
        node->bridges[0].link.cur_gbytes = 0; /* unknown, as hwloc says it */
        node->bridges[0].link.max_gen = 4;
    } else if (unread == 2) {
        node->bridges[0].link.cur_width = 0;
        node->bridges[0].link.max_gen = 4;
    } else if (unread == 3) {
        memset(&node->bridges[0].link, 0, sizeof(node->bridges[0].link));
        node->bridges[0].link.cur_gbytes = -1;
    }
    idle_gpu_below(node, down);
    return path_findings(node, 0, buf, len);
}

static void test_pcie_path(void)
{
    /* the switch's upstream port trained at gen x width (0 x 0: its rate alone), the map's
     * generation and width (0: none) */
    static const struct {
        int gen, width;
        double rate;
        int map_gen, map_width;
        const char *want, *what;
        int gpu_width_unread; /* 1: the GPU's widest link unread, as trained x16; 2: the GPU
                               * x1 at most, its width as trained unread */
    } t[] = {
        { 5, 16, -1, 0, 0, "", "the switch's link at Gen5 x16: nothing said", 0 },
        { 4, 16, -1, 0, 0, "warn >= 63.0 GB/s (what gpu0 can use) / 31.5 GB/s (Gen4 x16)",
          "the switch at Gen4: a warning (it may be idle), the bridge named", 0 },
        { 4, 16, -1, 5, 0, "fail >= 63.0 GB/s (what gpu0 can use) / 31.5 GB/s (Gen4 x16)",
          "...a failure where the map sets the GPU's link", 0 },
        /* what the map sets, below what the GPU can: the map's link is the floor */
        { 4, 8, -1, 4, 0, "fail >= 31.5 GB/s (what gpu0 can use) / 15.8 GB/s (Gen4 x8)",
          "the map's Gen4 (the GPU's x16), the switch at Gen4 x8: a failure", 0 },
        { 1, 8, -1, 1, 0, "fail >= 4.0 GB/s (what gpu0 can use) / 2.0 GB/s (Gen1 x8)",
          "the map's Gen1, the switch at Gen1 x8: a failure", 0 },
        { 1, 8, -1, 0, 1, "fail >= 3.9 GB/s (what gpu0 can use) / 2.0 GB/s (Gen1 x8)",
          "the map's x1 (the GPU's Gen5), the switch at Gen1 x8: a failure", 0 },
        { 1, 16, -1, 1, 0, "", "the map's Gen1, the switch at Gen1 x16: nothing said", 0 },
        { 4, 8, -1, 4, 0, "fail >= 31.5 GB/s (what gpu0 can use) / 15.8 GB/s (Gen4 x8)",
          "the map's Gen4, the GPU's widest link unread (x16 as trained): a failure", 1 },
        { 1, 1, -1, 4, 0, "fail >= 2.0 GB/s (what gpu0 can use) / 0.2 GB/s (Gen1 x1)",
          "the map's Gen4, an x1 GPU whose width as trained is unread: a failure", 2 },
        { 0, 0, 0.1, 1, 1, "fail >= 0.2 GB/s (what gpu0 can use) / 0.1 GB/s",
          "the map's Gen1 x1 (0.25 GB/s), the switch's rate 0.1 GB/s: a failure", 0 },
        { 0, 0, 0.24, 1, 1, "",
          "the map's Gen1 x1 (0.25 GB/s), the switch's 0.24 GB/s: nothing said", 0 },
        { 5, 8, -1, 0, 0, "warn >= 63.0 GB/s (what gpu0 can use) / 31.5 GB/s (Gen5 x8)",
          "the switch at x8", 0 },
        { 1, 16, -1, 0, 0, "warn >= 63.0 GB/s (what gpu0 can use) / 4.0 GB/s (Gen1 x16)",
          "the switch at Gen1 (as trained)", 0 },
        /* the edge: 95% of what the GPU can use passes, less does not (Gen5 x15 is 93.75%) */
        { 5, 15, -1, 0, 0, "warn >= 63.0 GB/s (what gpu0 can use) / 59.1 GB/s (Gen5 x15)",
          "94% of it: said", 0 },
        { 0, 0, 59.9, 0, 0, "", "59.9 GB/s (the rate only), 95% of 63.0: nothing said", 0 },
        { 0, 0, 59.8, 0, 0, "warn >= 63.0 GB/s (what gpu0 can use) / 59.8 GB/s",
          "59.8 GB/s: said, the rate alone", 0 },
        { 0, 0, 0.9, 0, 0, "warn >= 63.0 GB/s (what gpu0 can use) / 0.9 GB/s",
          "0.9 GB/s (under 1): said, the rate alone", 0 },
    };
    char buf[400], want[200];

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        snprintf(want, sizeof(want), "%s%s", *t[i].want ? "n1/0000:01:00.0 " : "none", t[i].want);
        is_str(path_verdict(t[i].gen, t[i].width, t[i].rate, t[i].map_gen, t[i].map_width,
                            t[i].gpu_width_unread, buf, sizeof(buf)),
               want, "pcie.path: %s", t[i].what);
    }
    /* exactly 95% of what the GPU can use: enough */
    is_str(path_verdict(0, 0, 0.95 * topo_pci_link_gbytes(5, 16), 0, 0, 0, buf, sizeof(buf)),
           "none", "pcie.path: the switch's rate exactly 95%% of the GPU's Gen5 x16: nothing said");
    /* the narrow bridge the first the node lists (index 0): a switch's upstream port at Gen4 */
    is_str(gen4_bridge_verdict(0, 0, buf, sizeof(buf)),
           "n1/0000:01:00.0 warn >= 63.0 GB/s (what gpu0 can use) / 31.5 GB/s (Gen4 x16)",
           "pcie.path: the narrow bridge is bridge 0: said");
    /* its generation as trained unread, its width read: what it can train to, said so */
    is_str(gen4_bridge_verdict(0, 1, buf, sizeof(buf)),
           "n1/0000:01:00.0 warn >= 63.0 GB/s (what gpu0 can use) / 31.5 GB/s (Gen4 x16)",
           "pcie.path: a bridge whose trained generation is unread: its Gen4 x16 said");
    is_str(gen4_bridge_verdict(0, 2, buf, sizeof(buf)),
           "n1/0000:01:00.0 warn >= 63.0 GB/s (what gpu0 can use) / 31.5 GB/s (Gen4 x16)",
           "pcie.path: a bridge whose trained width is unread: its Gen4 x16 said");
    is_str(gen4_bridge_verdict(0, 3, buf, sizeof(buf)), "none",
           "pcie.path: a bridge of which nothing is read is no bottleneck (the others at Gen5)");
    /* a root port (facing down) above the GPU's switch: said as trained, not as it can train */
    is_str(gen4_bridge_verdict(1, 0, buf, sizeof(buf)),
           "n1/0000:00:01.0 warn >= 63.0 GB/s (what gpu0 can use) / 31.5 GB/s (Gen4 x16)",
           "pcie.path: a root port above the GPU's switch, at Gen4 of Gen5: said as trained");
}

/* compare the node against a node type of no GPU and no NIC, then destroy it: its pcie.path
 * findings, "subject sev expected / observed" (with the hint in [] where hint), joined with "; ",
 * or "none" */
static const char *path_findings(struct topo_node *node, int hint, char *buf, size_t len)
{
    struct map_node_type t;
    struct topo_findings f = { 0 };
    size_t used = 0;

    mk_type(&t);
    topo_compare(node, "n1", NULL, &t, &f);
    buf[0] = '\0';
    for (size_t i = 0; i < f.n; i++)
        if (!strcmp(f.v[i].check, "pcie.path")) {
            char x[900];
            used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s %s",
                                     used ? "; " : "", f.v[i].subject,
                                     finding_text(&f.v[i], hint, x, sizeof(x)));
        }
    if (!buf[0])
        snprintf(buf, len, "none");
    topo_findings_free(&f);
    topo_node_destroy(node);
    return buf;
}

/* pcie.path with a GPU (Gen5 x16, 63 GB/s, idle at Gen1) and an RDMA NIC (Gen nic_gen) under
 * one switch: root port 0000:00:01.0 -> upstream port 0000:01:00.0 (trained at up_gen x16) ->
 * downstream ports 0000:02:00.0 above the GPU (able to train at gpu_port_gen, idle at Gen1)
 * and 0000:02:01.0 above the NIC (x nic_width). Every pcie.path finding, with its hint, joined
 * with "; " */
static struct topo_node *switch_node(int up_gen, int gpu_port_gen, int nic_gen, int nic_width)
{
    struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 0, 0 } };
    struct topo_node *node = mk_node(s, 1, 0);
    struct topo_nic *nic = topo_node_add_nic(node);
    int root = topo_node_add_bridge(node, "0000:00:01.0", -1);
    int up = topo_node_add_bridge(node, "0000:01:00.0", root);
    int dg = topo_node_add_bridge(node, "0000:02:00.0", up);
    int dn = topo_node_add_bridge(node, "0000:02:01.0", up);

    node->nics_listed = 1;
    nic->name = xstrdup("mlx5_0");
    nic->rdma = 1;
    snprintf(nic->loc.busid, sizeof(nic->loc.busid), "0000:04:00.0");
    nic->loc.up = dn;
    /* one switch above both (PIX): the NIC is the GPU's nearest */
    nic->loc.nswitch = node->gpus[0].loc.nswitch = 1;
    nic->loc.switches[0] = node->gpus[0].loc.switches[0] = 1;
    nic->link.max_gen = nic->link.cur_gen = nic_gen;
    nic->link.max_width = nic->link.cur_width = nic_width;
    node->bridges[root].faces_down = node->bridges[dg].faces_down = node->bridges[dn].faces_down =
        1;
    node->bridges[root].link.cur_gen = node->bridges[root].link.max_gen = 5;
    node->bridges[root].link.cur_width = node->bridges[root].link.max_width = 16;
    node->bridges[up].link.max_gen = 5;
    node->bridges[up].link.cur_gen = up_gen;
    node->bridges[up].link.max_width = node->bridges[up].link.cur_width = 16;
    node->bridges[dg].link.max_gen = gpu_port_gen;
    node->bridges[dg].link.cur_gen = 1; /* the GPU's link, idle */
    node->bridges[dg].link.max_width = node->bridges[dg].link.cur_width = 16;
    node->bridges[dn].link.max_gen = node->bridges[dn].link.cur_gen = 5;
    node->bridges[dn].link.max_width = node->bridges[dn].link.cur_width = 16;
    node->gpus[0].loc.up = dg;
    node->gpus[0].link.max_gen = 5;
    node->gpus[0].link.max_width = node->gpus[0].link.cur_width = 16;
    node->gpus[0].link.cur_gen = 1;
    return node;
}

static const char *switch_verdict(int up_gen, int gpu_port_gen, int nic_gen, int nic_width,
                                  char *buf, size_t len)
{
    return path_findings(switch_node(up_gen, gpu_port_gen, nic_gen, nic_width), 1, buf, len);
}

/* pcie.path of a NIC (Gen5 x16, PCI 15b3:device) below a switch whose upstream port is trained
 * at Gen4 x16 of its Gen5 x16; rdma 0: a NIC without RDMA; map_gen: the generation the map's
 * entry for the NIC gives (its finding then "sev expected / observed", or "none"); up_rate > 0:
 * the upstream port's rate alone, in GB/s */
static const char *nic_path_verdict(int rdma, unsigned device, int map_gen, double up_rate,
                                    char *buf, size_t len)
{
    struct topo_node *node = topo_node_create();
    struct topo_nic *nic = topo_node_add_nic(node);
    int up = topo_node_add_bridge(node, "0000:01:00.0", -1);
    int down = topo_node_add_bridge(node, "0000:02:00.0", up);

    node->nics_listed = 1;
    nic->name = xstrdup("mlx5_0");
    nic->rdma = rdma;
    nic->pci_vendor = 0x15b3;
    nic->pci_device = device;
    nic->loc.up = down;
    nic->link.max_gen = nic->link.cur_gen = 5;
    nic->link.max_width = nic->link.cur_width = 16;
    node->bridges[down].faces_down = 1;
    for (size_t b = 0; b < node->nbridges; b++) {
        node->bridges[b].link.max_gen = 5;
        node->bridges[b].link.cur_gen = b == (size_t)up ? 4 : 5;
        node->bridges[b].link.max_width = node->bridges[b].link.cur_width = 16;
    }
    if (up_rate > 0) {
        node->bridges[up].link.cur_gen = node->bridges[up].link.cur_width = 0;
        node->bridges[up].link.cur_gbytes = up_rate;
    }
    if (map_gen) {
        struct map_node_type t;
        struct map_nic m = map_nic("mlx5_0");
        mk_type(&t);
        m.pcie_gen = map_gen;
        t.nics = &m;
        t.nnics = 1;
        typed(node, &t, "pcie.path", "0000:01:00.0", buf, len, NULL, 0);
        topo_node_destroy(node);
        return buf;
    }
    return path_findings(node, 0, buf, len);
}

static void test_pcie_switch(void)
{
    char buf[2000];

    /* the NICs pcie.path looks at: RDMA NICs that are not virtual functions */
    is_str(nic_path_verdict(1, 0x1021, 0, 0, buf, sizeof(buf)),
           "n1/0000:01:00.0 warn >= 63.0 GB/s (what mlx5_0 can use) / 31.5 GB/s (Gen4 x16)",
           "pcie.path: an RDMA NIC (ConnectX-7) below a switch at Gen4: said");
    is_str(nic_path_verdict(0, 0x1021, 0, 0, buf, sizeof(buf)), "none",
           "pcie.path: ...a NIC without RDMA: nothing said");
    is_str(nic_path_verdict(1, 0x101e, 0, 0, buf, sizeof(buf)), "none",
           "pcie.path: ...a virtual function (its link is the hypervisor's): nothing said");
    /* the map's generation for the NIC is its floor, below what it can or above */
    is_str(nic_path_verdict(1, 0x1021, 3, 0, buf, sizeof(buf)), "none",
           "pcie.path: the map's Gen3 for the NIC, the switch at Gen4 x16: nothing said");
    is_str(nic_path_verdict(1, 0x1021, 5, 0, buf, sizeof(buf)),
           "fail >= 63.0 GB/s (what mlx5_0 can use) / 31.5 GB/s (Gen4 x16)",
           "pcie.path: the map's Gen5 for the NIC, the switch at Gen4 x16: a failure");
    /* at exactly 95% of what the NIC can use, enough */
    is_str(nic_path_verdict(1, 0x1021, 0, 0.95 * topo_pci_link_gbytes(5, 16), buf, sizeof(buf)),
           "none", "pcie.path: the switch's rate exactly 95%% of the NIC's Gen5 x16: nothing said");
    static const char tail[] =
        ": reseat the PCIe switch board, riser or cable, check the BIOS PCIe "
        "speed; some platforms slow links down at idle: confirm under load "
        "(lspci -vv: LnkSta) before acting]";
    char want[1200];

    is_str(switch_verdict(5, 5, 5, 16, buf, sizeof(buf)), "none",
           "pcie.path, a switch at Gen5 throughout: nothing said");
    /* two links below the GPU's need: the narrower named, as it can train (the GPU's own port) */
    snprintf(want, sizeof(want),
             "n1/0000:01:00.0 warn >= 63.0 GB/s (what mlx5_0 can use) / 31.5 GB/s (Gen4 x16) "
             "[the link of PCIe bridge 0000:01:00.0 caps the host bandwidth of mlx5_0%s; "
             "n1/0000:02:00.0 warn >= 63.0 GB/s (what gpu0 can use) / 15.8 GB/s (Gen3 x16) "
             "[the link of PCIe bridge 0000:02:00.0 caps the host bandwidth of gpu0 and GPUDirect "
             "gpu0<->mlx5_0%s",
             tail, tail);
    is_str(
        switch_verdict(4, 3, 5, 16, buf, sizeof(buf)), want,
        "pcie.path: the upstream port at Gen4 and the GPU's port able to train only at Gen3: the "
        "GPU's port for the GPU, as it can train (not its idle Gen1), and the upstream port for "
        "the NIC");
    snprintf(want, sizeof(want),
             "n1/0000:01:00.0 warn >= 63.0 GB/s (what gpu0, mlx5_0 can use) / 15.8 GB/s (Gen3 x16) "
             "[the link of PCIe bridge 0000:01:00.0 caps the host bandwidth of gpu0, mlx5_0%s",
             tail);
    is_str(
        switch_verdict(3, 4, 5, 16, buf, sizeof(buf)), want,
        "pcie.path: the upstream port at Gen3 (as trained), the GPU's port able to train at Gen4: "
        "the upstream port for both, and no GPUDirect (it does not cross the upstream port)");
    /* GPUDirect between the GPU and its NIC goes through the GPU's port: said when that port
     * is below what the smaller of the two ends can use */
    snprintf(want, sizeof(want),
             "n1/0000:02:00.0 warn >= 63.0 GB/s (what gpu0 can use) / 31.5 GB/s (Gen4 x16) "
             "[the link of PCIe bridge 0000:02:00.0 caps the host bandwidth of gpu0 and GPUDirect "
             "gpu0<->mlx5_0%s",
             tail);
    is_str(switch_verdict(5, 4, 5, 16, buf, sizeof(buf)), want,
           "pcie.path: the GPU's port at Gen4, the NIC at Gen5: GPUDirect said too");
    snprintf(want, sizeof(want),
             "n1/0000:02:00.0 warn >= 63.0 GB/s (what gpu0 can use) / 31.5 GB/s (Gen4 x16) "
             "[the link of PCIe bridge 0000:02:00.0 caps the host bandwidth of gpu0%s",
             tail);
    is_str(switch_verdict(5, 4, 4, 16, buf, sizeof(buf)), want,
           "pcie.path: ...the NIC at Gen4 (the smaller end, 31.5 GB/s, which the port carries): "
           "no GPUDirect");
    is_str(switch_verdict(5, 4, 1, 1, buf, sizeof(buf)), want,
           "pcie.path: ...the NIC at Gen1 x1 (the smaller end, 0.25 GB/s): no GPUDirect");
    {
        /* the GPU the smaller end (Gen1 x1, 0.25 GB/s), the NIC's port at Gen4 (31.5 GB/s) below
         * what the NIC (Gen5 x16) can use: the NIC's port said, GPUDirect not (it carries the
         * GPU's 0.25 GB/s) */
        struct topo_node *node = switch_node(5, 5, 5, 16);
        node->gpus[0].link.max_gen = 1;
        node->gpus[0].link.max_width = node->gpus[0].link.cur_width = 1;
        node->bridges[3].link.max_gen = node->bridges[3].link.cur_gen = 4;
        snprintf(want, sizeof(want),
                 "n1/0000:02:01.0 warn >= 63.0 GB/s (what mlx5_0 can use) / 31.5 GB/s (Gen4 x16) "
                 "[the link of PCIe bridge 0000:02:01.0 caps the host bandwidth of mlx5_0%s",
                 tail);
        is_str(path_findings(node, 1, buf, sizeof(buf)), want,
               "pcie.path: a GPU at Gen1 x1 (the smaller end), the NIC's port at Gen4: no "
               "GPUDirect");
    }
    {
        /* a NIC whose link is unread: GPUDirect held to the GPU's end */
        struct topo_node *node = switch_node(5, 4, 5, 16);
        memset(&node->nics[0].link, 0, sizeof(node->nics[0].link));
        node->nics[0].link.cur_gbytes = -1;
        switch_verdict(5, 4, 5, 16, want, sizeof(want));
        ok(strstr(want, "GPUDirect gpu0<->mlx5_0") != NULL,
           "pcie.path: (the NIC's link read: GPUDirect said)");
        is_str(path_findings(node, 1, buf, sizeof(buf)), want,
               "pcie.path: the GPU's port at Gen4, the NIC's link unread: GPUDirect said as where "
               "it is read, held to the GPU's end");
    }
    {
        /* the NIC (Gen6 x16, 121 GB/s) below a port that does not face down, at exactly 95% of
         * the GPU's 63.0 GB/s (the smaller end): the port capped for the NIC, GPUDirect not */
        struct topo_node *node = switch_node(5, 5, 6, 16);
        struct topo_bridge *dn = &node->bridges[3];
        dn->faces_down = 0;
        dn->link.max_gen = 6;
        dn->link.cur_gen = dn->link.cur_width = 0;
        dn->link.cur_gbytes = 0.95 * topo_pci_link_gbytes(5, 16);
        ok(strstr(path_findings(node, 1, buf, sizeof(buf)), "caps the host bandwidth of mlx5_0:") &&
               !strstr(buf, "GPUDirect"),
           "pcie.path: the NIC's port at exactly 95%% of the GPU's end: no GPUDirect (%s)", buf);
    }
    {
        /* the GPU's port the node's first bridge (index 0), at Gen4: GPUDirect said too */
        struct gpu_spec g[] = { { "Acme X1", 0x10de, 0x1234, 90, 0, 0 } };
        struct topo_node *node = mk_node(g, 1, 0);
        int dg = topo_node_add_bridge(node, "0000:02:00.0", -1); /* its parent comes next */
        int root = topo_node_add_bridge(node, "0000:00:01.0", -1);
        int up = topo_node_add_bridge(node, "0000:01:00.0", root);
        int dn = topo_node_add_bridge(node, "0000:02:01.0", up);
        struct topo_nic *nic = topo_node_add_nic(node);

        node->bridges[dg].up = up;
        node->nics_listed = 1;
        nic->name = xstrdup("mlx5_0");
        nic->rdma = 1;
        nic->loc.up = dn;
        nic->loc.nswitch = node->gpus[0].loc.nswitch = 1;
        nic->loc.switches[0] = node->gpus[0].loc.switches[0] = 1;
        nic->link.max_gen = nic->link.cur_gen = 5;
        nic->link.max_width = nic->link.cur_width = 16;
        for (size_t b = 0; b < node->nbridges; b++) {
            node->bridges[b].faces_down = (int)b != up;
            node->bridges[b].link.max_gen = node->bridges[b].link.cur_gen = (int)b == dg ? 4 : 5;
            node->bridges[b].link.max_width = node->bridges[b].link.cur_width = 16;
        }
        idle_gpu_below(node, dg);
        is_int(dg, 0, "pcie.path: the GPU's port is bridge 0");
        ok(strstr(path_findings(node, 1, buf, sizeof(buf)), "caps the host bandwidth of gpu0 and "
                                                            "GPUDirect gpu0<->mlx5_0") != NULL,
           "pcie.path: the GPU's port, bridge 0, at Gen4: GPUDirect said too (%s)", buf);
    }
}

/* pcie.path for an RDMA NIC alone on links below 1 GB/s (Gen1: 0.25 GB/s a lane): the NIC able
 * to train at x nic_max, trained at x nic_cur, below its port 0000:02:01.0 (able to train at
 * x port) under an upstream port 0000:01:00.0 trained at x up, under a Gen5 x16 root port. Each
 * pcie.path finding "bridge sev expected / observed", joined with "; " */
static const char *slow_nic_verdict(int nic_max, int nic_cur, int port, int up, char *buf,
                                    size_t len)
{
    struct topo_node *node = topo_node_create();
    struct topo_nic *nic = topo_node_add_nic(node);
    int root = topo_node_add_bridge(node, "0000:00:01.0", -1);
    int u = topo_node_add_bridge(node, "0000:01:00.0", root);
    int dn = topo_node_add_bridge(node, "0000:02:01.0", u);

    node->nics_listed = 1;
    nic->name = xstrdup("mlx5_0");
    nic->rdma = 1;
    nic->loc.up = dn;
    nic->link.max_gen = nic->link.cur_gen = 1;
    nic->link.max_width = nic_max;
    nic->link.cur_width = nic_cur;
    node->bridges[root].faces_down = node->bridges[dn].faces_down = 1;
    node->bridges[root].link.cur_gen = node->bridges[root].link.max_gen = 5;
    node->bridges[root].link.cur_width = node->bridges[root].link.max_width = 16;
    node->bridges[u].link.max_gen = node->bridges[u].link.cur_gen = 1;
    node->bridges[u].link.max_width = 16;
    node->bridges[u].link.cur_width = up;
    node->bridges[dn].link.max_gen = node->bridges[dn].link.cur_gen = 1;
    node->bridges[dn].link.max_width = node->bridges[dn].link.cur_width = port;
    return path_findings(node, 0, buf, len);
}

static void test_pcie_slow(void)
{
    char buf[800];

    is_str(slow_nic_verdict(4, 4, 4, 4, buf, sizeof(buf)), "none",
           "pcie.path, a NIC at Gen1 x4 (1.0 GB/s) on links of Gen1 x4: nothing said");
    /* the NIC held to what it can train to (x2, 0.5 GB/s), though trained at x1 */
    is_str(slow_nic_verdict(2, 1, 2, 1, buf, sizeof(buf)),
           "n1/0000:01:00.0 warn >= 0.5 GB/s (what mlx5_0 can use) / 0.2 GB/s (Gen1 x1)",
           "pcie.path: a NIC able to train at Gen1 x2, trained at x1, under a port trained at x1: "
           "held to what it can train to, below 1 GB/s");
    /* two links below 1 GB/s: the narrower one, the lower */
    is_str(slow_nic_verdict(4, 4, 1, 2, buf, sizeof(buf)),
           "n1/0000:02:01.0 warn >= 1.0 GB/s (what mlx5_0 can use) / 0.2 GB/s (Gen1 x1)",
           "pcie.path: the NIC's port at x1 (0.25 GB/s) below an upstream port at x2 (0.5 GB/s): "
           "the narrower named");
    is_str(slow_nic_verdict(4, 4, 2, 1, buf, sizeof(buf)),
           "n1/0000:01:00.0 warn >= 1.0 GB/s (what mlx5_0 can use) / 0.2 GB/s (Gen1 x1)",
           "pcie.path: ...and the upstream port when it is the narrower");
}

int main(void)
{
    test_findings();
    test_pcie_path();
    test_pcie_switch();
    test_pcie_slow();
    test_edges();
    test_nvlink_refs();
    test_map_nics();
    test_gpu_kind();
    test_other_vendor();
    test_nothing_to_judge();
    char buf[256];

    {
        /* three GPUs with 12 links up, one with 8: held to its siblings' */
        struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 8 } };
        is_str(verdict(s, 4, 0, 3, buf, sizeof(buf)), "warn 12 active" LIKE " / 8 active",
               "siblings: 8 of 12 up where the others have 12: a warning (a PCIe board's bridge)");
        is_str(verdict(s, 4, 1, 3, buf, sizeof(buf)), "fail 12 active" LIKE " / 8 active",
               "siblings on NVSwitches: a failure");
        is_str(verdict(s, 4, 0, 0, buf, sizeof(buf)), "ok 12 active" LIKE " / 12 active",
               "siblings: one with all of them passes");
    }
    {
        /* the most common count wins; among counts as common, the highest, whatever comes first */
        struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 12, 10 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 10 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 8 } };
        is_str(verdict(s, 5, 0, 4, buf, sizeof(buf)), "warn 12 active" LIKE " / 8 active",
               "siblings: two with 10 listed first, two with 12: held to 12");
        s[2].active = 10;
        is_str(verdict(s, 5, 0, 4, buf, sizeof(buf)), "warn 10 active" LIKE " / 8 active",
               "siblings: three with 10, one with 12: held to the most common, 10");
        is_str(verdict(s, 5, 0, 3, buf, sizeof(buf)), "ok 10 active" LIKE " / 12 active",
               "siblings: the one with 12 passes against 10");
    }
    {
        /* as common, the highest whatever comes first: 12 listed first, then as many with 10 */
        struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 10 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 10 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 8 } };
        is_str(verdict(s, 5, 0, 4, buf, sizeof(buf)), "warn 12 active" LIKE " / 8 active",
               "siblings: two with 12 listed first, two with 10: held to 12");
    }
    {
        /* siblings with no link up are no yardstick, however many: the one with links is */
        struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 12, 0 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 0 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 0 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 6 } };
        is_str(verdict(s, 4, 0, 0, buf, sizeof(buf)), "warn 6 active" LIKE " / 0 active",
               "siblings: two others with none up, one with 6: held to 6");
    }
    {
        /* one NVLink each to an NVSwitch is a switched board already */
        struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 2, 1 },
                                { "Acme X1", 0x10de, 0x1234, 90, 2, 1 },
                                { "Acme X1", 0x10de, 0x1234, 90, 2, 0 } };
        is_str(verdict(s, 3, 1, 2, buf, sizeof(buf)), "fail 1 active" LIKE " / 0 active",
               "siblings with one NVLink each to an NVSwitch: a failure");
    }
    {
        /* another kind's links are not this GPU's yardstick */
        struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 18, 18 },
                                { "Acme X1", 0x10de, 0x1234, 90, 18, 18 },
                                { "Acme X1", 0x10de, 0x1234, 90, 18, 18 },
                                { "Acme Y2", 0x10de, 0x1234, 90, 4, 4 } };
        is_str(verdict(s, 4, 0, 3, buf, sizeof(buf)), "ok 4 active / 4 active",
               "kinds: by model name first: a GPU of its own model, its links up, passes");
        s[3].active = 2;
        is_str(verdict(s, 4, 0, 3, buf, sizeof(buf)), "fail 4 active / 2 active",
               "kinds: ...held to its own links, not the other model's 18");
    }
    {
        /* without a model name: the PCI ids, vendor and device both */
        struct gpu_spec s[] = { { NULL, 0x10de, 0x2330, 90, 12, 12 },
                                { NULL, 0x10de, 0x2330, 90, 12, 12 },
                                { NULL, 0x10de, 0x2330, 90, 12, 6 } };
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "warn 12 active" LIKE " / 6 active",
               "kinds: no model, the same PCI id: siblings");
        s[0].device = s[1].device = 0x2331;
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "fail 12 active / 6 active",
               "kinds: another device id: no sibling, held to its own links present");
        s[0].device = s[1].device = 0x2330;
        s[0].vendor = s[1].vendor = 0x1002;
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "fail 12 active / 6 active",
               "kinds: the same device id of another vendor: no sibling");
    }
    {
        /* without a model or PCI id: the compute capability (of a kind no reference knows) */
        struct gpu_spec s[] = { { NULL, 0, 0, 37, 18, 18 },
                                { NULL, 0, 0, 37, 18, 18 },
                                { NULL, 0, 0, 35, 18, 9 } };
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "fail 18 active / 9 active",
               "kinds: another compute capability: no sibling");
        s[2].sm = 37;
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "warn 18 active" LIKE " / 9 active",
               "kinds: the same compute capability: siblings");
        s[0].device = s[1].device = 0x1db5;
        s[0].vendor = s[1].vendor = 0x10de;
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "warn 18 active" LIKE " / 9 active",
               "kinds: a PCI id on the siblings only: the compute capability decides, siblings");
        s[2].device = 0x1db5;
        s[2].vendor = 0x10de;
        s[0].device = s[1].device = s[0].vendor = s[1].vendor = 0;
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "warn 18 active" LIKE " / 9 active",
               "kinds: a PCI id on the GPU only: the compute capability decides, siblings");
        s[2].device = s[2].vendor = 0;
        s[0].sm = s[1].sm = s[2].sm = -1;
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "fail 18 active / 9 active",
               "kinds: nothing known of any: none is another's sibling");
    }
    {
        /* a sibling with no link up is not counted; when none has one, there is no yardstick */
        struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 12, 0 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 0 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 6 } };
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "fail 12 active / 6 active",
               "siblings without a link up: the GPU held to its own links present");
        is_str(verdict(s, 3, 0, 0, buf, sizeof(buf)), "warn 6 active" LIKE " / 0 active",
               "siblings: one with none up is held to the sibling that has some");
    }
    {
        /* NICs no reference knows: held to their siblings' width, said as not judged for their
         * generation, named by what the input gives */
        struct nic_spec s[] = { { 0x15b3, 0xfff0, "MT9999", 16, 16 },
                                { 0x15b3, 0xfff0, "MT9999", 16, 16 },
                                { 0x15b3, 0xfff0, "MT9999", 16, 16 },
                                { 0x15b3, 0xfff0, "MT9999", 8, 8 } };
        char why[400];
        is_str(nic_verdict(s, 4, 3, buf, sizeof(buf), why, sizeof(why)), "fail x16" NLIKE " / x8",
               "NICs: x8 where three of its kind have x16: a failure");
        is_str(why,
               "n1/mlx5_3: no built-in reference for PCI 15b3:fff0: its PCIe generation is not "
               "judged (give pcie in the map's NIC entry)",
               "NICs: ...its generation not judged, the part named by its PCI id");
        is_str(nic_verdict(s, 4, 0, buf, sizeof(buf), why, sizeof(why)), "ok x16" NLIKE " / x16",
               "NICs: one with its siblings' width passes");
        s[3].max_width = 16;
        is_str(nic_verdict(s, 4, 3, buf, sizeof(buf), why, sizeof(why)),
               "fail x16 (what the NIC can train to) / x8",
               "NICs: trained below its own widest: held to that first");
        s[3].max_width = 8;
        s[3].vendor = s[3].device = 0;
        is_str(nic_verdict(s, 4, 3, buf, sizeof(buf), why, sizeof(why)), "fail x16" NLIKE " / x8",
               "NICs: no PCI id: one kind by hca_type");
        ok(strstr(why, "no built-in reference for hca_type MT9999:") != NULL,
           "NICs: ...named by its hca_type: %s", why);
        s[3].hca_type = NULL;
        is_str(nic_verdict(s, 4, 3, buf, sizeof(buf), why, sizeof(why)), "none",
               "NICs: nothing that says its kind: no sibling, no width expected");
        ok(strstr(why, "no built-in reference for a NIC the input does not identify:") != NULL,
           "NICs: ...and said so: %s", why);
        s[3].hca_type = "MT8888";
        is_str(nic_verdict(s, 4, 3, buf, sizeof(buf), why, sizeof(why)), "none",
               "NICs: another hca_type: no sibling");
    }
    {
        /* x1 is a width (a NIC trained at x1 of x16); siblings whose width the input does not
         * give are no yardstick, however many */
        struct nic_spec s[] = { { 0x15b3, 0xfff0, NULL, 16, 16 }, { 0x15b3, 0xfff0, NULL, 16, 16 },
                                { 0x15b3, 0xfff0, NULL, 0, 0 },   { 0x15b3, 0xfff0, NULL, 0, 0 },
                                { 0x15b3, 0xfff0, NULL, 0, 0 },   { 0x15b3, 0xfff0, NULL, 1, 16 } };
        char why[400];
        is_str(nic_verdict(s, 6, 5, buf, sizeof(buf), why, sizeof(why)),
               "fail x16 (what the NIC can train to) / x1", "NICs: x1 of its x16: x1 is its width");
        s[5].max_width = 1;
        is_str(nic_verdict(s, 6, 5, buf, sizeof(buf), why, sizeof(why)), "fail x16" NLIKE " / x1",
               "NICs: x1, three of its kind of no known width, two at x16: held to x16");
        for (int i = 0; i < 5; i++)
            s[i].cur_width = s[i].max_width = i < 3 ? 1 : 16;
        is_str(nic_verdict(s, 6, 4, buf, sizeof(buf), why, sizeof(why)), "ok x1" NLIKE " / x16",
               "NICs: four of its kind at x1, one other at x16: x1 is the most common");
    }
    {
        /* the most common width of the others of its kind; among as common, the widest */
        struct nic_spec s[] = { { 0x15b3, 0xfff0, NULL, 16, 16 },
                                { 0x15b3, 0xfff0, NULL, 8, 8 },
                                { 0x15b3, 0xfff0, NULL, 4, 4 } };
        char why[400];
        is_str(nic_verdict(s, 3, 2, buf, sizeof(buf), why, sizeof(why)), "fail x16" NLIKE " / x4",
               "NICs: one other at x16, one at x8: the widest");
        is_str(nic_verdict(s, 1, 0, buf, sizeof(buf), why, sizeof(why)), "none",
               "NICs: alone of its kind: no sibling");
        s[0].cur_width = s[0].max_width = 8;
        is_str(nic_verdict(s, 3, 2, buf, sizeof(buf), why, sizeof(why)), "fail x8" NLIKE " / x4",
               "NICs: two others at x8: held to x8");
        {
            struct nic_spec w[] = { { 0x15b3, 0xfff0, NULL, 8, 8 },
                                    { 0x15b3, 0xfff0, NULL, 8, 8 },
                                    { 0x15b3, 0xfff0, NULL, 16, 16 },
                                    { 0x15b3, 0xfff0, NULL, 16, 16 },
                                    { 0x15b3, 0xfff0, NULL, 4, 4 } };
            is_str(nic_verdict(w, 5, 4, buf, sizeof(buf), why, sizeof(why)),
                   "fail x16" NLIKE " / x4", "NICs: two at x8 listed first, two at x16: x16");
            {
                /* a virtual function's link is the hypervisor's: not judged, not listed */
                struct nic_spec vf[] = { { 0x15b3, 0x101c, NULL, 16, 16 },
                                         { 0x15b3, 0x101c, NULL, 16, 16 },
                                         { 0x15b3, 0x101c, NULL, 1, 1 } };
                is_str(nic_verdict(vf, 3, 2, buf, sizeof(buf), why, sizeof(why)), "none",
                       "NICs: a ConnectX-6 VF at x1 beside two at x16: its link not judged");
                is_str(why,
                       "n1/mlx5_2: nic.pcie.gen and .width: a virtual function (ConnectX-6 VF): "
                       "its PCIe link is the hypervisor's",
                       "NICs: ...and listed under not judged, saying why");
            }
            {
                struct nic_spec r[] = { { 0x15b3, 0xfff0, NULL, 16, 16 },
                                        { 0x15b3, 0xfff0, NULL, 16, 16 },
                                        { 0x15b3, 0xfff0, NULL, 8, 8 },
                                        { 0x15b3, 0xfff0, NULL, 8, 8 },
                                        { 0x15b3, 0xfff0, NULL, 4, 4 } };
                is_str(nic_verdict(r, 5, 4, buf, sizeof(buf), why, sizeof(why)),
                       "fail x16" NLIKE " / x4", "NICs: two at x16 listed first, two at x8: x16");
            }
            w[2].vendor = 0x15b4;
            is_str(nic_verdict(w, 5, 4, buf, sizeof(buf), why, sizeof(why)),
                   "fail x8" NLIKE " / x4",
                   "NICs: one of the x16 of another vendor: x8, the most common of its kind");
        }
    }
    {
        /* a port's state and rate without a map: its peers (active, the same link layer and
         * HCA type) set the rate, the most common first, the fastest among as common */
        struct port_spec s[] = { { "MT4129", 4, 5, 400, 4, "NDR", IB },
                                 { "MT4129", 4, 5, 400, 4, "NDR", IB },
                                 { "MT4129", 4, 5, 400, 4, "NDR", IB },
                                 { "MT4129", 4, 5, 200, 4, "HDR", IB } };
        is_str(port_verdict(s, 4, 3, "nic.port.rate", buf, sizeof(buf)),
               "fail 400 Gb/s (like 3 ports of this kind) / 200 Gb/s [slower than its peers: the "
               "link trained at a lower speed or width]",
               "ports: 200 where three peers run 400: slower than its peers");
        is_str(port_verdict(s, 4, 0, "nic.port.rate", buf, sizeof(buf)),
               "ok 400 Gb/s (like 3 ports of this kind) / 400 Gb/s []",
               "ports: a peer at 400 passes");
        is_str(port_verdict(s, 4, 0, "nic.port.state", buf, sizeof(buf)),
               "ok ACTIVE / not active []",
               "ports: ACTIVE (the state's text as the input gives it, here none)");
        s[2].rate = 200;
        s[2].speed = "HDR";
        is_str(port_verdict(s, 4, 2, "nic.port.rate", buf, sizeof(buf)),
               "fail 400 Gb/s (like 2 ports of this kind) / 200 Gb/s [slower than its peers: the "
               "link trained at a lower speed or width]",
               "ports: two at 400, two at 200: the faster is the peers' rate");
        s[1].rate = 200;
        is_str(port_verdict(s, 4, 0, "nic.port.rate", buf, sizeof(buf)),
               "ok 200 Gb/s (like 3 ports of this kind) / 400 Gb/s []",
               "ports: three at 200: their rate; the one faster passes");
        s[1].rate = 300;
        s[2].rate = 100;
        is_str(port_verdict(s, 4, 1, "nic.port.rate", buf, sizeof(buf)),
               "fail 400 Gb/s (like 1 port of this kind) / 300 Gb/s [slower than its peers: the "
               "link trained at a lower speed or width]",
               "ports: one of each rate: the fastest, 'like 1 port'");
        s[1].rate = 200;
        s[0].hca_type = "MT4123";
        is_str(port_verdict(s, 4, 1, "nic.port.rate", buf, sizeof(buf)),
               "ok 200 Gb/s (like 2 ports of this kind) / 200 Gb/s []",
               "ports: a port of another HCA type is no peer");
        s[0].hca_type = "MT4129";
        s[0].ll = ETH;
        is_str(port_verdict(s, 4, 1, "nic.port.rate", buf, sizeof(buf)),
               "ok 200 Gb/s (like 2 ports of this kind) / 200 Gb/s []",
               "ports: nor one of another link layer");
        s[0].ll = IB;
        s[0].state = 1;
        is_str(port_verdict(s, 4, 1, "nic.port.rate", buf, sizeof(buf)),
               "ok 200 Gb/s (like 2 ports of this kind) / 200 Gb/s []",
               "ports: nor one that is down");
        is_str(port_verdict(s, 4, 0, "nic.port.rate", buf, sizeof(buf)), "none",
               "ports: a port that is down: its rate not judged");
        s[0].state = 0; /* NOP: known, and not ACTIVE */
        is_str(port_verdict(s, 4, 0, "nic.port.rate", buf, sizeof(buf)), "none",
               "ports: a port in state 0 (NOP): its rate not judged");
        is_str(port_verdict(s, 4, 0, "nic.port.state", buf, sizeof(buf)),
               "fail ACTIVE / not active [link down: check the cable, transceiver and switch "
               "port]",
               "ports: ...and its state, known and not ACTIVE, fails");
        s[0].state = 1;
        is_str(port_verdict(s, 4, 0, "nic.port.state", buf, sizeof(buf)),
               "fail ACTIVE / not active [link down: check the cable, transceiver and switch "
               "port]",
               "ports: DOWN: a failure, check the cable");
        s[0].state = 2;
        is_str(port_verdict(s, 4, 0, "nic.port.state", buf, sizeof(buf)),
               "fail ACTIVE / not active [the port is up but the subnet manager has not "
               "configured it]",
               "ports: INIT: the subnet manager");
        s[0].state = -1;
        is_str(port_verdict(s, 4, 0, "nic.port.state", buf, sizeof(buf)), "none",
               "ports: a state the input does not give: no state finding");
        is_str(port_verdict(s, 4, 0, "nic.port.rate", buf, sizeof(buf)),
               "ok 200 Gb/s (like 2 ports of this kind) / 400 Gb/s []",
               "ports: ...judged by its rate");
    }
    {
        /* the most common rate, also where a faster one is listed after it */
        struct port_spec s[] = { { "MT4129", 4, 5, 200, 4, "HDR", IB },
                                 { "MT4129", 4, 5, 200, 4, "HDR", IB },
                                 { "MT4129", 4, 5, 200, 4, "HDR", IB },
                                 { "MT4129", 4, 5, 400, 4, "NDR", IB } };
        is_str(port_verdict(s, 4, 0, "nic.port.rate", buf, sizeof(buf)),
               "ok 200 Gb/s (like 3 ports of this kind) / 200 Gb/s []",
               "ports: three at 200 listed first, one at 400 after: 200 is the peers' rate");
    }
    {
        /* a port of unknown state judged by its rate: active ports of another link layer or
         * HCA type are no peers, and with no peer its rate is not judged */
        struct port_spec s[] = { { "MT4129", -1, -1, 200, 4, "HDR", IB },
                                 { "MT4129", 4, 5, 400, 4, "NDR", ETH },
                                 { "MT4123", 4, 5, 400, 4, "NDR", IB } };
        is_str(port_verdict(s, 3, 0, "nic.port.rate", buf, sizeof(buf)), "none",
               "ports: a port of unknown state beside active ones of another layer and HCA type: "
               "no peer, its rate not judged");
    }
    {
        /* the physical state, and an InfiniBand link trained with fewer lanes */
        struct port_spec s[] = { { "MT4129", 4, 2, 400, 4, "NDR", IB },
                                 { "MT4129", 4, 3, 400, 4, "NDR", IB },
                                 { "MT4129", 4, 7, 400, 4, "NDR", IB },
                                 { "MT4129", 4, 5, 200, 2, "NDR", IB },
                                 { "MT4129", 4, 5, 100, 1, "NDR", ETH } };
        is_str(port_verdict(s, 5, 0, "nic.port.phys_state", buf, sizeof(buf)),
               "fail LinkUp / not LinkUp [Polling: no peer answers; check the cable and the switch "
               "port]",
               "ports: Polling");
        is_str(port_verdict(s, 5, 1, "nic.port.phys_state", buf, sizeof(buf)),
               "fail LinkUp / not LinkUp [Disabled: the port is administratively down]",
               "ports: Disabled");
        is_str(port_verdict(s, 5, 2, "nic.port.phys_state", buf, sizeof(buf)),
               "fail LinkUp / not LinkUp [the physical link is not up]", "ports: another state");
        s[2].phys_state = 0; /* no state change: known, and not LinkUp */
        is_str(port_verdict(s, 5, 2, "nic.port.phys_state", buf, sizeof(buf)),
               "fail LinkUp / not LinkUp [the physical link is not up]", "ports: state 0");
        s[2].phys_state = 7;
        is_str(port_verdict(s, 5, 3, "nic.port.phys_state", buf, sizeof(buf)),
               "ok LinkUp / not LinkUp []", "ports: LinkUp");
        is_str(port_verdict(s, 5, 3, "nic.port.rate", buf, sizeof(buf)),
               "fail 400 Gb/s (4X NDR) / 200 Gb/s (2X NDR) [the link trained with fewer lanes: "
               "check the cable and transceiver]",
               "ports: InfiniBand at 2X: fewer lanes, whatever its peers");
        s[3].width = 1;
        s[3].rate = 100;
        is_str(port_verdict(s, 5, 3, "nic.port.rate", buf, sizeof(buf)),
               "fail 400 Gb/s (4X NDR) / 100 Gb/s (1X NDR) [the link trained with fewer lanes: "
               "check the cable and transceiver]",
               "ports: InfiniBand at 1X: fewer lanes");
        s[3].width = 2;
        s[3].rate = 200;
        is_str(port_verdict(s, 5, 4, "nic.port.rate", buf, sizeof(buf)),
               "ok 100 Gb/s (like 1 port of this kind) / 100 Gb/s []",
               "ports: Ethernet is not held to 4X");
        s[3].width = 4;
        s[3].rate = 400;
        is_str(port_verdict(s, 5, 3, "nic.port.rate", buf, sizeof(buf)),
               "ok 400 Gb/s (like 4 ports of this kind) / 400 Gb/s []", "ports: 4X: its peers'");
        s[3].width = 3;
        s[3].speed = "XDR-ish";
        is_str(port_verdict(s, 5, 3, "nic.port.rate", buf, sizeof(buf)),
               "fail 4X XDR-ish / 400 Gb/s (3X XDR-ish) [the link trained with fewer lanes: check "
               "the cable and transceiver]",
               "ports: a speed no reference knows: 4X said without a rate");
        s[3].width = 0; /* unknown: not a link below 4X; held to its peers */
        s[3].speed = "NDR";
        is_str(port_verdict(s, 5, 3, "nic.port.rate", buf, sizeof(buf)),
               "ok 400 Gb/s (like 4 ports of this kind) / 400 Gb/s []",
               "ports: a width the input does not give is not a link below 4X");
    }
    {
        /* a port whose state the input does not give, with no active peer: nothing to hold its
         * rate to */
        struct port_spec u[] = { { "MT4129", -1, -1, 400, 4, "NDR", IB },
                                 { "MT4129", 1, 3, 400, 4, "NDR", IB } };
        is_str(port_verdict(u, 2, 0, "nic.port.rate", buf, sizeof(buf)), "none",
               "ports: state unknown, its one peer down: its rate not judged");
    }
    {
        /* peers whose rate the input gives as 0: a rate all the same, the yardstick */
        struct port_spec z[] = { { "MT4129", 4, 5, 0, 4, "NDR", ETH },
                                 { "MT4129", 4, 5, 0, 4, "NDR", ETH },
                                 { "MT4129", 4, 5, 0, 4, "NDR", ETH } };
        is_str(port_verdict(z, 3, 2, "nic.port.rate", buf, sizeof(buf)),
               "ok 0 Gb/s (like 3 ports of this kind) / 0 Gb/s []",
               "ports: every peer at 0 Gb/s: judged against 0");
    }
    return done_testing();
}

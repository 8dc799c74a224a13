#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/xmalloc.h"
#include "topo/compare.h"
#include "topo/model.h"
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

/* gpu's verdict, "SEV expected / observed", or "none" */
static const char *verdict(const struct gpu_spec *s, size_t n, int switched, int gpu, char *buf,
                           size_t len)
{
    struct topo_node *node = mk_node(s, n, switched);
    struct topo_findings f = { 0 };
    const struct topo_finding *x;

    topo_compare(node, "n1", NULL, NULL, &f);
    x = nvlink_of(&f, gpu);
    if (x)
        snprintf(buf, len, "%s %s / %s",
                 x->sev == TOPO_SEV_FAIL   ? "FAIL"
                 : x->sev == TOPO_SEV_WARN ? "WARN"
                                           : "OK",
                 x->expected ? x->expected : "-", x->observed);
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

/* NIC nic's nic.pcie.width verdict ("SEV expected / observed", or "none"), and in why the first
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
            snprintf(buf, len, "%s %s / %s",
                     f.v[i].sev == TOPO_SEV_FAIL   ? "FAIL"
                     : f.v[i].sev == TOPO_SEV_WARN ? "WARN"
                                                   : "OK",
                     f.v[i].expected ? f.v[i].expected : "-", f.v[i].observed);
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

int main(void)
{
    char buf[256];

    {
        /* three GPUs with 12 links up, one with 8: held to its siblings' */
        struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 8 } };
        is_str(verdict(s, 4, 0, 3, buf, sizeof(buf)), "WARN 12 active" LIKE " / 8 active",
               "siblings: 8 of 12 up where the others have 12: a warning (a PCIe board's bridge)");
        is_str(verdict(s, 4, 1, 3, buf, sizeof(buf)), "FAIL 12 active" LIKE " / 8 active",
               "siblings on NVSwitches: a failure");
        is_str(verdict(s, 4, 0, 0, buf, sizeof(buf)), "OK 12 active" LIKE " / 12 active",
               "siblings: one with all of them passes");
    }
    {
        /* the most common count wins; among counts as common, the highest, whatever comes first */
        struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 12, 10 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 10 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 12 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 8 } };
        is_str(verdict(s, 5, 0, 4, buf, sizeof(buf)), "WARN 12 active" LIKE " / 8 active",
               "siblings: two with 10 listed first, two with 12: held to 12");
        s[2].active = 10;
        is_str(verdict(s, 5, 0, 4, buf, sizeof(buf)), "WARN 10 active" LIKE " / 8 active",
               "siblings: three with 10, one with 12: held to the most common, 10");
        is_str(verdict(s, 5, 0, 3, buf, sizeof(buf)), "OK 10 active" LIKE " / 12 active",
               "siblings: the one with 12 passes against 10");
    }
    {
        /* another kind's links are not this GPU's yardstick */
        struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 18, 18 },
                                { "Acme X1", 0x10de, 0x1234, 90, 18, 18 },
                                { "Acme X1", 0x10de, 0x1234, 90, 18, 18 },
                                { "Acme Y2", 0x10de, 0x1234, 90, 4, 4 } };
        is_str(verdict(s, 4, 0, 3, buf, sizeof(buf)), "OK 4 active / 4 active",
               "kinds: by model name first: a GPU of its own model, its links up, passes");
        s[3].active = 2;
        is_str(verdict(s, 4, 0, 3, buf, sizeof(buf)), "FAIL 4 active / 2 active",
               "kinds: ...held to its own links, not the other model's 18");
    }
    {
        /* without a model name: the PCI ids, vendor and device both */
        struct gpu_spec s[] = { { NULL, 0x10de, 0x2330, 90, 12, 12 },
                                { NULL, 0x10de, 0x2330, 90, 12, 12 },
                                { NULL, 0x10de, 0x2330, 90, 12, 6 } };
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "WARN 12 active" LIKE " / 6 active",
               "kinds: no model, the same PCI id: siblings");
        s[0].device = s[1].device = 0x2331;
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "FAIL 12 active / 6 active",
               "kinds: another device id: no sibling, held to its own links present");
        s[0].device = s[1].device = 0x2330;
        s[0].vendor = s[1].vendor = 0x1002;
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "FAIL 12 active / 6 active",
               "kinds: the same device id of another vendor: no sibling");
    }
    {
        /* without a model or PCI id: the compute capability (of a kind no reference knows) */
        struct gpu_spec s[] = { { NULL, 0, 0, 37, 18, 18 },
                                { NULL, 0, 0, 37, 18, 18 },
                                { NULL, 0, 0, 35, 18, 9 } };
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "FAIL 18 active / 9 active",
               "kinds: another compute capability: no sibling");
        s[2].sm = 37;
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "WARN 18 active" LIKE " / 9 active",
               "kinds: the same compute capability: siblings");
        s[0].sm = s[1].sm = s[2].sm = -1;
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "FAIL 18 active / 9 active",
               "kinds: nothing known of any: none is another's sibling");
    }
    {
        /* a sibling with no link up is not counted; when none has one, there is no yardstick */
        struct gpu_spec s[] = { { "Acme X1", 0x10de, 0x1234, 90, 12, 0 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 0 },
                                { "Acme X1", 0x10de, 0x1234, 90, 12, 6 } };
        is_str(verdict(s, 3, 0, 2, buf, sizeof(buf)), "FAIL 12 active / 6 active",
               "siblings without a link up: the GPU held to its own links present");
        is_str(verdict(s, 3, 0, 0, buf, sizeof(buf)), "WARN 6 active" LIKE " / 0 active",
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
        is_str(nic_verdict(s, 4, 3, buf, sizeof(buf), why, sizeof(why)), "FAIL x16" NLIKE " / x8",
               "NICs: x8 where three of its kind have x16: a failure");
        is_str(why,
               "n1/mlx5_3: no built-in reference for PCI 15b3:fff0: its PCIe generation is not "
               "judged (give pcie in the map's NIC entry)",
               "NICs: ...its generation not judged, the part named by its PCI id");
        is_str(nic_verdict(s, 4, 0, buf, sizeof(buf), why, sizeof(why)), "OK x16" NLIKE " / x16",
               "NICs: one with its siblings' width passes");
        s[3].max_width = 16;
        is_str(nic_verdict(s, 4, 3, buf, sizeof(buf), why, sizeof(why)),
               "FAIL x16 (what the NIC can train to) / x8",
               "NICs: trained below its own widest: held to that first");
        s[3].max_width = 8;
        s[3].vendor = s[3].device = 0;
        is_str(nic_verdict(s, 4, 3, buf, sizeof(buf), why, sizeof(why)), "FAIL x16" NLIKE " / x8",
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
        /* the most common width of the others of its kind; among as common, the widest */
        struct nic_spec s[] = { { 0x15b3, 0xfff0, NULL, 16, 16 },
                                { 0x15b3, 0xfff0, NULL, 8, 8 },
                                { 0x15b3, 0xfff0, NULL, 4, 4 } };
        char why[400];
        is_str(nic_verdict(s, 3, 2, buf, sizeof(buf), why, sizeof(why)), "FAIL x16" NLIKE " / x4",
               "NICs: one other at x16, one at x8: the widest");
        is_str(nic_verdict(s, 1, 0, buf, sizeof(buf), why, sizeof(why)), "none",
               "NICs: alone of its kind: no sibling");
        s[0].cur_width = s[0].max_width = 8;
        is_str(nic_verdict(s, 3, 2, buf, sizeof(buf), why, sizeof(why)), "FAIL x8" NLIKE " / x4",
               "NICs: two others at x8: held to x8");
        {
            struct nic_spec w[] = { { 0x15b3, 0xfff0, NULL, 8, 8 },
                                    { 0x15b3, 0xfff0, NULL, 8, 8 },
                                    { 0x15b3, 0xfff0, NULL, 16, 16 },
                                    { 0x15b3, 0xfff0, NULL, 16, 16 },
                                    { 0x15b3, 0xfff0, NULL, 4, 4 } };
            is_str(nic_verdict(w, 5, 4, buf, sizeof(buf), why, sizeof(why)),
                   "FAIL x16" NLIKE " / x4", "NICs: two at x8 listed first, two at x16: x16");
            w[2].vendor = 0x15b4;
            is_str(nic_verdict(w, 5, 4, buf, sizeof(buf), why, sizeof(why)),
                   "FAIL x8" NLIKE " / x4",
                   "NICs: one of the x16 of another vendor: x8, the most common of its kind");
        }
    }
    return done_testing();
}

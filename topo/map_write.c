#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "common/xmalloc.h"
#include "topo/map.h"
#include "topo/reference.h"

/* `railyard map capture`: describe a golden node as a map, written with libyaml's emitter. */

struct emit {
    yaml_emitter_t e;
    int failed;
};

static void ev(struct emit *m, yaml_event_t *event)
{
    if (!m->failed && !yaml_emitter_emit(&m->e, event))
        m->failed = 1;
}

static void scalar(struct emit *m, const char *s, int quoted)
{
    yaml_event_t event;

    yaml_scalar_event_initialize(&event, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
                                 quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
    ev(m, &event);
}

static void map_start(struct emit *m, int flow)
{
    yaml_event_t event;

    yaml_mapping_start_event_initialize(&event, NULL, NULL, 1,
                                        flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
    ev(m, &event);
}

static void map_end(struct emit *m)
{
    yaml_event_t event;

    yaml_mapping_end_event_initialize(&event);
    ev(m, &event);
}

static void seq_start(struct emit *m, int flow)
{
    yaml_event_t event;

    yaml_sequence_start_event_initialize(
        &event, NULL, NULL, 1, flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
    ev(m, &event);
}

static void seq_end(struct emit *m)
{
    yaml_event_t event;

    yaml_sequence_end_event_initialize(&event);
    ev(m, &event);
}

static void kv_str(struct emit *m, const char *k, const char *v)
{
    scalar(m, k, 0);
    scalar(m, v, 1);
}

static void kv_int(struct emit *m, const char *k, long v)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%ld", v);
    scalar(m, k, 0);
    scalar(m, buf, 0);
}

static void kv_num(struct emit *m, const char *k, double v)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%g", v);
    scalar(m, k, 0);
    scalar(m, buf, 0);
}

/* the value every GPU shares, or -1 (ints) / NULL (strings) */
static int common_int(const struct topo_node *node, size_t off)
{
    int v = -2;

    for (size_t i = 0; i < node->ngpus; i++) {
        int x = *(const int *)((const char *)&node->gpus[i] + off);
        if (v == -2)
            v = x;
        else if (v != x)
            return -1;
    }
    return v == -2 ? -1 : v;
}

/* The generation (or width) every GPU gets to the host, the narrowest link on its way to the
 * root port included (a Gen5 GPU behind a Gen4 uplink gets Gen4); -1 when they differ */
static int common_host(const struct topo_node *node, int want_gen)
{
    int v = -2;

    for (size_t i = 0; i < node->ngpus; i++) {
        int gen, width, x;
        topo_node_host_link(node, &node->gpus[i].loc, &node->gpus[i].link, NULL, &gen, &width);
        x = want_gen ? gen : width;
        if (v == -2)
            v = x;
        else if (v != x)
            return -1;
    }
    return v == -2 ? -1 : v;
}

/* pcie: {gen, width} of an RDMA NIC: what it gets to the host, as for the GPUs */
static void nic_pcie(struct emit *m, const struct topo_node *node, const struct topo_nic *nic)
{
    const struct topo_nic_ref *ref = topo_ref_nic_for(nic);
    int gen, width;

    if (ref && ref->virtual_fn)
        return;
    topo_node_host_link(node, &nic->loc, &nic->link, NULL, &gen, &width);
    if (gen <= 0 && width <= 0)
        return;
    scalar(m, "pcie", 0);
    map_start(m, 1);
    if (gen > 0)
        kv_int(m, "gen", gen);
    if (width > 0)
        kv_int(m, "width", width);
    map_end(m);
}

static const char *common_model(const struct topo_node *node)
{
    const char *m = NULL;

    for (size_t i = 0; i < node->ngpus; i++) {
        if (!node->gpus[i].model)
            return NULL;
        if (m && strcmp(m, node->gpus[i].model) != 0)
            return NULL;
        m = node->gpus[i].model;
    }
    return m;
}

/* the PCI id every GPU has, in map form ("10de:2330"); 0 when one is unknown or they differ */
static int common_pci_id(const struct topo_node *node, char *buf, size_t len)
{
    for (size_t i = 0; i < node->ngpus; i++) {
        const struct topo_gpu *g = &node->gpus[i];
        if (!g->pci_vendor || !g->pci_device || g->pci_vendor > 0xffff || g->pci_device > 0xffff ||
            (i && (g->pci_vendor != node->gpus[0].pci_vendor ||
                   g->pci_device != node->gpus[0].pci_device)))
            return 0;
    }
    if (!node->ngpus)
        return 0;
    snprintf(buf, len, "%04x:%04x", node->gpus[0].pci_vendor, node->gpus[0].pci_device);
    return 1;
}

int topo_map_capture(const struct topo_node *node, const char *type_name, const char *hostlist,
                     const char *cluster, const struct map_thresholds *th, FILE *fp,
                     ry_error_t *err)
{
    struct emit m = { .failed = 0 };
    int *rail = NULL, *near = NULL, nrails = 0, gen, width, links, sm, nrdma = 0;
    yaml_event_t event;
    const char *model;
    char buf[64];

    if (!yaml_emitter_initialize(&m.e))
        return ry_errorf(err, "cannot initialise the YAML emitter");
    yaml_emitter_set_output_file(&m.e, fp);
    yaml_emitter_set_unicode(&m.e, 1);
    yaml_emitter_set_width(&m.e, 160); /* a GPU or NIC entry on one line */

    /* Only RDMA NICs become the map's NICs (a socket NIC, NCCL's eth0, is not what the map is
     * about; the checks leave a NIC the map does not list alone unless it is an RDMA device).
     * Rails: the RDMA NICs that are the nearest RDMA NIC of some GPU, in NIC order. */
    if (node->nnics) {
        rail = xcalloc(node->nnics, sizeof(*rail));
        near = xcalloc(node->nnics, sizeof(*near));
    }
    for (size_t n = 0; n < node->nnics; n++) {
        rail[n] = near[n] = -1;
        nrdma += node->nics[n].rdma != 0;
        for (size_t g = 0; g < node->ngpus && near[n] < 0 && node->nics[n].rdma; g++)
            if (topo_node_nearest_rdma_nic(node, g) == (int)n)
                near[n] = (int)g;
        if (near[n] >= 0)
            rail[n] = nrails++;
    }

    yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING);
    ev(&m, &event);
    yaml_document_start_event_initialize(&event, NULL, NULL, NULL, 0);
    ev(&m, &event);
    map_start(&m, 0);
    kv_str(&m, "cluster", cluster ? cluster : "cluster");
    scalar(&m, "node_types", 0);
    map_start(&m, 0);
    scalar(&m, type_name, 0);
    map_start(&m, 0);

    if (!node->gpus_listed)
        goto nics; /* the input says nothing about GPUs (an ibstat capture) */
    scalar(&m, "gpus", 0);
    map_start(&m, 1);
    kv_int(&m, "count", (long)node->ngpus);
    if ((model = common_model(node)))
        kv_str(&m, "model", model);
    /* what else names the kind of GPU, for an input without names (or with other names) */
    if (common_pci_id(node, buf, sizeof(buf)))
        kv_str(&m, "pci_id", buf);
    if ((sm = common_int(node, offsetof(struct topo_gpu, sm))) > 0) {
        snprintf(buf, sizeof(buf), "%d.%d", sm / 10, sm % 10);
        kv_str(&m, "compute_capability", buf);
    }
    gen = common_host(node, 1);
    width = common_host(node, 0);
    if (gen > 0 || width > 0) {
        scalar(&m, "pcie", 0);
        map_start(&m, 1);
        if (gen > 0)
            kv_int(&m, "gen", gen);
        if (width > 0)
            kv_int(&m, "width", width);
        map_end(&m);
    }
    links = common_int(node, offsetof(struct topo_gpu, nvlink_links));
    if (links >= 0) {
        scalar(&m, "nvlink", 0);
        map_start(&m, 1);
        kv_int(&m, "links", links);
        map_end(&m);
    }
    map_end(&m);

nics:
    if (nrdma) {
        scalar(&m, "nics", 0);
        seq_start(&m, 0);
        for (size_t n = 0; n < node->nnics; n++) {
            const struct topo_nic *nic = &node->nics[n];
            size_t nports = nic->nports ? nic->nports : 1;
            if (!nic->rdma)
                continue;
            for (size_t p = 0; p < nports; p++) {
                const struct topo_port *pt = nic->nports ? &nic->ports[p] : NULL;
                map_start(&m, 1);
                kv_str(&m, "name", nic->name);
                if (p == 0 && (pt && pt->netdev ? pt->netdev : nic->netdev))
                    kv_str(&m, "netdev", pt && pt->netdev ? pt->netdev : nic->netdev);
                if (rail[n] >= 0 && p == 0)
                    kv_int(&m, "rail", rail[n]);
                if (pt && pt->num != 1)
                    kv_int(&m, "port", pt->num);
                if (pt && topo_link_layer_name(pt->link_layer))
                    kv_str(&m, "link_layer", topo_link_layer_name(pt->link_layer));
                if (pt && pt->rate_gbps > 0)
                    kv_num(&m, "rate_gbps", pt->rate_gbps);
                if (near[n] >= 0 && p == 0) {
                    kv_int(&m, "near_gpu", near[n]);
                    kv_str(&m, "path",
                           topo_path_name(topo_node_gpu_nic_path(node, (size_t)near[n], n)));
                }
                if (nic->loc.numa >= 0 && p == 0)
                    kv_int(&m, "numa", nic->loc.numa);
                if (p == 0)
                    nic_pcie(&m, node, nic);
                map_end(&m);
            }
        }
        seq_end(&m);
    }
    /* ports that are down on the golden node are not part of what it should be */
    {
        int any = 0;
        for (size_t n = 0; n < node->nnics; n++)
            for (size_t p = 0; p < node->nics[n].nports && node->nics[n].rdma; p++) {
                const struct topo_port *pt = &node->nics[n].ports[p];
                if (pt->state < 0 || pt->state == 4)
                    continue;
                if (!any) {
                    scalar(&m, "ignore", 0);
                    seq_start(&m, 0);
                    any = 1;
                }
                snprintf(buf, sizeof(buf), "%s:%d", node->nics[n].name, pt->num);
                scalar(&m, buf, 1);
            }
        if (any)
            seq_end(&m);
    }
    if (th) {
        int any = 0;
        for (size_t k = 0; k < map_nthreshold_keys; k++) {
            double v = *topo_map_threshold_at((struct map_thresholds *)th, k);
            if (v <= 0)
                continue;
            if (!any++) {
                scalar(&m, "thresholds", 0);
                map_start(&m, 0);
            }
            kv_num(&m, map_threshold_keys[k].name, v);
        }
        if (any)
            map_end(&m);
    }
    map_end(&m); /* the type */
    map_end(&m); /* node_types */

    scalar(&m, "nodes", 0);
    map_start(&m, 0);
    kv_str(&m, hostlist ? hostlist : node->hostname ? node->hostname : "node", type_name);
    map_end(&m);
    if (nrails) {
        scalar(&m, "rails", 0);
        map_start(&m, 0);
        for (int r = 0; r < nrails; r++) {
            snprintf(buf, sizeof(buf), "%d", r);
            scalar(&m, buf, 0);
            scalar(&m, "", 0);
        }
        map_end(&m);
    }
    map_end(&m);
    yaml_document_end_event_initialize(&event, 1);
    ev(&m, &event);
    yaml_stream_end_event_initialize(&event);
    ev(&m, &event);
    if (!m.failed && !yaml_emitter_flush(&m.e))
        m.failed = 1;
    free(rail);
    free(near);
    if (m.failed) {
        ry_errorf(err, "cannot write the map: %s", m.e.problem ? m.e.problem : strerror(errno));
        yaml_emitter_delete(&m.e);
        return -1;
    }
    yaml_emitter_delete(&m.e);
    return 0;
}

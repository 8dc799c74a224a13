#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/out.h"
#include "src/cmd/cmd.h"
#include "topo/model.h"

/* Version of the JSON document printed by `railyard inventory --json`; bump it when a field
 * changes meaning or disappears (railyard-inventory(1), JSON OUTPUT). */
#define INVENTORY_SCHEMA_VERSION 1

static const char *human_bytes(unsigned long long b, char *buf, size_t len)
{
    if (!b)
        return NULL;
    snprintf(buf, len, "%.1f GiB", (double)b / (1024.0 * 1024 * 1024));
    return buf;
}

static void print_link(struct out *o, const struct topo_pcie_link *l)
{
    char cur[32] = "n/a", max[32] = "n/a";

    if (l->cur_gen || l->cur_width)
        snprintf(cur, sizeof(cur), "Gen%d x%d", l->cur_gen, l->cur_width);
    else if (l->cur_gbytes > 0)
        snprintf(cur, sizeof(cur), "%.1f GB/s", l->cur_gbytes);
    if (l->max_gen || l->max_width)
        snprintf(max, sizeof(max), "Gen%d x%d", l->max_gen, l->max_width);
    out_text(o, "%-11s %-10s", cur, max);
    out_obj_open(o, "pcie");
    out_int_opt(o, "cur_gen", NULL, l->cur_gen, l->cur_gen > 0);
    out_int_opt(o, "cur_width", NULL, l->cur_width, l->cur_width > 0);
    out_int_opt(o, "max_gen", NULL, l->max_gen, l->max_gen > 0);
    out_int_opt(o, "max_width", NULL, l->max_width, l->max_width > 0);
    out_double(o, "cur_gbytes_per_s", NULL, 2, l->cur_gbytes, l->cur_gbytes > 0);
    out_obj_close(o);
}

static void print_node(struct out *o, const struct topo_node *node)
{
    char buf[64];

    out_obj_open(o, "node");
    out_str(o, "hostname", "railyard inventory: %s\n", node->hostname);
    out_str(o, "sources", "  sources  %s\n", node->sources);
    out_str(o, "cpu_model", "  cpu      %s", node->cpu_model);
    out_int_opt(o, "packages", ", %s packages", node->npackages, node->npackages >= 0);
    out_int_opt(o, "cores", ", %s cores", node->ncores, node->ncores >= 0);
    out_int_opt(o, "pus", ", %s PUs\n", node->npus, node->npus >= 0);
    out_arr_open(o, "numa");
    for (size_t i = 0; i < node->nnuma; i++) {
        const struct topo_numa *m = &node->numa[i];
        out_obj_open(o, NULL);
        out_int(o, "os_index", "  numa%s ", m->os_index);
        out_str(o, NULL, "   %s", human_bytes(m->memory_bytes, buf, sizeof(buf)));
        out_int_opt(o, "pus", ", %s PUs\n", m->npus, m->npus >= 0);
        out_int_opt(o, "memory_bytes", NULL, (long long)m->memory_bytes, m->memory_bytes > 0);
        out_obj_close(o);
    }
    out_arr_close(o);
    out_obj_close(o);
}

/* The GPU's model as the text shows it: the name, else its compute capability */
static const char *model_label(const struct topo_gpu *g, char *buf, size_t len)
{
    if (g->model)
        return g->model;
    if (g->sm >= 0)
        snprintf(buf, len, "n/a (sm %d)", g->sm);
    else
        snprintf(buf, len, "n/a");
    return buf;
}

static void print_gpus(struct out *o, const struct topo_node *node)
{
    char buf[64], mbuf[32];
    int mw = 5;

    /* the column is as wide as the longest model: a cut name can read as another GPU */
    for (size_t i = 0; i < node->ngpus; i++) {
        int l = (int)strlen(model_label(&node->gpus[i], mbuf, sizeof(mbuf)));
        if (l > mw)
            mw = l;
    }
    out_text(o, "\n");
    if (node->ngpus == 0)
        out_text(o, "GPUs: none%s%s\n", node->gpu_driver_note ? ": " : "",
                 node->gpu_driver_note ? node->gpu_driver_note : "");
    else {
        out_text(o, "GPUs (%zu)%s%s\n", node->ngpus, node->gpu_driver_note ? ": " : "",
                 node->gpu_driver_note ? node->gpu_driver_note : "");
        out_text(o, "  %-4s %-13s %-5s %-*s %-10s %-11s %-10s %-7s %s\n", "GPU", "PCI", "NUMA", mw,
                 "MODEL", "MEMORY", "PCIE NOW", "PCIE MAX", "NVLINK", "NEAREST NIC");
    }
    out_arr_open(o, "gpus");
    for (size_t i = 0; i < node->ngpus; i++) {
        const struct topo_gpu *g = &node->gpus[i];
        int nic = topo_node_nearest_nic(node, i);
        char nv[32] = "n/a";

        out_obj_open(o, NULL);
        out_int(o, "index", "  %-4s", g->index);
        out_str(o, "pci", " %-13s", g->loc.busid[0] ? g->loc.busid : NULL);
        out_int_opt(o, "numa", " %-5s", g->loc.numa, g->loc.numa >= 0);
        out_text(o, " %-*s", mw, model_label(g, mbuf, sizeof(mbuf)));
        out_str(o, "model", NULL, g->model);
        out_int_opt(o, "sm", NULL, g->sm, g->sm >= 0);
        out_str(o, NULL, " %-10s", human_bytes(g->memory_bytes, buf, sizeof(buf)));
        out_text(o, " ");
        print_link(o, &g->link);
        if (g->nvlink_links >= 0 && g->nvlink_active >= 0)
            snprintf(nv, sizeof(nv), "%d/%d", g->nvlink_active, g->nvlink_links);
        else if (g->nvlink_links >= 0)
            snprintf(nv, sizeof(nv), "%d", g->nvlink_links);
        out_text(o, " %-7s", nv);
        out_obj_open(o, "nvlink");
        out_int_opt(o, "links", NULL, g->nvlink_links, g->nvlink_links >= 0);
        out_int_opt(o, "active", NULL, g->nvlink_active, g->nvlink_active >= 0);
        out_obj_close(o);
        out_str(o, "nearest_nic", " %s", nic >= 0 ? node->nics[nic].name : NULL);
        out_str(o, "nearest_nic_path", " (%s)",
                nic >= 0 ? topo_path_name(topo_node_gpu_nic_path(node, i, (size_t)nic)) : NULL);
        out_text(o, "\n");
        out_str(o, "vendor", NULL, g->vendor);
        out_str(o, "uuid", NULL, g->uuid);
        out_int_opt(o, "memory_bytes", NULL, (long long)g->memory_bytes, g->memory_bytes > 0);
        out_obj_close(o);
    }
    out_arr_close(o);
}

static void print_ports(struct out *o, const struct topo_nic *n)
{
    out_arr_open(o, "ports");
    for (size_t p = 0; p < n->nports; p++) {
        const struct topo_port *pt = &n->ports[p];

        char line[256] = "", rate[64] = "", width[16] = "", lid[32] = "", llbuf[32] = "";
        const char *ll = topo_link_layer_name(pt->link_layer);

        /* one readable line per port; the JSON fields follow, each written once */
        if (pt->rate_gbps >= 0)
            snprintf(rate, sizeof(rate), "  %g Gb/s", pt->rate_gbps);
        if (ll)
            snprintf(llbuf, sizeof(llbuf), "  %s", ll);
        if (pt->width && pt->speed)
            snprintf(width, sizeof(width), " (%dX %s)", pt->width, pt->speed);
        if (pt->lid >= 0)
            snprintf(lid, sizeof(lid), "  lid %d", pt->lid);
        snprintf(line, sizeof(line), "%s%s%s%s%s%s%s%s", pt->state_str ? pt->state_str : "",
                 pt->state_str && pt->phys_str ? "/" : "", pt->phys_str ? pt->phys_str : "",
                 !pt->state_str && !pt->phys_str ? "state n/a" : "", rate, width, llbuf, lid);
        out_obj_open(o, NULL);
        out_int(o, "port", "      port %s  ", pt->num);
        out_text(o, "%s", line);
        out_str(o, "state", NULL, pt->state_str);
        out_int_opt(o, "state_num", NULL, pt->state, pt->state >= 0);
        out_str(o, "phys_state", NULL, pt->phys_str);
        out_int_opt(o, "phys_state_num", NULL, pt->phys_state, pt->phys_state >= 0);
        out_double(o, "rate_gbps", NULL, 0, pt->rate_gbps, pt->rate_gbps >= 0);
        out_int_opt(o, "width", NULL, pt->width, pt->width > 0);
        out_str(o, "speed", NULL, pt->speed);
        out_str(o, "link_layer", NULL, ll);
        out_int_opt(o, "lid", NULL, pt->lid, pt->lid >= 0);
        out_str(o, "netdev", pt->netdev ? "  netdev %s" : NULL, pt->netdev);
        out_text(o, "\n");
        out_arr_open(o, "gids");
        for (size_t k = 0; k < pt->ngids; k++) {
            out_obj_open(o, NULL);
            out_int(o, "index", "        gid[%s]", pt->gid_index[k]);
            out_str(o, "gid", " %s", pt->gids[k]);
            out_str(o, "type", pt->gid_types[k] ? " %s" : NULL, pt->gid_types[k]);
            out_text(o, "\n");
            out_obj_close(o);
        }
        out_arr_close(o);
        out_obj_close(o);
    }
    out_arr_close(o);
}

static int nic_name_width(const struct topo_node *node, int min)
{
    int w = min;

    for (size_t i = 0; i < node->nnics; i++)
        if (node->nics[i].name && (int)strlen(node->nics[i].name) > w)
            w = (int)strlen(node->nics[i].name);
    return w;
}

static void print_nics(struct out *o, const struct topo_node *node)
{
    int nw = nic_name_width(node, 12);

    out_text(o, "\n");
    if (node->nnics == 0)
        out_text(o, "NICs: none%s%s\n", node->rdma_note ? ": " : "",
                 node->rdma_note ? node->rdma_note : "");
    else {
        out_text(o, "NICs (%zu)%s%s\n", node->nnics, node->rdma_note ? ": " : "",
                 node->rdma_note ? node->rdma_note : "");
        out_text(o, "  %-*s %-13s %-5s %-4s %-11s %-10s %-16s %-14s %s\n", nw, "NIC", "PCI", "NUMA",
                 "RDMA", "PCIE NOW", "PCIE MAX", "FIRMWARE", "BOARD", "NETDEV");
    }
    out_arr_open(o, "nics");
    for (size_t i = 0; i < node->nnics; i++) {
        const struct topo_nic *n = &node->nics[i];

        out_obj_open(o, NULL);
        out_text(o, "  %-*s", nw, n->name ? n->name : "n/a");
        out_str(o, "name", NULL, n->name);
        out_str(o, "pci", " %-13s", n->loc.busid[0] ? n->loc.busid : NULL);
        out_int_opt(o, "numa", " %-5s", n->loc.numa, n->loc.numa >= 0);
        out_text(o, " %-4s ", n->rdma ? "yes" : "no");
        print_link(o, &n->link);
        out_str(o, "fw_ver", " %-16s", n->fw_ver);
        out_str(o, "board_id", " %-14s", n->board_id);
        out_str(o, "netdev", " %s\n", n->netdev);
        out_bool(o, "rdma", NULL, n->rdma);
        out_str(o, "model", NULL, n->model);
        out_str(o, "hca_type", NULL, n->hca_type);
        out_str(o, "node_guid", NULL, n->node_guid);
        out_str(o, "node_desc", NULL, n->node_desc);
        print_ports(o, n);
        out_obj_close(o);
    }
    out_arr_close(o);
}

static void print_netdevs(struct out *o, const struct topo_node *node)
{
    if (node->nnetdevs) {
        out_text(o, "\nNetwork interfaces (%zu)\n", node->nnetdevs);
        out_text(o, "  %-16s %-8s %-11s %-10s %-6s %-13s %s\n", "NAME", "STATE", "KIND", "SPEED",
                 "MTU", "PCI", "RDMA");
    }
    out_arr_open(o, "netdevs");
    for (size_t i = 0; i < node->nnetdevs; i++) {
        const struct topo_netdev *d = &node->netdevs[i];
        out_obj_open(o, NULL);
        out_str(o, "name", "  %-16s", d->name);
        out_str(o, "operstate", " %-8s", d->operstate);
        out_str(o, "kind", " %-11s", d->kind);
        out_int_opt(o, "speed_mbps", " %-10s", d->speed_mbps, d->speed_mbps > 0);
        out_int_opt(o, "mtu", " %-6s", d->mtu, d->mtu > 0);
        out_str(o, "pci", " %-13s", d->busid[0] ? d->busid : NULL);
        out_str(o, "rdma_device", " %s\n", d->rdma_dev);
        out_str(o, "address", NULL, d->address);
        out_obj_close(o);
    }
    out_arr_close(o);
}

static void print_affinity(struct out *o, const struct topo_node *node)
{
    int legend, cw;

    out_obj_open(o, "affinity");
    out_arr_open(o, "nics");
    for (size_t n = 0; n < node->nnics; n++)
        out_str(o, NULL, NULL, node->nics[n].name);
    out_arr_close(o);
    /* NIC columns: the names when they fit and differ, else NIC0..NICn with a legend below the
     * matrix (as nvidia-smi topo -m): never two identical or cut labels */
    legend = nic_name_width(node, 8) > 12;
    for (size_t a = 0; a < node->nnics && !legend; a++)
        for (size_t b = a + 1; b < node->nnics && !legend; b++)
            legend = !node->nics[a].name || !node->nics[b].name ||
                     !strcmp(node->nics[a].name, node->nics[b].name);
    cw = legend ? 8 : nic_name_width(node, 8);
    if (node->ngpus && node->nnics) {
        out_text(o, "\nGPU x NIC affinity\n  %-6s", "");
        for (size_t n = 0; n < node->nnics; n++) {
            char label[32];
            snprintf(label, sizeof(label), "NIC%zu", n);
            out_text(o, " %-*s", cw, legend ? label : node->nics[n].name);
        }
        out_text(o, " %s\n", "NUMA");
    }
    out_arr_open(o, "gpu_nic");
    for (size_t g = 0; g < node->ngpus && node->nnics; g++) {
        out_text(o, "  GPU%-3zu", g);
        out_arr_open(o, NULL);
        for (size_t n = 0; n < node->nnics; n++) {
            const char *cls = topo_path_name(topo_node_gpu_nic_path(node, g, n));
            out_text(o, " %-*s", cw, cls);
            out_str(o, NULL, NULL, cls);
        }
        out_arr_close(o);
        /* the NUMA column repeats gpus[].numa: text only */
        if (node->gpus[g].loc.numa >= 0)
            out_text(o, " %d\n", node->gpus[g].loc.numa);
        else
            out_text(o, " n/a\n");
    }
    out_arr_close(o);
    if (node->ngpus > 1)
        out_text(o, "\nGPU x GPU\n  %-6s", "");
    for (size_t g = 0; g < node->ngpus && node->ngpus > 1; g++)
        out_text(o, " GPU%-4zu", g);
    if (node->ngpus > 1)
        out_text(o, "\n");
    out_arr_open(o, "gpu_gpu");
    for (size_t a = 0; a < node->ngpus && node->ngpus > 1; a++) {
        out_text(o, "  GPU%-3zu", a);
        out_arr_open(o, NULL);
        for (size_t b = 0; b < node->ngpus; b++) {
            int nv;
            enum topo_path p = topo_node_gpu_gpu_path(node, a, b, &nv);
            char cls[16];
            if (p == TOPO_PATH_NV)
                snprintf(cls, sizeof(cls), "NV%d", nv);
            else
                snprintf(cls, sizeof(cls), "%s", topo_path_name(p));
            out_str(o, NULL, " %-7s", cls);
        }
        out_arr_close(o);
        out_text(o, "\n");
    }
    out_arr_close(o);
    out_obj_close(o);
    if (node->ngpus && node->nnics)
        out_text(o, "\n  X self  NV# NVLink (# links)  PIX one PCIe switch  PXB several PCIe "
                    "switches\n  PHB a PCIe host bridge  NODE host bridges of one NUMA node  "
                    "SYS across NUMA nodes\n");
    if (legend && node->ngpus && node->nnics) {
        out_text(o, "\n  NIC legend:\n");
        for (size_t n = 0; n < node->nnics; n++)
            out_text(o, "    NIC%zu: %s%s\n", n, node->nics[n].name ? node->nics[n].name : "n/a",
                     node->nics[n].loc.busid[0] ? "" : " (no PCI device)");
    }
}

static void print_notes(struct out *o, const struct topo_node *node)
{
    out_arr_open(o, "notes");
    if (node->gpu_driver_note)
        out_str(o, NULL, NULL, node->gpu_driver_note);
    if (node->rdma_note)
        out_str(o, NULL, NULL, node->rdma_note);
    out_arr_close(o);
}

void cmd_inventory_print(struct out *o, const struct topo_node *node)
{
    print_node(o, node);
    print_gpus(o, node);
    print_nics(o, node);
    print_netdevs(o, node);
    print_affinity(o, node);
    print_notes(o, node);
}

static int run(int argc, char **argv)
{
    struct cmd_common common;
    struct topo_node *node;
    struct out *o;
    ry_error_t err = { "" };
    int idx, rc = RY_EXIT_ERROR;

    if ((idx = cmd_parse(&cmd_inventory, argc, argv, &common, NULL, NULL, NULL, NULL)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    if (idx < argc) {
        cmd_error("inventory: unexpected argument '%s'", argv[idx]);
        return RY_EXIT_ERROR;
    }
    if (!(o = out_create(stdout, common.json ? OUT_JSON : OUT_TEXT, &err))) {
        cmd_error("inventory: %s", err.text);
        return RY_EXIT_ERROR;
    }
    if (!(node = topo_discover(&common.inputs, &err))) {
        cmd_error("inventory: %s", err.text);
        cmd_json_error(o, INVENTORY_SCHEMA_VERSION, "inventory", NULL, err.text);
        out_destroy(o);
        return RY_EXIT_ERROR;
    }
    out_int(o, "schema_version", NULL, INVENTORY_SCHEMA_VERSION);
    out_str(o, "tool", NULL, "railyard");
    out_str(o, "command", NULL, "inventory");
    out_str(o, "version", NULL, PACKAGE_VERSION);
    out_str(o, "build", NULL, RY_FEATURES);
    cmd_inventory_print(o, node);
    if (out_finish(o, &err) < 0)
        cmd_error("inventory: %s", err.text);
    else
        rc = RY_EXIT_OK;
    out_destroy(o);
    topo_node_destroy(node);
    return rc;
}

const struct cmd_entry cmd_inventory = {
    .name = "inventory",
    .run = run,
    .usage = "inventory [--json] [<input options>]",
    .summary = "report the node's GPUs, RDMA NICs and ports, and the GPU x NIC affinity matrix",
};

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/hostlist.h"
#include "ib/ibfabric.h"
#include "probes/gdr_loop.h"
#include "probes/gpu.h"
#include "readers/discover.h"
#include "reports/out.h"
#include "src/cmd/cmd.h"
#include "topo/gpubw.h"
#include "topo/map.h"
#include "topo/pci.h"

struct map_opts {
    const char *output;
    const char *type;
    const char *nodes;
    const char *cluster;
    int probe;
};

static int on_opt(int opt, const char *arg, void *ctx)
{
    struct map_opts *m = ctx;

    switch (opt) {
    case 'o': m->output = arg; return 0;
    case 'T': m->type = arg; return 0;
    case 'N': m->nodes = arg; return 0;
    case 'C': m->cluster = arg; return 0;
    case 'P': m->probe = 1; return 0;
    }
    return -1;
}

static const struct option capture_opts[] = {
    { "output", required_argument, NULL, 'o' }, { "node-type", required_argument, NULL, 'T' },
    { "nodes", required_argument, NULL, 'N' },  { "cluster", required_argument, NULL, 'C' },
    { "probe", no_argument, NULL, 'P' },        { NULL, 0, NULL, 0 },
};

static int capture(int argc, char **argv)
{
    struct map_opts m = { .type = "golden" };
    struct cmd_common common;
    struct topo_node *node;
    struct map_thresholds th;
    ry_error_t err = { "" };
    char tmp[4200], warn[1024];
    FILE *fp = stdout;
    int idx, rc = RY_EXIT_ERROR;

    if ((idx = cmd_parse(&cmd_map, argc, argv, &common, capture_opts, "o:", on_opt, &m)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    if (idx < argc) {
        cmd_error("map capture: unexpected argument '%s'", argv[idx]);
        return RY_EXIT_ERROR;
    }
    if (m.nodes && ry_hostlist_validate(m.nodes, &err) < 0) {
        cmd_error("map capture: --nodes: %s", err.text);
        return RY_EXIT_ERROR;
    }
    if (!(node = topo_discover(&common.inputs, &err))) {
        cmd_error("map capture: %s", err.text);
        return RY_EXIT_ERROR;
    }
    for (size_t n = 0; n < node->nnics; n++) {
        const struct topo_nic *nic = &node->nics[n];
        /* only RDMA NICs become the map's: one that would be, but for its driver, is named */
        if (!nic->rdma && (nic->pci_vendor == TOPO_PCI_VENDOR_MELLANOX || nic->pci_class == 0x0207))
            fprintf(stderr,
                    "railyard: map capture: %s (%s) has no RDMA device (its driver not loaded?): "
                    "it is not in the map\n",
                    nic->name, nic->loc.busid[0] ? nic->loc.busid : "no PCI address");
        for (size_t p = 0; p < nic->nports && nic->rdma; p++)
            if (node->nics[n].ports[p].state >= 0 && node->nics[n].ports[p].state != 4)
                fprintf(stderr,
                        "railyard: map capture: %s:%d is not active on this node; the "
                        "map lists it under ignore\n",
                        node->nics[n].name, node->nics[n].ports[p].num);
    }
    if (m.probe) {
        struct gpu_probe_opts go = { 0 };
        if (topo_inputs_given(&common.inputs)) {
            cmd_error("map capture: --probe measures this machine's GPUs; it does not go with a "
                      "captured input (give the tools' saved output with --nvbandwidth, "
                      "--p2p-bandwidth or --bandwidth-test instead)");
            goto out;
        }
        if (gpu_probe_run(node, &go, NULL, 0, &err) < 0) {
            cmd_error("map capture: --probe: %s", err.text);
            goto out;
        }
        /* GPUDirect through each GPU's NIC, where there is one: else said, and left out */
        if (gdr_probe_run(node, 2.0, NULL, 0, &err) < 0)
            fprintf(stderr, "railyard: map capture: --probe: gdr not measured: %s\n", err.text);
    }
    /* what the golden node measured becomes the node type's floors and ceilings */
    topo_map_thresholds_unset(&th);
    if (topo_bw_golden(node, &th, warn, sizeof(warn)) > 0)
        fprintf(stderr,
                "railyard: map capture: this node's GPU figures are not uniform; a healthy node "
                "of this type may fail against them, or a slow one pass:\n%s\n",
                warn);
    /* written next to the target and renamed, so a failed capture leaves no half map */
    if (m.output) {
        snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", m.output, (long)getpid());
        if (!(fp = fopen(tmp, "w"))) {
            cmd_error("map capture: cannot write %s: %s", tmp, strerror(errno));
            goto out;
        }
    }
    if (topo_map_capture(node, m.type, m.nodes, m.cluster, &th, fp, &err) < 0) {
        cmd_error("map capture: %s", err.text);
        if (m.output) {
            fclose(fp);
            unlink(tmp);
        }
        goto out;
    }
    if (m.output) {
        if (fclose(fp) != 0 || rename(tmp, m.output) < 0) {
            cmd_error("map capture: cannot write %s: %s", m.output, strerror(errno));
            unlink(tmp);
            goto out;
        }
    } else if (fflush(stdout) != 0) {
        cmd_error("map capture: cannot write the map: %s", strerror(errno));
        goto out;
    }
    rc = RY_EXIT_OK;
out:
    topo_node_destroy(node);
    return rc;
}

/* The documents of map show --json and map validate --json (railyard-map(1)) */
#define MAP_SCHEMA_VERSION 1

static void print_head(struct out *o, const char *command, const struct topo_map *map)
{
    out_int(o, "schema_version", NULL, MAP_SCHEMA_VERSION);
    out_str(o, "tool", NULL, "railyard");
    out_str(o, "command", NULL, command);
    out_str(o, "version", NULL, PACKAGE_VERSION);
    out_str(o, "path", "%s:", map->path);
}

/* the ids of rails as a JSON array of numbers (nothing in text) */
static void print_rail_ids(struct out *o, const char *key, const int *ids, size_t n)
{
    out_arr_open(o, key);
    for (size_t i = 0; i < n; i++)
        out_int(o, NULL, NULL, ids[i]);
    out_arr_close(o);
}

static void print_map(struct out *o, const struct topo_map *map)
{
    static int ids[TOPO_MAP_RAILS];
    size_t nids = topo_map_rail_ids(map, NULL, ids, TOPO_MAP_RAILS);

    print_head(o, "map show", map);
    out_str(o, "cluster", " cluster %s", map->cluster);
    out_u64(o, NULL, ", %s node types", map->ntypes);
    out_u64(o, "rail_count", ", %s rails\n", nids);
    out_arr_open(o, "rails");
    for (size_t i = 0; i < nids; i++) {
        const struct map_rail *r = NULL;
        for (size_t k = 0; k < map->nrails && !r; k++)
            if (map->rails[k].id == ids[i])
                r = &map->rails[k];
        out_obj_open(o, NULL);
        out_int(o, "id", NULL, ids[i]);
        out_arr_open(o, "switches");
        for (size_t k = 0; r && k < r->nswitches; k++)
            out_str(o, NULL, NULL, r->switches[k]);
        out_arr_close(o);
        out_obj_close(o);
    }
    out_arr_close(o);
    out_arr_open(o, "node_types");
    for (size_t i = 0; i < map->ntypes; i++) {
        const struct map_node_type *t = &map->types[i];
        int tids[TOPO_MAP_RAILS];
        size_t ntids = topo_map_rail_ids(map, t, tids, TOPO_MAP_RAILS);
        out_obj_open(o, NULL);
        out_str(o, "name", "  type %s:", t->name);
        out_int_opt(o, "gpu_count", " %s GPUs", t->gpu_count, t->gpu_count >= 0);
        out_str(o, "gpu_model", " (%s)", t->gpu_model);
        out_u64(o, "nic_count", ", %s NIC ports", t->nnics);
        out_u64(o, "rail_count", NULL, ntids);
        print_rail_ids(o, "rails", tids, ntids);
        out_u64(o, "ignored", ", %s ignored\n", t->nignore);
        out_obj_close(o);
    }
    out_arr_close(o);
    out_arr_open(o, "nodes");
    for (size_t i = 0; i < map->nnodes; i++) {
        out_obj_open(o, NULL);
        out_str(o, "hosts", "  nodes %s", map->nodes[i].hostlist);
        out_u64(o, "count", " (%s)", ry_hostlist_count(map->nodes[i].hostlist));
        out_str(o, "type", " -> %s\n", map->nodes[i].type);
        out_obj_close(o);
    }
    out_arr_close(o);
    if (map->fabric.present) {
        const struct map_fabric *fb = &map->fabric;
        out_obj_open(o, "fabric");
        out_text(o, "  fabric:");
        out_str(o, "speed", fb->speed ? " speed %s" : NULL,
                fb->speed ? ibf_speed_name(fb->speed) : NULL);
        out_int_opt(o, "width", fb->width ? " width %sx" : NULL, fb->width, fb->width > 0);
        out_str(o, "expect", fb->expect ? " expect %s" : NULL, fb->expect);
        out_str(o, "node_name_map", fb->node_name_map ? " node names %s" : NULL, fb->node_name_map);
        out_double(o, "interval_s", fb->interval > 0 ? " interval %s s" : NULL, 1, fb->interval,
                   fb->interval > 0);
        out_u64(o, "counter_limits", " %s counter limits\n", fb->ncounters);
        out_obj_close(o);
    }
    if (map->watch.present) {
        const struct map_watch *w = &map->watch;
        out_obj_open(o, "watch");
        out_text(o, "  watch:");
        out_double(o, "interval_s", w->interval >= 0 ? " interval %s s" : NULL, 2, w->interval,
                   w->interval >= 0);
        out_int_opt(o, "flap_count", w->flap_count > 0 ? " flaps %s" : NULL, w->flap_count,
                    w->flap_count > 0);
        out_double(o, "flap_window_s", w->flap_window >= 0 ? " within %s s" : NULL, 0,
                   w->flap_window, w->flap_window >= 0);
        out_double(o, "grace_s", w->grace >= 0 ? " grace %s s" : NULL, 0, w->grace, w->grace >= 0);
        out_double(o, "down_after_s", w->down_after >= 0 ? " down after %s s" : NULL, 1,
                   w->down_after, w->down_after >= 0);
        out_double(o, "hold_s", w->hold >= 0 ? " hold %s s" : NULL, 0, w->hold, w->hold >= 0);
        out_u64(o, "counter_limits", ", %s counter limits\n", w->nlimits);
        out_obj_close(o);
    }
}

/* map validate --json: the document of a map that loads */
static void print_valid(struct out *o, const struct topo_map *map)
{
    size_t hosts = 0;
    for (size_t i = 0; i < map->nnodes; i++)
        hosts += ry_hostlist_count(map->nodes[i].hostlist);
    print_head(o, "map validate", map);
    out_str(o, "verdict", NULL, "ok");
    out_u64(o, "node_type_count", NULL, map->ntypes);
    out_u64(o, "rail_count", NULL, topo_map_rail_ids(map, NULL, NULL, 0));
    out_u64(o, "host_count", NULL, hosts);
}

static const char *const get_keys[] = { "rails", "rail-ids", "node-types", "cluster", "hosts" };
#define NGET (sizeof(get_keys) / sizeof(get_keys[0]))

static int print_host(const char *host, void *ctx)
{
    (void)ctx;
    return puts(host) == EOF ? -1 : 0;
}

/* map show --get KEY: plain values, one per line, for scripts */
static void print_get(const struct topo_map *map, const char *key)
{
    static int ids[TOPO_MAP_RAILS];
    size_t n = topo_map_rail_ids(map, NULL, ids, TOPO_MAP_RAILS);

    if (!strcmp(key, "rails"))
        printf("%zu\n", n);
    else if (!strcmp(key, "rail-ids"))
        for (size_t i = 0; i < n; i++)
            printf("%d\n", ids[i]);
    else if (!strcmp(key, "node-types"))
        for (size_t i = 0; i < map->ntypes; i++)
            puts(map->types[i].name);
    else if (!strcmp(key, "cluster")) {
        if (map->cluster)
            puts(map->cluster);
    } else
        for (size_t i = 0; i < map->nnodes; i++)
            ry_hostlist_expand(map->nodes[i].hostlist, print_host, NULL, NULL);
}

static int on_show_opt(int opt, const char *arg, void *ctx)
{
    const char **get = ctx;
    if (opt != 'G')
        return -1;
    for (size_t i = 0; i < NGET; i++)
        if (!strcmp(arg, get_keys[i])) {
            *get = get_keys[i];
            return 0;
        }
    cmd_error("map show: --get takes rails, rail-ids, node-types, cluster or hosts, not '%s'", arg);
    return -1;
}

static const struct option show_opts[] = {
    { "get", required_argument, NULL, 'G' },
    { NULL, 0, NULL, 0 },
};

static int validate_or_show(int argc, char **argv, int show)
{
    const char *command = show ? "map show" : "map validate", *get = NULL;
    struct cmd_common common;
    ry_error_t err = { "" };
    int idx, rc = RY_EXIT_OK;

    if ((idx = cmd_parse(&cmd_map, argc, argv, &common, show ? show_opts : NULL, NULL,
                         show ? on_show_opt : NULL, &get)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    if (get && common.json)
        return cmd_refuse(common.json, command, "--get prints plain values, not JSON: give one");
    if (idx >= argc)
        return cmd_refuse(common.json, command, "give the map file(s)");
    for (; idx < argc; idx++) {
        struct topo_map *map = topo_map_load(argv[idx], &err);
        struct out *o;
        if (!map) {
            rc = cmd_refuse(common.json, command, "%s", err.text);
            continue;
        }
        if (get) {
            print_get(map, get);
        } else if (!show && !common.json) {
            printf("%s: ok\n", argv[idx]);
        } else if ((o = out_create(stdout, common.json ? OUT_JSON : OUT_TEXT, &err))) {
            if (show)
                print_map(o, map);
            else
                print_valid(o, map);
            out_finish(o, &err);
            out_destroy(o);
        } else {
            cmd_error("%s: %s", command, err.text);
            rc = RY_EXIT_ERROR;
        }
        topo_map_destroy(map);
    }
    if (fflush(stdout) != 0) {
        cmd_error("%s: cannot write: %s", command, strerror(errno));
        rc = RY_EXIT_ERROR;
    }
    return rc;
}

static int run(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        printf("usage: railyard %s\n\n%s\n\n"
               "  capture [-o <file>] [--node-type <name>] [--nodes <hostlist>] "
               "[--cluster <name>] [--probe] [<input options>]\n"
               "                write a map from this (golden) node or a captured input\n"
               "  validate [--json] <file>...\n"
               "                check maps: exit 0, or 2 with file:line:col\n"
               "  show [--json | --get <key>] <file>...\n"
               "                summarise maps; --get prints one of rails (their number),\n"
               "                rail-ids, node-types, cluster, hosts: one value per line\n\n"
               "Options of capture:\n"
               "  -o, --output <file>      write the map there (atomically) instead of stdout\n"
               "  --node-type <name>       the node type's name (default golden)\n"
               "  --nodes <hostlist>       the nodes of that type (default: the host name)\n"
               "  --cluster <name>         the cluster name\n"
               "  --probe                  run the GPU probes (railyard-probe(1)) and record\n"
               "                           their figures as the node type's thresholds\n"
               "and the input options of railyard(1).\n",
               cmd_map.usage, cmd_map.summary);
        return argc < 2 ? RY_EXIT_ERROR : RY_EXIT_OK;
    }
    if (!strcmp(argv[1], "capture"))
        return capture(argc - 1, argv + 1);
    if (!strcmp(argv[1], "validate"))
        return validate_or_show(argc - 1, argv + 1, 0);
    if (!strcmp(argv[1], "show"))
        return validate_or_show(argc - 1, argv + 1, 1);
    cmd_error("map: unknown subcommand '%s' (capture, validate, show)", argv[1]);
    return RY_EXIT_ERROR;
}

const struct cmd_entry cmd_map = {
    .name = "map",
    .run = run,
    .usage = "map (capture | validate | show) [<options>]",
    .summary = "write, check and show expected topology maps",
};

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "probes/gdr_loop.h"
#include "probes/gpu.h"
#include "reports/findings.h"
#include "reports/out.h"
#include "src/cmd/cmd.h"
#include "topo/compare.h"
#include "topo/gpubw.h"
#include "topo/map.h"

/* Version of `railyard probe --json` (railyard-probe(1), JSON OUTPUT). */
#define PROBE_SCHEMA_VERSION 1

struct probe_opts {
    const char *map, *node, *type, *only, *pair;
    int quick, print_ptx, busy_ok;
};

static int on_opt(int opt, const char *arg, void *ctx)
{
    struct probe_opts *p = ctx;

    switch (opt) {
    case 'm': p->map = arg; return 0;
    case 'n': p->node = arg; return 0;
    case 'T': p->type = arg; return 0;
    case 'O': p->only = arg; return 0;
    case 'Q': p->quick = 1; return 0;
    case 'X': p->print_ptx = 1; return 0;
    case 'B': p->busy_ok = 1; return 0;
    case 'P': p->pair = arg; return 0;
    }
    return -1;
}

/* "pcie,p2p,mem" as GPU_PROBE_* bits: 0, or -1 naming the unknown word in err */
static int parse_only(const char *s, unsigned *bits, ry_error_t *err)
{
    char buf[128], *save = NULL;

    *bits = 0;
    snprintf(buf, sizeof(buf), "%s", s);
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        if (!strcmp(w, "pcie"))
            *bits |= GPU_PROBE_PCIE;
        else if (!strcmp(w, "p2p"))
            *bits |= GPU_PROBE_P2P;
        else if (!strcmp(w, "mem"))
            *bits |= GPU_PROBE_MEM;
        else if (!strcmp(w, "gdr"))
            *bits |= GPU_PROBE_GDR;
        else
            return ry_errorf(err, "unknown probe '%s' (pcie, p2p, mem, gdr)", w);
    }
    return *bits ? 0 : ry_errorf(err, "no probe named (pcie, p2p, mem, gdr)");
}

static int run(int argc, char **argv)
{
    static const struct option extra[] = {
        { "map", required_argument, NULL, 'm' },
        { "node", required_argument, NULL, 'n' },
        { "node-type", required_argument, NULL, 'T' },
        { "only", required_argument, NULL, 'O' },
        { "quick", no_argument, NULL, 'Q' },
        { "print-ptx", no_argument, NULL, 'X' },
        { "busy-ok", no_argument, NULL, 'B' },
        { "pair", required_argument, NULL, 'P' },
        { NULL, 0, NULL, 0 },
    };
    struct probe_opts p = { 0 };
    struct gpu_probe_opts go = { 0 };
    struct topo_findings f = { 0 };
    struct topo_node *node = NULL;
    struct topo_map *map = NULL;
    const struct map_node_type *type = NULL;
    struct cmd_common common;
    struct out *o = NULL;
    ry_error_t err = { "" };
    char notes[4096] = "", why[600], pair_a[64];
    const char *host;
    int idx, rc = RY_EXIT_ERROR, ngpus;
    size_t first;

    if ((idx = cmd_parse(&cmd_probe, argc, argv, &common, extra, "m:n:", on_opt, &p)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    if (idx < argc)
        return cmd_refuse(common.json, "probe", "unexpected argument '%s'", argv[idx]);
    if (p.print_ptx) {
        if (!probe_kernels_ptx[0])
            return cmd_refuse(common.json, "probe",
                              "this railyard was built without CUDA: no kernels");
        fputs(probe_kernels_ptx, stdout);
        return RY_EXIT_OK;
    }
    if (p.only && parse_only(p.only, &go.only, &err) < 0)
        return cmd_refuse(common.json, "probe", "--only: %s", err.text);
    go.busy_ok = p.busy_ok;
    if (p.pair) { /* two PCI addresses: only those GPUs */
        const char *comma = strchr(p.pair, ',');
        if (!comma || strchr(comma + 1, ',') || comma == p.pair || !comma[1] ||
            (size_t)(comma - p.pair) >= sizeof(pair_a))
            return cmd_refuse(common.json, "probe",
                              "--pair takes two GPUs' PCI addresses, A,B, not '%s'", p.pair);
        snprintf(pair_a, sizeof(pair_a), "%.*s", (int)(comma - p.pair), p.pair);
        go.pair[0] = pair_a;
        go.pair[1] = comma + 1;
    }
    if (p.quick) {
        go.copy_bytes = (size_t)64 << 20;
        go.samples = 5;
    }
    if (!(o = out_create(stdout, common.json ? OUT_JSON : OUT_TEXT, &err)))
        return cmd_refuse(common.json, "probe", "%s", err.text);
    if (p.map && !(map = topo_map_load(p.map, &err))) {
        snprintf(why, sizeof(why), "%s", err.text);
        goto cannot;
    }
    {
        struct topo_inputs none = { 0 };
        if (!(node = topo_discover(&none, &err))) {
            snprintf(why, sizeof(why), "%s", err.text);
            goto cannot;
        }
    }
    host = p.node ? p.node : node->hostname ? node->hostname : "node";
    if (map) {
        type = p.type ? topo_map_type_by_name(map, p.type) : topo_map_type_for_host(map, host);
        if (!type && map->ntypes == 1 && map->nnodes == 0)
            type = &map->types[0];
        if (!type) {
            snprintf(why, sizeof(why), "%s: no node type for '%s' (use --node or --node-type)",
                     p.map, host);
            goto cannot;
        }
    }
    first = node->nbw;
    if (!go.only)
        go.only = GPU_PROBE_ALL | GPU_PROBE_GDR;
    ngpus = (int)node->ngpus;
    if ((go.only & GPU_PROBE_ALL) &&
        (ngpus = gpu_probe_run(node, &go, notes, sizeof(notes), &err)) < 0) {
        snprintf(why, sizeof(why), "GPU probes: %s", err.text);
        goto cannot;
    }
    if (go.only & GPU_PROBE_GDR) {
        /* GPUDirect RDMA looped through each GPU's NIC: where there is none, a note, unless it
         * was the one probe asked for */
        char gnotes[1024];
        if (gdr_probe_run(node, p.quick ? 0.5 : 2.0, gnotes, sizeof(gnotes), &err) < 0) {
            if (go.only == GPU_PROBE_GDR) {
                snprintf(why, sizeof(why), "gdr: %.200s%s%.350s", err.text, gnotes[0] ? ": " : "",
                         gnotes);
                ry_trim(why);
                goto cannot;
            }
            ry_appendf(notes, sizeof(notes), "gdr: not measured: %s\n%s", err.text, gnotes);
        } else
            ry_appendf(notes, sizeof(notes), "%s", gnotes);
    }
    topo_bw_judge(node, host, type ? &type->thresholds : NULL, &f);
    topo_findings_override(&f, map, type);
    topo_findings_sort(&f);
    out_int(o, "schema_version", NULL, PROBE_SCHEMA_VERSION);
    out_str(o, "tool", NULL, "railyard");
    out_str(o, "version", NULL, PACKAGE_VERSION);
    out_str(o, "node", "railyard probe: %s", host);
    out_int(o, "gpus", ", %s GPU(s)", ngpus);
    out_str(o, "tier", ", %s\n", p.quick ? "quick" : "full");
    report_bw_measurements_of(o, node->bw + first, node->nbw - first, 1);
    out_str(o, "notes", NULL, notes[0] ? notes : NULL);
    if (notes[0])
        out_text(o, "%s", notes);
    report_findings(o, &f, common.verbose);
    out_str(o, "verdict", " -> %s\n", f.nfail ? "fail" : "pass");
    if (out_finish(o, &err) < 0) {
        cmd_error("probe: %s", err.text);
        goto out;
    }
    rc = f.nfail ? RY_EXIT_FAULT : RY_EXIT_OK;
    goto out;
cannot:
    /* the tool could not measure: never a fault of the node */
    cmd_error("probe: cannot judge: %s", why);
    if (out_is_json(o)) {
        out_int(o, "schema_version", NULL, PROBE_SCHEMA_VERSION);
        out_str(o, "node", NULL, p.node);
        out_str(o, "verdict", NULL, "cannot-judge");
        out_str(o, "cannot_judge", NULL, why);
        out_finish(o, &err);
    }
    rc = RY_EXIT_ERROR;
out:
    topo_findings_free(&f);
    topo_node_destroy(node);
    topo_map_destroy(map);
    out_destroy(o);
    return rc;
}

const struct cmd_entry cmd_probe = {
    .name = "probe",
    .run = run,
    .usage = "probe [--only pcie,p2p,mem,gdr] [--pair <a>,<b>] [--quick] [--map <file>] "
             "[--node <name>] [--busy-ok] [--json]",
    .summary = "measure this node's GPU data paths (PCIe, peer, memory) and judge them",
    .no_node_inputs = 1,
    .options = "  --only <list>        pcie, p2p, mem and/or gdr (default all)\n"
               "  --quick              64 MiB copies, 5 samples (check --tier quick's size)\n"
               "  -m, --map <file>     judge against the map's thresholds too\n"
               "  -n, --node <name>    the node's name in the map (default its host name)\n"
               "  --node-type <type>   use this node type of the map\n"
               "  --pair <a>,<b>       only the two GPUs at these PCI addresses\n"
               "  --busy-ok            measure GPUs other work uses (said so) instead of stopping\n"
               "  --print-ptx          print the embedded kernels (PTX) and exit\n",
};

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "probes/gdr.h"
#include "probes/gdr_loop.h"
#include "probes/gpu.h"
#include "reports/archive.h"
#include "reports/findings.h"
#include "reports/out.h"
#include "reports/watch_state.h"
#include "src/cmd/cmd.h"
#include "topo/compare.h"
#include "topo/map.h"

/* Version of `railyard check --json` (railyard-check(1), JSON OUTPUT). */
#define CHECK_SCHEMA_VERSION 1

struct check_opts {
    const char *map;
    const char *node;
    const char *type;
    const char *tier;
    double timeout;
    int list;
    int reason;
    int fabric;
    int gdr;
    struct fabric_opts fo;
    const char *archive; /* NULL: the default */
    int no_archive, keep;
    const char *prometheus, *junit;
    const char *watch_state; /* NULL: the default, when it exists and the node is live */
};

static int on_opt(int opt, const char *arg, void *ctx)
{
    struct check_opts *c = ctx;
    char *end;

    switch (opt) {
    case 'm': c->map = arg; return 0;
    case 'n': c->node = arg; return 0;
    case 'T': c->type = arg; return 0;
    case 'L': c->list = 1; return 0;
    case 'F': c->fabric = 1; return 0;
    case 'G': c->gdr = 1; return 0;
    case 'a': c->archive = arg; return 0;
    case 'N': c->no_archive = 1; return 0;
    case 'P': c->prometheus = arg; return 0;
    case 'U': c->junit = arg; return 0;
    case 'K':
        c->keep = (int)strtol(arg, &end, 10);
        if (end == arg || *end || c->keep < 1) {
            cmd_error("check: --keep takes a number of runs (>= 1), not '%s'", arg);
            return -1;
        }
        return 0;
    case 'I':
        c->fabric = 1;
        c->fo.ibnetdiscover = arg;
        return 0;
    case 'E':
        c->fabric = 1;
        c->fo.expect = arg;
        return 0;
    case 'R': c->reason = 1; return 0;
    case 'W': c->watch_state = arg; return 0;
    case 't':
        if (strcmp(arg, "inventory") && strcmp(arg, "quick")) {
            cmd_error("check: --tier must be inventory or quick, not '%s'", arg);
            return -1;
        }
        c->tier = arg;
        return 0;
    case 'D':
        c->timeout = strtod(arg, &end);
        if (end == arg || *end || c->timeout <= 0 || c->timeout > 86400) {
            cmd_error("check: --timeout takes seconds (0 < s <= 86400), not '%s'", arg);
            return -1;
        }
        return 0;
    }
    return -1;
}

/* One line for Slurm's node reason (at most 80 characters): the first failure, "+N" more. */
static void print_reason(const struct topo_findings *f, const char *host)
{
    char line[96];

    if (topo_findings_reason(f, host, 0, "railyard: ", line, sizeof(line)) == 0)
        printf("railyard: ok (%zu checks passed, %zu warnings)\n", f->nok, f->nwarn);
    else
        printf("%s\n", line);
}

static void archive_error(const char *host, const char *msg);

static int error_out(struct out *o, const char *host, const char *msg)
{
    cmd_error("check: %s", msg);
    archive_error(host, msg);
    cmd_json_error(o, CHECK_SCHEMA_VERSION, "check", host, msg);
    return RY_EXIT_ERROR;
}

static int fill_inventory(FILE *fp, void *arg, ry_error_t *err)
{
    const struct topo_node *node = arg;
    struct out *o = out_create(fp, OUT_JSON, err);
    int rc;

    if (!o)
        return -1;
    out_int(o, "schema_version", NULL, 1);
    out_str(o, "tool", NULL, "railyard");
    out_str(o, "command", NULL, "inventory");
    out_str(o, "version", NULL, PACKAGE_VERSION);
    cmd_inventory_print(o, node);
    rc = out_finish(o, err);
    out_destroy(o);
    return rc;
}

/* The run's archive, created when the check starts: until the end its report.json says the run
 * did not finish (a check stopped by its deadline or a signal leaves that, and a history row);
 * at the end report.json is the document printed, with a "run" object, beside the node's
 * inventory, the map, the command line and the renderings. A failure is reported and changes
 * nothing else: the verdict stands. */
static struct {
    struct ry_archive a;
    int on;
    char host[256];
} arun;

static void archive_begin(const struct check_opts *c, const char *root, const char *host, int argc,
                          char **argv)
{
    ry_error_t err;

    memset(&arun, 0, sizeof(arun));
    snprintf(arun.host, sizeof(arun.host), "%s", host);
    if (ry_archive_start(&arun.a, root, "check", host, argc, argv, c->map, CHECK_SCHEMA_VERSION,
                         host, &err) < 0) {
        cmd_error("check: archive: %s (the verdict stands)", err.text);
        return;
    }
    arun.on = 1;
}

/* the check could not judge: the archive says why */
static void archive_error(const char *host, const char *msg)
{
    ry_error_t err;

    if (arun.on &&
        ry_archive_fail(&arun.a, CHECK_SCHEMA_VERSION, host ? host : arun.host, msg, &err) < 0)
        cmd_error("check: archive %s: %s", arun.a.dir, err.text);
}

static void archive_run(struct out *o, const struct check_opts *c, const struct topo_node *node)
{
    ry_error_t err;

    if (!arun.on)
        return;
    /* the node's inventory first: the renderings of ry_archive_done read it */
    if (ry_archive_write(&arun.a, "inventory.json", fill_inventory, (void *)node, &err) < 0 ||
        ry_archive_done(&arun.a, o, c->keep, c->prometheus, c->junit, &err) < 0)
        cmd_error("check: archive %s: %s (the verdict stands)", arun.a.dir, err.text);
}

static int run(int argc, char **argv)
{
    static const struct option extra[] = {
        { "map", required_argument, NULL, 'm' },
        { "node", required_argument, NULL, 'n' },
        { "node-type", required_argument, NULL, 'T' },
        { "tier", required_argument, NULL, 't' },
        { "timeout", required_argument, NULL, 'D' },
        { "list-checks", no_argument, NULL, 'L' },
        { "reason", no_argument, NULL, 'R' },
        { "fabric", no_argument, NULL, 'F' },
        { "ibnetdiscover", required_argument, NULL, 'I' },
        { "expect-fabric", required_argument, NULL, 'E' },
        { "gdr", no_argument, NULL, 'G' },
        { "archive", required_argument, NULL, 'a' },
        { "no-archive", no_argument, NULL, 'N' },
        { "keep", required_argument, NULL, 'K' },
        { "prometheus", required_argument, NULL, 'P' },
        { "junit", required_argument, NULL, 'U' },
        { "watch-state", required_argument, NULL, 'W' },
        { NULL, 0, NULL, 0 },
    };
    struct check_opts c = { .tier = "inventory",
                            .timeout = 55,
                            .fo = { .interval = -1, .retries = -1 },
                            .keep = RY_ARCHIVE_KEEP };
    struct fabric_data fd;
    struct gdr_report gr;
    struct topo_findings f = { 0 };
    const struct map_node_type *type = NULL;
    struct topo_map *map = NULL;
    struct topo_node *node = NULL;
    struct cmd_common common;
    struct out *o = NULL;
    ry_error_t err = { "" };
    const char *host, *archive;
    char msg[700], probe_note[700] = "";
    int idx, rc = RY_EXIT_ERROR, unjudged, nothing, fabric_judged = 0;
    FILE *devnull = NULL;

    memset(&fd, 0, sizeof(fd));
    if ((idx = cmd_parse(&cmd_check, argc, argv, &common, extra, "m:n:t:", on_opt, &c)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    if (idx < argc) {
        cmd_error("check: unexpected argument '%s'", argv[idx]);
        return RY_EXIT_ERROR;
    }
    if (c.list) {
        for (size_t i = 0; topo_check_ids[i]; i++)
            printf("%s\n", topo_check_ids[i]);
        return RY_EXIT_OK;
    }
    archive = c.no_archive ? NULL : c.archive ? c.archive : ry_archive_default();
    if ((c.prometheus || c.junit) && !archive) {
        cmd_error("check: --prometheus and --junit are rendered from the run's archive: give "
                  "--archive <dir> (or set RAILYARD_ARCHIVE)");
        return RY_EXIT_ERROR;
    }
    cmd_arm_deadline("check", c.timeout);
    if (archive) {
        char self[256] = "node";
        if (!c.node && gethostname(self, sizeof(self) - 1) < 0)
            snprintf(self, sizeof(self), "node");
        archive_begin(&c, archive, c.node ? c.node : self, argc, argv);
    }

    if (!(o = out_create(stdout, common.json ? OUT_JSON : OUT_TEXT, &err)))
        return error_out(NULL, c.node, err.text);
    if (c.map && !(map = topo_map_load(c.map, &err))) {
        rc = error_out(o, c.node, err.text);
        goto out;
    }
    if (!(node = topo_discover(&common.inputs, &err))) {
        rc = error_out(o, c.node, err.text);
        goto out;
    }
    host = c.node ? c.node : node->hostname ? node->hostname : "node";
    if (map) {
        type = c.type ? topo_map_type_by_name(map, c.type) : topo_map_type_for_host(map, host);
        if (!type && !c.type && map->ntypes == 1 && map->nnodes == 0)
            type = &map->types[0];
        if (!type) {
            if (c.type)
                snprintf(msg, sizeof(msg), "%s: no node type '%s' in the map", c.map, c.type);
            else
                snprintf(msg, sizeof(msg),
                         "%s: node '%s' is in no host list of the map (use --node or "
                         "--node-type)",
                         c.map, host);
            rc = error_out(o, host, msg);
            goto out;
        }
    }
    if (!strcmp(c.tier, "quick")) {
        /* the GPU probes, sized for a prolog; a probe that cannot run is not judged, never a
         * fault (the live machine only: a capture has no GPU to run on) */
        struct gpu_probe_opts go = { .copy_bytes = (size_t)64 << 20, .samples = 5 };
        ry_error_t perr = { "" };
        if (node->ngpus == 0)
            ; /* nothing to probe, nothing left unjudged */
        else if (topo_inputs_given(&common.inputs))
            snprintf(probe_note, sizeof(probe_note),
                     "tier quick: the GPU probes run on the live machine, not on a capture");
        else if (gpu_probe_run(node, &go, NULL, 0, &perr) < 0)
            snprintf(probe_note, sizeof(probe_note), "tier quick: GPU probes not run: %s",
                     perr.text);
        /* with --gdr, GPUDirect RDMA looped through each GPU's NIC, half a second a loop */
        else if (c.gdr && gdr_probe_run(node, 0.5, NULL, 0, &perr) < 0)
            snprintf(probe_note, sizeof(probe_note), "tier quick: GPUDirect loop not run: %s",
                     perr.text);
    }
    topo_compare(node, host, map, type, &f);
    if (probe_note[0])
        topo_findings_unjudged(&f, "%s", probe_note);
    if (c.fabric) {
        struct ibf_expect e = { map, NULL, host, NULL, NULL, 0 };
        uint64_t *guids = xcalloc(node->nnics + 1, sizeof(*guids));
        const char **hcas = xcalloc(node->nnics + 1, sizeof(*hcas));
        int frc;
        /* this node's own HCAs are known by GUID: their NodeDescriptions may be unset */
        for (size_t i = 0; i < node->nnics; i++)
            if (node->nics[i].rdma && (guids[c.fo.nown] = ibf_guid_parse(node->nics[i].node_guid)))
                hcas[c.fo.nown++] = node->nics[i].name;
        c.fo.only_host = host;
        c.fo.own_guid = guids;
        c.fo.own_hca = hcas;
        e.own_guid = guids;
        e.own_hca = hcas;
        e.nown = c.fo.nown;
        frc = fabric_collect(&c.fo, map, &fd, &err);
        if (frc == 0) {
            e.ref = fd.have_ref ? &fd.ref : NULL;
            ibf_analyze(&fd.f, &e, &f, NULL);
            fabric_judged = 1; /* its checks add failures only: none is a judgment too */
        }
        free(guids);
        free(hcas);
        if (frc < 0) {
            snprintf(msg, sizeof(msg), "fabric: %s", err.text);
            rc = error_out(o, host, msg);
            goto out;
        }
    }
    if (c.gdr) {
        const struct topo_inputs *in = &common.inputs;
        int live = !topo_inputs_given(in);
        const char *proc = getenv("RAILYARD_PROC_ROOT");
        /* a capture: its own sysfs tree (module list, PCI config), /proc only when given, and
         * no probe of this machine's GPUs */
        gdr_check(node, host, in->sysfs_root, live ? NULL : proc, live, &gr, &f);
    }
    ry_watch_check(c.watch_state, !topo_inputs_given(&common.inputs), host, &f);
    topo_findings_override(&f, map, type);
    topo_findings_sort(&f);
    /* a check that judged nothing did not pass: a health check must not report health it did
     * not see (exit 2: never drain for it) */
    unjudged = !f.nfail && f.nok + f.nwarn == 0 && !fabric_judged;
    /* ... unless there is nothing to judge: no GPU and no RDMA device (a check that asked for
     * a measurement, --gdr or --fabric, still could not make it) */
    nothing = unjudged && !f.nunjudged && !c.gdr && !c.fabric && topo_node_nothing_to_judge(node);
    if (nothing)
        unjudged = 0;

    if (c.reason) {
        if (nothing)
            printf("railyard: ok (nothing to judge: no GPU and no RDMA device)\n");
        else if (unjudged && !f.nunjudged)
            printf("railyard: cannot judge (no check applied to this node)\n");
        else if (unjudged)
            printf("railyard: cannot judge (%zu part%s without a map entry or reference)\n",
                   f.nunjudged, f.nunjudged == 1 ? "" : "s");
        else
            print_reason(&f, host);
        fflush(stdout);
        rc = f.nfail ? RY_EXIT_FAULT : unjudged ? RY_EXIT_ERROR : RY_EXIT_OK;
        if (!archive)
            goto out;
        /* the archive still gets the whole document, printed nowhere else */
        out_destroy(o);
        o = NULL;
        if (!(devnull = fopen("/dev/null", "w")) || !(o = out_create(devnull, OUT_JSON, &err))) {
            cmd_error("check: archive: %s", o ? err.text : "cannot open /dev/null");
            goto out;
        }
    }
    if (archive && out_tee_json(o, &err) < 0) {
        cmd_error("check: archive: %s", err.text);
        archive = NULL;
    }
    out_int(o, "schema_version", NULL, CHECK_SCHEMA_VERSION);
    out_str(o, "tool", NULL, "railyard");
    out_str(o, "version", NULL, PACKAGE_VERSION);
    out_str(o, "node", "railyard check: %s", host);
    out_str(o, "node_type", " (type %s", type ? type->name : "none: built-in references");
    out_str(o, "map", ", map %s", c.map);
    out_str(o, "tier", ", tier %s)\n", c.tier);
    if (c.fabric)
        out_str(o, "fabric", "  fabric   %s\n", fd.f.source);
    out_str(o, "sources", "  sources  %s\n", node->sources);
    if (c.gdr) {
        out_obj_open(o, "gdr");
        out_int(o, "gpus", "  gdr      %s NVIDIA GPU(s)", gr.gpus);
        out_int(o, "rdma_devices", ", %s RDMA device(s)", gr.nics);
        out_str(o, "driver", NULL, gr.driver[0] ? gr.driver : NULL);
        out_text(o, "; driver %s",
                 gr.driver[0]       ? gr.driver
                 : gr.modules_known ? "not loaded"
                                    : "n/a (the input lists no kernel modules)");
        if (gr.modules_known)
            out_bool(o, "peermem", "; nvidia-peermem %s", gr.peermem);
        else
            out_str(o, "peermem", NULL, NULL);
        out_str(o, "kernel", "; kernel %s", gr.kernel[0] ? gr.kernel : NULL);
        out_int_opt(o, "kernel_dmabuf", NULL, gr.kernel_dmabuf, gr.kernel_dmabuf >= 0);
        if (gr.verbs_dmabuf >= 0)
            out_bool(o, "verbs_dmabuf", NULL, gr.verbs_dmabuf);
        else
            out_str(o, "verbs_dmabuf", NULL, NULL);
        out_text(o, "\n");
        out_str(o, "probe", NULL, gr.probe[0] ? gr.probe : NULL);
        if (gr.probe[0])
            out_text(o, "  gdr      probe: %s\n", gr.probe);
        out_bool(o, "probe_ran", NULL, gr.probe_ran);
        out_str(o, "not_judged", NULL, gr.not_judged[0] ? gr.not_judged : NULL);
        if (gr.not_judged[0])
            out_text(o, "  gdr      %s\n", gr.not_judged);
        out_obj_close(o);
    }
    /* the figures judged: in JSON (and the archive) always, in text with -v */
    report_bw_captures(o, node, common.verbose > 0);
    report_pcie_tree(o, node);
    if (nothing)
        out_str(o, "nothing_to_judge", "  %s\n",
                "nothing to judge: no GPU and no RDMA device on this node");
    report_findings(o, &f, common.verbose);
    out_str(o, "verdict", " -> %s\n", f.nfail ? "fail" : unjudged ? "cannot-judge" : "pass");
    if (unjudged) {
        const char *why = f.nunjudged ? "no part of the input has a map entry or a built-in "
                                        "reference (see not judged above)"
                                      : "the input gives no value a map or reference covers";
        out_str(o, "cannot_judge", "  cannot judge: %s\n", why);
    }
    if (archive)
        archive_run(o, &c, node);
    if (out_finish(o, &err) < 0) {
        cmd_error("check: %s", err.text);
        rc = RY_EXIT_ERROR;
        goto out;
    }
    rc = f.nfail ? RY_EXIT_FAULT : unjudged ? RY_EXIT_ERROR : RY_EXIT_OK;
out:
    alarm(0);
    if (devnull)
        fclose(devnull);
    if (c.fabric)
        fabric_data_free(&fd);
    topo_findings_free(&f);
    topo_node_destroy(node);
    topo_map_destroy(map);
    out_destroy(o);
    return rc;
}

const struct cmd_entry cmd_check = {
    .name = "check",
    .run = run,
    .usage = "check [--map <file>] [--node <name>] [--node-type <type>] "
             "[--tier (inventory | quick)] [--timeout <seconds>] [--fabric] [--gdr] "
             "[--watch-state <file>] [--json] "
             "[<input options>]",
    .summary = "compare the node with its expected topology map (or built-in references)",
    .options = "  -m, --map <file>     the expected topology map (default: built-in references)\n"
               "  -n, --node <name>    the node's name in the map (default: its host name)\n"
               "  --node-type <type>   check against this node type of the map\n"
               "  -t, --tier <tier>    inventory (no traffic, default) or quick\n"
               "  --timeout <seconds>  give up (exit 2) after this long (default 55)\n"
               "  --list-checks        print the check ids and exit\n"
               "  --reason             print one line (<= 80 characters) for a node reason\n"
               "  --fabric             also check this node's InfiniBand cables and ports, read\n"
               "                       live from the fabric (see railyard fabric)\n"
               "  --ibnetdiscover <file>  ... read from saved ibnetdiscover output instead\n"
               "  --expect-fabric <file>  a reference ibnetdiscover dump of the fabric as built\n"
               "  --gdr                also judge GPUDirect RDMA readiness (peer memory or\n"
               "                       dma-buf, PCIe ACS, GPU-NIC path) and probe the GPU\n"
               "  --archive <dir>      keep the run there (default $RAILYARD_ARCHIVE, else\n"
               "                       /var/lib/railyard as root); see railyard-report(5)\n"
               "  --no-archive         keep nothing\n"
               "  --keep <n>           runs the archive keeps (default 1000)\n"
               "  --prometheus <file>  write the run's metrics there (node_exporter textfile)\n"
               "  --junit <file>       write the run as JUnit XML there\n"
               "  --watch-state <file> judge what railyard watch saw (default, on the live\n"
               "                       node: the archive's watch/state.json when it exists;\n"
               "                       none: not read)\n",
};

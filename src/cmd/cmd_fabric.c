#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "ib/ibcheck.h"
#include "ib/ibfabric.h"
#include "reports/archive.h"
#include "reports/findings.h"
#include "reports/out.h"
#include "src/cmd/cmd.h"
#include "topo/compare.h"
#include "topo/map.h"

/* railyard fabric: read the InfiniBand fabric (live through libibnetdisc, or an ibnetdiscover
 * dump), sample the PMA counters twice, and judge it against the map and a reference dump. */

#define FABRIC_SCHEMA_VERSION 1

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static void name_fabric(const struct fabric_opts *o, struct fabric_data *d)
{
    ibf_name_nodes(&d->f, &d->names);
    for (size_t i = 0; o->only_host && i < o->nown; i++)
        ibf_name_hca(&d->f, o->own_guid[i], o->only_host, o->own_hca[i]);
}

int fabric_collect(const struct fabric_opts *o, const struct topo_map *map, struct fabric_data *d,
                   ry_error_t *err)
{
    const char *names = o->node_name_map ? o->node_name_map
                        : map            ? map->fabric.node_name_map
                                         : NULL;
    const char *expect = o->expect ? o->expect : map ? map->fabric.expect : NULL;
    double interval = o->interval >= 0                  ? o->interval
                      : map && map->fabric.interval > 0 ? map->fabric.interval
                                                        : 1.0;
    struct ibf_live_opts lo = { .ca = o->ca,
                                .port = o->port,
                                .timeout_ms = o->mad_timeout_ms,
                                .retries = o->retries,
                                .only_host = o->only_host };

    memset(d, 0, sizeof(*d));
    if (names && ibf_namemap_load(&d->names, names, err) < 0)
        return -1;
    if (expect) {
        if (ibf_parse_ibnetdiscover(&d->ref, expect, err) < 0)
            return ry_error_prefix(err, "reference fabric");
        ibf_name_nodes(&d->ref, &d->names);
        d->have_ref = 1;
    }
    if (o->ibnetdiscover) {
        if (ibf_parse_ibnetdiscover(&d->f, o->ibnetdiscover, err) < 0)
            return -1;
    } else {
        if (ibf_discover(&d->f, &lo, err) < 0)
            return -1;
        if (o->only_host) /* counters: only the host's cables, so the names are needed first */
            name_fabric(o, d);
        if (!o->no_counters) {
            if (ibf_sample_counters(&d->f, &lo, 0, err) < 0)
                return -1;
            if (o->progress)
                fprintf(stderr,
                        "railyard: fabric: first counter sample taken; the second in %g s\n",
                        interval);
            sleep_s(interval);
            if (ibf_sample_counters(&d->f, &lo, 1, err) < 0)
                return -1;
            d->f.interval = interval;
        }
    }
    name_fabric(o, d);
    return 0;
}

void fabric_data_free(struct fabric_data *d)
{
    ibf_fabric_free(&d->f);
    ibf_fabric_free(&d->ref);
    ibf_namemap_free(&d->names);
    ibf_notes_free(&d->notes);
}

static double rate_gbps(const struct ibf_port *q, int ctr)
{
    double dt = q->s[1].t - q->s[0].t;

    if (!q->s[0].valid || !q->s[1].valid || dt <= 0 || q->s[1].v[ctr] < q->s[0].v[ctr])
        return -1;
    return (double)(q->s[1].v[ctr] - q->s[0].v[ctr]) * 4 * 8 / dt / 1e9;
}

static void print_port_end(struct out *o, const struct ibf_fabric *f, int n, int p)
{
    const struct ibf_port *q = &f->nodes[n].ports[p];

    out_obj_open(o, NULL);
    out_str(o, "node", NULL, f->nodes[n].name);
    out_int(o, "port", NULL, p);
    out_str(o, "guid", NULL, f->nodes[n].id);
    out_int_opt(o, "lid", NULL, q->lid, q->lid > 0);
    if (f->nsamples) {
        const struct ibf_sample *s = q->s[1].valid ? &q->s[1] : &q->s[0];
        out_obj_open(o, "counters");
        if (s->valid)
            for (int k = 0; k < IBF_NCTR; k++)
                out_u64(o, ibf_ctr_name((enum ibf_ctr)k), NULL, s->v[k]);
        out_obj_close(o);
        out_bool(o, "extended", NULL, s->extended);
        out_double(o, "tx_gbps", NULL, 3, rate_gbps(q, IBF_XMIT_DATA),
                   rate_gbps(q, IBF_XMIT_DATA) >= 0);
        out_double(o, "rx_gbps", NULL, 3, rate_gbps(q, IBF_RCV_DATA),
                   rate_gbps(q, IBF_RCV_DATA) >= 0);
        out_str(o, "error", NULL, q->error);
    }
    out_obj_close(o);
}

static void print_links(struct out *o, const struct ibf_fabric *f)
{
    char a[200], b[200], ws[32];

    out_arr_open(o, "links");
    for (size_t i = 0; i < f->n; i++)
        for (int p = 1; p <= f->nodes[i].nports; p++) {
            const struct ibf_port *q = &f->nodes[i].ports[p];
            int r = q->remote, rp = q->remote_port;
            if (r < 0 || (size_t)r < i || ((size_t)r == i && rp < p))
                continue;
            out_obj_open(o, NULL);
            out_text(o, "  ");
            out_str(o, NULL, "%-24s", ibf_port_label(f, (int)i, p, a, sizeof(a)));
            out_str(o, NULL, " <-> %-24s", ibf_port_label(f, r, rp, b, sizeof(b)));
            out_arr_open(o, "ends");
            print_port_end(o, f, (int)i, p);
            print_port_end(o, f, r, rp);
            out_arr_close(o);
            snprintf(ws, sizeof(ws), "%dx%s", q->width, ibf_speed_name(q->speed));
            out_int_opt(o, "width", NULL, q->width, q->width > 0);
            out_str(o, "speed", NULL, q->speed ? ibf_speed_name(q->speed) : NULL);
            out_str(o, NULL, " %-8s", q->width ? ws : "n/a");
            out_str(o, "state", " %s", q->state ? ibf_state_name(q->state) : NULL);
            out_str(o, "phys_state", "/%s", q->phys ? ibf_phys_name(q->phys) : NULL);
            if (f->nsamples > 1) {
                double tx = rate_gbps(q, IBF_XMIT_DATA), rx = rate_gbps(q, IBF_RCV_DATA);
                out_double(o, NULL, "  tx %s", 2, tx, tx >= 0);
                out_double(o, NULL, " rx %s Gb/s", 2, rx, rx >= 0);
            }
            out_text(o, "\n");
            out_obj_close(o);
        }
    out_arr_close(o);
}

static void print_nodes(struct out *o, const struct ibf_fabric *f, const int *rail)
{
    static const char *const types[] = { "?", "hca", "switch", "router" };

    out_arr_open(o, "nodes");
    for (size_t i = 0; i < f->n; i++) {
        const struct ibf_node *n = &f->nodes[i];
        out_obj_open(o, NULL);
        out_str(o, "name", NULL, n->name);
        out_str(o, "type", NULL, types[n->type <= 3 ? n->type : 0]);
        out_str(o, "id", NULL, n->id);
        out_str(o, "node_description", NULL, n->desc);
        out_str(o, "host", NULL, n->host);
        out_str(o, "hca", NULL, n->hca);
        out_int(o, "ports", NULL, n->nports);
        out_int_opt(o, "lid", NULL, n->lid, n->type == IBF_SWITCH && n->lid > 0);
        out_int_opt(o, "rail", NULL, rail[i], rail[i] >= 0);
        out_obj_close(o);
    }
    out_arr_close(o);
}

/* Every HCA port cabled to a switch, with the rail the map gives it and the leaf it reaches
 * (the rail diagram of report.html is drawn from this). */
static void print_cabling(struct out *o, const struct ibf_fabric *f, const struct topo_map *map,
                          const int *rail)
{
    char subj[200];

    out_arr_open(o, "cabling");
    for (size_t i = 0; i < f->n; i++) {
        const struct ibf_node *n = &f->nodes[i];
        int rp = n->type == IBF_CA ? ibf_hca_rail_port(f, map, (int)i) : 0;
        if (n->type != IBF_CA)
            continue;
        for (int p = 1; p <= n->nports; p++) {
            int s = n->ports[p].remote;
            if (s < 0 || f->nodes[s].type != IBF_SWITCH)
                continue;
            out_obj_open(o, NULL);
            out_str(o, "subject", NULL, ibf_port_label(f, (int)i, p, subj, sizeof(subj)));
            out_str(o, "host", NULL, n->host);
            out_str(o, "hca", NULL, n->hca);
            out_int(o, "port", NULL, p);
            out_int_opt(o, "rail", NULL, rail[i], p == rp && rail[i] >= 0);
            out_str(o, "leaf", NULL, f->nodes[s].name ? f->nodes[s].name : f->nodes[s].id);
            out_int(o, "leaf_port", NULL, n->ports[p].remote_port);
            out_int_opt(o, "leaf_rail", NULL, rail[s], rail[s] >= 0);
            out_obj_close(o);
        }
    }
    out_arr_close(o);
}

static void count_fabric(const struct ibf_fabric *f, size_t *sw, size_t *ca, size_t *cables)
{
    *sw = *ca = *cables = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (f->nodes[i].type == IBF_SWITCH)
            (*sw)++;
        else
            (*ca)++;
        for (int p = 1; p <= f->nodes[i].nports; p++) {
            const struct ibf_port *q = &f->nodes[i].ports[p];
            if (q->remote >= 0 &&
                ((size_t)q->remote > i || ((size_t)q->remote == i && q->remote_port > p)))
                (*cables)++;
        }
    }
}

enum { OPT_ARCHIVE = 300, OPT_NO_ARCHIVE, OPT_KEEP, OPT_PROMETHEUS, OPT_JUNIT };

struct fabric_cli {
    struct fabric_opts fo;
    const char *map;
    double timeout;
    int links;
    const char *archive, *prometheus, *junit; /* railyard-report(5) */
    int no_archive, keep;
};

static int on_opt(int opt, const char *arg, void *ctx)
{
    struct fabric_cli *c = ctx;
    char *end;
    double v;

    switch (opt) {
    case 'm': c->map = arg; return 0;
    case 'I': c->fo.ibnetdiscover = arg; return 0;
    case 'E': c->fo.expect = arg; return 0;
    case 'N': c->fo.node_name_map = arg; return 0;
    case 'C': c->fo.ca = arg; return 0;
    case 'x': c->fo.no_counters = 1; return 0;
    case 'l': c->links = 1; return 0;
    case OPT_ARCHIVE: c->archive = arg; return 0;
    case OPT_NO_ARCHIVE: c->no_archive = 1; return 0;
    case OPT_PROMETHEUS: c->prometheus = arg; return 0;
    case OPT_JUNIT: c->junit = arg; return 0;
    case OPT_KEEP:
        c->keep = (int)strtol(arg, &end, 10);
        if (end == arg || *end || c->keep < 1) {
            cmd_error("fabric: --keep takes a number of runs (>= 1), not '%s'", arg);
            return -1;
        }
        return 0;
    case 'P':
    case 'i':
    case 'D':
    case 'M':
        v = strtod(arg, &end);
        if (end == arg || *end || v < 0 || v > 86400 || (opt != 'i' && v == 0)) {
            cmd_error("fabric: -%c takes a positive number, not '%s'", opt == 'P' ? 'P' : opt, arg);
            return -1;
        }
        if (opt == 'P')
            c->fo.port = (int)v;
        else if (opt == 'i')
            c->fo.interval = v;
        else if (opt == 'D')
            c->timeout = v;
        else
            c->fo.mad_timeout_ms = (int)v;
        return 0;
    }
    return -1;
}

/* The run's archive (railyard-report(5)): created when the command starts, with a report that
 * says it did not finish until the end; an archive failure is reported and changes nothing. */
static struct ry_archive arun;
static int arun_on;

static void archive_begin(const char *root, const struct fabric_cli *c, int argc, char **argv)
{
    char self[256] = "fabric";
    ry_error_t err;

    if (gethostname(self, sizeof(self) - 1) < 0)
        snprintf(self, sizeof(self), "fabric");
    if (ry_archive_start(&arun, root, "ib", self, argc, argv, c->map, FABRIC_SCHEMA_VERSION, NULL,
                         &err) < 0) {
        cmd_error("fabric: archive: %s (the verdict stands)", err.text);
        return;
    }
    arun_on = 1;
}

static int fail(struct out *o, const char *msg)
{
    ry_error_t err;

    cmd_error("fabric: %s", msg);
    cmd_json_error(o, FABRIC_SCHEMA_VERSION, "fabric", NULL, msg);
    if (arun_on && ry_archive_fail(&arun, FABRIC_SCHEMA_VERSION, NULL, msg, &err) < 0)
        cmd_error("fabric: archive %s: %s", arun.dir, err.text);
    return RY_EXIT_ERROR;
}

static void archive_end(struct out *o, const struct fabric_cli *c)
{
    ry_error_t err;

    if (arun_on && ry_archive_done(&arun, o, c->keep, c->prometheus, c->junit, &err) < 0)
        cmd_error("fabric: archive %s: %s (the verdict stands)", arun.dir, err.text);
}

static int run(int argc, char **argv)
{
    static const struct option extra[] = {
        { "map", required_argument, NULL, 'm' },
        { "ibnetdiscover", required_argument, NULL, 'I' },
        { "expect-fabric", required_argument, NULL, 'E' },
        { "node-name-map", required_argument, NULL, 'N' },
        { "ca", required_argument, NULL, 'C' },
        { "port", required_argument, NULL, 'P' },
        { "interval", required_argument, NULL, 'i' },
        { "no-counters", no_argument, NULL, 'x' },
        { "mad-timeout", required_argument, NULL, 'M' },
        { "timeout", required_argument, NULL, 'D' },
        { "links", no_argument, NULL, 'l' },
        { "archive", required_argument, NULL, OPT_ARCHIVE },
        { "no-archive", no_argument, NULL, OPT_NO_ARCHIVE },
        { "keep", required_argument, NULL, OPT_KEEP },
        { "prometheus", required_argument, NULL, OPT_PROMETHEUS },
        { "junit", required_argument, NULL, OPT_JUNIT },
        { NULL, 0, NULL, 0 },
    };
    struct fabric_cli c = { .fo = { .interval = -1, .retries = -1 },
                            .timeout = 300,
                            .keep = RY_ARCHIVE_KEEP };
    const char *archive;
    int *rail = NULL;
    struct cmd_common common;
    struct topo_map *map = NULL;
    struct topo_findings fnd = { 0 };
    struct fabric_data d;
    struct out *o = NULL;
    ry_error_t err = { "" };
    size_t sw, ca, cables;
    int unjudged;
    int idx, rc = RY_EXIT_ERROR;

    memset(&d, 0, sizeof(d));
    if ((idx = cmd_parse(&cmd_fabric, argc, argv, &common, extra, "m:C:P:i:l", on_opt, &c)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    if (idx < argc) {
        cmd_error("fabric: unexpected argument '%s'", argv[idx]);
        return RY_EXIT_ERROR;
    }
    archive = c.no_archive ? NULL : c.archive ? c.archive : ry_archive_default();
    if ((c.prometheus || c.junit) && !archive) {
        cmd_error("fabric: --prometheus and --junit are rendered from the run's archive: give "
                  "--archive <dir> (or set RAILYARD_ARCHIVE)");
        return RY_EXIT_ERROR;
    }
    c.fo.progress = common.verbose > 0;
    cmd_arm_deadline("fabric", c.timeout);
    if (archive)
        archive_begin(archive, &c, argc, argv);
    if (!(o = out_create(stdout, common.json ? OUT_JSON : OUT_TEXT, &err)))
        return fail(NULL, err.text);
    if (arun_on && out_tee_json(o, &err) < 0) {
        cmd_error("fabric: archive: %s", err.text);
        arun_on = 0;
    }
    if (c.map && !(map = topo_map_load(c.map, &err))) {
        fail(o, err.text);
        goto out;
    }
    if (fabric_collect(&c.fo, map, &d, &err) < 0) {
        fail(o, err.text);
        goto out;
    }
    alarm(0);
    rail = xcalloc(d.f.n ? d.f.n : 1, sizeof(*rail));
    ibf_rails(&d.f, map, rail);
    {
        struct ibf_expect e = { map, d.have_ref ? &d.ref : NULL, NULL, NULL, NULL, 0 };
        ibf_analyze(&d.f, &e, &fnd, &d.notes);
    }
    topo_findings_sort(&fnd);
    count_fabric(&d.f, &sw, &ca, &cables);
    out_int(o, "schema_version", NULL, FABRIC_SCHEMA_VERSION);
    out_str(o, "tool", NULL, "railyard");
    out_str(o, "version", NULL, PACKAGE_VERSION);
    out_str(o, "source", "railyard fabric: %s\n", d.f.source);
    out_str(o, "cluster", NULL, map ? map->cluster : NULL);
    out_int(o, "switches", "  %s switches", (long long)sw);
    out_int(o, "hcas", ", %s HCAs", (long long)ca);
    out_int(o, "cables", ", %s cables\n", (long long)cables);
    if (c.map)
        out_str(o, "map", "  map %s\n", c.map);
    if (d.have_ref) {
        size_t rsw, rca, rcab;
        count_fabric(&d.ref, &rsw, &rca, &rcab);
        out_obj_open(o, "reference");
        out_str(o, "source", "  reference %s", d.ref.source);
        out_int(o, "switches", " (%s switches", (long long)rsw);
        out_int(o, "hcas", ", %s HCAs", (long long)rca);
        out_int(o, "cables", ", %s cables)\n", (long long)rcab);
        out_obj_close(o);
    }
    out_obj_open(o, "counters");
    out_int(o, "samples", d.f.nsamples ? "  counters: %s samples" : NULL, d.f.nsamples);
    out_double(o, "interval_s", d.f.nsamples > 1 ? " %s s apart" : NULL, 1, d.f.interval,
               d.f.nsamples > 1);
    if (d.f.nsamples)
        out_text(o, "\n");
    out_obj_close(o);
    out_arr_open(o, "notes");
    for (size_t i = 0; i < d.notes.n; i++)
        out_str(o, NULL, "  note: %s\n", d.notes.v[i]);
    out_arr_close(o);
    if (out_has_json(o)) { /* the JSON document only; the links in text with --links */
        int was = out_mute_text(o, 1);
        print_nodes(o, &d.f, rail);
        print_cabling(o, &d.f, map, rail);
        out_mute_text(o, !c.links);
        print_links(o, &d.f);
        out_mute_text(o, was);
    } else if (c.links)
        print_links(o, &d.f);
    report_findings(o, &fnd, common.verbose);
    /* a fabric without a single cable (a lone HCA that reached nothing) did not pass */
    unjudged = !fnd.nfail && cables == 0;
    out_str(o, "verdict", " -> %s\n", fnd.nfail ? "fail" : unjudged ? "cannot-judge" : "pass");
    if (unjudged)
        out_str(o, "cannot_judge", "  cannot judge: %s\n",
                "the fabric shows no cable: the HCA reached nothing (its port down, or no "
                "subnet manager answering)");
    archive_end(o, &c);
    if (out_finish(o, &err) < 0) {
        cmd_error("fabric: %s", err.text);
        goto out;
    }
    rc = fnd.nfail ? RY_EXIT_FAULT : unjudged ? RY_EXIT_ERROR : RY_EXIT_OK;
out:
    alarm(0);
    free(rail);
    topo_findings_free(&fnd);
    fabric_data_free(&d);
    topo_map_destroy(map);
    out_destroy(o);
    return rc;
}

const struct cmd_entry cmd_fabric = {
    .name = "fabric",
    .run = run,
    .usage = "fabric [--map <file>] [--ibnetdiscover <file>] [--expect-fabric <file>] "
             "[--ca <hca>] [--port <n>] [--interval <seconds>] [--archive <dir>] [--json]",
    .summary = "read the InfiniBand fabric and check cabling, rails, links and port counters",
    .no_node_inputs = 1,
    .options = "  -m, --map <file>       the expected topology map (rails, fabric: section)\n"
               "  --ibnetdiscover <file> read the fabric from saved ibnetdiscover output\n"
               "  --expect-fabric <file> a reference ibnetdiscover dump of the fabric as built\n"
               "  --node-name-map <file> GUID to name map (ibnetdiscover --node-name-map form)\n"
               "  -C, --ca <hca>         discover from this local HCA (default: the first)\n"
               "  -P, --port <n>         ... and this port (default: the first active)\n"
               "  -i, --interval <s>     seconds between the two counter samples (default 1)\n"
               "  --no-counters          do not read the PMA port counters\n"
               "  --mad-timeout <ms>     timeout of each MAD (default 500)\n"
               "  --timeout <seconds>    give up (exit 2) after this long (default 300)\n"
               "  -l, --links            list every cable (text output)\n"
               "  --archive <dir>        keep the run there (default $RAILYARD_ARCHIVE, else\n"
               "                         /var/lib/railyard as root)\n"
               "  --no-archive           keep nothing\n"
               "  --keep <n>             runs the archive keeps (default 1000)\n"
               "  --prometheus <file>    write the run's metrics there (node_exporter textfile)\n"
               "  --junit <file>         write the run as JUnit XML there\n",
};

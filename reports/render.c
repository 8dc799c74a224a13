#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/file.h"
#include "common/select.h"
#include "common/xmalloc.h"
#include "reports/out.h"
#include "reports/out_json.h"
#include "reports/prom.h"
#include "reports/render.h"
#include "reports/render_json.h"

/* Every renderer reads the same parsed document. Strings that came from machines (host
 * names, NodeDescriptions, device names) are escaped for each output: by libxml2 in XML and
 * HTML, by the exposition-format rules in Prometheus labels, as \xHH on terminals. */

struct ry_report {
    json_t *root;
    char tool[16];               /* "check", "fabric", "ib" */
    struct ry_port_stats *ports; /* ry_report_port_stats, computed once */
    size_t nports;
    int ports_done;
    struct ry_report_links lv; /* a fabric report's links, from either encoding */
};

/* a name's index in lv->names, added when new (NULL: none) */
static uint32_t name_index(struct ry_report_links *lv, json_t *index, const char *name,
                           size_t *alloc)
{
    json_t *ix;

    if (!name)
        return RY_LINK_NONE;
    if ((ix = json_object_get(index, name)))
        return (uint32_t)json_integer_value(ix);
    xgrow(&lv->names, alloc, lv->nnames + 1, sizeof(*lv->names));
    lv->names[lv->nnames] = name;
    json_object_set_new(index, name, json_integer((json_int_t)lv->nnames));
    return (uint32_t)lv->nnames++;
}

static double jnum(json_t *o, const char *key)
{
    return num(o, key, NAN);
}

static long long jcount(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) >= 0 ? (long long)json_integer_value(v) : -1;
}

/* links and latency_links as objects (every report before link records, and small runs) */
static void inline_links(struct ry_report_links *lv, json_t *root, json_t *index, size_t *nalloc)
{
    size_t xalloc = 0;

    for (int lat = 0; lat < 2; lat++) {
        json_t *arr = json_object_get(root, lat ? "latency_links" : "links"), *o;
        size_t i, n = json_array_size(arr);
        struct ry_link *v = xcalloc(n ? n : 1, sizeof(*v));

        json_array_foreach(arr, i, o)
        {
            struct ry_link *l = &v[i];
            struct ry_link_extra x = { str(o, "error"), str(o, "counters_from"),
                                       str(o, "counters_to"), str(o, "mem_from"),
                                       str(o, "mem_to") };
            double cpu;
            l->from = name_index(lv, index, str(o, "from"), nalloc);
            l->to = name_index(lv, index, str(o, "to"), nalloc);
            l->round = (uint32_t)inum(o, "round", 0);
            l->rail = inum(o, "rail", -1);
            l->flags = (json_is_true(json_object_get(o, "ok")) ? RY_LINK_OK : 0) |
                       (lat ? RY_LINK_LATENCY : 0);
            l->bw_gbps = jnum(o, "bw_gbps");
            l->lat_p50_us = jnum(o, "lat_p50_us");
            l->lat_p99_us = jnum(o, "lat_p99_us");
            l->retrans = jcount(o, "retrans");
            l->errors_from = jcount(o, "errors_from");
            l->errors_to = jcount(o, "errors_to");
            l->cpu_from = isnan(cpu = jnum(o, "cpu_from")) ? -1 : cpu;
            l->wait_from = isnan(cpu = jnum(o, "wait_from")) ? -1 : cpu;
            l->cpu_to = isnan(cpu = jnum(o, "cpu_to")) ? -1 : cpu;
            l->wait_to = isnan(cpu = jnum(o, "wait_to")) ? -1 : cpu;
            l->pressure_from = isnan(cpu = jnum(o, "pressure_from")) ? -1 : cpu;
            l->pressure_to = isnan(cpu = jnum(o, "pressure_to")) ? -1 : cpu;
            l->ce_frac = isnan(cpu = jnum(o, "ecn_marked")) ? -1 : cpu;
            l->bytes = jcount(o, "bytes");
            l->wire_bytes = jcount(o, "wire_bytes");
            l->extra = RY_LINK_NONE;
            if (x.error || x.counters_from || x.counters_to || x.mem_from || x.mem_to) {
                xgrow(&lv->extra, &xalloc, lv->nextra + 1, sizeof(*lv->extra));
                lv->extra[lv->nextra] = x;
                l->extra = (uint32_t)lv->nextra++;
            }
        }
        if (lat) {
            lv->lat = v;
            lv->nlat = n;
        } else {
            lv->v = v;
            lv->n = n;
        }
    }
}

/* links_file: the records beside the report (dir: its folder, NULL when parsed from memory) */
static int file_links(struct ry_report_links *lv, json_t *root, const char *name, const char *dir,
                      ry_error_t *err)
{
    json_t *lf = json_object_get(root, "links_file"), *x, *records = json_object_get(lf, "records");
    const char *file = str(lf, "path"), *format = str(lf, "format");
    int rails = inum(root, "rails", 0);
    char path[4200];
    struct ry_link *all;
    size_t n, i;

    if (!file || !*file || strchr(file, '/') || !strcmp(file, ".") || !strcmp(file, "..") ||
        !format || strcmp(format, "railyard-links") || !json_is_integer(records) ||
        json_integer_value(records) < 0)
        return ry_errorf(err,
                         "%s: links_file is not a file name beside the report with format "
                         "\"railyard-links\" and a record count",
                         name);
    if (num(lf, "version", 0) < 1 || num(lf, "version", 0) > RY_LINKS_VERSION)
        return ry_errorf(err, "%s: links_file version %g; this railyard reads versions 1 to %d",
                         name, num(lf, "version", 0), RY_LINKS_VERSION);
    if (!dir)
        return ry_errorf(err, "%s: its links are in %s beside it, and it was not read from a file",
                         name, file);
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    n = (size_t)json_integer_value(records);
    if (ry_links_read(path, n, &all, err) < 0)
        return -1;
    lv->nextra = json_array_size(json_object_get(lf, "extras"));
    lv->extra = xcalloc(lv->nextra + 1, sizeof(*lv->extra));
    json_array_foreach(json_object_get(lf, "extras"), i, x) lv->extra[i] =
        (struct ry_link_extra){ str(x, "error"), str(x, "counters_from"), str(x, "counters_to"),
                                str(x, "mem_from"), str(x, "mem_to") };
    if (ry_links_check(path, all, n, lv->nnames, rails, lv->nextra, err) < 0) {
        free(all);
        return -1;
    }
    /* the sweep's links apart, each kind in the order of the file; the measured ones stay
     * where they were read (a copy of millions of links would double the memory) */
    for (i = 0; i < n; i++)
        lv->nlat += (all[i].flags & RY_LINK_LATENCY) != 0;
    lv->lat = xcalloc(lv->nlat + 1, sizeof(*lv->lat));
    lv->nlat = 0;
    for (i = 0; i < n; i++) {
        if (all[i].flags & RY_LINK_LATENCY)
            lv->lat[lv->nlat++] = all[i];
        else
            all[lv->n++] = all[i];
    }
    lv->v = all;
    return 0;
}

static int load_links(struct ry_report *r, const char *name, const char *dir, ry_error_t *err)
{
    struct ry_report_links *lv = &r->lv;
    json_t *index = json_object(), *v;
    size_t alloc = 0, i;
    int rc = 0;

    json_array_foreach(json_object_get(r->root, "node_names"), i, v)
    {
        /* listed nodes keep their place even when a name repeats or is not a string */
        xgrow(&lv->names, &alloc, lv->nnames + 1, sizeof(*lv->names));
        lv->names[lv->nnames] = json_string_value(v);
        if (json_is_string(v) && !json_object_get(index, json_string_value(v)))
            json_object_set_new(index, json_string_value(v), json_integer((json_int_t)i));
        lv->nnames++;
    }
    lv->nlisted = lv->nnames;
    if (json_object_get(r->root, "links_file"))
        rc = file_links(lv, r->root, name, dir, err);
    else
        inline_links(lv, r->root, index, &alloc);
    json_decref(index);
    return rc;
}

const struct ry_report_links *ry_report_links(const struct ry_report *r)
{
    return &r->lv;
}

/* take root (a reference is kept) as a report, or say why not; dir: the folder it was read
 * from (its link records are there), NULL when parsed from memory */
/* 1 when s holds what ry_inert would rewrite: a C0 control, DEL, or a C1 control in UTF-8
 * (jansson has made sure the rest is UTF-8) */
static int needs_inert(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
            return 1;
    return 0;
}

/* A report read from a file comes from anywhere (another machine, a ticket): every string in
 * it, keys too, is made inert once, so that no renderer (text, JSON, JUnit, Prometheus, HTML)
 * passes on a control character */
static void inert_tree(json_t *v)
{
    if (json_is_string(v) && needs_inert(json_string_value(v))) {
        char *t = ry_inert_dup(json_string_value(v));
        json_string_set(v, t);
        free(t);
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            inert_tree(json_array_get(v, i));
    } else if (json_is_object(v)) {
        const char *key;
        json_t *val;
        char **bad = NULL;
        size_t nbad = 0;
        json_object_foreach(v, key, val)
        {
            inert_tree(val);
            if (needs_inert(key)) {
                bad = xrealloc(bad, (nbad + 1) * sizeof(*bad));
                bad[nbad++] = xstrdup(key);
            }
        }
        for (size_t i = 0; i < nbad; i++) {
            char *t = ry_inert_dup(bad[i]);
            json_object_set(v, t, json_object_get(v, bad[i]));
            json_object_del(v, bad[i]);
            free(t);
            free(bad[i]);
        }
        free(bad);
    }
}

static struct ry_report *adopt(json_t *root, const char *name, const char *dir, ry_error_t *err)
{
    const char *tool;
    struct ry_report *r;

    inert_tree(root);
    tool = str(root, "tool");

    if (!json_is_object(root) || !tool ||
        (strcmp(tool, "railyard") && strcmp(tool, "railyard-fabric")) ||
        !json_is_array(json_object_get(root, "findings"))) {
        ry_errorf(err,
                  "%s: not a railyard report (no tool \"railyard\" or \"railyard-fabric\" "
                  "with findings)",
                  name);
        json_decref(root);
        return NULL;
    }
    r = xcalloc(1, sizeof(*r));
    r->root = root;
    snprintf(r->tool, sizeof(r->tool), "%s",
             !strcmp(tool, "railyard-fabric")                ? "fabric"
             : json_is_string(json_object_get(root, "node")) ? "check"
                                                             : "ib");
    if (load_links(r, name, dir, err) < 0) {
        ry_report_free(r);
        return NULL;
    }
    return r;
}

struct ry_report *ry_report_parse(const char *text, const char *name, ry_error_t *err)
{
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);

    if (!root) {
        ry_errorf(err, "%s:%d:%d: not JSON: %s", name, je.line, je.column, je.text);
        return NULL;
    }
    return adopt(root, name, NULL, err);
}

struct ry_report *ry_report_load(const char *path, ry_error_t *err)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    char dir[4096];
    const char *slash = strrchr(path, '/');

    if (!root) {
        if (je.line < 0 || errno == ENOENT)
            ry_errorf(err, "%s: %s", path, je.text);
        else
            ry_errorf(err, "%s:%d:%d: not JSON: %s", path, je.line, je.column, je.text);
        return NULL;
    }
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == path)
        snprintf(dir, sizeof(dir), "/");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    return adopt(root, path, dir, err);
}

void ry_report_free(struct ry_report *r)
{
    if (!r)
        return;
    json_decref(r->root);
    free(r->ports);
    free(r->lv.v);
    free(r->lv.lat);
    free(r->lv.names);
    free(r->lv.extra);
    free(r);
}

const char *ry_report_tool(const struct ry_report *r)
{
    return r->tool;
}

const char *ry_report_node(const struct ry_report *r)
{
    return str(r->root, "node");
}

const char *ry_report_verdict(const struct ry_report *r)
{
    return str(r->root, "verdict");
}

int ry_report_complete(const struct ry_report *r)
{
    json_t *c = json_object_get(r->root, "complete"),
           *rc = json_object_get(json_object_get(r->root, "run"), "complete");
    if (c)
        return json_is_true(c);
    return rc ? json_is_true(rc) : json_is_string(json_object_get(r->root, "verdict"));
}

void *ry_report_json(const struct ry_report *r)
{
    return r->root;
}

static struct ry_port_stats *port_stats(const struct ry_report *r, size_t *n)
{
    const struct ry_report_links *lv = &r->lv;
    int rails = inum(r->root, "rails", 0);
    size_t nn = lv->nlisted, i, cells, *at, total = 0, k = 0;
    struct ry_port_stats *ps;
    double *bw;

    *n = 0;
    if (!nn || rails < 1 || rails > 1024)
        return NULL;
    cells = nn * (size_t)rails;
    ps = xcalloc(cells, sizeof(*ps));
    at = xcalloc(cells + 1, sizeof(*at));
    for (i = 0; i < cells; i++) {
        ps[i].node = lv->names[i / (size_t)rails];
        ps[i].rail = (int)(i % (size_t)rails);
        ps[i].min_gbps = ps[i].median_gbps = NAN;
    }
    /* two passes: count each port's links and figures, then place its figures in one block */
    for (int pass = 0; pass < 2; pass++) {
        for (i = 0; i < lv->n; i++) {
            const struct ry_link *l = &lv->v[i];
            uint32_t end[2] = { l->from, l->to };
            int ok = l->flags & RY_LINK_OK;
            double b = l->bw_gbps;
            if (l->rail < 0 || l->rail >= rails)
                continue;
            for (int e = 0; e < 2; e++) {
                size_t c;
                /* a listed node's first place (a name listed twice counts once) */
                if (end[e] >= nn || !lv->names[end[e]])
                    continue;
                c = (size_t)end[e] * (size_t)rails + (size_t)l->rail;
                if (pass) {
                    if (ok && !isnan(b))
                        bw[at[c]++] = b;
                    continue;
                }
                ps[c].links++;
                if (!ok && ps[c].failed < 3)
                    ps[c].failed_peer[ps[c].failed] = ry_link_node(lv, end[!e]);
                ps[c].failed += !ok;
                at[c + 1] += ok && !isnan(b);
            }
        }
        if (pass)
            break;
        for (i = 0; i < cells; i++) /* at[c]: where port c's figures start */
            at[i + 1] += at[i];
        total = at[cells];
        bw = xmalloc_large(total ? total : 1, sizeof(*bw));
    }
    /* after the fill, at[c] is where port c's figures end, and at[c - 1] where they start */
    for (i = 0; i < cells; i++) {
        size_t from = i ? at[i - 1] : 0, m = at[i] - from;
        if (m) {
            double lo = bw[from];
            for (size_t j = 1; j < m; j++)
                lo = bw[from + j] < lo ? bw[from + j] : lo;
            ps[i].min_gbps = lo;
            ps[i].median_gbps = ry_median_dbl(bw + from, m);
        }
        if (ps[i].links)
            ps[k++] = ps[i];
    }
    free(bw);
    free(at);
    *n = k;
    return ps;
}

const struct ry_port_stats *ry_report_port_stats(const struct ry_report *r, size_t *n)
{
    struct ry_report *m = (struct ry_report *)r; /* a cache: the report itself is unchanged */

    if (!m->ports_done) {
        m->ports = port_stats(r, &m->nports);
        m->ports_done = 1;
    }
    *n = m->nports;
    return m->ports;
}

int ry_report_rail_refs(const struct ry_report *r, int rails, double *ref, double *median)
{
    const struct ry_report_links *lv = &r->lv;
    size_t nl = lv->n, i, *nv;
    double **v, best = 0;

    if (rails < 1 || rails > 1024)
        return -1;
    v = xcalloc((size_t)rails, sizeof(*v));
    nv = xcalloc((size_t)rails, sizeof(*nv));
    for (int pass = 0; pass < 2; pass++) { /* count, then fill */
        for (i = 0; i < nl; i++) {
            const struct ry_link *l = &lv->v[i];
            if (l->rail < 0 || l->rail >= rails || !(l->flags & RY_LINK_OK) || isnan(l->bw_gbps))
                continue;
            if (pass)
                v[l->rail][nv[l->rail]++] = l->bw_gbps;
            else
                nv[l->rail]++;
        }
        for (int k = 0; !pass && k < rails; k++) {
            v[k] = xcalloc(nv[k] + 1, sizeof(**v));
            nv[k] = 0;
        }
    }
    for (int k = 0; k < rails; k++) {
        median[k] = nv[k] ? ry_select_dbl(v[k], nv[k], nv[k] / 2) : NAN; /* the upper median */
        if (nv[k] && median[k] > best)
            best = median[k];
    }
    for (int k = 0; k < rails; k++) {
        json_t *e = json_array_get(json_object_get(r->root, "rail_expect_gbps"), (size_t)k);
        ref[k] = json_is_number(e) && json_number_value(e) > 0 ? json_number_value(e)
                 : best > 0                                    ? best
                                                               : NAN;
        free(v[k]);
    }
    free(v);
    free(nv);
    return 0;
}

/* ---- Prometheus ---- */

static void label(FILE *fp, const char *name, const char *v, int first)
{
    ry_prom_label(fp, name, v, first);
}

static void help(FILE *fp, const char *name, const char *text)
{
    ry_prom_help(fp, name, "gauge", text);
}

/* the node a finding's subject is about: "gpu01/mlx5_0:1" -> gpu01, "a<->b/rail1" -> a */
static void subject_node(const char *subject, char *out, size_t len)
{
    size_t n = strcspn(subject ? subject : "", "/<");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), subject ? subject : "");
}

struct count {
    char node[128], check[64];
    int fail, warn;
};

/* per port: links, failed links, the lowest and the median goodput */
static void prometheus_ports(FILE *fp, const struct ry_report *r, const char *transport)
{
    static const char *const name[] = { "railyard_port_links", "railyard_port_links_failed",
                                        "railyard_port_bandwidth_min_gbps",
                                        "railyard_port_bandwidth_median_gbps" };
    static const char *const text[] = {
        "Links the port took part in (past the per-link limit, ports replace links).",
        "Links of the port that failed.",
        "Lowest goodput of the port's measured links, Gb/s.",
        "Median goodput of the port's measured links, Gb/s.",
    };
    size_t n;
    const struct ry_port_stats *ps = ry_report_port_stats(r, &n);

    for (int k = 0; k < 4; k++) {
        help(fp, name[k], text[k]);
        for (size_t i = 0; i < n; i++) {
            double v = k == 0   ? (double)ps[i].links
                       : k == 1 ? (double)ps[i].failed
                       : k == 2 ? ps[i].min_gbps
                                : ps[i].median_gbps;
            char rail[16];
            if (isnan(v))
                continue;
            snprintf(rail, sizeof(rail), "%d", ps[i].rail);
            fprintf(fp, "%s{", name[k]);
            label(fp, "node", ps[i].node, 1);
            label(fp, "rail", rail, 0);
            label(fp, "transport", transport, 0);
            fprintf(fp, "} %.6g\n", v);
        }
    }
}

/* A check's GPU figures (gpu_bandwidth): bandwidth and latency per test, GPU and peer. A run with
 * more than RY_REPORT_GPU_DETAIL figures keeps those of one GPU (host, local copies, latency) and
 * leaves the pairs to report.json. */
#define RY_REPORT_GPU_DETAIL 4096
static void prometheus_gpu(FILE *fp, json_t *root, const char *node)
{
    static const char *const name[] = { "railyard_gpu_bandwidth_gbytes_per_second",
                                        "railyard_gpu_latency_microseconds" };
    json_t *caps = json_object_get(root, "gpu_bandwidth"), *cap, *m, *v;
    size_t i, k, j, total = 0;

    json_array_foreach(caps, i, cap) json_array_foreach(json_object_get(cap, "measurements"), k, m)
        total += json_array_size(json_object_get(m, "values"));
    if (!total)
        return;
    for (int lat = 0; lat < 2; lat++) {
        int said = 0;
        json_array_foreach(caps, i, cap)
        {
            json_array_foreach(json_object_get(cap, "measurements"), k, m)
            {
                const char *unit = str(m, "unit");
                if (!unit || (strcmp(unit, "us") == 0) != lat)
                    continue;
                json_array_foreach(json_object_get(m, "values"), j, v)
                {
                    char gpu[16], peer[16];
                    int has_peer = json_object_get(v, "peer") != NULL;
                    if (has_peer && total > RY_REPORT_GPU_DETAIL)
                        continue;
                    if (!said++)
                        help(fp, name[lat],
                             lat ? "A GPU figure of the last check, microseconds (test, gpu, "
                                   "peer as the tool named them)."
                                 : "A GPU figure of the last check, GB/s (test, gpu, peer as "
                                   "the tool named them).");
                    snprintf(gpu, sizeof(gpu), "%d", inum(v, "gpu", -1));
                    snprintf(peer, sizeof(peer), "%d", inum(v, "peer", -1));
                    fprintf(fp, "%s{", name[lat]);
                    label(fp, "node", node, 1);
                    label(fp, "source", str(cap, "tool"), 0);
                    label(fp, "test", str(m, "name"), 0);
                    label(fp, "gpu", gpu, 0);
                    if (has_peer)
                        label(fp, "peer", peer, 0);
                    fprintf(fp, "} %.6g\n", num(v, "value", 0));
                }
            }
        }
    }
}

int ry_render_prometheus(const struct ry_report *r, FILE *fp, ry_error_t *err)
{
    json_t *findings = json_object_get(r->root, "findings"), *f, *run;
    const char *node = str(r->root, "node"), *verdict = str(r->root, "verdict");
    struct count *c = NULL;
    size_t nc = 0, i;
    double ts = -1;
    char who[128];

    (void)err;
    run = json_object_get(r->root, "run");
    ts = num(run, "finished_unix", num(run, "started_unix", -1));
    /* a check is about a node, a fabric run about a cluster (the map's name, else the host
     * rank 0 ran on) */
    snprintf(who, sizeof(who), "%s",
             node                      ? node
             : str(r->root, "cluster") ? str(r->root, "cluster")
             : str(run, "host")        ? str(run, "host")
                                       : "");
    json_array_foreach(findings, i, f)
    {
        const char *sev = str(f, "severity");
        char n[128];
        size_t k;
        if (!sev || !strcmp(sev, "ok"))
            continue;
        if (node)
            snprintf(n, sizeof(n), "%s", node);
        else
            subject_node(str(f, "subject"), n, sizeof(n));
        for (k = 0; k < nc; k++)
            if (!strcmp(c[k].node, n) &&
                !strcmp(c[k].check, str(f, "check") ? str(f, "check") : ""))
                break;
        if (k == nc) {
            c = xrealloc(c, (nc + 1) * sizeof(*c));
            memset(&c[nc], 0, sizeof(*c));
            snprintf(c[nc].node, sizeof(c[nc].node), "%s", n);
            snprintf(c[nc].check, sizeof(c[nc].check), "%s",
                     str(f, "check") ? str(f, "check") : "");
            nc++;
        }
        if (!strcmp(sev, "fail"))
            c[k].fail++;
        else
            c[k].warn++;
    }
    for (int warn = 0; warn < 2; warn++) {
        const char *name = warn ? "railyard_check_warnings" : "railyard_check_failures";
        help(fp, name,
             warn ? "Checks of the last run that warned, by node and check id."
                  : "Failed checks of the last run, by node and check id.");
        for (i = 0; i < nc; i++) {
            int v = warn ? c[i].warn : c[i].fail;
            if (!v)
                continue;
            fprintf(fp, "%s{", name);
            label(fp, "tool", r->tool, 1);
            label(fp, "node", c[i].node, 0);
            label(fp, "check", c[i].check, 0);
            fprintf(fp, "} %d\n", v);
        }
    }
    free(c);
    help(fp, "railyard_last_run_success", "1 when the last run found no failure, 0 otherwise.");
    fputs("railyard_last_run_success{", fp);
    label(fp, "tool", r->tool, 1);
    label(fp, node ? "node" : "cluster", who, 0);
    fprintf(fp, "} %d\n", verdict && !strcmp(verdict, "pass") ? 1 : 0);
    help(fp, "railyard_last_run_complete",
         "1 when the last run finished, 0 when it was cut short.");
    fputs("railyard_last_run_complete{", fp);
    label(fp, "tool", r->tool, 1);
    label(fp, node ? "node" : "cluster", who, 0);
    fprintf(fp, "} %d\n", ry_report_complete(r));
    if (ts >= 0) {
        help(fp, "railyard_last_run_timestamp_seconds", "When the last run finished (Unix time).");
        fputs("railyard_last_run_timestamp_seconds{", fp);
        label(fp, "tool", r->tool, 1);
        label(fp, node ? "node" : "cluster", who, 0);
        fprintf(fp, "} %.0f\n", ts);
    }
    if (r->lv.n) {
        const struct ry_report_links *lv = &r->lv;
        const char *transport = str(r->root, "transport");
        static const struct {
            const char *name, *help;
        } m[] = {
            { "railyard_link_bandwidth_gbps", "Goodput of the link at the receiver, Gb/s." },
            { "railyard_link_latency_p50_microseconds",
              "Median one-way latency of the link, microseconds." },
            { "railyard_link_latency_p99_microseconds",
              "99th percentile one-way latency of the link, microseconds." },
            { "railyard_link_up", "1 when the link was measured, 0 when it failed." },
        };
        /* a large run: the links that failed, and every port's aggregate */
        int detail = lv->n <= RY_REPORT_LINK_DETAIL;
        for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
            if (!detail && k < 3)
                continue;
            help(fp, m[k].name, m[k].help);
            for (i = 0; i < lv->n; i++) {
                const struct ry_link *l = &lv->v[i];
                double v = k == 0   ? l->bw_gbps
                           : k == 1 ? l->lat_p50_us
                           : k == 2 ? l->lat_p99_us
                                    : (l->flags & RY_LINK_OK) != 0;
                char rail[16];
                if (isnan(v) || (!detail && v))
                    continue;
                snprintf(rail, sizeof(rail), "%d", l->rail);
                fprintf(fp, "%s{", m[k].name);
                label(fp, "node", ry_link_node(lv, l->from), 1);
                label(fp, "rail", rail, 0);
                label(fp, "peer", ry_link_node(lv, l->to), 0);
                label(fp, "transport", transport ? transport : "tcp", 0);
                fprintf(fp, "} %.6g\n", v);
            }
        }
        if (!detail)
            prometheus_ports(fp, r, transport ? transport : "tcp");
    }
    if (node)
        prometheus_gpu(fp, r->root, node);
    return ferror(fp) ? ry_errorf(err, "cannot write the metrics: %s", strerror(errno)) : 0;
}

/* ---- text ---- */

int ry_render_text(const struct ry_report *r, FILE *fp, ry_error_t *err)
{
    json_t *run = json_object_get(r->root, "run"), *f;
    char a[512], b[512], c[512];
    size_t i;

    fprintf(fp, "railyard report: %s", r->tool);
    if (str(r->root, "node"))
        fprintf(fp, " %s", out_inert(str(r->root, "node"), a, sizeof(a)));
    if (str(run, "id"))
        fprintf(fp, ", run %s", out_inert(str(run, "id"), a, sizeof(a)));
    if (str(run, "started"))
        fprintf(fp, ", %s", str(run, "started"));
    fprintf(fp, "%s\n", ry_report_complete(r) ? "" : " (incomplete)");
    json_array_foreach(json_object_get(r->root, "findings"), i, f)
    {
        const char *sev = str(f, "severity");
        if (!sev || !strcmp(sev, "ok"))
            continue;
        fprintf(fp, "%-5s %-22s %-26s expected %s, observed %s\n",
                !strcmp(sev, "fail") ? "FAIL" : "WARN", out_inert(str(f, "check"), a, sizeof(a)),
                out_inert(str(f, "subject"), b, sizeof(b)),
                str(f, "expected") ? str(f, "expected") : "n/a",
                out_inert(str(f, "observed") ? str(f, "observed") : "n/a", c, sizeof(c)));
    }
    fprintf(fp, "%d failed, %d warnings -> %s\n",
            inum(json_object_get(r->root, "summary"), "fail", 0),
            inum(json_object_get(r->root, "summary"), "warn", 0),
            ry_report_verdict(r) ? ry_report_verdict(r) : "n/a");
    return ferror(fp) ? ry_errorf(err, "cannot write: %s", strerror(errno)) : 0;
}

/* ---- diff ---- */

static json_t *find_finding(json_t *findings, json_t *f)
{
    size_t i;
    json_t *g;

    json_array_foreach(findings, i, g)
    {
        const char *s1 = str(f, "check"), *s2 = str(g, "check"), *u1 = str(f, "subject"),
                   *u2 = str(g, "subject"), *v1 = str(f, "severity"), *v2 = str(g, "severity");
        if (s1 && s2 && u1 && u2 && v1 && v2 && !strcmp(s1, s2) && !strcmp(u1, u2) &&
            !strcmp(v1, v2))
            return g;
    }
    return NULL;
}

/* a link's place for the diff: its ends (as node indexes of the older run) and rail, and its
 * index, so that the first of several alike is found */
struct link_key {
    uint64_t key;
    size_t i;
};

static int cmp_key(const void *x, const void *y)
{
    const struct link_key *a = x, *b = y;
    return a->key != b->key ? (a->key < b->key ? -1 : 1) : (a->i > b->i) - (a->i < b->i);
}

static uint64_t link_key(uint32_t from, uint32_t to, int rail)
{
    return ((uint64_t)from << 40) ^ ((uint64_t)to << 18) ^ (uint64_t)(rail & 0x3ffff);
}

/* the failures and warnings of from that to does not have, each on a line after what */
static int diff_findings(json_t *from, json_t *to, const char *what, FILE *fp)
{
    char s1[512], s2[512], s3[512];
    size_t i;
    json_t *x;
    int n = 0;

    json_array_foreach(from, i, x)
    {
        const char *sev = str(x, "severity");
        if (!sev || !strcmp(sev, "ok") || find_finding(to, x))
            continue;
        fprintf(fp, "%s %-4s %-22s %-26s %s\n", what, sev,
                out_inert(str(x, "check"), s1, sizeof(s1)),
                out_inert(str(x, "subject"), s2, sizeof(s2)),
                out_inert(str(x, "observed") ? str(x, "observed") : "", s3, sizeof(s3)));
        n++;
    }
    return n;
}

/* a GPU figure's key: its test, GPU and peer (-1 none) */
static void gpu_key(char *buf, size_t len, const char *name, int gpu, int peer)
{
    snprintf(buf, len, "%s\t%d\t%d", name, gpu, peer);
}

/* every GPU figure of a run by its key, to look each up once */
static json_t *gpu_figures(json_t *root)
{
    json_t *idx = json_object(), *cap, *m, *v;
    size_t i, k, l;
    char key[320];

    json_array_foreach(json_object_get(root, "gpu_bandwidth"), i, cap)
        json_array_foreach(json_object_get(cap, "measurements"), k, m)
    {
        if (!str(m, "name"))
            continue;
        json_array_foreach(json_object_get(m, "values"), l, v)
        {
            gpu_key(key, sizeof(key), str(m, "name"), inum(v, "gpu", -1), inum(v, "peer", -1));
            json_object_set(idx, key, json_object_get(v, "value"));
        }
    }
    return idx;
}

/* GPU figures that moved more than threshold between the runs, the same test and GPU or pair */
static int diff_gpu(json_t *a, json_t *b, double threshold, FILE *fp)
{
    json_t *cap, *m, *v, *before = gpu_figures(a);
    size_t i, k, l;
    char s1[256], who[64], key[320];
    int n = 0;

    json_array_foreach(json_object_get(b, "gpu_bandwidth"), i, cap)
    {
        json_array_foreach(json_object_get(cap, "measurements"), k, m)
        {
            const char *name = str(m, "name"), *unit = str(m, "unit");
            if (!name)
                continue;
            json_array_foreach(json_object_get(m, "values"), l, v)
            {
                int gpu = inum(v, "gpu", -1), peer = inum(v, "peer", -1);
                double v1 = num(v, "value", NAN), v0;
                gpu_key(key, sizeof(key), name, gpu, peer);
                v0 = num(before, key, NAN);
                if (isnan(v0) || isnan(v1) || v0 <= 0 || fabs(v1 - v0) / v0 <= threshold)
                    continue;
                if (peer >= 0)
                    snprintf(who, sizeof(who), "gpu%d->gpu%d", gpu, peer);
                else
                    snprintf(who, sizeof(who), "gpu%d", gpu);
                fprintf(fp, "gpu      %s %s %.2f -> %.2f %s (%+.0f%%)\n",
                        out_inert(name, s1, sizeof(s1)), who, v0, v1,
                        unit && !strcmp(unit, "us") ? "us" : "GB/s", (v1 - v0) / v0 * 100);
                n++;
            }
        }
    }
    json_decref(before);
    return n;
}

int ry_render_diff(const struct ry_report *a, const struct ry_report *b, double threshold, FILE *fp,
                   ry_error_t *err)
{
    json_t *fa = json_object_get(a->root, "findings"), *fb = json_object_get(b->root, "findings");
    const struct ry_report_links *la = &a->lv, *lb = &b->lv;
    char s1[512], s2[512];
    size_t i;
    int n = 0;

    n += diff_findings(fb, fa, "new     ", fp);
    n += diff_findings(fa, fb, "cleared ", fp);
    if (la->n && lb->n) {
        /* the older run's links sorted by place; the newer run's names mapped to its indexes */
        struct link_key *ka = xcalloc(la->n, sizeof(*ka));
        uint32_t *map = xcalloc(lb->nnames + 1, sizeof(*map));
        json_t *index = json_object();
        for (i = 0; i < la->nnames; i++)
            if (la->names[i] && !json_object_get(index, la->names[i]))
                json_object_set_new(index, la->names[i], json_integer((json_int_t)i));
        for (i = 0; i < lb->nnames; i++) {
            json_t *ix = lb->names[i] ? json_object_get(index, lb->names[i]) : NULL;
            map[i] = ix ? (uint32_t)json_integer_value(ix) : RY_LINK_NONE;
        }
        json_decref(index);
        for (i = 0; i < la->n; i++) {
            /* a name listed twice: its first place */
            const char *fn = ry_link_node(la, la->v[i].from), *tn = ry_link_node(la, la->v[i].to);
            ka[i].key = fn && tn ? link_key(la->v[i].from, la->v[i].to, la->v[i].rail) : 0;
            ka[i].i = fn && tn ? i : SIZE_MAX;
        }
        qsort(ka, la->n, sizeof(*ka), cmp_key);
        for (i = 0; i < lb->n; i++) {
            const struct ry_link *x = &lb->v[i], *old = NULL;
            uint32_t f = x->from < lb->nnames ? map[x->from] : RY_LINK_NONE,
                     t = x->to < lb->nnames ? map[x->to] : RY_LINK_NONE;
            size_t lo = 0, hi = la->n;
            double v0, v1 = x->bw_gbps;
            if (f == RY_LINK_NONE || t == RY_LINK_NONE)
                continue;
            {
                struct link_key want = { link_key(f, t, x->rail), 0 };
                while (lo < hi) { /* the first at or past want */
                    size_t mid = lo + (hi - lo) / 2;
                    if (cmp_key(&ka[mid], &want) < 0)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                /* keys can collide: the same ends and rail, checked */
                for (; lo < la->n && ka[lo].key == want.key && !old; lo++) {
                    const struct ry_link *m = &la->v[ka[lo].i];
                    if (ka[lo].i != SIZE_MAX && m->from == f && m->to == t && m->rail == x->rail)
                        old = m;
                }
            }
            v0 = old ? old->bw_gbps : NAN;
            if (!old || isnan(v0) || isnan(v1) || v0 <= 0 || fabs(v1 - v0) / v0 <= threshold)
                continue;
            fprintf(fp, "link     %s->%s/rail%d %.3f -> %.3f Gb/s (%+.0f%%)\n",
                    out_inert(ry_link_node(lb, x->from), s1, sizeof(s1)),
                    out_inert(ry_link_node(lb, x->to), s2, sizeof(s2)), x->rail, v0, v1,
                    (v1 - v0) / v0 * 100);
            n++;
        }
        free(ka);
        free(map);
    }
    n += diff_gpu(a->root, b->root, threshold, fp);
    if (ferror(fp))
        return ry_errorf(err, "cannot write: %s", strerror(errno));
    return n;
}

/* ---- the links' encoding ---- */

static int dump_root(FILE *fp, void *arg, ry_error_t *err)
{
    return out_json_dump_doc(arg, fp, err);
}

static json_t *jreal(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *jcnt(long long v)
{
    return v < 0 ? json_null() : json_integer((json_int_t)v);
}

static json_t *jstring(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* a link as an object, the keys in railyard-fabric's order */
static json_t *link_object(const struct ry_report_links *lv, const struct ry_link *l)
{
    struct ry_link_extra x = ry_link_strings(lv, l);
    json_t *o = json_object();
    int lat = (l->flags & RY_LINK_LATENCY) != 0;

    json_object_set_new(o, "round", json_integer((json_int_t)l->round));
    json_object_set_new(o, "rail", json_integer(l->rail));
    json_object_set_new(o, "from", jstring(ry_link_node(lv, l->from)));
    json_object_set_new(o, "to", jstring(ry_link_node(lv, l->to)));
    json_object_set_new(o, "ok", json_boolean(l->flags & RY_LINK_OK));
    json_object_set_new(o, "error", jstring(x.error));
    if (!lat)
        json_object_set_new(o, "bw_gbps", jreal(l->bw_gbps));
    json_object_set_new(o, "lat_p50_us", jreal(l->lat_p50_us));
    json_object_set_new(o, "lat_p99_us", jreal(l->lat_p99_us));
    if (lat)
        return o;
    json_object_set_new(o, "retrans", jcnt(l->retrans));
    json_object_set_new(o, "errors_from", jcnt(l->errors_from));
    json_object_set_new(o, "errors_to", jcnt(l->errors_to));
    json_object_set_new(o, "counters_from", jstring(x.counters_from));
    json_object_set_new(o, "counters_to", jstring(x.counters_to));
    json_object_set_new(o, "mem_from", jstring(x.mem_from));
    json_object_set_new(o, "mem_to", jstring(x.mem_to));
    json_object_set_new(o, "cpu_from", l->cpu_from < 0 ? json_null() : json_real(l->cpu_from));
    json_object_set_new(o, "wait_from", l->wait_from < 0 ? json_null() : json_real(l->wait_from));
    json_object_set_new(o, "pressure_from",
                        l->pressure_from < 0 ? json_null() : json_real(l->pressure_from));
    json_object_set_new(o, "cpu_to", l->cpu_to < 0 ? json_null() : json_real(l->cpu_to));
    json_object_set_new(o, "wait_to", l->wait_to < 0 ? json_null() : json_real(l->wait_to));
    json_object_set_new(o, "pressure_to",
                        l->pressure_to < 0 ? json_null() : json_real(l->pressure_to));
    json_object_set_new(o, "bytes", jcnt(l->bytes));
    json_object_set_new(o, "wire_bytes", jcnt(l->wire_bytes));
    json_object_set_new(o, "goodput_ratio",
                        ry_link_goodput_ratio(l) < 0 ? json_null()
                                                     : json_real(ry_link_goodput_ratio(l)));
    json_object_set_new(o, "ecn_marked", l->ce_frac < 0 ? json_null() : json_real(l->ce_frac));
    return o;
}

int ry_report_convert(const char *dir, int records, ry_error_t *err)
{
    char path[4200], file[4300];
    struct ry_report *r;
    struct ry_report_links *lv;
    json_t *root;
    int rc = -1;

    snprintf(path, sizeof(path), "%s/report.json", dir);
    snprintf(file, sizeof(file), "%s/%s", dir, ry_links_file_name());
    if (!(r = ry_report_load(path, err)))
        return -1;
    root = r->root;
    lv = &r->lv;
    if (strcmp(r->tool, "fabric")) {
        ry_errorf(err, "%s: not a railyard-fabric report: it has no links", path);
        goto out;
    }
    if (!json_object_get(root, "links_file") == !records) {
        rc = 1;
        goto out;
    }
    if (records) {
        struct ry_links_writer *w;
        json_t *lf, *ex;
        if (lv->nnames > lv->nlisted) {
            ry_errorf(err, "%s: links name nodes that node_names does not list", path);
            goto out;
        }
        /* the records first: until report.json names them they are not read */
        if (!(w = ry_links_writer_open(dir, err)))
            goto out;
        for (int lat = 0; lat < 2; lat++)
            for (size_t i = 0; i < (lat ? lv->nlat : lv->n); i++) {
                const struct ry_link *l = lat ? &lv->lat[i] : &lv->v[i];
                struct ry_link_extra x = ry_link_strings(lv, l);
                if (ry_links_writer_add(w, l, &x, err) < 0) {
                    ry_links_writer_close(w);
                    unlink(file);
                    goto out;
                }
            }
        if (ry_links_writer_flush(w, err) < 0) {
            ry_links_writer_close(w);
            unlink(file);
            goto out;
        }
        lf = json_object();
        json_object_set_new(lf, "path", json_string(ry_links_file_name()));
        json_object_set_new(lf, "format", json_string("railyard-links"));
        json_object_set_new(lf, "version", json_integer(RY_LINKS_VERSION));
        json_object_set_new(lf, "records", json_integer((json_int_t)ry_links_writer_count(w)));
        json_object_set_new(lf, "record_bytes", json_integer(RY_LINK_RECORD_BYTES));
        json_object_set_new(lf, "missing", json_integer(0));
        ex = json_array();
        for (size_t i = 0; i < ry_links_writer_nextra(w); i++) {
            const struct ry_link_extra *x = ry_links_writer_extra(w, i);
            json_t *o = json_object();
            json_object_set_new(o, "error", jstring(x->error));
            json_object_set_new(o, "counters_from", jstring(x->counters_from));
            json_object_set_new(o, "counters_to", jstring(x->counters_to));
            json_object_set_new(o, "mem_from", jstring(x->mem_from));
            json_object_set_new(o, "mem_to", jstring(x->mem_to));
            json_array_append_new(ex, o);
        }
        json_object_set_new(lf, "extras", ex);
        ry_links_writer_close(w);
        /* the links' strings point into root: it is changed only once they are copied */
        json_object_set_new(root, "links_file", lf);
        json_object_del(root, "links");
        json_object_del(root, "latency_links");
        if (ry_write_atomic(path, dump_root, root, err) < 0) {
            unlink(file);
            goto out;
        }
    } else {
        json_t *links = json_array(), *lat = json_array();
        for (size_t i = 0; i < lv->n; i++)
            json_array_append_new(links, link_object(lv, &lv->v[i]));
        for (size_t i = 0; i < lv->nlat; i++)
            json_array_append_new(lat, link_object(lv, &lv->lat[i]));
        json_object_set_new(root, "links", links);
        if (lv->nlat)
            json_object_set_new(root, "latency_links", lat);
        else
            json_decref(lat);
        json_object_del(root, "links_file");
        /* report.json first: the records are not read once it holds the links */
        if (ry_write_atomic(path, dump_root, root, err) < 0)
            goto out;
        if (unlink(file) < 0 && errno != ENOENT) {
            ry_errorf(err, "%s: %s (report.json holds the links now)", file, strerror(errno));
            goto out;
        }
    }
    rc = 0;
out:
    ry_report_free(r);
    return rc;
}

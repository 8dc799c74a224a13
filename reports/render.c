#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "reports/out.h"
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
};

/* take root (a reference is kept) as a report, or say why not */
static struct ry_report *adopt(json_t *root, const char *name, ry_error_t *err)
{
    const char *tool = str(root, "tool");
    struct ry_report *r;

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
    return adopt(root, name, err);
}

struct ry_report *ry_report_load(const char *path, ry_error_t *err)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);

    if (!root) {
        if (je.line < 0 || errno == ENOENT)
            ry_errorf(err, "%s: %s", path, je.text);
        else
            ry_errorf(err, "%s:%d:%d: not JSON: %s", path, je.line, je.column, je.text);
        return NULL;
    }
    return adopt(root, path, err);
}

void ry_report_free(struct ry_report *r)
{
    if (!r)
        return;
    json_decref(r->root);
    free(r->ports);
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

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static struct ry_port_stats *port_stats(json_t *root, size_t *n)
{
    json_t *names = json_object_get(root, "node_names"), *links = json_object_get(root, "links");
    json_t *index = json_object(), *v, *l;
    int rails = (int)num(root, "rails", 0);
    size_t nn = json_array_size(names), i, cells, *fill, *cap, k = 0;
    struct ry_port_stats *ps;
    double **bw;

    *n = 0;
    if (!nn || rails < 1 || rails > 1024) {
        json_decref(index);
        return NULL;
    }
    cells = nn * (size_t)rails;
    json_array_foreach(names, i, v) if (json_is_string(v))
        json_object_set_new(index, json_string_value(v), json_integer((json_int_t)i));
    ps = xcalloc(cells, sizeof(*ps));
    bw = xcalloc(cells, sizeof(*bw));
    fill = xcalloc(cells, sizeof(*fill));
    cap = xcalloc(cells, sizeof(*cap));
    for (i = 0; i < cells; i++) {
        ps[i].node = json_string_value(json_array_get(names, i / (size_t)rails));
        ps[i].rail = (int)(i % (size_t)rails);
        ps[i].min_gbps = ps[i].median_gbps = NAN;
    }
    json_array_foreach(links, i, l)
    {
        const char *end[2] = { str(l, "from"), str(l, "to") };
        int r = (int)num(l, "rail", -1), ok = json_is_true(json_object_get(l, "ok"));
        double b = num(l, "bw_gbps", NAN);
        if (r < 0 || r >= rails)
            continue;
        for (int e = 0; e < 2; e++) {
            json_t *ix = json_object_get(index, end[e] ? end[e] : "");
            size_t c;
            if (!ix)
                continue;
            c = (size_t)json_integer_value(ix) * (size_t)rails + (size_t)r;
            ps[c].links++;
            if (!ok && ps[c].failed < 3)
                ps[c].failed_peer[ps[c].failed] = end[!e];
            ps[c].failed += !ok;
            if (ok && !isnan(b)) {
                if (fill[c] == cap[c]) {
                    cap[c] = cap[c] ? cap[c] * 2 : 16;
                    bw[c] = xrealloc(bw[c], cap[c] * sizeof(double));
                }
                bw[c][fill[c]++] = b;
            }
        }
    }
    for (i = 0; i < cells; i++) {
        if (fill[i]) {
            qsort(bw[i], fill[i], sizeof(double), cmp_dbl);
            ps[i].min_gbps = bw[i][0];
            ps[i].median_gbps = fill[i] % 2 ? bw[i][fill[i] / 2]
                                            : (bw[i][fill[i] / 2 - 1] + bw[i][fill[i] / 2]) / 2;
        }
        free(bw[i]);
        if (ps[i].links)
            ps[k++] = ps[i];
    }
    free(bw);
    free(fill);
    free(cap);
    json_decref(index);
    *n = k;
    return ps;
}

const struct ry_port_stats *ry_report_port_stats(const struct ry_report *r, size_t *n)
{
    struct ry_report *m = (struct ry_report *)r; /* a cache: the report itself is unchanged */

    if (!m->ports_done) {
        m->ports = port_stats(r->root, &m->nports);
        m->ports_done = 1;
    }
    *n = m->nports;
    return m->ports;
}

int ry_report_rail_refs(const struct ry_report *r, int rails, double *ref, double *median)
{
    json_t *links = json_object_get(r->root, "links"), *l;
    size_t nl = json_array_size(links), i, *nv;
    double **v, best = 0;

    if (rails < 1 || rails > 1024)
        return -1;
    v = xcalloc((size_t)rails, sizeof(*v));
    nv = xcalloc((size_t)rails, sizeof(*nv));
    for (int k = 0; k < rails; k++)
        v[k] = xcalloc(nl + 1, sizeof(**v));
    json_array_foreach(links, i, l)
    {
        int k = (int)num(l, "rail", -1);
        if (k >= 0 && k < rails && json_is_true(json_object_get(l, "ok")) &&
            json_is_number(json_object_get(l, "bw_gbps")))
            v[k][nv[k]++] = num(l, "bw_gbps", 0);
    }
    for (int k = 0; k < rails; k++) {
        qsort(v[k], nv[k], sizeof(**v), cmp_dbl);
        median[k] = nv[k] ? v[k][nv[k] / 2] : NAN;
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

/* a label value in the exposition format: \\, \" and \n escaped; other control characters
 * (ANSI escapes) dropped, so a textfile never carries them */
static void label(FILE *fp, const char *name, const char *v, int first)
{
    fprintf(fp, "%s%s=\"", first ? "" : ",", name);
    for (; v && *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '\\' || c == '"')
            fprintf(fp, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", fp);
        else if (c >= 0x20 && c != 0x7f)
            fputc(c, fp);
    }
    fputc('"', fp);
}

static void help(FILE *fp, const char *name, const char *text)
{
    fprintf(fp, "# HELP %s %s\n# TYPE %s gauge\n", name, text, name);
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
                    snprintf(gpu, sizeof(gpu), "%d", (int)num(v, "gpu", -1));
                    snprintf(peer, sizeof(peer), "%d", (int)num(v, "peer", -1));
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
    json_t *findings = json_object_get(r->root, "findings"), *f, *links, *l, *run;
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
    links = json_object_get(r->root, "links");
    if (json_is_array(links) && json_array_size(links)) {
        const char *transport = str(r->root, "transport");
        static const struct {
            const char *name, *key, *help;
        } m[] = {
            { "railyard_link_bandwidth_gbps", "bw_gbps",
              "Goodput of the link at the receiver, Gb/s." },
            { "railyard_link_latency_p50_microseconds", "lat_p50_us",
              "Median one-way latency of the link, microseconds." },
            { "railyard_link_latency_p99_microseconds", "lat_p99_us",
              "99th percentile one-way latency of the link, microseconds." },
            { "railyard_link_up", NULL, "1 when the link was measured, 0 when it failed." },
        };
        /* a large run: the links that failed, and every port's aggregate */
        int detail = json_array_size(links) <= RY_REPORT_LINK_DETAIL;
        for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
            if (!detail && m[k].key)
                continue;
            help(fp, m[k].name, m[k].help);
            json_array_foreach(links, i, l)
            {
                double v =
                    m[k].key ? num(l, m[k].key, NAN) : json_is_true(json_object_get(l, "ok"));
                char rail[16];
                if (isnan(v) || (!detail && v))
                    continue;
                snprintf(rail, sizeof(rail), "%d", (int)num(l, "rail", -1));
                fprintf(fp, "%s{", m[k].name);
                label(fp, "node", str(l, "from"), 1);
                label(fp, "rail", rail, 0);
                label(fp, "peer", str(l, "to"), 0);
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
            (int)num(json_object_get(r->root, "summary"), "fail", 0),
            (int)num(json_object_get(r->root, "summary"), "warn", 0),
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

static json_t *find_link(json_t *links, json_t *l)
{
    size_t i;
    json_t *m;

    json_array_foreach(links, i, m)
    {
        const char *a1 = str(l, "from"), *a2 = str(m, "from"), *b1 = str(l, "to"),
                   *b2 = str(m, "to");
        if (a1 && a2 && b1 && b2 && !strcmp(a1, a2) && !strcmp(b1, b2) &&
            num(l, "rail", -1) == num(m, "rail", -2))
            return m;
    }
    return NULL;
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
            gpu_key(key, sizeof(key), str(m, "name"), (int)num(v, "gpu", -1),
                    (int)num(v, "peer", -1));
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
                int gpu = (int)num(v, "gpu", -1), peer = (int)num(v, "peer", -1);
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
    json_t *la = json_object_get(a->root, "links"), *lb = json_object_get(b->root, "links"), *x;
    char s1[512], s2[512];
    size_t i;
    int n = 0;

    n += diff_findings(fb, fa, "new     ", fp);
    n += diff_findings(fa, fb, "cleared ", fp);
    json_array_foreach(lb, i, x)
    {
        json_t *old = find_link(la, x);
        double v0 = old ? num(old, "bw_gbps", NAN) : NAN, v1 = num(x, "bw_gbps", NAN);
        if (!old || isnan(v0) || isnan(v1) || v0 <= 0 || fabs(v1 - v0) / v0 <= threshold)
            continue;
        fprintf(fp, "link     %s->%s/rail%d %.3f -> %.3f Gb/s (%+.0f%%)\n",
                out_inert(str(x, "from"), s1, sizeof(s1)), out_inert(str(x, "to"), s2, sizeof(s2)),
                (int)num(x, "rail", -1), v0, v1, (v1 - v0) / v0 * 100);
        n++;
    }
    n += diff_gpu(a->root, b->root, threshold, fp);
    if (ferror(fp))
        return ry_errorf(err, "cannot write: %s", strerror(errno));
    return n;
}

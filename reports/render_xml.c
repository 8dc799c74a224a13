#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libxml/xmlwriter.h>

#include "common/file.h"
#include "common/xmalloc.h"
#include "reports/render.h"
#include "topo/gpubw.h"
#include "reports/render_json.h"

/* JUnit XML and the HTML page, written through libxml2's xmlTextWriter: every string from a
 * report (host names, NodeDescriptions, error texts) goes out escaped by the library, control
 * characters (ANSI escapes) dropped first since XML cannot carry them. */

/* s without control characters (XML 1.0 cannot carry most of them): the XML writer's own guard,
 * as a report's strings were made inert when it was read (reports/render.c) */
static const xmlChar *clean(const char *s, char *buf, size_t len)
{
    size_t n = 0;

    for (; s && *s && n + 1 < len; s++)
        if ((unsigned char)*s >= 0x20 && *s != 0x7f)
            buf[n++] = *s;
    buf[n] = '\0';
    return (const xmlChar *)buf;
}

struct w {
    xmlTextWriterPtr x;
    char buf[2048];
};

static void el(struct w *w, const char *name)
{
    xmlTextWriterStartElement(w->x, (const xmlChar *)name);
}

/* non-void HTML elements must not self-close: <span/> would stay open in a browser */
static void end(struct w *w)
{
    xmlTextWriterFullEndElement(w->x);
}

/* a void element (<meta/>, <br/>) */
static void end_void(struct w *w)
{
    xmlTextWriterEndElement(w->x);
}

static void attr(struct w *w, const char *name, const char *v)
{
    xmlTextWriterWriteAttribute(w->x, (const xmlChar *)name,
                                clean(v ? v : "", w->buf, sizeof(w->buf)));
}

static void attrf(struct w *w, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void attrf(struct w *w, const char *name, const char *fmt, ...)
{
    char b[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(b, sizeof(b), fmt, ap);
    va_end(ap);
    attr(w, name, b);
}

static void text(struct w *w, const char *v)
{
    xmlTextWriterWriteString(w->x, clean(v ? v : "", w->buf, sizeof(w->buf)));
}

static void textf(struct w *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void textf(struct w *w, const char *fmt, ...)
{
    char b[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(b, sizeof(b), fmt, ap);
    va_end(ap);
    text(w, b);
}

static void leaf(struct w *w, const char *name, const char *v)
{
    el(w, name);
    text(w, v);
    end(w);
}

static int open_writer(struct w *w, xmlBufferPtr *b, ry_error_t *err)
{
    if (!(*b = xmlBufferCreate()) || !(w->x = xmlNewTextWriterMemory(*b, 0))) {
        if (*b)
            xmlBufferFree(*b);
        return ry_errorf(err, "libxml2: cannot create a writer");
    }
    xmlTextWriterSetIndent(w->x, 1);
    xmlTextWriterSetIndentString(w->x, (const xmlChar *)" ");
    return 0;
}

static int close_writer(struct w *w, xmlBufferPtr b, FILE *fp, ry_error_t *err)
{
    const char *content;
    int rc = 0;

    xmlTextWriterEndDocument(w->x);
    xmlFreeTextWriter(w->x);
    content = (const char *)xmlBufferContent(b);
    if (fputs(content, fp) == EOF || fputc('\n', fp) == EOF || ferror(fp))
        rc = ry_errorf(err, "cannot write: %s", strerror(errno ? errno : EIO));
    xmlBufferFree(b);
    return rc;
}

/* ---- JUnit ---- */

static void junit_findings(struct w *w, json_t *root, const char *suite)
{
    json_t *fs = json_object_get(root, "findings"), *f;
    size_t i, fails = 0;

    json_array_foreach(fs, i, f) fails += str(f, "severity") && !strcmp(str(f, "severity"), "fail");
    el(w, "testsuite");
    attr(w, "name", suite);
    attrf(w, "tests", "%zu", json_array_size(fs));
    attrf(w, "failures", "%zu", fails);
    attr(w, "errors", "0");
    if (str(json_object_get(root, "run"), "started"))
        attr(w, "timestamp", str(json_object_get(root, "run"), "started"));
    json_array_foreach(fs, i, f)
    {
        const char *sev = str(f, "severity");
        char msg[1024];
        snprintf(msg, sizeof(msg), "expected %s, observed %s",
                 str(f, "expected") ? str(f, "expected") : "n/a",
                 str(f, "observed") ? str(f, "observed") : "n/a");
        el(w, "testcase");
        attr(w, "classname", str(f, "check"));
        attr(w, "name", str(f, "subject"));
        if (sev && !strcmp(sev, "fail")) {
            el(w, "failure");
            attr(w, "type", str(f, "check"));
            attr(w, "message", msg);
            text(w, str(f, "hint") ? str(f, "hint") : msg);
            end(w);
        } else if (sev && !strcmp(sev, "warn")) {
            char out[1400];
            snprintf(out, sizeof(out), "warning: %s%s%s", msg, str(f, "hint") ? "; " : "",
                     str(f, "hint") ? str(f, "hint") : "");
            leaf(w, "system-out", out);
        }
        end(w);
    }
    end(w);
}

/* past RY_REPORT_LINK_DETAIL links: a testcase per port, failed when one of its links did */
static void junit_ports(struct w *w, const struct ry_report *r)
{
    size_t n, fails = 0;
    const struct ry_port_stats *ps = ry_report_port_stats(r, &n);

    for (size_t i = 0; i < n; i++)
        fails += ps[i].failed > 0;
    el(w, "testsuite");
    attr(w, "name", "railyard-fabric ports");
    attrf(w, "tests", "%zu", n);
    attrf(w, "failures", "%zu", fails);
    attr(w, "errors", "0");
    for (size_t i = 0; i < n; i++) {
        const struct ry_port_stats *p = &ps[i];
        el(w, "testcase");
        attrf(w, "classname", "rail%d", p->rail);
        attrf(w, "name", "%s/rail%d", p->node, p->rail);
        if (p->failed) {
            el(w, "failure");
            attr(w, "type", "link");
            attrf(w, "message", "%zu of %zu links failed (with %s%s%s%s%s%s)", p->failed, p->links,
                  p->failed_peer[0] ? p->failed_peer[0] : "?", p->failed_peer[1] ? ", " : "",
                  p->failed_peer[1] ? p->failed_peer[1] : "", p->failed_peer[2] ? ", " : "",
                  p->failed_peer[2] ? p->failed_peer[2] : "", p->failed > 3 ? ", ..." : "");
            end(w);
        } else {
            char out[160];
            snprintf(out, sizeof(out), "%zu links, lowest %.3f Gb/s, median %.3f Gb/s", p->links,
                     p->min_gbps, p->median_gbps);
            leaf(w, "system-out", out);
        }
        end(w);
    }
    end(w);
}

static void junit_links(struct w *w, const struct ry_report *r)
{
    const struct ry_report_links *lv = ry_report_links(r);
    size_t i, fails = 0;

    if (lv->n > RY_REPORT_LINK_DETAIL) {
        junit_ports(w, r);
        return;
    }
    for (i = 0; i < lv->n; i++)
        fails += !(lv->v[i].flags & RY_LINK_OK);
    el(w, "testsuite");
    attr(w, "name", "railyard-fabric links");
    attrf(w, "tests", "%zu", lv->n);
    attrf(w, "failures", "%zu", fails);
    attr(w, "errors", "0");
    for (i = 0; i < lv->n; i++) {
        const struct ry_link *l = &lv->v[i];
        const char *from = ry_link_node(lv, l->from), *to = ry_link_node(lv, l->to);
        el(w, "testcase");
        attrf(w, "classname", "rail%d", l->rail);
        attrf(w, "name", "%s->%s (round %d)", from ? from : "?", to ? to : "?", (int)l->round);
        if (!(l->flags & RY_LINK_OK)) {
            const char *e = ry_link_strings(lv, l).error;
            el(w, "failure");
            attr(w, "type", "link");
            attr(w, "message", e ? e : "failed");
            end(w);
        } else {
            char out[128];
            snprintf(out, sizeof(out), "%.3f Gb/s", isnan(l->bw_gbps) ? 0 : l->bw_gbps);
            leaf(w, "system-out", out);
        }
        end(w);
    }
    end(w);
}

int ry_render_junit(const struct ry_report *r, FILE *fp, ry_error_t *err)
{
    json_t *root = ry_report_json(r);
    xmlBufferPtr b;
    struct w w;
    char suite[512];

    if (open_writer(&w, &b, err) < 0)
        return -1;
    xmlTextWriterStartDocument(w.x, NULL, "UTF-8", NULL);
    el(&w, "testsuites");
    attr(&w, "name", "railyard");
    if (!strcmp(ry_report_tool(r), "fabric"))
        junit_links(&w, r);
    snprintf(suite, sizeof(suite), "railyard %s%s%s", ry_report_tool(r),
             str(root, "node") ? " " : "", str(root, "node") ? str(root, "node") : "");
    junit_findings(&w, root, suite);
    end(&w);
    return close_writer(&w, b, fp, err);
}

/* ---- HTML ---- */

static const char *css =
    "body{font:14px/1.4 sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse;margin:.5em 0 1.5em}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}"
    "th{background:#f2f2f2}.fail{background:#fdd}.warn{background:#ffd}"
    ".sev-fail{color:#b00;font-weight:bold}.sev-warn{color:#a60;font-weight:bold}"
    ".hint{color:#555;font-size:90%}.meta th{width:10em}svg text{font:11px sans-serif}"
    ".legend span{display:inline-block;width:1.2em;height:1em;margin:0 .3em 0 1em;"
    "vertical-align:middle}";

static const char *frac_colour(double f)
{
    return isnan(f)   ? "#bbbbbb"
           : f >= 0.9 ? "#2e7d32"
           : f >= 0.7 ? "#9ccc65"
           : f >= 0.5 ? "#fbc02d"
                      : "#c62828";
}

static void meta_row(struct w *w, const char *k, const char *v)
{
    if (!v)
        return;
    el(w, "tr");
    leaf(w, "th", k);
    leaf(w, "td", v);
    end(w);
}

/* a table (id: its id attribute, or NULL) and its header row of the NULL-terminated cols; the
 * table is left open */
static void table_open(struct w *w, const char *id, const char *const *cols)
{
    el(w, "table");
    if (id)
        attr(w, "id", id);
    el(w, "tr");
    for (; *cols; cols++)
        leaf(w, "th", *cols);
    end(w);
}

static void html_findings(struct w *w, json_t *root)
{
    json_t *fs = json_object_get(root, "findings"), *f;
    size_t i, nok = 0;
    static const char *const order[] = { "fail", "warn" };

    leaf(w, "h2", "Findings");
    table_open(
        w, "findings",
        (const char *const[]){ "severity", "check", "subject", "expected", "observed", NULL });
    for (int pass = 0; pass < 2; pass++)
        json_array_foreach(fs, i, f)
        {
            const char *sev = str(f, "severity");
            if (!sev || strcmp(sev, order[pass]))
                continue;
            el(w, "tr");
            attr(w, "class", sev);
            el(w, "td");
            attrf(w, "class", "sev-%s", sev);
            text(w, sev);
            end(w);
            leaf(w, "td", str(f, "check"));
            leaf(w, "td", str(f, "subject"));
            leaf(w, "td", str(f, "expected") ? str(f, "expected") : "n/a");
            el(w, "td");
            text(w, str(f, "observed") ? str(f, "observed") : "n/a");
            if (str(f, "hint")) {
                el(w, "br");
                end_void(w);
                el(w, "span");
                attr(w, "class", "hint");
                text(w, str(f, "hint"));
                end(w);
            }
            end(w);
            end(w);
        }
    json_array_foreach(fs, i, f) nok += str(f, "severity") && !strcmp(str(f, "severity"), "ok");
    end(w);
    el(w, "p");
    textf(w, "%zu checks passed.", nok);
    end(w);
}

/* the nodes of a fabric report: node_names, else those the links name */
static size_t node_list(json_t *root, const char ***names)
{
    json_t *nn = json_object_get(root, "node_names"), *v;
    size_t i, n = 0;

    *names = xcalloc(json_array_size(nn) + 1, sizeof(**names));
    json_array_foreach(nn, i, v) if (json_is_string(v))(*names)[n++] = json_string_value(v);
    return n;
}

/* N x N per rail: colour by the fraction of the rail's reference (median of its links). Past
 * MAX_CELLS nodes a side, nodes are taken in blocks and a cell shows the worst link of its
 * block, so the page stays small for any cluster size. */
#define MAX_CELLS 64

static void legend(struct w *w, const char *colour, const char *label)
{
    el(w, "span");
    attrf(w, "style", "background:%s", colour);
    end(w);
    text(w, label);
}

static void html_heatmaps(struct w *w, const struct ry_report *rep)
{
    json_t *root = ry_report_json(rep);
    const struct ry_report_links *lv = ry_report_links(rep);
    int rails = inum(root, "rails", 0);
    const char **names;
    size_t n = node_list(root, &names), i, blk, g, cells;
    const int cell = 22, left = 110, top = 70;
    double *ref, *median, *worst, *gratio;
    int *state;
    uint32_t *at; /* a link's node index -> its place in names */

    if (!n || rails < 1 || rails > 1024 || !lv->n) {
        free(names);
        return;
    }
    /* names holds node_names' strings in order; the links' indexes count every entry */
    at = xcalloc(lv->nnames + 1, sizeof(*at));
    {
        json_t *index = json_object();
        for (i = 0; i < n; i++)
            if (!json_object_get(index, names[i]))
                json_object_set_new(index, names[i], json_integer((json_int_t)i));
        for (i = 0; i < lv->nnames; i++) {
            json_t *ix = lv->names[i] ? json_object_get(index, lv->names[i]) : NULL;
            at[i] = ix ? (uint32_t)json_integer_value(ix) : RY_LINK_NONE;
        }
        json_decref(index);
    }
    blk = (n + MAX_CELLS - 1) / MAX_CELLS;
    g = (n + blk - 1) / blk;
    cells = g * g;
    ref = xcalloc((size_t)rails, sizeof(*ref));
    median = xcalloc((size_t)rails, sizeof(*median));
    ry_report_rail_refs(rep, rails, ref, median);
    /* one pass: every link into its rail's grid, a cell keeping its worst link */
    worst = xcalloc((size_t)rails * cells, sizeof(*worst));
    state = xcalloc((size_t)rails * cells, sizeof(*state)); /* 0 none, 1 measured, 2 failed */
    /* a cell's lowest share of the wire delivered, <0 unknown */
    gratio = xcalloc((size_t)rails * cells, sizeof(*gratio));
    for (i = 0; i < (size_t)rails * cells; i++)
        gratio[i] = -1;
    for (i = 0; i < lv->n; i++) {
        const struct ry_link *l = &lv->v[i];
        int r = l->rail;
        uint32_t ja = l->from < lv->nnames ? at[l->from] : RY_LINK_NONE,
                 jb = l->to < lv->nnames ? at[l->to] : RY_LINK_NONE;
        size_t c;
        if (r < 0 || r >= rails || ja == RY_LINK_NONE || jb == RY_LINK_NONE)
            continue;
        c = (size_t)r * cells + ((size_t)ja / blk) * g + (size_t)jb / blk;
        if (!(l->flags & RY_LINK_OK))
            state[c] = 2;
        else if (state[c] != 2) {
            double f = ref[r] > 0 && !isnan(l->bw_gbps) ? l->bw_gbps / ref[r] : 0;
            double gr = ry_link_goodput_ratio(l);
            if (!state[c] || f < worst[c])
                worst[c] = f;
            if (gr >= 0 && (gratio[c] < 0 || gr < gratio[c]))
                gratio[c] = gr;
            state[c] = 1;
        }
    }
    free(at);
    leaf(w, "h2", "Pair bandwidth per rail");
    el(w, "p");
    attr(w, "class", "legend");
    text(w, "Sender by row, receiver by column; colour is the link's goodput as a fraction of the "
            "rail's reference (the map's expectation, else the best rail median):");
    legend(w, "#2e7d32", ">= 90%");
    legend(w, "#9ccc65", ">= 70%");
    legend(w, "#fbc02d", ">= 50%");
    legend(w, "#c62828", "< 50% or failed");
    legend(w, "#bbbbbb", "not measured");
    if (blk > 1)
        textf(w, " (%zu nodes: each cell is a block of %zu x %zu, coloured by its worst link)", n,
              blk, blk);
    end(w);
    for (int rail = 0; rail < rails; rail++) {
        const double *wr = worst + (size_t)rail * cells;
        const int *sr = state + (size_t)rail * cells;
        const double *gr = gratio + (size_t)rail * cells;
        el(w, "h3");
        if (isnan(ref[rail]))
            textf(w, "Rail %d (no link measured)", rail);
        else
            textf(w, "Rail %d (reference %.3g Gb/s, median %.3g Gb/s)", rail, ref[rail],
                  isnan(median[rail]) ? 0.0 : median[rail]);
        end(w);
        el(w, "svg");
        attr(w, "xmlns", "http://www.w3.org/2000/svg");
        attr(w, "class", "heatmap");
        attrf(w, "data-rail", "%d", rail);
        attrf(w, "width", "%zu", (size_t)left + g * (size_t)cell + 10);
        attrf(w, "height", "%zu", (size_t)top + g * (size_t)cell + 10);
        for (size_t a = 0; a < g; a++) {
            el(w, "text");
            attrf(w, "x", "%d", left - 4);
            attrf(w, "y", "%zu", (size_t)top + a * (size_t)cell + cell * 2 / 3);
            attr(w, "text-anchor", "end");
            text(w, names[a * blk]);
            end(w);
            el(w, "text");
            attrf(w, "transform", "translate(%zu,%d) rotate(-60)",
                  (size_t)left + a * (size_t)cell + cell / 2, top - 4);
            text(w, names[a * blk]);
            end(w);
        }
        for (size_t a = 0; a < g; a++)
            for (size_t b = 0; b < g; b++) {
                size_t c = a * g + b;
                double f = sr[c] == 1 ? wr[c] : sr[c] == 2 ? 0 : NAN;
                if (a == b && blk == 1)
                    continue;
                el(w, "rect");
                attrf(w, "x", "%zu", (size_t)left + b * (size_t)cell);
                attrf(w, "y", "%zu", (size_t)top + a * (size_t)cell);
                attrf(w, "width", "%d", cell - 2);
                attrf(w, "height", "%d", cell - 2);
                attr(w, "fill", frac_colour(f));
                el(w, "title");
                if (blk > 1)
                    textf(w, "%s.. -> %s.. rail %d: %s", names[a * blk], names[b * blk], rail,
                          sr[c] == 2 ? "a link failed"
                          : sr[c]    ? "worst link"
                                     : "not measured");
                else if (sr[c] == 1 && gr[c] >= 0)
                    textf(w,
                          "%s -> %s rail %d: %.0f%% of the reference, %.2f%% of the wire "
                          "delivered (goodput ratio %.4f)",
                          names[a], names[b], rail, f * 100, gr[c] * 100, gr[c]);
                else if (sr[c] == 1)
                    textf(w, "%s -> %s rail %d: %.0f%% of the reference", names[a], names[b], rail,
                          f * 100);
                else
                    textf(w, "%s -> %s rail %d: %s", names[a], names[b], rail,
                          sr[c] == 2 ? "failed" : "not measured");
                end(w);
                end(w);
            }
        end(w);
    }
    free(ref);
    free(median);
    free(worst);
    free(state);
    free(gratio);
    free(names);
}

/* ---- the node's PCIe layout (pcie_tree), drawn as lstopo draws a machine ---- */

struct tnode {
    json_t *j;
    const char *id, *kind, *label;
    int up;   /* index of the parent, -1 a root */
    int numa; /* own, or the first found below */
    int *kids, nkids;
    double x;
    int depth, sev; /* 2 a failure names it, 1 a warning */
};

/* the worst finding naming the device (its address or its name as the subject's last part) */
static int tree_sev(json_t *root, const char *id, const char *label)
{
    json_t *f;
    size_t i;
    int sev = 0;

    json_array_foreach(json_object_get(root, "findings"), i, f)
    {
        const char *subj = str(f, "subject"), *sv = str(f, "severity"), *last;
        int s;
        if (!subj || !sv || !strcmp(sv, "ok"))
            continue;
        last = strrchr(subj, '/');
        last = last ? last + 1 : subj;
        if (strcmp(last, id) && (!label || strcmp(last, label)))
            continue;
        s = !strcmp(sv, "fail") ? 2 : 1;
        if (s > sev)
            sev = s;
    }
    return sev;
}

static int tree_numa(struct tnode *t, int i)
{
    if (t[i].numa >= 0)
        return t[i].numa;
    for (int k = 0; k < t[i].nkids; k++) {
        int n = tree_numa(t, t[i].kids[k]);
        if (n >= 0)
            return n;
    }
    return -1;
}

/* leaves left to right in the order met; a parent over the middle of its children */
static void tree_place(struct tnode *t, int i, int depth, double *next)
{
    t[i].depth = depth;
    if (!t[i].nkids) {
        t[i].x = (*next)++;
        return;
    }
    for (int k = 0; k < t[i].nkids; k++)
        tree_place(t, t[i].kids[k], depth + 1, next);
    t[i].x = (t[t[i].kids[0]].x + t[t[i].kids[t[i].nkids - 1]].x) / 2;
}

static void link_text(json_t *j, char *buf, size_t len)
{
    int gen = inum(j, "gen", 0), width = inum(j, "width", 0);
    int mg = inum(j, "max_gen", 0), mw = inum(j, "max_width", 0);
    double gb = num(j, "gbytes", 0);

    buf[0] = '\0';
    if (gen > 0 && width > 0) {
        snprintf(buf, len, "Gen%d x%d", gen, width);
        if (mg > 0 && mw > 0 && (mg > gen || mw > width))
            snprintf(buf + strlen(buf), len - strlen(buf), " (of Gen%d x%d)", mg, mw);
    } else if (mg > 0 && mw > 0) /* the input gives what the link is capable of (NCCL) */
        snprintf(buf, len, "Gen%d x%d", mg, mw);
    else if (gb > 0)
        snprintf(buf, len, "%.1f GB/s", gb);
}

static const char *const sev_colour[] = { "#546e7a", "#f9a825", "#c62828" };

static void html_pcie(struct w *w, json_t *root)
{
    json_t *items = json_object_get(root, "pcie_tree"), *j;
    size_t n = json_array_size(items), i;
    struct tnode *t;
    int *roots, nroots = 0, maxdepth = 0, numas[64], nnuma = 0;
    double next = 0;
    const int bw = 112, bh = 36, gx = 124, gy = 78, top = 56, lm = 10;
    char lk[64];

    if (!n || n > 4096)
        return;
    t = xcalloc(n, sizeof(*t));
    roots = xcalloc(n, sizeof(*roots));
    json_array_foreach(items, i, j)
    {
        t[i].j = j;
        t[i].id = str(j, "id") ? str(j, "id") : "?";
        t[i].kind = str(j, "kind") ? str(j, "kind") : "bridge";
        t[i].label = str(j, "label") ? str(j, "label") : t[i].id;
        t[i].numa = inum(j, "numa", -1);
        t[i].up = -1;
        t[i].sev = tree_sev(root, t[i].id, t[i].label);
    }
    for (i = 0; i < n; i++) {
        const char *up = str(t[i].j, "up");
        for (size_t k = 0; up && k < n; k++)
            if (k != i && !strcmp(t[k].id, up) && !strcmp(t[k].kind, "bridge")) {
                t[i].up = (int)k;
                break;
            }
        /* a loop in a damaged report: cut it */
        for (int p = t[i].up, hops = 0; p >= 0; p = t[p].up)
            if (++hops > (int)n || p == (int)i) {
                t[i].up = -1;
                break;
            }
    }
    for (i = 0; i < n; i++) {
        if (t[i].up < 0) {
            roots[nroots++] = (int)i;
            continue;
        }
        t[t[i].up].kids = xrealloc(t[t[i].up].kids, (size_t)(t[t[i].up].nkids + 1) * sizeof(int));
        t[t[i].up].kids[t[t[i].up].nkids++] = (int)i;
    }
    /* roots grouped by NUMA node, each group under a package box */
    for (int r = 0; r < nroots; r++) {
        int nm = tree_numa(t, roots[r]), seen = 0;
        for (int k = 0; k < nnuma; k++)
            seen |= numas[k] == nm;
        if (!seen && nnuma < 64)
            numas[nnuma++] = nm;
    }
    leaf(w, "h2", "PCIe layout");
    el(w, "p");
    attr(w, "class", "legend");
    text(w, "Root ports, switches, GPUs and NICs as the input places them; each link with its "
            "trained generation and width (and what it is capable of when it trained lower):");
    legend(w, sev_colour[2], "a failure names it");
    legend(w, sev_colour[1], "a warning names it");
    end(w);
    {
        double gstart[64], gend[64];
        for (int g = 0; g < nnuma; g++) {
            gstart[g] = next;
            for (int r = 0; r < nroots; r++)
                if (tree_numa(t, roots[r]) == numas[g])
                    tree_place(t, roots[r], 0, &next);
            gend[g] = next;
            next += 0.25; /* a gap between packages */
        }
        for (i = 0; i < n; i++)
            if (t[i].depth > maxdepth)
                maxdepth = t[i].depth;
        el(w, "svg");
        attr(w, "xmlns", "http://www.w3.org/2000/svg");
        attr(w, "class", "pcie-tree");
        attrf(w, "width", "%d", lm + (int)(next * gx) + 20);
        attrf(w, "height", "%d", top + (maxdepth + 1) * gy + 10);
        for (int g = 0; g < nnuma; g++) {
            el(w, "rect");
            attrf(w, "x", "%d", lm + (int)(gstart[g] * gx));
            attr(w, "y", "4");
            attrf(w, "width", "%d", (int)((gend[g] - gstart[g]) * gx) - 12);
            attr(w, "height", "28");
            attr(w, "fill", "#eceff1");
            attr(w, "stroke", "#90a4ae");
            end(w);
            el(w, "text");
            attrf(w, "x", "%d", lm + (int)(gstart[g] * gx) + 6);
            attr(w, "y", "23");
            if (numas[g] >= 0)
                textf(w, "NUMA node %d", numas[g]);
            else
                text(w, "host (NUMA node unknown)");
            end(w);
        }
    }
    /* links first, boxes over them */
    for (i = 0; i < n; i++) {
        int p = t[i].up, x1 = lm + (int)(t[i].x * gx) + bw / 2, y1 = top + t[i].depth * gy;
        int x0 = p >= 0 ? lm + (int)(t[p].x * gx) + bw / 2 : x1, y0 = p >= 0 ? y1 - gy + bh : 32;
        const char *colour = sev_colour[t[i].sev];
        /* a root or downstream port's link is the one below it: drawn on its children's lines */
        int below = json_is_true(json_object_get(t[i].j, "link_below"));
        link_text(t[i].j, lk, sizeof(lk));
        el(w, "line");
        attr(w, "class", t[i].sev ? "pcie-link bad" : "pcie-link");
        attrf(w, "x1", "%d", x0);
        attrf(w, "y1", "%d", y0);
        attrf(w, "x2", "%d", x1);
        attrf(w, "y2", "%d", y1);
        attr(w, "stroke", colour);
        attr(w, "stroke-width", t[i].sev ? "3" : "1.5");
        el(w, "title");
        textf(w, "%s: %s", t[i].label, lk[0] && !below ? lk : "link not known");
        end(w);
        end(w);
        if (lk[0] && !below) {
            el(w, "text");
            attr(w, "class", "pcie-label");
            /* nearer the child than the parent: a switch's links fan out apart */
            attrf(w, "x", "%d", x0 + (x1 - x0) * 6 / 10 + 4);
            attrf(w, "y", "%d", y0 + (y1 - y0) * 6 / 10 + 4);
            attr(w, "font-size", "11");
            attr(w, "fill", colour);
            text(w, lk);
            end(w);
        }
    }
    for (i = 0; i < n; i++) {
        int x = lm + (int)(t[i].x * gx), y = top + t[i].depth * gy;
        const char *model = str(t[i].j, "model");
        int dev = strcmp(t[i].kind, "bridge") != 0;
        el(w, "rect");
        attr(w, "class", t[i].kind);
        attrf(w, "x", "%d", x);
        attrf(w, "y", "%d", y);
        attrf(w, "width", "%d", bw);
        attrf(w, "height", "%d", bh);
        attr(w, "rx", dev ? "4" : "0");
        attr(w, "fill",
             !strcmp(t[i].kind, "gpu")   ? "#e8f5e9"
             : !strcmp(t[i].kind, "nic") ? "#e3f2fd"
                                         : "#ffffff");
        attr(w, "stroke", sev_colour[t[i].sev]);
        attr(w, "stroke-width", t[i].sev ? "3" : "1");
        el(w, "title");
        textf(w, "%s %s%s%s", t[i].label, t[i].id, model ? ": " : "", model ? model : "");
        end(w);
        end(w);
        el(w, "text");
        attrf(w, "x", "%d", x + 5);
        attrf(w, "y", "%d", y + 15);
        attr(w, "font-size", "12");
        text(w, t[i].label);
        end(w);
        el(w, "text");
        attrf(w, "x", "%d", x + 5);
        attrf(w, "y", "%d", y + 29);
        attr(w, "font-size", "10");
        attr(w, "fill", "#546e7a");
        text(w, dev ? t[i].id
                    : (json_is_true(json_object_get(t[i].j, "link_below")) ? "port" : "switch"));
        end(w);
    }
    end(w);
    for (i = 0; i < n; i++)
        free(t[i].kids);
    free(t);
    free(roots);
}

/* The GPU figures a check judged (gpu_bandwidth): a GPU x GPU heat-map per pair test, bars per
 * GPU otherwise; colour is the figure against the test's median on the node (for latency, the
 * median against the figure), the scale of railyard check's sibling rule. */
static void html_gpu(struct w *w, json_t *root)
{
    json_t *caps = json_object_get(root, "gpu_bandwidth"), *cap, *m, *v;
    size_t i, k, j;
    const int cell = 22, left = 60, top = 40, barw = 300;

    if (!json_array_size(caps))
        return;
    leaf(w, "h2", "GPU data paths");
    el(w, "p");
    attr(w, "class", "legend");
    text(w, "Colour is each figure against the node's median for the same test:");
    legend(w, "#2e7d32", ">= 90%");
    legend(w, "#9ccc65", ">= 70%");
    legend(w, "#fbc02d", ">= 50%");
    legend(w, "#c62828", "< 50%");
    end(w);
    json_array_foreach(caps, i, cap)
    {
        int n = inum(cap, "gpus", 0);
        el(w, "h3");
        textf(w, "%s: %s", str(cap, "tool") ? str(cap, "tool") : "?",
              str(cap, "source") ? str(cap, "source") : "?");
        end(w);
        if (n < 1 || n > 1024)
            continue;
        json_array_foreach(json_object_get(cap, "measurements"), k, m)
        {
            json_t *vals = json_object_get(m, "values");
            size_t nv = json_array_size(vals), used = 0;
            int pair = 0, lat = str(m, "unit") && !strcmp(str(m, "unit"), "us");
            double *x = xcalloc(nv + 1, sizeof(*x)), med, hi = 0;
            json_array_foreach(vals, j, v)
            {
                pair |= json_object_get(v, "peer") != NULL;
                x[used++] = num(v, "value", 0);
                if (x[used - 1] > hi)
                    hi = x[used - 1];
            }
            if (!used) {
                free(x);
                continue;
            }
            med = topo_bw_median(x, used);
            free(x);
            el(w, "h4");
            textf(w, "%s (%s, median %.4g)", str(m, "name") ? str(m, "name") : "?",
                  lat ? "us" : "GB/s", med);
            end(w);
            el(w, "svg");
            attr(w, "xmlns", "http://www.w3.org/2000/svg");
            attr(w, "class", pair ? "gpu-heatmap" : "gpu-bars");
            attrf(w, "width", "%d", pair ? left + n * cell + 10 : left + barw + 80);
            attrf(w, "height", "%d", pair ? top + n * cell + 10 : n * cell + 10);
            for (int g = 0; g < n && pair; g++) {
                el(w, "text");
                attrf(w, "x", "%d", left - 4);
                attrf(w, "y", "%d", top + g * cell + cell * 2 / 3);
                attr(w, "text-anchor", "end");
                textf(w, "gpu%d", g);
                end(w);
                el(w, "text");
                attrf(w, "x", "%d", left + g * cell + 2);
                attrf(w, "y", "%d", top - 6);
                textf(w, "%d", g);
                end(w);
            }
            json_array_foreach(vals, j, v)
            {
                int a = inum(v, "gpu", -1), b = inum(v, "peer", -1);
                double val = num(v, "value", 0), f = lat       ? (val > 0 ? med / val : 0)
                                                     : med > 0 ? val / med
                                                               : 0;
                if (a < 0 || a >= n || (pair && (b < 0 || b >= n)))
                    continue;
                el(w, "rect");
                if (pair) {
                    attrf(w, "x", "%d", left + b * cell);
                    attrf(w, "y", "%d", top + a * cell);
                    attrf(w, "width", "%d", cell - 2);
                    attrf(w, "height", "%d", cell - 2);
                } else {
                    attrf(w, "x", "%d", left);
                    attrf(w, "y", "%d", a * cell + 4);
                    attrf(w, "width", "%d", hi > 0 ? (int)(barw * val / hi) + 1 : 1);
                    attrf(w, "height", "%d", cell - 4);
                }
                attr(w, "fill", frac_colour(f));
                el(w, "title");
                if (pair)
                    textf(w, "gpu%d -> gpu%d: %.4g %s", a, b, val, lat ? "us" : "GB/s");
                else
                    textf(w, "gpu%d: %.4g %s", a, val, lat ? "us" : "GB/s");
                end(w);
                end(w);
                if (!pair) {
                    el(w, "text");
                    attrf(w, "x", "%d", left - 4);
                    attrf(w, "y", "%d", a * cell + cell * 2 / 3);
                    attr(w, "text-anchor", "end");
                    textf(w, "gpu%d", a);
                    end(w);
                    el(w, "text");
                    attrf(w, "x", "%d", left + (hi > 0 ? (int)(barw * val / hi) : 0) + 6);
                    attrf(w, "y", "%d", a * cell + cell * 2 / 3);
                    textf(w, "%.4g", val);
                    end(w);
                }
            }
            end(w);
        }
    }
}

/* nodes x rails: each port coloured by the worst finding naming it; rail.cabling drawn as
 * crossing lines */
static int cmp_version(const void *a, const void *b)
{
    return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* One cell of the rail diagram: a node's port on a rail. */
struct rcell {
    const char *leaf;   /* the switch its cable reaches (cabling), NULL unknown */
    int leaf_rail;      /* that leaf's rail, -1 unknown */
    const char *colour; /* from the findings about the port */
    const char *why;
    int crossed; /* a rail.cabling finding */
};

/* The node of a cabling entry or finding subject "host/rail3" (railyard-fabric), or the
 * cabling entry's subject "host/hca:port" (railyard fabric). */
static void cell_finding(struct rcell *c, json_t *f)
{
    const char *sev = str(f, "severity"), *check = str(f, "check");

    if (!sev || !strcmp(sev, "ok"))
        return;
    if (!strcmp(sev, "fail") || strcmp(c->colour, "#c62828")) {
        c->colour = !strcmp(sev, "fail") ? "#c62828" : "#fbc02d";
        c->why = check;
    }
    c->crossed |= check && !strcmp(check, "rail.cabling");
}

/* Nodes x rails, each port a cell named after the leaf its cable reaches when the cabling is
 * known (a `railyard fabric` report: its own, or for railyard-fabric the archive's newest), red
 * or yellow from the findings about it; a port cabled to another rail's leaf is drawn with its
 * cable crossing into that rail's column, one the latency judged miscabled (rail.cabling) is
 * crossed out. */
static void html_rails(struct w *w, json_t *root, json_t *fabric)
{
    json_t *fs = json_object_get(root, "findings"), *cab = json_object_get(root, "cabling");
    json_t *index = json_object(), *subjects = json_object(), *f, *x;
    int rails = inum(root, "rails", 0), own = json_is_array(cab);
    const char **names;
    size_t n = node_list(root, &names), i;
    struct rcell *cells;
    char **leaves;
    const int cw = 96, ch = 22, pad = 120, top = 46;

    if (!own)
        cab = json_object_get(fabric, "cabling");
    if (!n && own) /* a fabric report: its hosts with a rail, in order */
        json_array_foreach(cab, i, x)
        {
            const char *h = str(x, "host");
            json_t *rv = json_object_get(x, "rail");
            if (!h || !json_is_integer(rv) || json_object_get(index, h))
                continue;
            names = xrealloc(names, (n + 2) * sizeof(*names));
            json_object_set_new(index, h, json_integer((json_int_t)n));
            names[n++] = h;
            if (json_integer_value(rv) + 1 > rails && json_integer_value(rv) < 1024)
                rails = (int)json_integer_value(rv) + 1;
        }
    if (own && n) { /* gpu2 before gpu10 */
        qsort(names, n, sizeof(*names), cmp_version);
        json_object_clear(index);
    }
    if (!json_object_size(index))
        for (i = 0; i < n; i++)
            json_object_set_new(index, names[i], json_integer((json_int_t)i));
    if (!n || rails < 1 || rails > 1024) {
        if (own) {
            leaf(w, "h2", "Rails");
            leaf(w, "p", "No rail diagram: the map (--map) gives no NIC a rail.");
        }
        free(names);
        json_decref(index);
        json_decref(subjects);
        return;
    }
    cells = xcalloc(n * (size_t)rails, sizeof(*cells));
    leaves = xcalloc((size_t)rails, sizeof(*leaves));
    for (i = 0; i < n * (size_t)rails; i++) {
        cells[i].colour = "#2e7d32";
        cells[i].why = "no finding";
        cells[i].leaf_rail = -1;
    }
    json_array_foreach(cab, i, x)
    {
        json_t *ix = json_object_get(index, str(x, "host") ? str(x, "host") : "");
        json_t *rv = json_object_get(x, "rail"), *lr = json_object_get(x, "leaf_rail");
        struct rcell *c;
        if (!ix || !json_is_integer(rv) || json_integer_value(rv) < 0 ||
            json_integer_value(rv) >= rails)
            continue;
        c = &cells[(size_t)json_integer_value(ix) * (size_t)rails + (size_t)json_integer_value(rv)];
        c->leaf = str(x, "leaf");
        c->leaf_rail = json_is_integer(lr) ? (int)json_integer_value(lr) : -1;
        if (own && str(x, "subject"))
            json_object_set_new(
                subjects, str(x, "subject"),
                json_integer(json_integer_value(ix) * rails + json_integer_value(rv)));
        if (c->leaf && c->leaf_rail >= 0 && c->leaf_rail < rails &&
            (!leaves[c->leaf_rail] ||
             (strlen(leaves[c->leaf_rail]) < 200 && !strstr(leaves[c->leaf_rail], c->leaf)))) {
            char *old = leaves[c->leaf_rail];
            leaves[c->leaf_rail] = xasprintf("%s%s%s", old ? old : "", old ? " " : "", c->leaf);
            free(old);
        }
    }
    json_array_foreach(fs, i, f)
    {
        const char *sub = str(f, "subject"), *slash;
        json_t *ix;
        if (!sub)
            continue;
        if ((ix = json_object_get(subjects, sub))) /* "host/hca:port" */
            cell_finding(&cells[json_integer_value(ix)], f);
        else if ((slash = strrchr(sub, '/')) && !strncmp(slash, "/rail", 5)) {
            char host[256], *end;
            long r = strtol(slash + 5, &end, 10);
            snprintf(host, sizeof(host), "%.*s", (int)(slash - sub), sub);
            if (!*end && end != slash + 5 && r >= 0 && r < rails &&
                (ix = json_object_get(index, host)))
                cell_finding(&cells[(size_t)json_integer_value(ix) * (size_t)rails + (size_t)r], f);
        }
    }

    leaf(w, "h2", "Rails");
    if (json_array_size(cab) && !own) {
        json_t *run = json_object_get(fabric, "run");
        el(w, "p");
        textf(w, "Leaf per port from the InfiniBand fabric run %s (%s).",
              str(run, "id") ? str(run, "id") : "n/a",
              str(run, "finished") ? str(run, "finished") : "not finished");
        end(w);
    } else if (!own)
        leaf(w, "p",
             "Leaf per port: n/a (no `railyard fabric` run in this archive to take the "
             "cabling from).");
    el(w, "svg");
    attr(w, "xmlns", "http://www.w3.org/2000/svg");
    attr(w, "class", "rails");
    attrf(w, "width", "%d", pad + rails * cw + 10);
    attrf(w, "height", "%zu", (size_t)top + n * (size_t)ch + 10);
    for (int r = 0; r < rails; r++) {
        el(w, "text");
        attrf(w, "x", "%d", pad + r * cw + cw / 2);
        attr(w, "y", "18");
        attr(w, "text-anchor", "middle");
        textf(w, "rail %d", r);
        end(w);
        if (leaves[r]) {
            el(w, "text");
            attrf(w, "x", "%d", pad + r * cw + cw / 2);
            attr(w, "y", "34");
            attr(w, "text-anchor", "middle");
            attr(w, "class", "leaves");
            textf(w, "%.40s", leaves[r]);
            el(w, "title");
            textf(w, "leaves of rail %d: %s", r, leaves[r]);
            end(w);
            end(w);
        }
    }
    for (size_t a = 0; a < n; a++) {
        size_t y = (size_t)top + a * (size_t)ch;
        el(w, "text");
        attrf(w, "x", "%d", pad - 6);
        attrf(w, "y", "%zu", y + ch * 2 / 3);
        attr(w, "text-anchor", "end");
        text(w, names[a]);
        end(w);
        for (int r = 0; r < rails; r++) {
            struct rcell *c = &cells[a * (size_t)rails + (size_t)r];
            int other = c->leaf_rail >= 0 && c->leaf_rail != r;
            int x0 = pad + r * cw + 4, x1 = pad + r * cw + cw - 4;
            el(w, "rect");
            attrf(w, "x", "%d", x0);
            attrf(w, "y", "%zu", y);
            attrf(w, "width", "%d", cw - 8);
            attrf(w, "height", "%d", ch - 4);
            attr(w, "fill", other ? "#c62828" : c->colour);
            el(w, "title");
            if (c->leaf)
                textf(w, "%s rail %d: cabled to %s%s; %s", names[a], r, c->leaf,
                      other ? " (a leaf of another rail)" : "", c->why);
            else
                textf(w, "%s rail %d: %s", names[a], r, c->why);
            end(w);
            end(w);
            if (c->leaf) {
                el(w, "text");
                attrf(w, "x", "%d", x0 + 4);
                attrf(w, "y", "%zu", y + (size_t)ch * 2 / 3 - 1);
                attr(w, "class", "leaf");
                attr(w, "fill", "#fff");
                textf(w, "%.13s", c->leaf);
                end(w);
            }
            if (other)
                continue;   /* its cable is drawn above every cell, below */
            if (c->crossed) /* judged miscabled from latency: crossed out */
                for (int k = 0; k < 2; k++) {
                    el(w, "line");
                    attrf(w, "x1", "%d", x0);
                    attrf(w, "y1", "%zu", y + (size_t)(k ? ch - 4 : 0));
                    attrf(w, "x2", "%d", x1);
                    attrf(w, "y2", "%zu", y + (size_t)(k ? 0 : ch - 4));
                    attr(w, "stroke", "#000");
                    attr(w, "stroke-width", "2");
                    attr(w, "class", "crossed");
                    end(w);
                }
        }
    }
    /* a port cabled to another rail's leaf: its cable drawn crossing into that rail's column */
    for (size_t a = 0; a < n; a++)
        for (int r = 0; r < rails; r++) {
            struct rcell *c = &cells[a * (size_t)rails + (size_t)r];
            size_t y = (size_t)top + a * (size_t)ch + (size_t)(ch - 4) / 2;
            if (c->leaf_rail < 0 || c->leaf_rail == r || c->leaf_rail >= rails)
                continue;
            el(w, "line");
            attrf(w, "x1", "%d", pad + r * cw + cw / 2);
            attrf(w, "y1", "%zu", y);
            attrf(w, "x2", "%d", pad + c->leaf_rail * cw + cw / 2);
            attrf(w, "y2", "%d", 40);
            attr(w, "stroke", "#000");
            attr(w, "stroke-width", "2");
            attr(w, "stroke-dasharray", "5 3");
            attr(w, "class", "crossed");
            el(w, "title");
            textf(w, "%s rail %d is cabled to %s, a leaf of rail %d", names[a], r, c->leaf,
                  c->leaf_rail);
            end(w);
            end(w);
        }
    end(w);
    for (int r = 0; r < rails; r++)
        free(leaves[r]);
    free(leaves);
    free(cells);
    free(names);
    json_decref(index);
    json_decref(subjects);
}

static void html_inventory(struct w *w, json_t *inv)
{
    json_t *gpus = json_object_get(inv, "gpus"), *nics = json_object_get(inv, "nics"), *g;
    size_t i;

    if (!json_is_object(inv))
        return;
    leaf(w, "h2", "Inventory");
    if (json_array_size(gpus)) {
        table_open(w, "gpus", (const char *const[]){ "GPU", "PCI", "model", "NUMA", NULL });
        json_array_foreach(gpus, i, g)
        {
            char idx[16];
            snprintf(idx, sizeof(idx), "%d", inum(g, "index", -1));
            el(w, "tr");
            leaf(w, "td", idx);
            leaf(w, "td", str(g, "pci"));
            leaf(w, "td", str(g, "model") ? str(g, "model") : "n/a");
            snprintf(idx, sizeof(idx), "%d", inum(g, "numa", -1));
            leaf(w, "td", idx);
            end(w);
        }
        end(w);
    }
    if (json_array_size(nics)) {
        table_open(w, "nics", (const char *const[]){ "NIC", "PCI", "netdev", "description", NULL });
        json_array_foreach(nics, i, g)
        {
            el(w, "tr");
            leaf(w, "td", str(g, "name"));
            leaf(w, "td", str(g, "pci") ? str(g, "pci") : "n/a");
            leaf(w, "td", str(g, "netdev") ? str(g, "netdev") : "n/a");
            leaf(w, "td", str(g, "node_desc") ? str(g, "node_desc") : "n/a");
            end(w);
        }
        end(w);
    }
}

/* a result of the collective phase proper (not a localization's step) of op at size bytes */
static int phase_of(json_t *x, const char *op, double size)
{
    return str(x, "op") && !strcmp(str(x, "op"), op) && str(x, "purpose") &&
           !strcmp(str(x, "purpose"), "phase") && num(x, "bytes", 0) == size;
}

/* railyard-fabric's collective phase (--collectives): per collective at the largest size, a bar
 * per rail of its bus bandwidth over the ring bound of the rail's links, and the localization's
 * steps */
static void html_collectives(struct w *w, json_t *root)
{
    json_t *c = json_object_get(root, "collectives"), *res = json_object_get(c, "results"), *x;
    static const char *const ops[] = { "allreduce", "allgather", "reducescatter", "alltoall" };
    const int cell = 26, left = 90, barw = 360;
    double largest = 0;
    size_t i, steps = 0;

    if (!json_is_object(c))
        return;
    leaf(w, "h2", "Collectives");
    el(w, "p");
    textf(w,
          "%s; bus bandwidth (nccl-tests' formulas) against the ring bound of each rail's links "
          "(grey: the bound; colour: the share reached).",
          !str(c, "library")                   ? "Not run"
          : !strcmp(str(c, "library"), "nccl") ? "NCCL on GPU memory"
                                               : "MPI on host memory");
    if (str(c, "note")) {
        text(w, " ");
        text(w, str(c, "note"));
    }
    end(w);
    json_array_foreach(res, i, x)
    {
        const char *p = str(x, "purpose");
        if (p && !strcmp(p, "phase") && num(x, "bytes", 0) > largest)
            largest = num(x, "bytes", 0);
        steps += p && strcmp(p, "phase");
    }
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        double hi = 0;
        int rows = 0;
        json_array_foreach(res, i, x)
        {
            if (!phase_of(x, ops[k], largest))
                continue;
            hi = fmax(hi, fmax(num(x, "bound_gbps", 0), num(x, "busbw_gbps", 0)));
            rows++;
        }
        if (!rows || !(hi > 0))
            continue;
        el(w, "h3");
        textf(w, "%s, %.4g MiB", ops[k], largest / (1024.0 * 1024));
        end(w);
        el(w, "svg");
        attr(w, "xmlns", "http://www.w3.org/2000/svg");
        attr(w, "class", "coll-bars");
        attrf(w, "width", "%d", left + barw + 220);
        attrf(w, "height", "%d", rows * cell + 10);
        rows = 0;
        json_array_foreach(res, i, x)
        {
            json_t *rail = json_object_get(x, "rail");
            /* 0..hi: a bar's width of a hostile report's -1e300 would not fit an int */
            double bw = fmax(num(x, "busbw_gbps", 0), 0), bound = fmax(num(x, "bound_gbps", 0), 0);
            int y = rows * cell + 4;
            char name[32];
            if (!phase_of(x, ops[k], largest))
                continue;
            rows++;
            if (json_is_integer(rail))
                snprintf(name, sizeof(name), "rail %lld", (long long)json_integer_value(rail));
            else
                snprintf(name, sizeof(name), "all ranks");
            el(w, "text");
            attrf(w, "x", "%d", left - 4);
            attrf(w, "y", "%d", y + cell * 2 / 3);
            attr(w, "text-anchor", "end");
            text(w, name);
            end(w);
            if (bound > 0) {
                el(w, "rect");
                attrf(w, "x", "%d", left);
                attrf(w, "y", "%d", y);
                attrf(w, "width", "%d", (int)(barw * bound / hi) + 1);
                attrf(w, "height", "%d", cell - 6);
                attr(w, "fill", "#e0e0e0");
                el(w, "title");
                textf(w, "%s: bound %.4g Gb/s", name, bound);
                end(w);
                end(w);
            }
            el(w, "rect");
            attrf(w, "x", "%d", left);
            attrf(w, "y", "%d", y + 4);
            attrf(w, "width", "%d", (int)(barw * bw / hi) + 1);
            attrf(w, "height", "%d", cell - 14);
            attr(w, "fill", bound > 0 ? frac_colour(bw / bound) : "#546e7a");
            el(w, "title");
            textf(w, "%s: %.4g Gb/s bus bandwidth, %s", name, bw,
                  str(x, "verdict") ? str(x, "verdict") : "?");
            end(w);
            end(w);
            el(w, "text");
            attrf(w, "x", "%d", left + (int)(barw * fmax(bw, bound) / hi) + 6);
            attrf(w, "y", "%d", y + cell * 2 / 3);
            if (bound > 0)
                textf(w, "%.4g of %.4g Gb/s (%.0f%%)", bw, bound, 100 * bw / bound);
            else
                textf(w, "%.4g Gb/s", bw);
            end(w);
        }
        end(w);
    }
    if (!steps)
        return;
    leaf(w, "h3", "Localization");
    table_open(w, NULL,
               (const char *const[]){ "step", "collective", "rail", "nodes", "bus bandwidth",
                                      "verdict", NULL });
    json_array_foreach(res, i, x)
    {
        json_t *nodes = json_object_get(x, "nodes"), *n;
        char list[256] = "";
        size_t j;
        if (!str(x, "purpose") || !strcmp(str(x, "purpose"), "phase"))
            continue;
        json_array_foreach(nodes, j, n)
        {
            if (json_is_string(n))
                ry_appendf(list, sizeof(list), "%s%s", j ? ", " : "", json_string_value(n));
        }
        if (!list[0])
            snprintf(list, sizeof(list), "every node");
        el(w, "tr");
        leaf(w, "td", str(x, "purpose"));
        leaf(w, "td", str(x, "op"));
        el(w, "td");
        textf(w, "%g", num(x, "rail", -1));
        end(w);
        leaf(w, "td", list);
        el(w, "td");
        if (json_is_true(json_object_get(x, "ok")))
            textf(w, "%.4g Gb/s", num(x, "busbw_gbps", 0));
        else
            text(w, str(x, "error") ? str(x, "error") : "failed");
        end(w);
        leaf(w, "td", str(x, "verdict"));
        end(w);
    }
    end(w);
}

int ry_render_html(const struct ry_report *r, const char *inventory, const char *fabric, FILE *fp,
                   ry_error_t *err)
{
    json_t *root = ry_report_json(r), *run = json_object_get(root, "run"), *inv = NULL;
    json_t *fab = NULL;
    xmlBufferPtr b;
    struct w w;
    char title[512];

    if (inventory) {
        json_error_t je;
        inv = json_load_file(inventory, 0, &je); /* optional: a bad one is left out */
    }
    if (fabric) {
        json_error_t je;
        fab = json_load_file(fabric, 0, &je); /* the same */
    }
    if (open_writer(&w, &b, err) < 0) {
        json_decref(inv);
        json_decref(fab);
        return -1;
    }
    if (!strcmp(ry_report_tool(r), "ib"))
        snprintf(title, sizeof(title), "railyard fabric (InfiniBand)%s%.200s",
                 str(root, "cluster") ? " " : "", str(root, "cluster") ? str(root, "cluster") : "");
    else
        snprintf(title, sizeof(title), "railyard %s%s%.200s", ry_report_tool(r),
                 str(root, "node") ? " " : "", str(root, "node") ? str(root, "node") : "");
    el(&w, "html");
    attr(&w, "lang", "en");
    el(&w, "head");
    el(&w, "meta");
    attr(&w, "charset", "utf-8");
    end_void(&w);
    leaf(&w, "title", title);
    leaf(&w, "style", css);
    end(&w);
    el(&w, "body");
    leaf(&w, "h1", title);
    el(&w, "table");
    attr(&w, "class", "meta");
    meta_row(&w, "verdict", ry_report_verdict(r) ? ry_report_verdict(r) : "n/a");
    meta_row(&w, "complete", ry_report_complete(r) ? "yes" : "no: the run was cut short");
    meta_row(&w, "run", str(run, "id"));
    meta_row(&w, "started", str(run, "started"));
    meta_row(&w, "finished", str(run, "finished"));
    meta_row(&w, "command", str(run, "command"));
    meta_row(&w, "host", str(run, "host"));
    meta_row(&w, "map", str(root, "map"));
    meta_row(&w, "sources", str(root, "sources"));
    meta_row(&w, "transport", str(root, "transport"));
    meta_row(&w, "schedule", str(root, "schedule"));
    meta_row(&w, "railyard", str(root, "version"));
    end(&w);
    html_findings(&w, root);
    html_heatmaps(&w, r);
    html_collectives(&w, root);
    html_pcie(&w, root);
    html_gpu(&w, root);
    html_rails(&w, root, fab);
    html_inventory(&w, inv);
    end(&w);
    end(&w);
    json_decref(inv);
    json_decref(fab);
    fputs("<!DOCTYPE html>\n", fp);
    return close_writer(&w, b, fp, err);
}

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "reports/findings.h"
#include "topo/gpubw.h"
#include "topo/model.h"

static void print_finding(struct out *o, const struct topo_finding *f, int verbose)
{
    static const char *const label[] = { "ok", "WARN", "FAIL" };
    int show = f->sev != TOPO_SEV_OK || verbose;

    out_obj_open(o, NULL);
    out_str(o, "severity", NULL, topo_sev_name(f->sev));
    if (show)
        out_text(o, "%-4s  ", label[f->sev]);
    out_str(o, "check", show ? "%-20s" : NULL, f->check);
    out_str(o, "subject", show ? " %-22s" : NULL, f->subject);
    out_str(o, "expected", show ? " expected %s" : NULL, f->expected);
    out_str(o, "observed", show ? ", observed %s\n" : NULL, f->observed);
    out_str(o, "hint", show && f->hint ? "      hint: %s\n" : NULL, f->hint);
    out_obj_close(o);
}

void report_findings(struct out *o, const struct topo_findings *f, int verbose)
{
    out_arr_open(o, "findings");
    for (size_t i = 0; i < f->n; i++)
        print_finding(o, &f->v[i], verbose);
    out_arr_close(o);
    /* what could not be judged is said, in text and JSON: never a silent pass */
    out_arr_open(o, "not_judged");
    for (size_t i = 0; i < f->nunjudged; i++)
        out_str(o, NULL, "not judged: %s\n", f->unjudged[i]);
    out_arr_close(o);
    out_obj_open(o, "summary");
    out_u64(o, "fail", "%s failed", f->nfail);
    out_u64(o, "warn", ", %s warnings", f->nwarn);
    out_u64(o, "ok", ", %s passed", f->nok);
    out_obj_close(o);
}

/* One group of the capture: a row per GPU, or a GPU x GPU matrix (row: the source). */
static void print_group(struct out *o, const struct topo_bw_capture *c, int g, int text)
{
    int pair = 0, n = c->ngpus, lat = 0;
    double *m = calloc((size_t)n * (size_t)(n + 1), sizeof(*m));

    if (!m)
        return;
    for (int i = 0; i < n * (n + 1); i++)
        m[i] = -1;
    for (size_t i = 0; i < c->n; i++) {
        const struct topo_bw *v = &c->v[i];
        if (v->group != g)
            continue;
        lat = topo_bw_is_latency(v->kind);
        if (v->b >= 0 && v->a != v->b) {
            pair = 1;
            m[v->a * n + v->b] = v->value;
        } else
            m[n * n + v->a] = v->value;
    }
    out_obj_open(o, NULL);
    out_str(o, "name", text ? "\n%s" : NULL, c->groups[g]);
    out_str(o, "unit", text ? " (%s)\n" : NULL, lat ? "us" : "GB/s");
    if (!text)
        out_mute_text(o, 1);
    out_arr_open(o, "values");
    out_text(o, "%6s", pair ? "src\\dst" : "");
    for (int b = 0; b < n; b++)
        out_text(o, " %9d", b);
    out_text(o, "\n");
    for (int a = 0; a < (pair ? n : 1); a++) {
        if (pair)
            out_text(o, "%6d", a);
        else
            out_text(o, "%6s", "");
        for (int b = 0; b < n; b++) {
            double x = pair ? m[a * n + b] : m[n * n + b];
            if (pair && a == b) /* the diagonal: a copy within the GPU, when measured */
                x = m[n * n + a];
            if (x < 0) {
                out_text(o, " %9s", pair && a == b ? "-" : "n/a");
                continue;
            }
            out_text(o, " %9.*f", lat ? 2 : 1, x);
            out_obj_open(o, NULL);
            out_int(o, "gpu", NULL, pair ? a : b);
            if (pair)
                out_int(o, "peer", NULL, b);
            out_double(o, "value", NULL, 3, x, 1);
            out_obj_close(o);
        }
        out_text(o, "\n");
    }
    out_arr_close(o);
    if (!text)
        out_mute_text(o, 0);
    out_obj_close(o);
    free(m);
}

void report_bw_measurements_of(struct out *o, struct topo_bw_capture *const *c, size_t n, int text)
{
    out_arr_open(o, "measurements");
    for (size_t i = 0; i < n; i++)
        for (size_t g = 0; g < c[i]->ngroups; g++)
            print_group(o, c[i], (int)g, text);
    out_arr_close(o);
    if (text)
        out_text(o, "\n");
}

void report_bw_measurements(struct out *o, const struct topo_bw_capture *c, int text)
{
    struct topo_bw_capture *one = (struct topo_bw_capture *)c;

    report_bw_measurements_of(o, &one, 1, text);
}

void report_bw_captures(struct out *o, const struct topo_node *node, int text)
{
    if (!node->nbw)
        return;
    out_arr_open(o, "gpu_bandwidth");
    for (size_t i = 0; i < node->nbw; i++) {
        const struct topo_bw_capture *c = node->bw[i];
        out_obj_open(o, NULL);
        out_str(o, "tool", text ? "  measured %s" : NULL, c->tool);
        out_str(o, "source", text ? " (%s)" : NULL, c->path);
        out_int(o, "gpus", text ? ", %s GPU(s)\n" : NULL, c->ngpus);
        report_bw_measurements(o, c, text);
        out_obj_close(o);
    }
    out_arr_close(o);
}

/* one device or bridge of the PCIe tree */
static void tree_item(struct out *o, const struct topo_node *node, const char *id, const char *kind,
                      const char *label, const char *model, int up, int numa,
                      const struct topo_pcie_link *l, int faces_down)
{
    out_obj_open(o, NULL);
    out_str(o, "id", NULL, id);
    out_str(o, "kind", NULL, kind);
    out_str(o, "label", NULL, label);
    out_str(o, "model", NULL, model);
    out_str(o, "up", NULL, up >= 0 && (size_t)up < node->nbridges ? node->bridges[up].busid : NULL);
    out_int_opt(o, "numa", NULL, numa, numa >= 0);
    out_int_opt(o, "gen", NULL, l->cur_gen, l->cur_gen > 0);
    out_int_opt(o, "width", NULL, l->cur_width, l->cur_width > 0);
    out_int_opt(o, "max_gen", NULL, l->max_gen, l->max_gen > 0);
    out_int_opt(o, "max_width", NULL, l->max_width, l->max_width > 0);
    out_double(o, "gbytes", NULL, 1, l->cur_gbytes, l->cur_gbytes > 0);
    out_bool(o, "link_below", NULL, faces_down);
    out_obj_close(o);
}

void report_pcie_tree(struct out *o, const struct topo_node *node)
{
    char label[32];
    int any = 0;

    for (size_t i = 0; i < node->ngpus && !any; i++)
        any = node->gpus[i].loc.busid[0] != '\0';
    for (size_t i = 0; i < node->nnics && !any; i++)
        any = node->nics[i].loc.busid[0] != '\0';
    if (!any)
        return;
    out_arr_open(o, "pcie_tree");
    for (size_t i = 0; i < node->nbridges; i++) {
        const struct topo_bridge *b = &node->bridges[i];
        tree_item(o, node, b->busid, "bridge", b->busid, NULL, b->up, -1, &b->link, b->faces_down);
    }
    for (size_t i = 0; i < node->ngpus; i++) {
        const struct topo_gpu *g = &node->gpus[i];
        if (!g->loc.busid[0])
            continue;
        snprintf(label, sizeof(label), "gpu%d", g->index >= 0 ? g->index : (int)i);
        tree_item(o, node, g->loc.busid, "gpu", label, g->model, g->loc.up, g->loc.numa, &g->link,
                  0);
    }
    for (size_t i = 0; i < node->nnics; i++) {
        const struct topo_nic *n = &node->nics[i];
        if (!n->loc.busid[0])
            continue;
        tree_item(o, node, n->loc.busid, "nic", n->name, n->model ? n->model : n->hca_type,
                  n->loc.up, n->loc.numa, &n->link, 0);
    }
    out_arr_close(o);
}

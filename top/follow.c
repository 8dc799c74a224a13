#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef HAVE_JANSSON
#include <jansson.h>
#endif

#include "common/xmalloc.h"
#include "reports/render.h"
#ifdef HAVE_JANSSON
#include "reports/render_json.h"
#endif
#include "top/source.h"

/* railyard top --follow RUN_DIR: the results.json a railyard-fabric run (-o RUN_DIR) rewrites
 * after every round, or an archived run's report.json, read at every refresh (as every
 * rendering reads a report, reports/render.h) into the pair matrix, one row per port and the
 * findings so far. */

#ifdef HAVE_JANSSON
int top_follow_sample(struct top_source *s, struct top_model *m, ry_error_t *err)
{
    char path[4200];
    struct stat st;
    struct ry_report *rep;
    json_t *root, *names, *l, *v;
    const struct ry_report_links *lv;
    size_t i, nfailed = 0, nmeasured = 0;
    int nodes, rails;
    double *ref, *median;

    snprintf(path, sizeof(path), "%s/results.json", s->follow_dir);
    if (stat(path, &st) < 0)
        snprintf(path, sizeof(path), "%s/report.json", s->follow_dir);
    if (stat(path, &st) < 0) {
        snprintf(m->empty_why, sizeof(m->empty_why),
                 "waiting for %.100s/results.json (railyard-fabric -o %.100s)", s->follow_dir,
                 s->follow_dir);
        return 0;
    }
    /* being replaced right now, or damaged: said, and read again at the next refresh */
    if (!(rep = ry_report_load(path, err)))
        return -1;
    root = ry_report_json(rep);
    names = json_object_get(root, "node_names");
    lv = ry_report_links(rep);
    nodes = (int)json_array_size(names);
    rails = (int)json_integer_value(json_object_get(root, "rails"));
    if (!json_is_array(names) ||
        !(json_is_array(json_object_get(root, "links")) ||
          json_is_object(json_object_get(root, "links_file"))) ||
        rails < 1 || rails > 64 || nodes > 4096) {
        ry_report_free(rep);
        return ry_errorf(err, "%s: not a railyard-fabric result (node_names, rails, links)", path);
    }
    if (nodes != m->mnodes || rails != m->mrails) {
        free(m->mnames);
        free(m->matrix);
        m->mnodes = nodes;
        m->mrails = rails;
        m->mnames = xcalloc((size_t)nodes + 1, sizeof(*m->mnames));
        m->matrix = xcalloc((size_t)nodes * (size_t)nodes * (size_t)rails + 1, 1);
    }
    memset(m->matrix, 0, (size_t)nodes * (size_t)nodes * (size_t)rails);
    json_array_foreach(names, i, v) snprintf(m->mnames[i], sizeof(m->mnames[i]), "%s",
                                             json_string_value(v) ? json_string_value(v) : "?");
    ref = xcalloc((size_t)rails, sizeof(*ref));
    median = xcalloc((size_t)rails, sizeof(*median));
    ry_report_rail_refs(rep, rails, ref, median);
    for (int a = 0; a < nodes; a++)
        for (int r = 0; r < rails; r++) {
            struct top_port *p;
            char dev[16];
            snprintf(dev, sizeof(dev), "rail%d", r);
            p = top_model_port(m, m->mnames[a], dev, 0);
            p->rail = r;
            p->state = TOP_STATE_UNKNOWN;
            snprintf(p->state_text, sizeof(p->state_text), "pending");
            p->rate_gbps = NAN;
            p->peer[0] = '\0';
        }
    for (i = 0; i < lv->n; i++) {
        /* node indexes below node_names' count are its places */
        const struct ry_link *k = &lv->v[i];
        int r = k->rail, a = k->from < (uint32_t)nodes ? (int)k->from : -1,
            b = k->to < (uint32_t)nodes ? (int)k->to : -1, ok = (k->flags & RY_LINK_OK) != 0;
        double bw = k->bw_gbps;
        unsigned char cell;
        if (a < 0 || b < 0 || r < 0 || r >= rails)
            continue;
        cell = !ok                                         ? TOP_CELL_FAILED
               : isnan(ref[r]) || isnan(bw) || ref[r] <= 0 ? TOP_CELL_GOOD
               : bw >= 0.9 * ref[r]                        ? TOP_CELL_GOOD
               : bw >= 0.5 * ref[r]                        ? TOP_CELL_FAIR
                                                           : TOP_CELL_LOW;
        m->matrix[((size_t)r * (size_t)nodes + (size_t)a) * (size_t)nodes + (size_t)b] = cell;
        nmeasured += ok;
        nfailed += !ok;
        for (int e = 0; e < 2; e++) { /* both ends: measured, and the lowest link */
            char dev[16];
            struct top_port *p;
            snprintf(dev, sizeof(dev), "rail%d", r);
            p = top_model_port(m, m->mnames[e ? b : a], dev, 0);
            if (!ok) {
                p->state = TOP_STATE_DOWN;
                snprintf(p->state_text, sizeof(p->state_text), "failed");
            } else if (p->state != TOP_STATE_DOWN) {
                p->state = TOP_STATE_UP;
                snprintf(p->state_text, sizeof(p->state_text), "measured");
                if (isnan(p->rate_gbps) || bw < p->rate_gbps)
                    p->rate_gbps = bw; /* the RATE column: the lowest goodput so far */
            }
        }
    }
    top_model_clear_findings(m);
    m->source_findings = 1;
    json_array_foreach(json_object_get(root, "findings"), i, l)
    {
        const char *sev = json_string_value(json_object_get(l, "severity"));
        const char *o = json_string_value(json_object_get(l, "observed"));
        if (!sev || (strcmp(sev, "fail") && strcmp(sev, "warn")))
            continue;
        top_model_add_finding(m, !strcmp(sev, "fail") ? TOP_FAIL : TOP_WARN,
                              json_string_value(json_object_get(l, "check")),
                              json_string_value(json_object_get(l, "subject")), o ? o : "");
    }
    {
        json_t *done = json_object_get(root, "rounds_done"), *all = json_object_get(root, "rounds");
        int complete = json_is_true(json_object_get(root, "complete"));
        m->mcomplete = complete;
        snprintf(m->progress, sizeof(m->progress),
                 "railyard-fabric %.60s: round %lld/%lld, %zu links measured, %zu failed, %s",
                 json_string_value(json_object_get(root, "schedule"))
                     ? json_string_value(json_object_get(root, "schedule"))
                     : "run",
                 (long long)json_integer_value(done), (long long)json_integer_value(all), nmeasured,
                 nfailed,
                 complete ? "complete"
                          : "in progress (or stopped: the file is rewritten after every round)");
    }
    m->empty_why[0] = '\0';
    free(ref);
    free(median);
    ry_report_free(rep);
    return 0;
}
#else
int top_follow_sample(struct top_source *s, struct top_model *m, ry_error_t *err)
{
    (void)s;
    (void)m;
    return ry_errorf(err, "--follow reads railyard-fabric's JSON: railyard was built without a "
                          "JSON library (jansson)");
}
#endif

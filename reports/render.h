#ifndef RAILYARD_REPORTS_RENDER_H
#define RAILYARD_REPORTS_RENDER_H

/* reports/: results as text and JSON, rendered from archived reports (HTML, JUnit,
 * Prometheus, SVG), runs archived and indexed in the history. */

#include <stdio.h>

#include "common/error.h"

/* Outputs rendered from an archived report.json (railyard-report(5)): one result model, read
 * back through the JSON library, feeds every format. A report is a railyard check document
 * (findings about one node) or a railyard-fabric document (links and findings), each with a
 * "run" object when archived. */

struct ry_report;

/* Parse path: NULL with err naming the file (and line/column for bad JSON) when it cannot be
 * read or is not a railyard report. Needs the JSON library. */
struct ry_report *ry_report_load(const char *path, ry_error_t *err);
/* The same from memory (name is used in messages). */
struct ry_report *ry_report_parse(const char *text, const char *name, ry_error_t *err);
void ry_report_free(struct ry_report *r);

/* JUnit XML: one testcase per finding and per link (needs libxml2). */
int ry_render_junit(const struct ry_report *r, FILE *fp, ry_error_t *err);
/* Prometheus text exposition (node_exporter textfile collector). */
int ry_render_prometheus(const struct ry_report *r, FILE *fp, ry_error_t *err);
/* A self-contained HTML page (no external assets): metadata, findings (failures first, with
 * hints), per-rail pair heat-maps and the nodes x rails grid as inline SVG, and the node's
 * inventory when inventory names a `railyard inventory --json` document (NULL: none). The rail
 * diagram names the leaf of every port from the report's own cabling (railyard fabric), else
 * from the report.json of a railyard fabric run at fabric (NULL: none). Needs libxml2. */
int ry_render_html(const struct ry_report *r, const char *inventory, const char *fabric, FILE *fp,
                   ry_error_t *err);
/* A short text summary (terminal-safe). */
int ry_render_text(const struct ry_report *r, FILE *fp, ry_error_t *err);
/* Differences between two runs: findings new and cleared, links whose bandwidth moved by more
 * than threshold (a fraction, 0.1 = 10%). Returns the number of differences, -1 on error. */
int ry_render_diff(const struct ry_report *a, const struct ry_report *b, double threshold, FILE *fp,
                   ry_error_t *err);

/* The reference of each of a railyard-fabric report's rails (what the heat-maps, the console's
 * pair matrix and its active test compare links with): the map's expectation
 * (rail_expect_gbps), else the best rail median, since the rails of a node type are alike and
 * half a slow rail must not set its own reference; median gets each rail's median goodput.
 * NAN where nothing is known. 0, or -1 for a bad rail count. */
int ry_report_rail_refs(const struct ry_report *r, int rails, double *ref, double *median);

/* Rewrite the railyard-fabric report in dir with its links as records beside it (records 1,
 * railyard-report(5) "LINK RECORDS") or as objects in report.json (0). Each step leaves a
 * readable report: the new form is written whole before the old is let go. 0 done, 1 already
 * so, -1 with err. */
int ry_report_convert(const char *dir, int records, ry_error_t *err);

/* Accessors for the archive and history. */
const char *ry_report_tool(const struct ry_report *r);    /* "check", "fabric" */
const char *ry_report_node(const struct ry_report *r);    /* check: the node; fabric: NULL */
const char *ry_report_verdict(const struct ry_report *r); /* "pass", "fail", "error", NULL */
int ry_report_complete(const struct ry_report *r);
/* the JSON library's object, for callers that walk the document (history) */
void *ry_report_json(const struct ry_report *r);

#endif

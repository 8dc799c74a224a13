#ifndef RAILYARD_REPORTS_HISTORY_H
#define RAILYARD_REPORTS_HISTORY_H

#include <stdio.h>

#include "common/error.h"
#include "reports/render.h"

/* Run history in SQLite (<archive>/history.db, railyard-report(5)): one row per run, per
 * finding and per link result. A database that is not railyard's, or is damaged, is reported
 * and left as it is. */

/* Record (or re-record) run id of report r, archived in dir. */
int ry_history_record(const char *root, const char *id, const char *dir, const struct ry_report *r,
                      ry_error_t *err);
/* Forget runs that are no longer in the archive (after pruning). */
int ry_history_forget_missing(const char *root, ry_error_t *err);

struct ry_history_query {
    const char *node;  /* runs about this node, links from or to it */
    int rail;          /* >= 0: the bandwidth of this rail's links over time */
    const char *since; /* "2026-11-01" or an ISO time: runs started then or later */
    int limit;         /* newest first, at most this many rows (0: 50) */
    int json;
    int gpu, peer;    /* gpu >= 0: that GPU's figures over time; peer >= 0 too: the pair's */
    const char *test; /* with gpu: this test's figures only (its name as the report gives it) */
    const char *collective; /* railyard-fabric's collective (allreduce...): its bus bandwidth
                               per rail (rail >= 0: that rail's only) over time */
};
/* Print runs (or, with rail, link bandwidth over time; with gpu, GPU figures over time; with
 * collective, a collective's bus bandwidth per rail over time).
 * Returns the number of rows, -1. */
int ry_history_list(const char *root, const struct ry_history_query *q, FILE *fp, ry_error_t *err);

#endif

#ifndef RAILYARD_REPORTS_ARCHIVE_H
#define RAILYARD_REPORTS_ARCHIVE_H

#include <limits.h>
#include <stdio.h>
#include <time.h>

#include "common/error.h"

/* Run archives (railyard-report(5)): every run of railyard check (and railyard-fabric) leaves
 * <root>/<YYYY-MM-DD>/<run-id>/ with report.json, the map used, the command line and the
 * rendered outputs, each written atomically. */

#define RY_ARCHIVE_DEFAULT "/var/lib/railyard"

/* The archive directory when none was given: $RAILYARD_ARCHIVE ("none" or empty: no archive),
 * else /var/lib/railyard for root, else none (NULL). */
const char *ry_archive_default(void);

/* Default retention: runs kept by check and railyard-fabric. */
#define RY_ARCHIVE_KEEP 1000

struct ry_archive {
    char root[PATH_MAX];
    char dir[PATH_MAX]; /* the run's directory */
    char id[160];       /* "20261130T170102Z-gpu01-check-4242" */
    char tool[16];      /* "check", "fabric" */
    char command[2048]; /* the command line, one line */
    time_t started;     /* when the archive was created */
};

/* A run directory outside an archive (railyard-fabric -o DIR): create dir and write cmdline
 * and map.yaml as ry_archive_create does; a->root and a->id stay empty. */
int ry_run_dir_init(struct ry_archive *a, const char *dir, const char *tool, int argc, char **argv,
                    const char *map, ry_error_t *err);

/* Create the run's directory and write cmdline (argv, one line) and map.yaml (a copy of map,
 * when not NULL). 0, or -1 with err. */
int ry_archive_create(struct ry_archive *a, const char *root, const char *tool, const char *host,
                      int argc, char **argv, const char *map, ry_error_t *err);

/* The report's "run" object (railyard-report(5)) through the printer: id, tool, host (this
 * machine), command, started, finished (done only), complete, dir. */
struct out;
void ry_archive_print_run(struct out *o, const struct ry_archive *a, int done);

/* t (seconds since the epoch) as "2026-12-06T11:12:00Z" into buf (at least 21 bytes). */
void ry_iso_time(time_t t, char *buf, size_t len);

/* Write <run dir>/name atomically through fill. */
int ry_archive_write(const struct ry_archive *a, const char *name,
                     int (*fill)(FILE *fp, void *arg, ry_error_t *err), void *arg, ry_error_t *err);

/* After report.json is written: render junit.xml, metrics.prom and report.html beside it (the
 * ones this build can render; report.html takes inventory.json when present), record the run
 * in history.db, prune the archive to keep runs (max_age_days as in ry_archive_prune), and
 * copy the metrics to prometheus and the JUnit file to junit when they are not NULL (node
 * exporter's textfile directory, a CI workspace). 0, or -1 with err at the first failure that
 * loses something asked for; what could be done is done. */
int ry_archive_finish(const struct ry_archive *a, int keep, int max_age_days,
                      const char *prometheus, const char *junit, ry_error_t *err);

/* Render junit.xml, metrics.prom and report.html again from the report.json in dir (report
 * render: after an upgrade, or for a run copied from elsewhere): the number of files written,
 * -1 with err when report.json cannot be read. */
int ry_archive_rerender(const char *dir, ry_error_t *err);

/* Record the run's report.json, as it is now, in history.db (a run in progress, or cut short,
 * is listed as incomplete). */
int ry_archive_record(const struct ry_archive *a, ry_error_t *err);

/* The archive of a command that judges once (check, railyard fabric): create the run's
 * directory with a report.json that says the run did not finish (no findings, verdict "error",
 * run.complete false; node for check's reports, NULL for the fabric's) and its history row, so
 * a run stopped by its deadline or a signal is archived as such. 0, or -1 with err. */
int ry_archive_start(struct ry_archive *a, const char *root, const char *tool, const char *name,
                     int argc, char **argv, const char *map, int schema, const char *node,
                     ry_error_t *err);
/* The run could not judge: its report.json says why (verdict "error", error), recorded. */
/* The fields of a document whose verdict is "error" (reports/report.schema.json): schema_version,
 * tool, command (NULL: left out, as for check), version, node (NULL: left out), no findings, a
 * summary of zeros, verdict and error. */
void ry_report_error(struct out *o, int schema, const char *command, const char *node,
                     const char *error);
int ry_archive_fail(const struct ry_archive *a, int schema, const char *node, const char *error,
                    ry_error_t *err);
/* The run judged: the run object printed into o, the JSON document o built written as
 * report.json, then ry_archive_finish (renderings, history, retention, copies). */
int ry_archive_done(const struct ry_archive *a, struct out *o, int keep, const char *prometheus,
                    const char *junit, ry_error_t *err);

/* Render the report.json at path into the format "json", "text", "junit", "prometheus" or
 * "html" on fp (report show). */
int ry_archive_render(const char *dir, const char *format, FILE *fp, ry_error_t *err);

/* Keep the newest keep runs under root (and the runs of the last max_age_days days when > 0,
 * whichever keeps more); older run directories and emptied date directories are removed.
 * Only directories that hold a report.json, a cmdline or nothing are touched. Returns the
 * number removed, -1 with err. */
int ry_archive_prune(const char *root, int keep, int max_age_days, ry_error_t *err);

/* Find a run by its id, its directory, or "latest": 0 with dir filled, -1 with err. */
int ry_archive_find(const char *root, const char *run, char *dir, size_t len, ry_error_t *err);

#endif

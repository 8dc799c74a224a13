#ifndef RAILYARD_REPORTS_FABRIC_REPORT_H
#define RAILYARD_REPORTS_FABRIC_REPORT_H

#include <stddef.h>

#include "fabric/run.h"
#include "reports/archive.h"
#include "reports/links.h"

/* What railyard-fabric writes of a run (rank 0): its results.json in the run directory (-o) and
 * report.json in the archive, rewritten as the rounds go (at most every 10 s) and at the end, the
 * links beside them as JSON objects or binary records (railyard-report(5)), the culprits file
 * (--culprits), and the results on stdout. */
struct fabric_report {
    struct ry_archive archive; /* archive.dir[0]: archiving */
    struct ry_archive run_dir; /* -o: run_dir.dir[0] set */
    double saved;              /* when results were last written */
    /* link records beside report.json (archive) and results.json (run directory), decided at
     * the first save */
    int records;
    struct ry_links_writer *lw[2]; /* 0 the archive, 1 the run directory */
    size_t lw_links[2], lw_lat[2]; /* links and sweep links appended so far */
    size_t lw_valid[2];            /* records known written (named in the JSON) */
    int lw_broken[2];              /* a write failed: the JSON names what came before */
};

/* After the layout: the archive (when one is kept) and the run directory made, a first report
 * written, and r->checkpoint set to rewrite them after each round. FABRIC_GO_ON, or 2 when the
 * run directory cannot be made (an archive that cannot be is said, and the run goes on). */
int fabric_report_open(struct fabric_report *s, struct fabric_run *r);

/* At the end: the reports written complete, the culprits file, the results on stdout (JSON with
 * --json); the run's exit status (fabric_run_exit_status). */
int fabric_report_end(struct fabric_report *s, struct fabric_run *r, const struct topo_findings *f);

#endif

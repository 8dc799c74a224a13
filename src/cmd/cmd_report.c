#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/file.h"
#include "fabric/collective.h"
#include "reports/archive.h"
#include "reports/bringup.h"
#include "reports/out.h"
#include "reports/history.h"
#include "reports/watch_json.h"
#include "reports/render.h"
#include "src/cmd/cmd.h"

/* railyard report show|diff|prune and railyard history: archived runs read back
 * (railyard-report(5)). Nothing here deletes a run except prune, and a damaged report or
 * history is reported (exit 2) and left as it is. */

struct report_opts {
    const char *archive, *format, *node, *since;
    double threshold;
    int keep, days, rail, limit;
    int gpu, peer;
    const char *test;
    const char *records;    /* convert: --link-records */
    const char *collective; /* history: --collective */
    int verdicts;           /* bringup: --verdicts */
    int events;             /* history: --events */
};

/* "3" (a GPU) or "0-1", "0,1" (a pair): 0, or -1 */
static int parse_gpu(const char *arg, int *gpu, int *peer)
{
    char *end;
    long a = strtol(arg, &end, 10), b = -1;

    if (end == arg || a < 0 || a > 4095)
        return -1;
    if (*end == '-' || *end == ',') {
        const char *s = end + 1;
        b = strtol(s, &end, 10);
        if (end == s || b < 0 || b > 4095 || b == a)
            return -1;
    }
    if (*end)
        return -1;
    *gpu = (int)a;
    *peer = (int)b;
    return 0;
}

static int on_opt(int opt, const char *arg, void *ctx)
{
    struct report_opts *r = ctx;
    char *end;
    double v;

    switch (opt) {
    case 'A': r->archive = arg; return 0;
    case 'f': r->format = arg; return 0;
    case 'n': r->node = arg; return 0;
    case 's': r->since = arg; return 0;
    case 'T': r->test = arg; return 0;
    case 'V': r->verdicts = 1; return 0;
    case 'E': r->events = 1; return 0;
    case 'L': r->records = arg; return 0;
    case 'C': {
        ry_error_t e;
        unsigned mask;
        if (fabric_coll_parse(arg, &mask, &e) < 0 || (mask & (mask - 1))) {
            cmd_error("history: --collective takes one of allreduce, allgather, reducescatter, "
                      "alltoall, not '%s'",
                      arg);
            return -1;
        }
        r->collective = arg;
        return 0;
    }
    case 'g':
        if (parse_gpu(arg, &r->gpu, &r->peer) == 0)
            return 0;
        cmd_error("history: --gpu takes a GPU (3) or a pair (0-1), not '%s'", arg);
        return -1;
    default: break;
    }
    v = strtod(arg, &end);
    if (end == arg || *end || v < 0 || v > 1e9) {
        cmd_error("report: a number was expected, not '%s'", arg);
        return -1;
    }
    switch (opt) {
    case 't': r->threshold = v / 100; return 0;
    case 'k': r->keep = (int)v; return 0;
    case 'd': r->days = (int)v; return 0;
    case 'r': r->rail = (int)v; return 0;
    case 'l': r->limit = (int)v; return 0;
    }
    return -1;
}

static const struct option report_long[] = {
    { "archive", required_argument, NULL, 'A' },
    { "format", required_argument, NULL, 'f' },
    { "threshold", required_argument, NULL, 't' },
    { "keep", required_argument, NULL, 'k' },
    { "max-age", required_argument, NULL, 'd' },
    { "node", required_argument, NULL, 'n' },
    { "rail", required_argument, NULL, 'r' },
    { "since", required_argument, NULL, 's' },
    { "limit", required_argument, NULL, 'l' },
    { "gpu", required_argument, NULL, 'g' },
    { "test", required_argument, NULL, 'T' },
    { "link-records", required_argument, NULL, 'L' },
    { "collective", required_argument, NULL, 'C' },
    { "verdicts", no_argument, NULL, 'V' },
    { "events", no_argument, NULL, 'E' },
    { NULL, 0, NULL, 0 },
};

/* path's bytes to fp: 0, or -1 */
static int print_file(const char *path, FILE *fp)
{
    char *buf;
    size_t len;
    ry_error_t err;
    int rc;

    if (ry_read_file(path, &buf, &len, &err) < 0)
        return -1;
    rc = fwrite(buf, 1, len, fp) == len && fflush(fp) == 0 ? 0 : -1;
    free(buf);
    return rc;
}

/* report bringup DIR: a bring-up's verdicts, judged from its run directory (reports/bringup.c);
 * the table written there (bringup.txt, and bringup.json with a JSON library) and printed */
static int run_bringup(const char *dir, int json, int verdicts)
{
    char txt[4200], jsn[4200], tmp[4300];
    struct bringup b;
    struct bringup_run r;
    ry_error_t err = { "" };
    struct out *o;
    FILE *fp, *jp;
    int rc;

    if (bringup_read(&b, &r, dir, &err) < 0) {
        bringup_run_free(&r);
        bringup_free(&b);
        return cmd_refuse(json, "report bringup", "%s", err.text);
    }
    for (size_t i = 0; i < b.nnotes; i++)
        fprintf(stderr, "%s\n", b.notes[i]);
    rc = bringup_exit(&b);
    if (verdicts) {
        for (size_t i = 0; i < b.n; i++)
            printf("%s\t%s\t%s\n", b.nodes[i].name, bringup_verdict_name(b.nodes[i].verdict),
                   b.nodes[i].reason ? b.nodes[i].reason : "");
        goto out;
    }
    snprintf(txt, sizeof(txt), "%s/bringup.txt", dir);
    snprintf(jsn, sizeof(jsn), "%s/bringup.json", dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", txt);
    if (!(fp = fopen(tmp, "w")) || !(o = out_create(fp, OUT_TEXT, &err))) {
        cmd_error("report bringup: cannot write %s: %s", tmp, fp ? err.text : strerror(errno));
        if (fp)
            fclose(fp);
        rc = RY_EXIT_ERROR;
        goto out;
    }
    if (out_tee_json(o, &err) < 0 && json) {
        cmd_error("report bringup: %s", err.text);
        rc = RY_EXIT_ERROR;
    }
    bringup_print(o, &b, &r, (long long)time(NULL));
    if (out_finish(o, &err) < 0 || fclose(fp) != 0 || rename(tmp, txt) < 0) {
        cmd_error("report bringup: cannot write %s: %s", txt,
                  err.text[0] ? err.text : strerror(errno));
        rc = RY_EXIT_ERROR;
    }
    if (out_has_json(o)) {
        snprintf(tmp, sizeof(tmp), "%s.tmp", jsn);
        if (!(jp = fopen(tmp, "w")) || out_dump_json(o, jp, &err) < 0 || fclose(jp) != 0 ||
            rename(tmp, jsn) < 0) {
            cmd_error("report bringup: cannot write %s", jsn);
            rc = RY_EXIT_ERROR;
        }
    }
    out_destroy(o);
    if (rc != RY_EXIT_ERROR && print_file(json ? jsn : txt, stdout) < 0) {
        cmd_error("report bringup: cannot print %s", json ? jsn : txt);
        rc = RY_EXIT_ERROR;
    }
out:
    bringup_run_free(&r);
    bringup_free(&b);
    return rc;
}

static const char *root_of(const struct report_opts *r)
{
    const char *d = r->archive ? r->archive : ry_archive_default();
    return d ? d : RY_ARCHIVE_DEFAULT;
}

static int run_report(int argc, char **argv)
{
    struct report_opts r = { NULL, "text", NULL, NULL, 0.10, 0,    0, -1,
                             0,    -1,     -1,   NULL, NULL, NULL, 0, 0 };
    struct cmd_common common;
    char dir[4096], dir2[4096];
    ry_error_t err;
    int idx, json;

    if ((idx = cmd_parse(&cmd_report, argc, argv, &common, report_long, "f:", on_opt, &r)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    if (common.json)
        r.format = "json";
    json = !strcmp(r.format, "json");
    if (idx >= argc)
        return cmd_refuse(
            json, "report",
            "show, render, diff, convert, prune or bringup expected (try railyard report "
            "--help)");
    if (!strcmp(argv[idx], "bringup")) {
        if (idx + 2 != argc)
            return cmd_refuse(json, "report bringup", "one bring-up run directory expected");
        if (r.verdicts && json)
            return cmd_refuse(json, "report bringup",
                              "--verdicts prints lines, not JSON: give one");
        return run_bringup(argv[idx + 1], json, r.verdicts);
    }
    if (!strcmp(argv[idx], "show")) {
        if (idx + 2 != argc)
            return cmd_refuse(json, "report show",
                              "one run expected (its id, its directory, or latest)");
        if (ry_archive_find(root_of(&r), argv[idx + 1], dir, sizeof(dir), &err) < 0 ||
            ry_archive_render(dir, r.format, stdout, &err) < 0)
            return cmd_refuse(json, "report show", "%s", err.text);
        return RY_EXIT_OK;
    }
    if (!strcmp(argv[idx], "render")) {
        int n;
        if (idx + 2 != argc)
            return cmd_refuse(json, "report render",
                              "one run expected (its id, its directory, or latest)");
        if (ry_archive_find(root_of(&r), argv[idx + 1], dir, sizeof(dir), &err) < 0 ||
            (n = ry_archive_rerender(dir, &err)) < 0)
            return cmd_refuse(json, "report render", "%s", err.text);
        printf("%s: %d file%s rendered\n", dir, n, n == 1 ? "" : "s");
        return RY_EXIT_OK;
    }
    if (!strcmp(argv[idx], "diff")) {
        struct ry_report *a = NULL, *b = NULL;
        char pa[4200], pb[4200];
        int n = -1;
        if (idx + 3 != argc)
            return cmd_refuse(json, "report diff", "two runs expected (RUN_A RUN_B)");
        if (ry_archive_find(root_of(&r), argv[idx + 1], dir, sizeof(dir), &err) == 0 &&
            ry_archive_find(root_of(&r), argv[idx + 2], dir2, sizeof(dir2), &err) == 0) {
            snprintf(pa, sizeof(pa), "%s/report.json", dir);
            snprintf(pb, sizeof(pb), "%s/report.json", dir2);
            if ((a = ry_report_load(pa, &err)) && (b = ry_report_load(pb, &err)))
                n = ry_render_diff(a, b, r.threshold, stdout, &err);
        }
        ry_report_free(a);
        ry_report_free(b);
        if (n < 0)
            return cmd_refuse(json, "report diff", "%s", err.text);
        if (n == 0)
            printf("no difference (findings, and links within %.0f%%)\n", r.threshold * 100);
        return n ? RY_EXIT_FAULT : RY_EXIT_OK;
    }
    if (!strcmp(argv[idx], "convert")) {
        int n, rec = r.records && !strcmp(r.records, "binary");
        if (idx + 2 != argc || !r.records || (!rec && strcmp(r.records, "json")))
            return cmd_refuse(json, "report convert",
                              "one run and --link-records binary|json expected");
        if (ry_archive_find(root_of(&r), argv[idx + 1], dir, sizeof(dir), &err) < 0 ||
            (n = ry_report_convert(dir, rec, &err)) < 0)
            return cmd_refuse(json, "report convert", "%s", err.text);
        printf("%s: %s\n", dir,
               n ? (rec ? "its links are records already" : "its links are in report.json already")
               : rec ? "links written as records"
                     : "links written into report.json");
        return RY_EXIT_OK;
    }
    if (!strcmp(argv[idx], "prune")) {
        int n;
        if (r.keep < 1 && r.days < 1)
            return cmd_refuse(json, "report prune",
                              "--keep <runs> and/or --max-age <days> expected");
        if ((n = ry_archive_prune(root_of(&r), r.keep > 0 ? r.keep : 0, r.days, &err)) < 0)
            return cmd_refuse(json, "report prune", "%s", err.text);
        if (n > 0)
            ry_history_forget_missing(root_of(&r), &err);
        printf("%d run%s removed\n", n, n == 1 ? "" : "s");
        return RY_EXIT_OK;
    }
    return cmd_refuse(json, "report",
                      "unknown action '%s' (show, render, diff, convert, prune, bringup)",
                      argv[idx]);
}

static int run_history(int argc, char **argv)
{
    struct report_opts r = { NULL, "text", NULL, NULL, 0.10, 0,    0, -1,
                             0,    -1,     -1,   NULL, NULL, NULL, 0, 0 };
    struct cmd_common common;
    struct ry_history_query q;
    ry_error_t err;
    int idx, n, json;

    if ((idx = cmd_parse(&cmd_history, argc, argv, &common, report_long, "", on_opt, &r)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    json = common.json;
    if (idx < argc)
        return cmd_refuse(json, "history", "unexpected argument '%s'", argv[idx]);
    q.node = r.node;
    q.rail = r.rail;
    q.since = r.since;
    q.limit = r.limit;
    q.json = common.json;
    q.gpu = r.gpu;
    q.peer = r.peer;
    q.test = r.test;
    q.collective = r.collective;
    if (r.collective && r.gpu >= 0)
        return cmd_refuse(json, "history", "--collective and --gpu are two views: give one");
    if (r.test && r.gpu < 0)
        return cmd_refuse(json, "history", "--test goes with --gpu");
    if (r.gpu >= 0 && r.rail >= 0)
        return cmd_refuse(json, "history", "--gpu and --rail are two views: give one");
    if (r.events && (r.gpu >= 0 || r.rail >= 0 || r.collective || r.test))
        return cmd_refuse(json, "history",
                          "--events lists what railyard watch saw: not with --rail, --gpu, "
                          "--test or --collective");
    if (r.events) {
        struct ry_watch_events_query eq = { r.node, r.since, r.limit, json };
        char log[4200];
        snprintf(log, sizeof(log), "%s/watch/events.jsonl", root_of(&r));
        if ((n = ry_watch_events_list(log, &eq, stdout, &err)) < 0)
            return cmd_refuse(json, "history", "%s", err.text);
        if (n == 0 && !json)
            printf("no event matches (%s)\n", log);
        return RY_EXIT_OK;
    }
    if ((n = ry_history_list(root_of(&r), &q, stdout, &err)) < 0)
        return cmd_refuse(json, "history", "%s", err.text);
    if (n == 0 && !common.json)
        printf("no run matches\n");
    return RY_EXIT_OK;
}

const struct cmd_entry cmd_report = {
    .name = "report",
    .run = run_report,
    .usage = "report (show <run> [--format <fmt>] | render <run> | diff <run-a> <run-b> "
             "[--threshold <pct>] | convert <run> --link-records binary|json | prune [--keep <n>] "
             "[--max-age <days>] | bringup [--verdicts] <dir>) [--archive <dir>]",
    .summary = "show, re-render, compare, convert and prune archived runs (railyard-report(5))",
    .options =
        "  --archive <dir>      the archive (default $RAILYARD_ARCHIVE or /var/lib/railyard)\n"
        "  -f, --format <fmt>   show: text (default), json, junit, prometheus or html\n"
        "  --threshold <pct>    diff: report links that moved more (default 10)\n"
        "  --keep <n>           prune: keep the newest n runs\n"
        "  --max-age <days>     prune: keep the runs of the last days\n"
        "  --link-records <how> convert: a railyard-fabric run's links as binary records beside\n"
        "                       report.json (binary) or as objects in it (json)\n"
        "  --verdicts           bringup: a line per node (node, verdict, reason; tabs)\n"
        "  A run is its id, its directory, or latest.\n",
    .no_node_inputs = 1,
    .options_anywhere = 1,
};

const struct cmd_entry cmd_history = {
    .name = "history",
    .run = run_history,
    .usage = "history [--node <name>] [--rail <n> | --gpu <gpu>[-<peer>] [--test <name>]] "
             "[--collective <name> [--rail <n>]] [--events] [--since <date>] [--limit <n>] "
             "[--archive <dir>] [--json]",
    .summary = "list archived runs, or a link's, GPU's or collective's figures over time "
               "(--rail, --gpu, --collective)",
    .options =
        "  --archive <dir>      the archive (default $RAILYARD_ARCHIVE or /var/lib/railyard)\n"
        "  --node <name>        runs about this node; with --rail, its links\n"
        "  --rail <n>           the bandwidth of rail n's links, run by run\n"
        "  --gpu <g>[-<p>]      GPU g's figures (host, local copies, latency), or with a peer\n"
        "                       the pair's (both directions), run by run\n"
        "  --test <name>        with --gpu: one test's figures (device_to_device_memcpy_read_ce)\n"
        "  --collective <name>  railyard-fabric's collective (allreduce, allgather,\n"
        "                       reducescatter, alltoall): its bus bandwidth per rail and its\n"
        "                       bound, run by run (with --rail: that rail's only)\n"
        "  --events             what railyard watch saw: its events (flaps, downs, bursts),\n"
        "                       newest first, from the archive's watch/events.jsonl\n"
        "  --since <date>       runs started then or later (2026-11-01, or a time)\n"
        "  --limit <n>          newest first, at most n rows (default 50)\n",
    .no_node_inputs = 1,
    .options_anywhere = 1,
};

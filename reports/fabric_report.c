#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"
#include "fabric/host.h"
#include "reports/fabric_report.h"
#include "reports/findings.h"
#include "reports/links.h"
#include "reports/out.h"

/* railyard-fabric's results (reports/fabric_report.h): printed, in the archive and the run
 * directory as they stand after each round, and the culprits file at the end. */

#define SCHEMA_VERSION 1

enum { REC_UNDECIDED, REC_JSON, REC_BINARY };

/* a link as railyard-report(5) keeps it, at the precision it is kept (reports/links.h): the same
 * from the JSON objects and from the records; x points into l */
static void link_record(const struct fabric_link *l, int lat, struct ry_link *k,
                        struct ry_link_extra *x)
{
    memset(k, 0, sizeof(*k));
    memset(x, 0, sizeof(*x));
    k->from = (uint32_t)l->a;
    k->to = (uint32_t)l->b;
    k->round = (uint32_t)l->round + 1;
    k->rail = l->rail;
    k->flags = (l->ok ? RY_LINK_OK : 0) | (lat ? RY_LINK_LATENCY : 0);
    k->extra = RY_LINK_NONE;
    k->bw_gbps = l->ok && !lat ? l->bw_gbps : NAN;
    k->lat_p50_us = l->ok && l->lat_p50_us > 0 ? l->lat_p50_us : NAN;
    k->lat_p99_us = l->ok && l->lat_p99_us > 0 ? l->lat_p99_us : NAN;
    k->retrans = k->errors_from = k->errors_to = -1;
    k->bytes = k->wire_bytes = -1;
    k->ce_frac = -1;
    k->cpu_from = k->wait_from = k->cpu_to = k->wait_to = -1;
    k->pressure_from = k->pressure_to = -1;
    x->error = l->ok ? NULL : l->error;
    if (lat) { /* a sweep link keeps its latency and its error, no more */
        ry_link_quantize(k);
        return;
    }
    k->retrans = l->retrans >= 0 ? l->retrans : -1;
    if (l->ok && l->wire_bytes > 0) { /* the wire beside what arrived */
        k->bytes = l->bytes;
        k->wire_bytes = l->wire_bytes;
        k->ce_frac = l->ce_frac;
    }
    k->errors_from = l->errors_a >= 0 ? l->errors_a : -1;
    k->errors_to = l->errors_b >= 0 ? l->errors_b : -1;
    k->cpu_from = l->cpu_a;
    k->wait_from = l->wait_a;
    k->cpu_to = l->cpu_b;
    k->wait_to = l->wait_b;
    k->pressure_from = l->pressure_a;
    k->pressure_to = l->pressure_b;
    x->counters_from = l->counters_a[0] ? l->counters_a : NULL;
    x->counters_to = l->counters_b[0] ? l->counters_b : NULL;
    x->mem_from = l->mem_a[0] ? l->mem_a : NULL;
    x->mem_to = l->mem_b[0] ? l->mem_b : NULL;
    ry_link_quantize(k);
}

/* the collective phase: every collective timed, with its bound */
static void print_collectives(struct out *o, const struct fabric_run *r)
{
    static const char *const purpose[] = { "phase", "confirm", "half", "pair" };

    if (!r->o.coll_mask)
        return;
    out_obj_open(o, "collectives");
    out_str(o, "library", "  collectives: %s",
            r->coll_bound ? (r->coll_nccl ? "nccl" : "mpi") : NULL);
    out_text(o, " (bus bandwidth judged at the largest size against %.0f%% of the bound)\n",
             100 * fabric_run_coll_ratio(r));
    out_str(o, "note", "  %s\n", r->coll_why[0] ? r->coll_why : NULL);
    out_double(o, "ratio_min", NULL, 3, fabric_run_coll_ratio(r), 1);
    out_arr_open(o, "bounds"); /* per rail: the ring bound and the slowest link (Gb/s) */
    for (int k = 0; r->coll_bound && k < r->rails; k++) {
        out_obj_open(o, NULL);
        out_int(o, "rail", NULL, k);
        out_double(o, "bound_gbps", NULL, 4, r->coll_bound[k], r->coll_bound[k] > 0);
        out_double(o, "slowest_link_gbps", NULL, 4, r->coll_slowest[k], r->coll_slowest[k] > 0);
        out_obj_close(o);
    }
    out_arr_close(o);
    if (r->ncoll)
        out_text(o, "  %-13s %-8s %-7s %-9s %-12s %-12s %-6s %s\n", "COLLECTIVE", "GROUP", "RANKS",
                 "SIZE", "BUSBW", "BOUND", "RATIO", "STATUS");
    out_arr_open(o, "results");
    for (size_t i = 0; i < r->ncoll; i++) {
        const struct fabric_coll_entry *x = &r->coll[i];
        char group[24], size[24], bw[24] = "n/a", bound[24] = "n/a", ratio[16] = "n/a";
        char status[400];
        int every = x->nnodes == r->nodes;
        if (x->rail >= 0)
            snprintf(group, sizeof(group), "rail%d", x->rail);
        else
            snprintf(group, sizeof(group), "all");
        fabric_run_size_text(x->size, size, sizeof(size));
        if (x->ok)
            snprintf(bw, sizeof(bw), "%.3f Gb/s", x->busbw);
        if (x->bound > 0)
            snprintf(bound, sizeof(bound), "%.3f Gb/s", x->bound);
        if (x->ok && x->bound > 0)
            snprintf(ratio, sizeof(ratio), "%.0f%%", 100 * x->busbw / x->bound);
        if (!x->ok)
            snprintf(status, sizeof(status), "%s", x->error);
        else if (x->purpose == FABRIC_CP_PHASE)
            snprintf(status, sizeof(status), "%s", fabric_coll_verdict_name(x->verdict));
        else {
            char list[200];
            fabric_run_nodes_text(r, x->nodes, x->nnodes, list, sizeof(list));
            snprintf(status, sizeof(status), "%s: %s (%s)", purpose[x->purpose],
                     fabric_coll_verdict_name(x->verdict), list);
        }
        out_obj_open(o, NULL);
        out_str(o, "op", "  %-13s", fabric_coll_name(x->op));
        out_text(o, " %-8s", group);
        out_int_opt(o, "rail", NULL, x->rail, x->rail >= 0);
        out_str(o, "purpose", NULL, purpose[x->purpose]);
        out_int(o, "ranks", " %-7s", x->ranks);
        out_text(o, " %-9s %-12s %-12s %-6s %s\n", size, bw, bound, ratio, status);
        out_int(o, "node_count", NULL, x->nnodes);
        if (!every) {
            out_arr_open(o, "nodes");
            for (int j = 0; j < x->nnodes; j++)
                out_str(o, NULL, NULL, r->names[x->nodes[j]]);
            out_arr_close(o);
        }
        out_str(o, "suspect", NULL, x->suspect >= 0 ? r->names[x->suspect] : NULL);
        out_u64(o, "bytes", NULL, x->size);
        out_bool(o, "ok", NULL, x->ok);
        out_str(o, "error", NULL, x->ok ? NULL : x->error);
        out_int_opt(o, "iters", NULL, x->iters, x->ok);
        out_double(o, "time_us", NULL, 1, x->seconds * 1e6, x->ok);
        out_double(o, "algbw_gbps", NULL, 4, x->algbw, x->ok);
        out_double(o, "busbw_gbps", NULL, 4, x->busbw, x->ok);
        out_double(o, "bound_gbps", NULL, 4, x->bound, x->bound > 0);
        out_double(o, "ratio", NULL, 4, x->ok && x->bound > 0 ? x->busbw / x->bound : 0,
                   x->ok && x->bound > 0);
        out_double(o, "host_share", NULL, 3, x->host_share, x->ok);
        out_str(o, "verdict", NULL, x->ok ? fabric_coll_verdict_name(x->verdict) : "failed");
        out_obj_close(o);
    }
    out_arr_close(o);
    out_obj_close(o);
}

/* where: -1 stdout (links always as objects), 0 the archive, 1 the run directory (links in
 * records when s->records) */
static void print_results(struct out *o, struct fabric_report *s, struct fabric_run *r,
                          const struct topo_findings *f, int done, int where)
{
    int records = where >= 0 && s->records == REC_BINARY;
    char stamp[64];
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
    out_int(o, "schema_version", NULL, SCHEMA_VERSION);
    out_str(o, "tool", NULL, "railyard-fabric");
    out_str(o, "version", NULL, PACKAGE_VERSION);
    out_str(o, "time", NULL, stamp);
    out_bool(o, "complete", NULL, done);
    out_str(o, "map", NULL, r->o.map);
    out_str(o, "cluster", NULL, r->map_cluster);
    out_str(o, "node_type", NULL, r->type_name);
    out_str(o, "transport", NULL, r->o.transport);
    if (!strcmp(r->o.transport, "verbs")) {
        const struct fabric_verbs_opts *v = &r->o.vo;
        out_obj_open(o, "verbs");
        out_str(o, "op", "railyard-fabric: verbs RDMA %s", fabric_verbs_op_name(v->op));
        out_int(o, "qps", ", %s queue pair(s)", v->qps);
        out_int(o, "window", " x %s in flight", v->window);
        out_u64(o, "msg_bytes", ", %s-byte messages", v->msg);
        out_str(o, "mem", ", %s memory", v->mem);
        out_bool(o, "verify", NULL, v->verify);
        out_text(o, "%s\n", v->verify ? ", every byte verified" : "");
        out_int_opt(o, "tos", NULL, v->tos, v->tos >= 0);
        out_int_opt(o, "gid_index", NULL, v->gid_index, v->gid_index >= 0);
        out_int(o, "qp_timeout", NULL, v->qp_timeout);
        out_obj_close(o);
    } else if (!strcmp(r->o.transport, "mpi")) {
        out_obj_open(o, "mpi");
        out_int(o, "window", "railyard-fabric: MPI messages, %s in flight", r->o.vo.window);
        out_u64(o, "msg_bytes", ", %s bytes each\n", r->o.vo.msg);
        out_obj_close(o);
    }
    out_str(o, "schedule", "railyard-fabric: %s", r->o.schedule);
    out_int(o, "nodes", " schedule, %s nodes", r->nodes);
    out_int(o, "rails", " x %s rails", r->rails);
    out_u64(o, "rounds_done", ", %s", r->rounds_done);
    out_u64(o, "rounds", "/%s rounds", r->sched.n);
    out_double(o, "duration_s", " of %s s", 1, r->o.duration, 1);
    out_double(o, "elapsed_s", ", %s s in all\n", 1, fabric_now() - r->started, 1);
    /* the analysis's own CPU time (rank 0 alone, no MPI call inside: under SMPI none of the
     * other ranks' time either) */
    out_double(o, "analysis_cpu_s", NULL, 3, r->analysis_cpu, done);
    out_arr_open(o, "rail_expect_gbps"); /* the lowest acceptable goodput, null: none */
    for (int i = 0; i < r->rails; i++)
        out_double(o, NULL, NULL, 3, r->expect ? r->expect[i] : -1, r->expect && r->expect[i] > 0);
    out_arr_close(o);
    out_arr_open(o, "node_names");
    for (int i = 0; i < r->nodes; i++)
        out_str(o, NULL, NULL, r->names[i]);
    out_arr_close(o);
    if (records) {
        const struct ry_links_writer *w = s->lw[where];
        out_obj_open(o, "links_file");
        out_str(o, "path", NULL, ry_links_file_name());
        out_str(o, "format", NULL, "railyard-links");
        out_int(o, "version", NULL, RY_LINKS_VERSION);
        out_u64(o, "records", NULL, s->lw_valid[where]);
        /* a write that failed (a full disk): the links measured that the file lacks */
        out_u64(o, "missing", NULL, r->nlinks + r->nlat - s->lw_valid[where]);
        out_int(o, "record_bytes", NULL, RY_LINK_RECORD_BYTES);
        out_arr_open(o, "extras");
        for (size_t i = 0; w && i < ry_links_writer_nextra(w); i++) {
            const struct ry_link_extra *x = ry_links_writer_extra(w, i);
            out_obj_open(o, NULL);
            out_str(o, "error", NULL, x->error);
            out_str(o, "counters_from", NULL, x->counters_from);
            out_str(o, "counters_to", NULL, x->counters_to);
            out_str(o, "mem_from", NULL, x->mem_from);
            out_str(o, "mem_to", NULL, x->mem_to);
            out_obj_close(o);
        }
        out_arr_close(o);
        out_obj_close(o);
    }
    if (r->nlinks && !records)
        out_text(o, "  %-5s %-4s %-24s %-12s %-9s %-22s %s\n", "ROUND", "RAIL", "LINK", "GOODPUT",
                 "DELIVERED", "LATENCY p50/p99", "STATUS");
    if (!records)
        out_arr_open(o, "links");
    for (size_t i = 0; !records && i < r->nlinks; i++) {
        const struct fabric_link *l = &r->links[i];
        char pair[FABRIC_NAME_LEN * 2 + 8], bw[32] = "n/a", lat[48] = "n/a", wire[16] = "n/a";
        struct ry_link k;
        struct ry_link_extra x;
        link_record(l, 0, &k, &x);
        snprintf(pair, sizeof(pair), "%s->%s", r->names[l->a], r->names[l->b]);
        if (ry_link_goodput_ratio(&k) >= 0) /* the share of the wire that arrived */
            snprintf(wire, sizeof(wire), "%.2f%%", 100 * ry_link_goodput_ratio(&k));
        if (l->ok) {
            snprintf(bw, sizeof(bw), "%.3f Gb/s", l->bw_gbps);
            if (l->lat_p50_us > 0)
                snprintf(lat, sizeof(lat), "%.0f/%.0f us", l->lat_p50_us, l->lat_p99_us);
        }
        out_obj_open(o, NULL);
        out_int(o, "round", "  %-5s", l->round + 1);
        out_int(o, "rail", " %-4s", l->rail);
        out_str(o, "from", NULL, r->names[l->a]);
        out_str(o, "to", NULL, r->names[l->b]);
        {
            double w = l->wait_a > l->wait_b ? l->wait_a : l->wait_b,
                   p = l->pressure_a > l->pressure_b ? l->pressure_a : l->pressure_b;
            char busy[64] = "";
            if (w >= FABRIC_HOST_WAIT && w >= p)
                snprintf(busy, sizeof(busy), " (a rank waited for a CPU %.0f%%)", 100 * w);
            else if (p >= FABRIC_HOST_WAIT)
                snprintf(busy, sizeof(busy), " (a host short of CPU %.0f%%)", 100 * p);
            out_text(o, " %-24s %-12s %-9s %-22s %s%s\n", pair, bw, wire, lat,
                     l->ok            ? "ok"
                     : l->rank_failed ? "rank lost"
                                      : l->error,
                     busy);
        }
        out_bool(o, "ok", NULL, l->ok);
        out_str(o, "error", NULL, x.error);
        out_double(o, "bw_gbps", NULL, 4, k.bw_gbps, !isnan(k.bw_gbps));
        out_double(o, "lat_p50_us", NULL, 1, k.lat_p50_us, !isnan(k.lat_p50_us));
        out_double(o, "lat_p99_us", NULL, 1, k.lat_p99_us, !isnan(k.lat_p99_us));
        out_int_opt(o, "retrans", NULL, k.retrans, k.retrans >= 0);
        out_int_opt(o, "errors_from", NULL, k.errors_from, k.errors_from >= 0);
        out_int_opt(o, "errors_to", NULL, k.errors_to, k.errors_to >= 0);
        out_str(o, "counters_from", NULL, x.counters_from);
        out_str(o, "counters_to", NULL, x.counters_to);
        out_str(o, "mem_from", NULL, x.mem_from);
        out_str(o, "mem_to", NULL, x.mem_to);
        /* each end's host: the share of the round its rank ran, and waited for a CPU, and the
         * share some task of the host waited for one */
        out_double(o, "cpu_from", NULL, 3, k.cpu_from, k.cpu_from >= 0);
        out_double(o, "wait_from", NULL, 3, k.wait_from, k.wait_from >= 0);
        out_double(o, "pressure_from", NULL, 3, k.pressure_from, k.pressure_from >= 0);
        out_double(o, "cpu_to", NULL, 3, k.cpu_to, k.cpu_to >= 0);
        out_double(o, "wait_to", NULL, 3, k.wait_to, k.wait_to >= 0);
        out_double(o, "pressure_to", NULL, 3, k.pressure_to, k.pressure_to >= 0);
        /* the sender's bytes on the wire beside those delivered, and the share marked CE */
        out_int_opt(o, "bytes", NULL, k.bytes, k.bytes >= 0);
        out_int_opt(o, "wire_bytes", NULL, k.wire_bytes, k.wire_bytes >= 0);
        out_double(o, "goodput_ratio", NULL, 4, ry_link_goodput_ratio(&k),
                   ry_link_goodput_ratio(&k) >= 0);
        out_double(o, "ecn_marked", NULL, 4, k.ce_frac, k.ce_frac >= 0);
        out_obj_close(o);
    }
    if (!records)
        out_arr_close(o);
    if (r->nlat) { /* --latency-sweep: ping-pong only */
        size_t bad = 0;
        for (size_t i = 0; i < r->nlat; i++)
            bad += !r->lat_links[i].ok;
        out_text(o, "  latency sweep: %zu links, %zu failed\n", r->nlat, bad);
        if (!records)
            out_arr_open(o, "latency_links");
        for (size_t i = 0; !records && i < r->nlat; i++) {
            const struct fabric_link *l = &r->lat_links[i];
            struct ry_link k;
            struct ry_link_extra x;
            link_record(l, 1, &k, &x);
            out_obj_open(o, NULL);
            out_int(o, "round", NULL, l->round + 1);
            out_int(o, "rail", NULL, l->rail);
            out_str(o, "from", NULL, r->names[l->a]);
            out_str(o, "to", NULL, r->names[l->b]);
            out_bool(o, "ok", NULL, l->ok);
            out_str(o, "error", NULL, x.error);
            out_double(o, "lat_p50_us", NULL, 2, k.lat_p50_us, !isnan(k.lat_p50_us));
            out_double(o, "lat_p99_us", NULL, 2, k.lat_p99_us, !isnan(k.lat_p99_us));
            out_obj_close(o);
        }
        if (!records)
            out_arr_close(o);
    }
    print_collectives(o, r);
    if (f) {
        report_findings(o, f, r->o.verbose);
        /* what was measured on starved hosts only is not a pass */
        out_str(o, "verdict", " -> %s\n",
                f->nfail                                     ? "fail"
                : f->nok + f->nwarn == 0 && f->nunjudged > 0 ? "cannot-judge"
                                                             : "pass");
    } else { /* the analysis runs at the end: until then no finding is known */
        out_arr_open(o, "findings");
        out_arr_close(o);
    }
    if (s->archive.dir[0])
        ry_archive_print_run(o, &s->archive, done);
}

struct print_arg {
    struct fabric_report *s;
    struct fabric_run *r;
    const struct topo_findings *f;
    int done;
    int where; /* print_results' */
};

static int fill_results(FILE *fp, void *arg, ry_error_t *err)
{
    struct print_arg *p = arg;
    struct out *o = out_create(fp, OUT_JSON, err);
    int rc;

    if (!o)
        return -1;
    print_results(o, p->s, p->r, p->f, p->done, p->where);
    rc = out_finish(o, err);
    out_destroy(o);
    return rc;
}

/* links as records or JSON objects: --link-records, or how many the schedule plans */
static void decide_records(struct fabric_report *s, struct fabric_run *r)
{
    size_t planned = 0;

    if (s->records != REC_UNDECIDED)
        return;
    for (size_t i = 0; i < r->sched.n; i++)
        planned +=
            r->sched.rounds[i].n * (size_t)r->rails * (r->o.bidir && !r->lat_only[i] ? 2 : 1);
    s->records = !strcmp(r->o.link_records, "binary")        ? REC_BINARY
                 : !strcmp(r->o.link_records, "json")        ? REC_JSON
                 : planned + r->nlinks > RY_LINKS_INLINE_MAX ? REC_BINARY
                                                             : REC_JSON;
}

/* append the links measured since the last save to the records in dir (k: 0 the archive, 1
 * the run directory); only what was flushed whole is named in the JSON. A write that fails
 * (a full disk) is said once and the file is left as it was: the verdict stands. */
static void append_records(struct fabric_report *s, struct fabric_run *r, int k, const char *dir)
{
    ry_error_t err;
    struct ry_link l;
    struct ry_link_extra x;

    if (s->records != REC_BINARY || s->lw_broken[k])
        return;
    if (!s->lw[k] && !(s->lw[k] = ry_links_writer_open(dir, &err)))
        goto broken;
    for (; s->lw_links[k] < r->nlinks; s->lw_links[k]++) {
        link_record(&r->links[s->lw_links[k]], 0, &l, &x);
        if (ry_links_writer_add(s->lw[k], &l, &x, &err) < 0)
            goto broken;
    }
    for (; s->lw_lat[k] < r->nlat; s->lw_lat[k]++) {
        link_record(&r->lat_links[s->lw_lat[k]], 1, &l, &x);
        if (ry_links_writer_add(s->lw[k], &l, &x, &err) < 0)
            goto broken;
    }
    if (ry_links_writer_flush(s->lw[k], &err) < 0)
        goto broken;
    s->lw_valid[k] = ry_links_writer_count(s->lw[k]);
    return;
broken:
    fabric_run_log(r, "link records: %s (the report names the %zu written before)", err.text,
                   s->lw_valid[k]);
    s->lw_broken[k] = 1;
}

/* the archive's report.json after every round (complete: false until the end), and its
 * history row, so a run cut short leaves both */
static void save_archive(struct fabric_report *s, struct fabric_run *r,
                         const struct topo_findings *f, int done)
{
    struct print_arg p = { s, r, f, done, 0 };
    ry_error_t err;

    if (!s->archive.dir[0])
        return;
    append_records(s, r, 0, s->archive.dir);
    if (ry_archive_write(&s->archive, "report.json", fill_results, &p, &err) < 0) {
        fabric_run_log(r, "archive: %s", err.text);
        return;
    }
    if (done) {
        if (ry_archive_finish(&s->archive, r->o.keep, 0, r->o.prometheus, r->o.junit, &err) < 0)
            fabric_run_log(r, "archive %s: %s (the verdict stands)", s->archive.dir, err.text);
        return;
    }
    ry_archive_record(&s->archive, &err);
}

/* the archive's report and results.json in the run directory as they stand, each rewritten
 * atomically */
static void save_reports(struct fabric_report *s, struct fabric_run *r,
                         const struct topo_findings *f, int done)
{
    struct print_arg p = { s, r, f, done, 1 };
    ry_error_t err;

    decide_records(s, r);
    save_archive(s, r, f, done);
    if (s->run_dir.dir[0]) {
        append_records(s, r, 1, s->run_dir.dir);
        if (ry_archive_write(&s->run_dir, "results.json", fill_results, &p, &err) < 0)
            fabric_run_log(r, "%s", err.text);
    }
    if (done)
        for (int k = 0; k < 2; k++) {
            ry_links_writer_close(s->lw[k]);
            s->lw[k] = NULL;
        }
}

/* the reports after a round: rewritten whole, so at most every 10 s while the rounds run (many
 * short rounds would cost the square of their number) */
static void save_run(struct fabric_report *s, struct fabric_run *r, const struct topo_findings *f,
                     int done)
{
    if (!done && s->saved > 0 && fabric_now() - s->saved < 10)
        return;
    s->saved = fabric_now();
    save_reports(s, r, f, done);
}

/* the reports after a round (r->checkpoint) */
static void checkpoint(struct fabric_run *r, void *arg)
{
    save_run(arg, r, NULL, 0);
}

int fabric_report_open(struct fabric_report *s, struct fabric_run *r)
{
    const char *root = r->o.no_archive ? NULL : r->o.archive ? r->o.archive : ry_archive_default();
    ry_error_t err;

    memset(s, 0, sizeof(*s));
    if (root &&
        ry_archive_create(&s->archive, root, "fabric", r->map_cluster ? r->map_cluster : r->host,
                          r->argc, r->argv, r->o.map, &err) < 0) {
        fabric_run_log(r, "archive: %s (no archive for this run)", err.text);
        s->archive.dir[0] = '\0';
    }
    if (r->o.run_dir && ry_run_dir_init(&s->run_dir, r->o.run_dir, "fabric", r->argc, r->argv,
                                        r->o.map, &err) < 0) {
        fabric_run_log(r, "%s", err.text);
        return 2;
    }
    r->checkpoint = checkpoint;
    r->checkpoint_arg = s;
    /* a readable report from the start (no round yet, not complete): a run killed before its
     * first round leaves that, not a folder without a report */
    save_reports(s, r, NULL, 0);
    return FABRIC_GO_ON;
}

/* --culprits (rank 0): what a preflight acts on, one line each (railyard-fabric(1)):
 *   drain NODE CHECK REASON  a fault pinned to this node: CHECK the check id of the failure
 *                            REASON names (a Slurm reason, <= 80 chars, "railyard: fabric ...":
 *                            railyard-healthcheck never resumes it)
 *   outlier NODE link.outlier REASON  a port that clears the floor but lags its rail
 *   unpinned A B CHECK       a failed link neither of whose ends is the culprit
 *   lost NODE                a rank of this node stopped answering: not judged (and not
 *                            drained, whatever else was found on it)
 * written aside and renamed, so a reader never sees half of it. */
static void write_culprits(const struct fabric_run *r, const struct topo_findings *f)
{
    char tmp[PATH_MAX], reason[96];
    FILE *fp;

    if (snprintf(tmp, sizeof(tmp), "%s.tmp", r->o.culprits) >= (int)sizeof(tmp) ||
        !(fp = fopen(tmp, "w"))) {
        fabric_run_log(r, "cannot write %s: %s", r->o.culprits, strerror(errno));
        return;
    }
    fprintf(fp, "# railyard-fabric culprits: %zu failed, %zu warnings, %d nodes x %d rails\n",
            f->nfail, f->nwarn, r->nodes, r->rails);
    for (int n = 0; n < r->nodes; n++) {
        /* a node whose rank was lost is not judged, never drained: a rank that died or hung
         * may be the tool's fault (killed, out of memory, stopped), not the node's */
        int lost = 0;
        const struct topo_finding *x = topo_findings_first_fail(f, r->names[n], 1, NULL);
        for (size_t i = 0; i < r->nfailed && !lost; i++)
            lost = r->failed[i] == n;
        if (!lost && x &&
            topo_findings_reason(f, r->names[n], 1, "railyard: fabric ", reason, sizeof(reason)))
            fprintf(fp, "drain %s %s %s\n", r->names[n], x->check, reason);
    }
    for (size_t i = 0; i < f->n; i++) {
        const struct topo_finding *x = &f->v[i];
        const char *slash = strchr(x->subject, '/');
        if (x->sev == TOPO_SEV_WARN && !strcmp(x->check, "link.outlier") && slash)
            fprintf(fp, "outlier %.*s link.outlier railyard: fabric link.outlier %.20s %.40s\n",
                    (int)(slash - x->subject), x->subject, slash + 1, x->observed);
    }
    for (size_t i = 0; i < f->n; i++) {
        const struct topo_finding *x = &f->v[i];
        const char *sep = strstr(x->subject, "<->"), *slash;
        if (x->sev != TOPO_SEV_FAIL || !sep || !(slash = strchr(sep, '/')))
            continue;
        fprintf(fp, "unpinned %.*s %.*s %s%s\n", (int)(sep - x->subject), x->subject,
                (int)(slash - sep - 3), sep + 3, x->check, slash);
    }
    for (size_t i = 0; i < r->nfailed; i++)
        fprintf(fp, "lost %s\n", r->names[r->failed[i]]);
    if (fclose(fp) != 0 || rename(tmp, r->o.culprits) != 0) {
        fabric_run_log(r, "cannot write %s: %s", r->o.culprits, strerror(errno));
        unlink(tmp);
    }
}

int fabric_report_end(struct fabric_report *s, struct fabric_run *r, const struct topo_findings *f)
{
    ry_error_t err = { "" };
    struct out *out;

    if (isatty(STDERR_FILENO) && !r->o.json)
        fputs("\r                                   \r", stderr);
    save_run(s, r, f, 1);
    if (r->o.culprits)
        write_culprits(r, f);
    if ((out = out_create(stdout, r->o.json ? OUT_JSON : OUT_TEXT, &err))) {
        print_results(out, s, r, f, 1, -1);
        if (r->o.run_dir)
            out_str(out, "run_dir", "  run directory: %s\n", r->o.run_dir);
        out_finish(out, &err);
        out_destroy(out);
    } else
        fabric_run_log(r, "%s", err.text);
    fflush(stdout);
    return fabric_run_exit_status(f, r->nfailed);
}

#include "config.h"

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>
#include <sqlite3.h>

#include "common/xmalloc.h"
#include "reports/history.h"
#include "reports/render_json.h"
#include "reports/out.h"

#define HISTORY_VERSION 3

static const char *const schema =
    "CREATE TABLE IF NOT EXISTS runs(id TEXT PRIMARY KEY, tool TEXT, node TEXT, started TEXT,"
    " started_unix REAL, verdict TEXT, complete INTEGER, nfail INTEGER, nwarn INTEGER, dir TEXT);"
    "CREATE TABLE IF NOT EXISTS findings(run TEXT, severity TEXT, check_id TEXT, subject TEXT,"
    " expected TEXT, observed TEXT);"
    "CREATE TABLE IF NOT EXISTS links(run TEXT, rail INTEGER, src TEXT, dst TEXT, ok INTEGER,"
    " bw_gbps REAL, lat_p50_us REAL, lat_p99_us REAL);"
    "CREATE INDEX IF NOT EXISTS findings_run ON findings(run);"
    "CREATE INDEX IF NOT EXISTS links_run ON links(run);"
    "CREATE INDEX IF NOT EXISTS links_src ON links(src, rail);"
    /* version 2: GPU figures (report.json gpu_bandwidth), per test, GPU and peer */
    "CREATE TABLE IF NOT EXISTS gpu_figures(run TEXT, name TEXT, unit TEXT, gpu INTEGER,"
    " peer INTEGER, value REAL);"
    "CREATE INDEX IF NOT EXISTS gpu_figures_run ON gpu_figures(run);"
    "CREATE INDEX IF NOT EXISTS gpu_figures_gpu ON gpu_figures(gpu, peer);"
    /* version 3: railyard-fabric's collectives (report.json collectives.results, the phase's:
     * per collective, size and rail; rail NULL for all ranks) */
    "CREATE TABLE IF NOT EXISTS collectives(run TEXT, op TEXT, rail INTEGER, bytes INTEGER,"
    " ranks INTEGER, busbw_gbps REAL, bound_gbps REAL, verdict TEXT);"
    "CREATE INDEX IF NOT EXISTS collectives_run ON collectives(run);";

/* the tables whose rows belong to a run */
static const char *const run_tables[] = { "findings", "links", "gpu_figures", "collectives" };

static int dberr(sqlite3 *db, const char *path, ry_error_t *err)
{
    return ry_errorf(err, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
}

/* open (create when create) and check it is railyard's */
static sqlite3 *open_db(const char *root, int create, char *path, size_t len, int *ver,
                        ry_error_t *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st;
    struct stat sb;
    int version = -1;

    snprintf(path, len, "%s/history.db", root);
    if (!create && stat(path, &sb) < 0) {
        ry_errorf(err, "%s: %s (no run recorded yet)", path, strerror(errno));
        return NULL;
    }
    if (sqlite3_open_v2(path, &db,
                        create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY,
                        NULL) != SQLITE_OK) {
        dberr(db, path, err);
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 5000);
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK) {
        dberr(db, path, err); /* "file is not a database" */
        sqlite3_close(db);
        return NULL;
    }
    if (sqlite3_step(st) != SQLITE_ROW) {
        dberr(db, path, err); /* "file is not a database" */
        sqlite3_finalize(st);
        sqlite3_close(db);
        return NULL;
    }
    version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (version == 0 && create) {
        char *msg = NULL;
        sqlite3_stmt *q;
        int tables = 0;
        /* a new database, or one that is not railyard's: only an empty one is taken */
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &q, NULL) ==
                SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW)
            tables = sqlite3_column_int(q, 0);
        sqlite3_finalize(q);
        if (tables) {
            ry_errorf(err, "%s: not a railyard history (no version mark); left as it is", path);
            sqlite3_close(db);
            return NULL;
        }
        if (sqlite3_exec(db, schema, NULL, NULL, &msg) != SQLITE_OK ||
            sqlite3_exec(db, "PRAGMA user_version = 3", NULL, NULL, &msg) != SQLITE_OK) {
            ry_errorf(err, "%s: %s", path, msg ? msg : "cannot create the tables");
            sqlite3_free(msg);
            sqlite3_close(db);
            return NULL;
        }
        version = HISTORY_VERSION;
    }
    if ((version == 1 || version == 2) && create) {
        /* a history of an earlier railyard: it gains the tables it lacks */
        char *msg = NULL;
        if (sqlite3_exec(db, schema, NULL, NULL, &msg) != SQLITE_OK ||
            sqlite3_exec(db, "PRAGMA user_version = 3", NULL, NULL, &msg) != SQLITE_OK) {
            ry_errorf(err, "%s: cannot bring history version %d to 3: %s", path, version,
                      msg ? msg : "unknown error");
            sqlite3_free(msg);
            sqlite3_close(db);
            return NULL;
        }
        version = HISTORY_VERSION;
    }
    if (version != HISTORY_VERSION && !((version == 1 || version == 2) && !create)) {
        ry_errorf(err, "%s: history version %d, this railyard reads %d; left as it is", path,
                  version, HISTORY_VERSION);
        sqlite3_close(db);
        return NULL;
    }
    if (ver)
        *ver = version;
    return db;
}

static const char *jstr(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static void bind_num(sqlite3_stmt *st, int i, json_t *v)
{
    if (json_is_number(v))
        sqlite3_bind_double(st, i, json_number_value(v));
    else
        sqlite3_bind_null(st, i);
}

static void bind_dbl(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}

/* Insert a row per object of arr: the run's id, then each of cols ("s:key" a string, "n:key" a
 * number); an object is skipped where its string at key equals val (keep 0) or differs from it
 * (keep 1). 0, or -1 with the database's error left in db. */
static const char *const finding_cols[] = { "s:severity", "s:check",    "s:subject",
                                            "s:expected", "s:observed", NULL };
static const char *const coll_cols[] = { "s:op",         "n:rail",       "n:bytes",   "n:ranks",
                                         "n:busbw_gbps", "n:bound_gbps", "s:verdict", NULL };
static int insert_rows(sqlite3 *db, const char *id, const char *sql, json_t *arr, const char *key,
                       const char *val, int keep, const char *const *cols)
{
    sqlite3_stmt *st;
    json_t *x;
    size_t i;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    json_array_foreach(arr, i, x)
    {
        const char *v = jstr(x, key);
        if ((v && !strcmp(v, val)) != keep)
            continue;
        sqlite3_reset(st);
        bind_text(st, 1, id);
        for (int c = 0; cols[c]; c++) {
            if (cols[c][0] == 's')
                bind_text(st, c + 2, jstr(x, cols[c] + 2));
            else
                bind_num(st, c + 2, json_object_get(x, cols[c] + 2));
        }
        if (sqlite3_step(st) != SQLITE_DONE) {
            sqlite3_finalize(st);
            return -1;
        }
    }
    sqlite3_finalize(st);
    return 0;
}

int ry_history_record(const char *root, const char *id, const char *dir, const struct ry_report *r,
                      ry_error_t *err)
{
    json_t *doc = ry_report_json(r), *run = json_object_get(doc, "run"), *x;
    json_t *sum = json_object_get(doc, "summary");
    char path[PATH_MAX];
    sqlite3_stmt *st = NULL;
    sqlite3 *db;
    size_t i, have = 0; /* the run's links recorded before */
    int rc = -1;

    if (!(db = open_db(root, 1, path, sizeof(path), NULL, err)))
        return -1;
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    /* a run recorded again (railyard-fabric records after every round) replaces its rows; its
     * links only grow, so those recorded before stay and the new ones are added: a run of
     * millions of links does not insert them all again at every round */
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM links WHERE run = ?1", -1, &st, NULL) !=
        SQLITE_OK)
        goto fail;
    bind_text(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW)
        have = (size_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    if (have > ry_report_links(r)->n)
        have = 0; /* not the same run's links: all again */
    for (size_t t = 0; t < sizeof(run_tables) / sizeof(run_tables[0]); t++) {
        char sql[96];
        if (have && !strcmp(run_tables[t], "links"))
            continue;
        snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE run = ?1", run_tables[t]);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            goto fail;
        bind_text(st, 1, id);
        sqlite3_step(st);
        sqlite3_finalize(st);
    }
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO runs VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
                           -1, &st, NULL) != SQLITE_OK)
        goto fail;
    bind_text(st, 1, id);
    bind_text(st, 2, ry_report_tool(r));
    bind_text(st, 3, ry_report_node(r));
    bind_text(st, 4, jstr(run, "started"));
    bind_num(st, 5, json_object_get(run, "started_unix"));
    bind_text(st, 6, ry_report_verdict(r));
    sqlite3_bind_int(st, 7, ry_report_complete(r));
    bind_num(st, 8, json_object_get(sum, "fail"));
    bind_num(st, 9, json_object_get(sum, "warn"));
    bind_text(st, 10, dir);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto fail;
    sqlite3_finalize(st);
    st = NULL;
    /* failures and warnings */
    if (insert_rows(db, id, "INSERT INTO findings VALUES(?1,?2,?3,?4,?5,?6)",
                    json_object_get(doc, "findings"), "severity", "ok", 0, finding_cols) < 0)
        goto fail;
    if (sqlite3_prepare_v2(db, "INSERT INTO links VALUES(?1,?2,?3,?4,?5,?6,?7,?8)", -1, &st,
                           NULL) != SQLITE_OK)
        goto fail;
    {
        const struct ry_report_links *lv = ry_report_links(r);
        for (i = have; i < lv->n; i++) {
            const struct ry_link *l = &lv->v[i];
            sqlite3_reset(st);
            bind_text(st, 1, id);
            if (l->rail >= 0)
                sqlite3_bind_int(st, 2, l->rail);
            else
                sqlite3_bind_null(st, 2);
            bind_text(st, 3, ry_link_node(lv, l->from));
            bind_text(st, 4, ry_link_node(lv, l->to));
            sqlite3_bind_int(st, 5, (l->flags & RY_LINK_OK) != 0);
            bind_dbl(st, 6, l->bw_gbps);
            bind_dbl(st, 7, l->lat_p50_us);
            bind_dbl(st, 8, l->lat_p99_us);
            if (sqlite3_step(st) != SQLITE_DONE)
                goto fail;
        }
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(db, "INSERT INTO gpu_figures VALUES(?1,?2,?3,?4,?5,?6)", -1, &st,
                           NULL) != SQLITE_OK)
        goto fail;
    json_array_foreach(json_object_get(doc, "gpu_bandwidth"), i, x)
    {
        json_t *m, *v;
        size_t k, l;
        json_array_foreach(json_object_get(x, "measurements"), k, m)
        {
            json_array_foreach(json_object_get(m, "values"), l, v)
            {
                sqlite3_reset(st);
                bind_text(st, 1, id);
                bind_text(st, 2, jstr(m, "name"));
                bind_text(st, 3, jstr(m, "unit"));
                bind_num(st, 4, json_object_get(v, "gpu"));
                bind_num(st, 5, json_object_get(v, "peer"));
                bind_num(st, 6, json_object_get(v, "value"));
                if (sqlite3_step(st) != SQLITE_DONE)
                    goto fail;
            }
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    /* the collective phase's (the localization's steps stay in the report) */
    if (insert_rows(db, id, "INSERT INTO collectives VALUES(?1,?2,?3,?4,?5,?6,?7,?8)",
                    json_object_get(json_object_get(doc, "collectives"), "results"), "purpose",
                    "phase", 1, coll_cols) < 0)
        goto fail;
    st = NULL;
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    rc = 0;
fail:
    if (rc < 0) {
        dberr(db, path, err);
        sqlite3_finalize(st);
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    }
    sqlite3_close(db);
    return rc;
}

int ry_history_forget_missing(const char *root, ry_error_t *err)
{
    char path[PATH_MAX];
    sqlite3_stmt *st, *del;
    sqlite3 *db;
    int n = 0;

    if (!(db = open_db(root, 1, path, sizeof(path), NULL, err)))
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT id, dir FROM runs", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "DELETE FROM runs WHERE id = ?1; ", -1, &del, NULL) != SQLITE_OK) {
        dberr(db, path, err);
        sqlite3_close(db);
        return -1;
    }
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(st, 0),
                   *dir = (const char *)sqlite3_column_text(st, 1);
        struct stat sb;
        if (!id || !dir || stat(dir, &sb) == 0)
            continue;
        sqlite3_reset(del);
        sqlite3_bind_text(del, 1, id, -1, SQLITE_TRANSIENT);
        sqlite3_step(del);
        n++;
    }
    sqlite3_finalize(st);
    sqlite3_finalize(del);
    sqlite3_exec(db,
                 "DELETE FROM findings WHERE run NOT IN (SELECT id FROM runs);"
                 "DELETE FROM links WHERE run NOT IN (SELECT id FROM runs);"
                 "DELETE FROM gpu_figures WHERE run NOT IN (SELECT id FROM runs); COMMIT",
                 NULL, NULL, NULL);
    sqlite3_close(db);
    return n;
}

static void json_num_or_null(json_t *o, const char *k, sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        json_object_set_new(o, k, json_null());
    else if (sqlite3_column_type(st, col) == SQLITE_INTEGER)
        json_object_set_new(o, k, json_integer(sqlite3_column_int(st, col)));
    else
        json_object_set_new(o, k, json_real(sqlite3_column_double(st, col)));
}

/* A history database may come from another machine or another program: its text is made
 * inert before it is shown. Column col for a terminal, "n/a" when NULL. */
static const char *col_text(sqlite3_stmt *st, int col, char *buf, size_t len)
{
    const char *v = (const char *)sqlite3_column_text(st, col);
    return v ? ry_inert(v, buf, len) : "n/a";
}

/* column col of the row as a JSON string (inert, so valid UTF-8), null when NULL */
static json_t *json_text_col(sqlite3_stmt *st, int col)
{
    const char *v = (const char *)sqlite3_column_text(st, col);
    json_t *j;
    char *t;

    if (!v)
        return json_null();
    t = ry_inert_dup(v);
    j = json_string(t);
    free(t);
    return j ? j : json_null();
}

/* a row of a history list in JSON: an object begun with the run's start and id (columns 0 and
 * 1), for the caller to fill */
static json_t *json_row(sqlite3_stmt *st)
{
    json_t *o = json_object();

    json_object_set_new(o, "started", json_text_col(st, 0));
    json_object_set_new(o, "run", json_text_col(st, 1));
    return o;
}

/* write o as the list's next row (first: no comma before it) and release it */
static void json_row_out(FILE *fp, json_t *o, int first)
{
    char *s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));

    fprintf(fp, "%s\n  %s", first ? "" : ",", s ? s : "null");
    free(s);
    json_decref(o);
}

/* a GPU's (or a pair's, both directions) figures, run by run */
static int gpu_trend(sqlite3 *db, const char *path, const struct ry_history_query *q, FILE *fp,
                     ry_error_t *err)
{
    static const char sql[] =
        "SELECT r.started, r.id, r.node, g.name, g.gpu, g.peer, g.value, g.unit"
        " FROM gpu_figures g JOIN runs r ON r.id = g.run"
        " WHERE ((?1 < 0 AND g.gpu = ?2 AND g.peer IS NULL)"
        "  OR (?1 >= 0 AND ((g.gpu = ?2 AND g.peer = ?1) OR (g.gpu = ?1 AND g.peer = ?2))))"
        " AND (?3 IS NULL OR r.node = ?3) AND (?4 IS NULL OR r.started >= ?4)"
        " AND (?5 IS NULL OR g.name = ?5)"
        " ORDER BY r.started DESC, r.id, g.name, g.gpu LIMIT ?6";
    char a[512], b[512], who[64];
    sqlite3_stmt *st;
    int rows = 0;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return dberr(db, path, err);
    sqlite3_bind_int(st, 1, q->peer);
    sqlite3_bind_int(st, 2, q->gpu);
    bind_text(st, 3, q->node);
    bind_text(st, 4, q->since);
    bind_text(st, 5, q->test);
    sqlite3_bind_int(st, 6, q->limit > 0 ? q->limit : 50);
    if (q->json)
        fputs("[", fp);
    else
        fprintf(fp, "%-20s %-44s %-16s %-34s %-11s %12s\n", "STARTED", "RUN", "NODE", "TEST", "GPU",
                "FIGURE");
    while (sqlite3_step(st) == SQLITE_ROW) {
        char t0[96], t1[192];
        const char *node = (const char *)sqlite3_column_text(st, 2),
                   *name = (const char *)sqlite3_column_text(st, 3),
                   *unit = (const char *)sqlite3_column_text(st, 7);
        if (q->json) {
            json_t *o = json_row(st);
            json_object_set_new(o, "node", json_text_col(st, 2));
            json_object_set_new(o, "test", json_text_col(st, 3));
            json_num_or_null(o, "gpu", st, 4);
            json_num_or_null(o, "peer", st, 5);
            json_num_or_null(o, "value", st, 6);
            json_object_set_new(o, "unit", json_text_col(st, 7));
            json_row_out(fp, o, rows == 0);
        } else {
            char fig[40];
            if (sqlite3_column_type(st, 5) != SQLITE_NULL)
                snprintf(who, sizeof(who), "gpu%d->gpu%d", sqlite3_column_int(st, 4),
                         sqlite3_column_int(st, 5));
            else
                snprintf(who, sizeof(who), "gpu%d", sqlite3_column_int(st, 4));
            snprintf(fig, sizeof(fig), "%.*f %s", unit && !strcmp(unit, "us") ? 2 : 1,
                     sqlite3_column_double(st, 6), unit && !strcmp(unit, "us") ? "us" : "GB/s");
            fprintf(fp, "%-20s %-44s %-16s %-34s %-11s %12s\n", col_text(st, 0, t0, sizeof(t0)),
                    col_text(st, 1, t1, sizeof(t1)), out_inert(node, a, sizeof(a)),
                    out_inert(name, b, sizeof(b)), who, fig);
        }
        rows++;
    }
    if (q->json)
        fputs(rows ? "\n]\n" : "]\n", fp);
    sqlite3_finalize(st);
    return rows;
}

/* a collective's bus bandwidth per rail (or one rail), run by run */
static int coll_trend(sqlite3 *db, const char *path, const struct ry_history_query *q, FILE *fp,
                      ry_error_t *err)
{
    static const char sql[] =
        "SELECT r.started, r.id, c.rail, c.bytes, c.ranks, c.busbw_gbps, c.bound_gbps, c.verdict"
        " FROM collectives c JOIN runs r ON r.id = c.run"
        " WHERE c.op = ?1 AND (?2 < 0 OR c.rail = ?2) AND (?3 IS NULL OR r.started >= ?3)"
        " ORDER BY r.started DESC, r.id, c.bytes DESC, c.rail IS NULL, c.rail LIMIT ?4";
    sqlite3_stmt *st;
    int rows = 0;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return dberr(db, path, err);
    bind_text(st, 1, q->collective);
    sqlite3_bind_int(st, 2, q->rail);
    bind_text(st, 3, q->since);
    sqlite3_bind_int(st, 4, q->limit > 0 ? q->limit : 50);
    if (q->json)
        fputs("[", fp);
    else
        fprintf(fp, "%-20s %-44s %-9s %10s %6s %14s %14s %s\n", "STARTED", "RUN", "GROUP", "BYTES",
                "RANKS", "BUSBW", "BOUND", "VERDICT");
    while (sqlite3_step(st) == SQLITE_ROW) {
        char t0[96], t1[192], t2[96];
        if (q->json) {
            json_t *o = json_row(st);
            json_object_set_new(o, "op", json_string(q->collective));
            json_num_or_null(o, "rail", st, 2);
            json_num_or_null(o, "bytes", st, 3);
            json_num_or_null(o, "ranks", st, 4);
            json_num_or_null(o, "busbw_gbps", st, 5);
            json_num_or_null(o, "bound_gbps", st, 6);
            json_object_set_new(o, "verdict", json_text_col(st, 7));
            json_row_out(fp, o, rows == 0);
        } else {
            char group[24] = "all", bw[32] = "n/a", bound[32] = "n/a";
            if (sqlite3_column_type(st, 2) != SQLITE_NULL)
                snprintf(group, sizeof(group), "rail%d", sqlite3_column_int(st, 2));
            if (sqlite3_column_type(st, 5) != SQLITE_NULL)
                snprintf(bw, sizeof(bw), "%.3f Gb/s", sqlite3_column_double(st, 5));
            if (sqlite3_column_type(st, 6) != SQLITE_NULL)
                snprintf(bound, sizeof(bound), "%.3f Gb/s", sqlite3_column_double(st, 6));
            fprintf(fp, "%-20s %-44s %-9s %10lld %6d %14s %14s %s\n",
                    col_text(st, 0, t0, sizeof(t0)), col_text(st, 1, t1, sizeof(t1)), group,
                    (long long)sqlite3_column_int64(st, 3), sqlite3_column_int(st, 4), bw, bound,
                    col_text(st, 7, t2, sizeof(t2)));
        }
        rows++;
    }
    if (q->json)
        fputs(rows ? "\n]\n" : "]\n", fp);
    sqlite3_finalize(st);
    return rows;
}

int ry_history_list(const char *root, const struct ry_history_query *q, FILE *fp, ry_error_t *err)
{
    char path[PATH_MAX], a[512], b[512];
    sqlite3_stmt *st;
    sqlite3 *db;
    int rows = 0, trend = q->rail >= 0, first = 1, version = 0;
    const char *sql =
        trend ? "SELECT r.started, r.id, l.src, l.dst, l.ok, l.bw_gbps, l.lat_p50_us FROM links l"
                " JOIN runs r ON r.id = l.run WHERE l.rail = ?1"
                " AND (?2 IS NULL OR l.src = ?2 OR l.dst = ?2) AND (?3 IS NULL OR r.started >= ?3)"
                " ORDER BY r.started DESC, l.src, l.dst LIMIT ?4"
              : "SELECT started, id, tool, node, verdict, complete, nfail, nwarn FROM runs"
                " WHERE (?2 IS NULL OR node = ?2 OR id IN (SELECT run FROM links WHERE src = ?2 OR"
                " dst = ?2) OR id IN (SELECT run FROM findings WHERE subject LIKE ?2 || '/%'"
                " OR subject LIKE ?2 || '<->%' OR subject LIKE '%<->' || ?2 || '/%'))"
                " AND (?3 IS NULL OR started >= ?3) AND (?1 IS NULL OR 1) ORDER BY started DESC"
                " LIMIT ?4";

    if (!(db = open_db(root, 0, path, sizeof(path), &version, err)))
        return -1;
    if (q->collective) {
        if (version < 3)
            rows = ry_errorf(err,
                             "%s: history version %d keeps no collectives (the next run "
                             "recorded brings it to version 3)",
                             path, version);
        else
            rows = coll_trend(db, path, q, fp, err);
        sqlite3_close(db);
        return rows;
    }
    if (q->gpu >= 0) {
        if (version < 2)
            rows = ry_errorf(err,
                             "%s: history version %d keeps no GPU figures (the next run "
                             "recorded brings it to version 2)",
                             path, version);
        else
            rows = gpu_trend(db, path, q, fp, err);
        sqlite3_close(db);
        return rows;
    }
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        dberr(db, path, err);
        sqlite3_close(db);
        return -1;
    }
    if (trend)
        sqlite3_bind_int(st, 1, q->rail);
    else
        sqlite3_bind_null(st, 1);
    bind_text(st, 2, q->node);
    bind_text(st, 3, q->since);
    sqlite3_bind_int(st, 4, q->limit > 0 ? q->limit : 50);
    if (q->json)
        fputs("[", fp);
    else if (trend)
        fprintf(fp, "%-20s %-44s %-16s %-16s %12s %10s\n", "STARTED", "RUN", "FROM", "TO",
                "GOODPUT", "P50");
    else
        fprintf(fp, "%-20s %-44s %-7s %-16s %-8s %5s %5s\n", "STARTED", "RUN", "TOOL", "NODE",
                "VERDICT", "FAIL", "WARN");
    while (sqlite3_step(st) == SQLITE_ROW) {
        char t0[96], t1[192], t2[96], t3[96];
        rows++;
        if (q->json) {
            json_t *o = json_row(st);
            if (trend) {
                json_object_set_new(o, "from", json_text_col(st, 2));
                json_object_set_new(o, "to", json_text_col(st, 3));
                json_object_set_new(o, "ok", json_boolean(sqlite3_column_int(st, 4)));
                json_object_set_new(o, "bw_gbps",
                                    sqlite3_column_type(st, 5) == SQLITE_NULL
                                        ? json_null()
                                        : json_real(sqlite3_column_double(st, 5)));
            } else {
                json_object_set_new(o, "tool", json_text_col(st, 2));
                json_object_set_new(o, "node", json_text_col(st, 3));
                json_object_set_new(o, "verdict", json_text_col(st, 4));
                json_object_set_new(o, "complete", json_boolean(sqlite3_column_int(st, 5)));
                json_object_set_new(o, "fail", json_integer(sqlite3_column_int(st, 6)));
                json_object_set_new(o, "warn", json_integer(sqlite3_column_int(st, 7)));
            }
            json_row_out(fp, o, first);
            first = 0;
        } else if (trend) {
            char bw[32] = "failed", lat[32] = "n/a";
            if (sqlite3_column_int(st, 4) && sqlite3_column_type(st, 5) != SQLITE_NULL)
                snprintf(bw, sizeof(bw), "%.3f Gb/s", sqlite3_column_double(st, 5));
            if (sqlite3_column_type(st, 6) != SQLITE_NULL)
                snprintf(lat, sizeof(lat), "%.1f us", sqlite3_column_double(st, 6));
            fprintf(fp, "%-20s %-44s %-16s %-16s %12s %10s\n", col_text(st, 0, t0, sizeof(t0)),
                    col_text(st, 1, t1, sizeof(t1)),
                    out_inert((const char *)sqlite3_column_text(st, 2), a, sizeof(a)),
                    out_inert((const char *)sqlite3_column_text(st, 3), b, sizeof(b)), bw, lat);
        } else
            fprintf(fp, "%-20s %-44s %-7s %-16s %-8s %5d %5d%s\n", col_text(st, 0, t0, sizeof(t0)),
                    col_text(st, 1, t1, sizeof(t1)), col_text(st, 2, t2, sizeof(t2)),
                    out_inert((const char *)sqlite3_column_text(st, 3), a, sizeof(a)),
                    col_text(st, 4, t3, sizeof(t3)), sqlite3_column_int(st, 6),
                    sqlite3_column_int(st, 7), sqlite3_column_int(st, 5) ? "" : "  (incomplete)");
    }
    if (q->json)
        fputs(first ? "]\n" : "\n]\n", fp);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rows;
}

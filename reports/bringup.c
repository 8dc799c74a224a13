#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xmalloc.h"
#include "reports/bringup.h"
#include "reports/out.h"

static const char *const names[] = { "", "ready", "not judged", "outlier", "recable", "drain" };

const char *bringup_verdict_name(enum bringup_verdict v)
{
    return v <= BRINGUP_DRAIN ? names[v] : "";
}

/* drain and recable weigh the same */
static int weight(enum bringup_verdict v)
{
    return v == BRINGUP_DRAIN ? BRINGUP_RECABLE : (int)v;
}

static int add_node(const char *host, void *ctx)
{
    struct bringup *b = ctx;
    b->nodes = xrealloc(b->nodes, (b->n + 1) * sizeof(*b->nodes));
    b->nodes[b->n++] = (struct bringup_node){ xstrdup(host), BRINGUP_NONE, NULL, NULL };
    return 0;
}

int bringup_init(struct bringup *b, const char *hostlist, ry_error_t *err)
{
    memset(b, 0, sizeof(*b));
    /* a list that names no host is malformed ("empty host list"): n >= 1 after it */
    return ry_hostlist_expand(hostlist, add_node, b, err) != 0 ? -1 : 0;
}

void bringup_free(struct bringup *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->nodes[i].name);
        free(b->nodes[i].reason);
        free(b->nodes[i].action);
    }
    free(b->nodes);
    for (size_t i = 0; i < b->nnotes; i++)
        free(b->notes[i]);
    free(b->notes);
    memset(b, 0, sizeof(*b));
}

struct bringup_node *bringup_node(struct bringup *b, const char *name)
{
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->nodes[i].name, name))
            return &b->nodes[i];
    return NULL;
}

void bringup_set(struct bringup *b, const char *node, enum bringup_verdict v, const char *reason)
{
    struct bringup_node *x = bringup_node(b, node);
    if (!x || weight(v) <= weight(x->verdict))
        return;
    x->verdict = v;
    free(x->reason);
    x->reason = xstrdup(reason ? reason : "");
}

/* the next blank-separated word of *s (cut in place), the rest after its blanks in *s */
static char *word(char **s)
{
    char *w = *s, *e;
    while (*w == ' ' || *w == '\t')
        w++;
    for (e = w; *e && *e != ' ' && *e != '\t'; e++)
        ;
    *s = e;
    if (*e) {
        *e = '\0';
        for (*s = e + 1; **s == ' ' || **s == '\t'; (*s)++)
            ;
    }
    return w;
}

static char *chomp_dup(const char *line)
{
    char *s = xstrdup(line);
    s[strcspn(s, "\r\n")] = '\0';
    return s;
}

static void note(struct bringup *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct bringup *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    b->notes = xrealloc(b->notes, (b->nnotes + 1) * sizeof(*b->notes));
    b->notes[b->nnotes++] = xvasprintf(fmt, ap);
    va_end(ap);
}

void bringup_check_line(struct bringup *b, const char *line)
{
    char *buf = chomp_dup(line), *rest = buf, *node = word(&rest), *rc = word(&rest), *end;
    struct bringup_node *x = bringup_node(b, node);
    long v = strtol(rc, &end, 10);
    char why[600];

    if (x && *rc && !*end && v == 0) {
        if (x->verdict == BRINGUP_NONE)
            x->verdict = BRINGUP_READY;
    } else if (x && *rc && !*end && v == 1) {
        bringup_set(b, node, BRINGUP_DRAIN, rest);
    } else if (x) {
        if (*rest)
            snprintf(why, sizeof(why), "node check: %s", rest);
        else
            snprintf(why, sizeof(why), "node check: exit %s", rc);
        bringup_set(b, node, BRINGUP_NOT_JUDGED, why);
    }
    free(buf);
}

void bringup_no_answer(struct bringup *b, const char *where)
{
    char why[600];
    snprintf(why, sizeof(why), "node check: no answer (see %s)", where);
    for (size_t i = 0; i < b->n; i++)
        if (b->nodes[i].verdict == BRINGUP_NONE)
            bringup_set(b, b->nodes[i].name, BRINGUP_NOT_JUDGED, why);
}

void bringup_culprit_line(struct bringup *b, const char *run, const char *line)
{
    char *buf = chomp_dup(line), *rest = buf, *kind = word(&rest), *a = word(&rest);
    char *check = word(&rest), why[300];

    if (!strcmp(kind, "drain"))
        bringup_set(b, a, strcmp(check, "rail.cabling") ? BRINGUP_DRAIN : BRINGUP_RECABLE, rest);
    else if (!strcmp(kind, "outlier"))
        bringup_set(b, a, BRINGUP_OUTLIER, rest);
    else if (!strcmp(kind, "lost")) {
        snprintf(why, sizeof(why), "a rank stopped answering in the %s run", run);
        bringup_set(b, a, BRINGUP_NOT_JUDGED, why);
    } else if (!strcmp(kind, "unpinned"))
        note(b, "railyard-bringup: %s run: a fault between %s and %s pinned to neither (%s)\n", run,
             a, check, rest);
    free(buf);
}

void bringup_fabric_done(struct bringup *b, const char *where)
{
    char why[600];
    if (b->n < 2 || b->fabric_judged)
        return;
    snprintf(why, sizeof(why), "the rails could not be tested (see %s)", where);
    for (size_t i = 0; i < b->n; i++)
        if (b->nodes[i].verdict == BRINGUP_READY)
            bringup_set(b, b->nodes[i].name, BRINGUP_NOT_JUDGED, why);
}

int bringup_exit(const struct bringup *b)
{
    int judged = 0, all_ready = 1; /* a faulty node is judged and not ready: 1 */
    for (size_t i = 0; i < b->n; i++) {
        enum bringup_verdict v = b->nodes[i].verdict;
        judged |= v != BRINGUP_NOT_JUDGED && v != BRINGUP_NONE;
        all_ready &= v == BRINGUP_READY;
    }
    if (!judged)
        return 2;
    return all_ready ? 0 : 1;
}

void bringup_run_free(struct bringup_run *r)
{
    free(r->dir);
    free(r->map);
    free(r->nodes);
    free(r->time);
    memset(r, 0, sizeof(*r));
}

/* each line of dir/name to fn (ctx, the line); 0 read, -1 no such file */
static int each_line(const char *dir, const char *name, void (*fn)(void *, const char *), void *ctx)
{
    char path[4096], *line = NULL;
    size_t cap = 0;
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (!(fp = fopen(path, "r")))
        return -1;
    while (getline(&line, &cap, fp) >= 0)
        fn(ctx, line);
    free(line);
    fclose(fp);
    return 0;
}

struct read_ctx {
    struct bringup *b;
    struct bringup_run *r;
    const char *run; /* the run whose culprits are read */
    int lines;       /* lines of it, comments too (railyard-fabric writes one at least) */
    char **runs;     /* "NAME EXIT" of each run, in order */
    size_t nruns;
    char first_err[201]; /* a run's first line of errors, cut at 200 characters */
};

static void on_run_line(void *p, const char *line)
{
    struct read_ctx *c = p;
    char *buf = chomp_dup(line), *rest = buf, *key = word(&rest);

    char **field = !strcmp(key, "map")     ? &c->r->map
                   : !strcmp(key, "nodes") ? &c->r->nodes
                   : !strcmp(key, "time")  ? &c->r->time
                                           : NULL;
    if (field) { /* the last line of a key counts */
        free(*field);
        *field = xstrdup(rest);
    }
    if (!strcmp(key, "rails"))
        c->r->rails = strtol(rest, NULL, 10);
    else if (!strcmp(key, "started"))
        c->r->started = strtoll(rest, NULL, 10);
    else if (!strcmp(key, "applied"))
        c->r->applied = !strcmp(rest, "1");
    else if (!strcmp(key, "run") && *rest) {
        c->runs = xrealloc(c->runs, (c->nruns + 1) * sizeof(*c->runs));
        c->runs[c->nruns++] = xstrdup(rest);
    }
    free(buf);
}

static void on_check_line(void *p, const char *line)
{
    bringup_check_line(((struct read_ctx *)p)->b, line);
}

static void on_culprit_line(void *p, const char *line)
{
    struct read_ctx *c = p;
    c->lines++;
    bringup_culprit_line(c->b, c->run, line); /* a comment's kind, "#", is none of them */
}

static void on_err_line(void *p, const char *line)
{
    struct read_ctx *c = p;
    const char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    if (c->first_err[0] || *s == '\n' || !*s)
        return;
    snprintf(c->first_err, sizeof(c->first_err), "%s", line);
    c->first_err[strcspn(c->first_err, "\n")] = '\0';
}

static void on_action_line(void *p, const char *line)
{
    struct read_ctx *c = p;
    char *buf = chomp_dup(line), *tab = strchr(buf, '\t');
    struct bringup_node *x;
    if (tab) {
        *tab = '\0';
        if ((x = bringup_node(c->b, buf)) && tab[1]) {
            free(x->action);
            x->action = xstrdup(tab + 1);
        }
    }
    free(buf);
}

int bringup_read(struct bringup *b, struct bringup_run *r, const char *dir, ry_error_t *err)
{
    struct read_ctx c = { .b = b, .r = r };
    char where[4200], name[300];
    int rc = -1;

    memset(r, 0, sizeof(*r));
    memset(b, 0, sizeof(*b));
    r->dir = xstrdup(dir);
    if (each_line(dir, "run.txt", on_run_line, &c) < 0) {
        ry_errorf(err, "%s/run.txt: cannot read it: not a bring-up's run directory", dir);
        goto out;
    }
    if (!r->nodes) {
        ry_errorf(err, "%s/run.txt: no 'nodes' line", dir);
        goto out;
    }
    if (bringup_init(b, r->nodes, err) < 0) {
        ry_error_prefix(err, "%s/run.txt", dir);
        goto out;
    }
    c.b = b;
    each_line(dir, "checks.txt", on_check_line, &c);
    snprintf(where, sizeof(where), "%s/checks.err", dir);
    bringup_no_answer(b, where);
    for (size_t i = 0; i < c.nruns; i++) {
        char *rest = c.runs[i], *run = word(&rest), *exit = word(&rest);
        int judged;
        c.run = run;
        c.lines = 0;
        snprintf(name, sizeof(name), "%s.culprits", run);
        judged = each_line(dir, name, on_culprit_line, &c) == 0 && c.lines > 0;
        if (judged && (!strcmp(exit, "0") || !strcmp(exit, "1")))
            b->fabric_judged = 1;
        if (!judged) {
            c.first_err[0] = '\0';
            snprintf(name, sizeof(name), "%s.err", run);
            each_line(dir, name, on_err_line, &c);
            note(b, "railyard-bringup: %s run: not judged (exit %s): %s", run, exit, c.first_err);
        }
    }
    bringup_fabric_done(b, dir);
    each_line(dir, "actions.tsv", on_action_line, &c);
    rc = 0;
out:
    for (size_t i = 0; i < c.nruns; i++)
        free(c.runs[i]);
    free(c.runs);
    return rc;
}

void bringup_print(struct out *o, const struct bringup *b, const struct bringup_run *r,
                   long long now)
{
    char head[160];
    long long elapsed = r->started > 0 && now >= r->started ? now - r->started : 0;

    out_int(o, "schema_version", NULL, 1);
    out_str(o, "tool", NULL, "railyard-bringup");
    out_str(o, "time", NULL, r->time ? r->time : "");
    out_str(o, "map", NULL, r->map ? r->map : "");
    out_str(o, "nodes_asked", NULL, r->nodes);
    snprintf(head, sizeof(head), "railyard-bringup: %zu nodes x %%s rails, ", b->n);
    out_int(o, "rails", head, r->rails);
    out_int(o, "elapsed_s", "%s s, ", elapsed);
    out_str(o, "run_dir", "run directory %s\n", r->dir);
    out_bool(o, "applied", NULL, r->applied);
    out_text(o, "%-16s %-11s %s\n", "NODE", "VERDICT", "REASON");
    out_arr_open(o, "nodes");
    for (size_t i = 0; i < b->n; i++) {
        const struct bringup_node *x = &b->nodes[i];
        out_obj_open(o, NULL);
        out_str(o, "node", "%-16s ", x->name);
        out_str(o, "verdict", "%-11s ", bringup_verdict_name(x->verdict));
        out_str(o, "reason", "%s", x->reason ? x->reason : "");
        out_str(o, "action", x->action ? " [%s]" : NULL, x->action ? x->action : "");
        out_text(o, "\n");
        out_obj_close(o);
    }
    out_arr_close(o);
}

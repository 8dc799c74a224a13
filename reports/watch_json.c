#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/file.h"
#include "common/xmalloc.h"
#include "reports/archive.h"
#include "reports/out.h"
#include "reports/watch_json.h"

static const char *phase_name(enum watch_phase p)
{
    return p == WATCH_OPEN ? "open" : p == WATCH_UPDATE ? "update" : "close";
}

/* seconds since the epoch as "2026-12-06T11:12:00Z" */
static json_t *when(double t)
{
    char buf[32];

    ry_iso_time((time_t)t, buf, sizeof(buf));
    return json_string(buf);
}

static json_t *event_json(enum watch_phase phase, const struct watch_event *e, double off)
{
    json_t *o = json_object();

    json_object_set_new(o, "event", json_string(watch_kind_name(e->kind)));
    json_object_set_new(o, "phase", json_string(phase_name(phase)));
    json_object_set_new(o, "subject", json_string(e->subject));
    if (watch_kind_has_counter(e->kind))
        json_object_set_new(o, "counter", json_string(watch_ctr_name(e->ctr)));
    json_object_set_new(o, "first", when(e->first + off));
    json_object_set_new(o, "last", when(e->last + off));
    json_object_set_new(o, "first_s", json_real(e->first + off));
    json_object_set_new(o, "last_s", json_real(e->last + off));
    json_object_set_new(o, "value", json_real(e->value));
    json_object_set_new(o, "limit", json_real(e->limit));
    json_object_set_new(o, "figures", json_string(e->figures));
    return o;
}

char *ry_watch_event_line(enum watch_phase phase, const struct watch_event *e, const char *host,
                          double wall_minus_mono, ry_error_t *err)
{
    json_t *o = event_json(phase, e, wall_minus_mono);
    char *s;

    json_object_set_new(o, "host", json_string(host ? host : ""));
    s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s)
        ry_errorf(err, "cannot encode the event %s %s", watch_kind_name(e->kind), e->subject);
    return s;
}

static int dump(FILE *fp, void *arg, ry_error_t *err)
{
    if (json_dumpf((json_t *)arg, fp, JSON_INDENT(1) | JSON_PRESERVE_ORDER) < 0 ||
        fputc('\n', fp) == EOF)
        return ry_errorf(err, "cannot write the watch state");
    return 0;
}

int ry_watch_state_write(const char *path, const struct ry_watch_state *s, ry_error_t *err)
{
    json_t *o = json_object(), *ports = json_array(), *ev = json_array();
    int rc;

    json_object_set_new(o, "schema_version", json_integer(1));
    json_object_set_new(o, "tool", json_string("railyard watch"));
    json_object_set_new(o, "host", json_string(s->host ? s->host : ""));
    json_object_set_new(o, "pid", json_integer(s->pid));
    json_object_set_new(o, "started", when(s->started));
    json_object_set_new(o, "updated", when(s->updated));
    json_object_set_new(o, "updated_s", json_real(s->updated));
    json_object_set_new(o, "interval_s", json_real(s->interval));
    json_object_set_new(o, "window_s", json_real(s->window));
    json_object_set_new(o, "watching", json_boolean(!s->stopped));
    for (size_t i = 0; i < s->nports; i++) {
        json_t *p = json_object();
        json_object_set_new(p, "subject", json_string(s->ports[i].subject));
        if (s->ports[i].nvlink)
            json_object_set_new(p, "nvlink", json_true());
        json_object_set_new(p, "sampled", json_boolean(!s->why[i][0]));
        if (s->why[i][0])
            json_object_set_new(p, "why", json_string(s->why[i]));
        json_array_append_new(ports, p);
    }
    json_object_set_new(o, "ports", ports);
    if (s->nvlink_why && s->nvlink_why[0])
        json_object_set_new(o, "nvlinks_why", json_string(s->nvlink_why));
    for (size_t i = 0; i < s->nevents; i++)
        json_array_append_new(ev,
                              event_json(s->events[i].phase, &s->events[i].e, s->wall_minus_mono));
    json_object_set_new(o, "events", ev);
    rc = ry_write_atomic(path, dump, o, err);
    json_decref(o);
    return rc;
}

/* a string member into buf ("" when absent); -1 when present and not a string */
static int get_str(json_t *o, const char *key, char *buf, size_t size)
{
    json_t *v = json_object_get(o, key);

    buf[0] = '\0';
    if (!v)
        return 0;
    if (!json_is_string(v))
        return -1;
    snprintf(buf, size, "%s", json_string_value(v));
    return 0;
}

/* a number member; -1 when absent or not a number */
static int get_num(json_t *o, const char *key, double *d)
{
    json_t *v = json_object_get(o, key);

    if (!json_is_number(v))
        return -1;
    *d = json_number_value(v);
    return 0;
}

int ry_watch_state_read(const char *path, struct ry_watch_read *r, ry_error_t *err)
{
    json_error_t je;
    json_t *o, *v, *ports, *ev;
    char last_why[160] = "", first[96] = ""; /* the first port of the line being folded */
    double pid = 0;
    size_t i;
    int folded = 0; /* ports not sampled one after another for last_why, folded into one line */

    memset(r, 0, sizeof(*r));
    if (!(o = json_load_file(path, 0, &je))) {
        if (je.line < 1)
            return ry_errorf(err, "%s: %s", path, je.text);
        return ry_errorf(err, "%s:%d: not JSON: %s", path, je.line, je.text);
    }
    v = json_object_get(o, "schema_version");
    if (!json_is_integer(v) || json_integer_value(v) != 1) {
        json_decref(o);
        return ry_errorf(err, "%s: not a state file of railyard watch (schema_version 1)", path);
    }
    ports = json_object_get(o, "ports");
    ev = json_object_get(o, "events");
    if (get_num(o, "updated_s", &r->updated_s) < 0 ||
        get_num(o, "interval_s", &r->interval_s) < 0 || get_num(o, "window_s", &r->window_s) < 0 ||
        !json_is_boolean(json_object_get(o, "watching")) || !json_is_array(ports) ||
        !json_is_array(ev) || r->interval_s <= 0 || r->window_s <= 0) {
        json_decref(o);
        return ry_errorf(err,
                         "%s: a state file without updated_s, interval_s, window_s, watching, "
                         "ports or events (or one of another type)",
                         path);
    }
    get_str(o, "host", r->host, sizeof(r->host));
    get_num(o, "pid", &pid);
    r->pid = (long)pid;
    r->watching = json_is_true(json_object_get(o, "watching"));
    r->nports = json_array_size(ports);
    r->unsampled = xcalloc(r->nports + 2, sizeof(*r->unsampled));
    json_array_foreach(ports, i, v)
    {
        char subject[96], why[160];
        int nvlink;
        if (!json_is_object(v) || get_str(v, "subject", subject, sizeof(subject)) < 0 ||
            get_str(v, "why", why, sizeof(why)) < 0)
            goto bad;
        nvlink = json_is_true(json_object_get(v, "nvlink"));
        r->nnvlinks += nvlink;
        if (!json_is_false(json_object_get(v, "sampled"))) {
            r->nsampled[nvlink]++;
            folded = 0;
            continue;
        }
        if (!why[0])
            snprintf(why, sizeof(why), "not sampled");
        /* one reason for many (an NVML read that hung, for every link): one line */
        if (folded && !strcmp(why, last_why))
            snprintf(r->unsampled[r->nunsampled - 1], sizeof(*r->unsampled), "%s and %d more: %s",
                     first, folded++, why);
        else {
            snprintf(r->unsampled[r->nunsampled++], sizeof(*r->unsampled), "%s: %s", subject, why);
            snprintf(first, sizeof(first), "%s", subject);
            folded = 1;
        }
        snprintf(last_why, sizeof(last_why), "%s", why);
    }
    if (get_str(o, "nvlinks_why", last_why, sizeof(last_why)) < 0) {
        json_decref(o);
        ry_watch_read_free(r);
        return ry_errorf(err, "%s: its nvlinks_why is not a string", path);
    }
    if (last_why[0])
        snprintf(r->unsampled[r->nunsampled++], sizeof(*r->unsampled), "NVLinks: %s", last_why);
    r->events = xcalloc(json_array_size(ev) + 1, sizeof(*r->events));
    json_array_foreach(ev, i, v)
    {
        struct ry_watch_seen *e = &r->events[r->nevents];
        char phase[16];
        if (!json_is_object(v) || get_str(v, "event", e->kind, sizeof(e->kind)) < 0 ||
            get_str(v, "subject", e->subject, sizeof(e->subject)) < 0 ||
            get_str(v, "phase", phase, sizeof(phase)) < 0 ||
            get_str(v, "counter", e->counter, sizeof(e->counter)) < 0 ||
            get_str(v, "figures", e->figures, sizeof(e->figures)) < 0 || !e->kind[0] ||
            !e->subject[0] || get_num(v, "first_s", &e->first_s) < 0 ||
            get_num(v, "last_s", &e->last_s) < 0)
            goto bad;
        get_num(v, "value", &e->value);
        get_num(v, "limit", &e->limit);
        e->open = strcmp(phase, "close") != 0;
        snprintf(e->phase, sizeof(e->phase), "%s", phase);
        r->nevents++;
    }
    json_decref(o);
    return 0;
bad:
    /* (which member: told while the document is still there) */
    ry_errorf(err, "%s: %s %zu of the state file is not what railyard watch writes", path,
              r->events && json_array_get(ev, i) == v ? "event" : "port", i + 1);
    json_decref(o);
    ry_watch_read_free(r);
    return -1;
}

void ry_watch_read_free(struct ry_watch_read *r)
{
    free(r->unsampled);
    free(r->events);
    memset(r, 0, sizeof(*r));
}

/* a string member of an event line ("" when absent or not a string) */
static const char *member(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));

    return v ? v : "";
}

/* one file of the log: its matching lines into the ring (the last q->limit kept) */
static void events_of(const char *path, const struct ry_watch_events_query *q, json_t **ring,
                      size_t cap, size_t *n)
{
    FILE *fp = fopen(path, "r");
    char *line = NULL;
    size_t len = 0, no = 0;

    if (!fp)
        return;
    while (getline(&line, &len, fp) > 0) {
        json_error_t je;
        json_t *o = json_loads(line, 0, &je);
        no++;
        if (!json_is_object(o) || !member(o, "event")[0] || !member(o, "last")[0]) {
            fprintf(stderr, "railyard: %s:%zu: not an event line of railyard watch (left out)\n",
                    path, no);
            json_decref(o);
            continue;
        }
        if ((q->node && strcmp(member(o, "host"), q->node)) ||
            (q->since && strcmp(member(o, "last"), q->since) < 0)) {
            json_decref(o);
            continue;
        }
        json_decref(ring[*n % cap]);
        ring[*n % cap] = o;
        (*n)++;
    }
    free(line);
    fclose(fp);
}

int ry_watch_events_list(const char *log, const struct ry_watch_events_query *q, FILE *fp,
                         ry_error_t *err)
{
    size_t cap = q->limit > 0 ? (size_t)q->limit : 50, n = 0, rows;
    json_t **ring = xcalloc(cap, sizeof(*ring));
    char path[4200];

    if (strlen(log) + 3 >= sizeof(path)) {
        free(ring);
        return ry_errorf(err, "%s: path too long", log);
    }
    for (int k = 4; k >= 0; k--) {
        if (k)
            snprintf(path, sizeof(path), "%s.%d", log, k);
        else
            snprintf(path, sizeof(path), "%s", log);
        events_of(path, q, ring, cap, &n);
    }
    rows = n < cap ? n : cap;
    if (q->json)
        fputs("[", fp);
    else if (rows)
        fprintf(fp, "%-20s  %-16s %-18s %-6s %-16s %s\n", "LAST", "HOST", "EVENT", "PHASE", "PORT",
                "FIGURES");
    for (size_t i = 0; i < rows; i++) {
        json_t *o = ring[(n - 1 - i) % cap]; /* newest first */
        if (q->json) {
            fputs(i ? ",\n " : "\n ", fp);
            json_dumpf(o, fp, JSON_COMPACT | JSON_PRESERVE_ORDER);
        } else {
            char h[64], ev[64], ph[16], sub[96], ctr[64], fig[256], port[200];
            snprintf(port, sizeof(port), "%s%s%s%s",
                     out_inert(member(o, "subject"), sub, sizeof(sub)),
                     member(o, "counter")[0] ? " (" : "",
                     out_inert(member(o, "counter"), ctr, sizeof(ctr)),
                     member(o, "counter")[0] ? ")" : "");
            fprintf(fp, "%-20.20s  %-16s %-18s %-6s %-16s %s\n", member(o, "last"),
                    out_inert(member(o, "host"), h, sizeof(h)),
                    out_inert(member(o, "event"), ev, sizeof(ev)),
                    out_inert(member(o, "phase"), ph, sizeof(ph)), port,
                    out_inert(member(o, "figures"), fig, sizeof(fig)));
        }
    }
    if (q->json)
        fputs(rows ? "\n]\n" : "]\n", fp);
    for (size_t i = 0; i < cap; i++)
        json_decref(ring[i]);
    free(ring);
    return (int)rows;
}

int ry_watch_event_parse(const char *line, struct ry_watch_seen *e, char *host, size_t hostlen)
{
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    int rc = -1;

    memset(e, 0, sizeof(*e));
    if (json_is_object(o) && get_str(o, "event", e->kind, sizeof(e->kind)) == 0 && e->kind[0] &&
        get_str(o, "subject", e->subject, sizeof(e->subject)) == 0 &&
        get_str(o, "phase", e->phase, sizeof(e->phase)) == 0 &&
        get_str(o, "counter", e->counter, sizeof(e->counter)) == 0 &&
        get_str(o, "figures", e->figures, sizeof(e->figures)) == 0 &&
        get_num(o, "last_s", &e->last_s) == 0) {
        get_num(o, "first_s", &e->first_s);
        get_num(o, "value", &e->value);
        get_num(o, "limit", &e->limit);
        e->open = strcmp(e->phase, "close") != 0;
        if (host)
            get_str(o, "host", host, hostlen);
        rc = 0;
    }
    json_decref(o);
    return rc;
}

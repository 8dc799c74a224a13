#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/file.h"
#include "reports/archive.h"
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
    if (e->kind == WATCH_EV_BURST || e->kind == WATCH_EV_CONGESTION)
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
        json_object_set_new(p, "sampled", json_boolean(!s->why[i][0]));
        if (s->why[i][0])
            json_object_set_new(p, "why", json_string(s->why[i]));
        json_array_append_new(ports, p);
    }
    json_object_set_new(o, "ports", ports);
    for (size_t i = 0; i < s->nevents; i++)
        json_array_append_new(ev,
                              event_json(s->events[i].phase, &s->events[i].e, s->wall_minus_mono));
    json_object_set_new(o, "events", ev);
    rc = ry_write_atomic(path, dump, o, err);
    json_decref(o);
    return rc;
}

/* railyard top and railyard watch: the events view (newest first, the oldest beyond TOP_EVENTS
 * gone, the watch's status first), a port marked from the watch's open events, and the log read
 * as the watch writes it (new lines at each refresh, a partial line left for later, a line that
 * is not an event skipped, a rotated log read again from its start, a long log's tail). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap/tap.h"
#include "top/top.h"
#include "top/watch.h"

static struct top_event ev(const char *kind, const char *subject, enum top_sev sev)
{
    struct top_event e;

    memset(&e, 0, sizeof(e));
    snprintf(e.when, sizeof(e.when), "2026-12-06T10:00:00Z");
    snprintf(e.kind, sizeof(e.kind), "%s", kind);
    snprintf(e.phase, sizeof(e.phase), "open");
    snprintf(e.subject, sizeof(e.subject), "%s", subject);
    snprintf(e.figures, sizeof(e.figures), "figures of %s", subject);
    e.sev = sev;
    return e;
}

static void view(void)
{
    struct top_model m;
    struct top_line lines[16];
    struct top_event e;
    struct top_port *p, *q;
    enum top_view v;
    size_t n;

    top_model_init(&m);
    m.view = TOP_VIEW_EVENTS;
    n = top_layout_view(&m, 160, lines, 16);
    ok(n == 2 && strstr(lines[0].text, "LAST") && strstr(lines[1].text, "not read") &&
           lines[1].sev == TOP_WARN,
       "events view, nothing read: the header, and the watch's status as a warning");
    e = ev("port.flapping", "mlx5_1/1", TOP_FAIL);
    top_model_add_event(&m, &e);
    e = ev("port.errors.burst", "mlx5_2/1", TOP_WARN);
    snprintf(e.counter, sizeof(e.counter), "SymbolErrorCounter");
    top_model_add_event(&m, &e);
    snprintf(m.watch_why, sizeof(m.watch_why), "railyard watch: watching 4 ports");
    n = top_layout_view(&m, 160, lines, 16);
    ok(n == 4 && strstr(lines[1].text, "watching 4 ports") && lines[1].sev == TOP_OK,
       "two events: the status line first");
    ok(strstr(lines[2].text, "mlx5_2/1 (SymbolErrorCounter)") && lines[2].sev == TOP_WARN &&
           strstr(lines[3].text, "port.flapping") && lines[3].sev == TOP_FAIL,
       "...newest first, with a burst's counter, coloured by kind: %s", lines[2].text);
    for (int i = 0; i < TOP_EVENTS + 5; i++) {
        char s[32];
        snprintf(s, sizeof(s), "eth%d", i);
        e = ev("port.down", s, TOP_FAIL);
        top_model_add_event(&m, &e);
    }
    ok(m.nev == TOP_EVENTS && !strcmp(m.ev[0].subject, "eth504") &&
           !strcmp(m.ev[TOP_EVENTS - 1].subject, "eth5"),
       "past %d events the oldest go (%zu kept, newest %s, oldest %s)", TOP_EVENTS, m.nev,
       m.ev[0].subject, m.ev[m.nev - 1].subject);
    is_int(top_view_parse("events", &v) == 0 && v == TOP_VIEW_EVENTS, 1, "--view events");
    is_int(top_view_parse("event", &v), -1, "--view event: not a view");

    /* a port the watch marks: failed, its why the watch's, whatever it shows now */
    p = top_model_port(&m, "n1", "mlx5_1", 1);
    q = top_model_port(&m, "n1", "mlx5_2", 1);
    p->state = q->state = TOP_STATE_UP;
    snprintf(p->watch, sizeof(p->watch), "port.flapping, 3 flaps in 41 s");
    top_model_derive(&m);
    ok(p->sev == TOP_FAIL && !strcmp(p->why, "watch: port.flapping, 3 flaps in 41 s") &&
           q->sev == TOP_OK,
       "a port up but flapping (the watch): failed, why %s; the other fine", p->why);
    p->state = TOP_STATE_DOWN;
    top_model_derive(&m);
    ok(p->sev == TOP_FAIL && !strncmp(p->why, "watch: ", 7), "...down now: the watch's why");
    p->state = TOP_STATE_UP;
    p->nsamples = 2;
    p->t[0] = 1;
    p->t[1] = 2;
    p->err[0] = 0;
    p->err[1] = 5;
    top_model_derive(&m);
    ok(p->sev == TOP_FAIL && !strncmp(p->why, "errors rising", 13),
       "...its errors rising now: that why stays (%s)", p->why);
    top_model_free(&m);
}

#ifdef HAVE_JANSSON
static void put(const char *path, const char *mode, const char *text)
{
    FILE *fp = fopen(path, mode);

    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

#define LINE(kind, phase, subject)                                                                 \
    "{\"event\":\"" kind "\",\"phase\":\"" phase "\",\"subject\":\"" subject                       \
    "\",\"first_s\":1800000000,\"last_s\":1800000010,\"figures\":\"f\",\"host\":\"n1\"}\n"

static void state(const char *path, double updated, int watching, const char *events)
{
    char buf[2048];

    snprintf(buf, sizeof(buf),
             "{\"schema_version\": 1, \"host\": \"n1\", \"updated_s\": %.3f, \"interval_s\": 1, "
             "\"window_s\": 300, \"watching\": %s, \"ports\": [{\"subject\": \"mlx5_1/1\", "
             "\"sampled\": true}, {\"subject\": \"rail0\", \"sampled\": true}], \"events\": "
             "[%s]}\n",
             updated, watching ? "true" : "false", events);
    put(path, "w", buf);
}

static void reading(void)
{
    char dir[] = "/tmp/test_top_watch.XXXXXX", st[128], log[128];
    struct top_watch w;
    struct top_model m;
    struct top_port *p, *q, *r;
    double now = top_wall_now();

    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return;
    }
    snprintf(st, sizeof(st), "%s/state.json", dir);
    snprintf(log, sizeof(log), "%s/events.jsonl", dir);
    top_model_init(&m);
    p = top_model_port(&m, "n1", "mlx5_1", 1);
    q = top_model_port(&m, "n1", "rail0", 0);
    r = top_model_port(&m, "n2", "mlx5_1", 1);
    top_watch_init(&w, dir);
    put(log, "w", LINE("port.down", "open", "rail0") LINE("port.down", "close", "rail0"));
    state(st, now, 1,
          "{\"event\": \"port.flapping\", \"phase\": \"open\", \"subject\": \"mlx5_1/1\", "
          "\"first_s\": 1, \"last_s\": 2, \"figures\": \"3 flaps in 41 s\"}, "
          "{\"event\": \"port.down\", \"phase\": \"close\", \"subject\": \"rail0\", "
          "\"first_s\": 1, \"last_s\": 2, \"figures\": \"down 9 s\"}");
    top_watch_refresh(&w, &m, "n1", now);
    ok(m.nev == 2 && !strcmp(m.ev[0].phase, "close") && m.ev[0].sev == TOP_OK &&
           m.ev[1].sev == TOP_FAIL && !strcmp(m.ev[0].when, "2027-01-15T08:00:10Z"),
       "the log's two lines, newest first: a closed event plain, an open down failed (%s)",
       m.nev ? m.ev[0].when : "-");
    ok(!strcmp(p->watch, "port.flapping, 3 flaps in 41 s") && !q->watch[0] && !r->watch[0],
       "the open flap marks n1's mlx5_1:1; the closed down and n2's port of that name are not");
    ok(strstr(m.watch_why, "watching 2 ports of n1") && strstr(m.watch_why, "1 marked"),
       "the status: %s", m.watch_why);
    /* new lines, a partial one, one that is not an event */
    put(log, "a", "not json\n" LINE("port.flapping", "open", "mlx5_1/1") "{\"event\":\"port.do");
    top_watch_refresh(&w, &m, "n1", now);
    ok(m.nev == 3 && !strcmp(m.ev[0].kind, "port.flapping"),
       "appended: the new event, the damaged line skipped, the partial one left (%zu)", m.nev);
    put(log, "a", "wn\",\"phase\":\"open\",\"subject\":\"rail0\",\"last_s\":1800000011}\n");
    top_watch_refresh(&w, &m, "n1", now);
    ok(m.nev == 4 && !strcmp(m.ev[0].subject, "rail0"), "...its end written: read whole");
    /* rotated: a new, shorter log */
    unlink(log);
    put(log, "w", LINE("port.congestion", "open", "rail0"));
    top_watch_refresh(&w, &m, "n1", now);
    ok(m.nev == 5 && !strcmp(m.ev[0].kind, "port.congestion") && m.ev[0].sev == TOP_WARN,
       "a rotated log: read from its start");
    /* the watch not running: no mark, said */
    state(st, now - 9, 1,
          "{\"event\": \"port.flapping\", \"phase\": \"open\", \"subject\": \"mlx5_1/1\", "
          "\"first_s\": 1, \"last_s\": 2, \"figures\": \"3 flaps\"}");
    top_watch_refresh(&w, &m, "n1", now);
    ok(!p->watch[0] && strstr(m.watch_why, "not running"), "a state 9 s old: no mark, %s",
       m.watch_why);
    state(st, now, 0, "");
    top_watch_refresh(&w, &m, "n1", now);
    ok(strstr(m.watch_why, "when it ended") != NULL, "a watch that ended: %s", m.watch_why);
    unlink(st);
    top_watch_refresh(&w, &m, "n1", now);
    ok(strstr(m.watch_why, "no state") != NULL, "no state file: %s", m.watch_why);
    top_model_free(&m);

    /* a long log: its tail at the start, from a whole line */
    top_model_init(&m);
    unlink(log);
    for (int i = 0; i < 4000; i++)
        put(log, "a", LINE("port.down", "open", "eth9"));
    put(log, "a", LINE("port.down", "open", "eth1"));
    top_watch_init(&w, dir);
    top_watch_refresh(&w, &m, "n1", now);
    ok(m.nev > 100 && m.nev < 4001 && !strcmp(m.ev[0].subject, "eth1"),
       "a long log: its tail read (%zu events), the newest first", m.nev);
    top_model_free(&m);
    top_watch_init(&w, "none");
    top_model_init(&m);
    top_watch_refresh(&w, &m, "n1", now);
    ok(m.nev == 0 && strstr(m.watch_why, "not read"), "--watch none: %s", m.watch_why);
    top_model_free(&m);
    unlink(log);
    rmdir(dir);
}
#endif

int main(void)
{
    view();
#ifdef HAVE_JANSSON
    reading();
#endif
    return done_testing();
}

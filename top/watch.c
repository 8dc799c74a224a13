#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "reports/archive.h"
#include "reports/watch_state.h"
#include "top/watch.h"

/* where a long log's reading starts, the first time: its tail */
#define TOP_WATCH_TAIL (256 * 1024)

double top_wall_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void top_watch_init(struct top_watch *w, const char *dir)
{
    const char *root = ry_archive_default();

    memset(w, 0, sizeof(*w));
    if (!dir && root) {
        snprintf(w->state, sizeof(w->state), "%.4000s/watch/state.json", root);
        snprintf(w->log, sizeof(w->log), "%.4000s/watch/events.jsonl", root);
    } else if (dir && *dir && strcmp(dir, "none")) {
        snprintf(w->state, sizeof(w->state), "%.4000s/state.json", dir);
        snprintf(w->log, sizeof(w->log), "%.4000s/events.jsonl", dir);
    }
}

/* one classification with the node check: what drains there is red here */
static enum top_sev sev_of(const char *kind)
{
    return ry_watch_kind_drains(kind) ? TOP_FAIL : TOP_WARN;
}

/* the log's lines written since the last refresh */
static void read_log(struct top_watch *w, struct top_model *m)
{
    FILE *fp = fopen(w->log, "r");
    struct stat st;
    char *line = NULL;
    size_t len = 0;
    ssize_t got;
    int tail = 0;

    if (!fp)
        return;
    if (fstat(fileno(fp), &st) < 0 || st.st_ino != w->ino || st.st_size < w->off) {
        /* a new log (rotated, or the first look at a long one: its tail, from a whole line) */
        tail = !w->started && st.st_size > TOP_WATCH_TAIL;
        w->off = tail ? st.st_size - TOP_WATCH_TAIL : 0;
        w->ino = st.st_ino;
    }
    w->started = 1;
    if (fseeko(fp, w->off, SEEK_SET) < 0) {
        fclose(fp);
        return;
    }
    if (tail && (got = getline(&line, &len, fp)) > 0 && line[got - 1] == '\n')
        w->off += got; /* (the line the seek fell into) */
    fseeko(fp, w->off, SEEK_SET);
    while ((got = getline(&line, &len, fp)) > 0 && line[got - 1] == '\n') {
        struct ry_watch_seen s;
        struct top_event e;
        w->off += got;
        memset(&e, 0, sizeof(e));
        if (ry_watch_event_parse(line, &s, e.host, sizeof(e.host)) < 0)
            continue;
        ry_iso_time((time_t)s.last_s, e.when, sizeof(e.when));
        snprintf(e.kind, sizeof(e.kind), "%s", s.kind);
        snprintf(e.phase, sizeof(e.phase), "%s", s.phase);
        snprintf(e.subject, sizeof(e.subject), "%s", s.subject);
        snprintf(e.counter, sizeof(e.counter), "%s", s.counter);
        snprintf(e.figures, sizeof(e.figures), "%s", s.figures);
        e.sev = s.open ? sev_of(s.kind) : TOP_OK;
        top_model_add_event(m, &e);
    }
    free(line);
    fclose(fp);
}

/* the watch's name of a port of the model: "mlx5_0/1", or the interface */
static void watched_name(const struct top_port *p, char *buf, size_t len)
{
    if (p->port > 0)
        snprintf(buf, len, "%s/%d", p->dev, p->port);
    else
        snprintf(buf, len, "%s", p->dev);
}

void top_watch_refresh(struct top_watch *w, struct top_model *m, const char *host, double now)
{
    struct ry_watch_read r;
    ry_error_t err = { "" };
    char at[32];
    size_t marked = 0;

    for (size_t i = 0; i < m->n; i++)
        m->p[i].watch[0] = '\0';
    if (!w->state[0]) {
        snprintf(m->watch_why, sizeof(m->watch_why),
                 "railyard watch: not read (--watch none, or no archive: --watch DIR)");
        return;
    }
    read_log(w, m);
    if (ry_watch_state_read(w->state, &r, &err) < 0) {
        snprintf(m->watch_why, sizeof(m->watch_why), "railyard watch: no state (%.280s)", err.text);
        return;
    }
    ry_iso_time((time_t)r.updated_s, at, sizeof(at));
    if (!ry_watch_live(&r, now)) {
        snprintf(m->watch_why, sizeof(m->watch_why),
                 "railyard watch: not running (its state was last updated at %s%s)", at,
                 r.watching ? "" : ", when it ended");
        ry_watch_read_free(&r);
        return;
    }
    for (size_t k = 0; k < r.nevents; k++) {
        const struct ry_watch_seen *e = &r.events[k];
        if (!e->open || sev_of(e->kind) != TOP_FAIL)
            continue;
        for (size_t i = 0; i < m->n; i++) {
            char name[200];
            watched_name(&m->p[i], name, sizeof(name));
            if (!strcmp(m->p[i].node, host) && !strcmp(name, e->subject)) {
                snprintf(m->p[i].watch, sizeof(m->p[i].watch), "%.30s, %.120s", e->kind,
                         e->figures);
                marked++;
            }
        }
    }
    snprintf(m->watch_why, sizeof(m->watch_why),
             "railyard watch: watching %zu port%s of %.60s every %g s (updated %s); %zu marked "
             "in the ports view",
             r.nports, r.nports == 1 ? "" : "s", r.host, r.interval_s, at, marked);
    ry_watch_read_free(&r);
}

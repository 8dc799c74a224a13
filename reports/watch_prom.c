#include "config.h"

#include <stdio.h>

#include "common/file.h"
#include "reports/prom.h"
#include "reports/watch_prom.h"

static void port_label(FILE *fp, const struct ry_watch_textfile *t, size_t i)
{
    fputc('{', fp);
    ry_prom_label(fp, "host", t->host, 1);
    ry_prom_label(fp, "port", t->ports[i].subject, 0);
}

static int fill(FILE *fp, void *arg, ry_error_t *err)
{
    const struct ry_watch_textfile *t = arg;

    ry_prom_help(fp, "railyard_watch_up", "gauge",
                 "1 while railyard watch samples this node, 0 once it has ended");
    fprintf(fp, "railyard_watch_up{");
    ry_prom_label(fp, "host", t->host, 1);
    fprintf(fp, "} %d\n", !t->stopped);
    ry_prom_help(fp, "railyard_watch_last_sample_timestamp_seconds", "gauge",
                 "when railyard watch last sampled the ports");
    fprintf(fp, "railyard_watch_last_sample_timestamp_seconds{");
    ry_prom_label(fp, "host", t->host, 1);
    fprintf(fp, "} %.3f\n", t->updated);

    ry_prom_help(fp, "railyard_watch_port_sampled", "gauge",
                 "1 when the port's last read came back within its deadline");
    for (size_t i = 0; i < t->nports; i++) {
        fputs("railyard_watch_port_sampled", fp);
        port_label(fp, t, i);
        fprintf(fp, "} %d\n", !t->why[i][0]);
    }
    ry_prom_help(fp, "railyard_watch_port_up", "gauge",
                 "the port's link at its last read: 1 up, 0 down (not listed: unknown)");
    for (size_t i = 0; i < t->nports; i++)
        if (!t->why[i][0] && t->samples[i].state != WATCH_UNKNOWN) {
            fputs("railyard_watch_port_up", fp);
            port_label(fp, t, i);
            fprintf(fp, "} %d\n", t->samples[i].state == WATCH_UP);
        }
    ry_prom_help(fp, "railyard_watch_port_counter", "gauge",
                 "a counter of the port as last read (sysfs, the PMA, RoCE's hw_counters)");
    for (size_t i = 0; i < t->nports; i++)
        for (int c = 0; c < WATCH_NCTR; c++)
            if (!t->why[i][0] && t->samples[i].ctr[c] >= 0) {
                fputs("railyard_watch_port_counter", fp);
                port_label(fp, t, i);
                ry_prom_label(fp, "counter", watch_ctr_name((enum watch_ctr)c), 0);
                fprintf(fp, "} %lld\n", t->samples[i].ctr[c]);
            }
    ry_prom_help(fp, "railyard_watch_events_total", "counter",
                 "events opened since railyard watch started, per port and kind");
    for (size_t i = 0; i < t->nports; i++)
        for (int k = 0; k < WATCH_NKIND; k++) {
            fputs("railyard_watch_events_total", fp);
            port_label(fp, t, i);
            ry_prom_label(fp, "event", watch_kind_name((enum watch_kind)k), 0);
            fprintf(fp, "} %ld\n", t->opened[i][k]);
        }
    ry_prom_help(fp, "railyard_watch_event_open", "gauge",
                 "1 for each event open now (a burst's or congestion's with its counter)");
    for (size_t i = 0; i < t->nevents; i++) {
        const struct watch_event *e = &t->events[i].e;
        if (t->events[i].phase == WATCH_CLOSE)
            continue;
        fprintf(fp, "railyard_watch_event_open{");
        ry_prom_label(fp, "host", t->host, 1);
        ry_prom_label(fp, "port", e->subject, 0);
        ry_prom_label(fp, "event", watch_kind_name(e->kind), 0);
        if (e->kind == WATCH_EV_BURST || e->kind == WATCH_EV_CONGESTION)
            ry_prom_label(fp, "counter", watch_ctr_name(e->ctr), 0);
        fprintf(fp, "} 1\n");
    }
    return ferror(fp) ? ry_errorf(err, "cannot write the watch's textfile") : 0;
}

int ry_watch_textfile_write(const char *path, const struct ry_watch_textfile *t, ry_error_t *err)
{
    return ry_write_atomic(path, fill, (void *)t, err);
}

#include "config.h"

#include <stdio.h>

#include "common/file.h"
#include "reports/prom.h"
#include "reports/watch_prom.h"
#include "watch/nvlink.h"

/* a subject's labels after the host: port="mlx5_0/1", or an NVLink's gpu="3",link="5" */
static void subject_labels(FILE *fp, const char *subject)
{
    unsigned g, l;

    if (watch_nvl_subject_parse(subject, &g, &l))
        fprintf(fp, ",gpu=\"%u\",link=\"%u\"", g, l);
    else
        ry_prom_label(fp, "port", subject, 0);
}

static void port_label(FILE *fp, const struct ry_watch_textfile *t, size_t i)
{
    fputc('{', fp);
    ry_prom_label(fp, "host", t->host, 1);
    subject_labels(fp, t->ports[i].subject);
}

/* the gauges of one kind of subject: the ports' (nvlink 0) or the NVLinks' */
static void gauges(FILE *fp, const struct ry_watch_textfile *t, int nvlink)
{
    const char *what = nvlink ? "nvlink" : "port";
    char name[64];
    size_t i, n = 0;

    for (i = 0; i < t->nports; i++)
        n += t->ports[i].nvlink == nvlink;
    if (!n)
        return;
    snprintf(name, sizeof(name), "railyard_watch_%s_sampled", what);
    ry_prom_help(fp, name, "gauge",
                 nvlink ? "1 when NVML's last read of the NVLink came back within its deadline"
                        : "1 when the port's last read came back within its deadline");
    for (i = 0; i < t->nports; i++)
        if (t->ports[i].nvlink == nvlink) {
            fputs(name, fp);
            port_label(fp, t, i);
            fprintf(fp, "} %d\n", !t->why[i][0]);
        }
    snprintf(name, sizeof(name), "railyard_watch_%s_up", what);
    ry_prom_help(fp, name, "gauge",
                 nvlink ? "the NVLink at its last read: 1 active, 0 inactive"
                        : "the port's link at its last read: 1 up, 0 down (not listed: unknown)");
    for (i = 0; i < t->nports; i++)
        if (t->ports[i].nvlink == nvlink && !t->why[i][0] && t->samples[i].state != WATCH_UNKNOWN) {
            fputs(name, fp);
            port_label(fp, t, i);
            fprintf(fp, "} %d\n", t->samples[i].state == WATCH_UP);
        }
    snprintf(name, sizeof(name), "railyard_watch_%s_counter", what);
    ry_prom_help(fp, name, "gauge",
                 nvlink ? "an error counter of the NVLink as last read (NVML)"
                        : "a counter of the port as last read (sysfs, the PMA, RoCE's "
                          "hw_counters)");
    for (i = 0; i < t->nports; i++)
        for (int c = 0; c < WATCH_NCTR; c++)
            if (t->ports[i].nvlink == nvlink && !t->why[i][0] && t->samples[i].ctr[c] >= 0) {
                fputs(name, fp);
                port_label(fp, t, i);
                ry_prom_label(fp, "counter", watch_ctr_name((enum watch_ctr)c), 0);
                fprintf(fp, "} %lld\n", t->samples[i].ctr[c]);
            }
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

    gauges(fp, t, 0);
    gauges(fp, t, 1);
    ry_prom_help(fp, "railyard_watch_events_total", "counter",
                 "events opened since railyard watch started, per port or NVLink and kind");
    for (size_t i = 0; i < t->nports; i++)
        for (int k = 0; k < WATCH_NKIND; k++) {
            if (watch_kind_is_nvlink((enum watch_kind)k) != t->ports[i].nvlink)
                continue;
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
        subject_labels(fp, e->subject);
        ry_prom_label(fp, "event", watch_kind_name(e->kind), 0);
        if (watch_kind_has_counter(e->kind))
            ry_prom_label(fp, "counter", watch_ctr_name(e->ctr), 0);
        fprintf(fp, "} 1\n");
    }
    return ferror(fp) ? ry_errorf(err, "cannot write the watch's textfile") : 0;
}

int ry_watch_textfile_write(const char *path, const struct ry_watch_textfile *t, ry_error_t *err)
{
    return ry_write_atomic(path, fill, (void *)t, err);
}

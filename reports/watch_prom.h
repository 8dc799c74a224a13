#ifndef RAILYARD_REPORTS_WATCH_PROM_H
#define RAILYARD_REPORTS_WATCH_PROM_H

#include <stddef.h>

#include "common/error.h"
#include "reports/watch_json.h"
#include "watch/events.h"
#include "watch/sysfs.h"

/* railyard watch's node_exporter textfile (railyard-watch(1), --textfile): per port its link
 * state, whether its last read came back, each counter as last read, the events opened since
 * the watch started and those open now; the watch's own liveness and last sample time. */
struct ry_watch_textfile {
    const char *host;
    int stopped;    /* the watch ended: railyard_watch_up 0 */
    double updated; /* the last sample, seconds since the epoch */
    size_t nports;
    const struct watch_src *ports;
    const struct watch_sample *samples; /* per port, its last read */
    const char (*why)[160];             /* per port: why it was not read ("" it was) */
    const long (*opened)[WATCH_NKIND];  /* per port: events opened since the start, per kind */
    const struct ry_watch_kept *events; /* the state's events: the open ones are gauges */
    size_t nevents;
};

/* Write it atomically (node_exporter reads the old file or the new one, never half). */
int ry_watch_textfile_write(const char *path, const struct ry_watch_textfile *t, ry_error_t *err);

#endif

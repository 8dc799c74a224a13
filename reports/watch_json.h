#ifndef RAILYARD_REPORTS_WATCH_JSON_H
#define RAILYARD_REPORTS_WATCH_JSON_H

#include <stddef.h>

#include "common/error.h"
#include "watch/events.h"
#include "watch/sysfs.h"

/* What railyard watch writes (railyard-watch(1)): each event as one JSON line of its log, and
 * the state file that the health check and the preflight read. Times are seconds since the
 * epoch; the engine's come from a monotonic clock, turned into wall-clock time by adding
 * wall_minus_mono. Without a JSON library: NULL or -1 with err saying so. */

/* One event as a compact JSON line, without its newline (malloc'd). */
char *ry_watch_event_line(enum watch_phase phase, const struct watch_event *e, const char *host,
                          double wall_minus_mono, ry_error_t *err);

struct ry_watch_kept { /* an event the state file lists: open, or closed within the window */
    enum watch_phase phase;
    struct watch_event e;
    char subject[96]; /* e.subject points here */
};

struct ry_watch_state {
    const char *host;
    long pid;
    double started, updated; /* wall clock */
    double interval, window; /* the sampling interval; the window events stay in */
    int stopped;             /* the watch ended (SIGTERM): not watching any more */
    size_t nports;
    const struct watch_src *ports;
    const char (*why)[160];             /* per port: why it was not sampled last time ("" it was) */
    const struct ry_watch_kept *events; /* open first, then closed within the window */
    size_t nevents;
    double wall_minus_mono;
};

/* Write the state file atomically (a reader sees the old one or the new one). */
int ry_watch_state_write(const char *path, const struct ry_watch_state *s, ry_error_t *err);

#endif

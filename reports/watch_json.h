#ifndef RAILYARD_REPORTS_WATCH_JSON_H
#define RAILYARD_REPORTS_WATCH_JSON_H

#include <stddef.h>
#include <stdio.h>

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
    const struct watch_src *ports; /* the ports, then the NVLinks (nvlink set) */
    const char (*why)[160];        /* per port: why it was not sampled last time ("" it was) */
    const char *nvlink_why;        /* NVML failed or hung before any link was seen (NULL, "": no) */
    const struct ry_watch_kept *events; /* open first, then closed within the window */
    size_t nevents;
    double wall_minus_mono;
};

/* Write the state file atomically (a reader sees the old one or the new one). */
int ry_watch_state_write(const char *path, const struct ry_watch_state *s, ry_error_t *err);

/* One event of a state file, as read back. */
struct ry_watch_seen {
    char kind[40];     /* "port.flapping", "port.down", "port.errors.burst", ... */
    char subject[96];  /* the port ("mlx5_3/1") or the interface */
    char counter[48];  /* a burst's or congestion's counter, "" for the others */
    char figures[200]; /* in words */
    char phase[16];    /* open, update or close */
    int open;          /* open (or grown) at the last sample: not closed */
    double first_s, last_s, value, limit;
};

/* A state file as read back: what the health check judges (reports/watch_state.c). */
struct ry_watch_read {
    char host[256];
    long pid;
    double updated_s, interval_s, window_s;
    int watching;
    size_t nports;      /* the subjects: the ports ... */
    size_t nnvlinks;    /* ... of which NVLinks */
    size_t nsampled[2]; /* sampled last time: ports, NVLinks */
    size_t nunsampled;
    char (*unsampled)[256]; /* "subject: why" of each port not sampled last time; ports not
                               sampled for one reason after another folded into one ("GPU0/nvlink0
                               and 17 more: why"); "NVLinks: why" when NVML gave none */
    size_t nevents;
    struct ry_watch_seen *events;
};

/* Read a state file (its schema_version 1). -1 with err naming the file and what is wrong: a
 * file missing, unreadable, not JSON, or without the members a judgment needs. */
int ry_watch_state_read(const char *path, struct ry_watch_read *r, ry_error_t *err);
void ry_watch_read_free(struct ry_watch_read *r);

/* One line of the event log: 0, or -1 when it is not an event line (host may be NULL). */
int ry_watch_event_parse(const char *line, struct ry_watch_seen *e, char *host, size_t hostlen);

/* railyard history --events: the event log's lines (PATH.4 ... PATH.1, then PATH: its rotated
 * parts first), newest first, those of node (its host) and last seen at since or later (an ISO
 * date or time, compared as text), at most limit (0: 50); as a table, or with json an array of
 * the lines' objects. A line that is not an event is said on stderr with its file and line, and
 * left out. A log not there yet (the watch logged nothing) has no events. Returns the rows, -1. */
struct ry_watch_events_query {
    const char *node, *since;
    int limit, json;
};
int ry_watch_events_list(const char *log, const struct ry_watch_events_query *q, FILE *fp,
                         ry_error_t *err);

#endif

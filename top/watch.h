#ifndef RAILYARD_TOP_WATCH_H
#define RAILYARD_TOP_WATCH_H

#include <stdio.h>
#include <sys/types.h>

#include "top/top.h"

/* What railyard watch saw, for the console (railyard-top(1), the events view): the new lines of
 * its event log at each refresh (the last TOP_EVENTS kept, the tail of a long log at the start,
 * a rotated log read again from its start), and from its state the ports whose flapping or down
 * event is open now, marked in the ports view. */
struct top_watch {
    char state[4096], log[4096]; /* "" none */
    off_t off;                   /* the log's bytes read */
    ino_t ino;                   /* the log read (a new one: rotated) */
    int started;
};

/* dir: the watch's folder (state.json, events.jsonl); NULL the archive's watch/ (none when
 * there is no archive); "none": none */
void top_watch_init(struct top_watch *w, const char *dir);
/* One refresh: new events into m->ev, the marks on host's ports, m->watch_why; now: seconds
 * since the epoch (top_wall_now). */
void top_watch_refresh(struct top_watch *w, struct top_model *m, const char *host, double now);
double top_wall_now(void);

#endif

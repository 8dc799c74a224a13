#ifndef RAILYARD_REPORTS_EVENTLOG_H
#define RAILYARD_REPORTS_EVENTLOG_H

#include <stddef.h>

#include "common/error.h"

/* An append-only log of one line per event (JSON lines: railyard watch's events in the
 * archive), kept whole: each line is written by one write() to a file opened for appending, so
 * a reader, a signal or a crash sees it all or not at all; a write that fails part way (a full
 * disk) is cut back to where the line began, so the lines before it stay as they were and no
 * half line is left. Rotated by size: past max_bytes the log becomes PATH.1 (PATH.1 PATH.2, and
 * so on up to PATH.keep; the oldest is dropped) and a new one begins. */

struct ry_eventlog_limits {
    size_t max_bytes; /* rotate before a line would take the log past this (0: never) */
    int keep;         /* rotated logs kept (0: none kept, the log starts again) */
};

/* Append line (without its newline; it must hold none) to the log at path, rotating first when
 * it would pass max_bytes. Data synced before it returns. 0, or -1 with err naming the file
 * (and the log as it was). */
int ry_eventlog_append(const char *path, const char *line, const struct ry_eventlog_limits *l,
                       ry_error_t *err);

#endif

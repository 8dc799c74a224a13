#ifndef RAILYARD_COMMON_ERROR_H
#define RAILYARD_COMMON_ERROR_H

/* common/: the ground floor, helpers every layer uses: errors, allocation, files, reads
 * under a sysfs root, host lists. */

#include <stdarg.h>
#include <stddef.h>

/* An error message filled by library code (every layer below src/), which never prints.
 * Messages are lowercase, without a final period: what failed first, then context. */
typedef struct {
    char text[512];
} ry_error_t;

/* Format a message into err (which may be NULL). Always returns -1 and preserves errno. */
int ry_errorf(ry_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Untrusted text made safe for a terminal, a log or a message: s copied into buf (len bytes,
 * always terminated, cut where it does not fit) with what a terminal would act on written as
 * \xHH: C0 controls (escape sequences start with ESC), DEL, bytes that are not well-formed
 * UTF-8, and UTF-8 encodings of C1 controls (U+0080..U+009F: CSI among them). Returns buf (""
 * for NULL). Every error message (ry_errorf, ry_error_prefix) goes through it, so a file's line,
 * a host name or a NodeDescription quoted in one never reaches a terminal raw. */
const char *ry_inert(const char *s, char *buf, size_t len);

/* ry_inert into a string of its own, whatever its length (free it). */
char *ry_inert_dup(const char *s);

/* Prepend "prefix: " to the message already in err (NULL is accepted). Returns -1. */
int ry_error_prefix(ry_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

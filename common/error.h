#ifndef RAILYARD_COMMON_ERROR_H
#define RAILYARD_COMMON_ERROR_H

/* common/: the ground floor, helpers every layer uses: errors, allocation, files, reads
 * under a sysfs root, host lists. */

#include <stdarg.h>

/* An error message filled by library code (every layer below src/), which never prints.
 * Messages are lowercase, without a final period: what failed first, then context. */
typedef struct {
    char text[512];
} ry_error_t;

/* Format a message into err (which may be NULL). Always returns -1 and preserves errno. */
int ry_errorf(ry_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prepend "prefix: " to the message already in err (NULL is accepted). Returns -1. */
int ry_error_prefix(ry_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

#ifndef RAILYARD_COMMON_HOSTLIST_H
#define RAILYARD_COMMON_HOSTLIST_H

#include <stddef.h>

#include "common/error.h"

/* Slurm-style host lists: "gpu[001-128]", "gpu[01-04,07],login1", "rack[1-2]-n[1-3]".
 * Zero padding follows the width of the lower bound. */

/* Check the syntax of a host list: 0, or -1 with err saying what is wrong ("unbalanced [",
 * "range 9-3 goes backwards", "empty name"). */
int ry_hostlist_validate(const char *list, ry_error_t *err);

/* 1 if host is in list, 0 if not, -1 with err when the list is malformed. Matching does not
 * expand the list, so "n[1-100000000]" costs nothing. */
int ry_hostlist_match(const char *list, const char *host, ry_error_t *err);

/* Number of hosts the list names (saturating at SIZE_MAX), or 0 for a malformed list. */
size_t ry_hostlist_count(const char *list);

/* Call fn for each host the list names, in order; stops at the first non-zero return of fn
 * and returns it. -1 with err for a malformed list. */
int ry_hostlist_expand(const char *list, int (*fn)(const char *host, void *ctx), void *ctx,
                       ry_error_t *err);

#endif

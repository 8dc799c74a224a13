#ifndef RAILYARD_COMMON_FILE_H
#define RAILYARD_COMMON_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "common/error.h"

/* Read a whole file into *buf (NUL-terminated, *len bytes without the NUL; free it). 0, or -1
 * with err saying "cannot open/read PATH: reason". */
int ry_read_file(const char *path, char **buf, size_t *len, ry_error_t *err);

/* mkdir -p (mode 0755): 0, or -1 with errno. */
int ry_mkdirs(const char *path);

/* Append to the string in buf (len bytes in all), cut at its end; nothing when buf is NULL. */
void ry_appendf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A size in bytes: a number, with K, M or G (powers of 1024, either case) after it, that makes
 * whole bytes ("64K", "1.5K", "8M"): 0 with *bytes, or -1 when s is not one. */
int ry_parse_size(const char *s, double *bytes);

/* Strip blanks from both ends of s in place; returns where the text starts. */
char *ry_trim(char *s);
/* A line of a tool's output pasted into a ticket, made plain: the blanks and line end around it
 * (LF, CRLF) and the quote markers of a Markdown or mail reply before it ("> ", nested ">> ")
 * removed. None of the outputs railyard reads has a line that starts with '>'. Returns a
 * pointer into line. */
char *ry_paste_line(char *line);
/* rm -r, not following symbolic links; errors are ignored. */
void ry_rm_tree(const char *dir);

/* Write path atomically: fill writes into a temporary file beside it, which is renamed over
 * path once complete and flushed. 0, or -1 with err (path is then untouched). */
int ry_write_atomic(const char *path, int (*fill)(FILE *fp, void *arg, ry_error_t *err), void *arg,
                    ry_error_t *err);

#endif

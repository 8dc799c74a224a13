#ifndef RAILYARD_COMMON_XMALLOC_H
#define RAILYARD_COMMON_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

/* Allocation helpers that abort with a message on out-of-memory. A size of 0 is a bug and
 * aborts too. xstrdup(NULL) returns NULL. */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* xmalloc for arrays of hundreds of megabytes (the link records of a 1024 x 8 run), left
 * unzeroed for the caller to fill: aligned to 2 MiB and advised into huge pages where the kernel
 * has them (transparent huge pages set to "madvise", as Debian ships it), so that filling it
 * faults once per 2 MiB rather than once per 4 KiB page. Freed with free(). */
void *xmalloc_large(size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Grow *array (of *alloc elements of elsize bytes) so that it holds at least n elements.
 * New elements are zeroed. */
void xgrow(void *array, size_t *alloc, size_t n, size_t elsize);

#endif

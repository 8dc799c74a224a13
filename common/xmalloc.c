#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/xmalloc.h"

static void oom(size_t size)
{
    fprintf(stderr, "railyard: out of memory (%zu bytes)\n", size);
    abort();
}

void *xmalloc(size_t size)
{
    void *p;

    if (size == 0)
        abort();
    if (!(p = malloc(size)))
        oom(size);
    return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
    void *p;

    if (nmemb == 0 || size == 0)
        abort();
    if (!(p = calloc(nmemb, size)))
        oom(nmemb * size);
    return p;
}

void *xmalloc_large(size_t nmemb, size_t size)
{
    const size_t huge = (size_t)2 << 20;
    size_t bytes;
    void *p;

    if (nmemb == 0 || size == 0)
        abort();
    if (nmemb > SIZE_MAX / size)
        oom(SIZE_MAX);
    bytes = nmemb * size;
    if (bytes < 4 * huge)
        return xmalloc(bytes);
    bytes = (bytes + huge - 1) / huge * huge;
    if (posix_memalign(&p, huge, bytes))
        oom(bytes);
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes, MADV_HUGEPAGE); /* advice: without it, 4 KiB pages */
#endif
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p;

    if (size == 0)
        abort();
    if (!(p = realloc(ptr, size)))
        oom(size);
    return p;
}

char *xstrdup(const char *s)
{
    char *p;

    if (!s)
        return NULL;
    if (!(p = strdup(s)))
        oom(strlen(s) + 1);
    return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    char *s;

    if (vasprintf(&s, fmt, ap) < 0)
        oom(0);
    return s;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;

    va_start(ap, fmt);
    s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

void xgrow(void *array, size_t *alloc, size_t n, size_t elsize)
{
    void **pp = array;
    size_t newalloc;

    if (n <= *alloc)
        return;
    newalloc = *alloc ? *alloc * 2 : 8;
    while (newalloc < n)
        newalloc *= 2;
    *pp = xrealloc(*pp, newalloc * elsize);
    memset((char *)*pp + *alloc * elsize, 0, (newalloc - *alloc) * elsize);
    *alloc = newalloc;
}

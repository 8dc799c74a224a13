#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/xmalloc.h"

/* Split list at top-level commas (commas inside [...] belong to a range). Calls fn for each
 * item; stops at the first non-zero return. */
static int each_item(const char *list, int (*fn)(const char *item, size_t len, void *ctx),
                     void *ctx, ry_error_t *err)
{
    const char *start = list, *p;
    int depth = 0, rc;

    if (!list || !*list) {
        errno = EINVAL;
        return ry_errorf(err, "empty host list");
    }
    for (p = list;; p++) {
        if (*p == '[') {
            if (depth++) {
                errno = EINVAL;
                return ry_errorf(err, "nested '[' in '%s'", list);
            }
        } else if (*p == ']') {
            if (!depth--) {
                errno = EINVAL;
                return ry_errorf(err, "unbalanced ']' in '%s'", list);
            }
        } else if ((*p == ',' && depth == 0) || *p == '\0') {
            if (depth) {
                errno = EINVAL;
                return ry_errorf(err, "unbalanced '[' in '%s'", list);
            }
            if (p == start) {
                errno = EINVAL;
                return ry_errorf(err, "empty name in '%s'", list);
            }
            if ((rc = fn(start, (size_t)(p - start), ctx)) != 0)
                return rc;
            if (*p == '\0')
                return 0;
            start = p + 1;
        } else if (isspace((unsigned char)*p)) {
            errno = EINVAL;
            return ry_errorf(err, "white space in host list '%s'", list);
        }
    }
}

struct range {
    unsigned long lo, hi;
    int width; /* digits of the lower bound (zero padding) */
};

/* Parse "001-128,130" (len bytes) into ranges; returns count or -1 */
static int parse_ranges(const char *s, size_t len, struct range *r, int max, ry_error_t *err)
{
    int n = 0;
    const char *p = s, *end = s + len;

    while (p < end) {
        char *e;
        if (!isdigit((unsigned char)*p)) {
            errno = EINVAL;
            return ry_errorf(err, "'%.*s' is not a number range", (int)len, s);
        }
        if (n == max) {
            errno = E2BIG;
            return ry_errorf(err, "more than %d ranges in '[%.*s]'", max, (int)len, s);
        }
        r[n].lo = strtoul(p, &e, 10);
        r[n].width = (int)(e - p);
        r[n].hi = r[n].lo;
        p = e;
        if (p < end && *p == '-') {
            p++;
            if (p >= end || !isdigit((unsigned char)*p)) {
                errno = EINVAL;
                return ry_errorf(err, "range without an upper bound in '[%.*s]'", (int)len, s);
            }
            r[n].hi = strtoul(p, &e, 10);
            p = e;
            if (p < end && *p != ',') {
                errno = EINVAL;
                return ry_errorf(err, "unexpected '%c' in '[%.*s]'", *p, (int)len, s);
            }
            if (r[n].hi < r[n].lo) {
                errno = EINVAL;
                return ry_errorf(err, "range %lu-%lu goes backwards", r[n].lo, r[n].hi);
            }
        }
        n++;
        if (p < end) {
            if (*p != ',') {
                errno = EINVAL;
                return ry_errorf(err, "unexpected '%c' in '[%.*s]'", *p, (int)len, s);
            }
            p++;
            if (p == end) {
                errno = EINVAL;
                return ry_errorf(err, "trailing ',' in '[%.*s]'", (int)len, s);
            }
        }
    }
    if (n == 0) {
        errno = EINVAL;
        return ry_errorf(err, "empty brackets");
    }
    return n;
}

/* Match host against one item (a pattern of text and [ranges] parts) */
static int match_item(const char *pat, size_t plen, const char *host, ry_error_t *err)
{
    const char *pend = pat + plen;

    while (pat < pend) {
        if (*pat == '[') {
            const char *close = memchr(pat, ']', (size_t)(pend - pat));
            struct range r[64];
            int n, ok = 0;
            char *e;
            unsigned long v;
            int digits;
            if (!close)
                return ry_errorf(err, "unbalanced '['");
            if ((n = parse_ranges(pat + 1, (size_t)(close - pat - 1), r, 64, err)) < 0)
                return -1;
            if (!isdigit((unsigned char)*host))
                return 0;
            v = strtoul(host, &e, 10);
            digits = (int)(e - host);
            for (int i = 0; i < n && !ok; i++)
                ok = v >= r[i].lo && v <= r[i].hi &&
                     (digits == r[i].width || (r[i].width == 1 && host[0] != '0') ||
                      (digits > r[i].width && host[0] != '0'));
            if (!ok)
                return 0;
            host = e;
            pat = close + 1;
        } else {
            if (*host != *pat)
                return 0;
            host++;
            pat++;
        }
    }
    return *host == '\0';
}

struct match_ctx {
    const char *host;
    ry_error_t *err;
    int found;
};

static int match_one(const char *item, size_t len, void *ctx)
{
    struct match_ctx *m = ctx;
    int rc = match_item(item, len, m->host, m->err);

    if (rc < 0)
        return -1;
    if (rc > 0)
        m->found = 1;
    return 0;
}

static int validate_one(const char *item, size_t len, void *ctx)
{
    ry_error_t *err = ctx;
    const char *p = item, *end = item + len;

    while (p < end) {
        if (*p == '[') {
            const char *close = memchr(p, ']', (size_t)(end - p));
            struct range r[64];
            if (!close || parse_ranges(p + 1, (size_t)(close - p - 1), r, 64, err) < 0)
                return -1;
            p = close + 1;
        } else if (isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.') {
            p++;
        } else {
            errno = EINVAL;
            return ry_errorf(err, "character '%c' is not allowed in a host name", *p);
        }
    }
    return 0;
}

int ry_hostlist_validate(const char *list, ry_error_t *err)
{
    return each_item(list, validate_one, err, err) < 0 ? -1 : 0;
}

int ry_hostlist_match(const char *list, const char *host, ry_error_t *err)
{
    struct match_ctx m = { host, err, 0 };

    if (ry_hostlist_validate(list, err) < 0)
        return -1;
    if (!host)
        return 0;
    if (each_item(list, match_one, &m, err) < 0)
        return -1;
    return m.found;
}

static int count_one(const char *item, size_t len, void *ctx)
{
    size_t *total = ctx, n = 1;
    const char *p = item, *end = item + len;

    while (p < end) {
        if (*p == '[') {
            const char *close = memchr(p, ']', (size_t)(end - p));
            struct range r[64];
            size_t sum = 0;
            int k = parse_ranges(p + 1, (size_t)(close - p - 1), r, 64, NULL);
            for (int i = 0; i < k; i++)
                sum += r[i].hi - r[i].lo + 1;
            n = sum && n > SIZE_MAX / sum ? SIZE_MAX : n * sum;
            p = close + 1;
        } else
            p++;
    }
    *total = *total > SIZE_MAX - n ? SIZE_MAX : *total + n;
    return 0;
}

size_t ry_hostlist_count(const char *list)
{
    size_t total = 0;

    if (ry_hostlist_validate(list, NULL) < 0)
        return 0;
    each_item(list, count_one, &total, NULL);
    return total;
}

struct expand_ctx {
    int (*fn)(const char *host, void *ctx);
    void *ctx;
    ry_error_t *err;
};

/* Expand pat[0..plen) after the prefix already in buf[0..blen) */
static int expand_rest(struct expand_ctx *x, const char *pat, size_t plen, char *buf, size_t blen,
                       size_t cap)
{
    const char *open = memchr(pat, '[', plen), *close;
    struct range r[64];
    int n;

    if (!open) {
        if (blen + plen >= cap)
            return ry_errorf(x->err, "host name too long");
        memcpy(buf + blen, pat, plen);
        buf[blen + plen] = '\0';
        return x->fn(buf, x->ctx);
    }
    if (blen + (size_t)(open - pat) >= cap)
        return ry_errorf(x->err, "host name too long");
    memcpy(buf + blen, pat, (size_t)(open - pat));
    blen += (size_t)(open - pat);
    close = memchr(open, ']', plen - (size_t)(open - pat));
    if (!close)
        return ry_errorf(x->err, "unbalanced '['");
    if ((n = parse_ranges(open + 1, (size_t)(close - open - 1), r, 64, x->err)) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        for (unsigned long v = r[i].lo; v <= r[i].hi; v++) {
            int w = snprintf(buf + blen, cap - blen, "%0*lu", r[i].width, v), rc;
            if (w < 0 || (size_t)w >= cap - blen)
                return ry_errorf(x->err, "host name too long");
            rc = expand_rest(x, close + 1, plen - (size_t)(close + 1 - pat), buf, blen + (size_t)w,
                             cap);
            if (rc)
                return rc;
        }
    return 0;
}

static int expand_one(const char *item, size_t len, void *ctx)
{
    char buf[256];

    return expand_rest(ctx, item, len, buf, 0, sizeof(buf));
}

int ry_hostlist_expand(const char *list, int (*fn)(const char *host, void *ctx), void *ctx,
                       ry_error_t *err)
{
    struct expand_ctx x = { fn, ctx, err };

    if (ry_hostlist_validate(list, err) < 0)
        return -1;
    return each_item(list, expand_one, &x, err);
}

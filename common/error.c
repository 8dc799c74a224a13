#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "common/xmalloc.h"

/* the length of the well-formed UTF-8 sequence at p (1 to 4) that is not a C1 control, 0 when
 * there is none */
static size_t utf8_ok(const unsigned char *p)
{
    unsigned char c = p[0];
    size_t n, i;
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */

    if (c >= 0xc2 && c <= 0xdf)
        n = 2, lo = c == 0xc2 ? 0xa0 : 0x80; /* C2 80..C2 9F: the C1 controls */
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

const char *ry_inert(const char *s, char *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0;

    if (len == 0)
        return "";
    while (p && *p) {
        size_t k = *p >= 0x80 ? utf8_ok(p) : (*p < 0x20 || *p == 0x7f) ? 0 : 1;
        if (k == 0) {
            if (n + 4 >= len)
                break;
            n += (size_t)snprintf((char *)buf + n, len - n, "\\x%02x", *p);
            p++;
            continue;
        }
        if (n + k >= len)
            break;
        memcpy(buf + n, p, k);
        n += k;
        p += k;
    }
    buf[n] = '\0';
    return buf;
}

char *ry_inert_dup(const char *s)
{
    size_t len = 4 * strlen(s ? s : "") + 1; /* a byte becomes at most \xHH */
    char *buf = xmalloc(len);

    ry_inert(s, buf, len);
    return buf;
}

int ry_errorf(ry_error_t *err, const char *fmt, ...)
{
    int saved = errno;
    char raw[sizeof(err->text)];
    va_list ap;

    if (err) {
        va_start(ap, fmt);
        vsnprintf(raw, sizeof(raw), fmt, ap);
        va_end(ap);
        ry_inert(raw, err->text, sizeof(err->text));
    }
    errno = saved;
    return -1;
}

int ry_error_prefix(ry_error_t *err, const char *fmt, ...)
{
    int saved = errno;
    char prefix[256];
    char old[sizeof(err->text)];
    va_list ap;

    if (err) {
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof(prefix), fmt, ap);
        va_end(ap);
        memcpy(old, err->text, sizeof(old));
        /* a message too long for the buffer is cut: the start says what failed */
        if (snprintf(err->text, sizeof(err->text), "%s: %s", prefix, old) < 0)
            err->text[0] = '\0';
        memcpy(old, err->text, sizeof(old));
        ry_inert(old, err->text, sizeof(err->text));
    }
    errno = saved;
    return -1;
}

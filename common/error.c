#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

int ry_errorf(ry_error_t *err, const char *fmt, ...)
{
    int saved = errno;
    va_list ap;

    if (err) {
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof(err->text), fmt, ap);
        va_end(ap);
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
    }
    errno = saved;
    return -1;
}

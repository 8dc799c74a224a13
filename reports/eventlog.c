#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "reports/eventlog.h"

/* PATH.k */
static char *nth(const char *path, int k)
{
    return k ? xasprintf("%s.%d", path, k) : xstrdup(path);
}

/* PATH -> PATH.1 -> ... -> PATH.keep (each rename replaces the older file: the oldest goes);
 * keep 0: PATH goes */
static int rotate(const char *path, int keep, ry_error_t *err)
{
    for (int k = keep; k >= 1; k--) {
        char *from = nth(path, k - 1), *to = nth(path, k);
        int rc = rename(from, to), e = errno;
        if (rc < 0 && e != ENOENT)
            ry_errorf(err, "%s: cannot rotate to %s: %s", from, to, strerror(e));
        free(from);
        free(to);
        if (rc < 0 && e != ENOENT)
            return -1;
    }
    if (keep <= 0 && unlink(path) < 0 && errno != ENOENT)
        return ry_errorf(err, "%s: cannot start the log again: %s", path, strerror(errno));
    return 0;
}

int ry_eventlog_append(const char *path, const char *line, const struct ry_eventlog_limits *l,
                       ry_error_t *err)
{
    size_t len = strlen(line);
    struct stat st;
    char *buf;
    ssize_t put;
    int fd;

    if (strchr(line, '\n'))
        return ry_errorf(err, "%s: an event line holds a newline", path);
    if (l && l->max_bytes && stat(path, &st) == 0 && st.st_size > 0 &&
        (size_t)st.st_size + len + 1 > l->max_bytes && rotate(path, l->keep, err) < 0)
        return -1;
    if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0)
        return ry_errorf(err, "%s: %s", path, strerror(errno));
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return ry_errorf(err, "%s: %s", path, strerror(e));
    }
    buf = xmalloc(len + 1);
    memcpy(buf, line, len);
    buf[len] = '\n';
    do /* a regular file's write is not cut short by a signal, but EINTR is retried all the same */
        put = write(fd, buf, len + 1);
    while (put < 0 && errno == EINTR);
    free(buf);
    if (put != (ssize_t)(len + 1)) {
        char why[96];
        snprintf(why, sizeof(why), "%s",
                 put < 0 ? strerror(errno) : "written in part: is the disk full?");
        /* a part written: cut back to where the line began (only this writer appends) */
        if (put > 0 && ftruncate(fd, st.st_size) < 0)
            snprintf(why, sizeof(why), "written in part, and not cut back: %s", strerror(errno));
        close(fd);
        return ry_errorf(err,
                         "%s: the event was not written (%s); the %lld bytes before it are kept",
                         path, why, (long long)st.st_size);
    }
    if (fdatasync(fd) < 0) {
        int e = errno;
        close(fd);
        return ry_errorf(err, "%s: %s", path, strerror(e));
    }
    if (close(fd) < 0)
        return ry_errorf(err, "%s: %s", path, strerror(errno));
    return 0;
}

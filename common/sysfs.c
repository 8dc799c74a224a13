#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sysfs.h"
#include "common/xmalloc.h"

const char *ry_sysfs_root(const char *root)
{
    const char *env;

    if (root && *root)
        return root;
    env = getenv("RAILYARD_SYSFS_ROOT");
    if (env && *env)
        return env;
    return "/sys";
}

static int vpath(const char *root, char *full, size_t len, ry_error_t *err, const char *fmt,
                 va_list ap)
{
    char rel[PATH_MAX];
    int n;

    n = vsnprintf(rel, sizeof(rel), fmt, ap);
    if (n < 0 || (size_t)n >= sizeof(rel)) {
        errno = ENAMETOOLONG;
        return ry_errorf(err, "sysfs path too long: %s", fmt);
    }
    n = snprintf(full, len, "%s/%s", ry_sysfs_root(root), rel);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return ry_errorf(err, "sysfs path too long: %s/%s", ry_sysfs_root(root), rel);
    }
    return 0;
}

static int read_full(const char *full, char *buf, size_t len, ry_error_t *err)
{
    ssize_t n;
    size_t got = 0;
    int fd;

    if (!buf || len < 2) {
        errno = EINVAL;
        return ry_errorf(err, "%s: no room to read into", full);
    }
    if ((fd = open(full, O_RDONLY | O_CLOEXEC)) < 0)
        return ry_errorf(err, "cannot read %s: %s", full, strerror(errno));
    for (;;) {
        n = read(fd, buf + got, len - 1 - got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            ry_errorf(err, "cannot read %s: %s", full, strerror(errno));
            close(fd);
            return -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
        if (got == len - 1) {
            char extra;
            n = read(fd, &extra, 1);
            if (n > 0) {
                close(fd);
                errno = ERANGE;
                return ry_errorf(err, "%s: value longer than %zu bytes", full, len - 1);
            }
            break;
        }
    }
    close(fd);
    buf[got] = '\0';
    while (got > 0 && isspace((unsigned char)buf[got - 1]))
        buf[--got] = '\0';
    return 0;
}

int ry_sysfs_read(const char *root, char *buf, size_t len, ry_error_t *err, const char *fmt, ...)
{
    char full[PATH_MAX];
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = vpath(root, full, sizeof(full), err, fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1;
    return read_full(full, buf, len, err);
}

static int parse_number(const char *full, const char *buf, int is_signed, int64_t *sval,
                        uint64_t *uval, ry_error_t *err)
{
    char *end;
    const char *p = buf;

    while (isspace((unsigned char)*p))
        p++;
    errno = 0;
    if (*p == '\0')
        goto bad;
    if (is_signed)
        *sval = strtoll(p, &end, 0);
    else {
        if (*p == '-')
            goto bad;
        *uval = strtoull(p, &end, 0);
    }
    if (errno == ERANGE) {
        return ry_errorf(err, "%s: line 1: value '%s' is out of range", full, buf);
    }
    while (isspace((unsigned char)*end))
        end++;
    if (end == p || *end != '\0')
        goto bad;
    return 0;
bad:
    errno = EINVAL;
    return ry_errorf(err, "%s: line 1: '%s' is not a number", full, buf);
}

int ry_sysfs_read_u64(const char *root, uint64_t *val, ry_error_t *err, const char *fmt, ...)
{
    char full[PATH_MAX], buf[128];
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = vpath(root, full, sizeof(full), err, fmt, ap);
    va_end(ap);
    if (rc < 0 || read_full(full, buf, sizeof(buf), err) < 0)
        return -1;
    return parse_number(full, buf, 0, NULL, val, err);
}

int ry_sysfs_read_int(const char *root, int *val, ry_error_t *err, const char *fmt, ...)
{
    char full[PATH_MAX], buf[128];
    int64_t v;
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = vpath(root, full, sizeof(full), err, fmt, ap);
    va_end(ap);
    if (rc < 0 || read_full(full, buf, sizeof(buf), err) < 0)
        return -1;
    if (parse_number(full, buf, 1, &v, NULL, err) < 0)
        return -1;
    if (v < INT_MIN || v > INT_MAX) {
        errno = ERANGE;
        return ry_errorf(err, "%s: line 1: value '%s' is out of range", full, buf);
    }
    *val = (int)v;
    return 0;
}

/* the target of the link at root/fmt, without trailing slashes */
static int read_link(const char *root, char *target, size_t tlen, char *full, size_t flen,
                     ry_error_t *err, const char *fmt, va_list ap)
{
    ssize_t n;

    if (vpath(root, full, flen, err, fmt, ap) < 0)
        return -1;
    n = readlink(full, target, tlen - 1);
    if (n < 0)
        return ry_errorf(err, "cannot read link %s: %s", full, strerror(errno));
    target[n] = '\0';
    while (n > 1 && target[n - 1] == '/')
        target[--n] = '\0';
    return 0;
}

int ry_sysfs_link_base(const char *root, char *buf, size_t len, ry_error_t *err, const char *fmt,
                       ...)
{
    char full[PATH_MAX], target[PATH_MAX];
    const char *base;
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = read_link(root, target, sizeof(target), full, sizeof(full), err, fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1;
    base = strrchr(target, '/');
    base = base ? base + 1 : target;
    if (strlen(base) >= len) {
        errno = ERANGE;
        return ry_errorf(err, "%s: link target '%s' too long", full, base);
    }
    strcpy(buf, base);
    return 0;
}

int ry_sysfs_link_target(const char *root, char *buf, size_t len, ry_error_t *err, const char *fmt,
                         ...)
{
    char full[PATH_MAX];
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = read_link(root, buf, len, full, sizeof(full), err, fmt, ap);
    va_end(ap);
    return rc;
}

int ry_natcmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            char *ea, *eb;
            unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);
            if (x != y)
                return x < y ? -1 : 1;
            if ((ea - a) != (eb - b))
                return (ea - a) < (eb - b) ? -1 : 1;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int natcmp_ptr(const void *a, const void *b)
{
    return ry_natcmp(*(char *const *)a, *(char *const *)b);
}

int ry_sysfs_list(const char *root, char ***names, size_t *count, ry_error_t *err, const char *fmt,
                  ...)
{
    char full[PATH_MAX];
    struct dirent *de;
    char **v = NULL;
    size_t n = 0, alloc = 0;
    va_list ap;
    DIR *d;
    int rc;

    *names = NULL;
    *count = 0;
    va_start(ap, fmt);
    rc = vpath(root, full, sizeof(full), err, fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1;
    if (!(d = opendir(full)))
        return ry_errorf(err, "cannot list %s: %s", full, strerror(errno));
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        xgrow(&v, &alloc, n + 1, sizeof(*v));
        v[n++] = xstrdup(de->d_name);
    }
    closedir(d);
    if (n)
        qsort(v, n, sizeof(*v), natcmp_ptr);
    *names = v;
    *count = n;
    return 0;
}

void ry_sysfs_list_free(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

int ry_sysfs_exists(const char *root, const char *fmt, ...)
{
    char full[PATH_MAX];
    struct stat st;
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = vpath(root, full, sizeof(full), NULL, fmt, ap);
    va_end(ap);
    if (rc < 0)
        return 0;
    return lstat(full, &st) == 0;
}

#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file.h"
#include "common/xmalloc.h"

int ry_read_file(const char *path, char **buf, size_t *len, ry_error_t *err)
{
    FILE *fp = fopen(path, "r");
    size_t alloc = 0, n;

    *buf = NULL;
    *len = 0;
    if (!fp)
        return ry_errorf(err, "cannot open %s: %s", path, strerror(errno));
    do {
        xgrow(buf, &alloc, *len + 65536, 1);
        n = fread(*buf + *len, 1, alloc - *len - 1, fp);
        *len += n;
    } while (n > 0);
    (*buf)[*len] = '\0';
    if (ferror(fp)) {
        int rc = ry_errorf(err, "cannot read %s: %s", path, strerror(errno));
        fclose(fp);
        free(*buf);
        *buf = NULL;
        return rc;
    }
    fclose(fp);
    return 0;
}

int ry_mkdirs(const char *path)
{
    char buf[PATH_MAX];

    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void ry_rm_tree(const char *dir)
{
    if (dir && *dir)
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int ry_write_atomic(const char *path, int (*fill)(FILE *fp, void *arg, ry_error_t *err), void *arg,
                    ry_error_t *err)
{
    char tmp[PATH_MAX];
    FILE *fp;
    int fd, rc;

    if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp))
        return ry_errorf(err, "%s: path too long", path);
    if ((fd = mkstemp(tmp)) < 0)
        return ry_errorf(err, "cannot create %s: %s", tmp, strerror(errno));
    fchmod(fd, 0644);
    if (!(fp = fdopen(fd, "w"))) {
        close(fd);
        unlink(tmp);
        return ry_errorf(err, "cannot write %s: %s", tmp, strerror(errno));
    }
    rc = fill(fp, arg, err);
    if (rc == 0 && (fflush(fp) != 0 || ferror(fp) || fsync(fileno(fp)) != 0))
        rc = ry_errorf(err, "cannot write %s: %s", tmp, strerror(errno ? errno : EIO));
    if (fclose(fp) != 0 && rc == 0)
        rc = ry_errorf(err, "cannot write %s: %s", tmp, strerror(errno));
    if (rc == 0 && rename(tmp, path) < 0)
        rc = ry_errorf(err, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (rc < 0)
        unlink(tmp);
    return rc;
}

void ry_appendf(char *buf, size_t len, const char *fmt, ...)
{
    size_t used;
    va_list ap;

    if (!buf || !len)
        return;
    used = strnlen(buf, len);
    if (used + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

int ry_parse_size(const char *s, double *bytes)
{
    char *end;
    double v = strtod(s, &end);

    if (end == s)
        return -1;
    switch (*end) {
    case 'K':
    case 'k': v *= 1024, end++; break;
    case 'M':
    case 'm': v *= 1024.0 * 1024, end++; break;
    case 'G':
    case 'g': v *= 1024.0 * 1024 * 1024, end++; break;
    default: break;
    }
    if (*end || !(v >= 0 && v <= 1e18) || v != (double)(unsigned long long)v)
        return -1;
    *bytes = v;
    return 0;
}

char *ry_paste_line(char *line)
{
    char *s = line;

    while (*s == ' ' || *s == '\t')
        s++;
    while (*s == '>') {
        s++;
        if (*s == ' ')
            s++;
    }
    return ry_trim(s);
}

char *ry_trim(char *s)
{
    char *e;

    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

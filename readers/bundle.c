#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "readers/bundle.h"

/* Unpacking walks every member's path from the bundle's directory with openat(O_NOFOLLOW), so
 * nothing is ever written through a link; the links themselves are checked once every member
 * is in place (a link may point at a member that comes after it). */

struct unpack {
    const char *bundle;
    int rootfd;
    char root[PATH_MAX]; /* realpath of dir */
    char **links;        /* member paths of the links made */
    size_t nlinks, caplinks;
    long long total;
    ry_error_t *err;
};

static int refuse(struct unpack *u, const char *member, const char *why)
{
    errno = EINVAL;
    return ry_errorf(u->err, "%s: member '%s': %s; the bundle is not read", u->bundle, member, why);
}

/* a member path: relative, no "..", no empty name; 0 or refuse() */
static int check_path(struct unpack *u, const char *p)
{
    if (!*p)
        return refuse(u, p, "an empty name");
    if (*p == '/')
        return refuse(u, p, "an absolute path");
    for (const char *c = p; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return refuse(u, p, "a path with '..'");
        c += n;
        c += *c == '/';
    }
    if (strlen(p) >= PATH_MAX - strlen(u->root) - 2)
        return refuse(u, p, "a path too long");
    return 0;
}

/* The directory holding member path p (made as needed), never through a link: an fd, with
 * *base its last name (in buf), or -1 */
static int open_parent(struct unpack *u, const char *p, char *buf, size_t len, const char **base)
{
    int fd = dup(u->rootfd);
    char *c, *next;

    if (fd < 0)
        return ry_errorf(u->err, "%s: %s", u->bundle, strerror(errno));
    snprintf(buf, len, "%s", p);
    /* strip trailing slashes and "." names: "a/./b/" is a/b */
    for (size_t n = strlen(buf); n > 1 && buf[n - 1] == '/'; n--)
        buf[n - 1] = '\0';
    for (c = buf;; c = next) {
        char *slash = strchr(c, '/');
        if (!slash) {
            *base = c;
            return fd;
        }
        *slash = '\0';
        next = slash + 1;
        if (!*c || strcmp(c, ".") == 0)
            continue;
        if (mkdirat(fd, c, 0700) < 0 && errno != EEXIST) {
            int e = errno;
            close(fd);
            errno = e;
            return ry_errorf(u->err, "%s: member '%s': cannot create %s: %s", u->bundle, p, c,
                             strerror(e));
        }
        int sub = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(fd);
        if (sub < 0) {
            if (e == ELOOP || e == ENOTDIR)
                return refuse(u, p, "a path through a symbolic link or a file");
            errno = e;
            return ry_errorf(u->err, "%s: member '%s': %s", u->bundle, p, strerror(e));
        }
        fd = sub;
    }
}

static int write_file(struct unpack *u, struct archive *a, const char *p, int dirfd,
                      const char *base)
{
    char block[65536];
    long long size = 0;
    ssize_t n;
    int fd = openat(dirfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

    if (fd < 0) {
        if (errno == EEXIST)
            return refuse(u, p, "a name given twice");
        return ry_errorf(u->err, "%s: member '%s': %s", u->bundle, p, strerror(errno));
    }
    while ((n = archive_read_data(a, block, sizeof(block))) > 0) {
        size += n;
        u->total += n;
        if (size > RY_BUNDLE_MEMBER_MAX || u->total > RY_BUNDLE_TOTAL_MAX) {
            close(fd);
            return refuse(u, p,
                          size > RY_BUNDLE_MEMBER_MAX
                              ? "larger than a member may be (64 MiB)"
                              : "the bundle unpacks to more than it may (512 MiB in all)");
        }
        if (write(fd, block, (size_t)n) != n) {
            int e = errno;
            close(fd);
            errno = e ? e : ENOSPC;
            return ry_errorf(u->err, "%s: member '%s': cannot write it: %s", u->bundle, p,
                             strerror(errno));
        }
    }
    close(fd);
    if (n < 0) {
        errno = EIO;
        return ry_errorf(u->err, "%s: member '%s': %s", u->bundle, p, archive_error_string(a));
    }
    return 0;
}

static int one_member(struct unpack *u, struct archive *a, struct archive_entry *e)
{
    const char *p = archive_entry_pathname(e);
    char buf[PATH_MAX];
    const char *base = NULL;
    int dirfd, rc = 0;
    mode_t type = archive_entry_filetype(e);

    if (!p)
        return refuse(u, "", "no name");
    if (check_path(u, p) < 0)
        return -1;
    if (archive_entry_hardlink(e))
        return refuse(u, p, "a hard link");
    if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
        return refuse(u, p,
                      type == AE_IFCHR || type == AE_IFBLK ? "a device node"
                      : type == AE_IFIFO                   ? "a FIFO"
                      : type == AE_IFSOCK                  ? "a socket"
                                          : "neither a file, a directory nor a link");
    if (archive_entry_size_is_set(e) && archive_entry_size(e) > RY_BUNDLE_MEMBER_MAX)
        return refuse(u, p, "larger than a member may be (64 MiB)");
    if ((dirfd = open_parent(u, p, buf, sizeof(buf), &base)) < 0)
        return -1;
    if (type == AE_IFDIR) {
        struct stat st;
        if (*base && strcmp(base, ".") != 0 &&
            ((mkdirat(dirfd, base, 0700) < 0 && errno != EEXIST) ||
             fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode)))
            rc = refuse(u, p, "a directory where a file or a link is");
    } else if (type == AE_IFREG) {
        rc = write_file(u, a, p, dirfd, base);
    } else {
        const char *target = archive_entry_symlink(e);
        if (!target || !*target)
            rc = refuse(u, p, "a link to nothing");
        else if (*target == '/')
            rc = refuse(u, p, "a link to an absolute path (out of the bundle)");
        else if (symlinkat(target, dirfd, base) < 0)
            rc = errno == EEXIST
                     ? refuse(u, p, "a name given twice")
                     : ry_errorf(u->err, "%s: member '%s': %s", u->bundle, p, strerror(errno));
        else {
            if (u->nlinks == u->caplinks) {
                u->caplinks = u->caplinks ? 2 * u->caplinks : 64;
                u->links = xrealloc(u->links, u->caplinks * sizeof(*u->links));
            }
            u->links[u->nlinks++] = xstrdup(p);
        }
    }
    close(dirfd);
    return rc;
}

/* 1 when real (a resolved path) is root or below it */
static int within(const struct unpack *u, const char *real, int or_root)
{
    size_t n = strlen(u->root);

    return strncmp(real, u->root, n) == 0 && (real[n] == '/' || (or_root && real[n] == '\0'));
}

/* A link stays in the bundle when it resolves below its top. A dangling one does when the part
 * of its path that exists resolves inside and the rest has no "..": nothing can be made there
 * but by the bundle, and it is complete. */
static int check_link(struct unpack *u, const char *member)
{
    char path[PATH_MAX], real[PATH_MAX], target[PATH_MAX];
    ssize_t n;

    if (snprintf(path, sizeof(path), "%s/%s", u->root, member) >= (int)sizeof(path))
        return refuse(u, member, "a path too long");
    if (realpath(path, real))
        return within(u, real, 0) ? 0 : refuse(u, member, "a link out of the bundle");
    if (errno == ELOOP)
        return refuse(u, member, "a loop of links");
    if (errno != ENOENT && errno != ENOTDIR)
        return ry_errorf(u->err, "%s: member '%s': %s", u->bundle, member, strerror(errno));
    if ((n = readlink(path, target, sizeof(target) - 1)) < 0)
        return ry_errorf(u->err, "%s: member '%s': %s", u->bundle, member, strerror(errno));
    target[n] = '\0';
    /* from the link's directory, the target's names are added while what they name exists */
    char *names[PATH_MAX / 2], *save = NULL;
    size_t count = 0;
    for (char *c = strtok_r(target, "/", &save); c && count < PATH_MAX / 2;
         c = strtok_r(NULL, "/", &save))
        names[count++] = c;
    *strrchr(path, '/') = '\0';
    for (size_t i = 0; i < count; i++) {
        char try[PATH_MAX];
        if (snprintf(try, sizeof(try), "%s/%s", path, names[i]) >= (int)sizeof(try))
            return refuse(u, member, "a link too long");
        if (!realpath(try, real)) {
            /* the rest does not exist: it must not climb */
            for (size_t k = i; k < count; k++)
                if (strcmp(names[k], "..") == 0)
                    return refuse(u, member, "a link out of the bundle");
            break;
        }
        if (!within(u, real, 1))
            return refuse(u, member, "a link out of the bundle");
        memcpy(path, try, sizeof(try));
    }
    return 0;
}

int topo_bundle_unpack(const char *bundle, const char *dir, ry_error_t *err)
{
    struct unpack u = { .bundle = bundle, .err = err, .rootfd = -1 };
    struct archive *a = archive_read_new();
    struct archive_entry *e;
    long members = 0;
    int rc = 0, r;

    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    if (!realpath(dir, u.root) ||
        (u.rootfd = open(u.root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        rc = ry_errorf(err, "%s: %s", dir, strerror(errno));
        goto out;
    }
    if (archive_read_open_filename(a, bundle, 65536) != ARCHIVE_OK) {
        errno = archive_errno(a) > 0 ? archive_errno(a) : EINVAL;
        rc =
            ry_errorf(err, "%s: not a readable tar.gz bundle: %s", bundle, archive_error_string(a));
        goto out;
    }
    while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
        if (++members > RY_BUNDLE_MEMBERS_MAX) {
            rc = refuse(&u, archive_entry_pathname(e) ? archive_entry_pathname(e) : "",
                        "more members than a bundle may have (200000)");
            goto out;
        }
        if ((rc = one_member(&u, a, e)) < 0)
            goto out;
    }
    if (r != ARCHIVE_EOF) {
        errno = EINVAL;
        rc =
            ry_errorf(err, "%s: not a readable tar.gz bundle: %s", bundle, archive_error_string(a));
        goto out;
    }
    for (size_t i = 0; i < u.nlinks && rc == 0; i++)
        rc = check_link(&u, u.links[i]);
out:
    for (size_t i = 0; i < u.nlinks; i++)
        free(u.links[i]);
    free(u.links);
    if (u.rootfd >= 0)
        close(u.rootfd);
    archive_read_free(a);
    return rc;
}

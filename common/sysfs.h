#ifndef RAILYARD_COMMON_SYSFS_H
#define RAILYARD_COMMON_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Every read of /sys goes through these functions. root names the directory that stands for
 * /sys ("DIR/class/infiniband/..."); NULL means $RAILYARD_SYSFS_ROOT when set, else "/sys".
 * Paths are printf formats relative to the root, e.g. ("class/infiniband/%s/fw_ver", dev).
 *
 * All functions return 0 on success and -1 with errno set and err filled on failure; errno is
 * ENOENT when the file does not exist, so callers can tell an absent optional attribute from a
 * broken one. Messages name the full path. */

/* The effective root for root (never NULL; the string is static or root itself). */
const char *ry_sysfs_root(const char *root);

/* Read a whole attribute into buf (NUL-terminated, trailing white space removed). A value that
 * does not fit is an error (ERANGE). */
int ry_sysfs_read(const char *root, char *buf, size_t len, ry_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Read an unsigned integer (decimal, or hex with 0x). Anything else after optional white space
 * is an error (EINVAL) that quotes the value. */
int ry_sysfs_read_u64(const char *root, uint64_t *val, ry_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Read a signed integer (numa_node is -1 on machines without NUMA). */
int ry_sysfs_read_int(const char *root, int *val, ry_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The last path component of the target of a symbolic link, e.g. the PCI address behind
 * class/infiniband/mlx5_0/device. */
int ry_sysfs_link_base(const char *root, char *buf, size_t len, ry_error_t *err, const char *fmt,
                       ...) __attribute__((format(printf, 5, 6)));

/* The whole target of a symbolic link, as stored ("../../../devices/pci0000:00/..."). */
int ry_sysfs_link_target(const char *root, char *buf, size_t len, ry_error_t *err, const char *fmt,
                         ...) __attribute__((format(printf, 5, 6)));

/* The entries of a directory, sorted in natural order ("mlx5_2" before "mlx5_10"), without
 * "." and "..". *names is owned by the caller: free with ry_sysfs_list_free(). A missing
 * directory is ENOENT. */
int ry_sysfs_list(const char *root, char ***names, size_t *count, ry_error_t *err, const char *fmt,
                  ...) __attribute__((format(printf, 5, 6)));
void ry_sysfs_list_free(char **names, size_t count);

/* 1 if the path exists (file, directory or link), 0 otherwise. */
int ry_sysfs_exists(const char *root, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Natural-order comparison of two strings (digits compared as numbers). */
int ry_natcmp(const char *a, const char *b);

#endif

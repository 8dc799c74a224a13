#ifndef RAILYARD_WATCH_SYSFS_H
#define RAILYARD_WATCH_SYSFS_H

#include <stddef.h>

#include "common/error.h"
#include "watch/events.h"

/* What railyard watch samples from sysfs: every port of every RDMA device
 * (class/infiniband/DEV/ports/N: state, physical state, its counters and RoCE hw_counters, and
 * its netdev's carrier_changes), and plain netdevs by name (Ethernet rails: operstate and
 * carrier_changes). Every read has a deadline: a port whose read does not come back in time
 * (a driver or firmware stuck in a counter query) is said to hang, the others are sampled all
 * the same, and it is not read again until its stuck read returns. */

struct watch_src {
    char subject[96]; /* "mlx5_0/1", or the netdev "eth2" */
    char dev[64];     /* the RDMA device, "" for a plain netdev */
    int port;
    char netdev[64]; /* its netdev ("" none) */
    int nvlink;      /* an NVLink (watch/nvlink.h): subject "GPU3/nvlink5", dev the GPU's PCI
                        address, port the link; not read from sysfs */
};

/* The RDMA ports under root (NULL: /sys, or $RAILYARD_SYSFS_ROOT), then each name of netdevs
 * (NULL or none: no plain netdev). *v is the caller's to free. 0, or -1 with err. */
int watch_sysfs_ports(const char *root, const char *const *netdevs, size_t nnetdevs,
                      struct watch_src **v, size_t *n, ry_error_t *err);

/* One port read now, at time t (no deadline: watch_sampler_read gives it one). Unread counters
 * -1, the state WATCH_UNKNOWN when it cannot be read. 0, or -1 with err when the port is gone
 * (its state file is not there). */
int watch_sysfs_read(const char *root, const struct watch_src *p, double t, struct watch_sample *s,
                     ry_error_t *err);

struct watch_sampler;

/* A sampler of the ports v[0..n) under root; it keeps its own copy of them. */
struct watch_sampler *watch_sampler_new(const char *root, const struct watch_src *v, size_t n);
/* Read every port at time t, each in its own thread, waiting at most deadline seconds:
 * s[i] is port i's sample and why[i] (160 bytes each) says why it has none ("" when it has
 * one): gone, or its read hung (then, until that read returns, "still hung since ..."). The
 * number of ports sampled. */
size_t watch_sampler_read(struct watch_sampler *w, double t, double deadline,
                          struct watch_sample *s, char (*why)[160]);
/* Free it; a port whose read still hangs keeps its thread's memory (it cannot be freed under
 * it). */
void watch_sampler_free(struct watch_sampler *w);

#endif

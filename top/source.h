#ifndef RAILYARD_TOP_SOURCE_H
#define RAILYARD_TOP_SOURCE_H

#include "common/error.h"
#include "ib/ibfabric.h"
#include "top/top.h"
#include "top/watch.h"
#include "topo/map.h"

struct topo_nvml_links;

/* Where railyard top reads its ports (railyard-top(1), SOURCES). Each source fills the model's
 * rows the first time and pushes one counter sample per refresh. */

enum top_source_kind { TOP_SRC_SYSFS = 0, TOP_SRC_NETDEV, TOP_SRC_FABRIC, TOP_SRC_FOLLOW };

/* the fabric source reads every cabled port at each refresh up to this many (top/source.c) */
#define TOP_FABRIC_ALL 4096

struct top_source {
    enum top_source_kind kind;
    const char *sysfs_root;     /* sysfs, netdev: the directory standing for /sys (NULL: /sys) */
    const char *host;           /* the node's name (sysfs, netdev) */
    const char *netdev_match;   /* netdev: fnmatch pattern of the interfaces (NULL: all but lo) */
    const struct topo_map *map; /* rails, expected rates (may be NULL) */
    const char *follow_dir;     /* follow: a railyard-fabric run directory */
    struct ibf_live_opts live;  /* fabric: the local port to discover from */
    /* fabric state */
    struct ibf_fabric fab;
    int discovered, slot;
    int *rail;       /* fabric: ibf_rails */
    int cache_first; /* fabric: the first screen from live.cache's discovery, when there is one */
    int cached;      /* fabric: fab came from the cache: discovered live at the next refresh */
    /* fabric: the ports by a flat index (node i's port p is base[i] + p - 1), those a refresh
     * reads (past TOP_FABRIC_ALL cabled ports: a share, top/source.c), and where the next
     * share of the rest starts */
    size_t *base, nflat, ncabled, cursor;
    size_t read_all; /* fabric: up to this many cabled ports every refresh reads all (0: the
                      * default, TOP_FABRIC_ALL) */
    int *fnode, *fport;
    int *rail_port; /* fabric: per node, an HCA's port on its rail (ibf_hca_rail_port) */
    unsigned char *want;
    /* the NVLink view's rows (any source): NULL without a driver */
    struct topo_nvml_links *nvl;
    /* the events view and the ports' marks: railyard watch's log and state (any source) */
    struct top_watch watch;
};

/* Read one sample of every port into m (rows are added on the first call). 0, or -1 with err
 * when the source cannot be read at all (the console shows err and keeps going). */
int top_source_sample(struct top_source *s, struct top_model *m, double now, ry_error_t *err);
void top_source_free(struct top_source *s);
/* The NVLink view: open the driver's NVLink counters (0), or say in m->nvlink_why why there are
 * none (-1); then at each refresh one sample of every GPU link into m->nv. */
int top_nvlink_open(struct top_source *s, struct top_model *m);
void top_nvlink_sample(struct top_source *s, struct top_model *m, double now);
/* ... the rows from one sample of the driver's links (what top_nvlink_sample reads) */
struct topo_nvlink_sample;
void top_nvlink_rows(struct top_model *m, const struct topo_nvlink_sample *v, size_t n, double now);
/* follow: read the run directory's results.json (top/follow.c) */
int top_follow_sample(struct top_source *s, struct top_model *m, ry_error_t *err);
/* CLOCK_MONOTONIC seconds */
double top_now(void);

#endif

#ifndef RAILYARD_TOPO_MAP_H
#define RAILYARD_TOPO_MAP_H

#include <stddef.h>
#include <stdio.h>

#include "common/error.h"
#include "topo/model.h"

/* The expected topology map (railyard-map(5)): what a node should be. Read from YAML with
 * libyaml; errors name file:line:col. A struct topo_map owns all its memory: free it with
 * topo_map_destroy(). Unset values: -1 for integers, negative doubles, NULL strings,
 * TOPO_PATH_UNKNOWN, TOPO_LL_UNKNOWN. */

enum topo_sev { TOPO_SEV_OK = 0, TOPO_SEV_WARN, TOPO_SEV_FAIL, TOPO_SEV_IGNORE };

struct map_nic {
    char *name;
    char *netdev; /* the network interface of the port (RoCE, IPoIB, a plain rail), or NULL */
    int rail;
    int port; /* the port that carries the rail, default 1 */
    enum topo_link_layer link_layer;
    double rate_gbps;
    int near_gpu; /* index of the GPU the NIC serves */
    enum topo_path path;
    int numa;
    int pcie_gen, pcie_width; /* the NIC's link to the host, 0 unset */
    int line, col;
};

struct map_severity {
    char *check; /* check id, or a prefix ending in '.' ("nic.port.") */
    enum topo_sev sev;
};

struct map_thresholds {
    double rail_bw_gbps, gdr_bw_gbps; /* <0 unset */
    /* GPU data paths: floors in GB/s, ceilings in microseconds (railyard-map(5)) */
    double nvlink_pair_gbps, h2d_gbps, local_gbps;
    double p2p_latency_us, l2_latency_us, mem_latency_us, launch_latency_us;
    /* railyard-fabric: the lowest share of a link's wire bytes delivered, the highest share of
     * its packets marked CE (shares from 0 to 1) */
    double goodput_ratio_min, ecn_marked_max;
    /* railyard-fabric's collective phase: the lowest share of the links' bound a collective's
     * bus bandwidth must reach */
    double collective_busbw_ratio_min;
};

struct map_node_type {
    char *name;
    int line, col;
    int gpu_count;
    char *gpu_model;
    unsigned gpu_pci_vendor, gpu_pci_device; /* the GPUs' PCI id, 0 unset */
    int gpu_sm;                              /* their compute capability x 10, -1 unset */
    int pcie_gen, pcie_width;                /* each GPU's link to the host, 0 unset */
    int nvlink_links;                        /* per GPU, -1 unset */
    struct map_nic *nics;
    size_t nnics;
    char **ignore; /* NIC names or "nic:port" */
    size_t nignore;
    struct map_severity *severity;
    size_t nseverity;
    struct map_thresholds thresholds;
};

struct map_nodes {
    char *hostlist;
    char *type;
    int line, col;
};

struct map_rail {
    int id;
    char **switches;
    size_t nswitches;
    int line, col;
};

/* Error-counter limits of the fabric section: a counter above total (or rising by more than
 * rising between two samples) is a finding. -1: unset (built-in default). */
struct map_counter_limit {
    char *name; /* PMA name: "SymbolErrorCounter" */
    long long total, rising;
    int line, col;
};

/* The expected InfiniBand fabric (railyard fabric, railyard check --fabric). */
struct map_fabric {
    int present;
    int speed;           /* enum ibf_speed of every link, 0 unset */
    int width;           /* lanes, 0 unset */
    char *expect;        /* reference ibnetdiscover dump (path resolved against the map's dir) */
    char *node_name_map; /* GUID -> name file (resolved likewise) */
    double interval;     /* seconds between the two counter samples, <0 unset */
    struct map_counter_limit *counters;
    size_t ncounters;
    int line, col;
};

/* railyard watch's thresholds (railyard-watch(1)): <0 (flap_count 0) unset, the watch's
 * default or its option. limits: a counter's rate a second above which it is a burst (or
 * congestion), by the watch's counter names; the names are the watch's to check. */
struct map_watch_limit {
    char *name;
    double per_s;
    int line, col;
};
struct map_watch {
    int present;
    double interval, flap_window, grace, down_after, hold;
    int flap_count;
    struct map_watch_limit *limits;
    size_t nlimits;
    int line, col;
};

struct topo_map {
    char *path;
    char *cluster;
    struct map_node_type *types;
    size_t ntypes;
    struct map_nodes *nodes;
    size_t nnodes;
    struct map_rail *rails;
    size_t nrails;
    struct map_severity *severity; /* cluster-wide overrides */
    size_t nseverity;
    char **ignore; /* cluster-wide ignore list: "nic", "nic:port", "host/nic[:port]" */
    size_t nignore;
    struct map_fabric fabric;
    struct map_watch watch;
};

/* Parse the map at path. NULL with err ("FILE:LINE:COL: message") on any error: malformed
 * YAML, wrong types, unknown keys (with the nearest valid key as a hint), bad host lists, a
 * node type that does not exist, a rail no NIC uses. Without libyaml: NULL saying so. */
struct topo_map *topo_map_load(const char *path, ry_error_t *err);
/* The same from a buffer (name is used in messages). */
struct topo_map *topo_map_load_buffer(const char *buf, size_t len, const char *name,
                                      ry_error_t *err);
void topo_map_destroy(struct topo_map *map);

/* Every threshold unset (-1). */
void topo_map_thresholds_unset(struct map_thresholds *th);

/* The thresholds' keys in a map, in the order maps list them, and where each is kept. */
struct map_threshold_key {
    const char *name;
    size_t offset; /* of its double in struct map_thresholds */
};
extern const struct map_threshold_key map_threshold_keys[];
extern const size_t map_nthreshold_keys;
/* th's threshold of map_threshold_keys[i]; the one named key, NULL when no threshold is */
double *topo_map_threshold_at(struct map_thresholds *th, size_t i);
double *topo_map_threshold(struct map_thresholds *th, const char *key);
/* 1 when threshold key is a share (0 to 1), not a figure with a unit */
int topo_map_threshold_is_share(const char *key);

/* The node type for host (first nodes entry whose host list matches), or NULL. */
const struct map_node_type *topo_map_type_for_host(const struct topo_map *map, const char *host);
const struct map_node_type *topo_map_type_by_name(const struct topo_map *map, const char *name);
/* Rail ids are 0 to TOPO_MAP_RAILS - 1. The rails a node type's NICs are on (type NULL: any node
 * type's; a loaded map's rails: section declares no other), ascending and each once, into ids (at
 * most max of them). Returns how many there are, which may exceed max. */
#define TOPO_MAP_RAILS 1024
size_t topo_map_rail_ids(const struct topo_map *map, const struct map_node_type *type, int *ids,
                         size_t max);

/* Write a map describing node (a "golden node") as YAML to fp: one node type named type_name,
 * nodes entry hostlist (or the node's host name), rails from the NICs nearest to each GPU, and
 * the thresholds th sets (NULL or every one unset: none). Returns 0 or -1. Without libyaml: -1
 * saying so. */
int topo_map_capture(const struct topo_node *node, const char *type_name, const char *hostlist,
                     const char *cluster, const struct map_thresholds *th, FILE *fp,
                     ry_error_t *err);

const char *topo_sev_name(enum topo_sev s);

#endif

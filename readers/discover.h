#ifndef RAILYARD_READERS_DISCOVER_H
#define RAILYARD_READERS_DISCOVER_H

/* readers/: where facts come from, read into the node model: hwloc, sysfs, NCCL topology
 * XML, NVML, pasted ibstat and nvidia-smi output, railyard gather bundles. */

#include "common/error.h"
#include "topo/model.h"

/* Where discovery reads from. All NULL: the live machine (hwloc, /sys, NVML). Any captured
 * input given: only the captured inputs, so that nothing of the machine running railyard is
 * mixed into another machine's data. */
struct topo_inputs {
    const char *sysfs_root;     /* directory standing for /sys */
    const char *hwloc_xml;      /* lstopo --of xml output */
    const char *nccl_topo;      /* NCCL topology XML */
    const char *bundle;         /* railyard gather output (tar.gz) */
    const char *ibstat;         /* `ibstat` or `ibstatus` output */
    const char *nvlink_status;  /* `nvidia-smi nvlink --status` output */
    const char *nvbandwidth;    /* nvbandwidth's output */
    const char *p2p_bandwidth;  /* p2pBandwidthLatencyTest's output */
    const char *bandwidth_test; /* bandwidthTest's output */
};

/* 1 when any input is given (the node is read from captures, not from this machine) */
int topo_inputs_given(const struct topo_inputs *in);

/* Discover a node. Returns a node owned by the caller (topo_node_destroy()), or NULL with err
 * naming the input at fault. */
struct topo_node *topo_discover(const struct topo_inputs *in, ry_error_t *err);

/* Capture what discovery reads on this machine into a gzip'ed tar at path (see
 * railyard-gather(1)). Returns 0 or -1. */
int topo_gather(const char *path, ry_error_t *err);

#endif

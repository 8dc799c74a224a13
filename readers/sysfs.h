#ifndef RAILYARD_READERS_SYSFS_H
#define RAILYARD_READERS_SYSFS_H

#include "common/error.h"
#include "topo/model.h"

/* Read the sysfs tree under root (NULL: /sys, see common/sysfs.h) into node:
 *  - RDMA devices of class/infiniband with their ports (state, physical state, rate, width,
 *    speed, link layer, LID, GIDs, netdev), firmware, board id, HCA type, GUID, description;
 *    a device already in node (same name or PCI address) is completed, others are added;
 *  - network interfaces of class/net;
 *  - PCIe link (current and capable speed/width) and NUMA node of every GPU and NIC in node
 *    from bus/pci/devices;
 *  - when scan_pci is set, GPUs found in bus/pci/devices (used when no hwloc source ran).
 * A value that cannot be parsed
 * is an error naming the file. Returns 0 or -1. */
int topo_sysfs_discover(struct topo_node *node, const char *root, int scan_pci, ry_error_t *err);

/* This machine's own sysfs (root NULL: /sys; a folder standing for it in the tests): as
 * topo_sysfs_discover without the PCI scan, except that a sysfs showing neither class/ nor bus/
 * (what some sandboxed kernels mount) is read as telling nothing: the node's sources say so,
 * its RDMA NICs stay unknown (not "none"), and discovery goes on with the other sources (hwloc,
 * NVML, the CUDA driver). A captured tree (--sysfs-root) without them stays an error. */
int topo_sysfs_discover_live(struct topo_node *node, const char *root, ry_error_t *err);

#endif

#ifndef RAILYARD_TOPO_IB_H
#define RAILYARD_TOPO_IB_H

#include "src/common/error.h"
#include "topo/model.h"

/* Read the sysfs tree under root (NULL: /sys, see topo/sysfs.h) into node:
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

/* Parse a port rate as sysfs writes it ("400 Gb/sec (4X NDR)", "25 Gb/sec (1X EDR)",
 * "100 Gb/sec (2X HDR)"): rate in Gb/s, lanes and speed name (allocated, may be NULL).
 * Returns 0 or -1 when s is not a rate. */
int topo_ib_parse_rate(const char *s, double *gbps, int *width, char **speed);

#endif

#ifndef RAILYARD_TOPO_HWLOC_H
#define RAILYARD_TOPO_HWLOC_H

#include "src/common/error.h"
#include "topo/model.h"

/* Fill node from hwloc: the live machine when xml is NULL, else an XML file as `lstopo --of
 * xml` writes it (hwloc 1.x and 2.x formats). Adds CPU packages, cores, NUMA nodes, GPUs (PCI
 * class and GPU OS devices), RDMA NICs (OpenFabrics OS devices, class 0x0207) with the port
 * states hwloc records, and each device's PCI location. Returns 0, or -1 with err naming the
 * file. */
int topo_hwloc_discover(struct topo_node *node, const char *xml, ry_error_t *err);

/* Write the live machine's topology as hwloc XML to path (for `railyard gather`). */
int topo_hwloc_export_live(const char *path, ry_error_t *err);

#endif

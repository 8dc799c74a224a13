#ifndef RAILYARD_READERS_HWLOC_H
#define RAILYARD_READERS_HWLOC_H

#include "common/error.h"
#include "topo/model.h"

/* Fill node from hwloc: the live machine when xml is NULL, else an XML file as `lstopo --of
 * xml` writes it (hwloc 1.x and 2.x formats). Adds CPU packages, cores, NUMA nodes, GPUs (PCI
 * class and GPU OS devices), RDMA NICs (OpenFabrics OS devices, class 0x0207) with the port
 * states hwloc records, and each device's PCI location. Returns 0, or -1 with err naming the
 * file. */
int topo_hwloc_discover(struct topo_node *node, const char *xml, ry_error_t *err);

/* Write the live machine's topology as hwloc XML to path (for `railyard gather`). */
int topo_hwloc_export_live(const char *path, ry_error_t *err);

/* Prepare an hwloc XML file for this hwloc: check it is well-formed with a <topology> root
 * (errors name file and line), and rewrite the hwloc 3.x format (bitmask OS device types) into
 * the 2.x format that hwloc 2 loads. Returns 0 when the file can be given to hwloc as it is,
 * 1 with buf and len holding the rewritten document (free with topo_xml_buffer_free()), -1 on
 * error. Without libxml2 it checks nothing and returns 0. */
int topo_hwloc_xml_prepare(const char *path, char **buf, int *len, ry_error_t *err);
void topo_xml_buffer_free(char *buf);

#endif

#ifndef RAILYARD_TOPO_NCCL_H
#define RAILYARD_TOPO_NCCL_H

#include "src/common/error.h"
#include "topo/model.h"

/* Fill node from an NCCL topology XML file (what NCCL_TOPO_DUMP_FILE writes, or a cloud's
 * static NCCL_TOPO_FILE). Both forms work: NCCL's own dumps (<gpu>, <nic>, <net> elements) and
 * vendor files that give only <pci> elements with a class code. An NCCL graph file (<graphs>)
 * is refused with a message that says so. Returns 0, or -1 with err naming file and line.
 * Needs libxml2; without it, returns -1 saying so. */
int topo_nccl_discover(struct topo_node *node, const char *path, ry_error_t *err);

/* Prepare an hwloc XML file for this hwloc: check it is well-formed with a <topology> root
 * (errors name file and line), and rewrite the hwloc 3.x format (bitmask OS device types) into
 * the 2.x format that hwloc 2 loads. Returns 0 when the file can be given to hwloc as it is,
 * 1 with buf and len holding the rewritten document (free with topo_xml_buffer_free()), -1 on
 * error. Without libxml2 it checks nothing and returns 0. */
int topo_hwloc_xml_prepare(const char *path, char **buf, int *len, ry_error_t *err);
void topo_xml_buffer_free(char *buf);

#endif

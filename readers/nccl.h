#ifndef RAILYARD_READERS_NCCL_H
#define RAILYARD_READERS_NCCL_H

#include "common/error.h"
#include "topo/model.h"

/* Fill node from an NCCL topology XML file (what NCCL_TOPO_DUMP_FILE writes, or a cloud's
 * static NCCL_TOPO_FILE). Both forms work: NCCL's own dumps (<gpu>, <nic>, <net> elements) and
 * vendor files that give only <pci> elements with a class code. An NCCL graph file (<graphs>)
 * is refused with a message that says so. Returns 0, or -1 with err naming file and line.
 * Needs libxml2; without it, returns -1 saying so. */
int topo_nccl_discover(struct topo_node *node, const char *path, ry_error_t *err);

#endif

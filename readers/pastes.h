#ifndef RAILYARD_READERS_PASTES_H
#define RAILYARD_READERS_PASTES_H

#include "common/error.h"
#include "topo/model.h"

/* Captured command output that admins paste into tickets, read into the node model. */

/* `ibstat` or `ibstatus` output: RDMA devices and their ports are added to node (or complete
 * the device of the same name). An "ibpanic: ... stat of IB device 'X' failed" line records X
 * in node->missing_nics. Lines that belong to neither format are an error naming file:line. */
int topo_ibstat_read(struct topo_node *node, const char *path, ry_error_t *err);

/* `nvidia-smi nvlink --status` (or -s) output: per GPU, the links that are up ("Link 3: 25
 * GB/s") and down ("Link 3: <inactive>"); "all links are inactive" sets 0 active links. GPU i
 * completes node->gpus[i] (nvidia-smi numbers GPUs in PCI order) or is added. */
int topo_nvlink_status_read(struct topo_node *node, const char *path, ry_error_t *err);

#endif

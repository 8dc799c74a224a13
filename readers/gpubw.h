#ifndef RAILYARD_READERS_GPUBW_H
#define RAILYARD_READERS_GPUBW_H

#include "common/error.h"
#include "topo/model.h"

/* Captured output of the GPU bandwidth tools admins paste into tickets, read into
 * node->bw (topo/gpubw.h). When the node already lists its GPUs (a topology input read before),
 * the capture's GPUs are matched to them by PCI address when it prints addresses, else by
 * number, and a capture that measures another number of GPUs is an error naming file:line.
 * Lines that belong to no part of the format, a matrix cut short and N/A where a value belongs
 * are errors naming file:line. */

/* nvbandwidth's text output (any version from 0.2; one test or all, single or multinode). */
int topo_nvbandwidth_read(struct topo_node *node, const char *path, ry_error_t *err);

/* The CUDA samples' p2pBandwidthLatencyTest output, whole or any of its matrices. */
int topo_p2p_bandwidth_read(struct topo_node *node, const char *path, ry_error_t *err);

/* The CUDA samples' bandwidthTest output: quick, range or shmoo mode, GB/s or MB/s, and the
 * CSV lines of --csv; the figure at the largest transfer size counts. */
int topo_bandwidth_test_read(struct topo_node *node, const char *path, ry_error_t *err);

#endif

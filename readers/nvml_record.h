#ifndef RAILYARD_READERS_NVML_RECORD_H
#define RAILYARD_READERS_NVML_RECORD_H

#include <stdio.h>

#include "common/error.h"
#include "topo/model.h"

/* What NVML said on a node, kept in a gather bundle (its file "nvml") so that a replay of the
 * bundle judges the driver and the NVLinks as a check on the node did. A text file, one fact a
 * line, fields separated by one space (railyard-gather(1)):
 *
 *   railyard-nvml 1
 *   driver answering <version>|unknown       (or)  driver absent <why>  |  driver failed <why>
 *   note <text>                               a fact about absence ("no GPU visible")
 *   gpu <busid> <links> <active> <gen> <width> <max gen> <max width> <bytes> <uuid>|- <name>|-
 *   nvlink <busid> <busid> <count>            NVLinks between two GPUs
 *   nvswitch <busid> <target> <count>         NVLinks from a GPU to a switch (or the fabric)
 *
 * -1 stands for a figure NVML did not give (a PCIe figure of 0 too). */

/* Write what topo_nvml_discover() put into v (a node that held nothing before) to f; rc is what
 * it returned and why its error when rc < 0. Returns 0, or -1 when f could not be written. */
int topo_nvml_record(FILE *f, const struct topo_node *v, int rc, const char *why);

/* Apply a record to node as topo_nvml_discover() applies the live driver: GPUs matched by PCI
 * address or added, the driver's state, the NVLinks. -1 with err naming path:line for a record
 * that is not one, or "the NVIDIA driver failed when the bundle was gathered: ..." when NVML
 * had failed (as discovery fails on the node itself). */
int topo_nvml_replay(struct topo_node *node, const char *path, ry_error_t *err);

#endif

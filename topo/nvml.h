#ifndef RAILYARD_TOPO_NVML_H
#define RAILYARD_TOPO_NVML_H

#include "src/common/error.h"
#include "topo/model.h"

/* Complete node with what the NVIDIA driver reports through NVML, loaded at run time
 * (libnvidia-ml.so.1, or $RAILYARD_NVML_LIBRARY): GPU model, UUID, memory, PCIe link current
 * and maximum generation/width, NVLink links and their peers. GPUs are matched by PCI address;
 * GPUs that hwloc did not report are added.
 *
 * A node without the driver is not an error: the function returns 0 and sets
 * node->gpu_driver_note ("no NVIDIA driver (...)"). -1 only for a driver that is present but
 * fails. */
int topo_nvml_discover(struct topo_node *node, ry_error_t *err);

#endif

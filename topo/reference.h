#ifndef RAILYARD_TOPO_REFERENCE_H
#define RAILYARD_TOPO_REFERENCE_H

#include "topo/model.h"

/* Built-in reference values: what a healthy part of a given kind reports. They fill what a map
 * leaves out (railyard-map(5), "Reference values", which gives the sources). */

struct topo_gpu_ref {
    const char *name;   /* what the entry describes, e.g. "H100 SXM" */
    int pcie_gen;       /* host link generation, 0 when the host link is not PCIe (NVLink-C2C) */
    int pcie_width;     /* host link width, 0 likewise */
    int nvlink_links;   /* NVLinks per GPU, -1 when the model has none or it varies */
    double nvlink_gbps; /* GB/s one NVLink carries each way (20 NVLink 1, 25 NVLink 2-4, 50
                         * NVLink 5; the bridges of PCIe cards likewise), 0 none or unknown */
    double c2c_gbps;    /* GB/s NVLink-C2C carries each way when that is the host link, else 0 */
};

/* The reference for a GPU model string as NVML, hwloc or the PCI ID database spell it
 * ("NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-16GB", "GA100 [A100 SXM4 40GB]"), or NULL. */
const struct topo_gpu_ref *topo_ref_gpu(const char *model);
/* The reference for a discovered GPU: by its model name, else by its PCI device id (parts an
 * older PCI ID database does not name), else by its compute capability where that fixes the
 * NVLinks (sm 100 and 103: B200, GB200, B300, GB300). NULL when none applies. */
const struct topo_gpu_ref *topo_ref_gpu_for(const struct topo_gpu *g);

struct topo_nic_ref {
    const char *name; /* "ConnectX-7" */
    int pcie_gen;     /* the highest generation the part supports */
    int virtual_fn;   /* 1 for a virtual function: its PCIe link is the hypervisor's */
    double port_gbps; /* the highest rate of one port */
};

/* The reference for an RDMA NIC, from its PCI id (NVIDIA/Mellanox) or its hca_type ("MT4129"
 * is device 0x1021), or NULL. */
const struct topo_nic_ref *topo_ref_nic_for(const struct topo_nic *n);

/* Per-lane data rate in Gb/s of an InfiniBand speed name ("NDR" -> 100), or -1. */
double topo_ref_ib_lane_gbps(const char *speed);

/* A CPU model from what NCCL records of a <cpu> (CPUID vendor, family and model; on arm64 and
 * POWER only the architecture): "Intel Xeon (Sapphire Rapids, family 6 model 143)", or NULL
 * when nothing is known. The caller frees the string. */
char *topo_cpu_model_name(const char *vendor, int family, int model, const char *arch);

#endif

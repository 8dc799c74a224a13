#ifndef RAILYARD_TOPO_REFERENCE_H
#define RAILYARD_TOPO_REFERENCE_H

/* Built-in reference values: what a healthy part of a given kind reports. They fill what a map
 * leaves out (railyard-map(5), "Reference values"). */

struct topo_gpu_ref {
    const char *name; /* what the entry describes, e.g. "H100 SXM" */
    int pcie_gen;     /* host link generation */
    int pcie_width;   /* host link width */
    int nvlink_links; /* NVLinks per GPU, -1 when the model has none or it varies */
};

/* The reference for a GPU model string as NVML, hwloc or the PCI ID database spell it
 * ("NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-16GB", "GA100 [A100 SXM4 40GB]"), or NULL. */
const struct topo_gpu_ref *topo_ref_gpu(const char *model);

/* Per-lane data rate in Gb/s of an InfiniBand speed name ("NDR" -> 100), or -1. */
double topo_ref_ib_lane_gbps(const char *speed);

#endif

#ifndef RAILYARD_PROBES_GDR_H
#define RAILYARD_PROBES_GDR_H

/* probes/: node-local measurements: GPUDirect RDMA readiness and its GPU memory probe. */

#include "topo/compare.h"
#include "topo/model.h"

/* GPUDirect RDMA readiness of a node (railyard check --gdr): a memory-registration path for
 * GPU memory (nvidia-peermem, or dma-buf: NVIDIA's open kernel module, kernel >= 5.12 and a
 * libibverbs with ibv_reg_dmabuf_mr), PCIe ACS redirection on the bridges between each GPU and
 * its nearest NIC, and the path class between them; with probe, GPU memory is allocated,
 * exported as a dma-buf and registered with the NIC through the CUDA driver loaded at run
 * time (skipped, with the reason, where there is none). */

struct gdr_report {
    int gpus, nics;       /* NVIDIA GPUs and RDMA NICs of the node */
    char driver[128];     /* "580.159.03, open kernel module"; "" not loaded */
    int open_module;      /* 1 open, 0 proprietary, -1 unknown */
    int modules_known;    /* the input lists kernel modules (sysfs module/) */
    int peermem;          /* nvidia-peermem (or nv_peer_mem) loaded: 1, 0 */
    char kernel[64];      /* release, "" unknown */
    int kernel_dmabuf;    /* the kernel imports dma-buf into RDMA (>= 5.12): 1, 0, -1 */
    int verbs_dmabuf;     /* this build's libibverbs has ibv_reg_dmabuf_mr */
    int probe_ran;        /* 1: the driver was loaded and the export tried */
    char probe[512];      /* what the probe did, or why it was skipped */
    char not_judged[256]; /* why nothing was judged, "" when something was */
};

/* Add gdr.* findings about node to out and fill r. live: the node is this machine (sysfs_root
 * and proc_root NULL mean $RAILYARD_SYSFS_ROOT or /sys, $RAILYARD_PROC_ROOT or /proc), and the
 * probe runs. Otherwise only the given roots are read (NULL or "": the input has none). */
void gdr_check(const struct topo_node *node, const char *host, const char *sysfs_root,
               const char *proc_root, int live, struct gdr_report *r, struct topo_findings *out);

#endif

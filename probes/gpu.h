#ifndef RAILYARD_PROBES_GPU_H
#define RAILYARD_PROBES_GPU_H

#include "common/error.h"
#include "topo/model.h"

/* GPU data paths measured on this node through the CUDA driver loaded at run time: per GPU
 * host-to-GPU, GPU-to-host and both at once by copy engine from pinned host memory on the GPU's
 * NUMA node, then every GPU at once; every pair's peer copies (copy engine, write, one way and
 * both ways; an SM kernel reading the peer) and peer latency by pointer chase, or copies through
 * host memory where the pair has no peer access; device-local copies (copy engine and SM
 * kernel), L2-hit and memory latency by pointer chase, and the latency of a kernel launch and of
 * a CUDA graph launch. A GPU other work uses (NVML: another process, or more than 10% busy) stops
 * the probes unless busy_ok. Copies are timed with CUDA events; each figure is the median of
 * its samples. Sizes and layouts (the SM copy's grid, the buffers against the L2, the chains
 * and their flush) come from probes/gpu_plan.h. The kernels are probes/kernels.ptx, embedded in
 * the binary and loaded with cuModuleLoadData when first needed: a driver that refuses them
 * costs the kernel figures of that GPU (said in the notes), not the copy-engine ones. */

enum {
    GPU_PROBE_PCIE = 1,
    GPU_PROBE_P2P = 2,
    GPU_PROBE_MEM = 4,
    GPU_PROBE_ALL = 7, /* the probes gpu_probe_run runs */
    GPU_PROBE_GDR = 8, /* GPUDirect RDMA through each GPU's NIC (probes/gdr_loop.h) */
};

struct gpu_probe_opts {
    unsigned only;       /* GPU_PROBE_* (0: all) */
    size_t copy_bytes;   /* bytes a copy moves (0: 256 MiB; the quick tier uses 64 MiB) */
    int samples;         /* timed copies per figure (0: 10; quick: 5) */
    int busy_ok;         /* measure GPUs other work uses (said in the notes) instead of stopping */
    const char *pair[2]; /* PCI addresses: only these two GPUs, as capture GPUs 0 and 1 (NULL:
                          * every GPU) */
};

/* Run the probes on every GPU the driver sees. The figures become one capture ("railyard
 * probe") in node->bw, its GPUs matched with the node's by PCI address, judged as captured
 * output is (topo_bw_judge). Returns the number of GPUs measured, or -1 with err when nothing
 * could run (no driver, no GPU, built without CUDA): the caller cannot judge. notes (may be
 * NULL) gets what was left out and why, one per line. */
int gpu_probe_run(struct topo_node *node, const struct gpu_probe_opts *o, char *notes,
                  size_t notes_len, ry_error_t *err);

/* The kernels' PTX as embedded in the binary (generated from probes/kernels.ptx). */
extern const char probe_kernels_ptx[];

#endif

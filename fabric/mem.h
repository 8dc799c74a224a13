#ifndef RAILYARD_FABRIC_MEM_H
#define RAILYARD_FABRIC_MEM_H

#include <stddef.h>

#include "common/error.h"
#include "fabric/cuda.h"
#include "topo/model.h"

/* The memory a verbs link test moves: host memory bound to the NIC's NUMA node, or CUDA device
 * memory on the GPU nearest the NIC (GPUDirect RDMA). The data pattern depends only on the
 * offset within a message, so any message slot can be checked on its own. */

struct fabric_mem {
    int cuda;    /* 0 host, 1 CUDA device memory */
    size_t size; /* bytes (device memory: rounded up to a page) */
    char *host;  /* host memory; for device memory the staging copy used by fill and check */
    struct fabric_cuda_buf dev;
    struct fabric_cuda_dev gpu;
    int numa;            /* host: the NUMA node it is bound to, -1 not bound */
    enum topo_path path; /* cuda: GPU to NIC path class */
    void *hwloc;         /* host: the topology the memory was bound with */
    char desc[160];      /* "host (NUMA node 1)", "cuda gpu2 0000:1b:00.0 (PIX)" */
};

/* spec: "host", "cuda" (the GPU nearest rdma_dev in the node's topology, PIX first), "cuda:N"
 * (CUDA ordinal) or "cuda:BUSID". netdev and rdma_dev place the memory. 0, or -1 with err. */
int fabric_mem_alloc(struct fabric_mem *m, const char *spec, const char *rdma_dev,
                     const char *netdev, size_t size, ry_error_t *err);
void fabric_mem_free(struct fabric_mem *m);
/* Write the pattern into the whole buffer. */
int fabric_mem_fill(struct fabric_mem *m, size_t msg, ry_error_t *err);
/* Check the pattern in [off, off + len): every byte when full, else one byte in 4093 and the
 * last. -1 naming the first offset that differs. */
int fabric_mem_check(struct fabric_mem *m, size_t off, size_t len, size_t msg, int full,
                     ry_error_t *err);
/* Zero the buffer. */
int fabric_mem_clear(struct fabric_mem *m, ry_error_t *err);

/* The pattern byte at offset i of a message. */
static inline char fabric_pattern(size_t i)
{
    return (char)(i * 7 + 1);
}

/* Of the node's GPUs, the index of the nearest to NIC nic (PIX first, lowest index on ties),
 * -1 when no GPU has a known path; *path gets the class. */
int fabric_nearest_gpu(const struct topo_node *node, size_t nic, enum topo_path *path);

#endif

#ifndef RAILYARD_FABRIC_CUDA_H
#define RAILYARD_FABRIC_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* CUDA device memory for the verbs transport and the GPUDirect probe, through the CUDA driver
 * API loaded at run time (libcuda.so.1): a binary built with CUDA starts on nodes without a
 * GPU, and every call says why it cannot work there. Built without CUDA, every call fails
 * saying so. */

/* Load the driver and initialise it: 0, or -1 with the reason ("libcuda.so.1: cannot open
 * shared object file: no NVIDIA driver on this node"). Safe to call more than once. */
int fabric_cuda_load(ry_error_t *err);

/* The CUDA device at PCI address busid ("0000:1b:00.0"): 0 with *dev, name (may be NULL) and
 * the driver's dma-buf and GPUDirect RDMA attributes (1 yes, 0 no, -1 unknown). */
struct fabric_cuda_dev {
    int ordinal;
    char name[96];
    char busid[16];
    int dma_buf, gdr;
    int driver_version; /* 13000 for 13.0 */
};
int fabric_cuda_device(const char *busid, struct fabric_cuda_dev *d, ry_error_t *err);
/* The same by ordinal, for "--mem cuda:N". */
int fabric_cuda_device_by_ordinal(int ordinal, struct fabric_cuda_dev *d, ry_error_t *err);

struct fabric_cuda_buf {
    int ordinal;
    uint64_t dptr; /* the buffer: page-aligned */
    size_t size;   /* page-rounded */
    uint64_t base; /* the allocation it lies in (what cuMemFree takes) */
};
/* dma-buf export (cuMemGetHandleForAddressRange) takes a range whose start and size are both
 * multiples of the host page, and cuMemAlloc aligns only large allocations that way: a buffer
 * of size bytes is rounded to whole pages (fabric_cuda_round), one page more is allocated
 * (fabric_cuda_alloc_bytes), and the buffer starts at the first page boundary of the
 * allocation (fabric_cuda_align). page is a power of two. */
static inline size_t fabric_cuda_round(size_t size, size_t page)
{
    return (size + page - 1) & ~(page - 1);
}
static inline size_t fabric_cuda_alloc_bytes(size_t size, size_t page)
{
    return fabric_cuda_round(size, page) + page;
}
static inline uint64_t fabric_cuda_align(uint64_t raw, size_t page)
{
    return (raw + page - 1) & ~(uint64_t)(page - 1);
}
/* A buffer of at least size bytes on the GPU of that ordinal. It holds a reference to the
 * GPU's primary context until fabric_cuda_free; a failed allocation holds none. */
int fabric_cuda_alloc(int ordinal, size_t size, struct fabric_cuda_buf *b, ry_error_t *err);
void fabric_cuda_free(struct fabric_cuda_buf *b);
/* copy len bytes between host and the buffer at off */
int fabric_cuda_copy(const struct fabric_cuda_buf *b, size_t off, void *host, size_t len,
                     int to_device, ry_error_t *err);
int fabric_cuda_memset(const struct fabric_cuda_buf *b, int value, ry_error_t *err);
/* Export the buffer as a dma-buf file descriptor (cuMemGetHandleForAddressRange): 0 with *fd,
 * or -1 with the driver's reason. */
int fabric_cuda_dmabuf(const struct fabric_cuda_buf *b, int *fd, ry_error_t *err);

/* After fabric_cuda_load: a driver entry point by its exported name ("cuMemcpyHtoDAsync_v2"),
 * or NULL (for the GPU probes, which use more of the driver than this file wraps). */
void *fabric_cuda_sym(const char *name);
/* "cuInit: CUDA_ERROR_NO_DEVICE (100)" for a driver result */
int fabric_cuda_error(ry_error_t *err, const char *call, int result);

#endif

#ifndef RAILYARD_FABRIC_GPU_MR_H
#define RAILYARD_FABRIC_GPU_MR_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Register GPU memory [dptr, dptr + size) with RDMA device dev: by dma-buf when dmabuf_fd >= 0,
 * else (or when that fails) the device pointer itself (nvidia-peermem). 0 with how ("dma-buf",
 * "peer memory"), or -1 with err naming both attempts. */
int fabric_verbs_register_gpu(const char *dev, uint64_t dptr, size_t size, int dmabuf_fd, char *how,
                              size_t howlen, ry_error_t *err);

#endif

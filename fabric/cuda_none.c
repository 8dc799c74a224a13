#include "config.h"

#include <string.h>

#include "fabric/cuda.h"

/* Built without CUDA: device memory is not available, and every call says so. */

#define WHY "this railyard was built without CUDA (configure --with-cuda)"

int fabric_cuda_load(ry_error_t *err)
{
    return ry_errorf(err, WHY);
}

int fabric_cuda_device(const char *busid, struct fabric_cuda_dev *d, ry_error_t *err)
{
    (void)busid;
    memset(d, 0, sizeof(*d));
    return ry_errorf(err, WHY);
}

int fabric_cuda_device_by_ordinal(int ordinal, struct fabric_cuda_dev *d, ry_error_t *err)
{
    (void)ordinal;
    memset(d, 0, sizeof(*d));
    return ry_errorf(err, WHY);
}

int fabric_cuda_alloc(int ordinal, size_t size, struct fabric_cuda_buf *b, ry_error_t *err)
{
    (void)ordinal;
    (void)size;
    memset(b, 0, sizeof(*b));
    return ry_errorf(err, WHY);
}

void fabric_cuda_free(struct fabric_cuda_buf *b)
{
    memset(b, 0, sizeof(*b));
}

int fabric_cuda_copy(const struct fabric_cuda_buf *b, size_t off, void *host, size_t len,
                     int to_device, ry_error_t *err)
{
    (void)b;
    (void)off;
    (void)host;
    (void)len;
    (void)to_device;
    return ry_errorf(err, WHY);
}

int fabric_cuda_memset(const struct fabric_cuda_buf *b, int value, ry_error_t *err)
{
    (void)b;
    (void)value;
    return ry_errorf(err, WHY);
}

int fabric_cuda_dmabuf(const struct fabric_cuda_buf *b, int *fd, ry_error_t *err)
{
    (void)b;
    *fd = -1;
    return ry_errorf(err, WHY);
}

void *fabric_cuda_sym(const char *name)
{
    (void)name;
    return NULL;
}

int fabric_cuda_error(ry_error_t *err, const char *call, int result)
{
    (void)call;
    (void)result;
    return ry_errorf(err, WHY);
}

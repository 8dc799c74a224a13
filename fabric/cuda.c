#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>

#include "fabric/cuda.h"

/* The driver API by dlopen: the types and values come from CUDA's cuda.h, the entry points
 * from whatever libcuda.so.1 the node has (their ABI is stable across drivers). */

static struct {
    int tried, ok;
    char why[sizeof(((ry_error_t *)0)->text)];
    void *dl;
    __typeof__(cuInit) *init;
    __typeof__(cuDriverGetVersion) *driver_version;
    __typeof__(cuGetErrorName) *error_name;
    __typeof__(cuDeviceGetCount) *count;
    __typeof__(cuDeviceGet) *get;
    __typeof__(cuDeviceGetByPCIBusId) *by_busid;
    __typeof__(cuDeviceGetPCIBusId) *busid;
    __typeof__(cuDeviceGetName) *name;
    __typeof__(cuDeviceGetAttribute) *attr;
    __typeof__(cuDevicePrimaryCtxRetain) *ctx_retain;
    __typeof__(cuDevicePrimaryCtxRelease_v2) *ctx_release;
    __typeof__(cuCtxSetCurrent) *ctx_set;
    __typeof__(cuMemAlloc_v2) *alloc;
    __typeof__(cuMemFree_v2) *free;
    __typeof__(cuMemcpyHtoD_v2) *htod;
    __typeof__(cuMemcpyDtoH_v2) *dtoh;
    __typeof__(cuMemsetD8_v2) *memset8;
    __typeof__(cuMemGetHandleForAddressRange) *handle;
    __typeof__(cuPointerSetAttribute) *ptr_attr;
} api;

static int cerr(ry_error_t *err, const char *call, CUresult rc)
{
    const char *name = NULL;

    if (api.error_name)
        api.error_name(rc, &name);
    return ry_errorf(err, "%s: %s (%d)", call, name ? name : "CUDA error", (int)rc);
}

int fabric_cuda_load(ry_error_t *err)
{
    CUresult rc;

    if (api.tried)
        return api.ok ? 0 : ry_errorf(err, "%s", api.why);
    api.tried = 1;
    if (!(api.dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))) {
        const char *why = dlerror();
        snprintf(api.why, sizeof(api.why), "no NVIDIA driver on this node (%s)",
                 why ? why : "libcuda.so.1 not found");
        return ry_errorf(err, "%s", api.why);
    }
#define SYM(field, name)                                                                           \
    do {                                                                                           \
        *(void **)(&api.field) = dlsym(api.dl, name);                                              \
    } while (0)
    SYM(init, "cuInit");
    SYM(driver_version, "cuDriverGetVersion");
    SYM(error_name, "cuGetErrorName");
    SYM(count, "cuDeviceGetCount");
    SYM(get, "cuDeviceGet");
    SYM(by_busid, "cuDeviceGetByPCIBusId");
    SYM(busid, "cuDeviceGetPCIBusId");
    SYM(name, "cuDeviceGetName");
    SYM(attr, "cuDeviceGetAttribute");
    SYM(ctx_retain, "cuDevicePrimaryCtxRetain");
    SYM(ctx_release, "cuDevicePrimaryCtxRelease_v2");
    SYM(ctx_set, "cuCtxSetCurrent");
    SYM(alloc, "cuMemAlloc_v2");
    SYM(free, "cuMemFree_v2");
    SYM(htod, "cuMemcpyHtoD_v2");
    SYM(dtoh, "cuMemcpyDtoH_v2");
    SYM(memset8, "cuMemsetD8_v2");
    SYM(handle, "cuMemGetHandleForAddressRange");
    SYM(ptr_attr, "cuPointerSetAttribute");
#undef SYM
    if (!api.init || !api.count || !api.get || !api.by_busid || !api.busid || !api.attr ||
        !api.ctx_retain || !api.ctx_set || !api.alloc || !api.free || !api.htod || !api.dtoh ||
        !api.memset8) {
        snprintf(api.why, sizeof(api.why), "libcuda.so.1 lacks driver API entry points");
        return ry_errorf(err, "%s", api.why);
    }
    if ((rc = api.init(0)) != CUDA_SUCCESS) {
        ry_error_t e;
        cerr(&e, "cuInit", rc);
        snprintf(api.why, sizeof(api.why), "%s", e.text);
        return ry_errorf(err, "%s", api.why);
    }
    api.ok = 1;
    return 0;
}

static int fill_dev(CUdevice d, int ordinal, struct fabric_cuda_dev *out, ry_error_t *err)
{
    int v;
    CUresult rc;

    memset(out, 0, sizeof(*out));
    out->ordinal = ordinal;
    out->dma_buf = out->gdr = -1;
    if (api.name)
        api.name(out->name, sizeof(out->name), d);
    if ((rc = api.busid(out->busid, sizeof(out->busid), d)) != CUDA_SUCCESS)
        return cerr(err, "cuDeviceGetPCIBusId", rc);
    for (char *p = out->busid; *p; p++)
        *p = (char)((*p >= 'A' && *p <= 'F') ? *p - 'A' + 'a' : *p);
    if (api.attr(&v, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, d) == CUDA_SUCCESS)
        out->dma_buf = v != 0;
    if (api.attr(&v, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, d) == CUDA_SUCCESS)
        out->gdr = v != 0;
    if (api.driver_version)
        api.driver_version(&out->driver_version);
    return 0;
}

int fabric_cuda_device(const char *busid, struct fabric_cuda_dev *out, ry_error_t *err)
{
    CUdevice d;
    CUresult rc;
    int n = 0;

    if (fabric_cuda_load(err) < 0)
        return -1;
    if ((rc = api.by_busid(&d, busid)) != CUDA_SUCCESS)
        return ry_errorf(err, "no CUDA device at %s (cuDeviceGetByPCIBusId: %d)", busid, (int)rc);
    api.count(&n);
    for (int i = 0; i < n; i++) {
        CUdevice x;
        if (api.get(&x, i) == CUDA_SUCCESS && x == d)
            return fill_dev(d, i, out, err);
    }
    return fill_dev(d, (int)d, out, err);
}

int fabric_cuda_device_by_ordinal(int ordinal, struct fabric_cuda_dev *out, ry_error_t *err)
{
    CUdevice d;
    CUresult rc;
    int n = 0;

    if (fabric_cuda_load(err) < 0)
        return -1;
    if ((rc = api.count(&n)) != CUDA_SUCCESS)
        return cerr(err, "cuDeviceGetCount", rc);
    if (ordinal < 0 || ordinal >= n)
        return ry_errorf(err, "no CUDA device %d (the driver sees %d)", ordinal, n);
    if ((rc = api.get(&d, ordinal)) != CUDA_SUCCESS)
        return cerr(err, "cuDeviceGet", rc);
    return fill_dev(d, ordinal, out, err);
}

/* Retain the primary context of the GPU of that ordinal and make it current: 0 with *dev, or
 * -1 with err and no reference held. */
static int use_ctx(int ordinal, CUdevice *dev, ry_error_t *err)
{
    CUcontext ctx;
    CUresult rc;

    if ((rc = api.get(dev, ordinal)) != CUDA_SUCCESS)
        return cerr(err, "cuDeviceGet", rc);
    if ((rc = api.ctx_retain(&ctx, *dev)) != CUDA_SUCCESS)
        return cerr(err, "cuDevicePrimaryCtxRetain", rc);
    if ((rc = api.ctx_set(ctx)) != CUDA_SUCCESS) {
        if (api.ctx_release)
            api.ctx_release(*dev);
        return cerr(err, "cuCtxSetCurrent", rc);
    }
    return 0;
}

int fabric_cuda_alloc(int ordinal, size_t size, struct fabric_cuda_buf *b, ry_error_t *err)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    CUdevice dev;
    CUdeviceptr p;
    CUresult rc;

    memset(b, 0, sizeof(*b));
    if (fabric_cuda_load(err) < 0 || use_ctx(ordinal, &dev, err) < 0)
        return -1;
    if ((rc = api.alloc(&p, fabric_cuda_alloc_bytes(size, page))) != CUDA_SUCCESS) {
        if (api.ctx_release) /* the reference use_ctx took: nothing holds it now */
            api.ctx_release(dev);
        return cerr(err, "cuMemAlloc", rc);
    }
    if (api.ptr_attr) { /* GPUDirect RDMA: synchronous copies see the NIC's writes */
        unsigned one = 1;
        api.ptr_attr(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p);
    }
    b->ordinal = ordinal;
    b->base = (uint64_t)p;
    b->dptr = fabric_cuda_align((uint64_t)p, page);
    b->size = fabric_cuda_round(size, page);
    return 0;
}

void fabric_cuda_free(struct fabric_cuda_buf *b)
{
    if (b->base && api.ok) {
        CUdevice d;
        api.free((CUdeviceptr)b->base);
        if (api.ctx_release && api.get(&d, b->ordinal) == CUDA_SUCCESS)
            api.ctx_release(d);
    }
    memset(b, 0, sizeof(*b));
}

int fabric_cuda_copy(const struct fabric_cuda_buf *b, size_t off, void *host, size_t len,
                     int to_device, ry_error_t *err)
{
    CUresult rc;

    if (off + len > b->size)
        return ry_errorf(err, "copy of %zu bytes at %zu past the %zu-byte GPU buffer", len, off,
                         b->size);
    rc = to_device ? api.htod((CUdeviceptr)(b->dptr + off), host, len)
                   : api.dtoh(host, (CUdeviceptr)(b->dptr + off), len);
    return rc == CUDA_SUCCESS ? 0 : cerr(err, to_device ? "cuMemcpyHtoD" : "cuMemcpyDtoH", rc);
}

int fabric_cuda_memset(const struct fabric_cuda_buf *b, int value, ry_error_t *err)
{
    CUresult rc = api.memset8((CUdeviceptr)b->dptr, (unsigned char)value, b->size);
    return rc == CUDA_SUCCESS ? 0 : cerr(err, "cuMemsetD8", rc);
}

int fabric_cuda_dmabuf(const struct fabric_cuda_buf *b, int *fd, ry_error_t *err)
{
    CUresult rc;
    int out = -1;

    *fd = -1;
    if (!api.handle)
        return ry_errorf(err, "the driver has no cuMemGetHandleForAddressRange (CUDA 11.7 or "
                              "newer is needed for dma-buf)");
    rc = api.handle(&out, (CUdeviceptr)b->dptr, b->size, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    if (rc != CUDA_SUCCESS)
        return cerr(err, "cuMemGetHandleForAddressRange(DMA_BUF_FD)", rc);
    *fd = out;
    return 0;
}

void *fabric_cuda_sym(const char *name)
{
    return api.ok ? dlsym(api.dl, name) : NULL;
}

int fabric_cuda_error(ry_error_t *err, const char *call, int result)
{
    return cerr(err, call, (CUresult)result);
}

/* A stand-in for the CUDA driver library (built as tests/tools/fakecuda/libcuda.so.1) for what
 * cannot run here: no GPU. It serves two kinds of test:
 *  - fabric/cuda.c's paths that a real driver takes only on a GPU in trouble: an allocation the
 *    driver refuses, a context that cannot be made current, a small allocation that is not
 *    page-aligned (tests/unit/test_cuda_errors.c);
 *  - railyard probe run whole (tests/cli/t1114-gpu-probe-run.t), so that no path of
 *    probes/gpu.c runs for the first time on a lent GPU.
 * It implements the driver entry points railyard calls over host memory and keeps the rules the
 * driver documents that railyard's code must respect: every primary-context retain released
 * once; dma-buf export only of a page-aligned range inside an allocation; a cuMemcpyHtoD or
 * cuMemsetD8 on the default stream may land after the call returns, and work on a stream made
 * CU_STREAM_NON_BLOCKING does not wait for it; a kernel that loads outside every allocation is
 * an illegal address, and that error stays on the context (every later call returns it).
 * Time is simulated: each copy or kernel advances its stream's clock by bytes over a bandwidth
 * (copy engine 55 GB/s to the GPU, 57 from it, 1600 within it, 350 to a peer; an SM copy the
 * engine's figure times the share of the GPU's threads its grid fills), and a pointer chase's
 * %globaltimer by 250 ns per L2 hit and 650 ns per load from memory. The L2 (50 MiB) holds the
 * tail of the last bulk copy or memset and the lines chases loaded since, oldest out first.
 * Nothing else loads it: the tests put its folder first on LD_LIBRARY_PATH. Read at each call
 * from the environment:
 *   FAKECUDA_FAIL=alloc|ctx_set|module   that call fails
 *   FAKECUDA_OFFSET=N    allocations start N bytes past a page (default 256, as cuMemAlloc
 *                        places small allocations; 0 for aligned ones)
 *   FAKECUDA_DEVICES=N   GPUs (1 to 8, default 1), each peer of the others unless
 *   FAKECUDA_PEER=0 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cuda.h>

#define MAXDEV   8
#define MAXALLOC 256
#define LINE     128
#define L2_BYTES ((size_t)50 << 20)
#define L2_LINES (L2_BYTES / LINE)

/* what the tests read */
int fakecuda_refs(int dev);
int fakecuda_live(void);

static int refs[MAXDEV], sticky; /* sticky: an error that stays on every context */
static struct alloc {
    void *mem;
    uintptr_t at;
    size_t size;
    int dev; /* -1: pinned host memory */
} allocs[MAXALLOC];

struct stream {
    int dev, nonblocking;
    double t; /* ns */
    int capturing;
    CUfunction captured;
};
struct event {
    double t;
};
struct function {
    const char *name;
    int nparams;
};
struct module {
    struct function f[3];
};
/* the default (legacy) stream of each device; its copies may be pending */
static struct stream legacy[MAXDEV];
static struct pending {
    void *dst;
    const void *src;
    size_t len;
    int memset_value; /* -1: a copy */
    void *held;       /* the staged copy of pageable host memory */
} pending[64];
static int npending, current = -1, peer_on[MAXDEV][MAXDEV];

/* the L2 of each device: the tail [bulk_lo, bulk_hi) of the last bulk operation, and the lines
 * chases loaded since, in a ring (oldest out first) with an open-addressed index */
static struct l2 {
    uintptr_t bulk_lo, bulk_hi;
    uintptr_t *ring, *index;
    size_t head, n;
} l2s[MAXDEV];

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

static int ndev(void)
{
    int n = env_int("FAKECUDA_DEVICES", 1);
    return n < 1 ? 1 : n > MAXDEV ? MAXDEV : n;
}

static int failing(const char *what)
{
    const char *f = getenv("FAKECUDA_FAIL");
    return f && !strcmp(f, what);
}

int fakecuda_refs(int dev)
{
    return dev >= 0 && dev < MAXDEV ? refs[dev] : -1;
}

int fakecuda_live(void)
{
    int n = 0;
    for (int i = 0; i < MAXALLOC; i++)
        n += allocs[i].mem != NULL && allocs[i].dev >= 0;
    return n;
}

/* the allocation holding [p, p + len), or NULL */
static struct alloc *find(uintptr_t p, size_t len)
{
    for (int i = 0; i < MAXALLOC; i++)
        if (allocs[i].mem && p >= allocs[i].at && p + len <= allocs[i].at + allocs[i].size)
            return &allocs[i];
    return NULL;
}

static void l2_clear(struct l2 *c)
{
    if (!c->ring) {
        c->ring = calloc(L2_LINES, sizeof(*c->ring));
        c->index = calloc(2 * L2_LINES, sizeof(*c->index));
    }
    memset(c->index, 0, 2 * L2_LINES * sizeof(*c->index));
    c->head = c->n = 0;
}

static size_t slot(uintptr_t line)
{
    return (size_t)((line * 0x9e3779b97f4a7c15ull) >> 20) % (2 * L2_LINES);
}

static int l2_has(const struct l2 *c, uintptr_t line)
{
    if (line >= c->bulk_lo / LINE && line < (c->bulk_hi + LINE - 1) / LINE)
        return 1;
    if (!c->index)
        return 0;
    for (size_t k = slot(line);; k = (k + 1) % (2 * L2_LINES)) {
        if (!c->index[k])
            return 0;
        if (c->index[k] == line + 1)
            return 1;
    }
}

static void l2_index_rebuild(struct l2 *c)
{
    memset(c->index, 0, 2 * L2_LINES * sizeof(*c->index));
    for (size_t i = 0; i < c->n; i++) {
        uintptr_t line = c->ring[(c->head + L2_LINES - c->n + i) % L2_LINES];
        size_t k = slot(line);
        while (c->index[k])
            k = (k + 1) % (2 * L2_LINES);
        c->index[k] = line + 1;
    }
}

static void l2_load(struct l2 *c, uintptr_t line)
{
    size_t k;

    if (!c->ring)
        l2_clear(c);
    if (c->n == L2_LINES) { /* full: the oldest goes (the index is rebuilt, rarely) */
        c->n--;
        if (c->bulk_hi > c->bulk_lo)
            c->bulk_lo += LINE;
        l2_index_rebuild(c);
    }
    c->ring[c->head] = line;
    c->head = (c->head + 1) % L2_LINES;
    c->n++;
    for (k = slot(line); c->index[k]; k = (k + 1) % (2 * L2_LINES))
        ;
    c->index[k] = line + 1;
}

/* a bulk write or read of [p, p + len) through device dev's L2: its tail is what L2 holds */
static void l2_bulk(int dev, uintptr_t p, size_t len)
{
    struct l2 *c;

    if (dev < 0) /* host memory: no GPU's L2 */
        return;
    c = &l2s[dev];
    if (!c->ring)
        l2_clear(c);
    if (len >= L2_BYTES) {
        l2_clear(c);
        c->bulk_lo = p + len - L2_BYTES;
        c->bulk_hi = p + len;
    } else {
        c->bulk_lo = p;
        c->bulk_hi = p + len;
    }
}

/* the work the default stream of any device still owes lands now */
static void drain(void)
{
    for (int i = 0; i < npending; i++) {
        struct pending *q = &pending[i];
        if (q->memset_value >= 0)
            memset(q->dst, q->memset_value, q->len);
        else
            memcpy(q->dst, q->held, q->len);
        free(q->held);
    }
    npending = 0;
}

static void defer_copy(void *dst, const void *src, size_t len, int value)
{
    if (npending == (int)(sizeof(pending) / sizeof(pending[0])))
        drain();
    pending[npending].dst = dst;
    pending[npending].len = len;
    pending[npending].memset_value = value;
    pending[npending].held = NULL;
    if (value < 0) { /* pageable memory is staged when the call returns */
        pending[npending].held = malloc(len);
        memcpy(pending[npending].held, src, len);
    }
    npending++;
}

static struct stream *stream_of(CUstream s)
{
    if (s)
        return (struct stream *)s;
    return &legacy[current < 0 ? 0 : current];
}

/* an operation on s: a blocking stream (and the default one) waits for the default stream */
static void order(struct stream *st)
{
    if (!st->nonblocking)
        drain();
}

#define STICKY                                                                                     \
    do {                                                                                           \
        if (sticky)                                                                                \
            return (CUresult)sticky;                                                               \
    } while (0)

static CUresult fault(void)
{
    sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
    return CUDA_ERROR_ILLEGAL_ADDRESS;
}

CUresult cuInit(unsigned flags)
{
    for (int d = 0; d < MAXDEV; d++)
        legacy[d].dev = d;
    return flags ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v)
{
    *v = 13000;
    return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult rc, const char **name)
{
    switch (rc) {
    case CUDA_SUCCESS: *name = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; break;
    case CUDA_ERROR_INVALID_DEVICE: *name = "CUDA_ERROR_INVALID_DEVICE"; break;
    case CUDA_ERROR_INVALID_CONTEXT: *name = "CUDA_ERROR_INVALID_CONTEXT"; break;
    case CUDA_ERROR_NO_BINARY_FOR_GPU: *name = "CUDA_ERROR_NO_BINARY_FOR_GPU"; break;
    case CUDA_ERROR_NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; break;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED:
        *name = "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED";
        break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *n)
{
    *n = ndev();
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    if (ordinal < 0 || ordinal >= ndev())
        return CUDA_ERROR_INVALID_DEVICE;
    *d = ordinal;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice d)
{
    if (d < 0 || d >= ndev())
        return CUDA_ERROR_INVALID_DEVICE;
    snprintf(buf, (size_t)len, "00000000:%02X:00.0", 0x1b + 0x10 * d);
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetByPCIBusId(CUdevice *d, const char *busid)
{
    char want[32];

    for (int i = 0; i < ndev(); i++) {
        snprintf(want, sizeof(want), "0000:%02x:00.0", 0x1b + 0x10 * i);
        if (!strcasecmp(busid, want) || (strlen(busid) > 4 && !strcasecmp(busid + 4, want))) {
            *d = i;
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
    (void)d;
    snprintf(name, (size_t)len, "railyard test driver");
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    if (d < 0 || d >= ndev())
        return CUDA_ERROR_INVALID_DEVICE;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = (int)L2_BYTES; break;
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED: *v = 1; break;
    default: *v = 0;
    }
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice d)
{
    if (d < 0 || d >= ndev())
        return CUDA_ERROR_INVALID_DEVICE;
    refs[d]++;
    *ctx = (CUcontext)(uintptr_t)(0x1000 + d);
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
    if (d < 0 || d >= ndev())
        return CUDA_ERROR_INVALID_DEVICE;
    if (refs[d] <= 0)
        return CUDA_ERROR_INVALID_CONTEXT; /* released more often than retained */
    refs[d]--;
    return CUDA_SUCCESS;
}

static int ctx_dev(CUcontext ctx)
{
    uintptr_t v = (uintptr_t)ctx;
    return v >= 0x1000 && v < 0x1000 + MAXDEV && refs[v - 0x1000] > 0 ? (int)(v - 0x1000) : -1;
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    if (failing("ctx_set") || (ctx && ctx_dev(ctx) < 0))
        return CUDA_ERROR_INVALID_CONTEXT;
    current = ctx ? ctx_dev(ctx) : -1;
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    STICKY;
    if (current < 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    drain();
    return CUDA_SUCCESS;
}

static CUresult alloc_on(int dev, void **p, size_t size)
{
    const char *o = getenv("FAKECUDA_OFFSET");
    size_t page = (size_t)sysconf(_SC_PAGESIZE), off = o ? strtoul(o, NULL, 0) : 256;
    char *mem;

    if (dev >= 0 && size >= ((size_t)2 << 20))
        off = 0; /* large allocations are aligned */
    for (int i = 0; i < MAXALLOC; i++) {
        if (allocs[i].mem)
            continue;
        if (posix_memalign((void **)&mem, page, size + off))
            return CUDA_ERROR_OUT_OF_MEMORY;
        memset(mem, 0xff, size + off); /* what a fresh allocation holds: anything */
        allocs[i].mem = mem;
        allocs[i].at = (uintptr_t)mem + off;
        allocs[i].size = size;
        allocs[i].dev = dev;
        *p = (void *)allocs[i].at;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size)
{
    void *q;
    CUresult rc;

    STICKY;
    if (current < 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (failing("alloc") || size == 0)
        return size ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
    if ((rc = alloc_on(current, &q, size)) == CUDA_SUCCESS)
        *p = (CUdeviceptr)(uintptr_t)q;
    return rc;
}

static CUresult free_at(uintptr_t p, int host)
{
    for (int i = 0; i < MAXALLOC; i++)
        if (allocs[i].mem && allocs[i].at == p && (allocs[i].dev < 0) == host) {
            drain(); /* cuMemFree waits for the work on it */
            free(allocs[i].mem);
            allocs[i].mem = NULL;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE; /* not the start of an allocation */
}

CUresult cuMemFree_v2(CUdeviceptr p)
{
    return free_at((uintptr_t)p, 0);
}

CUresult cuMemHostAlloc(void **p, size_t size, unsigned flags)
{
    (void)flags;
    STICKY;
    return alloc_on(-1, p, size);
}

CUresult cuMemFreeHost(void *p)
{
    return free_at((uintptr_t)p, 1);
}

/* a copy of len bytes between host memory and a device allocation, on the default stream */
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t len)
{
    struct alloc *a = find((uintptr_t)dst, len);

    STICKY;
    if (!a || a->dev < 0)
        return CUDA_ERROR_INVALID_VALUE;
    drain();
    /* from pageable memory the call returns once the data is staged; the DMA to the GPU may
     * land later: only work ordered after the default stream sees it */
    defer_copy((void *)(uintptr_t)dst, src, len, -1);
    l2_bulk(a->dev, (uintptr_t)dst, len);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t len)
{
    STICKY;
    if (!find((uintptr_t)src, len))
        return CUDA_ERROR_INVALID_VALUE;
    drain();
    memcpy(dst, (const void *)(uintptr_t)src, len);
    return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t len)
{
    struct alloc *a = find((uintptr_t)dst, len);

    STICKY;
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    drain();
    defer_copy((void *)(uintptr_t)dst, NULL, len, v); /* asynchronous for device memory */
    l2_bulk(a->dev, (uintptr_t)dst, len);
    return CUDA_SUCCESS;
}

CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute a, CUdeviceptr p)
{
    (void)value;
    (void)a;
    return find((uintptr_t)p, 1) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* the driver's rule: the range's start and size are multiples of the host page */
CUresult cuMemGetHandleForAddressRange(void *handle, CUdeviceptr p, size_t size,
                                       CUmemRangeHandleType type, unsigned long long flags)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int fd;

    if (type != CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD || flags || p % page || size % page ||
        size == 0 || !find((uintptr_t)p, size))
        return CUDA_ERROR_INVALID_VALUE;
    if ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *(int *)handle = fd;
    return CUDA_SUCCESS;
}

/* ---- streams, events, copies on streams ---- */

CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
    struct stream *st;

    STICKY;
    if (current < 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    st = calloc(1, sizeof(*st));
    st->dev = current;
    st->nonblocking = (flags & CU_STREAM_NON_BLOCKING) != 0;
    *s = (CUstream)st;
    return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream s)
{
    free(s);
    return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *e, unsigned flags)
{
    (void)flags;
    STICKY;
    *e = (CUevent)calloc(1, sizeof(struct event));
    return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent e)
{
    free(e);
    return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent e, CUstream s)
{
    struct stream *st = stream_of(s);

    STICKY;
    order(st);
    ((struct event *)e)->t = st->t;
    return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent e)
{
    (void)e;
    STICKY;
    return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
    STICKY;
    *ms = (float)((((struct event *)b)->t - ((struct event *)a)->t) / 1e6);
    return CUDA_SUCCESS;
}

static double gbps(int from_dev, int to_dev)
{
    if (from_dev < 0)
        return 55;
    if (to_dev < 0)
        return 57;
    if (from_dev == to_dev)
        return 1600;
    return peer_on[to_dev][from_dev] || peer_on[from_dev][to_dev] ? 350 : 20;
}

static CUresult copy_on(CUstream s, uintptr_t dst, uintptr_t src, size_t len)
{
    struct stream *st = stream_of(s);
    struct alloc *d = find(dst, len), *a = find(src, len);

    STICKY;
    if (!d || !a)
        return CUDA_ERROR_INVALID_VALUE;
    order(st);
    memcpy((void *)dst, (const void *)src, len);
    st->t += len / gbps(a->dev, d->dev);
    l2_bulk(d->dev, dst, len);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t len, CUstream s)
{
    /* from pageable memory (not an allocation of ours) the copy is staged first; on the
     * default stream it may land after the call returns, as cuMemcpyHtoD's */
    if (!find((uintptr_t)src, len)) {
        struct stream *st = stream_of(s);
        if (!s)
            return cuMemcpyHtoD_v2(dst, src, len);
        STICKY;
        if (!find((uintptr_t)dst, len))
            return CUDA_ERROR_INVALID_VALUE;
        order(st);
        memcpy((void *)(uintptr_t)dst, src, len);
        st->t += len / 20.0;
        l2_bulk(find((uintptr_t)dst, len)->dev, (uintptr_t)dst, len);
        return CUDA_SUCCESS;
    }
    return copy_on(s, (uintptr_t)dst, (uintptr_t)src, len);
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t len, CUstream s)
{
    return copy_on(s, (uintptr_t)dst, (uintptr_t)src, len);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t len, CUstream s)
{
    return copy_on(s, (uintptr_t)dst, (uintptr_t)src, len);
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
                           size_t len, CUstream s)
{
    if (ctx_dev(dctx) < 0 || ctx_dev(sctx) < 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    return copy_on(s, (uintptr_t)dst, (uintptr_t)src, len);
}

CUresult cuDeviceCanAccessPeer(int *can, CUdevice a, CUdevice b)
{
    if (a < 0 || a >= ndev() || b < 0 || b >= ndev())
        return CUDA_ERROR_INVALID_DEVICE;
    *can = a != b && env_int("FAKECUDA_PEER", 1) != 0;
    return CUDA_SUCCESS;
}

CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned flags)
{
    int p = ctx_dev(peer);

    STICKY;
    if (flags || p < 0 || current < 0 || p == current || !env_int("FAKECUDA_PEER", 1))
        return CUDA_ERROR_INVALID_VALUE;
    if (peer_on[current][p])
        return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    peer_on[current][p] = 1;
    return CUDA_SUCCESS;
}

/* ---- the module and the kernels, carried out on the host ---- */

static struct function known[] = { { "ry_copy", 3 }, { "ry_chase", 4 }, { "ry_empty", 0 } };

/* the parameters the PTX declares for entry name, or -1 when it has no such entry */
static int ptx_params(const char *ptx, const char *name)
{
    char want[64];
    const char *p, *end;
    int n = 0;

    snprintf(want, sizeof(want), ".entry %s(", name);
    if (!(p = strstr(ptx, want)) || !(end = strchr(p, ')')))
        return -1;
    for (const char *q = p; (q = strstr(q, ".param")) && q < end; q++)
        n++;
    return n;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
    struct module *mod;

    STICKY;
    if (failing("module"))
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    if (!strstr(image, ".version") || !strstr(image, ".target sm_"))
        return CUDA_ERROR_INVALID_VALUE;
    mod = calloc(1, sizeof(*mod));
    for (int i = 0; i < 3; i++) {
        mod->f[i] = known[i];
        /* the signature the kernel's emulation reads must be the PTX's */
        if (ptx_params(image, known[i].name) != known[i].nparams)
            mod->f[i].nparams = -1;
    }
    *m = (CUmodule)mod;
    return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule m)
{
    free(m);
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    struct module *mod = (struct module *)m;

    for (int i = 0; i < 3; i++)
        if (!strcmp(mod->f[i].name, name)) {
            if (mod->f[i].nparams < 0)
                return CUDA_ERROR_INVALID_VALUE;
            *f = (CUfunction)&mod->f[i];
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND;
}

static CUresult run_kernel(const struct function *fn, unsigned grid, unsigned block,
                           struct stream *st, void **args)
{
    if (!strcmp(fn->name, "ry_empty")) {
        st->t += 2000;
        return CUDA_SUCCESS;
    }
    if (!strcmp(fn->name, "ry_copy")) {
        uintptr_t src = *(CUdeviceptr *)args[0], dst = *(CUdeviceptr *)args[1];
        unsigned long long n16 = *(unsigned long long *)args[2];
        struct alloc *a = find(src, n16 * 16), *d = find(dst, n16 * 16);
        double fill = (double)grid * block / (132.0 * 2048.0);
        if (!a || !d)
            return fault();
        memcpy((void *)dst, (const void *)src, n16 * 16);
        /* the SMs move what the share of their threads the grid fills can keep in flight */
        st->t += n16 * 16 / (gbps(a->dev, d->dev) * (fill < 1 ? fill : 1));
        l2_bulk(d->dev, dst, n16 * 16);
        return CUDA_SUCCESS;
    }
    if (!strcmp(fn->name, "ry_chase")) {
        uintptr_t base = *(CUdeviceptr *)args[0], out = *(CUdeviceptr *)args[3];
        unsigned long long at = *(unsigned long long *)args[1],
                           steps = *(unsigned long long *)args[2], ns = 0;
        struct alloc *o = find(out, 16);
        if (!o || grid != 1 || block != 1)
            return fault();
        for (unsigned long long k = 0; k < steps; k++) {
            uintptr_t p = base + at * 8;
            struct alloc *a = find(p, 8);
            if (!a || a->dev < 0)
                return fault();    /* a load outside every allocation */
            if (a->dev != st->dev) /* a peer's memory: over the link, its L2 */
                ns += 900;
            if (l2_has(&l2s[a->dev], p / LINE))
                ns += 250;
            else {
                ns += 650;
                l2_load(&l2s[a->dev], p / LINE);
            }
            at = *(const uint64_t *)p;
        }
        ((unsigned long long *)out)[0] = at;
        ((unsigned long long *)out)[1] = ns;
        st->t += (double)ns;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream s, void **args,
                        void **extra)
{
    struct stream *st = stream_of(s);
    const struct function *fn = (const struct function *)f;

    STICKY;
    if (!fn || gy != 1 || gz != 1 || by != 1 || bz != 1 || shared || extra || gx == 0 || bx == 0 ||
        bx > 1024 || (fn->nparams > 0 && !args))
        return CUDA_ERROR_INVALID_VALUE;
    if (st->capturing) {
        st->captured = f;
        return CUDA_SUCCESS;
    }
    order(st);
    return run_kernel(fn, gx, bx, st, args);
}

/* ---- graphs: a capture of one empty kernel ---- */

CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode)
{
    (void)mode;
    STICKY;
    if (!s)
        return CUDA_ERROR_INVALID_VALUE; /* the legacy stream cannot be captured */
    ((struct stream *)s)->capturing = 1;
    return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream s, CUgraph *g)
{
    struct stream *st = (struct stream *)s;

    if (!st || !st->capturing)
        return CUDA_ERROR_INVALID_VALUE;
    st->capturing = 0;
    *g = (CUgraph)st->captured;
    st->captured = NULL;
    return *g ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags)
{
    (void)flags;
    *e = (CUgraphExec)g;
    return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec e, CUstream s)
{
    STICKY;
    order(stream_of(s));
    return run_kernel((const struct function *)e, 1, 1, stream_of(s), NULL);
}

CUresult cuGraphExecDestroy(CUgraphExec e)
{
    (void)e;
    return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph g)
{
    (void)g;
    return CUDA_SUCCESS;
}

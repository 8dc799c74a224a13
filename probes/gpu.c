#include "config.h"

#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>

#include "common/sysfs.h"
#include "common/file.h"
#include "common/xmalloc.h"
#include "fabric/cuda.h"
#include "probes/gpu.h"
#include "probes/gpu_plan.h"
#include "readers/nvml.h"
#include "topo/gpubw.h"

/* Driver entry points by their exported names: the prototypes are cuda.h's, the versions the
 * ones CUDA 13's header maps the plain names to (_v2), so an older or newer driver gives the
 * same ABI or nothing. */
static struct {
    __typeof__(cuDeviceGetCount) *count;
    __typeof__(cuDeviceGet) *get;
    __typeof__(cuDeviceGetPCIBusId) *busid;
    __typeof__(cuDeviceGetName) *name;
    __typeof__(cuDeviceGetAttribute) *attr;
    __typeof__(cuDevicePrimaryCtxRetain) *ctx_retain;
    __typeof__(cuDevicePrimaryCtxRelease_v2) *ctx_release;
    __typeof__(cuCtxSetCurrent) *ctx_set;
    __typeof__(cuCtxSynchronize) *ctx_sync;
    __typeof__(cuMemAlloc_v2) *alloc;
    __typeof__(cuMemFree_v2) *free;
    __typeof__(cuMemHostAlloc) *host_alloc;
    __typeof__(cuMemFreeHost) *host_free;
    __typeof__(cuMemsetD8_v2) *memset8;
    __typeof__(cuStreamCreate) *stream_create;
    __typeof__(cuStreamDestroy_v2) *stream_destroy;
    __typeof__(cuEventCreate) *event_create;
    __typeof__(cuEventDestroy_v2) *event_destroy;
    __typeof__(cuEventRecord) *event_record;
    __typeof__(cuEventSynchronize) *event_sync;
    __typeof__(cuEventElapsedTime_v2) *elapsed;
    __typeof__(cuMemcpyHtoDAsync_v2) *htod_async;
    __typeof__(cuMemcpyDtoHAsync_v2) *dtoh_async;
    __typeof__(cuMemcpyDtoDAsync_v2) *dtod_async;
    __typeof__(cuMemcpyPeerAsync) *peer_async;
    __typeof__(cuMemcpyDtoH_v2) *dtoh;
    __typeof__(cuDeviceCanAccessPeer) *can_peer;
    __typeof__(cuCtxEnablePeerAccess) *enable_peer;
    __typeof__(cuModuleLoadData) *module_load;
    __typeof__(cuModuleUnload) *module_unload;
    __typeof__(cuModuleGetFunction) *function;
    __typeof__(cuLaunchKernel) *launch;
    /* CUDA graphs (optional: a driver without them skips the graph launch figure) */
    __typeof__(cuStreamBeginCapture_v2) *capture_begin;
    __typeof__(cuStreamEndCapture) *capture_end;
    __typeof__(cuGraphInstantiateWithFlags) *graph_instantiate;
    __typeof__(cuGraphLaunch) *graph_launch;
    __typeof__(cuGraphExecDestroy) *graph_exec_destroy;
    __typeof__(cuGraphDestroy) *graph_destroy;
} cu;

static int resolve(ry_error_t *err)
{
#define SYM(field, name)                                                                           \
    do {                                                                                           \
        if (!(*(void **)(&cu.field) = fabric_cuda_sym(name)))                                      \
            return ry_errorf(err, "the NVIDIA driver has no %s", name);                            \
    } while (0)
    SYM(count, "cuDeviceGetCount");
    SYM(get, "cuDeviceGet");
    SYM(busid, "cuDeviceGetPCIBusId");
    SYM(name, "cuDeviceGetName");
    SYM(attr, "cuDeviceGetAttribute");
    SYM(ctx_retain, "cuDevicePrimaryCtxRetain");
    SYM(ctx_release, "cuDevicePrimaryCtxRelease_v2");
    SYM(ctx_set, "cuCtxSetCurrent");
    SYM(ctx_sync, "cuCtxSynchronize");
    SYM(alloc, "cuMemAlloc_v2");
    SYM(free, "cuMemFree_v2");
    SYM(host_alloc, "cuMemHostAlloc");
    SYM(host_free, "cuMemFreeHost");
    SYM(memset8, "cuMemsetD8_v2");
    SYM(stream_create, "cuStreamCreate");
    SYM(stream_destroy, "cuStreamDestroy_v2");
    SYM(event_create, "cuEventCreate");
    SYM(event_destroy, "cuEventDestroy_v2");
    SYM(event_record, "cuEventRecord");
    SYM(event_sync, "cuEventSynchronize");
    SYM(htod_async, "cuMemcpyHtoDAsync_v2");
    SYM(dtoh_async, "cuMemcpyDtoHAsync_v2");
    SYM(dtod_async, "cuMemcpyDtoDAsync_v2");
    SYM(peer_async, "cuMemcpyPeerAsync");
    SYM(dtoh, "cuMemcpyDtoH_v2");
    SYM(can_peer, "cuDeviceCanAccessPeer");
    SYM(enable_peer, "cuCtxEnablePeerAccess");
    SYM(module_load, "cuModuleLoadData");
    SYM(function, "cuModuleGetFunction");
    SYM(launch, "cuLaunchKernel");
#undef SYM
    *(void **)(&cu.module_unload) = fabric_cuda_sym("cuModuleUnload");
    *(void **)(&cu.capture_begin) = fabric_cuda_sym("cuStreamBeginCapture_v2");
    *(void **)(&cu.capture_end) = fabric_cuda_sym("cuStreamEndCapture");
    *(void **)(&cu.graph_instantiate) = fabric_cuda_sym("cuGraphInstantiateWithFlags");
    *(void **)(&cu.graph_launch) = fabric_cuda_sym("cuGraphLaunch");
    *(void **)(&cu.graph_exec_destroy) = fabric_cuda_sym("cuGraphExecDestroy");
    *(void **)(&cu.graph_destroy) = fabric_cuda_sym("cuGraphDestroy");
    /* drivers before CUDA 12.8 export only the first version, of the same prototype */
    if (!(*(void **)(&cu.elapsed) = fabric_cuda_sym("cuEventElapsedTime_v2")) &&
        !(*(void **)(&cu.elapsed) = fabric_cuda_sym("cuEventElapsedTime")))
        return ry_errorf(err, "the NVIDIA driver has no cuEventElapsedTime");
    return 0;
}

#define CK(call, what)                                                                             \
    do {                                                                                           \
        CUresult rc_ = (call);                                                                     \
        if (rc_ != CUDA_SUCCESS)                                                                   \
            return fabric_cuda_error(err, what, (int)rc_);                                         \
    } while (0)

struct gpu {
    int ordinal;
    CUdevice dev;
    CUcontext ctx;
    CUstream s[2];
    CUevent ev[4];
    CUdeviceptr a, b; /* copy buffers */
    size_t span;      /* bytes of each: past the L2 four times over (gpu_buffer_span) */
    void *host;       /* pinned, on the GPU's NUMA node where known */
    CUmodule mod;
    CUfunction copy, chase, empty;
    int kernels;        /* the module: 0 not loaded yet, 1 loaded, -1 refused (said in the notes) */
    int mp, threads_mp; /* multiprocessors, threads one runs at once (0: unknown) */
    size_t l2;          /* L2 bytes (0: unknown) */
    char busid[TOPO_BUSID_LEN], name[96];
    int capture; /* its number in the capture: the CUDA ordinal */
};

struct run {
    struct gpu *g;
    int n;
    size_t bytes; /* what a timed copy moves */
    int samples;
    struct topo_bw_capture *c;
    char *notes;
    size_t notes_len;
};

#define note(r, ...) ry_appendf((r)->notes, (r)->notes_len, __VA_ARGS__)

/* The PCI address of CUDA device ordinal i, normalised ("00000000:1B:00.0" -> "0000:1b:00.0");
 * -1 when the driver gives none. */
static int ordinal_busid(int i, CUdevice *dev, char busid[TOPO_BUSID_LEN])
{
    char raw[32];

    if (cu.get(dev, i) != CUDA_SUCCESS || cu.busid(raw, sizeof(raw), *dev) != CUDA_SUCCESS)
        return -1;
    return topo_busid_normalize(raw, busid);
}

static int use(struct gpu *g, ry_error_t *err)
{
    CK(cu.ctx_set(g->ctx), "cuCtxSetCurrent");
    return 0;
}

/* Pin the calling thread to the CPUs of NUMA node numa (before host memory is first touched,
 * so that it lands there), or leave it as it is. */
static void bind_numa(int numa)
{
    char list[4096], *p = list;
    cpu_set_t set;

    if (numa < 0 || ry_sysfs_read(NULL, list, sizeof(list), NULL,
                                  "devices/system/node/node%d/cpulist", numa) < 0)
        return;
    CPU_ZERO(&set);
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &set);
        p = *end == ',' ? end + 1 : end;
    }
    if (CPU_COUNT(&set))
        sched_setaffinity(0, sizeof(set), &set);
}

/* An attribute of the device, 0 when the driver does not give it */
static int attribute(struct gpu *g, CUdevice_attribute a)
{
    int v = 0;

    return cu.attr(&v, a, g->dev) == CUDA_SUCCESS && v > 0 ? v : 0;
}

static int open_gpu(struct run *r, struct topo_node *node, struct gpu *g, ry_error_t *err)
{
    struct topo_gpu *tg;
    size_t bytes = r->bytes;
    int numa = -1;

    if (ordinal_busid(g->ordinal, &g->dev, g->busid) < 0)
        return ry_errorf(err, "GPU %d: the driver gives no PCI address", g->ordinal);
    cu.name(g->name, sizeof(g->name), g->dev);
    if ((tg = topo_node_gpu_by_busid(node, g->busid)))
        numa = tg->loc.numa;
    g->mp = attribute(g, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    g->threads_mp = attribute(g, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    g->l2 = (size_t)attribute(g, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    g->span = gpu_buffer_span(bytes, g->l2);
    CK(cu.ctx_retain(&g->ctx, g->dev), "cuDevicePrimaryCtxRetain");
    if (use(g, err) < 0)
        return -1;
    for (int i = 0; i < 2; i++)
        CK(cu.stream_create(&g->s[i], CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    for (int i = 0; i < 4; i++)
        CK(cu.event_create(&g->ev[i], CU_EVENT_DEFAULT), "cuEventCreate");
    CK(cu.alloc(&g->a, g->span), "cuMemAlloc");
    CK(cu.alloc(&g->b, g->span), "cuMemAlloc");
    CK(cu.memset8(g->a, 0x5a, g->span), "cuMemsetD8");
    bind_numa(numa);
    CK(cu.host_alloc(&g->host, bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
    memset(g->host, 0xa5, bytes); /* first touch, on the bound node */
    /* the memset runs on the default stream, which the probes' streams do not wait for */
    CK(cu.ctx_sync(), "cuCtxSynchronize");
    note(r,
         "gpu%d: %d multiprocessors x %d threads, L2 %zu KiB: SM copy grid %u x 512, "
         "buffers of %zu MiB\n",
         (int)(g - r->g), g->mp, g->threads_mp, g->l2 >> 10,
         gpu_copy_grid(g->mp, g->threads_mp, 512, bytes / 16), g->span >> 20);
    return 0;
}

/* The probe kernels on g, loaded when first needed: 1, or 0 when the driver refuses them (a
 * GPU older than the PTX's target, a driver older than its ISA), said once in the notes; the
 * copy-engine figures do not need them and go on. */
static int kernels(struct run *r, struct gpu *g)
{
    CUresult rc;
    ry_error_t e = { "" };

    if (g->kernels)
        return g->kernels > 0;
    g->kernels = -1;
    if (use(g, &e) < 0)
        goto refused;
    if ((rc = cu.module_load(&g->mod, probe_kernels_ptx)) != CUDA_SUCCESS) {
        fabric_cuda_error(&e, "cuModuleLoadData(probes/kernels.ptx)", (int)rc);
        g->mod = NULL;
        goto refused;
    }
    if ((rc = cu.function(&g->copy, g->mod, "ry_copy")) != CUDA_SUCCESS ||
        (rc = cu.function(&g->chase, g->mod, "ry_chase")) != CUDA_SUCCESS ||
        (rc = cu.function(&g->empty, g->mod, "ry_empty")) != CUDA_SUCCESS) {
        fabric_cuda_error(&e, "cuModuleGetFunction", (int)rc);
        goto refused;
    }
    g->kernels = 1;
    return 1;
refused:
    note(r,
         "gpu%d: the probe kernels could not be loaded (%s): its SM copies, latencies and "
         "launch figures are not measured\n",
         (int)(g - r->g), e.text);
    return 0;
}

static void close_gpu(struct gpu *g)
{
    if (!g->ctx)
        return;
    cu.ctx_set(g->ctx);
    cu.ctx_sync();
    if (g->host)
        cu.host_free(g->host);
    if (g->a)
        cu.free(g->a);
    if (g->b)
        cu.free(g->b);
    if (g->mod && cu.module_unload)
        cu.module_unload(g->mod);
    for (int i = 0; i < 2; i++)
        if (g->s[i])
            cu.stream_destroy(g->s[i]);
    for (int i = 0; i < 4; i++)
        if (g->ev[i])
            cu.event_destroy(g->ev[i]);
    cu.ctx_release(g->dev);
}

enum op { OP_H2D, OP_D2H, OP_D2D, OP_PEER, OP_SM_COPY };

/* Enqueue one copy on stream s of GPU g (for OP_PEER and OP_SM_COPY, from peer p's buffer). */
static int enqueue(struct run *r, struct gpu *g, CUstream s, enum op op, struct gpu *p,
                   ry_error_t *err)
{
    switch (op) {
    case OP_H2D: CK(cu.htod_async(g->a, g->host, r->bytes, s), "cuMemcpyHtoDAsync"); break;
    case OP_D2H: CK(cu.dtoh_async(g->host, g->b, r->bytes, s), "cuMemcpyDtoHAsync"); break;
    case OP_D2D: CK(cu.dtod_async(g->b, g->a, r->bytes, s), "cuMemcpyDtoDAsync"); break;
    case OP_PEER: /* a write: g's buffer into p's */
        CK(cu.peer_async(p->b, p->ctx, g->a, g->ctx, r->bytes, s), "cuMemcpyPeerAsync");
        break;
    case OP_SM_COPY: { /* g's SMs read p's buffer (p == g: a local copy) */
        CUdeviceptr src = p->a, dst = g->b;
        unsigned long long n16 = r->bytes / 16;
        void *args[] = { &src, &dst, &n16 };
        unsigned grid = gpu_copy_grid(g->mp, g->threads_mp, 512, n16);
        CK(cu.launch(g->copy, grid, 1, 1, 512, 1, 1, 0, s, args, NULL), "cuLaunchKernel(ry_copy)");
        break;
    }
    }
    return 0;
}

/* GB/s of op on GPU g (and, with both, of the reverse op on p at the same time: bw2 gets it),
 * median of r->samples timed runs after one untimed */
static int measure(struct run *r, struct gpu *g, enum op op, struct gpu *p, enum op op2,
                   struct gpu *p2, int both, double *bw, double *bw2, ry_error_t *err)
{
    double *v = xcalloc((size_t)r->samples, sizeof(*v)),
           *w = xcalloc((size_t)r->samples, sizeof(*w));
    int rc = -1;

    for (int k = -1; k < r->samples; k++) {
        float ms = 0, ms2 = 0;
        if (use(g, err) < 0 || cu.event_record(g->ev[0], g->s[0]) != CUDA_SUCCESS ||
            enqueue(r, g, g->s[0], op, p, err) < 0 ||
            cu.event_record(g->ev[1], g->s[0]) != CUDA_SUCCESS)
            goto out;
        if (both) {
            if (use(p2, err) < 0 || cu.event_record(p2->ev[2], p2->s[1]) != CUDA_SUCCESS ||
                enqueue(r, p2, p2->s[1], op2, g, err) < 0 ||
                cu.event_record(p2->ev[3], p2->s[1]) != CUDA_SUCCESS)
                goto out;
        }
        if (cu.event_sync(g->ev[1]) != CUDA_SUCCESS ||
            (both && cu.event_sync(p2->ev[3]) != CUDA_SUCCESS)) {
            ry_errorf(err, "a timed copy failed");
            goto out;
        }
        cu.elapsed(&ms, g->ev[0], g->ev[1]);
        if (both)
            cu.elapsed(&ms2, p2->ev[2], p2->ev[3]);
        if (k >= 0) {
            v[k] = ms > 0 ? r->bytes / (ms * 1e-3) / 1e9 : 0;
            w[k] = ms2 > 0 ? r->bytes / (ms2 * 1e-3) / 1e9 : 0;
        }
    }
    *bw = topo_bw_median(v, (size_t)r->samples);
    if (bw2)
        *bw2 = topo_bw_median(w, (size_t)r->samples);
    rc = 0;
out:
    if (rc < 0 && !err->text[0])
        ry_errorf(err, "a timed copy on GPU %d could not be started", g->ordinal);
    free(v);
    free(w);
    return rc;
}

static void put(struct run *r, enum topo_bw_kind k, int a, int b, double value, int sm,
                const char *group)
{
    struct topo_bw x = { .kind = k, .a = a, .b = b, .value = value, .sm = sm };

    x.group = topo_bw_capture_group(r->c, group);
    topo_bw_capture_add(r->c, &x);
}

static int probe_pcie(struct run *r, ry_error_t *err)
{
    double a, b;

    for (int i = 0; i < r->n; i++) {
        struct gpu *g = &r->g[i];
        if (measure(r, g, OP_H2D, g, OP_H2D, g, 0, &a, NULL, err) < 0)
            return -1;
        put(r, TOPO_BW_H2D, i, -1, a, 0, "host_to_device_ce");
        if (measure(r, g, OP_D2H, g, OP_D2H, g, 0, &a, NULL, err) < 0)
            return -1;
        put(r, TOPO_BW_D2H, i, -1, a, 0, "device_to_host_ce");
        /* both ways at once: H2D on one stream, D2H on the other */
        if (measure(r, g, OP_H2D, g, OP_D2H, g, 1, &a, &b, err) < 0)
            return -1;
        put(r, TOPO_BW_HOST_BIDIR, i, -1, a, 0, "host_to_device_bidirectional_ce");
        put(r, TOPO_BW_HOST_BIDIR, i, -1, b, 0, "device_to_host_bidirectional_ce");
    }
    /* every GPU at once: one H2D per GPU, started together, each timed by its own events */
    double *all = xcalloc((size_t)r->n * (size_t)r->samples, sizeof(*all));
    for (int k = -1; k < r->samples && r->n > 1; k++) {
        for (int i = 0; i < r->n; i++) {
            struct gpu *g = &r->g[i];
            if (use(g, err) < 0 || cu.event_record(g->ev[0], g->s[0]) != CUDA_SUCCESS ||
                enqueue(r, g, g->s[0], OP_H2D, g, err) < 0 ||
                cu.event_record(g->ev[1], g->s[0]) != CUDA_SUCCESS) {
                free(all);
                return err->text[0] ? -1 : ry_errorf(err, "cuEventRecord failed");
            }
        }
        for (int i = 0; i < r->n; i++) {
            float ms = 0;
            if (cu.event_sync(r->g[i].ev[1]) != CUDA_SUCCESS) {
                free(all);
                return ry_errorf(err, "an H2D copy of every GPU at once failed");
            }
            cu.elapsed(&ms, r->g[i].ev[0], r->g[i].ev[1]);
            if (k >= 0)
                all[i * r->samples + k] = ms > 0 ? r->bytes / (ms * 1e-3) / 1e9 : 0;
        }
    }
    for (int i = 0; i < r->n && r->n > 1; i++)
        put(r, TOPO_BW_HOST_ALL, i, -1, topo_bw_median(&all[i * r->samples], (size_t)r->samples), 0,
            "host_to_all_ce");
    free(all);
    return 0;
}

static int probe_p2p(struct run *r, ry_error_t *err)
{
    double ab, ba;

    for (int i = 0; i < r->n; i++)
        for (int j = 0; j < r->n; j++) {
            int can = 0;
            if (i == j)
                continue;
            CK(cu.can_peer(&can, r->g[i].dev, r->g[j].dev), "cuDeviceCanAccessPeer");
            r->c->peer[i * r->c->ngpus + j] = can != 0;
            if (can) {
                CUresult rc;
                if (use(&r->g[i], err) < 0)
                    return -1;
                rc = cu.enable_peer(r->g[j].ctx, 0);
                if (rc != CUDA_SUCCESS && rc != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
                    return fabric_cuda_error(err, "cuCtxEnablePeerAccess", (int)rc);
            }
        }
    for (int i = 0; i < r->n; i++)
        for (int j = 0; j < r->n; j++) {
            int peer;
            if (i == j)
                continue;
            peer = r->c->peer[i * r->c->ngpus + j] && r->c->peer[j * r->c->ngpus + i];
            /* without peer access the driver stages the copy through host memory */
            if (measure(r, &r->g[i], OP_PEER, &r->g[j], OP_PEER, &r->g[j], 0, &ab, NULL, err) < 0)
                return -1;
            put(r, peer ? TOPO_BW_P2P : TOPO_BW_P2P_HOST, i, j, ab, 0,
                peer ? "device_to_device_write_ce" : "device_to_device_through_host_ce");
            if (j > i) {
                if (measure(r, &r->g[i], OP_PEER, &r->g[j], OP_PEER, &r->g[j], 1, &ab, &ba, err) <
                    0)
                    return -1;
                put(r, peer ? TOPO_BW_P2P_BIDIR : TOPO_BW_P2P_HOST_BIDIR, i, j, ab + ba, 0,
                    "device_to_device_bidirectional_ce");
            }
            if (peer && kernels(r, &r->g[i])) { /* i's SMs read j's memory */
                if (measure(r, &r->g[i], OP_SM_COPY, &r->g[j], OP_SM_COPY, &r->g[j], 0, &ab, NULL,
                            err) < 0)
                    return -1;
                put(r, TOPO_BW_P2P, j, i, ab, 1, "device_to_device_read_sm");
            }
        }
    return 0;
}

/* A chain laid out by plan (gpu_chain_build), in g's buffer b. The upload goes on the stream
 * the chase kernels run on and is waited for: a plain cuMemcpyHtoD from pageable memory may
 * return before the data reaches the GPU, and a kernel on a non-blocking stream would not wait
 * for it, following leftover bytes as indexes. Returns the chain's host copy (the caller frees
 * it) for the walks that predict where each chase ends, or NULL with err. */
static uint64_t *upload_chain(struct gpu *g, const struct gpu_chase_plan *plan, ry_error_t *err)
{
    uint64_t *chain = xcalloc(plan->span / 8, sizeof(*chain));
    CUresult rc = CUDA_SUCCESS;

    if (!gpu_chain_build(chain, plan->span, plan->stride, 0x9e3779b97f4a7c15ull)) {
        free(chain);
        ry_errorf(err, "no pointer chain of %zu-byte nodes in %zu bytes", plan->stride, plan->span);
        return NULL;
    }
    if (use(g, err) < 0 || (rc = cu.htod_async(g->b, chain, plan->span, g->s[0])) != CUDA_SUCCESS ||
        (rc = cu.ctx_sync()) != CUDA_SUCCESS) {
        if (!err->text[0])
            fabric_cuda_error(err, "writing the pointer chain", (int)rc);
        free(chain);
        return NULL;
    }
    return chain;
}

/* One chase on g through the chain at base, from word start for steps loads; it must end at
 * word end (the host's walk of the same chain), else the GPU followed other bytes: an error
 * naming the chase (what), not a figure. res[1] gets the nanoseconds it took. */
static int chase_once(struct gpu *g, CUdeviceptr base, unsigned long long start,
                      unsigned long long steps, uint64_t end, const char *what,
                      unsigned long long res[2], ry_error_t *err)
{
    CUdeviceptr out = g->a;
    void *args[] = { &base, &start, &steps, &out };

    CK(cu.launch(g->chase, 1, 1, 1, 1, 1, 1, 0, g->s[0], args, NULL), "cuLaunchKernel(ry_chase)");
    CK(cu.ctx_sync(), "cuCtxSynchronize");
    CK(cu.dtoh(res, out, 2 * sizeof(*res)), "cuMemcpyDtoH");
    if (res[0] != end)
        return ry_errorf(err,
                         "GPU %d: the %s chase ended at word %llu, not %llu: the chain on the "
                         "GPU is not the one written",
                         g->ordinal, what, res[0], (unsigned long long)end);
    return 0;
}

/* Microseconds per load of a chase on GPU g through p's chain (uploaded by upload_chain, its
 * host copy chain): p's L2 flushed where the plan says, the warm-up from word 0, then the
 * timed chase from where the warm-up ended. Each chase must end where the host's walk of the
 * same chain does: a GPU that followed other bytes is an error, not a figure. */
static int chase(struct gpu *g, struct gpu *p, const struct gpu_chase_plan *plan,
                 const uint64_t *chain, double *us, ry_error_t *err)
{
    size_t words = plan->span / 8;
    uint64_t start = gpu_chain_walk(chain, words, 0, plan->warm_steps),
             end = gpu_chain_walk(chain, words, start, plan->timed_steps);
    unsigned long long res[2] = { 0, 0 };

    if (start == UINT64_MAX || end == UINT64_MAX)
        return ry_errorf(err, "the pointer chain leaves its buffer (a fault of railyard)");
    if (plan->flush_bytes) { /* the upload left the chain's end in L2: stream other data through */
        if (use(p, err) < 0)
            return -1;
        CK(cu.memset8(p->a, 0, plan->flush_bytes < p->span ? plan->flush_bytes : p->span),
           "cuMemsetD8 (flushing L2)");
        CK(cu.ctx_sync(), "cuCtxSynchronize");
    }
    if (use(g, err) < 0 ||
        chase_once(g, p->b, 0, plan->warm_steps, start, "warm-up", res, err) < 0 ||
        chase_once(g, p->b, start, plan->timed_steps, end, "timed", res, err) < 0)
        return -1;
    *us = res[1] / 1e3 / (double)plan->timed_steps;
    return 0;
}

/* Microseconds from the launch of the empty kernel (exec NULL) or of graph exec to the end of
 * the wait for it, by the host's clock (events would time only the GPU's side): the median of
 * 200 after one untimed (which uploads a graph). */
static int launch_latency(struct gpu *g, CUgraphExec exec, double *us, ry_error_t *err)
{
    double v[200];

    for (int k = -1; k < 200; k++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (exec)
            CK(cu.graph_launch(exec, g->s[0]), "cuGraphLaunch");
        else
            CK(cu.launch(g->empty, 1, 1, 1, 1, 1, 1, 0, g->s[0], NULL, NULL),
               "cuLaunchKernel(ry_empty)");
        CK(cu.event_record(g->ev[1], g->s[0]), "cuEventRecord");
        CK(cu.event_sync(g->ev[1]), "cuEventSynchronize");
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (k >= 0)
            v[k] = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3;
    }
    *us = topo_bw_median(v, 200);
    return 0;
}

/* A CUDA graph of one empty kernel, captured from a stream, instantiated once and then
 * launched as a plain launch is timed. *us is 0 when the driver has no graphs (said in the
 * notes). */
static int graph_latency(struct run *r, struct gpu *g, double *us, ry_error_t *err)
{
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    int rc = -1;

    *us = 0;
    if (!cu.capture_begin || !cu.capture_end || !cu.graph_instantiate || !cu.graph_launch ||
        !cu.graph_exec_destroy || !cu.graph_destroy) {
        if (g->ordinal == 0)
            note(r, "graph launch: the NVIDIA driver has no CUDA graph calls (before CUDA "
                    "11.4); not measured\n");
        return 0;
    }
    if (use(g, err) < 0)
        return -1;
    CK(cu.capture_begin(g->s[0], CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    if (cu.launch(g->empty, 1, 1, 1, 1, 1, 1, 0, g->s[0], NULL, NULL) != CUDA_SUCCESS) {
        cu.capture_end(g->s[0], &graph);
        ry_errorf(err, "cuLaunchKernel(ry_empty) in a stream capture failed");
        goto out;
    }
    CK(cu.capture_end(g->s[0], &graph), "cuStreamEndCapture");
    if (cu.graph_instantiate(&exec, graph, 0) != CUDA_SUCCESS) {
        ry_errorf(err, "cuGraphInstantiateWithFlags failed");
        goto out;
    }
    rc = launch_latency(g, exec, us, err);
out:
    if (exec)
        cu.graph_exec_destroy(exec);
    if (graph)
        cu.graph_destroy(graph);
    return rc;
}

static int probe_mem(struct run *r, int p2p, ry_error_t *err)
{
    double bw, us;

    for (int i = 0; i < r->n; i++) {
        struct gpu *g = &r->g[i];
        struct gpu_chase_plan l2, mem;
        uint64_t *chain;
        if (measure(r, g, OP_D2D, g, OP_D2D, g, 0, &bw, NULL, err) < 0)
            return -1;
        put(r, TOPO_BW_LOCAL, i, -1, bw, 0, "device_local_copy_ce");
        if (!kernels(r, g))
            continue;
        if (measure(r, g, OP_SM_COPY, g, OP_SM_COPY, g, 0, &bw, NULL, err) < 0)
            return -1;
        put(r, TOPO_BW_LOCAL, i, -1, bw, 1, "device_local_copy_sm");
        /* L2: a chain that fits it (1 MiB of 64-byte nodes); memory: 4 KiB nodes over the
         * buffer, past the L2 four times, the timed loads on nodes the warm-up never touched */
        if (gpu_chase_plan_l2(&l2, g->l2, 20000) < 0 ||
            gpu_chase_plan_memory(&mem, g->span, g->l2, 20000) < 0)
            return ry_errorf(err, "GPU %d: no pointer chase fits its L2 or buffer", i);
        if (!(chain = upload_chain(g, &l2, err)))
            return -1;
        if (chase(g, g, &l2, chain, &us, err) < 0)
            goto chase_failed;
        put(r, TOPO_BW_L2_LATENCY, i, -1, us, 1, "l2_latency_sm");
        if (p2p)
            for (int j = 0; j < r->n; j++)
                if (j != i && r->c->peer[j * r->c->ngpus + i] > 0 && kernels(r, &r->g[j])) {
                    if (chase(&r->g[j], g, &l2, chain, &us, err) < 0)
                        goto chase_failed;
                    put(r, TOPO_BW_P2P_LATENCY, j, i, us, 1, "device_to_device_latency_sm");
                }
        free(chain);
        if (!(chain = upload_chain(g, &mem, err)))
            return -1;
        if (chase(g, g, &mem, chain, &us, err) < 0)
            goto chase_failed;
        free(chain);
        put(r, TOPO_BW_MEM_LATENCY, i, -1, us, 1, "memory_latency_sm");
        if (launch_latency(g, NULL, &us, err) < 0)
            return -1;
        put(r, TOPO_BW_LAUNCH_LATENCY, i, -1, us, 1, "kernel_launch_latency");
        if (graph_latency(r, g, &us, err) < 0)
            return -1;
        if (us > 0)
            put(r, TOPO_BW_LAUNCH_LATENCY, i, -1, us, 1, "graph_launch_latency");
        continue;
    chase_failed:
        free(chain);
        return -1;
    }
    return 0;
}

/* Only the GPUs at PCI addresses pair[0] and pair[1]: r->g[0] and r->g[1] get their ordinals. */
static int pick_pair(struct run *r, int n, const char *const pair[2], ry_error_t *err)
{
    char busid[TOPO_BUSID_LEN], want[2][TOPO_BUSID_LEN];
    int found[2] = { -1, -1 };

    for (int k = 0; k < 2; k++)
        if (topo_busid_normalize(pair[k], want[k]) < 0)
            return ry_errorf(err, "'%s' is not a PCI address", pair[k]);
    if (!strcmp(want[0], want[1]))
        return ry_errorf(err, "a pair is two GPUs, not %s twice", want[0]);
    for (int i = 0; i < n; i++) {
        CUdevice dev;
        if (ordinal_busid(i, &dev, busid) < 0)
            continue;
        for (int k = 0; k < 2; k++)
            if (!strcmp(busid, want[k]))
                found[k] = i;
    }
    for (int k = 0; k < 2; k++)
        if (found[k] < 0)
            return ry_errorf(err, "no GPU at %s among the driver's %d", want[k], n);
    r->g[0].ordinal = found[0];
    r->g[1].ordinal = found[1];
    return 0;
}

/* Other work on the GPUs (NVML) before anything is measured: a figure taken beside another job
 * says nothing of the links, so a busy GPU stops the probes (-1 with the reason) unless busy_ok,
 * which measures and says so. Without NVML nothing is known: said in the notes. */
static int busy_check(int n, int busy_ok, char *notes, size_t notes_len, ry_error_t *err)
{
    struct run r = { .notes = notes, .notes_len = notes_len };
    struct topo_gpu_busy *b = NULL;
    ry_error_t e = { "" };
    char why[160], busid[TOPO_BUSID_LEN];
    int nb, busy = 0;

    if ((nb = topo_nvml_busy(&b, &e)) < 0) {
        note(&r, "busy check: not done (%s): other work on the GPUs would go unseen\n", e.text);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        CUdevice dev;
        if (ordinal_busid(i, &dev, busid) < 0)
            continue;
        for (int k = 0; k < nb; k++) {
            if (strcmp(b[k].busid, busid) || !topo_gpu_busy_why(&b[k], why, sizeof(why)))
                continue;
            if (!busy_ok) {
                ry_errorf(err,
                          "GPU %d (%s) is busy: %s; not measured (a figure taken beside other "
                          "work judges nothing; run again when it is free, or give --busy-ok)",
                          i, busid, why);
                free(b);
                return -1;
            }
            note(&r, "gpu%d (%s) measured while busy (%s): its figures are low for that\n", i,
                 busid, why);
            busy++;
        }
    }
    free(b);
    return busy;
}

int gpu_probe_run(struct topo_node *node, const struct gpu_probe_opts *o, char *notes,
                  size_t notes_len, ry_error_t *err)
{
    struct run r = { 0 };
    cpu_set_t cpus;
    unsigned only = o->only ? o->only : GPU_PROBE_ALL;
    int n = 0, rc = -1;

    if (notes && notes_len)
        notes[0] = '\0';
    r.notes = notes;
    r.notes_len = notes_len;
    r.bytes = o->copy_bytes ? o->copy_bytes : (size_t)256 << 20;
    r.samples = o->samples > 0 ? o->samples : 10;
    sched_getaffinity(0, sizeof(cpus), &cpus); /* given back at the end */
    if (fabric_cuda_load(err) < 0 || resolve(err) < 0)
        return -1;
    if (cu.count(&n) != CUDA_SUCCESS || n <= 0)
        return ry_errorf(err, "the NVIDIA driver sees no GPU");
    if (busy_check(n, o->busy_ok, notes, notes_len, err) < 0)
        return -1;
    r.g = xcalloc((size_t)n, sizeof(*r.g));
    for (int i = 0; i < n; i++)
        r.g[i].ordinal = i;
    if (o->pair[0] && o->pair[1] && pick_pair(&r, n, o->pair, err) < 0) {
        free(r.g);
        return -1;
    }
    if (o->pair[0] && o->pair[1])
        n = 2; /* the two GPUs asked for, as capture GPUs 0 and 1 */
    r.n = n;
    r.c = topo_bw_capture_new("(this node)", "railyard probe");
    for (int i = 0; i < n; i++) {
        if (open_gpu(&r, node, &r.g[i], err) < 0)
            goto out;
        topo_bw_capture_gpu(r.c, i);
        r.c->model[i] = xstrdup(r.g[i].name);
        r.c->busid[i] = xstrdup(r.g[i].busid);
    }
    if ((only & GPU_PROBE_PCIE) && probe_pcie(&r, err) < 0)
        goto out;
    if ((only & GPU_PROBE_P2P) && n > 1 && probe_p2p(&r, err) < 0)
        goto out;
    if ((only & GPU_PROBE_P2P) && n < 2)
        note(&r, "p2p: one GPU, no pair to measure\n");
    if ((only & GPU_PROBE_MEM) && probe_mem(&r, (only & GPU_PROBE_P2P) && n > 1, err) < 0)
        goto out;
    /* match the node's GPUs by address; a GPU the node model lacks is judged on its own */
    for (int i = 0; i < n; i++) {
        struct topo_gpu *tg = topo_node_gpu_by_busid(node, r.g[i].busid);
        r.c->node_gpu[i] = tg ? (int)(tg - node->gpus) : -1;
        if (!tg && node->ngpus)
            note(&r, "gpu%d (%s): not in the node's topology, judged on its own\n", i,
                 r.g[i].busid);
    }
    node->bw = xrealloc(node->bw, (node->nbw + 1) * sizeof(*node->bw));
    node->bw[node->nbw++] = r.c;
    r.c = NULL;
    rc = n;
out:
    for (int i = 0; i < n; i++)
        close_gpu(&r.g[i]);
    free(r.g);
    topo_bw_capture_free(r.c);
    sched_setaffinity(0, sizeof(cpus), &cpus);
    return rc;
}

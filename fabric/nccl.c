#include "config.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>

#include "common/xmalloc.h"
#include "fabric/cuda.h"
#include "fabric/nccl.h"
#include "fabric/transport.h"

/* NCCL by dlopen. Its ABI, as nccl.h (2.x) declares it: results are an int enum (0 success, 7 in
 * progress), a communicator is a pointer, a unique id is 128 bytes passed by value, ncclFloat32
 * is 7, ncclSum is 0, a stream is the driver's CUstream. The entry points come from whatever
 * libnccl.so.2 the node has. */

typedef int nccl_result;
typedef void *nccl_comm;
typedef struct {
    char internal[FABRIC_NCCL_ID_BYTES];
} nccl_id;
#define NCCL_FLOAT32 7
#define NCCL_SUM     0

static struct {
    int tried, ok;
    char why[sizeof(((ry_error_t *)0)->text)];
    void *dl;
    nccl_result (*version)(int *);
    nccl_result (*unique_id)(nccl_id *);
    nccl_result (*init_rank)(nccl_comm *, int, nccl_id, int);
    nccl_result (*destroy)(nccl_comm);
    nccl_result (*abort)(nccl_comm);
    const char *(*error_string)(nccl_result);
    nccl_result (*allreduce)(const void *, void *, size_t, int, int, nccl_comm, CUstream);
    nccl_result (*allgather)(const void *, void *, size_t, int, nccl_comm, CUstream);
    nccl_result (*reducescatter)(const void *, void *, size_t, int, int, nccl_comm, CUstream);
    nccl_result (*alltoall)(const void *, void *, size_t, int, nccl_comm, CUstream);
    /* the driver's, through fabric_cuda_sym */
    CUresult (*stream_create)(CUstream *, unsigned);
    CUresult (*stream_destroy)(CUstream);
    CUresult (*stream_query)(CUstream);
} api;

struct fabric_nccl {
    nccl_comm comm;
    CUstream stream;
    struct fabric_cuda_buf send, recv;
    int nranks, broken;
};

static int nerr(ry_error_t *err, const char *call, nccl_result rc)
{
    const char *s = api.error_string ? api.error_string(rc) : NULL;
    return ry_errorf(err, "%s: %s (%d)", call, s ? s : "NCCL error", rc);
}

int fabric_nccl_load(int ordinal, int *version, ry_error_t *err)
{
    struct fabric_cuda_dev d;

    if (!api.tried) {
        api.tried = 1;
        if (fabric_cuda_load(err) < 0) {
            snprintf(api.why, sizeof(api.why), "%s", err->text);
            return -1;
        }
        if (!(api.dl = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL))) {
            const char *why = dlerror();
            snprintf(api.why, sizeof(api.why), "no NCCL on this node (%s)",
                     why ? why : "libnccl.so.2 not found");
            return ry_errorf(err, "%s", api.why);
        }
#define SYM(field, name) (*(void **)(&api.field) = dlsym(api.dl, name))
        SYM(version, "ncclGetVersion");
        SYM(unique_id, "ncclGetUniqueId");
        SYM(init_rank, "ncclCommInitRank");
        SYM(destroy, "ncclCommDestroy");
        SYM(abort, "ncclCommAbort");
        SYM(error_string, "ncclGetErrorString");
        SYM(allreduce, "ncclAllReduce");
        SYM(allgather, "ncclAllGather");
        SYM(reducescatter, "ncclReduceScatter");
        SYM(alltoall, "ncclAlltoAll"); /* from 2.28; NULL before */
#undef SYM
        *(void **)&api.stream_create = fabric_cuda_sym("cuStreamCreate");
        *(void **)&api.stream_destroy = fabric_cuda_sym("cuStreamDestroy_v2");
        *(void **)&api.stream_query = fabric_cuda_sym("cuStreamQuery");
        if (!api.version || !api.unique_id || !api.init_rank || !api.destroy || !api.abort ||
            !api.allreduce || !api.allgather || !api.reducescatter || !api.stream_create ||
            !api.stream_destroy || !api.stream_query) {
            snprintf(api.why, sizeof(api.why),
                     "libnccl.so.2 or libcuda.so.1 lacks an entry point railyard needs");
            return ry_errorf(err, "%s", api.why);
        }
        api.ok = 1;
    }
    if (!api.ok)
        return ry_errorf(err, "%s", api.why);
    if (fabric_cuda_device_by_ordinal(ordinal, &d, err) < 0)
        return -1;
    *version = 0;
    api.version(version);
    return 0;
}

int fabric_nccl_unique_id(unsigned char id[FABRIC_NCCL_ID_BYTES], ry_error_t *err)
{
    nccl_id u;
    nccl_result rc;

    if (!api.ok)
        return ry_errorf(err, "%s", api.why[0] ? api.why : "NCCL is not loaded");
    if ((rc = api.unique_id(&u)) != 0)
        return nerr(err, "ncclGetUniqueId", rc);
    memcpy(id, u.internal, FABRIC_NCCL_ID_BYTES);
    return 0;
}

struct fabric_nccl *fabric_nccl_open(const unsigned char id[FABRIC_NCCL_ID_BYTES], int nranks,
                                     int rank, int ordinal, size_t size, ry_error_t *err)
{
    struct fabric_nccl *h;
    nccl_id u;
    nccl_result rc;
    CUresult cr;

    if (!api.ok) {
        ry_errorf(err, "%s", api.why[0] ? api.why : "NCCL is not loaded");
        return NULL;
    }
    h = xcalloc(1, sizeof(*h));
    h->nranks = nranks;
    /* the buffers first: they make the device's context current for what follows */
    if (fabric_cuda_alloc(ordinal, size, &h->send, err) < 0 ||
        fabric_cuda_alloc(ordinal, size, &h->recv, err) < 0 ||
        fabric_cuda_memset(&h->send, 0, err) < 0) {
        fabric_nccl_close(h);
        return NULL;
    }
    if ((cr = api.stream_create(&h->stream, 0)) != CUDA_SUCCESS) {
        h->stream = NULL;
        fabric_cuda_error(err, "cuStreamCreate", (int)cr);
        fabric_nccl_close(h);
        return NULL;
    }
    memcpy(u.internal, id, FABRIC_NCCL_ID_BYTES);
    if ((rc = api.init_rank(&h->comm, nranks, u, rank)) != 0) {
        h->comm = NULL;
        nerr(err, "ncclCommInitRank", rc);
        fabric_nccl_close(h);
        return NULL;
    }
    return h;
}

static nccl_result launch(struct fabric_nccl *h, enum fabric_coll k, size_t size)
{
    size_t count = fabric_coll_count(k, size, h->nranks);
    const void *s = (const void *)(uintptr_t)h->send.dptr;
    void *r = (void *)(uintptr_t)h->recv.dptr;

    switch (k) {
    case FABRIC_COLL_ALLREDUCE:
        return api.allreduce(s, r, count, NCCL_FLOAT32, NCCL_SUM, h->comm, h->stream);
    case FABRIC_COLL_ALLGATHER: return api.allgather(s, r, count, NCCL_FLOAT32, h->comm, h->stream);
    case FABRIC_COLL_REDUCESCATTER:
        return api.reducescatter(s, r, count, NCCL_FLOAT32, NCCL_SUM, h->comm, h->stream);
    case FABRIC_COLL_ALLTOALL:
        return api.alltoall ? api.alltoall(s, r, count, NCCL_FLOAT32, h->comm, h->stream) : -1;
    default: return -1;
    }
}

int fabric_nccl_time(struct fabric_nccl *h, enum fabric_coll k, size_t size, int iters,
                     double deadline, double *seconds, ry_error_t *err)
{
    struct timespec nap = { 0, 20000 };
    double t0;
    CUresult cr;

    *seconds = -1;
    if (h->broken)
        return ry_errorf(err, "the NCCL communicator was aborted");
    if (k == FABRIC_COLL_ALLTOALL && !api.alltoall)
        return ry_errorf(err, "this libnccl.so.2 has no ncclAlltoAll (NCCL 2.28 or later)");
    if (fabric_coll_count(k, size, h->nranks) == 0)
        return ry_errorf(err, "%zu bytes is too small for %d ranks", size, h->nranks);
    t0 = fabric_now();
    for (int i = 0; i < iters; i++) {
        nccl_result rc = launch(h, k, size);
        if (rc != 0)
            return nerr(err, fabric_coll_name(k), rc);
    }
    while ((cr = api.stream_query(h->stream)) == CUDA_ERROR_NOT_READY) {
        if (fabric_now() > deadline) {
            api.abort(h->comm);
            h->comm = NULL;
            h->broken = 1;
            return ry_errorf(err, "NCCL %s did not finish by the deadline", fabric_coll_name(k));
        }
        nanosleep(&nap, NULL);
    }
    if (cr != CUDA_SUCCESS)
        return fabric_cuda_error(err, "cuStreamQuery", (int)cr);
    *seconds = (fabric_now() - t0) / iters;
    return 0;
}

void fabric_nccl_close(struct fabric_nccl *h)
{
    if (!h)
        return;
    if (h->comm)
        api.destroy(h->comm);
    if (h->stream)
        api.stream_destroy(h->stream);
    fabric_cuda_free(&h->recv);
    fabric_cuda_free(&h->send);
    free(h);
}

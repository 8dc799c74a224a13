#include "config.h"

#include "fabric/nccl.h"

/* railyard built without CUDA: no NCCL path; the collective phase uses MPI on host memory */

int fabric_nccl_load(int ordinal, int *version, ry_error_t *err)
{
    (void)ordinal;
    *version = 0;
    return ry_errorf(err, "railyard was built without CUDA: no NCCL");
}

int fabric_nccl_unique_id(unsigned char id[FABRIC_NCCL_ID_BYTES], ry_error_t *err)
{
    (void)id;
    return ry_errorf(err, "railyard was built without CUDA: no NCCL");
}

struct fabric_nccl *fabric_nccl_open(const unsigned char id[FABRIC_NCCL_ID_BYTES], int nranks,
                                     int rank, int ordinal, size_t size, ry_error_t *err)
{
    (void)id, (void)nranks, (void)rank, (void)ordinal, (void)size;
    ry_errorf(err, "railyard was built without CUDA: no NCCL");
    return NULL;
}

int fabric_nccl_time(struct fabric_nccl *h, enum fabric_coll k, size_t size, int iters,
                     double deadline, double *seconds, ry_error_t *err)
{
    (void)h, (void)k, (void)size, (void)iters, (void)deadline;
    *seconds = -1;
    return ry_errorf(err, "railyard was built without CUDA: no NCCL");
}

void fabric_nccl_close(struct fabric_nccl *h)
{
    (void)h;
}

#ifndef RAILYARD_FABRIC_NCCL_H
#define RAILYARD_FABRIC_NCCL_H

#include <stddef.h>

#include "common/error.h"
#include "fabric/collective.h"

/* NCCL collectives on GPU memory for railyard-fabric's collective phase, through libnccl.so.2
 * loaded at run time (as libcuda.so.1 is, fabric/cuda.h): a binary that uses it starts on nodes
 * without NCCL or a GPU, and says why it cannot use it there. The communicator's unique id
 * travels by MPI (the caller's business). */

#define FABRIC_NCCL_ID_BYTES 128 /* NCCL_UNIQUE_ID_BYTES */

/* Load libnccl.so.2 and the CUDA driver, and check that GPU ordinal exists: 0 with *version
 * (22809 for 2.28.9), or -1 with the reason. */
int fabric_nccl_load(int ordinal, int *version, ry_error_t *err);

/* A new unique id (on the communicator's first rank), to be given to every rank. */
int fabric_nccl_unique_id(unsigned char id[FABRIC_NCCL_ID_BYTES], ry_error_t *err);

/* One rank's communicator of nranks on GPU ordinal, with buffers for collectives of up to size
 * bytes: NULL with the reason when it cannot be made. */
struct fabric_nccl;
struct fabric_nccl *fabric_nccl_open(const unsigned char id[FABRIC_NCCL_ID_BYTES], int nranks,
                                     int rank, int ordinal, size_t size, ry_error_t *err);

/* iters collectives of size bytes, back to back, waited for: *seconds per iteration. The wait
 * for the GPU stops at deadline (fabric_now() seconds) with an error; the communicator is then
 * aborted, and only fabric_nccl_close may follow. */
int fabric_nccl_time(struct fabric_nccl *h, enum fabric_coll k, size_t size, int iters,
                     double deadline, double *seconds, ry_error_t *err);

void fabric_nccl_close(struct fabric_nccl *h);

#endif

#ifndef RAILYARD_FABRIC_MPI_H
#define RAILYARD_FABRIC_MPI_H

#include "fabric/collective.h"
#include "fabric/transport.h"

/* MPI point-to-point messages between the link's two ranks (fabric/mpi.c): built into
 * railyard-fabric only, the one program that runs inside an MPI job. setup needs
 * fabric_setup.mpi_comm. */
extern const struct fabric_transport fabric_transport_mpi;

/* The collective phase on host memory: one rank's buffers for collectives of up to size bytes
 * on the communicator comm (an MPI_Comm *): NULL when size is out of reach. */
struct fabric_mpi_coll;
struct fabric_mpi_coll *fabric_mpi_coll_open(void *comm, size_t size);

/* iters non-blocking collectives of size bytes one after another, each waited for until
 * deadline (fabric_now() seconds): *seconds per iteration, or -1 with the reason. After a
 * collective that missed its deadline the handle is broken (its requests stay posted): every
 * later call fails, and the communicator must not be freed. */
int fabric_mpi_coll_time(struct fabric_mpi_coll *h, enum fabric_coll k, size_t size, int iters,
                         double deadline, double *seconds, ry_error_t *err);
int fabric_mpi_coll_broken(const struct fabric_mpi_coll *h);
void fabric_mpi_coll_close(struct fabric_mpi_coll *h);

/* The lowest of every rank's *value, into *value, by deadline: 0 or -1. */
int fabric_mpi_min(void *comm, int *value, double deadline, ry_error_t *err);

/* len bytes at buf from the communicator's rank root to all its ranks, by deadline: 0 or -1. */
int fabric_mpi_bcast(void *comm, void *buf, int len, int root, double deadline, ry_error_t *err);

#endif

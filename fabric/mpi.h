#ifndef RAILYARD_FABRIC_MPI_H
#define RAILYARD_FABRIC_MPI_H

#include "fabric/transport.h"

/* MPI point-to-point messages between the link's two ranks (fabric/mpi.c): built into
 * railyard-fabric only, the one program that runs inside an MPI job. setup needs
 * fabric_setup.mpi_comm. */
extern const struct fabric_transport fabric_transport_mpi;

#endif

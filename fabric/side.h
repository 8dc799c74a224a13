#ifndef RAILYARD_FABRIC_SIDE_H
#define RAILYARD_FABRIC_SIDE_H

#include <stddef.h>

/* The side channel of an MPI job: its launcher's PMIx server (mpirun's daemons, Slurm's
 * slurmstepd), which carries a rank's facts over the job's management network when the rank's
 * own MPI traffic cannot reach anyone (a port down or cabled to another rail's switch, with MPI
 * pinned to that rail). Built with PMIx (fabric/side.c) or without (fabric/side_none.c: never
 * open). No state outside the structure. */
struct fabric_side {
    int open;
    char nspace[256]; /* the job's PMIx namespace */
    unsigned rank;    /* this process's rank in it */
};

/* connect to the launcher's PMIx server: 0, or -1 with a reason in why (no server: not
 * launched by one, or built without PMIx) */
int fabric_side_open(struct fabric_side *s, char *why, size_t whylen);
void fabric_side_close(struct fabric_side *s);

/* this process's rank among the job's ranks on its host, and their number: 0 or -1 */
int fabric_side_local(struct fabric_side *s, int *local_rank, int *local_size);

/* publish len bytes under key for every rank of the job to read: 0 or -1 */
int fabric_side_put(struct fabric_side *s, const char *key, const void *data, size_t len);

/* read what rank published under key, len bytes exactly, asking again until it is there or the
 * deadline (fabric_now() seconds) has passed: 0, or -1 (not published in time, or another
 * size) */
int fabric_side_get(struct fabric_side *s, int rank, const char *key, void *data, size_t len,
                    double deadline);

#endif

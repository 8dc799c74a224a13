#ifndef RAILYARD_FABRIC_SCHEDULE_H
#define RAILYARD_FABRIC_SCHEDULE_H

#include <stddef.h>

#include "common/error.h"

/* Test schedules: which nodes test each other in which round. Pure functions of their
 * arguments. A pair names two nodes; every rail of both nodes runs in the same round (rank
 * (a, r) with rank (b, r)), so a round never uses a node twice. The first node of a pair sends. */

struct fabric_pair {
    int a, b;
};

struct fabric_round {
    struct fabric_pair *pairs;
    size_t n;
};

struct fabric_schedule {
    struct fabric_round *rounds;
    size_t n;
};

/* Every pair exactly once in n-1 rounds (n even) or n rounds (n odd): the circle method of a
 * round-robin tournament. */
int fabric_schedule_all_pairs(int nodes, struct fabric_schedule *s, ry_error_t *err);

/* Each node i with node i+shift (mod n): the ring's edges split into 2 rounds (3 when the
 * cycles are odd) so that no node is used twice in a round. */
int fabric_schedule_ring(int nodes, int shift, struct fabric_schedule *s, ry_error_t *err);

/* Neighbours: round 1 pairs (0,1) (2,3)...; round 2 pairs (1,2) (3,4)... and (n-1,0), so every
 * node meets two partners and a bad port is the one low in both of its pairs. Two nodes: one
 * round. */
int fabric_schedule_neighbor(int nodes, struct fabric_schedule *s, ry_error_t *err);

/* Retest suspects: each suspect against a different known-good node, as few rounds as the good
 * nodes allow. good[i] > 0 marks node i as good; the nodes with the highest good[i] are paired
 * first (fabric_suspects: 2 every link fine, 1 its bad links all of a culprit partner). */
int fabric_schedule_bisect(int nodes, const int *suspects, size_t nsuspects, const int *good,
                           struct fabric_schedule *s, ry_error_t *err);

/* Pairs from a file: lines "<node> <node>" (names or indexes, '#' comments), packed greedily
 * into rounds in file order. names[i] is node i's name. Errors name file:line. */
int fabric_schedule_custom(const char *path, int nodes, char *const *names,
                           struct fabric_schedule *s, ry_error_t *err);

/* The pairs pairs[0..n-1] packed greedily into as few rounds as that makes, in their order:
 * each round takes every pair left whose nodes it does not use yet. A pair may repeat one of
 * an earlier schedule (a retest measures it again). */
void fabric_schedule_pack(int nodes, const struct fabric_pair *pairs, size_t n,
                          struct fabric_schedule *s);

void fabric_schedule_free(struct fabric_schedule *s);

/* Check the invariants: nodes in range, no node twice in a round, no pair twice. 0 or -1. */
int fabric_schedule_validate(const struct fabric_schedule *s, int nodes, ry_error_t *err);

/* Whether a scheduled link between world ranks a and b is measured: not where either end's rank
 * reaches no rank over MPI (unreached) or was lost in an earlier round (lost, its results not in
 * by the round's deadline): the link fails unmeasured and its partner idles, rather than wait
 * out the round for a peer that does not answer. Either array may be NULL (none). */
int fabric_pair_measured(const unsigned char *unreached, const int *lost, int a, int b);

#endif

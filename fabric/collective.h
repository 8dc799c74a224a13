#ifndef RAILYARD_FABRIC_COLLECTIVE_H
#define RAILYARD_FABRIC_COLLECTIVE_H

#include <stddef.h>

#include "common/error.h"
#include "fabric/analyze.h"

/* The collective phase of railyard-fabric: what a collective is worth against the links the same
 * run measured. Pure: the names, nccl-tests' bus bandwidth, the bound a rail's links predict,
 * the verdict on a result and the split of a slow node set in halves. railyard-fabric runs the
 * collectives (fabric/coll_step.c over fabric/mpi.c and fabric/nccl.c). */

enum fabric_coll {
    FABRIC_COLL_ALLREDUCE,
    FABRIC_COLL_ALLGATHER,
    FABRIC_COLL_REDUCESCATTER,
    FABRIC_COLL_ALLTOALL,
    FABRIC_COLL_N
};

const char *fabric_coll_name(enum fabric_coll k);

/* "allreduce,allgather,alltoall" (also reducescatter; "all" is every one) -> a bit per
 * enum fabric_coll in *mask: 0, or -1 naming the word it does not know. */
int fabric_coll_parse(const char *list, unsigned *mask, ry_error_t *err);

/* "8M,64M" -> sizes in bytes (K, M, G suffixes, powers of 1024), at most max of them, each from
 * 1 KiB to 16 GiB: their count, or -1 naming the one refused. */
int fabric_coll_parse_sizes(const char *list, size_t *sizes, int max, ry_error_t *err);

/* nccl-tests' bus bandwidth factor for n ranks: all-reduce 2(n-1)/n, all-gather,
 * reduce-scatter and all-to-all (n-1)/n. busbw = algbw x factor, algbw = size / time. */
double fabric_coll_bus_factor(enum fabric_coll k, int n);

/* The elements each rank passes to MPI for a collective of size bytes over n ranks, in
 * 4-byte floats, as nccl-tests sizes them: all-reduce size/4 (send and receive), all-gather
 * size/4/n sent and size/4 received, reduce-scatter size/4 sent and size/4/n received, all-to-all
 * size/4/n to each peer. 0 when size is below 4n bytes. */
size_t fabric_coll_count(enum fabric_coll k, size_t size, int n);

/* The bound the links of one rail, measured in the same run, put on a ring collective over its
 * ports: a ring is as fast as its slowest link, and a healthy ring's slowest link is about the
 * rail's typical one: the median over its ports of each port's best link (Gb/s), so that a
 * degraded port shows as a shortfall of the collective rather than lowering its bound. *slowest
 * (may be NULL) gets the slowest measured link of the rail. -1 when no link of the rail was
 * measured. Links in *in of rails other than rail are ignored; nodes limits which nodes count
 * (NULL: all). */
double fabric_coll_bound(const struct fabric_input *in, int rail, const unsigned char *nodes,
                         double *slowest);

/* The verdict on a collective's bus bandwidth against its bound: FABRIC_COLL_OK when it reached
 * ratio_min of it (<0: FABRIC_COLL_RATIO_MIN; 0: any figure), FABRIC_COLL_SHORT when it fell short
 * and its hosts had the CPU (host_share, fabric_host_share's rule over its ranks, 1 all fine), and
 * FABRIC_COLL_HOST when the shortfall is no more than their lost CPU explains (inconclusive);
 * FABRIC_COLL_NOBOUND when there is no bound to weigh it against. */
enum fabric_coll_verdict {
    FABRIC_COLL_OK,
    FABRIC_COLL_SHORT,
    FABRIC_COLL_HOST,
    FABRIC_COLL_NOBOUND
};
#define FABRIC_COLL_RATIO_MIN 0.70
enum fabric_coll_verdict fabric_coll_judge(double busbw, double bound, double ratio_min,
                                           double host_share);
const char *fabric_coll_verdict_name(enum fabric_coll_verdict v);

/* Split the n nodes of set (n >= 2) into halves: the first n/2 into a, the rest into b;
 * the sizes in *na, *nb. */
void fabric_coll_halve(const int *set, int n, int *a, int *na, int *b, int *nb);

/* What one step of localizing a rail's slow collective concludes from its two halves timed side
 * by side (bus bandwidths fa and fb, 0 for a half that failed) against the whole set's figure and
 * the ratio q: one half slower than q of the other (that half is searched further, the other's
 * nodes are proven good); neither, with each half faster than the whole by 1/q (the shortfall is
 * on the paths between the halves, the rail's switches); or neither and no such gap (a shortfall
 * every node shares). Halves are weighed against each other, never against the bound. */
enum fabric_coll_step {
    FABRIC_COLL_STEP_A_SLOW,
    FABRIC_COLL_STEP_B_SLOW,
    FABRIC_COLL_STEP_BETWEEN,
    FABRIC_COLL_STEP_ALIKE
};
enum fabric_coll_step fabric_coll_halves(double fa, double fb, double whole, double q);

/* The last step: ng pairs timed side by side, each a suspect beside a node proven good, and at
 * index control (-1: none) two good nodes as the yardstick; busbw[j] <= 0 for a pair that failed.
 * The yardstick is the control pair's figure, else the fastest pair's; slow[j] is set for each
 * suspect's pair below q of it (a failed pair is slow) and cleared for the others and the
 * control. Returns the yardstick (0: no pair gave a figure). */
double fabric_coll_pairs(const double *busbw, int ng, int control, double q, unsigned char *slow);

/* The pairs of that last step, for the ns suspects of set: each suspect in turn beside the next
 * node proven good (good[k] != 0, of the n nodes) not yet used, the lower index first in
 * pairs[j]; suspect[j] the suspect. Then, where two more good nodes are left, the next two as
 * the control pair (suspect -1), its index in *control (else -1). Returns the number of pairs
 * (at most ns + 1), or -1 when a suspect has no good node left beside it (not localized
 * further than set). */
int fabric_coll_pair_plan(const int *set, int ns, const unsigned char *good, int n, int (*pairs)[2],
                          int *suspect, int *control);

#endif

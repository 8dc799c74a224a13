#ifndef RAILYARD_FABRIC_ANALYZE_H
#define RAILYARD_FABRIC_ANALYZE_H

#include <stddef.h>

#include "common/error.h"
#include "fabric/schedule.h"
#include "topo/compare.h"

/* Fault localization over the pair graph of one railyard-fabric run: ports (node, rail) are
 * vertices, measured pairs are edges. Pure: it reads the measurements and adds findings. */

struct fabric_link {
    int round;
    int rail;
    int a, b;        /* node indexes; a sent */
    int ok;          /* 1: measured; 0: failed (error says why) */
    int rank_failed; /* one of the two ranks died or hung: not a link fault */
    char error[320];
    double bw_gbps;                /* goodput at the receiver */
    double lat_p50_us, lat_p99_us; /* <0 unknown */
    long long retrans;             /* TCP retransmissions of the sender, -1 unknown */
    long long bytes;               /* delivered to the receiver */
    long long wire_bytes; /* the sender's data on the wire, resends for loss included, -1 unknown */
    double ce_frac;       /* the share of its data packets delivered CE-marked (ECN), <0 unknown */
    long long errors_a, errors_b;          /* netdev errors+drops and RDMA error counters during the
                                              round, -1 unknown */
    char counters_a[128], counters_b[128]; /* RDMA port counters that rose ("" none) */
    char mem_a[96], mem_b[96];             /* verbs: the memory each end used ("" n/a) */
    /* each end's host over the round (fabric/host.h): the share of the time its rank ran and
     * waited for a CPU, and its host's CPU pressure, <0 unknown */
    double cpu_a, wait_a, cpu_b, wait_b;
    double pressure_a, pressure_b;
};

struct fabric_port {
    int carrier; /* 1 up, 0 down (no carrier), -1 unknown */
};

struct fabric_input {
    int nodes, rails;
    char *const *node_names;
    const struct fabric_port *ports; /* nodes * rails, index node * rails + rail */
    const double *expect_gbps;       /* per rail: lowest acceptable goodput, <0 none */
    const struct fabric_link *links;
    size_t nlinks;
    const int *failed_nodes; /* nodes with a rank that died or hung (named by the caller) */
    size_t nfailed;
    /* a latency sweep's links (ping-pong only): for the same-leaf peers, nothing else */
    const struct fabric_link *lat_links;
    size_t nlat;
    /* the lowest share of a link's wire bytes that must arrive (link.goodput), and the highest
     * share of its packets that may arrive CE-marked (link.congestion): 0 the defaults below,
     * <0 no limit */
    double goodput_min, ecn_max;
};
#define FABRIC_GOODPUT_MIN 0.995
#define FABRIC_ECN_MAX     0.001

/* Add findings to out: link.bandwidth (a port low against all its partners, or below the
 * map), link.path (a pair low that neither end explains), link.unreachable, nic.port.state
 * (a rail without carrier), rail.cabling (a rail up but reaching none of its peers, or whose
 * same-leaf peers differ from the node's other rails), link.errors (error counters that rose).
 * Without a map, the fleet reference of a rail is the median over its ports of each port's
 * best link.
 * A link measured on a starved host is inconclusive, never a finding: low by no more than its
 * hosts' lost CPU time explains (fabric_host_share, the host's CPU pressure included), or failed
 * by a deadline while an end's rank waited for a CPU (pressure alone does not explain a link
 * that never answered). It is left out of the localization and its latency out of the leaf sets,
 * and named in out's not-judged list.
 * Where a link's sender counted its bytes on the wire (tcp: TCP_INFO), what arrived is weighed
 * against them: link.goodput (FAIL) when less than goodput_min of the wire arrived (the rest was
 * sent again), link.congestion (WARN) when a link that lost nothing had more than ecn_max of its
 * packets marked CE. Both are localized like link.bandwidth: a port all of whose links (or all
 * it received, or all it sent) show it while its partners are fine elsewhere is named; else the
 * pair. */
void fabric_analyze(const struct fabric_input *in, struct topo_findings *out);

/* Mark in suspect[node] (nodes entries, zeroed first) the nodes worth a retest against a
 * known-good node: those with a culprit port, those with a port no good link proved (its
 * partners were all faulty), and the ends of an inconclusive link and of a bad link nobody
 * explains. good[node] gets 2 for the nodes whose every link was fine, 1 for those
 * (no suspect) whose bad links all had a culprit port at the other end, 0 for the others.
 * Returns the number of suspects. A pair (sender, receiver, rail) measured more than once is
 * judged by its best measurement (fabric_analyze alike). */
size_t fabric_suspects(const struct fabric_input *in, int *suspect, int *good);

/* One pass (from 0) of the retest: pass 0 as fabric_suspects; a later pass leaves the culprits
 * and the lossy links alone (they are explained) and keeps the rest. When pairs is not NULL,
 * *pairs (malloc'd, *npairs entries, the caller frees) gets the pairs to measure again as
 * themselves: the pair of an inconclusive link, and that of a bad link nobody explains whose
 * ends are both proven on its rail; their ends are then no suspects for that link (where pairs
 * is NULL, as in fabric_suspects, they are). Returns the number of suspects. */
#define FABRIC_RETEST_PASSES 3
size_t fabric_retest_suspects(const struct fabric_input *in, int pass, int *suspect, int *good,
                              struct fabric_pair **pairs, size_t *npairs);

/* The rounds of retest pass (from 0) in *s: the pairs to measure again, then each suspect
 * against a known-good node, the best proven first (fabric_schedule_bisect), all packed into
 * as few rounds as the nodes allow (fabric_schedule_pack). railyard-fabric --retest makes up to
 * FABRIC_RETEST_PASSES passes while one has rounds. Sets *nsuspects and *npairs. Returns 0, or
 * -1 where suspects could not be paired (err says why; *s still holds the pairs' rounds). The
 * caller frees *s. */
int fabric_retest_schedule(const struct fabric_input *in, int pass, struct fabric_schedule *s,
                           size_t *nsuspects, size_t *npairs, ry_error_t *err);

/* A link's error from its two ends (the sender's first): when one end only saw the other hang
 * up ("connection closed by the peer"), the other end's own error is the cause. "" when both
 * ends succeeded. */
const char *fabric_link_error(int ok_a, const char *err_a, int ok_b, const char *err_b);

/* Median of v[0..n-1] (n > 0); v is reordered. */
double fabric_median(double *v, size_t n);

/* p-th percentile (0..100) of v, by nearest rank; v is reordered. */
double fabric_percentile(double *v, size_t n, double p);

#endif

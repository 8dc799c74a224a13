#ifndef RAILYARD_FABRIC_RUN_H
#define RAILYARD_FABRIC_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "fabric/analyze.h"
#include "fabric/collective.h"
#include "fabric/schedule.h"
#include "fabric/side.h"
#include "fabric/transport.h"
#include "fabric/verbs.h"
#include "topo/compare.h"
#include "topo/map.h"

/* railyard-fabric's run: one MPI job over many nodes that tests every rail. Ranks on one node
 * (MPI's shared-memory communicator, or the launcher's word) are its rails; rank 0 coordinates
 * rounds with point-to-point messages that all have deadlines, so a rank that dies or hangs is
 * named and the others finish. The phases, in the order main runs them:
 *
 *   fabric/startup.c   MPI_Init with a deadline, the map, placement, the start-up exchange
 *                      (ranks MPI cannot reach found through the side channel), the layout
 *   fabric/protocol.c  rank 0 <-> the ranks: go and result messages with deadlines, the rounds,
 *                      the ranks' loop, the end
 *   fabric/rounds.c    a rank's part of a round, and what rank 0 makes of the results: links,
 *                      retests, the analysis's input
 *   fabric/coll_phase.c the collective phase's verdicts and localization; fabric/coll_step.c
 *                      times its steps over MPI and NCCL
 *   fabric/run.c       the analysis of the whole run and its exit status
 *
 * Printing, archiving and the culprits file are reports/fabric_report.c's. The files that call
 * MPI are built into railyard-fabric alone; the others are in the library, where the unit tests
 * call them with made-up results. Exit status: 0 pass, 1 faults found (or a rank lost), 2 could
 * not judge. No state outside struct fabric_run: under SMPI every rank is a thread of one
 * process. */

#define FABRIC_TAG_GO     11
#define FABRIC_TAG_RESULT 12
#define FABRIC_TAG_HELLO  14
/* the side channel's keys: a rank's start-up facts, rank 0's verdict */
#define FABRIC_SIDE_FACTS "railyard.fabric.facts"
#define FABRIC_SIDE_DROPPED                                                                        \
    "railyard.fabric.dropped" /* rank 0: a bit per rank it could not hear                          \
                               */
#define FABRIC_SIDE_END "railyard.fabric.end"
#define FABRIC_SIDE_BYE "railyard.fabric.bye" /* a dropped rank took the end */
/* a rank whose facts came through the side channel but whose MPI message did not, this long
 * after the last one that did, reaches no rank over MPI */
#define FABRIC_REACH_GRACE 15.0
#define FABRIC_NAME_LEN    64
#define FABRIC_GO_ON       (-1) /* a phase's "carry on"; any other value is the exit status */

enum fabric_role { FABRIC_ROLE_IDLE = 0, FABRIC_ROLE_SEND, FABRIC_ROLE_RECV };

struct fabric_rank_info { /* exchanged once at start */
    char host[FABRIC_NAME_LEN];
    int32_t local_rank, local_size;
    struct fabric_endpoint ep;
    int32_t carrier;
    int32_t rank_numa, nic_numa; /* -1 unknown (unbound rank, virtual interface) */
    int32_t gpu;                 /* the collective phase: the GPU its NCCL would use, -1 none */
    char nccl_why[160];          /* why not (NCCL or the GPU missing), "" when it can */
};

/* rank 0 -> each rank, per round: its part (the other ranks hold no schedule, no layout: a
 * rank's memory stays the same at 8 ranks or 8,192) */
struct fabric_go {
    int32_t round;      /* -1: the end, with verdict */
    int32_t verdict;    /* the exit status; | 0x100: leave without MPI_Finalize (a rank is lost) */
    int32_t role, peer; /* ROLE_*, the peer's node */
    int32_t lat_only;   /* a latency sweep round: ping-pong only */
    struct fabric_endpoint pep; /* the peer's end of the link on this rank's rail */
    /* a step of the collective phase (coll_step 1): the collective, its size, this rank's group
     * (-1 none: it only takes part in making the groups), NCCL (1) or MPI (0), the seconds to
     * time and the seconds it may take in all */
    int32_t coll_step, coll_op, coll_color, coll_nccl;
    int64_t coll_size;
    double coll_duration, coll_timeout;
};

struct fabric_result { /* one per rank per round */
    int32_t round, role, peer, ok, carrier;
    char error[320];
    double bw_gbps, lat_p50_us, lat_p99_us;
    int64_t retrans, errors;
    int32_t ok2; /* --bidir: the reverse direction */
    char error2[320];
    double bw2_gbps;
    char counters[128];                        /* RDMA port counters that rose during the round */
    char mem[96];                              /* verbs: the memory the data moved through */
    double cpu_frac, wait_frac, pressure_frac; /* the rank's host over the round (fabric/host.h),
                                                  <0 unknown */
    /* the sender's: bytes delivered, its data on the wire (-1 unknown), the share delivered
     * CE-marked (-1 unknown); 2: of the reverse direction (--bidir) */
    int64_t bytes, wire_bytes, bytes2, wire_bytes2, retrans2;
    double ce_frac, ce_frac2;
    /* the RDMA port's packets received over the round, of them thrown away out of sequence,
     * and marked CE: -1 unknown (fabric_hwc_received) */
    int64_t rx_pkts, rx_wasted, rx_marked;
    int64_t tx_pkts;    /* the packets the port sent over the round, -1 unknown */
    double coll_sec;    /* a collective step: seconds per iteration, -1 none */
    int32_t coll_iters; /* the iterations timed */
};

struct fabric_run_opts { /* railyard-fabric(1)'s options */
    const char *map, *schedule, *pairs, *run_dir, *netdev_fmt, *node_type, *transport;
    double duration, round_timeout, start_timeout, connect_timeout;
    int streams, iters, shift, json, verbose, bidir, retest;
    const char *archive, *prometheus, *junit; /* railyard-report(5) */
    const char *culprits;                     /* --culprits: lines for a preflight */
    int no_archive, keep;
    int lat_sweep;            /* --latency-sweep: ring shifts 2..K+1, ping-pong only */
    int spread;               /* --spread: K rings of shifts n/2, n/4 ... (at least 4), measured */
    int nic_hosts;            /* --nic-hosts: each rank on a host of its own, named NODE-rRAIL */
    const char *link_records; /* --link-records: auto, json, binary */
    struct fabric_verbs_opts vo; /* verbs and mpi: what moves the data */
    /* the collective phase */
    unsigned coll_mask; /* a bit per enum fabric_coll; 0 no collective phase */
    size_t coll_sizes[8];
    int ncoll_sizes;
    double coll_duration; /* seconds timed per collective (default: --duration) */
    const char *coll_lib; /* auto, mpi, nccl */
    int coll_groups;      /* 1 per rail, 2 over all the ranks (--coll-groups) */
};

/* why a collective ran: the phase (a rail, or every rank), its repeat before localizing, a half
 * of a slow node set, a suspect node beside a known-good one */
enum fabric_coll_purpose { FABRIC_CP_PHASE, FABRIC_CP_CONFIRM, FABRIC_CP_HALF, FABRIC_CP_PAIR };

struct fabric_coll_entry { /* one collective of a step, as rank 0 saw it */
    enum fabric_coll op;
    enum fabric_coll_purpose purpose;
    size_t size;
    int rail;   /* -1: every rail (all ranks) */
    int nnodes; /* its nodes: nodes[0..nnodes-1] */
    int *nodes;
    int ranks;
    int suspect; /* FABRIC_CP_PAIR: the node under test, -1 otherwise */
    int ok;      /* every rank of it finished */
    char error[320];
    int iters;
    double seconds, algbw, busbw, bound, host_share; /* Gb/s; host_share 1 when no rank starved */
    enum fabric_coll_verdict verdict;
};

/* One run as a rank sees it: what it is, the layout every rank computes alike, and (rank 0)
 * the results collected so far. Every phase of main reads and fills it. */
struct fabric_run {
    struct fabric_run_opts o;
    int argc;
    char **argv;
    double started;
    /* this rank */
    int rank, size;             /* in MPI_COMM_WORLD */
    char host[FABRIC_NAME_LEN]; /* its node's name (RAILYARD_FABRIC_NODE or the host name) */
    struct fabric_rank_info me;
    int node, rail;  /* its place in the layout */
    char netdev[32]; /* its rail's interface, "" when the map names none */
    const struct fabric_transport *t;
    void *ts;                /* the transport's state, NULL until set up */
    int stopped;             /* it gave up waiting for rank 0: leave with status 2 */
    struct fabric_side side; /* the launcher's PMIx server, when there is one */
    int unheard;             /* its start-up facts did not reach rank 0 over MPI */
    int heard;               /* a word of rank 0 came */
    /* the map */
    struct topo_map *map;
    const struct map_node_type *type;
    const char *type_name;
    const char *map_cluster;
    /* the layout (rank 0) */
    int nodes, rails;
    char **names;
    struct fabric_rank_info *info; /* per world rank */
    struct fabric_go *gos;         /* per world rank: its part of the round being run */
    void *go_reqs; /* per world rank: the MPI_Request of its go message, until the round's results
                      are in (fabric_run_collect) */
    int *rank_of;  /* nodes*rails -> world rank */
    struct fabric_schedule sched;
    double *expect;              /* per rail */
    double goodput_min, ecn_max; /* fabric_input's: 0 the defaults, <0 none */
    /* the results (rank 0) */
    struct fabric_result *res; /* per world rank: the round being collected */
    int *got;                  /* per world rank: its result of that round came */
    struct fabric_link *links;
    size_t nlinks, links_alloc;
    unsigned char *lat_only;       /* per round of sched: a latency sweep round */
    struct fabric_link *lat_links; /* the latency sweep's links */
    size_t nlat, lat_alloc;
    int *failed; /* nodes with a lost rank */
    size_t nfailed;
    int *rank_lost;           /* per world rank */
    unsigned char *unreached; /* per world rank: alive (its facts came through the side channel)
                                 but its MPI messages reached no one: its links fail unmeasured */
    int nunreached;
    size_t rounds_done;
    double analysis_cpu; /* CPU seconds of rank 0's analysis */
    /* the collective phase (rank 0) */
    int coll_nccl;                     /* 1 NCCL on GPU memory, 0 MPI on host memory */
    char coll_why[320];                /* why it did not run, or why not NCCL ("" none) */
    double *coll_bound, *coll_slowest; /* per rail (Gb/s), <0 none */
    struct fabric_coll_entry *coll;    /* every collective timed, in order */
    size_t ncoll, coll_alloc;
    int coll_steps;              /* steps run so far */
    double coll_ratio;           /* the map's collective_busbw_ratio_min, 0 the default */
    struct topo_findings coll_f; /* its verdicts, added to the run's by analyse */
    /* the phase's step (fabric_run_coll_step over MPI; a unit test's own): the groups e[0..n-1]
     * side by side, their figures filled in (fabric_run_coll_results) and kept; 0, or -1 when a
     * rank was lost (the phase stops) */
    int (*coll_step)(struct fabric_run *r, struct fabric_coll_entry *e, int n);
    /* after each round (rank 0): the reports as they stand (reports/fabric_report.h), NULL none */
    void (*checkpoint)(struct fabric_run *r, void *arg);
    void *checkpoint_arg;
};

/* ---- fabric/run.c ---- */

/* "railyard-fabric: HOST:RANK: what" on stderr, host and text made inert */
__attribute__((format(printf, 2, 3))) void fabric_run_log(const struct fabric_run *r,
                                                          const char *fmt, ...);
/* The analysis input from what rank 0 has collected. *ports and in->failed_nodes are the
 * caller's to free. A node whose rank was lost is named once. */
void fabric_run_input(const struct fabric_run *r, struct fabric_input *in,
                      struct fabric_port **ports);
/* Rank 0: the links judged, the culprits named, rank placement checked, the collective phase's
 * verdicts added, the map's overrides applied. */
void fabric_run_analyse(struct fabric_run *r, struct topo_findings *f);
/* The run's exit status from its findings: 1 a failure or a lost rank, 2 nothing judged but
 * something could not be, 0 otherwise. */
int fabric_run_exit_status(const struct topo_findings *f, size_t nfailed);
/* The start-up exchange as rank 0 waits for every rank's facts (fabric/startup.c), on its clock:
 * end it (none missing, or the deadline reached), look for the missing ones' facts in the side
 * channel (none heard for FABRIC_REACH_GRACE s since the last that was, and the look due at
 * next_look), or wait on. */
enum fabric_hello_step { FABRIC_HELLO_WAIT, FABRIC_HELLO_LOOK, FABRIC_HELLO_END };
enum fabric_hello_step fabric_run_hello_step(int missing, double now, double deadline, double last,
                                             double next_look);
/* What rank 0 makes of the ranks whose facts never came over MPI, of size ranks: one that
 * published none in the side channel either did not start (the run stops, exit 2); when the
 * nunreached that did are half the ranks or more, rank 0's own path is the likelier fault (exit
 * 2); else each is dropped, its links failed unmeasured, and the run goes on. */
enum fabric_hello_verdict { FABRIC_HELLO_HEARD, FABRIC_HELLO_NOT_STARTED, FABRIC_HELLO_CUT_OFF };
enum fabric_hello_verdict fabric_run_hello_verdict(int size, int nunreached, int nofacts);
/* "node1, node2, node3" (at most 6 named, then a count) */
void fabric_run_nodes_text(const struct fabric_run *r, const int *nodes, int n, char *buf,
                           size_t len);
/* "16 MiB", "512 KiB" */
const char *fabric_run_size_text(size_t bytes, char *buf, size_t len);

/* ---- fabric/rounds.c ---- */

/* a netdev's carrier: 1 up, 0 down, -1 unknown */
int fabric_run_carrier(const char *netdev);
/* rank 0: world rank k's part of round `round` into g */
void fabric_run_task_of(const struct fabric_run *r, size_t round, int k, struct fabric_go *g);
/* This rank's part of a round: send, receive or stay idle, then its result. */
void fabric_run_round(const struct fabric_run *r, const struct fabric_go *g,
                      struct fabric_result *res);
/* rank 0: the links of round `round` from every rank's result (got[k]: rank k's came) */
void fabric_run_add_links(struct fabric_run *r, int round, const struct fabric_result *res,
                          const int *got);
/* rank 0: the rounds of extra after the schedule's (extra's pair lists move over), latency
 * only or not */
void fabric_run_append_rounds(struct fabric_run *r, struct fabric_schedule *extra, int lat_only);
/* --retest (rank 0): bisect rounds for the suspects of the rounds so far (pass: the how-manieth) */
void fabric_run_retest(struct fabric_run *r, int pass);

/* ---- fabric/coll_phase.c ---- */

/* the map's collective_busbw_ratio_min, else the default (0: no limit) */
double fabric_run_coll_ratio(const struct fabric_run *r);
/* rank 0: the groups e[0..n-1] of a step, their figures from the ranks' results (r->res,
 * r->got, the colours in r->gos), judged, and kept in r->coll */
void fabric_run_coll_results(struct fabric_run *r, struct fabric_coll_entry *e, int n);
/* rank 0: the go messages of a step of the groups e[0..n-1] into r->gos (each rank's colour:
 * its group, or -1), e[i].ranks counted; timeout: the step's deadline in seconds */
void fabric_run_coll_gos(struct fabric_run *r, struct fabric_coll_entry *e, int n, double timeout);
/* Rank 0: the collective phase through r->coll_step, its verdicts in r->coll_f. */
void fabric_run_collectives(struct fabric_run *r);

/* ---- fabric/startup.c (MPI) ---- */

/* MPI_Init with the start-up deadline, this rank's place in the world, the side channel, the
 * host's name; r is cleared first */
void fabric_run_start(struct fabric_run *r, int *argc, char ***argv);
/* after the options: the transport and the map; FABRIC_GO_ON or the exit status */
int fabric_run_open(struct fabric_run *r);
/* nodes and rails, this rank's netdev and transport; rank 0 learns every rank's end:
 * FABRIC_GO_ON, or 2 (and the run goes on to its end, to say why) */
int fabric_run_identify(struct fabric_run *r);
/* rank 0: the layout, the schedule, the goodput expected per rail: FABRIC_GO_ON or 2 */
int fabric_run_lay_out(struct fabric_run *r);
/* has rank 0 gone on without this rank? Then it says so. */
int fabric_run_dropped_me(struct fabric_run *r);
/* rank 0: the ranks no message goes to, from the start: the unreachable ones */
int *fabric_run_lost_at_start(const struct fabric_run *r);

/* ---- fabric/protocol.c (MPI) ---- */

/* wait for a non-blocking MPI request (an MPI_Request *) until the deadline, sleeping between
 * tests; _wait_ blocks under SMPI. 1 done, 0 timed out. */
int fabric_run_poll_until(void *req, double deadline);
int fabric_run_wait_until(void *req, double deadline);
/* rank 0: each live rank's part from r->gos (last: the end, each taken before it returns) */
void fabric_run_send_go(struct fabric_run *r, int last);
#ifdef RAILYARD_SMPI
/* rank 0, simulated: one message tagged tag from each rank not lost, into base + k * size */
void fabric_run_smpi_gather(struct fabric_run *r, int tag, void *base, size_t size, const int *lost,
                            int *got, double deadline);
#endif
/* rank 0: every live rank's result into r->res, r->got within timeout (+ 5 s); a rank that
 * misses it is lost and its node named; what: "round 3" */
void fabric_run_collect(struct fabric_run *r, const char *what, double timeout,
                        const struct fabric_result *mine);
/* rank 0: the rounds from `from` to the end of the schedule */
void fabric_run_rounds(struct fabric_run *r, size_t from);
/* every other rank: its part of each round until rank 0 says the end; the verdict, | 0x100
 * where the rank leaves without MPI_Finalize */
int fabric_run_work(struct fabric_run *r);
/* leave before the rounds (bad options or map: every rank found the same) */
int fabric_run_leave(struct fabric_run *r, int exit_code);
/* rank 0 tells every rank the verdict; every rank leaves with it (the exit status) */
int fabric_run_finish(struct fabric_run *r, int code);

/* ---- fabric/coll_step.c (MPI) ---- */

/* this rank's part of a collective step */
void fabric_run_coll(const struct fabric_run *r, const struct fabric_go *g,
                     struct fabric_result *res);
/* rank 0: a step over MPI (r->coll_step) */
int fabric_run_coll_step(struct fabric_run *r, struct fabric_coll_entry *e, int n);

#endif

#include "config.h"

#include <errno.h>
#include <sched.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "common/file.h"
#include "common/sysfs.h"
#include "common/xmalloc.h"
#include "fabric/analyze.h"
#include "fabric/collective.h"
#include "fabric/cuda.h"
#include "fabric/host.h"
#include "fabric/mpi.h"
#include "fabric/nccl.h"
#include "fabric/port_counters.h"
#include "fabric/schedule.h"
#include "fabric/side.h"
#include "fabric/transport.h"
#include "fabric/verbs.h"
#include "readers/numa.h"
#include "reports/archive.h"
#include "reports/findings.h"
#include "reports/history.h"
#include "reports/links.h"
#include "reports/out.h"
#include "reports/render.h"
#include "topo/map.h"

/* railyard-fabric: one MPI job over many nodes that tests every rail. Ranks on one node (MPI
 * shared-memory communicator) are its rails; rank 0 coordinates rounds with point-to-point
 * messages that all have deadlines, so a rank that dies or hangs is named and the others
 * finish. Exit status: 0 pass, 1 faults found (or a rank lost), 2 could not judge. */

#define SCHEMA_VERSION 1
#define TAG_GO         11
#define TAG_RESULT     12
#define TAG_RETEST     13
#define TAG_HELLO      14
/* the side channel's keys: a rank's start-up facts, rank 0's verdict */
#define SIDE_FACTS   "railyard.fabric.facts"
#define SIDE_DROPPED "railyard.fabric.dropped" /* rank 0: a bit per rank it could not hear */
#define SIDE_END     "railyard.fabric.end"
#define SIDE_BYE     "railyard.fabric.bye" /* a dropped rank took the end */
/* a rank whose facts came through the side channel but whose MPI message did not, this long
 * after the last one that did, reaches no rank over MPI */
#define REACH_GRACE 15.0
#define NAME_LEN    64

enum role { ROLE_IDLE = 0, ROLE_SEND, ROLE_RECV };

struct rank_info { /* exchanged once at start */
    char host[NAME_LEN];
    int32_t local_rank, local_size;
    struct fabric_endpoint ep;
    int32_t carrier;
    int32_t rank_numa, nic_numa; /* -1 unknown (unbound rank, virtual interface) */
    int32_t gpu;                 /* the collective phase: the GPU its NCCL would use, -1 none */
    char nccl_why[160];          /* why not (NCCL or the GPU missing), "" when it can */
};

/* rank 0 -> each rank, per round: its part (the other ranks hold no schedule, no layout: a
 * rank's memory stays the same at 8 ranks or 8,192) */
struct go_msg {
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

struct result_msg { /* one per rank per round */
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

struct opts {
    const char *map, *schedule, *pairs, *run_dir, *netdev_fmt, *node_type, *transport;
    double duration, round_timeout, start_timeout, connect_timeout;
    int streams, iters, shift, json, verbose, bidir, retest;
    const char *archive, *prometheus, *junit; /* railyard-report(5) */
    const char *culprits;                     /* --culprits: lines for a preflight */
    int no_archive, keep;
    int lat_sweep;               /* --latency-sweep: ring shifts 2..K+1, ping-pong only */
    int nic_hosts;               /* --nic-hosts: each rank on a host of its own, named NODE-rRAIL */
    const char *link_records;    /* --link-records: auto, json, binary */
    struct fabric_verbs_opts vo; /* verbs and mpi: what moves the data */
    /* the collective phase */
    unsigned coll_mask; /* a bit per enum fabric_coll; 0 no collective phase */
    size_t coll_sizes[8];
    int ncoll_sizes;
    double coll_duration; /* seconds timed per collective (default: --duration) */
    const char *coll_lib; /* auto, mpi, nccl */
    int coll_groups;      /* 1 per rail, 2 over all the ranks (--coll-groups) */
};

enum { REC_UNDECIDED, REC_JSON, REC_BINARY };

/* why a collective ran: the phase (a rail, or every rank), its repeat before localizing, a half
 * of a slow node set, a suspect node beside a known-good one */
enum coll_purpose { CP_PHASE, CP_CONFIRM, CP_HALF, CP_PAIR };

struct coll_entry { /* one collective of a step, as rank 0 saw it */
    enum fabric_coll op;
    enum coll_purpose purpose;
    size_t size;
    int rail;   /* -1: every rail (all ranks) */
    int nnodes; /* its nodes: nodes[0..nnodes-1] */
    int *nodes;
    int ranks;
    int suspect; /* CP_PAIR: the node under test, -1 otherwise */
    int ok;      /* every rank of it finished */
    char error[320];
    int iters;
    double seconds, algbw, busbw, bound, host_share; /* Gb/s; host_share 1 when no rank starved */
    enum fabric_coll_verdict verdict;
};

/* One run as a rank sees it: what it is, the layout every rank computes alike, and (rank 0)
 * the results collected so far. Every phase of main reads and fills it. */
struct run {
    struct opts o;
    int argc;
    char **argv;
    double started;
    /* this rank */
    int rank, size;      /* in MPI_COMM_WORLD */
    MPI_Comm world;      /* MPI_COMM_WORLD, for the mpi transport */
    char host[NAME_LEN]; /* its node's name (RAILYARD_FABRIC_NODE or the host name) */
    struct rank_info me;
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
    struct rank_info *info; /* per world rank */
    struct go_msg *gos;     /* per world rank: its part of the round being run */
    int *rank_of;           /* nodes*rails -> world rank */
    struct fabric_schedule sched;
    double *expect;              /* per rail */
    double goodput_min, ecn_max; /* fabric_input's: 0 the defaults, <0 none */
    /* the results (rank 0) */
    struct result_msg *res; /* per world rank: the round being collected */
    int *got;               /* per world rank: its result of that round came */
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
    double saved;              /* when results were last written */
    double analysis_cpu;       /* CPU seconds of rank 0's analysis */
    struct ry_archive archive; /* archive.dir[0]: archiving */
    struct ry_archive run_dir; /* -o: run_dir.dir[0] set */
    /* link records beside report.json (archive) and results.json (run directory), decided at
     * the first save */
    int records;                   /* REC_* */
    struct ry_links_writer *lw[2]; /* 0 the archive, 1 the run directory */
    size_t lw_links[2], lw_lat[2]; /* links and sweep links appended so far */
    size_t lw_valid[2];            /* records known written (named in the JSON) */
    int lw_broken[2];              /* a write failed: the JSON names what came before */
    /* the collective phase (rank 0) */
    int coll_nccl;                     /* 1 NCCL on GPU memory, 0 MPI on host memory */
    char coll_why[320];                /* why it did not run, or why not NCCL ("" none) */
    double *coll_bound, *coll_slowest; /* per rail (Gb/s), <0 none */
    struct coll_entry *coll;           /* every collective timed, in order */
    size_t ncoll, coll_alloc;
    int coll_steps;              /* steps run so far */
    double coll_ratio;           /* the map's collective_busbw_ratio_min, 0 the default */
    struct topo_findings coll_f; /* its verdicts, added to the run's by analyse */
};

__attribute__((format(printf, 2, 3))) static void logmsg(const struct run *r, const char *fmt, ...)
{
    char raw[1024], safe[1024], host[NAME_LEN * 4];
    va_list ap;

    /* host names and error texts of other ranks are quoted: inert */
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    fprintf(stderr, "railyard-fabric: %s:%d: %s\n", ry_inert(r->host, host, sizeof(host)), r->rank,
            ry_inert(raw, safe, sizeof(safe)));
}

static void usage(FILE *fp)
{
    fprintf(
        fp,
        "usage: mpirun [...] railyard-fabric [--map <file>] [--schedule <name>] [<options>]\n\n"
        "Test every rail of every node, one rank per (node, rail), and name the culprits.\n\n"
        "  -m, --map <file>        expected topology map (rails, netdevs, rates)\n"
        "  --node-type <type>      the map's node type (default: from the host lists)\n"
        "  -s, --schedule <name>   neighbor (default), ring, all-pairs, custom\n"
        "  --shift <k>             ring: test node i with node i+k (default 1)\n"
        "  --pairs <file>          custom: lines '<node> <node>'\n"
        "  -d, --duration <s>      seconds of traffic per link and round (default 2)\n"
        "  --streams <n>           parallel TCP streams per link (default 1)\n"
        "  --bidir                 also measure each link in the reverse direction\n"
        "  --retest                then retest suspect nodes against known-good ones\n"
        "  --latency-sweep <k>     then k rounds of ping-pong only with the nodes 2..k+1 away:\n"
        "                          the same-leaf peers of each rail compared (miscabling)\n"
        "  --iters <n>             ping-pong iterations for latency (default 200)\n"
        "  --netdev <format>       rail netdev without a map, printf format (default rail%%d)\n"
        "  -t, --transport <name>  tcp (default), verbs (RC RDMA writes, libibverbs) or mpi\n"
        "                          (MPI messages between the two ranks, as osu_bw)\n"
        "  --op <op>               verbs: write (default), read or send\n"
        "  --qps <n>               verbs: queue pairs per link (default 1, at most 16)\n"
        "  --window <n>            verbs: work requests in flight per queue pair; mpi: sends\n"
        "                          per window (default 16)\n"
        "  --msg-size <bytes>      verbs, mpi: bytes per message (default 64K; K, M suffixes)\n"
        "  --mem <kind>            verbs: host (default; on the NIC's NUMA node), cuda (the GPU\n"
        "                          nearest the NIC), cuda:N or cuda:<PCI address>\n"
        "  --verify                verbs: check every byte received (default: a sample)\n"
        "  --gid-index <n>         verbs on RoCE: this GID index (default: from the table)\n"
        "  --tos <n>               verbs on RoCE: traffic class of the packets (0-255)\n"
        "  --qp-timeout <n>        verbs: ACK timeout 4.096 us x 2^n, 1-31 (default 14: 67 ms)\n"
        "  --collectives <list>    then the collective phase: allreduce, allgather,\n"
        "                          reducescatter, alltoall (comma-separated) or all, per rail\n"
        "                          and over all ranks, against the bound the links predict\n"
        "  --coll-size <list>      bytes per collective (default 16M; K, M, G suffixes; the\n"
        "                          largest is judged)\n"
        "  --coll-duration <s>     seconds timed per collective and size (default --duration)\n"
        "  --coll-groups <list>    rails (a communicator per rail), all (one of every rank) or\n"
        "                          rails,all (default)\n"
        "  --coll-lib <name>       auto (default: NCCL on GPU memory where every rank has\n"
        "                          both, else MPI on host memory), mpi or nccl\n"
        "  --nic-hosts             every rank has a host of its own named <node>-r<rail> (a\n"
        "                          simulated cluster: one host per NIC)\n"
        "  --round-timeout <s>     deadline of a round (default duration + 10)\n"
        "  --start-timeout <s>     deadline of the start-up exchange (default 60)\n"
        "  --connect-timeout <s>   a link that does not connect by then fails (default 5)\n"
        "  -o, --run-dir <dir>     keep results.json, the map and the command line there\n"
        "  --link-records <how>    links beside report.json as binary records (binary), as\n"
        "                          JSON objects (json), or records past %d links (auto)\n"
        "  --culprits <file>       write what a preflight acts on: nodes to drain with a\n"
        "                          reason, faults pinned to no node, lost nodes\n"
        "  -j, --json              print the results as JSON\n"
        "  -v, --verbose           list passed checks and every link\n"
        "  -h, --help              this help\n",
        RY_LINKS_INLINE_MAX);
}

static int parse_opts(int argc, char **argv, struct opts *o, int speak)
{
    static const struct option lo[] = {
        { "map", required_argument, NULL, 'm' },
        { "node-type", required_argument, NULL, 'T' },
        { "schedule", required_argument, NULL, 's' },
        { "shift", required_argument, NULL, 'K' },
        { "pairs", required_argument, NULL, 'P' },
        { "duration", required_argument, NULL, 'd' },
        { "streams", required_argument, NULL, 'S' },
        { "iters", required_argument, NULL, 'I' },
        { "netdev", required_argument, NULL, 'N' },
        { "transport", required_argument, NULL, 't' },
        { "gid-index", required_argument, NULL, 'G' },
        { "op", required_argument, NULL, 'O' },
        { "qps", required_argument, NULL, 'Q' },
        { "window", required_argument, NULL, 'W' },
        { "msg-size", required_argument, NULL, 'M' },
        { "mem", required_argument, NULL, 'E' },
        { "verify", no_argument, NULL, 'V' },
        { "tos", required_argument, NULL, 'Y' },
        { "qp-timeout", required_argument, NULL, 'U' },
        { "archive", required_argument, NULL, 'a' },
        { "no-archive", no_argument, NULL, 'n' },
        { "keep", required_argument, NULL, 'k' },
        { "prometheus", required_argument, NULL, 'p' },
        { "junit", required_argument, NULL, 'u' },
        { "round-timeout", required_argument, NULL, 'R' },
        { "start-timeout", required_argument, NULL, 'A' },
        { "connect-timeout", required_argument, NULL, 'C' },
        { "run-dir", required_argument, NULL, 'o' },
        { "culprits", required_argument, NULL, 'F' },
        { "bidir", no_argument, NULL, 'B' },
        { "nic-hosts", no_argument, NULL, 'H' },
        { "latency-sweep", required_argument, NULL, 'L' },
        { "retest", no_argument, NULL, 'X' },
        { "link-records", required_argument, NULL, 'Z' },
        { "collectives", required_argument, NULL, 'c' },
        { "coll-size", required_argument, NULL, 'z' },
        { "coll-duration", required_argument, NULL, 'D' },
        { "coll-groups", required_argument, NULL, 'g' },
        { "coll-lib", required_argument, NULL, 'l' },
        { "json", no_argument, NULL, 'j' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    char *end;

    memset(o, 0, sizeof(*o));
    o->schedule = "neighbor";
    o->transport = "tcp";
    o->link_records = "auto";
    o->duration = 2;
    o->streams = 1;
    o->iters = 200;
    o->shift = 1;
    o->round_timeout = -1;
    o->start_timeout = 60;
    o->connect_timeout = 5;
    o->netdev_fmt = "rail%d";
    o->keep = RY_ARCHIVE_KEEP;
    o->coll_sizes[0] = 16u << 20;
    o->ncoll_sizes = 1;
    o->coll_lib = "auto";
    o->coll_groups = 3;
    fabric_verbs_opts_init(&o->vo);
    opterr = 0;
    optind = 0; /* a fresh scan, also where ranks share one process (SMPI) */
    while ((c = getopt_long(argc, argv, "m:s:d:o:t:jvh", lo, NULL)) != -1) {
        double v = 0;
        if (optarg && strchr("dRAKSICQWkLD", c)) {
            v = strtod(optarg, &end);
            if (end == optarg || *end || v <= 0 || v > 86400) {
                const char *name = "option";
                for (size_t i = 0; lo[i].name; i++)
                    if (lo[i].val == c)
                        name = lo[i].name;
                if (speak)
                    fprintf(stderr, "railyard-fabric: --%s takes a positive number, not '%s'\n",
                            name, optarg);
                return -1;
            }
        }
        switch (c) {
        case 'm': o->map = optarg; break;
        case 'T': o->node_type = optarg; break;
        case 's': o->schedule = optarg; break;
        case 'K': o->shift = (int)v; break;
        case 'P': o->pairs = optarg; break;
        case 'd': o->duration = v; break;
        case 'S': o->streams = (int)v; break;
        case 'I': o->iters = (int)v; break;
        case 'N': o->netdev_fmt = optarg; break;
        case 't': o->transport = optarg; break;
        case 'G':
        case 'Y':
        case 'U': { /* small integers with a range: GID index, traffic class, ACK timeout */
            long min = c == 'U' ? 1 : 0, max = c == 'U' ? 31 : 255, x = strtol(optarg, &end, 10);
            const char *name = c == 'G' ? "gid-index" : c == 'Y' ? "tos" : "qp-timeout";
            if (end == optarg || *end || x < min || x > max) {
                if (speak)
                    fprintf(stderr, "railyard-fabric: --%s takes %ld to %ld, not '%s'\n", name, min,
                            max, optarg);
                return -1;
            }
            *(c == 'G' ? &o->vo.gid_index : c == 'Y' ? &o->vo.tos : &o->vo.qp_timeout) = (int)x;
            break;
        }
        case 'O':
            if (fabric_verbs_op_parse(optarg) < 0) {
                if (speak)
                    fprintf(stderr, "railyard-fabric: unknown --op '%s' (write, read, send)\n",
                            optarg);
                return -1;
            }
            o->vo.op = (enum fabric_verbs_op)fabric_verbs_op_parse(optarg);
            break;
        case 'Q': o->vo.qps = (int)v; break;
        case 'W': o->vo.window = (int)v; break;
        case 'M': {
            double x = -1;
            if (ry_parse_size(optarg, &x) < 0 || x < 8 || x > 64 * 1024 * 1024) {
                if (speak)
                    fprintf(stderr, "railyard-fabric: --msg-size takes 8 bytes to 64M, not '%s'\n",
                            optarg);
                return -1;
            }
            o->vo.msg = (size_t)x;
            break;
        }
        case 'E': o->vo.mem = optarg; break;
        case 'a': o->archive = optarg; break;
        case 'n': o->no_archive = 1; break;
        case 'k': o->keep = (int)v; break;
        case 'p': o->prometheus = optarg; break;
        case 'u': o->junit = optarg; break;
        case 'V': o->vo.verify = 1; break;
        case 'R': o->round_timeout = v; break;
        case 'A': o->start_timeout = v; break;
        case 'C': o->connect_timeout = v; break;
        case 'o': o->run_dir = optarg; break;
        case 'F': o->culprits = optarg; break;
        case 'j': o->json = 1; break;
        case 'B': o->bidir = 1; break;
        case 'H': o->nic_hosts = 1; break;
        case 'L': o->lat_sweep = (int)v; break;
        case 'X': o->retest = 1; break;
        case 'Z': o->link_records = optarg; break;
        case 'D': o->coll_duration = v; break;
        case 'l': o->coll_lib = optarg; break;
        case 'c':
        case 'z': {
            ry_error_t e;
            int n = c == 'c' ? fabric_coll_parse(optarg, &o->coll_mask, &e)
                             : fabric_coll_parse_sizes(optarg, o->coll_sizes, 8, &e);
            if (n < 0) {
                if (speak)
                    fprintf(stderr, "railyard-fabric: %s\n", e.text);
                return -1;
            }
            if (c == 'z')
                o->ncoll_sizes = n;
            break;
        }
        case 'g':
            o->coll_groups = !strcmp(optarg, "rails")                                       ? 1
                             : !strcmp(optarg, "all")                                       ? 2
                             : !strcmp(optarg, "rails,all") || !strcmp(optarg, "all,rails") ? 3
                                                                                            : 0;
            if (!o->coll_groups) {
                if (speak)
                    fprintf(stderr,
                            "railyard-fabric: --coll-groups takes rails, all or rails,all, not "
                            "'%s'\n",
                            optarg);
                return -1;
            }
            break;
        case 'v': o->verbose++; break;
        case 'h':
            if (speak)
                usage(stdout);
            return 1;
        default:
            if (speak)
                fprintf(stderr,
                        "railyard-fabric: unknown option '%s' or missing value, try "
                        "--help\n",
                        argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        if (speak)
            fprintf(stderr, "railyard-fabric: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (strcmp(o->schedule, "neighbor") && strcmp(o->schedule, "ring") &&
        strcmp(o->schedule, "all-pairs") && strcmp(o->schedule, "custom")) {
        if (speak)
            fprintf(stderr,
                    "railyard-fabric: unknown schedule '%s' (neighbor, ring, all-pairs, "
                    "custom)\n",
                    o->schedule);
        return -1;
    }
    if (strcmp(o->transport, "tcp") && strcmp(o->transport, "verbs") &&
        strcmp(o->transport, "mpi")) {
        if (speak)
            fprintf(stderr, "railyard-fabric: unknown transport '%s' (tcp, verbs, mpi)\n",
                    o->transport);
        return -1;
    }
    if (strcmp(o->link_records, "auto") && strcmp(o->link_records, "json") &&
        strcmp(o->link_records, "binary")) {
        if (speak)
            fprintf(stderr,
                    "railyard-fabric: --link-records takes auto, json or binary, not '%s'\n",
                    o->link_records);
        return -1;
    }
    if (!strcmp(o->schedule, "custom") && !o->pairs) {
        if (speak)
            fprintf(stderr, "railyard-fabric: --schedule custom needs --pairs <file>\n");
        return -1;
    }
    if (o->lat_sweep > 16) {
        if (speak)
            fprintf(stderr, "railyard-fabric: --latency-sweep is at most 16\n");
        return -1;
    }
    if (o->streams > 16) {
        if (speak)
            fprintf(stderr, "railyard-fabric: --streams is at most 16\n");
        return -1;
    }
    if (o->vo.qps > 16 || o->vo.window > 4096 ||
        (double)o->vo.qps * o->vo.window * (double)o->vo.msg > 1024.0 * 1024 * 1024) {
        if (speak)
            fprintf(stderr, "railyard-fabric: --qps is at most 16, --window at most 4096, and "
                            "qps x window x msg-size at most 1 GiB\n");
        return -1;
    }
    if (strcmp(o->transport, "verbs") && (o->vo.op != FABRIC_OP_WRITE || o->vo.qps != 1 ||
                                          strcmp(o->vo.mem, "host") || o->vo.verify)) {
        if (speak)
            fprintf(stderr, "railyard-fabric: --op, --qps, --mem and --verify need "
                            "--transport verbs\n");
        return -1;
    }
    if ((o->prometheus || o->junit) && (o->no_archive || (!o->archive && !ry_archive_default()))) {
        if (speak)
            fprintf(stderr, "railyard-fabric: --prometheus and --junit are rendered from the run's "
                            "archive: give --archive <dir> (or set RAILYARD_ARCHIVE)\n");
        return -1;
    }
    if (strcmp(o->coll_lib, "auto") && strcmp(o->coll_lib, "mpi") && strcmp(o->coll_lib, "nccl")) {
        if (speak)
            fprintf(stderr, "railyard-fabric: --coll-lib takes auto, mpi or nccl, not '%s'\n",
                    o->coll_lib);
        return -1;
    }
    if (o->round_timeout < 0)
        o->round_timeout = o->duration * (o->bidir ? 2 : 1) + 10;
    if (o->coll_duration <= 0)
        o->coll_duration = o->duration;
    return 0;
}

/* Wait for a non-blocking MPI request until the deadline, sleeping between tests so that
 * waiting ranks do not steal the cores the measurement needs. 1 done, 0 timed out. */
static int mpi_poll_until(MPI_Request *req, double deadline)
{
    struct timespec nap = { 0, 1000000 };
    int done = 0;

    while (!done) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        if (fabric_now() > deadline)
            return 0;
        nanosleep(&nap, NULL);
    }
    return 1;
}

/* The same where the request is every rank's own business: under SMPI simulated ranks cannot
 * hang, and a poll costs simulated time (and real time, times thousands of ranks): the wait
 * blocks, and a deadline passed is found once it returns. Rank 0's collection polls. */
static int mpi_wait_until(MPI_Request *req, double deadline)
{
#ifdef RAILYARD_SMPI
    MPI_Wait(req, MPI_STATUS_IGNORE);
    return fabric_now() <= deadline;
#else
    return mpi_poll_until(req, deadline);
#endif
}

/* rank 0: each live rank's part of the round (or the end) from r->gos; a rank has taken its
 * last message before rank 0 writes the next (it sends its result first) */
static void send_go(struct run *r, int last)
{
    MPI_Request *reqs = last ? xcalloc((size_t)r->size, sizeof(*reqs)) : NULL;

    for (int k = 1; k < r->size; k++)
        if (!r->rank_lost[k]) {
            MPI_Request sreq;
            MPI_Isend(&r->gos[k], (int)sizeof(r->gos[k]), MPI_BYTE, k, TAG_GO, MPI_COMM_WORLD,
                      &sreq);
            if (last)
                reqs[k] = sreq;
            else
                MPI_Request_free(&sreq);
        }
    /* the last word is taken before rank 0 leaves (a simulated rank's sends end with it) */
    for (int k = 1; last && k < r->size; k++)
        if (!r->rank_lost[k] && !mpi_wait_until(&reqs[k], fabric_now() + 10))
            MPI_Cancel(&reqs[k]);
    free(reqs);
}

static int dropped_me(struct run *r);

/* wait for rank 0's word: the next round, or the end with the verdict */
static int wait_go(struct run *r, struct go_msg *go)
{
    MPI_Request req;
    double deadline;

    MPI_Irecv(go, (int)sizeof(*go), MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, &req);
    /* a round, rank 0's collection, the analysis and the output fit in this deadline, read
     * after the receive is posted (read before it, the SMPI build lost the rounds of every
     * rail but rail 0: t3002) */
    deadline =
        fabric_now() + (r->o.round_timeout + (r->o.coll_mask ? r->o.coll_duration : 0)) * 2 + 30;
    /* before rank 0's first word: a start-up message that left but never came (a send can
     * complete here and be lost on the way) is found through the side channel */
    while (r->side.open && !r->heard &&
           !mpi_poll_until(&req, fmin(deadline, fabric_now() + REACH_GRACE + 5)))
        if (fabric_now() > deadline || dropped_me(r)) {
            r->unheard = fabric_now() <= deadline;
            break;
        }
    if (r->unheard) {
        MPI_Cancel(&req);
        return -1;
    }
    r->heard = 1;
    if (!mpi_wait_until(&req, deadline)) {
        logmsg(r, "no word from rank 0 in time: stopping");
        r->stopped = 1;
        MPI_Cancel(&req);
        return -1;
    }
    return 0;
}

static int read_carrier(const char *netdev)
{
    char buf[32];
    int v;

    if (ry_sysfs_read_int(NULL, &v, NULL, "class/net/%s/carrier", netdev) == 0)
        return v ? 1 : 0;
    if (ry_sysfs_read(NULL, buf, sizeof(buf), NULL, "class/net/%s/operstate", netdev) == 0)
        return !strcmp(buf, "up") ? 1 : !strcmp(buf, "down") ? 0 : -1;
    return -1;
}

static long long read_errors(const char *netdev)
{
    static const char *const c[] = { "rx_errors", "tx_errors", "rx_dropped", "tx_dropped" };
    long long total = 0;
    uint64_t v;

    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        if (ry_sysfs_read_u64(NULL, &v, NULL, "class/net/%s/statistics/%s", netdev, c[i]) < 0)
            return -1;
        total += (long long)v;
    }
    return total;
}

static int name_cmp(const void *a, const void *b)
{
    return ry_natcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- output (rank 0) ---- */

/* a link as railyard-report(5) keeps it, at the precision it is kept (reports/links.h): the same
 * from the JSON objects and from the records; x points into l */
static void link_record(const struct fabric_link *l, int lat, struct ry_link *k,
                        struct ry_link_extra *x)
{
    memset(k, 0, sizeof(*k));
    memset(x, 0, sizeof(*x));
    k->from = (uint32_t)l->a;
    k->to = (uint32_t)l->b;
    k->round = (uint32_t)l->round + 1;
    k->rail = l->rail;
    k->flags = (l->ok ? RY_LINK_OK : 0) | (lat ? RY_LINK_LATENCY : 0);
    k->extra = RY_LINK_NONE;
    k->bw_gbps = l->ok && !lat ? l->bw_gbps : NAN;
    k->lat_p50_us = l->ok && l->lat_p50_us > 0 ? l->lat_p50_us : NAN;
    k->lat_p99_us = l->ok && l->lat_p99_us > 0 ? l->lat_p99_us : NAN;
    k->retrans = k->errors_from = k->errors_to = -1;
    k->bytes = k->wire_bytes = -1;
    k->ce_frac = -1;
    k->cpu_from = k->wait_from = k->cpu_to = k->wait_to = -1;
    k->pressure_from = k->pressure_to = -1;
    x->error = l->ok ? NULL : l->error;
    if (lat) { /* a sweep link keeps its latency and its error, no more */
        ry_link_quantize(k);
        return;
    }
    k->retrans = l->retrans >= 0 ? l->retrans : -1;
    if (l->ok && l->wire_bytes > 0) { /* the wire beside what arrived */
        k->bytes = l->bytes;
        k->wire_bytes = l->wire_bytes;
        k->ce_frac = l->ce_frac;
    }
    k->errors_from = l->errors_a >= 0 ? l->errors_a : -1;
    k->errors_to = l->errors_b >= 0 ? l->errors_b : -1;
    k->cpu_from = l->cpu_a;
    k->wait_from = l->wait_a;
    k->cpu_to = l->cpu_b;
    k->wait_to = l->wait_b;
    k->pressure_from = l->pressure_a;
    k->pressure_to = l->pressure_b;
    x->counters_from = l->counters_a[0] ? l->counters_a : NULL;
    x->counters_to = l->counters_b[0] ? l->counters_b : NULL;
    x->mem_from = l->mem_a[0] ? l->mem_a : NULL;
    x->mem_to = l->mem_b[0] ? l->mem_b : NULL;
    ry_link_quantize(k);
}

static double coll_ratio(const struct run *r);
static void nodes_text(const struct run *r, const int *nodes, int n, char *buf, size_t len);
static const char *size_text(size_t bytes, char *buf, size_t len);

/* the collective phase: every collective timed, with its bound */
static void print_collectives(struct out *o, const struct run *r)
{
    static const char *const purpose[] = { "phase", "confirm", "half", "pair" };

    if (!r->o.coll_mask)
        return;
    out_obj_open(o, "collectives");
    out_str(o, "library", "  collectives: %s",
            r->coll_bound ? (r->coll_nccl ? "nccl" : "mpi") : NULL);
    out_text(o, " (bus bandwidth judged at the largest size against %.0f%% of the bound)\n",
             100 * coll_ratio(r));
    out_str(o, "note", "  %s\n", r->coll_why[0] ? r->coll_why : NULL);
    out_double(o, "ratio_min", NULL, 3, coll_ratio(r), 1);
    out_arr_open(o, "bounds"); /* per rail: the ring bound and the slowest link (Gb/s) */
    for (int k = 0; r->coll_bound && k < r->rails; k++) {
        out_obj_open(o, NULL);
        out_int(o, "rail", NULL, k);
        out_double(o, "bound_gbps", NULL, 4, r->coll_bound[k], r->coll_bound[k] > 0);
        out_double(o, "slowest_link_gbps", NULL, 4, r->coll_slowest[k], r->coll_slowest[k] > 0);
        out_obj_close(o);
    }
    out_arr_close(o);
    if (r->ncoll)
        out_text(o, "  %-13s %-8s %-7s %-9s %-12s %-12s %-6s %s\n", "COLLECTIVE", "GROUP", "RANKS",
                 "SIZE", "BUSBW", "BOUND", "RATIO", "STATUS");
    out_arr_open(o, "results");
    for (size_t i = 0; i < r->ncoll; i++) {
        const struct coll_entry *x = &r->coll[i];
        char group[24], size[24], bw[24] = "n/a", bound[24] = "n/a", ratio[16] = "n/a";
        char status[400];
        int every = x->nnodes == r->nodes;
        if (x->rail >= 0)
            snprintf(group, sizeof(group), "rail%d", x->rail);
        else
            snprintf(group, sizeof(group), "all");
        size_text(x->size, size, sizeof(size));
        if (x->ok)
            snprintf(bw, sizeof(bw), "%.3f Gb/s", x->busbw);
        if (x->bound > 0)
            snprintf(bound, sizeof(bound), "%.3f Gb/s", x->bound);
        if (x->ok && x->bound > 0)
            snprintf(ratio, sizeof(ratio), "%.0f%%", 100 * x->busbw / x->bound);
        if (!x->ok)
            snprintf(status, sizeof(status), "%s", x->error);
        else if (x->purpose == CP_PHASE)
            snprintf(status, sizeof(status), "%s", fabric_coll_verdict_name(x->verdict));
        else {
            char list[200];
            nodes_text(r, x->nodes, x->nnodes, list, sizeof(list));
            snprintf(status, sizeof(status), "%s: %s (%s)", purpose[x->purpose],
                     fabric_coll_verdict_name(x->verdict), list);
        }
        out_obj_open(o, NULL);
        out_str(o, "op", "  %-13s", fabric_coll_name(x->op));
        out_text(o, " %-8s", group);
        out_int_opt(o, "rail", NULL, x->rail, x->rail >= 0);
        out_str(o, "purpose", NULL, purpose[x->purpose]);
        out_int(o, "ranks", " %-7s", x->ranks);
        out_text(o, " %-9s %-12s %-12s %-6s %s\n", size, bw, bound, ratio, status);
        out_int(o, "node_count", NULL, x->nnodes);
        if (!every) {
            out_arr_open(o, "nodes");
            for (int j = 0; j < x->nnodes; j++)
                out_str(o, NULL, NULL, r->names[x->nodes[j]]);
            out_arr_close(o);
        }
        out_str(o, "suspect", NULL, x->suspect >= 0 ? r->names[x->suspect] : NULL);
        out_u64(o, "bytes", NULL, x->size);
        out_bool(o, "ok", NULL, x->ok);
        out_str(o, "error", NULL, x->ok ? NULL : x->error);
        out_int_opt(o, "iters", NULL, x->iters, x->ok);
        out_double(o, "time_us", NULL, 1, x->seconds * 1e6, x->ok);
        out_double(o, "algbw_gbps", NULL, 4, x->algbw, x->ok);
        out_double(o, "busbw_gbps", NULL, 4, x->busbw, x->ok);
        out_double(o, "bound_gbps", NULL, 4, x->bound, x->bound > 0);
        out_double(o, "ratio", NULL, 4, x->ok && x->bound > 0 ? x->busbw / x->bound : 0,
                   x->ok && x->bound > 0);
        out_double(o, "host_share", NULL, 3, x->host_share, x->ok);
        out_str(o, "verdict", NULL, x->ok ? fabric_coll_verdict_name(x->verdict) : "failed");
        out_obj_close(o);
    }
    out_arr_close(o);
    out_obj_close(o);
}

/* where: -1 stdout (links always as objects), 0 the archive, 1 the run directory (links in
 * records when r->records) */
static void print_results(struct out *o, struct run *r, const struct topo_findings *f, int done,
                          int where)
{
    int records = where >= 0 && r->records == REC_BINARY;
    char stamp[64];
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
    out_int(o, "schema_version", NULL, SCHEMA_VERSION);
    out_str(o, "tool", NULL, "railyard-fabric");
    out_str(o, "version", NULL, PACKAGE_VERSION);
    out_str(o, "time", NULL, stamp);
    out_bool(o, "complete", NULL, done);
    out_str(o, "map", NULL, r->o.map);
    out_str(o, "cluster", NULL, r->map_cluster);
    out_str(o, "node_type", NULL, r->type_name);
    out_str(o, "transport", NULL, r->o.transport);
    if (!strcmp(r->o.transport, "verbs")) {
        const struct fabric_verbs_opts *v = &r->o.vo;
        out_obj_open(o, "verbs");
        out_str(o, "op", "railyard-fabric: verbs RDMA %s", fabric_verbs_op_name(v->op));
        out_int(o, "qps", ", %s queue pair(s)", v->qps);
        out_int(o, "window", " x %s in flight", v->window);
        out_u64(o, "msg_bytes", ", %s-byte messages", v->msg);
        out_str(o, "mem", ", %s memory", v->mem);
        out_bool(o, "verify", NULL, v->verify);
        out_text(o, "%s\n", v->verify ? ", every byte verified" : "");
        out_int_opt(o, "tos", NULL, v->tos, v->tos >= 0);
        out_int_opt(o, "gid_index", NULL, v->gid_index, v->gid_index >= 0);
        out_int(o, "qp_timeout", NULL, v->qp_timeout);
        out_obj_close(o);
    } else if (!strcmp(r->o.transport, "mpi")) {
        out_obj_open(o, "mpi");
        out_int(o, "window", "railyard-fabric: MPI messages, %s in flight", r->o.vo.window);
        out_u64(o, "msg_bytes", ", %s bytes each\n", r->o.vo.msg);
        out_obj_close(o);
    }
    out_str(o, "schedule", "railyard-fabric: %s", r->o.schedule);
    out_int(o, "nodes", " schedule, %s nodes", r->nodes);
    out_int(o, "rails", " x %s rails", r->rails);
    out_u64(o, "rounds_done", ", %s", r->rounds_done);
    out_u64(o, "rounds", "/%s rounds", r->sched.n);
    out_double(o, "duration_s", " of %s s", 1, r->o.duration, 1);
    out_double(o, "elapsed_s", ", %s s in all\n", 1, fabric_now() - r->started, 1);
    /* the analysis's own CPU time (rank 0 alone, no MPI call inside: under SMPI none of the
     * other ranks' time either) */
    out_double(o, "analysis_cpu_s", NULL, 3, r->analysis_cpu, done);
    out_arr_open(o, "rail_expect_gbps"); /* the lowest acceptable goodput, null: none */
    for (int i = 0; i < r->rails; i++)
        out_double(o, NULL, NULL, 3, r->expect ? r->expect[i] : -1, r->expect && r->expect[i] > 0);
    out_arr_close(o);
    out_arr_open(o, "node_names");
    for (int i = 0; i < r->nodes; i++)
        out_str(o, NULL, NULL, r->names[i]);
    out_arr_close(o);
    if (records) {
        const struct ry_links_writer *w = r->lw[where];
        out_obj_open(o, "links_file");
        out_str(o, "path", NULL, ry_links_file_name());
        out_str(o, "format", NULL, "railyard-links");
        out_int(o, "version", NULL, RY_LINKS_VERSION);
        out_u64(o, "records", NULL, r->lw_valid[where]);
        /* a write that failed (a full disk): the links measured that the file lacks */
        out_u64(o, "missing", NULL, r->nlinks + r->nlat - r->lw_valid[where]);
        out_int(o, "record_bytes", NULL, RY_LINK_RECORD_BYTES);
        out_arr_open(o, "extras");
        for (size_t i = 0; w && i < ry_links_writer_nextra(w); i++) {
            const struct ry_link_extra *x = ry_links_writer_extra(w, i);
            out_obj_open(o, NULL);
            out_str(o, "error", NULL, x->error);
            out_str(o, "counters_from", NULL, x->counters_from);
            out_str(o, "counters_to", NULL, x->counters_to);
            out_str(o, "mem_from", NULL, x->mem_from);
            out_str(o, "mem_to", NULL, x->mem_to);
            out_obj_close(o);
        }
        out_arr_close(o);
        out_obj_close(o);
    }
    if (r->nlinks && !records)
        out_text(o, "  %-5s %-4s %-24s %-12s %-9s %-22s %s\n", "ROUND", "RAIL", "LINK", "GOODPUT",
                 "DELIVERED", "LATENCY p50/p99", "STATUS");
    if (!records)
        out_arr_open(o, "links");
    for (size_t i = 0; !records && i < r->nlinks; i++) {
        const struct fabric_link *l = &r->links[i];
        char pair[NAME_LEN * 2 + 8], bw[32] = "n/a", lat[48] = "n/a", wire[16] = "n/a";
        struct ry_link k;
        struct ry_link_extra x;
        link_record(l, 0, &k, &x);
        snprintf(pair, sizeof(pair), "%s->%s", r->names[l->a], r->names[l->b]);
        if (ry_link_goodput_ratio(&k) >= 0) /* the share of the wire that arrived */
            snprintf(wire, sizeof(wire), "%.2f%%", 100 * ry_link_goodput_ratio(&k));
        if (l->ok) {
            snprintf(bw, sizeof(bw), "%.3f Gb/s", l->bw_gbps);
            if (l->lat_p50_us > 0)
                snprintf(lat, sizeof(lat), "%.0f/%.0f us", l->lat_p50_us, l->lat_p99_us);
        }
        out_obj_open(o, NULL);
        out_int(o, "round", "  %-5s", l->round + 1);
        out_int(o, "rail", " %-4s", l->rail);
        out_str(o, "from", NULL, r->names[l->a]);
        out_str(o, "to", NULL, r->names[l->b]);
        {
            double w = l->wait_a > l->wait_b ? l->wait_a : l->wait_b,
                   p = l->pressure_a > l->pressure_b ? l->pressure_a : l->pressure_b;
            char busy[64] = "";
            if (w >= FABRIC_HOST_WAIT && w >= p)
                snprintf(busy, sizeof(busy), " (a rank waited for a CPU %.0f%%)", 100 * w);
            else if (p >= FABRIC_HOST_WAIT)
                snprintf(busy, sizeof(busy), " (a host short of CPU %.0f%%)", 100 * p);
            out_text(o, " %-24s %-12s %-9s %-22s %s%s\n", pair, bw, wire, lat,
                     l->ok            ? "ok"
                     : l->rank_failed ? "rank lost"
                                      : l->error,
                     busy);
        }
        out_bool(o, "ok", NULL, l->ok);
        out_str(o, "error", NULL, x.error);
        out_double(o, "bw_gbps", NULL, 4, k.bw_gbps, !isnan(k.bw_gbps));
        out_double(o, "lat_p50_us", NULL, 1, k.lat_p50_us, !isnan(k.lat_p50_us));
        out_double(o, "lat_p99_us", NULL, 1, k.lat_p99_us, !isnan(k.lat_p99_us));
        out_int_opt(o, "retrans", NULL, k.retrans, k.retrans >= 0);
        out_int_opt(o, "errors_from", NULL, k.errors_from, k.errors_from >= 0);
        out_int_opt(o, "errors_to", NULL, k.errors_to, k.errors_to >= 0);
        out_str(o, "counters_from", NULL, x.counters_from);
        out_str(o, "counters_to", NULL, x.counters_to);
        out_str(o, "mem_from", NULL, x.mem_from);
        out_str(o, "mem_to", NULL, x.mem_to);
        /* each end's host: the share of the round its rank ran, and waited for a CPU, and the
         * share some task of the host waited for one */
        out_double(o, "cpu_from", NULL, 3, k.cpu_from, k.cpu_from >= 0);
        out_double(o, "wait_from", NULL, 3, k.wait_from, k.wait_from >= 0);
        out_double(o, "pressure_from", NULL, 3, k.pressure_from, k.pressure_from >= 0);
        out_double(o, "cpu_to", NULL, 3, k.cpu_to, k.cpu_to >= 0);
        out_double(o, "wait_to", NULL, 3, k.wait_to, k.wait_to >= 0);
        out_double(o, "pressure_to", NULL, 3, k.pressure_to, k.pressure_to >= 0);
        /* the sender's bytes on the wire beside those delivered, and the share marked CE */
        out_int_opt(o, "bytes", NULL, k.bytes, k.bytes >= 0);
        out_int_opt(o, "wire_bytes", NULL, k.wire_bytes, k.wire_bytes >= 0);
        out_double(o, "goodput_ratio", NULL, 4, ry_link_goodput_ratio(&k),
                   ry_link_goodput_ratio(&k) >= 0);
        out_double(o, "ecn_marked", NULL, 4, k.ce_frac, k.ce_frac >= 0);
        out_obj_close(o);
    }
    if (!records)
        out_arr_close(o);
    if (r->nlat) { /* --latency-sweep: ping-pong only */
        size_t bad = 0;
        for (size_t i = 0; i < r->nlat; i++)
            bad += !r->lat_links[i].ok;
        out_text(o, "  latency sweep: %zu links, %zu failed\n", r->nlat, bad);
        if (!records)
            out_arr_open(o, "latency_links");
        for (size_t i = 0; !records && i < r->nlat; i++) {
            const struct fabric_link *l = &r->lat_links[i];
            struct ry_link k;
            struct ry_link_extra x;
            link_record(l, 1, &k, &x);
            out_obj_open(o, NULL);
            out_int(o, "round", NULL, l->round + 1);
            out_int(o, "rail", NULL, l->rail);
            out_str(o, "from", NULL, r->names[l->a]);
            out_str(o, "to", NULL, r->names[l->b]);
            out_bool(o, "ok", NULL, l->ok);
            out_str(o, "error", NULL, x.error);
            out_double(o, "lat_p50_us", NULL, 2, k.lat_p50_us, !isnan(k.lat_p50_us));
            out_double(o, "lat_p99_us", NULL, 2, k.lat_p99_us, !isnan(k.lat_p99_us));
            out_obj_close(o);
        }
        if (!records)
            out_arr_close(o);
    }
    print_collectives(o, r);
    if (f) {
        report_findings(o, f, r->o.verbose);
        /* what was measured on starved hosts only is not a pass */
        out_str(o, "verdict", " -> %s\n",
                f->nfail                                     ? "fail"
                : f->nok + f->nwarn == 0 && f->nunjudged > 0 ? "cannot-judge"
                                                             : "pass");
    } else { /* the analysis runs at the end: until then no finding is known */
        out_arr_open(o, "findings");
        out_arr_close(o);
    }
    if (r->archive.dir[0])
        ry_archive_print_run(o, &r->archive, done);
}

struct print_arg {
    struct run *r;
    const struct topo_findings *f;
    int done;
    int where; /* print_results' */
};

static int fill_results(FILE *fp, void *arg, ry_error_t *err)
{
    struct print_arg *p = arg;
    struct out *o = out_create(fp, OUT_JSON, err);
    int rc;

    if (!o)
        return -1;
    print_results(o, p->r, p->f, p->done, p->where);
    rc = out_finish(o, err);
    out_destroy(o);
    return rc;
}

/* links as records or JSON objects: --link-records, or how many the schedule plans */
static void decide_records(struct run *r)
{
    size_t planned = 0;

    if (r->records != REC_UNDECIDED)
        return;
    for (size_t i = 0; i < r->sched.n; i++)
        planned +=
            r->sched.rounds[i].n * (size_t)r->rails * (r->o.bidir && !r->lat_only[i] ? 2 : 1);
    r->records = !strcmp(r->o.link_records, "binary")        ? REC_BINARY
                 : !strcmp(r->o.link_records, "json")        ? REC_JSON
                 : planned + r->nlinks > RY_LINKS_INLINE_MAX ? REC_BINARY
                                                             : REC_JSON;
}

/* append the links measured since the last save to the records in dir (k: 0 the archive, 1
 * the run directory); only what was flushed whole is named in the JSON. A write that fails
 * (a full disk) is said once and the file is left as it was: the verdict stands. */
static void append_records(struct run *r, int k, const char *dir)
{
    ry_error_t err;
    struct ry_link l;
    struct ry_link_extra x;

    if (r->records != REC_BINARY || r->lw_broken[k])
        return;
    if (!r->lw[k] && !(r->lw[k] = ry_links_writer_open(dir, &err)))
        goto broken;
    for (; r->lw_links[k] < r->nlinks; r->lw_links[k]++) {
        link_record(&r->links[r->lw_links[k]], 0, &l, &x);
        if (ry_links_writer_add(r->lw[k], &l, &x, &err) < 0)
            goto broken;
    }
    for (; r->lw_lat[k] < r->nlat; r->lw_lat[k]++) {
        link_record(&r->lat_links[r->lw_lat[k]], 1, &l, &x);
        if (ry_links_writer_add(r->lw[k], &l, &x, &err) < 0)
            goto broken;
    }
    if (ry_links_writer_flush(r->lw[k], &err) < 0)
        goto broken;
    r->lw_valid[k] = ry_links_writer_count(r->lw[k]);
    return;
broken:
    logmsg(r, "link records: %s (the report names the %zu written before)", err.text,
           r->lw_valid[k]);
    r->lw_broken[k] = 1;
}

/* the archive's report.json after every round (complete: false until the end), and its
 * history row, so a run cut short leaves both */
static void save_archive(struct run *r, const struct topo_findings *f, int done)
{
    struct print_arg p = { r, f, done, 0 };
    ry_error_t err;

    if (!r->archive.dir[0])
        return;
    append_records(r, 0, r->archive.dir);
    if (ry_archive_write(&r->archive, "report.json", fill_results, &p, &err) < 0) {
        logmsg(r, "archive: %s", err.text);
        return;
    }
    if (done) {
        if (ry_archive_finish(&r->archive, r->o.keep, 0, r->o.prometheus, r->o.junit, &err) < 0)
            logmsg(r, "archive %s: %s (the verdict stands)", r->archive.dir, err.text);
        return;
    }
    ry_archive_record(&r->archive, &err);
}

/* the archive's report and results.json in the run directory as they stand, each rewritten
 * atomically */
static void save_reports(struct run *r, const struct topo_findings *f, int done)
{
    struct print_arg p = { r, f, done, 1 };
    ry_error_t err;

    decide_records(r);
    save_archive(r, f, done);
    if (r->run_dir.dir[0]) {
        append_records(r, 1, r->run_dir.dir);
        if (ry_archive_write(&r->run_dir, "results.json", fill_results, &p, &err) < 0)
            logmsg(r, "%s", err.text);
    }
    if (done)
        for (int k = 0; k < 2; k++) {
            ry_links_writer_close(r->lw[k]);
            r->lw[k] = NULL;
        }
}

/* the reports after a round: rewritten whole, so at most every 10 s while the rounds run (many
 * short rounds would cost the square of their number) */
static void save_run(struct run *r, const struct topo_findings *f, int done)
{
    if (!done && r->saved > 0 && fabric_now() - r->saved < 10)
        return;
    r->saved = fabric_now();
    save_reports(r, f, done);
}

static int prepare_run_dir(struct run *r)
{
    const char *root = r->o.no_archive ? NULL : r->o.archive ? r->o.archive : ry_archive_default();
    ry_error_t err;

    if (root &&
        ry_archive_create(&r->archive, root, "fabric", r->map_cluster ? r->map_cluster : r->host,
                          r->argc, r->argv, r->o.map, &err) < 0) {
        logmsg(r, "archive: %s (no archive for this run)", err.text);
        r->archive.dir[0] = '\0';
    }
    if (r->o.run_dir && ry_run_dir_init(&r->run_dir, r->o.run_dir, "fabric", r->argc, r->argv,
                                        r->o.map, &err) < 0) {
        logmsg(r, "%s", err.text);
        return -1;
    }
    return 0;
}

/* ---- the run ---- */

/* rank 0: world rank k's part of round `round` into g */
static void task_of(const struct run *r, size_t round, int k, struct go_msg *g)
{
    const struct fabric_round *rd = &r->sched.rounds[round];
    int node = -1, rail = r->info[k].local_rank;

    memset(g, 0, sizeof(*g));
    g->round = (int32_t)round;
    g->lat_only = r->lat_only[round];
    g->role = ROLE_IDLE;
    g->peer = -1;
    for (int n = 0; n < r->nodes; n++)
        if (r->rank_of[n * r->rails + rail] == k)
            node = n;
    for (size_t i = 0; node >= 0 && i < rd->n; i++)
        if (rd->pairs[i].a == node || rd->pairs[i].b == node) {
            int peer = rd->pairs[i].a == node ? rd->pairs[i].b : rd->pairs[i].a;
            int pk = r->rank_of[peer * r->rails + rail];
            /* an end unreached over MPI or lost earlier: failed unmeasured, its partner idles */
            if (!fabric_pair_measured(r->unreached, r->rank_lost, k, pk))
                break;
            g->role = rd->pairs[i].a == node ? ROLE_SEND : ROLE_RECV;
            g->peer = peer;
            g->pep = r->info[pk].ep;
            break;
        }
}

/* This rank's part of a round: send, receive or stay idle, then its result. */
static void run_round(const struct run *r, const struct go_msg *g, struct result_msg *res)
{
    const struct opts *o = &r->o;
    const struct fabric_transport *t = r->t;
    const struct fabric_endpoint *pe = &g->pep;
    const char *netdev = r->netdev;
    void *ts = r->ts;
    double start = fabric_now(), deadline = start + o->round_timeout,
           connect_by = start + o->connect_timeout;
    struct fabric_stats st;
    ry_error_t err = { "" };
    long long e0 = read_errors(netdev), e1;
    struct fabric_hwc h0, h1;
    struct fabric_host_sample s0, s1;
    char rdev[64];
    int rc = 0, rport, hwc;

    memset(res, 0, sizeof(*res));
    fabric_stats_clear(&st);
    res->wire_bytes = res->wire_bytes2 = res->retrans2 = -1;
    res->rx_pkts = res->rx_wasted = res->rx_marked = res->tx_pkts = -1;
    res->ce_frac = res->ce_frac2 = -1;
    res->round = g->round;
    res->role = g->role;
    res->peer = g->peer;
    res->carrier = read_carrier(netdev);
    res->retrans = -1;
    /* the RDMA port's error and congestion counters (RoCE, IPoIB, any verbs run) */
    hwc = fabric_rdma_port(NULL, netdev, rdev, sizeof(rdev), &rport) == 0 &&
          fabric_hwc_sample(NULL, rdev, rport, &h0) == 0;
    /* the rank's own host over the round: a starved rank measures its host, not its link */
    fabric_host_sample(&s0);
    if (res->role != ROLE_IDLE) {
        if (!r->me.ep.ok)
            rc = ry_errorf(&err, "%s", r->me.ep.error);
        else if (!pe->ok)
            rc = ry_errorf(&err, "peer: %s", pe->error);
        else if (g->lat_only) {
            if (res->role == ROLE_SEND)
                rc = t->ping(ts, pe, o->iters, deadline, &st, &err);
            else if (o->iters > 0)
                rc = t->pong(ts, pe, deadline, &err);
        } else if (res->role == ROLE_SEND) {
            rc = t->send(ts, pe, o->duration, o->streams, connect_by, deadline, &st, &err);
            if (rc == 0)
                rc = t->ping(ts, pe, o->iters, deadline, &st, &err);
        } else {
            rc = t->recv(ts, pe, o->streams, connect_by, deadline, &st, &err);
            if (rc == 0 && o->iters > 0)
                rc = t->pong(ts, pe, deadline, &err);
        }
    }
    /* the reverse direction: the receiver sends, the sender receives */
    if (o->bidir && !g->lat_only && res->role != ROLE_IDLE && rc == 0) {
        struct fabric_stats st2;
        ry_error_t err2 = { "" };
        double start2 = fabric_now(), connect2 = start2 + o->connect_timeout;
        int rc2 = res->role == ROLE_RECV
                      ? t->send(ts, pe, o->duration, o->streams, connect2, deadline, &st2, &err2)
                      : t->recv(ts, pe, o->streams, connect2, deadline, &st2, &err2);
        res->ok2 = rc2 == 0;
        res->bw2_gbps = rc2 == 0 ? st2.bw_gbps : 0;
        res->bytes2 = rc2 == 0 ? st2.bytes : 0;
        res->wire_bytes2 = rc2 == 0 ? st2.wire_bytes : -1;
        res->retrans2 = rc2 == 0 ? st2.retrans : -1;
        res->ce_frac2 = rc2 == 0 ? st2.ce_frac : -1;
        snprintf(res->error2, sizeof(res->error2), "%s", rc2 == 0 ? "" : err2.text);
    }
    fabric_host_sample(&s1);
    fabric_host_load(&s0, &s1, &res->cpu_frac, &res->wait_frac, &res->pressure_frac);
    if (t->polls)
        res->cpu_frac = -1; /* busy-polling: a full CPU by design */
    e1 = read_errors(netdev);
    res->ok = rc == 0;
    snprintf(res->error, sizeof(res->error), "%s", rc == 0 ? "" : err.text);
    res->bw_gbps = st.bw_gbps;
    res->lat_p50_us = st.lat_p50_us;
    res->lat_p99_us = st.lat_p99_us;
    res->retrans = st.retrans;
    res->bytes = st.bytes;
    res->wire_bytes = st.wire_bytes;
    res->ce_frac = st.ce_frac;
    res->errors = e0 >= 0 && e1 >= 0 ? e1 - e0 : -1;
    if (hwc && fabric_hwc_sample(NULL, rdev, rport, &h1) == 0) {
        long long d = fabric_hwc_delta(&h0, &h1, res->counters, sizeof(res->counters));
        struct fabric_hwc_rx rx;
        res->errors = (res->errors > 0 ? res->errors : 0) + d;
        if (fabric_hwc_received(&h0, &h1, &rx) == 0) {
            res->rx_pkts = rx.pkts;
            res->rx_wasted = rx.wasted;
            res->rx_marked = rx.marked;
        }
        res->tx_pkts = rx.sent;
    }
    snprintf(res->mem, sizeof(res->mem), "%.95s", st.mem);
}

/* A link whose sender counted no wire bytes (verbs): its wire from the RDMA ports over the round,
 * the bytes that arrived scaled by the packets the sender's port sent (the receiver's received,
 * when the sender's count is unknown or lower) against those the receiver could use (received,
 * less those thrown away out of sequence): what was lost never arrived, what followed it was
 * thrown away. The ports' counters hold all their traffic: what else ran on them counts too. */
static void wire_from_port(struct fabric_link *l, const struct result_msg *tx,
                           const struct result_msg *rx)
{
    long long used = rx->rx_pkts - rx->rx_wasted,
              wire = tx->tx_pkts > rx->rx_pkts ? tx->tx_pkts : rx->rx_pkts;

    if (rx->bytes > l->bytes)
        l->bytes = rx->bytes;
    if (l->bytes <= 0 || rx->rx_pkts <= 0 || rx->rx_wasted < 0 || used <= 0)
        return;
    l->wire_bytes = (long long)((double)l->bytes * (double)wire / (double)used + 0.5);
    if (rx->rx_marked >= 0)
        l->ce_frac = (double)rx->rx_marked / (double)rx->rx_pkts;
}

static void add_links(struct run *r, int round, const struct result_msg *res, const int *got)
{
    const struct fabric_round *rd = &r->sched.rounds[round];

    for (size_t i = 0; i < rd->n; i++)
        for (int rail = 0; rail < r->rails; rail++) {
            int a = rd->pairs[i].a, b = rd->pairs[i].b;
            int ra = r->rank_of[a * r->rails + rail], rb = r->rank_of[b * r->rails + rail];
            struct fabric_link *l;
            if (r->lat_only[round]) {
                xgrow(&r->lat_links, &r->lat_alloc, r->nlat + 1, sizeof(*r->lat_links));
                l = &r->lat_links[r->nlat++];
            } else {
                xgrow(&r->links, &r->links_alloc, r->nlinks + 1, sizeof(*r->links));
                l = &r->links[r->nlinks++];
            }
            memset(l, 0, sizeof(*l));
            l->round = round;
            l->rail = rail;
            l->a = a;
            l->b = b;
            l->retrans = l->wire_bytes = -1;
            l->ce_frac = -1;
            l->errors_a = l->errors_b = -1;
            l->lat_p50_us = l->lat_p99_us = -1;
            l->cpu_a = l->wait_a = l->cpu_b = l->wait_b = -1;
            l->pressure_a = l->pressure_b = -1;
            if (r->unreached && (r->unreached[ra] || r->unreached[rb])) {
                int u = r->unreached[ra] ? ra : rb;
                snprintf(l->error, sizeof(l->error),
                         "not measured: rank %d (%s, rail %d) reaches no rank over MPI", u,
                         r->info[u].host, rail);
                continue;
            }
            if (!got[ra] || !got[rb] || r->rank_lost[ra] || r->rank_lost[rb]) {
                l->rank_failed = 1;
                snprintf(l->error, sizeof(l->error), "rank lost");
                continue;
            }
            l->ok = res[ra].ok && res[rb].ok;
            snprintf(l->error, sizeof(l->error), "%s",
                     fabric_link_error(res[ra].ok, res[ra].error, res[rb].ok, res[rb].error));
            /* the receiver measured the goodput; the sender measured the latency */
            l->bw_gbps = res[rb].bw_gbps;
            l->lat_p50_us = res[ra].lat_p50_us > 0 ? res[ra].lat_p50_us : -1;
            l->lat_p99_us = res[ra].lat_p99_us > 0 ? res[ra].lat_p99_us : -1;
            l->retrans = res[ra].retrans;
            /* the sender's TCP counters (or RDMA port's): its wire beside what arrived */
            l->bytes = res[ra].bytes;
            l->wire_bytes = res[ra].wire_bytes;
            l->ce_frac = res[ra].ce_frac;
            if (l->wire_bytes < 0)
                wire_from_port(l, &res[ra], &res[rb]);
            l->errors_a = res[ra].errors;
            l->errors_b = res[rb].errors;
            snprintf(l->counters_a, sizeof(l->counters_a), "%s", res[ra].counters);
            snprintf(l->counters_b, sizeof(l->counters_b), "%s", res[rb].counters);
            snprintf(l->mem_a, sizeof(l->mem_a), "%s", res[ra].mem);
            snprintf(l->mem_b, sizeof(l->mem_b), "%s", res[rb].mem);
            l->cpu_a = res[ra].cpu_frac;
            l->wait_a = res[ra].wait_frac;
            l->cpu_b = res[rb].cpu_frac;
            l->wait_b = res[rb].wait_frac;
            l->pressure_a = res[ra].pressure_frac;
            l->pressure_b = res[rb].pressure_frac;
            if (r->o.bidir && l->ok && !r->lat_only[round]) {
                /* the reverse link: b sent, a measured */
                struct fabric_link rev = *l;
                rev.a = b;
                rev.b = a;
                rev.ok = res[ra].ok2 && res[rb].ok2;
                snprintf(
                    rev.error, sizeof(rev.error), "%s",
                    fabric_link_error(res[rb].ok2, res[rb].error2, res[ra].ok2, res[ra].error2));
                rev.bw_gbps = res[ra].bw2_gbps;
                rev.lat_p50_us = rev.lat_p99_us = -1;
                rev.cpu_a = l->cpu_b, rev.wait_a = l->wait_b;
                rev.cpu_b = l->cpu_a, rev.wait_b = l->wait_a;
                rev.pressure_a = l->pressure_b, rev.pressure_b = l->pressure_a;
                rev.retrans = res[rb].retrans2;
                rev.bytes = res[rb].bytes2;
                rev.wire_bytes = res[rb].wire_bytes2;
                rev.ce_frac = res[rb].ce_frac2;
                xgrow(&r->links, &r->links_alloc, r->nlinks + 1, sizeof(*r->links));
                r->links[r->nlinks++] = rev;
            }
        }
}

/* The analysis input from what rank 0 has collected. *ports and in->failed_nodes are the
 * caller's to free. A node whose rank was lost is named once. */
static void make_input(const struct run *r, struct fabric_input *in, struct fabric_port **ports)
{
    int *uniq = xcalloc(r->nfailed ? r->nfailed : 1, sizeof(*uniq));
    size_t nu = 0;

    *ports = xcalloc((size_t)r->nodes * (size_t)r->rails, sizeof(**ports));
    for (int i = 0; i < r->nodes * r->rails; i++)
        (*ports)[i].carrier = r->info[r->rank_of[i]].carrier;
    for (size_t i = 0; i < r->nfailed; i++) {
        int seen = 0;
        for (size_t k = 0; k < nu; k++)
            seen |= uniq[k] == r->failed[i];
        if (!seen)
            uniq[nu++] = r->failed[i];
    }
    *in = (struct fabric_input){ r->nodes, r->rails,       r->names,  *ports, r->expect,
                                 r->links, r->nlinks,      uniq,      nu,     r->lat_links,
                                 r->nlat,  r->goodput_min, r->ecn_max };
}

/* rank 0: the rounds of extra after the schedule's (extra's pair lists move over), latency
 * only or not */
static void append_rounds(struct run *r, struct fabric_schedule *extra, int lat_only)
{
    r->sched.rounds = xrealloc(r->sched.rounds, (r->sched.n + extra->n) * sizeof(*r->sched.rounds));
    memcpy(r->sched.rounds + r->sched.n, extra->rounds, extra->n * sizeof(*extra->rounds));
    r->lat_only = xrealloc(r->lat_only, r->sched.n + extra->n);
    memset(r->lat_only + r->sched.n, lat_only, extra->n);
    r->sched.n += extra->n;
    free(extra->rounds);
    extra->rounds = NULL;
}

/* --retest (rank 0): the suspects of the rounds so far, and bisect rounds (each suspect against
 * a known-good node) appended to the schedule; the other ranks learn their parts round by
 * round. */
static void retest(struct run *r, int pass)
{
    int n = r->nodes, *suspect = xcalloc((size_t)n, sizeof(int)),
        *good = xcalloc((size_t)n, sizeof(int));
    int *list = xcalloc((size_t)n, sizeof(int));
    struct fabric_schedule extra;
    struct fabric_port *ports;
    struct fabric_input in;
    size_t ns = 0;
    ry_error_t err;

    make_input(r, &in, &ports);
    fabric_retest_suspects(&in, pass, suspect, good);
    free((void *)in.failed_nodes);
    free(ports);
    for (int k = 0; k < n; k++)
        if (suspect[k])
            list[ns++] = k;
    if (ns > 0 && fabric_schedule_bisect(n, list, ns, good, &extra, &err) == 0) {
        append_rounds(r, &extra, 0);
        logmsg(r, "retesting %zu suspect node%s in %zu round%s", ns, ns == 1 ? "" : "s", extra.n,
               extra.n == 1 ? "" : "s");
    } else if (ns > 0)
        logmsg(r, "no retest: %s", err.text);
    free(list);
    free(suspect);
    free(good);
}

/* ---- MPI_Init's deadline ----
 * MPI_Init waits for every rank (Open MPI's and Slurm's PMIx fence): a rank that never started
 * (killed at its start, a node that could not launch it) stops the others there for good,
 * before railyard-fabric has a word to say. A watchdog thread gives MPI_Init the start-up
 * deadline (--start-timeout, read from argv before MPI_Init may parse it), then says why on
 * stderr and leaves with exit status 2: the run could not be judged. */
#ifndef RAILYARD_SMPI
#include <pthread.h>
#include <stdatomic.h>

/* what the watchdog and MPI_Init's caller share (on the caller's stack: railyard-fabric keeps
 * no writable globals, as ranks share one process under SMPI) */
struct init_watch {
    double limit;
    atomic_int done;
};

static void *init_watchdog(void *arg)
{
    struct init_watch *w = arg;
    double end = fabric_now() + w->limit;
    char msg[256];
    int n;

    while (!atomic_load(&w->done)) {
        if (fabric_now() > end) {
            n = snprintf(msg, sizeof(msg),
                         "railyard-fabric: MPI_Init did not complete in %.0f s (a rank did not "
                         "start, or the launcher cannot reach one): not judged\n",
                         w->limit);
            if (write(STDERR_FILENO, msg, (size_t)n) < 0) {
                /* nothing more to say */
            }
            _exit(2);
        }
        struct timespec ts = { 0, 100000000 };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* the --start-timeout in argv, else the default (60 s) */
static double start_timeout_arg(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--start-timeout") && i + 1 < argc)
            v = argv[i + 1];
        else if (!strncmp(argv[i], "--start-timeout=", 16))
            v = argv[i] + 16;
        if (v && atof(v) > 0)
            return atof(v);
    }
    return 60;
}

static void mpi_init_with_deadline(int *argc, char ***argv)
{
    struct init_watch w = { .limit = start_timeout_arg(*argc, *argv) };
    pthread_t t;
    int watched;

    atomic_init(&w.done, 0);
    watched = pthread_create(&t, NULL, init_watchdog, &w) == 0;
    MPI_Init(argc, argv);
    atomic_store(&w.done, 1);
    if (watched)
        pthread_join(t, NULL);
}
#else
static void mpi_init_with_deadline(int *argc, char ***argv)
{
    MPI_Init(argc, argv); /* a simulated rank always starts */
}
#endif

/* ---- the phases of main ---- */

#define GO_ON (-1) /* a phase's "carry on"; any other value is the exit status to leave with */

/* Set up: MPI, the options, the map. */
static int set_up(struct run *r, int argc, char **argv)
{
    ry_error_t err = { "" };
    int rc;

    memset(r, 0, sizeof(*r));
    r->node = -1;
    r->world = MPI_COMM_WORLD;
    mpi_init_with_deadline(&argc, &argv);
    r->argc = argc;
    r->argv = argv;
    MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    {
        /* the side channel: without it (no PMIx server, or a build without PMIx) the start-up
         * exchange is MPI's alone, and a rank that MPI cannot reach stops the run (exit 2) */
        char why[160];
        if (fabric_side_open(&r->side, why, sizeof(why)) < 0 && getenv("RAILYARD_FABRIC_DEBUG"))
            fprintf(stderr, "railyard-fabric: rank %d: no side channel: %s\n", r->rank, why);
    }
    {
        /* the host's name (under SMPI: the simulated host's) */
        char pn[MPI_MAX_PROCESSOR_NAME];
        int len = 0;
        if (MPI_Get_processor_name(pn, &len) != MPI_SUCCESS || len <= 0)
            gethostname(pn, sizeof(pn) - 1), len = (int)strnlen(pn, sizeof(pn) - 1);
        snprintf(r->host, sizeof(r->host), "%.*s", len, pn);
    }
    r->started = fabric_now();
    if ((rc = parse_opts(argc, argv, &r->o, r->rank == 0)) != 0)
        return rc > 0 ? 0 : 2;
    r->t = !strcmp(r->o.transport, "verbs") ? &fabric_transport_verbs
           : !strcmp(r->o.transport, "mpi") ? &fabric_transport_mpi
                                            : &fabric_transport_tcp;
    if (r->o.map && !(r->map = topo_map_load(r->o.map, &err))) {
        if (r->rank == 0)
            logmsg(r, "%s", err.text);
        return 2;
    }
    return GO_ON;
}

/* The NUMA node the rank is bound to: -1 when it may run anywhere. */
#ifndef RAILYARD_SMPI
static int bound_numa(void)
{
    cpu_set_t set;
    int cpus[CPU_SETSIZE];
    size_t ncpu = 0;

    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            cpus[ncpu++] = c;
    return topo_numa_of_cpus(NULL, cpus, ncpu);
}
#endif

struct placing { /* a rank -> rank 0 when rank 0 places the ranks */
    char node[NAME_LEN];
    int32_t rail; /* --nic-hosts: from the host name; -1 otherwise */
};

/* This rank's node and rail (me->host, local_rank, local_size). By default the ranks that share
 * its machine (MPI's shared-memory communicator) are its node's, and its rail is its place
 * among them. Where the machine is not the node (RAILYARD_FABRIC_NODE; Slurm's SLURMD_NODENAME,
 * as several slurmd may share one machine; --nic-hosts, a simulated host per NIC named
 * NODE-rRAIL) rank 0 gathers the node names and tells each rank its place: no rank holds every
 * other's name. */
static int place(struct run *r, struct rank_info *me)
{
    const char *forced = getenv("RAILYARD_FABRIC_NODE");
    struct placing mine, *all = NULL;
    int32_t pl[2] = { -1, 0 }, *pls = NULL;
    MPI_Request req;
    int rc = GO_ON;

    memset(&mine, 0, sizeof(mine));
    mine.rail = -1;
    if (r->o.nic_hosts) {
        char *dash = strrchr(r->host, '-'), *end = NULL;
        long rail = dash && dash[1] == 'r' ? strtol(dash + 2, &end, 10) : -1;
        if (!end || end == dash + 2 || *end || rail < 0 || rail > 255)
            mine.rail = -2; /* not NODE-rRAIL: rank 0 says so */
        else {
            mine.rail = (int32_t)rail;
            *dash = '\0';
        }
    } else {
        const char *slurm = getenv("SLURMD_NODENAME");
        int lr, ls;
        /* the launcher knows each rank's place on its host: no MPI message needed (one that
         * could not leave a rank whose MPI runs on a dead port) */
        if ((!forced || !*forced) && fabric_side_local(&r->side, &lr, &ls) == 0) {
            if (slurm && *slurm)
                snprintf(r->host, sizeof(r->host), "%s", slurm);
            me->local_rank = lr;
            me->local_size = ls;
            snprintf(me->host, sizeof(me->host), "%s", r->host);
            return GO_ON;
        }
        if (!forced || !*forced)
            forced = slurm;
        if (!forced || !*forced) {
            MPI_Comm node_comm;
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm);
            MPI_Comm_rank(node_comm, &me->local_rank);
            MPI_Comm_size(node_comm, &me->local_size);
            MPI_Comm_free(&node_comm);
            snprintf(me->host, sizeof(me->host), "%s", r->host);
            return GO_ON;
        }
        snprintf(r->host, sizeof(r->host), "%s", forced);
    }
    snprintf(mine.node, sizeof(mine.node), "%s", r->host);
    snprintf(me->host, sizeof(me->host), "%s", r->host);
    if (r->rank == 0)
        all = xcalloc((size_t)r->size, sizeof(*all));
    MPI_Igather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, 0,
                MPI_COMM_WORLD, &req);
    if (!mpi_wait_until(&req, fabric_now() + r->o.start_timeout)) {
        logmsg(r, "the start-up exchange did not finish within %g s: a rank did not start",
               r->o.start_timeout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (r->rank == 0) {
        /* group the ranks by node: sort their indices by (node name, rail or world rank) */
        int *ix = xcalloc((size_t)r->size, sizeof(*ix));
        pls = xcalloc((size_t)r->size * 2, sizeof(*pls));
        for (int k = 0; k < r->size; k++) {
            ix[k] = k;
            if (all[k].rail == -2 && rc == GO_ON) {
                logmsg(r, "--nic-hosts: rank %d runs on host %s, not <node>-r<rail>", k,
                       all[k].node);
                rc = 2;
            }
        }
        for (int a = 1; a < r->size; a++) { /* insertion sort on mostly sorted input */
            int v = ix[a], b = a - 1;
            while (b >= 0) {
                const struct placing *x = &all[ix[b]], *y = &all[v];
                int c = name_cmp(&(const char *){ x->node }, &(const char *){ y->node });
                if (c < 0 || (c == 0 && (x->rail >= 0 ? x->rail < y->rail : ix[b] < v)))
                    break;
                ix[b + 1] = ix[b];
                b--;
            }
            ix[b + 1] = v;
        }
        for (int a = 0; a < r->size;) {
            int e = a;
            while (e < r->size && !strcmp(all[ix[e]].node, all[ix[a]].node))
                e++;
            for (int k = a; k < e; k++) {
                int32_t lr = all[ix[k]].rail >= 0 ? all[ix[k]].rail : k - a;
                if (all[ix[k]].rail >= 0 && lr != k - a && rc == GO_ON) {
                    logmsg(r, "--nic-hosts: node %s has no host %s-r%d or two of one rail",
                           all[ix[a]].node, all[ix[a]].node, k - a);
                    rc = 2;
                }
                pls[2 * ix[k]] = lr;
                pls[2 * ix[k] + 1] = e - a;
            }
            a = e;
        }
        free(ix);
        free(all);
    }
    MPI_Iscatter(pls, 2, MPI_INT32_T, pl, 2, MPI_INT32_T, 0, MPI_COMM_WORLD, &req);
    if (!mpi_wait_until(&req, fabric_now() + r->o.start_timeout)) {
        logmsg(r, "the start-up exchange did not finish within %g s: a rank did not start",
               r->o.start_timeout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(pls);
    me->local_rank = pl[0];
    me->local_size = pl[1];
    return rc;
}

/* Has rank 0 gone on without this rank (its start-up message never came)? Then it says so. */
static int dropped_me(struct run *r)
{
    size_t nb = ((size_t)r->size + 7) / 8;
    unsigned char *dropped = xcalloc(nb, 1);
    int me = fabric_side_get(&r->side, 0, SIDE_DROPPED, dropped, nb, fabric_now() + 2) == 0 &&
             dropped[r->rank / 8] & (1u << (r->rank % 8));

    free(dropped);
    if (me)
        logmsg(r,
               "rank %d (%s, rail %d): its start-up message did not reach rank 0 over MPI in "
               "%.0f s: rank 0 judges without it",
               r->rank, r->me.host, r->me.local_rank, fabric_now() - r->started);
    return me;
}

/* The start-up exchange where the side channel holds every rank's facts: each rank sends them
 * to rank 0 over MPI (point to point: a rank that cannot send holds up no other). A rank whose
 * message has not come REACH_GRACE s after the last that did, and whose facts the side channel
 * has, is alive but reaches no rank over MPI: where its MPI runs on its rail (UCX_NET_DEVICES,
 * Open MPI's btl_tcp_if_include), its port is dead or cabled elsewhere. Rank 0 takes its facts
 * from the side channel and fails its links unmeasured; the analysis names the port. A rank
 * with no facts either did not start: the run stops (exit 2), as without the side channel. */
static int hello(struct run *r, int placed)
{
    MPI_Request *reqs, one;
    int missing = r->size - 1, nofacts = 0, outcount, *idx;
    double start = fabric_now(), last = start, next_look = start + REACH_GRACE;
    struct timespec nap = { 0, 1000000 };

    if (r->rank != 0) {
        MPI_Isend(&r->me, (int)sizeof(r->me), MPI_BYTE, 0, TAG_HELLO, MPI_COMM_WORLD, &one);
        /* sent, or rank 0 says it went on without this rank, or the deadline (a send cannot be
         * taken back: it stays posted until the rank leaves) */
        while (!mpi_poll_until(&one, fabric_now() + REACH_GRACE + 1))
            if (dropped_me(r) || fabric_now() > start + r->o.start_timeout) {
                r->unheard = 1;
                break;
            }
        return placed;
    }
    r->info[0] = r->me;
    r->unreached = xcalloc((size_t)r->size, 1);
    reqs = xcalloc((size_t)r->size, sizeof(*reqs));
    idx = xcalloc((size_t)r->size, sizeof(*idx));
    for (int k = 1; k < r->size; k++)
        MPI_Irecv(&r->info[k], (int)sizeof(r->info[k]), MPI_BYTE, k, TAG_HELLO, MPI_COMM_WORLD,
                  &reqs[k]);
    while (missing > 0 && fabric_now() < start + r->o.start_timeout) {
        double now;
        MPI_Testsome(r->size - 1, reqs + 1, &outcount, idx, MPI_STATUSES_IGNORE);
        now = fabric_now();
        if (outcount != MPI_UNDEFINED && outcount > 0) {
            missing -= outcount;
            last = now;
            continue;
        }
        if (now - last >= REACH_GRACE && now >= next_look) {
            /* the ones still missing: alive (their facts published) or not started */
            struct rank_info probe;
            int alive = 1;
            for (int k = 1; k < r->size && alive; k++)
                if (reqs[k] != MPI_REQUEST_NULL)
                    alive = fabric_side_get(&r->side, k, SIDE_FACTS, &probe, sizeof(probe),
                                            fabric_now() + 2) == 0;
            if (alive)
                break;
            next_look = fabric_now() + 5;
        }
        nanosleep(&nap, NULL);
    }
    for (int k = 1; k < r->size; k++) {
        if (reqs[k] == MPI_REQUEST_NULL)
            continue;
        MPI_Cancel(&reqs[k]);
        MPI_Request_free(&reqs[k]);
        if (fabric_side_get(&r->side, k, SIDE_FACTS, &r->info[k], sizeof(r->info[k]),
                            fabric_now() + 5) < 0) {
            nofacts++;
            continue;
        }
        r->unreached[k] = 1;
        r->nunreached++;
        logmsg(r,
               "rank %d (%s, rail %d, carrier %s) is running, but no MPI message of it came in "
               "%.0f s: its links fail unmeasured",
               k, r->info[k].host, r->info[k].local_rank,
               r->info[k].carrier < 0 ? "unknown"
               : r->info[k].carrier   ? "up"
                                      : "down",
               fabric_now() - start);
    }
    free(reqs);
    free(idx);
    if (r->nunreached) {
        size_t nb = ((size_t)r->size + 7) / 8;
        unsigned char *dropped = xcalloc(nb, 1);
        for (int k = 1; k < r->size; k++)
            if (r->unreached[k])
                dropped[k / 8] |= (unsigned char)(1u << (k % 8));
        fabric_side_put(&r->side, SIDE_DROPPED, dropped, nb);
        free(dropped);
    }
    if (nofacts) {
        logmsg(r, "the start-up exchange did not finish within %g s: a rank did not start",
               r->o.start_timeout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (2 * r->nunreached >= r->size) {
        /* most of the others unreachable: rank 0's own path is the likelier fault */
        logmsg(r,
               "rank 0 (%s, rail %d) heard over MPI from %d of %d ranks: it cannot judge the "
               "others (its own port: carrier %s)",
               r->me.host, r->me.local_rank, r->size - 1 - r->nunreached, r->size - 1,
               r->me.carrier < 0 ? "unknown"
               : r->me.carrier   ? "up"
                                 : "down");
        return 2;
    }
    return placed;
}

/* Identify nodes and rails (place()), this rank's netdev from the map; set the transport up on
 * it; rank 0 learns every rank's end. */
/* The collective phase's GPU of this rank, when NCCL may be used: its rail's number modulo the
 * GPUs it sees (CUDA_VISIBLE_DEVICES narrows them), where libnccl.so.2 loads; else why not. */
static void coll_gpu(const struct run *r, struct rank_info *me)
{
    ry_error_t err = { "" };
    int count = 0, version = 0;
    int (*get_count)(int *);

    me->gpu = -1;
    if (!r->o.coll_mask || !strcmp(r->o.coll_lib, "mpi"))
        return;
#ifdef RAILYARD_SMPI
    snprintf(me->nccl_why, sizeof(me->nccl_why), "a simulated rank has no GPU");
    return;
#endif
    if (fabric_cuda_load(&err) == 0 &&
        (*(void **)&get_count = fabric_cuda_sym("cuDeviceGetCount")) &&
        (get_count(&count) != 0 || count <= 0))
        snprintf(err.text, sizeof(err.text), "no GPU on this node");
    if (count > 0 && fabric_nccl_load(me->local_rank % count, &version, &err) == 0) {
        me->gpu = me->local_rank % count;
        return;
    }
    snprintf(me->nccl_why, sizeof(me->nccl_why), "%s", err.text[0] ? err.text : "no GPU");
}

static int identify(struct run *r)
{
    struct rank_info *me = &r->me;
    ry_error_t err = { "" };
    MPI_Request req;
    struct fabric_setup su;
    int placed = place(r, me);

    r->rail = me->local_rank;
    if (r->map) {
        r->type = r->o.node_type ? topo_map_type_by_name(r->map, r->o.node_type)
                                 : topo_map_type_for_host(r->map, r->host);
        if (!r->type && r->map->ntypes == 1 && !r->o.node_type)
            r->type = &r->map->types[0];
    }
    if (r->type) {
        for (size_t i = 0; i < r->type->nnics; i++)
            if (r->type->nics[i].rail == r->rail && r->type->nics[i].netdev)
                snprintf(r->netdev, sizeof(r->netdev), "%s", r->type->nics[i].netdev);
    } else
        snprintf(r->netdev, sizeof(r->netdev), r->o.netdev_fmt, r->rail);
    su = (struct fabric_setup){ r->netdev, r->host, &r->o.vo, r->rank, &r->world };
    if (placed != GO_ON)
        snprintf(me->ep.error, sizeof(me->ep.error), "not placed");
    else if ((r->netdev[0] || r->t == &fabric_transport_mpi) &&
             r->t->setup(&su, &me->ep, &r->ts, &err) < 0) {
        snprintf(me->ep.error, sizeof(me->ep.error), "%s", err.text);
        me->ep.unusable = 1;
    } else if (!r->netdev[0] && r->t != &fabric_transport_mpi)
        snprintf(me->ep.error, sizeof(me->ep.error), "the map has no netdev for rail %d", r->rail);
    me->ep.rank = r->rank;
    me->carrier = r->netdev[0] ? read_carrier(r->netdev) : -1;
#ifdef RAILYARD_SMPI
    /* simulated ranks have no placement of their own */
    me->nic_numa = me->rank_numa = -1;
#else
    me->nic_numa = r->netdev[0] ? topo_numa_of_netdev(NULL, r->netdev) : -1;
    me->rank_numa = bound_numa();
#endif
    coll_gpu(r, me);

    if (r->rank == 0)
        r->info = xcalloc((size_t)r->size, sizeof(*r->info));
    if (r->side.open && fabric_side_put(&r->side, SIDE_FACTS, me, sizeof(*me)) == 0)
        return hello(r, placed);
    MPI_Igather(me, (int)sizeof(*me), MPI_BYTE, r->info, (int)sizeof(*me), MPI_BYTE, 0,
                MPI_COMM_WORLD, &req);
    if (!mpi_wait_until(&req, fabric_now() + r->o.start_timeout)) {
        logmsg(r, "the start-up exchange did not finish within %g s: a rank did not start",
               r->o.start_timeout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return placed;
}

/* rank 0: the ranks no message goes to, from the start: the unreachable ones */
static int *lost_at_start(const struct run *r)
{
    int *lost = xcalloc((size_t)r->size, sizeof(*lost));
    for (int k = 0; r->unreached && k < r->size; k++)
        lost[k] = r->unreached[k];
    return lost;
}

/* Lay out (rank 0): nodes in natural order of their names, each (node, rail) to its rank, the
 * schedule, the goodput expected per rail, the run directory. */
static int lay_out(struct run *r)
{
    const struct map_node_type *type = r->type;
    char **names = xcalloc((size_t)r->size, sizeof(*names));
    ry_error_t err = { "" };
    int n = 0, rc;

    for (int i = 0; i < r->size; i++) {
        int seen = 0;
        for (int k = 0; k < n; k++)
            seen |= !strcmp(names[k], r->info[i].host);
        if (!seen)
            names[n++] = xstrdup(r->info[i].host);
    }
    qsort(names, (size_t)n, sizeof(*names), name_cmp);
    r->nodes = n;
    r->names = names;
    r->rails = r->info[0].local_size;
    for (int i = 0; i < r->size; i++)
        if (r->info[i].local_size != r->rails) {
            if (r->rank == 0)
                logmsg(r,
                       "nodes run different numbers of ranks: give every node one rank per rail");
            return 2;
        }
    if (type) {
        int maprails = 0;
        for (size_t i = 0; i < type->nnics; i++)
            if (type->nics[i].rail >= 0)
                maprails++;
        if (maprails != r->rails) {
            if (r->rank == 0)
                logmsg(r,
                       "%d ranks per node, but node type '%s' of %s has %d rails: run one "
                       "rank per rail",
                       r->rails, type->name, r->o.map, maprails);
            return 2;
        }
    } else if (r->map) {
        if (r->rank == 0)
            logmsg(r, "%s: host %s is in no host list of the map (use --node-type)", r->o.map,
                   r->host);
        return 2;
    }
    if (r->nodes < 2) {
        if (r->rank == 0)
            logmsg(r,
                   "all ranks run on one node (%s): railyard-fabric tests links between "
                   "nodes",
                   names[0]);
        return 2;
    }
    r->rank_of = xcalloc((size_t)r->nodes * (size_t)r->rails, sizeof(*r->rank_of));
    for (int i = 0; i < r->size; i++)
        for (int k = 0; k < n; k++)
            if (!strcmp(names[k], r->info[i].host))
                r->rank_of[k * r->rails + r->info[i].local_rank] = i;
    for (int k = 0; k < n; k++)
        if (!strcmp(names[k], r->host))
            r->node = k;

    /* a rank that cannot test at all (memory kind or transport unavailable on its node) makes
     * the run unable to judge: exit 2, never a port fault */
    {
        int unusable = 0;
        for (int i = 0; i < r->size; i++)
            if (r->info[i].ep.unusable) {
                if (r->rank == 0)
                    logmsg(r, "%s rail %d: %s", r->info[i].host, r->info[i].local_rank,
                           r->info[i].ep.error);
                unusable = 1;
            }
        if (unusable) {
            if (r->rank == 0)
                logmsg(r, "cannot judge the links: the test cannot run on every rank");
            return 2;
        }
    }

    if (!strcmp(r->o.schedule, "all-pairs"))
        rc = fabric_schedule_all_pairs(r->nodes, &r->sched, &err);
    else if (!strcmp(r->o.schedule, "ring"))
        rc = fabric_schedule_ring(r->nodes, r->o.shift, &r->sched, &err);
    else if (!strcmp(r->o.schedule, "custom"))
        rc = fabric_schedule_custom(r->o.pairs, r->nodes, r->names, &r->sched, &err);
    else
        rc = fabric_schedule_neighbor(r->nodes, &r->sched, &err);
    if (rc < 0) {
        if (r->rank == 0)
            logmsg(r, "%s", err.text);
        return 2;
    }
    r->lat_only = xcalloc(r->sched.n ? r->sched.n : 1, 1);
    /* --latency-sweep: rings of shifts 2..k+1 (each pair once: shifts below half the nodes) */
    for (int sh = 2; sh <= r->o.lat_sweep + 1 && 2 * sh < r->nodes; sh++) {
        struct fabric_schedule extra;
        if (fabric_schedule_ring(r->nodes, sh, &extra, &err) == 0)
            append_rounds(r, &extra, 1);
    }

    r->expect = xcalloc((size_t)r->rails, sizeof(*r->expect));
    for (int k = 0; k < r->rails; k++) {
        r->expect[k] = -1;
        for (size_t i = 0; type && i < type->nnics; i++)
            if (type->nics[i].rail == k) {
                if (type->thresholds.rail_bw_gbps > 0)
                    r->expect[k] = type->thresholds.rail_bw_gbps;
                else if (type->nics[i].rate_gbps > 0)
                    /* TCP goodput is ~95% of the line rate (headers) */
                    r->expect[k] = type->nics[i].rate_gbps * 0.9;
            }
    }
    r->coll_ratio = -1;
    /* the map's wire limits: unset is the default, 0 is none */
    if (type) {
        double g = type->thresholds.goodput_ratio_min, e = type->thresholds.ecn_marked_max;
        r->goodput_min = g < 0 ? 0 : g == 0 ? -1 : g;
        r->ecn_max = e < 0 ? 0 : e == 0 ? -1 : e;
        r->coll_ratio = type->thresholds.collective_busbw_ratio_min;
    }
    r->type_name = type ? type->name : NULL;
    r->map_cluster = r->map ? r->map->cluster : NULL;
    r->rank_lost = lost_at_start(r);
    r->res = xcalloc((size_t)r->size, sizeof(*r->res));
    r->got = xcalloc((size_t)r->size, sizeof(*r->got));
    r->gos = xcalloc((size_t)r->size, sizeof(*r->gos));
    if (prepare_run_dir(r) < 0)
        return 2;
    /* a readable report from the start (no round yet, not complete): a run killed before its
     * first round leaves that, not a folder without a report */
    save_reports(r, NULL, 0);
    return GO_ON;
}

/* Rank 0: the results of a round from every rank, with a deadline; a rank that misses it is
 * lost (and its node named). */
static void collect_results(struct run *r, const char *what, double timeout,
                            const struct result_msg *mine)
{
    MPI_Request *reqs = xcalloc((size_t)r->size, sizeof(*reqs));
    double deadline = fabric_now() + timeout + 5;

    r->res[0] = *mine;
    memset(r->got, 0, (size_t)r->size * sizeof(*r->got));
    r->got[0] = 1;
    for (int k = 1; k < r->size; k++)
        if (!r->rank_lost[k])
            MPI_Irecv(&r->res[k], (int)sizeof(r->res[k]), MPI_BYTE, k, TAG_RESULT, MPI_COMM_WORLD,
                      &reqs[k]);
    for (int k = 1; k < r->size; k++) {
        int n;
        if (r->rank_lost[k])
            continue;
        if (mpi_poll_until(&reqs[k], deadline)) {
            r->got[k] = 1;
            continue;
        }
        r->rank_lost[k] = 1;
        for (n = 0; n < r->nodes; n++)
            if (!strcmp(r->names[n], r->info[k].host))
                break;
        logmsg(r, "rank %d (%s, rail %d) sent no result for %s in time: lost", k, r->info[k].host,
               r->info[k].local_rank, what);
        r->failed = xrealloc(r->failed, (r->nfailed + 1) * sizeof(*r->failed));
        r->failed[r->nfailed++] = n;
    }
    free(reqs);
}

static void collect_round(struct run *r, size_t round, const struct result_msg *mine)
{
    char what[48];

    snprintf(what, sizeof(what), "round %zu", round + 1);
    collect_results(r, what, r->o.round_timeout, mine);
    add_links(r, (int)round, r->res, r->got);
    r->rounds_done = round + 1;
    save_run(r, NULL, 0);
}

/* Rank 0: run the rounds from `from` to the end of the schedule: each rank is told its part,
 * every rank tests and reports, rank 0 collects. */
static void run_rounds(struct run *r, size_t from)
{
    for (size_t round = from; round < r->sched.n; round++) {
        struct result_msg mine;
        for (int k = 0; k < r->size; k++)
            task_of(r, round, k, &r->gos[k]);
        send_go(r, 0);
        if (isatty(STDERR_FILENO) && !r->o.json) {
            double per = round ? (fabric_now() - r->started) / (double)round : r->o.round_timeout;
            fprintf(stderr, "\rround %zu/%zu, ETA %.0f s ", round + 1, r->sched.n,
                    per * (double)(r->sched.n - round));
        }
        run_round(r, &r->gos[0], &mine);
        collect_round(r, round, &mine);
    }
}

/* ---- the collective phase ---- */

/* This rank's part of a collective step: every rank takes part in making the step's
 * communicators (MPI_Comm_split over the world); a rank of a group then times its collective
 * (two warm-ups, then as many iterations as the group's first rank finds fill the duration) and
 * says its seconds per iteration. */
static void run_coll(const struct run *r, const struct go_msg *g, struct result_msg *res)
{
    enum fabric_coll op = (enum fabric_coll)g->coll_op;
    size_t size = (size_t)g->coll_size;
    double deadline = fabric_now() + g->coll_timeout, warm = -1, sec = -1;
    struct fabric_host_sample h0, h1;
    struct fabric_mpi_coll *mh = NULL;
    struct fabric_nccl *nh = NULL;
    ry_error_t err = { "" };
    MPI_Comm comm = MPI_COMM_NULL;
    int32_t iters = 1;
    int me = 0, bad = 0;

    memset(res, 0, sizeof(*res));
    res->round = g->round;
    res->ok = 1;
    res->coll_sec = -1;
    res->cpu_frac = res->wait_frac = res->pressure_frac = -1;
    res->bytes = res->wire_bytes = res->bytes2 = res->wire_bytes2 = -1;
    MPI_Comm_split(MPI_COMM_WORLD, g->coll_color >= 0 ? g->coll_color : MPI_UNDEFINED, r->rank,
                   &comm);
    if (g->coll_color < 0 || comm == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(comm, &me);
    fabric_host_sample(&h0);
    if (g->coll_nccl) {
        unsigned char id[FABRIC_NCCL_ID_BYTES] = { 0 };
        int n = 0;
        MPI_Comm_size(comm, &n);
        /* the first rank's id, or its failure as an id of zeros */
        if (me == 0 && fabric_nccl_unique_id(id, &err) < 0)
            memset(id, 0, sizeof(id));
        if (fabric_mpi_bcast(&comm, id, (int)sizeof(id), 0, deadline, &err) < 0)
            bad = 1;
        else {
            int zero = 1;
            for (size_t i = 0; i < sizeof(id); i++)
                zero &= id[i] == 0;
            if (zero && !err.text[0])
                snprintf(err.text, sizeof(err.text), "the first rank could not make an NCCL id");
            if (zero || !(nh = fabric_nccl_open(id, n, me, r->me.gpu, size, &err)))
                bad = 1;
        }
    } else if (!(mh = fabric_mpi_coll_open(&comm, size))) {
        snprintf(err.text, sizeof(err.text), "%zu bytes is too large for MPI", size);
        bad = 1;
    }
    /* warm-ups: connections made, buffers touched; the second one timed */
    for (int i = 0; i < 2 && !bad; i++)
        bad = (nh ? fabric_nccl_time(nh, op, size, 1, deadline, &warm, &err)
                  : fabric_mpi_coll_time(mh, op, size, 1, deadline, &warm, &err)) < 0;
    /* the count of iterations, from the first rank's warm-up, agreed with every rank of the
     * group: a rank that failed says -1, and the others stop with it rather than wait for it */
    {
        int v = bad         ? -1
                : me != 0   ? INT_MAX
                : warm <= 0 ? 1
                            : (int)fmin(100000, fmax(1, ceil(g->coll_duration / warm)));
        if (fabric_mpi_min(&comm, &v, deadline, &err) < 0)
            bad = 1;
        else if (v < 0 && !bad) {
            bad = 1;
            snprintf(err.text, sizeof(err.text), "another rank of the group failed");
        }
        iters = v;
    }
    if (!bad)
        bad = (nh ? fabric_nccl_time(nh, op, size, iters, deadline, &sec, &err)
                  : fabric_mpi_coll_time(mh, op, size, iters, deadline, &sec, &err)) < 0;
    fabric_host_sample(&h1);
    fabric_host_load(&h0, &h1, &res->cpu_frac, &res->wait_frac, &res->pressure_frac);
    res->ok = !bad;
    res->coll_sec = bad ? -1 : sec;
    res->coll_iters = iters;
    if (bad)
        snprintf(res->error, sizeof(res->error), "%s", err.text);
    fabric_nccl_close(nh);
    /* a communicator with a collective still in flight stays */
    if (!mh || !fabric_mpi_coll_broken(mh))
        MPI_Comm_free(&comm);
    fabric_mpi_coll_close(mh);
}

/* keep a copy of e (its nodes too) */
static void coll_add(struct run *r, const struct coll_entry *e)
{
    struct coll_entry *x;

    if (r->ncoll == r->coll_alloc) {
        r->coll_alloc = r->coll_alloc ? 2 * r->coll_alloc : 16;
        r->coll = xrealloc(r->coll, r->coll_alloc * sizeof(*r->coll));
    }
    x = &r->coll[r->ncoll++];
    *x = *e;
    x->nodes = xcalloc((size_t)e->nnodes + 1, sizeof(*x->nodes));
    memcpy(x->nodes, e->nodes, (size_t)e->nnodes * sizeof(*x->nodes));
}

static double coll_ratio(const struct run *r)
{
    return r->coll_ratio >= 0 ? r->coll_ratio : FABRIC_COLL_RATIO_MIN; /* 0: no limit */
}

/* The bound of a group: its rail's; every rail's lowest for a group of all ranks. */
static double coll_bound_of(const struct run *r, int rail)
{
    double b = -1;

    if (rail >= 0)
        return r->coll_bound[rail];
    for (int k = 0; k < r->rails; k++)
        if (r->coll_bound[k] > 0 && (b < 0 || r->coll_bound[k] < b))
            b = r->coll_bound[k];
    return b;
}

/* Rank 0: one step of the phase: the groups e[0..n-1] (op, size, rail, nodes set) side by side,
 * their figures filled in and kept. 0, or -1 when a rank was lost (the phase stops). */
static int coll_step(struct run *r, struct coll_entry *e, int n)
{
    const struct opts *o = &r->o;
    struct result_msg mine;
    double timeout = o->round_timeout + o->coll_duration;
    char what[64];
    size_t lost = r->nfailed;

    for (int k = 0; k < r->size; k++) {
        struct go_msg *g = &r->gos[k];
        memset(g, 0, sizeof(*g));
        g->round = (int32_t)(r->sched.n + (size_t)r->coll_steps);
        g->role = ROLE_IDLE;
        g->peer = -1;
        g->coll_step = 1;
        g->coll_op = e[0].op;
        g->coll_size = (int64_t)e[0].size;
        g->coll_color = -1;
        g->coll_nccl = r->coll_nccl;
        g->coll_duration = o->coll_duration;
        g->coll_timeout = timeout;
    }
    for (int i = 0; i < n; i++) {
        e[i].ranks = 0;
        for (int j = 0; j < e[i].nnodes; j++)
            for (int rail = 0; rail < r->rails; rail++)
                if (e[i].rail < 0 || e[i].rail == rail) {
                    r->gos[r->rank_of[e[i].nodes[j] * r->rails + rail]].coll_color = i;
                    e[i].ranks++;
                }
    }
    r->coll_steps++;
    send_go(r, 0);
    run_coll(r, &r->gos[0], &mine);
    snprintf(what, sizeof(what), "collective step %d", r->coll_steps);
    collect_results(r, what, timeout, &mine);
    for (int i = 0; i < n; i++) {
        struct coll_entry *x = &e[i];
        x->ok = 1;
        x->seconds = -1;
        x->host_share = 1;
        x->error[0] = '\0';
        for (int k = 0; k < r->size; k++) {
            const struct result_msg *m = &r->res[k];
            if (r->gos[k].coll_color != i)
                continue;
            if (!r->got[k] || !m->ok) {
                if (x->ok)
                    snprintf(x->error, sizeof(x->error), "%.63s rail %d: %.240s", r->info[k].host,
                             r->info[k].local_rank,
                             !r->got[k] ? "no result (rank lost)" : m->error);
                x->ok = 0;
                continue;
            }
            x->iters = m->coll_iters;
            if (m->coll_sec > x->seconds)
                x->seconds = m->coll_sec;
            x->host_share = fmin(x->host_share, fabric_host_share(m->cpu_frac, m->wait_frac,
                                                                  m->pressure_frac, -1, -1, -1));
        }
        x->bound = coll_bound_of(r, x->rail);
        if (x->ok && x->seconds > 0) {
            x->algbw = (double)x->size * 8 / x->seconds / 1e9;
            x->busbw = x->algbw * fabric_coll_bus_factor(x->op, x->ranks);
            x->verdict = fabric_coll_judge(x->busbw, x->bound, coll_ratio(r), x->host_share);
        } else {
            x->ok = 0;
            x->algbw = x->busbw = -1;
            x->verdict = FABRIC_COLL_SHORT;
        }
        coll_add(r, x);
    }
    return r->nfailed > lost ? -1 : 0;
}

/* "node1, node2, node3" (at most 6 named, then a count) */
static void nodes_text(const struct run *r, const int *nodes, int n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < n && i < 6; i++)
        ry_appendf(buf, len, "%s%s", i ? ", " : "", r->names[nodes[i]]);
    if (n > 6)
        ry_appendf(buf, len, " and %d more", n - 6);
}

/* "16 MiB", "512 KiB" */
static const char *size_text(size_t bytes, char *buf, size_t len)
{
    if (bytes >= 1024 * 1024)
        snprintf(buf, len, "%g MiB", (double)bytes / (1024.0 * 1024));
    else
        snprintf(buf, len, "%g KiB", (double)bytes / 1024);
    return buf;
}

/* "allreduce 16 MiB over 8 ranks: 190 Gb/s bus bandwidth (95% of the bound)" */
static void coll_text(const struct coll_entry *e, char *buf, size_t len)
{
    char sz[32];

    size_text(e->size, sz, sizeof(sz));
    if (!e->ok)
        snprintf(buf, len, "%s %s over %d ranks failed: %s", fabric_coll_name(e->op), sz, e->ranks,
                 e->error);
    else if (e->bound > 0)
        snprintf(buf, len, "%s %s over %d ranks: %.3g Gb/s bus bandwidth (%.0f%% of the bound)",
                 fabric_coll_name(e->op), sz, e->ranks, e->busbw, 100 * e->busbw / e->bound);
    else
        snprintf(buf, len, "%s %s over %d ranks: %.3g Gb/s bus bandwidth", fabric_coll_name(e->op),
                 sz, e->ranks, e->busbw);
}

static void coll_expected(const struct run *r, const struct coll_entry *e, char *buf, size_t len)
{
    if (e->rail >= 0)
        snprintf(buf, len, ">= %.0f%% of %.3g Gb/s (the ring bound of rail %d's links)",
                 100 * coll_ratio(r), e->bound, e->rail);
    else
        snprintf(buf, len, ">= %.0f%% of %.3g Gb/s (the slowest rail's ring bound)",
                 100 * coll_ratio(r), e->bound);
}

/* Rank 0: a rail's collective fell short while the other rails' did not: repeated once, then
 * its node set halved and the halves timed side by side, the slower half (below the ratio of the
 * faster) halved again; two or three suspects are each timed beside a node proven good, with two
 * good nodes beside each other as the yardstick. Halves and pairs are weighed against each other,
 * never against the bound: a collective of two ranks may use another algorithm than one of
 * sixty-four, and groups timed side by side share the hosts' load. The verdict goes to
 * r->coll_f. */
static void coll_localize(struct run *r, const struct coll_entry *phase)
{
    int n = r->nodes, rail = phase->rail, ns = n, ng = 0;
    double q = coll_ratio(r) > 0 ? coll_ratio(r) : FABRIC_COLL_RATIO_MIN, whole;
    int *set = xcalloc((size_t)n, sizeof(int));
    unsigned char *good = xcalloc((size_t)n, 1);
    struct coll_entry c, grp[4];
    char e[200], o[1600], t[240], t2[240], t3[240], subject[NAME_LEN + 16], la[200], lb[200];

    memset(grp, 0, sizeof(grp));
    for (int k = 0; k < n; k++)
        set[k] = k;
    coll_expected(r, phase, e, sizeof(e));
    coll_text(phase, t, sizeof(t));
    snprintf(subject, sizeof(subject), "rail%d", rail);
    c = *phase;
    c.purpose = CP_CONFIRM;
    if (coll_step(r, &c, 1) < 0)
        goto out;
    coll_text(&c, t2, sizeof(t2));
    if (c.ok && c.verdict == FABRIC_COLL_OK) {
        snprintf(o, sizeof(o), "%s at first, then %s", t, t2);
        topo_findings_add(&r->coll_f, TOPO_SEV_OK, "collective.busbw", subject, e, o, NULL);
        goto out;
    }
    whole = c.ok ? c.busbw : phase->busbw;
    while (ns >= 4) {
        int *a = xcalloc((size_t)ns, sizeof(int)), *b = xcalloc((size_t)ns, sizeof(int)), na, nb;
        double fa, fb;
        enum fabric_coll_step step;
        fabric_coll_halve(set, ns, a, &na, b, &nb);
        for (int h = 0; h < 2; h++) {
            grp[h] = *phase;
            grp[h].purpose = CP_HALF;
            grp[h].nodes = h ? b : a;
            grp[h].nnodes = h ? nb : na;
        }
        if (coll_step(r, grp, 2) < 0) {
            free(a);
            free(b);
            goto out;
        }
        fa = grp[0].ok ? grp[0].busbw : 0;
        fb = grp[1].ok ? grp[1].busbw : 0;
        step = fabric_coll_halves(fa, fb, whole, q);
        if (step == FABRIC_COLL_STEP_A_SLOW || step == FABRIC_COLL_STEP_B_SLOW) {
            int slow_a = step == FABRIC_COLL_STEP_A_SLOW;
            const struct coll_entry *fast = slow_a ? &grp[1] : &grp[0];
            for (int j = 0; j < fast->nnodes; j++)
                good[fast->nodes[j]] = 1;
            ns = slow_a ? na : nb;
            memcpy(set, slow_a ? a : b, (size_t)ns * sizeof(int));
            free(a);
            free(b);
            continue;
        }
        coll_text(&grp[0], t2, sizeof(t2));
        coll_text(&grp[1], t3, sizeof(t3));
        nodes_text(r, a, na, la, sizeof(la));
        nodes_text(r, b, nb, lb, sizeof(lb));
        free(a);
        free(b);
        {
            int between = step == FABRIC_COLL_STEP_BETWEEN;
            snprintf(o, sizeof(o), "%s; its halves side by side: %s (%s), %s (%s): %s", t, t2, la,
                     t3, lb,
                     between ? "each faster than the whole, so the shortfall is between them"
                             : "alike, no node stands out");
            topo_findings_add(&r->coll_f, between ? TOPO_SEV_FAIL : TOPO_SEV_WARN,
                              "collective.busbw", subject, e, o,
                              between ? "the paths between the two halves (the rail's switches) "
                                        "are the suspects"
                                      : "a shortfall every node shares: the collective library's "
                                        "algorithm or settings, or the hosts");
        }
        goto out;
    }
    /* two or three suspects, each beside a good node; two more good nodes as the yardstick */
    {
        int pairs[sizeof(grp) / sizeof(grp[0])][2], suspect[sizeof(grp) / sizeof(grp[0])];
        int control, np = fabric_coll_pair_plan(set, ns, good, n, pairs, suspect, &control);
        if (np < 0) {
            nodes_text(r, set, ns, la, sizeof(la));
            snprintf(o, sizeof(o),
                     "%s; not localized further than %s (no node proven good to test them "
                     "beside)",
                     t, la);
            topo_findings_add(&r->coll_f, TOPO_SEV_FAIL, "collective.busbw", subject, e, o,
                              "the links phase names a slow port among them, where there is one");
            goto out;
        }
        for (ng = 0; ng < np; ng++) {
            grp[ng] = *phase;
            grp[ng].purpose = CP_PAIR;
            grp[ng].nodes = xcalloc(2, sizeof(int));
            grp[ng].nodes[0] = pairs[ng][0];
            grp[ng].nodes[1] = pairs[ng][1];
            grp[ng].nnodes = 2;
            grp[ng].suspect = suspect[ng];
        }
        if (coll_step(r, grp, ng) < 0)
            goto out;
        {
            double bw[sizeof(grp) / sizeof(grp[0])], ref;
            unsigned char is_slow[sizeof(grp) / sizeof(grp[0])];
            int slow = 0;
            for (int j = 0; j < ng; j++)
                bw[j] = grp[j].ok ? grp[j].busbw : 0;
            ref = fabric_coll_pairs(bw, ng, control, q, is_slow);
            if (control >= 0 && grp[control].ok)
                coll_text(&grp[control], t3, sizeof(t3));
            for (int j = 0; j < ng; j++) {
                const struct coll_entry *g = &grp[j];
                char who[NAME_LEN + 16];
                if (!is_slow[j])
                    continue;
                coll_text(g, t2, sizeof(t2));
                snprintf(who, sizeof(who), "%s/rail%d", r->names[g->suspect], rail);
                snprintf(o, sizeof(o),
                         "%s beside %s (proven good), against %.3g Gb/s %s; the "
                         "rail's %d nodes: %s",
                         t2, r->names[g->nodes[0] == g->suspect ? g->nodes[1] : g->nodes[0]], ref,
                         control >= 0 && grp[control].ok ? "for two good nodes side by side"
                                                         : "for the fastest pair beside it",
                         n, t);
                topo_findings_add(&r->coll_f, TOPO_SEV_FAIL, "collective.busbw", who, e, o,
                                  "this node's port on the rail slows every collective of the "
                                  "rail: see its link findings");
                slow++;
            }
            if (!slow) {
                nodes_text(r, set, ns, la, sizeof(la));
                snprintf(o, sizeof(o), "%s; %s each beside a good node: alike, no node stands out",
                         t, la);
                topo_findings_add(&r->coll_f, TOPO_SEV_WARN, "collective.busbw", subject, e, o,
                                  "a shortfall every node shares: the collective library's "
                                  "algorithm or settings, or the hosts");
            }
        }
    }
out:
    for (int j = 0; j < ng; j++)
        free(grp[j].nodes);
    free(set);
    free(good);
}

/* Rank 0: the collective phase: each collective and size per rail (every rail side by side)
 * and over all ranks; the largest size judged against the bound the run's links predict; a rail
 * that falls short localized. */
static void run_collectives(struct run *r)
{
    const struct opts *o = &r->o;
    struct fabric_port *ports;
    struct fabric_input in;
    size_t largest = 0;
    int nccl_all = 1, *first_short;
    char why[240] = "";

    if (!o->coll_mask)
        return;
    if (r->nfailed || r->nunreached) {
        snprintf(r->coll_why, sizeof(r->coll_why),
                 "not run: a rank was lost, and a collective needs every rank");
        topo_findings_unjudged(&r->coll_f, "collectives: %s", r->coll_why);
        return;
    }
    for (int k = 0; k < r->size && nccl_all; k++)
        if (r->info[k].gpu < 0) {
            nccl_all = 0;
            snprintf(why, sizeof(why), "%.63s rail %d: %.159s", r->info[k].host,
                     r->info[k].local_rank,
                     r->info[k].nccl_why[0] ? r->info[k].nccl_why : "no GPU");
        }
    if (!strcmp(o->coll_lib, "nccl") && !nccl_all) {
        snprintf(r->coll_why, sizeof(r->coll_why), "not run: --coll-lib nccl, but %s", why);
        topo_findings_unjudged(&r->coll_f, "collectives: %s", r->coll_why);
        return;
    }
    r->coll_nccl = strcmp(o->coll_lib, "mpi") && nccl_all;
    if (!r->coll_nccl && !strcmp(o->coll_lib, "auto"))
        snprintf(r->coll_why, sizeof(r->coll_why), "MPI on host memory, not NCCL: %s", why);

    make_input(r, &in, &ports);
    r->coll_bound = xcalloc((size_t)r->rails, sizeof(double));
    r->coll_slowest = xcalloc((size_t)r->rails, sizeof(double));
    for (int k = 0; k < r->rails; k++)
        r->coll_bound[k] = fabric_coll_bound(&in, k, NULL, &r->coll_slowest[k]);
    free((void *)in.failed_nodes);
    free(ports);

    for (int i = 0; i < o->ncoll_sizes; i++)
        if (o->coll_sizes[i] > largest)
            largest = o->coll_sizes[i];
    {
        int *all = xcalloc((size_t)r->nodes, sizeof(int));
        struct coll_entry *e = xcalloc((size_t)r->rails, sizeof(*e));
        for (int k = 0; k < r->nodes; k++)
            all[k] = k;
        for (int op = 0; op < FABRIC_COLL_N; op++) {
            if (!(o->coll_mask & (1u << op)))
                continue;
            for (int i = 0; i < o->ncoll_sizes; i++)
                for (int step = 0; step < 2; step++) {
                    int ng = step == 0 ? r->rails : 1;
                    if (!(o->coll_groups & (1 << step)))
                        continue;
                    if (step == 1 && r->rails == 1 && (o->coll_groups & 1))
                        continue; /* one rail: all the ranks are the rail's */
                    for (int k = 0; k < ng; k++)
                        e[k] = (struct coll_entry){ .op = (enum fabric_coll)op,
                                                    .purpose = CP_PHASE,
                                                    .size = o->coll_sizes[i],
                                                    .rail = step == 0 ? k : -1,
                                                    .nnodes = r->nodes,
                                                    .nodes = all,
                                                    .suspect = -1 };
                    if (isatty(STDERR_FILENO) && !o->json)
                        fprintf(stderr, "\rcollectives: %s %zu bytes %s ",
                                fabric_coll_name((enum fabric_coll)op), o->coll_sizes[i],
                                step ? "over all ranks" : "per rail");
                    if (coll_step(r, e, ng) < 0) {
                        free(e);
                        free(all);
                        topo_findings_unjudged(&r->coll_f, "collectives: stopped: a rank was lost");
                        return;
                    }
                }
        }
        free(e);
        free(all);
    }

    /* the verdicts, on the largest size. A rail short of its bound while another rail reached
     * more than the ratio over its own is localized (its first collective short); short on
     * every rail alike is the library's or the hosts' doing, not a port's. */
    first_short = xcalloc((size_t)r->rails, sizeof(int));
    for (int k = 0; k < r->rails; k++)
        first_short[k] = -1;
    for (size_t i = 0, n = r->ncoll; i < n; i++) {
        struct coll_entry *x = &r->coll[i];
        char e[200], ob[600], subject[32];
        double best = 0, q = coll_ratio(r);
        if (x->purpose != CP_PHASE || x->size != largest)
            continue;
        for (size_t j = 0; j < n; j++) { /* the best rail's share of its bound */
            const struct coll_entry *y = &r->coll[j];
            if (y->purpose == CP_PHASE && y->size == largest && y->op == x->op && y->rail >= 0 &&
                y->ok && y->bound > 0 && y->busbw / y->bound > best)
                best = y->busbw / y->bound;
        }
        if (x->rail >= 0)
            snprintf(subject, sizeof(subject), "rail%d", x->rail);
        else
            snprintf(subject, sizeof(subject), "all ranks");
        coll_expected(r, x, e, sizeof(e));
        coll_text(x, ob, sizeof(ob));
        if (x->rail < 0) { /* all ranks: reported; its bound depends on the algorithm */
            if (!x->ok)
                topo_findings_add(&r->coll_f, TOPO_SEV_WARN, "collective.busbw", subject, e, ob,
                                  "a collective that fails where the links pass: check the MPI or "
                                  "NCCL settings (interfaces, MTU)");
            continue;
        }
        if (!x->ok)
            topo_findings_add(&r->coll_f, TOPO_SEV_FAIL, "collective.busbw", subject, e, ob,
                              "a collective that fails where the links pass: check the MPI or "
                              "NCCL settings of the rail (interfaces, MTU)");
        else if (x->verdict == FABRIC_COLL_OK)
            topo_findings_add(&r->coll_f, TOPO_SEV_OK, "collective.busbw", subject, e, ob, NULL);
        else if (x->verdict == FABRIC_COLL_NOBOUND)
            topo_findings_unjudged(&r->coll_f,
                                   "collective.busbw %s: %s; no link of it was "
                                   "measured, so there is no bound",
                                   subject, ob);
        else if (x->verdict == FABRIC_COLL_HOST)
            topo_findings_unjudged(&r->coll_f,
                                   "collective.busbw %s: %s; its hosts were short of "
                                   "CPU",
                                   subject, ob);
        else if (r->rails > 1 && x->busbw / x->bound >= q * best) {
            size_t at = strlen(ob);
            snprintf(ob + at, sizeof(ob) - at, "; no rail did better than %.0f%% of its bound",
                     100 * best);
            topo_findings_add(&r->coll_f, TOPO_SEV_WARN, "collective.busbw", subject, e, ob,
                              "a shortfall every rail shares: the collective library's "
                              "algorithm or settings, or the hosts");
        } else if (first_short[x->rail] < 0)
            first_short[x->rail] = (int)i;
        else
            topo_findings_add(&r->coll_f, TOPO_SEV_FAIL, "collective.busbw", subject, e, ob,
                              "localized with the rail's first collective short");
    }
    for (int k = 0; k < r->rails; k++)
        if (first_short[k] >= 0 && r->nfailed == 0) {
            struct coll_entry x = r->coll[first_short[k]]; /* r->coll moves as it grows */
            x.nodes = xcalloc((size_t)r->nodes, sizeof(int));
            for (int j = 0; j < r->nodes; j++)
                x.nodes[j] = j;
            coll_localize(r, &x);
            free(x.nodes);
        }
    free(first_short);
    if (isatty(STDERR_FILENO) && !o->json)
        fputs("\r                                                        \r", stderr);
}

/* Every other rank: its part of each round as rank 0 says, until rank 0 says the end; the
 * verdict, | 0x100 where the rank leaves without MPI_Finalize (a rank is lost, or rank 0). */
static int work(struct run *r)
{
    for (;;) {
        struct go_msg g;
        struct result_msg mine;
        MPI_Request sreq;
        if (!r->unheard && wait_go(r, &g) < 0 && !r->unheard)
            return 2 | 0x100;
        if (r->unheard) {
            /* rank 0 runs on without this rank and says the end through the side channel */
            int32_t code;
            if (fabric_side_get(&r->side, 0, SIDE_END, &code, sizeof(code), fabric_now() + 86400) <
                0)
                return 2 | 0x100;
            fabric_side_put(&r->side, SIDE_BYE, &code, sizeof(code));
            return code | 0x100;
        }
        if (g.round < 0)
            return g.verdict;
        if (g.coll_step)
            run_coll(r, &g, &mine);
        else
            run_round(r, &g, &mine);
        MPI_Isend(&mine, (int)sizeof(mine), MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD, &sreq);
        if (!mpi_wait_until(&sreq,
                            fabric_now() + (g.coll_step ? g.coll_timeout : r->o.round_timeout))) {
            logmsg(r, "rank 0 did not take the results in time: stopping");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
}

/* Analyse (rank 0): the links judged, the culprits named, rank placement checked, the map's
 * overrides applied. */
static void analyse(struct run *r, struct topo_findings *f)
{
    struct fabric_port *ports;
    struct fabric_input in;

    make_input(r, &in, &ports);
    fabric_analyze(&in, f);
    free((void *)in.failed_nodes);
    free(ports);
    /* a rank bound to another NUMA node than its NIC crosses the socket link */
    for (int k = 0; k < r->size; k++) {
        const struct rank_info *ri = &r->info[k];
        char e[48], ob[48], subject[NAME_LEN + 16];
        if (ri->rank_numa < 0 || ri->nic_numa < 0)
            continue;
        snprintf(e, sizeof(e), "NUMA %d (its NIC's)", ri->nic_numa);
        snprintf(ob, sizeof(ob), "bound to NUMA %d", ri->rank_numa);
        snprintf(subject, sizeof(subject), "%s/rail%d", ri->host, ri->local_rank);
        topo_findings_add(f, ri->rank_numa == ri->nic_numa ? TOPO_SEV_OK : TOPO_SEV_WARN,
                          "affinity.numa", subject, e, ob,
                          ri->rank_numa == ri->nic_numa
                              ? NULL
                              : "bind each rank next to its NIC (srun --cpu-bind, mpirun "
                                "--map-by)");
    }
    /* the collective phase's verdicts */
    for (size_t i = 0; i < r->coll_f.n; i++) {
        const struct topo_finding *x = &r->coll_f.v[i];
        topo_findings_add(f, x->sev, x->check, x->subject, x->expected, x->observed, x->hint);
    }
    for (size_t i = 0; i < r->coll_f.nunjudged; i++)
        topo_findings_unjudged(f, "%s", r->coll_f.unjudged[i]);
    topo_findings_override(f, r->map, r->type);
    topo_findings_sort(f);
}

/* --culprits (rank 0): what a preflight acts on, one line each (railyard-fabric(1)):
 *   drain NODE CHECK REASON  a fault pinned to this node: CHECK the check id of the failure
 *                            REASON names (a Slurm reason, <= 80 chars, "railyard: fabric ...":
 *                            railyard-healthcheck never resumes it)
 *   outlier NODE link.outlier REASON  a port that clears the floor but lags its rail
 *   unpinned A B CHECK       a failed link neither of whose ends is the culprit
 *   lost NODE                a rank of this node stopped answering: not judged (and not
 *                            drained, whatever else was found on it)
 * written aside and renamed, so a reader never sees half of it. */
static void write_culprits(const struct run *r, const struct topo_findings *f)
{
    char tmp[PATH_MAX], reason[96];
    FILE *fp;

    if (snprintf(tmp, sizeof(tmp), "%s.tmp", r->o.culprits) >= (int)sizeof(tmp) ||
        !(fp = fopen(tmp, "w"))) {
        logmsg(r, "cannot write %s: %s", r->o.culprits, strerror(errno));
        return;
    }
    fprintf(fp, "# railyard-fabric culprits: %zu failed, %zu warnings, %d nodes x %d rails\n",
            f->nfail, f->nwarn, r->nodes, r->rails);
    for (int n = 0; n < r->nodes; n++) {
        /* a node whose rank was lost is not judged, never drained: a rank that died or hung
         * may be the tool's fault (killed, out of memory, stopped), not the node's */
        int lost = 0;
        const struct topo_finding *x = topo_findings_first_fail(f, r->names[n], 1, NULL);
        for (size_t i = 0; i < r->nfailed && !lost; i++)
            lost = r->failed[i] == n;
        if (!lost && x &&
            topo_findings_reason(f, r->names[n], 1, "railyard: fabric ", reason, sizeof(reason)))
            fprintf(fp, "drain %s %s %s\n", r->names[n], x->check, reason);
    }
    for (size_t i = 0; i < f->n; i++) {
        const struct topo_finding *x = &f->v[i];
        const char *slash = strchr(x->subject, '/');
        if (x->sev == TOPO_SEV_WARN && !strcmp(x->check, "link.outlier") && slash)
            fprintf(fp, "outlier %.*s link.outlier railyard: fabric link.outlier %.20s %.40s\n",
                    (int)(slash - x->subject), x->subject, slash + 1, x->observed);
    }
    for (size_t i = 0; i < f->n; i++) {
        const struct topo_finding *x = &f->v[i];
        const char *sep = strstr(x->subject, "<->"), *slash;
        if (x->sev != TOPO_SEV_FAIL || !sep || !(slash = strchr(sep, '/')))
            continue;
        fprintf(fp, "unpinned %.*s %.*s %s%s\n", (int)(sep - x->subject), x->subject,
                (int)(slash - sep - 3), sep + 3, x->check, slash);
    }
    for (size_t i = 0; i < r->nfailed; i++)
        fprintf(fp, "lost %s\n", r->names[r->failed[i]]);
    if (fclose(fp) != 0 || rename(tmp, r->o.culprits) != 0) {
        logmsg(r, "cannot write %s: %s", r->o.culprits, strerror(errno));
        unlink(tmp);
    }
}

/* Report (rank 0): archive and run directory, the results on stdout; the exit status. */
static int report(struct run *r, const struct topo_findings *f)
{
    ry_error_t err = { "" };
    struct out *out;
    int exit_code;

    if (isatty(STDERR_FILENO) && !r->o.json)
        fputs("\r                                   \r", stderr);
    save_run(r, f, 1);
    if (r->o.culprits)
        write_culprits(r, f);
    if ((out = out_create(stdout, r->o.json ? OUT_JSON : OUT_TEXT, &err))) {
        print_results(out, r, f, 1, -1);
        if (r->o.run_dir)
            out_str(out, "run_dir", "  run directory: %s\n", r->o.run_dir);
        out_finish(out, &err);
        out_destroy(out);
    } else
        logmsg(r, "%s", err.text);
    fflush(stdout);
    exit_code = f->nfail ? 1 : f->nok + f->nwarn == 0 && f->nunjudged > 0 ? 2 : 0;
    if (r->nfailed && !exit_code)
        exit_code = 1;
    return exit_code;
}

/* Leave before the rounds (bad options or map: every rank found the same). */
static int leave(struct run *r, int exit_code)
{
    if (r->ts)
        r->t->teardown(r->ts);
    fabric_side_close(&r->side);
    MPI_Finalize();
    return exit_code;
}

/* Rank 0 tells every rank the verdict (code, | 0x100: leave without MPI_Finalize, which would
 * wait for a lost rank forever); every rank leaves with it. */
static int finish(struct run *r, int code)
{
    if (r->rank == 0) {
        if (r->nfailed || r->nunreached)
            code |= 0x100;
        /* the ranks MPI cannot reach take the verdict from the side channel; rank 0 stays
         * until each has said it did (or 20 s): what it published goes when it leaves */
        if (r->nunreached && fabric_side_put(&r->side, SIDE_END, &code, sizeof(code)) == 0) {
            double by = fabric_now() + 20;
            for (int k = 1; k < r->size; k++) {
                int32_t bye;
                if (r->unreached[k])
                    fabric_side_get(&r->side, k, SIDE_BYE, &bye, sizeof(bye), by);
            }
        }
        for (int k = 0; k < r->size; k++) {
            memset(&r->gos[k], 0, sizeof(r->gos[k]));
            r->gos[k].round = -1;
            r->gos[k].verdict = code;
        }
        send_go(r, 1);
    }
    if (code & 0x100) {
        fflush(NULL);
        _exit(code & 0xff);
    }
    if (r->ts)
        r->t->teardown(r->ts);
    topo_map_destroy(r->map);
    fabric_side_close(&r->side);
    MPI_Finalize();
    return code & 0xff;
}

int main(int argc, char **argv)
{
    struct run r;
    int rc;

    if ((rc = set_up(&r, argc, argv)) != GO_ON)
        return leave(&r, rc);
    rc = identify(&r);
    if (r.rank != 0)
        return finish(&r, work(&r));
    if (rc != GO_ON || (rc = lay_out(&r)) != GO_ON) {
        if (!r.gos)
            r.gos = xcalloc((size_t)r.size, sizeof(*r.gos));
        if (!r.rank_lost)
            r.rank_lost = lost_at_start(&r);
        return finish(&r, rc);
    }
    run_rounds(&r, 0);
    /* --retest: passes of suspects against known-good nodes while links stay unexplained */
    for (int pass = 0; r.o.retest && pass < FABRIC_RETEST_PASSES; pass++) {
        size_t from = r.sched.n;
        retest(&r, pass);
        if (r.sched.n == from)
            break;
        run_rounds(&r, from);
    }
    run_collectives(&r);
    {
        struct topo_findings f = { 0 };
        clock_t c0 = clock();
        analyse(&r, &f);
        r.analysis_cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
        rc = report(&r, &f);
        topo_findings_free(&f);
    }
    return finish(&r, rc);
}

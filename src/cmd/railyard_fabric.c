#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "common/file.h"
#include "fabric/collective.h"
#include "fabric/run.h"
#include "fabric/verbs.h"
#include "reports/archive.h"
#include "reports/fabric_report.h"
#include "reports/links.h"

/* railyard-fabric: one MPI job over many nodes that tests every rail (fabric/run.h says how a
 * run goes). This file reads the options and runs the phases in order. Exit status: 0 pass, 1
 * faults found (or a rank lost), 2 could not judge. */

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
        "  --spread <k>            then k rings measured with the nodes n/2, n/4 ... away\n"
        "                          (at least 4): whole leaves with others, across every\n"
        "                          spine; default 1 after neighbor and ring, 0 otherwise\n"
        "  --latency-sweep <k>     then k rings of ping-pong only with the nodes 2..k+1 away:\n"
        "                          the same-leaf peers of each rail compared (miscabling);\n"
        "                          default 2 after neighbor and ring, 0 (none) otherwise\n"
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

static int parse_opts(int argc, char **argv, struct fabric_run_opts *o, int speak)
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
        { "spread", required_argument, NULL, 'q' },
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
    o->lat_sweep = -1; /* by the schedule, below */
    o->spread = -1;
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
        if (optarg && strchr("dRAKSICQWkD", c)) {
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
        case 'U':
        case 'L':
        case 'q': { /* small integers with a range: GID index, traffic class, ACK timeout, sweeps */
            long min = c == 'U' ? 1 : 0,
                 max = c == 'U'               ? 31
                       : c == 'L' || c == 'q' ? 16
                                              : 255,
                 x = strtol(optarg, &end, 10);
            const char *name = c == 'G'   ? "gid-index"
                               : c == 'Y' ? "tos"
                               : c == 'L' ? "latency-sweep"
                               : c == 'q' ? "spread"
                                          : "qp-timeout";
            if (end == optarg || *end || x < min || x > max) {
                if (speak)
                    fprintf(stderr, "railyard-fabric: --%s takes %ld to %ld, not '%s'\n", name, min,
                            max, optarg);
                return -1;
            }
            *(c == 'G'   ? &o->vo.gid_index
              : c == 'Y' ? &o->vo.tos
              : c == 'L' ? &o->lat_sweep
              : c == 'q' ? &o->spread
                         : &o->vo.qp_timeout) = (int)x;
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
    /* the sweep by default: neighbor and ring meet two peers a port, too few to tell a port
     * on another leaf; all-pairs meets them all, and custom pairs are the site's choice */
    if (o->lat_sweep < 0)
        o->lat_sweep = !strcmp(o->schedule, "neighbor") || !strcmp(o->schedule, "ring") ? 2 : 0;
    /* one spread ring by default: neighbor and ring cross the spines only where their pairs
     * straddle two leaves, which takes the same few routes every time */
    if (o->spread < 0)
        o->spread = !strcmp(o->schedule, "neighbor") || !strcmp(o->schedule, "ring") ? 1 : 0;
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

int main(int argc, char **argv)
{
    struct fabric_run r;
    struct fabric_report rep;
    int rc;

    fabric_run_start(&r, &argc, &argv);
    if ((rc = parse_opts(argc, argv, &r.o, r.rank == 0)) != 0)
        return fabric_run_leave(&r, rc > 0 ? 0 : 2);
    if ((rc = fabric_run_open(&r)) != FABRIC_GO_ON)
        return fabric_run_leave(&r, rc);
    rc = fabric_run_identify(&r);
    if (r.rank != 0)
        return fabric_run_finish(&r, fabric_run_work(&r));
    if (rc != FABRIC_GO_ON || (rc = fabric_run_lay_out(&r)) != FABRIC_GO_ON ||
        (rc = fabric_report_open(&rep, &r)) != FABRIC_GO_ON)
        return fabric_run_finish(&r, rc);
    fabric_run_rounds(&r, 0);
    /* --retest: passes of suspects against known-good nodes while links stay unexplained */
    for (int pass = 0; r.o.retest && pass < FABRIC_RETEST_PASSES; pass++) {
        size_t from = r.sched.n;
        fabric_run_retest(&r, pass);
        if (r.sched.n == from)
            break;
        fabric_run_rounds(&r, from);
    }
    fabric_run_collectives(&r);
    {
        struct topo_findings f = { 0 };
        clock_t c0 = clock();
        fabric_run_analyse(&r, &f);
        r.analysis_cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
        rc = fabric_report_end(&rep, &r, &f);
        topo_findings_free(&f);
    }
    return fabric_run_finish(&r, rc);
}

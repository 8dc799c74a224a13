#include "config.h"

#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/archive.h"
#include "reports/out.h"
#include "src/cmd/cmd.h"

static const struct cmd_entry *const commands[] = {
    &cmd_inventory, &cmd_check,   &cmd_probe, &cmd_fabric, &cmd_map,      &cmd_gather,
    &cmd_report,    &cmd_history, &cmd_top,   &cmd_watch,  &cmd_hostlist, NULL,
};

static const char input_help[] =
    "Input (default: the live machine):\n"
    "  --sysfs-root <dir>   read sysfs from <dir> (it stands for /sys)\n"
    "  --hwloc-xml <file>   read the topology from hwloc XML (lstopo --of xml)\n"
    "  --nccl-topo <file>   read the topology from an NCCL topology XML file\n"
    "  --bundle <file>      read a bundle written by 'railyard gather'\n"
    "  --ibstat <file>      read RDMA ports from saved ibstat or ibstatus output\n"
    "  --nvlink-status <file>  read NVLink states from saved 'nvidia-smi nvlink --status'\n"
    "  --nvbandwidth <file>    read GPU copy bandwidth from saved nvbandwidth output (text or\n"
    "                          --json)\n"
    "  --p2p-bandwidth <file>  ... from saved p2pBandwidthLatencyTest output\n"
    "  --bandwidth-test <file> ... from saved bandwidthTest output\n";
static const char output_help[] = "Output:\n"
                                  "  -j, --json           print JSON instead of text\n"
                                  "  -v, --verbose        say more on stderr (repeatable)\n"
                                  "  -h, --help           print this help\n";

void cmd_error(const char *fmt, ...)
{
    char raw[1024], safe[1024];
    va_list ap;

    /* names and lines from files, hosts and the fabric are quoted in messages: inert */
    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    fprintf(stderr, "railyard: %s\n", ry_inert(raw, safe, sizeof(safe)));
}

void cmd_json_error(struct out *o, int schema_version, const char *command, const char *node,
                    const char *msg)
{
    ry_error_t err;

    if (!o || !out_is_json(o))
        return;
    ry_report_error(o, schema_version, command, node, msg);
    out_finish(o, &err);
}

int cmd_refuse(int json, const char *command, const char *fmt, ...)
{
    char msg[1024];
    ry_error_t err;
    struct out *o;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cmd_error("%s: %s", command, msg);
    if (json && (o = out_create(stdout, OUT_JSON, &err))) {
        cmd_json_error(o, 1, command, NULL, msg);
        out_destroy(o);
    }
    return RY_EXIT_ERROR;
}

static char deadline_msg[128];

static void on_deadline(int sig)
{
    (void)sig;
    if (write(STDERR_FILENO, deadline_msg, strlen(deadline_msg)) < 0) {
        /* nothing more can be done */
    }
    _exit(RY_EXIT_ERROR);
}

void cmd_arm_deadline(const char *cmd, double seconds)
{
    snprintf(deadline_msg, sizeof(deadline_msg),
             "railyard: %s: deadline reached (%.0f s) before it finished\n", cmd, seconds);
    signal(SIGALRM, on_deadline);
    alarm((unsigned)(seconds + 0.999));
}

static void cmd_help(const struct cmd_entry *cmd, FILE *fp)
{
    fprintf(fp, "usage: railyard %s\n\n%s\n\n%s%s%s%s", cmd->usage, cmd->summary,
            cmd->options ? "Options:\n" : "", cmd->options ? cmd->options : "",
            cmd->no_node_inputs ? "" : input_help, output_help);
}

int cmd_parse(const struct cmd_entry *cmd, int argc, char **argv, struct cmd_common *common,
              const struct option *extra, const char *extra_short,
              int (*on_extra)(int opt, const char *arg, void *ctx), void *ctx)
{
    enum {
        OPT_SYSFS = 256,
        OPT_HWLOC,
        OPT_NCCL,
        OPT_BUNDLE,
        OPT_IBSTAT,
        OPT_NVLINK,
        OPT_NVBW,
        OPT_P2PBW,
        OPT_BWTEST
    };
    static const struct option base[] = {
        { "sysfs-root", required_argument, NULL, OPT_SYSFS },
        { "hwloc-xml", required_argument, NULL, OPT_HWLOC },
        { "nccl-topo", required_argument, NULL, OPT_NCCL },
        { "bundle", required_argument, NULL, OPT_BUNDLE },
        { "ibstat", required_argument, NULL, OPT_IBSTAT },
        { "nvlink-status", required_argument, NULL, OPT_NVLINK },
        { "nvbandwidth", required_argument, NULL, OPT_NVBW },
        { "p2p-bandwidth", required_argument, NULL, OPT_P2PBW },
        { "bandwidth-test", required_argument, NULL, OPT_BWTEST },
        { "json", no_argument, NULL, 'j' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
    };
    struct option opts[64];
    char shortopts[64];
    size_t n = 0;
    int c;

    memset(common, 0, sizeof(*common));
    for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
        if (!cmd->no_node_inputs || base[i].val < OPT_SYSFS)
            opts[n++] = base[i];
    for (size_t i = 0; extra && extra[i].name && n < 63; i++)
        opts[n++] = extra[i];
    memset(&opts[n], 0, sizeof(opts[n]));
    /* "+": stop at the first operand (map capture ARGS...), unless the command lets options
     * follow its operands, which getopt then permutes to the front */
    snprintf(shortopts, sizeof(shortopts), "%sjvh%s", cmd->options_anywhere ? "" : "+",
             extra_short ? extra_short : "");

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
        switch (c) {
        case OPT_SYSFS: common->inputs.sysfs_root = optarg; break;
        case OPT_HWLOC: common->inputs.hwloc_xml = optarg; break;
        case OPT_NCCL: common->inputs.nccl_topo = optarg; break;
        case OPT_BUNDLE: common->inputs.bundle = optarg; break;
        case OPT_IBSTAT: common->inputs.ibstat = optarg; break;
        case OPT_NVLINK: common->inputs.nvlink_status = optarg; break;
        case OPT_NVBW: common->inputs.nvbandwidth = optarg; break;
        case OPT_P2PBW: common->inputs.p2p_bandwidth = optarg; break;
        case OPT_BWTEST: common->inputs.bandwidth_test = optarg; break;
        case 'j': common->json = 1; break;
        case 'v': common->verbose++; break;
        case 'h': cmd_help(cmd, stdout); return -2;
        case '?':
        case ':':
            if (optopt)
                cmd_error("%s: unknown option '-%c' or missing value, try 'railyard %s --help'",
                          cmd->name, optopt, cmd->name);
            else
                cmd_error("%s: unknown option '%s' or missing value, try 'railyard %s --help'",
                          cmd->name, argv[optind - 1], cmd->name);
            return -1;
        default:
            if (!on_extra || on_extra(c, optarg, ctx) < 0)
                return -1;
        }
    }
    if (common->inputs.nccl_topo && common->inputs.hwloc_xml) {
        cmd_error("%s: --nccl-topo and --hwloc-xml both describe the PCI tree: give one",
                  cmd->name);
        return -1;
    }
    return optind;
}

static void usage(FILE *fp)
{
    fprintf(fp, "usage: railyard <command> [<options>]\n\ncommands:\n");
    for (size_t i = 0; commands[i]; i++)
        fprintf(fp, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(fp, "\n'railyard <command> --help' shows a command's options; 'railyard --version' "
                "the build.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return RY_EXIT_ERROR;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) {
            for (size_t i = 0; commands[i]; i++)
                if (!strcmp(commands[i]->name, argv[2])) {
                    char *hargv[] = { argv[2], "--help", NULL };
                    return commands[i]->run(2, hargv);
                }
            cmd_error("unknown command '%s', try 'railyard help'", argv[2]);
            return RY_EXIT_ERROR;
        }
        usage(stdout);
        return RY_EXIT_OK;
    }
    if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
        printf("railyard %s\nfeatures: %s\n", PACKAGE_VERSION, RY_FEATURES);
        return RY_EXIT_OK;
    }
    for (size_t i = 0; commands[i]; i++)
        if (!strcmp(commands[i]->name, argv[1]))
            return commands[i]->run(argc - 1, argv + 1);
    cmd_error("unknown command '%s', try 'railyard help'", argv[1]);
    return RY_EXIT_ERROR;
}

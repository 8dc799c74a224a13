#ifndef RAILYARD_CMD_CMD_H
#define RAILYARD_CMD_CMD_H

/* src/: the executables' entry points (railyard, railyard-fabric) and railyard's command
 * table; everything below is a library they call. */

#include <getopt.h>

#include "readers/discover.h"

/* Exit codes (railyard(1), EXIT STATUS) */
#define RY_EXIT_OK    0 /* healthy / done */
#define RY_EXIT_FAULT 1 /* the node or fabric is faulty */
#define RY_EXIT_ERROR 2 /* usage error or the tool could not judge */

/* Options every subcommand that reads a node accepts (one parser, railyard(1) OPTIONS). */
struct cmd_common {
    struct topo_inputs inputs;
    int json;
    int verbose;
};

struct cmd_entry {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;    /* synopsis after "railyard " */
    const char *summary;  /* one line for `railyard help` */
    const char *options;  /* the command's own options for --help, NULL if none */
    int no_node_inputs;   /* the command does not read a node: no input options */
    int options_anywhere; /* options may follow operands ("report show RUN --format html") */
};

extern const struct cmd_entry cmd_inventory;
extern const struct cmd_entry cmd_gather;
extern const struct cmd_entry cmd_hostlist;
extern const struct cmd_entry cmd_check;
extern const struct cmd_entry cmd_probe;
extern const struct cmd_entry cmd_map;
extern const struct cmd_entry cmd_fabric;
extern const struct cmd_entry cmd_report;
extern const struct cmd_entry cmd_history;
extern const struct cmd_entry cmd_top;
extern const struct cmd_entry cmd_watch;

/* The node's inventory through the printer (railyard inventory, and the check archive's
 * inventory.json). */
struct out;
void cmd_inventory_print(struct out *o, const struct topo_node *node);

/* The InfiniBand fabric, as railyard fabric and railyard check --fabric read it. */
#include "ib/ibcheck.h"
#include "ib/ibfabric.h"
#include "topo/map.h"

struct fabric_opts {
    const char *ibnetdiscover; /* a dump instead of live discovery */
    const char *expect;        /* reference dump (else the map's fabric: expect) */
    const char *node_name_map; /* else the map's */
    const char *ca;
    int port;
    int no_counters;
    double interval; /* <0: the map's or 1 s */
    int mad_timeout_ms, retries;
    const char *only_host; /* counters of this host's cables only (railyard check --fabric) */
    /* this host's HCAs by node GUID: named only_host/hca whatever their NodeDescription */
    const uint64_t *own_guid;
    const char *const *own_hca;
    size_t nown;
    int progress; /* say on stderr when the first counter sample is taken (--verbose) */
};

struct fabric_data {
    struct ibf_fabric f, ref;
    int have_ref;
    struct ibf_namemap names;
    struct ibf_notes notes;
};

/* Read the fabric (and the reference, and two counter samples when live). 0 or -1 with err. */
int fabric_collect(const struct fabric_opts *o, const struct topo_map *map, struct fabric_data *d,
                   ry_error_t *err);
void fabric_data_free(struct fabric_data *d);

/* Parse argv with the common options plus extra (a getopt_long table ending with a zero
 * entry, may be NULL) and extra_short. Calls on_extra for each extra option; it returns 0, or
 * -1 for a usage error. Returns the index of the first operand, -1 on a usage error (already
 * reported), or -2 when --help was given and printed. */
int cmd_parse(const struct cmd_entry *cmd, int argc, char **argv, struct cmd_common *common,
              const struct option *extra, const char *extra_short,
              int (*on_extra)(int opt, const char *arg, void *ctx), void *ctx);

void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct out;
/* With --json, the document of an input refused or a run that failed, so that a script reading
 * the output gets the error instead of nothing: schema_version, tool, command, version, node
 * (NULL: left out), no findings, a summary of zeros, verdict "error" and error, the message (as
 * reports/report.schema.json has them). In text mode nothing (cmd_error said it). */
void cmd_json_error(struct out *o, int schema_version, const char *command, const char *node,
                    const char *msg);

/* An input or a request refused after the options were read: "railyard: <command>: <msg>" on
 * stderr and, when json, cmd_json_error's document on stdout (schema_version 1, command as
 * given, e.g. "report show"); returns RY_EXIT_ERROR. */
int cmd_refuse(int json, const char *command, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The deadline: after seconds, say "railyard: <cmd>: deadline reached ..." and exit 2 ("could
 * not judge"), so a health check never runs into Slurm's own kill and never drains a node for
 * it, and a fabric that stops answering never hangs the command. alarm(0) disarms it. */
void cmd_arm_deadline(const char *cmd, double seconds);

#endif

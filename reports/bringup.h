#ifndef RAILYARD_REPORTS_BRINGUP_H
#define RAILYARD_REPORTS_BRINGUP_H

#include <stddef.h>

#include "common/error.h"

/* A bring-up (railyard-bringup(8)): each node's node check and the culprits of the fabric runs
 * made into one verdict per node, and the table of them. The script launches; this judges. */

/* in rising weight: a verdict gives way only to a heavier one (drain and recable weigh the same:
 * the first stays) */
enum bringup_verdict {
    BRINGUP_NONE,
    BRINGUP_READY,
    BRINGUP_NOT_JUDGED,
    BRINGUP_OUTLIER,
    BRINGUP_RECABLE,
    BRINGUP_DRAIN,
};

struct bringup_node {
    char *name;
    enum bringup_verdict verdict;
    char *reason; /* NULL: none */
    char *action; /* what --apply did, NULL: nothing */
};

struct bringup {
    struct bringup_node *nodes;
    size_t n;
    int fabric_judged; /* a fabric run judged (exit 0 or 1 with its culprits) */
    char **notes;      /* what blames no node (a run that judged nothing, an unpinned fault) */
    size_t nnotes;
};

const char *bringup_verdict_name(enum bringup_verdict v);
/* The nodes of hostlist, in its order, each without a verdict. 0, or -1 with err. */
int bringup_init(struct bringup *b, const char *hostlist, ry_error_t *err);
void bringup_free(struct bringup *b);
struct bringup_node *bringup_node(struct bringup *b, const char *name);
/* v with reason for node, unless its verdict weighs as much or more; a node not in the list is
 * left out */
void bringup_set(struct bringup *b, const char *node, enum bringup_verdict v, const char *reason);
/* A node check's line, "NODE RC REASON": RC 0 ready (unless judged otherwise already), 1 drain
 * with the reason, anything else not judged. */
void bringup_check_line(struct bringup *b, const char *line);
/* After the node checks: a node that gave no answer is not judged (see where). */
void bringup_no_answer(struct bringup *b, const char *where);
/* A line of run's culprits file (railyard-fabric(1), --culprits): drain (recable when its check
 * is rail.cabling), outlier, lost (not judged), unpinned (said, blames no node). */
void bringup_culprit_line(struct bringup *b, const char *run, const char *line);
/* After the fabric runs: with two nodes or more and no run judged, a ready node is not judged
 * (the rails were not tested; see where). */
void bringup_fabric_done(struct bringup *b, const char *where);
/* 0 every node ready; 1 a node faulty, or one not judged beside judged ones; 2 none judged */
int bringup_exit(const struct bringup *b);

/* The run directory of a bring-up, as railyard-bringup leaves it: run.txt ("key value" lines:
 * map, nodes (the host list asked), rails, time (its UTC stamp), started (seconds since the
 * epoch), applied (0 or 1), and "run NAME EXIT" for each fabric run in order), checks.txt (the
 * node checks' lines), NAME.culprits and NAME.err of each run, and actions.tsv ("NODE<TAB>ACTION"
 * lines, where --apply did something). */
struct bringup_run {
    char *dir, *map, *nodes, *time;
    long rails;
    long long started;
    int applied;
};

/* Read dir into b and r and judge: b initialised from its host list. 0, or -1 with err (a
 * missing or malformed run.txt; the other files may be missing: what they would have said is
 * then not judged). What blames no node is kept in b->notes, for the caller to say. */
int bringup_read(struct bringup *b, struct bringup_run *r, const char *dir, ry_error_t *err);
void bringup_run_free(struct bringup_run *r);

struct out;
/* The table: a header line, a row per node (text), the document of railyard-bringup(8) (JSON:
 * schema_version, tool, time, map, nodes_asked, rails, elapsed_s, run_dir, applied, nodes). */
void bringup_print(struct out *o, const struct bringup *b, const struct bringup_run *r,
                   long long now);

#endif

#ifndef RAILYARD_TOPO_COMPARE_H
#define RAILYARD_TOPO_COMPARE_H

#include <stddef.h>

#include "common/error.h"
#include "topo/map.h"
#include "topo/model.h"

/* Compare a discovered node with its expected node type (or, with no map, with the built-in
 * reference values) and produce findings. Check ids are stable and documented in
 * railyard-check(1); topo_check_ids lists them (NULL-terminated). */

extern const char *const topo_check_ids[];

struct topo_finding {
    enum topo_sev sev; /* TOPO_SEV_OK, WARN or FAIL */
    char *check;       /* "nic.port.rate" */
    char *subject;     /* "gpu017/mlx5_3:1" */
    char *expected;    /* NULL when there is no single expected value */
    char *observed;
    char *hint; /* NULL or a short suggestion */
};

struct topo_findings {
    struct topo_finding *v;
    size_t n, alloc;
    size_t nfail, nwarn, nok;
    /* what could not be judged and why ("gpu0: no reference for ..."): never a silent pass */
    char **unjudged;
    size_t nunjudged, unjudged_alloc;
};

/* Run every check. GPU checks run only when the input lists GPUs (node->gpus_listed), NIC
 * checks only when it lists RDMA devices (node->nics_listed). host names the node in subjects. map
 * and type may be NULL (built-in references and node-relative checks only). Findings are appended
 * to out; severity overrides and ignore lists of the map are applied. Returns 0. */
/* 1 when the node's inputs list its GPUs and NICs and show no GPU, no RDMA device and nothing a
 * missing driver would hide: nothing to judge, which is healthy (railyard-check(1)). */
int topo_node_nothing_to_judge(const struct topo_node *node);
int topo_compare(const struct topo_node *node, const char *host, const struct topo_map *map,
                 const struct map_node_type *type, struct topo_findings *out);

/* Add a finding and count it (the strings are copied; any may be NULL except check and
 * subject). */
void topo_findings_add(struct topo_findings *f, enum topo_sev sev, const char *check,
                       const char *subject, const char *expected, const char *observed,
                       const char *hint);
/* Note something the checks could not judge (formatted, copied). */
void topo_findings_unjudged(struct topo_findings *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Remove the findings whose severity was set to TOPO_SEV_IGNORE (those another finding
 * explains, or a map ignores) and count the rest again. */
void topo_findings_compact(struct topo_findings *f);
/* Apply the severity overrides of a node type and of the map (either may be NULL) to findings
 * made elsewhere (railyard-fabric); findings set to ignore are removed. */
void topo_findings_override(struct topo_findings *f, const struct topo_map *map,
                            const struct map_node_type *type);

/* One line for Slurm's node reason, at most 80 characters: "PREFIX CHECK SUBJECT OBSERVED exp
 * EXPECTED" of the first failure (prefix "railyard: "), " +N" when there are more. With only_node,
 * only failures of node (subject "node" or "node/...") count; "node/" is cut from the subject
 * either way. Returns the number of failures counted (0: buf is left alone). Call after
 * topo_findings_sort. */
size_t topo_findings_reason(const struct topo_findings *f, const char *node, int only_node,
                            const char *prefix, char *buf, size_t len);
/* The failure that reason names (the first; with only_node, the first of node), or NULL; the
 * number of them in *count (count may be NULL). */
const struct topo_finding *topo_findings_first_fail(const struct topo_findings *f, const char *node,
                                                    int only_node, size_t *count);

/* Sort: failures first, then warnings, then ok, each in check-id order (stable). */
void topo_findings_sort(struct topo_findings *f);
void topo_findings_free(struct topo_findings *f);

/* 1 if id is a known check id, or a prefix of one ending in '.' */
int topo_check_id_known(const char *id);

#endif

#ifndef RAILYARD_REPORTS_RENDER_JSON_H
#define RAILYARD_REPORTS_RENDER_JSON_H

#include <limits.h>

#include <jansson.h>

#include "reports/links.h"

/* Field access for the renderers (reports/render*.c): a missing or mistyped field reads as
 * NULL or the default, never as an error. */

static inline const char *str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static inline double num(json_t *o, const char *key, double dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

/* a member as an int: dflt when it is not a number or not one an int holds (converting a loaded
 * report's 1e300 or NaN would be undefined behaviour) */
static inline int inum(json_t *o, const char *key, int dflt)
{
    double v = num(o, key, dflt);
    return v >= INT_MIN && v <= INT_MAX ? (int)v : dflt;
}

/* Past this many links, the Prometheus textfile and JUnit carry each port's aggregate instead
 * of every link (a series per link of a 1024-node all-pairs run would be 16 million), and the
 * links that failed. */
#define RY_REPORT_LINK_DETAIL 65536

/* A railyard-fabric report's links, the same whether report.json holds them as objects (links,
 * latency_links) or names a file of link records (links_file): read when the report is loaded,
 * owned by it. Node indexes point into names: node_names first (nlisted of them), then names
 * that only links use. */
struct ry_report_links {
    struct ry_link *v; /* measured links, in the report's order */
    size_t n;
    struct ry_link *lat; /* a latency sweep's ping-pong only links */
    size_t nlat;
    const char **names;
    size_t nnames, nlisted;
    struct ry_link_extra *extra;
    size_t nextra;
};

struct ry_report;
/* never NULL: no links is n = 0 */
const struct ry_report_links *ry_report_links(const struct ry_report *r);

/* a link's end's name (NULL: none) and strings (all NULL: none) */
static inline const char *ry_link_node(const struct ry_report_links *lv, uint32_t i)
{
    return i < lv->nnames ? lv->names[i] : NULL;
}

static inline struct ry_link_extra ry_link_strings(const struct ry_report_links *lv,
                                                   const struct ry_link *l)
{
    static const struct ry_link_extra none = { 0 };
    return l->extra < lv->nextra ? lv->extra[l->extra] : none;
}

/* The links of a railyard-fabric report by port (node, rail): every link counts for both
 * ends. */
struct ry_port_stats {
    const char *node;
    int rail;
    size_t links, failed;
    double min_gbps, median_gbps; /* NAN: no measured link */
    const char *failed_peer[3];   /* the first peers of failed links */
};

/* Ports with links, by node (node_names order) and rail; *n ports. NULL when the report has no
 * node_names or rails. Computed once per report, which owns them. */
const struct ry_port_stats *ry_report_port_stats(const struct ry_report *r, size_t *n);

#endif

#ifndef RAILYARD_IB_IBCHECK_H
#define RAILYARD_IB_IBCHECK_H

#include <stddef.h>

#include "ib/ibfabric.h"
#include "topo/compare.h"
#include "topo/map.h"

/* Judge a fabric against what was meant (railyard-ibfabric(1), CHECKS):
 *   rail.cabling         an HCA port on a leaf that is not of its rail (map rails)
 *   link.width, link.speed, link.state   per cable, both ends named
 *   fabric.link.missing, fabric.link.extra, fabric.link.moved   against a reference dump or the
 *                        map's hosts and rails (leaf-to-leaf cables are extra)
 *   fabric.desc.duplicate   two HCAs with one "<host> <hca>" NodeDescription
 *   fabric.desc.mismatch    one of only_host's HCAs under another NodeDescription
 *   port.errors          an error counter above its limit
 *   port.errors.rising   an error counter that rose between the two samples
 * Expected values come from, in order: the reference dump, the map (fabric: speed/width, the
 * node type's NIC rate), and built-in references (the width and speed most links of the same
 * kind run at; HCA links are judged for speed only with an expectation). */

struct ibf_expect {
    const struct topo_map *map;   /* may be NULL */
    const struct ibf_fabric *ref; /* reference dump, may be NULL */
    const char *only_host;        /* keep findings that involve this host's HCAs (check --fabric) */
    /* only_host's own HCAs by node GUID (from its sysfs): each should say "<host> <hca>"
     * (fabric.desc.mismatch otherwise) */
    const uint64_t *own_guid;
    const char *const *own_hca;
    size_t nown;
};

struct ibf_notes {
    char **v;
    size_t n;
};

/* Append findings to out (severity overrides of the map applied), and notes (what was not
 * judged and why) to notes (may be NULL). Returns 0. */
int ibf_analyze(const struct ibf_fabric *f, const struct ibf_expect *e, struct topo_findings *out,
                struct ibf_notes *notes);
void ibf_notes_free(struct ibf_notes *n);

/* The rail of every node (rail has f->n entries): a switch's from the map's rail switch names,
 * else the rail most of its HCAs belong to (-2: no majority); an HCA's, its NIC's rail in the
 * map; -1 where unknown. */
void ibf_rails(const struct ibf_fabric *f, const struct topo_map *map, int *rail);
/* The port of HCA node that carries its rail (the map NIC's port, else 1); 0 when the map
 * gives it no rail. */
int ibf_hca_rail_port(const struct ibf_fabric *f, const struct topo_map *map, int node);

/* Nominal data rate of one lane (what ibstat's Rate and a map's rate_gbps count in): HDR 50 */
double ibf_speed_nominal_gbps(enum ibf_speed s);

/* Built-in counter limits: total and rising (-1: not judged). */
void ibf_counter_limits(const struct topo_map *map, int ctr, long long *total, long long *rising);

#endif

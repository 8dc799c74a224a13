#ifndef RAILYARD_REPORTS_FINDINGS_H
#define RAILYARD_REPORTS_FINDINGS_H

#include "reports/out.h"
#include "topo/compare.h"

/* Print findings through the one printer: "findings" (every finding in JSON; in text the
 * failures and warnings with their hints, and the passed ones too when verbose), "not_judged"
 * (what the checks could not judge, and why) and "summary" (fail, warn, ok counts). Used by
 * railyard check and railyard-fabric. */
void report_findings(struct out *o, const struct topo_findings *f, int verbose);

/* A GPU bandwidth capture's figures as "measurements": per test, a row per GPU or a GPU x GPU
 * matrix (row: the source) in text when text is set, and in JSON an array of name, unit and
 * values (gpu, peer, value). */
struct topo_bw_capture;
void report_bw_measurements(struct out *o, const struct topo_bw_capture *c, int text);
/* ... the tests of n captures as one "measurements" */
void report_bw_measurements_of(struct out *o, struct topo_bw_capture *const *c, size_t n, int text);
/* Every capture of node as "gpu_bandwidth" (tool, source, gpus, measurements); nothing when
 * it has none. */
void report_bw_captures(struct out *o, const struct topo_node *node, int text);

/* The node's PCIe layout as "pcie_tree" (JSON only): every bridge, GPU and NIC with a PCI
 * address, its parent bridge ("up"), NUMA node and link (trained and capable); the HTML page
 * draws it. Nothing when no device has an address (a capture without a layout). */
void report_pcie_tree(struct out *o, const struct topo_node *node);

#endif

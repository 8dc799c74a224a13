#ifndef RAILYARD_REPORTS_FINDINGS_H
#define RAILYARD_REPORTS_FINDINGS_H

#include "reports/out.h"
#include "topo/compare.h"

/* Print findings through the one printer: "findings" (every finding in JSON; in text the
 * failures and warnings with their hints, and the passed ones too when verbose), "not_judged"
 * (what the checks could not judge, and why) and "summary" (fail, warn, ok counts). Used by
 * railyard check and railyard-fabric. */
void report_findings(struct out *o, const struct topo_findings *f, int verbose);

#endif

#ifndef RAILYARD_REPORTS_PROM_H
#define RAILYARD_REPORTS_PROM_H

#include <stdio.h>

/* The Prometheus text exposition format, as node_exporter's textfile collector reads it. */

/* name="value" (after a comma unless first): \\, \" and \n escaped, other control characters
 * (ANSI escapes) dropped, so a textfile never carries them. */
void ry_prom_label(FILE *fp, const char *name, const char *value, int first);

/* # HELP and # TYPE lines of a metric; type "gauge" or "counter". */
void ry_prom_help(FILE *fp, const char *name, const char *type, const char *text);

#endif

#ifndef RAILYARD_READERS_GPUBW_JSON_H
#define RAILYARD_READERS_GPUBW_JSON_H

#include <stddef.h>

#include "common/error.h"

/* nvbandwidth's JSON output (--json) as the text output it stands for, so that one reader
 * judges both: a version line, then per test case its 'Running <name>.' line, 'Waiving <name>.'
 * when waived, and its matrix (description, column header, rows). map[i] is the line of the
 * JSON file that text line i stands for (the test case's matrix, each row), so that messages and
 * figures name the file's own lines. What the JSON says went wrong (an error of the run or of a
 * test case, a pattern check that failed) is in broke and corrupt. */
struct nvb_json {
    char *text;
    size_t len;
    int *map;
    int nmap;
    char *broke, *corrupt;
};

/* 0, or -1 with err naming path:line:column (not JSON) or path and the element at fault. Built
 * without jansson: -1 saying so. */
int topo_nvbandwidth_json(const char *path, struct nvb_json *j, ry_error_t *err);
void topo_nvbandwidth_json_free(struct nvb_json *j);

#endif

#ifndef RAILYARD_REPORTS_OUT_JSON_H
#define RAILYARD_REPORTS_OUT_JSON_H

#include <stdio.h>

#include "common/error.h"

/* The JSON side of reports/out.c: builds a document through the JSON library (out_json.c) or
 * refuses (out_json_none.c when railyard is built without one). Used by out.c, and for
 * out_json_dump_doc by whatever rewrites a document it read (report convert). */

struct out_json;

struct out_json *out_json_create(ry_error_t *err);
void out_json_destroy(struct out_json *j);
void out_json_open(struct out_json *j, const char *key, int array);
void out_json_close(struct out_json *j);
void out_json_string(struct out_json *j, const char *key, const char *value); /* NULL: null */
void out_json_int(struct out_json *j, const char *key, long long value);
void out_json_real(struct out_json *j, const char *key, double value);
void out_json_bool(struct out_json *j, const char *key, int value);
void out_json_null(struct out_json *j, const char *key);
int out_json_dump(struct out_json *j, FILE *fp, ry_error_t *err);
/* Write a JSON library document (a json_t) as every railyard document is written. */
int out_json_dump_doc(void *doc, FILE *fp, ry_error_t *err);

#endif

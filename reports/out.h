#ifndef RAILYARD_REPORTS_OUT_H
#define RAILYARD_REPORTS_OUT_H

#include <stdio.h>

#include "common/error.h"

/* One printer for text and JSON (the iproute2 PRINT_ANY idea): each field is written once,
 * with a key for JSON and a text format for the terminal.
 *
 * Text formats hold exactly one "%s", which receives the value already turned into text
 * ("n/a" for an unknown value); a NULL text format leaves the field out of the text output.
 * Keys are ignored inside arrays. Strings from machines are made inert on a terminal (control
 * characters are written as \xHH) and escaped by the JSON library in JSON. */

enum out_format { OUT_TEXT, OUT_JSON };

struct out;

/* JSON needs the JSON library: without it, create fails with a message saying so. */
struct out *out_create(FILE *fp, enum out_format format, ry_error_t *err);
/* Write the JSON document (nothing more in text mode) and check for write errors. */
int out_finish(struct out *o, ry_error_t *err);
void out_destroy(struct out *o);
int out_is_json(const struct out *o);
/* Text output that also builds the JSON document, for an archived report.json: every field
 * goes to both (one printer, no second JSON path). 0, or -1 without a JSON library. */
int out_tee_json(struct out *o, ry_error_t *err);
/* A JSON document is being built (JSON output, or text with out_tee_json). */
int out_has_json(const struct out *o);
/* Stop (mute 1) or resume (0) the text output; the JSON document still gets every field.
 * Returns the previous setting. */
int out_mute_text(struct out *o, int mute);
/* Write the JSON document built so far (JSON mode or tee) to fp. */
int out_dump_json(struct out *o, FILE *fp, ry_error_t *err);

void out_text(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void out_str(struct out *o, const char *key, const char *fmt, const char *value);
void out_int(struct out *o, const char *key, const char *fmt, long long value);
/* an integer that may be unknown (valid == 0): JSON null, text "n/a" */
void out_int_opt(struct out *o, const char *key, const char *fmt, long long value, int valid);
void out_u64(struct out *o, const char *key, const char *fmt, unsigned long long value);
/* a number shown with prec decimals in text; JSON keeps it as a number */
void out_double(struct out *o, const char *key, const char *fmt, int prec, double value, int valid);
void out_bool(struct out *o, const char *key, const char *fmt, int value);

void out_obj_open(struct out *o, const char *key);
void out_obj_close(struct out *o);
void out_arr_open(struct out *o, const char *key);
void out_arr_close(struct out *o);

/* Copy s into buf with what a terminal would act on written as \xHH (ry_inert). */
const char *out_inert(const char *s, char *buf, size_t len);

#endif

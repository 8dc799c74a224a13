#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "reports/out_json.h"

#define MAX_DEPTH 32

struct out_json {
    json_t *stack[MAX_DEPTH];
    int depth; /* stack[0] is the document */
};

struct out_json *out_json_create(ry_error_t *err)
{
    struct out_json *j = xcalloc(1, sizeof(*j));

    (void)err;
    j->stack[0] = json_object();
    if (!j->stack[0])
        abort();
    return j;
}

void out_json_destroy(struct out_json *j)
{
    if (!j)
        return;
    json_decref(j->stack[0]);
    free(j);
}

/* add v (a new reference, stolen) to the current container */
static void add(struct out_json *j, const char *key, json_t *v)
{
    json_t *top = j->stack[j->depth];

    if (!v)
        abort();
    if (json_is_array(top))
        json_array_append_new(top, v);
    else if (key)
        json_object_set_new(top, key, v);
    else
        json_decref(v); /* a field without a key is for the terminal only */
}

void out_json_open(struct out_json *j, const char *key, int array)
{
    json_t *v = array ? json_array() : json_object();

    if (j->depth + 1 >= MAX_DEPTH)
        abort();
    add(j, key, v);
    j->stack[++j->depth] = v;
}

void out_json_close(struct out_json *j)
{
    if (j->depth > 0)
        j->depth--;
}

void out_json_string(struct out_json *j, const char *key, const char *value)
{
    /* machine strings may not be UTF-8: keep them readable rather than failing */
    json_t *v = value ? json_string(value) : json_null();

    if (!v) {
        char *copy = xstrdup(value);
        for (char *p = copy; *p; p++)
            if ((unsigned char)*p >= 0x80)
                *p = '?';
        v = json_string(copy);
        free(copy);
    }
    add(j, key, v);
}

void out_json_int(struct out_json *j, const char *key, long long value)
{
    add(j, key, json_integer(value));
}

void out_json_real(struct out_json *j, const char *key, double value)
{
    add(j, key, json_real(value));
}

void out_json_bool(struct out_json *j, const char *key, int value)
{
    add(j, key, json_boolean(value));
}

void out_json_null(struct out_json *j, const char *key)
{
    add(j, key, json_null());
}

int out_json_dump_doc(void *doc, FILE *fp, ry_error_t *err)
{
    if (json_dumpf(doc, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) < 0 ||
        fputc('\n', fp) == EOF)
        return ry_errorf(err, "cannot write JSON output: %s", strerror(errno));
    return 0;
}

int out_json_dump(struct out_json *j, FILE *fp, ry_error_t *err)
{
    return out_json_dump_doc(j->stack[0], fp, err);
}

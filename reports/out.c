#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "reports/out.h"
#include "reports/out_json.h"

struct out {
    FILE *fp;
    enum out_format format;
    int mute; /* text not printed (out_mute_text) */
    struct out_json *json;
};

struct out *out_create(FILE *fp, enum out_format format, ry_error_t *err)
{
    struct out *o;
    struct out_json *j = NULL;

    if (format == OUT_JSON && !(j = out_json_create(err)))
        return NULL;
    o = xcalloc(1, sizeof(*o));
    o->fp = fp;
    o->format = format;
    o->json = j;
    return o;
}

int out_tee_json(struct out *o, ry_error_t *err)
{
    if (o->json)
        return 0;
    return (o->json = out_json_create(err)) ? 0 : -1;
}

int out_dump_json(struct out *o, FILE *fp, ry_error_t *err)
{
    if (!o->json)
        return ry_errorf(err, "no JSON document was built");
    if (out_json_dump(o->json, fp, err) < 0)
        return -1;
    if (fflush(fp) != 0 || ferror(fp))
        return ry_errorf(err, "cannot write the JSON document: %s", strerror(errno ? errno : EIO));
    return 0;
}

int out_finish(struct out *o, ry_error_t *err)
{
    if (o->format == OUT_JSON && out_json_dump(o->json, o->fp, err) < 0)
        return -1;
    if (fflush(o->fp) != 0 || ferror(o->fp))
        return ry_errorf(err, "cannot write output: %s", strerror(errno ? errno : EIO));
    return 0;
}

void out_destroy(struct out *o)
{
    if (!o)
        return;
    out_json_destroy(o->json);
    free(o);
}

int out_is_json(const struct out *o)
{
    return o->format == OUT_JSON;
}

int out_has_json(const struct out *o)
{
    return o->json != NULL;
}

int out_mute_text(struct out *o, int mute)
{
    int was = o->mute;

    o->mute = mute;
    return was;
}

const char *out_inert(const char *s, char *buf, size_t len)
{
    return ry_inert(s, buf, len);
}

void out_text(struct out *o, const char *fmt, ...)
{
    va_list ap;

    if (o->format != OUT_TEXT || o->mute)
        return;
    va_start(ap, fmt);
    vfprintf(o->fp, fmt, ap);
    va_end(ap);
}

static void text(struct out *o, const char *fmt, const char *value)
{
    char buf[1024];

    if (o->format == OUT_TEXT && fmt && !o->mute)
        fprintf(o->fp, fmt, out_inert(value, buf, sizeof(buf)));
}

void out_str(struct out *o, const char *key, const char *fmt, const char *value)
{
    if (o->json)
        out_json_string(o->json, key, value);
    text(o, fmt, value ? value : "n/a");
}

void out_int(struct out *o, const char *key, const char *fmt, long long value)
{
    out_int_opt(o, key, fmt, value, 1);
}

void out_int_opt(struct out *o, const char *key, const char *fmt, long long value, int valid)
{
    char buf[32];

    if (o->json) {
        if (valid)
            out_json_int(o->json, key, value);
        else
            out_json_null(o->json, key);
    }
    snprintf(buf, sizeof(buf), "%lld", value);
    text(o, fmt, valid ? buf : "n/a");
}

void out_u64(struct out *o, const char *key, const char *fmt, unsigned long long value)
{
    char buf[32];

    if (o->json)
        out_json_int(o->json, key, (long long)value);
    snprintf(buf, sizeof(buf), "%llu", value);
    text(o, fmt, buf);
}

void out_double(struct out *o, const char *key, const char *fmt, int prec, double value, int valid)
{
    char buf[64];

    if (o->json) {
        if (valid)
            out_json_real(o->json, key, value);
        else
            out_json_null(o->json, key);
    }
    snprintf(buf, sizeof(buf), "%.*f", prec, value);
    text(o, fmt, valid ? buf : "n/a");
}

void out_bool(struct out *o, const char *key, const char *fmt, int value)
{
    if (o->json)
        out_json_bool(o->json, key, value);
    text(o, fmt, value ? "yes" : "no");
}

void out_obj_open(struct out *o, const char *key)
{
    if (o->json)
        out_json_open(o->json, key, 0);
}

void out_obj_close(struct out *o)
{
    if (o->json)
        out_json_close(o->json);
}

void out_arr_open(struct out *o, const char *key)
{
    if (o->json)
        out_json_open(o->json, key, 1);
}

void out_arr_close(struct out *o)
{
    if (o->json)
        out_json_close(o->json);
}

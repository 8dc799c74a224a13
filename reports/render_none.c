#include "config.h"

#include "reports/render.h"

/* Built without a JSON library: archived reports can be neither written nor read back. */

#define WHY "this railyard was built without jansson: reports cannot be read"

struct ry_report *ry_report_load(const char *path, ry_error_t *err)
{
    (void)path;
    ry_errorf(err, WHY);
    return NULL;
}

struct ry_report *ry_report_parse(const char *text, const char *name, ry_error_t *err)
{
    (void)text;
    (void)name;
    ry_errorf(err, WHY);
    return NULL;
}

void ry_report_free(struct ry_report *r)
{
    (void)r;
}

int ry_render_junit(const struct ry_report *r, FILE *fp, ry_error_t *err)
{
    (void)r;
    (void)fp;
    return ry_errorf(err, WHY);
}

int ry_render_prometheus(const struct ry_report *r, FILE *fp, ry_error_t *err)
{
    (void)r;
    (void)fp;
    return ry_errorf(err, WHY);
}

int ry_render_html(const struct ry_report *r, const char *inventory, const char *fabric, FILE *fp,
                   ry_error_t *err)
{
    (void)r;
    (void)inventory;
    (void)fabric;
    (void)fp;
    return ry_errorf(err, WHY);
}

int ry_render_text(const struct ry_report *r, FILE *fp, ry_error_t *err)
{
    (void)r;
    (void)fp;
    return ry_errorf(err, WHY);
}

int ry_render_diff(const struct ry_report *a, const struct ry_report *b, double threshold, FILE *fp,
                   ry_error_t *err)
{
    (void)a;
    (void)b;
    (void)threshold;
    (void)fp;
    return ry_errorf(err, WHY);
}

int ry_report_convert(const char *dir, int records, ry_error_t *err)
{
    (void)dir;
    (void)records;
    return ry_errorf(err, WHY);
}

const char *ry_report_tool(const struct ry_report *r)
{
    (void)r;
    return "";
}

const char *ry_report_node(const struct ry_report *r)
{
    (void)r;
    return NULL;
}

const char *ry_report_verdict(const struct ry_report *r)
{
    (void)r;
    return NULL;
}

int ry_report_complete(const struct ry_report *r)
{
    (void)r;
    return 0;
}

void *ry_report_json(const struct ry_report *r)
{
    (void)r;
    return NULL;
}

int ry_report_rail_refs(const struct ry_report *r, int rails, double *ref, double *median)
{
    (void)r;
    (void)rails;
    (void)ref;
    (void)median;
    return -1;
}

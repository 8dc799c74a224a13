#include "config.h"

#include "reports/render.h"

/* Built without libxml2: JUnit and HTML are not rendered, and say so. */

int ry_render_junit(const struct ry_report *r, FILE *fp, ry_error_t *err)
{
    (void)r;
    (void)fp;
    return ry_errorf(err, "this railyard was built without libxml2: no JUnit output");
}

int ry_render_html(const struct ry_report *r, const char *inventory, const char *fabric, FILE *fp,
                   ry_error_t *err)
{
    (void)r;
    (void)inventory;
    (void)fabric;
    (void)fp;
    return ry_errorf(err, "this railyard was built without libxml2: no HTML output");
}

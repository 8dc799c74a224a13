#include "config.h"

#include "reports/history.h"

/* Built without SQLite (or without a JSON library): no run history; archives still work. */

#define WHY "this railyard was built without SQLite (or jansson): no run history"

int ry_history_record(const char *root, const char *id, const char *dir, const struct ry_report *r,
                      ry_error_t *err)
{
    (void)root;
    (void)id;
    (void)dir;
    (void)r;
    return ry_errorf(err, WHY);
}

int ry_history_forget_missing(const char *root, ry_error_t *err)
{
    (void)root;
    return ry_errorf(err, WHY);
}

int ry_history_list(const char *root, const struct ry_history_query *q, FILE *fp, ry_error_t *err)
{
    (void)root;
    (void)q;
    (void)fp;
    return ry_errorf(err, WHY);
}

#include "config.h"

#include <errno.h>

#include "reports/out_json.h"

/* Built without a JSON library: --json is refused with the reason. */

struct out_json *out_json_create(ry_error_t *err)
{
    errno = ENOTSUP;
    ry_errorf(err, "railyard was built without a JSON library, so --json is not available "
                   "(configure --with-jansson)");
    return NULL;
}

void out_json_destroy(struct out_json *j)
{
    (void)j;
}

void out_json_open(struct out_json *j, const char *key, int array)
{
    (void)j, (void)key, (void)array;
}

void out_json_close(struct out_json *j)
{
    (void)j;
}

void out_json_string(struct out_json *j, const char *key, const char *value)
{
    (void)j, (void)key, (void)value;
}

void out_json_int(struct out_json *j, const char *key, long long value)
{
    (void)j, (void)key, (void)value;
}

void out_json_real(struct out_json *j, const char *key, double value)
{
    (void)j, (void)key, (void)value;
}

void out_json_bool(struct out_json *j, const char *key, int value)
{
    (void)j, (void)key, (void)value;
}

void out_json_null(struct out_json *j, const char *key)
{
    (void)j, (void)key;
}

int out_json_dump_doc(void *doc, FILE *fp, ry_error_t *err)
{
    (void)doc, (void)fp;
    errno = ENOTSUP;
    return ry_errorf(err, "no JSON library");
}

int out_json_dump(struct out_json *j, FILE *fp, ry_error_t *err)
{
    (void)j, (void)fp;
    errno = ENOTSUP;
    return ry_errorf(err, "no JSON library");
}

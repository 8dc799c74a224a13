#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/out.h"
#include "tests/tap/tap.h"

static char *render(enum out_format fmt, int *created)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ry_error_t err;
    struct out *o = out_create(fp, fmt, &err);

    *created = o != NULL;
    if (o) {
        out_str(o, "name", "name=%s\n", "mlx5_0");
        out_str(o, "desc", "desc=%s\n", "evil\x1b[31mred");
        out_int_opt(o, "lid", "lid=%s\n", 0, 0);
        out_double(o, "rate", "rate=%s\n", 1, 399.96, 1);
        out_str(o, "json_only", NULL, "x");
        out_text(o, "text only\n");
        out_arr_open(o, "list");
        out_int(o, NULL, "[%s]", 1);
        out_int(o, NULL, "[%s]\n", 2);
        out_arr_close(o);
        out_obj_open(o, "obj");
        out_bool(o, "flag", "flag=%s\n", 1);
        out_obj_close(o);
        out_finish(o, &err);
        out_destroy(o);
    }
    fclose(fp);
    return buf;
}

int main(void)
{
    int created;
    char *t = render(OUT_TEXT, &created), *j;

    ok(created, "text printer created");
    is_str(t,
           "name=mlx5_0\ndesc=evil\\x1b[31mred\nlid=n/a\nrate=400.0\ntext only\n[1][2]\nflag=yes\n",
           "text output: control characters made inert, unknown as n/a");
    free(t);
    j = render(OUT_JSON, &created);
    if (!created) {
        ok(strlen(j) == 0, "JSON refused without a JSON library");
        free(j);
        return done_testing();
    }
    ok(strstr(j, "\"name\": \"mlx5_0\"") != NULL, "JSON string");
    ok(strstr(j, "\"desc\": \"evil\\u001b[31mred\"") != NULL ||
           strstr(j, "\"desc\": \"evil\\u001B[31mred\"") != NULL,
       "JSON escapes control characters");
    ok(strstr(j, "\"lid\": null") != NULL, "unknown is null");
    ok(strstr(j, "\"rate\": 399.96") != NULL, "number keeps its precision");
    ok(strstr(j, "\"json_only\": \"x\"") != NULL, "JSON-only field");
    ok(strstr(j, "text only") == NULL, "text-only line not in JSON");
    ok(strstr(j, "\"list\": [\n    1,\n    2\n  ]") != NULL, "array");
    ok(strstr(j, "\"flag\": true") != NULL, "nested object with a boolean");
    free(j);
    return done_testing();
}

#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/hostlist.h"
#include "tests/tap/tap.h"

static int collect(const char *host, void *ctx)
{
    char *buf = ctx;
    size_t n = strlen(buf);

    snprintf(buf + n, 256 - n, "%s%s", n ? " " : "", host);
    return 0;
}

static int stop_at_second(const char *host, void *ctx)
{
    int *count = ctx;
    (void)host;
    return ++*count == 2 ? 7 : 0;
}

int main(void)
{
    ry_error_t err;

    is_int(ry_hostlist_match("gpu[001-128]", "gpu017", &err), 1, "gpu017 in gpu[001-128]");
    is_int(ry_hostlist_match("gpu[001-128]", "gpu17", &err), 0, "padding matters: gpu17");
    is_int(ry_hostlist_match("gpu[001-128]", "gpu129", &err), 0, "gpu129 out of range");
    is_int(ry_hostlist_match("gpu[001-128]", "gpu000", &err), 0, "gpu000 out of range");
    is_int(ry_hostlist_match("gpu[01-04,07],login1", "gpu07", &err), 1, "second range");
    is_int(ry_hostlist_match("gpu[01-04,07],login1", "gpu05", &err), 0, "gap between ranges");
    is_int(ry_hostlist_match("gpu[01-04,07],login1", "login1", &err), 1, "plain name");
    is_int(ry_hostlist_match("rack[1-2]-n[1-3]", "rack2-n3", &err), 1, "two bracket groups");
    is_int(ry_hostlist_match("rack[1-2]-n[1-3]", "rack3-n1", &err), 0, "first group out");
    is_int(ry_hostlist_match("n[1-100]", "n42", &err), 1, "unpadded range");
    is_int(ry_hostlist_match("n[1-100]", "n042", &err), 0, "leading zero on unpadded range");
    is_int(ry_hostlist_match("n[1-100000000]", "n99999999", &err), 1, "huge range, no expansion");
    is_int(ry_hostlist_match("gpu1", "gpu10", &err), 0, "prefix is not a match");
    is_int(ry_hostlist_match("gpu1", NULL, &err), 0, "NULL host");
    ok(ry_hostlist_match("gpu[1-", "gpu1", &err) < 0 && errno == EINVAL, "unbalanced [");
    ok(ry_hostlist_validate("gpu]1", &err) < 0, "unbalanced ]");
    ok(ry_hostlist_validate("gpu[[1]]", &err) < 0, "nested [");
    ok(ry_hostlist_validate("gpu[9-3]", &err) < 0, "backwards range");
    ok(ry_hostlist_validate("gpu[]", &err) < 0, "empty brackets");
    ok(ry_hostlist_validate("gpu[1,]", &err) < 0, "trailing comma");
    ok(ry_hostlist_validate("a,,b", &err) < 0, "empty name");
    ok(ry_hostlist_validate("a b", &err) < 0, "white space");
    ok(ry_hostlist_validate("", &err) < 0, "empty list");
    ok(ry_hostlist_validate("gpu$1", &err) < 0, "bad character");
    is_int((long long)ry_hostlist_count("gpu[001-128]"), 128, "count 128");
    is_int((long long)ry_hostlist_count("gpu[01-04,07],login1"), 6, "count 6");
    is_int((long long)ry_hostlist_count("r[1-2]-n[1-3]"), 6, "count is a product");
    is_int((long long)ry_hostlist_count("bad["), 0, "malformed counts 0");
    {
        char buf[256] = "";
        int count = 0;
        ok(ry_hostlist_expand("gpu[01-03,07],login1", collect, buf, &err) == 0, "expand");
        is_str(buf, "gpu01 gpu02 gpu03 gpu07 login1", "expanded in order with padding");
        buf[0] = '\0';
        ok(ry_hostlist_expand("r[1-2]-n[8-10]", collect, buf, &err) == 0, "expand product");
        is_str(buf, "r1-n8 r1-n9 r1-n10 r2-n8 r2-n9 r2-n10", "every combination");
        is_int(ry_hostlist_expand("a[1-5]", stop_at_second, &count, &err), 7,
               "expansion stops at the callback's non-zero return");
        ok(ry_hostlist_expand("a[3-1]", collect, buf, &err) < 0, "malformed list refused");
    }
    return done_testing();
}

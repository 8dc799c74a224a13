#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tap/tap.h"

static int planned = -1, run, failed;

void plan(int n)
{
    planned = n;
    printf("1..%d\n", n);
}

void skip_all(const char *reason)
{
    printf("1..0 # SKIP %s\n", reason);
    exit(0);
}

static int vok(int cond, const char *fmt, va_list ap)
{
    run++;
    if (!cond)
        failed++;
    printf("%sok %d - ", cond ? "" : "not ", run);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    return cond;
}

int ok(int cond, const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = vok(cond, fmt, ap);
    va_end(ap);
    return r;
}

int is_int(long long got, long long want, const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = vok(got == want, fmt, ap);
    va_end(ap);
    if (!r)
        diag("got %lld, want %lld", got, want);
    return r;
}

int is_str(const char *got, const char *want, const char *fmt, ...)
{
    va_list ap;
    int same = (got == NULL && want == NULL) || (got && want && !strcmp(got, want));
    int r;

    va_start(ap, fmt);
    r = vok(same, fmt, ap);
    va_end(ap);
    if (!r)
        diag("got '%s', want '%s'", got ? got : "(null)", want ? want : "(null)");
    return r;
}

void diag(const char *fmt, ...)
{
    va_list ap;

    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

int done_testing(void)
{
    if (planned < 0)
        printf("1..%d\n", run);
    else if (planned != run) {
        diag("planned %d tests, ran %d", planned, run);
        return 1;
    }
    return failed ? 1 : 0;
}

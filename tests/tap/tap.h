#ifndef RAILYARD_TESTS_TAP_TAP_H
#define RAILYARD_TESTS_TAP_TAP_H

/* A small TAP producer for the C unit tests (run by automake's tap-driver.sh). */

void plan(int n);
void skip_all(const char *reason) __attribute__((noreturn));
int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int is_int(long long got, long long want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int is_str(const char *got, const char *want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* print the plan if none was given, and return the exit status (non-zero on failures) */
int done_testing(void);

#endif

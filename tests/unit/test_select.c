#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/select.h"
#include "tests/tap/tap.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the k-th by selection equals the k-th by sorting, and v is parted around it */
static int check_select(const double *in, size_t n, size_t k)
{
    double *v = malloc(n * sizeof(*v)), *s = malloc(n * sizeof(*s)), got;
    int good;

    memcpy(v, in, n * sizeof(*v));
    memcpy(s, in, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp);
    got = ry_select_dbl(v, n, k);
    good = got == s[k] && v[k] == s[k];
    for (size_t i = 0; good && i < n; i++)
        good = i < k ? v[i] <= got : i > k ? v[i] >= got : 1;
    qsort(v, n, sizeof(*v), cmp); /* nothing lost, nothing made up */
    good = good && !memcmp(v, s, n * sizeof(*v));
    free(v);
    free(s);
    return good;
}

static double median_of(const double *in, size_t n)
{
    double *v = malloc(n * sizeof(*v)), m;
    memcpy(v, in, n * sizeof(*v));
    m = ry_median_dbl(v, n);
    free(v);
    return m;
}

int main(void)
{
    static double v[5000];
    unsigned seed = 2026;
    size_t sizes[] = { 1, 2, 3, 16, 17, 18, 100, 1001, 5000 };
    int bad;

    /* the median at both parities, with the two middle values apart */
    {
        double odd[] = { 9, 1, 5 }, even[] = { 8, 1, 4, 6 }, two[] = { 3, 7 }, one[] = { 42 };
        ok(median_of(odd, 3) == 5, "median of 3 values: the middle one");
        ok(median_of(even, 4) == 5, "median of 4 values: the mean of the middle two (4, 6)");
        ok(median_of(two, 2) == 5, "median of 2 values: their mean");
        ok(median_of(one, 1) == 42, "median of 1 value: itself");
    }
    /* past the insertion-sort cut-off, even: the lower middle value sits among the first half */
    {
        double w[40];
        for (int i = 0; i < 40; i++)
            w[i] = (double)((i * 17) % 40); /* 0..39 shuffled */
        ok(median_of(w, 40) == 19.5, "median of 0..39 shuffled: 19.5");
        {
            double x[39], s[39];
            memcpy(x, w, sizeof(x));
            memcpy(s, w, sizeof(s));
            qsort(s, 39, sizeof(*s), cmp);
            ok(median_of(x, 39) == s[19],
               "median of 39 values past the cut-off: the 20th smallest");
        }
    }
    /* random values, every size, k at both ends and the middle */
    bad = 0;
    for (size_t z = 0; z < sizeof(sizes) / sizeof(*sizes); z++) {
        size_t n = sizes[z], ks[] = { 0, n / 2, n - 1, n > 1 ? n / 2 - 1 : 0, n / 3 };
        for (size_t i = 0; i < n; i++)
            v[i] = (double)(rand_r(&seed) % 100000) / 7;
        for (size_t j = 0; j < 5; j++)
            bad += !check_select(v, n, ks[j]);
    }
    is_int(bad, 0, "random values: the k-th by selection is the k-th by sorting (45 cases)");
    /* runs of equal values: all equal, two values, the pivot value repeated */
    bad = 0;
    for (size_t i = 0; i < 5000; i++)
        v[i] = 395;
    bad += !check_select(v, 5000, 2500) + !check_select(v, 5000, 0) + !check_select(v, 5000, 4999);
    for (size_t i = 0; i < 5000; i++)
        v[i] = i % 3 ? 390 : 180;
    bad +=
        !check_select(v, 5000, 1666) + !check_select(v, 5000, 1667) + !check_select(v, 5000, 4000);
    is_int(bad, 0, "equal values: all alike, and two values on either side of the split");
    /* ordered, reversed and organ-pipe inputs: the patterns that defeat naive pivots */
    bad = 0;
    for (size_t i = 0; i < 5000; i++)
        v[i] = (double)i;
    bad += !check_select(v, 5000, 2500) + !check_select(v, 5000, 17);
    for (size_t i = 0; i < 5000; i++)
        v[i] = (double)(5000 - i);
    bad += !check_select(v, 5000, 2500) + !check_select(v, 5000, 4990);
    for (size_t i = 0; i < 5000; i++)
        v[i] = (double)(i < 2500 ? i : 5000 - i);
    bad += !check_select(v, 5000, 2500) + !check_select(v, 5000, 1);
    is_int(bad, 0, "sorted, reversed and organ-pipe values");
    /* the median of an even count where the two middle values differ, past the cut-off */
    for (size_t i = 0; i < 1000; i++)
        v[i] = i < 500 ? 100 : 300;
    ok(median_of(v, 1000) == 200, "median of 500 x 100 and 500 x 300: 200");
    for (size_t i = 0; i < 1001; i++)
        v[i] = i < 500 ? 100 : 300;
    ok(median_of(v, 1001) == 300, "median of 500 x 100 and 501 x 300: 300");
    return done_testing();
}

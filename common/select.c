#include "config.h"

#include <stdlib.h>

#include "common/select.h"

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void swap(double *v, size_t i, size_t j)
{
    double t = v[i];
    v[i] = v[j];
    v[j] = t;
}

/* the median of v[a], v[b], v[c] */
static double mid3(const double *v, size_t a, size_t b, size_t c)
{
    double x = v[a], y = v[b], z = v[c];
    if (x < y)
        return y < z ? y : x < z ? z : x;
    return x < z ? x : y < z ? z : y;
}

double ry_select_dbl(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n, budget = 64; /* [lo, hi) holds the k-th */

    if (k >= n)
        abort();
    while (hi - lo > 16) {
        double p;
        size_t lt, i, gt;
        if (!budget--) { /* a pattern that defeats the pivots: sort what is left */
            qsort(v + lo, hi - lo, sizeof(*v), cmp_dbl);
            return v[k];
        }
        p = mid3(v, lo, lo + (hi - lo) / 2, hi - 1);
        /* three ways: [lo, lt) < p, [lt, gt) == p, [gt, hi) > p */
        lt = lo, i = lo, gt = hi;
        while (i < gt) {
            if (v[i] < p)
                swap(v, lt++, i++);
            else if (v[i] > p)
                swap(v, i, --gt);
            else
                i++;
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return p;
    }
    /* a few left: insertion sort */
    for (size_t i = lo + 1; i < hi; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > lo && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    return v[k];
}

double ry_median_dbl(double *v, size_t n)
{
    size_t h = n / 2;
    double upper, lower;

    if (!n)
        abort();
    upper = ry_select_dbl(v, n, h);
    if (n % 2)
        return upper;
    lower = v[0]; /* the largest of v[0..h-1], all no larger than upper */
    for (size_t i = 1; i < h; i++)
        if (v[i] > lower)
            lower = v[i];
    return (lower + upper) / 2;
}

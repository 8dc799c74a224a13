#ifndef RAILYARD_COMMON_SELECT_H
#define RAILYARD_COMMON_SELECT_H

#include <stddef.h>

/* The k-th smallest of v[0..n-1] (k from 0; n > k; no NaN), found in linear time on average
 * rather than by sorting: v is reordered so that v[k] holds it, v[0..k-1] hold nothing larger
 * and v[k+1..n-1] nothing smaller. Runs of equal values (a simulated fabric measures every link
 * alike) cost no more than distinct ones. */
double ry_select_dbl(double *v, size_t n, size_t k);

/* The median of v[0..n-1] (n > 0, no NaN): the middle value, or the mean of the two middle
 * values where n is even. v is reordered. */
double ry_median_dbl(double *v, size_t n);

#endif

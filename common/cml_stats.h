/* cml_stats.h — robust statistics for timings.
 *
 * Percentiles use linear interpolation between closest ranks (Hyndman & Fan 1996,
 * definition 7; the default of numpy.percentile and R's quantile type 7), so the
 * grader's Python and these functions agree on the same samples.
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* p-th percentile (0 <= p <= 100) of x[0..n), n >= 1. x is not modified (a copy is
 * sorted). Returns NaN when n == 0 or p is out of range (a caller's bug). Host memory for the
 * copy that runs out ends the run with status "error", kind "host" (cml_lab_fail_host), as the
 * timing's samples' does: never a NaN that would stand for a figure. */
double cml_percentile(const double *x, size_t n, double p);

/* Median = cml_percentile(x, n, 50). */
double cml_median(const double *x, size_t n);

#ifdef __cplusplus
}
#endif

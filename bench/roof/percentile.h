/* percentile.h — the bench programs' sample statistics (bench/roof/lab33_*.cu): the p-th
 * quantile of a set of samples, linearly interpolated between the two nearest ranks (p = 0.5:
 * the median; 0.1, 0.9: p10, p90). v: the samples (any unit; not empty), p in [0, 1]; returns
 * the value in the samples' unit.
 *
 * Source: Hyndman and Fan, "Sample quantiles in statistical packages" (1996), definition 7. */
#pragma once

#include <algorithm>
#include <vector>

static double percentile(std::vector<float> v, double p) {
    std::sort(v.begin(), v.end());
    const double pos = p * (double)(v.size() - 1);
    const size_t lo = (size_t)pos;
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

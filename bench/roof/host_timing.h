/* host_timing.h — the bench programs' host clock: the median of repeated runs of a step that
 * synchronises before it returns (bench/roof/lab32_*.cu). Host time, not events: the steps
 * measured there include host work (a copy's call, a host update) that events would miss.
 *
 * Source: std::chrono::steady_clock; the median by std::nth_element. */
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

static double now_us() {
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/* reps durations of f() in microseconds, after one warm-up call. */
template <class F> static std::vector<double> samples_us(F f, int reps) {
    f();
    std::vector<double> t(reps);
    for (double &x : t) {
        const double t0 = now_us();
        f();
        x = now_us() - t0;
    }
    return t;
}

/* Median over reps (odd) of f()'s duration in microseconds, after one warm-up call. */
template <class F> static double median_us(F f, int reps) {
    std::vector<double> t = samples_us(f, reps);
    std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
    return t[reps / 2];
}

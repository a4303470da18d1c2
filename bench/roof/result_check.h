/* result_check.h — how the bench programs (bench/roof/lab33_*.cu) verify a variant before
 * timing it: run it once on a poisoned output, then compare the output with a float64 CPU
 * reference at its edges in full and at random positions, within the float32 rounding bound
 * gamma_n * sum |products| (n products summed; Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2nd ed., eq. 3.5), as the labs' harnesses do.
 *
 * Errors: a failing CUDA call, or a launch that fails, exits with status 2 (cuda_check.h); a
 * wrong element is returned as text, not an exit. */
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "cuda_check.h"

/* Fills d_out (n floats) with 0xFF bytes (NaN: an element the launch leaves unwritten fails
 * any check), runs launch once, waits for it and copies d_out into h_out (n floats). */
static void run_poisoned(const std::function<void()> &launch, float *d_out, float *h_out,
                         size_t n) {
    CHECK(cudaMemset(d_out, 0xFF, n * sizeof(float)));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
}

/* out (rows, cols) row-major, each element a float32 sum of n_terms products, against
 * ref_at(r, c, &ref, &mag) (the float64 value and sum |products|): the first and last `band`
 * rows and columns in full (band capped at the smaller side), row by row, then n_random
 * positions of a fixed sequence (LCG, Knuth's MMIX constants). Returns "ok", or "WRONG at
 * <where>: got <g>, want <w>" for the first wrong element, where = where_fmt (two %d: row,
 * column) filled in. */
template <class RefAt>
static std::string check_against_ref(const float *out, int rows, int cols, double n_terms,
                                     int band, int n_random, const char *where_fmt,
                                     RefAt ref_at) {
    const double u = ldexp(1.0, -24);
    const double gamma = n_terms * u / (1.0 - n_terms * u);
    auto check_at = [&](int r, int c, std::string *why) {
        double ref, mag;
        ref_at(r, c, &ref, &mag);
        const double got = out[(size_t)r * cols + c];
        if (!(fabs(got - ref) <= gamma * mag)) { // NaN (unwritten) fails too
            char where[64], msg[160];
            snprintf(where, sizeof where, where_fmt, r, c);
            snprintf(msg, sizeof msg, "WRONG at %s: got %.9g, want %.9g", where, got, ref);
            *why = msg;
            return false;
        }
        return true;
    };
    std::string why;
    band = std::min(band, std::min(rows, cols));
    for (int r = 0; r < rows; ++r) {
        const bool edge_row = r < band || r >= rows - band;
        for (int c = 0; c < cols; ++c) {
            if (edge_row || c < band || c >= cols - band) {
                if (!check_at(r, c, &why)) {
                    return why;
                }
            } else {
                c = cols - band - 1; // skip the interior of this row
            }
        }
    }
    uint64_t state = 12345;
    for (int i = 0; i < n_random; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const int r = (int)((state >> 33) % (uint64_t)rows);
        const int c = (int)((state >> 13) % (uint64_t)cols);
        if (!check_at(r, c, &why)) {
            return why;
        }
    }
    return "ok";
}

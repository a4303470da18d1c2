/* reference.h — lab 3.4: the CPU references (float64) of the five exercises. Plain C11
 * (reference.c); used by harness.cu and tested by tests/test_reference.c. Pristine.
 *
 * Each reference returns, per output element, the exact value (products of two float32 are
 * exact in float64, and the sums here are short) and what the harness's tolerance scales: the
 * magnitude sum |term| (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 * eq. 3.5) or, for texture filtering, the spread of the texels that were blended.
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 3.4a. Element i of the 1D stencil of radius r (lab.h, stencil_constant):
 *   *exact = sum_{k=-r..r} coef[k + r] * in[i + k],  *mag = the sum of |coef| |in|,
 *   in[j] = 0 outside [0, n).  coef: (2r + 1).  Preconditions: i < n, r >= 0. */
void stencil1d_ref_at(const float *in, size_t n, const float *coef, int r, size_t i, double *exact,
                      double *mag);

/* 3.4b. The j-th table index of a thread whose start index is `start` (lab.h,
 * lookup_divergent): (start + j * stride) & (table_size - 1). table_size: a power of two. */
size_t lookup_index(size_t start, size_t j, size_t stride, size_t table_size);

/* 3.4b. One output of lookup_divergent: the sum over j < steps of
 * table[lookup_index(start, j, stride, table_size)] (*exact) and of its |terms| (*mag). */
void lookup_ref_at(const float *table, size_t table_size, size_t start, size_t steps,
                   size_t stride, double *exact, double *mag);

/* 3.4c. The 3x3 weights w(dy, dx) = BLUR3_WEIGHTS[(dy + 1) * 3 + (dx + 1)] (sum 1; powers of
 * two, so exact in float). */
extern const float BLUR3_WEIGHTS[9];

/* 3.4c. Element (y, x) of the 3x3 blur with zero padding (lab.h, stencil_readonly):
 *   *exact = sum_{dy, dx} w(dy, dx) in(y + dy, x + dx),  *mag = the sum of |w| |in|.
 *   in: (height, width) row-major.  Preconditions: y < height, x < width. */
void blur3_ref_at(const float *in, size_t width, size_t height, size_t y, size_t x, double *exact,
                  double *mag);

/* 3.4d. Hardware bilinear filtering (CUDA C++ Programming Guide, "Texture Fetching", linear
 * filtering) of the (in_h, in_w) image `in` at the texel coordinates (x, y):
 *   x_B = x - 0.5, i = floor(x_B), alpha = frac(x_B)   (and y likewise: j, beta),
 *   value = (1-alpha)(1-beta) T[j][i] + alpha(1-beta) T[j][i+1]
 *         + (1-alpha) beta T[j+1][i] + alpha beta T[j+1][i+1],
 * with alpha and beta EXACT (the hardware rounds them to 1/256: the harness's tolerance covers
 * that, see *spread). Texel indices outside the image are clamped to the edge (wrap = 0) or
 * taken modulo the size (wrap = 1). With wrap = 1, x and y are first reduced modulo in_w and
 * in_h (the hardware's frac() of the normalized coordinate).
 * *spread = max - min of the 4 texels blended: d value / d alpha and d value / d beta are at
 * most *spread in magnitude. *maxabs = the largest |texel| of the 4. */
void bilinear_ref(const float *in, size_t in_w, size_t in_h, double x, double y, int wrap,
                  double *value, double *spread, double *maxabs);

/* 3.4d. The texel coordinate that output index o (of n_out) samples in an input of n_in
 * texels: (o + 0.5) * n_in / n_out (lab.h, texture_resample). */
double resample_coord(size_t o, size_t n_in, size_t n_out);

/* 3.4e. `iters` Jacobi steps of lab.h's jacobi_texture (5-point average, edges replicated) on
 * the (height, width) row-major image `in`, in float64: out (height, width) receives the
 * result. Preconditions: width, height >= 1, iters >= 0. Returns 0 when out of memory (one
 * scratch grid of doubles is allocated), else 1. */
int jacobi_ref(const float *in, size_t width, size_t height, int iters, double *out);

#ifdef __cplusplus
}
#endif

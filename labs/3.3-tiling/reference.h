/* reference.h — lab 3.3: the CPU references (float64) of the three exercises. Plain C11
 * (reference.c); used by harness.cu and tested by tests/test_reference.c. Pristine. The sample
 * of positions the harness checks on large outputs is common/cml_sample.h's.
 *
 * Each reference returns, per output element, the exact value (accumulated in float64: a
 * product of two float32 is exact in float64, and the sums of this lab's sizes lose nothing
 * that matters next to the float32 tolerance) and the magnitude sum |term| that the tolerance
 * model of cml_compare.h scales (Higham, "Accuracy and Stability of Numerical Algorithms",
 * 2nd ed., eq. 3.5).
 */
#pragma once

#include <stddef.h>

#include "cml_setup.h" /* cml_uniform_view */

#ifdef __cplusplus
extern "C" {
#endif

/* Element (row, col) of C = A B:
 *   *exact = sum_k A(row, k) B(k, col),   *mag = sum_k |A(row, k) B(k, col)|.
 *   A:  (M, K) row-major;  Bt: (N, K) row-major, i.e. B transposed (make it with
 *       transpose_ref(B, K, N, Bt)), so that both operands are read contiguously: walking a
 *       column of a large row-major B would miss the cache on every element.
 * Preconditions: K >= 1, row < M, col < N. */
void matmul_ref_at(const float *A, const float *Bt, size_t K, size_t row, size_t col, double *exact,
                   double *mag);

/* matmul_ref_at at n positions of C (M, N): position i is the linear index pos[i] (pos NULL:
 * i), exact[i] and mag[i] its results. With at least N positions, B (K, N) is transposed once
 * for contiguous reads (as matmul_ref_at takes it); with fewer (the student's process checks
 * one), or where the host has no memory for B^T, each position's column of B is gathered.
 * On several cores (common/cml_parallel.h): a 4096^3 case's 327 680 positions take about
 * 1 s of one core. The results are the same either way, bit for bit. Returns 0, or -1 when
 * the host had not even K floats to spare (some positions then hold no result). */
int matmul_ref_positions(const float *A, const float *B, size_t N, size_t K, const size_t *pos,
                         size_t n, double *exact, double *mag);

/* out = in^T: in (rows, cols) row-major -> out (cols, rows) row-major; out(c, r) = in(r, c).
 * in and out must not overlap. */
void transpose_ref(const float *in, size_t rows, size_t cols, float *out);

/* Element (out_row, out_col) of in^T, i.e. in(out_col, out_row); in has `cols` columns.
 * Preconditions: out_row < cols, out_col < rows of in. */
float transpose_ref_at(const float *in, size_t cols, size_t out_row, size_t out_col);

/* Element (y, x) of the correlation of lab.h's conv2d_tiled:
 *   *exact = sum_{dy, dx in [-R, R]} f[(dy + R)(2R + 1) + dx + R] * in(y + dy, x + dx),
 *   *mag   = the same sum of |f| |in|, where in(y', x') = 0 outside the image.
 *   in: (height, width) row-major; filter: (2R + 1, 2R + 1) row-major.
 * Preconditions: R >= 0, y < height, x < width. */
void conv2d_ref_at(const float *in, size_t width, size_t height, const float *filter, int R,
                   size_t y, size_t x, double *exact, double *mag);

/* conv2d_ref_at at n positions pos[i] (linear, row-major; pos NULL: position i) into
 * exact[i], mag[i], of an image given as the host array `in`, or where `in` is NULL through
 * `view` (an input drawn on the device, cml_input_uniform_view): then each position's
 * (2R + 1)^2 neighbourhood is read from the view, zeros outside the image (the terms f * 0
 * they add change neither sum), and conv2d_ref_at taken at its centre.
 * Returns 0, or -1 when no memory was left for the neighbourhood.
 * Preconditions: those of conv2d_ref_at at every position. */
int conv2d_ref_positions(const float *in, const cml_uniform_view *view, size_t width,
                         size_t height, const float *filter, int R, const size_t *pos, size_t n,
                         double *exact, double *mag);

#ifdef __cplusplus
}
#endif

/* reference.h — lab 3.1: the CPU references of the exercises and the pointer-chasing cycles.
 * Plain C11 (reference.c); used by harness.cu and tested by tests/test_reference.c. Pristine.
 *
 * Numerical references return, per output element, the exact value (float64: a product of two
 * float32 is exact in float64) and the magnitude sum |term| that the tolerance model of
 * cml_compare.h scales (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 * eq. 3.5). The pointer chase is integer arithmetic: its reference is exact.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cml_rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A random single cycle through n nodes: succ[i] is the node after node i, and following succ
 * from any node visits all n nodes before returning (Sattolo's algorithm: a uniformly random
 * cyclic permutation; D. E. Knuth, TAOCP vol. 2, 3.4.2, exercise 13). n >= 1 (n = 1: the
 * one node is its own successor). Draws n - 1 numbers from rng. Returns 1, or 0 when out of
 * memory (then succ is unchanged). */
int chase_build_cycle(uint32_t *succ, size_t n, cml_rng *rng);

/* The chase of lab.h on a cycle given by node successors, with nodes `stride` words apart:
 * the word array would hold next[i * stride] = succ[i] * stride. Starting at word `start`
 * (= node * stride), performs `warmup` then `steps` loads j = next[j]; *final = j after them
 * all, *checksum = sum of j after each of the `steps` timed loads, modulo 2^32.
 * Preconditions: start / stride < n, start % stride == 0, stride * n < 2^32. */
void chase_ref(const uint32_t *succ, size_t n, uint32_t stride, uint32_t start, long long warmup,
               long long steps, uint32_t *final, uint32_t *checksum);

/* Element (r, c) of lab.h's fir_registers:
 *   *exact = sum_{k=0}^{n_taps-1} taps[k] * in(r - k, c),   in(r', c) = 0 for r' < 0,
 *   *mag   = the same sum of |taps[k] * in(r - k, c)|.
 *   in: (rows, cols) row-major. Preconditions: c < cols. */
void fir_ref_at(const float *in, size_t cols, const float *taps, int n_taps, size_t r, size_t c,
                double *exact, double *mag);

/* Element (r, c) of lab.h's scale_rows:
 *   *exact = in(r, c) * row_scale[r] + col_bias[c],   *mag = |in(r, c) * row_scale[r]| +
 *   |col_bias[c]|.  in: (rows, cols) row-major. */
void scale_rows_ref_at(const float *in, size_t cols, const float *row_scale, const float *col_bias,
                       size_t r, size_t c, double *exact, double *mag);

#ifdef __cplusplus
}
#endif

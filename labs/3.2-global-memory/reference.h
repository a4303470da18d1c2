/* reference.h — lab 3.2: the CPU references of the exercises. Plain C11 (reference.c); used by
 * harness.cu and tested by tests/test_reference.c. Pristine.
 *
 * 3.2a only moves bytes: its reference is the input itself, compared exactly. 3.2b's
 * per-element work is the affine recurrence of lab.h's overlap_transform,
 *     y_0 = x,   y_{k+1} = a y_k + b,   b = 1 - a,
 * whose exact value is y_K = a^K (x - 1) + 1 (the fixed point is 1). Its float32 evaluation
 * rounds each step at most twice (a product and a sum; once with FMA), each rounding at most
 * u |value| with u = 2^-24, and every |y_k| <= max(|x|, 1) (y_k is a convex combination of x
 * and 1); an error made at step k is multiplied by a^(K-k) <= 1 afterwards. So
 *     |float32 result - exact| <= 2 K u max(|x|, 1)
 * (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., §2.2 and §3.1), the
 * tolerance the harness uses. One step too few or too many moves y by
 * a^(K-1) (1 - a) |x - 1|, about 7e-4 |x - 1| at K = 512: far above the tolerance for most x.
 *
 * 3.2c's kernel multiplies each input by a weight the harness wrote into managed memory:
 *     w_i = 1/2 + (i mod UNIFIED_WEIGHT_PERIOD) / 256,   out_i = x_i w_i.
 * Every w_i is k/256 with k <= 384, exact in float32 (9 significant bits), and depends on the
 * index only, never on the seed: the judge rotates the seeded input among input sets, and
 * every process that fills the table (yours, the judge's) fills the same one. The product
 * rounds once, so |float32 result - exact| <= u |x w| (u = 2^-24): the harness's tolerance is
 * gamma_1 |x w|. The period, a prime, is no divisor of a page's 1024 floats, so a kernel that
 * reads the wrong element, or the right element of the wrong page, gets another weight: off
 * by at least 1/256, which moves the product by |x| / 256 or more, far above the tolerance
 * for every x but 0.
 *
 * 3.2d's kernel scales each element of the host buffer by lab.h's ZERO_COPY_SCALE:
 *     out_i = s x_i,   s = 3/2,
 * exact in float32, so the product rounds once: |float32 result - exact| <= u |s x| (u = 2^-24),
 * the harness's tolerance gamma_1 |s x|. The buffer holds new values for every launch (the
 * judge's draw for it alone): a result computed from an earlier launch's values, or from the
 * buffer copied without the kernel (out = x), is off by far more than that for almost every x.
 *
 * 3.2e's kernel sums a window of w inputs (lab.h's ASYNC_COPY_WINDOW):
 *     out_i = x_i + x_{i+1} + ... + x_{i+w-1},   x_j = 0 for j >= n.
 * A float32 sum of w terms in any order makes w - 1 roundings, so |float32 result - exact| <=
 * gamma_{w-1} sum |x_{i+k}| (Higham, §4.2; gamma_k = k u / (1 - k u)): the harness's tolerance,
 * with the magnitude sum |x_{i+k}| that async_copy_ref returns. A tile read from a buffer that
 * still holds the previous tile (a copy not waited for), or a window one element short, moves
 * the sum by a whole input, far above the tolerance for almost every x.
 *
 * 3.2f's kernel scales each element of the stream by one element of the table (lab.h):
 *     out_i = x_i t_j,   j = l2_persist_index(i / L2_PERSIST_GROUP, table_n).
 * The product rounds once: |float32 result - exact| <= u |x t| (u = 2^-24), the harness's
 * tolerance gamma_1 |x t|. A kernel that reads another table element (the wrong group, the
 * wrong hash, an index past table_n) gets another uniform draw: off by far more than that for
 * almost every x. The window and the set-aside change where the table's lines live, never the
 * values: the result is the same with and without them.
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The exact result of `steps` steps of y = a y + (1 - a) from y = x, in float64:
 * a^steps (x - 1) + 1. a is taken as given (lab.h's OVERLAP_A is exact in float32, and so is
 * 1 - a). steps >= 0. */
double overlap_ref(double x, int steps, double a);

/* The same recurrence evaluated step by step in float64 (tests compare the closed form with
 * it). */
double overlap_ref_iterate(double x, int steps, double a);

/* The bound on |float32 evaluation - overlap_ref| for input x (see above): 2 steps u max(|x|, 1),
 * u = 2^-24. */
double overlap_tol(double x, int steps);

/* The recurrence in float32 on the CPU, as the GPU evaluates it: fused != 0 with one rounding
 * per step (fmaf), else a rounded product then a rounded sum. For the tests. */
float overlap_f32(float x, int steps, float a, int fused);

/* 3.2c's weight table: w_i = 1/2 + (i mod UNIFIED_WEIGHT_PERIOD) / 256, in [1/2, 3/2]. */
#define UNIFIED_WEIGHT_PERIOD 257

/* w_i (exact in float32 and float64). */
double unified_weight(size_t i);

/* The exact result at index i for input x: x * w_i, in float64. */
double unified_ref(double x, size_t i);

/* 3.2d: the exact result for buffer value x and scale s (lab.h's ZERO_COPY_SCALE): s x, in
 * float64. */
double zero_copy_ref(double x, double scale);

/* 3.2e: the exact window sum at index i < n of x (n floats), w >= 1 terms, x_j = 0 for j >= n,
 * in float64; *mag (when not NULL) receives sum |x_{i+k}|, the tolerance's magnitude. */
double async_copy_ref(const float *x, size_t n, size_t i, int w, double *mag);

/* 3.2f: the exact product at index i of stream x and table t (table_n floats), the table's
 * element chosen as lab.h's l2_persist_kernel chooses it, in float64; *mag (when not NULL)
 * receives |x_i t_j|, the tolerance's magnitude. */
double l2_persist_ref(const float *x, const float *table, size_t table_n, size_t i, double *mag);

#ifdef __cplusplus
}
#endif

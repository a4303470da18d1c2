/* cml_compare.h — comparing a float32 result with a float64 CPU reference.
 *
 * Tolerance model (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 * §3.1, eq. 3.5): a float32 sum of K products, in any order and with or without FMA,
 * satisfies |computed - exact| <= gamma_K * sum_k |a_k * b_k|, where
 * gamma_K = K*u / (1 - K*u) and u = 2^-24 is float32's unit roundoff. The reference
 * supplies, per element, the exact value (in float64) and the magnitude
 * mag = sum_k |a_k * b_k|; an element passes when
 *     |got - ref| <= gamma * mag + abs_floor.
 * The bound is rigorous, so a correct kernel never fails it, while a dropped or repeated
 * term (size |a_k b_k|, far above gamma*mag for the course's inputs) always does. A pure
 * data movement (transpose, copy) uses gamma = 0, abs_floor = 0: exact equality.
 *
 * Poison: before every verified run the output is filled with the byte 0xFF, so an
 * unwritten element reads back as the bit pattern 0xFFFFFFFF (a NaN no arithmetic
 * produces by accident). Such elements are counted as unwritten, separately from other
 * NaN/Inf values.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The bit pattern of a poisoned (never written) float32 element. */
#define CML_POISON_BITS 0xFFFFFFFFu
/* The byte that cudaMemset/memset writes to poison a buffer. */
#define CML_POISON_BYTE 0xFF

/* float32 unit roundoff u = 2^-24. */
#define CML_UNIT_ROUNDOFF_F32 5.9604644775390625e-08

/* gamma_K = K*u / (1 - K*u) for float32 (Higham eq. 3.8). K >= 0; returns +inf when
 * K*u >= 1 (no useful bound). */
double cml_gamma_f32(double k);

/* True when x is the poison pattern. */
int cml_is_poison_f32(float x);

/* Fills h[0..n) with the poison pattern (host side; device buffers use
 * cudaMemset(d, CML_POISON_BYTE, bytes)). */
void cml_poison_host_f32(float *h, size_t n);

typedef struct cml_compare_result {
    size_t n;           /* elements compared */
    size_t n_bad;       /* elements outside tolerance (unwritten and non-finite included) */
    size_t n_unwritten; /* elements still holding the poison pattern */
    size_t n_nonfinite; /* NaN or Inf that are not the poison pattern */
    double max_abs_err; /* over finite elements; 0 when none */
    double rel_l2_err;  /* ||got - ref||_2 / ||ref||_2 over finite elements (0/0 -> 0) */
    /* First bad element in the order compared (index order, or idx order with a sample):
     * its position in got (idx[i] with a sample); first_bad < 0 when none. */
    long long first_bad;
    size_t first_bad_row, first_bad_col; /* index / cols, index % cols */
    double first_bad_expected, first_bad_got, first_bad_tol;
    /* Bounding box (inclusive) of all bad elements; valid when n_bad > 0. */
    size_t bad_row_min, bad_row_max, bad_col_min, bad_col_max;
    size_t rows, cols; /* the shape used for coordinates */
} cml_compare_result;

/* Compares a float32 result with its reference, at all positions or at a sample.
 *   got[0..n_got)  the result, viewed as (n_got / cols, cols) row-major (cols >= 1; a
 *                  1-D array is cols = n_got); coordinates in *out refer to this shape
 *   idx            NULL: compare every position, and then n == n_got; else compare only
 *                  positions idx[0..n) (each < n_got), in that order
 *   ref, mag       [0..n), in step with the positions compared: exact value and magnitude
 *                  (mag NULL means mag = |ref|)
 * Position i passes when got is finite and |got - ref| <= gamma * mag + abs_floor.
 * Never fails; fills *out (out->n = n). */
void cml_compare_f32(const float *got, size_t n_got, size_t cols, const size_t *idx,
                     const double *ref, const double *mag, size_t n, double gamma, double abs_floor,
                     cml_compare_result *out);

#ifdef __cplusplus
}
#endif

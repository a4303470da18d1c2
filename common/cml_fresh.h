/* cml_fresh.h — inputs no launch has seen, drawn on the device, and a timed launch's output
 * checked against the course's baseline on the same inputs (the judge's side of issue 12's
 * memo hole; docs/design-notes.md, note 22).
 *
 * A judged timing gives every launch of every timed sample inputs of its own when the
 * exercise declared them with cml_input_uniform (cml_setup.h): the judge draws them on the
 * GPU between samples (cml_fresh_draw, outside the timing), so a result kept from an earlier
 * launch, keyed on whatever fingerprint of the inputs, is never the right one. Which launch
 * of a sample is checked is chosen after the sample: the judge runs its own baseline on that
 * launch's inputs and compares (cml_fresh_compare).
 *
 * Source: the draw is cml_rng_uniform_f32's arithmetic (24 random bits times 2^-24, scaled
 * without FMA) over a counter-based generator (SplitMix64's finaliser, Steele et al.,
 * OOPSLA 2014), so a drawn input has the distribution of the host's.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cml_compare.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills d[0..n) (device) with floats uniform in [lo, hi) on the 2^-24 grid of
 * cml_rng_uniform_f32, element i from (seed, i) alone. Asynchronous, on the default stream.
 * Returns the launch's error (cudaSuccess). */
int cml_fresh_draw(float *d, size_t n, float lo, float hi, uint64_t seed);

/* The value cml_fresh_draw writes at element i (host; for tests). */
float cml_fresh_value(uint64_t seed, size_t i, float lo, float hi);

/* How far a launch's output may lie from the baseline's on the same inputs: either
 *   spread > 0: |got - ref| <= spread * sd(ref) + 1e-5 * rms(ref) (the standard deviation and
 *               the RMS over every element of ref), or
 *   spread 0:   |got - ref| <= 2 * (gamma * mag[i] + abs_floor) (mag NULL: 0), both results
 *               within the exercise's own tolerance of the exact value (cml_compare.h). */
typedef struct cml_fresh_tolerance {
    double spread;
    const float *mag; /* device, n floats: each output's sum |products|, or NULL */
    double gamma, abs_floor;
} cml_fresh_tolerance;

/* Compares got[0..n) with ref[0..n) (device buffers, (n / cols, cols) row-major) within *tol;
 * NaN and the poison pattern are always bad. Fills *out like cml_compare_f32 (n, n_bad,
 * n_unwritten, n_nonfinite, max_abs_err, first_bad and its coordinates, values and
 * tolerance, bounding box of the bad elements; rel_l2_err 0) and synchronises. Returns
 * cudaSuccess or the first error. */
int cml_fresh_compare(const float *got, const float *ref, size_t n, size_t cols,
                      const cml_fresh_tolerance *tol, cml_compare_result *out);

/* d[i] = |d[i]| for i < n (device), asynchronously on the default stream: the inputs from which
 * a linear exercise's baseline computes each output's magnitude. Returns the launch's error. */
int cml_fresh_abs(float *d, size_t n);

#ifdef __cplusplus
}
#endif

/* cml_sample.h — the output positions a harness checks, and their reference values.
 *
 * A small output is checked everywhere. On a large one a float64 CPU reference of every
 * element would take minutes (a 4096^3 matmul: 2^36 multiply-adds), so the harness checks a
 * sample instead: whole bands of rows and columns where a kernel's edge handling goes wrong
 * (the last rows and columns hold the partial tiles and blocks; the first rows are where a
 * filter's history starts), plus random positions drawn from the case's seed, which catch a
 * wrong interior. The sample is a function of the sizes, the spec and the generator's state
 * only, so a case and its seed always check the same positions.
 *
 * cml_check_set bundles those positions with the reference arrays the driver compares against
 * (cml_lab.h's cml_problem: check_idx, n_check, h_ref, h_mag). A harness's setup() takes one
 * from the driver, published and freed by it (cml_setup.h's cml_check), and fills it:
 *     cml_check_set *check = cml_check(p, rows, cols, all ? NULL : &kSample, 1, &rng);
 *     for (size_t i = 0; i < check->n; ++i) {
 *         const size_t pos = cml_check_set_pos(check, i); // linear index
 *         my_ref_at(..., pos / cols, pos % cols, &check->ref[i], &check->mag[i]);
 *     }
 *
 * Source: the verification step of NVIDIA cuda-samples (compare with a CPU result), sampled as
 * in cml_lab.h's cml_problem; random positions from cml_rng_below (cml_rng.h, Lemire's method).
 */
#pragma once

#include <stddef.h>

#include "cml_lab.h"
#include "cml_rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which positions of a (rows, cols) row-major output a sample holds: every position in the
 * first `first_rows` rows, the last `last_rows` rows, the last `last_cols` columns and the
 * first `first_cols` columns (a band wider than the output is the whole output), plus
 * `n_random` positions drawn uniformly from the whole output. (Labs 3.1 and 3.3 check their
 * partial tiles at the end; lab 3.5's clamped borders are on every side.) */
typedef struct cml_sample_spec {
    size_t first_rows;
    size_t last_rows;
    size_t first_cols;
    size_t last_cols;
    size_t n_random;
} cml_sample_spec;

/* The positions of the sample `spec` of a (rows, cols) row-major output, as linear indices
 * r * cols + c, sorted ascending, without repeats. First the bands are listed (they draw
 * nothing), then spec->n_random positions are drawn, in order, with
 * cml_rng_below(rng, rows * cols): exactly n_random draws, so what the caller draws from rng
 * afterwards does not depend on the sizes. Random positions that repeat a band position or
 * each other are dropped, so *n <= (band positions) + n_random.
 * An empty output (rows or cols 0) gives *n = 0 and draws nothing.
 * Returns a malloc'd array of *n positions (free() it; never NULL on success, even when
 * *n = 0), or NULL when out of memory (then *n is unchanged and nothing was drawn). */
size_t *cml_sample_positions(size_t rows, size_t cols, const cml_sample_spec *spec, cml_rng *rng,
                             size_t *n);

/* The positions one case checks and the reference at each, in step. */
typedef struct cml_check_set {
    size_t *idx; /* NULL: every position 0 .. n-1; else the n positions of a sample */
    size_t n;    /* positions checked */
    double *ref; /* (n): the exact value at each checked position */
    double *mag; /* (n): the tolerance's scale at each (cml_compare.h); NULL without with_mag */
} cml_check_set;

/* Chooses the positions checked on a (rows, cols) row-major output and allocates ref (and mag
 * when with_mag) for them, uninitialised: every position (s->idx = NULL, s->n = rows * cols)
 * when `sample` is NULL, else cml_sample_positions(rows, cols, sample, rng, ...). rng may be
 * NULL when sample is. Overwrites *s without freeing it. Returns 1, or 0 when out of memory
 * (then *s holds nothing allocated and is safe to cml_check_set_free). */
int cml_check_set_init(cml_check_set *s, size_t rows, size_t cols, const cml_sample_spec *sample,
                       int with_mag, cml_rng *rng);

/* Driver settings (cml_lab.c's judged runs; harnesses never call these):
 * cml_check_set_secret(rng): the random positions of every sample are drawn from `rng` (the
 * judge's secret generator) instead of the caller's, so that the process that runs student
 * code cannot know which positions are checked; the caller's generator still advances
 * exactly as before. NULL restores the default.
 * cml_check_set_minimal(1): every check set holds position 0 only, a full one (sample NULL)
 * too (the student's process of a judged run, which compares nothing, skips the reference's
 * cost): a setup() fills check->ref over check->n with cml_check_set_pos, never over the
 * output's size. 0 restores the default. */
void cml_check_set_secret(cml_rng *secret);
void cml_check_set_minimal(int on);

/* cml_check_set_light(1), with a secret generator set: a sample (not a full check set) of an
 * output of more than CML_CHECK_LIGHT_RANDOM positions holds CML_CHECK_LIGHT_RANDOM positions
 * drawn from the secret generator instead, without its bands (repeats dropped; the caller's
 * generator still advances exactly as before). The judge's input set for the verified
 * repetition of a timing with fresh inputs: the case's own check keeps the bands, each timed
 * sample's launch is checked against the baseline everywhere on the device, and this set's
 * reference, computed before the gate, costs a fifth of the case's on lab 3.3's matmul
 * (issue 15). A full set stays full: a harness may compute its reference for every position
 * at once (lab 3.4's jacobi_texture, when check->n is the output's size). 0 restores the
 * default. */
#define CML_CHECK_LIGHT_RANDOM 65536
void cml_check_set_light(int on);

/* The linear index into the output of the i-th checked position, i < s->n. */
static inline size_t cml_check_set_pos(const cml_check_set *s, size_t i) {
    return s->idx != NULL ? s->idx[i] : i;
}

/* Hands the positions and the reference to the driver: p->check_idx, p->n_check (0 when every
 * position is checked), p->h_ref and p->h_mag. *s stays the owner (cml_check frees it with the
 * problem). */
void cml_check_set_publish(const cml_check_set *s, cml_problem *p);

/* Frees what cml_check_set_init allocated and zeroes *s; safe on a zeroed or freed set. */
void cml_check_set_free(cml_check_set *s);

#ifdef __cplusplus
}
#endif

/* test_fresh.c — inputs drawn on the device and outputs compared there (cml_fresh.h).
 *
 * The draw's values are checked on the host (their grid and range, their spread over seeds and
 * positions); the device's draw and comparison need a GPU and carry the tag "gpu"
 * (CK_EXCLUDE_TAGS=gpu leaves them out).
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cml_fresh.h"
#include "cml_setup.h"
#include "suites.h"

/* ---- host ---- */

START_TEST(values_lie_on_the_host_generators_grid_in_range) {
    for (uint64_t seed = 1; seed < 4; ++seed) {
        for (size_t i = 0; i < 20000; ++i) {
            const float x = cml_fresh_value(seed * 0x1234567ull, i, -1.0f, 1.0f);
            ck_assert(x >= -1.0f && x < 1.0f);
            /* lo + (hi - lo) * k 2^-24 = -1 + k 2^-23: (x + 1) 2^23 is an integer */
            const double k = ((double)x + 1.0) * 8388608.0;
            ck_assert(k == floor(k));
        }
    }
    for (size_t i = 0; i < 20000; ++i) {
        const float x = cml_fresh_value(99, i, 0.0f, 255.0f);
        ck_assert(x >= 0.0f && x < 255.0f);
    }
}
END_TEST

START_TEST(values_change_with_seed_and_position_and_spread_evenly) {
    ck_assert(cml_fresh_value(1, 0, -1.0f, 1.0f) != cml_fresh_value(2, 0, -1.0f, 1.0f));
    ck_assert(cml_fresh_value(1, 0, -1.0f, 1.0f) != cml_fresh_value(1, 1, -1.0f, 1.0f));
    enum { N = 100000, BINS = 10 };
    int bins[BINS] = {0};
    double sum = 0.0;
    for (size_t i = 0; i < N; ++i) {
        const float x = cml_fresh_value(7, i, 0.0f, 1.0f);
        sum += x;
        ++bins[(int)(x * BINS)];
    }
    ck_assert(fabs(sum / N - 0.5) < 0.01);
    for (int b = 0; b < BINS; ++b) {
        ck_assert_int_gt(bins[b], N / BINS - N / 100); /* within 1 % of N of the tenth */
        ck_assert_int_lt(bins[b], N / BINS + N / 100);
    }
}
END_TEST

/* ---- GPU ---- */

static const cml_fresh_tolerance kSpread = {.spread = 0.05};

START_TEST(device_draw_is_the_host_value) {
    enum { N = 100003 };
    float *d = NULL;
    float *h = malloc(N * sizeof(float));
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(cudaMalloc((void **)&d, N * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cml_fresh_draw(d, N, -1.0f, 1.0f, 42), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < N; ++i) {
        ck_assert(h[i] == cml_fresh_value(42, i, -1.0f, 1.0f));
    }
    cudaFree(d);
    free(h);
}
END_TEST

START_TEST(compare_counts_what_is_beyond_the_rms_fraction) {
    enum { ROWS = 300, COLS = 301, N = ROWS * COLS };
    float *h_ref = malloc(N * sizeof(float)), *h_got = malloc(N * sizeof(float));
    ck_assert(h_ref && h_got);
    for (size_t i = 0; i < N; ++i) {
        h_ref[i] = cml_fresh_value(5, i, -1.0f, 1.0f);
        h_got[i] = h_ref[i] * (1.0f + 1e-6f); /* rounding-sized: never bad */
    }
    /* rms of uniform [-1, 1) is 1/sqrt(3) = 0.577: 5 % of it is 0.029 */
    h_got[10 * COLS + 20] = h_ref[10 * COLS + 20] + 0.5f;
    h_got[200 * COLS + 5] = h_ref[200 * COLS + 5] - 0.1f;
    uint32_t poison = CML_POISON_BITS;
    memcpy(&h_got[250 * COLS + 300], &poison, sizeof poison);
    h_got[100 * COLS + 100] = h_ref[100 * COLS + 100] + 0.01f; /* within 5 %: fine */
    float *d_ref = NULL, *d_got = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&d_ref, N * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d_got, N * sizeof(float)), cudaSuccess);
    cudaMemcpy(d_ref, h_ref, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_got, h_got, N * sizeof(float), cudaMemcpyHostToDevice);
    cml_compare_result r;
    ck_assert_int_eq(cml_fresh_compare(d_got, d_ref, N, COLS, &kSpread, &r), cudaSuccess);
    ck_assert_uint_eq(r.n, N);
    ck_assert_uint_eq(r.n_bad, 3);
    ck_assert_uint_eq(r.n_unwritten, 1);
    ck_assert_uint_eq(r.n_nonfinite, 0);
    ck_assert_int_eq(r.first_bad, 10 * COLS + 20);
    ck_assert_uint_eq(r.first_bad_row, 10);
    ck_assert_uint_eq(r.first_bad_col, 20);
    ck_assert(fabs(r.first_bad_got - r.first_bad_expected - 0.5) < 1e-6);
    ck_assert(fabs(r.first_bad_tol - 0.05 / sqrt(3.0)) < 1e-3);
    ck_assert(fabs(r.max_abs_err - 0.5) < 1e-6);
    ck_assert_uint_eq(r.bad_row_min, 10);
    ck_assert_uint_eq(r.bad_row_max, 250);
    ck_assert_uint_eq(r.bad_col_min, 5);
    ck_assert_uint_eq(r.bad_col_max, 300);
    /* the same output against itself: nothing bad */
    ck_assert_int_eq(cml_fresh_compare(d_ref, d_ref, N, COLS, &kSpread, &r), cudaSuccess);
    ck_assert_uint_eq(r.n_bad, 0);
    ck_assert_int_eq(r.first_bad, -1);
    cudaFree(d_ref);
    cudaFree(d_got);
    free(h_ref);
    free(h_got);
}
END_TEST

START_TEST(compare_tolerance_follows_the_spread_not_the_mean) {
    enum { N = 4096 };
    float h_ref[N], h_got[N];
    for (size_t i = 0; i < N; ++i) {
        h_ref[i] = 100.0f + cml_fresh_value(11, i, -1.0f, 1.0f); /* sd 0.577, rms 100 */
        h_got[i] = h_ref[i];
    }
    h_got[7] += 0.1f;  /* 0.17 sd: bad, though 0.1 % of the RMS */
    h_got[9] += 0.01f; /* 0.017 sd: within 5 % */
    float *d_ref = NULL, *d_got = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&d_ref, sizeof h_ref), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d_got, sizeof h_got), cudaSuccess);
    cudaMemcpy(d_ref, h_ref, sizeof h_ref, cudaMemcpyHostToDevice);
    cudaMemcpy(d_got, h_got, sizeof h_got, cudaMemcpyHostToDevice);
    cml_compare_result r;
    ck_assert_int_eq(cml_fresh_compare(d_got, d_ref, N, N, &kSpread, &r), cudaSuccess);
    ck_assert_uint_eq(r.n_bad, 1);
    ck_assert_int_eq(r.first_bad, 7);
    ck_assert(r.first_bad_tol > 0.028 && r.first_bad_tol < 0.031); /* 0.05 sd + 1e-5 rms */
    cudaFree(d_ref);
    cudaFree(d_got);
}
END_TEST

START_TEST(compare_with_magnitudes_holds_each_element_to_its_own_tolerance) {
    enum { N = 1000 };
    float h_ref[N], h_got[N], h_in[N];
    for (size_t i = 0; i < N; ++i) {
        h_in[i] = cml_fresh_value(3, i, -1.0f, 1.0f);
        h_ref[i] = h_in[i];
        h_got[i] = h_in[i];
    }
    /* gamma 1e-3, mag = |in| (after cml_fresh_abs), abs_floor 0: element i may differ by
     * 2e-3 |in[i]| (times 1.001) */
    h_got[4] = h_ref[4] + 1.9e-3f * fabsf(h_in[4]); /* within */
    h_got[8] = h_ref[8] + 2.2e-3f * fabsf(h_in[8]); /* beyond */
    float *d_ref = NULL, *d_got = NULL, *d_mag = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&d_ref, sizeof h_ref), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d_got, sizeof h_got), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d_mag, sizeof h_in), cudaSuccess);
    cudaMemcpy(d_ref, h_ref, sizeof h_ref, cudaMemcpyHostToDevice);
    cudaMemcpy(d_got, h_got, sizeof h_got, cudaMemcpyHostToDevice);
    cudaMemcpy(d_mag, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    ck_assert_int_eq(cml_fresh_abs(d_mag, N), cudaSuccess);
    float h_mag[N];
    ck_assert_int_eq(cudaMemcpy(h_mag, d_mag, sizeof h_mag, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < N; ++i) {
        ck_assert(h_mag[i] == fabsf(h_in[i]));
    }
    const cml_fresh_tolerance tol = {.mag = d_mag, .gamma = 1e-3};
    cml_compare_result r;
    ck_assert_int_eq(cml_fresh_compare(d_got, d_ref, N, N, &tol, &r), cudaSuccess);
    ck_assert_uint_eq(r.n_bad, 1);
    ck_assert_int_eq(r.first_bad, 8);
    ck_assert(fabs(r.first_bad_tol - 2.002e-3 * fabs(h_in[8])) < 1e-9);
    /* gamma 0: within 2 abs_floor, and exactly equal when abs_floor is 0 */
    const cml_fresh_tolerance exact = {0};
    ck_assert_int_eq(cml_fresh_compare(d_got, d_ref, N, N, &exact, &r), cudaSuccess);
    ck_assert_uint_eq(r.n_bad, 2);
    const cml_fresh_tolerance floor = {.abs_floor = 1.2e-3};
    ck_assert_int_eq(cml_fresh_compare(d_got, d_ref, N, N, &floor, &r), cudaSuccess);
    ck_assert_uint_eq(r.n_bad, 0);
    cudaFree(d_ref);
    cudaFree(d_got);
    cudaFree(d_mag);
}
END_TEST

/* Five inputs of size[0] floats each, uniform in [k, k + 1) for the k-th. */
typedef struct five_ctx {
    float *in[5];
} five_ctx;

static const char *five_setup(cml_problem *p, const long long *size, uint64_t seed) {
    five_ctx *c = CML_NEW_CTX(p, five_ctx);
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    for (int k = 0; k < 5; ++k) {
        (void)cml_input_uniform(p, &rng, &c->in[k], (size_t)size[0], (float)k, (float)k + 1.0f);
    }
    return NULL;
}

static const cml_exercise kFive = {
    .name = "five", .dim_names = "n", .n_dims = 1, .dim_max = {1000}, .setup = five_setup};

START_TEST(input_uniform_records_slots_up_to_the_limit) {
    cml_problem p;
    const long long size[1] = {100};
    ck_assert_ptr_null(cml_problem_setup(&kFive, &p, size, 3));
    const five_ctx *c = (const five_ctx *)p.ctx;
    ck_assert_int_eq(p.n_fresh, CML_MAX_FRESH);
    for (int k = 0; k < CML_MAX_FRESH; ++k) {
        ck_assert_ptr_eq(p.fresh[k].slot, &c->in[k]);
        ck_assert_uint_eq(p.fresh[k].n, 100);
        ck_assert(p.fresh[k].lo == (float)k && p.fresh[k].hi == (float)k + 1.0f);
    }
    /* the fifth is an ordinary input: on the device, with its values, but not recorded */
    float h[100];
    ck_assert_int_eq(cudaMemcpy(h, c->in[4], sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < 100; ++i) {
        ck_assert(h[i] >= 4.0f && h[i] < 5.0f);
    }
    cml_problem_release(&kFive, &p);
}
END_TEST

/* cml_input_uniform_view's device values are the host generator's stream from the caller's
 * state, bit for bit, the stream after it where cml_input_uniform leaves it, and the view
 * reads the same values. */
static const char *view_setup(cml_problem *p, const long long *size, uint64_t seed) {
    float **slots = (float **)cml_new_ctx(p, 2 * sizeof(float *));
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const cml_uniform_view v = cml_input_uniform_view(p, &rng, &slots[0], (size_t)size[0], -1.0f,
                                                      1.0f);
    const float *h = cml_view_values(p, &v);
    cml_rng own; /* the stream from the seed, drawn apart from the view */
    cml_rng_seed(&own, seed);
    for (long long i = 0; i < size[0]; ++i) {
        const float want = cml_rng_uniform_f32(&own, -1.0f, 1.0f);
        ck_assert(cml_view_at(&v, (size_t)i) == want && h[i] == want);
    }
    (void)cml_input_uniform(p, &rng, &slots[1], 7, 2.0f, 3.0f); /* what follows the input */
    return NULL;
}

static const cml_exercise kView = {.name = "view", .n_dims = 1, .dim_names = "n",
                                   .setup = view_setup};

START_TEST(input_view_draws_the_host_stream_on_the_device) {
    enum { N = 100003 };
    cml_problem p;
    const long long size[1] = {N};
    ck_assert_ptr_null(cml_problem_setup(&kView, &p, size, 99));
    float *const *slots = (float *const *)p.ctx;
    static float got[N], want[N];
    float next[7], want_next[7];
    cml_rng rng;
    cml_rng_seed(&rng, 99);
    cml_rng_fill_uniform_f32(&rng, want, N, -1.0f, 1.0f);
    cml_rng_fill_uniform_f32(&rng, want_next, 7, 2.0f, 3.0f);
    ck_assert_int_eq(cudaMemcpy(got, slots[0], sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(next, slots[1], sizeof next, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    ck_assert_int_eq(memcmp(got, want, sizeof got), 0);
    ck_assert_int_eq(memcmp(next, want_next, sizeof next), 0);
    ck_assert_int_eq(p.n_fresh, 2);
    ck_assert_ptr_eq(p.fresh[0].slot, &slots[0]);
    cml_problem_release(&kView, &p);
}
END_TEST

Suite *make_fresh_suite(void) {
    Suite *s = suite_create("fresh");
    TCase *tc = tcase_create("Values");
    tcase_add_test(tc, values_lie_on_the_host_generators_grid_in_range);
    tcase_add_test(tc, values_change_with_seed_and_position_and_spread_evenly);
    suite_add_tcase(s, tc);
    tc = tcase_create("GPU");
    tcase_set_tags(tc, "gpu");
    tcase_add_test(tc, device_draw_is_the_host_value);
    tcase_add_test(tc, compare_counts_what_is_beyond_the_rms_fraction);
    tcase_add_test(tc, compare_tolerance_follows_the_spread_not_the_mean);
    tcase_add_test(tc, compare_with_magnitudes_holds_each_element_to_its_own_tolerance);
    tcase_add_test(tc, input_uniform_records_slots_up_to_the_limit);
    tcase_add_test(tc, input_view_draws_the_host_stream_on_the_device);
    suite_add_tcase(s, tc);
    return s;
}

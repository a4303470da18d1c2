/* test_reference.c — Check tests of lab 3.2's CPU references (reference.h). Plain C, no CUDA:
 * the lab's GPU results are only as trustworthy as these.
 *
 * TCases by concern: "Exact" (the closed form against the step-by-step recurrence in float64,
 * the fixed point, hand values), "Tolerance" (the float32 recurrence, fused and not, always
 * within overlap_tol of the closed form; one step too few or too many outside it for most
 * inputs, so the tolerance catches a kernel that changes the work). The constants are lab.h's.
 * "Unified" (3.2c's weight table: exact in float32, periodic with a period no page divides;
 * the float32 product within the harness's one-rounding tolerance, a weight read from the
 * wrong index or the wrong page outside it for most inputs). "ZeroCopy" (3.2d's scale: exact
 * in float32, the float32 product within the harness's one-rounding tolerance; a result from
 * another launch's buffer, or the buffer copied without the kernel, outside it for almost
 * every input). "AsyncCopy" (3.2e's window sum: hand values at the end of the array, where
 * the window runs past n; float32 sums in two orders within gamma_{w-1} sum |x|; a window one
 * short, or a tile summed from a stale buffer, outside it for almost every input). "L2Persist"
 * (3.2f's gather: the hash's values by hand, always inside the table and reaching every element
 * of a small one; the product by hand, within the one-rounding tolerance in float32, and a
 * neighbouring table element or the next group's outside it for almost every input).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "cml_rng.h"
#include "lab.h"
#include "reference.h"

/* ---------------------------------------------------------------------------------------------
 * Exact
 */

START_TEST(test_constants_are_exact) {
    /* B = 1 - A exactly, both exact in float32: the fixed point of the recurrence is 1. */
    ck_assert((double)OVERLAP_A == 1.0 - 1.0 / 512.0);
    ck_assert((double)OVERLAP_B == 1.0 / 512.0);
    ck_assert(1.0f - OVERLAP_A == OVERLAP_B);
}
END_TEST

START_TEST(test_closed_form_matches_iteration) {
    const double a = (double)OVERLAP_A;
    const double xs[] = {-1.0, -0.5, 0.0, 0.25, 0.999, 1.0};
    const int steps[] = {0, 1, 2, 7, 512, 1000};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; ++i) {
        for (size_t k = 0; k < sizeof steps / sizeof steps[0]; ++k) {
            const double closed = overlap_ref(xs[i], steps[k], a);
            const double iter = overlap_ref_iterate(xs[i], steps[k], a);
            ck_assert_double_eq_tol(closed, iter, 1e-12);
        }
    }
}
END_TEST

START_TEST(test_by_hand) {
    /* 0 steps: the input; 1 step: a x + (1 - a); x = 1: always 1 (the fixed point). */
    ck_assert_double_eq_tol(overlap_ref(0.3, 0, 0.5), 0.3, 1e-15);
    ck_assert_double_eq_tol(overlap_ref(0.0, 1, 0.5), 0.5, 1e-15);
    ck_assert_double_eq_tol(overlap_ref(-1.0, 2, 0.5), 0.5, 1e-15); /* -1 -> 0 -> 0.5 */
    ck_assert_double_eq(overlap_ref(1.0, 512, (double)OVERLAP_A), 1.0);
    /* At K = 512 the input survives with the factor a^512, about e^-1: different inputs give
     * different outputs (a race between chunks shows). */
    const double keep = overlap_ref(0.0, OVERLAP_STEPS, (double)OVERLAP_A) - 1.0;
    ck_assert_double_gt(-keep, 0.36);
    ck_assert_double_lt(-keep, 0.37);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Tolerance
 */

START_TEST(test_float32_within_tolerance) {
    cml_rng rng;
    cml_rng_seed(&rng, 32);
    for (int i = 0; i < 2000; ++i) {
        const float x = cml_rng_uniform_f32(&rng, -1.0f, 1.0f);
        const double ref = overlap_ref((double)x, OVERLAP_STEPS, (double)OVERLAP_A);
        const double tol = overlap_tol((double)x, OVERLAP_STEPS);
        for (int fused = 0; fused <= 1; ++fused) {
            const float got = overlap_f32(x, OVERLAP_STEPS, OVERLAP_A, fused);
            ck_assert_msg(fabs((double)got - ref) <= tol, "x = %.9g fused %d: |%.9g - %.9g| > %g",
                          (double)x, fused, (double)got, ref, tol);
        }
    }
}
END_TEST

START_TEST(test_wrong_step_count_exceeds_tolerance) {
    cml_rng rng;
    cml_rng_seed(&rng, 33);
    int caught_short = 0, caught_long = 0;
    const int n = 1000;
    for (int i = 0; i < n; ++i) {
        const float x = cml_rng_uniform_f32(&rng, -1.0f, 1.0f);
        const double ref = overlap_ref((double)x, OVERLAP_STEPS, (double)OVERLAP_A);
        const double tol = overlap_tol((double)x, OVERLAP_STEPS);
        caught_short += fabs((double)overlap_f32(x, OVERLAP_STEPS - 1, OVERLAP_A, 1) - ref) > tol;
        caught_long += fabs((double)overlap_f32(x, OVERLAP_STEPS + 1, OVERLAP_A, 1) - ref) > tol;
    }
    /* |x - 1| must exceed about tol / 7e-4 = 0.09: x in [-1, 0.9), 95 % of the inputs. */
    ck_assert_int_gt(caught_short, n * 9 / 10);
    ck_assert_int_gt(caught_long, n * 9 / 10);
}
END_TEST

START_TEST(test_tolerance_scales_with_magnitude) {
    ck_assert_double_eq(overlap_tol(0.5, 512), overlap_tol(-1.0, 512));
    ck_assert_double_eq(overlap_tol(2.0, 512), 2.0 * overlap_tol(1.0, 512));
    ck_assert_double_eq_tol(overlap_tol(1.0, 512), 1024.0 * 5.9604644775390625e-08, 1e-18);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Unified
 */

/* The harness's tolerance for 3.2c: gamma_1 |x w| (cml_compare.h), gamma_1 = u / (1 - u). */
static double unified_tol(double ref) {
    const double u = 5.9604644775390625e-08;
    return u / (1.0 - u) * fabs(ref);
}

START_TEST(test_unified_weights_by_hand) {
    ck_assert_double_eq(unified_weight(0), 0.5);
    ck_assert_double_eq(unified_weight(1), 0.5 + 1.0 / 256.0);
    ck_assert_double_eq(unified_weight(UNIFIED_WEIGHT_PERIOD - 1), 1.5);
    ck_assert_double_eq(unified_weight(UNIFIED_WEIGHT_PERIOD), 0.5); /* the period */
    ck_assert_double_eq(unified_weight((size_t)1 << 26), unified_weight(((size_t)1 << 26) % 257));
    ck_assert_double_eq(unified_ref(-2.0, 1), -2.0 * (0.5 + 1.0 / 256.0));
    /* A page of 1024 floats is no multiple of the period: the next page's element at the
     * same offset has another weight. */
    ck_assert_int_ne(1024 % UNIFIED_WEIGHT_PERIOD, 0);
}
END_TEST

START_TEST(test_unified_weights_exact_in_float32) {
    for (size_t i = 0; i < 3 * UNIFIED_WEIGHT_PERIOD; ++i) {
        const double w = unified_weight(i);
        ck_assert((double)(float)w == w); /* the harness writes (float)w: no rounding */
        ck_assert_double_ge(w, 0.5);
        ck_assert_double_le(w, 1.5);
    }
}
END_TEST

START_TEST(test_unified_float32_product_within_tolerance) {
    cml_rng rng;
    cml_rng_seed(&rng, 34);
    for (int k = 0; k < 4000; ++k) {
        const float x = cml_rng_uniform_f32(&rng, -1.0f, 1.0f);
        const size_t i = (size_t)k * 7919u; /* indices across many periods */
        const float w = (float)unified_weight(i);
        volatile float got = x * w; /* rounded once to float32, as the kernel does */
        const double ref = unified_ref((double)x, i);
        ck_assert_msg(fabs((double)got - ref) <= unified_tol(ref), "x = %.9g i = %zu", (double)x,
                      i);
    }
}
END_TEST

START_TEST(test_unified_wrong_index_exceeds_tolerance) {
    cml_rng rng;
    cml_rng_seed(&rng, 35);
    int caught_next = 0, caught_page = 0;
    const int n = 1000;
    for (int k = 0; k < n; ++k) {
        const float x = cml_rng_uniform_f32(&rng, -1.0f, 1.0f);
        const size_t i = (size_t)k * 131u;
        const double ref = unified_ref((double)x, i);
        const double next = (double)x * (double)(float)unified_weight(i + 1);
        const double page = (double)x * (double)(float)unified_weight(i + 1024);
        caught_next += fabs(next - ref) > unified_tol(ref);
        caught_page += fabs(page - ref) > unified_tol(ref);
    }
    /* Two weights differ by at least 1/256, so x w moves by |x| / 256 or more, while the
     * tolerance is about 2^-24 |x w|: only x = 0 hides a wrong index. */
    ck_assert_int_gt(caught_next, n * 99 / 100);
    ck_assert_int_gt(caught_page, n * 99 / 100);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * ZeroCopy
 */

START_TEST(test_zero_copy_scale_by_hand) {
    ck_assert((double)ZERO_COPY_SCALE == 1.5); /* exact in float32: the product rounds once */
    ck_assert_double_eq(zero_copy_ref(-2.0, (double)ZERO_COPY_SCALE), -3.0);
    ck_assert_double_eq(zero_copy_ref(0.0, (double)ZERO_COPY_SCALE), 0.0);
    ck_assert_double_eq(zero_copy_ref(0.25, 2.0), 0.5);
}
END_TEST

START_TEST(test_zero_copy_float32_product_within_tolerance) {
    cml_rng rng;
    cml_rng_seed(&rng, 36);
    for (int k = 0; k < 4000; ++k) {
        const float x = cml_rng_uniform_f32(&rng, -1.0f, 1.0f);
        volatile float got = ZERO_COPY_SCALE * x; /* rounded once to float32, as the kernel */
        const double ref = zero_copy_ref((double)x, (double)ZERO_COPY_SCALE);
        ck_assert_msg(fabs((double)got - ref) <= unified_tol(ref), "x = %.9g", (double)x);
    }
}
END_TEST

START_TEST(test_zero_copy_stale_or_unscaled_exceeds_tolerance) {
    /* Two launches' buffers are independent draws in [-1, 1): a kernel that computes from the
     * earlier one (a copy kept from an earlier call) is off by |s (x_old - x)|; the buffer
     * copied without the kernel by |x| / 2. */
    cml_rng rng;
    cml_rng_seed(&rng, 37);
    int caught_stale = 0, caught_unscaled = 0;
    const int n = 1000;
    for (int k = 0; k < n; ++k) {
        const float x = cml_rng_uniform_f32(&rng, -1.0f, 1.0f);
        const float x_old = cml_rng_uniform_f32(&rng, -1.0f, 1.0f);
        const double ref = zero_copy_ref((double)x, (double)ZERO_COPY_SCALE);
        const double stale = (double)(float)(ZERO_COPY_SCALE * x_old);
        caught_stale += fabs(stale - ref) > unified_tol(ref);
        caught_unscaled += fabs((double)x - ref) > unified_tol(ref);
    }
    ck_assert_int_gt(caught_stale, n * 99 / 100);
    ck_assert_int_gt(caught_unscaled, n * 99 / 100);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * AsyncCopy
 */

/* The harness's tolerance for a window sum of magnitude mag: gamma_{w-1} mag (reference.h). */
static double window_tol(double mag) {
    const double k = (double)(ASYNC_COPY_WINDOW - 1), u = 5.9604644775390625e-08;
    return k * u / (1.0 - k * u) * mag;
}

START_TEST(test_async_copy_by_hand) {
    const float x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, -10};
    double mag = 0.0;
    ck_assert(ASYNC_COPY_WINDOW == 8);
    ck_assert(async_copy_ref(x, 10, 0, ASYNC_COPY_WINDOW, &mag) == 36.0 && mag == 36.0);
    ck_assert(async_copy_ref(x, 10, 2, ASYNC_COPY_WINDOW, &mag) == 32.0 && mag == 52.0);
    ck_assert(async_copy_ref(x, 10, 9, ASYNC_COPY_WINDOW, &mag) == -10.0 && mag == 10.0);
    ck_assert(async_copy_ref(x, 1, 0, ASYNC_COPY_WINDOW, NULL) == 1.0); /* n = 1: one term */
}
END_TEST

START_TEST(test_async_copy_float32_sums_within_tolerance) {
    /* Left to right (the course's kernels) and pairwise (a student's tree): both within. */
    cml_rng rng;
    cml_rng_seed(&rng, 41);
    const size_t n = 4096;
    float *x = (float *)malloc(n * sizeof(float));
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; ++i) {
        x[i] = cml_rng_uniform_f32(&rng, -1.0f, 1.0f);
    }
    for (size_t i = 0; i < n; ++i) {
        float seq = 0.0f, pair[ASYNC_COPY_WINDOW];
        for (int k = 0; k < ASYNC_COPY_WINDOW; ++k) {
            pair[k] = i + (size_t)k < n ? x[i + (size_t)k] : 0.0f;
            seq += pair[k];
        }
        for (int half = ASYNC_COPY_WINDOW / 2; half > 0; half /= 2) {
            for (int k = 0; k < half; ++k) {
                pair[k] += pair[k + half];
            }
        }
        double mag = 0.0;
        const double ref = async_copy_ref(x, n, i, ASYNC_COPY_WINDOW, &mag);
        ck_assert_msg(fabs((double)seq - ref) <= window_tol(mag), "i = %zu", i);
        ck_assert_msg(fabs((double)pair[0] - ref) <= window_tol(mag), "i = %zu", i);
    }
    free(x);
}
END_TEST

START_TEST(test_async_copy_short_or_stale_exceeds_tolerance) {
    /* A window one element short (the halo not staged) misses |x_{i+w-1}|; a tile summed from
     * the other buffer (a copy not waited for) holds another tile's inputs. */
    cml_rng rng;
    cml_rng_seed(&rng, 43);
    const size_t n = 2000;
    float *x = (float *)malloc(2 * n * sizeof(float));
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < 2 * n; ++i) {
        x[i] = cml_rng_uniform_f32(&rng, -1.0f, 1.0f);
    }
    int caught_short = 0, caught_stale = 0;
    const int cases = (int)(n - ASYNC_COPY_WINDOW);
    for (int i = 0; i < cases; ++i) {
        double mag = 0.0;
        const double ref = async_copy_ref(x, n, (size_t)i, ASYNC_COPY_WINDOW, &mag);
        const double short_sum = async_copy_ref(x, n, (size_t)i, ASYNC_COPY_WINDOW - 1, NULL);
        const double stale = async_copy_ref(x + n, n, (size_t)i, ASYNC_COPY_WINDOW, NULL);
        caught_short += fabs(short_sum - ref) > window_tol(mag);
        caught_stale += fabs(stale - ref) > window_tol(mag);
    }
    free(x);
    ck_assert_int_gt(caught_short, cases * 99 / 100);
    ck_assert_int_gt(caught_stale, cases * 99 / 100);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * L2Persist
 */

START_TEST(test_l2_persist_index_by_hand) {
    /* Values of lab.h's mix computed independently (Python, the same 32-bit steps). */
    ck_assert(L2_PERSIST_GROUP == 16);
    const unsigned int want[6] = {0, 390, 991, 612, 505, 44};
    for (unsigned long long g = 0; g < 6; ++g) {
        ck_assert_uint_eq(l2_persist_index(g, 1000), want[g]);
    }
    ck_assert_uint_eq(l2_persist_index(1, 1ull << 26), 26227333u);
    ck_assert_uint_eq(l2_persist_index(12345, 4194305), 1785725u);
    ck_assert_uint_eq(l2_persist_index(987654321, 1), 0u); /* a table of one element */
}
END_TEST

START_TEST(test_l2_persist_index_inside_and_covering) {
    /* Every index below table_n; every element of a small table reached within 64 groups per
     * element (the hash is a bijection of the group's 32 bits, then scaled). */
    const unsigned long long sizes[5] = {1, 2, 17, 1023, 4099};
    for (int s = 0; s < 5; ++s) {
        const unsigned long long tn = sizes[s];
        char *seen = (char *)calloc((size_t)tn, 1);
        ck_assert_ptr_nonnull(seen);
        for (unsigned long long g = 0; g < 64 * tn; ++g) {
            const unsigned int j = l2_persist_index(g, tn);
            ck_assert_msg(j < tn, "g = %llu, table_n = %llu: %u", g, tn, j);
            seen[j] = 1;
        }
        for (unsigned long long j = 0; j < tn; ++j) {
            ck_assert_msg(seen[j], "table_n = %llu: element %llu never read", tn, j);
        }
        free(seen);
    }
    for (unsigned long long g = 0; g < (1ull << 24); g += 4097) { /* the largest table */
        ck_assert(l2_persist_index(g, L2_PERSIST_MAX_TABLE) < L2_PERSIST_MAX_TABLE);
    }
}
END_TEST

START_TEST(test_l2_persist_ref_by_hand) {
    float x[40], table[3] = {2.0f, -0.5f, 4.0f};
    for (int i = 0; i < 40; ++i) {
        x[i] = (float)(i + 1);
    }
    double mag = 0.0;
    for (size_t i = 0; i < 40; ++i) {
        const unsigned int j = l2_persist_index(i / L2_PERSIST_GROUP, 3);
        const double want = (double)(i + 1) * (double)table[j];
        ck_assert_double_eq(l2_persist_ref(x, table, 3, i, &mag), want);
        ck_assert_double_eq(mag, fabs(want));
    }
    /* One group, one table element: elements 0..15 share it. */
    ck_assert_double_eq(l2_persist_ref(x, table, 3, 15, NULL) / 16.0,
                        l2_persist_ref(x, table, 3, 0, NULL));
}
END_TEST

START_TEST(test_l2_persist_float32_within_tolerance_and_wrong_element_outside) {
    /* The kernel's float32 product within the harness's gamma_1 |x t|; a product with the
     * neighbouring table element (an index off by one) or with the next group's element (the
     * group taken as i / 8, say) outside it for almost every input. */
    cml_rng rng;
    cml_rng_seed(&rng, 47);
    const size_t n = 4096, tn = 1023;
    float *x = (float *)malloc(n * sizeof(float)), *table = (float *)malloc(tn * sizeof(float));
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(table);
    for (size_t i = 0; i < n; ++i) {
        x[i] = cml_rng_uniform_f32(&rng, -1.0f, 1.0f);
    }
    for (size_t j = 0; j < tn; ++j) {
        table[j] = cml_rng_uniform_f32(&rng, -1.0f, 1.0f);
    }
    int caught_neighbour = 0, caught_group = 0, differs = 0;
    for (size_t i = 0; i < n; ++i) {
        const unsigned int j = l2_persist_index(i / L2_PERSIST_GROUP, tn);
        volatile float got = x[i] * table[j]; /* rounded once, as the kernel */
        double mag = 0.0;
        const double ref = l2_persist_ref(x, table, tn, i, &mag);
        ck_assert_msg(fabs((double)got - ref) <= unified_tol(mag), "i = %zu", i);
        const double neighbour = (double)x[i] * (double)table[(j + 1) % tn];
        caught_neighbour += fabs(neighbour - ref) > unified_tol(mag);
        const unsigned int j8 = l2_persist_index(i / 8, tn);
        if (j8 != j) {
            ++differs;
            caught_group += fabs((double)x[i] * (double)table[j8] - ref) > unified_tol(mag);
        }
    }
    free(x);
    free(table);
    ck_assert_int_gt(caught_neighbour, (int)n * 99 / 100);
    ck_assert_int_gt(differs, (int)n / 2);
    ck_assert_int_gt(caught_group, differs * 99 / 100);
}
END_TEST

Suite *make_reference_suite(void) {
    Suite *s = suite_create("lab 3.2 references");

    TCase *tc_exact = tcase_create("Exact");
    tcase_add_test(tc_exact, test_constants_are_exact);
    tcase_add_test(tc_exact, test_closed_form_matches_iteration);
    tcase_add_test(tc_exact, test_by_hand);
    suite_add_tcase(s, tc_exact);

    TCase *tc_tol = tcase_create("Tolerance");
    tcase_add_test(tc_tol, test_float32_within_tolerance);
    tcase_add_test(tc_tol, test_wrong_step_count_exceeds_tolerance);
    tcase_add_test(tc_tol, test_tolerance_scales_with_magnitude);
    suite_add_tcase(s, tc_tol);

    TCase *tc_unified = tcase_create("Unified");
    tcase_add_test(tc_unified, test_unified_weights_by_hand);
    tcase_add_test(tc_unified, test_unified_weights_exact_in_float32);
    tcase_add_test(tc_unified, test_unified_float32_product_within_tolerance);
    tcase_add_test(tc_unified, test_unified_wrong_index_exceeds_tolerance);
    suite_add_tcase(s, tc_unified);

    TCase *tc_zero_copy = tcase_create("ZeroCopy");
    tcase_add_test(tc_zero_copy, test_zero_copy_scale_by_hand);
    tcase_add_test(tc_zero_copy, test_zero_copy_float32_product_within_tolerance);
    tcase_add_test(tc_zero_copy, test_zero_copy_stale_or_unscaled_exceeds_tolerance);
    suite_add_tcase(s, tc_zero_copy);

    TCase *tc_async = tcase_create("AsyncCopy");
    tcase_add_test(tc_async, test_async_copy_by_hand);
    tcase_add_test(tc_async, test_async_copy_float32_sums_within_tolerance);
    tcase_add_test(tc_async, test_async_copy_short_or_stale_exceeds_tolerance);
    suite_add_tcase(s, tc_async);

    TCase *tc_l2 = tcase_create("L2Persist");
    tcase_add_test(tc_l2, test_l2_persist_index_by_hand);
    tcase_add_test(tc_l2, test_l2_persist_index_inside_and_covering);
    tcase_add_test(tc_l2, test_l2_persist_ref_by_hand);
    tcase_add_test(tc_l2, test_l2_persist_float32_within_tolerance_and_wrong_element_outside);
    suite_add_tcase(s, tc_l2);

    return s;
}

/* test_compare.c — tolerances, poison and reports of cml_compare_f32 (cml_compare.h).
 *
 * Tolerances are chosen as powers of two so that the bound and the values on either side
 * of it are exact: the tests then check the comparison itself, not rounding.
 */
#include <math.h>
#include <string.h>

#include "cml_compare.h"
#include "suites.h"

#define U CML_UNIT_ROUNDOFF_F32

START_TEST(gamma_values) {
    ck_assert(cml_gamma_f32(0) == 0.0);
    ck_assert(cml_gamma_f32(1) == U / (1.0 - U));
    ck_assert(cml_gamma_f32(1000) == 1000 * U / (1.0 - 1000 * U));
    ck_assert_double_eq_tol(cml_gamma_f32(1000), 5.96e-5, 1e-7);
}
END_TEST

START_TEST(gamma_is_inf_when_k_u_reaches_1) {
    ck_assert(isinf(cml_gamma_f32(16777216.0))); /* K = 2^24: K*u = 1 */
    ck_assert(isinf(cml_gamma_f32(1e9)));
    ck_assert(isfinite(cml_gamma_f32(16777215.0)));
}
END_TEST

START_TEST(poison_is_a_bit_pattern_not_any_nan) {
    float h[4];
    cml_poison_host_f32(h, 4);
    for (int i = 0; i < 4; ++i) {
        ck_assert(cml_is_poison_f32(h[i]));
    }
    ck_assert(!cml_is_poison_f32(NAN));
    ck_assert(!cml_is_poison_f32(-NAN));
    ck_assert(!cml_is_poison_f32(INFINITY));
    ck_assert(!cml_is_poison_f32(0.0f));
}
END_TEST

START_TEST(exact_result_passes) {
    float got[6] = {1, -2, 3.5f, 0, 1e-30f, 7};
    double ref[6] = {1, -2, 3.5, 0, (double)1e-30f, 7};
    cml_compare_result r;
    cml_compare_f32(got, 6, 3, NULL, ref, NULL, 6, 0.0, 0.0, &r);
    ck_assert_uint_eq(r.n, 6);
    ck_assert_uint_eq(r.rows, 2);
    ck_assert_uint_eq(r.cols, 3);
    ck_assert_uint_eq(r.n_bad, 0);
    ck_assert_uint_eq(r.n_unwritten, 0);
    ck_assert_uint_eq(r.n_nonfinite, 0);
    ck_assert(r.max_abs_err == 0.0);
    ck_assert(r.rel_l2_err == 0.0);
    ck_assert_int_lt(r.first_bad, 0);
}
END_TEST

START_TEST(at_the_bound_passes_one_ulp_beyond_fails) {
    /* tol = gamma * mag = 2^-20 * 1; got = 1 + 2^-20 is exactly at the bound. */
    double ref[1] = {1.0}, mag[1] = {1.0};
    float at = 1.0f + 0x1p-20f;
    float beyond = nextafterf(at, 2.0f);
    cml_compare_result r;
    cml_compare_f32(&at, 1, 1, NULL, ref, mag, 1, 0x1p-20, 0.0, &r);
    ck_assert_uint_eq(r.n_bad, 0);
    cml_compare_f32(&beyond, 1, 1, NULL, ref, mag, 1, 0x1p-20, 0.0, &r);
    ck_assert_uint_eq(r.n_bad, 1);
    ck_assert(r.first_bad_tol == 0x1p-20);
}
END_TEST

START_TEST(mag_null_means_abs_ref) {
    /* ref = -4: tol = 2^-20 * 4 = 2^-18. */
    double ref[1] = {-4.0};
    float at = -4.0f - 0x1p-18f;
    float beyond = nextafterf(at, -8.0f);
    cml_compare_result r;
    cml_compare_f32(&at, 1, 1, NULL, ref, NULL, 1, 0x1p-20, 0.0, &r);
    ck_assert_uint_eq(r.n_bad, 0);
    cml_compare_f32(&beyond, 1, 1, NULL, ref, NULL, 1, 0x1p-20, 0.0, &r);
    ck_assert_uint_eq(r.n_bad, 1);
}
END_TEST

START_TEST(abs_floor_is_added) {
    double ref[1] = {0.0};
    float small = 0x1p-21f, large = 0x1p-19f;
    cml_compare_result r;
    cml_compare_f32(&small, 1, 1, NULL, ref, NULL, 1, 0.5, 0x1p-20, &r);
    ck_assert_uint_eq(r.n_bad, 0);
    cml_compare_f32(&large, 1, 1, NULL, ref, NULL, 1, 0.5, 0x1p-20, &r);
    ck_assert_uint_eq(r.n_bad, 1);
}
END_TEST

START_TEST(rel_l2_over_finite_elements) {
    float got[3] = {3.0f, 4.5f, NAN};
    double ref[3] = {3.0, 4.0, 100.0};
    cml_compare_result r;
    cml_compare_f32(got, 3, 3, NULL, ref, NULL, 3, 0.0, 0.0, &r);
    ck_assert_double_eq_tol(r.rel_l2_err, 0.1, 1e-15); /* 0.5 / 5: the NaN is left out */
    ck_assert(r.max_abs_err == 0.5);
}
END_TEST

START_TEST(poison_counts_as_unwritten) {
    float got[10];
    double ref[10];
    for (int i = 0; i < 10; ++i) {
        got[i] = (float)i;
        ref[i] = i;
    }
    cml_poison_host_f32(got + 2, 3);
    cml_compare_result r;
    cml_compare_f32(got, 10, 5, NULL, ref, NULL, 10, 0.0, 0.0, &r);
    ck_assert_uint_eq(r.n_bad, 3);
    ck_assert_uint_eq(r.n_unwritten, 3);
    ck_assert_uint_eq(r.n_nonfinite, 0);
    ck_assert_int_eq(r.first_bad, 2);
    ck_assert(isnan(r.first_bad_got));
    ck_assert(r.max_abs_err == 0.0);
}
END_TEST

START_TEST(nan_and_inf_are_nonfinite) {
    float got[5] = {0, NAN, INFINITY, -INFINITY, 4};
    double ref[5] = {0, 1, 2, 3, 4};
    cml_compare_result r;
    cml_compare_f32(got, 5, 5, NULL, ref, NULL, 5, 1.0, 1.0, &r); /* generous tolerance */
    ck_assert_uint_eq(r.n_bad, 3);
    ck_assert_uint_eq(r.n_nonfinite, 3);
    ck_assert_uint_eq(r.n_unwritten, 0);
    ck_assert_int_eq(r.first_bad, 1);
}
END_TEST

START_TEST(exact_inf_equal_to_its_reference_is_nonfinite) {
    /* An exact comparison (tolerance 0) whose every element equals its reference but one that
     * is infinite in both, or NaN in both: still bad (the equal-everywhere shortcut of a data
     * movement's whole output must not pass them). */
    float got[4] = {1, INFINITY, 3, NAN};
    double ref[4] = {1, INFINITY, 3, NAN};
    cml_compare_result r;
    cml_compare_f32(got, 4, 4, NULL, ref, NULL, 4, 0.0, 0.0, &r);
    ck_assert_uint_eq(r.n_bad, 2);
    ck_assert_uint_eq(r.n_nonfinite, 2);
    ck_assert_int_eq(r.first_bad, 1);
    got[3] = 4; /* 4 against a NaN reference: bad too, a finite error */
    ref[1] = 2;
    got[1] = 2;
    cml_compare_f32(got, 4, 4, NULL, ref, NULL, 4, 0.0, 0.0, &r);
    ck_assert_uint_eq(r.n_bad, 1);
    ck_assert_uint_eq(r.n_nonfinite, 0);
    ck_assert_int_eq(r.first_bad, 3);
}
END_TEST

START_TEST(first_bad_coordinates_and_values) {
    float got[20] = {0};
    double ref[20] = {0};
    got[7] = 1.5f;  /* (1, 2) of a (4, 5) matrix */
    got[13] = 2.0f; /* (2, 3) */
    cml_compare_result r;
    cml_compare_f32(got, 20, 5, NULL, ref, NULL, 20, 0.0, 0.25, &r);
    ck_assert_uint_eq(r.n_bad, 2);
    ck_assert_int_eq(r.first_bad, 7);
    ck_assert_uint_eq(r.first_bad_row, 1);
    ck_assert_uint_eq(r.first_bad_col, 2);
    ck_assert(r.first_bad_expected == 0.0);
    ck_assert(r.first_bad_got == 1.5);
    ck_assert(r.first_bad_tol == 0.25);
    ck_assert(r.max_abs_err == 2.0);
}
END_TEST

START_TEST(bounding_box_of_bad_elements) {
    float got[20] = {0};
    double ref[20] = {0};
    got[1 * 5 + 3] = 1; /* (1, 3) */
    got[3 * 5 + 0] = 1; /* (3, 0) */
    got[2 * 5 + 4] = 1; /* (2, 4) */
    cml_compare_result r;
    cml_compare_f32(got, 20, 5, NULL, ref, NULL, 20, 0.0, 0.0, &r);
    ck_assert_uint_eq(r.n_bad, 3);
    ck_assert_uint_eq(r.bad_row_min, 1);
    ck_assert_uint_eq(r.bad_row_max, 3);
    ck_assert_uint_eq(r.bad_col_min, 0);
    ck_assert_uint_eq(r.bad_col_max, 4);
}
END_TEST

START_TEST(idx_sample_compares_only_those_positions) {
    float got[20];
    for (int i = 0; i < 20; ++i) {
        got[i] = 100.0f; /* wrong everywhere except the sampled positions */
    }
    got[19] = 19.0f;
    got[3] = 3.0f;
    got[7] = 6.0f; /* sampled and wrong */
    size_t idx[3] = {19, 3, 7};
    double ref[3] = {19.0, 3.0, 7.0};
    cml_compare_result r;
    cml_compare_f32(got, 20, 5, idx, ref, NULL, 3, 0.0, 0.0, &r);
    ck_assert_uint_eq(r.n, 3);
    ck_assert_uint_eq(r.rows, 4);
    ck_assert_uint_eq(r.n_bad, 1);
    ck_assert_int_eq(r.first_bad, 7); /* a position in got, not in the sample */
    ck_assert_uint_eq(r.first_bad_row, 1);
    ck_assert_uint_eq(r.first_bad_col, 2);
    ck_assert(r.first_bad_expected == 7.0);
}
END_TEST

START_TEST(idx_sample_first_bad_is_in_sample_order) {
    float got[20] = {0};
    size_t idx[3] = {19, 7, 3};
    double ref[3] = {1.0, 0.0, 1.0}; /* 19 and 3 are wrong; 19 is compared first */
    cml_compare_result r;
    cml_compare_f32(got, 20, 5, idx, ref, NULL, 3, 0.0, 0.0, &r);
    ck_assert_uint_eq(r.n_bad, 2);
    ck_assert_int_eq(r.first_bad, 19);
    ck_assert_uint_eq(r.bad_row_min, 0);
    ck_assert_uint_eq(r.bad_row_max, 3);
    ck_assert_uint_eq(r.bad_col_min, 3);
    ck_assert_uint_eq(r.bad_col_max, 4);
}
END_TEST

START_TEST(empty_comparison) {
    float got[1] = {0};
    cml_compare_result r;
    cml_compare_f32(got, 0, 1, NULL, NULL, NULL, 0, 0.0, 0.0, &r);
    ck_assert_uint_eq(r.n, 0);
    ck_assert_uint_eq(r.n_bad, 0);
    ck_assert_int_lt(r.first_bad, 0);
    ck_assert(r.rel_l2_err == 0.0);
}
END_TEST

START_TEST(zero_reference) {
    float zeros[2] = {0, 0}, ones[2] = {1, 0};
    double ref[2] = {0, 0};
    cml_compare_result r;
    cml_compare_f32(zeros, 2, 2, NULL, ref, NULL, 2, 0.0, 0.0, &r);
    ck_assert(r.rel_l2_err == 0.0); /* 0/0 -> 0 */
    cml_compare_f32(ones, 2, 2, NULL, ref, NULL, 2, 0.0, 0.0, &r);
    ck_assert(isinf(r.rel_l2_err));
    ck_assert_uint_eq(r.n_bad, 1);
}
END_TEST

Suite *make_compare_suite(void) {
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("Correctness");
    tcase_add_test(tc, gamma_values);
    tcase_add_test(tc, poison_is_a_bit_pattern_not_any_nan);
    tcase_add_test(tc, exact_result_passes);
    tcase_add_test(tc, at_the_bound_passes_one_ulp_beyond_fails);
    tcase_add_test(tc, mag_null_means_abs_ref);
    tcase_add_test(tc, abs_floor_is_added);
    tcase_add_test(tc, rel_l2_over_finite_elements);
    tcase_add_test(tc, poison_counts_as_unwritten);
    tcase_add_test(tc, nan_and_inf_are_nonfinite);
    tcase_add_test(tc, exact_inf_equal_to_its_reference_is_nonfinite);
    tcase_add_test(tc, first_bad_coordinates_and_values);
    tcase_add_test(tc, bounding_box_of_bad_elements);
    tcase_add_test(tc, idx_sample_compares_only_those_positions);
    tcase_add_test(tc, idx_sample_first_bad_is_in_sample_order);
    suite_add_tcase(s, tc);
    tc = tcase_create("Edges");
    tcase_add_test(tc, gamma_is_inf_when_k_u_reaches_1);
    tcase_add_test(tc, empty_comparison);
    tcase_add_test(tc, zero_reference);
    suite_add_tcase(s, tc);
    return s;
}

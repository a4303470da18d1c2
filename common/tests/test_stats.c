/* test_stats.c — percentiles of type 7 (cml_stats.h).
 *
 * Expected values worked by hand with h = (n - 1) * p / 100 (0-based rank), the value at
 * floor(h) plus frac(h) times the step to the next; numpy.percentile gives the same
 * (e.g. np.percentile([15, 20, 35, 40, 50], 40) == 29.0).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cml_stats.h"
#include "suites.h"

#define TOL 1e-12

START_TEST(four_values) {
    const double x[4] = {1, 2, 3, 4};
    ck_assert_double_eq_tol(cml_percentile(x, 4, 0), 1.0, TOL);
    ck_assert_double_eq_tol(cml_percentile(x, 4, 10), 1.3, TOL); /* h = 0.3 */
    ck_assert_double_eq_tol(cml_median(x, 4), 2.5, TOL);         /* h = 1.5 */
    ck_assert_double_eq_tol(cml_percentile(x, 4, 90), 3.7, TOL); /* h = 2.7 */
    ck_assert_double_eq_tol(cml_percentile(x, 4, 100), 4.0, TOL);
}
END_TEST

START_TEST(five_values_unsorted_and_untouched) {
    double x[5] = {50, 15, 40, 20, 35};
    ck_assert_double_eq_tol(cml_percentile(x, 5, 40), 29.0, TOL); /* h = 1.6: 20 + 0.6 * 15 */
    ck_assert_double_eq_tol(cml_median(x, 5), 35.0, TOL);
    ck_assert_double_eq_tol(cml_percentile(x, 5, 75), 40.0, TOL);
    ck_assert(x[0] == 50 && x[1] == 15 && x[2] == 40 && x[3] == 20 && x[4] == 35);
}
END_TEST

START_TEST(twenty_five_samples_like_timing) {
    double x[25];
    for (int i = 0; i < 25; ++i) {
        x[i] = 25 - i; /* 25, 24, ..., 1 */
    }
    ck_assert_double_eq_tol(cml_percentile(x, 25, 10), 3.4, TOL);  /* h = 2.4 */
    ck_assert_double_eq_tol(cml_median(x, 25), 13.0, TOL);         /* h = 12 */
    ck_assert_double_eq_tol(cml_percentile(x, 25, 90), 22.6, TOL); /* h = 21.6 */
}
END_TEST

START_TEST(one_value) {
    const double x[1] = {7.5};
    ck_assert(cml_percentile(x, 1, 0) == 7.5);
    ck_assert(cml_median(x, 1) == 7.5);
    ck_assert(cml_percentile(x, 1, 100) == 7.5);
}
END_TEST

START_TEST(ties) {
    const double x[4] = {2, 2, 2, 5};
    ck_assert(cml_median(x, 4) == 2.0);
    ck_assert_double_eq_tol(cml_percentile(x, 4, 90), 4.1, TOL); /* h = 2.7 */
}
END_TEST

START_TEST(no_samples_or_bad_p_give_nan) {
    const double x[2] = {1, 2};
    ck_assert(isnan(cml_median(x, 0)));
    ck_assert(isnan(cml_percentile(x, 2, -1)));
    ck_assert(isnan(cml_percentile(x, 2, 100.5)));
    ck_assert(isnan(cml_percentile(x, 2, NAN)));
}
END_TEST

/* A percentile of more samples than any host holds: arg NULL, SIZE_MAX / 8 of them (the copy's
 * bytes just under the address space, so malloc fails whatever the machine); else 2^61 + 1,
 * whose copy's bytes wrap to 8 (a malloc that succeeded, then a copy past it). x is never
 * read: the failure comes first. */
static int percentile_past_the_host(void *arg) {
    const double x[1] = {1.0};
    const size_t n = arg == NULL ? SIZE_MAX / sizeof(double) : SIZE_MAX / sizeof(double) + 2;
    const double p50 = cml_percentile(x, n, 50);
    return isnan(p50) ? 10 : 11; /* not reached: a NaN (10) was the silent failure */
}

START_TEST(host_memory_for_the_copy_running_out_is_kind_host) {
    /* Never a NaN that a caller writes as a figure (a timing's median, the judge's overhead, a
     * lab's extra metric): the run ends as the timing's samples' does, kind "host" (design
     * note 84). */
    static const char *const wrapped = "wrapped";
    for (int i = 0; i < 2; ++i) {
        int code = -1;
        char *doc = judge_document_of(percentile_past_the_host, i ? (void *)wrapped : NULL, &code);
        ck_assert_msg(code == 4, "n %s: exit status %d", i ? "wrapped" : "huge", code);
        const char *want = "\"error\":{\"kind\":\"host\",\"message\":\"out of host memory for a "
                           "percentile of the samples\",\"where\":\"cml_stats.c:";
        ck_assert_msg(strstr(doc, want) != NULL, "document: %s", doc);
        ck_assert_msg(strstr(doc, "\"by\":\"judge\"") != NULL, "document: %s", doc);
        free(doc);
    }
}
END_TEST

Suite *make_stats_suite(void) {
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("Correctness");
    tcase_add_test(tc, four_values);
    tcase_add_test(tc, five_values_unsorted_and_untouched);
    tcase_add_test(tc, twenty_five_samples_like_timing);
    suite_add_tcase(s, tc);
    tc = tcase_create("Edges");
    tcase_add_test(tc, one_value);
    tcase_add_test(tc, ties);
    suite_add_tcase(s, tc);
    tc = tcase_create("Errors");
    tcase_add_test(tc, no_samples_or_bad_p_give_nan);
    tcase_add_test(tc, host_memory_for_the_copy_running_out_is_kind_host);
    suite_add_tcase(s, tc);
    return s;
}

/* test_reference.c — Check tests of lab 3.1's CPU references and pointer-chasing cycles
 * (reference.h). Plain C, no CUDA: the lab's GPU results are only as trustworthy as these.
 *
 * TCases by concern: "Cycle" (Sattolo's cycle is one cycle through every node), "Chase" (the
 * final index and checksum, by hand and against a direct walk; a chase that skips a node
 * differs), "Fir" (hand values, the zero history above row 0, columns independent), "Scale".
 * Values compared exactly are small integers or powers of two. The sample of checked positions
 * is common/cml_sample.h's, tested in common/tests/test_sample.c (with this lab's bands).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cml_rng.h"
#include "reference.h"

/* ---------------------------------------------------------------------------------------------
 * Cycle
 */

/* Following succ from node 0 returns to 0 after exactly n steps and visits every node once. */
static void assert_single_cycle(const uint32_t *succ, size_t n) {
    char *seen = calloc(n, 1);
    ck_assert_ptr_nonnull(seen);
    uint32_t j = 0;
    for (size_t i = 0; i < n; ++i) {
        ck_assert_uint_lt(succ[j], n);
        ck_assert_int_eq(seen[j], 0);
        seen[j] = 1;
        j = succ[j];
    }
    ck_assert_uint_eq(j, 0);
    free(seen);
}

START_TEST(test_cycle_is_single_cycle) {
    const size_t sizes[] = {1, 2, 3, 7, 128, 256, 65536};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const size_t n = sizes[s];
        uint32_t *succ = malloc(n * sizeof *succ);
        cml_rng rng;
        cml_rng_seed(&rng, 1000 + s);
        ck_assert_int_eq(chase_build_cycle(succ, n, &rng), 1);
        assert_single_cycle(succ, n);
        free(succ);
    }
}
END_TEST

/* No node is its own successor (n >= 2), the cycle is not the identity order 0 -> 1 -> 2 ...
 * (a prefetcher could follow that), and the same seed gives the same cycle. */
START_TEST(test_cycle_random_and_reproducible) {
    enum { N = 1024 };
    uint32_t a[N], b[N];
    cml_rng r1, r2;
    cml_rng_seed(&r1, 42);
    cml_rng_seed(&r2, 42);
    chase_build_cycle(a, N, &r1);
    chase_build_cycle(b, N, &r2);
    size_t in_order = 0;
    for (size_t i = 0; i < N; ++i) {
        ck_assert_uint_ne(a[i], i);
        ck_assert_uint_eq(a[i], b[i]);
        in_order += a[i] == (i + 1) % N;
    }
    ck_assert_uint_lt(in_order, N / 8);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Chase
 */

/* The cycle 0 -> 2 -> 1 -> 3 -> 0 with stride 32: words 0, 64, 32, 96. From word 0 with
 * warmup 1 (-> 64), steps 3: 32, 96, 0; final 0, checksum 128. */
START_TEST(test_chase_by_hand) {
    const uint32_t succ[4] = {2, 3, 1, 0};
    uint32_t final = 1, sum = 1;
    chase_ref(succ, 4, 32, 0, 1, 3, &final, &sum);
    ck_assert_uint_eq(final, 0);
    ck_assert_uint_eq(sum, 32 + 96 + 0);
    chase_ref(succ, 4, 32, 0, 0, 1, &final, &sum); // one step from word 0
    ck_assert_uint_eq(final, 64);
    ck_assert_uint_eq(sum, 64);
}
END_TEST

/* Against a walk of the word array itself (next[i * 32] = succ[i] * 32), and a chase that
 * advances two nodes per step (skips) or stops one step early gives another result. */
START_TEST(test_chase_against_word_array) {
    enum { N = 256, STRIDE = 32 };
    uint32_t succ[N];
    uint32_t *next = calloc((size_t)N * STRIDE, sizeof *next);
    ck_assert_ptr_nonnull(next);
    cml_rng rng;
    cml_rng_seed(&rng, 9);
    chase_build_cycle(succ, N, &rng);
    for (size_t i = 0; i < N; ++i) {
        next[i * STRIDE] = succ[i] * STRIDE;
    }
    const uint32_t start = 17 * STRIDE;
    const long long warmup = N, steps = 1000;
    uint32_t j = start, sum = 0;
    for (long long i = 0; i < warmup; ++i) {
        j = next[j];
    }
    for (long long i = 0; i < steps; ++i) {
        j = next[j];
        sum += j;
    }
    uint32_t final, checksum;
    chase_ref(succ, N, STRIDE, start, warmup, steps, &final, &checksum);
    ck_assert_uint_eq(final, j);
    ck_assert_uint_eq(checksum, sum);
    ck_assert_uint_eq(final % STRIDE, 0);

    uint32_t skip_final, skip_sum, early_final, early_sum;
    chase_ref(succ, N, STRIDE, start, warmup, 2 * steps, &skip_final, &skip_sum);
    chase_ref(succ, N, STRIDE, start, warmup, steps - 1, &early_final, &early_sum);
    ck_assert(skip_final != final || skip_sum != checksum);
    ck_assert(early_final != final || early_sum != checksum);
}
END_TEST

/* A full lap returns to the start; the checksum of one lap is the sum of all word indices. */
START_TEST(test_chase_full_lap) {
    enum { N = 128, STRIDE = 32 };
    uint32_t succ[N];
    cml_rng rng;
    cml_rng_seed(&rng, 5);
    chase_build_cycle(succ, N, &rng);
    uint32_t final, sum;
    chase_ref(succ, N, STRIDE, 5 * STRIDE, 0, N, &final, &sum);
    ck_assert_uint_eq(final, 5 * STRIDE);
    ck_assert_uint_eq(sum, STRIDE * (N * (N - 1) / 2));
}
END_TEST

/* The checksum wraps modulo 2^32 as the GPU's unsigned sum does: a 2-node cycle at words 0
 * and 2^31 (stride 2^31), 3 steps from word 0: 2^31 + 0 + 2^31 = 2^32 = 0. */
START_TEST(test_chase_checksum_wraps) {
    const uint32_t succ[2] = {1, 0};
    uint32_t final, sum;
    chase_ref(succ, 2, 0x80000000u, 0, 0, 3, &final, &sum);
    ck_assert_uint_eq(final, 0x80000000u);
    ck_assert_uint_eq(sum, 0);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Fir
 */

/* One column 1, 2, 3, ... with taps 1, 10, 100, ..., 10^7: out(r) reads the digits of the
 * inputs in(r), in(r - 1), ...; rows above 0 contribute nothing. */
START_TEST(test_fir_by_hand_column) {
    enum { ROWS = 10 };
    float in[ROWS];
    for (size_t r = 0; r < ROWS; ++r) {
        in[r] = (float)(r + 1);
    }
    const float taps[8] = {1, 10, 100, 1000, 1e4f, 1e5f, 1e6f, 1e7f};
    double exact, mag;
    fir_ref_at(in, 1, taps, 8, 0, 0, &exact, &mag);
    ck_assert_double_eq(exact, 1); // only in(0) * taps[0]
    fir_ref_at(in, 1, taps, 8, 2, 0, &exact, &mag);
    ck_assert_double_eq(exact, 3 + 20 + 100);
    fir_ref_at(in, 1, taps, 8, 9, 0, &exact, &mag); // in(9..2) = 10, 9, ..., 3
    ck_assert_double_eq(exact, 10 + 90 + 800 + 7000 + 60000 + 500000 + 4000000 + 30000000);
    ck_assert_double_eq(mag, exact);
}
END_TEST

/* Columns are independent and mag sums |terms|: a (3, 2) matrix with signs, taps 1, -1. */
START_TEST(test_fir_columns_and_mag) {
    const float in[3 * 2] = {1, -2, 3, 4, -5, 6}; // (3, 2)
    const float taps[2] = {1, -1};
    double exact, mag;
    fir_ref_at(in, 2, taps, 2, 1, 0, &exact, &mag); // 3 - 1
    ck_assert_double_eq(exact, 2);
    ck_assert_double_eq(mag, 4);
    fir_ref_at(in, 2, taps, 2, 2, 1, &exact, &mag); // 6 - 4
    ck_assert_double_eq(exact, 2);
    ck_assert_double_eq(mag, 10);
    fir_ref_at(in, 2, taps, 2, 0, 1, &exact, &mag); // -2, nothing above
    ck_assert_double_eq(exact, -2);
    ck_assert_double_eq(mag, 2);
}
END_TEST

/* A delta tap at k = 3 delays the column by 3 rows (0 for the first 3). */
START_TEST(test_fir_delay) {
    enum { ROWS = 20, COLS = 3 };
    float in[ROWS * COLS];
    cml_rng rng;
    cml_rng_seed(&rng, 77);
    cml_rng_fill_uniform_f32(&rng, in, ROWS * COLS, -1.0f, 1.0f);
    const float taps[8] = {0, 0, 0, 1, 0, 0, 0, 0};
    for (size_t r = 0; r < ROWS; ++r) {
        for (size_t c = 0; c < COLS; ++c) {
            double exact, mag;
            fir_ref_at(in, COLS, taps, 8, r, c, &exact, &mag);
            ck_assert_double_eq(exact, r >= 3 ? (double)in[(r - 3) * COLS + c] : 0.0);
        }
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Scale
 */

START_TEST(test_scale_by_hand) {
    const float in[2 * 3] = {1, 2, 3, -4, 5, -6}; // (2, 3)
    const float scale[2] = {2, -0.5f};
    const float bias[3] = {10, 0, -1};
    const double want[6] = {12, 4, 5, 12, -2.5, 2};
    const double want_mag[6] = {12, 4, 7, 12, 2.5, 4};
    for (size_t i = 0; i < 6; ++i) {
        double exact, mag;
        scale_rows_ref_at(in, 3, scale, bias, i / 3, i % 3, &exact, &mag);
        ck_assert_double_eq(exact, want[i]);
        ck_assert_double_eq(mag, want_mag[i]);
    }
}
END_TEST

Suite *make_reference_suite(void) {
    Suite *s = suite_create("lab 3.1 references");

    TCase *tc_cycle = tcase_create("Cycle");
    tcase_add_test(tc_cycle, test_cycle_is_single_cycle);
    tcase_add_test(tc_cycle, test_cycle_random_and_reproducible);
    suite_add_tcase(s, tc_cycle);

    TCase *tc_chase = tcase_create("Chase");
    tcase_add_test(tc_chase, test_chase_by_hand);
    tcase_add_test(tc_chase, test_chase_against_word_array);
    tcase_add_test(tc_chase, test_chase_full_lap);
    tcase_add_test(tc_chase, test_chase_checksum_wraps);
    suite_add_tcase(s, tc_chase);

    TCase *tc_fir = tcase_create("Fir");
    tcase_add_test(tc_fir, test_fir_by_hand_column);
    tcase_add_test(tc_fir, test_fir_columns_and_mag);
    tcase_add_test(tc_fir, test_fir_delay);
    suite_add_tcase(s, tc_fir);

    TCase *tc_scale = tcase_create("Scale");
    tcase_add_test(tc_scale, test_scale_by_hand);
    suite_add_tcase(s, tc_scale);

    return s;
}

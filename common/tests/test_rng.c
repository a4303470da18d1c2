/* test_rng.c — SplitMix64 and the values derived from it (cml_rng.h).
 *
 * Reference values from Vigna's splitmix64.c (seed 0). The edge test inverts SplitMix64's
 * output mix (a bijection) to put the generator in the state that yields a chosen output.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cml_rng.h"
#include "suites.h"

#define GOLDEN 0x9E3779B97F4A7C15u

START_TEST(reference_values_seed_0) {
    cml_rng r;
    cml_rng_seed(&r, 0);
    ck_assert_uint_eq(cml_rng_u64(&r), 0xE220A8397B1DCDAFu);
    ck_assert_uint_eq(cml_rng_u64(&r), 0x6E789E6AA1B965F4u);
    ck_assert_uint_eq(cml_rng_u64(&r), 0x06C45D188009454Fu);
}
END_TEST

START_TEST(same_seed_same_stream_other_seed_other_stream) {
    cml_rng a, b, c;
    cml_rng_seed(&a, 12345);
    cml_rng_seed(&b, 12345);
    cml_rng_seed(&c, 12346);
    int differ = 0;
    for (int i = 0; i < 1000; ++i) {
        uint64_t x = cml_rng_u64(&a);
        ck_assert_uint_eq(x, cml_rng_u64(&b));
        differ += x != cml_rng_u64(&c);
    }
    ck_assert_int_eq(differ, 1000);
}
END_TEST

START_TEST(skip_lands_where_the_draws_would) {
    cml_rng a, b;
    cml_rng_seed(&a, 777);
    cml_rng_seed(&b, 777);
    float x[1000];
    cml_rng_fill_uniform_f32(&a, x, 1000, -1.0f, 1.0f);
    cml_rng_skip(&b, 1000);
    ck_assert_uint_eq(cml_rng_u64(&b), cml_rng_u64(&a));
    cml_rng_skip(&a, 0);
    ck_assert_uint_eq(cml_rng_u64(&b), cml_rng_u64(&a));
    cml_rng_seed(&a, UINT64_MAX); /* the state wraps as the steps would */
    cml_rng_seed(&b, UINT64_MAX);
    for (int i = 0; i < 3; ++i) {
        (void)cml_rng_u64(&a);
    }
    cml_rng_skip(&b, 3);
    ck_assert_uint_eq(cml_rng_u64(&b), cml_rng_u64(&a));
}
END_TEST

START_TEST(uniform_at_is_the_streams_draw_at_that_index) {
    enum { N = 5000 };
    static const float bounds[][2] = {{-1.0f, 1.0f}, {1.0f, 2.0f}, {0.0f, 255.0f}};
    static const uint64_t seeds[] = {0, 777, UINT64_MAX - 2}; /* the last wraps */
    static float x[N];
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds; ++s) {
        for (size_t b = 0; b < sizeof bounds / sizeof *bounds; ++b) {
            cml_rng a;
            cml_rng_seed(&a, seeds[s]);
            cml_rng_fill_uniform_f32(&a, x, N, bounds[b][0], bounds[b][1]);
            for (size_t i = 0; i < N; ++i) {
                ck_assert(cml_rng_uniform_at(seeds[s], i, bounds[b][0], bounds[b][1]) == x[i]);
            }
        }
    }
}
END_TEST

START_TEST(unit_is_top_24_bits_times_2_pow_minus_24) {
    cml_rng a, b;
    cml_rng_seed(&a, 42);
    cml_rng_seed(&b, 42);
    for (int i = 0; i < 10000; ++i) {
        float u = cml_rng_unit_f32(&a);
        ck_assert(u >= 0.0f && u < 1.0f);
        ck_assert_uint_eq((uint64_t)(u * 0x1p24f), cml_rng_u64(&b) >> 40);
    }
}
END_TEST

START_TEST(uniform_range_and_fill_match_single_draws) {
    cml_rng a, b;
    cml_rng_seed(&a, 7);
    cml_rng_seed(&b, 7);
    float x[1000];
    cml_rng_fill_uniform_f32(&a, x, 1000, -1.0f, 1.0f);
    for (int i = 0; i < 1000; ++i) {
        ck_assert(x[i] >= -1.0f && x[i] < 1.0f);
        ck_assert(x[i] == cml_rng_uniform_f32(&b, -1.0f, 1.0f));
    }
}
END_TEST

START_TEST(below_regression_values_seed_1) {
    /* The course's stream: a change here changes every lab's inputs. */
    static const uint64_t expected[5] = {5, 7, 9, 4, 4};
    cml_rng r;
    cml_rng_seed(&r, 1);
    for (int i = 0; i < 5; ++i) {
        ck_assert_uint_eq(cml_rng_below(&r, 10), expected[i]);
    }
}
END_TEST

START_TEST(below_is_uniform_for_a_small_bound) {
    enum { BOUND = 6, DRAWS = 60000 };
    int count[BOUND] = {0};
    cml_rng r;
    cml_rng_seed(&r, 99);
    for (int i = 0; i < DRAWS; ++i) {
        uint64_t v = cml_rng_below(&r, BOUND);
        ck_assert_uint_lt(v, BOUND);
        count[v]++;
    }
    /* Each count is binomial(60000, 1/6): mean 10000, sigma 91; allow 5 sigma. */
    for (int k = 0; k < BOUND; ++k) {
        ck_assert_int_lt(abs(count[k] - DRAWS / BOUND), 456);
    }
}
END_TEST

START_TEST(below_has_no_modulo_bias_for_a_huge_bound) {
    /* bound = 3 * 2^62: x % bound would give [0, 2^62) half the time; uniform gives 1/3. */
    const uint64_t bound = 3ull << 62;
    cml_rng r;
    cml_rng_seed(&r, 5);
    int low = 0;
    for (int i = 0; i < 30000; ++i) {
        uint64_t v = cml_rng_below(&r, bound);
        ck_assert_uint_lt(v, bound);
        low += v < (1ull << 62);
    }
    ck_assert_double_eq_tol(low / 30000.0, 1.0 / 3.0, 0.02);
}
END_TEST

START_TEST(below_bound_1_is_0) {
    cml_rng r;
    cml_rng_seed(&r, 3);
    for (int i = 0; i < 100; ++i) {
        ck_assert_uint_eq(cml_rng_below(&r, 1), 0);
    }
}
END_TEST

/* The inverse of SplitMix64's output mix, to reach a chosen output. */
static uint64_t unxorshift(uint64_t y, int s) {
    uint64_t x = y;
    for (int i = 0; i < 64 / s + 1; ++i) {
        x = y ^ (x >> s);
    }
    return x;
}

static uint64_t inverse_odd(uint64_t c) {
    uint64_t inv = c; /* Newton's iteration doubles the correct low bits each step */
    for (int i = 0; i < 6; ++i) {
        inv *= 2 - c * inv;
    }
    return inv;
}

static uint64_t unmix(uint64_t out) {
    uint64_t z = unxorshift(out, 31);
    z *= inverse_odd(0x94D049BB133111EBu);
    z = unxorshift(z, 27);
    z *= inverse_odd(0xBF58476D1CE4E5B9u);
    return unxorshift(z, 30);
}

START_TEST(seeding_for_a_chosen_output_works) {
    cml_rng r;
    cml_rng_seed(&r, unmix(0x0123456789ABCDEFu) - GOLDEN);
    ck_assert_uint_eq(cml_rng_u64(&r), 0x0123456789ABCDEFu);
}
END_TEST

START_TEST(uniform_never_returns_hi) {
    /* unit = 1 - 2^-24; 1 + unit is a tie that rounds to 2: the result must stay below. */
    cml_rng r;
    cml_rng_seed(&r, unmix(0xFFFFFF0000000000u) - GOLDEN);
    float x = cml_rng_uniform_f32(&r, 1.0f, 2.0f);
    ck_assert(x < 2.0f);
    ck_assert(x == nextafterf(2.0f, 1.0f));
}
END_TEST

START_TEST(unit_extremes) {
    cml_rng r;
    cml_rng_seed(&r, unmix(0x000000FFFFFFFFFFu) - GOLDEN);
    ck_assert(cml_rng_unit_f32(&r) == 0.0f);
    cml_rng_seed(&r, unmix(UINT64_MAX) - GOLDEN);
    ck_assert(cml_rng_unit_f32(&r) == 1.0f - 0x1p-24f);
}
END_TEST

Suite *make_rng_suite(void) {
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("Correctness");
    tcase_add_test(tc, reference_values_seed_0);
    tcase_add_test(tc, same_seed_same_stream_other_seed_other_stream);
    tcase_add_test(tc, skip_lands_where_the_draws_would);
    tcase_add_test(tc, uniform_at_is_the_streams_draw_at_that_index);
    tcase_add_test(tc, unit_is_top_24_bits_times_2_pow_minus_24);
    tcase_add_test(tc, uniform_range_and_fill_match_single_draws);
    tcase_add_test(tc, below_regression_values_seed_1);
    tcase_add_test(tc, below_is_uniform_for_a_small_bound);
    tcase_add_test(tc, below_has_no_modulo_bias_for_a_huge_bound);
    suite_add_tcase(s, tc);
    tc = tcase_create("Edges");
    tcase_add_test(tc, below_bound_1_is_0);
    tcase_add_test(tc, seeding_for_a_chosen_output_works);
    tcase_add_test(tc, uniform_never_returns_hi);
    tcase_add_test(tc, unit_extremes);
    suite_add_tcase(s, tc);
    return s;
}

/* test_sample.c — the sample of checked positions and the check set (cml_sample.h).
 *
 * The pinned values (Regression) were computed with the copies of sample_positions that labs
 * 3.1 and 3.3 had in their reference.c before it moved here, with the bands each lab uses
 * (3.1: first and last rows and last columns; 3.3: last rows and last columns): a change to
 * them changes which positions the graded cases check. No GPU needed: nothing here is tagged.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cml_sample.h"
#include "suites.h"

static int sorted_unique_below(const size_t *idx, size_t n, size_t bound) {
    for (size_t i = 0; i < n; ++i) {
        if (idx[i] >= bound || (i > 0 && idx[i] <= idx[i - 1])) {
            return 0;
        }
    }
    return 1;
}

/* Whether (r, c) lies in one of spec's bands of a (rows, cols) output; r < rows, c < cols. */
static int in_band(const cml_sample_spec *spec, size_t rows, size_t cols, size_t r, size_t c) {
    return r < spec->first_rows || rows - r <= spec->last_rows || cols - c <= spec->last_cols ||
           c < spec->first_cols;
}

/* Counts, with a binary search, how many of (rows, cols)'s band positions are in idx. */
static size_t band_positions_found(const size_t *idx, size_t n, const cml_sample_spec *spec,
                                   size_t rows, size_t cols, size_t *n_band) {
    size_t found = 0;
    *n_band = 0;
    for (size_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < cols; ++c) {
            if (!in_band(spec, rows, cols, r, c)) {
                continue;
            }
            ++*n_band;
            const size_t pos = r * cols + c;
            size_t lo = 0, hi = n;
            while (lo < hi) {
                const size_t mid = lo + (hi - lo) / 2;
                if (idx[mid] < pos) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            found += lo < n && idx[lo] == pos;
        }
    }
    return found;
}

/* The sample of spec from a generator seeded with `seed` (asserted non-NULL). */
static size_t *sample_from_seed(size_t rows, size_t cols, const cml_sample_spec *spec,
                                uint64_t seed, size_t *n) {
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    size_t *idx = cml_sample_positions(rows, cols, spec, &rng, n);
    ck_assert_ptr_nonnull(idx);
    return idx;
}

/* Asserts that idx[0..n) is every position 0 .. n_out-1 once, in order; frees idx. */
static void assert_everything(size_t *idx, size_t n, size_t n_out) {
    ck_assert_uint_eq(n, n_out);
    for (size_t i = 0; i < n; ++i) {
        ck_assert_uint_eq(idx[i], i);
    }
    free(idx);
}

/* Asserts that idx[0..n) is sorted, unique and in range, holds every band position of spec
 * (n_band of them) and, since the interior is large, some random ones: n_band < n <=
 * n_band + spec->n_random. */
static void assert_bands_and_random(const size_t *idx, size_t n, const cml_sample_spec *spec,
                                    size_t rows, size_t cols, size_t n_band_expected) {
    ck_assert(sorted_unique_below(idx, n, rows * cols));
    size_t n_band = 0;
    ck_assert_uint_eq(band_positions_found(idx, n, spec, rows, cols, &n_band), n_band);
    ck_assert_uint_eq(n_band, n_band_expected);
    ck_assert_uint_gt(n, n_band);
    ck_assert_uint_le(n, n_band + spec->n_random);
}

/* 64-bit FNV-1a over the positions, in order (the pins below). */
static uint64_t fnv1a(const size_t *idx, size_t n) {
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; ++i) {
        h ^= (uint64_t)idx[i];
        h *= 1099511628211u;
    }
    return h;
}

/* ---------------------------------------------------------------------------------------------
 * Positions
 */

/* Lab 3.1's bands: the first and last 4 rows and the last 4 columns are all there; sorted,
 * unique, in range. */
START_TEST(first_and_last_rows_and_last_cols) {
    enum { ROWS = 50, COLS = 40 };
    const cml_sample_spec spec = {4, 4, 0, 4, 100};
    size_t n = 0;
    size_t *idx = sample_from_seed(ROWS, COLS, &spec, 3, &n);
    assert_bands_and_random(idx, n, &spec, ROWS, COLS, 8 * COLS + (ROWS - 8) * 4);
    free(idx);
}
END_TEST

/* Lab 3.3's bands: the last 32 rows and columns are all there, the first rows' interior is
 * not all there; the same list for the same seed. */
START_TEST(last_rows_and_cols_same_for_same_seed) {
    enum { ROWS = 100, COLS = 200, N_RANDOM = 1000 };
    const cml_sample_spec spec = {0, 32, 0, 32, N_RANDOM};
    size_t n = 0;
    size_t *idx = sample_from_seed(ROWS, COLS, &spec, 2024, &n);
    assert_bands_and_random(idx, n, &spec, ROWS, COLS,
                            (size_t)ROWS * COLS - (size_t)(ROWS - 32) * (COLS - 32));
    ck_assert_uint_ne(idx[0], 0); /* (0, 0) is only there if drawn: not for this seed */

    size_t n2 = 0;
    size_t *idx2 = sample_from_seed(ROWS, COLS, &spec, 2024, &n2);
    ck_assert_uint_eq(n2, n);
    for (size_t i = 0; i < n; ++i) {
        ck_assert_uint_eq(idx2[i], idx[i]);
    }
    free(idx);
    free(idx2);
}
END_TEST

/* Lab 3.5's bands: 2 rows and 2 columns on every side (its clamped borders) and nothing
 * else but the random positions; a first-column band wider than the output is all of it. */
START_TEST(bands_on_every_side) {
    enum { ROWS = 60, COLS = 70 };
    const cml_sample_spec spec = {
        .first_rows = 2, .last_rows = 2, .last_cols = 2, .n_random = 200, .first_cols = 2};
    size_t n = 0;
    size_t *idx = sample_from_seed(ROWS, COLS, &spec, 35, &n);
    assert_bands_and_random(idx, n, &spec, ROWS, COLS, 4 * COLS + (ROWS - 4) * 4);
    free(idx);

    const cml_sample_spec wide = {.first_rows = 1, .n_random = 5, .first_cols = 100};
    idx = sample_from_seed(3, 7, &wide, 1, &n);
    assert_everything(idx, n, 3 * 7);
}
END_TEST

/* Exactly n_random draws of cml_rng_below(rng, rows * cols), whatever the bands and repeats. */
START_TEST(draws_exactly_n_random) {
    const cml_sample_spec spec = {2, 3, 0, 5, 777};
    cml_rng a, b;
    cml_rng_seed(&a, 11);
    cml_rng_seed(&b, 11);
    size_t n = 0;
    size_t *idx = cml_sample_positions(30, 7, &spec, &a, &n);
    ck_assert_ptr_nonnull(idx);
    for (int i = 0; i < 777; ++i) {
        (void)cml_rng_below(&b, 30 * 7);
    }
    ck_assert_uint_eq(a.state, b.state);
    free(idx);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Edges
 */

/* An output inside the bands: every position once, whatever the random draws. */
START_TEST(small_output_is_everything) {
    const cml_sample_spec specs[2] = {{32, 32, 0, 32, 10}, {0, 32, 0, 32, 100}};
    for (int k = 0; k < 2; ++k) {
        size_t n = 0;
        size_t *idx = sample_from_seed(5, 4, &specs[k], 1, &n);
        assert_everything(idx, n, 20);
    }
}
END_TEST

/* A (1, N) output: its one row is the last row, so all N positions. */
START_TEST(single_row_is_a_band) {
    const cml_sample_spec spec = {0, 32, 0, 32, 50};
    size_t n = 0;
    size_t *idx = sample_from_seed(1, 1000, &spec, 5, &n);
    assert_everything(idx, n, 1000);
}
END_TEST

/* Bands wider than half the output overlap: each position still once. */
START_TEST(overlapping_bands_count_once) {
    const cml_sample_spec spec = {6, 6, 0, 3, 0};
    size_t n = 0;
    size_t *idx = sample_from_seed(10, 8, &spec, 9, &n); /* rows 0-5 and 4-9: all */
    assert_everything(idx, n, 80);
}
END_TEST

/* No bands, no random positions: an empty list that is not NULL. An empty output likewise,
 * and it draws nothing. */
START_TEST(empty_sample_and_empty_output) {
    const cml_sample_spec none = {0, 0, 0, 0, 0};
    const cml_sample_spec some = {1, 1, 0, 1, 10};
    cml_rng rng;
    cml_rng_seed(&rng, 4);
    const uint64_t state = rng.state;
    size_t n = 99;
    size_t *idx = cml_sample_positions(10, 10, &none, &rng, &n);
    ck_assert_ptr_nonnull(idx);
    ck_assert_uint_eq(n, 0);
    free(idx);
    n = 99;
    idx = cml_sample_positions(0, 10, &some, &rng, &n);
    ck_assert_ptr_nonnull(idx);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(rng.state, state);
    free(idx);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Regression: the positions the labs' graded cases check
 */

typedef struct pin {
    size_t rows, cols;
    cml_sample_spec spec;
    uint64_t seed;
    size_t n;
    uint64_t fnv;
    uint64_t next_u64; /* the generator's next output after the sample */
} pin;

START_TEST(pinned_samples) {
    static const pin pins[4] = {
        /* lab 3.1's bands */
        {100, 200, {32, 32, 0, 32, 1000}, 2024, 14237, 0x5E12EA505E725EEFu, 0xE545AC0F2CCBEE08u},
        {4097, 4099, {32, 32, 0, 32, 65536}, 7, 455284, 0x63E6FDF0871E4C2Au, 0xC11C30F1CC1D832Eu},
        /* lab 3.3's bands */
        {100, 200, {0, 32, 0, 32, 1000}, 2024, 9116, 0x987B3914280554ACu, 0xE545AC0F2CCBEE08u},
        {4097, 4099, {0, 32, 0, 32, 65536}, 7, 325661, 0x7F4C632AA68839B5u, 0xC11C30F1CC1D832Eu},
    };
    for (int k = 0; k < 4; ++k) {
        cml_rng rng;
        cml_rng_seed(&rng, pins[k].seed);
        size_t n = 0;
        size_t *idx = cml_sample_positions(pins[k].rows, pins[k].cols, &pins[k].spec, &rng, &n);
        ck_assert_ptr_nonnull(idx);
        ck_assert_uint_eq(n, pins[k].n);
        ck_assert_uint_eq(fnv1a(idx, n), pins[k].fnv);
        ck_assert_uint_eq(cml_rng_u64(&rng), pins[k].next_u64);
        free(idx);
    }
}
END_TEST

/* The first interior (not band) positions of the (100, 200) pins, readable. */
START_TEST(pinned_interior_positions) {
    static const size_t want31[6] = {6410, 6411, 6433, 6446, 6452, 6485};
    static const size_t want33[6] = {26, 46, 47, 60, 64, 71};
    const cml_sample_spec specs[2] = {{32, 32, 0, 32, 1000}, {0, 32, 0, 32, 1000}};
    const size_t *want[2] = {want31, want33};
    for (int k = 0; k < 2; ++k) {
        size_t n = 0;
        size_t *idx = sample_from_seed(100, 200, &specs[k], 2024, &n);
        size_t found = 0;
        for (size_t i = 0; i < n && found < 6; ++i) {
            if (!in_band(&specs[k], 100, 200, idx[i] / 200, idx[i] % 200)) {
                ck_assert_uint_eq(idx[i], want[k][found]);
                ++found;
            }
        }
        ck_assert_uint_eq(found, 6);
        free(idx);
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Check set
 */

/* No sample: every position, no index list, nothing drawn; the driver is told "all". */
START_TEST(check_set_all_positions) {
    cml_check_set s;
    ck_assert_int_eq(cml_check_set_init(&s, 3, 7, NULL, 1, NULL), 1);
    ck_assert_ptr_null(s.idx);
    ck_assert_uint_eq(s.n, 21);
    ck_assert_ptr_nonnull(s.ref);
    ck_assert_ptr_nonnull(s.mag);
    for (size_t i = 0; i < s.n; ++i) {
        ck_assert_uint_eq(cml_check_set_pos(&s, i), i);
        s.ref[i] = (double)i;
        s.mag[i] = 1.0;
    }
    cml_problem p = {0};
    cml_check_set_publish(&s, &p);
    ck_assert_ptr_null(p.check_idx);
    ck_assert_uint_eq(p.n_check, 0);
    ck_assert_ptr_eq(p.h_ref, s.ref);
    ck_assert_ptr_eq(p.h_mag, s.mag);
    cml_check_set_free(&s);
    ck_assert_ptr_null(s.ref);
    ck_assert_uint_eq(s.n, 0);
    cml_check_set_free(&s); /* a freed set frees again safely */
}
END_TEST

/* A sample: the positions of cml_sample_positions for the same generator state, in step with
 * ref; without with_mag, mag (and the driver's h_mag) is NULL. */
START_TEST(check_set_sample_positions) {
    const cml_sample_spec spec = {0, 8, 0, 8, 500};
    cml_rng a, b;
    cml_rng_seed(&a, 123);
    cml_rng_seed(&b, 123);
    cml_check_set s;
    ck_assert_int_eq(cml_check_set_init(&s, 60, 90, &spec, 0, &a), 1);
    size_t n = 0;
    size_t *idx = cml_sample_positions(60, 90, &spec, &b, &n);
    ck_assert_ptr_nonnull(idx);
    ck_assert_ptr_nonnull(s.idx);
    ck_assert_uint_eq(s.n, n);
    ck_assert_ptr_nonnull(s.ref);
    ck_assert_ptr_null(s.mag);
    for (size_t i = 0; i < n; ++i) {
        ck_assert_uint_eq(cml_check_set_pos(&s, i), idx[i]);
    }
    ck_assert_uint_eq(a.state, b.state);
    cml_problem p = {0};
    cml_check_set_publish(&s, &p);
    ck_assert_ptr_eq(p.check_idx, s.idx);
    ck_assert_uint_eq(p.n_check, n);
    ck_assert_ptr_eq(p.h_ref, s.ref);
    ck_assert_ptr_null(p.h_mag);
    cml_check_set_free(&s);
    ck_assert_ptr_null(s.idx);
    free(idx);
}
END_TEST

/* The judge's secret: the random positions come from its generator, the bands stay, and the
 * caller's generator advances as without it (the inputs drawn next are the same). */
START_TEST(check_set_secret_positions) {
    const cml_sample_spec spec = {0, 8, 0, 8, 500};
    cml_rng a, b, secret;
    cml_rng_seed(&a, 123);
    cml_rng_seed(&b, 123);
    cml_rng_seed(&secret, 99);
    cml_check_set plain, judged;
    ck_assert_int_eq(cml_check_set_init(&plain, 60, 90, &spec, 0, &a), 1);
    cml_check_set_secret(&secret);
    ck_assert_int_eq(cml_check_set_init(&judged, 60, 90, &spec, 0, &b), 1);
    cml_check_set_secret(NULL);
    ck_assert_uint_eq(a.state, b.state);
    size_t common = 0, interior = 0;
    for (size_t i = 0, k = 0; i < judged.n; ++i) {
        const size_t pos = judged.idx[i];
        while (k < plain.n && plain.idx[k] < pos) {
            ++k;
        }
        common += k < plain.n && plain.idx[k] == pos;
        interior += pos / 90 < 52 && pos % 90 < 82; /* outside the last 8 rows and columns */
    }
    ck_assert_uint_gt(interior, 300);          /* the random positions are there ... */
    ck_assert_uint_lt(common, judged.n - 300); /* ... and mostly not the public ones */
    cml_check_set_free(&plain);
    cml_check_set_free(&judged);
}
END_TEST

/* The student's process of a judged run: one position, the caller's generator unchanged. */
START_TEST(check_set_minimal) {
    const cml_sample_spec spec = {0, 8, 0, 8, 500};
    cml_rng a, b;
    cml_rng_seed(&a, 5);
    cml_rng_seed(&b, 5);
    cml_check_set plain, minimal;
    ck_assert_int_eq(cml_check_set_init(&plain, 60, 90, &spec, 1, &a), 1);
    cml_check_set_minimal(1);
    ck_assert_int_eq(cml_check_set_init(&minimal, 60, 90, &spec, 1, &b), 1);
    cml_check_set_minimal(0);
    ck_assert_uint_eq(a.state, b.state);
    ck_assert_uint_eq(minimal.n, 1);
    ck_assert_uint_eq(cml_check_set_pos(&minimal, 0), 0);
    ck_assert_ptr_nonnull(minimal.mag);
    cml_check_set_free(&plain);
    cml_check_set_free(&minimal);
}
END_TEST

/* A full check set (no sample) in the student's process: position 0 alone as well. */
START_TEST(check_set_minimal_full) {
    cml_check_set full, minimal;
    ck_assert_int_eq(cml_check_set_init(&full, 60, 90, NULL, 1, NULL), 1);
    ck_assert_uint_eq(full.n, 60 * 90);
    ck_assert_ptr_null(full.idx);
    cml_check_set_minimal(1);
    ck_assert_int_eq(cml_check_set_init(&minimal, 60, 90, NULL, 0, NULL), 1);
    cml_check_set empty;
    ck_assert_int_eq(cml_check_set_init(&empty, 0, 90, NULL, 0, NULL), 1);
    cml_check_set_minimal(0);
    ck_assert_uint_eq(minimal.n, 1);
    ck_assert_uint_eq(cml_check_set_pos(&minimal, 0), 0);
    ck_assert_ptr_null(minimal.mag);
    ck_assert_uint_eq(empty.n, 0);
    cml_check_set_free(&full);
    cml_check_set_free(&minimal);
    cml_check_set_free(&empty);
}
END_TEST

/* The verified repetition's set (cml_check_set_light): a sample becomes CML_CHECK_LIGHT_RANDOM
 * secret positions without its bands on a large output; the caller's generator advances as
 * without it; a full set, a small output, or no secret generator keeps its set; the student's
 * process (minimal) keeps its one position; another secret draws other positions. */
static size_t light_in_bands(const cml_check_set *s, const cml_sample_spec *spec, size_t rows,
                             size_t cols) {
    size_t in_bands = 0;
    for (size_t i = 0; i < s->n; ++i) {
        in_bands += in_band(spec, rows, cols, s->idx[i] / cols, s->idx[i] % cols);
    }
    return in_bands;
}

START_TEST(check_set_light) {
    const cml_sample_spec spec = {0, 32, 0, 32, 500};
    const size_t rows = 1024, cols = 512; /* 524288 positions, over CML_CHECK_LIGHT_RANDOM */
    cml_rng a, b, c, secret;
    cml_rng_seed(&a, 7);
    cml_rng_seed(&b, 7);
    cml_rng_seed(&c, 7);
    cml_check_set plain, unsecret, light, full, small, minimal, other;
    ck_assert_int_eq(cml_check_set_init(&plain, rows, cols, &spec, 1, &a), 1);
    cml_check_set_light(1);
    ck_assert_int_eq(cml_check_set_init(&unsecret, rows, cols, &spec, 0, &c), 1);
    cml_rng_seed(&secret, 11);
    cml_check_set_secret(&secret);
    ck_assert_int_eq(cml_check_set_init(&light, rows, cols, &spec, 1, &b), 1);
    ck_assert_int_eq(cml_check_set_init(&full, rows, cols, NULL, 0, NULL), 1);
    ck_assert_int_eq(cml_check_set_init(&small, 60, 90, &spec, 0, &c), 1);
    cml_check_set_minimal(1);
    ck_assert_int_eq(cml_check_set_init(&minimal, rows, cols, &spec, 0, &c), 1);
    cml_check_set_minimal(0);
    cml_rng_seed(&secret, 12);
    ck_assert_int_eq(cml_check_set_init(&other, rows, cols, &spec, 0, &c), 1);
    cml_check_set_secret(NULL);
    cml_check_set_light(0);

    ck_assert_uint_eq(a.state, b.state); /* the caller's stream as without light */
    size_t n_band = 0;
    /* kept: the bands in full without a secret, on a small output, and in the plain sample */
    ck_assert_uint_eq(band_positions_found(unsecret.idx, unsecret.n, &spec, rows, cols, &n_band),
                      n_band);
    ck_assert_uint_eq(band_positions_found(plain.idx, plain.n, &spec, rows, cols, &n_band),
                      n_band);
    ck_assert_uint_eq(band_positions_found(small.idx, small.n, &spec, 60, 90, &n_band), n_band);
    ck_assert_ptr_null(full.idx); /* a full set stays full */
    ck_assert_uint_eq(full.n, rows * cols);
    ck_assert_uint_eq(minimal.n, 1);
    /* light: random secret positions only, the bands no more often than their 9 % share */
    ck_assert_ptr_nonnull(light.idx);
    ck_assert_uint_le(light.n, CML_CHECK_LIGHT_RANDOM);
    ck_assert_uint_gt(light.n, CML_CHECK_LIGHT_RANDOM - 8192); /* few repeats among 2^19 */
    ck_assert(sorted_unique_below(light.idx, light.n, rows * cols));
    ck_assert_uint_lt(light_in_bands(&light, &spec, rows, cols), light.n / 8);
    ck_assert_ptr_nonnull(light.mag);
    size_t common = 0;
    for (size_t i = 0, k = 0; i < other.n; ++i) {
        while (k < light.n && light.idx[k] < other.idx[i]) {
            ++k;
        }
        common += k < light.n && light.idx[k] == other.idx[i];
    }
    ck_assert_uint_lt(common, other.n / 4); /* another secret: other positions */
    cml_check_set *sets[] = {&plain, &unsecret, &light, &full, &small, &minimal, &other};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; ++k) {
        cml_check_set_free(sets[k]);
    }
}
END_TEST

Suite *make_sample_suite(void) {
    Suite *s = suite_create("sample");
    TCase *tc = tcase_create("Correctness");
    tcase_add_test(tc, first_and_last_rows_and_last_cols);
    tcase_add_test(tc, last_rows_and_cols_same_for_same_seed);
    tcase_add_test(tc, bands_on_every_side);
    tcase_add_test(tc, draws_exactly_n_random);
    tcase_add_test(tc, check_set_all_positions);
    tcase_add_test(tc, check_set_sample_positions);
    tcase_add_test(tc, check_set_secret_positions);
    tcase_add_test(tc, check_set_minimal);
    tcase_add_test(tc, check_set_minimal_full);
    tcase_add_test(tc, check_set_light);
    suite_add_tcase(s, tc);
    tc = tcase_create("Edges");
    tcase_add_test(tc, small_output_is_everything);
    tcase_add_test(tc, single_row_is_a_band);
    tcase_add_test(tc, overlapping_bands_count_once);
    tcase_add_test(tc, empty_sample_and_empty_output);
    suite_add_tcase(s, tc);
    tc = tcase_create("Regression");
    tcase_add_test(tc, pinned_samples);
    tcase_add_test(tc, pinned_interior_positions);
    suite_add_tcase(s, tc);
    return s;
}

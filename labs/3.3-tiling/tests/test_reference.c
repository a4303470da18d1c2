/* test_reference.c — Check tests of lab 3.3's CPU references (reference.h). Plain C, no CUDA:
 * the lab's GPU results are only as trustworthy as these.
 *
 * TCases by concern: "Matmul", "Transpose", "Conv2d" (hand-computed values, identities,
 * shapes that are not square, borders). Inputs are small integers or powers of two where
 * values are compared exactly, so float64 sums are exact and equality is the right test. The
 * positions checked on large outputs are common/cml_sample.h's, tested in
 * common/tests/test_sample.c (with this lab's bands).
 */
#include <check.h>
#include <math.h>

#include "cml_rng.h"
#include "reference.h"

/* ---------------------------------------------------------------------------------------------
 * Matmul
 */

/* C = A B with A (2, 3), B (3, 2), mixed signs so that exact and mag differ. */
START_TEST(test_matmul_hand_2x3x2) {
    const float A[2 * 3] = {1, -2, 3, 4, 5, -6};  // (2, 3)
    const float B[3 * 2] = {7, 8, 9, 10, 11, 12}; // (3, 2)
    const double want[2 * 2] = {22, 24, 7, 10};   // (2, 2)
    const double want_mag[2 * 2] = {58, 64, 139, 154};
    float Bt[2 * 3];
    transpose_ref(B, 3, 2, Bt);
    for (size_t r = 0; r < 2; ++r) {
        for (size_t c = 0; c < 2; ++c) {
            double exact = -1.0, mag = -1.0;
            matmul_ref_at(A, Bt, 3, r, c, &exact, &mag);
            ck_assert_double_eq(exact, want[r * 2 + c]);
            ck_assert_double_eq(mag, want_mag[r * 2 + c]);
        }
    }
}
END_TEST

/* A (7, 5) random times the identity (5, 5) is A, and mag is |A|. */
START_TEST(test_matmul_identity) {
    enum { M = 7, K = 5 };
    float A[M * K], I[K * K], It[K * K];
    cml_rng rng;
    cml_rng_seed(&rng, 33);
    cml_rng_fill_uniform_f32(&rng, A, M * K, -1.0f, 1.0f);
    for (size_t i = 0; i < K * K; ++i) {
        I[i] = (i / K == i % K) ? 1.0f : 0.0f;
    }
    transpose_ref(I, K, K, It);
    for (size_t r = 0; r < M; ++r) {
        for (size_t c = 0; c < K; ++c) {
            double exact, mag;
            matmul_ref_at(A, It, K, r, c, &exact, &mag);
            ck_assert_double_eq(exact, (double)A[r * K + c]);
            ck_assert_double_eq(mag, fabs((double)A[r * K + c]));
        }
    }
}
END_TEST

/* Non-square: a (1, 4) x (4, 1) dot product and a (3, 1) x (1, 2) outer product (K = 1). */
START_TEST(test_matmul_dot_and_outer) {
    const float a[4] = {1, 2, -3, 4};
    const float b[4] = {5, -6, 7, 8}; // (4, 1): its transpose (1, 4) is the same array
    double exact, mag;
    matmul_ref_at(a, b, 4, 0, 0, &exact, &mag);
    ck_assert_double_eq(exact, 5 - 12 - 21 + 32);
    ck_assert_double_eq(mag, 5 + 12 + 21 + 32);

    const float col[3] = {1, -2, 3}; // (3, 1)
    const float row[2] = {4, 0.5f};  // (1, 2): its transpose (2, 1) is the same array
    for (size_t r = 0; r < 3; ++r) {
        for (size_t c = 0; c < 2; ++c) {
            matmul_ref_at(col, row, 1, r, c, &exact, &mag);
            ck_assert_double_eq(exact, (double)col[r] * row[c]);
            ck_assert_double_eq(mag, fabs((double)col[r] * row[c]));
        }
    }
}
END_TEST

/* A row of C computed element by element equals a row computed from B directly (the Bt
 * convention is not mixed up with B), on a non-square (3, 5) x (5, 4) product. */
START_TEST(test_matmul_against_direct_loop) {
    enum { M = 3, N = 4, K = 5 };
    float A[M * K], B[K * N], Bt[N * K];
    for (size_t i = 0; i < M * K; ++i) {
        A[i] = (float)(i % 7) - 3.0f;
    }
    for (size_t i = 0; i < K * N; ++i) {
        B[i] = (float)(i % 5) - 2.0f + 0.25f * (float)(i % 3);
    }
    transpose_ref(B, K, N, Bt);
    for (size_t r = 0; r < M; ++r) {
        for (size_t c = 0; c < N; ++c) {
            double direct = 0.0;
            for (size_t k = 0; k < K; ++k) {
                direct += (double)A[r * K + k] * B[k * N + c];
            }
            double exact, mag;
            matmul_ref_at(A, Bt, K, r, c, &exact, &mag);
            ck_assert_double_eq(exact, direct);
            ck_assert(mag >= fabs(exact));
        }
    }
}
END_TEST

/* Random floats, K from 1 to 9 and 1001 (every K mod 4 for the four partial sums): within
 * 1e-14 of mag of a single float64 sum, which is 6e8 times below float32's unit roundoff. */
START_TEST(test_matmul_partial_sums_match_one_sum) {
    static float a[1001], b[1001];
    cml_rng rng;
    cml_rng_seed(&rng, 33);
    cml_rng_fill_uniform_f32(&rng, a, 1001, -1.0f, 1.0f);
    cml_rng_fill_uniform_f32(&rng, b, 1001, -1.0f, 1.0f);
    const size_t Ks[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1001};
    for (size_t t = 0; t < sizeof Ks / sizeof Ks[0]; ++t) {
        const size_t K = Ks[t];
        double one = 0.0, one_abs = 0.0;
        for (size_t k = 0; k < K; ++k) {
            one += (double)a[k] * (double)b[k];
            one_abs += fabs((double)a[k] * (double)b[k]);
        }
        double exact, mag;
        matmul_ref_at(a, b, K, 0, 0, &exact, &mag); // (1, K) times (K, 1)
        ck_assert_double_le(fabs(exact - one), 1e-14 * one_abs);
        ck_assert_double_le(fabs(mag - one_abs), 1e-14 * one_abs);
    }
}
END_TEST

/* matmul_ref_positions gives matmul_ref_at's results bit for bit: at every position of a
 * (96, 96) x (96, 33) product (B transposed once; 9216 positions, so two or more threads where
 * the host has two cores), and at a few positions of it (fewer than N: columns gathered). */
START_TEST(test_matmul_positions_equal_the_element_reference) {
    enum { M = 96, N = 96, K = 33 };
    static float A[M * K], B[K * N], Bt[N * K];
    static double exact[M * N], mag[M * N];
    cml_rng rng;
    cml_rng_seed(&rng, 5);
    cml_rng_fill_uniform_f32(&rng, A, M * K, -1.0f, 1.0f);
    cml_rng_fill_uniform_f32(&rng, B, K * N, -1.0f, 1.0f);
    transpose_ref(B, K, N, Bt);
    ck_assert_int_eq(matmul_ref_positions(A, B, N, K, NULL, M * N, exact, mag), 0);
    for (size_t p = 0; p < M * N; ++p) {
        double e, m;
        matmul_ref_at(A, Bt, K, p / N, p % N, &e, &m);
        ck_assert(e == exact[p] && m == mag[p]);
    }
    const size_t few[3] = {M * N - 1, 0, 5 * N + 77};
    ck_assert_int_eq(matmul_ref_positions(A, B, N, K, few, 3, exact, mag), 0);
    for (size_t i = 0; i < 3; ++i) {
        double e, m;
        matmul_ref_at(A, Bt, K, few[i] / N, few[i] % N, &e, &m);
        ck_assert(e == exact[i] && m == mag[i]);
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Transpose
 */

START_TEST(test_transpose_3x5) {
    const float in[3 * 5] = {0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24}; // (3, 5)
    const float want[5 * 3] = {0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23, 4, 14, 24};
    float out[5 * 3];
    transpose_ref(in, 3, 5, out);
    for (size_t i = 0; i < 15; ++i) {
        ck_assert_float_eq(out[i], want[i]);
        ck_assert_float_eq(transpose_ref_at(in, 5, i / 3, i % 3), want[i]);
    }
}
END_TEST

/* A (1, N) row becomes an (N, 1) column and vice versa: the same values in the same order. */
START_TEST(test_transpose_vectors) {
    enum { N = 9 };
    float v[N], out[N];
    for (size_t i = 0; i < N; ++i) {
        v[i] = (float)i + 0.5f;
    }
    transpose_ref(v, 1, N, out);
    for (size_t i = 0; i < N; ++i) {
        ck_assert_float_eq(out[i], v[i]);
        ck_assert_float_eq(transpose_ref_at(v, N, i, 0), v[i]); // out (N, 1)
    }
    transpose_ref(v, N, 1, out);
    for (size_t i = 0; i < N; ++i) {
        ck_assert_float_eq(out[i], v[i]);
        ck_assert_float_eq(transpose_ref_at(v, 1, 0, i), v[i]); // out (1, N)
    }
}
END_TEST

/* (in^T)^T = in on a random (13, 29) matrix. */
START_TEST(test_transpose_twice) {
    enum { ROWS = 13, COLS = 29 };
    float in[ROWS * COLS], t[COLS * ROWS], tt[ROWS * COLS];
    cml_rng rng;
    cml_rng_seed(&rng, 7);
    cml_rng_fill_uniform_f32(&rng, in, ROWS * COLS, -1.0f, 1.0f);
    transpose_ref(in, ROWS, COLS, t);
    transpose_ref(t, COLS, ROWS, tt);
    for (size_t i = 0; i < ROWS * COLS; ++i) {
        ck_assert_float_eq(tt[i], in[i]);
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Conv2d
 */

/* The 3 x 3 image 1..9 with the all-ones 3 x 3 filter: each output is the sum of its in-image
 * neighbours (borders see zeros). */
START_TEST(test_conv2d_hand_3x3_ones) {
    const float in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const float ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    const double want[9] = {12, 21, 16, 27, 45, 33, 24, 39, 28};
    for (size_t y = 0; y < 3; ++y) {
        for (size_t x = 0; x < 3; ++x) {
            double exact, mag;
            conv2d_ref_at(in, 3, 3, ones, 1, y, x, &exact, &mag);
            ck_assert_double_eq(exact, want[y * 3 + x]);
            ck_assert_double_eq(mag, want[y * 3 + x]);
        }
    }
}
END_TEST

/* Correlation, not convolution: a 1 at filter (dy, dx) = (+1, +1) reads in(y + 1, x + 1). */
START_TEST(test_conv2d_is_correlation) {
    const float in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const float f[9] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
    double exact, mag;
    conv2d_ref_at(in, 3, 3, f, 1, 0, 0, &exact, &mag);
    ck_assert_double_eq(exact, 5);
    conv2d_ref_at(in, 3, 3, f, 1, 1, 1, &exact, &mag);
    ck_assert_double_eq(exact, 9); // a convolution would give in(0, 0) = 1
    conv2d_ref_at(in, 3, 3, f, 1, 2, 2, &exact, &mag);
    ck_assert_double_eq(exact, 0); // in(3, 3) is outside: zero padding
    ck_assert_double_eq(mag, 0);
}
END_TEST

/* R = 0 with the filter [1] copies the image; with [-2] it scales it (mag = |2 x|). */
START_TEST(test_conv2d_r0_copy_and_scale) {
    enum { W = 6, H = 4 };
    float in[W * H];
    cml_rng rng;
    cml_rng_seed(&rng, 3);
    cml_rng_fill_uniform_f32(&rng, in, W * H, -1.0f, 1.0f);
    const float one[1] = {1.0f};
    const float minus_two[1] = {-2.0f};
    for (size_t y = 0; y < H; ++y) {
        for (size_t x = 0; x < W; ++x) {
            double exact, mag;
            conv2d_ref_at(in, W, H, one, 0, y, x, &exact, &mag);
            ck_assert_double_eq(exact, in[y * W + x]);
            ck_assert_double_eq(mag, fabs((double)in[y * W + x]));
            conv2d_ref_at(in, W, H, minus_two, 0, y, x, &exact, &mag);
            ck_assert_double_eq(exact, -2.0 * in[y * W + x]);
            ck_assert_double_eq(mag, 2.0 * fabs((double)in[y * W + x]));
        }
    }
}
END_TEST

/* A delta filter shifts the image: a 1 at (dy, dx) = (+1, -2) with R = 2 gives
 * out(y, x) = in(y + 1, x - 2), and 0 where that falls outside the (5, 7) image. */
START_TEST(test_conv2d_delta_shift) {
    enum { W = 7, H = 5, R = 2, D = 2 * R + 1 };
    float in[W * H], f[D * D] = {0};
    cml_rng rng;
    cml_rng_seed(&rng, 11);
    cml_rng_fill_uniform_f32(&rng, in, W * H, -1.0f, 1.0f);
    f[(1 + R) * D + (-2 + R)] = 1.0f;
    for (long y = 0; y < H; ++y) {
        for (long x = 0; x < W; ++x) {
            double exact, mag;
            conv2d_ref_at(in, W, H, f, R, (size_t)y, (size_t)x, &exact, &mag);
            const long ys = y + 1, xs = x - 2;
            const int inside = ys >= 0 && ys < H && xs >= 0 && xs < W;
            const double want = inside ? in[ys * W + xs] : 0.0;
            ck_assert_double_eq(exact, want);
            ck_assert_double_eq(mag, fabs(want));
        }
    }
}
END_TEST

/* Width and height are not swapped, and borders count only in-image taps: all-ones filter
 * (R = 2) on an all-ones (2, 5) image (height 2, width 5). */
START_TEST(test_conv2d_borders_non_square) {
    enum { W = 5, H = 2, R = 2, D = 2 * R + 1 };
    float in[W * H], f[D * D];
    for (size_t i = 0; i < W * H; ++i) {
        in[i] = 1.0f;
    }
    for (size_t i = 0; i < D * D; ++i) {
        f[i] = 1.0f;
    }
    double exact, mag;
    conv2d_ref_at(in, W, H, f, R, 0, 0, &exact, &mag); // rows 0..1, cols 0..2
    ck_assert_double_eq(exact, 6);
    conv2d_ref_at(in, W, H, f, R, 1, 4, &exact, &mag); // rows 0..1, cols 2..4
    ck_assert_double_eq(exact, 6);
    conv2d_ref_at(in, W, H, f, R, 0, 2, &exact, &mag); // rows 0..1, cols 0..4
    ck_assert_double_eq(exact, 10);
    conv2d_ref_at(in, W, H, f, R, 1, 1, &exact, &mag); // rows 0..1, cols 0..3
    ck_assert_double_eq(exact, 8);
}
END_TEST

/* R = 4 on a 1 x 1 image: only the centre tap sees the image. Exact and mag with signs. */
START_TEST(test_conv2d_r4_single_pixel) {
    enum { R = 4, D = 2 * R + 1 };
    float f[D * D];
    for (size_t i = 0; i < D * D; ++i) {
        f[i] = (float)i - 40.0f; // centre tap (index 40) would be 0: make it 3
    }
    f[R * D + R] = 3.0f;
    const float in[1] = {-0.5f};
    double exact, mag;
    conv2d_ref_at(in, 1, 1, f, R, 0, 0, &exact, &mag);
    ck_assert_double_eq(exact, -1.5);
    ck_assert_double_eq(mag, 1.5);
}
END_TEST

/* mag sums |f x|: terms of opposite sign cancel in exact but not in mag. */
START_TEST(test_conv2d_mag_cancellation) {
    const float in[2] = {1.0f, -1.0f}; // (1, 2)
    const float f[9] = {0, 0, 0, 0, 1, 1, 0, 0, 0};
    double exact, mag;
    conv2d_ref_at(in, 2, 1, f, 1, 0, 0, &exact, &mag); // in(0,0) + in(0,1)
    ck_assert_double_eq(exact, 0.0);
    ck_assert_double_eq(mag, 2.0);
}
END_TEST

/* conv2d_ref_positions through a view (each position's neighbourhood read from the
 * generator, zeros outside the image) gives the doubles conv2d_ref_at gives on the whole
 * image, at every position of small images and at a list of positions, edges included. */
START_TEST(test_conv2d_positions_through_a_view_are_the_arrays) {
    static const size_t dims[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {17, 13}};
    enum { MAX = 17 * 13 };
    float img[MAX], filter[81];
    double want[MAX], want_mag[MAX], got[MAX], got_mag[MAX];
    for (int R = 0; R <= 4; ++R) {
        for (size_t d = 0; d < sizeof dims / sizeof dims[0]; ++d) {
            const size_t w = dims[d][0], h = dims[d][1], n = w * h;
            const cml_uniform_view view = {12345u + (uint64_t)R, n, -1.0f, 1.0f, 0};
            cml_rng rng;
            cml_rng_seed(&rng, view.state);
            cml_rng_fill_uniform_f32(&rng, img, n, -1.0f, 1.0f);
            cml_rng_fill_uniform_f32(&rng, filter, 81, -1.0f, 1.0f);
            ck_assert_int_eq(conv2d_ref_positions(img, NULL, w, h, filter, R, NULL, n, want,
                                                  want_mag), 0);
            ck_assert_int_eq(conv2d_ref_positions(NULL, &view, w, h, filter, R, NULL, n, got,
                                                  got_mag), 0);
            for (size_t i = 0; i < n; ++i) {
                double e, m;
                conv2d_ref_at(img, w, h, filter, R, i / w, i % w, &e, &m);
                ck_assert(want[i] == e && want_mag[i] == m);
                ck_assert(got[i] == e && got_mag[i] == m);
            }
            const size_t pos[3] = {0, n / 2, n - 1}; /* a list: the i-th result is pos[i]'s */
            ck_assert_int_eq(conv2d_ref_positions(NULL, &view, w, h, filter, R, pos, 3, got,
                                                  got_mag), 0);
            for (size_t i = 0; i < 3; ++i) {
                ck_assert(got[i] == want[pos[i]] && got_mag[i] == want_mag[pos[i]]);
            }
        }
    }
}
END_TEST

Suite *make_reference_suite(void) {
    Suite *s = suite_create("lab 3.3 references");

    TCase *tc_matmul = tcase_create("Matmul");
    tcase_add_test(tc_matmul, test_matmul_hand_2x3x2);
    tcase_add_test(tc_matmul, test_matmul_identity);
    tcase_add_test(tc_matmul, test_matmul_dot_and_outer);
    tcase_add_test(tc_matmul, test_matmul_against_direct_loop);
    tcase_add_test(tc_matmul, test_matmul_partial_sums_match_one_sum);
    tcase_add_test(tc_matmul, test_matmul_positions_equal_the_element_reference);
    suite_add_tcase(s, tc_matmul);

    TCase *tc_transpose = tcase_create("Transpose");
    tcase_add_test(tc_transpose, test_transpose_3x5);
    tcase_add_test(tc_transpose, test_transpose_vectors);
    tcase_add_test(tc_transpose, test_transpose_twice);
    suite_add_tcase(s, tc_transpose);

    TCase *tc_conv = tcase_create("Conv2d");
    tcase_add_test(tc_conv, test_conv2d_hand_3x3_ones);
    tcase_add_test(tc_conv, test_conv2d_is_correlation);
    tcase_add_test(tc_conv, test_conv2d_r0_copy_and_scale);
    tcase_add_test(tc_conv, test_conv2d_delta_shift);
    tcase_add_test(tc_conv, test_conv2d_borders_non_square);
    tcase_add_test(tc_conv, test_conv2d_r4_single_pixel);
    tcase_add_test(tc_conv, test_conv2d_mag_cancellation);
    tcase_add_test(tc_conv, test_conv2d_positions_through_a_view_are_the_arrays);
    suite_add_tcase(s, tc_conv);

    return s;
}

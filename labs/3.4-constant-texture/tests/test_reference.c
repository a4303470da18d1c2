/* test_reference.c — Check tests of lab 3.4's CPU references (reference.h). Plain C, no CUDA:
 * the lab's GPU results are only as trustworthy as these.
 *
 * TCases by concern: "Stencil1d", "Lookup", "Blur3", "Bilinear" (texel centres, midpoints,
 * clamp and wrap at the borders, one-texel images, the spread the tolerance scales),
 * "Jacobi" (hand-computed steps, invariants, the parity of the ping-pong).
 * Inputs are small integers or dyadic fractions where values are compared exactly, so float64
 * results are exact and equality is the right test.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "cml_rng.h"
#include "reference.h"

/* ---------------------------------------------------------------------------------------------
 * Stencil1d
 */

/* Radius 1, coefficients (1, 2, 3) on in = (1, -1, 2, 4): hand-computed, zeros outside. */
START_TEST(test_stencil1d_hand_r1) {
    const float in[4] = {1, -1, 2, 4};
    const float coef[3] = {1, 2, 3}; // coef[k + 1] multiplies in[i + k]
    const double want[4] = {2 + -3, 1 + -2 + 6, -1 + 4 + 12, 2 + 8};
    const double want_mag[4] = {2 + 3, 1 + 2 + 6, 1 + 4 + 12, 2 + 8};
    for (size_t i = 0; i < 4; ++i) {
        double exact, mag;
        stencil1d_ref_at(in, 4, coef, 1, i, &exact, &mag);
        ck_assert_double_eq(exact, want[i]);
        ck_assert_double_eq(mag, want_mag[i]);
    }
}
END_TEST

/* A delta at coef[k + R] shifts: out[i] = in[i + k], 0 where i + k leaves [0, n) (R = 4). */
START_TEST(test_stencil1d_delta_shift) {
    enum { N = 11, R = 4, D = 2 * R + 1 };
    float in[N];
    cml_rng rng;
    cml_rng_seed(&rng, 4);
    cml_rng_fill_uniform_f32(&rng, in, N, -1.0f, 1.0f);
    for (int k = -R; k <= R; ++k) {
        float coef[D] = {0};
        coef[k + R] = 1.0f;
        for (long i = 0; i < N; ++i) {
            double exact, mag;
            stencil1d_ref_at(in, N, coef, R, (size_t)i, &exact, &mag);
            const long j = i + k;
            const double want = (j >= 0 && j < N) ? in[j] : 0.0;
            ck_assert_double_eq(exact, want);
            ck_assert_double_eq(mag, fabs(want));
        }
    }
}
END_TEST

/* n = 1: only the centre tap sees the input, whatever the radius. */
START_TEST(test_stencil1d_single_element) {
    const float in[1] = {-0.5f};
    const float coef[9] = {7, 7, 7, 7, 3, 7, 7, 7, 7};
    double exact, mag;
    stencil1d_ref_at(in, 1, coef, 4, 0, &exact, &mag);
    ck_assert_double_eq(exact, -1.5);
    ck_assert_double_eq(mag, 1.5);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Lookup
 */

START_TEST(test_lookup_index_wraps) {
    ck_assert_uint_eq(lookup_index(0, 0, 97, 8), 0);
    ck_assert_uint_eq(lookup_index(5, 1, 97, 8), (5 + 97) % 8);
    ck_assert_uint_eq(lookup_index(7, 3, 97, 8), (7 + 3 * 97) % 8);
    ck_assert_uint_eq(lookup_index(4095, 63, 97, 4096), (4095 + 63 * 97) % 4096);
    ck_assert_uint_eq(lookup_index(0, 5, 97, 1), 0); // a table of one entry
}
END_TEST

/* Table i -> i (4 entries), stride 1, 6 steps from 3: 3 0 1 2 3 0 = 9; signs for mag. */
START_TEST(test_lookup_hand) {
    const float t[4] = {0, 1, 2, 3};
    double exact, mag;
    lookup_ref_at(t, 4, 3, 6, 1, &exact, &mag);
    ck_assert_double_eq(exact, 9);
    ck_assert_double_eq(mag, 9);
    const float s[4] = {1, -1, 0.5f, -0.25f};
    lookup_ref_at(s, 4, 1, 4, 3, &exact, &mag); // indices 1, 0, 3, 2
    ck_assert_double_eq(exact, -1 + 1 - 0.25 + 0.5);
    ck_assert_double_eq(mag, 1 + 1 + 0.25 + 0.5);
}
END_TEST

/* An odd stride visits every entry of a power-of-two table once per table_size steps: the sum
 * over table_size steps is the table's sum, from any start. */
START_TEST(test_lookup_odd_stride_covers_table) {
    enum { T = 64 };
    float t[T];
    double total = 0.0;
    for (size_t i = 0; i < T; ++i) {
        t[i] = (float)i - 20.0f;
        total += t[i];
    }
    for (size_t start = 0; start < T; start += 13) {
        double exact, mag;
        lookup_ref_at(t, T, start, T, 97, &exact, &mag);
        ck_assert_double_eq(exact, total);
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Blur3
 */

START_TEST(test_blur3_weights_sum_to_one) {
    double sum = 0.0;
    for (int k = 0; k < 9; ++k) {
        sum += BLUR3_WEIGHTS[k];
    }
    ck_assert_double_eq(sum, 1.0);
    ck_assert_float_eq(BLUR3_WEIGHTS[4], 0.25f);
}
END_TEST

/* A constant image of 1 (5, 4): interior 1, edge 12/16, corner 9/16 (zero padding). */
START_TEST(test_blur3_constant_image_borders) {
    enum { W = 5, H = 4 };
    float in[W * H];
    for (size_t i = 0; i < W * H; ++i) {
        in[i] = 1.0f;
    }
    double exact, mag;
    blur3_ref_at(in, W, H, 1, 2, &exact, &mag);
    ck_assert_double_eq(exact, 1.0);
    blur3_ref_at(in, W, H, 0, 2, &exact, &mag); // top edge
    ck_assert_double_eq(exact, 12.0 / 16.0);
    blur3_ref_at(in, W, H, 2, 4, &exact, &mag); // right edge
    ck_assert_double_eq(exact, 12.0 / 16.0);
    blur3_ref_at(in, W, H, 3, 0, &exact, &mag); // corner
    ck_assert_double_eq(exact, 9.0 / 16.0);
    ck_assert_double_eq(mag, 9.0 / 16.0);
}
END_TEST

/* A delta image: out(y, x) = w(cy - y, cx - x), so the output around the delta is the weight
 * table (symmetric), and width and height are not swapped (7 wide, 3 high). */
START_TEST(test_blur3_delta) {
    enum { W = 7, H = 3 };
    float in[W * H] = {0};
    in[1 * W + 5] = -2.0f; // (y, x) = (1, 5)
    for (size_t y = 0; y < H; ++y) {
        for (size_t x = 0; x < W; ++x) {
            double exact, mag;
            blur3_ref_at(in, W, H, y, x, &exact, &mag);
            const long dy = 1 - (long)y, dx = 5 - (long)x;
            const double want =
                (labs(dy) <= 1 && labs(dx) <= 1) ? -2.0 * BLUR3_WEIGHTS[(dy + 1) * 3 + dx + 1] : 0.0;
            ck_assert_double_eq(exact, want);
            ck_assert_double_eq(mag, fabs(want));
        }
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Bilinear
 */

/* At texel centres (i + 0.5, j + 0.5) the filter returns the texel, in both modes. */
START_TEST(test_bilinear_texel_centres) {
    enum { W = 5, H = 3 };
    float in[W * H];
    cml_rng rng;
    cml_rng_seed(&rng, 9);
    cml_rng_fill_uniform_f32(&rng, in, W * H, -1.0f, 1.0f);
    for (int wrap = 0; wrap <= 1; ++wrap) {
        for (size_t j = 0; j < H; ++j) {
            for (size_t i = 0; i < W; ++i) {
                double v, spread, maxabs;
                bilinear_ref(in, W, H, i + 0.5, j + 0.5, wrap, &v, &spread, &maxabs);
                ck_assert_double_eq(v, in[j * W + i]);
            }
        }
    }
}
END_TEST

/* Halfway between texel centres: the average of the 2 (or 4) neighbours; spread and maxabs. */
START_TEST(test_bilinear_midpoints) {
    const float in[2 * 3] = {0, 4, 8, 2, 6, -10}; // (2, 3): rows (0 4 8), (2 6 -10)
    double v, spread, maxabs;
    bilinear_ref(in, 3, 2, 1.0, 0.5, 0, &v, &spread, &maxabs); // between (0,0) and (0,1)
    ck_assert_double_eq(v, 2.0);
    ck_assert_double_eq(spread, 6.0); // the 4 texels 0 4 2 6, the row of weight 0 included

    bilinear_ref(in, 3, 2, 2.0, 1.0, 0, &v, &spread, &maxabs); // the 4 texels 4 8 6 -10
    ck_assert_double_eq(v, (4 + 8 + 6 - 10) / 4.0);
    ck_assert_double_eq(spread, 18.0);
    ck_assert_double_eq(maxabs, 10.0);
    bilinear_ref(in, 3, 2, 1.25, 0.5, 0, &v, &spread, &maxabs); // alpha = 0.75
    ck_assert_double_eq(v, 0.25 * 0 + 0.75 * 4);
}
END_TEST

/* Within half a texel of the border: clamp repeats the edge texel, wrap blends with the texel
 * on the other side. Row (1 2 3 5), height 1. */
START_TEST(test_bilinear_border_clamp_and_wrap) {
    const float in[4] = {1, 2, 3, 5};
    double v, spread, maxabs;
    bilinear_ref(in, 4, 1, 0.25, 0.5, 0, &v, &spread, &maxabs);
    ck_assert_double_eq(v, 1.0);
    bilinear_ref(in, 4, 1, 0.25, 0.5, 1, &v, &spread, &maxabs); // 0.25 T[3] + 0.75 T[0]
    ck_assert_double_eq(v, 0.25 * 5 + 0.75 * 1);
    bilinear_ref(in, 4, 1, 3.75, 0.5, 0, &v, &spread, &maxabs);
    ck_assert_double_eq(v, 5.0);
    bilinear_ref(in, 4, 1, 3.75, 0.5, 1, &v, &spread, &maxabs); // 0.75 T[3] + 0.25 T[0]
    ck_assert_double_eq(v, 0.75 * 5 + 0.25 * 1);
    /* Wrap reduces the coordinate modulo the size: x = 4.5 is texel 0's centre again. */
    bilinear_ref(in, 4, 1, 4.5, 0.5, 1, &v, &spread, &maxabs);
    ck_assert_double_eq(v, 1.0);
    /* Height 1 with y away from the centre: both rows are row 0 in either mode. */
    bilinear_ref(in, 4, 1, 1.5, 0.9, 0, &v, &spread, &maxabs);
    ck_assert_double_eq(v, 2.0);
    bilinear_ref(in, 4, 1, 1.5, 0.1, 1, &v, &spread, &maxabs);
    ck_assert_double_eq(v, 2.0);
}
END_TEST

/* A one-texel image is constant everywhere, in both modes; spread 0. */
START_TEST(test_bilinear_one_texel) {
    const float in[1] = {-0.75f};
    for (int wrap = 0; wrap <= 1; ++wrap) {
        double v, spread, maxabs;
        bilinear_ref(in, 1, 1, 0.1, 0.9, wrap, &v, &spread, &maxabs);
        ck_assert_double_eq(v, -0.75);
        ck_assert_double_eq(spread, 0.0);
        ck_assert_double_eq(maxabs, 0.75);
    }
}
END_TEST

/* Without the + 0.5 a 1x resample is off by about half a texel difference: the harness's
 * tolerance (a few 1/256 of the spread) must reject it. Here: the reference's 1x coordinates
 * are texel centres, and x = ox (no + 0.5) blends two texels equally. */
START_TEST(test_resample_coord) {
    ck_assert_double_eq(resample_coord(0, 10, 10), 0.5);
    ck_assert_double_eq(resample_coord(9, 10, 10), 9.5);
    ck_assert_double_eq(resample_coord(0, 10, 20), 0.25); // 2x up
    ck_assert_double_eq(resample_coord(19, 10, 20), 9.75);
    ck_assert_double_eq(resample_coord(0, 10, 5), 1.0); // 2x down: between texels 0 and 1
    const float in[3] = {0, 1, 4};
    double v, spread, maxabs;
    bilinear_ref(in, 3, 1, 2.0, 0.5, 0, &v, &spread, &maxabs); // x = ox for ox = 2
    ck_assert_double_eq(v, 2.5);
    ck_assert(fabs(v - in[2]) > 0.1 * spread);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Jacobi
 */

/* Row (0 4 8), height 1: hand-computed steps with the edges replicated. */
START_TEST(test_jacobi_hand_row) {
    const float in[3] = {0, 4, 8};
    double out[3];
    ck_assert(jacobi_ref(in, 3, 1, 1, out));
    // x0: (u(-1)=0 + 4 + 0 + 0) / 4; x1: (0 + 8 + 4 + 4) / 4; x2: (4 + 8 + 8 + 8) / 4
    ck_assert_double_eq(out[0], 1.0);
    ck_assert_double_eq(out[1], 4.0);
    ck_assert_double_eq(out[2], 7.0);
    ck_assert(jacobi_ref(in, 3, 1, 2, out)); // from (1 4 7)
    ck_assert_double_eq(out[0], (1 + 4 + 1 + 1) / 4.0);
    ck_assert_double_eq(out[1], (1 + 7 + 4 + 4) / 4.0);
    ck_assert_double_eq(out[2], (4 + 7 + 7 + 7) / 4.0);
}
END_TEST

/* iters = 0 copies; a constant image stays constant; a 1 x 1 image never changes. */
START_TEST(test_jacobi_invariants) {
    enum { W = 6, H = 5 };
    float in[W * H], flat[W * H];
    double out[W * H];
    cml_rng rng;
    cml_rng_seed(&rng, 12);
    cml_rng_fill_uniform_f32(&rng, in, W * H, -1.0f, 1.0f);
    ck_assert(jacobi_ref(in, W, H, 0, out));
    for (size_t i = 0; i < W * H; ++i) {
        ck_assert_double_eq(out[i], in[i]);
        flat[i] = 0.375f;
    }
    for (int iters = 1; iters <= 4; ++iters) {
        ck_assert(jacobi_ref(flat, W, H, iters, out));
        for (size_t i = 0; i < W * H; ++i) {
            ck_assert_double_eq(out[i], 0.375);
        }
    }
    const float one[1] = {-0.5f};
    double o1[1];
    ck_assert(jacobi_ref(one, 1, 1, 7, o1));
    ck_assert_double_eq(o1[0], -0.5);
}
END_TEST

/* k steps then 1 more equals k + 1 steps (odd and even k: the ping-pong's parity), on a
 * non-square image, and width and height are not swapped (an asymmetric 2D hand value). */
START_TEST(test_jacobi_steps_compose) {
    enum { W = 7, H = 4 };
    float in[W * H];
    double a[W * H], b[W * H];
    float mid[W * H];
    for (size_t i = 0; i < W * H; ++i) {
        in[i] = (float)((i * 5) % 11) - 5.0f; // small integers: every step is exact in float64
    }
    for (int k = 1; k <= 4; ++k) {
        ck_assert(jacobi_ref(in, W, H, k, a));
        for (size_t i = 0; i < W * H; ++i) {
            mid[i] = (float)a[i]; // exact: multiples of 4^-k of small integers
            ck_assert_double_eq((double)mid[i], a[i]);
        }
        ck_assert(jacobi_ref(mid, W, H, 1, b));
        ck_assert(jacobi_ref(in, W, H, k + 1, a));
        for (size_t i = 0; i < W * H; ++i) {
            ck_assert_double_eq(a[i], b[i]);
        }
    }
    /* (y, x) = (0, 6), one step: left in(0, 5), right replicated in(0, 6), up replicated
     * in(0, 6), down in(1, 6). */
    ck_assert(jacobi_ref(in, W, H, 1, a));
    ck_assert_double_eq(a[6], 0.25 * ((double)in[5] + in[6] + in[6] + in[W + 6]));
}
END_TEST

Suite *make_reference_suite(void) {
    Suite *s = suite_create("lab 3.4 references");

    TCase *tc_s1 = tcase_create("Stencil1d");
    tcase_add_test(tc_s1, test_stencil1d_hand_r1);
    tcase_add_test(tc_s1, test_stencil1d_delta_shift);
    tcase_add_test(tc_s1, test_stencil1d_single_element);
    suite_add_tcase(s, tc_s1);

    TCase *tc_lookup = tcase_create("Lookup");
    tcase_add_test(tc_lookup, test_lookup_index_wraps);
    tcase_add_test(tc_lookup, test_lookup_hand);
    tcase_add_test(tc_lookup, test_lookup_odd_stride_covers_table);
    suite_add_tcase(s, tc_lookup);

    TCase *tc_blur = tcase_create("Blur3");
    tcase_add_test(tc_blur, test_blur3_weights_sum_to_one);
    tcase_add_test(tc_blur, test_blur3_constant_image_borders);
    tcase_add_test(tc_blur, test_blur3_delta);
    suite_add_tcase(s, tc_blur);

    TCase *tc_bil = tcase_create("Bilinear");
    tcase_add_test(tc_bil, test_bilinear_texel_centres);
    tcase_add_test(tc_bil, test_bilinear_midpoints);
    tcase_add_test(tc_bil, test_bilinear_border_clamp_and_wrap);
    tcase_add_test(tc_bil, test_bilinear_one_texel);
    tcase_add_test(tc_bil, test_resample_coord);
    suite_add_tcase(s, tc_bil);

    TCase *tc_jac = tcase_create("Jacobi");
    tcase_add_test(tc_jac, test_jacobi_hand_row);
    tcase_add_test(tc_jac, test_jacobi_invariants);
    tcase_add_test(tc_jac, test_jacobi_steps_compose);
    suite_add_tcase(s, tc_jac);

    return s;
}

/* test_reference.c — Check tests of lab 3.5's CPU references (reference.h). Plain C, no CUDA:
 * the lab's GPU results are only as trustworthy as these.
 *
 * TCases by concern: "Weights" (the Gaussian), "Resample" (texel centres, clamping, hand
 * values), "Blur" (invariants, impulse response, clamped borders, tolerance propagation),
 * "Sobel" (constant and ramp images, borders), "ToU8", "Pipeline" (pipeline_ref_at against the
 * whole-image chain), "Photograph" (the compiled-in copy is the file), "Tolerance" (a float32
 * emulation of a texture-based GPU pipeline stays inside the tolerances; a wrong texel
 * convention does not; a one-pass 2D blur stays inside the blur's), "Psnr".
 * Inputs are small integers where values are compared exactly, so float64 results are exact
 * and equality is the right test.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "cml_pgm.h"
#include "cml_rng.h"
#include "lab.h"
#include "photograph.h"
#include "reference.h"

/* ---------------------------------------------------------------------------------------------
 * Weights
 */

START_TEST(test_weights_sum_symmetric_peak) {
    for (int r = 0; r <= BLUR_MAX_RADIUS; ++r) {
        float w[BLUR_MAX_TAPS];
        gaussian_weights(0.5 + r / 2.0, r, w);
        double sum = 0.0;
        for (int k = 0; k <= 2 * r; ++k) {
            sum += w[k];
            ck_assert_float_eq(w[k], w[2 * r - k]);
            ck_assert(w[k] > 0.0f);
            ck_assert(k == r || w[k] < w[r]);
        }
        ck_assert(fabs(sum - 1.0) <= (2 * r + 1) * 0x1p-24);
    }
}
END_TEST

START_TEST(test_weights_radius0_and_ratio) {
    float w[BLUR_MAX_TAPS];
    gaussian_weights(1.0, 0, w);
    ck_assert_float_eq(w[0], 1.0f);
    gaussian_weights(2.0, 3, w); // w[k] / w[0] = exp(-k^2 / 8)
    ck_assert(fabs((double)w[4] / w[3] - exp(-1.0 / 8.0)) < 1e-6);
    ck_assert(fabs((double)w[6] / w[3] - exp(-9.0 / 8.0)) < 1e-6);
}
END_TEST

START_TEST(test_radius_limit_matches_lab_h) {
    ck_assert_int_eq(REF_BLUR_MAX_RADIUS, BLUR_MAX_RADIUS);
    ck_assert_int_eq(BLUR_MAX_TAPS, 2 * BLUR_MAX_RADIUS + 1);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Resample
 */

/* At 1x every output is its texel (alpha = beta = 0: the + 0.5 centre convention). */
START_TEST(test_resample_identity) {
    enum { W = 7, H = 5 };
    unsigned char src[W * H];
    for (int i = 0; i < W * H; ++i) {
        src[i] = (unsigned char)(i * 37 % 256);
    }
    double v[W * H], t[W * H];
    resample_ref(src, W, H, W, H, v, t);
    for (int i = 0; i < W * H; ++i) {
        ck_assert_double_eq(v[i], src[i]);
        ck_assert(t[i] > 0.0 && t[i] < 0.1 * 255);
    }
}
END_TEST

/* 2 -> 4 texels in x: samples at 0.25, 0.75, 1.25, 1.75 blend (0, 100) as 0, 25, 75, 100
 * (the outer two clamp to the edge texel). */
START_TEST(test_resample_upsample_hand) {
    const unsigned char src[2] = {0, 100};
    double v[4];
    resample_ref(src, 2, 1, 4, 1, v, NULL);
    ck_assert_double_eq(v[0], 0.0);
    ck_assert_double_eq(v[1], 25.0);
    ck_assert_double_eq(v[2], 75.0);
    ck_assert_double_eq(v[3], 100.0);
}
END_TEST

/* 2:1 down in both directions: every output is the mean of a 2x2 block (samples at texel
 * corners). */
START_TEST(test_resample_downsample_mean) {
    const unsigned char src[4 * 2] = {0, 4, 8, 12, 16, 20, 24, 28};
    double v[2];
    resample_ref(src, 4, 2, 2, 1, v, NULL);
    ck_assert_double_eq(v[0], (0 + 4 + 16 + 20) / 4.0);
    ck_assert_double_eq(v[1], (8 + 12 + 24 + 28) / 4.0);
}
END_TEST

/* One texel: every output equals it, the spread is 0, so the tolerance is only 2^-16 * value. */
START_TEST(test_resample_single_texel) {
    const unsigned char src[1] = {200};
    double v[6 * 4], t[6 * 4];
    resample_ref(src, 1, 1, 6, 4, v, t);
    for (int i = 0; i < 24; ++i) {
        ck_assert_double_eq(v[i], 200.0);
        ck_assert_double_eq(t[i], 0x1p-16 * 200.0);
    }
}
END_TEST

START_TEST(test_resample_coord) {
    ck_assert_double_eq(resample_coord(0, 512, 8192), 0.5 * 512 / 8192);
    ck_assert_double_eq(resample_coord(8191, 512, 8192), 8191.5 / 16);
    ck_assert_double_eq(resample_coord(3, 10, 10), 3.5);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Blur
 */

/* A constant image stays constant (times the weights' float sum, squared). */
START_TEST(test_blur_constant) {
    enum { W = 9, H = 4 };
    float w[BLUR_MAX_TAPS];
    gaussian_weights(3.0, 8, w); // radius larger than the image: clamping everywhere
    double ws = 0.0;
    for (int k = 0; k < 17; ++k) {
        ws += w[k];
    }
    double in[W * H], out[W * H];
    for (int i = 0; i < W * H; ++i) {
        in[i] = 42.0;
    }
    ck_assert(gaussian_blur_ref(in, NULL, W, H, w, 8, out, NULL));
    for (int i = 0; i < W * H; ++i) {
        ck_assert(fabs(out[i] - 42.0 * ws * ws) < 1e-12);
    }
}
END_TEST

/* An impulse far from the borders gives the outer product of the weights. */
START_TEST(test_blur_impulse) {
    enum { W = 15, H = 13, R = 3, CX = 7, CY = 6 };
    float w[BLUR_MAX_TAPS];
    gaussian_weights(1.5, R, w);
    double in[W * H] = {0}, out[W * H];
    in[CY * W + CX] = 1.0;
    ck_assert(gaussian_blur_ref(in, NULL, W, H, w, R, out, NULL));
    for (int y = 0; y < H; ++y) {
        for (int x = 0; x < W; ++x) {
            const int dy = y - CY, dx = x - CX;
            const double want =
                (abs(dx) <= R && abs(dy) <= R) ? (double)w[dx + R] * (double)w[dy + R] : 0.0;
            ck_assert(fabs(out[y * W + x] - want) < 1e-15);
        }
    }
}
END_TEST

/* Clamp to edge: with an impulse at x = 0 of a 1-row image, out(0) = sum of the weights that
 * reach x <= 0, i.e. w[r] + w[r - 1] + ... + w[0] (radius 2: taps at -2, -1, 0 read x = 0). */
START_TEST(test_blur_clamped_border) {
    enum { W = 6, R = 2 };
    float w[BLUR_MAX_TAPS];
    gaussian_weights(1.0, R, w);
    const double in[W] = {1, 0, 0, 0, 0, 0};
    double out[W];
    ck_assert(gaussian_blur_ref(in, NULL, W, 1, w, R, out, NULL));
    double ws = 0.0; // the vertical pass on 1 row multiplies by the weights' sum
    for (int k = 0; k <= 2 * R; ++k) {
        ws += w[k];
    }
    ck_assert(fabs(out[0] - ((double)w[0] + w[1] + w[2]) * ws) < 1e-15);
    ck_assert(fabs(out[1] - ((double)w[0] + w[1]) * ws) < 1e-15);
    ck_assert(fabs(out[2] - (double)w[0] * ws) < 1e-15);
    ck_assert_double_eq(out[3], 0.0);
}
END_TEST

/* A constant input tolerance tau comes out as about tau (weights sum to 1), plus the float32
 * rounding term, which is tiny but positive. */
START_TEST(test_blur_tolerance_propagates) {
    enum { W = 10, H = 7, R = 4 };
    float w[BLUR_MAX_TAPS];
    gaussian_weights(2.0, R, w);
    double in[W * H], tol[W * H], out[W * H], out_tol[W * H];
    for (int i = 0; i < W * H; ++i) {
        in[i] = 100.0;
        tol[i] = 0.25;
    }
    ck_assert(gaussian_blur_ref(in, tol, W, H, w, R, out, out_tol));
    const double rounding = ref_gamma_f32(9 * 9 + 2 * 9) * 100.0; /* K = 99 at radius 4 */
    for (int i = 0; i < W * H; ++i) {
        ck_assert(out_tol[i] > 0.25 * (1 - 1e-6) + rounding * 0.99);
        ck_assert(out_tol[i] < 0.25 * (1 + 1e-6) + rounding * 1.01);
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Sobel
 */

START_TEST(test_sobel_constant_is_zero) {
    double in[5 * 4], out[5 * 4];
    for (int i = 0; i < 20; ++i) {
        in[i] = 77.0;
    }
    sobel_ref(in, NULL, 5, 4, out, NULL);
    for (int i = 0; i < 20; ++i) {
        ck_assert_double_eq(out[i], 0.0);
    }
}
END_TEST

/* in(y, x) = 3x: gx = 8 * 3 inside, 4 * 3 on the left and right borders (clamped: the
 * neighbour across the border is the pixel itself), gy = 0. */
START_TEST(test_sobel_ramp_x) {
    enum { W = 6, H = 4 };
    double in[W * H], out[W * H];
    for (int y = 0; y < H; ++y) {
        for (int x = 0; x < W; ++x) {
            in[y * W + x] = 3.0 * x;
        }
    }
    sobel_ref(in, NULL, W, H, out, NULL);
    for (int y = 0; y < H; ++y) {
        for (int x = 0; x < W; ++x) {
            const double want = (x == 0 || x == W - 1) ? 12.0 : 24.0;
            ck_assert_double_eq(out[y * W + x], want);
        }
    }
}
END_TEST

/* in(y, x) = 2y + x: gx = 8, gy = 16 inside: |g| = sqrt(320). */
START_TEST(test_sobel_diagonal_ramp) {
    enum { W = 5, H = 5 };
    double in[W * H], out[W * H];
    for (int y = 0; y < H; ++y) {
        for (int x = 0; x < W; ++x) {
            in[y * W + x] = 2.0 * y + x;
        }
    }
    sobel_ref(in, NULL, W, H, out, NULL);
    ck_assert(fabs(out[2 * W + 2] - sqrt(320.0)) < 1e-12);
}
END_TEST

/* A uniform input tolerance tau gives sqrt(8^2 + 8^2) tau plus float32 terms. */
START_TEST(test_sobel_tolerance) {
    double in[4 * 4], tol[4 * 4], out[4 * 4], out_tol[4 * 4];
    for (int i = 0; i < 16; ++i) {
        in[i] = 0.0;
        tol[i] = 0.5;
    }
    sobel_ref(in, tol, 4, 4, out, out_tol);
    for (int i = 0; i < 16; ++i) {
        ck_assert(fabs(out_tol[i] - sqrt(128.0) * 0.5) < 1e-12);
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * ToU8
 */

START_TEST(test_to_u8_scale_saturate) {
    const double g[4] = {0.0, 10.0, 127.25, 1000.0};
    const double gt[4] = {0.0, 1.0, 0.0, 2.0};
    double out[4], tol[4];
    to_u8_ref(g, gt, 4, 2.0, out, tol);
    ck_assert_double_eq(out[0], 0.0);
    ck_assert_double_eq(out[1], 20.0);
    ck_assert_double_eq(out[2], 254.5);
    ck_assert_double_eq(out[3], 255.0);
    ck_assert_double_eq(tol[0], 0.5);
    ck_assert(tol[1] > 2.5 && tol[1] < 2.5 + 1e-5);
    ck_assert(tol[3] > 4.5);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Pipeline
 */

/* Random source, whole-image chain vs pipeline_ref_at at every pixel: same terms, same order. */
static void check_pipeline_at(size_t sw, size_t sh, size_t dw, size_t dh, int radius,
                              uint64_t seed) {
    unsigned char *src = malloc(sw * sh);
    const size_t n = dw * dh;
    double *r = malloc(n * sizeof *r), *rt = malloc(n * sizeof *rt);
    double *b = malloc(n * sizeof *b), *bt = malloc(n * sizeof *bt);
    double *g = malloc(n * sizeof *g), *gt = malloc(n * sizeof *gt);
    double *o = malloc(n * sizeof *o), *ot = malloc(n * sizeof *ot);
    ck_assert(src && r && rt && b && bt && g && gt && o && ot);
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    for (size_t i = 0; i < sw * sh; ++i) {
        src[i] = (unsigned char)cml_rng_below(&rng, 256);
    }
    float w[BLUR_MAX_TAPS];
    gaussian_weights(1.0 + radius / 3.0, radius, w);
    const double scale = 0.75;
    resample_ref(src, sw, sh, dw, dh, r, rt);
    ck_assert(gaussian_blur_ref(r, rt, dw, dh, w, radius, b, bt));
    sobel_ref(b, bt, dw, dh, g, gt);
    to_u8_ref(g, gt, n, scale, o, ot);
    for (size_t y = 0; y < dh; ++y) {
        for (size_t x = 0; x < dw; ++x) {
            const size_t i = y * dw + x;
            double v[4], t[4];
            pipeline_ref_at(src, sw, sh, dw, dh, w, radius, scale, x, y, v, t);
            const double want[4] = {r[i], b[i], g[i], o[i]};
            const double want_t[4] = {rt[i], bt[i], gt[i], ot[i]};
            for (int s = 0; s < 4; ++s) {
                ck_assert_msg(fabs(v[s] - want[s]) <= 1e-12 * (1.0 + fabs(want[s])),
                              "stage %d at (%zu, %zu): %.17g vs %.17g", s, x, y, v[s], want[s]);
                ck_assert(fabs(t[s] - want_t[s]) <= 1e-12 * (1.0 + fabs(want_t[s])));
            }
        }
    }
    free(src);
    free(r);
    free(rt);
    free(b);
    free(bt);
    free(g);
    free(gt);
    free(o);
    free(ot);
}

START_TEST(test_pipeline_at_upsample) {
    check_pipeline_at(7, 5, 23, 17, 3, 1);
}
END_TEST

START_TEST(test_pipeline_at_identity_r8) {
    check_pipeline_at(9, 6, 9, 6, 8, 2); // radius 8 > image: clamping on every tap
}
END_TEST

START_TEST(test_pipeline_at_downsample_r0) {
    check_pipeline_at(31, 20, 12, 7, 0, 3);
}
END_TEST

START_TEST(test_pipeline_at_one_pixel) {
    check_pipeline_at(1, 1, 1, 1, 2, 4);
    check_pipeline_at(3, 3, 1, 5, 1, 5);
}
END_TEST

/* The one-pixel blur and Sobel of a float32 image equal the whole-image functions. */
START_TEST(test_stage_at_functions_match) {
    enum { W = 19, H = 11 };
    float in[W * H];
    double wide[W * H], b[W * H], bt[W * H], g[W * H], gt[W * H];
    cml_rng rng;
    cml_rng_seed(&rng, 21);
    cml_rng_fill_uniform_f32(&rng, in, W * H, 0.0f, 255.0f);
    for (int i = 0; i < W * H; ++i) {
        wide[i] = in[i];
    }
    for (int r = 0; r <= BLUR_MAX_RADIUS; r += 4) {
        float w[BLUR_MAX_TAPS];
        gaussian_weights(1.0 + r, r, w);
        ck_assert(gaussian_blur_ref(wide, NULL, W, H, w, r, b, bt));
        for (size_t y = 0; y < H; ++y) {
            for (size_t x = 0; x < W; ++x) {
                double v, t;
                gaussian_blur_ref_at(in, W, H, w, r, x, y, &v, &t);
                ck_assert(fabs(v - b[y * W + x]) <= 1e-12 * (1.0 + fabs(v)));
                ck_assert(fabs(t - bt[y * W + x]) <= 1e-12 * (1.0 + fabs(t)));
            }
        }
    }
    sobel_ref(wide, NULL, W, H, g, gt);
    for (size_t y = 0; y < H; ++y) {
        for (size_t x = 0; x < W; ++x) {
            double v, t;
            sobel_ref_at(in, W, H, x, y, &v, &t);
            ck_assert_double_eq(v, g[y * W + x]);
            ck_assert_double_eq(t, gt[y * W + x]);
        }
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Tolerance: a float32 emulation of a legitimate GPU pipeline (texture unit: coordinate in
 * float, weights rounded to 1/256; blur and Sobel in float) stays inside every stage's tolerance
 * at every pixel; the same emulation without the + 0.5 texel centre does not.
 */

static float emulated_texel(const unsigned char *src, int sw, int sh, int i, int j) {
    i = i < 0 ? 0 : (i >= sw ? sw - 1 : i);
    j = j < 0 ? 0 : (j >= sh ? sh - 1 : j);
    return (float)src[j * sw + i] / 255.0f; // cudaReadModeNormalizedFloat
}

static float emulated_tex2d(const unsigned char *src, int sw, int sh, float x, float y) {
    const float xb = x - 0.5f, yb = y - 0.5f;
    const float fi = floorf(xb), fj = floorf(yb);
    const float a = roundf((xb - fi) * 256.0f) / 256.0f; // 8 fractional bits
    const float b = roundf((yb - fj) * 256.0f) / 256.0f;
    const int i = (int)fi, j = (int)fj;
    const float t00 = emulated_texel(src, sw, sh, i, j),
                t01 = emulated_texel(src, sw, sh, i + 1, j);
    const float t10 = emulated_texel(src, sw, sh, i, j + 1);
    const float t11 = emulated_texel(src, sw, sh, i + 1, j + 1);
    return (1 - a) * (1 - b) * t00 + a * (1 - b) * t01 + (1 - a) * b * t10 + a * b * t11;
}

/* Fills the four float stages emulated on the "GPU"; centre = 0.5f normally, 0 for the wrong
 * convention. */
static void emulate_pipeline(const unsigned char *src, int sw, int sh, int dw, int dh,
                             const float *w, int radius, float scale, float centre, float *r,
                             float *b, float *g, float *o) {
    float *t = malloc((size_t)dw * dh * sizeof *t);
    ck_assert(t != NULL);
    for (int y = 0; y < dh; ++y) {
        for (int x = 0; x < dw; ++x) {
            const float fx = ((float)x + centre) * (float)sw / (float)dw;
            const float fy = ((float)y + centre) * (float)sh / (float)dh;
            r[y * dw + x] = 255.0f * emulated_tex2d(src, sw, sh, fx, fy);
        }
    }
#define CLAMPI(v, n) ((v) < 0 ? 0 : ((v) >= (n) ? (n)-1 : (v)))
    for (int y = 0; y < dh; ++y) {
        for (int x = 0; x < dw; ++x) {
            float s = 0.0f;
            for (int k = -radius; k <= radius; ++k) {
                s += w[k + radius] * r[y * dw + CLAMPI(x + k, dw)];
            }
            t[y * dw + x] = s;
        }
    }
    for (int y = 0; y < dh; ++y) {
        for (int x = 0; x < dw; ++x) {
            float s = 0.0f;
            for (int k = -radius; k <= radius; ++k) {
                s += w[k + radius] * t[CLAMPI(y + k, dh) * dw + x];
            }
            b[y * dw + x] = s;
        }
    }
    for (int y = 0; y < dh; ++y) {
        for (int x = 0; x < dw; ++x) {
#define B(dy, dx) b[CLAMPI(y + (dy), dh) * dw + CLAMPI(x + (dx), dw)]
            const float gx =
                (B(-1, 1) + 2.0f * B(0, 1) + B(1, 1)) - (B(-1, -1) + 2.0f * B(0, -1) + B(1, -1));
            const float gy =
                (B(1, -1) + 2.0f * B(1, 0) + B(1, 1)) - (B(-1, -1) + 2.0f * B(-1, 0) + B(-1, 1));
#undef B
            g[y * dw + x] = sqrtf(gx * gx + gy * gy);
            o[y * dw + x] = fminf(255.0f, floorf(scale * g[y * dw + x] + 0.5f));
        }
    }
#undef CLAMPI
    free(t);
}

/* Returns the number of pixels of any stage outside the tolerance. */
static size_t count_outside(const unsigned char *src, int sw, int sh, int dw, int dh, int radius,
                            float centre) {
    const size_t n = (size_t)dw * dh;
    float *e[4];
    double *v[4], *t[4];
    for (int s = 0; s < 4; ++s) {
        e[s] = malloc(n * sizeof(float));
        v[s] = malloc(n * sizeof(double));
        t[s] = malloc(n * sizeof(double));
        ck_assert(e[s] && v[s] && t[s]);
    }
    float w[BLUR_MAX_TAPS];
    gaussian_weights(2.0, radius, w);
    const float scale = 0.5f;
    emulate_pipeline(src, sw, sh, dw, dh, w, radius, scale, centre, e[0], e[1], e[2], e[3]);
    resample_ref(src, (size_t)sw, (size_t)sh, (size_t)dw, (size_t)dh, v[0], t[0]);
    ck_assert(gaussian_blur_ref(v[0], t[0], (size_t)dw, (size_t)dh, w, radius, v[1], t[1]));
    sobel_ref(v[1], t[1], (size_t)dw, (size_t)dh, v[2], t[2]);
    to_u8_ref(v[2], t[2], n, (double)scale, v[3], t[3]);
    size_t bad = 0;
    for (int s = 0; s < 4; ++s) {
        for (size_t i = 0; i < n; ++i) {
            bad += fabs((double)e[s][i] - v[s][i]) > t[s][i];
        }
        free(e[s]);
        free(v[s]);
        free(t[s]);
    }
    return bad;
}

static unsigned char *random_image(int w, int h, uint64_t seed) {
    unsigned char *src = malloc((size_t)w * h);
    ck_assert(src != NULL);
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    for (int i = 0; i < w * h; ++i) {
        src[i] = (unsigned char)cml_rng_below(&rng, 256);
    }
    return src;
}

START_TEST(test_tolerance_admits_texture_emulation) {
    unsigned char *src = random_image(37, 29, 11);
    ck_assert_uint_eq(count_outside(src, 37, 29, 37, 29, 4, 0.5f), 0);   // 1x
    ck_assert_uint_eq(count_outside(src, 37, 29, 301, 203, 8, 0.5f), 0); // ~8x up
    ck_assert_uint_eq(count_outside(src, 37, 29, 13, 11, 2, 0.5f), 0);   // down
    free(src);
}
END_TEST

START_TEST(test_tolerance_rejects_missing_texel_centre) {
    unsigned char *src = random_image(37, 29, 12);
    ck_assert_uint_gt(count_outside(src, 37, 29, 37, 29, 4, 0.0f), 37 * 29 / 2);
    ck_assert_uint_gt(count_outside(src, 37, 29, 301, 203, 8, 0.0f), 100);
    free(src);
}
END_TEST

/* The blur tolerance admits a kernel that sums the (2r + 1)^2 products in ONE 2D pass in
 * float32 (lab.h lets the student restructure), on exact float inputs in [0, 255). */
START_TEST(test_tolerance_admits_2d_blur) {
    enum { W = 40, H = 23, R = 8, T = 2 * R + 1 };
    float in[W * H], w[BLUR_MAX_TAPS];
    double wide[W * H], out[W * H], tol[W * H];
    cml_rng rng;
    cml_rng_seed(&rng, 31);
    cml_rng_fill_uniform_f32(&rng, in, W * H, 0.0f, 255.0f);
    for (int i = 0; i < W * H; ++i) {
        wide[i] = in[i];
    }
    gaussian_weights(4.0, R, w);
    ck_assert(gaussian_blur_ref(wide, NULL, W, H, w, R, out, tol));
    for (int y = 0; y < H; ++y) {
        for (int x = 0; x < W; ++x) {
            float s = 0.0f;
            for (int j = 0; j < T; ++j) {
                const int yy = y + j - R < 0 ? 0 : (y + j - R >= H ? H - 1 : y + j - R);
                for (int i = 0; i < T; ++i) {
                    const int xx = x + i - R < 0 ? 0 : (x + i - R >= W ? W - 1 : x + i - R);
                    s += (w[j] * w[i]) * in[yy * W + xx]; /* the product w_j w_i in float too */
                }
            }
            ck_assert_msg(fabs((double)s - out[y * W + x]) <= tol[y * W + x],
                          "(%d, %d): %.9g vs %.9g, tol %.3g", x, y, (double)s, out[y * W + x],
                          tol[y * W + x]);
        }
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Psnr
 */

START_TEST(test_psnr) {
    const double ref[4] = {0, 10, 200, 255};
    const float same[4] = {0, 10, 200, 255};
    const float off1[4] = {1, 9, 201, 254};
    ck_assert_double_eq(psnr_db(ref, same, 4, 255.0), PSNR_IDENTICAL_DB);
    ck_assert(fabs(psnr_db(ref, off1, 4, 255.0) - 20.0 * log10(255.0)) < 1e-12);
}
END_TEST

/* ---------------------------------------------------------------------------------------------
 * Photograph: the bytes photograph.c embeds at build time (.incbin) are data/astronaut.pgm's.
 * Run from the repository root (make check-tests does).
 */

START_TEST(test_photograph_embedded_matches_file) {
    cml_image_u8 embedded, file;
    ck_assert_ptr_null(cml_pgm_parse(kPhotographPgm, kPhotographPgmSize, &embedded));
    ck_assert_int_eq(embedded.width, 512);
    ck_assert_int_eq(embedded.height, 512);
    ck_assert_int_eq(embedded.maxval, 255);
    const char *err = cml_pgm_read("labs/3.5-project/data/astronaut.pgm", &file);
    ck_assert_msg(err == NULL,
                  "labs/3.5-project/data/astronaut.pgm: %s (run from the repository root)", err);
    ck_assert_int_eq(file.width, 512);
    ck_assert_int_eq(file.height, 512);
    ck_assert_mem_eq(embedded.pixels, file.pixels, 512 * 512);
    /* A photograph, not a constant or a ramp: many grey levels in use. */
    int used[256] = {0}, n_used = 0;
    for (size_t i = 0; i < 512 * 512; ++i) {
        n_used += !used[embedded.pixels[i]]++;
    }
    ck_assert_int_gt(n_used, 200);
    cml_image_u8_free(&embedded);
    cml_image_u8_free(&file);
}
END_TEST

Suite *make_reference_suite(void) {
    Suite *s = suite_create("reference");
    TCase *tc = tcase_create("Weights");
    tcase_add_test(tc, test_weights_sum_symmetric_peak);
    tcase_add_test(tc, test_weights_radius0_and_ratio);
    tcase_add_test(tc, test_radius_limit_matches_lab_h);
    suite_add_tcase(s, tc);
    tc = tcase_create("Resample");
    tcase_add_test(tc, test_resample_identity);
    tcase_add_test(tc, test_resample_upsample_hand);
    tcase_add_test(tc, test_resample_downsample_mean);
    tcase_add_test(tc, test_resample_single_texel);
    tcase_add_test(tc, test_resample_coord);
    suite_add_tcase(s, tc);
    tc = tcase_create("Blur");
    tcase_add_test(tc, test_blur_constant);
    tcase_add_test(tc, test_blur_impulse);
    tcase_add_test(tc, test_blur_clamped_border);
    tcase_add_test(tc, test_blur_tolerance_propagates);
    suite_add_tcase(s, tc);
    tc = tcase_create("Sobel");
    tcase_add_test(tc, test_sobel_constant_is_zero);
    tcase_add_test(tc, test_sobel_ramp_x);
    tcase_add_test(tc, test_sobel_diagonal_ramp);
    tcase_add_test(tc, test_sobel_tolerance);
    suite_add_tcase(s, tc);
    tc = tcase_create("ToU8");
    tcase_add_test(tc, test_to_u8_scale_saturate);
    suite_add_tcase(s, tc);
    tc = tcase_create("Pipeline");
    tcase_add_test(tc, test_pipeline_at_upsample);
    tcase_add_test(tc, test_pipeline_at_identity_r8);
    tcase_add_test(tc, test_pipeline_at_downsample_r0);
    tcase_add_test(tc, test_pipeline_at_one_pixel);
    tcase_add_test(tc, test_stage_at_functions_match);
    suite_add_tcase(s, tc);
    tc = tcase_create("Tolerance");
    tcase_add_test(tc, test_tolerance_admits_texture_emulation);
    tcase_add_test(tc, test_tolerance_rejects_missing_texel_centre);
    tcase_add_test(tc, test_tolerance_admits_2d_blur);
    suite_add_tcase(s, tc);
    tc = tcase_create("Photograph");
    tcase_add_test(tc, test_photograph_embedded_matches_file);
    suite_add_tcase(s, tc);
    tc = tcase_create("Psnr");
    tcase_add_test(tc, test_psnr);
    suite_add_tcase(s, tc);
    return s;
}

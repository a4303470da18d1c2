/* reference.h — lab 3.5: the CPU references (float64) of the pipeline's four stages, their
 * per-pixel tolerances, and the PSNR. Plain C11 (reference.c); used by harness.cu and tested by
 * tests/test_reference.c. Pristine.
 *
 * Every stage comes twice:
 *   - whole-image functions (*_ref), O(pixels x taps), for the correctness cases;
 *   - a one-pixel function of the whole pipeline (pipeline_ref_at) for the large timed cases,
 *     where the harness checks a sample of positions (cml_problem.check_idx) because the
 *     float64 images of an 8192 x 8192 case would take 0.5 GB each.
 * Both evaluate the same expressions in the same order (shared static helpers), and the tests
 * check that they agree.
 *
 * Tolerances. Each stage returns, with its exact value, a bound `tol` on |GPU - exact| that
 * the harness passes to cml_compare_f32 as the per-element magnitude with gamma = 1:
 *   resample:  the texture unit's weights alpha, beta are rounded to 1/256 (CUDA C++
 *              Programming Guide, "Texture Fetching": 9-bit fixed point with 8 fractional
 *              bits; the rounding mode is not specified) and the float32 coordinate carries a
 *              few ulps of its magnitude: tol = (d_x + d_y) * spread + 2^-16 * maxabs, with
 *              d_x = TEX_WEIGHT_SLACK + 4 * 2^-24 * src_w (d_y with src_h), spread = max - min
 *              of the 4 texels blended (the value moves by at most spread per unit of alpha or
 *              beta). The model and its constants are lab 3.4's (labs/3.4-constant-texture/
 *              harness.cu), calibrated there on the H200.
 *   blur:      linear with weights w >= 0, so an input error e(y, x) <= in_tol(y, x) reaches
 *              the output as at most blur(in_tol) (the same filter applied to the tolerances,
 *              with |w|); the float32 arithmetic adds at most gamma_K blur(|in|) with
 *              K = (2r + 1)^2 + 2 (2r + 1) (Higham, "Accuracy and Stability of Numerical
 *              Algorithms", 2nd ed., eq. 3.5): two separable passes of 2r + 1 terms need only
 *              2 gamma_{2r+1} (1 + gamma_{2r+1}), but K also covers a kernel that sums the
 *              (2r + 1)^2 products w_i w_j in(y + i, x + j) in one 2D pass (lab.h lets the
 *              student restructure); at r = 8 that is 1.9e-5 relative, 0.005 grey levels.
 *   sobel:     gx and gy are linear: |d gx| <= T_x = sum |k_x| in_tol, |d gy| <= T_y likewise;
 *              the Euclidean norm is 1-Lipschitz, so |d g| <= sqrt(T_x^2 + T_y^2); the float32
 *              sums (6 non-zero terms) add gamma_6 (A_x + A_y), A = sum |k| |in|, and the
 *              square root and squares 4 u g (u = 2^-24).
 *   to_u8:     the rounding to an integer moves by at most 0.5, saturation is 1-Lipschitz:
 *              tol = 0.5 + scale * g_tol + 2 u scale g (the float product scale * g).
 * All values are grey levels (uint8 in [0, 255]; floats in the same units).
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* lab.h's BLUR_MAX_RADIUS, repeated here so that this C file does not include lab.h's CUDA
 * API; tests/test_reference.c checks the two agree. */
#define REF_BLUR_MAX_RADIUS 8

/* The weight step of hardware linear filtering (1/256) plus half a step of margin for the
 * unspecified rounding of the coordinate to fixed point before alpha is formed (lab 3.4). */
#define TEX_WEIGHT_SLACK (1.5 / 256.0)

/* PSNR reported for identical images (the true value is infinite; JSON has no infinity). */
#define PSNR_IDENTICAL_DB 100.0

/* gamma_n = n u / (1 - n u), u = 2^-24 (float32 unit roundoff): the bound on the relative error
 * of a float32 sum of n terms (Higham eq. 3.5). */
double ref_gamma_f32(int n);

/* The Gaussian weights of radius r: w[k + r] = exp(-k^2 / (2 sigma^2)) / sum_j exp(-j^2 /
 * (2 sigma^2)), k = -r .. r, rounded to float32 (the GPU and the references use these same
 * floats). w: (2r + 1). Preconditions: sigma > 0, 0 <= radius <= REF_BLUR_MAX_RADIUS. */
void gaussian_weights(double sigma, int radius, float *w);

/* The texel coordinate that output index o (of n_out) samples in n_in texels:
 * (o + 0.5) * n_in / n_out (lab.h, resample_bilinear). */
double resample_coord(size_t o, size_t n_in, size_t n_out);

/* Stage 1 at one output pixel (ox, oy) of a (dst_h, dst_w) resampling of the (src_h, src_w)
 * uint8 image src (lab.h, resample_bilinear): bilinear interpolation with exact weights, texel
 * indices clamped; *value in grey levels, *tol as above (NULL: not wanted).
 * Preconditions: ox < dst_w, oy < dst_h. */
void resample_ref_at(const unsigned char *src, size_t src_w, size_t src_h, size_t dst_w,
                     size_t dst_h, size_t ox, size_t oy, double *value, double *tol);

/* Stage 1, whole image: value and tol (dst_h, dst_w); tol may be NULL. */
void resample_ref(const unsigned char *src, size_t src_w, size_t src_h, size_t dst_w, size_t dst_h,
                  double *value, double *tol);

/* Stage 2, whole image (lab.h, gaussian_blur): out = the separable blur of in, (height, width),
 * horizontal pass then vertical, indices clamped. in_tol: the input's own tolerance (NULL:
 * exact input, e.g. float32 values given to the GPU as they are); out_tol: blur(in_tol) plus the
 * float32 rounding bound (NULL: not wanted). w: (2 radius + 1).
 * Returns 1, or 0 when out of memory (three scratch images of doubles are allocated). */
int gaussian_blur_ref(const double *in, const double *in_tol, size_t width, size_t height,
                      const float *w, int radius, double *out, double *out_tol);

/* Stage 3, whole image (lab.h, sobel_magnitude): out = sqrt(gx^2 + gy^2), (height, width),
 * indices clamped; in_tol / out_tol as for the blur (either may be NULL). */
void sobel_ref(const double *in, const double *in_tol, size_t width, size_t height, double *out,
               double *out_tol);

/* Stage 4 (lab.h, gradient_to_u8), n elements: *out = min(255, scale * g), NOT rounded (the
 * GPU's rounding is inside the tolerance), out_tol as above (g_tol, out_tol may be NULL).
 * scale: pass the float the GPU receives, widened. */
void to_u8_ref(const double *g, const double *g_tol, size_t n, double scale, double *out,
               double *out_tol);

/* Stage 2 at one pixel (x, y) of a float32 input image in (height, width) given to the GPU as it
 * is (exact input: the tolerance is the float32 rounding term only). Equal to
 * gaussian_blur_ref on the widened image at that pixel. */
void gaussian_blur_ref_at(const float *in, size_t width, size_t height, const float *w, int radius,
                          size_t x, size_t y, double *value, double *tol);

/* Stage 3 at one pixel (x, y) of a float32 input image (height, width), exact input. Equal to
 * sobel_ref on the widened image at that pixel. */
void sobel_ref_at(const float *in, size_t width, size_t height, size_t x, size_t y, double *value,
                  double *tol);

/* The value and tolerance of every stage at one output pixel (ox, oy) of the pipeline
 * (lab.h, image_pipeline): index 0 resampled, 1 blurred, 2 gradient, 3 8-bit output
 * (unrounded, as to_u8_ref). Equal to the whole-image functions chained at that pixel.
 * Cost: 9 (2r + 1)^2 bilinear evaluations. Preconditions: ox < dst_w, oy < dst_h,
 * 0 <= radius <= REF_BLUR_MAX_RADIUS. */
void pipeline_ref_at(const unsigned char *src, size_t src_w, size_t src_h, size_t dst_w,
                     size_t dst_h, const float *w, int radius, double scale, size_t ox, size_t oy,
                     double value[4], double tol[4]);

/* Peak signal-to-noise ratio in dB of `got` against `ref` (n elements): 10 log10(peak^2 / MSE),
 * MSE = mean (got - ref)^2; PSNR_IDENTICAL_DB when MSE is 0. Preconditions: n >= 1, peak > 0. */
double psnr_db(const double *ref, const float *got, size_t n, double peak);

#ifdef __cplusplus
}
#endif

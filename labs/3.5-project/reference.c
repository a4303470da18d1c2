/* reference.c — lab 3.5: CPU references in float64 (reference.h). Plain C11. Pristine.
 *
 * Straightforward loops on purpose: a reference must be obviously right, not fast. The
 * whole-image functions and pipeline_ref_at share the per-pixel helpers below, so that both
 * sum the same terms in the same order.
 */
#include "reference.h"

#include <math.h>
#include <stdlib.h>

#define U_F32 0x1p-24 /* float32 unit roundoff */

double ref_gamma_f32(int n) {
    return (double)n * U_F32 / (1.0 - (double)n * U_F32);
}

/* Index i clamped to [0, n): the texture unit's cudaAddressModeClamp, and lab.h's border rule. */
static size_t clamp_index(long long i, size_t n) {
    if (i < 0) {
        return 0;
    }
    if (i >= (long long)n) {
        return n - 1;
    }
    return (size_t)i;
}

void gaussian_weights(double sigma, int radius, float *w) {
    double g[2 * REF_BLUR_MAX_RADIUS + 1];
    double sum = 0.0;
    for (int k = -radius; k <= radius; ++k) {
        g[k + radius] = exp(-(double)k * (double)k / (2.0 * sigma * sigma));
        sum += g[k + radius];
    }
    for (int k = 0; k <= 2 * radius; ++k) {
        w[k] = (float)(g[k] / sum);
    }
}

double resample_coord(size_t o, size_t n_in, size_t n_out) {
    return ((double)o + 0.5) * (double)n_in / (double)n_out;
}

void resample_ref_at(const unsigned char *src, size_t src_w, size_t src_h, size_t dst_w,
                     size_t dst_h, size_t ox, size_t oy, double *value, double *tol) {
    const double xb = resample_coord(ox, src_w, dst_w) - 0.5;
    const double yb = resample_coord(oy, src_h, dst_h) - 0.5;
    const double fi = floor(xb);
    const double fj = floor(yb);
    const double alpha = xb - fi;
    const double beta = yb - fj;
    const size_t i0 = clamp_index((long long)fi, src_w);
    const size_t i1 = clamp_index((long long)fi + 1, src_w);
    const size_t j0 = clamp_index((long long)fj, src_h);
    const size_t j1 = clamp_index((long long)fj + 1, src_h);
    const double t00 = src[j0 * src_w + i0];
    const double t01 = src[j0 * src_w + i1];
    const double t10 = src[j1 * src_w + i0];
    const double t11 = src[j1 * src_w + i1];
    *value = (1.0 - alpha) * (1.0 - beta) * t00 + alpha * (1.0 - beta) * t01 +
             (1.0 - alpha) * beta * t10 + alpha * beta * t11;
    if (tol != NULL) {
        const double lo = fmin(fmin(t00, t01), fmin(t10, t11));
        const double hi = fmax(fmax(t00, t01), fmax(t10, t11));
        const double d_x = TEX_WEIGHT_SLACK + 4.0 * U_F32 * (double)src_w;
        const double d_y = TEX_WEIGHT_SLACK + 4.0 * U_F32 * (double)src_h;
        *tol = (d_x + d_y) * (hi - lo) + 0x1p-16 * hi; /* texels are >= 0: maxabs = hi */
    }
}

void resample_ref(const unsigned char *src, size_t src_w, size_t src_h, size_t dst_w, size_t dst_h,
                  double *value, double *tol) {
    for (size_t oy = 0; oy < dst_h; ++oy) {
        for (size_t ox = 0; ox < dst_w; ++ox) {
            const size_t o = oy * dst_w + ox;
            resample_ref_at(src, src_w, src_h, dst_w, dst_h, ox, oy, &value[o],
                            tol != NULL ? &tol[o] : NULL);
        }
    }
}

/* One tap sum of the blur: sum_k w[k + r] * v[k + r], and the same with |w| over t[] (the
 * tolerances) and over |v| (the magnitudes), k = -r .. r in that order. */
static void blur_taps(const float *w, int radius, const double *v, const double *t, const double *a,
                      double *sum, double *sum_tol, double *sum_abs) {
    double s = 0.0, st = 0.0, sa = 0.0;
    for (int k = 0; k <= 2 * radius; ++k) {
        const double wk = w[k];
        s += wk * v[k];
        st += fabs(wk) * t[k];
        sa += fabs(wk) * a[k];
    }
    *sum = s;
    *sum_tol = st;
    *sum_abs = sa;
}

/* The blur's final tolerance from the two passes' sums (reference.h, "blur"). */
static double blur_tol(int radius, double tol_sum, double abs_sum) {
    const int taps = 2 * radius + 1;
    const double g = ref_gamma_f32(taps * taps + 2 * taps);
    return tol_sum + g * abs_sum;
}

int gaussian_blur_ref(const double *in, const double *in_tol, size_t width, size_t height,
                      const float *w, int radius, double *out, double *out_tol) {
    const size_t n = width * height;
    const int taps = 2 * radius + 1;
    double *t = malloc(n * sizeof *t);
    double *t_tol = malloc(n * sizeof *t_tol);
    double *t_abs = malloc(n * sizeof *t_abs);
    if (t == NULL || t_tol == NULL || t_abs == NULL) {
        free(t);
        free(t_tol);
        free(t_abs);
        return 0;
    }
    double v[2 * REF_BLUR_MAX_RADIUS + 1], vt[2 * REF_BLUR_MAX_RADIUS + 1],
        va[2 * REF_BLUR_MAX_RADIUS + 1];
    /* Horizontal pass: t(y, x) = sum_k w[k + r] in(y, clamp(x + k)). */
    for (size_t y = 0; y < height; ++y) {
        for (size_t x = 0; x < width; ++x) {
            for (int k = 0; k < taps; ++k) {
                const size_t i = y * width + clamp_index((long long)x + k - radius, width);
                v[k] = in[i];
                vt[k] = in_tol != NULL ? in_tol[i] : 0.0;
                va[k] = fabs(in[i]);
            }
            blur_taps(w, radius, v, vt, va, &t[y * width + x], &t_tol[y * width + x],
                      &t_abs[y * width + x]);
        }
    }
    /* Vertical pass: out(y, x) = sum_k w[k + r] t(clamp(y + k), x). */
    for (size_t y = 0; y < height; ++y) {
        for (size_t x = 0; x < width; ++x) {
            for (int k = 0; k < taps; ++k) {
                const size_t i = clamp_index((long long)y + k - radius, height) * width + x;
                v[k] = t[i];
                vt[k] = t_tol[i];
                va[k] = t_abs[i];
            }
            double s, st, sa;
            blur_taps(w, radius, v, vt, va, &s, &st, &sa);
            out[y * width + x] = s;
            if (out_tol != NULL) {
                out_tol[y * width + x] = blur_tol(radius, st, sa);
            }
        }
    }
    free(t);
    free(t_tol);
    free(t_abs);
    return 1;
}

/* The Sobel magnitude of a 3x3 neighbourhood n[dy + 1][dx + 1] (lab.h's gx, gy) and its
 * tolerance from the neighbours' tolerances t (reference.h, "sobel"). */
static void sobel_pixel(const double n[3][3], const double t[3][3], double *g, double *g_tol) {
    const double gx = (n[0][2] + 2.0 * n[1][2] + n[2][2]) - (n[0][0] + 2.0 * n[1][0] + n[2][0]);
    const double gy = (n[2][0] + 2.0 * n[2][1] + n[2][2]) - (n[0][0] + 2.0 * n[0][1] + n[0][2]);
    *g = sqrt(gx * gx + gy * gy);
    const double tx = (t[0][2] + 2.0 * t[1][2] + t[2][2]) + (t[0][0] + 2.0 * t[1][0] + t[2][0]);
    const double ty = (t[2][0] + 2.0 * t[2][1] + t[2][2]) + (t[0][0] + 2.0 * t[0][1] + t[0][2]);
    const double ax = (fabs(n[0][2]) + 2.0 * fabs(n[1][2]) + fabs(n[2][2])) +
                      (fabs(n[0][0]) + 2.0 * fabs(n[1][0]) + fabs(n[2][0]));
    const double ay = (fabs(n[2][0]) + 2.0 * fabs(n[2][1]) + fabs(n[2][2])) +
                      (fabs(n[0][0]) + 2.0 * fabs(n[0][1]) + fabs(n[0][2]));
    *g_tol = sqrt(tx * tx + ty * ty) + ref_gamma_f32(6) * (ax + ay) + 4.0 * U_F32 * *g;
}

void sobel_ref(const double *in, const double *in_tol, size_t width, size_t height, double *out,
               double *out_tol) {
    for (size_t y = 0; y < height; ++y) {
        for (size_t x = 0; x < width; ++x) {
            double n[3][3], t[3][3];
            for (int dy = -1; dy <= 1; ++dy) {
                const size_t yy = clamp_index((long long)y + dy, height);
                for (int dx = -1; dx <= 1; ++dx) {
                    const size_t i = yy * width + clamp_index((long long)x + dx, width);
                    n[dy + 1][dx + 1] = in[i];
                    t[dy + 1][dx + 1] = in_tol != NULL ? in_tol[i] : 0.0;
                }
            }
            double g, g_tol;
            sobel_pixel(n, t, &g, &g_tol);
            out[y * width + x] = g;
            if (out_tol != NULL) {
                out_tol[y * width + x] = g_tol;
            }
        }
    }
}

/* Stage 4 at one element (reference.h, "to_u8"). */
static void to_u8_pixel(double g, double g_tol, double scale, double *out, double *out_tol) {
    *out = fmin(255.0, scale * g);
    *out_tol = 0.5 + scale * g_tol + 2.0 * U_F32 * scale * fabs(g);
}

void to_u8_ref(const double *g, const double *g_tol, size_t n, double scale, double *out,
               double *out_tol) {
    for (size_t i = 0; i < n; ++i) {
        double o, t;
        to_u8_pixel(g[i], g_tol != NULL ? g_tol[i] : 0.0, scale, &o, &t);
        out[i] = o;
        if (out_tol != NULL) {
            out_tol[i] = t;
        }
    }
}

void gaussian_blur_ref_at(const float *in, size_t width, size_t height, const float *w, int radius,
                          size_t x, size_t y, double *value, double *tol) {
    const int taps = 2 * radius + 1;
    double tv[2 * REF_BLUR_MAX_RADIUS + 1], tt[2 * REF_BLUR_MAX_RADIUS + 1],
        ta[2 * REF_BLUR_MAX_RADIUS + 1];
    for (int kv = 0; kv < taps; ++kv) {
        const size_t row = clamp_index((long long)y + kv - radius, height);
        double v[2 * REF_BLUR_MAX_RADIUS + 1], vt[2 * REF_BLUR_MAX_RADIUS + 1],
            va[2 * REF_BLUR_MAX_RADIUS + 1];
        for (int kh = 0; kh < taps; ++kh) {
            v[kh] = in[row * width + clamp_index((long long)x + kh - radius, width)];
            vt[kh] = 0.0;
            va[kh] = fabs(v[kh]);
        }
        blur_taps(w, radius, v, vt, va, &tv[kv], &tt[kv], &ta[kv]);
    }
    double s, st, sa;
    blur_taps(w, radius, tv, tt, ta, &s, &st, &sa);
    *value = s;
    *tol = blur_tol(radius, st, sa);
}

void sobel_ref_at(const float *in, size_t width, size_t height, size_t x, size_t y, double *value,
                  double *tol) {
    double n[3][3], t[3][3];
    for (int dy = -1; dy <= 1; ++dy) {
        const size_t yy = clamp_index((long long)y + dy, height);
        for (int dx = -1; dx <= 1; ++dx) {
            n[dy + 1][dx + 1] = in[yy * width + clamp_index((long long)x + dx, width)];
            t[dy + 1][dx + 1] = 0.0;
        }
    }
    sobel_pixel(n, t, value, tol);
}

/* The stage-1 values and tolerances that one output pixel of the pipeline depends on: rows
 * clamp(oy - 1 - r .. oy + 1 + r) and columns clamp(ox - 1 - r .. ox + 1 + r) of the resampled
 * image, computed once each (resample_ref_at: the same values the whole-image chain uses). */
#define WINDOW (2 * REF_BLUR_MAX_RADIUS + 3)
typedef struct resample_window {
    long long ox0, oy0; /* the window's first column and row in the image */
    double v[WINDOW][WINDOW], t[WINDOW][WINDOW];
} resample_window;

/* Stage 2 at (bx, by) (both within one pixel of the window's centre) from the window, with the
 * same terms in the same order as gaussian_blur_ref. */
static void blurred_at(const resample_window *win, size_t dst_w, size_t dst_h, const float *w,
                       int radius, size_t bx, size_t by, double *value, double *tol) {
    const int taps = 2 * radius + 1;
    double tv[2 * REF_BLUR_MAX_RADIUS + 1], tt[2 * REF_BLUR_MAX_RADIUS + 1],
        ta[2 * REF_BLUR_MAX_RADIUS + 1];
    for (int kv = 0; kv < taps; ++kv) {
        const long long row = (long long)clamp_index((long long)by + kv - radius, dst_h);
        double v[2 * REF_BLUR_MAX_RADIUS + 1], vt[2 * REF_BLUR_MAX_RADIUS + 1],
            va[2 * REF_BLUR_MAX_RADIUS + 1];
        for (int kh = 0; kh < taps; ++kh) {
            const long long col = (long long)clamp_index((long long)bx + kh - radius, dst_w);
            v[kh] = win->v[row - win->oy0][col - win->ox0];
            vt[kh] = win->t[row - win->oy0][col - win->ox0];
            va[kh] = fabs(v[kh]);
        }
        blur_taps(w, radius, v, vt, va, &tv[kv], &tt[kv], &ta[kv]);
    }
    double s, st, sa;
    blur_taps(w, radius, tv, tt, ta, &s, &st, &sa);
    *value = s;
    *tol = blur_tol(radius, st, sa);
}

void pipeline_ref_at(const unsigned char *src, size_t src_w, size_t src_h, size_t dst_w,
                     size_t dst_h, const float *w, int radius, double scale, size_t ox, size_t oy,
                     double value[4], double tol[4]) {
    /* Window over the clamped coordinates: every row and column index read below lies in
     * [o - 1 - r, o + 1 + r] clamped to the image, i.e. in [lo, hi] with lo = max(0, o - 1 - r),
     * hi = min(n - 1, o + 1 + r); the window is indexed from lo. */
    resample_window win; /* 5.8 KB */
    const long long span = radius + 1;
    win.ox0 = (long long)ox - span < 0 ? 0 : (long long)ox - span;
    win.oy0 = (long long)oy - span < 0 ? 0 : (long long)oy - span;
    const long long ox1 =
        (long long)ox + span >= (long long)dst_w ? (long long)dst_w - 1 : (long long)ox + span;
    const long long oy1 =
        (long long)oy + span >= (long long)dst_h ? (long long)dst_h - 1 : (long long)oy + span;
    for (long long y = win.oy0; y <= oy1; ++y) {
        for (long long x = win.ox0; x <= ox1; ++x) {
            resample_ref_at(src, src_w, src_h, dst_w, dst_h, (size_t)x, (size_t)y,
                            &win.v[y - win.oy0][x - win.ox0], &win.t[y - win.oy0][x - win.ox0]);
        }
    }
    value[0] = win.v[oy - win.oy0][ox - win.ox0];
    tol[0] = win.t[oy - win.oy0][ox - win.ox0];
    double n[3][3], t[3][3];
    for (int dy = -1; dy <= 1; ++dy) {
        const size_t yy = clamp_index((long long)oy + dy, dst_h);
        for (int dx = -1; dx <= 1; ++dx) {
            const size_t xx = clamp_index((long long)ox + dx, dst_w);
            blurred_at(&win, dst_w, dst_h, w, radius, xx, yy, &n[dy + 1][dx + 1],
                       &t[dy + 1][dx + 1]);
        }
    }
    value[1] = n[1][1];
    tol[1] = t[1][1];
    sobel_pixel(n, t, &value[2], &tol[2]);
    to_u8_pixel(value[2], tol[2], scale, &value[3], &tol[3]);
}

double psnr_db(const double *ref, const float *got, size_t n, double peak) {
    double sse = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double d = (double)got[i] - ref[i];
        sse += d * d;
    }
    if (sse == 0.0) {
        return PSNR_IDENTICAL_DB;
    }
    return 10.0 * log10(peak * peak / (sse / (double)n));
}

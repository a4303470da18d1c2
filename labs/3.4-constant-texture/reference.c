/* reference.c — lab 3.4: CPU references in float64 (reference.h). Plain C11. Pristine.
 *
 * Straightforward loops on purpose: a reference must be obviously right, not fast.
 */
#include "reference.h"

#include <math.h>
#include <stdlib.h>

void stencil1d_ref_at(const float *in, size_t n, const float *coef, int r, size_t i, double *exact,
                      double *mag) {
    double sum = 0.0;
    double sum_abs = 0.0;
    for (int k = -r; k <= r; ++k) {
        const long long j = (long long)i + k;
        if (j < 0 || j >= (long long)n) {
            continue; // in[j] = 0: the term is 0
        }
        const double term = (double)coef[k + r] * (double)in[j]; // exact: 24 + 24 bits < 53
        sum += term;
        sum_abs += fabs(term);
    }
    *exact = sum;
    *mag = sum_abs;
}

size_t lookup_index(size_t start, size_t j, size_t stride, size_t table_size) {
    return (start + j * stride) & (table_size - 1);
}

void lookup_ref_at(const float *table, size_t table_size, size_t start, size_t steps,
                   size_t stride, double *exact, double *mag) {
    double sum = 0.0;
    double sum_abs = 0.0;
    for (size_t j = 0; j < steps; ++j) {
        const double v = table[lookup_index(start, j, stride, table_size)];
        sum += v;
        sum_abs += fabs(v);
    }
    *exact = sum;
    *mag = sum_abs;
}

const float BLUR3_WEIGHTS[9] = {
    0.0625f, 0.125f, 0.0625f, // 1 2 1
    0.125f,  0.25f,  0.125f,  // 2 4 2   (/ 16)
    0.0625f, 0.125f, 0.0625f, // 1 2 1
};

void blur3_ref_at(const float *in, size_t width, size_t height, size_t y, size_t x, double *exact,
                  double *mag) {
    double sum = 0.0;
    double sum_abs = 0.0;
    for (int dy = -1; dy <= 1; ++dy) {
        const long long yy = (long long)y + dy;
        if (yy < 0 || yy >= (long long)height) {
            continue;
        }
        for (int dx = -1; dx <= 1; ++dx) {
            const long long xx = (long long)x + dx;
            if (xx < 0 || xx >= (long long)width) {
                continue;
            }
            const double term =
                (double)BLUR3_WEIGHTS[(dy + 1) * 3 + (dx + 1)] * (double)in[yy * (long long)width + xx];
            sum += term;
            sum_abs += fabs(term);
        }
    }
    *exact = sum;
    *mag = sum_abs;
}

/* The texel index an out-of-range index i addresses in a dimension of n texels. */
static size_t texel_index(long long i, size_t n, int wrap) {
    const long long nn = (long long)n;
    if (wrap) {
        long long m = i % nn;
        return (size_t)(m < 0 ? m + nn : m);
    }
    return (size_t)(i < 0 ? 0 : (i >= nn ? nn - 1 : i));
}

void bilinear_ref(const float *in, size_t in_w, size_t in_h, double x, double y, int wrap,
                  double *value, double *spread, double *maxabs) {
    if (wrap) {
        /* Normalized coordinates: the hardware takes frac(x / in_w), i.e. x modulo in_w. */
        x -= floor(x / (double)in_w) * (double)in_w;
        y -= floor(y / (double)in_h) * (double)in_h;
    }
    const double xb = x - 0.5;
    const double yb = y - 0.5;
    const double fi = floor(xb);
    const double fj = floor(yb);
    const double alpha = xb - fi;
    const double beta = yb - fj;
    const size_t i0 = texel_index((long long)fi, in_w, wrap);
    const size_t i1 = texel_index((long long)fi + 1, in_w, wrap);
    const size_t j0 = texel_index((long long)fj, in_h, wrap);
    const size_t j1 = texel_index((long long)fj + 1, in_h, wrap);
    const double t00 = in[j0 * in_w + i0];
    const double t01 = in[j0 * in_w + i1];
    const double t10 = in[j1 * in_w + i0];
    const double t11 = in[j1 * in_w + i1];
    *value = (1.0 - alpha) * (1.0 - beta) * t00 + alpha * (1.0 - beta) * t01 +
             (1.0 - alpha) * beta * t10 + alpha * beta * t11;
    const double lo = fmin(fmin(t00, t01), fmin(t10, t11));
    const double hi = fmax(fmax(t00, t01), fmax(t10, t11));
    *spread = hi - lo;
    *maxabs = fmax(fabs(lo), fabs(hi));
}

double resample_coord(size_t o, size_t n_in, size_t n_out) {
    return ((double)o + 0.5) * (double)n_in / (double)n_out;
}

int jacobi_ref(const float *in, size_t width, size_t height, int iters, double *out) {
    const size_t n = width * height;
    double *tmp = malloc(n * sizeof *tmp);
    if (tmp == NULL) {
        return 0;
    }
    /* After step s the current grid is in `cur`; the steps alternate between out and tmp so
     * that the last one lands in out. */
    double *cur = (iters % 2 == 0) ? out : tmp;
    double *next = (iters % 2 == 0) ? tmp : out;
    for (size_t k = 0; k < n; ++k) {
        cur[k] = in[k];
    }
    for (int s = 0; s < iters; ++s) {
        for (size_t y = 0; y < height; ++y) {
            const size_t ym = y > 0 ? y - 1 : 0;
            const size_t yp = y + 1 < height ? y + 1 : height - 1;
            for (size_t x = 0; x < width; ++x) {
                const size_t xm = x > 0 ? x - 1 : 0;
                const size_t xp = x + 1 < width ? x + 1 : width - 1;
                next[y * width + x] = 0.25 * (cur[y * width + xm] + cur[y * width + xp] +
                                              cur[ym * width + x] + cur[yp * width + x]);
            }
        }
        double *t = cur;
        cur = next;
        next = t;
    }
    free(tmp);
    return 1;
}

/* reference.c — lab 3.3: CPU references in float64 (reference.h). Plain C11. Pristine.
 *
 * Straightforward loops on purpose: a reference must be obviously right, not fast. The two
 * concessions to speed are in matmul_ref_at, which takes B transposed (contiguous reads) and
 * sums in four partial sums, so that the harness can check a 4096^3 product at ~300 000
 * positions, or a 1000^3 one in full, in a fraction of a second.
 */
#include "reference.h"

#include <math.h>

void matmul_ref_at(const float *A, const float *Bt, size_t K, size_t row, size_t col, double *exact,
                   double *mag) {
    const float *a = A + row * K;  // (K): row `row` of A
    const float *b = Bt + col * K; // (K): column `col` of B
    // Partial sums over k mod 4, added at the end: the same float64 terms in another order
    // (they differ by about 1e-16 of mag, far below float32's 6e-8), three times as fast, as
    // four chains of dependent additions overlap where one waits for each addition (2.5e8
    // terms: 0.075-0.092 s against 0.223-0.257 s in one sum, gcc -O2, one x86-64 core).
    double sum[4] = {0.0, 0.0, 0.0, 0.0};
    double sum_abs[4] = {0.0, 0.0, 0.0, 0.0};
    size_t k = 0;
    for (; k + 4 <= K; k += 4) {
        for (size_t j = 0; j < 4; ++j) {
            const double term = (double)a[k + j] * (double)b[k + j]; // exact: 24 + 24 bits < 53
            sum[j] += term;
            sum_abs[j] += fabs(term);
        }
    }
    for (size_t j = 0; k < K; ++k, ++j) { // the last K mod 4 terms
        const double term = (double)a[k] * (double)b[k];
        sum[j] += term;
        sum_abs[j] += fabs(term);
    }
    *exact = (sum[0] + sum[1]) + (sum[2] + sum[3]);
    *mag = (sum_abs[0] + sum_abs[1]) + (sum_abs[2] + sum_abs[3]);
}

void transpose_ref(const float *in, size_t rows, size_t cols, float *out) {
    for (size_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < cols; ++c) {
            out[c * rows + r] = in[r * cols + c];
        }
    }
}

float transpose_ref_at(const float *in, size_t cols, size_t out_row, size_t out_col) {
    return in[out_col * cols + out_row];
}

void conv2d_ref_at(const float *in, size_t width, size_t height, const float *filter, int R,
                   size_t y, size_t x, double *exact, double *mag) {
    const long long diam = 2 * (long long)R + 1;
    double sum = 0.0;
    double sum_abs = 0.0;
    for (long long dy = -R; dy <= R; ++dy) {
        const long long yy = (long long)y + dy;
        if (yy < 0 || yy >= (long long)height) {
            continue; // zero padding: the term is f * 0
        }
        for (long long dx = -R; dx <= R; ++dx) {
            const long long xx = (long long)x + dx;
            if (xx < 0 || xx >= (long long)width) {
                continue;
            }
            const double f = filter[(dy + R) * diam + (dx + R)];
            const double v = in[(size_t)yy * width + (size_t)xx];
            sum += f * v;
            sum_abs += fabs(f * v);
        }
    }
    *exact = sum;
    *mag = sum_abs;
}

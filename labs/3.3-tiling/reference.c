/* reference.c — lab 3.3: CPU references in float64 and the sample of checked positions
 * (reference.h). Plain C11. Pristine.
 *
 * Straightforward loops on purpose: a reference must be obviously right, not fast. The one
 * concession to speed is matmul_ref_at taking B transposed, so that the harness can check a
 * 4096^3 product at ~300 000 positions in about a second.
 */
#include "reference.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

void matmul_ref_at(const float *A, const float *Bt, size_t K, size_t row, size_t col, double *exact,
                   double *mag) {
    const float *a = A + row * K;  // (K): row `row` of A
    const float *b = Bt + col * K; // (K): column `col` of B
    double sum = 0.0;
    double sum_abs = 0.0;
    for (size_t k = 0; k < K; ++k) {
        const double term = (double)a[k] * (double)b[k]; // exact: 24 + 24 bits < 53
        sum += term;
        sum_abs += fabs(term);
    }
    *exact = sum;
    *mag = sum_abs;
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

static int compare_size_t(const void *a, const void *b) {
    const size_t x = *(const size_t *)a;
    const size_t y = *(const size_t *)b;
    return (x > y) - (x < y);
}

size_t *sample_positions(size_t rows, size_t cols, size_t border, size_t n_random, cml_rng *rng,
                         size_t *n) {
    const size_t border_rows = border < rows ? border : rows;
    const size_t border_cols = border < cols ? border : cols;
    const size_t first_row = rows - border_rows; // rows [first_row, rows) are checked in full
    const size_t first_col = cols - border_cols; // columns [first_col, cols) in every row
    const size_t n_border = rows * cols - first_row * first_col;

    size_t *idx = malloc((n_border + n_random) * sizeof *idx);
    if (idx == NULL) {
        return NULL;
    }
    size_t count = 0;
    for (size_t r = 0; r < rows; ++r) {
        const size_t c_begin = r >= first_row ? 0 : first_col;
        for (size_t c = c_begin; c < cols; ++c) {
            idx[count++] = r * cols + c;
        }
    }
    for (size_t i = 0; i < n_random; ++i) {
        idx[count++] = (size_t)cml_rng_below(rng, (uint64_t)rows * cols);
    }
    qsort(idx, count, sizeof *idx, compare_size_t);

    size_t n_unique = 0;
    for (size_t i = 0; i < count; ++i) {
        if (n_unique == 0 || idx[i] != idx[n_unique - 1]) {
            idx[n_unique++] = idx[i];
        }
    }
    *n = n_unique;
    return idx;
}

/* reference.c — lab 3.1: CPU references, the pointer-chasing cycles and the sample of checked
 * positions (reference.h). Plain C11. Pristine.
 *
 * Straightforward loops on purpose: a reference must be obviously right, not fast.
 */
#include "reference.h"

#include <math.h>
#include <stdlib.h>

int chase_build_cycle(uint32_t *succ, size_t n, cml_rng *rng) {
    /* Sattolo: start from the identity order, swap each position i (from the top) with a
     * random position strictly below it. The resulting permutation perm is one n-cycle; the
     * successor of perm[i] is perm[i + 1] (cyclically). */
    uint32_t *perm = malloc(n * sizeof *perm);
    if (perm == NULL) {
        return 0;
    }
    for (size_t i = 0; i < n; ++i) {
        perm[i] = (uint32_t)i;
    }
    for (size_t i = n - 1; i > 0; --i) {
        const size_t k = (size_t)cml_rng_below(rng, (uint64_t)i); // 0 <= k < i
        const uint32_t t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
    for (size_t i = 0; i < n; ++i) {
        succ[perm[i]] = perm[(i + 1) % n];
    }
    free(perm);
    return 1;
}

void chase_ref(const uint32_t *succ, size_t n, uint32_t stride, uint32_t start, long long warmup,
               long long steps, uint32_t *final, uint32_t *checksum) {
    (void)n;
    uint32_t j = start;
    for (long long i = 0; i < warmup; ++i) {
        j = succ[j / stride] * stride;
    }
    uint32_t sum = 0;
    for (long long i = 0; i < steps; ++i) {
        j = succ[j / stride] * stride;
        sum += j; // wraps modulo 2^32, as the GPU's unsigned sum does
    }
    *final = j;
    *checksum = sum;
}

void fir_ref_at(const float *in, size_t cols, const float *taps, int n_taps, size_t r, size_t c,
                double *exact, double *mag) {
    double sum = 0.0;
    double sum_abs = 0.0;
    for (int k = 0; k < n_taps && (size_t)k <= r; ++k) { // rows above row 0 are 0
        const double term = (double)taps[k] * (double)in[(r - (size_t)k) * cols + c];
        sum += term;
        sum_abs += fabs(term);
    }
    *exact = sum;
    *mag = sum_abs;
}

void scale_rows_ref_at(const float *in, size_t cols, const float *row_scale, const float *col_bias,
                       size_t r, size_t c, double *exact, double *mag) {
    const double product = (double)in[r * cols + c] * (double)row_scale[r]; // exact
    *exact = product + (double)col_bias[c];
    *mag = fabs(product) + fabs((double)col_bias[c]);
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
    const size_t last_first_row = rows - border_rows; // rows [last_first_row, rows) in full
    const size_t first_col = cols - border_cols;      // columns [first_col, cols) in every row
    size_t n_max = n_random;
    for (size_t r = 0; r < rows; ++r) {
        const int full = r < border_rows || r >= last_first_row;
        n_max += full ? cols : border_cols;
    }
    size_t *idx = malloc((n_max ? n_max : 1) * sizeof *idx);
    if (idx == NULL) {
        return NULL;
    }
    size_t count = 0;
    for (size_t r = 0; r < rows; ++r) {
        const int full = r < border_rows || r >= last_first_row;
        for (size_t c = full ? 0 : first_col; c < cols; ++c) {
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

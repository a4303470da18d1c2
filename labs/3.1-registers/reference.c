/* reference.c — lab 3.1: CPU references and the pointer-chasing cycles (reference.h). Plain
 * C11. Pristine.
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

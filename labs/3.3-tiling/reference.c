/* reference.c — lab 3.3: CPU references in float64 (reference.h). Plain C11. Pristine.
 *
 * Straightforward loops on purpose: a reference must be obviously right, not fast. The
 * concessions to speed: matmul_ref_at takes B transposed (contiguous reads) and sums in four
 * partial sums, so that the harness can check a 4096^3 product at ~300 000 positions, or a
 * 1000^3 one in full, in a fraction of a second; transpose_ref, which makes that B, moves the
 * elements in cache-sized blocks.
 */
#include "reference.h"

#include <math.h>
#include <stdlib.h>

#include "cml_hostmem.h"
#include "cml_parallel.h"

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
    // In 16 x 16 blocks, each element moved once as in the plain double loop, the writes of a
    // block's column contiguous: row by row, a write every `rows` floats misses the cache each
    // time (B of a 4096^3 matmul: 0.28 s of one core, twice per timed matmul's set-up; 0.02 s
    // so, gcc -O2, one x86-64 core; 32-wide blocks took 0.09 s, their rows 16 KiB apart
    // falling in the same cache sets).
    enum { BLOCK = 16 };
    for (size_t c0 = 0; c0 < cols; c0 += BLOCK) {
        const size_t c1 = c0 + BLOCK < cols ? c0 + BLOCK : cols;
        for (size_t r0 = 0; r0 < rows; r0 += BLOCK) {
            const size_t r1 = r0 + BLOCK < rows ? r0 + BLOCK : rows;
            for (size_t c = c0; c < c1; ++c) {
                for (size_t r = r0; r < r1; ++r) {
                    out[c * rows + r] = in[r * cols + c];
                }
            }
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

/* matmul_ref_positions' loop over positions [begin, end), for cml_parallel_for. */
typedef struct matmul_positions {
    const float *A, *B, *Bt; /* Bt NULL: each position's column of B gathered */
    size_t N, K;
    const size_t *pos;
    double *exact, *mag;
    int no_memory; /* set (atomically) by a range that could not gather its columns */
} matmul_positions;

static void matmul_positions_range(void *ctx, size_t begin, size_t end) {
    matmul_positions *j = (matmul_positions *)ctx;
    float *column = j->Bt ? NULL : (float *)malloc(j->K * sizeof(float));
    if (!j->Bt && !column) {
        __atomic_store_n(&j->no_memory, 1, __ATOMIC_RELAXED);
        return;
    }
    for (size_t i = begin; i < end; ++i) {
        const size_t p = j->pos ? j->pos[i] : i, row = p / j->N, col = p % j->N;
        if (j->Bt) {
            matmul_ref_at(j->A, j->Bt, j->K, row, col, &j->exact[i], &j->mag[i]);
        } else {
            for (size_t k = 0; k < j->K; ++k) {
                column[k] = j->B[k * j->N + col];
            }
            matmul_ref_at(j->A, column, j->K, row, 0, &j->exact[i], &j->mag[i]);
        }
    }
    free(column);
}

int matmul_ref_positions(const float *A, const float *B, size_t N, size_t K, const size_t *pos,
                         size_t n, double *exact, double *mag) {
    float *Bt = n >= N ? (float *)malloc(N * K * sizeof(float)) : NULL;
    if (Bt) {
        (void)cml_hugepage_hint(Bt, N * K * sizeof(float)); /* 64 MiB: 32 faults, not 16 K */
        transpose_ref(B, K, N, Bt);
    }
    matmul_positions job = {A, B, Bt, N, K, pos, exact, mag, 0};
    cml_parallel_for(n, 4096, matmul_positions_range, &job);
    free(Bt);
    return job.no_memory ? -1 : 0;
}

int conv2d_ref_positions(const float *in, const cml_uniform_view *view, size_t width,
                         size_t height, const float *filter, int R, const size_t *pos, size_t n,
                         double *exact, double *mag) {
    const size_t diam = 2 * (size_t)R + 1;
    float *patch = in ? NULL : (float *)malloc(diam * diam * sizeof(float));
    if (!in && !patch) {
        return -1;
    }
    for (size_t i = 0; i < n; ++i) {
        const size_t p = pos ? pos[i] : i, y = p / width, x = p % width;
        if (in) {
            conv2d_ref_at(in, width, height, filter, R, y, x, &exact[i], &mag[i]);
        } else {
            cml_view_patch(view, width, height, y, x, R, patch);
            conv2d_ref_at(patch, diam, diam, filter, R, (size_t)R, (size_t)R, &exact[i], &mag[i]);
        }
    }
    free(patch);
    return 0;
}

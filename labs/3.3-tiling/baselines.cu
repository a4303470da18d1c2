/* baselines.cu — lab 3.3: the course's baseline kernels (baselines.h). Pristine.
 *
 * What the tiled kernels are measured against: one thread per output element, every operand
 * read from global memory (through L1/L2), threadIdx.x along the fastest-varying index of the
 * output so that the warp's accesses are as coalesced as the naive method allows:
 *   matmul_naive     reads of B and writes of C coalesced, A broadcast within a warp
 *                    (FACTS.md, one run on an H200, 4096^3: ~6.2 TFLOP/s)
 *   transpose_naive  reads coalesced, writes strided by `rows` (FACTS.md, 8192^2: 493 GB/s)
 *   conv2d_naive     (2R+1)^2 global loads per output, served mostly by L1
 * Blocks are 32 x 8: a warp is one row of 32 outputs.
 *
 * Sources: seed lecture 000 (matrixMulShared's untiled form), seed lecture 001
 * (transpose_naive, the gemm_basic kernel); M. Harris, "An Efficient Matrix Transpose in CUDA
 * C/C++" (the "naive transpose" there); siboehm, "How to Optimize a CUDA Matmul Kernel"
 * (kernel 2, global memory coalescing).
 */
#include <cuda_runtime.h>

#include "baselines.h"
#include "lab.h"

#define NAIVE_BLOCK_X 32
#define NAIVE_BLOCK_Y 8

/* ceil(n / d) for n >= 1, without int overflow: the number of blocks of d threads. */
#define CEIL_DIV(n, d) ((unsigned int)(((long long)(n) + (d)-1) / (d)))

/* Thread (x, y) of the grid computes C(row = y, col = x). */
__global__ void matmul_naive_kernel(const float *A, const float *B, float *C, int M, int N, int K) {
    const int col = (int)blockIdx.x * NAIVE_BLOCK_X + (int)threadIdx.x;
    const int row = (int)blockIdx.y * NAIVE_BLOCK_Y + (int)threadIdx.y;
    if (row >= M || col >= N) {
        return;
    }
    const float *a_row = A + (size_t)row * K; // (K): row `row` of A
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += a_row[k] * B[(size_t)k * N + col];
    }
    C[(size_t)row * N + col] = acc;
}

void matmul_naive(const float *d_A, const float *d_B, float *d_C, int M, int N, int K) {
    const dim3 block(NAIVE_BLOCK_X, NAIVE_BLOCK_Y);
    const dim3 grid(CEIL_DIV(N, NAIVE_BLOCK_X), CEIL_DIV(M, NAIVE_BLOCK_Y));
    matmul_naive_kernel<<<grid, block>>>(d_A, d_B, d_C, M, N, K);
}

/* Thread (x, y) of the grid copies in(row = y, col = x) to out(x, y). */
__global__ void transpose_naive_kernel(const float *in, float *out, int rows, int cols) {
    const int col = (int)blockIdx.x * NAIVE_BLOCK_X + (int)threadIdx.x;
    const int row = (int)blockIdx.y * NAIVE_BLOCK_Y + (int)threadIdx.y;
    if (row < rows && col < cols) {
        out[(size_t)col * rows + row] = in[(size_t)row * cols + col];
    }
}

void transpose_naive(const float *d_in, float *d_out, int rows, int cols) {
    const dim3 block(NAIVE_BLOCK_X, NAIVE_BLOCK_Y);
    const dim3 grid(CEIL_DIV(cols, NAIVE_BLOCK_X), CEIL_DIV(rows, NAIVE_BLOCK_Y));
    transpose_naive_kernel<<<grid, block>>>(d_in, d_out, rows, cols);
}

/* Thread (x, y) of the grid computes out(y, x); taps outside the image are skipped (they would
 * add filter * 0). */
__global__ void conv2d_naive_kernel(const float *in, float *out, int width, int height,
                                    const float *filter, int R) {
    const int x = (int)blockIdx.x * NAIVE_BLOCK_X + (int)threadIdx.x;
    const int y = (int)blockIdx.y * NAIVE_BLOCK_Y + (int)threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    const int diam = 2 * R + 1;
    float acc = 0.0f;
    for (int dy = -R; dy <= R; ++dy) {
        const int yy = y + dy;
        if (yy < 0 || yy >= height) {
            continue;
        }
        for (int dx = -R; dx <= R; ++dx) {
            const int xx = x + dx;
            if (xx < 0 || xx >= width) {
                continue;
            }
            acc += filter[(dy + R) * diam + (dx + R)] * in[(size_t)yy * width + xx];
        }
    }
    out[(size_t)y * width + x] = acc;
}

void conv2d_naive(const float *d_in, float *d_out, int width, int height, const float *d_filter,
                  int R) {
    if (R < 0 || R > CONV2D_MAX_R) {
        return; // outside the precondition; the harness rejects such sizes
    }
    const dim3 block(NAIVE_BLOCK_X, NAIVE_BLOCK_Y);
    const dim3 grid(CEIL_DIV(width, NAIVE_BLOCK_X), CEIL_DIV(height, NAIVE_BLOCK_Y));
    conv2d_naive_kernel<<<grid, block>>>(d_in, d_out, width, height, d_filter, R);
}

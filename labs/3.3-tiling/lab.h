/* lab.h — lab 3.3 "Shared-memory tiling": the C API between the harness and kernels.cu.
 *
 * Pristine: the harness (harness.cu) calls these launchers; you implement them in kernels.cu.
 * Every launcher
 *   - takes DEVICE pointers to row-major float32 arrays that do not overlap,
 *   - launches its kernel on the default stream and returns without synchronising,
 *   - returns nothing: the harness checks the launch (cudaGetLastError, then the kernel's
 *     own execution after cudaDeviceSynchronize) and reports any error,
 *   - may be given other buffers, holding other values, at every call (the timed runs give
 *     each launch inputs of its own): keep nothing from one call for the next that depends on
 *     the pointers or on what they hold.
 * Sizes are arbitrary: never assume they are multiples of a tile. Sizes are below 2^31 - 64
 * (they are int), and every array has fewer than 2^31 elements (the harness refuses larger
 * cases), so an int linear index does not overflow here; widening before multiplying,
 * (size_t)row * cols, is still the habit for arrays that may be larger. The sizes along y
 * below keep the grid's y dimension (at most 65535 blocks) in reach of the suggested tiles of
 * kernels.cu; a launch that breaks a limit is reported with the limit it broke.
 *
 * Declared extern "C" so the launchers' symbols are unmangled (the grader's symbol check).
 *
 * Sources: seed lectures 000 (tiled matrix multiply) and 001 (transpose, convolution tile);
 * docs/facts.md for the corrections this lab makes to them.
 */
#pragma once

/* Largest filter radius conv2d_tiled accepts: the filter is (2R+1) x (2R+1) with 0 <= R <= 4. */
#define CONV2D_MAX_R 4

/* The largest sizes along y the harness gives: 65535 blocks of the suggested tiles, 32 rows of
 * C for matmul_tiled (sgemm's 128 allow more), 32 rows of `in` for transpose, 8 rows of `out`
 * for conv2d. */
#define MATMUL_MAX_M (65535 * 32)
#define TRANSPOSE_MAX_ROWS (65535 * 32)
#define CONV2D_MAX_HEIGHT (65535 * 8)

#ifdef __cplusplus
extern "C" {
#endif

/* 3.3a. C = A B.
 *   d_A: (M, K) row-major   d_B: (K, N) row-major   d_C: (M, N) row-major, written in full.
 * Preconditions: M, N, K >= 1. */
void matmul_tiled(const float *d_A, const float *d_B, float *d_C, int M, int N, int K);

/* 3.3b. out = in^T, i.e. out(c, r) = in(r, c).
 *   d_in: (rows, cols) row-major   d_out: (cols, rows) row-major, written in full.
 * Preconditions: rows, cols >= 1. */
void transpose_tiled(const float *d_in, float *d_out, int rows, int cols);

/* 3.3c. 2D correlation with a (2R+1) x (2R+1) filter and zero padding outside the image:
 *   out(y, x) = sum over dy, dx in [-R, R] of
 *               filter[(dy + R) * (2R + 1) + (dx + R)] * in(y + dy, x + dx),
 *   where in(y', x') = 0 when y' or x' lies outside the image. (The filter is not flipped:
 *   correlation, as the seed lectures write it; for a symmetric filter it is the convolution.)
 *   d_in, d_out: (height, width) row-major, i.e. element (y, x) at y * width + x;
 *   d_filter: (2R + 1, 2R + 1) row-major, on the device.
 * Preconditions: width, height >= 1; 0 <= R <= CONV2D_MAX_R. */
void conv2d_tiled(const float *d_in, float *d_out, int width, int height, const float *d_filter,
                  int R);

/* 3.3d (stretch). SGEMM, C = A B in float32, as matmul_tiled but fast: register and warp
 * tiling, graded as a percentage of cuBLAS's SGEMM on the same inputs in the same run.
 *   d_A: (M, K) row-major   d_B: (K, N) row-major   d_C: (M, N) row-major, written in full.
 *   A float4 (16-byte) access needs a 16-byte aligned address: a row of A starts aligned only
 *   when K is a multiple of 4, a row of B or C only when N is, and the pointers' own alignment
 *   is not promised; a float4 path tests each matrix's row length and pointer (e.g.
 *   K % 4 == 0 && ((uintptr_t)d_A & 15) == 0 for A) and falls back to scalar accesses.
 * Preconditions: M, N, K >= 1; M <= MATMUL_MAX_M. */
void sgemm(const float *d_A, const float *d_B, float *d_C, int M, int N, int K);

#ifdef __cplusplus
}
#endif

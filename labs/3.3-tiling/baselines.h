/* baselines.h — lab 3.3: the course's baseline kernels, each behind a launcher with the same
 * signature as the student's in lab.h. The harness times the student's launcher against these
 * (the run document's "ratio" = baseline / student). Pristine.
 *
 * Each baseline is the straightforward kernel that the lab's technique improves on: same
 * results (same zero-padding semantics), no shared memory. Launchers take DEVICE pointers,
 * launch on the default stream and do not synchronise. Sizes >= 1 and below 2^31 - 64.
 */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* C = A B, one thread per element of C, reading A and B from global memory.
 * A: (M, K), B: (K, N), C: (M, N), all row-major. M <= 65535 * 8 (grid y limit). */
void matmul_naive(const float *d_A, const float *d_B, float *d_C, int M, int N, int K);

/* out = in^T, one thread per element: coalesced reads, strided writes.
 * in: (rows, cols), out: (cols, rows), row-major. rows <= 65535 * 8 (grid y limit). */
void transpose_naive(const float *d_in, float *d_out, int rows, int cols);

/* The correlation of lab.h's conv2d_tiled, straight from global memory.
 * in, out: (height, width) row-major; filter: (2R+1, 2R+1). height <= 65535 * 8. */
void conv2d_naive(const float *d_in, float *d_out, int width, int height, const float *d_filter,
                  int R);

#ifdef __cplusplus
}
#endif

/* baselines.cu — lab 3.1: the course's given kernels (baselines.h). Pristine.
 *
 *   fir_local                  the FIR of 3.1c with its 8-input window in a ring buffer
 *                              indexed at run time: local memory. cuobjdump -sass (nvcc 13.0,
 *                              sm_90) shows STL (one per row: the new input) and LDL (the
 *                              taps' inputs) in fir_local_kernel; cuobjdump -res-usage gives it
 *                              a 32-byte STACK frame (the 8-float window).
 *   scale_rows_thread_per_row  the row scaling of 3.1d with one thread per row: uncoalesced.
 *
 * Sources: seed lecture 001 §2.1 (registers; spills to local memory) and §3.1 (coalescing);
 * CUDA C++ Programming Guide, "Device Memory Accesses" (local memory: arrays indexed with
 * values the compiler cannot resolve to constants; coalescing). Seed lecture 000 introduces
 * registers but not local memory.
 */
#include <cuda_runtime.h>

#include "baselines.h"
#include "lab.h"

/* ceil(n / d) for n >= 1, without int overflow: the number of blocks of d threads. */
#define CEIL_DIV(n, d) ((unsigned int)(((long long)(n) + (d)-1) / (d)))

#define FIR_BLOCK 128 /* threads per block, along the columns */

/* Thread (x, y) of the grid filters rows [y * S, y * S + S) of column x (S = FIR_SEGMENT_ROWS).
 * The window is a ring buffer: input row r sits in win[r % FIR_TAPS]. Both the store and the
 * loads use an index known only at run time, so win[] is in local memory (per-thread DRAM
 * space, cached in L1 and L2); `#pragma unroll 1` keeps the compiler from unrolling the row
 * loop by 8, which would make every index a constant and put win[] in registers. */
__global__ void fir_local_kernel(const float *in, float *out, int rows, int cols,
                                 const float *taps) {
    const int c = (int)blockIdx.x * FIR_BLOCK + (int)threadIdx.x;
    if (c >= cols) {
        return;
    }
    const int r_begin = (int)blockIdx.y * FIR_SEGMENT_ROWS;
    const int r_end = min(r_begin + FIR_SEGMENT_ROWS, rows);

    float h[FIR_TAPS];
#pragma unroll
    for (int k = 0; k < FIR_TAPS; ++k) {
        h[k] = taps[k]; // constant indices after unrolling: registers
    }
    float win[FIR_TAPS]; // win[r % FIR_TAPS] = in(r, c): run-time indices, local memory
    /* History: the FIR_TAPS - 1 rows above the segment, 0 above row 0. */
#pragma unroll 1
    for (int r = r_begin - (FIR_TAPS - 1); r < r_begin; ++r) {
        win[(r + FIR_TAPS) % FIR_TAPS] = r >= 0 ? in[(size_t)r * cols + c] : 0.0f;
    }
#pragma unroll 1
    for (int r = r_begin; r < r_end; ++r) {
        win[r % FIR_TAPS] = in[(size_t)r * cols + c];
        float acc = 0.0f;
#pragma unroll
        for (int k = 0; k < FIR_TAPS; ++k) {
            acc += h[k] * win[(r - k + FIR_TAPS) % FIR_TAPS]; // in(r - k, c)
        }
        out[(size_t)r * cols + c] = acc;
    }
}

void fir_local(const float *d_in, float *d_out, int rows, int cols, const float *d_taps) {
    const dim3 block(FIR_BLOCK);
    const dim3 grid(CEIL_DIV(cols, FIR_BLOCK), CEIL_DIV(rows, FIR_SEGMENT_ROWS));
    fir_local_kernel<<<grid, block>>>(d_in, d_out, rows, cols, d_taps);
}

#define ROWS_BLOCK 256 /* threads per block, one per row */

/* Thread r of the grid computes row r, one column after the other: at step c the warp's 32
 * threads read in(r0 .. r0 + 31, c), 32 addresses 4 * cols bytes apart, one 32-byte sector
 * each, of which 4 bytes are used (L1 may still hold the rest of the line for the next steps
 * when it is large enough for all the warps' lines). Only `rows` threads: few warps per SM. */
__global__ void scale_rows_thread_per_row_kernel(const float *in, float *out, int rows, int cols,
                                                 const float *row_scale, const float *col_bias) {
    const int r = (int)blockIdx.x * ROWS_BLOCK + (int)threadIdx.x;
    if (r >= rows) {
        return;
    }
    const float s = row_scale[r];
    const float *in_row = in + (size_t)r * cols; // (cols): row r of in
    float *out_row = out + (size_t)r * cols;     // (cols): row r of out
    for (int c = 0; c < cols; ++c) {
        out_row[c] = in_row[c] * s + col_bias[c];
    }
}

void scale_rows_thread_per_row(const float *d_in, float *d_out, int rows, int cols,
                               const float *d_row_scale, const float *d_col_bias) {
    const dim3 block(ROWS_BLOCK);
    const dim3 grid(CEIL_DIV(rows, ROWS_BLOCK));
    scale_rows_thread_per_row_kernel<<<grid, block>>>(d_in, d_out, rows, cols, d_row_scale,
                                                      d_col_bias);
}

/* baselines.h — lab 3.1: the course's given kernels, each behind a launcher with the same
 * signature as the student's in lab.h. The harness times the student's launcher against these
 * (the run document's "ratio" = baseline / student). Pristine.
 *
 * Each is the kernel the exercise improves on, with the same results: fir_local keeps its
 * window in local memory, scale_rows_thread_per_row reads and writes uncoalesced. Launchers
 * take DEVICE pointers, launch on the default stream and do not synchronise.
 * Sizes >= 1 and below 2^31 - 64.
 */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* The FIR of lab.h's fir_registers, with the window in a ring buffer indexed at run time
 * (win[r % FIR_TAPS]): the compiler cannot map it to registers, so it lives in local memory
 * (STL/LDL in the SASS). Same thread mapping as lab.h suggests: threadIdx.x along the columns,
 * one segment of FIR_SEGMENT_ROWS rows per thread. ceil(rows / FIR_SEGMENT_ROWS) <= 65535. */
void fir_local(const float *d_in, float *d_out, int rows, int cols, const float *d_taps);

/* lab.h's scale_rows with one thread per ROW, walking along its row: at each step the 32
 * threads of a warp touch 32 addresses `cols` floats apart (uncoalesced: up to 32 memory
 * transactions per warp-wide load instead of 4). */
void scale_rows_thread_per_row(const float *d_in, float *d_out, int rows, int cols,
                               const float *d_row_scale, const float *d_col_bias);

#ifdef __cplusplus
}
#endif

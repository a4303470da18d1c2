/* baselines.h — lab 3.4: the course's baseline kernels, each behind a launcher with the same
 * signature as the student's in lab.h (plus the two set-up calls below). The harness times the
 * student's launcher against these (the run document's "ratio" = baseline / student). Pristine.
 *
 * Each baseline computes exactly what its exercise computes (lab.h), in the most direct way
 * that does NOT use the exercise's memory space, except the lookup baselines, which use
 * constant memory on purpose (they are what the exercise improves on). Launchers take DEVICE
 * pointers, work on the default stream and do not synchronise unless they say so.
 */
#pragma once

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 3.4a. lab.h's stencil_constant with the STENCIL_DIAM coefficients read from global memory
 * (d_coef, on the device) with a plain load. */
void stencil_global(const float *d_in, float *d_out, int n, const float *d_coef);

/* 3.4b. lab.h's lookup_divergent with the table read from constant memory at the thread's own
 * index: 32 different addresses per warp, which the constant cache serves one after the other.
 * Each launch first copies d_table into the baselines' own __constant__ table (stream-ordered). */
void lookup_constant_divergent(const float *d_table, const int *d_idx, float *d_out, int n,
                               int table_size);

/* 3.4b. The same work with a warp-uniform index: thread i starts at d_idx[i & ~31] (the first
 * thread of its warp), so at every step the whole warp reads ONE constant address (a
 * broadcast). Its result differs from lookup_divergent's (other indices): it is only timed. */
void lookup_constant_broadcast(const float *d_table, const int *d_idx, float *d_out, int n,
                               int table_size);

/* 3.4c. lab.h's stencil_readonly with plain global loads (no __restrict__, no __ldg).
 * Preconditions: d_in != d_out (the harness times it out of place only). */
void stencil_plain(const float *d_in, float *d_out, int width, int height);

/* 3.4d. lab.h's texture_resample computed in software from global memory: the bilinear
 * interpolation of the Programming Guide's "Texture Fetching" with exact (float) weights, the
 * clamp or wrap addressing done by index arithmetic. */
void resample_global(const float *d_in, int in_w, int in_h, float *d_out, int out_w, int out_h,
                     int wrap);

/* 3.4e. lab.h's jacobi_texture in global memory: ping-pong between d_out and a scratch buffer
 * (cudaMalloc / cudaFree in the launcher, as the texture version allocates its arrays), edge
 * indices clamped in software. Synchronises (cudaFree). */
void jacobi_global(const float *d_in, float *d_out, int width, int height, int iters);

#ifdef __cplusplus
}
#endif

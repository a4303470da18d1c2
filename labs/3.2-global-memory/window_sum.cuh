/* window_sum.cuh — lab 3.2e's sums of one staged tile, course code shared by the baseline
 * (baselines.cu, synchronous loads) and the student's kernel (kernels.cu, asynchronous copies):
 * the two differ only in how the tile reaches shared memory.
 *
 * window_sum_tile(buf, out, n, tile, aligned): buf (shared, 16-byte aligned) holds
 * in[b, b + ASYNC_COPY_TILE + ASYNC_COPY_HALO), b = tile * ASYNC_COPY_TILE, zeros past n; this
 * thread writes its four outputs out[b + j], j = 4 threadIdx.x + 0..3 (those below n), each
 * buf[j] + ... + buf[j + ASYNC_COPY_WINDOW - 1], summed left to right (the CPU reference's
 * order, reference.c). aligned: out is 16-byte aligned (float4 stores). Needs lab.h. */
#pragma once

#include <stddef.h>

static __device__ __forceinline__ void window_sum_tile(const float *buf, float *out, size_t n,
                                                       size_t tile, bool aligned) {
    const int j = 4 * threadIdx.x;
    float x[4 + ASYNC_COPY_HALO];
#pragma unroll
    for (int q = 0; q < (4 + ASYNC_COPY_HALO) / 4; ++q) { /* three LDS.128 */
        const float4 v = *reinterpret_cast<const float4 *>(buf + j + 4 * q);
        x[4 * q] = v.x;
        x[4 * q + 1] = v.y;
        x[4 * q + 2] = v.z;
        x[4 * q + 3] = v.w;
    }
    float s[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        s[r] = 0.0f;
#pragma unroll
        for (int k = 0; k < ASYNC_COPY_WINDOW; ++k) {
            s[r] += x[r + k];
        }
    }
    const size_t g = tile * ASYNC_COPY_TILE + (size_t)j;
    if (aligned && g + 4 <= n) {
        *reinterpret_cast<float4 *>(out + g) = make_float4(s[0], s[1], s[2], s[3]);
    } else {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            if (g + (size_t)r < n) {
                out[g + (size_t)r] = s[r];
            }
        }
    }
}

/* baselines.cu — lab 3.4: the course's baseline kernels (baselines.h). Pristine.
 *
 *   stencil_global             coefficients read from global memory (plain loads; they hit L1)
 *   lookup_constant_divergent  the table in __constant__ memory, read at the thread's own index:
 *                              the anti-pattern of seed lecture 002 (FACTS.md, one run on an H200:
 *                              69.0 ms against 2.15 ms for the warp-uniform index)
 *   lookup_constant_broadcast  the same work with a warp-uniform index (broadcast)
 *   stencil_plain              the 3x3 blur with plain global loads
 *   resample_global            bilinear interpolation in software from global memory
 *   jacobi_global              the Jacobi steps in global memory, edges clamped in software
 * One thread per output; 2D kernels use 32 x 8 blocks, a warp being 32 consecutive x of a row.
 *
 * Sources: seed lecture 002 (the constant-memory stencil and the divergent-index
 * anti-pattern); CUDA C++ Programming Guide, "Texture Fetching" (the filtering formulas the
 * software resampler follows).
 */
#include <cuda_runtime.h>

#include "baselines.h"
#include "lab.h"

#define BASE_BLOCK 256
#define BASE_BLOCK_X 32
#define BASE_BLOCK_Y 8

/* ceil(n / d) for n >= 1, without int overflow: the number of blocks of d threads. */
#define CEIL_DIV(n, d) ((unsigned int)(((long long)(n) + (d)-1) / (d)))

/* ---------------------------------------------------------------------------------------------
 * 3.4a
 */

__global__ void stencil_global_kernel(const float *in, float *out, int n, const float *coef) {
    const int i = (int)blockIdx.x * BASE_BLOCK + (int)threadIdx.x;
    if (i >= n) {
        return;
    }
    float acc = 0.0f;
#pragma unroll
    for (int k = -STENCIL_R; k <= STENCIL_R; ++k) {
        const int j = i + k;
        if (j >= 0 && j < n) {
            acc += coef[k + STENCIL_R] * in[j];
        }
    }
    out[i] = acc;
}

void stencil_global(const float *d_in, float *d_out, int n, const float *d_coef) {
    stencil_global_kernel<<<CEIL_DIV(n, BASE_BLOCK), BASE_BLOCK>>>(d_in, d_out, n, d_coef);
}

/* ---------------------------------------------------------------------------------------------
 * 3.4b
 */

/* The baselines' copy of the table (32 KB of the 64 KB constant space), copied from d_table
 * at every launch, stream-ordered before the kernel: a launch depends on its arguments only
 * (lab.h), so the judge may give each timed launch a table of its own (issue 12's input sets;
 * a copy kept from set-up went stale when the judge set up its other input sets, session 6).
 * 16 KB device to device at table_size 4096: microseconds beside the kernel's milliseconds. */
__constant__ float c_lookup_table[LOOKUP_MAX_TABLE];

static void lookup_table_to_constant(const float *d_table, int table_size) {
    // an error (table_size out of range: the harness's dims forbid it) is left for the
    // harness's cudaGetLastError after the launch
    (void)cudaMemcpyToSymbolAsync(c_lookup_table, d_table, (size_t)table_size * sizeof(float), 0,
                                  cudaMemcpyDeviceToDevice, 0);
}

/* SASS (sm_90, cuobjdump): the table reads are LDC R, c[0x3][R] (register index); at run time
 * their cost depends on how many different addresses the warp asks for. */
__global__ void lookup_constant_divergent_kernel(const int *idx, float *out, int n, int mask) {
    const int i = (int)blockIdx.x * BASE_BLOCK + (int)threadIdx.x;
    if (i >= n) {
        return;
    }
    const int start = idx[i];
    float acc = 0.0f;
#pragma unroll 8
    for (int j = 0; j < LOOKUP_STEPS; ++j) {
        acc += c_lookup_table[(start + j * LOOKUP_STRIDE) & mask]; // up to 32 addresses per warp
    }
    out[i] = acc;
}

__global__ void lookup_constant_broadcast_kernel(const int *idx, float *out, int n, int mask) {
    const int i = (int)blockIdx.x * BASE_BLOCK + (int)threadIdx.x;
    if (i >= n) {
        return;
    }
    const int start = idx[i & ~31]; // the warp's first thread's start: the same in the whole warp
    float acc = 0.0f;
#pragma unroll 8
    for (int j = 0; j < LOOKUP_STEPS; ++j) {
        acc += c_lookup_table[(start + j * LOOKUP_STRIDE) & mask]; // one address per warp
    }
    out[i] = acc;
}

void lookup_constant_divergent(const float *d_table, const int *d_idx, float *d_out, int n,
                               int table_size) {
    lookup_table_to_constant(d_table, table_size);
    lookup_constant_divergent_kernel<<<CEIL_DIV(n, BASE_BLOCK), BASE_BLOCK>>>(d_idx, d_out, n,
                                                                              table_size - 1);
}

void lookup_constant_broadcast(const float *d_table, const int *d_idx, float *d_out, int n,
                               int table_size) {
    lookup_table_to_constant(d_table, table_size);
    lookup_constant_broadcast_kernel<<<CEIL_DIV(n, BASE_BLOCK), BASE_BLOCK>>>(d_idx, d_out, n,
                                                                              table_size - 1);
}

/* ---------------------------------------------------------------------------------------------
 * 3.4c
 */

__global__ void stencil_plain_kernel(const float *in, float *out, int width, int height) {
    const int x = (int)blockIdx.x * BASE_BLOCK_X + (int)threadIdx.x;
    const int y = (int)blockIdx.y * BASE_BLOCK_Y + (int)threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    const float w[3][3] = {
        {0.0625f, 0.125f, 0.0625f}, {0.125f, 0.25f, 0.125f}, {0.0625f, 0.125f, 0.0625f}};
    float acc = 0.0f;
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy) {
        const int yy = y + dy;
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx) {
            const int xx = x + dx;
            if (yy >= 0 && yy < height && xx >= 0 && xx < width) {
                acc += w[dy + 1][dx + 1] * in[(size_t)yy * width + xx];
            }
        }
    }
    out[(size_t)y * width + x] = acc;
}

void stencil_plain(const float *d_in, float *d_out, int width, int height) {
    const dim3 block(BASE_BLOCK_X, BASE_BLOCK_Y);
    const dim3 grid(CEIL_DIV(width, BASE_BLOCK_X), CEIL_DIV(height, BASE_BLOCK_Y));
    stencil_plain_kernel<<<grid, block>>>(d_in, d_out, width, height);
}

/* ---------------------------------------------------------------------------------------------
 * 3.4d
 */

/* The texel index that index i addresses in a dimension of n texels. */
__device__ int texel_index(int i, int n, int wrap) {
    if (wrap) {
        const int m = i % n;
        return m < 0 ? m + n : m;
    }
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

__global__ void resample_global_kernel(const float *in, int in_w, int in_h, float *out, int out_w,
                                       int out_h, int wrap) {
    const int ox = (int)blockIdx.x * BASE_BLOCK_X + (int)threadIdx.x;
    const int oy = (int)blockIdx.y * BASE_BLOCK_Y + (int)threadIdx.y;
    if (ox >= out_w || oy >= out_h) {
        return;
    }
    /* Texel coordinates of the output pixel's centre; x - 0.5 locates the texel centres. */
    const float xb = ((float)ox + 0.5f) * ((float)in_w / (float)out_w) - 0.5f;
    const float yb = ((float)oy + 0.5f) * ((float)in_h / (float)out_h) - 0.5f;
    const float fi = floorf(xb);
    const float fj = floorf(yb);
    const float alpha = xb - fi;
    const float beta = yb - fj;
    const int i0 = texel_index((int)fi, in_w, wrap);
    const int i1 = texel_index((int)fi + 1, in_w, wrap);
    const int j0 = texel_index((int)fj, in_h, wrap);
    const int j1 = texel_index((int)fj + 1, in_h, wrap);
    const float t00 = in[(size_t)j0 * in_w + i0];
    const float t01 = in[(size_t)j0 * in_w + i1];
    const float t10 = in[(size_t)j1 * in_w + i0];
    const float t11 = in[(size_t)j1 * in_w + i1];
    const float top = t00 + alpha * (t01 - t00);
    const float bottom = t10 + alpha * (t11 - t10);
    out[(size_t)oy * out_w + ox] = top + beta * (bottom - top);
}

void resample_global(const float *d_in, int in_w, int in_h, float *d_out, int out_w, int out_h,
                     int wrap) {
    const dim3 block(BASE_BLOCK_X, BASE_BLOCK_Y);
    const dim3 grid(CEIL_DIV(out_w, BASE_BLOCK_X), CEIL_DIV(out_h, BASE_BLOCK_Y));
    resample_global_kernel<<<grid, block>>>(d_in, in_w, in_h, d_out, out_w, out_h, wrap);
}

/* ---------------------------------------------------------------------------------------------
 * 3.4e
 */

__global__ void jacobi_global_kernel(const float *src, float *dst, int width, int height) {
    const int x = (int)blockIdx.x * BASE_BLOCK_X + (int)threadIdx.x;
    const int y = (int)blockIdx.y * BASE_BLOCK_Y + (int)threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    const int xm = x > 0 ? x - 1 : 0;
    const int xp = x + 1 < width ? x + 1 : width - 1;
    const int ym = y > 0 ? y - 1 : 0;
    const int yp = y + 1 < height ? y + 1 : height - 1;
    const float *row = src + (size_t)y * width;
    dst[(size_t)y * width + x] =
        0.25f * (row[xm] + row[xp] + src[(size_t)ym * width + x] + src[(size_t)yp * width + x]);
}

void jacobi_global(const float *d_in, float *d_out, int width, int height, int iters) {
    const size_t bytes = (size_t)width * (size_t)height * sizeof(float);
    float *d_scratch = NULL;
    if (cudaMalloc((void **)&d_scratch, bytes) != cudaSuccess) {
        return; // the error stays for the harness's check
    }
    /* Step s writes buf[(iters - 1 - s) % 2], so the last step writes buf[0] = d_out; step 0
     * reads d_in, step s > 0 what step s - 1 wrote. */
    float *buf[2] = {d_out, d_scratch};
    const dim3 block(BASE_BLOCK_X, BASE_BLOCK_Y);
    const dim3 grid(CEIL_DIV(width, BASE_BLOCK_X), CEIL_DIV(height, BASE_BLOCK_Y));
    const float *src = d_in;
    for (int s = 0; s < iters; ++s) {
        float *dst = buf[(iters - 1 - s) % 2];
        jacobi_global_kernel<<<grid, block>>>(src, dst, width, height);
        src = dst;
    }
    cudaFree(d_scratch);
}

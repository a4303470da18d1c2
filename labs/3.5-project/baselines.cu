/* baselines.cu — lab 3.5: the naive pipeline (baselines.h). Pristine.
 *
 *   resample_naive_kernel      software bilinear interpolation, 4 global loads per output
 *   blur_rows_naive_kernel     2r + 1 global loads of the image and of the weights per output
 *   blur_cols_naive_kernel     the same down the columns, threadIdx.x walking DOWN a column:
 *                              each load of a warp touches 32 rows (uncoalesced; seed lecture 000)
 *   sobel_naive_kernel         9 global loads per output
 *   to_u8_naive_kernel         one load, one byte store
 * One thread per output; 32 x 8 blocks.
 *
 * Sources: seed lectures 000 (coalescing) and 001 (the stencil before tiling); CUDA C++
 * Programming Guide, "Texture Fetching" (the filtering formulas the software resampler follows).
 */
#include <cuda_runtime.h>

#include "baselines.h"
#include "lab.h"

#define BASE_BLOCK_X 32
#define BASE_BLOCK_Y 8

/* ceil(n / d) for n >= 1, without int overflow: the number of blocks of d threads. */
#define CEIL_DIV(n, d) ((unsigned int)(((long long)(n) + (d)-1) / (d)))

__device__ __forceinline__ int clamp_int(int v, int lo, int hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

__global__ void resample_naive_kernel(const unsigned char *src, int src_w, int src_h, float *dst,
                                      int dst_w, int dst_h) {
    const int ox = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int oy = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (ox >= dst_w || oy >= dst_h) {
        return;
    }
    const float xb = ((float)ox + 0.5f) * ((float)src_w / (float)dst_w) - 0.5f;
    const float yb = ((float)oy + 0.5f) * ((float)src_h / (float)dst_h) - 0.5f;
    const float fi = floorf(xb);
    const float fj = floorf(yb);
    const float a = xb - fi;
    const float b = yb - fj;
    const int i0 = clamp_int((int)fi, 0, src_w - 1);
    const int i1 = clamp_int((int)fi + 1, 0, src_w - 1);
    const size_t r0 = (size_t)clamp_int((int)fj, 0, src_h - 1) * src_w;
    const size_t r1 = (size_t)clamp_int((int)fj + 1, 0, src_h - 1) * src_w;
    const float t00 = src[r0 + i0], t01 = src[r0 + i1];
    const float t10 = src[r1 + i0], t11 = src[r1 + i1];
    dst[(size_t)oy * dst_w + ox] =
        (1.0f - b) * ((1.0f - a) * t00 + a * t01) + b * ((1.0f - a) * t10 + a * t11);
}

__global__ void blur_rows_naive_kernel(const float *in, float *out, int width, int height,
                                       const float *weights, int radius) {
    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) {
        return;
    }
    const float *row = in + (size_t)y * width;
    float acc = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        acc += weights[k + radius] * row[clamp_int(x + k, 0, width - 1)];
    }
    out[(size_t)y * width + x] = acc;
}

/* threadIdx.x runs along y: a warp's 32 loads hit 32 different rows. */
__global__ void blur_cols_naive_kernel(const float *in, float *out, int width, int height,
                                       const float *weights, int radius) {
    const int y = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int x = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) {
        return;
    }
    float acc = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        acc += weights[k + radius] * in[(size_t)clamp_int(y + k, 0, height - 1) * width + x];
    }
    out[(size_t)y * width + x] = acc;
}

__global__ void sobel_naive_kernel(const float *in, float *out, int width, int height) {
    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) {
        return;
    }
    const size_t ym = (size_t)clamp_int(y - 1, 0, height - 1) * width;
    const size_t y0 = (size_t)y * width;
    const size_t yp = (size_t)clamp_int(y + 1, 0, height - 1) * width;
    const int xm = clamp_int(x - 1, 0, width - 1);
    const int xp = clamp_int(x + 1, 0, width - 1);
    const float gx = (in[ym + xp] + 2.0f * in[y0 + xp] + in[yp + xp]) -
                     (in[ym + xm] + 2.0f * in[y0 + xm] + in[yp + xm]);
    const float gy = (in[yp + xm] + 2.0f * in[yp + x] + in[yp + xp]) -
                     (in[ym + xm] + 2.0f * in[ym + x] + in[ym + xp]);
    out[y0 + x] = sqrtf(gx * gx + gy * gy);
}

__global__ void to_u8_naive_kernel(const float *in, unsigned char *out, int width, int height,
                                   float scale) {
    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) {
        return;
    }
    const size_t i = (size_t)y * width + x;
    out[i] = (unsigned char)fminf(255.0f, floorf(scale * in[i] + 0.5f));
}

static dim3 grid_2d(int width, int height) {
    return dim3(CEIL_DIV(width, BASE_BLOCK_X), CEIL_DIV(height, BASE_BLOCK_Y));
}

extern "C" void resample_naive(const unsigned char *d_src, int src_w, int src_h, float *d_dst,
                               int dst_w, int dst_h) {
    resample_naive_kernel<<<grid_2d(dst_w, dst_h), dim3(BASE_BLOCK_X, BASE_BLOCK_Y)>>>(
        d_src, src_w, src_h, d_dst, dst_w, dst_h);
}

extern "C" void gaussian_blur_naive(const float *d_in, float *d_out, float *d_tmp, int width,
                                    int height, const float *d_weights, int radius) {
    const dim3 block(BASE_BLOCK_X, BASE_BLOCK_Y);
    blur_rows_naive_kernel<<<grid_2d(width, height), block>>>(d_in, d_tmp, width, height, d_weights,
                                                              radius);
    blur_cols_naive_kernel<<<grid_2d(height, width), block>>>(d_tmp, d_out, width, height,
                                                              d_weights, radius);
}

extern "C" void sobel_naive(const float *d_in, float *d_out, int width, int height) {
    sobel_naive_kernel<<<grid_2d(width, height), dim3(BASE_BLOCK_X, BASE_BLOCK_Y)>>>(d_in, d_out,
                                                                                     width, height);
}

extern "C" void gradient_to_u8_naive(const float *d_in, unsigned char *d_out, int width, int height,
                                     float scale) {
    to_u8_naive_kernel<<<grid_2d(width, height), dim3(BASE_BLOCK_X, BASE_BLOCK_Y)>>>(
        d_in, d_out, width, height, scale);
}

extern "C" void image_pipeline_naive(const unsigned char *d_src, int src_w, int src_h,
                                     unsigned char *d_dst, int dst_w, int dst_h,
                                     const float *d_weights, int radius, float gradient_scale,
                                     float *d_scratch) {
    const size_t n = (size_t)dst_w * dst_h;
    float *a = d_scratch; /* (dst_h, dst_w) each */
    float *b = d_scratch + n;
    float *c = d_scratch + 2 * n;
    resample_naive(d_src, src_w, src_h, a, dst_w, dst_h);          /* R -> a */
    gaussian_blur_naive(a, b, c, dst_w, dst_h, d_weights, radius); /* B -> b (c: scratch) */
    sobel_naive(b, c, dst_w, dst_h);                               /* G -> c */
    gradient_to_u8_naive(c, d_dst, dst_w, dst_h, gradient_scale);
}

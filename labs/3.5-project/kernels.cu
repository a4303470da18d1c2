/* kernels.cu — lab 3.5 "Project: choose the right memory space for a real image pipeline".
 * YOUR FILE: the only file of the lab you edit and submit.
 *
 * What is here works: a deliberately naive pipeline (one thread per pixel, every operand read
 * from global memory, the vertical blur pass uncoalesced). It passes every correctness case.
 * Your task is to make it FAST by choosing, for each stage, the memory space that fits how the
 * stage reads its data, and to explain your choices and measurements in REPORT.md:
 *   - stage 1 samples between texels with bilinear weights: the texture unit does exactly that
 *     in hardware (a cudaArray + texture object, linear filtering);
 *   - stage 2's weights are the same for every thread of a warp at every step: constant memory
 *     broadcasts them; every pixel is read 2r + 1 times by its neighbours: a shared-memory tile
 *     with a halo of r on each side reads it once from DRAM;
 *   - stage 3 is a 3x3 stencil: a tile with a halo of 1;
 *   - the four stages write and re-read three full float images: fusing stages (e.g. the
 *     vertical blur pass with the Sobel, or the Sobel with the 8-bit conversion) removes whole
 *     round trips to DRAM.
 * Every launcher must keep lab.h's behaviour (read it: shapes, units, clamped borders, the
 * texel-centre convention); how you get there is yours: add kernels, change tiles, fuse.
 *
 * Sources: seed lectures 000-002; CUDA C++ Programming Guide, "Shared Memory", "Device Memory
 * Spaces" (constant), "Texture and Surface Memory", "Texture Fetching".
 *
 * What this file may define (the grader's symbol check, before anything runs; in full:
 * handouts/grading.md, "The symbol rule"): lab.h's launchers under their names; your kernels;
 * __constant__, __device__ and __shared__ variables; C++ functions, static or not (templates
 * too); and variables that are static, const/constexpr, or in an unnamed namespace. Not main,
 * not a plain global variable (int counter;, also inline int counter;: make it static), not an
 * extern "C" function that is no launcher, and no name of the harness, the CUDA runtime or the
 * C library (cml_*, cuda*, _*, exit, rand, ...).
 * It may call the CUDA runtime except timing, streams of its own, graphs, host callbacks, IPC,
 * device-wide state and loading device code; printing to stdout/stderr; memcpy, memset,
 * malloc, free and their kin; the math library.
 */
#include <cuda_runtime.h>

#include "lab.h"

#define BLOCK_X 32
#define BLOCK_Y 8

/* ceil(n / d) for n >= 1, without int overflow: the number of blocks of d threads. */
#define CEIL_DIV(n, d) ((unsigned int)(((long long)(n) + (d)-1) / (d)))

/* The blur weights, in GLOBAL memory (a __device__ array). */
__device__ float g_blur_weights[BLUR_MAX_TAPS];

__device__ __forceinline__ int clamp_int(int v, int lo, int hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

static dim3 grid_2d(int width, int height) {
    return dim3(CEIL_DIV(width, BLOCK_X), CEIL_DIV(height, BLOCK_Y));
}

/* ---------------------------------------------------------------------------------------------
 * 3.5a  Stage 1: bilinear resampling
 *
 * TODO(3.5a): sample the source through a texture object instead of four global loads and
 *   software weights: copy d_src into a cudaArray of unsigned char (cudaMallocArray +
 *   cudaMemcpy2DToArray), create a texture object with cudaFilterModeLinear,
 *   cudaAddressModeClamp, cudaReadModeNormalizedFloat and unnormalized coordinates, and read
 *   255.0f * tex2D<float>(tex, x, y) at x = (ox + 0.5f) * src_w / dst_w (texel centres at
 *   i + 0.5). Create the array and the texture object in each call and release them in the
 *   same call once the kernel is done (cudaDeviceSynchronize, then cudaDestroyTextureObject
 *   and cudaFreeArray: the kernel may still be reading them). Do not keep them for
 *   the next call, even when the source pointer and size are the same: the pixels behind the
 *   pointer may have changed (after cudaFree, cudaMalloc can hand the same address back with
 *   other contents), and the timed runs, which call the launcher again and again on one source,
 *   would then time a launcher that skips part of the stage's work.
 */
__global__ void resample_kernel(const unsigned char *src, int src_w, int src_h, float *dst,
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

extern "C" void resample_bilinear(const unsigned char *d_src, int src_w, int src_h, float *d_dst,
                                  int dst_w, int dst_h) {
    resample_kernel<<<grid_2d(dst_w, dst_h), dim3(BLOCK_X, BLOCK_Y)>>>(d_src, src_w, src_h, d_dst,
                                                                       dst_w, dst_h);
}

/* ---------------------------------------------------------------------------------------------
 * 3.5b  Stage 2: separable Gaussian blur
 *
 * TODO(3.5b): (1) put the weights in __constant__ memory (every thread of a warp reads w[k] at
 *   the same k: one broadcast). The starting code already uploads them with
 *   cudaMemcpyToSymbolAsync, but into g_blur_weights, a __device__ array: GLOBAL memory. The
 *   change is its declaration, __device__ -> __constant__; the same call then fills constant
 *   memory (pass the variable itself, as it does: not its address, not its name in quotes);
 *   (2) load a tile of the image plus a halo of `radius` pixels on each side into shared
 *   memory once, and read the 2r + 1 taps from there (__syncthreads() between the load and
 *   the reads); (3) map threadIdx.x to x in BOTH passes, so that a warp's loads are 32
 *   consecutive floats (coalesced). Tiles at the image's edges: clamp the halo's indices to
 *   the image.
 */
__global__ void blur_rows_kernel(const float *in, float *out, int width, int height, int radius) {
    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) {
        return;
    }
    const float *row = in + (size_t)y * width;
    float acc = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        acc += g_blur_weights[k + radius] * row[clamp_int(x + k, 0, width - 1)];
    }
    out[(size_t)y * width + x] = acc;
}

/* threadIdx.x runs DOWN the column: a warp's 32 loads hit 32 different rows (uncoalesced). */
__global__ void blur_cols_kernel(const float *in, float *out, int width, int height, int radius) {
    const int y = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int x = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) {
        return;
    }
    float acc = 0.0f;
    for (int k = -radius; k <= radius; ++k) {
        acc += g_blur_weights[k + radius] * in[(size_t)clamp_int(y + k, 0, height - 1) * width + x];
    }
    out[(size_t)y * width + x] = acc;
}

extern "C" void gaussian_blur(const float *d_in, float *d_out, float *d_tmp, int width, int height,
                              const float *h_weights, int radius) {
    cudaMemcpyToSymbolAsync(g_blur_weights, h_weights, (size_t)(2 * radius + 1) * sizeof(float), 0,
                            cudaMemcpyHostToDevice, 0);
    const dim3 block(BLOCK_X, BLOCK_Y);
    blur_rows_kernel<<<grid_2d(width, height), block>>>(d_in, d_tmp, width, height, radius);
    blur_cols_kernel<<<grid_2d(height, width), block>>>(d_tmp, d_out, width, height, radius);
}

/* ---------------------------------------------------------------------------------------------
 * 3.5c  Stage 3: Sobel gradient magnitude
 *
 * TODO(3.5c): each input pixel is read by 9 threads: load a (BLOCK_Y + 2) x (BLOCK_X + 2) tile
 *   (the block's pixels and a halo of 1, indices clamped to the image) into shared memory once,
 *   then compute gx, gy from the tile. Or fuse this stage with the vertical blur pass or with
 *   the 8-bit conversion.
 */
__global__ void sobel_kernel(const float *in, float *out, int width, int height) {
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

extern "C" void sobel_magnitude(const float *d_in, float *d_out, int width, int height) {
    sobel_kernel<<<grid_2d(width, height), dim3(BLOCK_X, BLOCK_Y)>>>(d_in, d_out, width, height);
}

/* ---------------------------------------------------------------------------------------------
 * 3.5d  Stage 4: 8-bit output
 *
 * TODO(3.5d): a warp's 32 one-byte stores to consecutive pixels fill one whole 32-byte sector
 *   (when the row segment is aligned), so no DRAM bandwidth is wasted; the cost is instructions:
 *   a byte store moves 32 bytes per warp where a 32-bit store moves 128, four times the store
 *   instructions (and memory requests) per byte. Consider 4 pixels per thread (one 32-bit store
 *   of 4 packed bytes), or fuse this stage into the Sobel.
 *   Alignment: a 32-bit store of 4 uint8 pixels needs a 4-byte-aligned address, a float4 load a
 *   16-byte-aligned one; a misaligned vector access stops the kernel with the error "misaligned
 *   address". So group the pixels 4 by 4 over the image as ONE flat array (thread t: pixels
 *   4t .. 4t + 3 of the width * height), not row by row (row y starts at pixel y * width, not a
 *   multiple of 4 when the width is odd); check both pointers' alignment ((uintptr_t)p % 16 for
 *   the float4 load, % 4 for the store, <stdint.h>) and fall back to scalar accesses when it is
 *   not there: with n = dst_w * dst_h, image_pipeline's d_scratch + n is 16-byte aligned
 *   only when n is a multiple of 4, d_scratch + 2 * n only when n is even. The last n % 4
 *   pixels take the scalar path too.
 */
__global__ void to_u8_kernel(const float *in, unsigned char *out, int width, int height,
                             float scale) {
    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) {
        return;
    }
    const size_t i = (size_t)y * width + x;
    out[i] = (unsigned char)fminf(255.0f, floorf(scale * in[i] + 0.5f));
}

extern "C" void gradient_to_u8(const float *d_in, unsigned char *d_out, int width, int height,
                               float scale) {
    to_u8_kernel<<<grid_2d(width, height), dim3(BLOCK_X, BLOCK_Y)>>>(d_in, d_out, width, height,
                                                                     scale);
}

/* ---------------------------------------------------------------------------------------------
 * 3.5e  The whole pipeline
 *
 * TODO(3.5e): the four stages one after the other write and re-read three float images of
 *   dst_w * dst_h * 4 bytes each. Measure each stage (REPORT.md's roofline table), then decide
 *   what to fuse: a stage whose output is only read by the next one can often keep it on chip.
 *   Only d_dst is checked and timed. Rules for fused kernels (the handout, section 7):
 *   - No races between blocks: the blocks of one launch run in no fixed order, so a block must
 *     never read what another block of the same launch writes (a neighbour's blurred pixels in
 *     d_scratch, say). Recompute the halo inside each block, or end the launch and read it in
 *     the next. Such a race can pass small images and fail large ones.
 *   - d_scratch (three float images of dst_w * dst_h) is for a partly fused pipeline: the
 *     intermediates handed from one launch to the next. A fully fused one needs none of it.
 *   - Clamp every stage at its own image: the Sobel reads the BLURRED image at the clamped
 *     pixel (row -1 is row 0 of the blurred image, not the blur evaluated above the image), and
 *     the blur reads R at the clamped pixel (R at column -3 is R at column 0).
 *   - Keep every stage launcher working alone: the stage exercises call them one by one.
 */
extern "C" void image_pipeline(const unsigned char *d_src, int src_w, int src_h,
                               unsigned char *d_dst, int dst_w, int dst_h, const float *h_weights,
                               int radius, float gradient_scale, float *d_scratch) {
    const size_t n = (size_t)dst_w * dst_h;
    float *a = d_scratch; /* (dst_h, dst_w) each */
    float *b = d_scratch + n;
    float *c = d_scratch + 2 * n;
    resample_bilinear(d_src, src_w, src_h, a, dst_w, dst_h); /* R -> a */
    gaussian_blur(a, b, c, dst_w, dst_h, h_weights, radius); /* B -> b (c: its scratch) */
    sobel_magnitude(b, c, dst_w, dst_h);                     /* G -> c */
    gradient_to_u8(c, d_dst, dst_w, dst_h, gradient_scale);
}

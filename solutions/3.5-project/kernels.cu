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
// BEGIN SOLUTION
/* THE REFERENCE SOLUTION: which memory space serves which read, and why.
 *
 *   1 resample, the 512 x 512 source: a cudaArray of FLOAT texels read by the texture unit
 *     (linear filtering, clamp addressing). Every output blends the 4 texels around a point
 *     between texels: one TEX instruction does the 4 reads, the clamping and the blend, and
 *     the texture cache keeps the 2D neighbourhood.
 *   2 blur, the 17 weights: __constant__ c_blur_taps. All 32 lanes of a warp read tap k at the
 *     same time: one broadcast (in the SASS, uniform loads ULDC c[0x3][...], once per warp).
 *   2 blur, the pixels: ONE kernel with two shared tiles, the input with a halo of 8 on every
 *     side and its horizontal pass T, so T never goes to DRAM. Every pixel is read by 17
 *     neighbours per pass: once from DRAM, then from shared memory into registers, where each
 *     value serves several taps.
 *   3 Sobel: a shared tile with a halo of 1; each thread makes 4 x 8 outputs from a window of
 *     the tile in registers. Every pixel is read by 8 neighbours.
 *   4 to_u8: 4 pixels per thread in registers: one 16-byte load and one 4-byte store.
 *
 * image_pipeline fuses the four stages into two kernels, so that only one float image, the
 * horizontal blur pass T, goes through DRAM:
 *   pipeline_rows_kernel        the resampled row tile straight from the texture -> T
 *   pipeline_cols_sobel_kernel  T -> vertical pass (B, in shared memory) -> Sobel -> 8 bits
 * Per output pixel that is ~9 bytes of DRAM traffic (T written, T read, 1 byte out) instead of
 * the naive chain's 33 (four float images, R, T, B and G, each written and read back: 4 + 4
 * bytes each, and the byte out).
 *
 * Measured on the H200 by the grader (one judged run, 2026-12-02, 8192 x 8192, radius 8:
 * bench/h200-2026-12-02-session6/g22/grade-3.5.json): gaussian_blur (blur_tiled_kernel) ratio
 * 25.5 over the naive code, 57.3 % of a copy (2371 of 4141 GB/s); sobel_magnitude
 * (sobel_tiled_kernel) ratio 2.11, 96.1 % of a copy (4024 of 4187 GB/s); image_pipeline ratio
 * 11.0, 3.2 % of a copy of src + dst (114 of 3577 GB/s). Only whole kernels were measured: the
 * "Expected effect" of each choice inside them (float4 loads, loads before stores, ...) gives
 * the reasoning, not a measured gain.
 *
 * Every kernel is correct for any size (1 x N, N x 1, not a multiple of any tile): loads clamp
 * their indices to the image (the image's clamped border, lab.h), stores are guarded, and every
 * thread reaches every barrier.
 */
// END SOLUTION
#include <cuda_runtime.h>

#include "lab.h"

#define BLOCK_X 32
#define BLOCK_Y 8

/* ceil(n / d) for n >= 1, without int overflow: the number of blocks of d threads. */
#define CEIL_DIV(n, d) ((unsigned int)(((long long)(n) + (d)-1) / (d)))

#if 0  // BEGIN SKELETON
/* The blur weights, in GLOBAL memory (a __device__ array). */
__device__ float g_blur_weights[BLUR_MAX_TAPS];
#endif // END SKELETON

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
#if 0  // BEGIN SKELETON
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
#endif // END SKELETON
// BEGIN SOLUTION
/* The source image as a texture.
 *
 * Texel format. lab.h allows unsigned char texels read as cudaReadModeNormalizedFloat (the
 * texture returns value / 255) or float texels. This solution converts the 8-bit source into a
 * cudaArray of FLOAT texels (grey levels 0.0f .. 255.0f) and reads it with
 * cudaReadModeElementType, because:
 *   - the harness's tolerance models the texture unit's 1/256 filter weights (9-bit fixed
 *     point, 8 fractional bits: Programming Guide, "Texture Fetching"), and when this was
 *     written lab 3.4 had verified that model on the H200 with FLOAT texels only (the Guide does
 *     not say at which precision the blend of 8-bit texels is done). The 8-bit form has since
 *     passed every correctness case on the H200 too (bench/variants/3.5-project/u8_texels.toml,
 *     bench/h200.md "Lab 3.5"), so either texel format meets the tolerance;
 *   - it costs one small pass: the 512 x 512 source is 256 KB read and 1 MB written, against
 *     the 256 MB a 8192 x 8192 output writes; the 1 MB array still fits the 60 MB L2 many times.
 * The conversion writes the array through a SURFACE (lab 3.4e): a cudaArray has an opaque
 * layout, so neither a plain store nor cudaMemcpy can write it.
 *
 * Lifetime. The array and both objects are made per call and released after the kernels that
 * read them are done (source_texture_release synchronises), as the TODO card asks: a launcher
 * cannot tell that the pixels behind an unchanged pointer are unchanged (after cudaFree,
 * cudaMalloc may return the same address for other contents), so a texture kept between calls
 * could be stale, and the timed runs (one source, many calls) would not time the whole stage.
 * The price is a few runtime calls and one synchronisation per call. */
typedef struct source_texture {
    cudaArray_t array;        // (src_h, src_w) float texels
    cudaSurfaceObject_t surf; // writes the array (the conversion)
    cudaTextureObject_t tex;  // reads it: linear filtering, clamp, unnormalized coordinates
} source_texture;

/* texels(y, x) = (float)src(y, x).  src: (h, w) uint8. One thread per texel, 32 x 8 blocks. */
__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    u8_to_float_texels_kernel(const unsigned char *src, int w, int h, cudaSurfaceObject_t texels) {
    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) {
        return;
    }
    /* A surface's x coordinate is in BYTES. */
    surf2Dwrite((float)src[(size_t)y * w + x], texels, x * (int)sizeof(float), y);
}

/* Makes the source texture of d_src (h, w) uint8. Returns 1 when the texture is ready; 0 when a
 * runtime call failed: its error stays for the harness (lab.h), and source_texture_release
 * still frees what was made. */
static int source_texture_make(const unsigned char *d_src, int w, int h, source_texture *st) {
    st->array = NULL;
    st->surf = 0;
    st->tex = 0;
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    /* cudaArraySurfaceLoadStore: the conversion kernel writes it through a surface. */
    if (cudaMallocArray(&st->array, &desc, (size_t)w, (size_t)h, cudaArraySurfaceLoadStore) !=
        cudaSuccess) {
        st->array = NULL;
        return 0;
    }
    cudaResourceDesc res_desc = {};
    res_desc.resType = cudaResourceTypeArray;
    res_desc.res.array.array = st->array;
    if (cudaCreateSurfaceObject(&st->surf, &res_desc) != cudaSuccess) {
        st->surf = 0;
        return 0;
    }
    u8_to_float_texels_kernel<<<grid_2d(w, h), dim3(BLOCK_X, BLOCK_Y)>>>(d_src, w, h, st->surf);

    cudaTextureDesc tex_desc = {};
    tex_desc.addressMode[0] = cudaAddressModeClamp; // lab.h's clamped border, in hardware
    tex_desc.addressMode[1] = cudaAddressModeClamp;
    tex_desc.filterMode = cudaFilterModeLinear;  // bilinear, weights in 1/256 steps
    tex_desc.readMode = cudaReadModeElementType; // float texels: grey levels as they are
    tex_desc.normalizedCoords = 0;               // coordinates in texels: x in [0, w)
    if (cudaCreateTextureObject(&st->tex, &res_desc, &tex_desc, NULL) != cudaSuccess) {
        st->tex = 0;
        return 0;
    }
    /* The surface writes and the texture reads are in different kernels on one stream. That is
     * required: a texture fetch sees what a PREVIOUS kernel wrote, not what its own kernel
     * wrote (the texture cache is not kept coherent within a kernel: Programming Guide,
     * "Texture and Surface Memory"). */
    return 1;
}

/* Waits for the kernels that use the objects (a texture object must outlive every fetch from
 * it), then destroys the objects and frees the array. */
static void source_texture_release(source_texture *st) {
    cudaDeviceSynchronize();
    if (st->tex != 0) {
        cudaDestroyTextureObject(st->tex);
    }
    if (st->surf != 0) {
        cudaDestroySurfaceObject(st->surf);
    }
    if (st->array != NULL) {
        cudaFreeArray(st->array);
    }
}

/* R(oy, ox) through the texture unit: the output pixel's centre (ox + 0.5, oy + 0.5) mapped
 * into the source, in texels. Texel i's centre lies at i + 0.5, so at 1x this fetches exactly
 * texel (ox, oy); without the + 0.5 every output would blend two texels (lab 3.4d). One TEX
 * instruction does the 4 texel reads, the clamping and the bilinear blend. */
__device__ __forceinline__ float resample_at(cudaTextureObject_t src_tex, int ox, int oy,
                                             float scale_x, float scale_y) {
    return tex2D<float>(src_tex, ((float)ox + 0.5f) * scale_x, ((float)oy + 0.5f) * scale_y);
}

/* dst(oy, ox) = R(oy, ox).  dst: (dst_h, dst_w) float. One thread per output, 32 x 8 blocks: a
 * warp writes 32 consecutive floats (coalesced); its 32 fetches fall within a few texels of
 * each other, served by the texture cache. */
__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    resample_texture_kernel(cudaTextureObject_t src_tex, float *dst, int dst_w, int dst_h,
                            float scale_x, float scale_y) {
    const int ox = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int oy = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (ox >= dst_w || oy >= dst_h) {
        return;
    }
    dst[(size_t)oy * dst_w + ox] = resample_at(src_tex, ox, oy, scale_x, scale_y);
}

extern "C" void resample_bilinear(const unsigned char *d_src, int src_w, int src_h, float *d_dst,
                                  int dst_w, int dst_h) {
    source_texture src;
    if (source_texture_make(d_src, src_w, src_h, &src)) {
        /* The scales in float, as lab.h's formula and the naive kernel compute them. */
        const float scale_x = (float)src_w / (float)dst_w;
        const float scale_y = (float)src_h / (float)dst_h;
        resample_texture_kernel<<<grid_2d(dst_w, dst_h), dim3(BLOCK_X, BLOCK_Y)>>>(
            src.tex, d_dst, dst_w, dst_h, scale_x, scale_y);
    }
    source_texture_release(&src);
}
// END SOLUTION

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
#if 0  // BEGIN SKELETON
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
#endif // END SKELETON
// BEGIN SOLUTION
/* The blur's taps in CONSTANT memory, zero-padded to the largest radius:
 *   c_blur_taps[BLUR_MAX_RADIUS + k] = w[radius + k] for |k| <= radius, 0 for radius < |k| <= 8.
 * The tap loops below run over k with the same k in every lane of a warp: one address per warp,
 * which the constant cache broadcasts. Unrolled, each k is a compile-time offset, and no
 * thread issues a load for it (nvcc 13.0): on sm_90 the taps go once per warp into UNIFORM
 * registers, two at a time (ULDC.64 UR4, c[0x3][0x0] ... c[0x3][0x38], ULDC c[0x3][0x40]),
 * and each FFMA reads one from there (FFMA R3, R3, UR4, RZ); on sm_80 each FFMA takes its tap
 * straight from the constant bank (FFMA R, R, c[0x3][0x10], R). With the weights in global
 * memory (the starting code) every tap is an LDG per thread.
 * The padding makes every tap loop 17 long whatever the radius, so it unrolls fully. A zero
 * tap adds exactly 0 (fma(0, v, acc) == acc for finite v), so the sums equal the 2r + 1 tap
 * sums bit for bit; below r = 8 the zero taps cost FMAs, at the timed r = 8 nothing. 68 bytes
 * of the 64 KB constant space. */
__constant__ float c_blur_taps[BLUR_MAX_TAPS];

/* Uploads h_weights (2 radius + 1 HOST floats) into c_blur_taps, zero-padded. Ordered on the
 * default stream before the kernels launched after it. A copy from pageable host memory is
 * staged into pinned memory by the driver within the call (CUDA Runtime API, "API
 * synchronization behavior"), so the stack array may go out of scope when it returns. A failed
 * copy leaves its error for the harness. */
static void upload_blur_taps(const float *h_weights, int radius) {
    float taps[BLUR_MAX_TAPS] = {0.0f};
    for (int i = 0; i <= 2 * radius; ++i) {
        taps[BLUR_MAX_RADIUS - radius + i] = h_weights[i];
    }
    /* The symbol itself, not &c_blur_taps; the size in bytes. */
    cudaMemcpyToSymbolAsync(c_blur_taps, taps, sizeof taps, 0, cudaMemcpyHostToDevice, 0);
}

/* The blur in ONE kernel: the horizontal pass T stays on chip.
 *
 * Two kernels (rows -> d_tmp, d_tmp -> columns) move 16 bytes per pixel through DRAM: at
 * 8192 x 8192, T is 268 MB, four times the 60 MB L2, so it is written out and read back, and
 * a copy's time for 8 bytes per pixel caps them at 50 % of a copy (lab.toml: the two-kernel
 * version of this file measured 31.7 %). Here a block computes its tile of out from its own
 * input tile and keeps its part of T in shared memory: 8 bytes per pixel through DRAM (in read
 * once, out written once), the roofline's minimum. The price is the vertical halo: the
 * vertical pass needs T on 8 rows above and 8 below the tile, so each block also computes the
 * horizontal pass on those 16 rows (the neighbouring blocks compute them too): 80 rows of T for
 * 64 rows of out, 25 % more horizontal FMAs, and no extra DRAM traffic expected (the halo
 * rows of in are read again by the neighbouring block, which should find them in L2).
 *
 * One block of 256 threads computes an output tile of BLUR_TILE_Y = 64 rows x BLUR_TILE_X = 64
 * columns at (y0, x0) in three phases:
 *   1. in_tile[sy][sx] = in(clamp(y0 - 8 + sy), clamp(x0 - 8 + sx)),  (80, 80) floats = 25 KB
 *   2. t_tile[sy][tx]  = sum_k w[k] in_tile[sy][tx + k],               (80, 64) floats = 20 KB
 *                      = T(clamp(y0 - 8 + sy), x0 + tx)
 *   3. out(y0 + i, x0 + j) = sum_k w[k] t_tile[i + k][j]
 * (w[k] = c_blur_taps[k], k = 0 .. 16). Phase 2's row sy is T of the CLAMPED image row, and
 * lab.h's vertical pass clamps its row index in the same way, so t_tile[i + k] is exactly the T
 * row that output row y0 + i needs for tap k, at the image's top and bottom too; along x the
 * clamped columns of in_tile give the horizontal pass its border.
 * 45 KB of static shared memory (within the 48 KB a block may declare statically): 4 blocks of
 * 256 threads per SM on the H200 (228 KB), 3 on an A100 (164 KB); ptxas (nvcc 13.0) gives the
 * kernel 50 registers on sm_90 (56 on sm_80), which also leaves room for 4 blocks. A 128-row
 * tile would cut the halo's extra horizontal work to 12.5 % but needs 81 KB (dynamic shared
 * memory, 2 blocks per SM). Measured (H200, one judged run, 2026-12-02, g22): 57.3 % of a copy
 * (2371 GB/s), ratio 25.5, above the two kernels' 50 % ceiling (docs/facts.md had measured 56 %
 * for a one-kernel blur of this design with another tile and thread mapping). */
#define BLUR_TILE_X 64                                  // output columns per tile
#define BLUR_TILE_Y 64                                  // output rows per tile
#define BLUR_SMEM_X (BLUR_TILE_X + 2 * BLUR_MAX_RADIUS) // 80 columns of in: the halo of 8 each side
#define BLUR_SMEM_Y (BLUR_TILE_Y + 2 * BLUR_MAX_RADIUS) // 80 rows of in and of T
#define BLUR_THREADS (BLOCK_X * BLOCK_Y)                // 256
#define BLUR_GROUPS_X (BLUR_SMEM_X / 4)                 // 20 float4 groups per in_tile row
#define BLUR_T_GROUPS (BLUR_TILE_X / 4)                 // 16 threads per row of T, 4 values each
#define BLUR_COL_RUN 16                                 // outputs per thread down a column
/* The horizontal pass's steps per thread: 80 rows x 16 groups of 4 values / 256 threads = 5. */
#define BLUR_T_STEPS (BLUR_SMEM_Y * BLUR_T_GROUPS / BLUR_THREADS)
static_assert(BLUR_TILE_X % 4 == 0 && BLUR_MAX_RADIUS % 4 == 0,
              "in_tile's float4 groups start at image columns that are multiples of 4");
static_assert(BLUR_SMEM_Y * BLUR_T_GROUPS % BLUR_THREADS == 0,
              "the horizontal pass is a whole number of steps for every thread");
static_assert(BLUR_TILE_X * BLUR_TILE_Y == BLUR_THREADS * BLUR_COL_RUN,
              "the vertical pass is one run per thread");

/* Four pixels of one image row from global memory, columns gx .. gx + 3, each clamped to the
 * image: one 16-byte load (LDG.E.128) when all four lie inside the image and `vec` says the
 * rows are 16-byte aligned (width a multiple of 4 and an aligned base: the launchers check),
 * else four scalar loads of the clamped columns (the halo beyond the left and right borders,
 * widths not a multiple of 4). gx is a multiple of 4 in both kernels that call this, so with
 * `vec` a group lies either wholly inside the image or wholly outside it.
 * Expected effect: a quarter of the load instructions of one float per thread, for the same
 * bytes (to be measured on the H200). */
__device__ __forceinline__ float4 load_row4_clamped(const float *__restrict__ row, int gx,
                                                    int width, int vec) {
    if (vec && gx >= 0 && gx + 4 <= width) {
        return *reinterpret_cast<const float4 *>(row + gx);
    }
    return make_float4(row[clamp_int(gx, 0, width - 1)], row[clamp_int(gx + 1, 0, width - 1)],
                       row[clamp_int(gx + 2, 0, width - 1)], row[clamp_int(gx + 3, 0, width - 1)]);
}

/* tile[sy][sx] = in(clamp(gy0 + sy), clamp(gx0 + sx)), sy < ROWS, sx < 4 GROUPS: a shared tile
 * with its halo, loaded by the block's THREADS threads as float4 groups, row-major: thread tid
 * takes groups i = tid + THREADS s, so a warp reads 512 consecutive bytes of one or two image
 * rows per step (coalesced) and writes them with 128-bit shared stores (a quarter-warp's 8
 * stores cover the 32 banks once: no conflict, as the tile's rows are a multiple of 4 floats
 * and 16-byte aligned). Outside the image the clamped pixel is read, so the tile holds exactly
 * the neighbours lab.h's border asks for and the taps need no test.
 * Each thread issues ALL its loads before its first store: its loads are in flight together,
 * instead of one load, a wait of a DRAM latency, a store, the next load (what a loop that
 * stores each group as it arrives compiles to). Expected effect: `steps` times the bytes in
 * flight per thread, which a kernel needs to approach the copy's bandwidth with 1024 threads
 * or fewer per SM (to be measured on the H200). */
template <int ROWS, int GROUPS, int THREADS>
__device__ __forceinline__ void load_tile_clamped(float (*tile)[4 * GROUPS],
                                                  const float *__restrict__ in, int width,
                                                  int height, int gx0, int gy0, int vec, int tid) {
    constexpr int n_groups = ROWS * GROUPS;
    constexpr int steps = (n_groups + THREADS - 1) / THREADS;
    float4 q[steps];
#pragma unroll
    for (int s = 0; s < steps; ++s) {
        const int i = tid + s * THREADS;
        if (i < n_groups) {
            const int sy = i / GROUPS;
            const int gy = clamp_int(gy0 + sy, 0, height - 1);
            q[s] =
                load_row4_clamped(in + (size_t)gy * width, gx0 + 4 * (i - sy * GROUPS), width, vec);
        }
    }
#pragma unroll
    for (int s = 0; s < steps; ++s) {
        const int i = tid + s * THREADS;
        if (i < n_groups) {
            const int sy = i / GROUPS;
            *reinterpret_cast<float4 *>(&tile[sy][4 * (i - sy * GROUPS)]) = q[s];
        }
    }
}

/* run[j] = sum_k c_blur_taps[k] * tile[first + j + k][col], j < RUN, k < 17: a vertical pass
 * down one column of a shared tile that is PITCH floats wide. The RUN + 16 rows of the window
 * are read from shared memory ONCE into registers (the window of lab 3.1), and each serves up
 * to 17 taps: (RUN + 16) / RUN shared loads per output instead of 17 (RUN = 16: 2; RUN = 8: 3).
 * A warp's 32 lanes take 32 consecutive columns: each load reads 32 consecutive words of one
 * row (no bank conflict). Every index is a compile-time constant once unrolled, so v[] and
 * run[] live in registers (no local memory: LDL/STL would show in the SASS). Used by
 * blur_tiled_kernel and by the pipeline's pipeline_cols_sobel_kernel. */
template <int PITCH, int RUN>
__device__ __forceinline__ void blur_column_run(const float (*tile)[PITCH], int first, int col,
                                                float (&run)[RUN]) {
    float v[RUN + 2 * BLUR_MAX_RADIUS];
#pragma unroll
    for (int m = 0; m < RUN + 2 * BLUR_MAX_RADIUS; ++m) {
        v[m] = tile[first + m][col];
    }
#pragma unroll
    for (int j = 0; j < RUN; ++j) {
        float acc = 0.0f;
#pragma unroll
        for (int k = 0; k < BLUR_MAX_TAPS; ++k) {
            acc += c_blur_taps[k] * v[j + k]; // tap k: one constant for the whole warp
        }
        run[j] = acc;
    }
}

/* out = the separable blur of in.  in, out: (height, width) float; `vec`: rows 16-byte aligned
 * (load_row4_clamped). One block per 64 x 64 output tile, 256 threads; thread mappings in the
 * phases below. */
__global__ void __launch_bounds__(BLUR_THREADS)
    blur_tiled_kernel(const float *__restrict__ in, float *__restrict__ out, int width, int height,
                      int vec) {
    __shared__ __align__(16) float in_tile[BLUR_SMEM_Y][BLUR_SMEM_X]; // rows and columns - 8 ..
    __shared__ __align__(16) float t_tile[BLUR_SMEM_Y][BLUR_TILE_X];  // rows - 8 .., columns 0 ..
    const int x0 = (int)blockIdx.x * BLUR_TILE_X;
    const int y0 = (int)blockIdx.y * BLUR_TILE_Y;
    const int tid = (int)(threadIdx.y * BLOCK_X + threadIdx.x);

    /* Phase 1: the input tile with its halo of 8 on every side (load_tile_clamped: 7 float4
     * groups per thread, the last step for a quarter of the threads). */
    load_tile_clamped<BLUR_SMEM_Y, BLUR_GROUPS_X, BLUR_THREADS>(
        in_tile, in, width, height, x0 - BLUR_MAX_RADIUS, y0 - BLUR_MAX_RADIUS, vec, tid);
    __syncthreads(); // read-after-write: a row's taps read groups that other threads loaded

    /* Phase 2: the horizontal pass on all 80 rows. Thread tid makes 4 consecutive values of
     * T, t_tile[sy][c .. c + 3] with c = 4 (tid % 16), at rows sy = tid / 16 + 16 s, s = 0 .. 4.
     * Their 4 + 16 = 20 inputs in_tile[sy][c .. c + 19] are 5 aligned float4s: 5 128-bit
     * shared loads serve 4 x 17 taps, 1.25 loads per value of T instead of 17 (a quarter-warp
     * reads 128 consecutive bytes per load: no bank conflict), and one 128-bit store writes
     * them. Expected effect: the horizontal pass's shared-memory traffic drops from 68 to 20
     * bytes per value of T (to be measured on the H200). */
    {
        const int c = 4 * (tid % BLUR_T_GROUPS);
#pragma unroll
        for (int step = 0; step < BLUR_T_STEPS; ++step) {
            const int sy = tid / BLUR_T_GROUPS + step * (BLUR_THREADS / BLUR_T_GROUPS);
            float v[4 + 2 * BLUR_MAX_RADIUS];
#pragma unroll
            for (int q = 0; q < (4 + 2 * BLUR_MAX_RADIUS) / 4; ++q) {
                const float4 f = *reinterpret_cast<const float4 *>(&in_tile[sy][c + 4 * q]);
                v[4 * q] = f.x;
                v[4 * q + 1] = f.y;
                v[4 * q + 2] = f.z;
                v[4 * q + 3] = f.w;
            }
            float t[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                float acc = 0.0f;
#pragma unroll
                for (int k = 0; k < BLUR_MAX_TAPS; ++k) {
                    acc += c_blur_taps[k] * v[j + k]; // tap k: one constant for the whole warp
                }
                t[j] = acc;
            }
            *reinterpret_cast<float4 *>(&t_tile[sy][c]) = make_float4(t[0], t[1], t[2], t[3]);
        }
    }
    __syncthreads(); // read-after-write: a column's taps read T rows that other threads made

    /* Phase 3: the vertical pass. Thread tid owns column col = tid % 64 and the run of 16
     * output rows first .. first + 15, first = 16 (tid / 64): a warp takes 32 consecutive
     * columns, so its loads read 32 consecutive words (no bank conflict) and its stores write
     * 32 consecutive floats of one image row (coalesced, 128 bytes). The 32-row window
     * (blur_column_run) makes 2 shared loads per output. */
    const int col = tid % BLUR_TILE_X;
    const int first = (tid / BLUR_TILE_X) * BLUR_COL_RUN;
    float run[BLUR_COL_RUN];
    blur_column_run(t_tile, first, col, run);
    const int x = x0 + col;
    if (x < width) {
#pragma unroll
        for (int j = 0; j < BLUR_COL_RUN; ++j) {
            const int y = y0 + first + j;
            if (y < height) {
                out[(size_t)y * width + x] = run[j];
            }
        }
    }
}

/* Whether a float image's rows are all 16-byte aligned: its base is, and its width is a
 * multiple of 4 floats (row y starts y * width floats after the base). */
static int rows_aligned16(const float *d_image, int width) {
    return (size_t)d_image % sizeof(float4) == 0 && width % 4 == 0;
}

extern "C" void gaussian_blur(const float *d_in, float *d_out, float *d_tmp, int width, int height,
                              const float *h_weights, int radius) {
    (void)d_tmp; // T lives in shared memory: the scratch image is not needed
    upload_blur_taps(h_weights, radius);
    const dim3 grid(CEIL_DIV(width, BLUR_TILE_X), CEIL_DIV(height, BLUR_TILE_Y));
    blur_tiled_kernel<<<grid, BLUR_THREADS>>>(d_in, d_out, width, height,
                                              rows_aligned16(d_in, width));
}
// END SOLUTION

/* ---------------------------------------------------------------------------------------------
 * 3.5c  Stage 3: Sobel gradient magnitude
 *
 * TODO(3.5c): each input pixel is read by 9 threads: load a (BLOCK_Y + 2) x (BLOCK_X + 2) tile
 *   (the block's pixels and a halo of 1, indices clamped to the image) into shared memory once,
 *   then compute gx, gy from the tile. Or fuse this stage with the vertical blur pass or with
 *   the 8-bit conversion.
 */
#if 0  // BEGIN SKELETON
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
#endif // END SKELETON
// BEGIN SOLUTION
/* The Sobel with a shared tile and 4 x 8 outputs per thread.
 *
 * Each input pixel is read by 8 neighbours (the centre tap has weight 0). A shared tile with a
 * halo of 1 reads it once from DRAM; what is left is the instructions per output: with one
 * output per thread every output costs 8 shared loads and its own sums. Here a thread makes a
 * block of SOBEL_OUT_Y = 8 rows x SOBEL_OUT_X = 4 columns of outputs from a 10 x 6 window of the
 * tile, loaded once into registers (60 values for 32 outputs: 1.9 per output instead of 8), and
 * the Sobel's separable sums are shared between neighbouring outputs (below). The 4 columns are
 * one float4: one 128-bit load per window row, one 128-bit store per output row.
 *
 * A block of 32 x 8 threads makes a tile of SOBEL_OUT_TILE_Y = 64 rows x SOBEL_OUT_TILE_X = 128
 * columns at (y0, x0): tile[sy][sx] = in(clamp(y0 - 1 + sy), clamp(x0 - 4 + sx)),  (66, 136) floats
 * = 35 KB The halo is 1 row above and below, but 4 columns left and right, where the Sobel needs 1:
 * the tile's float4 groups then start at image columns that are multiples of 4 (16-byte aligned
 * when the rows are), and a 16-byte group lies within one 32-byte sector, the sector of the
 * one halo column used (the memory system moves whole sectors): the 3 unused columns on each
 * side cost shared memory, not L2 or DRAM traffic. The halo adds 66 / 64 x 136 / 128 = 1.10
 * tile loads per output, expected to be L2 hits (the neighbouring tiles read those pixels).
 * 35 KB of static shared memory would allow 6 blocks per SM on the H200 (228 KB), 4 on an
 * A100 (164 KB); ptxas (nvcc 13.0) gives the kernel 58 registers on sm_90 (56 on sm_80), which
 * allows 4 blocks of 256 threads, 1024 threads per SM, on both. Measured (H200, one judged
 * run, 2026-12-02, g22): 96.1 % of a copy (4024 GB/s), ratio 2.11; the one-output-per-thread
 * tile it replaced measured 65.7-65.9 % (docs/facts.md: 82.5 % for another Sobel with 4 x 8
 * outputs per thread and float4 loads, 69 % for a one-output tile). */
#define SOBEL_OUT_X 4                            // outputs per thread along x: one float4
#define SOBEL_OUT_Y 8                            // outputs per thread down a column
#define SOBEL_OUT_TILE_X (BLOCK_X * SOBEL_OUT_X) // 128 output columns per tile
#define SOBEL_OUT_TILE_Y (BLOCK_Y * SOBEL_OUT_Y) // 64 output rows per tile
#define SOBEL_HALO_X 4                           // 1 needed, 4 for aligned float4 groups
#define SOBEL_IN_TILE_X (SOBEL_OUT_TILE_X + 2 * SOBEL_HALO_X) // 136 tile columns
#define SOBEL_IN_TILE_Y (SOBEL_OUT_TILE_Y + 2)                // 66 tile rows
#define SOBEL_GROUPS_X (SOBEL_IN_TILE_X / 4)                  // 34 float4 groups per tile row

/* One row of a thread's Sobel window: a[m] = row[c - 1 + m], m < 6 (the 4 columns of the
 * thread's outputs, c .. c + 3, one aligned float4, and one halo column on each side), and its
 * row sums p[i] = (a[i] + 2 a[i + 1]) + a[i + 2], i < 4: gy's brackets in lab.h. */
__device__ __forceinline__ void
sobel_window_row(const float *row, int c, float (&a)[SOBEL_OUT_X + 2], float (&p)[SOBEL_OUT_X]) {
    const float4 m = *reinterpret_cast<const float4 *>(row + c);
    a[0] = row[c - 1];
    a[1] = m.x;
    a[2] = m.y;
    a[3] = m.z;
    a[4] = m.w;
    a[5] = row[c + SOBEL_OUT_X];
#pragma unroll
    for (int i = 0; i < SOBEL_OUT_X; ++i) {
        p[i] = a[i] + 2.0f * a[i + 1] + a[i + 2];
    }
}

/* out = |Sobel gradient| of in.  in, out: (height, width) float; `vec`: the rows of both are
 * 16-byte aligned (load_row4_clamped). Thread (tx, ty) makes outputs (y, x) with
 * y = y0 + 8 ty + j, x = x0 + 4 tx + i, j < 8, i < 4. */
__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    sobel_tiled_kernel(const float *__restrict__ in, float *__restrict__ out, int width, int height,
                       int vec) {
    __shared__ __align__(16) float tile[SOBEL_IN_TILE_Y][SOBEL_IN_TILE_X];
    const int x0 = (int)blockIdx.x * SOBEL_OUT_TILE_X;
    const int y0 = (int)blockIdx.y * SOBEL_OUT_TILE_Y;
    const int tx = (int)threadIdx.x;
    const int ty = (int)threadIdx.y;

    /* The tile with its halo (load_tile_clamped: 9 float4 groups per thread, the last step for
     * 196 of the 256 threads). */
    load_tile_clamped<SOBEL_IN_TILE_Y, SOBEL_GROUPS_X, BLOCK_X * BLOCK_Y>(
        tile, in, width, height, x0 - SOBEL_HALO_X, y0 - 1, vec, ty * BLOCK_X + tx);
    __syncthreads(); // read-after-write: the window spans groups that other threads loaded

    const int x = x0 + SOBEL_OUT_X * tx; // the thread's first output column
    const int y = y0 + SOBEL_OUT_Y * ty; // and row
    if (x >= width || y >= height) {
        return; // no output in the image; no barrier follows
    }
    /* The window, one tile row at a time: row r (r < 10) is a[m] = tile[8 ty + r][c - 1 + m]
     * = in(clamp(y - 1 + r), clamp(x - 1 + m)), m < 6, read with one 128-bit load of the 4
     * centre columns (a quarter-warp reads 128 consecutive bytes: no conflict) and two 32-bit
     * loads of the halo columns c - 1 and c + 4. Those two are 4-way bank conflicts (lanes tx,
     * tx + 8, tx + 16, tx + 24 read one bank): 12 shared-memory cycles per warp and row, as
     * many as three 128-bit loads, for 4 outputs per lane (to be measured on the H200).
     *
     * The Sobel is separable, and lab.h's brackets are its smoothing sums: for output
     * (y + j, x + i), from window rows a0 = row j, a1 = row j + 1, a2 = row j + 2,
     *   gx = s(i + 2) - s(i),   s(m) = (a0[m] + 2 a1[m]) + a2[m]            (column sums)
     *   gy = p2[i] - p0[i],     pr[i] = (ar[i] + 2 ar[i + 1]) + ar[i + 2]   (row sums)
     * the same terms, grouped and ordered as lab.h writes them and as the one-output kernel
     * summed them, so the sums round the same way. Each column sum serves the outputs left and
     * right of it, each row sum the outputs above and below: 48 + 40 sums for 32 outputs
     * instead of 4 per output. The rows roll through three sets of registers (a0, a1, a2 and
     * their row sums), so the window never needs its 10 rows at once. */
    const int c = SOBEL_HALO_X + SOBEL_OUT_X * tx; // tile column of output column x
    const float(*rows)[SOBEL_IN_TILE_X] = tile + SOBEL_OUT_Y * ty;
    float a0[SOBEL_OUT_X + 2], a1[SOBEL_OUT_X + 2], a2[SOBEL_OUT_X + 2];
    float p0[SOBEL_OUT_X], p1[SOBEL_OUT_X], p2[SOBEL_OUT_X];
    sobel_window_row(rows[0], c, a0, p0);
    sobel_window_row(rows[1], c, a1, p1);
    const bool row_vec = vec && x + SOBEL_OUT_X <= width;
#pragma unroll
    for (int j = 0; j < SOBEL_OUT_Y; ++j) {
        sobel_window_row(rows[j + 2], c, a2, p2);
        float g[SOBEL_OUT_X];
#pragma unroll
        for (int i = 0; i < SOBEL_OUT_X; ++i) {
            const float gx = (a0[i + 2] + 2.0f * a1[i + 2] + a2[i + 2]) -
                             (a0[i] + 2.0f * a1[i] + a2[i]); // s(i + 2) - s(i)
            const float gy = p2[i] - p0[i];
            g[i] = sqrtf(gx * gx + gy * gy);
        }
        /* Rows below the image are computed from the clamped tile (finite values) but not
         * stored: the store, not the arithmetic, is conditional, so the loop has no exit. */
        if (y + j < height) {
            float *out_row = out + (size_t)(y + j) * width;
            if (row_vec) { // one 128-bit store: a warp writes 512 consecutive bytes
                *reinterpret_cast<float4 *>(out_row + x) = make_float4(g[0], g[1], g[2], g[3]);
            } else { // the image's last columns, or rows not 16-byte aligned
#pragma unroll
                for (int i = 0; i < SOBEL_OUT_X; ++i) {
                    if (x + i < width) {
                        out_row[x + i] = g[i];
                    }
                }
            }
        }
#pragma unroll
        for (int m = 0; m < SOBEL_OUT_X + 2; ++m) { // roll the window down one row
            a0[m] = a1[m];
            a1[m] = a2[m];
        }
#pragma unroll
        for (int i = 0; i < SOBEL_OUT_X; ++i) {
            p0[i] = p1[i];
            p1[i] = p2[i];
        }
    }
}

extern "C" void sobel_magnitude(const float *d_in, float *d_out, int width, int height) {
    const dim3 grid(CEIL_DIV(width, SOBEL_OUT_TILE_X), CEIL_DIV(height, SOBEL_OUT_TILE_Y));
    const int vec = rows_aligned16(d_in, width) && rows_aligned16(d_out, width);
    sobel_tiled_kernel<<<grid, dim3(BLOCK_X, BLOCK_Y)>>>(d_in, d_out, width, height, vec);
}
// END SOLUTION

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
#if 0  // BEGIN SKELETON
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
#endif // END SKELETON
// BEGIN SOLUTION
/* min(255, floor(scale g + 0.5)): round half up, then saturate BEFORE the conversion (a float
 * above 255 converted to unsigned char is undefined in C++). g >= 0 (a magnitude). */
__device__ __forceinline__ unsigned char to_u8_value(float g, float scale) {
    return (unsigned char)fminf(255.0f, floorf(scale * g + 0.5f));
}

/* out[i] = to_u8_value(in[i]) over the n = width * height pixels as ONE array (the rows are
 * contiguous: no 2D indexing needed). Thread t converts pixels 4t .. 4t + 3: with `vec` (both
 * pointers aligned: the launcher checks) one 16-byte load and one 4-byte store, so a warp
 * writes 128 consecutive bytes, four whole 32-byte sectors, instead of 32 one-byte stores; the
 * last, partial group (n % 4) and unaligned pointers take the scalar path. */
__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    to_u8_vec4_kernel(const float *in, unsigned char *out, size_t n, float scale, int vec) {
    const size_t i = 4 * ((size_t)blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) {
        return;
    }
    if (vec && i + 4 <= n) {
        const float4 g = *reinterpret_cast<const float4 *>(in + i); // LDG.E.128
        uchar4 o;
        o.x = to_u8_value(g.x, scale);
        o.y = to_u8_value(g.y, scale);
        o.z = to_u8_value(g.z, scale);
        o.w = to_u8_value(g.w, scale);
        *reinterpret_cast<uchar4 *>(out + i) = o; // one 32-bit STG
    } else {
        for (size_t m = i; m < n && m < i + 4; ++m) {
            out[m] = to_u8_value(in[m], scale);
        }
    }
}

extern "C" void gradient_to_u8(const float *d_in, unsigned char *d_out, int width, int height,
                               float scale) {
    const size_t n = (size_t)width * (size_t)height;
    const int vec = ((size_t)d_in % sizeof(float4) == 0) && ((size_t)d_out % sizeof(uchar4) == 0);
    const unsigned int threads = BLOCK_X * BLOCK_Y;
    to_u8_vec4_kernel<<<CEIL_DIV(n, 4 * threads), threads>>>(d_in, d_out, n, scale, vec);
}
// END SOLUTION

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
#if 0  // BEGIN SKELETON
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
#endif // END SKELETON
// BEGIN SOLUTION
/* The pipeline's horizontal pass (kernel 1 below). A block computes a tile of ROWS_TILE_Y
 * rows x ROWS_TILE_X columns; its shared tile holds those rows of R with a halo of
 * BLUR_MAX_RADIUS columns on each side:
 *   tile[sy][sx] = R(clamp(y0 + sy), clamp(x0 - 8 + sx)),  (8, 144) floats = 4.5 KB.
 * Thread (tx, ty) computes row y0 + ty at x = x0 + tx + 32 j, j = 0 .. 3: for each j the warp
 * stores 32 consecutive floats (coalesced) and reads 32 consecutive words of one tile row per
 * tap (32 banks: no conflict). Each input is fetched about once (the halo adds 16 / 128)
 * instead of 17 times. */
#define ROWS_TILE_X 128                                 // output columns per tile: 4 per thread
#define ROWS_TILE_Y BLOCK_Y                             // output rows per tile: one per warp
#define ROWS_SMEM_X (ROWS_TILE_X + 2 * BLUR_MAX_RADIUS) // 144: the tile row and its halo

/* The 17 taps of the horizontal pass from the tile, stored to out (height, width) for this
 * thread's outputs. Called after the barrier that completes the tile. */
__device__ __forceinline__ void blur_rows_from_tile(const float (*tile)[ROWS_SMEM_X], float *out,
                                                    int width, int height, int x0, int y0) {
    const int y = y0 + (int)threadIdx.y;
    if (y >= height) {
        return;
    }
    float *out_row = out + (size_t)y * width;
#pragma unroll
    for (int j = 0; j < ROWS_TILE_X / BLOCK_X; ++j) {
        const int sx = (int)threadIdx.x + j * BLOCK_X; // output x0 + sx; its taps tile[.][sx + k]
        if (x0 + sx < width) {
            float acc = 0.0f;
#pragma unroll
            for (int k = 0; k < BLUR_MAX_TAPS; ++k) {
                acc += c_blur_taps[k] * tile[threadIdx.y][sx + k]; // tap k: a uniform register
            }
            out_row[x0 + sx] = acc;
        }
    }
}

/* Kernel 1 of the fused pipeline: resampling + the horizontal blur pass.
 * The pixels of its row tile come straight from the texture: the resampled image R is never
 * written to DRAM. The halo costs 144 / 128 = 1.125 texture fetches per output instead of 1,
 * all in the texture cache (the source is 1 MB).
 *   t: (height, width) float, the horizontal pass of R. */
__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    pipeline_rows_kernel(cudaTextureObject_t src_tex, float scale_x, float scale_y, float *t,
                         int width, int height) {
    __shared__ float tile[ROWS_TILE_Y][ROWS_SMEM_X]; // R at rows y0 .., columns x0 - 8 ..
    const int x0 = (int)blockIdx.x * ROWS_TILE_X;
    const int y0 = (int)blockIdx.y * ROWS_TILE_Y;
    const int tid = (int)(threadIdx.y * BLOCK_X + threadIdx.x);
    for (int i = tid; i < ROWS_TILE_Y * ROWS_SMEM_X; i += BLOCK_X * BLOCK_Y) {
        const int sy = i / ROWS_SMEM_X;
        const int sx = i - sy * ROWS_SMEM_X;
        /* R at the CLAMPED output pixel: the blur clamps in R's own coordinates (lab.h). The
         * texture's clamp works in source texels: fed rx = -1 it would return R at a point
         * outside the image, in general not R(0). */
        const int ry = clamp_int(y0 + sy, 0, height - 1);
        const int rx = clamp_int(x0 - BLUR_MAX_RADIUS + sx, 0, width - 1);
        tile[sy][sx] = resample_at(src_tex, rx, ry, scale_x, scale_y);
    }
    __syncthreads(); // read-after-write: the taps read R values fetched by other warps
    blur_rows_from_tile(tile, t, width, height, x0, y0);
}

/* Kernel 2 of the fused pipeline: the vertical blur pass, the Sobel and the 8-bit conversion.
 * Its Sobel tile (this kernel's, not sobel_tiled_kernel's SOBEL_OUT_TILE_X x SOBEL_OUT_TILE_Y)
 * of SOBEL_TILE_X = 30 x SOBEL_TILE_Y = 62 outputs with a halo of 1 is 32 x 64 values of B: 32
 * columns, the warp's width, so that lane tx computes and reads column tx (a 32-wide output tile
 * would need 34 columns, and a second, mostly idle, pass for 2 of them). The Sobel's input B is
 * itself computed in the block, from T with a further halo of 8 rows: t_tile[sy][tx] = T(clamp(y0 -
 * 9 + sy), clamp(x0 - 1 + tx)),  (80, 32) floats = 10 KB b_tile[sy][tx] = sum_k w[k] t_tile[sy +
 * k][tx]                (64, 32) floats =  8 KB b_tile row sy is B at image row y0 - 1 + sy, the
 * vertical pass (blur_column_run, 8 rows per thread) centred on that row. B and the gradient never
 * leave the chip: the kernel reads T (about 1.4 times, counting the halos other blocks read too,
 * mostly from L2) and writes one byte per pixel.
 *
 * The border needs care. Along x, t_tile's columns are the clamped columns of T, so b_tile's
 * column for image column -1 is B at column 0: the clamped neighbour the Sobel wants. Along y
 * it is not so: b_tile's row for image row -1 is the blur CENTRED on row -1 (of clamped T
 * rows), which is not B(0); lab.h clamps each stage's own indices, i.e. the Sobel reads
 * B(clamp(y - 1)). So the Sobel below clamps its row indices into the image, and b_tile's rows
 * outside the image are computed but never read.
 *   dst: (height, width) uint8. */
#define SOBEL_TILE_X (BLOCK_X - 2)                      // 30 output columns per tile
#define SOBEL_TILE_Y 62                                 // output rows per tile
#define SOBEL_SMEM_Y (SOBEL_TILE_Y + 2)                 // 64 rows of B: the Sobel's halo of 1
#define COLS_TILE_Y SOBEL_SMEM_Y                        // rows of B per block: 64
#define COLS_RUN (COLS_TILE_Y / BLOCK_Y)                // 8 rows of B per thread
#define PIPE_T_ROWS (COLS_TILE_Y + 2 * BLUR_MAX_RADIUS) // 80 rows of T: the blur's halo of 8
#define PIPE_B_ROWS COLS_TILE_Y                         // 64 rows of B = SOBEL_SMEM_Y
static_assert(PIPE_B_ROWS == SOBEL_SMEM_Y, "the vertical pass makes exactly the Sobel's tile");
static_assert(COLS_TILE_Y % BLOCK_Y == 0, "the vertical pass is one run per thread");

/* |gradient| from the 3 x 3 neighbourhood of tile rows rm, r0, rp and columns cm, c0, cp (the
 * caller's indices, the border already handled), in lab.h's order of terms. The centre tap has
 * weight 0 in both kernels. The tile is 32 words wide: the warp's 32 lanes read 32 consecutive
 * words of one row per tap (no bank conflict). */
__device__ __forceinline__ float sobel_from_tile(const float (*t)[BLOCK_X], int rm, int r0, int rp,
                                                 int cm, int c0, int cp) {
    const float gx =
        (t[rm][cp] + 2.0f * t[r0][cp] + t[rp][cp]) - (t[rm][cm] + 2.0f * t[r0][cm] + t[rp][cm]);
    const float gy =
        (t[rp][cm] + 2.0f * t[rp][c0] + t[rp][cp]) - (t[rm][cm] + 2.0f * t[rm][c0] + t[rm][cp]);
    return sqrtf(gx * gx + gy * gy);
}

__global__ void __launch_bounds__(BLOCK_X *BLOCK_Y)
    pipeline_cols_sobel_kernel(const float *t, unsigned char *dst, int width, int height,
                               float scale) {
    __shared__ float t_tile[PIPE_T_ROWS][BLOCK_X];
    __shared__ float b_tile[PIPE_B_ROWS][BLOCK_X];
    const int x0 = (int)blockIdx.x * SOBEL_TILE_X;
    const int y0 = (int)blockIdx.y * SOBEL_TILE_Y;
    const int tx = (int)threadIdx.x;
    const int ty = (int)threadIdx.y;
    const int gx = clamp_int(x0 - 1 + tx, 0, width - 1);
    for (int sy = ty; sy < PIPE_T_ROWS; sy += BLOCK_Y) { // warp ty: rows ty, ty + 8, ...
        const int gy = clamp_int(y0 - 1 - BLUR_MAX_RADIUS + sy, 0, height - 1);
        t_tile[sy][tx] = t[(size_t)gy * width + gx];
    }
    __syncthreads(); // read-after-write: a thread's 24-row window spans rows of other warps

    /* b_tile rows ty * 8 .. ty * 8 + 7 of column tx. */
    float run[COLS_RUN];
    blur_column_run(t_tile, ty * COLS_RUN, tx, run);
#pragma unroll
    for (int j = 0; j < COLS_RUN; ++j) {
        b_tile[ty * COLS_RUN + j][tx] = run[j];
    }
    __syncthreads(); // read-after-write: the Sobel reads B rows of the warps above and below

    const int x = x0 - 1 + tx;
    if (tx == 0 || tx == BLOCK_X - 1 || x >= width) {
        return; // a halo lane, or outside the image; no barrier follows
    }
    for (int sy = 1 + ty; sy <= SOBEL_TILE_Y; sy += BLOCK_Y) {
        const int y = y0 - 1 + sy;
        if (y >= height) {
            break;
        }
        /* Rows clamped in the image, then made tile rows (see above); columns as they are. */
        const int rm = clamp_int(y - 1, 0, height - 1) - (y0 - 1);
        const int rp = clamp_int(y + 1, 0, height - 1) - (y0 - 1);
        const float g = sobel_from_tile(b_tile, rm, sy, rp, tx - 1, tx, tx + 1);
        dst[(size_t)y * width + x] = to_u8_value(g, scale); // 30 consecutive bytes per warp
    }
}

extern "C" void image_pipeline(const unsigned char *d_src, int src_w, int src_h,
                               unsigned char *d_dst, int dst_w, int dst_h, const float *h_weights,
                               int radius, float gradient_scale, float *d_scratch) {
    float *d_t = d_scratch; // (dst_h, dst_w): T, the one float image that goes through DRAM
    upload_blur_taps(h_weights, radius);
    source_texture src;
    if (source_texture_make(d_src, src_w, src_h, &src)) {
        const float scale_x = (float)src_w / (float)dst_w;
        const float scale_y = (float)src_h / (float)dst_h;
        const dim3 block(BLOCK_X, BLOCK_Y);
        const dim3 grid_rows(CEIL_DIV(dst_w, ROWS_TILE_X), CEIL_DIV(dst_h, ROWS_TILE_Y));
        const dim3 grid_sobel(CEIL_DIV(dst_w, SOBEL_TILE_X), CEIL_DIV(dst_h, SOBEL_TILE_Y));
        pipeline_rows_kernel<<<grid_rows, block>>>(src.tex, scale_x, scale_y, d_t, dst_w, dst_h);
        /* The kernel boundary is the grid-wide barrier: every block of kernel 2 reads T rows and
         * columns that other blocks of kernel 1 wrote. */
        pipeline_cols_sobel_kernel<<<grid_sobel, block>>>(d_t, d_dst, dst_w, dst_h, gradient_scale);
    }
    source_texture_release(&src); // after kernel 2 is launched: the sync waits for both
}
// END SOLUTION

/* lab33_variants.cu — lab 3.3's transpose and convolution, step by step, against the roofs of the
 * GPU it runs on (an H200 for the course's figures), all timed in one process.
 *
 *   transpose, 8192 x 8192        roofs: a float4 grid-stride copy kernel and cudaMemcpy
 *                                 device to device, both moving the same bytes
 *     naive (baselines.cu) -> [32][32] tile, 32 x 8 threads (bank conflicts) -> [32][33]
 *     (the old reference) -> [64][65], 32 x 8 threads, loads guarded (the new reference's draft)
 *     -> [64][65], 32 x 8 threads, loads clamped (the new reference)
 *   conv2d, 8192 x 8192, R = 3    same roofs (--radius R for another radius, see below)
 *     naive (baselines.cu) -> 32 x 8 tile + halo, taps in shared memory, 1 output per thread
 *     (the old reference) -> the same, taps in __constant__ -> 64 x 64 tile, 2 x 8 outputs per
 *     thread, scalar global loads -> + float4 loads (the new reference)
 *     and the candidates for the next step: the reference's shape compiled for R = 3 alone
 *     (48 registers: 5 blocks per SM instead of 4); taps in __constant__; 4 x 4 outputs per
 *     thread (no bank conflicts on the window loads), taps in shared memory or __constant__
 *
 * The rows marked "baseline" and "reference" run the course's own code, linked in
 * (labs/3.3-tiling/baselines.cu, solutions/3.3-tiling/kernels.cu); the other variants are kept
 * here. The old reference is solutions/3.3-tiling/kernels.cu at git f4a8eeb.
 *
 * Method (bench/h200.md; DESIGN.md, "Timing method"; the code shared with lab33_sgemm.cu is in
 * result_check.h and event_timing.h): each variant's output is poisoned (NaN), computed once and
 * verified before anything is timed — transpose and copies: every element, exactly; conv2d: the 72
 * first and last rows and columns in full plus 65536 random positions against a float64 CPU
 * reference, within the harness's bound gamma_n * sum |products|, n = (2R + 1)^2 (Higham, eq. 3.5).
 * A variant that fails is reported and not timed. Then 3 warm-ups per variant and 25 samples, the
 * variants of a problem interleaved (A B C ... A B C) so that clock drift spreads evenly; before
 * each sample a 120 MB memset flushes the 60 MB L2; cudaEvents time the launch alone. Quoted: the
 * median, with p10 and p90. GB/s counts the bytes read plus written once, as the harness does
 * (transpose and copies 8 B per element, conv2d 8 B per pixel + the taps); GFLOP/s counts 2 per
 * multiply-add. The __constant__ variants get their taps copied in once, before timing
 * (cudaMemcpyToSymbol, not timed).
 *
 * Options. --radius R (1 <= R <= CONV2D_MAX_R = 4; default 3, today's run) times conv2d at
 * another radius; --conv-only leaves the transpose out (not verified, timed or printed). Why
 * (issue 13, part 4): at R = 3 a shared tile with one output per thread gained nothing over the
 * naive kernel on the H200 (session 8's judged alternatives conv_tile32x32 and
 * conv_grid_stride_tiles, 1.06x and 0.812x, bench/h200-2026-12-02-session8/g31/alts2.log; the
 * naive kernel's reads hit L1), the reference 6.55x (bench/roof/README.md). R = 1, 2, 3, 4
 * show per radius whether a shared tile alone, or only register blocking, sets a tile apart
 * from none. Run at every radius: the naive kernel, the two 32 x 8 tiles with one output per
 * thread, and the reference (all three take R at run time). The five candidates compiled for
 * R = 3 alone (the scalar 2 x 8 kernel and the four conv_rb_f4 rows) are SKIPPED at any other
 * radius, with a printed note, rather than instantiated for 1..4: one template argument list
 * per row keeps the file readable. After the tables come conv2d's "x naive" table (the naive
 * kernel's median over each variant's) and its `csv_r,` lines, a kind of line of its own, so
 * that the `csv,` lines keep their columns; both carry the radius (the `csv,` lines in their
 * problem field, "conv2d 8192x8192 R=3", as before). The options and the "x naive" lines are
 * NOT YET RUN on a GPU (compiled only, CUDA 13.0, sm_90 and sm_80).
 *
 * Build and run: bench/roof/README.md. Instructor-only: it holds full solutions of 3.3b and 3.3c.
 *
 * Sources: M. Harris, "An Efficient Matrix Transpose in CUDA C/C++", NVIDIA Developer Blog (2013);
 * Kirk & Hwu, "Programming Massively Parallel Processors", ch. 7 (tiled convolution with halo
 * cells); docs/facts.md ("What the memory spaces reach on the H200") for the figures it
 * reproduces.
 */
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "baselines.h"
#include "lab.h"
#include "reference.h"

#include "cuda_check.h"    /* CHECK: exit 2 on a CUDA error */
#include "device_facts.h"  /* print_device_facts, kernel_resources */
#include "event_timing.h"  /* variant, kWarmups, kSamples, kFlushBytes, time_interleaved */
#include "percentile.h"    /* percentile */
#include "random_inputs.h" /* uniform_pm1 */
#include "result_check.h"  /* run_poisoned, check_against_ref */

#define CEIL_DIV(n, d) ((unsigned int)(((long long)(n) + (d)-1) / (d)))

static const int kSize = 8192;                       // rows = cols = width = height
static const int kRadius = 3;                        // conv2d's default (7 x 7), --radius
static const int kCheckBand = 72;                    // conv2d: rows and columns checked in full
static const int kCheckRandom = 65536;               // conv2d: random positions checked

/* ---------------------------------------------------------------------------------------------
 * Roof: a float4 grid-stride copy (the course's "copy kernel"; docs/facts.md 4040 GB/s on an H200).
 */
__global__ void copy_float4_kernel(const float4 *__restrict__ in, float4 *__restrict__ out,
                                   size_t n4) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        out[i] = in[i];
    }
}

static int g_sm_count = 0;

/* n % 4 == 0 and both pointers from cudaMalloc (256-byte aligned): checked in main. */
static void copy_float4(const float *d_in, float *d_out, size_t n) {
    copy_float4_kernel<<<g_sm_count * 8, 256>>>(reinterpret_cast<const float4 *>(d_in),
                                                reinterpret_cast<float4 *>(d_out), n / 4);
}

/* ---------------------------------------------------------------------------------------------
 * Transpose variants. in: (rows, cols) row-major, out: (cols, rows) row-major.
 */

/* The old reference (git f4a8eeb): 32 x 32 tile, 32 x 8 threads, 4 elements per thread, every
 * load and store guarded. PAD = 1: [32][33], the old reference itself; PAD = 0: [32][32], a
 * column of the tile in one bank (32-way conflicts). */
template <int PAD>
__global__ void transpose_t32_kernel(const float *in, float *out, int rows, int cols) {
    __shared__ float tile[32][32 + PAD];
    const int in_col = (int)blockIdx.x * 32 + threadIdx.x;
    const int in_row0 = (int)blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) {
        const int in_row = in_row0 + j;
        if (in_row < rows && in_col < cols) {
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)in_row * cols + in_col];
        }
    }
    __syncthreads();
    const int out_col = (int)blockIdx.y * 32 + threadIdx.x;
    const int out_row0 = (int)blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) {
        const int out_row = out_row0 + j;
        if (out_row < cols && out_col < rows) {
            out[(size_t)out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

template <int PAD> static void transpose_t32(const float *d_in, float *d_out, int rows, int cols) {
    transpose_t32_kernel<PAD>
        <<<dim3(CEIL_DIV(cols, 32), CEIL_DIV(rows, 32)), dim3(32, 8)>>>(d_in, d_out, rows, cols);
}

/* The new reference's draft: [64][65] tile, 32 x 8 threads, 16 elements per thread, each load
 * guarded (the reference clamps the coordinates instead, so that its loads need no predicate). */
__global__ void transpose_t64_guarded_kernel(const float *in, float *out, int rows, int cols) {
    __shared__ float tile[64][65];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tile_row = (int)blockIdx.y * 64, tile_col = (int)blockIdx.x * 64;
#pragma unroll
    for (int j = 0; j < 64; j += 8) {
#pragma unroll
        for (int i = 0; i < 64; i += 32) {
            const int in_row = tile_row + ty + j, in_col = tile_col + tx + i;
            if (in_row < rows && in_col < cols) {
                tile[ty + j][tx + i] = in[(size_t)in_row * cols + in_col];
            }
        }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 64; j += 8) {
#pragma unroll
        for (int i = 0; i < 64; i += 32) {
            const int out_row = tile_col + ty + j, out_col = tile_row + tx + i;
            if (out_row < cols && out_col < rows) {
                out[(size_t)out_row * rows + out_col] = tile[tx + i][ty + j];
            }
        }
    }
}

static void transpose_t64_guarded(const float *d_in, float *d_out, int rows, int cols) {
    transpose_t64_guarded_kernel<<<dim3(CEIL_DIV(cols, 64), CEIL_DIV(rows, 64)), dim3(32, 8)>>>(
        d_in, d_out, rows, cols);
}

/* ---------------------------------------------------------------------------------------------
 * conv2d variants. in, out: (height, width) row-major; filter: (2R + 1, 2R + 1), zero padding.
 */

#define CONV_MAX_TAPS ((2 * CONV2D_MAX_R + 1) * (2 * CONV2D_MAX_R + 1))
__constant__ float c_taps[CONV_MAX_TAPS]; // the __constant__ variants' copy of the filter

/* The old reference (git f4a8eeb): 32 x 8 output tile + halo of R in shared memory, one output
 * per thread. TAPS_CONST = false: taps copied into shared memory (the old reference itself);
 * true: taps read from c_taps (docs/facts.md: 751 GB/s against 400 on an H200). */
template <bool TAPS_CONST>
__global__ void conv_t32x8_kernel(const float *in, float *out, int width, int height,
                                  const float *filter, int R) {
    __shared__ float tile[8 + 2 * CONV2D_MAX_R][32 + 2 * CONV2D_MAX_R];
    __shared__ float taps[CONV_MAX_TAPS];
    const int diam = 2 * R + 1;
    const int span_x = 32 + 2 * R, span_y = 8 + 2 * R;
    const int x0 = (int)blockIdx.x * 32 - R, y0 = (int)blockIdx.y * 8 - R;
    const int tid = threadIdx.y * 32 + threadIdx.x;
    for (int i = tid; i < span_y * span_x; i += 256) {
        const int sy = i / span_x, sx = i - sy * span_x;
        const int gy = y0 + sy, gx = x0 + sx;
        const bool inside = gy >= 0 && gy < height && gx >= 0 && gx < width;
        tile[sy][sx] = inside ? in[(size_t)gy * width + gx] : 0.0f;
    }
    if (!TAPS_CONST) {
        for (int i = tid; i < diam * diam; i += 256) {
            taps[i] = filter[i];
        }
    }
    __syncthreads();
    const int x = (int)blockIdx.x * 32 + threadIdx.x, y = (int)blockIdx.y * 8 + threadIdx.y;
    if (x < width && y < height) {
        float acc = 0.0f;
        for (int dy = 0; dy < diam; ++dy) {
            for (int dx = 0; dx < diam; ++dx) {
                const float t = TAPS_CONST ? c_taps[dy * diam + dx] : taps[dy * diam + dx];
                acc += t * tile[threadIdx.y + dy][threadIdx.x + dx];
            }
        }
        out[(size_t)y * width + x] = acc;
    }
}

template <bool TAPS_CONST>
static void conv_t32x8(const float *d_in, float *d_out, int width, int height,
                       const float *d_filter, int R) {
    conv_t32x8_kernel<TAPS_CONST><<<dim3(CEIL_DIV(width, 32), CEIL_DIV(height, 8)), dim3(32, 8)>>>(
        d_in, d_out, width, height, d_filter, R);
}

/* Register blocking without float4: 64 x 64 output tile, block 8 x 32, 2 x 8 outputs per thread;
 * the natural layout, a halo of R on every side, (64 + 2R) rows of 64 + 2R + 1 floats, filled by
 * scalar global loads; taps in shared memory, read one by one. The odd row stride keeps the
 * window's rows from being 16-byte aligned: ptxas merges its reads into LDS.64 on even rows only
 * (and the uniform tap reads into LDS.128), where the reference issues LDS.128 throughout. */
template <int R>
__global__ void conv_rb_scalar_kernel(const float *in, float *out, int width, int height,
                                      const float *filter) {
    constexpr int D = 2 * R + 1, SPAN = 64 + 2 * R, WIN = 8 + 2 * R;
    __shared__ float tile[SPAN][SPAN + 1];
    __shared__ float taps[D * D];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 8 + tx;
    const int x0 = (int)blockIdx.x * 64 - R, y0 = (int)blockIdx.y * 64 - R;
    for (int i = tid; i < SPAN * SPAN; i += 256) {
        const int sy = i / SPAN, sx = i - sy * SPAN;
        const int gy = y0 + sy, gx = x0 + sx;
        const bool inside = gy >= 0 && gy < height && gx >= 0 && gx < width;
        tile[sy][sx] = inside ? in[(size_t)gy * width + gx] : 0.0f;
    }
    for (int i = tid; i < D * D; i += 256) {
        taps[i] = filter[i];
    }
    __syncthreads();
    float acc[2][8] = {};
#pragma unroll
    for (int i = 0; i < 2 + 2 * R; ++i) {
        float w[WIN];
#pragma unroll
        for (int k = 0; k < WIN; ++k) {
            w[k] = tile[2 * ty + i][8 * tx + k];
        }
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int dy = i - r;
            if (dy >= 0 && dy < D) {
#pragma unroll
                for (int dx = 0; dx < D; ++dx) {
                    const float t = taps[dy * D + dx];
#pragma unroll
                    for (int j = 0; j < 8; ++j) {
                        acc[r][j] = fmaf(t, w[j + dx], acc[r][j]);
                    }
                }
            }
        }
    }
    const int ox0 = (int)blockIdx.x * 64 + 8 * tx, oy0 = (int)blockIdx.y * 64 + 2 * ty;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            if (oy0 + r < height && ox0 + j < width) {
                out[(size_t)(oy0 + r) * width + ox0 + j] = acc[r][j];
            }
        }
    }
}

static void conv_rb_scalar(const float *d_in, float *d_out, int width, int height,
                           const float *d_filter, int R) {
    if (R != kRadius) {
        return; // instantiated for the bench's radius only: the output stays poisoned
    }
    conv_rb_scalar_kernel<kRadius>
        <<<dim3(CEIL_DIV(width, 64), CEIL_DIV(height, 64)), dim3(8, 32)>>>(d_in, d_out, width,
                                                                           height, d_filter);
}

/* The new reference's structure for one R, float4 paths only (width % 4 == 0 and aligned
 * pointers, checked by the launcher): 64 x 64 output tile, (64 + 2R) x 72 input tile whose rows
 * start 4 columns left of the output tile, PY x PX outputs per thread, (64 / PX) x (64 / PY)
 * threads.
 * - PX = 8, PY = 2 is the reference's shape: a quarter-warp's 8 float4 window loads are 32 bytes
 *   apart, so threads tx and tx + 4 hit the same banks (2-way conflict: 8 wavefronts per LDS.128
 *   instead of 4). PX = 4, PY = 4: 16 bytes apart, no conflict, and 3 window loads per input row
 *   for 4 + 2R rows instead of 4 for 2 + 2R: about half the shared-memory wavefronts per output.
 * - TAPS_CONST = false: taps in shared memory (rows padded to a float4 multiple, read as float4
 *   broadcasts), as in the reference; true: taps read from c_taps, which ptxas keeps in uniform
 *   registers (ULDC), FFMA operands: no load at all.
 * - MIN_BLOCKS: __launch_bounds__'s minimum of resident blocks. The reference compiles all 5
 *   radii into one kernel, which takes the registers of the hungriest path (CUDA 13.0, sm_90:
 *   64 registers, 4 blocks of 256 threads per SM; capped at 48 it spills, which the lab forbids);
 *   R = 3 alone fits 48 registers without spilling: 5 blocks per SM. */
template <int R, int PX, int PY, bool TAPS_CONST, int MIN_BLOCKS>
__global__ void __launch_bounds__(256, MIN_BLOCKS)
    conv_rb_f4_kernel(const float *in, float *out, int width, int height, const float *filter) {
    constexpr int D = 2 * R + 1, TAP_VECS = (D + 3) / 4;
    constexpr int THREADS_X = 64 / PX, WIN_VECS = PX / 4 + 2; // window: PX + 8 floats
    __shared__ __align__(16) float tile[64 + 2 * CONV2D_MAX_R][72];
    __shared__ __align__(16) float taps[D][4 * TAP_VECS];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * THREADS_X + tx;
    const int x0 = (int)blockIdx.x * 64 - 4, y0 = (int)blockIdx.y * 64 - R;
    constexpr int n_vec = (64 + 2 * R) * 18;
    constexpr int n_steps = (n_vec + 255) / 256;
    float4 v[n_steps];
#pragma unroll
    for (int s = 0; s < n_steps; ++s) {
        const int c = tid + s * 256, sy = c / 18;
        const int gy = y0 + sy, gx = x0 + 4 * (c - sy * 18);
        v[s] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (c < n_vec && gy >= 0 && gy < height && gx >= 0 && gx < width) {
            v[s] = *reinterpret_cast<const float4 *>(in + (size_t)gy * width + gx);
        }
    }
#pragma unroll
    for (int s = 0; s < n_steps; ++s) {
        const int c = tid + s * 256;
        if (c < n_vec) {
            reinterpret_cast<float4 *>(&tile[0][0])[c] = v[s];
        }
    }
    if (!TAPS_CONST && tid < D * 4 * TAP_VECS) {
        const int tap_y = tid / (4 * TAP_VECS), tap_x = tid - tap_y * (4 * TAP_VECS);
        taps[tap_y][tap_x] = tap_x < D ? filter[tap_y * D + tap_x] : 0.0f;
    }
    __syncthreads();
    float acc[PY][PX] = {};
#pragma unroll
    for (int i = 0; i < PY + 2 * R; ++i) {
        float w[4 * WIN_VECS];
        const float4 *row = reinterpret_cast<const float4 *>(&tile[PY * ty + i][0]);
#pragma unroll
        for (int q = 0; q < WIN_VECS; ++q) {
            if (4 * q + 3 >= 4 - R && 4 * q < 4 + PX + R) { // holds a column in [4 - R, 4 + PX + R)
                const float4 f = row[(PX / 4) * tx + q];
                w[4 * q + 0] = f.x;
                w[4 * q + 1] = f.y;
                w[4 * q + 2] = f.z;
                w[4 * q + 3] = f.w;
            }
        }
#pragma unroll
        for (int r = 0; r < PY; ++r) {
            const int dy = i - r;
            if (dy >= 0 && dy < D) {
                float t[4 * TAP_VECS] = {};
                if (!TAPS_CONST) {
#pragma unroll
                    for (int p = 0; p < TAP_VECS; ++p) {
                        const float4 f = reinterpret_cast<const float4 *>(taps[dy])[p];
                        t[4 * p + 0] = f.x;
                        t[4 * p + 1] = f.y;
                        t[4 * p + 2] = f.z;
                        t[4 * p + 3] = f.w;
                    }
                }
#pragma unroll
                for (int dx = 0; dx < D; ++dx) {
                    const float tap = TAPS_CONST ? c_taps[dy * D + dx] : t[dx];
#pragma unroll
                    for (int j = 0; j < PX; ++j) {
                        acc[r][j] = fmaf(tap, w[j + dx + 4 - R], acc[r][j]);
                    }
                }
            }
        }
    }
    const int ox0 = (int)blockIdx.x * 64 + PX * tx, oy0 = (int)blockIdx.y * 64 + PY * ty;
#pragma unroll
    for (int r = 0; r < PY; ++r) {
        if (oy0 + r < height) {
            float *dst = out + (size_t)(oy0 + r) * width;
#pragma unroll
            for (int h = 0; h < PX; h += 4) {
                if (ox0 + h < width) {
                    *reinterpret_cast<float4 *>(dst + ox0 + h) =
                        make_float4(acc[r][h], acc[r][h + 1], acc[r][h + 2], acc[r][h + 3]);
                }
            }
        }
    }
}

template <int PX, int PY, bool TAPS_CONST, int MIN_BLOCKS>
static void conv_rb_f4(const float *d_in, float *d_out, int width, int height,
                       const float *d_filter, int R) {
    if (R != kRadius || width % 4 != 0 || (uintptr_t)d_in % 16 != 0 || (uintptr_t)d_out % 16 != 0) {
        return; // not this variant's case: the output stays poisoned and verification fails
    }
    conv_rb_f4_kernel<kRadius, PX, PY, TAPS_CONST, MIN_BLOCKS>
        <<<dim3(CEIL_DIV(width, 64), CEIL_DIV(height, 64)), dim3(64 / PX, 64 / PY)>>>(
            d_in, d_out, width, height, d_filter);
}

/* The linked kernels, for their resource usage (host stubs of solutions/ and baselines.cu). */
__global__ void transpose_tiled_kernel(const float *in, float *out, int rows, int cols);
__global__ void conv2d_tiled_kernel(const float *in, float *out, int width, int height,
                                    const float *filter, int R);
__global__ void transpose_naive_kernel(const float *in, float *out, int rows, int cols);
__global__ void conv2d_naive_kernel(const float *in, float *out, int width, int height,
                                    const float *filter, int R);

/* ---------------------------------------------------------------------------------------------
 * Host: inputs, CPU checks, timing, report.
 */

typedef struct problem {
    const char *name;
    double bytes; // read + written once
    double flops; // 0 for data movement
    std::vector<variant> variants;
} problem;

/* Exact: every element of out (cols, rows) against in (rows, cols). */
static std::string check_transpose(const float *h_in, const float *h_out, int rows, int cols) {
    for (int c = 0; c < cols; ++c) {
        for (int r = 0; r < rows; ++r) {
            const float want = h_in[(size_t)r * cols + c];
            const float got = h_out[(size_t)c * rows + r];
            if (memcmp(&want, &got, sizeof want) != 0) {
                char msg[160];
                snprintf(msg, sizeof msg, "WRONG at out(%d, %d): got %g, want %g", c, r, got, want);
                return msg;
            }
        }
    }
    return "ok";
}

static std::string check_copy(const float *h_in, const float *h_out, size_t n) {
    return memcmp(h_in, h_out, n * sizeof(float)) == 0 ? "ok" : "WRONG: output differs from input";
}

/* out (height, width) against the lab's float64 CPU reference (reference.h): the kCheckBand first
 * and last rows and columns in full and kCheckRandom random positions. */
static std::string check_conv(const float *h_in, const float *h_out, int width, int height,
                              const float *h_filter, int R) {
    const double n_taps = (double)(2 * R + 1) * (2 * R + 1);
    return check_against_ref(h_out, height, width, n_taps, kCheckBand, kCheckRandom,
                             "(y %d, x %d)", [&](int y, int x, double *ref, double *mag) {
                                 conv2d_ref_at(h_in, (size_t)width, (size_t)height, h_filter, R,
                                               (size_t)y, (size_t)x, ref, mag);
                             });
}

static void report(const problem &p) {
    double copy_kernel_gbps = 0.0, d2d_gbps = 0.0;
    const double copy_bytes = 8.0 * (double)kSize * (double)kSize;
    for (const variant &v : p.variants) {
        if (v.samples.empty()) {
            continue;
        }
        const double gbps = copy_bytes / (percentile(v.samples, 0.5) * 1e-3) / 1e9;
        if (v.name.rfind("roof: float4 copy kernel", 0) == 0) {
            copy_kernel_gbps = gbps;
        } else if (v.name.rfind("roof: cudaMemcpy D2D", 0) == 0) {
            d2d_gbps = gbps;
        }
    }
    printf("\n%s  (%.1f MB read + written%s)\n", p.name, p.bytes / 1e6,
           p.flops > 0 ? ", GFLOP/s at 2 per multiply-add" : "");
    printf("%-52s %9s %9s %9s %8s %7s %7s %8s %5s %6s\n", "variant", "median ms", "p10 ms",
           "p90 ms", "GB/s", "% copy", "% D2D", "GFLOP/s", "regs", "blk/SM");
    for (const variant &v : p.variants) {
        int regs, blocks;
        kernel_resources(v.kernel, v.threads, &regs, &blocks);
        if (v.samples.empty()) {
            printf("%-52s not timed: %s\n", v.name.c_str(), v.check.c_str());
            printf("csv,%s,%s,,,,,,,,,,%s\n", p.name, v.name.c_str(), v.check.c_str());
            continue;
        }
        const double med = percentile(v.samples, 0.5);
        const double bytes = v.roof ? copy_bytes : p.bytes;
        const double gbps = bytes / (med * 1e-3) / 1e9;
        const double gflops = (!v.roof && p.flops > 0) ? p.flops / (med * 1e-3) / 1e9 : 0.0;
        char gf[32] = "-";
        if (gflops > 0) {
            snprintf(gf, sizeof gf, "%.0f", gflops);
        }
        printf("%-52s %9.4f %9.4f %9.4f %8.0f %7.1f %7.1f %8s %5d %6d\n", v.name.c_str(), med,
               percentile(v.samples, 0.1), percentile(v.samples, 0.9), gbps,
               100.0 * gbps / copy_kernel_gbps, 100.0 * gbps / d2d_gbps, gf, regs, blocks);
    }
    /* CSV lines (their header is printed once, before the first table) */
    for (const variant &v : p.variants) {
        if (v.samples.empty()) {
            continue;
        }
        const double med = percentile(v.samples, 0.5);
        const double bytes = v.roof ? copy_bytes : p.bytes;
        const double gbps = bytes / (med * 1e-3) / 1e9;
        const double gflops = (!v.roof && p.flops > 0) ? p.flops / (med * 1e-3) / 1e9 : 0.0;
        int regs, blocks;
        kernel_resources(v.kernel, v.threads, &regs, &blocks);
        printf("csv,%s,%s,%.5f,%.5f,%.5f,%.1f,%.2f,%.2f,%.1f,%d,%d,%s\n", p.name, v.name.c_str(),
               med, percentile(v.samples, 0.1), percentile(v.samples, 0.9), gbps,
               100.0 * gbps / copy_kernel_gbps, 100.0 * gbps / d2d_gbps, gflops, regs, blocks,
               v.check.c_str());
    }
}

/* conv2d's variants against the naive kernel: x naive = the naive kernel's median over the
 * variant's. A table, then csv_r lines with the variant's name last (it may hold commas). */
static void report_vs_naive(const problem &p, int R) {
    double naive_ms = 0.0;
    for (const variant &v : p.variants) {
        if (v.name.rfind("naive", 0) == 0 && !v.samples.empty()) {
            naive_ms = percentile(v.samples, 0.5);
        }
    }
    printf("\n%s against the naive kernel (x naive: its median over the variant's)\n", p.name);
    printf("%-52s %8s %8s\n", "variant", "GB/s", "x naive");
    for (int pass = 0; pass < 2; ++pass) { // 0: the table, 1: the csv_r lines
        if (pass == 1) {
            printf("csv_r,radius,median_ms,gbps,x_naive,registers,blocks_per_sm,variant\n");
        }
        for (const variant &v : p.variants) {
            if (v.roof) {
                continue;
            }
            const double med = v.samples.empty() ? 0.0 : percentile(v.samples, 0.5);
            const double gbps = med > 0.0 ? p.bytes / (med * 1e-3) / 1e9 : 0.0;
            const double x_naive = med > 0.0 && naive_ms > 0.0 ? naive_ms / med : 0.0;
            int regs, blocks;
            kernel_resources(v.kernel, v.threads, &regs, &blocks);
            if (pass == 0 && med > 0.0) {
                printf("%-52s %8.0f %8.2f\n", v.name.c_str(), gbps, x_naive);
            } else if (pass == 0) {
                printf("%-52s not timed\n", v.name.c_str());
            } else if (med > 0.0) {
                printf("csv_r,%d,%.5f,%.1f,%.3f,%d,%d,%s\n", R, med, gbps, x_naive, regs, blocks,
                       v.name.c_str());
            } else {
                printf("csv_r,%d,,,,%d,%d,%s\n", R, regs, blocks, v.name.c_str());
            }
        }
    }
}

/* --radius R, --conv-only; false (after a usage line on stderr) on anything else. */
static bool parse_args(int argc, char **argv, int *R, bool *conv_only) {
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--conv-only") == 0) {
            *conv_only = true;
            continue;
        }
        if (strcmp(argv[i], "--radius") == 0 && i + 1 < argc) {
            char *end = NULL;
            const long r = strtol(argv[++i], &end, 10);
            if (end != argv[i] && *end == '\0' && r >= 1 && r <= CONV2D_MAX_R) {
                *R = (int)r;
                continue;
            }
        }
        fprintf(stderr, "usage: %s [--radius R] [--conv-only]   (1 <= R <= %d, default %d)\n",
                argv[0], CONV2D_MAX_R, kRadius);
        return false;
    }
    return true;
}

int main(int argc, char **argv) {
    int R = kRadius;
    bool conv_only = false;
    if (!parse_args(argc, argv, &R, &conv_only)) {
        return 2;
    }
    const int n_side = kSize;
    const size_t n = (size_t)n_side * n_side;
    const int diam = 2 * R + 1, n_taps = diam * diam;

    g_sm_count = print_device_facts("").multiProcessorCount;
    print_timing_method();

    /* Inputs: one random image, used as the transpose's (rows, cols) = (8192, 8192) input and
     * as conv2d's (height, width) image; a random (2R + 1) x (2R + 1) filter (7 x 7 at R = 3). */
    std::vector<float> h_in(n), h_out(n), h_filter(n_taps);
    for (size_t i = 0; i < n; ++i) {
        h_in[i] = uniform_pm1();
    }
    for (int i = 0; i < n_taps; ++i) {
        h_filter[i] = uniform_pm1();
    }
    float *d_in = NULL, *d_out = NULL, *d_filter = NULL;
    void *d_flush = NULL;
    CHECK(cudaMalloc((void **)&d_in, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&d_out, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&d_filter, n_taps * sizeof(float)));
    CHECK(cudaMalloc(&d_flush, kFlushBytes));
    CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_filter, h_filter.data(), n_taps * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(
        cudaMemcpyToSymbol(c_taps, d_filter, n_taps * sizeof(float), 0, cudaMemcpyDeviceToDevice));
    if (n % 4 != 0 || (uintptr_t)d_in % 16 != 0 || (uintptr_t)d_out % 16 != 0) {
        fprintf(stderr, "the float4 copy kernel needs n %% 4 == 0 and 16-byte aligned buffers\n");
        return 2;
    }

    const int rows = n_side, cols = n_side, width = n_side, height = n_side;
    auto roof_copy = [&]() { copy_float4(d_in, d_out, n); };
    auto roof_d2d = [&]() {
        CHECK(cudaMemcpyAsync(d_out, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice));
    };

    problem tr = {"transpose 8192x8192", 8.0 * (double)n, 0.0, {}};
    tr.variants = {
        {"roof: float4 copy kernel", roof_copy, (const void *)copy_float4_kernel, 256, true},
        {"roof: cudaMemcpy D2D", roof_d2d, NULL, 0, true},
        {"naive (baseline, baselines.cu)", [&]() { transpose_naive(d_in, d_out, rows, cols); },
         (const void *)transpose_naive_kernel, 256, false},
        {"[32][32] tile, 32x8 threads (bank conflicts)",
         [&]() { transpose_t32<0>(d_in, d_out, rows, cols); },
         (const void *)transpose_t32_kernel<0>, 256, false},
        {"[32][33] tile, 32x8 threads (old reference)",
         [&]() { transpose_t32<1>(d_in, d_out, rows, cols); },
         (const void *)transpose_t32_kernel<1>, 256, false},
        {"[64][65] tile, 32x8 threads, loads guarded",
         [&]() { transpose_t64_guarded(d_in, d_out, rows, cols); },
         (const void *)transpose_t64_guarded_kernel, 256, false},
        {"[64][65] tile, 32x8, loads clamped (reference)",
         [&]() { transpose_tiled(d_in, d_out, rows, cols); }, (const void *)transpose_tiled_kernel,
         256, false},
    };

    char cv_name[48];
    snprintf(cv_name, sizeof cv_name, "conv2d %dx%d R=%d", n_side, n_side, R);
    problem cv = {cv_name,
                  8.0 * (double)n + 4.0 * n_taps,
                  2.0 * (double)n * (double)n_taps,
                  {}};
    cv.variants = {
        {"roof: float4 copy kernel", roof_copy, (const void *)copy_float4_kernel, 256, true},
        {"roof: cudaMemcpy D2D", roof_d2d, NULL, 0, true},
        {"naive (baseline, baselines.cu)",
         [&]() { conv2d_naive(d_in, d_out, width, height, d_filter, R); },
         (const void *)conv2d_naive_kernel, 256, false},
        {"32x8 tile, taps shared, 1 out/thread (old ref.)",
         [&]() { conv_t32x8<false>(d_in, d_out, width, height, d_filter, R); },
         (const void *)conv_t32x8_kernel<false>, 256, false},
        {"32x8 tile, taps __constant__, 1 out/thread",
         [&]() { conv_t32x8<true>(d_in, d_out, width, height, d_filter, R); },
         (const void *)conv_t32x8_kernel<true>, 256, false},
    };
    /* The rows compiled for R = kRadius alone (the scalar kernel and RB_F4's) join at that
     * radius only, in the order of the default run. */
    const variant rb_scalar = {"64x64 tile, 2x8 out/thread, scalar loads",
                               [&]() { conv_rb_scalar(d_in, d_out, width, height, d_filter, R); },
                               (const void *)conv_rb_scalar_kernel<kRadius>, 256, false};
    const variant reference = {"64x64, 2x8, float4 loads, taps shared (reference)",
                               [&]() { conv2d_tiled(d_in, d_out, width, height, d_filter, R); },
                               (const void *)conv2d_tiled_kernel, 256, false};
    const std::vector<variant> rb_f4 = {
#define RB_F4(label, PX, PY, CONST, MINB)                                                          \
    {label, [&]() { conv_rb_f4<PX, PY, CONST, MINB>(d_in, d_out, width, height, d_filter, R); },   \
     (const void *)conv_rb_f4_kernel<kRadius, PX, PY, CONST, MINB>, 256, false}
        RB_F4("64x64, 2x8, float4, taps shared, R=3 only (5 blk)", 8, 2, false, 5),
        RB_F4("64x64, 2x8, float4 loads, taps __constant__", 8, 2, true, 1),
        RB_F4("64x64, 4x4, float4 loads, taps shared", 4, 4, false, 1),
        RB_F4("64x64, 4x4, float4 loads, taps __constant__", 4, 4, true, 1),
#undef RB_F4
    };
    if (R == kRadius) {
        cv.variants.push_back(rb_scalar);
    }
    cv.variants.push_back(reference);
    if (R == kRadius) {
        cv.variants.insert(cv.variants.end(), rb_f4.begin(), rb_f4.end());
    } else {
        printf("note: R = %d, so the 5 candidates compiled for R = %d alone are skipped (the 64x64 "
               "tile with scalar loads and the four 64x64 float4 rows besides the reference)\n",
               R, kRadius);
    }
    std::vector<problem *> problems = {&tr, &cv};
    if (conv_only) {
        problems.erase(problems.begin()); // --conv-only: the transpose is neither run nor shown
    }

    /* Verify every variant once, output poisoned first (0xFF bytes: NaN). */
    int wrong = 0;
    for (problem *p : problems) {
        for (variant &v : p->variants) {
            run_poisoned(v.launch, d_out, h_out.data(), n);
            if (v.roof) {
                v.check = check_copy(h_in.data(), h_out.data(), n);
            } else if (p == &tr) {
                v.check = check_transpose(h_in.data(), h_out.data(), rows, cols);
            } else {
                v.check = check_conv(h_in.data(), h_out.data(), width, height, h_filter.data(), R);
            }
            if (v.check != "ok") {
                ++wrong;
                printf("%s / %s: %s\n", p->name, v.name.c_str(), v.check.c_str());
            }
        }
    }

    for (problem *p : problems) {
        time_interleaved(&p->variants, d_flush);
    }
    printf("\n%% copy: GB/s over the float4 copy kernel's; %% D2D: over cudaMemcpy's "
           "(both moving 8 B per element, timed in the same rounds)\n");
    printf("csv,problem,variant,median_ms,p10_ms,p90_ms,gbps,pct_copy_kernel,pct_d2d,gflops,"
           "registers,blocks_per_sm,check\n");
    for (problem *p : problems) {
        report(*p);
    }
    report_vs_naive(cv, R);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_filter));
    CHECK(cudaFree(d_flush));
    if (wrong) {
        printf("%d variant(s) computed a wrong result and were not timed\n", wrong);
    }
    return wrong ? 1 : 0;
}

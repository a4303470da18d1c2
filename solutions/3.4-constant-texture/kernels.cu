/* kernels.cu — lab 3.4 "Constant, read-only and texture memory": the five kernels you write, and
 * their launchers.
 *
 *   3.4a  stencil_constant   1D stencil whose 9 coefficients live in __constant__ memory: every
 *                            thread of a warp reads the same coefficient (a broadcast)
 *   3.4b  lookup_divergent   a table read at thread-dependent indices, through the read-only
 *                            data cache (or shared memory) instead of constant memory, which
 *                            serialises a warp's different addresses
 *   3.4c  stencil_readonly   2D 3x3 blur whose input goes through the read-only data cache
 *                            (__ldg), correct even when called in place (d_in == d_out)
 *   3.4d  texture_resample   image resampling with the texture unit's bilinear filtering
 *   3.4e  jacobi_texture     Jacobi iterations reading through a texture, writing a surface
 *
 * The API is in lab.h (pristine): launchers take DEVICE pointers, work on the default stream and
 * return nothing; the harness checks every launch and every CUDA error left behind. The grader
 * also reads each kernel's SASS by name (see lab.toml: constant-bank operands c[0x3][...],
 * LDG.E...CONSTANT loads, TEX and SUST instructions), runs compute-sanitizer and times each
 * kernel against the course's baseline (baselines.cu). Keep the kernel names; block sizes are
 * yours (the *_BLOCK constants below are suggestions).
 *
 * Sources: seed lecture 002 (its examples of each memory space, with the corrections of
 * docs/facts.md: read-only loads show as LDG.E...CONSTANT on sm_70 and later, not LDG.E.CI;
 * texture objects, not references; filter weights are 9-bit fixed point); CUDA C++
 * Programming Guide, "Device Memory Spaces" (__constant__), "Texture and Surface Memory",
 * "Texture Fetching" (addressing modes, linear filtering) and the "__ldg" read-only data cache
 * load function.
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

/* Number of blocks of d threads covering n >= 1 items, ceil(n / d), without int overflow. */
#define CEIL_DIV(n, d) ((unsigned int)(((long long)(n) + (d)-1) / (d)))

/* ---------------------------------------------------------------------------------------------
 * 3.4a  1D stencil, coefficients in constant memory
 */

#define STENCIL_BLOCK 256

/* TODO(3.4a): declare the coefficient array here, in constant memory: a file-scope
 *   __constant__ float array of STENCIL_DIAM elements (it must be at file scope: __constant__
 *   variables cannot live inside a function). */
// BEGIN SOLUTION
/* The stencil's coefficients, coef[k + STENCIL_R] for k in [-STENCIL_R, STENCIL_R]. 36 bytes of
 * the 64 KB constant space; cached by the per-SM constant cache. */
__constant__ float c_stencil_coef[STENCIL_DIAM];
// END SOLUTION

void stencil_constant_set_coefficients(const float *h_coef) {
    /* TODO(3.4a): copy the STENCIL_DIAM host floats h_coef into your __constant__ array with
     *   cudaMemcpyToSymbol(symbol, h_coef, size_in_BYTES). Pass the symbol itself, not its
     *   address (with &symbol the call receives the address of a temporary pointer, which is
     *   no device symbol: it fails with "invalid device symbol"), and the size in bytes, not in
     *   elements. */
    // BEGIN SOLUTION
    /* No check here: lab.h's API returns nothing, and a failed call leaves its error for the
     * harness's cudaGetLastError. */
    cudaMemcpyToSymbol(c_stencil_coef, h_coef, STENCIL_DIAM * sizeof(float));
    // END SOLUTION
}

/* out[i] = sum_k coef[k + R] * in[i + k], zero outside [0, n). One thread per output. */
__global__ void stencil_constant_kernel(const float *in, float *out, int n) {
    /* TODO(3.4a): compute out[i] for i = this thread's global index (return if i >= n): the
     *   sum over k in [-STENCIL_R, STENCIL_R] of coef[k + STENCIL_R] * in[i + k], skipping the
     *   taps with i + k outside [0, n).
     *   Fast: read the coefficients from your __constant__ array with an index that is the same
     *   for all threads of the warp (the loop counter k): the constant cache then serves the
     *   whole warp in one broadcast. Unroll the loop (#pragma unroll) so that each read has a
     *   fixed offset: in the SASS, LDC R, c[0x3][0x4] (or a c[0x3][...] operand of the FFMA).
     *   (If you also stage in[] in shared memory, the return for i >= n comes after the
     *   block's copy and its __syncthreads(): every thread helps copy and reaches the
     *   barrier.) */
    // BEGIN SOLUTION
    const int i = (int)blockIdx.x * STENCIL_BLOCK + (int)threadIdx.x;
    if (i >= n) {
        return;
    }
    float acc = 0.0f;
#pragma unroll
    for (int k = -STENCIL_R; k <= STENCIL_R; ++k) {
        const int j = i + k;
        if (j >= 0 && j < n) {
            /* k is the same in every thread: one address per warp, a broadcast. Unrolled, each
             * read has a fixed offset: LDC R9, c[0x3][RZ] ... LDC R8, c[0x3][0x20] in this
             * kernel's sm_90 SASS (nvcc 13.0). */
            acc += c_stencil_coef[k + STENCIL_R] * in[j];
        }
    }
    out[i] = acc;
    // END SOLUTION
}

void stencil_constant(const float *d_in, float *d_out, int n) {
    /* TODO(3.4a): launch stencil_constant_kernel with one thread per output: blocks of a size
     *   you choose (STENCIL_BLOCK = 256 is a good start; the kernel indexes with the same size:
     *   blockDim.x, or the same constant in both places) and
     *   CEIL_DIV(n, threads per block) of them. Do not synchronise. */
    // BEGIN SOLUTION
    stencil_constant_kernel<<<CEIL_DIV(n, STENCIL_BLOCK), STENCIL_BLOCK>>>(d_in, d_out, n);
    // END SOLUTION
}

/* ---------------------------------------------------------------------------------------------
 * 3.4b  Divergent table lookup through the read-only data cache
 */

#define LOOKUP_BLOCK 256

/* out[i] = sum_{j < LOOKUP_STEPS} table[(idx[i] + j * LOOKUP_STRIDE) & mask], mask =
 * table_size - 1. One thread per output. */
__global__ void lookup_divergent_kernel(const float *__restrict__ table,
                                        const int *__restrict__ idx, float *__restrict__ out,
                                        int n, int mask) {
    /* TODO(3.4b): compute out[i] for i = this thread's global index (return if i >= n):
     *   start = idx[i]; sum table[(start + j * LOOKUP_STRIDE) & mask] over j = 0 ..
     *   LOOKUP_STEPS - 1.
     *   Fast: the 32 threads of a warp read 32 DIFFERENT table entries at each step. Do not put
     *   the table in __constant__ memory: the constant cache serves one distinct address per
     *   request, so a warp's different addresses are served one after the other, 32 requests
     *   for 32 addresses (the baseline lookup_constant_divergent does exactly that). Read the
     *   table through the read-only data cache, __ldg(&table[...]), which serves a warp's
     *   scattered reads together, or copy it into shared memory first. (A shared copy is
     *   made by every thread of the block, then __syncthreads(), and only then the return
     *   for i >= n: a thread that returned first would leave its share of the table
     *   unwritten, and with n = 1 only thread 0 would copy.) */
    // BEGIN SOLUTION
    const int i = (int)blockIdx.x * LOOKUP_BLOCK + (int)threadIdx.x;
    if (i >= n) {
        return;
    }
    const int start = idx[i];
    float acc = 0.0f;
#pragma unroll 8
    for (int j = 0; j < LOOKUP_STEPS; ++j) {
        /* __ldg: the read-only data cache (LDG.E.CONSTANT in sm_90 SASS). A warp's 32
         * scattered addresses in a 32 KB table hit L1 lines, served as a few wavefronts
         * instead of 32 serialised constant-cache reads (docs/facts.md, one run on an H200: 4.16 ms
         * against 69.0 ms through __constant__). */
        acc += __ldg(&table[(start + j * LOOKUP_STRIDE) & mask]);
    }
    out[i] = acc;
    // END SOLUTION
}

void lookup_divergent(const float *d_table, const int *d_idx, float *d_out, int n,
                      int table_size) {
    /* TODO(3.4b): launch lookup_divergent_kernel with one thread per output, passing the mask
     *   table_size - 1 (table_size is a power of two, so x & mask == x % table_size). Do not
     *   synchronise. */
    // BEGIN SOLUTION
    lookup_divergent_kernel<<<CEIL_DIV(n, LOOKUP_BLOCK), LOOKUP_BLOCK>>>(d_table, d_idx, d_out, n,
                                                                          table_size - 1);
    // END SOLUTION
}

/* ---------------------------------------------------------------------------------------------
 * 3.4c  2D 3x3 stencil through the read-only data cache
 */

#if 0  // BEGIN SKELETON
#define RO_BLOCK_X 32
#define RO_BLOCK_Y 8
#endif // END SKELETON
// BEGIN SOLUTION
/* The reference's design, and what each step measured (ratio stencil_plain / design, 8192 x 8192,
 * separate buffers; NVIDIA H100 80GB HBM3, bench/h200-2026-12-05-session38/g125, one call; the
 * copy roof of that run 2958 GB/s, 8 bytes of DRAM traffic a pixel):
 *   0.855  one thread per output, 32 x 8 blocks, nine __ldg each with its own 64-bit address (the
 *          reference until session 38; stencil_ro_ldg_per_tap_32x8): 1526 GB/s, 52 % of copy
 *   1.05   the same mapping, one row pointer per input row and the taps at immediate offsets:
 *          fewer address computations (stencil_ro_ldg_row_pointers_32x8)
 *   1.38   one thread walks 8 rows of a column keeping the row sums of three rows in registers
 *          (register reuse): 3.75 loads an output instead of 9 (stencil_ro_ldg_rolling8_128x1)
 *   1.48   the same over 16 rows (stencil_ro_ldg_rolling16_256x1)
 *   1.58   4 columns x 8 rows a thread, the 4 centres of a row one 16-byte load: this design,
 *          0.1896 ms, 2832 GB/s, 96 % of copy (measured as stencil_ro_ldg_float4_rows8)
 * The read-only path is a hint, not the gain: 32 x 8 with const __restrict__ and no __ldg (the
 * compiler still chose LDG.E.CONSTANT) measured 0.975, and plain LDG.E 0.999 (H200, 2026-11-29).
 * The gain is in the code's shape. */
#define RO_COLS 4       // outputs a thread along x: one float4
#define RO_ROWS 8       // outputs a thread along y: a strip of 8 rows
#define RO_THREADS_X 64 // threads a block, all along x: a block covers 256 x 8 pixels

/* The horizontal pass of the separable blur ([1 2 1] across, then [1 2 1] down, / 16) for the
 * RO_COLS columns x0 .. x0 + 3 of one input row: h(x) = in(r, x - 1) + 2 in(r, x) + in(r, x + 1),
 * taps outside the image 0. row = &in(r, 0). VEC (width % 4 == 0, buffers 16-byte aligned): the
 * 4 centres are one float4 __ldg, LDG.E.128.CONSTANT, a 16-byte transaction instead of four
 * 4-byte ones; otherwise four guarded scalar __ldg. The taps x0 - 1 and x0 + 4 are scalar __ldg:
 * the neighbouring threads load the same lines, so L1 serves them, not DRAM. */
template <bool VEC>
static __device__ __forceinline__ float4 ro_row_sums(const float *row, int x0, int width) {
    float v[RO_COLS + 2]; // in(r, x0 - 1 .. x0 + 4); registers: every index is a constant
    if (VEC) {
        const float4 c = __ldg(reinterpret_cast<const float4 *>(row + x0));
        v[1] = c.x;
        v[2] = c.y;
        v[3] = c.z;
        v[4] = c.w;
    } else {
#pragma unroll
        for (int k = 0; k < RO_COLS; ++k) {
            v[k + 1] = x0 + k < width ? __ldg(row + x0 + k) : 0.0f;
        }
    }
    v[0] = x0 > 0 ? __ldg(row + x0 - 1) : 0.0f;
    v[RO_COLS + 1] = x0 + RO_COLS < width ? __ldg(row + x0 + RO_COLS) : 0.0f;
    return make_float4(v[0] + 2.0f * v[1] + v[2], v[1] + 2.0f * v[2] + v[3],
                       v[2] + 2.0f * v[3] + v[4], v[3] + 2.0f * v[4] + v[5]);
}

/* One thread's strip: the outputs (y0 .. y0 + 7, x0 .. x0 + 3). A rolling window of three rows of
 * row sums (above, mid, below) moves down the strip: each input row is loaded once for up to
 * three outputs, 10 rows for 8 output rows (1.25 input rows an output row, 0.94 loads an output
 * on the float4 path, against 9 in the per-tap design). */
template <bool VEC>
static __device__ __forceinline__ void ro_strip(const float *__restrict__ in,
                                                float *__restrict__ out, int width, int height,
                                                int x0, int y0) {
    const float *row = in + (size_t)y0 * width; // &in(y0, 0); y0 < height
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    /* A row outside the image is loaded at row y0 (inside) and its sums replaced by 0: the loads
     * stay unconditional, and the compiler can issue them all before the first use. Behind a
     * branch (a `? :` around the call, a `break`) one row's loads were in flight at a time in
     * the SASS (session 38's drafts). */
    const float4 h_top = ro_row_sums<VEC>(y0 > 0 ? row - width : row, x0, width);
    float4 above = y0 > 0 ? h_top : zero;
    float4 mid = ro_row_sums<VEC>(row, x0, width);
    float4 o[RO_ROWS]; // the strip's outputs, in registers (the loops are unrolled)
#pragma unroll
    for (int r = 0; r < RO_ROWS; ++r) {
        const bool inside = y0 + r + 1 < height; // the row below output row y0 + r
        const float4 h = ro_row_sums<VEC>(inside ? row + (size_t)(r + 1) * width : row, x0, width);
        const float4 below = inside ? h : zero;
        /* The vertical pass, (h(y - 1) + 2 h(y) + h(y + 1)) / 16 (1/16 a power of two: exact),
         * written per component: as a helper taking float4 arguments it took 64 registers
         * instead of 54 (nvcc 13.0, sm_90), a variant no GPU has timed. */
        o[r] = make_float4(0.0625f * (above.x + 2.0f * mid.x + below.x),
                           0.0625f * (above.y + 2.0f * mid.y + below.y),
                           0.0625f * (above.z + 2.0f * mid.z + below.z),
                           0.0625f * (above.w + 2.0f * mid.w + below.w));
        above = mid; // the window moves down one row: two of its three rows are reused
        mid = below;
    }
    /* The stores after every load: a guarded store between rows kept the next row's loads
     * behind it. */
#pragma unroll
    for (int r = 0; r < RO_ROWS; ++r) {
        if (y0 + r < height) {
            float *q = out + (size_t)(y0 + r) * width + x0; // &out(y0 + r, x0)
            if (VEC) {
                *reinterpret_cast<float4 *>(q) = o[r]; // STG.E.128: one 16-byte store
            } else {
                const float ov[RO_COLS] = {o[r].x, o[r].y, o[r].z, o[r].w};
#pragma unroll
                for (int k = 0; k < RO_COLS; ++k) {
                    if (x0 + k < width) {
                        q[k] = ov[k];
                    }
                }
            }
        }
    }
}
// END SOLUTION

/* out(y, x) = sum w(dy, dx) in(y + dy, x + dx) with w = [1 2 1; 2 4 2; 1 2 1] / 16, zero outside
 * the image. in and out must NOT alias (the launcher guarantees it). */
#if 0  // BEGIN SKELETON
/* Suggested mapping: one thread per output; a warp is 32 consecutive x of one row (coalesced). */
#endif // END SKELETON
// BEGIN SOLUTION
/* Mapping: a thread computes RO_COLS x RO_ROWS = 4 x 8 outputs, columns x0 .. x0 + 3 of rows
 * y0 .. y0 + 7; a warp's 32 threads cover 128 consecutive x (coalesced: 512 bytes a row). */
// END SOLUTION
__global__ void stencil_readonly_kernel(const float *__restrict__ in, float *__restrict__ out,
                                        int width, int height) {
    /* TODO(3.4c): compute out(y, x) for this thread's output pixel(s) (return outside the image):
     *   the sum over dy, dx in {-1, 0, 1} of w(dy, dx) * in(y + dy, x + dx), skipping taps
     *   outside the image; w = [1 2 1; 2 4 2; 1 2 1] / 16.
     *   Fast: read `in` through the read-only data cache with __ldg(&in[...]) (const
     *   __restrict__ alone lets the compiler choose it, but does not guarantee it: check the SASS
     *   for LDG.E...CONSTANT). Each input is read by 9 neighbouring threads: the cache, not DRAM,
     *   serves the repeats. Faster: w is [1 2 1] across times [1 2 1] down, so a thread that
     *   computes several rows of a column can keep the row sums of three rows in registers and
     *   load each input row once, not three times (handout, section 4).
     *   Right: the read-only path is only legal while NOTHING writes `in` during the kernel, so
     *   this kernel assumes in != out; the launcher handles the in-place call. */
    // BEGIN SOLUTION
    const int x0 = ((int)blockIdx.x * RO_THREADS_X + (int)threadIdx.x) * RO_COLS; // < width + 256
    const int y0 = (int)blockIdx.y * RO_ROWS;
    if (x0 >= width) {
        return;
    }
    /* The float4 path needs every row to start 16-byte aligned: width % 4 == 0 and aligned
     * buffers (cudaMalloc's are; an offset pointer need not be). The test is the same in every
     * thread, so the branch never diverges. */
    const bool vec = (width & 3) == 0 && (((size_t)in | (size_t)out) & 15) == 0;
    if (vec) {
        ro_strip<true>(in, out, width, height, x0, y0);
    } else {
        ro_strip<false>(in, out, width, height, x0, y0);
    }
    // END SOLUTION
}

void stencil_readonly(const float *d_in, float *d_out, int width, int height) {
    /* TODO(3.4c): launch stencil_readonly_kernel with blocks of your choice (RO_BLOCK_X x
     *   RO_BLOCK_Y = 32 x 8 suggested) and enough blocks to cover the image.
     *   Limit: a grid's y dimension is at most 65535 blocks, and heights go up to
     *   STENCIL2D_MAX_HEIGHT = 65535 * 8 (lab.h): a block must cover at least 8 rows (as 32 x 8
     *   does), or the kernel must loop over rows.
     *   Right: when d_in == d_out (in place), the kernel would read pixels that other threads
     *   have already overwritten, and break its __restrict__ / read-only-cache promise. Copy
     *   the input to a temporary device buffer first (cudaMallocAsync + cudaMemcpyAsync on
     *   stream 0, or cudaMalloc + cudaMemcpy), run the kernel from the copy into d_out, then
     *   free the copy (cudaFreeAsync(tmp, 0) after the launch, or cudaFree). */
    // BEGIN SOLUTION
    /* A block covers 256 x 8 pixels: at most 65535 blocks in y for STENCIL2D_MAX_HEIGHT. */
    const dim3 block(RO_THREADS_X);
    const dim3 grid(CEIL_DIV(width, RO_COLS * RO_THREADS_X), CEIL_DIV(height, RO_ROWS));
    if (d_in != d_out) {
        stencil_readonly_kernel<<<grid, block>>>(d_in, d_out, width, height);
        return;
    }
    /* In place: stage the input in a temporary buffer. Stream-ordered allocation (cudaMallocAsync
     * / cudaFreeAsync on the default stream) keeps the launcher asynchronous. A failed call
     * leaves its error for the harness's cudaGetLastError; then nothing is launched. */
    const size_t bytes = (size_t)width * (size_t)height * sizeof(float);
    float *d_tmp = NULL;
    if (cudaMallocAsync((void **)&d_tmp, bytes, 0) != cudaSuccess) {
        return;
    }
    if (cudaMemcpyAsync(d_tmp, d_in, bytes, cudaMemcpyDeviceToDevice, 0) == cudaSuccess) {
        stencil_readonly_kernel<<<grid, block>>>(d_tmp, d_out, width, height);
    }
    cudaFreeAsync(d_tmp, 0);
    // END SOLUTION
}

/* ---------------------------------------------------------------------------------------------
 * 3.4d  Resampling with hardware bilinear filtering
 */

#define TEX_BLOCK_X 32
#define TEX_BLOCK_Y 8

/* out(oy, ox) = tex2D(tex, (ox + 0.5) * scale_x, (oy + 0.5) * scale_y). The launcher's scales
 * map an output pixel centre to the input's texel coordinates (scale = in / out) or, for
 * normalized coordinates, to [0, 1) (scale = 1 / out). */
__global__ void texture_resample_kernel(cudaTextureObject_t tex, float *out, int out_w, int out_h,
                                        float scale_x, float scale_y) {
    /* TODO(3.4d): for this thread's output pixel (ox, oy) (return outside the output), sample
     *   the texture at the pixel's centre mapped into the input, (ox + 0.5f) * scale_x and
     *   (oy + 0.5f) * scale_y, with tex2D<float>(tex, x, y), and store the result.
     *   Right: the + 0.5 is not optional: texel i's centre is at i + 0.5, so sampling at
     *   ox * scale (no + 0.5) blends each texel with its neighbour even at 1x. */
    // BEGIN SOLUTION
    const int ox = (int)blockIdx.x * TEX_BLOCK_X + (int)threadIdx.x;
    const int oy = (int)blockIdx.y * TEX_BLOCK_Y + (int)threadIdx.y;
    if (ox >= out_w || oy >= out_h) {
        return;
    }
    const float x = ((float)ox + 0.5f) * scale_x;
    const float y = ((float)oy + 0.5f) * scale_y;
    out[(size_t)oy * out_w + ox] = tex2D<float>(tex, x, y); // TEX: bilinear in the texture unit
    // END SOLUTION
}

void texture_resample(const float *d_in, int in_w, int in_h, float *d_out, int out_w, int out_h,
                      int wrap) {
    /* TODO(3.4d): the texture pipeline, in order:
     *   1. cudaMallocArray(&array, &desc, in_w, in_h) with desc = cudaCreateChannelDesc<float>();
     *   2. copy d_in into it: cudaMemcpy2DToArray(array, 0, 0, d_in, pitch, width_bytes, in_h,
     *      cudaMemcpyDeviceToDevice), pitch and width in BYTES (in_w * sizeof(float)). A plain
     *      cudaMemcpy cannot write a cudaArray (its layout is opaque);
     *   3. a cudaResourceDesc (resType = cudaResourceTypeArray, res.array.array = array) and a
     *      cudaTextureDesc zero-initialised, then: filterMode = cudaFilterModeLinear, readMode =
     *      cudaReadModeElementType, addressMode[0] = addressMode[1] = cudaAddressModeClamp
     *      (wrap == 0) or cudaAddressModeWrap (wrap == 1). The Programming Guide supports wrap
     *      ONLY with normalizedCoords = 1 (coordinates in [0, 1): x / in_w); with unnormalized
     *      coordinates no error is reported, and on the H200 wrap behaved like clamp.
     *      cudaCreateTextureObject(&tex, &res_desc, &tex_desc, NULL);
     *   4. launch texture_resample_kernel over the output with scale = in / out (unnormalized)
     *      or 1 / out (normalized), per axis;
     *   5. wait for the kernel (cudaDeviceSynchronize) before cudaDestroyTextureObject and
     *      cudaFreeArray: the destroy is not documented to wait for fetches in flight
     *      (cudaFreeArray is, lab.h, but it comes after the destroy). */
    // BEGIN SOLUTION
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array = NULL;
    if (cudaMallocArray(&array, &desc, (size_t)in_w, (size_t)in_h) != cudaSuccess) {
        return; // the error stays for the harness's check
    }
    const size_t row_bytes = (size_t)in_w * sizeof(float);
    cudaTextureObject_t tex = 0;
    if (cudaMemcpy2DToArray(array, 0, 0, d_in, row_bytes, row_bytes, (size_t)in_h,
                            cudaMemcpyDeviceToDevice) == cudaSuccess) {
        cudaResourceDesc res_desc = {};
        res_desc.resType = cudaResourceTypeArray;
        res_desc.res.array.array = array;

        cudaTextureDesc tex_desc = {};
        const cudaTextureAddressMode mode = wrap ? cudaAddressModeWrap : cudaAddressModeClamp;
        tex_desc.addressMode[0] = mode;
        tex_desc.addressMode[1] = mode;
        tex_desc.filterMode = cudaFilterModeLinear; // bilinear, weights in 1/256 steps
        tex_desc.readMode = cudaReadModeElementType;
        tex_desc.normalizedCoords = wrap ? 1 : 0; // wrap needs normalized coordinates

        if (cudaCreateTextureObject(&tex, &res_desc, &tex_desc, NULL) == cudaSuccess) {
            /* Normalized: x / in_w = (ox + 0.5) / out_w. */
            const float scale_x = wrap ? 1.0f / (float)out_w : (float)in_w / (float)out_w;
            const float scale_y = wrap ? 1.0f / (float)out_h : (float)in_h / (float)out_h;
            const dim3 block(TEX_BLOCK_X, TEX_BLOCK_Y);
            const dim3 grid(CEIL_DIV(out_w, TEX_BLOCK_X), CEIL_DIV(out_h, TEX_BLOCK_Y));
            texture_resample_kernel<<<grid, block>>>(tex, d_out, out_w, out_h, scale_x, scale_y);
            cudaDeviceSynchronize(); // the kernel must be done before its texture goes away
            cudaDestroyTextureObject(tex);
        }
    }
    cudaFreeArray(array);
    // END SOLUTION
}

/* ---------------------------------------------------------------------------------------------
 * 3.4e  Jacobi iterations: texture reads, surface writes
 */

#define JACOBI_BLOCK_X 32
#define JACOBI_BLOCK_Y 8

/* One Jacobi step: reads u through `src` (point filtering, clamp addressing, unnormalized
 * coordinates), writes u' through `dst`. */
__global__ void jacobi_texture_kernel(cudaTextureObject_t src, cudaSurfaceObject_t dst, int width,
                                      int height) {
    /* TODO(3.4e): for this thread's (x, y) (return outside the image: go on only if
     *   x < width && y < height), read the 4 neighbours with
     *   tex2D<float>(src, x + 0.5f + dx, y + 0.5f + dy) (texel centres; clamp addressing
     *   replicates the edge values, so no bounds checks), and write 0.25f * their sum with
     *   surf2Dwrite(value, dst, x * sizeof(float), y): a surface's x coordinate is in BYTES. */
    // BEGIN SOLUTION
    const int x = (int)blockIdx.x * JACOBI_BLOCK_X + (int)threadIdx.x;
    const int y = (int)blockIdx.y * JACOBI_BLOCK_Y + (int)threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    const float xc = (float)x + 0.5f; // texel centre
    const float yc = (float)y + 0.5f;
    const float left = tex2D<float>(src, xc - 1.0f, yc); // at x = 0 the clamp returns u(0, y)
    const float right = tex2D<float>(src, xc + 1.0f, yc);
    const float up = tex2D<float>(src, xc, yc - 1.0f);
    const float down = tex2D<float>(src, xc, yc + 1.0f);
    surf2Dwrite(0.25f * (left + right + up + down), dst, x * (int)sizeof(float), y); // x in bytes
    // END SOLUTION
}

void jacobi_texture(const float *d_in, float *d_out, int width, int height, int iters) {
    /* TODO(3.4e): 1. two cudaArrays of width x height floats, allocated with the flag
     *   cudaArraySurfaceLoadStore (cudaMallocArray's last argument) so that surfaces can write
     *   them; copy d_in into the first with cudaMemcpy2DToArray (pitch and width in BYTES);
     *   2. on each array a texture object (point filtering, clamp addressing, element type,
     *   unnormalized coordinates) and a surface object (cudaCreateSurfaceObject with a
     *   cudaResourceDesc of the array);
     *   3. iters launches of jacobi_texture_kernel, reading one array and writing the other,
     *   swapping them after each step (ping-pong: a step must never read what it writes);
     *   4. copy the array holding the last step into d_out with cudaMemcpy2DFromArray;
     *   5. cudaDeviceSynchronize, then destroy the objects and free the arrays. */
    // BEGIN SOLUTION
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t arrays[2] = {NULL, NULL};
    cudaTextureObject_t tex[2] = {0, 0};
    cudaSurfaceObject_t surf[2] = {0, 0};
    const size_t row_bytes = (size_t)width * sizeof(float);
    int ok = 1;
    for (int a = 0; a < 2 && ok; ++a) {
        ok = cudaMallocArray(&arrays[a], &desc, (size_t)width, (size_t)height,
                             cudaArraySurfaceLoadStore) == cudaSuccess;
        if (!ok) {
            break;
        }
        cudaResourceDesc res_desc = {};
        res_desc.resType = cudaResourceTypeArray;
        res_desc.res.array.array = arrays[a];

        cudaTextureDesc tex_desc = {};
        tex_desc.addressMode[0] = cudaAddressModeClamp; // replicate the edge: u(-1, y) = u(0, y)
        tex_desc.addressMode[1] = cudaAddressModeClamp;
        tex_desc.filterMode = cudaFilterModePoint; // exact texel values, no interpolation
        tex_desc.readMode = cudaReadModeElementType;
        tex_desc.normalizedCoords = 0;
        ok = cudaCreateTextureObject(&tex[a], &res_desc, &tex_desc, NULL) == cudaSuccess &&
             cudaCreateSurfaceObject(&surf[a], &res_desc) == cudaSuccess;
    }
    if (ok) {
        ok = cudaMemcpy2DToArray(arrays[0], 0, 0, d_in, row_bytes, row_bytes, (size_t)height,
                                 cudaMemcpyDeviceToDevice) == cudaSuccess;
    }
    if (ok) {
        const dim3 block(JACOBI_BLOCK_X, JACOBI_BLOCK_Y);
        const dim3 grid(CEIL_DIV(width, JACOBI_BLOCK_X), CEIL_DIV(height, JACOBI_BLOCK_Y));
        int cur = 0; // the array holding the current u
        for (int s = 0; s < iters; ++s) {
            /* Ping-pong: read arrays[cur], write the other. Launches on one stream run in
             * order, so step s + 1 sees all of step s's surface writes. */
            jacobi_texture_kernel<<<grid, block>>>(tex[cur], surf[1 - cur], width, height);
            cur = 1 - cur;
        }
        cudaMemcpy2DFromArray(d_out, row_bytes, arrays[cur], 0, 0, row_bytes, (size_t)height,
                              cudaMemcpyDeviceToDevice);
    }
    cudaDeviceSynchronize(); // the kernels must be done before their objects go away
    for (int a = 0; a < 2; ++a) {
        if (surf[a] != 0) {
            cudaDestroySurfaceObject(surf[a]);
        }
        if (tex[a] != 0) {
            cudaDestroyTextureObject(tex[a]);
        }
        if (arrays[a] != NULL) {
            cudaFreeArray(arrays[a]);
        }
    }
    // END SOLUTION
}

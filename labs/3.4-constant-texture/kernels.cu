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

void stencil_constant_set_coefficients(const float *h_coef) {
    /* TODO(3.4a): copy the STENCIL_DIAM host floats h_coef into your __constant__ array with
     *   cudaMemcpyToSymbol(symbol, h_coef, size_in_BYTES). Pass the symbol itself, not its
     *   address (with &symbol the call receives the address of a temporary pointer, which is
     *   no device symbol: it fails with "invalid device symbol"), and the size in bytes, not in
     *   elements. */
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
}

void stencil_constant(const float *d_in, float *d_out, int n) {
    /* TODO(3.4a): launch stencil_constant_kernel with one thread per output: blocks of a size
     *   you choose (STENCIL_BLOCK = 256 is a good start; the kernel indexes with the same size:
     *   blockDim.x, or the same constant in both places) and
     *   CEIL_DIV(n, threads per block) of them. Do not synchronise. */
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
}

void lookup_divergent(const float *d_table, const int *d_idx, float *d_out, int n,
                      int table_size) {
    /* TODO(3.4b): launch lookup_divergent_kernel with one thread per output, passing the mask
     *   table_size - 1 (table_size is a power of two, so x & mask == x % table_size). Do not
     *   synchronise. */
}

/* ---------------------------------------------------------------------------------------------
 * 3.4c  2D 3x3 stencil through the read-only data cache
 */

#define RO_BLOCK_X 32
#define RO_BLOCK_Y 8

/* out(y, x) = sum w(dy, dx) in(y + dy, x + dx) with w = [1 2 1; 2 4 2; 1 2 1] / 16, zero outside
 * the image. in and out must NOT alias (the launcher guarantees it). */
/* Suggested mapping: one thread per output; a warp is 32 consecutive x of one row (coalesced). */
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
}

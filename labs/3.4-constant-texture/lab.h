/* lab.h — lab 3.4 "Constant, read-only and texture memory": the C API between the harness and
 * kernels.cu.
 *
 * Pristine: the harness (harness.cu) calls these functions; you implement them in kernels.cu.
 * Every launcher
 *   - takes DEVICE pointers to row-major float32 (or int32) arrays,
 *   - works on the default stream and returns nothing: the harness checks every call for you
 *     (cudaGetLastError, then the kernel's own execution after cudaDeviceSynchronize) and
 *     reports any error, including the errors of CUDA runtime calls your launcher makes
 *     (cudaMemcpyToSymbol, cudaMallocArray, cudaCreateTextureObject, ...) that you did not
 *     check yourself: a failed runtime call leaves its error for cudaGetLastError.
 * A launcher may synchronise when it must (cudaFreeArray and cudaFree do so implicitly;
 * cudaDestroyTextureObject and cudaDestroySurfaceObject are not documented to: synchronise
 * before them while a kernel may still use the object). It may
 * be given other buffers, holding other values, at every call (the timed runs give each launch
 * inputs of its own): keep nothing from one call for the next that depends on the pointers or
 * on what they hold (a texture object made once, on the first call's buffer, reads stale data).
 * Sizes are arbitrary: never assume they are multiples of a block. Sizes are below 2^31 - 64
 * (they are int), and every array has fewer than 2^31 elements (the harness refuses larger
 * cases), so an int linear index does not overflow here; widening before multiplying,
 * (size_t)y * width, is still the habit for arrays that may be larger.
 *
 * Declared extern "C" so the symbols are unmangled (the grader's symbol check).
 *
 * Sources: seed lecture 002 (constant memory, the read-only data cache, texture memory and
 * surfaces); CUDA C++ Programming Guide, "Device Memory Spaces" (constant), "Texture and
 * Surface Memory" and the "Texture Fetching" appendix (addressing and linear filtering);
 * docs/facts.md for the corrections this lab makes to the seed.
 */
#pragma once

/* 3.4a: the stencil's radius; the stencil has 2 * STENCIL_R + 1 = STENCIL_DIAM taps. */
#define STENCIL_R 4
#define STENCIL_DIAM (2 * STENCIL_R + 1)

/* 3.4b: every thread reads the table LOOKUP_STEPS times; the table has a power-of-two size of
 * at most LOOKUP_MAX_TABLE floats (32 KB: it fits the 64 KB of constant memory, which is what
 * the constant-memory baselines keep it in); LOOKUP_STRIDE is the step between a thread's
 * successive indices (odd, so a thread walks the whole table before repeating). */
#define LOOKUP_STEPS 64
#define LOOKUP_MAX_TABLE 8192
#define LOOKUP_STRIDE 97

/* The largest height stencil_readonly is given. A grid's y dimension is at most 65535 blocks,
 * so at this height a block must cover at least 8 rows (the suggested 32 x 8 blocks do) or the
 * kernel must loop over rows: blocks of fewer rows need more than 65535 blocks in y, and the
 * launch fails (invalid configuration argument). */
#define STENCIL2D_MAX_HEIGHT (65535 * 8)

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * 3.4a  1D stencil with its coefficients in constant memory
 *
 *   out[i] = sum over k in [-STENCIL_R, STENCIL_R] of coef[k + STENCIL_R] * in[i + k],
 *   where in[j] = 0 for j outside [0, n).
 * Every thread of a warp reads the same coef[k] at the same time: one address for the warp,
 * served by the constant cache as a broadcast.
 */

/* Copies the STENCIL_DIAM coefficients h_coef (a HOST array) into the __constant__ array of
 * kernels.cu (cudaMemcpyToSymbol). The harness calls it once per case, before any launch of
 * stencil_constant; every later launch uses these coefficients. */
void stencil_constant_set_coefficients(const float *h_coef);

/*   d_in: (n)   d_out: (n), written in full; d_in and d_out do not overlap.
 * Preconditions: n >= 1. */
void stencil_constant(const float *d_in, float *d_out, int n);

/* ---------------------------------------------------------------------------------------------
 * 3.4b  Table lookup with a thread-dependent index
 *
 *   out[i] = sum over j in [0, LOOKUP_STEPS) of
 *            table[(d_idx[i] + j * LOOKUP_STRIDE) & (table_size - 1)]
 * (the sum taken in order j = 0, 1, ...; any order is accepted). The starting indices d_idx[i]
 * are random, so at every step the 32 threads of a warp read (almost always) 32 different
 * table entries: a divergent access. Through the constant cache those 32 reads are served
 * one after the other (the baseline lookup_constant_divergent); the read-only data cache
 * (__ldg) or a copy of the table in shared memory serves them together.
 *   d_table: (table_size) floats, read-only   d_idx: (n) ints in [0, table_size)
 *   d_out: (n), written in full.
 * Preconditions: n >= 1; table_size is a power of two, 1 <= table_size <= LOOKUP_MAX_TABLE.
 */
void lookup_divergent(const float *d_table, const int *d_idx, float *d_out, int n, int table_size);

/* ---------------------------------------------------------------------------------------------
 * 3.4c  2D 3x3 stencil through the read-only data cache
 *
 *   out(y, x) = sum over dy, dx in {-1, 0, 1} of w(dy, dx) * in(y + dy, x + dx),
 *   w = [1 2 1; 2 4 2; 1 2 1] / 16 (a binomial blur), in(y', x') = 0 outside the image.
 *   d_in, d_out: (height, width) row-major, element (y, x) at y * width + x.
 * ALIASING: d_in may EQUAL d_out (the harness calls it in place too). The result must then be
 * the same as with separate buffers: every output reads the ORIGINAL 3x3 neighbourhood. A
 * kernel that reads and writes one buffer has no such guarantee (a neighbour may already be
 * overwritten), and a pointer declared `const __restrict__` (or read with __ldg) promises the
 * compiler that no other pointer writes it while the kernel runs: a broken promise is
 * undefined behaviour. Detect d_in == d_out in the launcher and go through a temporary copy.
 * Preconditions: width, height >= 1; height <= STENCIL2D_MAX_HEIGHT (a block covers at least 8
 * rows, or the kernel loops over rows: see STENCIL2D_MAX_HEIGHT); d_in and d_out are either
 * equal or do not overlap.
 */
void stencil_readonly(const float *d_in, float *d_out, int width, int height);

/* ---------------------------------------------------------------------------------------------
 * 3.4d  Image resampling with hardware bilinear filtering (texture object)
 *
 * The launcher copies the image into a cudaArray (or pitched memory: cudaResourceTypePitch2D),
 * creates a texture object on it (linear filtering, element-type read mode), launches the
 * kernel, then destroys the texture object and frees the memory.
 * Output pixel (ox, oy) samples the input at the texel coordinates
 *   x = (ox + 0.5) * in_w / out_w,   y = (oy + 0.5) * in_h / out_h,
 * where texel (i, j)'s centre lies at (i + 0.5, j + 0.5): at 1x, x = ox + 0.5 reproduces the
 * input exactly. The result is the hardware's bilinear interpolation of the 4 texels around
 * (x, y) (Programming Guide, "Texture Fetching": x_B = x - 0.5, i = floor(x_B),
 * alpha = frac(x_B) in 9-bit fixed point with 8 fractional bits).
 *   wrap = 0: texels outside the image repeat the edge texel (cudaAddressModeClamp); the
 *             coordinates may be unnormalized, tex2D<float>(tex, x, y).
 *   wrap = 1: the image repeats periodically (cudaAddressModeWrap): texel -1 is texel
 *             in_w - 1. Wrap REQUIRES normalized coordinates (normalizedCoords = 1,
 *             tex2D<float>(tex, x / in_w, y / in_h)): the Programming Guide supports it only
 *             with them. With unnormalized coordinates no error is reported, and on the H200
 *             wrap behaved like clamp.
 *   d_in: (in_h, in_w) row-major   d_out: (out_h, out_w) row-major, written in full.
 * Preconditions: all sizes >= 1 and at most 65536 (cudaArray limits); wrap is 0 or 1.
 */
void texture_resample(const float *d_in, int in_w, int in_h, float *d_out, int out_w, int out_h,
                      int wrap);

/* ---------------------------------------------------------------------------------------------
 * 3.4e  Jacobi iterations through a texture (reads) and a surface (writes)
 *
 * One Jacobi step of the 5-point stencil, edges replicated (clamped):
 *   u'(x, y) = 0.25 * (u(x - 1, y) + u(x + 1, y) + u(x, y - 1) + u(x, y + 1)),
 *   where u(x', y') = u(clamp(x', 0, width - 1), clamp(y', 0, height - 1)).
 * d_out = the result of `iters` steps starting from d_in. The launcher ping-pongs between two
 * cudaArrays (flag cudaArraySurfaceLoadStore), each with a texture object (point filtering,
 * clamp addressing) to read it and a surface object to write it; the kernel reads with
 * tex2D<float> and writes with surf2Dwrite, whose x coordinate is in BYTES
 * (x * sizeof(float)). At the end it copies the last array to d_out (cudaMemcpy2DFromArray).
 *   d_in, d_out: (height, width) row-major; d_in is not modified.
 * Preconditions: width, height >= 1 and at most 65536; iters >= 1.
 */
void jacobi_texture(const float *d_in, float *d_out, int width, int height, int iters);

#ifdef __cplusplus
}
#endif

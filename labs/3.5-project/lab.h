/* lab.h — lab 3.5 "Project: choose the right memory space for a real image pipeline": the C API
 * between the harness and kernels.cu.
 *
 * Pristine: the harness (harness.cu) calls these functions; you implement them in kernels.cu.
 * The skeleton gives you a CORRECT but slow pipeline (global memory only, some reads not
 * coalesced). Your task is to make it fast by putting each stage's data in the memory space that
 * fits its access pattern — texture hardware for the bilinear resampling, constant memory for
 * the warp-uniform blur coefficients, shared-memory tiles with a halo for the blur and the
 * Sobel stencil — and to say in REPORT.md what you chose and what it measured. You may
 * restructure freely behind this API (fuse stages, change tiles, add kernels); only these
 * functions' behaviour is graded.
 *
 * The pipeline (image_pipeline) runs four stages on an 8-bit greyscale photograph:
 *   1. resample_bilinear   src (src_h, src_w) uint8  -> R (dst_h, dst_w) float grey levels
 *   2. gaussian_blur       R                          -> B (dst_h, dst_w) float, separable,
 *                                                        radius <= BLUR_MAX_RADIUS
 *   3. sobel_magnitude     B                          -> G (dst_h, dst_w) float, |gradient|
 *   4. gradient_to_u8      G                          -> dst (dst_h, dst_w) uint8
 * Every stage is also an exercise of its own: the harness calls its launcher alone on random
 * inputs, then the whole pipeline on the photograph (labs/3.5-project/data/astronaut.pgm).
 *
 * Conventions (all launchers):
 *   - DEVICE pointers to row-major images, element (y, x) at y * width + x; widen before
 *     multiplying: (size_t)y * width. Values are grey levels: uint8 in [0, 255], and floats in
 *     the same units (a float image of a uint8 image holds 0.0f .. 255.0f, NOT 0 .. 1).
 *   - Borders: every stage that reads outside the image CLAMPS to the edge (the pixel at
 *     (clamp(y, 0, height - 1), clamp(x, 0, width - 1)) is read), like the texture unit's
 *     cudaAddressModeClamp.
 *   - The default stream; return nothing: the harness checks every call for you
 *     (cudaGetLastError, then the kernels' execution after cudaDeviceSynchronize) and reports
 *     any error, including those of runtime calls your launcher made and did not check
 *     (cudaMemcpyToSymbol, cudaMallocArray, cudaCreateTextureObject, ...).
 *   - A launcher may synchronise when it must (cudaFreeArray does so implicitly).
 *   - Each call may pass other buffers, holding other values (the timed runs give each launch
 *     inputs of its own): keep nothing from one call for the next that depends on the
 *     pointers or on what they hold.
 *   - Sizes are arbitrary: never assume multiples of a block or a tile. All sizes are >= 1 and
 *     at most 65536 per side (cudaArray limits), with width * height < 2^31.
 *   - Input and output buffers never overlap.
 *
 * Declared extern "C" so the symbols are unmangled (the grader's symbol check).
 *
 * Sources: seed lectures 000 (global memory, coalescing), 001 (shared memory, tiles and halos)
 * and 002 (constant and texture memory); CUDA C++ Programming Guide, "Device Memory Accesses",
 * "Shared Memory", "Texture and Surface Memory" and the "Texture Fetching" appendix (linear
 * filtering, 1/256 weights); the 3x3 Sobel (Sobel-Feldman) gradient operator and the
 * separable Gaussian smoothing filter as in Gonzalez and Woods, "Digital Image Processing"
 * (chapters on spatial filtering and on edge detection).
 */
#pragma once

/* The largest blur radius; a kernel has 2 * radius + 1 <= BLUR_MAX_TAPS taps (17 floats:
 * they fit any __constant__ array you declare). */
#define BLUR_MAX_RADIUS 8
#define BLUR_MAX_TAPS (2 * BLUR_MAX_RADIUS + 1)

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * 3.5a  Stage 1: bilinear resampling of the 8-bit source to the working size
 *
 * Output pixel (ox, oy) samples the source at the texel coordinates
 *   x = (ox + 0.5) * src_w / dst_w,   y = (oy + 0.5) * src_h / dst_h,
 * where texel (i, j)'s centre lies at (i + 0.5, j + 0.5) (the texture unit's convention; at 1x
 * x = ox + 0.5 reproduces the source exactly). The value is the bilinear interpolation of the 4
 * texels around (x, y) with x_B = x - 0.5, i = floor(x_B), alpha = x_B - i (y likewise: j,
 * beta), texel indices clamped to the image, in grey levels (0.0f .. 255.0f).
 * The texture unit computes alpha and beta in 9-bit fixed point with 8 fractional bits
 * (Programming Guide, "Texture Fetching"): the harness's tolerance allows that, so
 *   - a texture on a cudaArray of unsigned char, cudaFilterModeLinear,
 *     cudaReadModeNormalizedFloat (returns value / 255: multiply by 255.0f), and
 *   - exact software interpolation in float from global memory
 * both pass.
 *   d_src: (src_h, src_w) uint8   d_dst: (dst_h, dst_w) float, written in full.
 */
void resample_bilinear(const unsigned char *d_src, int src_w, int src_h, float *d_dst, int dst_w,
                       int dst_h);

/* ---------------------------------------------------------------------------------------------
 * 3.5b  Stage 2: separable Gaussian blur
 *
 *   t(y, x)   = sum_{k=-r..r} w[k + r] * in(y, x + k)
 *   out(y, x) = sum_{k=-r..r} w[k + r] * t(y + k, x)
 * (a horizontal pass, then a vertical pass), indices clamped to the image. The weights
 * h_weights (a HOST array of 2r + 1 floats, symmetric, positive, summing to 1 within rounding)
 * are the same for every pixel: every thread of a warp reads w[k] at the same time (one
 * address: a broadcast from constant memory). Neighbouring outputs share 2r of their 2r + 1
 * inputs (reuse: a shared-memory tile with a halo of r on each side).
 *   d_in: (height, width) float   d_out: (height, width) float, written in full
 *   d_tmp: (height, width) float scratch you may use (e.g. for t); its contents on entry and
 *          exit are unspecified.
 * Preconditions: 0 <= radius <= BLUR_MAX_RADIUS (radius 0: out = w[0] * in).
 */
void gaussian_blur(const float *d_in, float *d_out, float *d_tmp, int width, int height,
                   const float *h_weights, int radius);

/* ---------------------------------------------------------------------------------------------
 * 3.5c  Stage 3: Sobel gradient magnitude
 *
 *   gx(y, x) = [in(y-1, x+1) + 2 in(y, x+1) + in(y+1, x+1)]
 *            - [in(y-1, x-1) + 2 in(y, x-1) + in(y+1, x-1)]
 *   gy(y, x) = [in(y+1, x-1) + 2 in(y+1, x) + in(y+1, x+1)]
 *            - [in(y-1, x-1) + 2 in(y-1, x) + in(y-1, x+1)]
 *   out(y, x) = sqrt(gx^2 + gy^2)
 * with indices clamped to the image (so a constant image gives 0 everywhere, borders too).
 * A 3x3 stencil: a tile with a halo of 1.
 *   d_in: (height, width) float   d_out: (height, width) float, written in full.
 */
void sobel_magnitude(const float *d_in, float *d_out, int width, int height);

/* ---------------------------------------------------------------------------------------------
 * 3.5d  Stage 4: 8-bit output
 *
 *   out(y, x) = min(255, floor(scale * in(y, x) + 0.5))     (in >= 0: a gradient magnitude)
 * i.e. scale * in rounded to the nearest integer, halves up, saturated at 255.
 *   d_in: (height, width) float, >= 0   d_out: (height, width) uint8, written in full.
 * Preconditions: scale > 0.
 */
void gradient_to_u8(const float *d_in, unsigned char *d_out, int width, int height, float scale);

/* ---------------------------------------------------------------------------------------------
 * 3.5e  The whole pipeline: stages 1-4 in order, as specified above
 *
 *   d_dst = gradient_to_u8(sobel_magnitude(gaussian_blur(resample_bilinear(d_src))), scale)
 * You may fuse stages and skip intermediates: only d_dst is graded (end to end against the
 * CPU reference: per pixel within the propagated tolerance; the PSNR is reported, not scored)
 * and timed (against the naive pipeline of the skeleton, in the same run).
 *   d_src: (src_h, src_w) uint8   d_dst: (dst_h, dst_w) uint8, written in full
 *   h_weights: HOST array of 2 * radius + 1 floats (as gaussian_blur)
 *   d_scratch: 3 * dst_w * dst_h floats of device scratch (three working images) you may use;
 *              contents on entry and exit unspecified.
 * Preconditions: 0 <= radius <= BLUR_MAX_RADIUS; gradient_scale > 0.
 */
void image_pipeline(const unsigned char *d_src, int src_w, int src_h, unsigned char *d_dst,
                    int dst_w, int dst_h, const float *h_weights, int radius, float gradient_scale,
                    float *d_scratch);

#ifdef __cplusplus
}
#endif

/* baselines.h — lab 3.5: the course's naive pipeline, the baseline every exercise is timed
 * against (the run document's "ratio" = baseline / student; image_pipeline is timed against
 * image_pipeline_naive). Pristine.
 *
 * The same computation as lab.h, stage by stage, in the most direct way: one thread per output
 * pixel, every operand read from GLOBAL memory (the blur weights too, from d_weights), no shared
 * memory, no texture, and the vertical blur pass mapped with consecutive threads walking DOWN a
 * column (uncoalesced: a warp touches 32 rows). The skeleton's kernels.cu starts from the same
 * code. Launchers take DEVICE pointers, work on the default stream and never synchronise.
 */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* lab.h's resample_bilinear, interpolating in software (float32, exact weights) from global
 * memory. */
void resample_naive(const unsigned char *d_src, int src_w, int src_h, float *d_dst, int dst_w,
                    int dst_h);

/* lab.h's gaussian_blur with the 2 radius + 1 weights read from global memory (d_weights, on
 * the device): a horizontal pass into d_tmp (coalesced) and a vertical pass (uncoalesced). */
void gaussian_blur_naive(const float *d_in, float *d_out, float *d_tmp, int width, int height,
                         const float *d_weights, int radius);

/* lab.h's sobel_magnitude: 9 global loads per output. */
void sobel_naive(const float *d_in, float *d_out, int width, int height);

/* lab.h's gradient_to_u8. */
void gradient_to_u8_naive(const float *d_in, unsigned char *d_out, int width, int height,
                          float scale);

/* lab.h's image_pipeline: the four launchers above in order, through d_scratch
 * (3 * dst_w * dst_h floats). */
void image_pipeline_naive(const unsigned char *d_src, int src_w, int src_h, unsigned char *d_dst,
                          int dst_w, int dst_h, const float *d_weights, int radius,
                          float gradient_scale, float *d_scratch);

#ifdef __cplusplus
}
#endif

/* harness.cu — lab 3.5 "Project: choose the right memory space for a real image pipeline": the
 * pristine harness (students never edit it; the grader always builds a submission against this
 * copy).
 *
 * The course driver (common/cml_lab.h) owns the command line, poisoning the output, the launch
 * checks, the comparison, the timing and the JSON run document (docs/protocol.md). This file
 * describes the lab's five exercises to it (how they are graded: handouts/3.5-project.md,
 * "What is graded"):
 *   resample_bilinear  [src_w, src_h, dst_w, dst_h]   random uint8       vs resample_naive
 *   gaussian_blur      [width, height, radius + 1]    float in [0, 255)  vs gaussian_blur_naive
 *   sobel_magnitude    [width, height]                float in [0, 255)  vs sobel_naive
 *   gradient_to_u8     [width, height]                float in [0, 600)  no baseline
 *   image_pipeline     [dst_w, dst_h, radius + 1]     THE PHOTOGRAPH,    image_pipeline_naive
 *                                                     oriented by the seed
 * For each one it owns only setup (inputs from the seed, the float64 reference from
 * reference.c, at every position or, on large outputs, at a sample, with memory taken from the
 * driver (cml_setup.h), which frees it) and the launches; image_pipeline's teardown only
 * writes its images when asked to (pipeline_write_images).
 *
 * uint8 outputs. The driver compares a float32 device buffer (cml_problem.d_out). The two
 * exercises with a uint8 output (gradient_to_u8, image_pipeline) write into a uint8 buffer of
 * their own (cml_problem.d_raw, poisoned with POISON_U8 before every checked launch), and their
 * finish() widens it into d_out after the launch, outside any timing (widen_u8_kernel).
 *
 * The photograph's orientation: each seed shows it in one of its eight orientations (mirrors
 * and quarter turns: orient_photograph), so the input sets a judged timing rotates among differ,
 * and an output kept from another repetition is wrong.
 *
 * Tolerances: per element, the `tol` of reference.h (texture weights in 1/256 steps for stage 1,
 * propagated through the blur and Sobel, 0.5 for the rounding to an integer), passed as the
 * magnitude with gamma = 1.
 *
 * The photograph: data/astronaut.pgm (data/SOURCE.md), embedded in the binary at build time
 * (photograph.c: the grader runs the binary in an empty work directory); the environment variable
 * CML_LAB35_IMAGE names another PGM to use instead. CML_LAB35_WRITE=DIR makes the pipeline
 * exercise write its output (and, with CML_LAB35_STAGES=1, the stages' images) as PGM files
 * into DIR (pipeline_write_images).
 *
 * Sources: CUDA C++ Programming Guide (runtime API, "Texture Fetching"); NVIDIA cuda-samples'
 * allocate -> initialise -> copy -> launch -> copy back -> verify -> free.
 */
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime_api.h>

#include "baselines.h"
#include "cml_check.h"
#include "cml_compare.h"
#include "cml_lab.h"
#include "cml_pgm.h"
#include "cml_rng.h"
#include "cml_sample.h"
#include "cml_setup.h"
#include "lab.h"
#include "photograph.h"
#include "reference.h"

/* Every position is checked when the output has at most CHECK_ALL_MAX_PIXELS pixels (the
 * float64 references then take at most ~0.5 GB and a few seconds); otherwise a sample: the first
 * and last CHECK_SAMPLE_BORDER rows and columns in full (every edge tile up to 32 wide lies
 * there) plus CHECK_SAMPLE_RANDOM positions drawn from the seed. */
#define CHECK_ALL_MAX_PIXELS ((size_t)1 << 21)
#define CHECK_SAMPLE_BORDER 32
#define CHECK_SAMPLE_RANDOM 16384
/* The pipeline's one-pixel reference costs 9 (2r + 1)^2 bilinear evaluations (2601 at r = 8):
 * its sample keeps only the first and last PIPELINE_SAMPLE_BORDER rows and columns (where the
 * clamped borders are) besides the random positions. The stage exercises check the edge tiles. */
#define PIPELINE_SAMPLE_BORDER 2

/* Largest side of any image (cudaArray limits; lab.h's precondition). */
#define MAX_SIDE 65536

/* gradient_to_u8's scale. image_pipeline's is PIPELINE_SCALE_PER_ZOOM times the zoom
 * max(1, dst_w / src_w): resampling up by a factor z divides the gradients by z, and without
 * the factor an 8192-pixel-wide output of the 512-pixel photograph would be almost black (a
 * weak test). CPU measurement (reference.c, r = 8): the largest gradient at 1448 x 1448 is 191,
 * i.e. 270 after the scale 0.5 * 2.83: a few of the strongest edges saturate. */
#define U8_SCALE 0.5f
#define PIPELINE_SCALE_PER_ZOOM 0.5f

/* The pattern a uint8 output is filled with before the student's launcher runs. */
#define POISON_U8 0xA5

/* The blur's sigma for a radius: radius / 2 (the weights then fall to exp(-2) = 0.14 of the
 * centre at the last tap), at least 0.5. */
static double sigma_for_radius(int radius) {
    return radius > 1 ? radius / 2.0 : 0.5;
}

/* lab.h's bounds on an image of w x h. */
static const char *check_image_size(long long w, long long h) {
    if (w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE) {
        return "width and height must be 1 to 65536";
    }
    if (w * h >= (long long)INT_MAX) {
        return "width * height must be below 2^31";
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * The positions checked and their references, shared by the exercises.
 */

/* The positions checked, published in *p (cml_check): every one up to CHECK_ALL_MAX_PIXELS,
 * else `border` rows and columns on every side in full (the clamped borders) plus
 * CHECK_SAMPLE_RANDOM positions drawn from rng (cml_sample.h). The reference goes to ref, the
 * tolerance to mag: mag is the tolerance itself (gamma = 1). */
static cml_check_set *check_init(cml_problem *p, size_t width, size_t height, size_t border,
                                 cml_rng *rng) {
    const cml_sample_spec sample = {border, border, border, border, CHECK_SAMPLE_RANDOM};
    cml_check_set *s =
        cml_check(p, height, width, width * height > CHECK_ALL_MAX_PIXELS ? &sample : NULL, 1, rng);
    p->gamma = 1.0;
    return s;
}

/* The uint8 output of n pixels that the launchers write: p->d_raw, poisoned with POISON_U8
 * before every checked launch (the float output, d_out, comes from cml_output with no slot). */
static unsigned char *raw_output_u8(cml_problem *p, size_t n) {
    unsigned char *d_u8 = (unsigned char *)cml_device(p, n);
    p->d_raw = d_u8;
    p->raw_bytes = n;
    p->raw_poison = POISON_U8;
    return d_u8;
}

/* Widens a uint8 image to the driver's float output buffer. */
__global__ void widen_u8_kernel(const unsigned char *in, float *out, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        out[i] = (float)in[i];
    }
}

static void widen_u8(const unsigned char *d_in, float *d_out, size_t n) {
    widen_u8_kernel<<<1024, 256>>>(d_in, d_out, n);
    CML_CHECK(cudaGetLastError());
}

/* ---------------------------------------------------------------------------------------------
 * 3.5a  resample_bilinear: dst (dst_h, dst_w) float = bilinear resampling of src (src_h, src_w)
 */

typedef struct resample_ctx {
    int src_w, src_h, dst_w, dst_h;
    unsigned char *d_src;
    float *d_dst; /* the output under test */
} resample_ctx;

static const char *resample_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const char *bad = check_image_size(size[0], size[1]);
    if (bad != NULL || (bad = check_image_size(size[2], size[3])) != NULL) {
        return bad;
    }
    const size_t sw = (size_t)size[0], sh = (size_t)size[1];
    const size_t dw = (size_t)size[2], dh = (size_t)size[3];
    resample_ctx *c = CML_NEW_CTX(p, resample_ctx);
    *c = resample_ctx{(int)sw, (int)sh, (int)dw, (int)dh};

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    cml_check_set *check = check_init(p, dw, dh, CHECK_SAMPLE_BORDER, &rng);
    unsigned char *h_src = (unsigned char *)cml_scratch(p, sw * sh);
    for (size_t i = 0; i < sw * sh; ++i) {
        h_src[i] = (unsigned char)cml_rng_below(&rng, 256);
    }
    for (size_t k = 0; k < check->n; ++k) {
        const size_t i = cml_check_set_pos(check, k);
        resample_ref_at(h_src, sw, sh, dw, dh, i % dw, i / dw, &check->ref[k], &check->mag[k]);
    }

    c->d_src = (unsigned char *)cml_device_copy(p, h_src, sw * sh);
    cml_output(p, &c->d_dst, dh, dw);
    p->bytes = (double)(sw * sh) + 4.0 * (double)(dw * dh);
    p->flops = 8.0 * (double)(dw * dh); /* 3 lerps */
    return NULL;
}

static void resample_launch_student(void *ctx) {
    const resample_ctx *c = (const resample_ctx *)ctx;
    resample_bilinear(c->d_src, c->src_w, c->src_h, c->d_dst, c->dst_w, c->dst_h);
}

static void resample_launch_baseline(void *ctx) {
    const resample_ctx *c = (const resample_ctx *)ctx;
    resample_naive(c->d_src, c->src_w, c->src_h, c->d_dst, c->dst_w, c->dst_h);
}

/* ---------------------------------------------------------------------------------------------
 * 3.5b  gaussian_blur and 3.5c sobel_magnitude: out (height, width) float from in, same shape.
 * One context for both ("filter"): radius < 0 marks the Sobel exercise.
 */

typedef struct filter_ctx {
    int width, height, radius;
    float h_weights[BLUR_MAX_TAPS];
    float *d_weights; /* the baseline's copy in global memory */
    float *d_in, *d_out, *d_tmp;
} filter_ctx;

static const char *filter_setup(cml_problem *p, long long w, long long h, int radius,
                                uint64_t seed) {
    const char *bad = check_image_size(w, h);
    if (bad != NULL) {
        return bad;
    }
    const size_t width = (size_t)w, height = (size_t)h, n = width * height;
    filter_ctx *c = CML_NEW_CTX(p, filter_ctx);
    *c = filter_ctx{(int)width, (int)height, radius};

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    cml_check_set *check = check_init(p, width, height, CHECK_SAMPLE_BORDER, &rng);
    const float *h_in = cml_input_uniform(p, &rng, &c->d_in, n, 0.0f, 255.0f);
    if (radius >= 0) {
        gaussian_weights(sigma_for_radius(radius), radius, c->h_weights);
    }
    for (size_t k = 0; k < check->n; ++k) {
        const size_t i = cml_check_set_pos(check, k);
        if (radius >= 0) {
            gaussian_blur_ref_at(h_in, width, height, c->h_weights, radius, i % width, i / width,
                                 &check->ref[k], &check->mag[k]);
        } else {
            sobel_ref_at(h_in, width, height, i % width, i / width, &check->ref[k], &check->mag[k]);
        }
    }

    cml_output(p, &c->d_out, height, width);
    if (radius >= 0) {
        c->d_tmp = (float *)cml_device(p, n * sizeof(float));
        /* room for every radius; only the 2r + 1 taps in use are copied */
        c->d_weights = (float *)cml_device(p, BLUR_MAX_TAPS * sizeof(float));
        CML_CHECK(cudaMemcpy(c->d_weights, c->h_weights, (size_t)(2 * radius + 1) * sizeof(float),
                             cudaMemcpyHostToDevice));
    }
    p->bytes = 8.0 * (double)n; /* the image read once, written once: the roofline's minimum */
    p->flops = radius >= 0 ? 4.0 * (2 * radius + 1) * (double)n : 17.0 * (double)n;
    return NULL;
}

static const char *blur_setup(cml_problem *p, const long long *size, uint64_t seed) {
    /* The harness's --size takes positive integers only: radius r is given as r + 1. */
    return filter_setup(p, size[0], size[1], (int)size[2] - 1, seed);
}

static const char *sobel_setup(cml_problem *p, const long long *size, uint64_t seed) {
    return filter_setup(p, size[0], size[1], -1, seed);
}

static void blur_launch_student(void *ctx) {
    const filter_ctx *c = (const filter_ctx *)ctx;
    gaussian_blur(c->d_in, c->d_out, c->d_tmp, c->width, c->height, c->h_weights, c->radius);
}

static void blur_launch_baseline(void *ctx) {
    const filter_ctx *c = (const filter_ctx *)ctx;
    gaussian_blur_naive(c->d_in, c->d_out, c->d_tmp, c->width, c->height, c->d_weights, c->radius);
}

static void sobel_launch_student(void *ctx) {
    const filter_ctx *c = (const filter_ctx *)ctx;
    sobel_magnitude(c->d_in, c->d_out, c->width, c->height);
}

static void sobel_launch_baseline(void *ctx) {
    const filter_ctx *c = (const filter_ctx *)ctx;
    sobel_naive(c->d_in, c->d_out, c->width, c->height);
}

/* ---------------------------------------------------------------------------------------------
 * 3.5d  gradient_to_u8: out (height, width) uint8 = min(255, round(U8_SCALE * in))
 */

typedef struct to_u8_ctx {
    int width, height;
    float *d_in;
    unsigned char *d_u8; /* the student's output: p->d_raw (raw_output_u8) */
    float *d_out;        /* d_u8 widened: what the driver compares */
} to_u8_ctx;

static const char *to_u8_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const char *bad = check_image_size(size[0], size[1]);
    if (bad != NULL) {
        return bad;
    }
    const size_t width = (size_t)size[0], height = (size_t)size[1], n = width * height;
    to_u8_ctx *c = CML_NEW_CTX(p, to_u8_ctx);
    *c = to_u8_ctx{(int)width, (int)height};

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    cml_check_set *check = check_init(p, width, height, CHECK_SAMPLE_BORDER, &rng);
    /* [0, 600): U8_SCALE * 600 = 300, so about 15 % of the pixels saturate at 255. */
    const float *h_in = cml_scratch_uniform(p, &rng, n, 0.0f, 600.0f);
    for (size_t k = 0; k < check->n; ++k) {
        const double g = h_in[cml_check_set_pos(check, k)];
        to_u8_ref(&g, NULL, 1, (double)U8_SCALE, &check->ref[k], &check->mag[k]);
    }

    c->d_in = (float *)cml_device_copy(p, h_in, n * sizeof(float));
    c->d_u8 = raw_output_u8(p, n);
    c->d_out = cml_output(p, NULL, height, width); /* out_ref NULL: the launcher writes d_raw */
    p->bytes = 5.0 * (double)n;
    p->flops = 2.0 * (double)n;
    return NULL;
}

static void to_u8_launch_student(void *ctx) {
    const to_u8_ctx *c = (const to_u8_ctx *)ctx;
    gradient_to_u8(c->d_in, c->d_u8, c->width, c->height, U8_SCALE);
}

static void to_u8_finish(void *ctx, double run_ms) {
    (void)run_ms;
    const to_u8_ctx *c = (const to_u8_ctx *)ctx;
    widen_u8(c->d_u8, c->d_out, (size_t)c->width * c->height);
}

/* ---------------------------------------------------------------------------------------------
 * 3.5e  image_pipeline: dst (dst_h, dst_w) uint8 from the photograph, end to end
 */

typedef struct pipeline_ctx {
    int src_w, src_h, dst_w, dst_h, radius;
    float scale; /* gradient_scale */
    float h_weights[BLUR_MAX_TAPS];
    float *d_weights; /* the naive pipeline's copy in global memory */
    unsigned char *d_src;
    unsigned char *d_u8;  /* the output of the student's pipeline (and of the naive one) */
    float *d_scratch;     /* 3 * dst_w * dst_h */
    float *d_out;         /* d_u8 widened: what the driver compares */
    cml_check_set *check; /* the positions checked (pipeline_extra_metrics) */
} pipeline_ctx;

/* Orientation k of img, of its eight (bit 0: mirror left-right, bit 1: mirror top-bottom,
 * bit 2: transpose, applied first; width and height swap with it), in p's scratch memory (freed
 * after setup(), as img's pixels are: pipeline_setup hands them to the driver). img's width and
 * height become the oriented image's. */
static const unsigned char *orient_photograph(cml_problem *p, cml_image_u8 *img, unsigned k) {
    const size_t w = (size_t)img->width, h = (size_t)img->height;
    unsigned char *out = (unsigned char *)cml_scratch(p, w * h);
    const int transpose = (k & 4u) != 0;
    const size_t ow = transpose ? h : w, oh = transpose ? w : h;
    for (size_t y = 0; y < oh; ++y) {
        for (size_t x = 0; x < ow; ++x) {
            const size_t sx = (k & 1u) ? ow - 1 - x : x, sy = (k & 2u) ? oh - 1 - y : y;
            out[y * ow + x] = transpose ? img->pixels[sx * w + sy] : img->pixels[sy * w + sx];
        }
    }
    img->width = (int)ow;
    img->height = (int)oh;
    return out;
}

/* Loads the photograph: the file named by CML_LAB35_IMAGE when set (to try another picture),
 * else the copy compiled into the binary. Returns NULL, or a static message. */
static const char *load_photograph(cml_image_u8 *img) {
    const char *env = getenv("CML_LAB35_IMAGE");
    if (env != NULL && env[0] != '\0') {
        return cml_pgm_read(env, img);
    }
    return cml_pgm_parse(kPhotographPgm, kPhotographPgmSize, img);
}

static const char *pipeline_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const char *bad = check_image_size(size[0], size[1]);
    if (bad != NULL) {
        return bad;
    }
    cml_image_u8 img;
    const char *err = load_photograph(&img);
    if (err != NULL) {
        return err;
    }
    cml_scratch_adopt(p, img.pixels); /* freed with the scratch, on every path */
    cml_rng rng;
    cml_rng_seed(&rng, seed); /* the photograph's orientation, then the sample's positions */
    /* A picture that is not square keeps its shape (no transpose): every seed's input then has
     * the same size, as the input sets of a judged timing must. */
    const unsigned orientations = img.width == img.height ? 8u : 4u;
    const unsigned char *src =
        orient_photograph(p, &img, (unsigned)cml_rng_below(&rng, orientations));
    const size_t sw = (size_t)img.width, sh = (size_t)img.height;
    const size_t dw = (size_t)size[0], dh = (size_t)size[1], n = dw * dh;
    pipeline_ctx *c = CML_NEW_CTX(p, pipeline_ctx);
    *c = pipeline_ctx{(int)sw, (int)sh, (int)dw, (int)dh, (int)size[2] - 1};
    cml_check_set *check = c->check = check_init(p, dw, dh, PIPELINE_SAMPLE_BORDER, &rng);
    gaussian_weights(sigma_for_radius(c->radius), c->radius, c->h_weights);
    const float zoom = (float)dw / (float)sw;
    c->scale = PIPELINE_SCALE_PER_ZOOM * (zoom > 1.0f ? zoom : 1.0f);
    const double scale = (double)c->scale; /* the float the GPU receives, widened */

    if (check->idx == NULL) { /* every position: the whole-image chain (n <= 2^21) */
        double *r = (double *)cml_scratch(p, 4 * n * sizeof(double)), *rt = r + n, *b = rt + n,
               *bt = b + n;
        resample_ref(src, sw, sh, dw, dh, r, rt);
        if (!gaussian_blur_ref(r, rt, dw, dh, c->h_weights, c->radius, b, bt)) {
            return cml_no_host_memory; /* its own temporaries (reference.c): kind "host" */
        }
        sobel_ref(b, bt, dw, dh, r, rt); /* the gradient, into r */
        to_u8_ref(r, rt, n, scale, check->ref, check->mag);
    } else { /* a sample: one pixel at a time */
        for (size_t k = 0; k < check->n; ++k) {
            const size_t i = check->idx[k];
            double v[4], t[4];
            pipeline_ref_at(src, sw, sh, dw, dh, c->h_weights, c->radius, scale, i % dw, i / dw, v,
                            t);
            check->ref[k] = v[3];
            check->mag[k] = t[3];
        }
    }

    c->d_src = (unsigned char *)cml_device_copy(p, src, sw * sh);
    /* room for every radius; only the 2r + 1 taps in use are copied */
    c->d_weights = (float *)cml_device(p, BLUR_MAX_TAPS * sizeof(float));
    CML_CHECK(cudaMemcpy(c->d_weights, c->h_weights, (size_t)(2 * c->radius + 1) * sizeof(float),
                         cudaMemcpyHostToDevice));
    c->d_u8 = raw_output_u8(p, n);
    c->d_scratch = (float *)cml_device(p, 3 * n * sizeof(float));
    c->d_out = cml_output(p, NULL, dh, dw); /* out_ref NULL: the launchers write d_raw */
    /* A fully fused pipeline: src in, dst out. The copy roof of a timed run copies half of it,
     * reading and writing src + dst bytes, so pct_of_copy 100 would be a pipeline that costs no
     * more than reading its input and writing its output once. */
    p->bytes = (double)(sw * sh) + (double)n;
    return NULL;
}

/* The graded launch: the student's image_pipeline into d_u8. */
static void pipeline_launch_student(void *ctx) {
    const pipeline_ctx *c = (const pipeline_ctx *)ctx;
    image_pipeline(c->d_src, c->src_w, c->src_h, c->d_u8, c->dst_w, c->dst_h, c->h_weights,
                   c->radius, c->scale, c->d_scratch);
}

/* The baseline: the naive chain of the given stages (baselines.cu), into the same d_u8. */
static void pipeline_launch_baseline(void *ctx) {
    const pipeline_ctx *c = (const pipeline_ctx *)ctx;
    image_pipeline_naive(c->d_src, c->src_w, c->src_h, c->d_u8, c->dst_w, c->dst_h, c->d_weights,
                         c->radius, c->scale, c->d_scratch);
}

static void pipeline_finish(void *ctx, double run_ms) {
    (void)run_ms;
    const pipeline_ctx *c = (const pipeline_ctx *)ctx;
    widen_u8(c->d_u8, c->d_out, (size_t)c->dst_w * c->dst_h);
}

/* Extra metric (after the first verified run, status ok; in the process that compares):
 *   psnr_db   the student's output against the reference rounded to integers, at the checked
 *             positions (PSNR_IDENTICAL_DB when equal everywhere checked). Accuracy, not
 *             speed: reported, not scored. */
static void pipeline_extra_metrics(void *ctx, cml_metrics *m) {
    pipeline_ctx *c = (pipeline_ctx *)ctx;
    const size_t n = (size_t)c->dst_w * c->dst_h;
    unsigned char *h_u8 = (unsigned char *)malloc(n);
    const cml_check_set *check = c->check;
    float *got = (float *)malloc(check->n * sizeof(float));
    double *want = (double *)malloc(check->n * sizeof(double));
    if (h_u8 == NULL || got == NULL || want == NULL) {
        free(h_u8);
        free(got);
        free(want);
        return; /* no PSNR: the report says it is missing */
    }
    CML_CHECK(cudaMemcpy(h_u8, c->d_u8, n, cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < check->n; ++k) {
        got[k] = (float)h_u8[cml_check_set_pos(check, k)];
        want[k] = floor(check->ref[k] + 0.5);
    }
    cml_metrics_add(m, "psnr_db", psnr_db(want, got, check->n, 255.0));
    free(h_u8);
    free(got);
    free(want);
}

/* Copies a device image to the host and writes it as DIR/name. u8: uint8 pixels, else float
 * written with cml_pgm_write_f32 at `scale`. Problems go to stderr (stdout carries the run
 * document); the run's result does not change. */
static void write_device_image(const char *dir, const char *name, const void *d_img, int u8, int w,
                               int h, float scale) {
    const size_t n = (size_t)w * h, bytes = u8 ? n : n * sizeof(float);
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        fprintf(stderr, "lab 3.5: CML_LAB35_WRITE: the folder name is too long\n");
        return;
    }
    void *h_img = malloc(bytes);
    if (h_img == NULL) {
        fprintf(stderr, "lab 3.5: %s not written: no host memory for %zu bytes\n", path, bytes);
        return;
    }
    const cudaError_t e = cudaMemcpy(h_img, d_img, bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        fprintf(stderr, "lab 3.5: %s not written: %s\n", path, cudaGetErrorString(e));
    } else if ((u8 ? cml_pgm_write(path, (const unsigned char *)h_img, w, h)
                   : cml_pgm_write_f32(path, (const float *)h_img, w, h, scale)) != 0) {
        fprintf(stderr, "lab 3.5: %s not written: %s\n", path, strerror(errno));
    } else {
        fprintf(stderr, "lab 3.5: wrote %s (%d x %d)\n", path, w, h);
    }
    free(h_img);
}

/* CML_LAB35_WRITE=DIR (an existing folder): the pipeline's images, to look at (handout 3.5,
 * "Looking at the picture"):
 *   DIR/pipeline.pgm           the student's image_pipeline output as graded (its last run)
 * and with CML_LAB35_STAGES=1 also, from the student's stage functions run once more on the
 * photograph in order (three more launches):
 *   DIR/stage1-resampled.pgm   resample_bilinear, grey levels
 *   DIR/stage2-blurred.pgm     gaussian_blur of it, grey levels
 *   DIR/stage3-gradient.pgm    sobel_magnitude of that, times the pipeline's gradient scale
 * (stage 4 of those is pipeline.pgm when the student's stages agree with their pipeline). */
static void pipeline_write_images(const pipeline_ctx *c) {
    const char *dir = getenv("CML_LAB35_WRITE");
    if (dir == NULL || dir[0] == '\0') {
        return;
    }
    const int w = c->dst_w, h = c->dst_h;
    write_device_image(dir, "pipeline.pgm", c->d_u8, 1, w, h, 1.0f);
    const char *stages = getenv("CML_LAB35_STAGES");
    if (stages == NULL || strcmp(stages, "1") != 0) {
        return;
    }
    float *resampled = c->d_scratch, *blurred = resampled + (size_t)w * h,
          *gradient = blurred + (size_t)w * h;
    resample_bilinear(c->d_src, c->src_w, c->src_h, resampled, w, h);
    gaussian_blur(resampled, blurred, gradient, w, h, c->h_weights, c->radius);
    sobel_magnitude(blurred, gradient, w, h);
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "lab 3.5: the stages' images not written: %s\n", cudaGetErrorString(e));
        return;
    }
    write_device_image(dir, "stage1-resampled.pgm", resampled, 0, w, h, 1.0f);
    write_device_image(dir, "stage2-blurred.pgm", blurred, 0, w, h, 1.0f);
    write_device_image(dir, "stage3-gradient.pgm", gradient, 0, w, h, c->scale);
}

/* Frees nothing (the driver frees the buffers after it): it writes the images CML_LAB35_WRITE
 * asks for while the device buffers are still there. */
static void pipeline_teardown(cml_problem *p) {
    pipeline_write_images((const pipeline_ctx *)p->ctx);
}

/* --------------------------------------------------------------------------------------------- */

static const cml_exercise kExercises[] = {
    /* No kernel: the project's student chooses the kernels and their memory spaces. */
    {.name = "resample_bilinear",
     .dim_names = "src_w,src_h,dst_w,dst_h",
     .n_dims = 4,
     .baseline = "resample_naive",
     .arrays = "src_w*src_h,dst_w*dst_h",
     .setup = resample_setup,
     .launch_student = resample_launch_student,
     .launch_baseline = resample_launch_baseline,
     .launchers = "resample_bilinear"},
    {.name = "gaussian_blur",
     .dim_names = "width,height,radius_plus_1",
     .n_dims = 3,
     .baseline = "gaussian_blur_naive",
     .dim_max = {MAX_SIDE, MAX_SIDE, BLUR_MAX_RADIUS + 1},
     .arrays = "width*height",
     .setup = blur_setup,
     .launch_student = blur_launch_student,
     .launch_baseline = blur_launch_baseline,
     .launchers = "gaussian_blur"},
    {.name = "sobel_magnitude",
     .dim_names = "width,height",
     .n_dims = 2,
     .baseline = "sobel_naive",
     .arrays = "width*height",
     .setup = sobel_setup,
     .launch_student = sobel_launch_student,
     .launch_baseline = sobel_launch_baseline,
     .launchers = "sobel_magnitude"},
    {.name = "gradient_to_u8",
     .dim_names = "width,height",
     .n_dims = 2,
     .arrays = "width*height",
     .setup = to_u8_setup,
     .launch_student = to_u8_launch_student,
     .finish = to_u8_finish,
     .launchers = "gradient_to_u8"},
    /* the stages too: CML_LAB35_STAGES=1 writes their images (pipeline_write_images) */
    {.name = "image_pipeline",
     .dim_names = "dst_w,dst_h,radius_plus_1",
     .n_dims = 3,
     .baseline = "image_pipeline_naive",
     .dim_max = {MAX_SIDE, MAX_SIDE, BLUR_MAX_RADIUS + 1},
     .arrays = "dst_w*dst_h",
     .setup = pipeline_setup,
     .launch_student = pipeline_launch_student,
     .launch_baseline = pipeline_launch_baseline,
     .teardown = pipeline_teardown,
     .extra_metrics = pipeline_extra_metrics,
     .finish = pipeline_finish,
     .launchers = "image_pipeline,resample_bilinear,gaussian_blur,sobel_magnitude"},
};

int main(int argc, char **argv) {
    return cml_lab_main(argc, argv, "3.5", kExercises,
                        (int)(sizeof kExercises / sizeof kExercises[0]));
}

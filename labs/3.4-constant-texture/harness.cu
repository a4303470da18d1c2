/* harness.cu — lab 3.4 "Constant, read-only and texture memory": the pristine harness (students
 * never edit it; the grader always builds a submission against this copy).
 *
 * The course driver (common/cml_lab.h) owns the command line, poisoning the output, the launch
 * checks, the comparison, the timing and the JSON run document (docs/protocol.md). This file
 * describes the lab's five exercises to it; for each one it owns only
 *   - setup: check the size, draw the inputs from the seed (cml_rng.h, uniform in [-1, 1)),
 *     copy them to the device, and compute the float64 CPU reference (reference.c) at every
 *     output position (every case of this lab is small enough for that), with memory taken
 *     from the driver (cml_setup.h), which frees it;
 *   - the two launches: the student's launcher (kernels.cu, API in lab.h) and the baseline
 *     (baselines.cu), both writing the problem's output buffer.
 * The texture exercises' CUDA arrays and texture objects live inside the launchers (the
 * student's and the baselines'), which create and destroy them: the harness holds none, so no
 * exercise needs a teardown.
 * Every CUDA call the harness makes is checked (CML_CHECK); the student's set-up call
 * stencil_constant_set_coefficients is followed by a cudaGetLastError check, so a failed
 * cudaMemcpyToSymbol (e.g. given &symbol) is reported as the CUDA error it is.
 *
 * Tolerances (cml_compare.h: |got - ref| <= gamma * mag + abs_floor, per element):
 *   stencil_constant, lookup_divergent, stencil_readonly: a float32 sum of K terms in any
 *     order, with or without FMA, is within gamma_K * sum |terms| of the exact value (Higham,
 *     "Accuracy and Stability of Numerical Algorithms", 2nd ed., eq. 3.5): K = 9, 64, 9.
 *   texture_resample: the texture unit's weights alpha, beta are rounded to 1/256 (CUDA C++
 *     Programming Guide, "Texture Fetching": 9-bit fixed point with 8 fractional bits; the
 *     rounding mode is not specified), and the float32 coordinate carries a rounding error of a
 *     few ulps of its magnitude. The filtered value moves by at most `spread` (max - min of the
 *     4 texels blended) per unit of alpha or beta, so per element
 *         tol = (d_x + d_y) * spread + 2^-16 * max |texel|,
 *         d_x = TEX_WEIGHT_SLACK + 4 * in_w * 2^-24   (d_y likewise with in_h),
 *     the last term a floor of 256 float ulps of the largest texel (where the 4 texels are
 *     equal the spread is 0, and the texture unit still rounds its blend),
 *     passed as mag = tol, gamma = 1. It is tight: sampling without the + 0.5 texel centre at 1x
 *     is off by about spread / 2 on almost every pixel.
 *   jacobi_texture: each step adds at most gamma_4 * max|u| (an average of 4 values), and a
 *     step is non-expansive (max norm), so after `iters` steps the error is at most
 *     iters * gamma_4 * max|u| <= iters * gamma_4 (inputs in [-1, 1)): abs_floor.
 *
 * Sources: CUDA C++ Programming Guide (runtime API, "Texture Fetching"); NVIDIA cuda-samples'
 * allocate -> initialise -> copy -> launch -> copy back -> verify -> free.
 */
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "baselines.h"
#include "cml_check.h"
#include "cml_compare.h"
#include "cml_lab.h"
#include "cml_rng.h"
#include "cml_setup.h"
#include "cml_timing.h"
#include "lab.h"
#include "reference.h"

/* Largest side of an image given to the texture exercises (cudaArray 2D limits are larger on
 * sm_80 and sm_90; this keeps every case well inside them). */
#define TEX_MAX_SIDE 65536
/* The weight step of hardware linear filtering (1/256) plus half a step of margin for the
 * unspecified rounding of the coordinate to fixed point before alpha is formed. */
#define TEX_WEIGHT_SLACK (1.5 / 256.0)

/* ---------------------------------------------------------------------------------------------
 * 3.4a  stencil_constant: out (n) = 1D stencil of radius STENCIL_R over in (n)
 */

typedef struct stencil1d_ctx {
    int n;
    float *d_in;   /* (n) */
    float *d_coef; /* (STENCIL_DIAM): the baseline's copy in global memory */
    float *d_out;  /* (n): the output under test */
} stencil1d_ctx;

static const char *stencil1d_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t n = (size_t)size[0];
    stencil1d_ctx *c = CML_NEW_CTX(p, stencil1d_ctx);
    c->n = (int)n;
    cml_check_set *check = cml_check(p, 1, n, NULL, 1, NULL);

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    float h_coef[STENCIL_DIAM];
    cml_rng_fill_uniform_f32(&rng, h_coef, STENCIL_DIAM, -1.0f, 1.0f);
    const float *h_in = cml_scratch_uniform(p, &rng, n, -1.0f, 1.0f);
    for (size_t k = 0; k < check->n; ++k) { /* every position; one in the student's process */
        stencil1d_ref_at(h_in, n, h_coef, STENCIL_R, cml_check_set_pos(check, k), &check->ref[k],
                         &check->mag[k]);
    }

    c->d_in = (float *)cml_device_copy(p, h_in, n * sizeof(float));
    c->d_coef = (float *)cml_device_copy(p, h_coef, STENCIL_DIAM * sizeof(float));
    cml_output(p, &c->d_out, 1, n);

    /* The student's upload of the coefficients to constant memory. Its launcher returns
     * nothing: an error it left (cudaMemcpyToSymbol given &symbol: "invalid device symbol")
     * is reported here. h_coef is a stack array: a student who keeps the pointer for later
     * instead of copying now reads garbage. */
    if (cml_runs_student_code()) { /* not in the judge, which holds no student code */
        stencil_constant_set_coefficients(h_coef);
        CML_CHECK(cudaGetLastError());
        CML_CHECK(cudaDeviceSynchronize());
    }
    p->gamma = cml_gamma_f32(STENCIL_DIAM);
    p->bytes = 8.0 * (double)n; /* in read once, out written once */
    p->flops = 2.0 * STENCIL_DIAM * (double)n;
    return NULL;
}

static void stencil1d_launch_student(void *ctx) {
    const stencil1d_ctx *c = (const stencil1d_ctx *)ctx;
    stencil_constant(c->d_in, c->d_out, c->n);
}

static void stencil1d_launch_baseline(void *ctx) {
    const stencil1d_ctx *c = (const stencil1d_ctx *)ctx;
    stencil_global(c->d_in, c->d_out, c->n, c->d_coef);
}

/* ---------------------------------------------------------------------------------------------
 * 3.4b  lookup_divergent: out (n), LOOKUP_STEPS table reads per output
 */

typedef struct lookup_ctx {
    int n, table_size;
    float *d_table;   /* (table_size) */
    int *d_idx;       /* (n): start indices in [0, table_size) */
    float *d_out;     /* (n): the output under test */
    float *d_scratch; /* (n): output of the broadcast baseline (extra metric only) */
} lookup_ctx;

static int is_power_of_two(long long v) {
    return v >= 1 && (v & (v - 1)) == 0;
}

static const char *lookup_setup(cml_problem *p, const long long *size, uint64_t seed) {
    if (!is_power_of_two(size[1])) {
        return "table_size must be a power of two (lab.h)";
    }
    const size_t n = (size_t)size[0], table_size = (size_t)size[1];
    lookup_ctx *c = CML_NEW_CTX(p, lookup_ctx);
    *c = lookup_ctx{(int)n, (int)table_size};
    cml_check_set *check = cml_check(p, 1, n, NULL, 1, NULL);

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_table = cml_scratch_uniform(p, &rng, table_size, -1.0f, 1.0f);
    int *h_idx = (int *)cml_scratch(p, n * sizeof(int));
    for (size_t i = 0; i < n; ++i) {
        h_idx[i] = (int)cml_rng_below(&rng, table_size);
    }
    for (size_t k = 0; k < check->n; ++k) { /* every position; one in the student's process */
        const size_t i = cml_check_set_pos(check, k);
        lookup_ref_at(h_table, table_size, (size_t)h_idx[i], LOOKUP_STEPS, LOOKUP_STRIDE,
                      &check->ref[k], &check->mag[k]);
    }

    c->d_table = (float *)cml_device_copy(p, h_table, table_size * sizeof(float));
    c->d_idx = (int *)cml_device_copy(p, h_idx, n * sizeof(int));
    cml_output(p, &c->d_out, 1, n);
    c->d_scratch = (float *)cml_device(p, n * sizeof(float));
    p->gamma = cml_gamma_f32(LOOKUP_STEPS);
    /* Device-memory traffic: the index read and the output written; the table reads hit the
     * caches (they are what the exercise is about, and what the ratio measures). */
    p->bytes = 8.0 * (double)n + 4.0 * (double)table_size;
    p->flops = (double)LOOKUP_STEPS * (double)n;
    return NULL;
}

static void lookup_launch_student(void *ctx) {
    const lookup_ctx *c = (const lookup_ctx *)ctx;
    lookup_divergent(c->d_table, c->d_idx, c->d_out, c->n, c->table_size);
}

static void lookup_launch_baseline(void *ctx) {
    const lookup_ctx *c = (const lookup_ctx *)ctx;
    lookup_constant_divergent(c->d_table, c->d_idx, c->d_out, c->n, c->table_size);
}

/* Extra metric divergent_over_broadcast: the time of the constant-memory lookup with a
 * thread-dependent index over the same work with a warp-uniform index (seed lecture 002: "up
 * to 32x"; docs/facts.md, one run on an H200: 69.0 / 2.15 ms). Both are course kernels: the figure
 * shows the student what the constant cache's serialisation costs, whatever they wrote. */
/* The two constant-memory baselines, timed against each other into the scratch buffer. */
static void lookup_launch_const_divergent(void *ctx) {
    const lookup_ctx *c = (const lookup_ctx *)ctx;
    lookup_constant_divergent(c->d_table, c->d_idx, c->d_scratch, c->n, c->table_size);
}

static void lookup_launch_const_broadcast(void *ctx) {
    const lookup_ctx *c = (const lookup_ctx *)ctx;
    lookup_constant_broadcast(c->d_table, c->d_idx, c->d_scratch, c->n, c->table_size);
}

static void lookup_extra_metrics(void *ctx, cml_metrics *m) {
    const cml_contender contenders[2] = {
        {"constant_divergent", lookup_launch_const_divergent, ctx},
        {"constant_broadcast", lookup_launch_const_broadcast, ctx},
    };
    cml_timing_opts opts = cml_timing_defaults();
    opts.flush_l2 = 0; /* the table lives in the constant cache; the indices are 4 n bytes */
    cml_timing_stats stats[2];
    CML_CHECK(cml_time_interleaved(contenders, 2, &opts, stats));
    if (stats[1].median_ms > 0.0) {
        cml_metrics_add(m, "divergent_over_broadcast", stats[0].median_ms / stats[1].median_ms);
    }
}

/* ---------------------------------------------------------------------------------------------
 * 3.4c  stencil_readonly: out (height, width) = 3x3 blur of in, out of place or in place
 */

typedef struct stencil2d_ctx {
    int width, height;
    int in_place; /* size "buffers": 2 = separate in and out, 1 = in place (one buffer) */
    float *d_in;  /* (height, width): the pristine input */
    float *d_out; /* (height, width): the output under test */
} stencil2d_ctx;

static const char *stencil2d_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t width = (size_t)size[0], height = (size_t)size[1], n = width * height;
    stencil2d_ctx *c = CML_NEW_CTX(p, stencil2d_ctx);
    *c = stencil2d_ctx{(int)width, (int)height, size[2] == 1};
    cml_check_set *check = cml_check(p, height, width, NULL, 1, NULL);

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_in = cml_input_uniform(p, &rng, &c->d_in, n, -1.0f, 1.0f);
    for (size_t k = 0; k < check->n; ++k) { /* every position; one in the student's process */
        const size_t i = cml_check_set_pos(check, k);
        blur3_ref_at(h_in, width, height, i / width, i % width, &check->ref[k], &check->mag[k]);
    }

    cml_output(p, &c->d_out, height, width);
    p->gamma = cml_gamma_f32(9.0);
    p->bytes = 8.0 * (double)n;
    p->flops = 18.0 * (double)n;
    return NULL;
}

static void stencil2d_launch_student(void *ctx) {
    const stencil2d_ctx *c = (const stencil2d_ctx *)ctx;
    if (!c->in_place) {
        stencil_readonly(c->d_in, c->d_out, c->width, c->height);
        return;
    }
    /* In place: the driver poisoned d_out; give it the pristine input, then blur it where it
     * lies. The copy is stream-ordered before the student's launch. */
    const size_t bytes = (size_t)c->width * (size_t)c->height * sizeof(float);
    CML_CHECK(cudaMemcpyAsync(c->d_out, c->d_in, bytes, cudaMemcpyDeviceToDevice, 0));
    stencil_readonly(c->d_out, c->d_out, c->width, c->height);
}

static void stencil2d_launch_baseline(void *ctx) {
    const stencil2d_ctx *c = (const stencil2d_ctx *)ctx;
    stencil_plain(c->d_in, c->d_out, c->width, c->height);
}

/* ---------------------------------------------------------------------------------------------
 * 3.4d  texture_resample: out (out_h, out_w) = bilinear resampling of in (in_h, in_w)
 */

typedef struct resample_ctx {
    int in_w, in_h, out_w, out_h;
    int wrap;     /* size "address": 1 = clamp (wrap = 0), 2 = wrap (wrap = 1) */
    float *d_in;  /* (in_h, in_w) */
    float *d_out; /* (out_h, out_w): the output under test */
} resample_ctx;

static const char *resample_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t in_w = (size_t)size[0], in_h = (size_t)size[1], n_in = in_w * in_h;
    const size_t out_w = (size_t)size[2], out_h = (size_t)size[3], n_out = out_w * out_h;
    resample_ctx *c = CML_NEW_CTX(p, resample_ctx);
    *c = resample_ctx{(int)in_w, (int)in_h, (int)out_w, (int)out_h, size[4] == 2};
    /* Every position; mag holds each one's tolerance itself (gamma = 1). */
    cml_check_set *check = cml_check(p, out_h, out_w, NULL, 1, NULL);

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_in = cml_input_uniform(p, &rng, &c->d_in, n_in, -1.0f, 1.0f);
    const double ulp_scale = 4.0 * CML_UNIT_ROUNDOFF_F32; /* 4 * 2^-24: a few float ops */
    const double d_alpha = TEX_WEIGHT_SLACK + ulp_scale * (double)in_w;
    const double d_beta = TEX_WEIGHT_SLACK + ulp_scale * (double)in_h;
    for (size_t k = 0; k < check->n; ++k) { /* every position; one in the student's process */
        const size_t pos = cml_check_set_pos(check, k), oy = pos / out_w, ox = pos % out_w;
        double value, spread, maxabs;
        bilinear_ref(h_in, in_w, in_h, resample_coord(ox, in_w, out_w),
                     resample_coord(oy, in_h, out_h), c->wrap, &value, &spread, &maxabs);
        check->ref[k] = value;
        check->mag[k] = (d_alpha + d_beta) * spread + 0x1p-16 * maxabs;
    }

    cml_output(p, &c->d_out, out_h, out_w);
    p->gamma = 1.0; /* h_mag is the per-element tolerance itself */
    p->bytes = 4.0 * (double)n_in + 4.0 * (double)n_out;
    p->flops = 8.0 * (double)n_out; /* 3 lerps, as the software baseline computes them */
    return NULL;
}

static void resample_launch_student(void *ctx) {
    const resample_ctx *c = (const resample_ctx *)ctx;
    texture_resample(c->d_in, c->in_w, c->in_h, c->d_out, c->out_w, c->out_h, c->wrap);
}

static void resample_launch_baseline(void *ctx) {
    const resample_ctx *c = (const resample_ctx *)ctx;
    resample_global(c->d_in, c->in_w, c->in_h, c->d_out, c->out_w, c->out_h, c->wrap);
}

/* ---------------------------------------------------------------------------------------------
 * 3.4e  jacobi_texture: out (height, width) = iters Jacobi steps from in (height, width)
 */

typedef struct jacobi_ctx {
    int width, height, iters;
    float *d_in;  /* (height, width) */
    float *d_out; /* (height, width): the output under test */
} jacobi_ctx;

static const char *jacobi_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t width = (size_t)size[0], height = (size_t)size[1], n = width * height;
    const int iters = (int)size[2];
    jacobi_ctx *c = CML_NEW_CTX(p, jacobi_ctx);
    *c = jacobi_ctx{(int)width, (int)height, iters};
    cml_check_set *check = cml_check(p, height, width, NULL, 0, NULL); /* h_mag = NULL */

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_in = cml_input_uniform(p, &rng, &c->d_in, n, -1.0f, 1.0f);
    /* The whole grid at once: skipped in the student's process, whose check set holds one
     * position it never compares (cml_check_set_minimal). */
    if (check->n == n && !jacobi_ref(h_in, width, height, iters, check->ref)) {
        return cml_no_host_memory; /* jacobi_ref's own allocation (reference.c): kind "host" */
    }

    cml_output(p, &c->d_out, height, width);
    p->gamma = 0.0;
    p->abs_floor = (double)iters * cml_gamma_f32(4.0); /* max |u| <= 1: see the file header */
    p->bytes = 8.0 * (double)n * (double)iters;        /* each step reads u, writes u' */
    p->flops = 4.0 * (double)n * (double)iters;
    return NULL;
}

static void jacobi_launch_student(void *ctx) {
    const jacobi_ctx *c = (const jacobi_ctx *)ctx;
    jacobi_texture(c->d_in, c->d_out, c->width, c->height, c->iters);
}

static void jacobi_launch_baseline(void *ctx) {
    const jacobi_ctx *c = (const jacobi_ctx *)ctx;
    jacobi_global(c->d_in, c->d_out, c->width, c->height, c->iters);
}

/* ---------------------------------------------------------------------------------------------
 * The lab: one registry of exercises (their cases live in lab.toml only).
 */

static const cml_exercise kExercises[] = {
    /* The coefficients sit in the student's __constant__ memory: no input sets to rotate. */
    {.name = "stencil_constant",
     .dim_names = "n",
     .n_dims = 1,
     .baseline = "stencil_global",
     .dim_max = {CML_INT_SIZE_MAX},
     .setup = stencil1d_setup,
     .launch_student = stencil1d_launch_student,
     .launch_baseline = stencil1d_launch_baseline,
     .flags = CML_EX_FIXED_INPUTS,
     .launchers = "stencil_constant_set_coefficients,stencil_constant",
     .kernel = "stencil_constant_kernel"},
    {.name = "lookup_divergent",
     .dim_names = "n,table_size",
     .n_dims = 2,
     .baseline = "lookup_constant_divergent",
     .dim_max = {CML_INT_SIZE_MAX, LOOKUP_MAX_TABLE},
     .setup = lookup_setup,
     .launch_student = lookup_launch_student,
     .launch_baseline = lookup_launch_baseline,
     .extra_metrics = lookup_extra_metrics,
     .launchers = "lookup_divergent",
     .kernel = "lookup_divergent_kernel"},
    {.name = "stencil_readonly",
     .dim_names = "width,height,buffers",
     .n_dims = 3,
     .baseline = "stencil_plain",
     .dim_max = {CML_INT_SIZE_MAX, STENCIL2D_MAX_HEIGHT, 2},
     .arrays = "width*height",
     .setup = stencil2d_setup,
     .launch_student = stencil2d_launch_student,
     .launch_baseline = stencil2d_launch_baseline,
     .flags = CML_EX_LINEAR, /* a sum of products: fresh checks use its own tolerance */
     .launchers = "stencil_readonly",
     .kernel = "stencil_readonly_kernel"},
    {.name = "texture_resample",
     .dim_names = "in_w,in_h,out_w,out_h,address",
     .n_dims = 5,
     .baseline = "resample_global",
     /* address: 1 clamp, 2 wrap */
     .dim_max = {TEX_MAX_SIDE, TEX_MAX_SIDE, TEX_MAX_SIDE, TEX_MAX_SIDE, 2},
     .arrays = "in_w*in_h,out_w*out_h",
     .setup = resample_setup,
     .launch_student = resample_launch_student,
     .launch_baseline = resample_launch_baseline,
     .launchers = "texture_resample",
     .kernel = "texture_resample_kernel"},
    {.name = "jacobi_texture",
     .dim_names = "width,height,iters",
     .n_dims = 3,
     .baseline = "jacobi_global",
     .dim_max = {TEX_MAX_SIDE, TEX_MAX_SIDE, CML_INT_SIZE_MAX},
     .arrays = "width*height",
     .setup = jacobi_setup,
     .launch_student = jacobi_launch_student,
     .launch_baseline = jacobi_launch_baseline,
     .launchers = "jacobi_texture",
     .kernel = "jacobi_texture_kernel"},
};

int main(int argc, char **argv) {
    return cml_lab_main(argc, argv, "3.4", kExercises,
                        (int)(sizeof kExercises / sizeof kExercises[0]));
}

/* harness.cu — lab 3.3 "Shared-memory tiling": the pristine harness (students never edit it; the
 * grader always builds a submission against this copy).
 *
 * The course driver (common/cml_lab.h) owns the command line, poisoning the output, the launch
 * checks, the comparison, the timing and the JSON run document (docs/protocol.md). This file
 * describes the lab's three exercises to it; for each one it owns only
 *   - setup: check the size, draw the inputs from the seed (cml_rng.h, uniform in [-1, 1): no
 *     constant inputs, which let swapped indices pass), copy them to the device, and compute
 *     the float64 CPU reference (reference.c) at every output position, or at a sample on
 *     large cases (cml_sample.h, kCheckSample);
 *   - the two launches: the student's launcher (kernels.cu, API in lab.h) and the baseline
 *     (baselines.cu), both writing the problem's output buffer;
 *   - teardown.
 *
 * Tolerances (cml_compare.h): a float32 sum of n products, in any order, with or without FMA,
 * is within gamma_n * sum |products| of the exact value (Higham, "Accuracy and Stability of
 * Numerical Algorithms", 2nd ed., eq. 3.5), so a correct kernel never fails and a dropped or
 * repeated term always does: matmul n = K, conv2d n = (2R + 1)^2. A transpose only moves data:
 * exact equality.
 *
 * Sources: CUDA C++ Programming Guide (runtime API); NVIDIA cuda-samples' allocate ->
 * initialise -> copy -> launch -> copy back -> verify -> free.
 */
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <cuda_runtime_api.h>

#include "baselines.h"
#include "cml_check.h"
#include "cml_devmem.h"
#include "cml_compare.h"
#include "cml_lab.h"
#include "cml_rng.h"
#include "cml_sample.h"
#include "lab.h"
#include "reference.h"

/* Every output position is checked when the output has at most CHECK_ALL_MAX_ELEMS elements and
 * the CPU reference costs at most the exercise's bound in multiply-adds (a few seconds of one
 * core); otherwise a sample (cml_sample.h): the last CHECK_SAMPLE_BORDER rows and columns in
 * full (every edge tile up to 32 wide lies there) plus CHECK_SAMPLE_RANDOM positions drawn from
 * the seed. */
#define CHECK_ALL_MAX_ELEMS ((size_t)1 << 26)
#define MATMUL_CHECK_ALL_MAX_WORK 2147483648.0 /* 2^31 multiply-adds */
#define CONV2D_CHECK_ALL_MAX_WORK 1073741824.0 /* 2^30 multiply-adds */
#define CHECK_SAMPLE_BORDER 32
#define CHECK_SAMPLE_RANDOM 65536
static const cml_sample_spec kCheckSample = {0, CHECK_SAMPLE_BORDER, 0, CHECK_SAMPLE_BORDER,
                                             CHECK_SAMPLE_RANDOM};

static const char kNoHostMemory[] = "out of host memory for the inputs and the CPU reference";

/* lab.h's bound on every size: an int, with room for a tile's worth of overhanging indices. */
static int fits_int(long long v) {
    return v < (long long)INT_MAX - 63;
}

/* ---------------------------------------------------------------------------------------------
 * 3.3a  matmul_tiled: C (M, N) = A (M, K) B (K, N)
 */

typedef struct matmul_ctx {
    int M, N, K;
    float *d_A; /* (M, K) */
    float *d_B; /* (K, N) */
    float *d_C; /* (M, N): the output under test */
    cml_check_set check;
} matmul_ctx;

static const char *matmul_setup(cml_problem *p, const long long *size, uint64_t seed) {
    if (!fits_int(size[0]) || !fits_int(size[1]) || !fits_int(size[2])) {
        return "M, N and K must be below 2^31 - 64 (lab.h takes int)";
    }
    const size_t M = (size_t)size[0];
    const size_t N = (size_t)size[1];
    const size_t K = (size_t)size[2];

    matmul_ctx *c = (matmul_ctx *)calloc(1, sizeof *c);
    float *h_A = (float *)malloc(M * K * sizeof(float));  /* (M, K) */
    float *h_B = (float *)malloc(K * N * sizeof(float));  /* (K, N) */
    float *h_Bt = (float *)malloc(N * K * sizeof(float)); /* (N, K): B^T, for the reference */
    if (c == NULL || h_A == NULL || h_B == NULL || h_Bt == NULL) {
        free(c);
        free(h_A);
        free(h_B);
        free(h_Bt);
        return kNoHostMemory;
    }
    c->M = (int)M;
    c->N = (int)N;
    c->K = (int)K;

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    cml_rng_fill_uniform_f32(&rng, h_A, M * K, -1.0f, 1.0f);
    cml_rng_fill_uniform_f32(&rng, h_B, K * N, -1.0f, 1.0f);

    const int all = M * N <= CHECK_ALL_MAX_ELEMS &&
                    (double)M * (double)N * (double)K <= MATMUL_CHECK_ALL_MAX_WORK;
    if (!cml_check_set_init(&c->check, M, N, all ? NULL : &kCheckSample, 1, &rng)) {
        free(c);
        free(h_A);
        free(h_B);
        free(h_Bt);
        return kNoHostMemory;
    }
    transpose_ref(h_B, K, N, h_Bt);
    for (size_t i = 0; i < c->check.n; ++i) {
        const size_t pos = cml_check_set_pos(&c->check, i);
        matmul_ref_at(h_A, h_Bt, K, pos / N, pos % N, &c->check.ref[i], &c->check.mag[i]);
    }

    CML_CHECK(cml_dev_alloc((void **)&c->d_A, M * K * sizeof(float)));
    CML_CHECK(cml_dev_alloc((void **)&c->d_B, K * N * sizeof(float)));
    CML_CHECK(cml_dev_alloc((void **)&c->d_C, M * N * sizeof(float)));
    CML_CHECK(cudaMemcpy(c->d_A, h_A, M * K * sizeof(float), cudaMemcpyHostToDevice));
    CML_CHECK(cudaMemcpy(c->d_B, h_B, K * N * sizeof(float), cudaMemcpyHostToDevice));
    free(h_A);
    free(h_B);
    free(h_Bt);

    p->d_out = c->d_C;

    p->out_ref = &c->d_C;
    p->n_out = M * N;
    p->out_cols = N;
    cml_check_set_publish(&c->check, p);
    p->gamma = cml_gamma_f32((double)K);
    p->abs_floor = 0.0;
    p->bytes = 4.0 * ((double)M * K + (double)K * N + (double)M * N);
    p->flops = 2.0 * (double)M * (double)N * (double)K;
    p->ctx = c;
    return NULL;
}

static void matmul_launch_student(void *ctx) {
    const matmul_ctx *c = (const matmul_ctx *)ctx;
    matmul_tiled(c->d_A, c->d_B, c->d_C, c->M, c->N, c->K);
}

static void matmul_launch_baseline(void *ctx) {
    const matmul_ctx *c = (const matmul_ctx *)ctx;
    matmul_naive(c->d_A, c->d_B, c->d_C, c->M, c->N, c->K);
}

static void matmul_teardown(cml_problem *p) {
    matmul_ctx *c = (matmul_ctx *)p->ctx;
    if (c == NULL) {
        return;
    }
    CML_CHECK(cml_dev_free(c->d_A));
    CML_CHECK(cml_dev_free(c->d_B));
    CML_CHECK(cml_dev_free(c->d_C));
    cml_check_set_free(&c->check);
    free(c);
    p->ctx = NULL;
}

/* ---------------------------------------------------------------------------------------------
 * 3.3b  transpose_tiled: out (cols, rows) = in (rows, cols)^T
 */

typedef struct transpose_ctx {
    int rows, cols;
    float *d_in;  /* (rows, cols) */
    float *d_out; /* (cols, rows): the output under test */
    cml_check_set check;
} transpose_ctx;

static const char *transpose_setup(cml_problem *p, const long long *size, uint64_t seed) {
    if (!fits_int(size[0]) || !fits_int(size[1])) {
        return "rows and cols must be below 2^31 - 64 (lab.h takes int)";
    }
    const size_t rows = (size_t)size[0];
    const size_t cols = (size_t)size[1];
    const size_t n = rows * cols;

    transpose_ctx *c = (transpose_ctx *)calloc(1, sizeof *c);
    float *h_in = (float *)malloc(n * sizeof(float)); /* (rows, cols) */
    if (c == NULL || h_in == NULL) {
        free(c);
        free(h_in);
        return kNoHostMemory;
    }
    c->rows = (int)rows;
    c->cols = (int)cols;

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    cml_rng_fill_uniform_f32(&rng, h_in, n, -1.0f, 1.0f);

    /* The output is (cols, rows): a position's row is a column of `in` and vice versa. */
    const int all = n <= CHECK_ALL_MAX_ELEMS;
    if (!cml_check_set_init(&c->check, cols, rows, all ? NULL : &kCheckSample, 0, &rng)) {
        free(c);
        free(h_in);
        return kNoHostMemory;
    }
    for (size_t i = 0; i < c->check.n; ++i) {
        const size_t pos = cml_check_set_pos(&c->check, i);
        c->check.ref[i] = transpose_ref_at(h_in, cols, pos / rows, pos % rows);
    }

    CML_CHECK(cml_dev_alloc((void **)&c->d_in, n * sizeof(float)));
    CML_CHECK(cml_dev_alloc((void **)&c->d_out, n * sizeof(float)));
    CML_CHECK(cudaMemcpy(c->d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));
    free(h_in);

    p->d_out = c->d_out;

    p->out_ref = &c->d_out;
    p->n_out = n;
    p->out_cols = rows;
    cml_check_set_publish(&c->check, p);
    p->gamma = 0.0; /* data movement: exact */
    p->abs_floor = 0.0;
    p->bytes = 8.0 * (double)n; /* each element read once and written once */
    p->flops = 0.0;
    p->ctx = c;
    return NULL;
}

static void transpose_launch_student(void *ctx) {
    const transpose_ctx *c = (const transpose_ctx *)ctx;
    transpose_tiled(c->d_in, c->d_out, c->rows, c->cols);
}

static void transpose_launch_baseline(void *ctx) {
    const transpose_ctx *c = (const transpose_ctx *)ctx;
    transpose_naive(c->d_in, c->d_out, c->rows, c->cols);
}

static void transpose_teardown(cml_problem *p) {
    transpose_ctx *c = (transpose_ctx *)p->ctx;
    if (c == NULL) {
        return;
    }
    CML_CHECK(cml_dev_free(c->d_in));
    CML_CHECK(cml_dev_free(c->d_out));
    cml_check_set_free(&c->check);
    free(c);
    p->ctx = NULL;
}

/* ---------------------------------------------------------------------------------------------
 * 3.3c  conv2d_tiled: out (height, width) = in (height, width) correlated with a
 *       (2R+1, 2R+1) filter, zero outside the image
 */

typedef struct conv2d_ctx {
    int width, height, R;
    float *d_in;     /* (height, width) */
    float *d_filter; /* (2R + 1, 2R + 1) */
    float *d_out;    /* (height, width): the output under test */
    cml_check_set check;
} conv2d_ctx;

static const char *conv2d_setup(cml_problem *p, const long long *size, uint64_t seed) {
    if (size[2] < 0 || size[2] > CONV2D_MAX_R) {
        return "R must be between 0 and 4 (lab.h: CONV2D_MAX_R): the filter is at most 9 x 9";
    }
    if (!fits_int(size[0]) || !fits_int(size[1])) {
        return "width and height must be below 2^31 - 64 (lab.h takes int)";
    }
    const size_t width = (size_t)size[0];
    const size_t height = (size_t)size[1];
    const int R = (int)size[2];
    const size_t n = width * height;
    const size_t n_taps = (size_t)(2 * R + 1) * (size_t)(2 * R + 1);

    conv2d_ctx *c = (conv2d_ctx *)calloc(1, sizeof *c);
    float *h_in = (float *)malloc(n * sizeof(float));          /* (height, width) */
    float *h_filter = (float *)malloc(n_taps * sizeof(float)); /* (2R + 1, 2R + 1) */
    if (c == NULL || h_in == NULL || h_filter == NULL) {
        free(c);
        free(h_in);
        free(h_filter);
        return kNoHostMemory;
    }
    c->width = (int)width;
    c->height = (int)height;
    c->R = R;

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    cml_rng_fill_uniform_f32(&rng, h_in, n, -1.0f, 1.0f);
    cml_rng_fill_uniform_f32(&rng, h_filter, n_taps, -1.0f, 1.0f);

    const int all =
        n <= CHECK_ALL_MAX_ELEMS && (double)n * (double)n_taps <= CONV2D_CHECK_ALL_MAX_WORK;
    if (!cml_check_set_init(&c->check, height, width, all ? NULL : &kCheckSample, 1, &rng)) {
        free(c);
        free(h_in);
        free(h_filter);
        return kNoHostMemory;
    }
    for (size_t i = 0; i < c->check.n; ++i) {
        const size_t pos = cml_check_set_pos(&c->check, i);
        conv2d_ref_at(h_in, width, height, h_filter, R, pos / width, pos % width, &c->check.ref[i],
                      &c->check.mag[i]);
    }

    /* The image first, then the small filter: a halo read past either end of the image (a
     * missing bounds check) then lands outside the image's allocation, which compute-sanitizer
     * memcheck reports unless the address happens to lie inside another allocation. */
    CML_CHECK(cml_dev_alloc((void **)&c->d_in, n * sizeof(float)));
    CML_CHECK(cml_dev_alloc((void **)&c->d_filter, n_taps * sizeof(float)));
    CML_CHECK(cml_dev_alloc((void **)&c->d_out, n * sizeof(float)));
    CML_CHECK(cudaMemcpy(c->d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));
    CML_CHECK(cudaMemcpy(c->d_filter, h_filter, n_taps * sizeof(float), cudaMemcpyHostToDevice));
    free(h_in);
    free(h_filter);

    p->d_out = c->d_out;

    p->out_ref = &c->d_out;
    p->n_out = n;
    p->out_cols = width;
    cml_check_set_publish(&c->check, p);
    p->gamma = cml_gamma_f32((double)n_taps);
    p->abs_floor = 0.0;
    p->bytes = 8.0 * (double)n + 4.0 * (double)n_taps;
    p->flops = 2.0 * (double)n * (double)n_taps;
    p->ctx = c;
    return NULL;
}

static void conv2d_launch_student(void *ctx) {
    const conv2d_ctx *c = (const conv2d_ctx *)ctx;
    conv2d_tiled(c->d_in, c->d_out, c->width, c->height, c->d_filter, c->R);
}

static void conv2d_launch_baseline(void *ctx) {
    const conv2d_ctx *c = (const conv2d_ctx *)ctx;
    conv2d_naive(c->d_in, c->d_out, c->width, c->height, c->d_filter, c->R);
}

static void conv2d_teardown(cml_problem *p) {
    conv2d_ctx *c = (conv2d_ctx *)p->ctx;
    if (c == NULL) {
        return;
    }
    CML_CHECK(cml_dev_free(c->d_in));
    CML_CHECK(cml_dev_free(c->d_filter));
    CML_CHECK(cml_dev_free(c->d_out));
    cml_check_set_free(&c->check);
    free(c);
    p->ctx = NULL;
}

/* ---------------------------------------------------------------------------------------------
 * The lab: one registry of exercises (their cases live in lab.toml only).
 */

static const cml_exercise kExercises[] = {
    {.name = "matmul_tiled",
     .dim_names = "M,N,K",
     .n_dims = 3,
     .baseline = "matmul_naive",
     .setup = matmul_setup,
     .launch_student = matmul_launch_student,
     .launch_baseline = matmul_launch_baseline,
     .teardown = matmul_teardown,
     .launchers = "matmul_tiled",
     .kernel = "matmul_tiled_kernel"},
    {.name = "transpose_tiled",
     .dim_names = "rows,cols",
     .n_dims = 2,
     .baseline = "transpose_naive",
     .setup = transpose_setup,
     .launch_student = transpose_launch_student,
     .launch_baseline = transpose_launch_baseline,
     .teardown = transpose_teardown,
     .launchers = "transpose_tiled",
     .kernel = "transpose_tiled_kernel"},
    {.name = "conv2d_tiled",
     .dim_names = "width,height,R",
     .n_dims = 3,
     .baseline = "conv2d_naive",
     .setup = conv2d_setup,
     .launch_student = conv2d_launch_student,
     .launch_baseline = conv2d_launch_baseline,
     .teardown = conv2d_teardown,
     .launchers = "conv2d_tiled",
     .kernel = "conv2d_tiled_kernel"},
};

int main(int argc, char **argv) {
    return cml_lab_main(argc, argv, "3.3", kExercises,
                        (int)(sizeof kExercises / sizeof kExercises[0]));
}

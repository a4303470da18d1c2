/* harness.cu — lab 3.3 "Shared-memory tiling": the pristine harness (students never edit it; the
 * grader always builds a submission against this copy).
 *
 * The course driver (common/cml_lab.h) owns the command line, poisoning the output, the launch
 * checks, the comparison, the timing and the JSON run document (docs/protocol.md). This file
 * describes the lab's four exercises to it; for each one it owns only
 *   - setup: check the size, draw the inputs from the seed (cml_rng.h, uniform in [-1, 1): no
 *     constant inputs, which let swapped indices pass; cml_input_uniform, so a judged timing
 *     gives every launch inputs of its own), copy them to the device, and compute
 *     the float64 CPU reference (reference.c) at every output position, or at a sample on
 *     large cases (cml_sample.h, kCheckSample), with memory taken from the driver
 *     (cml_setup.h), which frees it;
 *   - the two launches: the student's launcher (kernels.cu, API in lab.h) and the baseline
 *     (baselines.cu), both writing the problem's output buffer.
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
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include <cublas_v2.h>

#include "baselines.h"
#include "cml_check.h"
#include "cml_compare.h"
#include "cml_lab.h"
#include "cml_rng.h"
#include "cml_sample.h"
#include "cml_setup.h"
#include "cml_stats.h"
#include "lab.h"
#include "reference.h"

/* Every output position is checked when the output has at most CHECK_ALL_MAX_ELEMS elements and
 * the CPU reference costs at most the exercise's bound in multiply-adds (a few seconds of one
 * core); otherwise a sample (cml_sample.h): the last CHECK_SAMPLE_BORDER rows and columns in
 * full (every edge tile up to 32 wide lies there) plus CHECK_SAMPLE_RANDOM positions drawn from
 * the seed. Every correctness case is checked in full, and every timed case is sampled: the
 * transpose's 8192 x 8192 too (design note 58: its full check and its input set 0's took some
 * 0.3 s of each batch hold and 1.5 CPU-seconds of each set-up), while each timed sample's launch
 * is still compared with the baseline at every position, on the GPU. */
#define CHECK_ALL_MAX_ELEMS ((size_t)1 << 24)
#define MATMUL_CHECK_ALL_MAX_WORK 2147483648.0 /* 2^31 multiply-adds */
#define CONV2D_CHECK_ALL_MAX_WORK 1073741824.0 /* 2^30 multiply-adds */
#define CHECK_SAMPLE_BORDER 32
#define CHECK_SAMPLE_RANDOM 65536
static const cml_sample_spec kCheckSample = {0, CHECK_SAMPLE_BORDER, 0, CHECK_SAMPLE_BORDER,
                                             CHECK_SAMPLE_RANDOM};

/* The judge's one cuBLAS handle, for matmul and sgemm (3.3d's section): made by a timed
 * judge's setup(), before its gate. */
static cublasHandle_t judge_cublas(cublasStatus_t *status);

/* ---------------------------------------------------------------------------------------------
 * 3.3a  matmul_tiled: C (M, N) = A (M, K) B (K, N)
 */

typedef struct matmul_ctx {
    int M, N, K;
    float *d_A, *d_B; /* (M, K), (K, N) */
    float *d_C;       /* (M, N): the output under test */
    /* The positions the case checks and their references (cml_check: freed with the problem,
     * unlike the host inputs, which are setup()'s scratch): sgemm's check of cuBLAS's result. */
    const cml_check_set *check;
} matmul_ctx;

static const char *matmul_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t M = (size_t)size[0], N = (size_t)size[1], K = (size_t)size[2];
    matmul_ctx *c = CML_NEW_CTX(p, matmul_ctx);
    *c = matmul_ctx{(int)M, (int)N, (int)K};

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_A = cml_input_uniform(p, &rng, &c->d_A, M * K, -1.0f, 1.0f);
    const float *h_B = cml_input_uniform(p, &rng, &c->d_B, K * N, -1.0f, 1.0f);
    const int all = M * N <= CHECK_ALL_MAX_ELEMS &&
                    (double)M * (double)N * (double)K <= MATMUL_CHECK_ALL_MAX_WORK;
    cml_check_set *check = cml_check(p, M, N, all ? NULL : &kCheckSample, 1, &rng);
    c->check = check;
    if (matmul_ref_positions(h_A, h_B, N, K, check->idx, check->n, check->ref, check->mag) != 0) {
        return cml_no_host_memory; /* its own temporaries (reference.c): kind "host" */
    }

    cml_output(p, &c->d_C, M, N);
    (void)judge_cublas(NULL); /* in a timed judge: made now, before the gate */
    p->gamma = cml_gamma_f32((double)K);
    p->bytes = 4.0 * ((double)M * K + (double)K * N + (double)M * N);
    p->flops = 2.0 * (double)M * (double)N * (double)K;
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

/* ---------------------------------------------------------------------------------------------
 * 3.3b  transpose_tiled: out (cols, rows) = in (rows, cols)^T
 */

typedef struct transpose_ctx {
    int rows, cols;
    float *d_in;  /* (rows, cols) */
    float *d_out; /* (cols, rows): the output under test */
} transpose_ctx;

static const char *transpose_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t rows = (size_t)size[0], cols = (size_t)size[1], n = rows * cols;
    transpose_ctx *c = CML_NEW_CTX(p, transpose_ctx);
    *c = transpose_ctx{(int)rows, (int)cols};

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    /* Drawn on the device: the reference reads each checked position's value from the view
     * (the output's (r, c) is the input's (c, r), transpose_ref_at's rule). */
    const cml_uniform_view in = cml_input_uniform_view(p, &rng, &c->d_in, n, -1.0f, 1.0f);
    /* The output is (cols, rows): a position's row is a column of `in` and vice versa. */
    cml_check_set *check =
        cml_check(p, cols, rows, n <= CHECK_ALL_MAX_ELEMS ? NULL : &kCheckSample, 0, &rng);
    for (size_t i = 0; i < check->n; ++i) {
        const size_t pos = cml_check_set_pos(check, i), r = pos / rows, col = pos % rows;
        check->ref[i] = cml_view_at(&in, col * cols + r);
    }

    cml_output(p, &c->d_out, cols, rows);
    p->gamma = 0.0;             /* data movement: exact */
    p->bytes = 8.0 * (double)n; /* each element read once and written once */
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

/* ---------------------------------------------------------------------------------------------
 * 3.3c  conv2d_tiled: out (height, width) = in (height, width) correlated with a
 *       (2R+1, 2R+1) filter, zero outside the image
 */

typedef struct conv2d_ctx {
    int width, height, R;
    float *d_in;     /* (height, width) */
    float *d_filter; /* (2R + 1, 2R + 1) */
    float *d_out;    /* (height, width): the output under test */
} conv2d_ctx;

static const char *conv2d_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t width = (size_t)size[0], height = (size_t)size[1], n = width * height;
    const int R = (int)size[2];
    const size_t n_taps = (size_t)(2 * R + 1) * (size_t)(2 * R + 1);
    conv2d_ctx *c = CML_NEW_CTX(p, conv2d_ctx);
    *c = conv2d_ctx{(int)width, (int)height, R};

    cml_rng rng;
    cml_rng_seed(&rng, seed);
    /* The image first, then the small filter: a halo read past either end of the image (a
     * missing bounds check) then lands outside the image's allocation, which compute-sanitizer
     * memcheck reports unless the address happens to lie inside another allocation. */
    const cml_uniform_view in = cml_input_uniform_view(p, &rng, &c->d_in, n, -1.0f, 1.0f);
    const float *h_filter = cml_input_uniform(p, &rng, &c->d_filter, n_taps, -1.0f, 1.0f);
    const int all =
        n <= CHECK_ALL_MAX_ELEMS && (double)n * (double)n_taps <= CONV2D_CHECK_ALL_MAX_WORK;
    cml_check_set *check = cml_check(p, height, width, all ? NULL : &kCheckSample, 1, &rng);
    /* every position: the image drawn on the host once; a sample: read through the view */
    const float *h_in = all ? cml_view_values(p, &in) : NULL;
    if (conv2d_ref_positions(h_in, &in, width, height, h_filter, R, check->idx, check->n,
                             check->ref, check->mag) != 0) {
        return cml_no_host_memory; /* its own temporaries (reference.c): kind "host" */
    }

    cml_output(p, &c->d_out, height, width);
    p->gamma = cml_gamma_f32((double)n_taps);
    p->bytes = 8.0 * (double)n + 4.0 * (double)n_taps;
    p->flops = 2.0 * (double)n * (double)n_taps;
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

/* ---------------------------------------------------------------------------------------------
 * 3.3d  sgemm: matmul_tiled's problem (matmul_setup, the same inputs, reference and tolerance),
 *       graded against cuBLAS's SGEMM on the same inputs, timed by the judge in the same run
 */

static void sgemm_launch_student(void *ctx) {
    const matmul_ctx *c = (const matmul_ctx *)ctx;
    sgemm(c->d_A, c->d_B, c->d_C, c->M, c->N, c->K);
}

/* cuBLAS is linked into the judge alone (Makefile: JUDGE_LDLIBS_3.3-tiling): the lab binary
 * holds the student's code, and a student's process must give no figure of the roof. These weak
 * references resolve to cuBLAS in the judge and to NULL in the lab binary (as cml_judge_build
 * does, common/cml_lab.c), so both link from the same harness object. */
extern "C" {
cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t *handle) __attribute__((weak));
cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle) __attribute__((weak));
cublasStatus_t CUBLASWINAPI cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
    __attribute__((weak));
cublasStatus_t CUBLASWINAPI cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                                           cublasOperation_t transb, int m, int n, int k,
                                           const float *alpha, const float *A, int lda,
                                           const float *B, int ldb, const float *beta, float *C,
                                           int ldc) __attribute__((weak));
}

#define CUBLAS_WARMUPS 3 /* untimed runs first: cuBLAS loads its kernels, picks one */
#define CUBLAS_REPS 25   /* timed runs; the median counts (a timing's default, not 3.3d's 20) */

/* Row-major C (M, N) = A (M, K) B (K, N) through column-major cuBLAS: the same memory read
 * column-major is C^T (N, M) = B^T (N, K) A^T (K, M), so cuBLAS computes C^T = B^T A^T with its
 * first operand B (leading dimension N) and its second A (leading dimension K). */
static cublasStatus_t cublas_sgemm_row_major(cublasHandle_t h, const matmul_ctx *c, float *d_C) {
    const float one = 1.0f, zero = 0.0f;
    return cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, c->N, c->M, c->K, &one, c->d_B, c->N, c->d_A,
                          c->K, &zero, d_C, c->N);
}

/* The judge's one cuBLAS handle, for 3.3d's roof (sgemm_extra_metrics) and the checks of timed
 * matmul and sgemm launches on fresh inputs (matmul_launch_check). A timed judge makes it in
 * setup(), before its gate: loading cuBLAS and making the handle (0.1-0.3 s of host work) need
 * not hold the GPU alone. Strict FP32: CUBLAS_DEFAULT_MATH, no TF32 tensor cores (cuBLAS
 * documentation, cublasSetMathMode). NULL outside a timed judge (the lab binary does not link
 * cuBLAS; an untimed judge never needs it) or where it did not start (*status says why); it
 * lives until the process ends. */
static cublasHandle_t judge_cublas(cublasStatus_t *status) {
    static cublasHandle_t handle;
    static cublasStatus_t made = CUBLAS_STATUS_NOT_INITIALIZED;
    static int tried;
    if (!tried && cml_run_timed() && !cml_runs_student_code() && cublasCreate_v2 != NULL &&
        cublasSgemm_v2 != NULL && cublasSetMathMode != NULL && cublasDestroy_v2 != NULL) {
        tried = 1;
        made = cublasCreate_v2(&handle);
        if (made == CUBLAS_STATUS_SUCCESS) {
            made = cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
            if (made != CUBLAS_STATUS_SUCCESS) {
                cublasDestroy_v2(handle);
            }
        }
        if (made != CUBLAS_STATUS_SUCCESS) {
            handle = NULL;
        }
    }
    if (status) {
        *status = made;
    }
    return handle;
}

/* launch_check of matmul_tiled and sgemm: the baseline's output by cuBLAS's SGEMM in the judge
 * (about 2.7 ms at 4096^3, 51 TFLOP/s, against matmul_naive's 23 ms, a check in each sample), by
 * matmul_naive where cuBLAS is missing or fails. cuBLAS sums in another order: the fresh check
 * holds both results to gamma_K * sum|a||b| each, which bounds any order's error. */
static void matmul_launch_check(void *ctx) {
    const matmul_ctx *c = (const matmul_ctx *)ctx;
    cublasHandle_t h = judge_cublas(NULL);
    if (h == NULL || cublas_sgemm_row_major(h, c, c->d_C) != CUBLAS_STATUS_SUCCESS) {
        matmul_launch_baseline(ctx);
    }
}

/* cuBLAS's result against the case's references (its check set: every position of a small C,
 * a sample of a large one), within the exercise's tolerance; NULL when all agree, else why not.
 * The inputs are the case's, as the student's verified launch read them: a submission that
 * changed them after that launch makes cuBLAS's result differ too. */
static const char *cublas_check(const matmul_ctx *c, const float *d_C) {
    static char why[200];
    const double gamma = cml_gamma_f32((double)c->K);
    const size_t n_out = (size_t)c->M * (size_t)c->N;
    float *h_C = (float *)malloc(n_out * sizeof(float));
    if (h_C == NULL) {
        return "no host memory to check cuBLAS's result, so pct_of_cublas has no roof";
    }
    CML_CHECK(cudaMemcpy(h_C, d_C, n_out * sizeof(float), cudaMemcpyDeviceToHost));
    const char *verdict = NULL;
    for (size_t i = 0; i < c->check->n && verdict == NULL; ++i) {
        const size_t pos = cml_check_set_pos(c->check, i);
        const double got = (double)h_C[pos], exact = c->check->ref[i];
        if (!(std::fabs(got - exact) <= gamma * c->check->mag[i])) { /* NaN fails too */
            snprintf(why, sizeof why,
                     "cuBLAS's SGEMM on the case's inputs gave C(%zu, %zu) = %.9g, not %.9g: the "
                     "inputs changed after the verified launch, or a course bug",
                     pos / (size_t)c->N, pos % (size_t)c->N, got, exact);
            verdict = why;
        }
    }
    free(h_C);
    return verdict;
}

static double wall_ms(void) {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

/* The roof of 3.3d: cuBLAS's SGEMM on the case's own inputs, as metric cublas_gflops (the grader
 * divides the judge's gflops of the student's kernel by it: pct_of_cublas, grader/roofs.py). Only
 * in a timed run of the judge: it is course code on the judge's buffers, timed on the judge's clock
 * after the gate (the GPU held alone), before the student's kernel is timed, with the judge's
 * handle (judge_cublas: strict FP32). Each run as the judge times the student's: the L2 flushed
 * first (a memset of twice its size), then host clock around the call and a synchronisation; the
 * median of CUBLAS_REPS. The result is checked once against the reference before timing. */
static void sgemm_extra_metrics(void *ctx, cml_metrics *m) {
    const matmul_ctx *c = (const matmul_ctx *)ctx;
    if (!cml_run_timed()) {
        return; /* untimed (correctness, sanitizer): no roof to measure against */
    }
    if (cml_runs_student_code()) {
        cml_metrics_note(m, "cuBLAS's SGEMM, the roof of pct_of_cublas, is timed by the judge "
                            "only (python3 -m grader grade); this binary does not link cuBLAS");
        return;
    }
    if (cublasCreate_v2 == NULL || cublasSgemm_v2 == NULL || cublasSetMathMode == NULL ||
        cublasDestroy_v2 == NULL) {
        cml_metrics_note(m, "the judge was linked without cuBLAS (Makefile: "
                            "JUDGE_LDLIBS_3.3-tiling), so pct_of_cublas has no roof (a course "
                            "bug, please report)");
        return;
    }
    cublasStatus_t st;
    cublasHandle_t h = judge_cublas(&st);
    if (h == NULL) {
        char note[CML_METRIC_NOTE_MAX];
        snprintf(note, sizeof note,
                 "cuBLAS did not start (cublasStatus_t %d), so pct_of_cublas "
                 "has no roof (a course fault, please report)",
                 (int)st);
        cml_metrics_note(m, note);
        return;
    }
    int device = 0, l2_bytes = 0;
    CML_CHECK(cudaGetDevice(&device));
    CML_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    const size_t flush_bytes = 2 * (size_t)(l2_bytes > 0 ? l2_bytes : 1);
    float *d_C = NULL;
    void *d_flush = NULL;
    CML_CHECK(cudaMalloc((void **)&d_C, (size_t)c->M * (size_t)c->N * sizeof(float)));
    CML_CHECK(cudaMalloc(&d_flush, flush_bytes));

    const char *wrong = NULL;
    double ms[CUBLAS_REPS];
    CML_CHECK(cudaMemset(d_C, 0xFF, (size_t)c->M * (size_t)c->N * sizeof(float))); /* NaN */
    st = cublas_sgemm_row_major(h, c, d_C);
    CML_CHECK(cudaDeviceSynchronize());
    if (st == CUBLAS_STATUS_SUCCESS) {
        wrong = cublas_check(c, d_C);
    }
    for (int r = 0; st == CUBLAS_STATUS_SUCCESS && !wrong && r < CUBLAS_WARMUPS + CUBLAS_REPS;
         ++r) {
        CML_CHECK(cudaMemsetAsync(d_flush, r & 0xff, flush_bytes, 0)); /* evicts A and B */
        CML_CHECK(cudaDeviceSynchronize());
        const double t0 = wall_ms();
        st = cublas_sgemm_row_major(h, c, d_C);
        CML_CHECK(cudaDeviceSynchronize());
        if (r >= CUBLAS_WARMUPS) {
            ms[r - CUBLAS_WARMUPS] = wall_ms() - t0;
        }
    }
    CML_CHECK(cudaFree(d_C));
    CML_CHECK(cudaFree(d_flush));
    if (st != CUBLAS_STATUS_SUCCESS) {
        char note[CML_METRIC_NOTE_MAX];
        snprintf(note, sizeof note,
                 "cuBLAS's SGEMM failed (cublasStatus_t %d), so pct_of_cublas "
                 "has no roof (a course fault, please report)",
                 (int)st);
        cml_metrics_note(m, note);
        return;
    }
    if (wrong) {
        cml_metrics_note(m, wrong);
        return;
    }
    const double median_ms = cml_median(ms, CUBLAS_REPS);
    const double flops = 2.0 * (double)c->M * (double)c->N * (double)c->K;
    if (median_ms > 0.0) {
        cml_metrics_add(m, "cublas_gflops", flops / (median_ms * 1e-3) / 1e9);
    }
}

/* ---------------------------------------------------------------------------------------------
 * The lab: one registry of exercises (their cases live in lab.toml only).
 */

static const cml_exercise kExercises[] = {
    {.name = "matmul_tiled",
     .dim_names = "M,N,K",
     .n_dims = 3,
     .baseline = "matmul_naive",
     .dim_max = {MATMUL_MAX_M, CML_INT_SIZE_MAX, CML_INT_SIZE_MAX},
     .arrays = "M*K,K*N,M*N",
     .setup = matmul_setup,
     .launch_student = matmul_launch_student,
     .launch_baseline = matmul_launch_baseline,
     .launch_check = matmul_launch_check,
     /* a sum of products: fresh checks use its own tolerance; inputs for the reference only */
     .flags = CML_EX_LINEAR | CML_EX_REFERENCE_ONLY_INPUTS,
     .launchers = "matmul_tiled",
     .kernel = "matmul_tiled_kernel"},
    {.name = "transpose_tiled",
     .dim_names = "rows,cols",
     .n_dims = 2,
     .baseline = "transpose_naive",
     .dim_max = {TRANSPOSE_MAX_ROWS, CML_INT_SIZE_MAX},
     .arrays = "rows*cols",
     .setup = transpose_setup,
     .launch_student = transpose_launch_student,
     .launch_baseline = transpose_launch_baseline,
     .flags = CML_EX_REFERENCE_ONLY_INPUTS,
     .launchers = "transpose_tiled",
     .kernel = "transpose_tiled_kernel"},
    {.name = "conv2d_tiled",
     .dim_names = "width,height,R",
     .n_dims = 3,
     .baseline = "conv2d_naive",
     .dim_max = {CML_INT_SIZE_MAX, CONV2D_MAX_HEIGHT, CONV2D_MAX_R}, /* a 9 x 9 filter at most */
     .arrays = "width*height",
     .setup = conv2d_setup,
     .launch_student = conv2d_launch_student,
     .launch_baseline = conv2d_launch_baseline,
     .flags = CML_EX_LINEAR | CML_EX_REFERENCE_ONLY_INPUTS,
     .launchers = "conv2d_tiled",
     .kernel = "conv2d_tiled_kernel"},
    {.name = "sgemm",
     .dim_names = "M,N,K",
     .n_dims = 3,
     .baseline = "matmul_naive",
     .dim_max = {MATMUL_MAX_M, CML_INT_SIZE_MAX, CML_INT_SIZE_MAX},
     .arrays = "M*K,K*N,M*N",
     .setup = matmul_setup,
     .launch_student = sgemm_launch_student,
     .launch_baseline = matmul_launch_baseline,
     .launch_check = matmul_launch_check,
     /* cuBLAS's SGEMM on the same inputs, in a timed run of the judge: the roof */
     .extra_metrics = sgemm_extra_metrics,
     .flags = CML_EX_LINEAR | CML_EX_REFERENCE_ONLY_INPUTS,
     .launchers = "sgemm",
     .kernel = "sgemm_kernel"},
};

int main(int argc, char **argv) {
    return cml_lab_main(argc, argv, "3.3", kExercises,
                        (int)(sizeof kExercises / sizeof kExercises[0]));
}

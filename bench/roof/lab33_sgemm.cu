/* lab33_sgemm.cu — lab 3.3's SGEMM stretch (3.3d), step by step, against cuBLAS's SGEMM on the
 * GPU it runs on (an H200 for the course's figures), all timed in one process.
 *
 *   C (4096, 4096) = A (4096, 4096) B (4096, 4096), row-major float32
 *     naive (baselines.cu) -> 32 x 32 shared tiles (3.3a's reference) -> 1D block tiling (64 x 64
 *     x 8 tile, 8 outputs per thread down a column) -> 2D block tiling (128 x 128 x 8, 8 x 8 per
 *     thread, float4, A transposed in shared memory) -> warp tiling (128 x 128 x 16, a warp's
 *     lanes 8 x 4 over a 64 x 32 part, one shared buffer) -> warp tiling + double-buffered
 *     shared tiles (3.3d's reference, solutions/3.3-tiling/kernels.cu)
 *   roof: cuBLAS cublasSgemm, strict FP32 (CUBLAS_DEFAULT_MATH: no TF32 tensor cores), row-major
 *     through the transpose identity C^T = B^T A^T.
 *   and the reference alone at 4000 x 4100 x 4050 (no dimension a multiple of its tiles, K not a
 *     multiple of 4: its scalar path), checked, not timed.
 *
 * The rows marked "baseline" and "reference" run the course's own code, linked in
 * (labs/3.3-tiling/baselines.cu, solutions/3.3-tiling/kernels.cu); the other variants are kept
 * here and assume sizes that are multiples of their tiles (4096 is).
 *
 * Method (bench/roof/lab33_variants.cu's, shared through result_check.h and event_timing.h): each
 * variant's output is poisoned (NaN), computed once and verified before anything is timed: the 2
 * first and last rows and columns in full plus 16384 random positions against the lab's float64 CPU
 * reference (reference.c), within the harness's bound gamma_K * sum |products| (Higham, eq. 3.5). A
 * variant that fails is reported and not timed. Then 3 warm-ups per variant and 25 samples, the
 * variants interleaved (A B C ... A B C); before each sample a 120 MB memset flushes the 60 MB L2;
 * cudaEvents time the launch alone. Quoted: the median, with p10 and p90; TFLOP/s at 2 FLOP per
 * multiply-add; % of cuBLAS's median in the same rounds; registers and blocks per SM from
 * cudaFuncGetAttributes and the occupancy API (cuBLAS: none).
 *
 * Build and run: bench/roof/README.md (needs -lcublas). Instructor-only: it holds the solution
 * of 3.3a and 3.3d. Exit 1 if a variant computed a wrong result, 2 on a CUDA or cuBLAS error.
 *
 * Sources: V. Volkov and J. Demmel, "Benchmarking GPUs to tune dense linear algebra", SC'08
 * (register blocking); cuBLAS documentation (cublasSgemm, cublasSetMathMode); docs/facts.md for
 * the figures it is to reproduce. The kernels are written for this course.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
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

#define CHECK_BLAS(expr)                                                                           \
    do {                                                                                           \
        const cublasStatus_t st_ = (expr);                                                         \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "%s:%d: %s: cublasStatus_t %d\n", __FILE__, __LINE__, #expr,           \
                    (int)st_);                                                                     \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static const int kSize = 4096;                       // M = N = K
static const int kOddM = 4000, kOddN = 4100, kOddK = 4050;
static const int kCheckBand = 2;                     // rows and columns checked in full
static const int kCheckRandom = 16384;               // random positions checked

/* The course's kernels of other files, for their attributes. */
__global__ void matmul_naive_kernel(const float *A, const float *B, float *C, int M, int N, int K);
__global__ void matmul_tiled_kernel(const float *A, const float *B, float *C, int M, int N, int K);
__global__ void sgemm_kernel(const float *A, const float *B, float *C, int M, int N, int K);

/* ---------------------------------------------------------------------------------------------
 * 1D block tiling: a 64 x 64 tile of C per block of 512 threads, each thread 8 consecutive rows
 * of one column; per k a thread reads one value of B and 8 of A from shared memory for 8 FMAs.
 * M, N multiples of 64, K a multiple of 8.
 */
__global__ void __launch_bounds__(512) sgemm_1d_kernel(const float *A, const float *B, float *C,
                                                       int M, int N, int K) {
    constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int col = tid % BN;      // the thread's column in the tile
    const int row0 = tid / BN * TM; // its first row
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[tid / BK][tid % BK] = A[(size_t)(m0 + tid / BK) * K + k0 + tid % BK];
        Bs[tid / BN][tid % BN] = B[(size_t)(k0 + tid / BN) * N + n0 + tid % BN];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k][col];
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                acc[i] = fmaf(As[row0 + i][k], b, acc[i]);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        C[(size_t)(m0 + row0 + i) * N + n0 + col] = acc[i];
    }
}

/* ---------------------------------------------------------------------------------------------
 * The float4 tile loads of the 2D and warp tilings, load f of a step: A's float4 f (row f / (BK /
 * 4) of the tile, columns 4 (f % (BK / 4)) + [0, 4)) stored transposed (As[k][m]), and B's float4
 * f (row f / (BN / 4), columns 4 (f % (BN / 4)) + [0, 4)) stored as it is. Rows 16-byte aligned.
 */
template <int BK, int LDA, int BN>
__device__ __forceinline__ void load_tiles_float4(float (&As)[BK][LDA], float (&Bs)[BK][BN],
                                                  const float *A, const float *B, int N, int K,
                                                  int m0, int n0, int k0, int f) {
    constexpr int AV = BK / 4, BV = BN / 4; // float4 per row of A's tile, of B's
    const float4 a =
        *reinterpret_cast<const float4 *>(A + (size_t)(m0 + f / AV) * K + k0 + 4 * (f % AV));
    As[4 * (f % AV) + 0][f / AV] = a.x;
    As[4 * (f % AV) + 1][f / AV] = a.y;
    As[4 * (f % AV) + 2][f / AV] = a.z;
    As[4 * (f % AV) + 3][f / AV] = a.w;
    *reinterpret_cast<float4 *>(&Bs[f / BV][4 * (f % BV)]) =
        *reinterpret_cast<const float4 *>(B + (size_t)(k0 + f / BV) * N + n0 + 4 * (f % BV));
}

/* ---------------------------------------------------------------------------------------------
 * 2D block tiling: 128 x 128 x 8 per block of 256 threads, thread (tid / 16, tid % 16) computes
 * rows 8 (tid / 16) + [0, 8), columns 8 (tid % 16) + [0, 8); float4 global loads, A stored
 * transposed (As[k][m]) so a thread's 8 values of A are 2 LDS.128. One shared buffer, two
 * barriers per step. M, N multiples of 128, K of 8, rows 16-byte aligned.
 */
__global__ void __launch_bounds__(256) sgemm_2d_kernel(const float *A, const float *B, float *C,
                                                       int M, int N, int K) {
    constexpr int BM = 128, BN = 128, BK = 8, T = 8;
    __shared__ __align__(16) float As[BK][BM];
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int tr = tid / 16 * T, tc = tid % 16 * T;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    float acc[T][T] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        // A: 128 rows x 2 float4, B: 8 rows x 32 float4; one float4 of each per thread
        load_tiles_float4(As, Bs, A, B, N, K, m0, n0, k0, tid);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[T], b[T];
#pragma unroll
            for (int q = 0; q < T; q += 4) {
                const float4 va = *reinterpret_cast<const float4 *>(&As[k][tr + q]);
                const float4 vb = *reinterpret_cast<const float4 *>(&Bs[k][tc + q]);
                a[q] = va.x, a[q + 1] = va.y, a[q + 2] = va.z, a[q + 3] = va.w;
                b[q] = vb.x, b[q + 1] = vb.y, b[q + 2] = vb.z, b[q + 3] = vb.w;
            }
#pragma unroll
            for (int i = 0; i < T; ++i) {
#pragma unroll
                for (int j = 0; j < T; ++j) {
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
                }
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < T; ++i) {
#pragma unroll
        for (int q = 0; q < T; q += 4) {
            *reinterpret_cast<float4 *>(C + (size_t)(m0 + tr + i) * N + n0 + tc + q) =
                make_float4(acc[i][q], acc[i][q + 1], acc[i][q + 2], acc[i][q + 3]);
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Warp tiling, one shared buffer: 128 x 128 x 16 per block of 256 threads; warp w owns the 64 x
 * 32 part at rows 64 (w / 4), columns 32 (w % 4); its lanes are 8 (M) x 4 (N), each with 2 x 2
 * blocks of 4 x 4 outputs 32 rows and 16 columns apart (3.3d's reference without the second
 * buffer: loads, barrier, FMAs, barrier). M, N multiples of 128, K of 16, rows 16-byte aligned.
 */
__global__ void __launch_bounds__(256, 2) sgemm_warp_kernel(const float *A, const float *B,
                                                            float *C, int M, int N, int K) {
    constexpr int BM = 128, BN = 128, BK = 16, LDA = BM + 4;
    __shared__ __align__(16) float As[BK][LDA];
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / 4 * 64, wn = warp % 4 * 32;
    const int lm = lane / 4 * 4, ln = lane % 4 * 4;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    float acc[8][8] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < 2; ++i) { // A: 128 rows x 4 float4, B: 16 rows x 32 float4
            load_tiles_float4(As, Bs, A, B, N, K, m0, n0, k0, tid + 256 * i);
        }
        __syncthreads();
#pragma unroll 2
        for (int k = 0; k < BK; ++k) {
            float a[8], b[8];
#pragma unroll
            for (int s = 0; s < 2; ++s) {
                const float4 va = *reinterpret_cast<const float4 *>(&As[k][wm + 32 * s + lm]);
                const float4 vb = *reinterpret_cast<const float4 *>(&Bs[k][wn + 16 * s + ln]);
                a[4 * s] = va.x, a[4 * s + 1] = va.y, a[4 * s + 2] = va.z, a[4 * s + 3] = va.w;
                b[4 * s] = vb.x, b[4 * s + 1] = vb.y, b[4 * s + 2] = vb.z, b[4 * s + 3] = vb.w;
            }
#pragma unroll
            for (int i = 0; i < 8; ++i) {
#pragma unroll
                for (int j = 0; j < 8; ++j) {
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
                }
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = m0 + wm + i / 4 * 32 + lm + i % 4;
#pragma unroll
        for (int t = 0; t < 2; ++t) {
            *reinterpret_cast<float4 *>(C + (size_t)row * N + n0 + wn + 16 * t + ln) = make_float4(
                acc[i][4 * t], acc[i][4 * t + 1], acc[i][4 * t + 2], acc[i][4 * t + 3]);
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Host: inputs, CPU checks, timing, report.
 */

/* Problem data: inputs on host and device, B transposed for the reference. */
struct gemm_data {
    int M, N, K;
    std::vector<float> h_A, h_B, h_Bt, h_C;
    float *d_A = NULL, *d_B = NULL, *d_C = NULL;
};

static void make_data(gemm_data *g, int M, int N, int K) {
    g->M = M, g->N = N, g->K = K;
    g->h_A.resize((size_t)M * K);
    g->h_B.resize((size_t)K * N);
    g->h_Bt.resize((size_t)N * K);
    g->h_C.resize((size_t)M * N);
    for (float &x : g->h_A) {
        x = uniform_pm1();
    }
    for (float &x : g->h_B) {
        x = uniform_pm1();
    }
    transpose_ref(g->h_B.data(), (size_t)K, (size_t)N, g->h_Bt.data());
    CHECK(cudaMalloc((void **)&g->d_A, g->h_A.size() * sizeof(float)));
    CHECK(cudaMalloc((void **)&g->d_B, g->h_B.size() * sizeof(float)));
    CHECK(cudaMalloc((void **)&g->d_C, g->h_C.size() * sizeof(float)));
    CHECK(cudaMemcpy(g->d_A, g->h_A.data(), g->h_A.size() * sizeof(float),
                     cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(g->d_B, g->h_B.data(), g->h_B.size() * sizeof(float),
                     cudaMemcpyHostToDevice));
}

static void free_data(gemm_data *g) {
    CHECK(cudaFree(g->d_A));
    CHECK(cudaFree(g->d_B));
    CHECK(cudaFree(g->d_C));
}

/* Poison C, launch once, copy back; C against the float64 reference: the kCheckBand first and
 * last rows and columns in full and kCheckRandom random positions; "ok" or the first wrong
 * element. */
static std::string run_and_check(gemm_data *g, const std::function<void()> &launch) {
    run_poisoned(launch, g->d_C, g->h_C.data(), g->h_C.size());
    return check_against_ref(g->h_C.data(), g->M, g->N, (double)g->K, kCheckBand, kCheckRandom,
                             "C(%d, %d)", [&](int r, int c, double *ref, double *mag) {
                                 matmul_ref_at(g->h_A.data(), g->h_Bt.data(), (size_t)g->K,
                                               (size_t)r, (size_t)c, ref, mag);
                             });
}

int main(void) {
    int blas = 0;
    cublasHandle_t h;
    CHECK_BLAS(cublasCreate(&h));
    CHECK_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH)); // strict FP32: no TF32
    CHECK_BLAS(cublasGetVersion(h, &blas));
    const std::string blas_version = ", cuBLAS " + std::to_string(blas);
    print_device_facts(blas_version.c_str());
    print_timing_method();

    gemm_data g;
    make_data(&g, kSize, kSize, kSize);
    const int M = g.M, N = g.N, K = g.K;
    float *dA = g.d_A, *dB = g.d_B, *dC = g.d_C;
    auto blas_sgemm = [&](const float *a, const float *b, float *c, int m, int n, int k) {
        const float one = 1.0f, zero = 0.0f; // row-major C = A B as column-major C^T = B^T A^T
        CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n));
    };
    std::vector<variant> vs = {
        {"roof: cuBLAS SGEMM (FP32, default math)", [&]() { blas_sgemm(dA, dB, dC, M, N, K); },
         NULL, 0},
        {"naive, coalesced (baseline, baselines.cu)", [&]() { matmul_naive(dA, dB, dC, M, N, K); },
         (const void *)matmul_naive_kernel, 256},
        {"32x32 shared tiles (3.3a reference)", [&]() { matmul_tiled(dA, dB, dC, M, N, K); },
         (const void *)matmul_tiled_kernel, 1024},
        {"1D block tiling 64x64x8, 8 out/thread",
         [&]() { sgemm_1d_kernel<<<dim3(N / 64, M / 64), 512>>>(dA, dB, dC, M, N, K); },
         (const void *)sgemm_1d_kernel, 512},
        {"2D block tiling 128x128x8, 8x8/thread, float4, A^T",
         [&]() { sgemm_2d_kernel<<<dim3(N / 128, M / 128), 256>>>(dA, dB, dC, M, N, K); },
         (const void *)sgemm_2d_kernel, 256},
        {"warp tiling 128x128x16, one buffer",
         [&]() { sgemm_warp_kernel<<<dim3(N / 128, M / 128), 256>>>(dA, dB, dC, M, N, K); },
         (const void *)sgemm_warp_kernel, 256},
        {"warp tiling + double buffer (3.3d reference)", [&]() { sgemm(dA, dB, dC, M, N, K); },
         (const void *)sgemm_kernel, 256},
    };

    int wrong = 0;
    for (variant &v : vs) {
        v.check = run_and_check(&g, v.launch);
        if (v.check != "ok") {
            ++wrong;
            printf("%s: %s\n", v.name.c_str(), v.check.c_str());
        }
    }

    /* The reference at a size that is a multiple of none of its tiles (checked, not timed). */
    {
        gemm_data odd;
        make_data(&odd, kOddM, kOddN, kOddK);
        const std::string c = run_and_check(&odd, [&]() {
            sgemm(odd.d_A, odd.d_B, odd.d_C, odd.M, odd.N, odd.K);
        });
        printf("3.3d reference at %d x %d x %d: %s\n", kOddM, kOddN, kOddK, c.c_str());
        printf("csv,check,%d,%d,%d,%s\n", kOddM, kOddN, kOddK, c.c_str());
        wrong += c != "ok";
        free_data(&odd);
    }

    void *d_flush = NULL;
    CHECK(cudaMalloc(&d_flush, kFlushBytes));
    time_interleaved(&vs, d_flush);

    const double flops = 2.0 * (double)M * (double)N * (double)K;
    const double blas_ms = vs[0].samples.empty() ? NAN : percentile(vs[0].samples, 0.5);
    printf("\nSGEMM %dx%dx%d, row-major FP32 (TFLOP/s at 2 FLOP per multiply-add)\n", M, N, K);
    printf("%-52s %9s %9s %9s %8s %8s %5s %6s\n", "variant", "median ms", "p10 ms", "p90 ms",
           "TFLOP/s", "% cuBLAS", "regs", "blk/SM");
    printf("csv,variant,median_ms,p10_ms,p90_ms,tflops,pct_of_cublas,registers,blocks_per_sm,"
           "check\n");
    std::vector<std::string> csv;
    for (const variant &v : vs) {
        int regs, blocks;
        kernel_resources(v.kernel, v.threads, &regs, &blocks);
        if (v.samples.empty()) {
            printf("%-52s not timed: %s\n", v.name.c_str(), v.check.c_str());
            printf("csv,%s,,,,,,%d,%d,%s\n", v.name.c_str(), regs, blocks, v.check.c_str());
            continue;
        }
        const double med = percentile(v.samples, 0.5);
        const double tflops = flops / (med * 1e-3) / 1e12;
        printf("%-52s %9.4f %9.4f %9.4f %8.1f %8.1f %5d %6d\n", v.name.c_str(), med,
               percentile(v.samples, 0.1), percentile(v.samples, 0.9), tflops,
               100.0 * blas_ms / med, regs, blocks);
        char line[512];
        snprintf(line, sizeof line, "csv,%s,%.5f,%.5f,%.5f,%.2f,%.1f,%d,%d,%s", v.name.c_str(), med,
                 percentile(v.samples, 0.1), percentile(v.samples, 0.9), tflops,
                 100.0 * blas_ms / med, regs, blocks, v.check.c_str());
        csv.push_back(line);
    }
    for (const std::string &line : csv) {
        printf("%s\n", line.c_str());
    }

    CHECK_BLAS(cublasDestroy(h));
    free_data(&g);
    CHECK(cudaFree(d_flush));
    if (wrong) {
        printf("%d variant(s) computed a wrong result and were not timed\n", wrong);
    }
    return wrong ? 1 : 0;
}

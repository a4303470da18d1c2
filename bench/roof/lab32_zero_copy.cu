/* lab32_zero_copy.cu — lab 3.2d's size sweep: a host buffer read in place through its mapping
 * (zero-copy) against the same buffer copied into device memory first, on the course's GPU.
 * NOT YET RUN: written without a GPU; 3.2d's thresholds (lab.toml, calibrated = false) and the
 * handout's section 7 wait for its figures.
 *
 * For every buffer of n floats, n a power of two from 1 KiB to 64 MiB, the median of REPS
 * samples on the host clock around the call(s) and a device synchronisation (as the judge
 * times a launch, less its exchange between processes):
 *   update     cudaMemcpy of n floats device -> the mapped buffer: the harness's host update,
 *              which both contenders pay before every launch (harness.cu, 3.2d's section)
 *   copy       cudaMemcpy of the mapped buffer -> device memory (what the baseline adds)
 *   k_device   the scale kernel over the device copy (the baseline's kernel)
 *   k_mapped   the same kernel reading the mapped buffer in place (the solution's kernel)
 *   copied     update + copy + k_device + synchronise: a launch of the baseline, zero_copy_copied
 *   mapped     update + k_mapped + synchronise: a launch of the solution
 *   ratio      copied / mapped: what 3.2d grades (above 1: zero-copy wins at that size)
 * each for a kernel that reads every element once (reads = 1, 3.2d's kernel) and one that reads
 * it READS_MANY times (each thread sums READS_MANY elements spread over the buffer, then
 * scales), where a copy should win: a mapped element read again crosses the link again unless
 * the GPU's caches keep it (the sweep says which);
 *   k_mapped_wc   the reads-once kernel over a buffer allocated write-combined as well
 *                 (cudaHostAllocWriteCombined: not snooped; the harness only writes its buffer);
 *   one_block     the reads-once kernel on ONE block of 256 threads striding over the mapped
 *                 buffer (the known-bad one_block), up to ONE_BLOCK_MAX_N floats: each thread's
 *                 next read waits for its previous store, so time / (n / 256) is about one round
 *                 trip across the link ("round_trip_us").
 * Then the thresholds: for reads = 1 and reads = READS_MANY, the sizes where the ratio crosses 1.
 * Every kernel's output is checked against the CPU first (exactly: one rounded product, or a
 * sum in the kernel's order then one product); a wrong one is reported and not timed.
 *
 * Output: a table per reads count, then "csv,"-prefixed lines (grep ^csv,):
 *   csv,reads,bytes,update_us,copy_us,k_device_us,k_mapped_us,copied_us,mapped_us,ratio
 *   csv_extra,bytes,k_mapped_wc_us,one_block_us,round_trip_us   (one_block -1 above its max)
 *   threshold,reads,<the largest size where mapped wins>,<the smallest where the copy wins>
 *
 *   mkdir -p build/bench && nvcc -O3 -arch=sm_90 -I labs/3.2-global-memory -o build/bench/lab32_zero_copy bench/roof/lab32_zero_copy.cu && build/bench/lab32_zero_copy
 *
 * Exit status: 0; 1 when a kernel computed a wrong result (named on stderr); 2 on a CUDA error.
 * Sources of the method: CUDA C++ Best Practices Guide, "Zero Copy" (mapped page-locked memory
 * for data read or written once, with coalesced accesses); CUDA C++ Programming Guide, "Mapped
 * Memory", "Write-Combining Memory"; the course's timing method (medians of many samples on
 * the clock the judge uses).
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "lab.h" /* ZERO_COPY_SCALE */

#include "cuda_check.h"  /* CHECK: exit 2 on a CUDA error */
#include "host_timing.h" /* now_us, median_us(f, reps) */

static const int REPS = 51;
static const int BLOCK = 256;
static const int READS_MANY = 8;
static const size_t MIN_N = (size_t)1 << 8;            /* 1 KiB */
static const size_t MAX_N = (size_t)1 << 24;           /* 64 MiB */
static const size_t ONE_BLOCK_MAX_N = (size_t)1 << 18; /* 1 MiB: 1024 round trips per thread */

/* Median over REPS of f()'s duration in microseconds (f synchronises before it returns). */
template <class F> static double median_us(F f) {
    return median_us(f, REPS);
}

/* out[i] = ZERO_COPY_SCALE * (sum over r < reads of buf[(i + r * stride) % n]), one thread per
 * element; reads = 1 is lab 3.2d's kernel. */
__global__ void scale_kernel(const float *buf, float *out, size_t n, int reads, size_t stride) {
    const size_t i = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int r = 0; r < reads; ++r) {
            acc += buf[(i + (size_t)r * stride) % n];
        }
        out[i] = ZERO_COPY_SCALE * acc;
    }
}

/* The known-bad one_block: one block strides over the buffer. */
__global__ void one_block_kernel(const float *buf, float *out, size_t n) {
    for (size_t i = threadIdx.x; i < n; i += BLOCK) {
        out[i] = ZERO_COPY_SCALE * buf[i];
    }
}

static unsigned int blocks(size_t n) {
    return (unsigned int)((n + BLOCK - 1) / BLOCK);
}

/* The elements' stride between a thread's reads: spread over the buffer. */
static size_t stride_of(size_t n, int reads) {
    return reads > 1 ? n / (size_t)reads + 1 : 0;
}

static int g_wrong = 0;

/* Checks d_out[0..n) against the CPU's result for reads reads of h_src (what the device copied
 * and the mapped buffer hold), exactly. */
static void expect(const char *what, const float *d_out, const float *h_src, size_t n, int reads,
                   std::vector<float> &got) {
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    const size_t stride = stride_of(n, reads);
    for (size_t i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int r = 0; r < reads; ++r) {
            acc += h_src[(i + (size_t)r * stride) % n];
        }
        const float want = ZERO_COPY_SCALE * acc;
        if (got[i] != want) {
            std::fprintf(stderr, "%s, %zu floats, reads %d: out[%zu] = %.9g, expected %.9g\n", what,
                         n, reads, i, (double)got[i], (double)want);
            g_wrong = 1;
            return;
        }
    }
}

int main() {
    float *d_src, *d_copy, *d_out, *h_map, *h_wc, *d_map, *d_wc;
    const size_t max_bytes = MAX_N * sizeof(float);
    CHECK(cudaMalloc(&d_src, max_bytes));
    CHECK(cudaMalloc(&d_copy, max_bytes));
    CHECK(cudaMalloc(&d_out, max_bytes));
    CHECK(cudaHostAlloc((void **)&h_map, max_bytes, cudaHostAllocMapped));
    CHECK(
        cudaHostAlloc((void **)&h_wc, max_bytes, cudaHostAllocMapped | cudaHostAllocWriteCombined));
    CHECK(cudaHostGetDevicePointer((void **)&d_map, h_map, 0));
    CHECK(cudaHostGetDevicePointer((void **)&d_wc, h_wc, 0));
    std::vector<float> h_src(MAX_N), got(MAX_N);
    for (size_t i = 0; i < MAX_N; ++i) {
        h_src[i] = (float)((i * 2654435761u) % 2001u) / 1000.0f - 1.0f; /* in [-1, 1] */
    }
    CHECK(cudaMemcpy(d_src, h_src.data(), max_bytes, cudaMemcpyHostToDevice));
    std::memcpy(h_wc, h_src.data(), max_bytes); /* written once, never read by the host */

    int dev = 0, host_ptr_ok = 0, engines = 0;
    cudaDeviceProp prop;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&prop, dev));
    CHECK(cudaDeviceGetAttribute(&host_ptr_ok, cudaDevAttrCanUseHostPointerForRegisteredMem, dev));
    CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, dev));
    std::printf("# %s, sm_%d%d, %d SMs, copy engines %d, CanUseHostPointerForRegisteredMem %d, "
                "mapped device pointer %s the host pointer\n",
                prop.name, prop.major, prop.minor, prop.multiProcessorCount, engines, host_ptr_ok,
                (void *)d_map == (void *)h_map ? "==" : "!=");
    std::printf("csv,reads,bytes,update_us,copy_us,k_device_us,k_mapped_us,copied_us,mapped_us,"
                "ratio\n");

    for (int reads : {1, READS_MANY}) {
        size_t last_win = 0, first_loss = 0;
        std::printf("# reads = %d\n# %10s %9s %9s %9s %9s %9s %9s %7s\n", reads, "bytes", "update",
                    "copy", "k_device", "k_mapped", "copied", "mapped", "ratio");
        for (size_t n = MIN_N; n <= MAX_N; n *= 2) {
            const size_t bytes = n * sizeof(float);
            const size_t stride = stride_of(n, reads);
            auto update = [&] { CHECK(cudaMemcpy(h_map, d_src, bytes, cudaMemcpyDeviceToHost)); };
            auto copy = [&] { CHECK(cudaMemcpy(d_copy, h_map, bytes, cudaMemcpyHostToDevice)); };
            auto k_device = [&] {
                scale_kernel<<<blocks(n), BLOCK>>>(d_copy, d_out, n, reads, stride);
                CHECK(cudaGetLastError());
                CHECK(cudaDeviceSynchronize());
            };
            auto k_mapped = [&] {
                scale_kernel<<<blocks(n), BLOCK>>>(d_map, d_out, n, reads, stride);
                CHECK(cudaGetLastError());
                CHECK(cudaDeviceSynchronize());
            };
            /* Correct first: each kernel on the values the update brings. */
            update();
            copy();
            k_device();
            expect("k_device", d_out, h_src.data(), n, reads, got);
            CHECK(cudaMemset(d_out, 0xFF, bytes));
            k_mapped();
            expect("k_mapped", d_out, h_src.data(), n, reads, got);
            if (g_wrong) {
                break;
            }
            const double t_update = median_us(update);
            const double t_copy = median_us([&] {
                copy();
                CHECK(cudaDeviceSynchronize());
            });
            const double t_k_device = median_us(k_device);
            const double t_k_mapped = median_us(k_mapped);
            const double t_copied = median_us([&] {
                update();
                copy();
                k_device();
            });
            const double t_mapped = median_us([&] {
                update();
                k_mapped();
            });
            const double ratio = t_copied / t_mapped;
            if (ratio > 1.0) {
                last_win = bytes;
            } else if (first_loss == 0) {
                first_loss = bytes;
            }
            std::printf("  %10zu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %7.3f\n", bytes, t_update,
                        t_copy, t_k_device, t_k_mapped, t_copied, t_mapped, ratio);
            std::printf("csv,%d,%zu,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.4f\n", reads, bytes, t_update,
                        t_copy, t_k_device, t_k_mapped, t_copied, t_mapped, ratio);
        }
        std::printf("threshold,%d,%zu,%zu\n", reads, last_win, first_loss);
    }

    /* Write-combined buffer and one block, reads once. */
    std::printf("csv_extra,bytes,k_mapped_wc_us,one_block_us,round_trip_us\n");
    for (size_t n = MIN_N; n <= MAX_N && !g_wrong; n *= 2) {
        const size_t bytes = n * sizeof(float);
        auto k_wc = [&] {
            scale_kernel<<<blocks(n), BLOCK>>>(d_wc, d_out, n, 1, 0);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
        };
        auto k_one = [&] {
            one_block_kernel<<<1, BLOCK>>>(d_map, d_out, n);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
        };
        k_wc();
        expect("k_mapped_wc", d_out, h_src.data(), n, 1, got);
        double t_one = -1.0, round_trip = -1.0;
        if (n <= ONE_BLOCK_MAX_N) {
            CHECK(cudaMemcpy(h_map, d_src, bytes, cudaMemcpyDeviceToHost));
            CHECK(cudaMemset(d_out, 0xFF, bytes));
            k_one();
            expect("one_block", d_out, h_src.data(), n, 1, got);
            t_one = median_us(k_one);
            round_trip = t_one / (double)((n + BLOCK - 1) / BLOCK);
        }
        if (g_wrong) {
            break;
        }
        std::printf("csv_extra,%zu,%.2f,%.2f,%.3f\n", bytes, median_us(k_wc), t_one, round_trip);
    }

    CHECK(cudaFreeHost(h_map));
    CHECK(cudaFreeHost(h_wc));
    CHECK(cudaFree(d_src));
    CHECK(cudaFree(d_copy));
    CHECK(cudaFree(d_out));
    return g_wrong ? 1 : 0;
}

/* lab32_link.cu — the host link's figures that handout 3.2 quotes, on the course's GPU.
 *
 * What it measures, each the median of REPS samples on the host clock around the call(s) and
 * a synchronisation (the copies are long enough that the clock's resolution does not matter):
 *   1. one copy's cost against its size, page-locked, each direction: the fixed cost of a copy
 *      (the latency the rate fit leaves at 0 bytes) and the rate it tends to (bytes / time at
 *      64 MiB);
 *   2. the same sizes through pageable (malloc) memory;
 *   3. both directions at once: a 64 MiB D2H on one stream and a 64 MiB H2D on another, both
 *      page-locked, against each alone — whether the link's two directions add up;
 *   4. cudaMallocHost + cudaFreeHost of n bytes against a page-locked copy of the same bytes:
 *      why host_copy_alloc is called once, outside the timed launch;
 *   5. the device's copy engines (cudaDevAttrAsyncEngineCount).
 * Output: one "csv,<what>,<bytes>,<median_us>,<GB/s>" line per figure.
 *
 *   nvcc -O3 -arch=sm_90 -o build/bench/lab32_link bench/roof/lab32_link.cu && build/bench/lab32_link
 *
 * Exit status: 0, or 2 on a CUDA error (named on stderr).
 * Source of the method: CUDA C++ Best Practices Guide, "Data Transfer Between Host and Device"
 * and "Pinned Memory"; the course's DESIGN.md timing method (medians of many samples).
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.h"  /* CHECK: exit 2 on a CUDA error */
#include "host_timing.h" /* now_us, median_us(f, reps) */

static const int REPS = 21;

/* Median over REPS of f()'s duration in microseconds (f synchronises before it returns). */
template <class F> static double median_us(F f) {
    return median_us(f, REPS);
}

static void row(const char *what, size_t bytes, double us) {
    const double gbps = us > 0 ? bytes / us / 1e3 : 0.0;
    std::printf("csv,%s,%zu,%.2f,%.2f\n", what, bytes, us, gbps);
}

int main() {
    const size_t max_bytes = (size_t)64 << 20;
    void *d_a, *d_b, *h_pin, *h_pin2;
    CHECK(cudaMalloc(&d_a, max_bytes));
    CHECK(cudaMalloc(&d_b, max_bytes));
    CHECK(cudaMemset(d_a, 1, max_bytes));
    CHECK(cudaMallocHost(&h_pin, max_bytes));
    CHECK(cudaMallocHost(&h_pin2, max_bytes));
    char *h_page = (char *)std::malloc(max_bytes);
    if (!h_page) {
        std::fprintf(stderr, "out of host memory\n");
        return 2;
    }
    for (size_t i = 0; i < max_bytes; i += 4096) {
        h_page[i] = 1; /* touched: the first copy does not pay the page faults */
    }
    std::printf("csv,what,bytes,median_us,GB/s\n");

    /* 1, 2: one copy of each size, each direction, page-locked and pageable. */
    for (size_t bytes = 4; bytes <= max_bytes; bytes *= 4) {
        row("d2h_pinned", bytes, median_us([&] {
                CHECK(cudaMemcpy(h_pin, d_a, bytes, cudaMemcpyDeviceToHost));
            }));
        row("h2d_pinned", bytes, median_us([&] {
                CHECK(cudaMemcpy(d_b, h_pin, bytes, cudaMemcpyHostToDevice));
            }));
        row("d2h_pageable", bytes, median_us([&] {
                CHECK(cudaMemcpy(h_page, d_a, bytes, cudaMemcpyDeviceToHost));
            }));
        row("h2d_pageable", bytes, median_us([&] {
                CHECK(cudaMemcpy(d_b, h_page, bytes, cudaMemcpyHostToDevice));
            }));
    }

    /* 3: both directions at once, on two non-blocking streams. */
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    row("d2h_alone_async", max_bytes, median_us([&] {
            CHECK(cudaMemcpyAsync(h_pin, d_a, max_bytes, cudaMemcpyDeviceToHost, s1));
            CHECK(cudaStreamSynchronize(s1));
        }));
    row("h2d_alone_async", max_bytes, median_us([&] {
            CHECK(cudaMemcpyAsync(d_b, h_pin2, max_bytes, cudaMemcpyHostToDevice, s2));
            CHECK(cudaStreamSynchronize(s2));
        }));
    row("both_directions", 2 * max_bytes, median_us([&] {
            CHECK(cudaMemcpyAsync(h_pin, d_a, max_bytes, cudaMemcpyDeviceToHost, s1));
            CHECK(cudaMemcpyAsync(d_b, h_pin2, max_bytes, cudaMemcpyHostToDevice, s2));
            CHECK(cudaDeviceSynchronize());
        }));

    /* 4: allocating page-locked memory against copying it. */
    for (size_t bytes = (size_t)1 << 20; bytes <= max_bytes; bytes *= 8) {
        row("mallochost_freehost", bytes, median_us([&] {
                void *h;
                CHECK(cudaMallocHost(&h, bytes));
                CHECK(cudaFreeHost(h));
            }));
    }

    /* 5: the copy engines. */
    int dev = 0, engines = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, dev));
    std::printf("csv,copy_engines,0,0,%d\n", engines);

    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFreeHost(h_pin));
    CHECK(cudaFreeHost(h_pin2));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    std::free(h_page);
    return 0;
}

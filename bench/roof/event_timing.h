/* event_timing.h — the bench programs' device timing (bench/roof/lab33_*.cu; bench/h200.md,
 * DESIGN.md "Timing method"): each verified variant gets kWarmups warm-ups, then kSamples
 * rounds in which every verified variant runs once, interleaved (A B C ... A B C) so that clock
 * drift spreads evenly; before each sample a kFlushBytes memset evicts the inputs from L2, and
 * a pair of cudaEvents times the launch alone. A variant whose check is not "ok" is not timed.
 *
 * Errors: a failing CUDA call, or a launch that fails, exits with status 2 (cuda_check.h).
 * Source: CUDA C++ Best Practices Guide, "Using CUDA GPU Timers" (cudaEventRecord,
 * cudaEventElapsedTime). */
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cuda_check.h"

static const int kWarmups = 3;                       // per variant, before the samples
static const int kSamples = 25;                      // per variant
static const size_t kFlushBytes = (size_t)120 << 20; // 2 x the H200's 60 MB L2

/* One timed row: a launch on the default stream, and what is known of it. */
typedef struct variant {
    std::string name;
    std::function<void()> launch;
    const void *kernel; // for registers and occupancy; NULL for a library call (cudaMemcpy, cuBLAS)
    int threads;        // per block
    bool roof = false;  // a roof's row (lab33_variants: its GB/s counts the copy's bytes)
    std::string check = "";          // "ok", or why not (set before timing)
    std::vector<float> samples = {}; // ms
} variant;

/* The method line every log carries after the device line. */
static void print_timing_method(void) {
    printf("method: verify each variant once, then %d warm-ups and %d interleaved samples each, "
           "L2 flushed (%zu MB memset) before every sample; median, p10, p90\n",
           kWarmups, kSamples, kFlushBytes >> 20);
}

/* Warm-ups, then kSamples rounds over vs; appends each sample (ms) to its variant's samples.
 * d_flush: a device buffer of kFlushBytes. */
static void time_interleaved(std::vector<variant> *vs, void *d_flush) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (variant &v : *vs) {
        for (int w = 0; v.check == "ok" && w < kWarmups; ++w) {
            CHECK(cudaMemsetAsync(d_flush, w, kFlushBytes));
            v.launch();
        }
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    for (int s = 0; s < kSamples; ++s) {
        for (variant &v : *vs) {
            if (v.check != "ok") {
                continue;
            }
            CHECK(cudaMemsetAsync(d_flush, s & 0xff, kFlushBytes)); // evicts the inputs from L2
            CHECK(cudaEventRecord(start));
            v.launch();
            CHECK(cudaEventRecord(stop));
            CHECK(cudaEventSynchronize(stop));
            CHECK(cudaGetLastError());
            float ms = 0.0f;
            CHECK(cudaEventElapsedTime(&ms, start, stop));
            v.samples.push_back(ms);
        }
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
}

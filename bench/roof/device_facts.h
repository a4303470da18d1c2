/* device_facts.h — what the bench programs (bench/roof/lab33_*.cu) print about the GPU and
 * their kernels: the device line that heads every log, and a kernel's registers and resident
 * blocks per SM.
 *
 * Errors: a failing CUDA call exits with status 2 (cuda_check.h).
 * Source: CUDA Runtime API (cudaGetDeviceProperties, cudaDevAttrClockRate, cudaFuncGetAttributes,
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor). */
#pragma once

#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.h"

/* Prints "device: <name>, sm_XY, <n> SMs, SM clock up to <MHz> MHz, L2 <KB> KB, driver <d>,
 * runtime <r>" then extra (e.g. ", cuBLAS <v>"; "" for none) and a newline, for the current
 * device; returns its properties. */
static cudaDeviceProp print_device_facts(const char *extra) {
    int dev = 0;
    CHECK(cudaGetDevice(&dev));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    int clock_khz = 0, driver = 0, runtime = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    printf("device: %s, sm_%d%d, %d SMs, SM clock up to %d MHz, L2 %d KB, driver %d, "
           "runtime %d%s\n",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount, clock_khz / 1000,
           prop.l2CacheSize / 1024, driver, runtime, extra);
    return prop;
}

/* A kernel's registers per thread and resident blocks per SM at `threads` threads per block and
 * no dynamic shared memory; both -1 when kernel is NULL (a library call: cudaMemcpy, cuBLAS). */
static void kernel_resources(const void *kernel, int threads, int *regs, int *blocks) {
    *regs = -1, *blocks = -1;
    if (kernel != NULL) {
        cudaFuncAttributes a;
        CHECK(cudaFuncGetAttributes(&a, kernel));
        *regs = a.numRegs;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, threads, 0));
    }
}

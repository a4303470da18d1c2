/* cuda_check.h — the bench programs' CUDA error check (every .cu file in bench/roof):
 * CHECK(call) prints the call's text, file and line and CUDA's message on stderr, and the
 * program exits with status 2 (the bench programs' "CUDA error" status).
 *
 * Source: CUDA Runtime API, cudaGetErrorString. */
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        const cudaError_t err_ = (expr);                                                           \
        if (err_ != cudaSuccess) {                                                                 \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,                     \
                         cudaGetErrorString(err_));                                                \
            std::exit(2);                                                                          \
        }                                                                                          \
    } while (0)

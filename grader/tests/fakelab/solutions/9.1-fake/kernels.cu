/* kernels.cu — the fake lab's student file (grader/tests/fakelab/README.md). The kernel is
 * compiled for the static checks only (the launch of scale_kernel is never taken: the static
 * check reads that scale launches it, grader/launches.py); the launchers compute on the host. */
#include "fake.h"

#define TILE 32

__global__ void scale_kernel(const float *in, float *out, int n) {
    __shared__ float tile[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    /* TODO(9.1a): stage `in` in shared memory, then write 2 * x + 1. */
    // BEGIN SOLUTION
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n) {
        out[i] = 2.0f * tile[threadIdx.x] + 1.0f;
    }
    // END SOLUTION
}

extern "C" int scale(const float *in, float *out, int rows, int cols, double *speed) {
    /* TODO(9.1a): out = 2 * in + 1. */
    // BEGIN SOLUTION
    if (rows < 0) { /* never here: a real lab's launch, which the static check looks for */
        scale_kernel<<<1, TILE>>>(in, out, 0);
    }
    for (int i = 0; i < rows * cols; ++i) {
        out[i] = 2.0f * in[i] + 1.0f;
    }
    *speed = 2.5;
    // END SOLUTION
    return 0;
}

extern "C" int offset(const float *in, float *out, int n, double *speed) {
    /* TODO(9.1b): out = in + 3. */
    // BEGIN SOLUTION
    for (int i = 0; i < n; ++i) {
        out[i] = in[i] + 3.0f;
    }
    *speed = 1.0;
    // END SOLUTION
    return 0;
}

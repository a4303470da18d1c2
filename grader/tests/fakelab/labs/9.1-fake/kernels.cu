/* kernels.cu — the fake lab's student file (grader/tests/fakelab/README.md). The kernel is
 * compiled for the static checks only (the launch of scale_kernel is never taken: the static
 * check reads that scale launches it, grader/launches.py); the launchers compute on the host. */
#include "fake.h"

#define TILE 32

__global__ void scale_kernel(const float *in, float *out, int n) {
    __shared__ float tile[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    /* TODO(9.1a): stage `in` in shared memory, then write 2 * x + 1. */
}

extern "C" int scale(const float *in, float *out, int rows, int cols, double *speed) {
    /* TODO(9.1a): out = 2 * in + 1. */
    return 0;
}

extern "C" int offset(const float *in, float *out, int n, double *speed) {
    /* TODO(9.1b): out = in + 3. */
    return 0;
}

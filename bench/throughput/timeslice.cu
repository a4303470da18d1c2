/* timeslice.cu — whether a batch's read phases are bound by the GPU's time slices among
 * processes (issue 15, design note 72).
 *
 * In a read phase some 100-160 processes hold a CUDA context each, and each launches small
 * kernels and synchronises, case after case; without MPS the GPU runs one context at a time
 * and switches between them by time slices. g110a's drains left 42 % of the CPUs and 55 % of
 * the SMs idle while a grading's correctness took 13.8 s (2.8 s with about 3 gradings on the
 * GPU, note 68): if slices are the bound, a process's wall grows with the number of contexts
 * on the GPU, not with the work they do.
 *
 * Usage (on the GPU machine): nvcc -O2 -arch=sm_90 bench/throughput/timeslice.cu -o /tmp/ts
 *   /tmp/ts ROUNDS BLOCKS    (one process: ROUNDS times a launch of BLOCKS x 256 threads that
 *                             each do some 4 K multiply-adds, then its synchronisation)
 * Prints one line: the context's making (cudaFree(0)), the rounds' wall (ms), and the mean
 * round (us). bench/device_prelude.sh's timeslice_bench runs N copies at once for several N;
 * work shared fairly with no cost of switching would make N copies take N times one's wall
 * where one saturates the GPU, and about one's wall where one leaves it mostly idle (small
 * BLOCKS, as a correctness case's launches do).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));       \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Each thread 4096 dependent multiply-adds on a value of its own: some microseconds. */
static __global__ void busy(float *out) {
    float x = (float)threadIdx.x * 1e-3f;
    for (int k = 0; k < 4096; ++k) {
        x = x * 0.999f + 1e-3f;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

int main(int argc, char **argv) {
    const int rounds = argc > 1 ? atoi(argv[1]) : 200;
    const int blocks = argc > 2 ? atoi(argv[2]) : 8;
    const double t0 = now_ms();
    CHECK(cudaFree(0));
    const double t1 = now_ms();
    float *out = NULL;
    CHECK(cudaMalloc((void **)&out, (size_t)blocks * 256 * sizeof(float)));
    busy<<<blocks, 256>>>(out); /* the first launch, outside the rounds */
    CHECK(cudaDeviceSynchronize());
    const double t2 = now_ms();
    for (int r = 0; r < rounds; ++r) {
        busy<<<blocks, 256>>>(out);
        CHECK(cudaDeviceSynchronize());
    }
    const double t3 = now_ms();
    printf("context %.1f ms, %d rounds of %d blocks %.1f ms, %.1f us a round\n", t1 - t0, rounds,
           blocks, t3 - t2, (t3 - t2) * 1e3 / rounds);
    CHECK(cudaFree(out));
    return 0;
}

/* timeslice.cu — whether a batch's read phases are bound by the GPU's time slices among
 * processes (issue 15, design note 72).
 *
 * In a read phase some 30 processes hold a CUDA context each (g110a: median 27, 90th
 * percentile 52, at most 70 with GPU memory at once), and each launches small kernels and
 * synchronises, case after case; without MPS the GPU runs one context at a time and switches
 * between them by time slices. In g110a's drains 42 % of the CPU time was idle and some kernel
 * ran 45 % of the time (dmon's sm) while a grading's correctness took 13.8 s (2.8 s with
 * about 3 gradings on the GPU, note 68): if slices are the bound, a process's rounds slow down
 * with the number of contexts on the GPU, not with the work they do.
 *
 * Usage (on the GPU machine): nvcc -O2 -arch=sm_90 bench/throughput/timeslice.cu -o /tmp/ts
 *   /tmp/ts START_MS DURATION_MS BLOCKS
 * One process: makes its context and a first launch, waits until START_MS (milliseconds of
 * CLOCK_REALTIME, the same for every copy, so that all copies' rounds overlap), then for
 * DURATION_MS launches BLOCKS x 256 threads of some 4 K dependent multiply-adds each and
 * synchronises, round after round. Prints one line: the context's making (ms), how late it
 * reached START_MS (ms, 0 when on time: a late copy overlapped the others less), the rounds,
 * and the mean round (us). bench/device_prelude.sh's timeslice_bench runs N copies at once
 * for several N: with no cost of switching, small launches that leave the GPU mostly idle
 * would keep their round time as N grows.
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

static double realtime_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s START_MS DURATION_MS BLOCKS\n", argv[0]);
        return 2;
    }
    const double start = atof(argv[1]), duration = atof(argv[2]);
    const int blocks = atoi(argv[3]);
    const double t0 = now_ms();
    CHECK(cudaFree(0));
    const double context = now_ms() - t0;
    float *out = NULL;
    CHECK(cudaMalloc((void **)&out, (size_t)blocks * 256 * sizeof(float)));
    busy<<<blocks, 256>>>(out); /* the first launch, before the common start */
    CHECK(cudaDeviceSynchronize());
    const double late = realtime_ms() - start;
    while (realtime_ms() < start) {
        struct timespec nap = {0, 200000}; /* 0.2 ms */
        nanosleep(&nap, NULL);
    }
    const double t1 = now_ms();
    long rounds = 0;
    while (now_ms() - t1 < duration) {
        busy<<<blocks, 256>>>(out);
        CHECK(cudaDeviceSynchronize());
        ++rounds;
    }
    const double wall = now_ms() - t1;
    printf("context %.1f ms, late %.1f ms, %ld rounds of %d blocks in %.1f ms, %.1f us a round\n",
           context, late > 0.0 ? late : 0.0, rounds, blocks, wall, wall * 1e3 / rounds);
    CHECK(cudaFree(out));
    return 0;
}

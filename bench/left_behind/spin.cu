/* spin.cu — a process left behind by an earlier run, outside any sandbox (design notes 95 and
 * 96): every SM spun for SPIN_MS a launch, launch after launch, for SECONDS. Graded beside it,
 * an honest submission finds the GPU busy before its process starts: the judge's exchange with
 * its empty-kernel server alone is far above its idle 0.006 ms, and the grader says the GPU was
 * already busy (grader/plausible.py, exchange_slowed's alone rule) instead of grading it.
 *
 * Usage (on the GPU machine): nvcc -O2 -arch=sm_90 bench/left_behind/spin.cu -o /tmp/spin
 *   /tmp/spin SECONDS [SPIN_MS]       (SPIN_MS default 30, as lab 3.2's left-behind fixture)
 * Prints one line at its end: the launches made.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__global__ void spin(long long ns) {
    long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s SECONDS [SPIN_MS]\n", argv[0]);
        return 2;
    }
    const double seconds = atof(argv[1]);
    const double spin_ms = argc > 2 ? atof(argv[2]) : 30.0;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    long launches = 0;
    do {
        spin<<<8 * sms, 128>>>((long long)(spin_ms * 1e6));
        if (cudaDeviceSynchronize() != cudaSuccess) {
            fprintf(stderr, "spin: %s\n", cudaGetErrorString(cudaGetLastError()));
            return 1;
        }
        ++launches;
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9 < seconds);
    printf("spin: %ld launches of %.1f ms on %d SMs\n", launches, spin_ms, sms);
    return 0;
}

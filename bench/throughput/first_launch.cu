/* first_launch.cu — what a process's first kernel launch costs, and whether a context's
 * limits set before it change that (issue 15, design note 58).
 *
 * In a batch's hold the student's process makes its first launch inside the verify phase:
 * 268-278 ms (median over g98's and g100's classes) for matmul's 16 ms kernel, 1-7 ms for the
 * later exercises' first launches in the same process; 150-216 ms in a lone grade, with
 * CUDA_MODULE_LOADING=EAGER as without (g99): not module loading. The driver reserves a
 * context's local memory (the per-thread stack times the threads the device can hold) when a
 * launch first needs it, and grows it per launch as needed (cuCtxSetLimit); the printf FIFO
 * and the device malloc heap are set up around the first launch too.
 *
 * Usage (on the GPU machine): nvcc -O2 -arch=sm_90 bench/throughput/first_launch.cu -o /tmp/fl
 *   /tmp/fl [stack BYTES] [heap BYTES] [fifo BYTES] [spin|block]
 * Each argument pair sets that limit (cudaDeviceSetLimit) after the context is made and before
 * any launch. Prints one line of milliseconds: the context (cudaSetDeviceFlags, cudaFree(0)),
 * the limits, the first launch of an empty kernel to its synchronisation, the second, and the
 * first launch of a kernel that writes 64 MB (its own first launch, the context's second).
 * Run each variant in several fresh processes: only a fresh process shows a first launch.
 * Source: CUDA Driver API, cuCtxSetLimit (CU_LIMIT_STACK_SIZE: "The driver automatically
 * increases the per-thread stack size for each kernel launch as needed").
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                       \
                    cudaGetErrorString(err_));                                                  \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

__global__ void empty_kernel(void) {}

__global__ void fill_kernel(float *out, size_t n) { // out (n)
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        out[i] = (float)i;
    }
}

int main(int argc, char **argv) {
    unsigned flags = cudaDeviceScheduleAuto;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "spin") == 0) {
            flags = cudaDeviceScheduleSpin;
        } else if (strcmp(argv[i], "block") == 0) {
            flags = cudaDeviceScheduleBlockingSync;
        }
    }
    double t = now_ms(); /* cudaSetDeviceFlags makes the context too (g106: 0.0 ms after it) */
    CHECK(cudaSetDeviceFlags(flags));
    CHECK(cudaFree(0));
    const double context_ms = now_ms() - t;

    t = now_ms();
    for (int i = 1; i + 1 < argc; ++i) { /* NAME BYTES pairs; the schedule words were read */
        const cudaLimit limit = strcmp(argv[i], "stack") == 0  ? cudaLimitStackSize
                                : strcmp(argv[i], "heap") == 0 ? cudaLimitMallocHeapSize
                                : strcmp(argv[i], "fifo") == 0 ? cudaLimitPrintfFifoSize
                                                               : (cudaLimit)-1;
        if (limit != (cudaLimit)-1) {
            CHECK(cudaDeviceSetLimit(limit, strtoull(argv[++i], NULL, 10)));
        }
    }
    const double limits_ms = now_ms() - t;

    const size_t n = (size_t)16 << 20; // 64 MB of floats
    float *d_out = NULL;
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));

    double launch_ms[2];
    for (int k = 0; k < 2; ++k) {
        t = now_ms();
        empty_kernel<<<1, 1>>>();
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        launch_ms[k] = now_ms() - t;
    }
    t = now_ms();
    fill_kernel<<<1024, 256>>>(d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    const double fill_ms = now_ms() - t;
    size_t stack = 0;
    CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    printf("context %.1f ms, limits %.1f ms, first launch %.1f ms, second %.3f ms, "
           "first fill launch %.1f ms (stack limit %zu B)\n",
           context_ms, limits_ms, launch_ms[0], launch_ms[1], fill_ms, stack);
    CHECK(cudaFree(d_out));
    return 0;
}

/* Does the host NUMA node of a managed table's pages move lab 3.2c's on-demand baseline?
 * (design note 92: its time moved 7-11 ms between runs of the same code, even alone.)
 * For each place the pages are sent back to between launches (cudaMemLocationTypeHost, as the
 * harness does today, then cudaMemLocationTypeHostNuma for each NUMA node of the machine),
 * REPS launches of the on-demand kernel over a 64 MiB managed table (16777216 floats, lab 3.2c's
 * timed size), each after the table's pages were moved back there, and the same for a bulk
 * prefetch to the device + the kernel (the solution's path). Prints one line per place:
 * median, min and max in ms. Run pinned to one node's CPUs (taskset) to see the first-touch
 * placement's share.
 * Build: nvcc -O3 -arch=sm_90 -o unified_numa unified_numa.cu */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void k_mul(const float *in, const float *w, float *out, size_t n) {
    size_t i = (size_t)blockIdx.x * 256 + threadIdx.x;
    if (i < n) out[i] = in[i] * w[i];
}

static void back(float *um, size_t bytes, cudaMemLocation where, int dev) {
    cudaMemLocation d = {cudaMemLocationTypeDevice, dev};
    CK(cudaMemAdvise(um, bytes, cudaMemAdviseUnsetPreferredLocation, d));
    CK(cudaMemPrefetchAsync(um, bytes, where, 0, 0));
    CK(cudaStreamSynchronize(0));
}

int main(int argc, char **argv) {
    const size_t n = 16777216, bytes = n * sizeof(float);
    const int reps = argc > 1 ? atoi(argv[1]) : 15;
    int dev = 0, numa_gpu = -1;
    CK(cudaGetDevice(&dev));
    cudaDeviceGetAttribute(&numa_gpu, cudaDevAttrHostNumaId, dev);
    int nodes = 0;
    for (; nodes < 64; ++nodes) {
        char p[96];
        snprintf(p, sizeof p, "/sys/devices/system/node/node%d", nodes);
        FILE *f = fopen(p, "r");
        if (!f) break;
        fclose(f);
    }
    printf("gpu host numa id %d, nodes %d\n", numa_gpu, nodes);
    float *in, *out, *um;
    CK(cudaMalloc(&in, bytes));
    CK(cudaMalloc(&out, bytes));
    CK(cudaMemset(in, 0, bytes));
    CK(cudaMallocManaged(&um, bytes, cudaMemAttachGlobal));
    for (size_t i = 0; i < n; ++i) um[i] = (float)(i & 255) / 256.0f;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    unsigned blocks = (unsigned)((n + 255) / 256);
    std::vector<cudaMemLocation> places = {{cudaMemLocationTypeHost, 0}};
    for (int k = 0; k < nodes; ++k) places.push_back({cudaMemLocationTypeHostNuma, k});
    for (int round = 0; round < 2; ++round) {
        for (size_t p = 0; p < places.size(); ++p) {
            for (int mode = 0; mode < 2; ++mode) {
                std::vector<float> t;
                for (int r = 0; r <= reps; ++r) {
                    back(um, bytes, places[p], dev);
                    CK(cudaEventRecord(a, 0));
                    if (mode == 1) {
                        cudaMemLocation d = {cudaMemLocationTypeDevice, dev};
                        CK(cudaMemPrefetchAsync(um, bytes, d, 0, 0));
                    }
                    k_mul<<<blocks, 256>>>(in, um, out, n);
                    CK(cudaEventRecord(b, 0));
                    CK(cudaEventSynchronize(b));
                    float ms = 0;
                    CK(cudaEventElapsedTime(&ms, a, b));
                    if (r > 0) t.push_back(ms);
                }
                std::sort(t.begin(), t.end());
                printf("round %d place %s%d %-9s median %.3f min %.3f max %.3f ms (%d)\n", round,
                       places[p].type == cudaMemLocationTypeHost ? "host" : "numa",
                       places[p].type == cudaMemLocationTypeHost ? -1 : places[p].id,
                       mode ? "prefetch" : "on-demand", t[t.size() / 2], t.front(), t.back(), reps);
                fflush(stdout);
            }
        }
    }
    return 0;
}

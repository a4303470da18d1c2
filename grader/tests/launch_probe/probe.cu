/* probe.cu — the lab's launch record (common/cml_launches.h) seen from a program linked as the
 * lab binaries are (the Makefile's CML_LAUNCH_WRAP), for grader/tests/test_launch_record.py.
 *
 * Each case makes one launch that fails for its configuration, through one of the runtime's
 * entry points (<<<>>>, cudaLaunchKernel, cudaLaunchKernelEx), then prints one JSON object: the
 * error cudaGetLastError() gives, whether the record holds the launch that returned it, the
 * launch's configuration and its kernel's attributes as the record has them, and the limit
 * cml_launch_broken_limit() names against this device (on a machine without a GPU every launch
 * fails with "no device" or "insufficient driver", the record still holds the configuration,
 * and the attributes stay unknown).
 */
#include <cstdio>

#include "cml_device.h"
#include "cml_launches.h"

#define TILE_FLOATS 1024 /* 4 KB of static shared memory */

__global__ void probe_kernel(float *out) {
    __shared__ float tile[TILE_FLOATS];
    extern __shared__ float dyn[];
    tile[threadIdx.x % TILE_FLOATS] = (float)threadIdx.x;
    __syncthreads(); // read-after-write: the next element was written by another thread
    if (out) {
        out[threadIdx.x] = tile[(threadIdx.x + 1) % TILE_FLOATS] + dyn[0];
    }
}

/* One line about the launch just made, then the record is reset for the next case. */
static void report(const char *name) {
    const cudaError_t err = cudaGetLastError();
    cml_launch_config c;
    const int recorded = cml_launches_failed(err, &c);
    cml_device_facts d;
    const int have_device = cml_device_query(&d) == cudaSuccess;
    (void)cudaGetLastError();
    char msg[512] = "";
    const cml_limit limit =
        recorded ? cml_launch_broken_limit(&c, have_device ? &d : NULL, msg, sizeof msg)
                 : CML_LIMIT_NONE;
    const char *limit_name = cml_limit_name(limit);
    printf("{\"case\":\"%s\",\"error\":%d,\"recorded\":%d,\"kernel\":\"%s\",\"grid\":[%u,%u,%u],"
           "\"block\":[%u,%u,%u],\"dynamic_smem_bytes\":%llu,\"static_smem_bytes\":%lld,"
           "\"registers\":%d,\"max_threads_per_block\":%d,\"max_dynamic_smem_bytes\":%lld,"
           "\"limit\":\"%s\",\"limit_message\":\"%s\"}\n",
           name, (int)err, recorded, recorded ? c.kernel : "", c.grid[0], c.grid[1], c.grid[2],
           c.block[0], c.block[1], c.block[2], (unsigned long long)c.dynamic_smem_bytes,
           (long long)c.static_smem_bytes, c.registers, c.max_threads_per_block,
           (long long)c.max_dynamic_smem_bytes, limit_name ? limit_name : "", msg);
    cml_launches_reset();
}

int main() {
    float *none = nullptr;
    probe_kernel<<<dim3(0, 128), dim3(32, 8)>>>(none); /* grid = M / TILE with M < TILE */
    report("grid_zero");
    probe_kernel<<<4, dim3(32, 64)>>>(none); /* 2048 threads per block */
    report("threads_2048");
    probe_kernel<<<1, 256, 66 * 1024>>>(none); /* 66 KB + 4 KB static, no opt-in */
    report("smem_66kb");

    void *args[] = {&none};
    (void)cudaLaunchKernel((const void *)probe_kernel, dim3(0), dim3(64), args, 0, 0);
    report("api_grid_zero");
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(0, 2);
    config.blockDim = dim3(64);
    config.dynamicSmemBytes = 512;
    (void)cudaLaunchKernelEx(&config, probe_kernel, none);
    report("ex_grid_zero");

    /* Raised to 70000 B with the opt-in, asked for 100 KB: over the kernel's raised limit. */
    (void)cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 70000);
    probe_kernel<<<1, 256, 100 * 1024>>>(none);
    report("smem_over_attribute");
    return 0;
}

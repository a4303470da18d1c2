/* cml_device.c — the current device's facts (cml_device.h).
 *
 * Source: CUDA Runtime API, cudaGetDeviceCount, cudaGetDeviceProperties,
 * cudaDeviceGetAttribute. CUDA 13 removed cudaDeviceProp::clockRate, so the clock is read
 * as an attribute, and reported as 0 where the runtime does not give it.
 */
#include "cml_device.h"

#include <string.h>

int cml_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear it: no device is an answer, not an error */
        return 0;
    }
    return n;
}

void cml_device_schedule(int timed) {
    if (!timed && cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) {
        cudaGetLastError(); /* a hint: a later check must not read its error as the run's */
    }
}

int cml_device_spin_from_here(void) {
    unsigned int flags = 0;
    if (cudaSetDeviceFlags(cudaDeviceScheduleAuto) != cudaSuccess ||
        cudaGetDeviceFlags(&flags) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleAuto ? 0 : -1;
}

cudaError_t cml_device_query(cml_device_facts *facts) {
    memset(facts, 0, sizeof *facts);
    int dev;
    cudaError_t err = cudaGetDevice(&dev);
    if (err != cudaSuccess) {
        return err;
    }
    struct cudaDeviceProp prop;
    err = cudaGetDeviceProperties(&prop, dev);
    if (err != cudaSuccess) {
        return err;
    }
    int optin = 0, l2 = 0, clock_khz = 0;
    err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (err != cudaSuccess) {
        return err;
    }
    err = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    if (err != cudaSuccess) {
        return err;
    }
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev) != cudaSuccess) {
        cudaGetLastError(); /* optional fact */
        clock_khz = 0;
    }

    facts->ordinal = dev;
    memcpy(facts->name, prop.name, sizeof facts->name);
    facts->name[sizeof facts->name - 1] = '\0';
    facts->cc_major = prop.major;
    facts->cc_minor = prop.minor;
    facts->sm_count = prop.multiProcessorCount;
    facts->l2_bytes = (size_t)l2;
    facts->smem_per_block_bytes = prop.sharedMemPerBlock;
    facts->smem_per_block_optin_bytes = (size_t)optin;
    facts->smem_per_sm_bytes = prop.sharedMemPerMultiprocessor;
    facts->regs_per_sm = prop.regsPerMultiprocessor;
    facts->regs_per_block = prop.regsPerBlock;
    facts->max_threads_per_block = prop.maxThreadsPerBlock;
    for (int i = 0; i < 3; ++i) {
        facts->max_block_dim[i] = prop.maxThreadsDim[i];
        facts->max_grid_dim[i] = prop.maxGridSize[i];
    }
    facts->global_mem_bytes = prop.totalGlobalMem;
    facts->clock_khz = clock_khz;
    return cudaSuccess;
}

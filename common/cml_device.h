/* cml_device.h — facts about the current device, read from the runtime or measured.
 *
 * Source: CUDA Runtime API, cudaGetDeviceProperties / cudaDeviceGetAttribute.
 */
#pragma once

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cml_device_facts {
    int ordinal;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    size_t l2_bytes;
    size_t smem_per_block_bytes;       /* default static limit (48 KB) */
    size_t smem_per_block_optin_bytes; /* with cudaFuncAttributeMaxDynamicSharedMemorySize */
    size_t smem_per_sm_bytes;
    int regs_per_sm, regs_per_block;
    int max_threads_per_block; /* 1024 */
    int max_block_dim[3];      /* threads along x, y, z: 1024, 1024, 64 */
    int max_grid_dim[3];       /* blocks along x, y, z: 2^31 - 1, 65535, 65535 */
    size_t global_mem_bytes;
    int clock_khz; /* SM clock; 0 when the runtime does not report it */
} cml_device_facts;

/* Number of usable devices; 0 (not an error) when there is no device or no driver. */
int cml_device_count(void);

/* Fills *facts for the current device. */
cudaError_t cml_device_query(cml_device_facts *facts);

/* How this process's host threads wait for the GPU, set before its first kernel
 * (cudaSetDeviceFlags; since CUDA 11 it also applies to an active primary context). timed = 0
 * (correctness and compute-sanitizer runs): they block on a synchronisation primitive
 * (cudaDeviceScheduleBlockingSync), so that the processes of a batch's untimed runs (16 at once
 * on a 16-core machine, compute-sanitizer's slowed kernels among them) leave the CPUs to the
 * work that needs them instead of spinning; timed = 1: the runtime's default (spin while the
 * process has fewer contexts than CPUs), whose wake-up is the shortest; nothing is set. A
 * gated judge sets up with timed = 0 and spins from its gate (cml_device_spin_from_here). A
 * failure (no device) is not the run's: it is cleared and the flags kept. */
void cml_device_schedule(int timed);

/* The runtime's default schedule (cudaDeviceScheduleAuto: spin) on the current device's
 * active context, for the waits from here on: a gated judge's at its gate, after a set-up
 * with blocking waits beside other gradings' untimed runs (design note 55). 0 when the flags
 * read back are the default's; -1 (the error cleared) when they could not be set, where a
 * timing would measure blocking waits instead of the thresholds' spinning ones. */
int cml_device_spin_from_here(void);

#ifdef __cplusplus
}
#endif

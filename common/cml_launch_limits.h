/* cml_launch_limits.h — which launch limit a kernel launch broke, in words.
 *
 * A launch fails before the kernel runs when its configuration breaks a limit of the device or
 * of the kernel: the runtime then says only "invalid configuration argument", "invalid
 * argument" or "too many resources requested for launch". Given the launch (grid, block,
 * dynamic shared memory), the kernel's attributes (static shared memory, registers, its own
 * thread and dynamic shared memory limits) and the device's limits, cml_launch_broken_limit()
 * names the limit and the values that broke it, e.g. "32 × 64 = 2048 threads per block, over
 * the device's maximum of 1024". Pure: no CUDA call, so it is tested without a GPU.
 *
 * The record comes from the lab's launch record (cml_launches.h), made in the process that
 * runs the student's code: it is diagnosis only, never scored (docs/design-notes.md, note 22).
 *
 * Source: CUDA C++ Programming Guide, "Compute Capabilities", table "Technical
 * Specifications" (1024 threads per block, block z at most 64, grid y and z at most 65535,
 * 48 KB of shared memory per block without the opt-in, 64 K registers per block) and "Shared
 * Memory" (cudaFuncAttributeMaxDynamicSharedMemorySize); CUDA Runtime API, cudaFuncAttributes.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cml_device.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CML_KERNEL_NAME_MAX 128

/* One launch and its kernel's attributes: fixed-size and plain, so it crosses the judged
 * run's socket as it is (cml_ipc.h). An attribute the runtime did not give is -1; a kernel
 * whose name it did not give has kernel[0] == '\0'. */
typedef struct cml_launch_config {
    char kernel[CML_KERNEL_NAME_MAX]; /* e.g. "matmul_tiled_kernel" (demangled, no parameters) */
    uint32_t grid[3];                 /* gridDim x, y, z, in blocks */
    uint32_t block[3];                /* blockDim x, y, z, in threads */
    uint64_t dynamic_smem_bytes;      /* the launch's third <<<>>> parameter */
    int64_t static_smem_bytes;        /* cudaFuncAttributes.sharedSizeBytes, -1: unknown */
    int32_t registers;                /* per thread: cudaFuncAttributes.numRegs, -1: unknown */
    int32_t max_threads_per_block;    /* the kernel's own: cudaFuncAttributes.maxThreadsPerBlock
                                         (registers, __launch_bounds__), -1: unknown */
    int64_t max_dynamic_smem_bytes;   /* cudaFuncAttributes.maxDynamicSharedSizeBytes: 48 KB less
                                         the static part unless the launcher raised it, -1 */
    int32_t error;                    /* what the launch call returned (a cudaError_t) */
    int32_t reserved;
} cml_launch_config;

/* The limits, in the order cml_launch_broken_limit() checks them. */
typedef enum cml_limit {
    CML_LIMIT_NONE = 0,       /* no limit broken that the record shows */
    CML_LIMIT_GRID_ZERO,      /* a grid dimension is 0 */
    CML_LIMIT_BLOCK_ZERO,     /* a block dimension is 0 */
    CML_LIMIT_BLOCK_THREADS,  /* x * y * z threads over the device's maxThreadsPerBlock (1024) */
    CML_LIMIT_BLOCK_DIM,      /* a block dimension over maxThreadsDim (1024, 1024, 64) */
    CML_LIMIT_GRID_DIM,       /* a grid dimension over maxGridSize (2^31 - 1, 65535, 65535) */
    CML_LIMIT_REGISTERS,      /* registers per thread x threads over the block's register file */
    CML_LIMIT_KERNEL_THREADS, /* over the kernel's own maxThreadsPerBlock (__launch_bounds__) */
    CML_LIMIT_SMEM_MAX,       /* static + dynamic shared memory over sharedMemPerBlockOptin */
    CML_LIMIT_SMEM_OPTIN,     /* over 48 KB without cudaFuncAttributeMaxDynamicSharedMemorySize */
    CML_LIMIT_SMEM_ATTR       /* over the kernel's raised maxDynamicSharedSizeBytes */
} cml_limit;

/* The limit's name in the run document ("grid_zero", "block_threads", ...; docs/protocol.md),
 * NULL for CML_LIMIT_NONE. */
const char *cml_limit_name(cml_limit limit);

/* The first limit `c` breaks, with its values in words written to msg[0..cap) (UTF-8, no
 * trailing period; "" for CML_LIMIT_NONE), e.g. "the grid's x dimension is 0 (each must be ≥
 * 1)". `d` gives the device's limits (NULL, or a limit of 0: that check is skipped); an unknown
 * (-1) attribute of the kernel skips the checks that need it. The values are the launch's as
 * the runtime saw them: a dimension is at most 2^32 - 1, so products are computed in 64 bits. */
cml_limit cml_launch_broken_limit(const cml_launch_config *c, const cml_device_facts *d, char *msg,
                                  size_t cap);

#ifdef __cplusplus
}
#endif

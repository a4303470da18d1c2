/* cml_launches.h — the lab's launch record: the kernel launch that failed, for the report.
 *
 * A launch whose configuration breaks a limit (a grid of 0 blocks, 2048 threads per block,
 * 66 KB of dynamic shared memory without the opt-in) fails in the launch call itself, and
 * the harness's check after the launcher sees only the runtime's error ("invalid
 * configuration argument"). So every lab binary is linked with GNU ld's --wrap for the
 * runtime's launch entry points (the Makefile's CML_LAUNCH_WRAP):
 *   __cudaLaunchKernel[_ptsz]   what nvcc compiles `kernel<<<grid, block, smem, stream>>>`
 *                               into (CUDA 13: crt/host_runtime.h, __cudaLaunch); its first
 *                               argument is the kernel's cudaKernel_t handle
 *   cudaLaunchKernel[_ptsz]     the runtime API call: a launcher may make it itself, and
 *                               <<<>>> compiles to it under __NV_LEGACY_LAUNCH
 *   cudaLaunchKernelExC[_ptsz]  behind cudaLaunchKernelEx
 * Each call goes through a wrapper (cml_launch_wrap.c) that makes the launch and notes its
 * configuration here with what the call returned. On an error, the failure handler
 * (cml_lab.c) asks cml_launches_failed() for the launch that returned that error; only then
 * are the kernel's name and attributes queried, so a launch costs a few stores.
 *
 * Every launch of the binary is noted, the harness's own too; the one kept is the last that
 * failed. The record is made in the process that runs the student's code: it is diagnosis
 * only, shown in the report and never scored (docs/design-notes.md, note 22). A binary linked
 * without the wrappers works as before and its record stays empty.
 *
 * Source: ld(1), --wrap=symbol; CUDA Runtime API, cudaFuncGetName and cudaFuncGetAttributes
 * ("If the specified function does not exist, then it is assumed to be a cudaKernel_t and used
 * as is"), cudaLaunchKernelExC; crt/device_functions.h (__cudaLaunchKernel).
 */
#pragma once

#include <cuda_runtime_api.h>

#include "cml_launch_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Notes one launch call: `kernel` as the call named it (a cudaKernel_t or an entry function's
 * address), grid and block in blocks and threads, dynamic shared memory in bytes, and what
 * the call returned. Keeps it when `err` is not cudaSuccess. Called by the wrappers only. */
void cml_launches_note(const void *kernel, dim3 grid, dim3 block, size_t dynamic_smem_bytes,
                       cudaError_t err);

/* Forgets the failed launch on record: called before each launch the harness checks, so an
 * error a launcher swallowed earlier is not blamed on a later one. */
void cml_launches_reset(void);

/* Launch calls noted since the process started (0 in a binary linked without the wrappers). */
unsigned long long cml_launches_count(void);

/* When the last launch call that failed since the reset returned `err`: fills *out with its
 * configuration, its kernel's name (demangled, without parameters) and attributes, each left
 * unknown ("" or -1) when the runtime does not give it (a failed query is no error), and
 * returns 1. Else returns 0 (no launch failed, or with another error: the error came from
 * elsewhere, e.g. a fault while the kernel ran). */
int cml_launches_failed(cudaError_t err, cml_launch_config *out);

/* The kernel's name without its return type and parameters: "matmul_tiled_kernel" from
 * "matmul_tiled_kernel(float const*, float*, int)", "k<32>" from "void k<32>(float*)",
 * "ns::k" from "ns::k(int)"; a name without parameters is copied as it is. Written to
 * out[0..cap), cut to fit. */
void cml_kernel_short_name(const char *demangled, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

/* cml_launch_wrap.c — the launch calls of a lab binary, through the lab's launch record.
 *
 * Linked with `-Xlinker --wrap=SYMBOL` for each launch entry point below (the Makefile's
 * CML_LAUNCH_WRAP), every reference to SYMBOL in the binary's objects — the student's, the
 * harness's, libcml's — calls __wrap_SYMBOL here instead, which makes the launch through
 * __real_SYMBOL (the runtime's) and notes its configuration and result
 * (cml_launches_note). Only this file refers to __real_*: a binary linked without the --wrap
 * flags never pulls it out of libcml.a, and links and runs as before with an empty record.
 *
 * The runtime's symbols are referenced weakly: a toolkit that lacks one (__cudaLaunchKernel
 * is recent) still links, and nothing calls its wrapper, since the objects compiled with that
 * toolkit do not refer to it either.
 *
 * Source: ld(1), --wrap=symbol; crt/device_functions.h (__cudaLaunchKernel,
 * __cudaLaunchKernel_ptsz: what <<<>>> compiles to); cuda_runtime_api.h (cudaLaunchKernel,
 * cudaLaunchKernelExC and their per-thread-default-stream _ptsz forms).
 */
#include <cuda_runtime_api.h>

#include "cml_launches.h"

typedef cudaError_t (*launch_fn)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
typedef cudaError_t (*launch_ex_fn)(const cudaLaunchConfig_t *, const void *, void **);

/* The runtime's entry points (ld resolves __real_X to X). */
cudaError_t __real___cudaLaunchKernel(const void *, dim3, dim3, void **, size_t, cudaStream_t)
    __attribute__((weak));
cudaError_t __real___cudaLaunchKernel_ptsz(const void *, dim3, dim3, void **, size_t, cudaStream_t)
    __attribute__((weak));
cudaError_t __real_cudaLaunchKernel(const void *, dim3, dim3, void **, size_t, cudaStream_t)
    __attribute__((weak));
cudaError_t __real_cudaLaunchKernel_ptsz(const void *, dim3, dim3, void **, size_t, cudaStream_t)
    __attribute__((weak));
cudaError_t __real_cudaLaunchKernelExC(const cudaLaunchConfig_t *, const void *, void **)
    __attribute__((weak));
cudaError_t __real_cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *, const void *, void **)
    __attribute__((weak));

static cudaError_t launch(launch_fn real, const void *kernel, dim3 grid, dim3 block, void **args,
                          size_t smem, cudaStream_t stream) {
    /* Unreachable without the runtime's symbol (see above); answer as a runtime would. */
    const cudaError_t err =
        real ? real(kernel, grid, block, args, smem, stream) : cudaErrorNotSupported;
    cml_launches_note(kernel, grid, block, smem, err);
    return err;
}

static cudaError_t launch_ex(launch_ex_fn real, const cudaLaunchConfig_t *config,
                             const void *kernel, void **args) {
    const cudaError_t err = real ? real(config, kernel, args) : cudaErrorNotSupported;
    if (config) {
        cml_launches_note(kernel, config->gridDim, config->blockDim, config->dynamicSmemBytes, err);
    }
    return err;
}

/* kernel<<<grid, block, smem, stream>>> (its first argument is a cudaKernel_t). */
cudaError_t __wrap___cudaLaunchKernel(const void *kernel, dim3 grid, dim3 block, void **args,
                                      size_t smem, cudaStream_t stream) {
    return launch(__real___cudaLaunchKernel, kernel, grid, block, args, smem, stream);
}

cudaError_t __wrap___cudaLaunchKernel_ptsz(const void *kernel, dim3 grid, dim3 block, void **args,
                                           size_t smem, cudaStream_t stream) {
    return launch(__real___cudaLaunchKernel_ptsz, kernel, grid, block, args, smem, stream);
}

cudaError_t __wrap_cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                                    size_t smem, cudaStream_t stream) {
    return launch(__real_cudaLaunchKernel, func, grid, block, args, smem, stream);
}

cudaError_t __wrap_cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args,
                                         size_t smem, cudaStream_t stream) {
    return launch(__real_cudaLaunchKernel_ptsz, func, grid, block, args, smem, stream);
}

cudaError_t __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                       void **args) {
    return launch_ex(__real_cudaLaunchKernelExC, config, func, args);
}

cudaError_t __wrap_cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                            void **args) {
    return launch_ex(__real_cudaLaunchKernelExC_ptsz, config, func, args);
}

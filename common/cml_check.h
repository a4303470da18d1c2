/* cml_check.h — checked CUDA runtime calls.
 *
 * One macro, CML_CHECK(expr), evaluates a CUDA runtime call and, if it did not return
 * cudaSuccess, reports the call's text, file, line and cudaGetErrorString() through the
 * current failure handler. Programs (lab harnesses) install a handler that writes the
 * error into the run's JSON document and exits; the default handler prints to stderr and
 * exits with status 4. Library functions in common/ never exit: they return cudaError_t
 * (but for host memory that runs out, which no cudaError_t names: cml_timing.c, cml_stats.c and
 * cml_setup.c end the run there with kind "host", cml_lab_fail_host, never
 * cudaErrorMemoryAllocation).
 *
 * Source: CUDA C++ Programming Guide, "Error Checking"; the checkCudaErrors() habit of
 * NVIDIA cuda-samples.
 */
#pragma once

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Called when a checked call fails. Must not return. `expr` is the call's source text. */
typedef void (*cml_fail_fn)(cudaError_t err, const char *expr, const char *file, int line);

/* Installs `fn` as the failure handler (NULL restores the default); returns the old one. */
cml_fail_fn cml_set_fail_handler(cml_fail_fn fn);

/* Reports a failed call through the current handler. Does not return. */
void cml_fail(cudaError_t err, const char *expr, const char *file, int line);

/* As cml_fail, for a check of the course's own that finds what the CUDA error names only
 * vaguely (lab 3.2a: a buffer host_copy_free left page-locked is CUDA's "part or all of the
 * requested memory range is already mapped"): the handler describes the failure with `message`
 * instead of cudaGetErrorString(err) (cml_fail_message). `message`: what was found and the fix,
 * in the course's words, ending with the error's name in parentheses; printable ASCII, under
 * 256 bytes (the student's process relays it to the judge, cml_ipc.h). Does not return. */
void cml_fail_saying(cudaError_t err, const char *message, const char *expr, const char *file,
                     int line);

/* For a handler: the words for the failure it is reporting, cml_fail_saying's message, else
 * cudaGetErrorString(err). */
const char *cml_fail_message(cudaError_t err);

#ifdef __cplusplus
}
#endif

#define CML_CHECK(expr)                                                                            \
    do {                                                                                           \
        cudaError_t cml_err_ = (expr);                                                             \
        if (cml_err_ != cudaSuccess) {                                                             \
            cml_fail(cml_err_, #expr, __FILE__, __LINE__);                                         \
        }                                                                                          \
    } while (0)

/* CML_CHECK with the failure in the course's words (cml_fail_saying). */
#define CML_CHECK_SAYING(expr, message)                                                            \
    do {                                                                                           \
        cudaError_t cml_err_ = (expr);                                                             \
        if (cml_err_ != cudaSuccess) {                                                             \
            cml_fail_saying(cml_err_, (message), #expr, __FILE__, __LINE__);                       \
        }                                                                                          \
    } while (0)

/* Checks the last launch: the launch configuration (cudaGetLastError) and, after
 * synchronising, the kernel's own execution (illegal address, trap, ...). */
#define CML_CHECK_LAUNCH()                                                                         \
    do {                                                                                           \
        CML_CHECK(cudaGetLastError());                                                             \
        CML_CHECK(cudaDeviceSynchronize());                                                        \
    } while (0)

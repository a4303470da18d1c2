/* lab.h — lab 3.2 "Global memory and the host link": the C API between the harness and
 * kernels.cu.
 *
 * Pristine: the harness (harness.cu) calls these functions; you implement them in kernels.cu.
 * The data of every exercise starts and ends in DEVICE memory, where the course's judge (the
 * process that checks and times your work, handouts/grading.md) can fill it with fresh inputs
 * and read your result; what you write moves it across the host link (PCIe) and back through
 * HOST memory of your own process, which the judge cannot see. So the harness checks two
 * things besides the bytes:
 *   - the last element of every output (index n) is the harness's host-link check: 1 when
 *     your launch took at least the time the link needs to move the bytes (the fastest
 *     page-locked copy of n floats in the slower direction, measured by the harness in the
 *     same run, / 1.5; moving both directions at once is fine);
 *     a launch that did not cross the link (a device-to-device copy) is faster than that and
 *     gets 0 there, a wrong result;
 *   - 3.2a: the buffer host_copy_alloc returns must be page-locked, and host_copy_free must
 *     release it (cudaPointerGetAttributes, in the process that runs your code).
 * Launchers return nothing: the harness synchronises the device after each one and reports
 * any CUDA error left behind. Sizes are arbitrary: never assume a multiple of anything.
 *
 * Declared extern "C" so the launchers' symbols are unmangled (the grader's symbol check).
 *
 * Sources: seed lecture 001 (Chinese), §3.3 "异步内存传输与流水线" (asynchronous transfers and
 * the pipeline: two streams that share their device buffers, a race) and §4.2 (zero-copy),
 * with the corrections of docs/facts.md and of handouts/3.2-global-memory.md; CUDA C++
 * Programming Guide, "Page-Locked Host Memory", "Asynchronous Concurrent Execution"
 * (streams, the default stream, overlap of data transfer and kernel execution); CUDA Runtime
 * API, "API synchronization behavior" (what cudaMemcpy and cudaMemcpyAsync do with pageable
 * and page-locked memory).
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* =============================================================================================
 * 3.2a  host_copy: a round trip through page-locked host memory
 * ============================================================================================= */

/* The largest n the harness accepts (1 GiB of floats; the round trip needs n floats of
 * page-locked host memory). */
#define HOST_COPY_MAX_N ((size_t)1 << 28)

/* 3.2a. Returns a page-locked (pinned) host buffer of n floats, n >= 1: cudaMallocHost or
 * cudaHostAlloc (or malloc + cudaHostRegister); NULL when the allocation failed. Memory from
 * malloc or new alone is pageable: the harness rejects it ("pointer does not correspond to a
 * registered memory region"). Called once per case by the harness, before any host_copy. */
float *host_copy_alloc(size_t n);

/* 3.2a. Releases a buffer of host_copy_alloc with the call that matches how it was allocated
 * (cudaFreeHost for cudaMallocHost and cudaHostAlloc). The harness checks that the runtime no
 * longer knows the buffer afterwards ("part or all of the requested memory range is already
 * mapped": it is still page-locked). */
void host_copy_free(float *h_buf);

/* 3.2a. Moves n floats from d_src to d_dst THROUGH the host buffer h_buf (from
 * host_copy_alloc, n floats): device to host (d_src -> h_buf), then host to device
 * (h_buf -> d_dst). d_src, d_dst: (n) on the device; d_dst has room for n floats only (the
 * harness's check sits after them). Any copy calls and streams are yours; the harness
 * synchronises the device after the call. */
void host_copy(const float *d_src, float *d_dst, float *h_buf, size_t n);

/* =============================================================================================
 * 3.2b  overlap_pipeline: chunks through the host and a kernel, on several streams
 * ============================================================================================= */

#define OVERLAP_MAX_N ((size_t)1 << 28)     /* floats */
#define OVERLAP_MAX_CHUNK ((size_t)1 << 22) /* floats per chunk (16 MiB) */
#define OVERLAP_MAX_STREAMS 8

/* The per-element work of 3.2b's kernel: OVERLAP_STEPS steps of y = y * A + B from y = x,
 * with B = 1 - A exactly (so 1 is the fixed point and y = A^OVERLAP_STEPS (x - 1) + 1,
 * exactly, in real arithmetic). Both constants are exact in float32. The kernel must apply
 * overlap_transform (below) unchanged: its cost is part of the pipeline the grader times. */
#define OVERLAP_STEPS 512
#define OVERLAP_A 0.998046875f /* 1 - 2^-9 */
#define OVERLAP_B 0.001953125f /* 2^-9 */

/* 3.2b. d_out[i] = overlap_transform(d_in[i]) for i < n, computed chunk by chunk: chunk c is
 * elements [c * chunk, min((c + 1) * chunk, n)) (the last one may be shorter), and each chunk
 * goes
 *     d_in (device) --D2H--> its stream's slice of h_stage (host)
 *                   --H2D--> its stream's slice of d_stage (device)
 *                   --kernel--> d_out (device)
 * on one of n_streams streams, so that the copies of one chunk overlap the copies and the
 * kernel of others (the H200 has separate copy engines for each direction, and the SMs).
 * h_stage: page-locked host memory, d_stage: device memory, each n_streams slices of `chunk`
 * floats; slice s starts at h_stage + s * chunk (d_stage + s * chunk). Streams are yours:
 * create them (cudaStreamCreateWithFlags), use them, destroy them before returning (the
 * harness synchronises the device; cudaStreamDestroy does not wait for the stream's work).
 * Preconditions: 1 <= n <= OVERLAP_MAX_N, 1 <= chunk <= OVERLAP_MAX_CHUNK,
 * 1 <= n_streams <= OVERLAP_MAX_STREAMS. d_out has n floats for you (the harness's check sits
 * after them). */
void overlap_pipeline(const float *d_in, float *d_out, size_t n, size_t chunk, int n_streams,
                      float *h_stage, float *d_stage);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* 3.2b's per-element work (see OVERLAP_STEPS): a chain of 512 dependent multiply-adds, about
 * 30 us per million elements on the H200 (the exercise's chunk_kernel_ms metric: 0.030 ms for
 * 2^20 elements, 2026-12-01).
 * Rounding: each step rounds at most twice (once with FMA), and every earlier error is damped by
 * A < 1, so the float32 result is within 2 * OVERLAP_STEPS * 2^-24 * max(|x|, 1) of the exact
 * value: the harness's tolerance (reference.h). */
static __host__ __device__ __forceinline__ float overlap_transform(float x) {
    float y = x;
    for (int k = 0; k < OVERLAP_STEPS; ++k) {
        y = y * OVERLAP_A + OVERLAP_B;
    }
    return y;
}
#endif

/* kernels.cu — lab 3.2 "Global memory and the host link": what you write.
 *
 *   3.2a  host_copy_alloc,   a page-locked host buffer, allocated and released with the calls
 *         host_copy_free,    that match, and a round trip through it: device to host, then
 *         host_copy          host to device
 *   3.2b  overlap_kernel,    a chunked pipeline (D2H, H2D, kernel per chunk) over several
 *         overlap_pipeline   streams, each with its own slices of the staging buffers
 *   3.2c  unified_kernel,    a kernel over a Unified (managed) Memory table whose pages are
 *         unified_memory     in host memory: advice and a bulk prefetch to the device first
 *   3.2d  zero_copy_kernel,  a kernel that reads a small host buffer, rewritten before every
 *         zero_copy          launch, where it lies: through its mapping, with no copy
 *
 * The API is in lab.h (pristine). The data start and end in device memory, where the grader's
 * judge fills in fresh inputs and reads your result; the host is the middle of the trip. The
 * harness synchronises the device after each launcher and reports any CUDA error you left; it
 * checks that your host buffer is page-locked and released, that your output is right, and
 * that the launch took at least the time the host link needs (the output's last element); the
 * grader times you against the course's own page-locked round trip (3.2a), against the same
 * chunks on one stream (3.2b), against the same kernel paying a page fault per page it
 * first touches (3.2c) and against the same kernel after a copy of the buffer (3.2d).
 *
 * Sources: seed lecture 001 (Chinese), §3.3 "异步内存传输与流水线" (its two-stream pipeline, whose
 * streams share one pair of device buffers: a race, corrected here with per-stream slices);
 * CUDA C++ Programming Guide, "Page-Locked Host Memory", "Asynchronous Concurrent Execution"
 * (streams, the default stream, overlap of data transfer and kernel execution), "Unified
 * Memory Programming", "Mapped Memory", "Unified Virtual Address Space"; CUDA Runtime API,
 * "API synchronization behavior", cudaMemAdvise and cudaMemPrefetchAsync (CUDA 13: a
 * cudaMemLocation, not seed §4.1's device number), cudaHostGetDevicePointer.
 *
 * What this file may define (the grader's symbol check, before anything runs; in full:
 * handouts/grading.md, "The symbol rule"): lab.h's launchers under their names; your kernels;
 * __constant__, __device__ and __shared__ variables; C++ functions, static or not (templates
 * too); and variables that are static, const/constexpr, or in an unnamed namespace. Not main,
 * not a plain global variable (int counter;, also inline int counter;: make it static), not an
 * extern "C" function that is no launcher, and no name of the harness, the CUDA runtime or the
 * C library (cml_*, cuda*, _*, exit, rand, ...).
 * It may call the CUDA runtime except timing (no cudaEvent* at all: the judge times your launch,
 * and an event is timing even with cudaEventDisableTiming) and device-wide state (streams of
 * your own are allowed in this lab), the memory and math functions, and print to
 * stdout/stderr.
 */
#include <cuda_runtime.h>

#include "lab.h"

/* ---------------------------------------------------------------------------------------------
 * 3.2a  A round trip through page-locked host memory
 */

float *host_copy_alloc(size_t n) {
    /* TODO(3.2a): return a PAGE-LOCKED (pinned) host buffer of n floats, or NULL if the
     *   allocation fails: cudaMallocHost((void **)&h, n * sizeof(float)) (or cudaHostAlloc
     *   with cudaHostAllocDefault). Page-locked pages cannot be moved or swapped out by the
     *   operating system, so the GPU's copy engines read and write them directly (DMA);
     *   malloc'd memory is pageable, and every copy from or to it goes through a page-locked
     *   buffer of the driver's first. Allocate here, once: pinning takes time (the OS must
     *   fault in and lock every page), so never allocate inside host_copy. */
    (void)n;
    return NULL;
}

void host_copy_free(float *h_buf) {
    /* TODO(3.2a): release the buffer with the call that matches its allocation: cudaFreeHost
     *   for cudaMallocHost and cudaHostAlloc (free() on it crashes; cudaFree fails: it is not
     *   device memory). For malloc + cudaHostRegister: cudaHostUnregister, then free. */
    (void)h_buf;
}

void host_copy(const float *d_src, float *d_dst, float *h_buf, size_t n) {
    /* TODO(3.2a): copy the n floats of d_src into h_buf (cudaMemcpyDeviceToHost), then h_buf
     *   into d_dst (cudaMemcpyHostToDevice). Sizes are in BYTES: n * sizeof(float). The second
     *   copy must not start before the first has finished: cudaMemcpy returns only when its
     *   copy is done (from page-locked memory), and two cudaMemcpyAsync on the same stream run
     *   in order.
     *   Right: the data must cross the host link; a device-to-device copy is faster than the
     *   link allows, and the harness's host-link check fails it.
     *   Fast: the buffer is page-locked, so each copy is one DMA transfer at the link's rate.
     *   (Beyond full marks: in chunks on two streams, the D2H of chunk k + 1 overlaps the H2D
     *   of chunk k, since the link carries both directions at once; 3.2b does this with a
     *   kernel too.) */
}

/* ---------------------------------------------------------------------------------------------
 * 3.2b  A pipeline over several streams
 */

#define OVERLAP_BLOCK 256

/* out[i] = overlap_transform(in[i]) for i < len: one thread per element. */
__global__ void overlap_kernel(const float *in, float *out, size_t len) {
    /* TODO(3.2b): out[i] = overlap_transform(in[i]) (lab.h) for this thread's global index i
     *   (return when i >= len). Do not change the work: its cost is part of what is timed. */
}

void overlap_pipeline(const float *d_in, float *d_out, size_t n, size_t chunk, int n_streams,
                      float *h_stage, float *d_stage) {
    /* TODO(3.2b): create n_streams streams with cudaStreamCreateWithFlags(&s,
     *   cudaStreamNonBlocking) (at most OVERLAP_MAX_STREAMS). For each chunk c, at offset
     *   off = c * chunk, of len = min(chunk, n - off) floats, on stream s = c % n_streams:
     *     1. cudaMemcpyAsync D2H:  d_in + off   -> h_stage + s * chunk
     *     2. cudaMemcpyAsync H2D:  h_stage + s * chunk -> d_stage + s * chunk
     *     3. overlap_kernel on stream s: d_stage + s * chunk -> d_out + off (len elements)
     *   Then destroy the streams (cudaStreamDestroy returns at once; the stream goes away when
     *   its work is done) and return without synchronising.
     *   Right: each stream has its OWN slices. Chunks c and c + n_streams share stream s, so
     *   the stream orders them: chunk c + n_streams overwrites the slices only after chunk c is
     *   done with them. Two streams on the same slices race: one stream's copy overwrites data
     *   the other's kernel or copy is still reading (seed 001's pipeline does this), and no
     *   sanitizer sees it.
     *   Fast: only cudaMemcpyAsync from page-locked memory overlaps (cudaMemcpy waits for its
     *   copy); nothing on stream 0 (the legacy default stream waits for all blocking streams
     *   and they for it); the D2H of one chunk, the H2D of another and the kernel of a third
     *   then run at once, on the copy engines (the H200 has three) and the SMs. Issue each
     *   chunk's three steps together, chunk after chunk (depth first, as above): issuing all
     *   D2H copies first, then all H2D, then all kernels (breadth first), or all of one
     *   stream's chunks before the next stream's, lost every overlap point on the H200
     *   (handout 3.2, section 4, "What can run at once on the GPU"). */
}

/* ---------------------------------------------------------------------------------------------
 * 3.2c  A kernel over Unified Memory, prefetched
 */

#define UNIFIED_BLOCK 256

/* out[i] = in[i] * w[i] for i < n: one thread per element. */
__global__ void unified_kernel(const float *in, const float *w, float *out, size_t n) {
    /* TODO(3.2c): out[i] = in[i] * w[i] for this thread's global index i (return when
     *   i >= n). w is the managed table: the same pointer the host wrote through. */
}

void unified_memory(const float *d_in, const float *um_weights, float *d_out, size_t n) {
    /* TODO(3.2c): the table um_weights (n floats, managed) was written on the host, so its
     *   pages are in host memory. Before the kernel:
     *     1. the location of the GPU the kernel runs on: cudaGetDevice(&device), then
     *        cudaMemLocation loc = {cudaMemLocationTypeDevice, device};
     *     2. advice: cudaMemAdvise(um_weights, bytes, cudaMemAdviseSetPreferredLocation, loc)
     *        (or cudaMemAdviseSetReadMostly: the kernel only reads the table);
     *     3. the migration, in bulk: cudaMemPrefetchAsync(um_weights, bytes, loc, 0, 0)
     *        (flags 0, then the stream: 0 here);
     *   then unified_kernel on the same stream, over n elements, and return without
     *   synchronising. bytes = n * sizeof(float).
     *   Right: CUDA 13 names a place with a cudaMemLocation. Seed 001's
     *   cudaMemPrefetchAsync(ptr, bytes, deviceId, stream) and cudaMemAdvise(..., deviceId)
     *   are CUDA 12's forms and do not compile; and in a cudaMemLocation the host is a type,
     *   {cudaMemLocationTypeHost, 0}, not CUDA 12's cudaCpuDeviceId: prefetching there moves
     *   nothing here, since the pages already are in host memory.
     *   Fast: without the prefetch, the kernel's first touch of each page is a GPU page
     *   fault, and the driver migrates the table fault by fault while warps wait (the
     *   baseline); the prefetch moves it in large pieces, with no fault per page, and the
     *   kernel then finds every page on the device. Advice alone moves nothing. */
}

/* ---------------------------------------------------------------------------------------------
 * 3.2d  A small host buffer read in place (zero-copy)
 */

#define ZERO_COPY_BLOCK 256

/* out[i] = ZERO_COPY_SCALE * buf[i] for i < n: one thread per element, each element read once. */
__global__ void zero_copy_kernel(const float *buf, float *out, size_t n) {
    /* TODO(3.2d): out[i] = ZERO_COPY_SCALE * buf[i] (lab.h) for this thread's global index i
     *   (return when i >= n). buf is the DEVICE address of host memory: its reads cross the
     *   host link. */
}

void zero_copy(const float *h_buf, float *d_out, size_t n) {
    /* TODO(3.2d): h_buf is page-locked host memory the harness allocated MAPPED
     *   (cudaHostAlloc(..., cudaHostAllocMapped)) and filled with this launch's values just
     *   before this call. Do not copy it anywhere:
     *     1. its device address: float *d_buf; cudaHostGetDevicePointer((void **)&d_buf,
     *        (void *)h_buf, 0) (flags 0);
     *     2. zero_copy_kernel over n elements, enough blocks of ZERO_COPY_BLOCK threads,
     *        reading d_buf and writing d_out;
     *   and return without synchronising.
     *   Right: the values change before every call, and the harness waits for your kernel
     *   before it writes the next ones. A device copy made in an earlier call holds an earlier
     *   launch's values: the judge checks launches on values drawn for them alone.
     *   Fast: a cudaMemcpy into device memory first (the baseline) pays the copy's fixed cost, over
     *   7 us on the H200 however small the buffer (handout 3.2, section 1), before the kernel can
     *   start; the kernel reading the mapped buffer pays round trips across the link instead, all
     *   in flight at once when every thread reads one element, and the reads of a warp are
     *   coalesced (consecutive threads, consecutive floats). Few threads looping over the buffer
     *   wait for one round trip after another. */
}

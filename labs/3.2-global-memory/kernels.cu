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
 *   3.2e  async_copy_stage,  a tiled window sum whose tiles reach shared memory by
 *         async_copy_kernel, asynchronous copies (cp.async) into two buffers: the next tile's
 *         async_copy         copy in flight while this tile is summed
 *   3.2f  l2_persist         a hot table kept in L2 by a persisting set-aside and an
 *                            access-policy window while a large stream passes through (the
 *                            kernel, l2_persist_kernel, is given); the set-aside given back
 *   3.2g  tma_cluster_kernel, a stretch for sm_90 only: 3.2e's sums one tile per block, the
 *         tma_cluster        tile by ONE bulk asynchronous copy (TMA), the halo from the next
 *                            block of a thread-block cluster (distributed shared memory)
 *
 * The API is in lab.h (pristine). The data start and end in device memory, where the grader's
 * judge fills in fresh inputs and reads your result; the host is the middle of the trip. The
 * harness synchronises the device after each launcher and reports any CUDA error you left; it
 * checks that your host buffer is page-locked and released, that your output is right, and
 * that the launch took at least the time the host link needs (the output's last element); the
 * grader times you against the course's own page-locked round trip (3.2a), against the same
 * chunks on one stream (3.2b), against the same kernel paying a page fault per page it
 * first touches (3.2c), against the same kernel after a copy of the buffer (3.2d), against
 * the same tiled kernel with synchronous loads into one buffer (3.2e), against the same
 * gather kernel with no window (3.2f) and against the same grid with ordinary loads and no
 * cluster (3.2g).
 *
 * Sources: seed lecture 001 (Chinese), §3.3 "异步内存传输与流水线" (its two-stream pipeline, whose
 * streams share one pair of device buffers: a race, corrected here with per-stream slices);
 * CUDA C++ Programming Guide, "Page-Locked Host Memory", "Asynchronous Concurrent Execution"
 * (streams, the default stream, overlap of data transfer and kernel execution), "Unified
 * Memory Programming", "Mapped Memory", "Unified Virtual Address Space"; CUDA Runtime API,
 * "API synchronization behavior", cudaMemAdvise and cudaMemPrefetchAsync (CUDA 13: a
 * cudaMemLocation, not seed §4.1's device number), cudaHostGetDevicePointer; seed §4.3's
 * asynchronous copy (__pipeline_memcpy_async of 4 KB in one call: a copy moves 4, 8 or 16 bytes,
 * each thread its own) and CUDA C++ Programming Guide, "Asynchronous Data Copies" (3.2e); seed
 * §4.3's "persistent L2 caching" (cudaMemAdvise(..., cudaMemAdviseSetAccessedBy, ...): a Unified
 * Memory hint, no cache control) and CUDA C++ Programming Guide, "L2 Cache Control" (3.2f);
 * CUDA C++ Programming Guide, "Thread Block Clusters", "Distributed Shared Memory" and
 * "Asynchronous Data Copies using the Tensor Memory Accelerator" (3.2g).
 *
 * What this file may define (the grader's symbol check, before anything runs; in full:
 * handouts/grading.md, "The symbol rule"): lab.h's launchers under their names; your kernels;
 * __constant__, __device__ and __shared__ variables; C++ functions, static or not (templates
 * too); and variables that are static, const/constexpr, or in an unnamed namespace. Not main,
 * not a plain global variable (int counter;, also inline int counter;: make it static), not an
 * extern "C" function that is no launcher, and no name of the harness, the CUDA runtime or the
 * C library (cml_*, cuda*, _*, exit, rand, ...).
 * It may call the CUDA runtime except timing (no cudaEvent* at all: the judge times your launch,
 * and an event is timing even with cudaEventDisableTiming) and device-wide state (allowed in
 * this lab: streams of your own, and for 3.2f cudaDeviceSetLimit and
 * cudaCtxResetPersistingL2Cache, whose effect you must undo before returning); printing to
 * stdout/stderr; memcpy, memset, malloc, free and their kin; the math library.
 */
#include <stdint.h>

#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline> /* cuda::pipeline, 3.2e's libcu++ route (handout 3.2, section 8) */
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include "lab.h"
#include "window_sum.cuh"

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
     *   (Not needed, and worth no extra points: in chunks on two streams, the D2H of chunk
     *   k + 1 overlaps the H2D of chunk k, since the link carries both directions at once,
     *   and the ratio can pass 1.0, but the ramp stops at full (handout 3.2, "What is
     *   graded"); 3.2b does this with a kernel too.) */
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
     *   then run at once, on the copy engines (the H200 has three) and the SMs. The issue
     *   order above is depth first (each chunk's three steps, chunk after chunk); breadth
     *   first one round of n_streams chunks at a time (the round's D2H copies, then its H2D,
     *   then its kernels) and stream by stream earned full points too on the H200 in three
     *   judged runs each (an earlier run scored them 0, cause unknown), and are unmeasured
     *   since the judge's later timing changes (handout 3.2, section 4, "What can run at once
     *   on the GPU"). Breadth first over ALL chunks at once is wrong: chunk c + n_streams's
     *   D2H would overwrite slice s before chunk c's H2D has read it. */
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
     *   are CUDA 12's forms and do not compile. In a cudaMemLocation the host is the TYPE,
     *   {cudaMemLocationTypeHost, 0}, its id ignored (driver_types.h); cudaCpuDeviceId (-1)
     *   is the device NUMBER by which CUDA 12's forms named the host, and no GPU's id. A
     *   prefetch to the host moves nothing here: the pages already are in host memory.
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
     *   before this call. Read it where it lies, with no copy (that is the lesson; the timing
     *   cannot tell a copy made in this call from a mapped read, so it is graded on the
     *   read's parallelism: handout 3.2, "What is graded"):
     *     1. its device address: float *d_buf; cudaHostGetDevicePointer((void **)&d_buf,
     *        (void *)h_buf, 0) (flags 0);
     *     2. zero_copy_kernel over n elements, enough blocks of ZERO_COPY_BLOCK threads (or
     *        a block size of your own: index with blockDim.x), reading d_buf and writing
     *        d_out;
     *   and return without synchronising.
     *   Right: the values change before every call, and the harness waits for your kernel
     *   before it writes the next ones. A device copy kept from an earlier call holds an
     *   earlier launch's values: the judge checks launches on values drawn for them alone,
     *   and such a copy fails correctness.
     *   Fast: a cudaMemcpy into device memory first (the baseline) pays the copy's fixed cost, over
     *   7 us on the H200 however small the buffer (handout 3.2, section 1), before the kernel can
     *   start; the kernel reading the mapped buffer pays round trips across the link instead, all
     *   in flight at once when every thread reads one element, and the reads of a warp are
     *   coalesced (consecutive threads, consecutive floats). Few threads looping over the buffer
     *   wait for one round trip after another. */
}

/* ---------------------------------------------------------------------------------------------
 * 3.2e  Asynchronous copies into two tile buffers
 */

/* 16-byte pieces (4 floats) in one tile buffer: the tile's inputs and the halo's. */
#define ASYNC_COPY_PIECES ((ASYNC_COPY_TILE + ASYNC_COPY_HALO) / 4)

/* Given (window_sum.cuh): window_sum_tile(buf, out, n, tile, aligned), the sums of one staged
 * tile; buf holds in[b, b + ASYNC_COPY_TILE + ASYNC_COPY_HALO), b = tile * ASYNC_COPY_TILE (zeros
 * past n), and this thread writes its four outputs out[b + 4 threadIdx.x + 0..3]. */

/* Starts the copies of tile `tile`'s inputs into buf (ASYNC_COPY_PIECES pieces of 16 bytes)
 * and returns without waiting for them. */
__device__ __forceinline__ void async_copy_stage(float *buf, const float *in, size_t n, size_t tile,
                                                 bool aligned) {
    /* TODO(3.2e): the tile's inputs start at b = tile * ASYNC_COPY_TILE. Piece p (p from
     *   threadIdx.x up to ASYNC_COPY_PIECES - 1, in steps of ASYNC_COPY_BLOCK: threads 0 and 1
     *   also copy the halo's two pieces) is in[g .. g + 4), g = b + 4 p, and goes to buf + 4 p:
     *     - whole and aligned (aligned && g + 4 <= n): one asynchronous copy of 16 bytes,
     *       __pipeline_memcpy_async(buf + 4 * p, in + g, 16);
     *     - else element by element: in[g + e] by a 4-byte copy when g + e < n, else store
     *       buf[4 p + e] = 0.0f yourself (the sums past n add zeros).
     *   Do not wait here: the caller commits the copies as one batch and waits later.
     *   (This helper serves the __pipeline_* route of async_copy_kernel. With a cuda::pipeline
     *   of your own, lab.h's other route, stage through it instead, with cuda::memcpy_async
     *   between producer_acquire and producer_commit, and leave this helper unused.)
     *   Right: a copy moves 4, 8 or 16 bytes, from and to addresses aligned to its size
     *   (seed 001's __pipeline_memcpy_async(smem, in, sizeof(float) * 1024) is no such copy:
     *   each thread copies its own piece). */
}

/* out = the window sums of in (lab.h), tile by tile, through two shared tile buffers. */
__global__ void __launch_bounds__(ASYNC_COPY_BLOCK)
    async_copy_kernel(const float *in, float *out, size_t n) {
    /* TODO(3.2e): two tile buffers (16-byte aligned, as 16-byte copies need; 8256 bytes),
     *     __shared__ __align__(16) float buf[2][ASYNC_COPY_TILE + ASYNC_COPY_HALO];
     *   This block's tiles are blockIdx.x, blockIdx.x + gridDim.x, ... below
     *   n_tiles = ceil(n / ASYNC_COPY_TILE). Before the loop, stage the first one into buf[0]
     *   and __pipeline_commit(). Then for each tile, with s = 0, 1, 0, 1, ... its buffer:
     *     1. stage the NEXT tile (if any) into buf[s ^ 1], and __pipeline_commit() (every
     *        thread, every iteration, even with nothing staged: the batches must line up; a
     *        cuda::pipeline counts its own and needs no empty batch);
     *     2. __pipeline_wait_prior(1): all but the newest batch have landed, so this thread's
     *        copies of THIS tile are in buf[s];
     *     3. __syncthreads(): and every other thread's too;
     *     4. window_sum_tile(buf[s], ...);
     *     5. __syncthreads(): every thread has read buf[s] before the next iteration's copies
     *        overwrite it.
     *   aligned = ((uintptr_t)in | (uintptr_t)out) % 16 == 0, computed once.
     *   Right: a copy is only finished after its wait: reading buf before
     *   __pipeline_wait_prior reads whatever was there. The barrier cannot wait for another
     *   thread's copies: each thread waits for its own, then the barrier.
     *   Fast: while this tile is summed, the next one's copy is in flight (two round trips to
     *   device memory per block at once, not one). With one buffer (wait_prior(0) right after
     *   each commit) the copy is asynchronous but nothing overlaps it: the baseline's speed. */
}

void async_copy(const float *d_in, float *d_out, size_t n) {
    /* TODO(3.2e): launch async_copy_kernel with ASYNC_COPY_BLOCK threads per block and
     *   ASYNC_COPY_BLOCKS_PER_SM blocks per SM (cudaDeviceGetAttribute(&sms,
     *   cudaDevAttrMultiProcessorCount, device), device from cudaGetDevice), but never more
     *   blocks than tiles; return without synchronising. Each block loops over many tiles: the
     *   case timed has 32768 tiles, some 124 per block on the H200's 132 SMs. */
}

/* ---------------------------------------------------------------------------------------------
 * 3.2f  L2 persistence: a hot table, a stream passing through
 */

/* Given: lab.h's work, one thread per element. Each group of L2_PERSIST_GROUP consecutive
 * elements reads one table element at a hashed position (l2_persist_index): the table is
 * re-read at random, the stream read once. */
__global__ void __launch_bounds__(L2_PERSIST_BLOCK)
    l2_persist_kernel(const float *in, const float *table, size_t table_n, float *out, size_t n) {
    const size_t i = (size_t)blockIdx.x * L2_PERSIST_BLOCK + threadIdx.x;
    if (i < n) {
        const unsigned int j = l2_persist_index(i / L2_PERSIST_GROUP, table_n);
        out[i] = in[i] * table[j];
    }
}

void l2_persist(const float *d_in, const float *d_table, size_t table_n, float *d_out, size_t n) {
    /* TODO(3.2f): run l2_persist_kernel (ceil(n / L2_PERSIST_BLOCK) blocks of L2_PERSIST_BLOCK
     *   threads, stream 0) with the table kept in the L2, then give back what you took (the
     *   steps below use a launch attribute; a stream of your own with the window as its
     *   attribute, cudaStreamSetAttribute, is as good (lab.h): synchronise that stream where
     *   step 3 synchronises stream 0, since cudaStreamDestroy does not wait for its work,
     *   and destroy it before returning):
     *     1. the set-aside: table bytes = table_n * sizeof(float); query the device's maximum,
     *        cudaDeviceGetAttribute(&max, cudaDevAttrMaxPersistingL2CacheSize, device) (max ==
     *        0: no L2 persistence, e.g. before sm_80: launch plainly and return, changing
     *        nothing), and the limit as you find it, cudaDeviceGetLimit(&before,
     *        cudaLimitPersistingL2CacheSize); set cudaDeviceSetLimit(
     *        cudaLimitPersistingL2CacheSize, min(table bytes, max)) and read back what the
     *        driver granted (cudaDeviceGetLimit: it may round or clamp).
     *     2. the window: a cudaLaunchAttribute with id cudaLaunchAttributeAccessPolicyWindow
     *        and val.accessPolicyWindow = { base_ptr = d_table, num_bytes = min(table bytes,
     *        cudaDevAttrMaxAccessPolicyWindowSize), hitRatio, hitProp =
     *        cudaAccessPropertyPersisting, missProp = cudaAccessPropertyStreaming }. hitRatio
     *        is the fraction of the window's lines that get hitProp: granted / num_bytes,
     *        capped at 1. Asking for more lines than the set-aside holds makes the persisting
     *        lines evict one another (thrashing), so a window larger than the set-aside gets a
     *        ratio below 1.
     *     3. launch with it: cudaLaunchConfig_t cfg = {}; cfg.gridDim, cfg.blockDim, cfg.stream
     *        = 0, cfg.attrs = &attr, cfg.numAttrs = 1; cudaLaunchKernelEx(&cfg,
     *        l2_persist_kernel, d_in, d_table, table_n, d_out, n). Then cudaStreamSynchronize(0):
     *        neither call of step 4 is a stream operation, and the documentation promises
     *        neither waits for the kernel, so wait for it before giving the set-aside back.
     *     4. restore: cudaCtxResetPersistingL2Cache() (the table's lines back to normal), then
     *        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, before). The harness checks the
     *        limit after every call.
     *   Right: the window changes where the table's lines live, never the result.
     *   Fast: without the window, the stream (read once) pushes the table's lines out of the L2
     *   between two reads of them, and each gather goes to device memory; with it they stay.
     *   Not it: seed 001's cudaMemAdvise(table, bytes, cudaMemAdviseSetAccessedBy, device) is
     *   a Unified Memory mapping hint, documented for managed memory only: it sets no
     *   cache policy. */
}

/* ---------------------------------------------------------------------------------------------
 * 3.2g  A tile by one bulk copy, the halo from the neighbour (stretch, sm_90 only)
 */

namespace cg = cooperative_groups;

/* Given (window_sum.cuh): window_sum_tile(buf, out, n, tile, aligned), as in 3.2e. */

/* out = the window sums of in (lab.h), tile blockIdx.x, in clusters of TMA_CLUSTER_SIZE. */
__global__ void __launch_bounds__(ASYNC_COPY_BLOCK)
    tma_cluster_kernel(const float *in, float *out, size_t n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    /* Given: before sm_90 there is no bulk copy and no cluster. The harness never launches
     * this on such a GPU (it refuses the exercise: "needs sm_90"). */
    __trap();
#else
    /* TODO(3.2g): the tile buffer and its barrier, both in shared memory:
     *     __shared__ __align__(16) float buf[ASYNC_COPY_TILE + ASYNC_COPY_HALO];
     *     #pragma nv_diag_suppress static_var_with_dynamic_init
     *     __shared__ cuda::barrier<cuda::thread_scope_block> bar;
     *   thread 0 initialises it (init(&bar, blockDim.x)), then __syncthreads().
     *   The cluster: cg::cluster_group cluster = cg::this_cluster(); rank =
     *   cluster.block_rank(); the last rank (TMA_CLUSTER_SIZE - 1) has no next block.
     *   1. Your extent: ASYNC_COPY_TILE floats from b = blockIdx.x * ASYNC_COPY_TILE, plus
     *      ASYNC_COPY_HALO for the last rank; avail = the part of it below n (0 past n). Thread
     *      0 copies the whole 16-byte pieces of it, bulk = avail rounded down to a multiple of
     *      4 floats (none when in is not 16-byte aligned), in ONE call:
     *          cuda::memcpy_async(buf, in + b, cuda::aligned_size_t<16>(bulk * 4), bar);
     *      every thread stores the rest of the extent itself: in[b + i] below avail, else 0.
     *   2. bar.arrive_and_wait(): every thread's arrival and the copy's bytes.
     *   3. cluster.sync(); then the first ASYNC_COPY_HALO threads of every rank but the last
     *      copy the next block's buf[0 .. ASYNC_COPY_HALO) into buf[ASYNC_COPY_TILE ..]:
     *          const float *next = cluster.map_shared_rank(buf, rank + 1);
     *      then cluster.sync() again.
     *   4. window_sum_tile(buf, out, n, blockIdx.x, out is 16-byte aligned) when b < n.
     *   Every block reaches both cluster.sync() calls, even one past the last tile: no return
     *   before them.
     *   Right: the first cluster.sync() is what makes the neighbour's tile visible (its bulk
     *   copy landed, its zeros stored); the second keeps its shared memory alive until you
     *   have read it (a block's shared memory ends when the block exits).
     *   Fast: one instruction moves the tile (no LDG/STS per 16 bytes, no registers), and the
     *   halo's 32 bytes come from another SM of the cluster (the same GPC, GPU Processing
     *   Cluster: a hardware group of SMs) instead of another trip to L2. */
#endif
}

void tma_cluster(const float *d_in, float *d_out, size_t n) {
    /* TODO(3.2g): launch tma_cluster_kernel with ASYNC_COPY_BLOCK threads per block, one block
     *   per tile (ceil(n / ASYNC_COPY_TILE)) rounded UP to a multiple of TMA_CLUSTER_SIZE, in
     *   clusters of TMA_CLUSTER_SIZE blocks along x:
     *     cudaLaunchAttribute attr = {}; attr.id = cudaLaunchAttributeClusterDimension;
     *     attr.val.clusterDim.x = TMA_CLUSTER_SIZE; (y and z 1)
     *     cudaLaunchConfig_t cfg = {}; cfg.gridDim, cfg.blockDim, cfg.attrs = &attr,
     *     cfg.numAttrs = 1; cudaLaunchKernelEx(&cfg, tma_cluster_kernel, d_in, d_out, n);
     *   Return without synchronising. (A __cluster_dims__ attribute on the kernel would do too,
     *   but nvcc refuses it when it compiles for sm_80, which this file must also build for.) */
}

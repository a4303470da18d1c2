/* lab.h — lab 3.2 "Global memory and the host link": the C API between the harness and
 * kernels.cu.
 *
 * Pristine: the harness (harness.cu) calls these functions; you implement them in kernels.cu.
 * The data of every exercise starts and ends in DEVICE memory, where the course's judge (the
 * process that checks and times your work, handouts/grading.md) can fill it with fresh inputs
 * and read your result; what you write moves it across the host link (PCIe) and back through
 * HOST memory of your own process, which the judge cannot see. So the harness checks two
 * things besides the bytes:
 *   - the last element of every output of 3.2a-c (index n) is the harness's host-link
 *     check: 1 when your launch took at least the time the link needs to move the bytes
 *     (the fastest page-locked copy of n floats in the slower direction, measured by the
 *     harness in the same run, / 1.5; moving both directions at once is fine); a launch
 *     that did not cross the link (a device-to-device copy) is faster than that and gets 0
 *     there, a wrong result. Checked in the timed run only, the one run with the GPU to
 *     itself (elsewhere it is 1): failing it loses the performance points;
 *   - 3.2a: the buffer host_copy_alloc returns must be page-locked, and host_copy_free must
 *     release it (cudaPointerGetAttributes, in the process that runs your code).
 * 3.2c and 3.2d are the exceptions to "host memory of your own": 3.2c's table is Unified
 * (managed) Memory, 3.2d's buffer page-locked host memory mapped for the device; the harness
 * allocates both in your process, writes them on the host and hands them to every call.
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
 * and page-locked memory); seed §4.1 (Unified Memory: its cudaMemAdvise and
 * cudaMemPrefetchAsync calls take a device number, which CUDA 13 replaced by a
 * cudaMemLocation); CUDA C++ Programming Guide, "Unified Memory Programming"; CUDA 13.0's
 * cuda_runtime_api.h (cudaMemPrefetchAsync, cudaMemAdvise); CUDA C++ Programming Guide,
 * "Mapped Memory" and "Unified Virtual Address Space", and CUDA 13.0's cuda_runtime_api.h
 * (cudaHostAlloc, cudaHostGetDevicePointer, cudaSetDeviceFlags: 3.2d); seed §4.3 (an
 * asynchronous copy into shared memory, __pipeline_memcpy_async), CUDA C++ Programming Guide,
 * "Asynchronous Data Copies", and CUDA 13.0's cuda_pipeline_primitives.h (3.2e); seed §4.3's
 * "persistent L2 caching" (a cudaMemAdvise call, which controls no cache: handout 3.2 section 9),
 * CUDA C++ Programming Guide, "L2 Cache Control" (set-aside, access-policy window, hitRatio,
 * reset), and CUDA 13.0's cuda_runtime_api.h and driver_types.h (cudaDeviceSetLimit,
 * cudaCtxResetPersistingL2Cache, cudaLaunchAttributeAccessPolicyWindow: 3.2f); CUDA C++
 * Programming Guide, "Thread Block Clusters", "Distributed Shared Memory" and "Asynchronous
 * Data Copies using the Tensor Memory Accelerator", and CUDA 13.0's cuda/barrier and
 * cooperative_groups.h (cluster_group::map_shared_rank, sync: 3.2g).
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
 * (cudaFreeHost for cudaMallocHost and cudaHostAlloc; cudaHostUnregister, then free, for
 * cudaHostRegister). The harness checks that the runtime no longer knows the buffer afterwards
 * ("host_copy_free left the buffer page-locked ... (cudaErrorHostMemoryAlreadyRegistered)"
 * when it still does: cudaFree, the call for device memory, releases nothing here). */
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

/* =============================================================================================
 * 3.2c  unified_memory: a kernel over Unified Memory, its pages prefetched
 * ============================================================================================= */

/* The largest n the harness accepts: 2^26 floats, 256 MiB of managed memory (asking for more
 * managed memory than the GPU has free makes the driver evict, or can hang it). */
#define UNIFIED_MAX_N ((size_t)1 << 26)

/* 3.2c. d_out[i] = d_in[i] * um_weights[i] for i < n, computed by a kernel that reads
 * um_weights where it lives: in Unified Memory.
 *   d_in        (n) device memory (the judge's input)
 *   um_weights  (n) MANAGED memory (cudaMallocManaged, by the harness), one pointer valid on
 *               the host and on the device. The harness wrote it on the host, so its pages
 *               live in host memory; before EVERY call it undoes any advice you gave
 *               (cudaMemAdviseUnsetPreferredLocation, ...UnsetReadMostly, ...UnsetAccessedBy
 *               for the device) and moves every page back to host memory
 *               (cudaMemPrefetchAsync to cudaMemLocationTypeHost, synchronised), as the host
 *               side of a real program would leave it. Its values are the harness's: read
 *               them, never write them, never recompute them.
 *   d_out       (n + 1) device memory: your n products, then the harness's host-link check
 *               at index n (never write it).
 * What to do: tell the Unified Memory driver where the pages will be used (cudaMemAdvise with
 * a cudaMemLocation of the current device: {cudaMemLocationTypeDevice, device}, device from
 * cudaGetDevice), migrate them there in bulk before the kernel (cudaMemPrefetchAsync(ptr,
 * bytes, location, 0, stream): CUDA 13's form, flags 0), then launch the kernel on the same
 * stream. Without the prefetch the kernel's first touch of each page faults, and the driver
 * migrates the pages on demand, fault by fault: the course's baseline. Sizes in bytes:
 * n * sizeof(float). Return without synchronising (the harness synchronises the device).
 * Every launch moves n floats across the host link, host to device (the harness moves them
 * back to host memory before each launch; its check at index n: 1 when the launch took at
 * least the fastest page-locked host-to-device copy of n floats, measured in the same run,
 * / 1.5); a launch that never touches um_weights is faster than that on the large cases and
 * gets 0 there. Preconditions: 1 <= n <= UNIFIED_MAX_N; the device
 * supports concurrent managed access (cudaDevAttrConcurrentManagedAccess: H100, H200, A100). */
void unified_memory(const float *d_in, const float *um_weights, float *d_out, size_t n);

/* =============================================================================================
 * 3.2d  zero_copy: a small host buffer, updated before every launch, read where it lies
 * ============================================================================================= */

/* The largest n the harness accepts: 2^24 floats, 64 MiB (the exercise is about small
 * buffers: its timed case is 64 KiB). */
#define ZERO_COPY_MAX_N ((size_t)1 << 24)

/* 3.2d's per-element work: out[i] = ZERO_COPY_SCALE * h_buf[i] (the constant is exact in
 * float32; the product rounds once). */
#define ZERO_COPY_SCALE 1.5f

/* 3.2d. d_out[i] = ZERO_COPY_SCALE * h_buf[i] for i < n, computed by a kernel that reads the
 * buffer where it lies, in host memory, through its mapping (zero-copy): no copy of it into
 * device memory, yours or the driver's.
 *   h_buf  (n) the HOST pointer of page-locked host memory the harness allocated in your
 *          process with cudaHostAlloc(..., cudaHostAllocMapped), so that the device can read
 *          it across the host link. Before EVERY call the harness writes new values into it
 *          (this launch's values, the judge's; in a timed run drawn for that launch alone),
 *          and after every call it waits for the device (cudaDeviceSynchronize) before it
 *          writes again. Read them in this call; never keep them (or a copy) for a later call,
 *          never write them.
 *   d_out  (n) device memory: your n results.
 * What to do: ask the runtime for the buffer's DEVICE address,
 * cudaHostGetDevicePointer((void **)&d_buf, (void *)h_buf, 0) (flags 0), and launch a kernel
 * with one thread per element that reads d_buf[i] once and writes d_out[i]. (On a device
 * whose cudaDevAttrCanUseHostPointerForRegisteredMem is 1 the host pointer itself is valid on
 * the device, and when every visible device has it cudaHostGetDevicePointer returns h_buf:
 * passing h_buf works there too; cudaHostGetDevicePointer is the form that works everywhere.) No
 * cudaSetDeviceFlags(cudaDeviceMapHost): the runtime's context has it implicitly. Return
 * without synchronising (the harness synchronises the device). The course's baseline copies
 * the buffer into device memory with cudaMemcpy and runs the same kernel there.
 * Preconditions: 1 <= n <= ZERO_COPY_MAX_N. */
void zero_copy(const float *h_buf, float *d_out, size_t n);

/* =============================================================================================
 * 3.2e  async_copy: a tiled window sum, its tiles staged by asynchronous copies, two buffers
 * ============================================================================================= */

/* The largest n the harness accepts: 2^28 floats (1 GiB). */
#define ASYNC_COPY_MAX_N ((size_t)1 << 28)

/* The work: a moving-window sum of ASYNC_COPY_WINDOW inputs,
 *     out[i] = in[i] + in[i + 1] + ... + in[i + ASYNC_COPY_WINDOW - 1],   0 <= i < n,
 * with in[j] = 0 for j >= n (the last ASYNC_COPY_WINDOW - 1 outputs sum fewer inputs). Any
 * order of the additions is right: the harness's tolerance is float32's bound for a sum of
 * ASYNC_COPY_WINDOW terms in any order (reference.h). */
#define ASYNC_COPY_WINDOW 8

/* The course's tiling (the baseline's; yours may differ): blocks of ASYNC_COPY_BLOCK threads,
 * tiles of ASYNC_COPY_TILE outputs (4 per thread, one 16-byte piece each), each tile's inputs
 * in[b, b + ASYNC_COPY_TILE + ASYNC_COPY_HALO) staged in shared memory (b = the tile's first
 * output; the halo, ASYNC_COPY_WINDOW - 1 floats rounded up to a 16-byte piece, feeds the
 * tile's last outputs); ASYNC_COPY_BLOCKS_PER_SM blocks per SM (cudaDevAttrMultiProcessorCount),
 * each looping over tiles blockIdx.x, blockIdx.x + gridDim.x, ... */
#define ASYNC_COPY_BLOCK 256
#define ASYNC_COPY_TILE (4 * ASYNC_COPY_BLOCK)
#define ASYNC_COPY_HALO 8
#define ASYNC_COPY_BLOCKS_PER_SM 2

/* 3.2e. out[i] for i < n as above, by a kernel that streams in through shared memory tile by
 * tile, with TWO tile buffers: each tile's inputs copied global -> shared by asynchronous
 * copies (__pipeline_memcpy_async, or cuda::memcpy_async with a cuda::pipeline: SASS LDGSTS),
 * the next tile's copy in flight while this tile is summed (__pipeline_commit,
 * __pipeline_wait_prior, __syncthreads).
 *   d_in   (n) device memory, the judge's input (drawn anew for every timed launch)
 *   d_out  (n) device memory: your n sums
 * Both come from cudaMalloc or the judge's pool: 256-byte aligned in every run the course
 * makes, but check before using 16-byte pieces (a pointer + 1 is not). Return without
 * synchronising (the harness synchronises). The course's baseline is the same tiled kernel
 * with synchronous loads (global -> register -> shared) into one buffer.
 * Preconditions: 1 <= n <= ASYNC_COPY_MAX_N. */
void async_copy(const float *d_in, float *d_out, size_t n);

/* =============================================================================================
 * 3.2f  l2_persist: a hot table kept in L2 while a large stream passes through
 * ============================================================================================= */

/* The largest sizes the harness accepts: n up to 2^28 floats (1 GiB streamed in, 1 GiB out),
 * table_n up to 2^26 floats (256 MiB: more than any GPU's L2, and more than the largest
 * access-policy window, cudaDevAttrMaxAccessPolicyWindowSize). */
#define L2_PERSIST_MAX_N ((size_t)1 << 28)
#define L2_PERSIST_MAX_TABLE ((size_t)1 << 26)

/* The work, one thread per element in blocks of L2_PERSIST_BLOCK threads (the kernel is given
 * in kernels.cu; the baseline runs the same one):
 *     out[i] = in[i] * table[l2_persist_index(i / L2_PERSIST_GROUP, table_n)],   0 <= i < n.
 * Each group of L2_PERSIST_GROUP consecutive elements is scaled by one table element, chosen
 * by a fixed hash of the group's number: the table is re-read at random all the time, the
 * stream read once. The product rounds once (reference.h). */
#define L2_PERSIST_BLOCK 256
#define L2_PERSIST_GROUP 16

#ifdef __CUDACC__
#define L2_PERSIST_INLINE static __host__ __device__ __forceinline__
#else
#define L2_PERSIST_INLINE static inline
#endif

/* The table element that group g reads: a bijective 32-bit mix of g (a multiply by an odd
 * constant and xor-shifts), scaled into [0, table_n) by a 32 x 32 -> 64-bit product.
 * table_n >= 1. The same function on the host (the harness's reference) and in the kernels. */
L2_PERSIST_INLINE unsigned int l2_persist_index(unsigned long long g, unsigned long long table_n) {
    unsigned int x = (unsigned int)g * 0x9E3779B1u; /* arithmetic modulo 2^32 */
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    return (unsigned int)(((unsigned long long)x * table_n) >> 32);
}

/* 3.2f. out = the work above, with the table kept in the L2 cache by an access-policy window
 * while the stream passes through:
 *   d_in     (n) device memory, the stream: each element read once (the judge's input, drawn
 *            anew for every timed launch)
 *   d_table  (table_n) device memory, the hot table (also drawn anew for every timed launch:
 *            its address changes from call to call, so set the window in every call)
 *   d_out    (n) device memory: your n products
 * What to do, in this order:
 *   1. the set-aside: cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes) with bytes =
 *      min(table bytes, cudaDevAttrMaxPersistingL2CacheSize); read back what the driver
 *      granted (cudaDeviceGetLimit: it may clamp). Remember the limit you found first
 *      (cudaDeviceGetLimit; 0 unless something set it) to restore it in step 4.
 *   2. the window, as a LAUNCH attribute (cudaLaunchKernelEx with one cudaLaunchAttribute of
 *      id cudaLaunchAttributeAccessPolicyWindow; it needs no stream): base_ptr = d_table,
 *      num_bytes = min(table bytes, cudaDevAttrMaxAccessPolicyWindowSize), hitRatio = granted
 *      set-aside / num_bytes capped at 1, hitProp = cudaAccessPropertyPersisting, missProp =
 *      cudaAccessPropertyStreaming. (A window can also be an attribute of a stream of your own,
 *      cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v), the stream
 *      destroyed before returning; the launch attribute needs no stream.)
 *   3. launch l2_persist_kernel on the legacy default stream (stream 0) with that attribute,
 *      then SYNCHRONISE (cudaStreamSynchronize(0)): neither cudaDeviceSetLimit nor
 *      cudaCtxResetPersistingL2Cache is a stream operation, and the documentation promises
 *      neither waits for the kernel ("takes effect on function return"), so wait for it
 *      before giving the set-aside back.
 *   4. restore: cudaCtxResetPersistingL2Cache() (the table's lines back to normal), then the
 *      limit you found in step 1. The harness checks the limit after every call (in your
 *      process, l2_persist_expect_restored): a call that leaves it changed fails the case.
 * A device without L2 persistence (cudaDevAttrMaxPersistingL2CacheSize 0: before sm_80) gets
 * the plain launch. The course's baseline is the same kernel launched
 * with no window and no set-aside. Preconditions: 1 <= n <= L2_PERSIST_MAX_N,
 * 1 <= table_n <= L2_PERSIST_MAX_TABLE. */
void l2_persist(const float *d_in, const float *d_table, size_t table_n, float *d_out, size_t n);

/* =============================================================================================
 * 3.2g  tma_cluster (stretch, sm_90 only): a tile by one bulk copy, the halo from the neighbour
 * ============================================================================================= */

/* The work is 3.2e's window sum (ASYNC_COPY_WINDOW inputs per output, zeros past n, the same
 * tolerance) on 3.2e's tiles of ASYNC_COPY_TILE outputs, ONE tile per block of
 * ASYNC_COPY_BLOCK threads, the blocks in thread-block clusters of TMA_CLUSTER_SIZE (along x):
 * block k of the grid sums tile k. Needs sm_90 (Hopper): the Tensor Memory Accelerator's bulk
 * copies and clusters do not exist before it. On an older GPU the harness refuses the
 * exercise before any launch ("needs sm_90"), and the grader skips it when it grades a build
 * for sm_80. */
#define TMA_CLUSTER_SIZE 4
#define TMA_CLUSTER_MAX_N ASYNC_COPY_MAX_N

/* 3.2g. out[i] for i < n as in 3.2e, by a kernel launched in clusters of TMA_CLUSTER_SIZE
 * blocks (cudaLaunchKernelEx with a cudaLaunchAttributeClusterDimension attribute; the grid
 * rounded up to a whole number of clusters, the blocks past the last tile summing nothing but
 * still taking part in the cluster's barriers) in which each block
 *   1. fills its shared tile buffer (ASYNC_COPY_TILE + ASYNC_COPY_HALO floats, 16-byte
 *      aligned) with ONE bulk asynchronous copy issued by one thread (cuda::memcpy_async with
 *      a cuda::aligned_size_t<16> size and a cuda::barrier<cuda::thread_scope_block> in shared
 *      memory: SASS UBLKCP), a whole number of 16-byte pieces; the floats past the last whole
 *      piece below n are loaded by plain loads, and zeros are stored past n;
 *   2. waits on that barrier (its arrivals and the copy's bytes);
 *   3. takes the halo (the ASYNC_COPY_HALO inputs after its tile) from the NEXT block's
 *      shared buffer through distributed shared memory (cluster.map_shared_rank), not from
 *      global memory, between two cluster.sync() (SASS UCGABAR_ARV / UCGABAR_WAIT): the first
 *      says every tile of the cluster has landed, the second that every neighbour's read is
 *      done before a block exits (its shared memory ends with it). The cluster's last block
 *      has no next block: its own bulk copy includes the halo;
 *   4. sums its tile (window_sum_tile, window_sum.cuh).
 *   d_in   (n) device memory, the judge's input (drawn anew for every timed launch)
 *   d_out  (n) device memory: your n sums
 * 256-byte aligned in every run the course makes; a bulk copy needs 16-byte aligned addresses
 * and sizes, so check d_in and copy nothing in bulk from an unaligned one. Return without
 * synchronising. The course's baseline is the same one-tile-per-block grid with ordinary loads
 * (global -> register -> shared) of the tile and its halo, and no cluster.
 * Preconditions: 1 <= n <= TMA_CLUSTER_MAX_N; a device of compute capability 9.0 or later. */
void tma_cluster(const float *d_in, float *d_out, size_t n);

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

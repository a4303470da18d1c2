/* lab32_tma_cluster.cu — lab 3.2g's window sum (8 inputs per output, tiles of 1024 outputs,
 * blocks of 256 threads) by bulk copies (TMA) and thread-block clusters: which change brings a
 * TMA + cluster kernel up to the plain-load baseline, so that 3.2g's reference can be rebuilt?
 * NOT YET RUN on a GPU: no figure below comes from this program.
 *
 * Why: on one H200 (2026-12-02, judged, n = 2^25; bench/h200-2026-12-02-session8/g29/
 * calib-3.2.log) the reference ran at 0.551 of the baseline's speed (1946 against 3525 GB/s).
 * Suspects: one 4 KiB tile per block (little in flight), and two full cluster barriers per
 * tile (CUDA 13.0 compiles cluster.sync() for sm_90 to MEMBAR.ALL.CTA, MEMBAR.ALL.GPU,
 * ERRBAR, CGAERRBAR, UCGABAR_ARV, then UCGABAR_WAIT, CCTL.IVALL: cuobjdump -sass).
 *
 *   plain      the course's baseline, linked in (baselines.cu's tile_sum_plain): one tile per
 *              block, loads through registers into shared memory, __syncthreads, no cluster
 *   ref        the course's reference, linked in (solutions/3.2-global-memory/kernels.cu's
 *              tma_cluster): one tile per block by one bulk copy, the halo from the next block
 *              of a cluster of 4 between two cluster.sync()
 *   multi      tiles_kernel<K, kClusterSync>: K consecutive tiles per block, K bulk copies in
 *              flight on one barrier, one halo exchange per block (the last tile's; the other
 *              tiles' halos are in the block's own buffer) between two cluster.sync(). K = 1 is
 *              the reference rebuilt here (the same steps, plus the fence the Programming
 *              Guide's TMA example puts after the barrier's init): it should time as ref
 *   relaxed    tiles_kernel<K, kRelaxed>: the same, the cluster barriers split into arrive and
 *              wait, the second arrive relaxed, the sums that need no neighbour done between
 *              the first arrive and its wait (K = 1: the brief's "relaxed"; K > 1: both changes)
 *   tma_only   tiles_kernel<K, kNoCluster>: K tiles per block by bulk copies, every block's
 *              last halo in its own bulk copy from global memory, no cluster: the bulk copy's
 *              effect without the cluster's
 *   copy_d2d   cudaMemcpy device to device of the same bytes, for scale (not a variant)
 *
 * Sizes: every variant handles any n as the lab does (bulk copies of the whole 16-byte pieces
 * below n, plain loads of the rest, zeros past n); each is verified in full at n = 1, 2053,
 * 1000003 and 2^25 (the timed size) against the lab's float64 CPU reference (reference.c,
 * async_copy_ref) within the harness's bound gamma_7 sum |inputs|, on a poisoned output
 * (result_check.h). A variant that fails is reported and not timed (exit 1).
 *
 * Method (event_timing.h): 3 warm-ups, then 25 samples per variant, all variants interleaved,
 * L2 flushed (120 MB memset) before each sample, cudaEvents around the launch alone; the
 * median, p10 and p90. GB/s counts 4n bytes read + 4n written (the halos' re-reads not
 * counted), as the harness does. Registers and blocks per SM: device_facts.h (the occupancy
 * API; it does not count a cluster's placement).
 *
 * sm_90 only: the device code does not compile for an older architecture (#error), and the
 * program exits 2 with "needs sm_90" on an older GPU. Build and run: bench/roof/README.md.
 * Instructor-only: it links 3.2g's solution.
 *
 * Sources: CUDA C++ Programming Guide, "Thread Block Clusters", "Distributed Shared Memory",
 * "Asynchronous Data Copies using the Tensor Memory Accelerator" (init, then
 * fence.proxy.async.shared::cta, then __syncthreads); PTX ISA 8.x, "barrier.cluster" (arrive
 * is .release unless .relaxed, which gives no memory ordering for the accesses before it;
 * wait is .acquire), "cp.async.bulk", "fence.proxy.async"; CUDA 13.0's cuda/barrier and
 * cooperative_groups.h (cluster_group::map_shared_rank, sync).
 */
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "baselines.h"
#include "lab.h"
#include "reference.h"
#include "window_sum.cuh"

#include "cuda_check.h"    /* CHECK: exit 2 on a CUDA error */
#include "device_facts.h"  /* print_device_facts, kernel_resources */
#include "event_timing.h"  /* variant, kFlushBytes, time_interleaved, print_timing_method */
#include "percentile.h"    /* percentile */
#include "random_inputs.h" /* uniform_pm1 */
#include "result_check.h"  /* run_poisoned, check_against_ref */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#error "lab32_tma_cluster needs sm_90: build with -arch=sm_90"
#endif

namespace cg = cooperative_groups;

static const size_t kTimedN = (size_t)1 << 25;                // floats (128 MiB in, 128 out)
static const size_t kCheckN[] = {1, 2053, 1000003, kTimedN}; // verified sizes, timed last
static const int TILE = ASYNC_COPY_TILE, HALO = ASYNC_COPY_HALO, BLOCK = ASYNC_COPY_BLOCK;

enum { kNoCluster = 0, kClusterSync = 1, kRelaxed = 2 };

/* The cluster barrier's three forms, as PTX (the "memory" clobber keeps the compiler from
 * moving loads and stores across them; .aligned: every thread of a warp executes the same
 * one, so they sit in code every thread reaches). */
static __device__ __forceinline__ void cluster_arrive_release() {
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
static __device__ __forceinline__ void cluster_arrive_relaxed() {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
static __device__ __forceinline__ void cluster_wait_acquire() {
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* out = the window sums of in (lab.h), tiles K * blockIdx.x .. K * blockIdx.x + K - 1. */
template <int K, int SYNC>
__global__ void __launch_bounds__(ASYNC_COPY_BLOCK) tiles_kernel(const float *in, float *out,
                                                                 size_t n) {
    __shared__ __align__(16) float buf[K * TILE + HALO];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    unsigned int rank = 0;
    bool own_halo = true; // the block's last tile's halo comes in its own copy
    if constexpr (SYNC != kNoCluster) {
        rank = cg::this_cluster().block_rank();
        own_halo = rank + 1 == cg::this_cluster().num_blocks(); // the cluster's last block
    }
    const bool in_aligned = ((uintptr_t)in & 15) == 0, out_aligned = ((uintptr_t)out & 15) == 0;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); // the init seen by the TMA
    }
    __syncthreads();
    /* 1. K bulk copies in flight on one barrier (each adds its bytes to the barrier's count);
     * the floats past the last whole 16-byte piece below n by plain loads, zeros past n. */
    for (int k = 0; k < K; ++k) {
        const size_t b = ((size_t)blockIdx.x * K + k) * TILE;
        const size_t extent = TILE + (k == K - 1 && own_halo ? HALO : 0);
        const size_t avail = b >= n ? 0 : (n - b < extent ? n - b : extent);
        const size_t bulk = in_aligned ? avail & ~(size_t)3 : 0;
        if (threadIdx.x == 0 && bulk > 0) {
            cuda::memcpy_async(buf + k * TILE, in + b,
                               cuda::aligned_size_t<16>(bulk * sizeof(float)), bar);
        }
        for (size_t i = bulk + threadIdx.x; i < extent; i += BLOCK) {
            buf[k * TILE + i] = i < avail ? in[b + i] : 0.0f;
        }
    }
    bar.arrive_and_wait(); // every arrival and every copy's bytes: all K tiles are here
    auto sum_tile = [&](int k) {
        const size_t tile = (size_t)blockIdx.x * K + k;
        if (tile * TILE < n) {
            window_sum_tile(buf + k * TILE, out, n, tile, out_aligned);
        }
    };
    if constexpr (SYNC == kNoCluster) {
        for (int k = 0; k < K; ++k) {
            sum_tile(k);
        }
    } else if constexpr (SYNC == kClusterSync) { // the reference's steps
        cg::cluster_group cluster = cg::this_cluster();
        cluster.sync(); // every tile of the cluster has landed
        if (!own_halo && threadIdx.x < HALO) {
            buf[K * TILE + threadIdx.x] = cluster.map_shared_rank(buf, rank + 1)[threadIdx.x];
        }
        cluster.sync(); // every halo read (a neighbour may exit), and ours in buf
        for (int k = 0; k < K; ++k) {
            sum_tile(k);
        }
    } else {
        /* The first barrier publishes this block's tiles to the previous block, which reads
         * our buf[0, HALO): its arrive must be .release and its wait .acquire (the default
         * forms). The bulk copy's bytes were observed through the mbarrier above (acquire,
         * CTA scope); the release at cluster scope passes them on, as in the reference. Only
         * the last warp's last two threads need the neighbour's halo: every other sum runs
         * between the arrive and the wait, hiding the barrier's latency. */
        const bool last_warp = threadIdx.x >= BLOCK - 32;
        cluster_arrive_release();
        for (int k = 0; k < K; ++k) {
            if (k < K - 1 || !last_warp) {
                sum_tile(k);
            }
        }
        cluster_wait_acquire();
        /* The halo, read by the last warp's last HALO lanes into buf; __syncwarp orders those
         * stores before the lanes that sum them (the reference relies on its second
         * cluster.sync() for that). */
        if (!own_halo && threadIdx.x >= BLOCK - HALO) {
            buf[K * TILE + threadIdx.x - (BLOCK - HALO)] =
                cg::this_cluster().map_shared_rank(buf, rank + 1)[threadIdx.x - (BLOCK - HALO)];
        }
        __syncwarp();
        /* The second barrier publishes nothing: it only keeps every block's shared memory
         * alive until its neighbour has read the halo (a block's shared memory ends when it
         * exits), so its arrive is .relaxed (no MEMBAR.ALL.GPU). The halo's loads have
         * returned before it: their values are stored above (an STS waits for its load), the
         * warp issues in order, and the clobber keeps the compiler from moving them past it.
         * The PTX memory model itself orders no access before a relaxed arrive: this rests on
         * the in-order issue, and the check (run first) would catch a race only if it struck.
         * A release arrive here would also wait for the stores of the sums above. The wait
         * closes the kernel, after this block's last stores. */
        cluster_arrive_relaxed();
        if (last_warp) {
            sum_tile(K - 1);
        }
        cluster_wait_acquire();
    }
}

/* One block per K tiles; in clusters of TMA_CLUSTER_SIZE blocks (the grid rounded up) unless
 * SYNC is kNoCluster. */
template <int K, int SYNC> static void launch_tiles(const float *d_in, float *d_out, size_t n) {
    const size_t n_tiles = (n + TILE - 1) / TILE;
    size_t blocks = (n_tiles + K - 1) / K;
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = TMA_CLUSTER_SIZE;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    if (SYNC != kNoCluster) {
        blocks = (blocks + TMA_CLUSTER_SIZE - 1) / TMA_CLUSTER_SIZE * TMA_CLUSTER_SIZE;
    }
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned int)blocks);
    cfg.blockDim = dim3(BLOCK);
    cfg.stream = 0;
    cfg.attrs = &attr;
    cfg.numAttrs = SYNC != kNoCluster ? 1 : 0;
    CHECK(cudaLaunchKernelEx(&cfg, tiles_kernel<K, SYNC>, d_in, d_out, n));
}

/* The linked kernels, for their resource usage (host stubs of baselines.cu and solutions/). */
__global__ void window_sum_sync_kernel(const float *in, float *out, size_t n);
__global__ void tma_cluster_kernel(const float *in, float *out, size_t n);

/* out (n floats) against async_copy_ref, every element: one row of n, checked in full. */
static std::string check_window(const float *h_in, const float *h_out, size_t n) {
    return check_against_ref(h_out, 1, (int)n, ASYNC_COPY_WINDOW - 1, 1, 0, "out[%d][%d]",
                             [&](int, int i, double *ref, double *mag) {
                                 *ref = async_copy_ref(h_in, n, (size_t)i, ASYNC_COPY_WINDOW, mag);
                             });
}

int main(void) {
    const cudaDeviceProp prop = print_device_facts("");
    if (prop.major < 9) {
        printf("needs sm_90: bulk copies and thread-block clusters start with Hopper\n");
        return 2;
    }
    print_timing_method();
    const size_t n_max = kTimedN;
    std::vector<float> h_in(n_max), h_out(n_max);
    for (float &x : h_in) {
        x = uniform_pm1();
    }
    float *d_in = NULL, *d_out = NULL;
    void *d_flush = NULL;
    CHECK(cudaMalloc((void **)&d_in, n_max * sizeof(float)));
    CHECK(cudaMalloc((void **)&d_out, n_max * sizeof(float)));
    CHECK(cudaMalloc(&d_flush, kFlushBytes));
    CHECK(cudaMemcpy(d_in, h_in.data(), n_max * sizeof(float), cudaMemcpyHostToDevice));

    size_t n = 0; // the size every launch below computes (the check's, then the timed one)
    std::vector<variant> vs;
    std::vector<std::pair<std::string, int>> tags; // csv name and K, one per row of vs
    auto add = [&](const char *tag, int k, const std::string &what, std::function<void()> f,
                   const void *kernel) {
        vs.push_back({std::string(tag) + " k=" + std::to_string(k) + ": " + what, f, kernel,
                      kernel ? BLOCK : 0, kernel == NULL});
        tags.push_back({tag, k});
    };
    add("plain", 1, "baselines.cu, loads, no cluster", [&]() { tile_sum_plain(d_in, d_out, n); },
        (const void *)window_sum_sync_kernel);
    add("ref", 1, "solution, bulk copy, 2 cluster.sync", [&]() { tma_cluster(d_in, d_out, n); },
        (const void *)tma_cluster_kernel);
#define TILES(tag, K, SYNC, what)                                                                  \
    add(tag, K, what, [&]() { launch_tiles<K, SYNC>(d_in, d_out, n); },                           \
        (const void *)tiles_kernel<K, SYNC>)
    TILES("multi", 1, kClusterSync, "the reference rebuilt here");
    TILES("multi", 2, kClusterSync, "K tiles, 2 cluster.sync");
    TILES("multi", 4, kClusterSync, "K tiles, 2 cluster.sync");
    TILES("multi", 8, kClusterSync, "K tiles, 2 cluster.sync");
    TILES("relaxed", 1, kRelaxed, "split barriers, 2nd relaxed");
    TILES("relaxed", 2, kRelaxed, "K tiles, split, 2nd relaxed");
    TILES("relaxed", 4, kRelaxed, "K tiles, split, 2nd relaxed");
    TILES("relaxed", 8, kRelaxed, "K tiles, split, 2nd relaxed");
    TILES("tma_only", 1, kNoCluster, "bulk copy, halo copied, no cluster");
    TILES("tma_only", 2, kNoCluster, "K tiles, halo copied, no cluster");
    TILES("tma_only", 4, kNoCluster, "K tiles, halo copied, no cluster");
    TILES("tma_only", 8, kNoCluster, "K tiles, halo copied, no cluster");
#undef TILES
    add("copy_d2d", 0, "cudaMemcpy device to device, for scale", [&]() {
        CHECK(cudaMemcpyAsync(d_out, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice));
    }, NULL);

    /* Verify every variant at every size, output poisoned first; the copy against its input. */
    int wrong = 0;
    for (variant &v : vs) {
        v.check = "ok";
        for (size_t size : kCheckN) {
            n = size;
            run_poisoned(v.launch, d_out, h_out.data(), n);
            if (!v.roof) {
                v.check = check_window(h_in.data(), h_out.data(), n);
            } else if (memcmp(h_out.data(), h_in.data(), n * sizeof(float)) != 0) {
                v.check = "WRONG: the copy differs from its input";
            }
            if (v.check != "ok") {
                v.check += " (n = " + std::to_string(n) + ")";
                ++wrong;
                printf("%s: %s\n", v.name.c_str(), v.check.c_str());
                break;
            }
        }
    }
    n = kTimedN;
    time_interleaved(&vs, d_flush);

    const double bytes = 8.0 * (double)n; // 4n read + 4n written
    double plain_ms = 0.0;
    for (const variant &v : vs) {
        if (tags[&v - &vs[0]].first == "plain" && !v.samples.empty()) {
            plain_ms = percentile(v.samples, 0.5);
        }
    }
    printf("\nwindow sum, n = %zu floats (%.1f MB read + written); x plain: plain's median over "
           "the row's\n",
           n, bytes / 1e6);
    printf("%-58s %9s %9s %9s %7s %7s %5s %6s\n", "variant", "median ms", "p10 ms", "p90 ms",
           "GB/s", "x plain", "regs", "blk/SM");
    std::vector<std::string> csv;
    for (size_t i = 0; i < vs.size(); ++i) {
        const variant &v = vs[i];
        int regs, blocks;
        kernel_resources(v.kernel, v.threads, &regs, &blocks);
        if (v.samples.empty()) {
            printf("%-58s not timed: %s\n", v.name.c_str(), v.check.c_str());
            continue;
        }
        const double med = percentile(v.samples, 0.5);
        const double gbps = bytes / (med * 1e-3) / 1e9;
        const double ratio = plain_ms > 0.0 ? plain_ms / med : 0.0; // 0: plain not timed
        printf("%-58s %9.4f %9.4f %9.4f %7.0f %7.3f %5d %6d\n", v.name.c_str(), med,
               percentile(v.samples, 0.1), percentile(v.samples, 0.9), gbps, ratio, regs, blocks);
        char line[160];
        snprintf(line, sizeof line, "csv,%s,%d,%.5f,%.1f,%.4f,%d,%d", tags[i].first.c_str(),
                 tags[i].second, med, gbps, ratio, regs, blocks);
        csv.push_back(line);
    }
    printf("\ncsv,variant,k,ms,gbps,ratio_to_plain,regs,blocks_per_sm\n");
    for (const std::string &line : csv) {
        printf("%s\n", line.c_str());
    }

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_flush));
    if (wrong) {
        printf("%d variant(s) computed a wrong result and were not timed\n", wrong);
    }
    return wrong ? 1 : 0;
}

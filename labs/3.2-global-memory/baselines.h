/* baselines.h — lab 3.2: the course's own transfers and kernels, each behind a launcher with
 * the same data as the student's in lab.h. The harness times the student's launcher against
 * these (the run document's "ratio" = baseline / student) and uses the others for its own
 * figures (extra metrics). Pristine.
 *
 * All take DEVICE pointers for the data, work on the legacy default stream and return without
 * synchronising (the harness synchronises). n >= 1.
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 3.2a's roof and baseline: the course's own round trip, d_src -> h_buf -> d_dst, one
 * cudaMemcpy each way. With h_buf page-locked (the harness passes its own cudaMallocHost
 * buffer) this is the link's page-locked round trip, the figure 3.2a's ratio is taken
 * against; with a pageable h_buf (malloc) the same call is the pageable round trip the
 * harness reports beside it. */
void host_copy_course(const float *d_src, float *d_dst, float *h_buf, size_t n);

/* 3.2b's baseline: the same chunks as lab.h's overlap_pipeline on ONE stream (the legacy
 * default stream), through slice 0 of h_stage and d_stage: D2H, H2D and kernel of chunk c,
 * then of chunk c + 1, nothing overlapping. */
void overlap_one_stream(const float *d_in, float *d_out, size_t n, size_t chunk, float *h_stage,
                        float *d_stage);

/* d_out[i] = overlap_transform(d_in[i]) for i < n in one kernel (no copies): the kernel's
 * share of 3.2b's pipeline, timed for the exercise's figures. */
void overlap_transform_all(const float *d_in, float *d_out, size_t n);

/* 3.2c's baseline: lab.h's unified_memory without advice or prefetch, the kernel alone
 * (d_out[i] = d_in[i] * um_weights[i], one thread per element). With um_weights' pages in host
 * memory (as the harness leaves them before every launch) the kernel's first touch of each page
 * faults, and the Unified Memory driver migrates the pages on demand; with the pages already on
 * the device it is the kernel's own time (the harness's figures time both). */
void unified_on_demand(const float *d_in, const float *um_weights, float *d_out, size_t n);

/* 3.2d's baseline: lab.h's zero_copy done the usual way, the buffer COPIED into device memory
 * first: cudaMemcpy of h_buf (n floats, page-locked host memory) into d_out, then the same kernel
 * as zero_copy's (d_out[i] = ZERO_COPY_SCALE * d_out[i], one thread per element) in place. A
 * copy call pays its fixed cost (about 8 us on the H200 for a few KB, handout 3.2 section 1)
 * before the kernel can start; that is what a kernel reading the buffer through its mapping
 * saves on small buffers. */
void zero_copy_copied(const float *h_buf, float *d_out, size_t n);

/* 3.2e's baseline: lab.h's async_copy with SYNCHRONOUS loads into ONE tile buffer, otherwise
 * the same tiled kernel (lab.h's course tiling: ASYNC_COPY_BLOCK threads, tiles of
 * ASYNC_COPY_TILE outputs plus ASYNC_COPY_HALO inputs, ASYNC_COPY_BLOCKS_PER_SM blocks per SM
 * looping over tiles). Each tile: every thread loads its 16-byte piece into registers (LDG),
 * stores it into shared memory (STS), __syncthreads, sums, __syncthreads; the load of the
 * next tile starts only after this tile's sums, so each tile waits for a whole round trip to
 * device memory with nothing else of the block's to do. */
void window_sum_sync(const float *d_in, float *d_out, size_t n);

/* 3.2f's baseline: lab.h's l2_persist without the window and without the set-aside, the same
 * kernel (out[i] = in[i] * table[l2_persist_index(i / L2_PERSIST_GROUP, table_n)], one thread
 * per element, L2_PERSIST_BLOCK threads per block) launched plainly on the legacy default
 * stream: the table's lines compete for the L2 with the stream's, which pass through once. */
void l2_no_window(const float *d_in, const float *d_table, size_t table_n, float *d_out, size_t n);

/* 3.2g's baseline: lab.h's tma_cluster with ORDINARY loads and no cluster: 3.2e's baseline
 * kernel (window_sum_sync's) on a grid of one block per tile, so each block loads its tile
 * and its halo from global memory through registers (LDG, STS), __syncthreads, sums. The same
 * grid as the course's tma_cluster, without the bulk copy and the halo exchange. */
void tile_sum_plain(const float *d_in, float *d_out, size_t n);

#ifdef __cplusplus
}
#endif

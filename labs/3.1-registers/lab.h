/* lab.h — lab 3.1 "Registers and the memory hierarchy": the C API between the harness and
 * kernels.cu.
 *
 * Pristine: the harness (harness.cu) calls these launchers; you implement them in kernels.cu.
 * Every launcher
 *   - takes DEVICE pointers (except hierarchy_query, which fills a HOST struct),
 *   - launches its kernel on the default stream and returns without synchronising,
 *   - returns nothing: the harness checks the launch (cudaGetLastError, then the kernel's own
 *     execution after cudaDeviceSynchronize) and reports any error,
 *   - may be given other buffers, holding other values, at every call (the timed runs give
 *     each launch inputs of its own): keep nothing from one call for the next that depends on
 *     the pointers or on what they hold.
 * Sizes are arbitrary: never assume they are multiples of 32, of a block or of a segment.
 * Sizes are below 2^31 - 64 (they are int), and every array has fewer than 2^31 elements (the
 * harness refuses larger cases), so an int linear index does not overflow here; widening
 * before multiplying, (size_t)row * cols, is still the habit for arrays that may be larger.
 *
 * Declared extern "C" so the launchers' symbols are unmangled (the grader's symbol check).
 *
 * Sources: seed lecture 000 (Russian; no numbered sections: its "Концепция" (concept) section
 * introduces global, shared and constant memory and registers, but not local memory), seed
 * lecture 001 (Chinese; §1 the latency of each level, §2.1 registers, scalars vs arrays and
 * spills to local memory, §3.1 coalescing); docs/facts.md for the corrections this lab makes to
 * them (registers are 64K x 32 bit = 256 KB per SM, not "64 KB"; 200-300 cycles is an L2 hit,
 * not DRAM; shared memory is 228 KB per SM on H100/H200, not 164 KB); CUDA C++ Programming
 * Guide, "Device Memory Accesses", "Local Memory" (what the compiler places in local memory)
 * and "Compute Capabilities" (technical specifications per compute capability).
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* =============================================================================================
 * 3.1a  hierarchy: what the runtime says about the memory hierarchy of a device
 * ============================================================================================= */

/* The memory hierarchy of one device, as the CUDA runtime reports it. Every field comes from
 * cudaDeviceGetAttribute (or cudaGetDeviceProperties for global_bytes): never hard-code a value
 * (the grader compares with its own query of the device the code runs on). CUDA 13 removed
 * cudaDeviceProp.clockRate and .memoryClockRate: read the clocks with cudaDevAttrClockRate and
 * cudaDevAttrMemoryClockRate. Values on one H200 (docs/facts.md) are given for orientation. */
typedef struct hierarchy_info {
    int sm_count;       /* streaming multiprocessors (H200: 132) */
    int regs_per_sm;    /* 32-bit registers per SM (65536 = 256 KB; not "64 KB": seed 001) */
    int regs_per_block; /* 32-bit registers one block may use in all (65536) */
    /* Registers each thread may use when the SM holds its maximum number of resident threads
     * (full occupancy): regs_per_sm / (max resident threads per SM,
     * cudaDevAttrMaxThreadsPerMultiProcessor). H200: 65536 / 2048 = 32. A kernel that needs
     * more registers per thread runs fewer threads per SM (lower occupancy); one that is
     * limited below its need (-maxrregcount, __launch_bounds__) spills to local memory. */
    int regs_per_thread_at_full_occupancy;
    size_t smem_per_block_default; /* bytes of shared memory per block without opting in (48 KB) */
    size_t smem_per_block_optin;   /* bytes per block after cudaFuncSetAttribute(..., */
                                   /* cudaFuncAttributeMaxDynamicSharedMemorySize) (227 KB) */
    size_t smem_per_sm;            /* bytes of shared memory per SM (228 KB) */
    size_t l2_bytes;               /* L2 cache (60 MB) */
    size_t const_bytes;            /* __constant__ memory (64 KB) */
    size_t global_bytes;           /* device (global) memory (H200: 141 GB HBM3e) */
    int sm_clock_khz;              /* peak SM clock, kHz (cudaDevAttrClockRate) */
    int mem_clock_khz;             /* peak memory clock, kHz (cudaDevAttrMemoryClockRate) */
    int bus_width_bits;            /* memory bus width, bits (cudaDevAttrGlobalMemoryBusWidth) */
    /* Theoretical peak DRAM bandwidth in GB/s (1 GB = 1e9 bytes):
     *     2 * mem_clock_khz * 1e3 * bus_width_bits / 8 / 1e9
     * The 2 is double data rate: HBM (like GDDR and DDR) moves data on both edges of the
     * clock, two transfers per cycle per pin; bus_width_bits / 8 bytes move per transfer. */
    double peak_dram_gbps;
} hierarchy_info;

/* The fields of hierarchy_info in the order the harness reports them (row 0 of its output,
 * one column per field; a report's "col" names the field by this index). */
#define HIERARCHY_N_FIELDS 14

/* 3.1a. Fills *h for CUDA device `device` (an ordinal, >= 0) from the runtime API. No kernel.
 * On a failed runtime call leave the field as it is (the harness poisons the struct first and
 * reports a field still holding the poison as unwritten). */
void hierarchy_query(int device, hierarchy_info *h);

/* =============================================================================================
 * 3.1b  latency_ladder: pointer chasing through shared memory, L1, L2 and DRAM
 * ============================================================================================= */

/* A pointer-chasing cycle is an array `next` of 32-bit words in which node i occupies the
 * CHASE_STRIDE_WORDS words from word i * CHASE_STRIDE_WORDS (one 128-byte cache line per
 * node); only the node's first word is used: it holds the WORD index of the next node, so a
 * chase is literally  j = next[j].  The harness builds a random single cycle through all nodes
 * (Sattolo's algorithm, from the seed), so every load depends on the one before (no two can
 * overlap) and no hardware prefetcher can guess the next line: the time per step is the
 * latency of one load from wherever the working set lives.
 *
 * Result of a chase (CHASE_RESULT_WORDS unsigned 32-bit words, written by ONE thread):
 *   result[0] = final j        (the word index after warmup + steps loads)
 *   result[1] = checksum       (sum, modulo 2^32, of the `steps` values j takes in the timed
 *                               part, i.e. after each timed load)
 *   result[2] = cycles, low 32 bits   } clock64() after the timed loop minus clock64() before
 *   result[3] = cycles, high 32 bits  } it: the timed loop alone, no warm-up, no copy
 * Starting point: j = start; then `warmup` untimed loads (they bring the working set into the
 * cache level being measured), then the timed loop of `steps` loads. */
#define CHASE_STRIDE_WORDS 32 /* 32 words x 4 bytes = 128 bytes = one cache line per node */
#define CHASE_RESULT_WORDS 4

/* 3.1b. One thread chases the cycle in global memory.
 *   d_next: the cycle (device), d_result: CHASE_RESULT_WORDS words (device).
 *   bypass_l1 != 0: every load bypasses L1 and is served by L2 or DRAM (__ldcg: "cache
 *   global", i.e. cache in L2 only); bypass_l1 == 0: loads are cached in L1 (__ldca: "cache
 *   all levels"). Preconditions: warmup >= 0, steps >= 1, start is a node's word index. */
void chase_global(const unsigned int *d_next, unsigned int start, int warmup, int steps,
                  int bypass_l1, unsigned int *d_result);

/* 3.1b. Copies the whole cycle d_next[0 .. n_words) into dynamic shared memory
 * (n_words * 4 bytes, at most 48 KB: no opt-in needed), then one thread chases it there.
 * Preconditions as chase_global; n_words is a multiple of CHASE_STRIDE_WORDS, at most
 * CHASE_SHARED_MAX_WORDS. */
#define CHASE_SHARED_MAX_WORDS (48 * 1024 / 4)
void chase_shared(const unsigned int *d_next, unsigned int n_words, unsigned int start, int warmup,
                  int steps, unsigned int *d_result);

/* =============================================================================================
 * 3.1c  fir_registers: a per-thread window kept in registers, not local memory
 * ============================================================================================= */

/* Taps of the FIR filter. */
#define FIR_TAPS 8

/* 3.1c. A causal FIR filter down each column:
 *     out(r, c) = sum_{k = 0}^{FIR_TAPS - 1} taps[k] * in(r - k, c),   in(r', c) = 0 for r' < 0.
 *   d_in, d_out: (rows, cols) row-major;  d_taps: FIR_TAPS floats on the device.
 * Thread mapping: yours (block shape, grid, rows per thread; handout 3.1, "Fixed and free").
 * The given kernel's, and the suggested one: threadIdx.x along the columns (a warp reads 32
 * consecutive floats of one row: coalesced), and each thread filters one segment of
 * FIR_SEGMENT_ROWS consecutive rows of its column, starting by reading the FIR_TAPS - 1 rows
 * above its segment (the history; 0 above row 0): cols * ceil(rows / FIR_SEGMENT_ROWS)
 * threads. Another mapping must still fit the grid's y limit at rows = FIR_MAX_ROWS (below).
 * The window of the last FIR_TAPS inputs must live in registers: every index into a
 * per-thread array must be a compile-time constant after unrolling (a shift register, or a
 * loop unrolled by FIR_TAPS), so the kernel has no local memory (no LDL/STL in its SASS, 0
 * bytes of stack).
 * Preconditions: rows, cols >= 1, rows <= FIR_MAX_ROWS. */
#define FIR_SEGMENT_ROWS 64
/* The grid's y limit (65535) with one segment of rows per block row: a mapping with fewer
 * rows per block row along y loops over rows (a grid-stride loop) or puts them along x. */
#define FIR_MAX_ROWS (65535 * FIR_SEGMENT_ROWS)
void fir_registers(const float *d_in, float *d_out, int rows, int cols, const float *d_taps);

/* =============================================================================================
 * 3.1d  coalescing: consecutive threads, consecutive addresses
 * ============================================================================================= */

/* 3.1d. Scales each row and adds a bias per column:
 *     out(r, c) = in(r, c) * row_scale[r] + col_bias[c]
 *   d_in, d_out: (rows, cols) row-major;  d_row_scale: (rows);  d_col_bias: (cols).
 * Consecutive threads must touch consecutive addresses of in and out (coalesced): e.g. a 2D
 * grid with threadIdx.x along the columns. Preconditions: rows, cols >= 1,
 * rows <= SCALE_ROWS_MAX_ROWS (a grid of blocks 8 rows tall fits the grid's y limit, 65535). */
#define SCALE_ROWS_MAX_ROWS (65535 * 8)
void scale_rows(const float *d_in, float *d_out, int rows, int cols, const float *d_row_scale,
                const float *d_col_bias);

#ifdef __cplusplus
}
#endif

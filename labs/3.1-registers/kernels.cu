/* kernels.cu — lab 3.1 "Registers and the memory hierarchy": what you write, and its launchers.
 *
 *   3.1a  hierarchy_query   read the memory hierarchy of the device from the runtime API
 *   3.1b  chase_global,     measure the latency of one load from L1, L2, DRAM and shared memory
 *         chase_shared      by pointer chasing (each load's address is the previous load's value)
 *   3.1c  fir_registers     an 8-tap FIR whose window stays in registers (no local memory)
 *   3.1d  scale_rows        the same element-wise work as the given kernel, coalesced
 *
 * The API is in lab.h (pristine): launchers take DEVICE pointers, launch on the default stream
 * and return without synchronising. The harness poisons the outputs, checks the launches and
 * compares with a CPU reference; the grader also reads fir_registers_kernel's SASS (no local
 * memory: no LDL/STL, 0 bytes of stack), runs compute-sanitizer memcheck, and compares speed
 * with the given kernels (baselines.cu) and, for 3.1b, the cycles per load of each level.
 * Keep the kernel names; block sizes are yours.
 *
 * Sources:
 *   - seed lecture 000, section "Концепция" (concept; the seed has no numbered sections): the
 *     memory spaces and registers; seed lecture 001 §1 (latencies), §2.1 (registers, spills to
 *     local memory) and §3.1 (coalescing), with the corrections of docs/facts.md (256 KB of
 *     registers per SM; 200-300 cycles is an L2 hit; DRAM is 500-800+ cycles). Arrays indexed
 *     at run time go to local memory: CUDA C++ Programming Guide, "Local Memory".
 *   - pointer chasing: Saavedra & Smith, "Measuring cache and TLB performance" (IEEE Trans.
 *     Computers, 1995); Wong et al., "Demystifying GPU microarchitecture through
 *     microbenchmarking" (ISPASS 2010); Jia et al., "Dissecting the NVIDIA Volta GPU
 *     architecture via microbenchmarking" (2018). Published H100 figures (caps-tum/mt4g, in
 *     docs/facts.md): shared 29.9, L1 38, L2 219, DRAM 834 cycles.
 *   - CUDA C++ Programming Guide: "Device Memory Accesses", "Load functions using cache hints"
 *     (__ldca, __ldcg), "Time function" (clock64), the runtime's cudaDeviceGetAttribute.
 *
 * What this file may define (the grader's symbol check, before anything runs; in full:
 * handouts/grading.md, "The symbol rule"): lab.h's launchers under their names; your kernels;
 * __constant__, __device__ and __shared__ variables; C++ functions, static or not (templates
 * too); and variables that are static, const/constexpr, or in an unnamed namespace. Not main,
 * not a plain global variable (int counter;, also inline int counter;: make it static), not an
 * extern "C" function that is no launcher, and no name of the harness, the CUDA runtime or the
 * C library (cml_*, cuda*, _*, exit, rand, ...).
 * It may call the CUDA runtime except timing, streams of its own, graphs, host callbacks, IPC,
 * device-wide state and loading device code; printing to stdout/stderr; memcpy, memset,
 * malloc, free and their kin; the math library.
 */
#include <cuda_runtime.h>

#include "lab.h"

/* Number of blocks of d threads covering n >= 1 elements, ceil(n / d), without int overflow. */
#define CEIL_DIV(n, d) ((unsigned int)(((long long)(n) + (d)-1) / (d)))

/* ---------------------------------------------------------------------------------------------
 * 3.1a  The hierarchy, from the runtime
 */

void hierarchy_query(int device, hierarchy_info *h) {
    /* TODO(3.1a): fill every field of *h for `device` with cudaDeviceGetAttribute(&value,
     *   cudaDevAttr..., device) — e.g. cudaDevAttrMultiProcessorCount,
     *   cudaDevAttrMaxRegistersPerMultiprocessor, cudaDevAttrMaxSharedMemoryPerBlockOptin,
     *   cudaDevAttrL2CacheSize, cudaDevAttrClockRate, cudaDevAttrMemoryClockRate,
     *   cudaDevAttrGlobalMemoryBusWidth — and global_bytes from cudaGetDeviceProperties
     *   (totalGlobalMem). Derive the last two: registers per thread at full occupancy
     *   (registers per SM / cudaDevAttrMaxThreadsPerMultiProcessor) and the peak DRAM bandwidth
     *   in GB/s (2 transfers per clock: double data rate; lab.h gives the formula).
     *   Right: query, never hard-code — the grader runs on a GPU you may not have seen. */
}

/* ---------------------------------------------------------------------------------------------
 * 3.1b  The latency ladder: pointer chasing
 */

/* Stores a chase's outcome (lab.h, CHASE_RESULT_WORDS). `inline` keeps it out of the host
 * object; a non-inline __device__ function would also pass the grader's symbol check (nvcc
 * gives it a host-side body that calls exit(), which the check allows for that reason). */
__device__ inline void chase_store(unsigned int *result, unsigned int j, unsigned int sum,
                                   long long cycles) {
    result[0] = j;
    result[1] = sum;
    result[2] = (unsigned int)((unsigned long long)cycles & 0xFFFFFFFFu);
    result[3] = (unsigned int)((unsigned long long)cycles >> 32);
}

/* One thread (launch <<<1, 1>>>) chases the cycle in global memory: j = next[j], `warmup` times
 * untimed, then `steps` times between two clock64() reads, summing the j it visits.
 * bypass_l1 != 0: every load is __ldcg (cached in L2 only); else __ldca (cached in L1 and L2).
 * In the SASS (nvcc 13.0, sm_90, cuobjdump -sass) __ldcg is LDG.E.STRONG.GPU and __ldca is
 * LDG.E.STRONG.SM: a load made coherent at the scope of the GPU must skip the SM's L1, one
 * coherent at the scope of the SM may hit it. Each step of the timed loop is the load and
 * the IMAD.WIDE that turns j into the next address (~4 cycles more than the load alone), as
 * in every pointer-chasing benchmark; the clock64() before the loop does not wait for the last
 * warm-up load, so the timed region holds steps loads plus at most one. */
__global__ void chase_global_kernel(const unsigned int *next, unsigned int start, int warmup,
                                    int steps, int bypass_l1, unsigned int *result) {
    /* TODO(3.1b): chase the cycle with ONE thread. Starting at j = start, load j = next[j]
     *   `warmup` times (untimed: it brings the working set into the level being measured), then
     *   read clock64(), load j = next[j] `steps` more times adding each new j to an unsigned
     *   checksum, read clock64() again, and store j, the checksum and the cycles in result
     *   (chase_store above). Use __ldcg(&next[j]) when bypass_l1 is set, __ldca(&next[j])
     *   otherwise — test the flag outside the loops, so the timed loop is only loads.
     *   Right: every load's address is the value of the load before; skip none. */
}

void chase_global(const unsigned int *d_next, unsigned int start, int warmup, int steps,
                  int bypass_l1, unsigned int *d_result) {
    /* TODO(3.1b): launch chase_global_kernel with one block of one thread: a chase is one
     *   chain of dependent loads, and a second thread would only add its own chain. */
}

#define CHASE_COPY_THREADS 256 /* threads that copy the cycle into shared memory */

/* One block: all threads copy next[0 .. n_words) into dynamic shared memory, then thread 0
 * chases it there as chase_global_kernel does in global memory (LDS in the SASS). */
__global__ void chase_shared_kernel(const unsigned int *next, unsigned int n_words,
                                    unsigned int start, int warmup, int steps,
                                    unsigned int *result) {
    extern __shared__ unsigned int s_next[]; // (n_words): the cycle, sized by the launcher
    /* TODO(3.1b): copy next[0 .. n_words) into s_next with all the block's threads (thread t
     *   copies words t, t + blockDim.x, ...: coalesced), __syncthreads(), then let thread 0
     *   alone chase s_next exactly as chase_global_kernel does (warmup, clock64(), steps loads
     *   j = s_next[j] with the checksum, clock64()) and store the result with chase_store.
     *   Right: the barrier — thread 0 reads words other threads copied. */
}

void chase_shared(const unsigned int *d_next, unsigned int n_words, unsigned int start, int warmup,
                  int steps, unsigned int *d_result) {
    /* TODO(3.1b): launch chase_shared_kernel with one block of CHASE_COPY_THREADS threads and
     *   n_words * sizeof(unsigned int) bytes of dynamic shared memory (the third launch
     *   parameter); at most 48 KB, so no cudaFuncSetAttribute opt-in is needed. */
}

/* ---------------------------------------------------------------------------------------------
 * 3.1c  FIR with its window in registers
 */

#define FIR_BLOCK 128 /* threads per block, along the columns */

/* out(r, c) = sum_k taps[k] * in(r - k, c). Suggested thread mapping (lab.h; the block shape,
 * the grid and the rows per thread are yours: handout 3.1, "Fixed and free"): thread (x, y) of
 * the grid filters rows [y * S, y * S + S) of column x, S = FIR_SEGMENT_ROWS, after reading
 * the FIR_TAPS - 1 rows above the segment. */
__global__ void fir_registers_kernel(const float *in, float *out, int rows, int cols,
                                     const float *taps) {
    /* TODO(3.1c): compute this thread's segment of its column as the given kernel fir_local
     *   does (baselines.cu), but keep the window of the last FIR_TAPS inputs in REGISTERS:
     *   a shift register w[0..FIR_TAPS) where w[k] = in(r - k, c). For each row: shift
     *   (w[k] = w[k - 1] for k = FIR_TAPS-1 down to 1), load w[0] = in(r, c), and sum
     *   taps[k] * w[k]. With `#pragma unroll` on the loops over k, every index into w[] (and
     *   into a register copy of the taps) is a compile-time constant, so the arrays become
     *   registers; an index known only at run time (w[r % FIR_TAPS]) forces them into local
     *   memory (LDL/STL), which the grader forbids here. A ring buffer is as good where the
     *   row loop is unrolled by FIR_TAPS, so that each unrolled step's slot is a constant
     *   (handout 3.1, "Fixed and free").
     *   Right: the history (the FIR_TAPS - 1 rows above the segment) is 0 above row 0; the last
     *   segment may be partial; check the column against cols. */
}

void fir_registers(const float *d_in, float *d_out, int rows, int cols, const float *d_taps) {
    /* TODO(3.1c): launch fir_registers_kernel, for the suggested mapping on a grid of
     *   CEIL_DIV(cols, FIR_BLOCK) x CEIL_DIV(rows, FIR_SEGMENT_ROWS) blocks of FIR_BLOCK
     *   threads: one thread per column and segment of rows (a mapping of your own needs a
     *   grid of its own). */
}

/* ---------------------------------------------------------------------------------------------
 * 3.1d  Coalesced row scaling
 */

#define SCALE_BLOCK_X 32 /* threads along the columns: one warp = 32 consecutive columns */
#define SCALE_BLOCK_Y 8  /* rows per block */

/* out(r, c) = in(r, c) * row_scale[r] + col_bias[c]. Suggested thread mapping (lab.h; yours to
 * choose: handout 3.1, "Fixed and free"): thread (x, y) of the grid computes element (r = y,
 * c = x); threadIdx.x runs along the columns. */
__global__ void scale_rows_kernel(const float *in, float *out, int rows, int cols,
                                  const float *row_scale, const float *col_bias) {
    /* TODO(3.1d): compute one element per thread (or several: handout 3.1, "Fixed and
     *   free"), choosing (r, c) so that consecutive threadIdx.x get consecutive columns c
     *   of the same row r: a warp then reads and writes
     *   32 consecutive floats (128 bytes, 4 sectors) instead of 32 floats `cols` apart (32
     *   sectors) as the given kernel does. The warp's row_scale[r] is one broadcast load, its
     *   col_bias[c] another coalesced load.
     *   Right: guard r < rows and c < cols (sizes are not multiples of the block). */
}

void scale_rows(const float *d_in, float *d_out, int rows, int cols, const float *d_row_scale,
                const float *d_col_bias) {
    /* TODO(3.1d): launch scale_rows_kernel on a 2D grid covering (rows, cols): blockDim.x along
     *   the columns (a multiple of 32: whole warps on one row), CEIL_DIV(cols, block.x) blocks
     *   along x and CEIL_DIV(rows, block.y) along y (at most 65535). */
}

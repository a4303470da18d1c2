/* kernels.cu — lab 3.3 "Shared-memory tiling": the three kernels you write, and their launchers.
 *
 *   3.3a  matmul_tiled     C = A B, stepping along K through tiles of A and B staged in shared
 *                          memory, so each element read from global memory is used T times
 *   3.3b  transpose_tiled  out = in^T through a padded shared tile: reads AND writes coalesced
 *   3.3c  conv2d_tiled     2D correlation; each block stages its output tile plus a halo of R
 *   3.3d  sgemm            (stretch) C = A B again, fast: each thread keeps an 8 x 8 block of
 *                          C in registers, the warps tile the block's tile, the shared tiles are
 *                          double-buffered; graded as a percentage of cuBLAS's SGEMM
 *
 * The API is in lab.h (pristine): launchers take DEVICE pointers to row-major float32 arrays,
 * launch on the default stream and return without synchronising. The harness poisons the output,
 * checks the launch, and compares with a float64 CPU reference; the grader also reads each
 * kernel's SASS by name (it must store into and load from shared memory — STS, or cp.async's
 * LDGSTS, and LDS — with a block-wide barrier, BAR or a cuda::barrier's SYNCS, and use no local
 * memory: LDL/STL), runs compute-sanitizer (memcheck, racecheck, synccheck; sgemm: memcheck and
 * racecheck) and times it against the course's baseline (baselines.cu; sgemm against cuBLAS's
 * SGEMM, which the grader times in the same run). Keep the kernel names; the tile sizes are yours.
 * Each launcher launches its own kernel and no other, and every kernel here is launched by a
 * launcher: the static rules read the kernel the launcher launches (the grader reads the
 * launchers' host code), so a kernel left over from an experiment costs the static points until
 * you remove it.
 *
 * Sources:
 *   - tiled matrix multiply: seed lecture 000 (matrixMulShared), with the corrections of
 *     docs/facts.md (ceil(K/T) tiles, zero-filled loads, unconditional barriers, guarded store);
 *     NVIDIA cuda-samples matrixMul (after Volkov & Demmel, SC'08); CUDA C++ Programming Guide,
 *     "Shared Memory".
 *   - transpose: M. Harris, "An Efficient Matrix Transpose in CUDA C/C++", NVIDIA Developer
 *     Blog (2013): 32 x 32 tile, 32 x 8 threads, tile padded to [32][33]; seed lecture 001's
 *     "coalesced" transpose only moves the strided access from the store to the load.
 *   - convolution: seed lecture 001 (convolution_shared), which loads no halo; the halo
 *     follows Kirk & Hwu, "Programming Massively Parallel Processors", ch. 7 (tiled
 *     convolution with halo cells).
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

/* Number of tiles of d elements covering n >= 1 elements, ceil(n / d), without int overflow;
 * for grid dimensions (siboehm/SGEMM_CUDA's CEIL_DIV). */
#define CEIL_DIV(n, d) ((unsigned int)(((long long)(n) + (d)-1) / (d)))

/* ---------------------------------------------------------------------------------------------
 * 3.3a  Tiled matrix multiply
 */

/* Tile edge T. The block is T x T threads, one per element of its tile of C (the suggested
 * mapping: fewer threads with several elements each is yours too); each step stages a
 * T x T tile of A and one of B: 2 x 4 KB of shared memory at T = 32, and 32 x 32 = 1024 threads
 * is the per-block maximum. Each element loaded from global memory is used T = 32 times: on an
 * H200 at 4096^3, 8.7 TFLOP/s, 1.48x the coalesced naive kernel (bench/h200.md, 3 runs), 17 % of
 * cuBLAS; going further takes register blocking (docs/facts.md; siboehm's SGEMM worklog,
 * kernels 4-5). Another T is yours to choose; with blockIdx.y over rows of C, the grid's 65535
 * blocks along y then reach M = 65535 T (1 048 560 at T = 16, below lab.h's MATMUL_MAX_M): a
 * tile of fewer than 32 rows must loop over rows (grid-stride in y) or put rows on blockIdx.x.
 * (No case reaches MATMUL_MAX_M yet: handout 3.3, after the task cards.) */
#define MATMUL_TILE 32

/* C = A B.  A: (M, K) row-major, B: (K, N) row-major, C: (M, N) row-major.
 * Thread mapping: block (bx, by) computes the tile C[by*T, by*T + T) x [bx*T, bx*T + T); thread
 * (tx, ty) computes C(by*T + ty, bx*T + tx). threadIdx.x runs along N, so a warp's loads of B and
 * its store of C touch consecutive addresses (coalesced). */
__global__ void matmul_tiled_kernel(const float *A, const float *B, float *C, int M, int N, int K) {
    /* TODO(3.3a): compute this block's MATMUL_TILE x MATMUL_TILE tile of C by stepping along K
     *   one tile at a time: each thread loads one element of a tile of A and one of a tile of B
     *   into __shared__ arrays, __syncthreads(), adds the tile's T products from shared memory,
     *   and __syncthreads() again before the next step overwrites the tiles.
     *   Fast: every element read from global memory is reused T times from shared memory, and
     *   consecutive threadIdx.x read consecutive addresses of A and of B (coalesced).
     *   Right: loop over ceil(K / T) tiles, load 0 for elements outside A or B (then partial
     *   tiles need no special case), let EVERY thread reach both barriers (no return or `if`
     *   around them), and guard only the final store. */
}

void matmul_tiled(const float *d_A, const float *d_B, float *d_C, int M, int N, int K) {
    /* TODO(3.3a): launch matmul_tiled_kernel with MATMUL_TILE x MATMUL_TILE threads per block
     *   (or your own mapping's block) and enough blocks to cover all of C, including partial
     *   tiles: CEIL_DIV(N, T) along x (columns) and CEIL_DIV(M, T) along y (rows). Do not
     *   synchronise: the harness checks. */
}

/* ---------------------------------------------------------------------------------------------
 * 3.3b  Tiled transpose
 */

/* The suggested shape (the tile sizes are yours): a block moves one TRANSPOSE_TILE x
 * TRANSPOSE_TILE tile with TRANSPOSE_TILE x TRANSPOSE_BLOCK_ROWS threads, each copying
 * TRANSPOSE_TILE / TRANSPOSE_BLOCK_ROWS elements, 4 here (Harris: fewer, busier threads amortise
 * the index arithmetic). TRANSPOSE_BLOCK_ROWS must divide TRANSPOSE_TILE. One element per thread
 * (32 x 32 threads) measured no faster than an unpadded tile on the H200: 42-43 % of the
 * copy, below the performance ramp's zero of 45 (handout 3.3, "What is graded"). With blockIdx.y
 * over tiles of rows of `in`, a tile of fewer than 32 rows cannot reach lab.h's
 * TRANSPOSE_MAX_ROWS = 65535 x 32 (65535 blocks along y at most): loop over rows (grid-stride
 * in y) or put rows on blockIdx.x. */
#define TRANSPOSE_TILE 32
#define TRANSPOSE_BLOCK_ROWS 8

/* out = in^T.  in: (rows, cols) row-major, out: (cols, rows) row-major.
 * Thread mapping: block (bx, by) moves the tile of `in` at rows [by*T, by*T + T), columns
 * [bx*T, bx*T + T), which is the tile of `out` at rows [bx*T, bx*T + T), columns
 * [by*T, by*T + T). */
__global__ void transpose_tiled_kernel(const float *in, float *out, int rows, int cols) {
    /* TODO(3.3b): stage one TRANSPOSE_TILE x TRANSPOSE_TILE tile of `in` in a __shared__ array,
     *   __syncthreads(), then write it to `out` transposed. The block is TRANSPOSE_TILE x
     *   TRANSPOSE_BLOCK_ROWS threads, so each thread copies TILE / BLOCK_ROWS elements per phase.
     *   Fast: consecutive threadIdx.x read a row of `in` and write a row of `out` (both
     *   coalesced); the transposition happens in shared memory, where the tile is read by
     *   column — pad it to [TILE][TILE + 1] (or swizzle it: handout 3.3, section 3) so the
     *   32 words of a column sit in 32 banks.
     *   Right: any rows x cols — check bounds on the read AND on the write; they differ,
     *   because `out` is (cols, rows). */
}

void transpose_tiled(const float *d_in, float *d_out, int rows, int cols) {
    /* TODO(3.3b): launch transpose_tiled_kernel with TRANSPOSE_TILE x TRANSPOSE_BLOCK_ROWS
     *   threads per block and one block per tile of `in`: CEIL_DIV(cols, TILE) along x,
     *   CEIL_DIV(rows, TILE) along y. */
}

/* ---------------------------------------------------------------------------------------------
 * 3.3c  Tiled 2D convolution (correlation) with a halo
 */

/* The suggested shape (the tile sizes are yours): a block computes a CONV_TILE_Y x CONV_TILE_X
 * tile of `out` with one thread per output. 32 wide so that a warp is one row of the tile: its
 * global loads and stores are whole 128-byte lines and its shared-memory reads are 32
 * consecutive words (no bank conflicts). */
#define CONV_TILE_X 32
#define CONV_TILE_Y 8
/* The shared input tile is sized for the largest radius (lab.h: CONV2D_MAX_R = 4):
 * (8 + 8) x (32 + 8) floats = 2.5 KB; a smaller R uses its top-left (T_Y + 2R) x (T_X + 2R)
 * corner. */
#define CONV_SMEM_Y (CONV_TILE_Y + 2 * CONV2D_MAX_R)
#define CONV_SMEM_X (CONV_TILE_X + 2 * CONV2D_MAX_R)
#define CONV_MAX_TAPS ((2 * CONV2D_MAX_R + 1) * (2 * CONV2D_MAX_R + 1))

/* out(y, x) = sum_{dy, dx in [-R, R]} filter[(dy + R)(2R + 1) + dx + R] * in(y + dy, x + dx),
 * zero outside the image (lab.h).  in, out: (height, width) row-major; filter: (2R+1, 2R+1).
 * Thread mapping (suggested shape): block (bx, by) computes out rows [by*T_Y, by*T_Y + T_Y),
 * columns [bx*T_X, bx*T_X + T_X); thread (tx, ty) computes out(by*T_Y + ty, bx*T_X + tx). */
__global__ void conv2d_tiled_kernel(const float *in, float *out, int width, int height,
                                    const float *filter, int R) {
    /* TODO(3.3c): an output tile of CONV_TILE_Y x CONV_TILE_X needs the inputs under it plus a
     *   halo of R on every side: (T_Y + 2R) x (T_X + 2R) values, more than there are threads.
     *   Load them cooperatively into a __shared__ tile (a loop: thread t of the block's
     *   nt = blockDim.x * blockDim.y loads elements t, t + nt, ...), __syncthreads(), then
     *   compute each output from shared memory.
     *   Fast: each input is read from global memory about once per block instead of (2R+1)^2
     *   times; consecutive threads load consecutive addresses of a row (coalesced).
     *   Right: the halo reaches outside the image — store 0 there without ever forming the
     *   out-of-range address; the last tiles of a row or column are partial: guard the store
     *   (never the barrier). */
}

void conv2d_tiled(const float *d_in, float *d_out, int width, int height, const float *d_filter,
                  int R) {
    /* TODO(3.3c): launch conv2d_tiled_kernel with CONV_TILE_X x CONV_TILE_Y threads per block
     *   and one block per output tile: CEIL_DIV(width, CONV_TILE_X) along x, CEIL_DIV(height,
     *   CONV_TILE_Y) along y. The shared tile above is sized for R <= CONV2D_MAX_R. */
}

/* ---------------------------------------------------------------------------------------------
 * 3.3d  SGEMM (stretch): register and warp tiling
 */

/* The suggested shape (the sizes are yours): a block of SGEMM_THREADS = 256 threads computes a
 * SGEMM_BM x SGEMM_BN = 128 x 128 tile of C, stepping along K by SGEMM_BK = 16. Each of its 8
 * warps owns a SGEMM_WM x SGEMM_WN = 64 x 32 part of that tile, and each thread 64 elements of
 * C held in registers (an 8 x 8 block, or 2 x 2 blocks of 4 x 4 spread over the warp's part).
 * Per step of k a thread then reads 8 values of A and 8 of B from shared memory for 64 FMAs,
 * where matmul_tiled reads 2 for 1: shared memory stops being the limit. */
#define SGEMM_BM 128
#define SGEMM_BN 128
#define SGEMM_BK 16
#define SGEMM_WM 64
#define SGEMM_WN 32
#define SGEMM_THREADS 256

/* C = A B.  A: (M, K) row-major, B: (K, N) row-major, C: (M, N) row-major (lab.h).
 * Thread mapping (suggested shape): block (bx, by) computes the tile of C at rows
 * [by*BM, by*BM + BM), columns [bx*BN, bx*BN + BN); warp w of the block its 64 x 32 part at rows
 * 64 (w / 4), columns 32 (w % 4) of the tile. */
__global__ void __launch_bounds__(SGEMM_THREADS, 2)
    sgemm_kernel(const float *A, const float *B, float *C, int M, int N, int K) {
    /* TODO(3.3d): the tiling of 3.3a twice over. Stage a BM x BK tile of A and a BK x BN tile
     *   of B in shared memory per step of K, as there; then let each thread accumulate its 8 x 8
     *   outputs in registers (float acc[8][8], indices known at compile time once the loops are
     *   unrolled, so no local memory): for each k of the tile, copy its 8 values of A and 8 of B
     *   from shared memory into registers and do the 64 FMAs.
     *   Fast, step by step (the handout's table, "How far from the roof"): registers first; then
     *   A transposed in shared memory (As[k][m], written by 4 scalar stores per float4 read from
     *   A; pad its rows by a multiple of 4 floats so they stay 16-byte aligned) and float4
     *   loads, so a thread's 8 values are 2 LDS.128; then warp tiling (the 32 lanes of a warp
     *   cover a compact 64 x 32 part of the tile, e.g. lane / 4 along M and lane % 4 along N,
     *   each lane with 2 x 2 blocks of 4 x 4 outputs 32 rows and 16 columns apart:
     *   conflict-free, broadcast shared loads); then double buffering (two shared buffers: the
     *   first step's tiles stored before the loop, then a barrier; in the loop, load the next
     *   step's tiles from global memory into registers, compute on this buffer, store them into
     *   the other, one __syncthreads(): it also keeps the next store off the buffer still being
     *   read, since that buffer was last read before it).
     *   Right: any M, N, K: zero-fill loads outside A and B, guard the stores of C, and use
     *   float4 global accesses only where the address is 16-byte aligned (lab.h); every thread
     *   reaches every barrier; no local memory (LDL/STL: watch the registers, e.g. with
     *   __launch_bounds__ and nvcc -Xptxas -v). */
}

void sgemm(const float *d_A, const float *d_B, float *d_C, int M, int N, int K) {
    /* TODO(3.3d): launch sgemm_kernel with SGEMM_THREADS threads per block and one block per
     *   SGEMM_BM x SGEMM_BN tile of C, partial tiles included: CEIL_DIV(N, SGEMM_BN) along x,
     *   CEIL_DIV(M, SGEMM_BM) along y. Do not synchronise. */
}

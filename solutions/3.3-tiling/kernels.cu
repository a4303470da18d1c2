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
    // BEGIN SOLUTION
    __shared__ float tile_a[MATMUL_TILE][MATMUL_TILE]; // (T rows of A, T values of k)
    __shared__ float tile_b[MATMUL_TILE][MATMUL_TILE]; // (T values of k, T columns of B)

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = (int)blockIdx.y * MATMUL_TILE + ty; // row of A and of C
    const int col = (int)blockIdx.x * MATMUL_TILE + tx; // column of B and of C

    float acc = 0.0f;
    const int n_tiles = (K + MATMUL_TILE - 1) / MATMUL_TILE; // the last tile holds the K tail
    for (int t = 0; t < n_tiles; ++t) {
        const int k_a = t * MATMUL_TILE + tx; // column of A this thread loads
        const int k_b = t * MATMUL_TILE + ty; // row of B this thread loads
        /* Zero outside A or B: a 0 adds nothing to the dot product, so the edge tiles of C and
         * the K tail are computed by the same code as full tiles. */
        tile_a[ty][tx] = (row < M && k_a < K) ? A[(size_t)row * K + k_a] : 0.0f;
        tile_b[ty][tx] = (k_b < K && col < N) ? B[(size_t)k_b * N + col] : 0.0f;
        __syncthreads(); // read-after-write: both tiles are complete before any thread reads them

        for (int k = 0; k < MATMUL_TILE; ++k) {
            /* A warp is one ty (blockDim.x = 32): tile_a[ty][k] is one word for the whole warp
             * (a broadcast) and tile_b[k][tx] is 32 consecutive words in 32 banks: no bank
             * conflicts. */
            acc += tile_a[ty][k] * tile_b[k][tx];
        }
        __syncthreads(); // write-after-read: all threads are done with these tiles before the
                         // next step's loads overwrite them
    }
    if (row < M && col < N) {
        C[(size_t)row * N + col] = acc;
    }
    // END SOLUTION
}

void matmul_tiled(const float *d_A, const float *d_B, float *d_C, int M, int N, int K) {
    /* TODO(3.3a): launch matmul_tiled_kernel with MATMUL_TILE x MATMUL_TILE threads per block
     *   (or your own mapping's block) and enough blocks to cover all of C, including partial
     *   tiles: CEIL_DIV(N, T) along x (columns) and CEIL_DIV(M, T) along y (rows). Do not
     *   synchronise: the harness checks. */
    // BEGIN SOLUTION
    const dim3 block(MATMUL_TILE, MATMUL_TILE);
    const dim3 grid(CEIL_DIV(N, MATMUL_TILE), CEIL_DIV(M, MATMUL_TILE));
    matmul_tiled_kernel<<<grid, block>>>(d_A, d_B, d_C, M, N, K);
    // END SOLUTION
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
// BEGIN SOLUTION

/* The reference goes one step further than the suggested shape: a 64 x 64 tile moved by the same
 * 32 x 8 threads, 2 x 8 = 16 elements per thread. Each thread has 16 independent loads in flight
 * before the barrier instead of 4, and a block's barrier and index arithmetic serve 4x the bytes.
 * Measured on one H200 at 8192^2 (docs/facts.md, 2026-12-01, one run, % of a float4 copy kernel
 * of the same bytes, 4040 GB/s): [32][33] tile, 4 elements per thread, 90.1 %; [64][65] tile,
 * 16 elements per thread, 97.9 %. This kernel (bench/roof/lab33_variants.cu, H200, 2026-12-01):
 * 3936 GB/s, 100.5 % of the float4 copy kernel, 94.4 % of cudaMemcpy D2D; in the same run
 * [32][33] 90.5 %, [32][32] 44.5 %, naive 13.8 % (bench/h200-2026-12-01-roof/bench.log, the
 * first of the three runs whose medians handout 3.3's table quotes: bench/roof/README.md).
 * Shared memory 64 x 65 x 4 B = 16.25 KB per block.
 */
#define TRANSPOSE_REF_TILE 64      // tile edge, in elements
#define TRANSPOSE_REF_THREADS_X 32 // one warp along a row of the tile
#define TRANSPOSE_REF_THREADS_Y 8  // 16 = (64 / 32) x (64 / 8) elements per thread
// END SOLUTION

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
    // BEGIN SOLUTION
    constexpr int T = TRANSPOSE_REF_TILE;           // 64
    constexpr int STEP_X = TRANSPOSE_REF_THREADS_X; // 32
    constexpr int STEP_Y = TRANSPOSE_REF_THREADS_Y; // 8
    /* One column of padding: element [i][j] is word 65 i + j, in bank (i + j) mod 32 (65 = 2 x 32
     * + 1), so a warp's row store (i fixed, j = tx + ...) and its column load (i = tx + ..., j
     * fixed) both hit 32 different banks. With [T][T] the 32 words of a column share one bank: a
     * 32-way conflict (H200, 8192^2, T = 32, 32 x 8 threads: 1735 GB/s unpadded, 3515 GB/s
     * padded, the median of three runs, bench/roof/README.md, as handout 3.3 quotes them;
     * docs/facts.md's 1627 and 3614 are an earlier single run). */
    __shared__ float tile[T][T + 1];

    const int tx = threadIdx.x;               // 0 .. 31
    const int ty = threadIdx.y;               // 0 .. 7
    const int tile_row = (int)blockIdx.y * T; // first row of `in` in the tile
    const int tile_col = (int)blockIdx.x * T; // first column of `in` in the tile

    /* Read phase: threadIdx.x along a row of `in` (a warp reads 128 contiguous bytes). The
     * coordinates are clamped into `in`: every address is inside it, so no load needs a predicate
     * and the 16 loads go out together (CUDA 13.0, sm_90 SASS: 16 LDG before the barrier, at most
     * one STS among them). Guarding each load instead, the draft of this kernel compiled to
     * batches of 4-7 loads, one per free predicate register, each batch waiting for the one before
     * it: 99.6 % of copy against this kernel's 100.5 % (bench variant "[64][65] tile, 32x8
     * threads, loads guarded"): small, since 8 blocks per SM hide most of it. In a
     * partial tile the clamped loads fill cells with copies of edge elements; the write phase
     * never reads those cells. */
    float v[T / STEP_Y][T / STEP_X]; // registers: indices are constants once the loops unroll
#pragma unroll
    for (int j = 0; j < T; j += STEP_Y) {
        const int in_row = min(tile_row + ty + j, rows - 1);
#pragma unroll
        for (int i = 0; i < T; i += STEP_X) {
            v[j / STEP_Y][i / STEP_X] =
                in[(size_t)in_row * cols + min(tile_col + tx + i, cols - 1)];
        }
    }
#pragma unroll
    for (int j = 0; j < T; j += STEP_Y) {
#pragma unroll
        for (int i = 0; i < T; i += STEP_X) {
            tile[ty + j][tx + i] = v[j / STEP_Y][i / STEP_X];
        }
    }
    __syncthreads(); // read-after-write: each thread now writes elements that OTHER threads loaded

    /* Write phase: threadIdx.x along a row of `out`, i.e. down a column of the tile. Element
     * tile[a][b] holds in(tile_row + a, tile_col + b) = out(tile_col + b, tile_row + a) whenever
     * both lie inside `in`. The write's bounds check is the read's with the roles swapped, so it
     * never writes a clamped copy. */
#pragma unroll
    for (int j = 0; j < T; j += STEP_Y) {
        const int out_row = tile_col + ty + j; // = a column of `in`
#pragma unroll
        for (int i = 0; i < T; i += STEP_X) {
            const int out_col = tile_row + tx + i; // = a row of `in`
            if (out_row < cols && out_col < rows) {
                out[(size_t)out_row * rows + out_col] = tile[tx + i][ty + j];
            }
        }
    }
    // END SOLUTION
}

void transpose_tiled(const float *d_in, float *d_out, int rows, int cols) {
    /* TODO(3.3b): launch transpose_tiled_kernel with TRANSPOSE_TILE x TRANSPOSE_BLOCK_ROWS
     *   threads per block and one block per tile of `in`: CEIL_DIV(cols, TILE) along x,
     *   CEIL_DIV(rows, TILE) along y. */
    // BEGIN SOLUTION
    /* One block per 64 x 64 tile; grid y limits rows to 65535 x 64. */
    const dim3 block(TRANSPOSE_REF_THREADS_X, TRANSPOSE_REF_THREADS_Y);
    const dim3 grid(CEIL_DIV(cols, TRANSPOSE_REF_TILE), CEIL_DIV(rows, TRANSPOSE_REF_TILE));
    transpose_tiled_kernel<<<grid, block>>>(d_in, d_out, rows, cols);
    // END SOLUTION
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
// BEGIN SOLUTION

/* The reference goes further than the suggested shape. At 8192^2, R = 3 on one H200
 * (bench/roof/lab33_variants.cu, 2026-12-01, 3 runs; GB/s counts the input read and the output
 * written once): naive 356 GB/s; the suggested 32 x 8 tile, taps in shared memory, one output
 * per thread 400 GB/s (1.12x: one output per thread issues two shared loads, an input and a
 * tap, per FMA: the issue rate, not L1, is its limit); the same with the taps in __constant__
 * 456 GB/s (docs/facts.md gives 751 GB/s for its own version of that step: not reproduced by
 * this one, unexplained). This kernel: 2337 GB/s (2329-2349), 28.6 TFLOP/s, 6.6x naive, 60 %
 * of the float4 copy kernel (docs/facts.md: 2317 GB/s for the same design).
 *
 * - Output tile 64 x 64, block 8 x 32 = 256 threads, each computing 2 rows x 8 columns: Kirk &
 *   Hwu ch. 7's tiling taken one level further, into registers (as siboehm's SGEMM kernels 4-5
 *   do for matmul). An input row read from the tile into 16 registers serves 8 outputs x
 *   (2R + 1) taps for up to 2 output rows: at R = 3 a thread issues 32 window and 14 tap loads
 *   (LDS.128; CUDA 13.0 SASS) for 784 FMAs, where one output per thread issues 2 loads per FMA.
 *   Threads tx and tx + 4 of a warp read the same banks (16-byte words 128 bytes apart): a 2-way
 *   conflict on the window loads, 8 wavefronts per LDS.128 instead of 4 (from the addresses; not
 *   profiled). 4 x 4 outputs per thread avoid it (bench variant "64x64, 4x4, float4 loads, taps
 *   shared"): 2524 GB/s, +7 %; with the taps in __constant__ as well, 2998 GB/s (77 % of copy).
 * - The input tile spans the output tile's columns with a halo of 4 = CONV2D_MAX_R on each side,
 *   whatever R: 72 columns from out_x - 4. With width % 4 == 0 every tile row then starts on a
 *   16-byte boundary of the image and each float4 lies wholly inside or wholly outside it: float4
 *   global loads (LDG.128). In shared memory rows are always 16-byte aligned (72 floats): float4
 *   loads (LDS.128) of a thread's 16-float window at column 8 tx. The rows span the output rows
 *   with a halo of R: (64 + 2R) x 72 floats used of 72 x 72, 20.25 KB. Without float4 (scalar
 *   global loads, rows not 16-byte aligned): 1311 GB/s, so float4 is worth 1.79x here (bench
 *   variant "64x64 tile, 2x8 out/thread, scalar loads").
 * - The taps live in shared memory (the lab's space; lab 3.4 teaches __constant__), one row per
 *   dy padded to 12 floats so that a row is 1-3 float4 loads of one address for the whole warp
 *   (a broadcast), each serving up to 4 taps x 8 outputs: at R = 3, 14 of the 46 shared loads.
 *   Taps in __constant__ would remove those (ptxas keeps them in uniform registers) at the price
 *   of a copy into __constant__ before every launch: 2636 GB/s, +12 % (bench variant "64x64,
 *   2x8, float4 loads, taps __constant__").
 * - R is a template parameter of the computing step (a switch on R picks one of 5 copies): its
 *   loops unroll completely, so the window w[] and the sums acc[][] are registers. With a run-time
 *   R their indices would be run-time values and the arrays would go to local memory (LDL/STL).
 *   CUDA 13.0, sm_90: 64 registers (5 paths in one kernel; R = 3 alone compiles to 48), no stack,
 *   21168 B of shared memory per block: 4 blocks (32 warps) per SM, 5 for R = 3 alone. Effect:
 *   2512 GB/s, +7 % (bench variant "64x64, 2x8, float4, taps shared, R=3 only (5 blk)"). */
#define CONV_REF_OUT_X 64                                    // output tile: columns
#define CONV_REF_OUT_Y 64                                    // output tile: rows
#define CONV_REF_PER_X 8                                     // outputs per thread along a row
#define CONV_REF_PER_Y 2                                     // outputs per thread along a column
#define CONV_REF_THREADS_X (CONV_REF_OUT_X / CONV_REF_PER_X) // 8
#define CONV_REF_THREADS_Y (CONV_REF_OUT_Y / CONV_REF_PER_Y) // 32
#define CONV_REF_THREADS (CONV_REF_THREADS_X * CONV_REF_THREADS_Y) // 256
#define CONV_REF_HALO_X 4 // = CONV2D_MAX_R, a multiple of 4: tile rows stay 16-byte aligned
#define CONV_REF_SMEM_X (CONV_REF_OUT_X + 2 * CONV_REF_HALO_X) // 72 floats = 18 float4
#define CONV_REF_SMEM_Y (CONV_REF_OUT_Y + 2 * CONV2D_MAX_R)    // 72 rows, 64 + 2R used
#define CONV_REF_WINDOW 16  // floats a thread reads per input row: 8 + 2 x 4, 4 float4
#define CONV_REF_TAPS_LD 12 // floats per row of taps: 2R + 1 <= 9, rounded up to a float4

static_assert(CONV_REF_HALO_X == CONV2D_MAX_R && CONV_REF_HALO_X % 4 == 0,
              "the input tile's columns must start 16-byte aligned and cover any R");
static_assert((2 * CONV2D_MAX_R + 1) * CONV_REF_TAPS_LD <= CONV_REF_THREADS,
              "one pass of the block loads the taps");

/* Stages image rows [y0, y0 + n_rows), columns [x0, x0 + CONV_REF_SMEM_X) into tile, 0 outside
 * the image (the definition's zero padding); an address is formed only inside the image.
 * vec: width % 4 == 0 and `in` 16-byte aligned, so with x0 % 4 == 0 each float4 of a row is
 * aligned and wholly inside or wholly outside the image. Otherwise (a row pitch that is no
 * multiple of 16 bytes: the image's rows start misaligned) scalar loads. */
static __device__ __forceinline__ void conv2d_ref_load_tile(const float *in,
                                                            float (*tile)[CONV_REF_SMEM_X],
                                                            int width, int height, int x0, int y0,
                                                            int n_rows, bool vec) {
    const int tid = (int)threadIdx.y * CONV_REF_THREADS_X + (int)threadIdx.x;
    if (vec) {
        /* Consecutive tid load consecutive float4s of a tile row: a warp reads 512 contiguous
         * bytes. The (at most 6) loads of a thread all go out before its first store to shared
         * memory: they are in flight together. */
        const int per_row = CONV_REF_SMEM_X / 4; // 18 float4 per tile row
        const int n_vec = n_rows * per_row;
        const int n_steps = (CONV_REF_SMEM_Y * (CONV_REF_SMEM_X / 4) + CONV_REF_THREADS - 1) /
                            CONV_REF_THREADS; // 6: covers the largest R
        float4 v[n_steps];
#pragma unroll
        for (int s = 0; s < n_steps; ++s) {
            const int c = tid + s * CONV_REF_THREADS; // float4 number in the tile
            const int sy = c / per_row;
            const int gy = y0 + sy;
            const int gx = x0 + 4 * (c - sy * per_row);
            v[s] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (c < n_vec && gy >= 0 && gy < height && gx >= 0 && gx < width) {
                v[s] = *reinterpret_cast<const float4 *>(in + (size_t)gy * width + gx);
            }
        }
        float4 *tile4 = reinterpret_cast<float4 *>(&tile[0][0]); // a row is exactly 18 float4
#pragma unroll
        for (int s = 0; s < n_steps; ++s) {
            const int c = tid + s * CONV_REF_THREADS;
            if (c < n_vec) {
                tile4[c] = v[s];
            }
        }
    } else {
        /* Scalar: consecutive tid load consecutive floats of a tile row (coalesced). */
        const int n = n_rows * CONV_REF_SMEM_X;
#pragma unroll 4
        for (int i = tid; i < n; i += CONV_REF_THREADS) {
            const int sy = i / CONV_REF_SMEM_X;
            const int sx = i - sy * CONV_REF_SMEM_X;
            const int gy = y0 + sy;
            const int gx = x0 + sx;
            const bool inside = gy >= 0 && gy < height && gx >= 0 && gx < width;
            tile[sy][sx] = inside ? in[(size_t)gy * width + gx] : 0.0f;
        }
    }
}

/* One thread's 2 x 8 outputs: out rows oy0, oy0 + 1, columns [ox0, ox0 + 8), from the tile (its
 * row 2 ty + i is image row oy0 - R + i; its column 8 tx + k is image column ox0 - 4 + k) and the
 * taps. vec: as for the loads (out 16-byte aligned too), so the 8 outputs of a row are two aligned
 * float4s, each wholly inside or wholly outside the image. */
template <int R>
static __device__ __forceinline__ void
conv2d_ref_outputs(const float (*tile)[CONV_REF_SMEM_X], const float (*taps)[CONV_REF_TAPS_LD],
                   float *out, int width, int height, int ox0, int oy0, bool vec) {
    constexpr int diam = 2 * R + 1;
    constexpr int tap_vecs = (diam + 3) / 4; // float4s per row of taps
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

    float acc[CONV_REF_PER_Y][CONV_REF_PER_X] = {};
#pragma unroll
    for (int i = 0; i < CONV_REF_PER_Y + 2 * R; ++i) { // the thread's input rows
        /* The window: tile columns 8 tx + [0, 16); output column j with tap dx reads
         * w[j + dx + 4 - R], so only the float4s holding [4 - R, 12 + R) are loaded. */
        float w[CONV_REF_WINDOW];
        const float4 *row = reinterpret_cast<const float4 *>(&tile[CONV_REF_PER_Y * ty + i][0]);
#pragma unroll
        for (int q = 0; q < CONV_REF_WINDOW / 4; ++q) {
            if (4 * q + 3 >= CONV_REF_HALO_X - R && 4 * q < CONV_REF_HALO_X + CONV_REF_PER_X + R) {
                const float4 f = row[2 * tx + q]; // tile column 8 tx + 4 q
                w[4 * q + 0] = f.x;
                w[4 * q + 1] = f.y;
                w[4 * q + 2] = f.z;
                w[4 * q + 3] = f.w;
            }
        }
#pragma unroll
        for (int r = 0; r < CONV_REF_PER_Y; ++r) {
            const int dy = i - r; // output row oy0 + r uses input row i with tap row dy
            if (dy >= 0 && dy < diam) {
                float t[4 * tap_vecs];
#pragma unroll
                for (int p = 0; p < tap_vecs; ++p) {
                    const float4 f = reinterpret_cast<const float4 *>(taps[dy])[p]; // broadcast
                    t[4 * p + 0] = f.x;
                    t[4 * p + 1] = f.y;
                    t[4 * p + 2] = f.z;
                    t[4 * p + 3] = f.w;
                }
#pragma unroll
                for (int dx = 0; dx < diam; ++dx) {
#pragma unroll
                    for (int j = 0; j < CONV_REF_PER_X; ++j) {
                        acc[r][j] = fmaf(t[dx], w[j + dx + CONV_REF_HALO_X - R], acc[r][j]);
                    }
                }
            }
        }
    }

    /* Guarded stores: the last tiles of a row or column are partial. */
#pragma unroll
    for (int r = 0; r < CONV_REF_PER_Y; ++r) {
        const int oy = oy0 + r;
        if (oy < height) {
            float *dst = out + (size_t)oy * width;
            if (vec) {
#pragma unroll
                for (int h = 0; h < CONV_REF_PER_X; h += 4) {
                    if (ox0 + h < width) { // then ox0 + h + 3 < width too: width % 4 == 0
                        *reinterpret_cast<float4 *>(dst + ox0 + h) =
                            make_float4(acc[r][h], acc[r][h + 1], acc[r][h + 2], acc[r][h + 3]);
                    }
                }
            } else {
#pragma unroll
                for (int j = 0; j < CONV_REF_PER_X; ++j) {
                    if (ox0 + j < width) {
                        dst[ox0 + j] = acc[r][j];
                    }
                }
            }
        }
    }
}
// END SOLUTION

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
    // BEGIN SOLUTION
    /* The reference's mapping: block (bx, by) computes out rows [64 by, 64 by + 64), columns
     * [64 bx, 64 bx + 64); thread (tx, ty) of the 8 x 32 block computes rows 64 by + 2 ty + {0, 1},
     * columns 64 bx + 8 tx + [0, 8). */
    __shared__ __align__(16) float tile[CONV_REF_SMEM_Y][CONV_REF_SMEM_X]; // (64 + 2R, 72) used
    __shared__ __align__(16) float taps[2 * CONV2D_MAX_R + 1][CONV_REF_TAPS_LD]; // (2R + 1, 2R + 1)

    const int out_x = (int)blockIdx.x * CONV_REF_OUT_X; // first output column of the tile
    const int out_y = (int)blockIdx.y * CONV_REF_OUT_Y; // first output row of the tile
    /* float4 paths only where every float4 address is provably 16-byte aligned; the same for the
     * whole grid, so no warp diverges on it. */
    const bool vec = width % 4 == 0 && ((size_t)in % 16) == 0 && ((size_t)out % 16) == 0;

    /* Tile row sy = image row out_y - R + sy; tile column sx = image column out_x - 4 + sx. */
    conv2d_ref_load_tile(in, tile, width, height, out_x - CONV_REF_HALO_X, out_y - R,
                         CONV_REF_OUT_Y + 2 * R, vec);
    /* The taps, zero-padded to 12 per row (the padding is loaded with a float4, never used). */
    const int diam = 2 * R + 1;
    const int tid = (int)threadIdx.y * CONV_REF_THREADS_X + (int)threadIdx.x;
    if (tid < (2 * CONV2D_MAX_R + 1) * CONV_REF_TAPS_LD) {
        const int tap_y = tid / CONV_REF_TAPS_LD;
        const int tap_x = tid - tap_y * CONV_REF_TAPS_LD;
        taps[tap_y][tap_x] = (tap_y < diam && tap_x < diam) ? filter[tap_y * diam + tap_x] : 0.0f;
    }
    __syncthreads(); // read-after-write: outputs read halo cells and taps loaded by other threads

    const int ox0 = out_x + CONV_REF_PER_X * (int)threadIdx.x;
    const int oy0 = out_y + CONV_REF_PER_Y * (int)threadIdx.y;
    switch (R) { // the same R for the whole grid: no divergence
    case 0:
        conv2d_ref_outputs<0>(tile, taps, out, width, height, ox0, oy0, vec);
        break;
    case 1:
        conv2d_ref_outputs<1>(tile, taps, out, width, height, ox0, oy0, vec);
        break;
    case 2:
        conv2d_ref_outputs<2>(tile, taps, out, width, height, ox0, oy0, vec);
        break;
    case 3:
        conv2d_ref_outputs<3>(tile, taps, out, width, height, ox0, oy0, vec);
        break;
    case 4:
        conv2d_ref_outputs<4>(tile, taps, out, width, height, ox0, oy0, vec);
        break;
    default:
        break; // outside lab.h's precondition: the launcher launches nothing
    }
    // END SOLUTION
}

void conv2d_tiled(const float *d_in, float *d_out, int width, int height, const float *d_filter,
                  int R) {
    /* TODO(3.3c): launch conv2d_tiled_kernel with CONV_TILE_X x CONV_TILE_Y threads per block
     *   and one block per output tile: CEIL_DIV(width, CONV_TILE_X) along x, CEIL_DIV(height,
     *   CONV_TILE_Y) along y. The shared tile above is sized for R <= CONV2D_MAX_R. */
    // BEGIN SOLUTION
    if (R < 0 || R > CONV2D_MAX_R) {
        return; // outside lab.h's precondition (the harness never asks): launch nothing
    }
    /* One block of 8 x 32 threads per 64 x 64 output tile; grid y limits height to 65535 x 64. */
    const dim3 block(CONV_REF_THREADS_X, CONV_REF_THREADS_Y);
    const dim3 grid(CEIL_DIV(width, CONV_REF_OUT_X), CEIL_DIV(height, CONV_REF_OUT_Y));
    conv2d_tiled_kernel<<<grid, block>>>(d_in, d_out, width, height, d_filter, R);
    // END SOLUTION
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
// BEGIN SOLUTION

/* The reference, choice by choice. Figures: bench/roof/lab33_sgemm.cu on the H200, 4096^3, one
 * run (bench/h200-2026-12-02-session7/g26a: cuBLAS SGEMM strict FP32 49.9 TFLOP/s in the same
 * process); the judged figure (the grader's run) is not measured yet.
 * - Register blocking: each thread accumulates 8 x 8 outputs in registers (acc below). Per k it
 *   loads 8 + 8 values from shared memory, as 4 LDS.128, for 64 FMAs: a sixteenth of a shared
 *   load per FMA, where the 32 x 32 tile of 3.3a issues one per FMA. Effect on the H200: 8.7
 *   TFLOP/s (32 x 32 tile, 17.4 % of cuBLAS) -> 16.8 (1D, 8 outputs per thread, 33.8 %) -> 36.4
 *   (2D block tiling 128 x 128 x 8, 8 x 8 per thread, A transposed, float4: 73.0 %).
 * - A transposed in shared memory, As[k][m]: the 4 values of A a thread needs for one k are
 *   consecutive, one LDS.128 instead of 4 LDS.32 (a warp reads 8 distinct float4, 128 bytes,
 *   broadcast to the 4 lanes that share them: one wavefront). The transpose happens on the
 *   store into shared memory (4 STS.32 per float4 loaded from A), once per element per block.
 * - Rows of As padded from 128 to 132 floats: a warp's transposed store then hits each bank at
 *   most twice (unpadded: 4 times); 132 keeps every row 16-byte aligned for the LDS.128 (a pad
 *   of 2 would make the store conflict-free but the rows misaligned). From the addresses; not
 *   profiled.
 * - Warp tiling: lanes are arranged 8 (along M) x 4 (along N) over a 32 x 16 sub-tile, and a
 *   thread's outputs are 2 x 2 such sub-tiles, 32 rows and 16 columns apart, covering the
 *   warp's 64 x 32 part. So each LDS.128 of a warp touches 128 bytes of A (8 lanes apart) or 64
 *   bytes of B (4 apart): no bank conflicts, and the warp's part of the block tile is compact,
 *   so its lanes share the shared-memory lines they read. Effect (128 x 128 x 16 warp tiling, one
 *   buffer, against 2D block tiling): 36.4 -> 38.8 TFLOP/s, 77.8 % of cuBLAS.
 * - Double buffering, register-staged: two shared buffers. While the block computes from one,
 *   each thread's global loads of the next step (2 float4 of A, 2 of B) are already in flight
 *   into registers; after the FMAs it stores them into the other buffer. One barrier per step
 *   instead of two, and the load latency hides behind 16 x 64 FMAs. Effect: 38.8 -> 40.4
 *   TFLOP/s, 81.0 % of cuBLAS (3.40 ms; 128 registers, 2 blocks per SM). cp.async (LDGSTS)
 *   would skip the registers but cannot transpose A on the way.
 * - float4 global loads (LDG.128) of A and B and float4 stores of C where the rows are 16-byte
 *   aligned (K % 4 == 0 for A, N % 4 == 0 for B and C, and aligned pointers); scalar otherwise,
 *   so that any M, N, K works. Loads outside A or B fill 0 (they add nothing to the sums), so
 *   edge tiles and the K tail run the same code; the stores are guarded.
 * - __launch_bounds__(256, 2): at most 128 registers per thread, so 2 blocks (16 warps) share
 *   an SM; 64 accumulators + 16 operands + 16 staged values fit without spilling (CUDA 13.0,
 *   sm_90: see the bench's registers column). Shared memory 2 x (16 x 132 + 16 x 128) x 4 B =
 *   33 KB per block. */
#define SGEMM_A_LD (SGEMM_BM + 4)             // floats per k-row of the transposed A tile
#define SGEMM_WARPS_N (SGEMM_BN / SGEMM_WN)   // 4 warps across the block tile
#define SGEMM_LANES_M 8                       // a warp's lanes: 8 along M ...
#define SGEMM_LANES_N 4                       // ... x 4 along N
#define SGEMM_SUB_M (SGEMM_LANES_M * 4)       // 32: rows of a sub-tile (4 per lane)
#define SGEMM_SUB_N (SGEMM_LANES_N * 4)       // 16: columns of a sub-tile (4 per lane)
#define SGEMM_ITER_M (SGEMM_WM / SGEMM_SUB_M) // 2 sub-tiles down the warp's part
#define SGEMM_ITER_N (SGEMM_WN / SGEMM_SUB_N) // 2 sub-tiles across it
#define SGEMM_TM (4 * SGEMM_ITER_M)           // 8 rows of C per thread
#define SGEMM_TN (4 * SGEMM_ITER_N)           // 8 columns of C per thread
#define SGEMM_A_VECS (SGEMM_BM * SGEMM_BK / 4 / SGEMM_THREADS) // 2 float4 of A per thread per step
#define SGEMM_B_VECS (SGEMM_BK * SGEMM_BN / 4 / SGEMM_THREADS) // 2 float4 of B per thread per step

static_assert((SGEMM_BM / SGEMM_WM) * SGEMM_WARPS_N * 32 == SGEMM_THREADS, "a warp per part");
static_assert(SGEMM_LANES_M * SGEMM_LANES_N == 32, "the lanes of one warp");
static_assert(SGEMM_A_VECS * SGEMM_THREADS * 4 == SGEMM_BM * SGEMM_BK, "A's tile in whole float4");
static_assert(SGEMM_B_VECS * SGEMM_THREADS * 4 == SGEMM_BK * SGEMM_BN, "B's tile in whole float4");
static_assert(SGEMM_A_LD % 4 == 0, "rows of As 16-byte aligned for LDS.128");

/* Where a thread's global loads of a step start: its float4 number f = t + 256 i of A's tile is
 * row f / 4, columns 4 (f % 4) of it (4 consecutive threads read 64 contiguous bytes of a row),
 * of B's tile row f / 32, columns 4 (f % 32) (a warp reads 512 contiguous bytes). Offsets are
 * int (lab.h: every array has fewer than 2^31 elements) and move by BK columns of A, BK rows of
 * B per step, so the loop keeps only these few registers. */
struct sgemm_loads {
    int a_off[SGEMM_A_VECS]; // A(row, col) of step 0, at row * K + col; the row clamped into A
    bool a_row_ok[SGEMM_A_VECS];
    int a_col; // the first of the thread's 4 columns of A at step 0
    int b_off; // B(row, col) of step 0 for i = 0 (i adds 256 / 32 = 8 rows)
    int b_row; // that row
    int b_col; // the first of its 4 columns of B
};

/* 4 consecutive floats of a row at p, the first in column col of n_cols, 0 from column n_cols
 * on; nothing read when !ok. vec: p is 16-byte aligned and n_cols % 4 == 0 (col % 4 == 0
 * always), so the four lie all inside or all outside the row: one LDG.128. */
static __device__ __forceinline__ float4 sgemm_load4(const float *p, bool ok, int col, int n_cols,
                                                     bool vec) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (ok && vec) {
        if (col < n_cols) {
            v = *reinterpret_cast<const float4 *>(p);
        }
    } else if (ok) {
        v.x = col < n_cols ? p[0] : 0.0f;
        v.y = col + 1 < n_cols ? p[1] : 0.0f;
        v.z = col + 2 < n_cols ? p[2] : 0.0f;
        v.w = col + 3 < n_cols ? p[3] : 0.0f;
    }
    return v;
}

/* Step `step`'s tiles, global -> registers: A rows [m0, m0 + BM) x columns [k0, k0 + BK) and B
 * rows [k0, k0 + BK) x columns [n0, n0 + BN), k0 = step BK; 0 outside A and B. */
static __device__ __forceinline__ void sgemm_load_step(const float *A, const float *B, int N, int K,
                                                       const sgemm_loads &g, int step, bool vec_a,
                                                       bool vec_b, float4 *a, float4 *b) {
    const int k0 = step * SGEMM_BK;
#pragma unroll
    for (int i = 0; i < SGEMM_A_VECS; ++i) {
        a[i] = sgemm_load4(A + g.a_off[i] + k0, g.a_row_ok[i], g.a_col + k0, K, vec_a);
    }
#pragma unroll
    for (int i = 0; i < SGEMM_B_VECS; ++i) {
        const int rows = i * (SGEMM_THREADS / (SGEMM_BN / 4)) + k0; // 8 i + k0 rows further
        b[i] = sgemm_load4(B + g.b_off + (size_t)rows * N, g.b_row + rows < K, g.b_col, N, vec_b);
    }
}

/* Registers -> one shared buffer: A transposed (As[k][m], 4 STS.32 per float4), B as it is
 * (Bs[k][n], one STS.128). */
static __device__ __forceinline__ void
sgemm_store_step(const float4 *a, const float4 *b, float (*As)[SGEMM_A_LD], float (*Bs)[SGEMM_BN]) {
    const int tid = (int)threadIdx.x;
#pragma unroll
    for (int i = 0; i < SGEMM_A_VECS; ++i) {
        const int f = tid + i * SGEMM_THREADS;
        const int m = f / (SGEMM_BK / 4);
        const int k = 4 * (f % (SGEMM_BK / 4));
        As[k + 0][m] = a[i].x;
        As[k + 1][m] = a[i].y;
        As[k + 2][m] = a[i].z;
        As[k + 3][m] = a[i].w;
    }
#pragma unroll
    for (int i = 0; i < SGEMM_B_VECS; ++i) {
        const int f = tid + i * SGEMM_THREADS;
        *reinterpret_cast<float4 *>(&Bs[f / (SGEMM_BN / 4)][4 * (f % (SGEMM_BN / 4))]) = b[i];
    }
}
// END SOLUTION

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
    // BEGIN SOLUTION
    __shared__ __align__(16) float As[2][SGEMM_BK][SGEMM_A_LD]; // A^T: [buffer][k][m]
    __shared__ __align__(16) float Bs[2][SGEMM_BK][SGEMM_BN];   // B:   [buffer][k][n]

    const int m0 = (int)blockIdx.y * SGEMM_BM; // the block's first row of C
    const int n0 = (int)blockIdx.x * SGEMM_BN; // the block's first column of C
    const int warp = (int)threadIdx.x / 32;
    const int lane = (int)threadIdx.x % 32;
    const int wm = (warp / SGEMM_WARPS_N) * SGEMM_WM; // the warp's part: first row in the tile
    const int wn = (warp % SGEMM_WARPS_N) * SGEMM_WN; // ... first column
    const int lm = (lane / SGEMM_LANES_N) * 4;        // the lane's first row in a sub-tile
    const int ln = (lane % SGEMM_LANES_N) * 4;        // ... first column
    /* The same for the whole grid: no warp diverges on them. */
    const bool vec_a = K % 4 == 0 && (size_t)A % 16 == 0;
    const bool vec_bc = N % 4 == 0 && (size_t)B % 16 == 0 && (size_t)C % 16 == 0;

    /* acc[i][j]: C(m0 + wm + (i / 4) 32 + lm + i % 4, n0 + wn + (j / 4) 16 + ln + j % 4). */
    float acc[SGEMM_TM][SGEMM_TN] = {};
    float4 a_next[SGEMM_A_VECS], b_next[SGEMM_B_VECS]; // the next step's tiles, staged

    sgemm_loads g;
    const int tid = (int)threadIdx.x;
#pragma unroll
    for (int i = 0; i < SGEMM_A_VECS; ++i) {
        const int f = tid + i * SGEMM_THREADS;
        const int row = m0 + f / (SGEMM_BK / 4);
        g.a_row_ok[i] = row < M;
        g.a_col = 4 * (f % (SGEMM_BK / 4)); // the same for every i: 256 % 4 == 0
        g.a_off[i] = min(row, M - 1) * K + g.a_col;
    }
    g.b_row = tid / (SGEMM_BN / 4);
    g.b_col = n0 + 4 * (tid % (SGEMM_BN / 4));
    g.b_off = g.b_row * N + g.b_col;

    const int n_steps = (K + SGEMM_BK - 1) / SGEMM_BK; // the last step holds the K tail
    sgemm_load_step(A, B, N, K, g, 0, vec_a, vec_bc, a_next, b_next);
    sgemm_store_step(a_next, b_next, As[0], Bs[0]);
    __syncthreads(); // read-after-write: step 0's tiles are complete
    for (int step = 0; step < n_steps; ++step) {
        const int cur = step & 1;
        const bool more = step + 1 < n_steps;
        if (more) { // issued now, used after the FMAs: the loads' latency hides behind them
            sgemm_load_step(A, B, N, K, g, step + 1, vec_a, vec_bc, a_next, b_next);
        }
        /* Unrolled by 2, not 16: fully unrolled, ptxas (CUDA 13.0, sm_90) keeps the next k's
         * operands in flight as well and runs past the 128 registers of 2 blocks per SM, spilling
         * to local memory (48-60 bytes of stack), which the static check forbids; by 2 it fits
         * in 128 registers with no stack (sm_90 and sm_80). Its cost against full unrolling: to be
         * measured on the H200. */
#pragma unroll 2
        for (int k = 0; k < SGEMM_BK; ++k) {
            float a[SGEMM_TM], b[SGEMM_TN];
#pragma unroll
            for (int s = 0; s < SGEMM_ITER_M; ++s) { // LDS.128: 8 lanes x 16 B, broadcast x 4
                const float4 v =
                    *reinterpret_cast<const float4 *>(&As[cur][k][wm + s * SGEMM_SUB_M + lm]);
                a[4 * s + 0] = v.x;
                a[4 * s + 1] = v.y;
                a[4 * s + 2] = v.z;
                a[4 * s + 3] = v.w;
            }
#pragma unroll
            for (int t = 0; t < SGEMM_ITER_N; ++t) { // LDS.128: 4 lanes x 16 B, broadcast x 8
                const float4 v =
                    *reinterpret_cast<const float4 *>(&Bs[cur][k][wn + t * SGEMM_SUB_N + ln]);
                b[4 * t + 0] = v.x;
                b[4 * t + 1] = v.y;
                b[4 * t + 2] = v.z;
                b[4 * t + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < SGEMM_TM; ++i) {
#pragma unroll
                for (int j = 0; j < SGEMM_TN; ++j) {
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
                }
            }
        }
        if (more) {
            /* The other buffer: its last readers (step - 1's FMAs) passed the barrier at the
             * end of step - 1, so no thread still reads it. */
            sgemm_store_step(a_next, b_next, As[cur ^ 1], Bs[cur ^ 1]);
        }
        /* Read-after-write for the next step's buffer, and write-after-read for this one (the
         * step after next overwrites it): one barrier serves both. */
        __syncthreads();
    }

    /* Guarded stores: the last tiles of a row or column of blocks are partial. */
    const int col0 = n0 + wn + ln; // the thread's first column; the second block is 16 further
#pragma unroll
    for (int i = 0; i < SGEMM_TM; ++i) {
        const int row = m0 + wm + (i / 4) * SGEMM_SUB_M + lm + i % 4;
        float *c_row = C + (size_t)min(row, M - 1) * N + col0; // written only if row < M
#pragma unroll
        for (int t = 0; t < SGEMM_ITER_N; ++t) {
            const int left = row < M ? N - (col0 + t * SGEMM_SUB_N) : 0; // columns of C left
            float *dst = c_row + t * SGEMM_SUB_N;
            if (vec_bc && left >= 4) { // left >= 1 is left >= 4 here: N % 4 == 0
                *reinterpret_cast<float4 *>(dst) = make_float4(
                    acc[i][4 * t], acc[i][4 * t + 1], acc[i][4 * t + 2], acc[i][4 * t + 3]);
            } else {
#pragma unroll
                for (int c = 0; c < 4; ++c) {
                    if (c < left) {
                        dst[c] = acc[i][4 * t + c];
                    }
                }
            }
        }
    }
    // END SOLUTION
}

void sgemm(const float *d_A, const float *d_B, float *d_C, int M, int N, int K) {
    /* TODO(3.3d): launch sgemm_kernel with SGEMM_THREADS threads per block and one block per
     *   SGEMM_BM x SGEMM_BN tile of C, partial tiles included: CEIL_DIV(N, SGEMM_BN) along x,
     *   CEIL_DIV(M, SGEMM_BM) along y. Do not synchronise. */
    // BEGIN SOLUTION
    const dim3 grid(CEIL_DIV(N, SGEMM_BN), CEIL_DIV(M, SGEMM_BM));
    sgemm_kernel<<<grid, SGEMM_THREADS>>>(d_A, d_B, d_C, M, N, K);
    // END SOLUTION
}

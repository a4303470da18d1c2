/* kernels.cu — lab 3.3 "Shared-memory tiling": the three kernels you write, and their launchers.
 *
 *   3.3a  matmul_tiled     C = A B, stepping along K through tiles of A and B staged in shared
 *                          memory, so each element read from global memory is used T times
 *   3.3b  transpose_tiled  out = in^T through a padded shared tile: reads AND writes coalesced
 *   3.3c  conv2d_tiled     2D correlation; each block stages its output tile plus a halo of R
 *
 * The API is in lab.h (pristine): launchers take DEVICE pointers to row-major float32 arrays,
 * launch on the default stream and return without synchronising. The harness poisons the output,
 * checks the launch, and compares with a float64 CPU reference; the grader also reads each
 * kernel's SASS by name (it must store into and load from shared memory — STS, or cp.async's
 * LDGSTS, and LDS — with a block-wide barrier, BAR, and use no local memory: LDL/STL), runs
 * compute-sanitizer (memcheck, racecheck, synccheck) and times it against the course's baseline
 * (baselines.cu). Keep the kernel names; the tile sizes are yours.
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
 * It may call the CUDA runtime except timing, streams and device-wide state, the memory and
 * math functions, and print to stdout/stderr.
 */
#include <cuda_runtime.h>

#include "lab.h"

/* Number of tiles of d elements covering n >= 1 elements, ceil(n / d), without int overflow;
 * for grid dimensions (siboehm/SGEMM_CUDA's CEIL_DIV). */
#define CEIL_DIV(n, d) ((unsigned int)(((long long)(n) + (d)-1) / (d)))

/* ---------------------------------------------------------------------------------------------
 * 3.3a  Tiled matrix multiply
 */

/* Tile edge T. The block is T x T threads, one per element of its tile of C; each step stages a
 * T x T tile of A and one of B: 2 x 4 KB of shared memory at T = 32, and 32 x 32 = 1024 threads
 * is the per-block maximum. Each element loaded from global memory is used T = 32 times: on an
 * H200 at 4096^3, 8.7 TFLOP/s, 1.48x the coalesced naive kernel (bench/h200.md, 3 runs), 17 % of
 * cuBLAS; going further takes register blocking (docs/facts.md; siboehm's SGEMM worklog,
 * kernels 4-5). */
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
     *   and enough blocks to cover all of C, including partial tiles: CEIL_DIV(N, T) along x
     *   (columns) and CEIL_DIV(M, T) along y (rows). Do not synchronise: the harness checks. */
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
 * TRANSPOSE_TILE / TRANSPOSE_BLOCK_ROWS = 4 elements (Harris: fewer, busier threads amortise the
 * index arithmetic). TRANSPOSE_BLOCK_ROWS must divide TRANSPOSE_TILE. */
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
 * [32][33] 90.5 %, [32][32] 44.5 %, naive 13.8 %. Shared memory 64 x 65 x 4 B = 16.25 KB per block. */
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
     *   column — pad it to [TILE][TILE + 1] so the 32 words of a column sit in 32 banks.
     *   Right: any rows x cols — check bounds on the read AND on the write; they differ,
     *   because `out` is (cols, rows). */
    // BEGIN SOLUTION
    constexpr int T = TRANSPOSE_REF_TILE;           // 64
    constexpr int STEP_X = TRANSPOSE_REF_THREADS_X; // 32
    constexpr int STEP_Y = TRANSPOSE_REF_THREADS_Y; // 8
    /* One column of padding: element [i][j] is word 65 i + j, in bank (i + j) mod 32 (65 = 2 x 32
     * + 1), so a warp's row store (i fixed, j = tx + ...) and its column load (i = tx + ..., j
     * fixed) both hit 32 different banks. With [T][T] the 32 words of a column share one bank: a
     * 32-way conflict (docs/facts.md, one run on an H200 at 8192^2 with T = 32: 1627 GB/s
     * unpadded, 3614 GB/s padded). */
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
     *   Load them cooperatively into a __shared__ tile (a loop: thread t loads elements t,
     *   t + blockDim, ...), __syncthreads(), then compute each output from shared memory.
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

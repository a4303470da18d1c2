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
 * What this file may define (the grader's symbol check, before anything runs): lab.h's
 * launchers under their names, your kernels, and your own helpers and variables as long as
 * they are static (or C++ functions); a plain global variable fails it ("make it static").
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

/* A block moves one TRANSPOSE_TILE x TRANSPOSE_TILE tile with TRANSPOSE_TILE x
 * TRANSPOSE_BLOCK_ROWS threads, each copying TRANSPOSE_TILE / TRANSPOSE_BLOCK_ROWS = 4 elements
 * (Harris: fewer, busier threads amortise the index arithmetic). TRANSPOSE_BLOCK_ROWS must
 * divide TRANSPOSE_TILE. */
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
     *   column — pad it to [TILE][TILE + 1] so the 32 words of a column sit in 32 banks.
     *   Right: any rows x cols — check bounds on the read AND on the write; they differ,
     *   because `out` is (cols, rows). */
    // BEGIN SOLUTION
    /* One column of padding: element [i][j] is in bank (33 i + j) mod 32 = (i + j) mod 32, so the
     * column read below (i = threadIdx.x) hits 32 different banks. With [T][T] the 32 words of a
     * column share one bank: a 32-way conflict (docs/facts.md, one run on an H200 at 8192^2: 1627
     * GB/s unpadded, 3614 GB/s padded). */
    __shared__ float tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];

    /* Read phase: threadIdx.x along a row of `in`. */
    const int in_col = (int)blockIdx.x * TRANSPOSE_TILE + threadIdx.x;
    const int in_row0 = (int)blockIdx.y * TRANSPOSE_TILE + threadIdx.y;
    for (int j = 0; j < TRANSPOSE_TILE; j += TRANSPOSE_BLOCK_ROWS) {
        const int in_row = in_row0 + j;
        if (in_row < rows && in_col < cols) {
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)in_row * cols + in_col];
        }
    }
    __syncthreads(); // read-after-write: each thread now writes elements that OTHER threads loaded

    /* Write phase: threadIdx.x along a row of `out`, i.e. down a column of the tile. Element
     * tile[i][j] holds in(by*T + i, bx*T + j) = out(bx*T + j, by*T + i). Its bounds check is the
     * read phase's check with the roles swapped, so no unloaded element is ever read. */
    const int out_col = (int)blockIdx.y * TRANSPOSE_TILE + threadIdx.x;  // = a row of `in`
    const int out_row0 = (int)blockIdx.x * TRANSPOSE_TILE + threadIdx.y; // = a column of `in`
    for (int j = 0; j < TRANSPOSE_TILE; j += TRANSPOSE_BLOCK_ROWS) {
        const int out_row = out_row0 + j;
        if (out_row < cols && out_col < rows) {
            out[(size_t)out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
    // END SOLUTION
}

void transpose_tiled(const float *d_in, float *d_out, int rows, int cols) {
    /* TODO(3.3b): launch transpose_tiled_kernel with TRANSPOSE_TILE x TRANSPOSE_BLOCK_ROWS
     *   threads per block and one block per tile of `in`: CEIL_DIV(cols, TILE) along x,
     *   CEIL_DIV(rows, TILE) along y. */
    // BEGIN SOLUTION
    const dim3 block(TRANSPOSE_TILE, TRANSPOSE_BLOCK_ROWS);
    const dim3 grid(CEIL_DIV(cols, TRANSPOSE_TILE), CEIL_DIV(rows, TRANSPOSE_TILE));
    transpose_tiled_kernel<<<grid, block>>>(d_in, d_out, rows, cols);
    // END SOLUTION
}

/* ---------------------------------------------------------------------------------------------
 * 3.3c  Tiled 2D convolution (correlation) with a halo
 */

/* A block computes a CONV_TILE_Y x CONV_TILE_X tile of `out` with one thread per output. 32 wide
 * so that a warp is one row of the tile: its global loads and stores are whole 128-byte lines
 * and its shared-memory reads are 32 consecutive words (no bank conflicts). */
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
 * Thread mapping: block (bx, by) computes out rows [by*T_Y, by*T_Y + T_Y), columns
 * [bx*T_X, bx*T_X + T_X); thread (tx, ty) computes out(by*T_Y + ty, bx*T_X + tx). */
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
    __shared__ float tile[CONV_SMEM_Y][CONV_SMEM_X]; // (T_Y + 2R, T_X + 2R) used
    __shared__ float taps[CONV_MAX_TAPS];            // (2R + 1, 2R + 1) used: the filter

    const int diam = 2 * R + 1;
    const int span_x = CONV_TILE_X + 2 * R;           // tile width with its halo
    const int span_y = CONV_TILE_Y + 2 * R;           // tile height with its halo
    const int x0 = (int)blockIdx.x * CONV_TILE_X - R; // image column of tile[.][0] (may be < 0)
    const int y0 = (int)blockIdx.y * CONV_TILE_Y - R; // image row of tile[0][.] (may be < 0)
    const int tid = threadIdx.y * CONV_TILE_X + threadIdx.x;
    const int n_threads = CONV_TILE_X * CONV_TILE_Y;

    /* Cooperative load, row-major over the tile: consecutive tid read consecutive columns of one
     * image row (coalesced). Outside the image the tile holds 0 — the definition's zero padding —
     * and the address is formed only inside it. */
    for (int i = tid; i < span_y * span_x; i += n_threads) {
        const int sy = i / span_x;
        const int sx = i - sy * span_x;
        const int gy = y0 + sy;
        const int gx = x0 + sx;
        const bool inside = gy >= 0 && gy < height && gx >= 0 && gx < width;
        tile[sy][sx] = inside ? in[(size_t)gy * width + gx] : 0.0f;
    }
    /* The filter too: all threads of a warp read the same tap at the same time, so each read
     * from shared memory is a broadcast, and the inner loop issues no global loads at all.
     * (Lab 3.4 serves the same uniform reads from __constant__ memory.) */
    for (int i = tid; i < diam * diam; i += n_threads) {
        taps[i] = filter[i];
    }
    __syncthreads(); // read-after-write: outputs read halo cells and taps loaded by other threads

    const int x = (int)blockIdx.x * CONV_TILE_X + threadIdx.x;
    const int y = (int)blockIdx.y * CONV_TILE_Y + threadIdx.y;
    if (x < width && y < height) {
        float acc = 0.0f;
        for (int dy = 0; dy < diam; ++dy) {
            for (int dx = 0; dx < diam; ++dx) {
                /* tile[ty + dy][tx + dx] = in(y + dy - R, x + dx - R) */
                acc += taps[dy * diam + dx] * tile[threadIdx.y + dy][threadIdx.x + dx];
            }
        }
        out[(size_t)y * width + x] = acc;
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
    const dim3 block(CONV_TILE_X, CONV_TILE_Y);
    const dim3 grid(CEIL_DIV(width, CONV_TILE_X), CEIL_DIV(height, CONV_TILE_Y));
    conv2d_tiled_kernel<<<grid, block>>>(d_in, d_out, width, height, d_filter, R);
    // END SOLUTION
}

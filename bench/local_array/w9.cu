/* w9.cu — handout 3.4, section 7, Q2: a per-thread array indexed in loops bounded at run time
 * lands in local memory; with the bounds known at compile time and the loops unrolled it stays
 * in registers. No GPU needed:
 *   nvcc -arch=sm_90 -O3 -cubin -o /tmp/w9.cubin bench/local_array/w9.cu -Xptxas -v
 * nvcc 13.0 (session 42): blur 40 bytes stack frame (LDL/STL in its SASS), blur_fixed<1> 0 bytes.
 */
__global__ void blur(const float *in, float *out, int n, int r, const float *wg) {
    float w[9];
    for (int i = 0; i < 9; ++i) w[i] = wg[i] * 2.0f;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n) return;
    float s = 0.0f;
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
            s += w[(dy + 1) * 3 + dx + 1] * in[x];
    out[x] = s;
}
template <int R>
__global__ void blur_fixed(const float *in, float *out, int n, const float *wg) {
    float w[9];
#pragma unroll
    for (int i = 0; i < 9; ++i) w[i] = wg[i] * 2.0f;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n) return;
    float s = 0.0f;
#pragma unroll
    for (int dy = -R; dy <= R; ++dy)
#pragma unroll
        for (int dx = -R; dx <= R; ++dx)
            s += w[(dy + 1) * 3 + dx + 1] * in[x];
    out[x] = s;
}
template __global__ void blur_fixed<1>(const float *, float *, int, const float *);

/* cml_fresh.cu — fresh inputs drawn on the device, and a launch's output compared with the
 * baseline's on the device (cml_fresh.h). Course code: it runs in the judge only. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <string.h>

#include "cml_fresh.h"

/* SplitMix64's finaliser over the counter seed + (i + 1) * golden: element i alone. */
static __host__ __device__ uint64_t mix(uint64_t seed, uint64_t i) {
    uint64_t z = seed + (i + 1u) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* cml_rng_uniform_f32's arithmetic: 24 bits times 2^-24, scaled and shifted as two roundings
 * (no FMA), and the largest float below hi where lo + scaled rounds up to hi. */
static __host__ __device__ float uniform(uint64_t bits, float lo, float hi) {
    const float unit = (float)(bits >> 40) * (1.0f / 16777216.0f);
#ifdef __CUDA_ARCH__
    const float x = __fadd_rn(lo, __fmul_rn(hi - lo, unit));
#else
    volatile float scaled = (hi - lo) * unit;
    const float x = lo + scaled;
#endif
    return x < hi ? x : nextafterf(hi, lo);
}

static __global__ void draw_kernel(float *d, size_t n, float lo, float hi, uint64_t seed) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        d[i] = uniform(mix(seed, i), lo, hi);
    }
}

extern "C" float cml_fresh_value(uint64_t seed, size_t i, float lo, float hi) {
    return uniform(mix(seed, i), lo, hi);
}

/* Enough blocks of 256 to fill an H200 several times over; grid-stride beyond. */
static unsigned blocks_for(size_t n) {
    const size_t b = (n + 255) / 256;
    return (unsigned)(b < 4096 ? (b > 0 ? b : 1) : 4096);
}

extern "C" int cml_fresh_draw(float *d, size_t n, float lo, float hi, uint64_t seed) {
    if (n == 0) {
        return cudaSuccess;
    }
    draw_kernel<<<blocks_for(n), 256>>>(d, n, lo, hi, seed);
    return (int)cudaGetLastError();
}

typedef struct fresh_stats {
    double sum, sumsq;
    unsigned long long n_bad, n_unwritten, n_nonfinite;
    unsigned long long first_bad;    /* ~0: none */
    unsigned long long max_abs_bits; /* a non-negative double's bits order as the double */
    unsigned long long row_min, row_max, col_min, col_max;
} fresh_stats;

static __global__ void moments_kernel(const float *ref, size_t n, fresh_stats *s) {
    double sum = 0.0, sumsq = 0.0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const double r = isfinite(ref[i]) ? (double)ref[i] : 0.0;
        sum += r;
        sumsq += r * r;
    }
    for (int off = 16; off > 0; off /= 2) {
        sum += __shfl_down_sync(0xFFFFFFFFu, sum, off);
        sumsq += __shfl_down_sync(0xFFFFFFFFu, sumsq, off);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&s->sum, sum);
        atomicAdd(&s->sumsq, sumsq);
    }
}

/* frac times the standard deviation of ref, plus 1e-5 of its RMS (rounding, for an output
 * that hardly varies). The spread, not the RMS: a blurred image of grey levels varies by a
 * few levels around a mean of 127, and a result kept from other inputs is off by that
 * spread, not by the mean. */
static __host__ __device__ double tolerance(const fresh_stats *s, size_t n, double frac) {
    const double mean = s->sum / (double)n, meansq = s->sumsq / (double)n;
    const double var = meansq - mean * mean;
    return frac * sqrt(var > 0.0 ? var : 0.0) + 1e-5 * sqrt(meansq);
}

/* The tolerance at element i (cml_fresh_tolerance). */
static __host__ __device__ double tolerance_at(const fresh_stats *s, size_t n,
                                               cml_fresh_tolerance t, double mag) {
    return t.spread > 0.0 ? tolerance(s, n, t.spread) : 2.0 * (t.gamma * mag + t.abs_floor);
}

static __global__ void mismatch_kernel(const float *got, const float *ref, size_t n, size_t cols,
                                       cml_fresh_tolerance t, fresh_stats *s) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float g = got[i];
        const double err = fabs((double)g - (double)ref[i]);
        /* the magnitude computed in float32 is itself low by at most gamma: 1e-3 more */
        const double mag = t.mag ? 1.001 * fabs((double)t.mag[i]) : 0.0;
        if (err <= tolerance_at(s, n, t, mag)) {
            continue;
        }
        atomicAdd(&s->n_bad, 1ull);
        if (__float_as_uint(g) == CML_POISON_BITS) {
            atomicAdd(&s->n_unwritten, 1ull);
        } else if (!isfinite(g)) {
            atomicAdd(&s->n_nonfinite, 1ull);
        } else {
            atomicMax(&s->max_abs_bits, (unsigned long long)__double_as_longlong(err));
        }
        atomicMin(&s->first_bad, (unsigned long long)i);
        atomicMin(&s->row_min, (unsigned long long)(i / cols));
        atomicMax(&s->row_max, (unsigned long long)(i / cols));
        atomicMin(&s->col_min, (unsigned long long)(i % cols));
        atomicMax(&s->col_max, (unsigned long long)(i % cols));
    }
}

static __global__ void abs_kernel(float *d, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        d[i] = fabsf(d[i]);
    }
}

extern "C" int cml_fresh_abs(float *d, size_t n) {
    if (n == 0) {
        return cudaSuccess;
    }
    abs_kernel<<<blocks_for(n), 256>>>(d, n);
    return (int)cudaGetLastError();
}

extern "C" int cml_fresh_compare(const float *got, const float *ref, size_t n, size_t cols,
                                 const cml_fresh_tolerance *tol, cml_compare_result *out) {
    static fresh_stats *d_stats; /* judge-only, kept for the run */
    cudaError_t e = cudaSuccess;
    memset(out, 0, sizeof *out);
    out->first_bad = -1;
    cols = cols ? cols : 1;
    out->n = n;
    out->cols = cols;
    out->rows = n / cols;
    if (n == 0) {
        return cudaSuccess;
    }
    if (!d_stats && (e = cudaMalloc((void **)&d_stats, sizeof *d_stats)) != cudaSuccess) {
        return (int)e;
    }
    fresh_stats s;
    memset(&s, 0, sizeof s);
    s.first_bad = s.row_min = s.col_min = ~0ull;
    if ((e = cudaMemcpy(d_stats, &s, sizeof s, cudaMemcpyHostToDevice)) != cudaSuccess) {
        return (int)e;
    }
    if (tol->spread > 0.0) { /* the spread's tolerance needs ref's moments; the others not */
        moments_kernel<<<blocks_for(n), 256>>>(ref, n, d_stats);
    }
    mismatch_kernel<<<blocks_for(n), 256>>>(got, ref, n, cols, *tol, d_stats);
    if ((e = cudaGetLastError()) != cudaSuccess ||
        (e = cudaMemcpy(&s, d_stats, sizeof s, cudaMemcpyDeviceToHost)) != cudaSuccess) {
        return (int)e;
    }
    out->n_bad = (size_t)s.n_bad;
    out->n_unwritten = (size_t)s.n_unwritten;
    out->n_nonfinite = (size_t)s.n_nonfinite;
    double max_abs;
    memcpy(&max_abs, &s.max_abs_bits, sizeof max_abs);
    out->max_abs_err = max_abs;
    if (s.n_bad > 0) {
        float g, r, m = 0.0f;
        if ((e = cudaMemcpy(&g, got + s.first_bad, sizeof g, cudaMemcpyDeviceToHost)) !=
                cudaSuccess ||
            (e = cudaMemcpy(&r, ref + s.first_bad, sizeof r, cudaMemcpyDeviceToHost)) !=
                cudaSuccess ||
            (tol->mag && (e = cudaMemcpy(&m, tol->mag + s.first_bad, sizeof m,
                                         cudaMemcpyDeviceToHost)) != cudaSuccess)) {
            return (int)e;
        }
        out->first_bad = (long long)s.first_bad;
        out->first_bad_row = (size_t)(s.first_bad / cols);
        out->first_bad_col = (size_t)(s.first_bad % cols);
        out->first_bad_expected = r;
        out->first_bad_got = g;
        out->first_bad_tol = tolerance_at(&s, n, *tol, 1.001 * fabs((double)m));
        out->bad_row_min = (size_t)s.row_min;
        out->bad_row_max = (size_t)s.row_max;
        out->bad_col_min = (size_t)s.col_min;
        out->bad_col_max = (size_t)s.col_max;
    }
    return cudaSuccess;
}

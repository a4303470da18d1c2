/* lab34_texture_setup.cu — what lab 3.4d's texture costs beyond its kernel, on the course's GPU
 * (issue 13: "timing the allocation is a flaw of the exercise"; lab 3.5's pipeline pays the
 * same cost and varies 7.7-9.3x from run to run). Run three times on the H200 in session 11
 * (bench/h200-2026-12-02-session11/g45, us): global 79.2-80.0, array_call 168-190, array_copy
 * 105-106, array_kept 65-66, pitch2d 68-70.
 *
 * One resample, 2048^2 -> 4096^2, clamp, unnormalized coordinates (3.4d's timed size), each
 * contender the median of REPS samples on the host clock around its call(s) and a device
 * synchronisation, as the judge times a launch (less its exchange between processes):
 *   global      resample_global (labs/3.4-constant-texture/baselines.cu): software bilinear
 *               from global memory, the exercise's baseline;
 *   array_call  the reference (solutions/3.4-constant-texture/kernels.cu, texture_resample):
 *               cudaMallocArray, cudaMemcpy2DToArray, a texture object, the kernel, its
 *               synchronisation, cudaDestroyTextureObject, cudaFreeArray, on every call;
 *   array_copy  an array made once: the copy into it, the kernel (texture object made once);
 *   array_kept  an array made and filled once: the kernel alone (the texture's own speed);
 *   pitch2d     a texture object over d_in itself (cudaResourceTypePitch2D: no array, no
 *               copy; rows must start on texturePitchAlignment, the base on textureAlignment),
 *               made and destroyed on every call around the kernel.
 * Every texture contender's output must equal array_kept's bit for bit (the same texture unit,
 * the same coordinates), and global's within 2/256 of the input's range (the texture's 1/256
 * weights, lab.toml's tolerance); a wrong one is named on stderr and not timed.
 *
 * Output: the device's alignments, then one line per contender: median us, p10-p90 us, and the
 * ratio global / contender (what 3.4d grades for the reference: above 1, faster than global).
 *
 *   mkdir -p build/bench && nvcc -O3 -arch=sm_90 -I labs/3.4-constant-texture -I bench/roof \
 *     -o build/bench/lab34_texture_setup bench/roof/lab34_texture_setup.cu \
 *     labs/3.4-constant-texture/baselines.cu solutions/3.4-constant-texture/kernels.cu \
 *     && build/bench/lab34_texture_setup
 *
 * Exit status: 0; 1 when a contender's output was wrong; 2 on a CUDA error.
 * Sources: CUDA C++ Programming Guide, "Texture Memory" (texture objects on CUDA arrays and on
 * pitched linear memory, cudaResourceTypePitch2D; linear filtering), the runtime API's
 * cudaDeviceProp::texturePitchAlignment and textureAlignment.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "baselines.h" /* resample_global */
#include "lab.h"       /* texture_resample */

#include "cuda_check.h" /* CHECK: exit 2 on a CUDA error */
#include "host_timing.h"

static const int REPS = 51;
static const int IN_W = 2048, IN_H = 2048, OUT_W = 4096, OUT_H = 4096;
static const int BX = 32, BY = 8;

/* The reference's kernel, unnormalized coordinates (texel i's centre at i + 0.5). */
__global__ void resample_tex(cudaTextureObject_t tex, float *out, int out_w, int out_h,
                             float scale_x, float scale_y) {
    const int ox = (int)blockIdx.x * BX + (int)threadIdx.x;
    const int oy = (int)blockIdx.y * BY + (int)threadIdx.y;
    if (ox < out_w && oy < out_h) {
        out[(size_t)oy * out_w + ox] =
            tex2D<float>(tex, ((float)ox + 0.5f) * scale_x, ((float)oy + 0.5f) * scale_y);
    }
}

static void launch(cudaTextureObject_t tex, float *d_out) {
    const dim3 grid((OUT_W + BX - 1) / BX, (OUT_H + BY - 1) / BY);
    resample_tex<<<grid, dim3(BX, BY)>>>(tex, d_out, OUT_W, OUT_H, (float)IN_W / OUT_W,
                                         (float)IN_H / OUT_H);
    CHECK(cudaGetLastError());
}

static cudaTextureDesc clamp_linear() {
    cudaTextureDesc t = {};
    t.addressMode[0] = t.addressMode[1] = cudaAddressModeClamp;
    t.filterMode = cudaFilterModeLinear;
    t.readMode = cudaReadModeElementType;
    t.normalizedCoords = 0;
    return t;
}

/* median and p10 / p90 of f()'s duration in us over REPS calls, after one warm-up call */
struct Timed {
    double median, p10, p90;
};
template <class F> static Timed timed(F f) {
    std::vector<double> t = samples_us(f, REPS);
    std::sort(t.begin(), t.end());
    return {t[REPS / 2], t[REPS / 10], t[REPS - 1 - REPS / 10]};
}

int main() {
    const size_t n_in = (size_t)IN_W * IN_H, n_out = (size_t)OUT_W * OUT_H;
    const size_t row_bytes = (size_t)IN_W * sizeof(float);
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n_in * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n_out * sizeof(float)));
    std::vector<float> h_in(n_in), want(n_out), got(n_out);
    for (size_t i = 0; i < n_in; ++i) {
        h_in[i] = (float)((i * 2654435761u) % 2001u) / 1000.0f - 1.0f; /* in [-1, 1] */
    }
    CHECK(cudaMemcpy(d_in, h_in.data(), n_in * sizeof(float), cudaMemcpyHostToDevice));

    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const bool pitch_ok = row_bytes % prop.texturePitchAlignment == 0 &&
                          (uintptr_t)d_in % prop.textureAlignment == 0;
    std::printf("# %s: texturePitchAlignment %zu B, textureAlignment %zu B, d_in %% it = %zu; "
                "rows of %zu B: pitch2d %s\n",
                prop.name, prop.texturePitchAlignment, prop.textureAlignment,
                (size_t)((uintptr_t)d_in % prop.textureAlignment), row_bytes,
                pitch_ok ? "possible" : "NOT possible");

    /* the array made and filled once (array_copy refills it, array_kept does not) */
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t kept;
    CHECK(cudaMallocArray(&kept, &desc, IN_W, IN_H));
    CHECK(cudaMemcpy2DToArray(kept, 0, 0, d_in, row_bytes, row_bytes, IN_H,
                              cudaMemcpyDeviceToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = kept;
    const cudaTextureDesc td = clamp_linear();
    cudaTextureObject_t kept_tex;
    CHECK(cudaCreateTextureObject(&kept_tex, &res, &td, NULL));

    cudaResourceDesc pitched = {};
    pitched.resType = cudaResourceTypePitch2D;
    pitched.res.pitch2D.devPtr = d_in;
    pitched.res.pitch2D.desc = desc;
    pitched.res.pitch2D.width = IN_W;
    pitched.res.pitch2D.height = IN_H;
    pitched.res.pitch2D.pitchInBytes = row_bytes;

    struct Contender {
        const char *name;
        void (*run)(void *);
    };
    struct Ctx {
        float *d_in, *d_out;
        cudaArray_t kept;
        cudaTextureObject_t kept_tex;
        cudaResourceDesc pitched;
        size_t row_bytes;
    } ctx = {d_in, d_out, kept, kept_tex, pitched, row_bytes};
    const Contender all[] = {
        {"global",
         [](void *p) {
             Ctx *c = (Ctx *)p;
             resample_global(c->d_in, IN_W, IN_H, c->d_out, OUT_W, OUT_H, 0);
             CHECK(cudaDeviceSynchronize());
         }},
        {"array_call",
         [](void *p) {
             Ctx *c = (Ctx *)p;
             texture_resample(c->d_in, IN_W, IN_H, c->d_out, OUT_W, OUT_H, 0);
             CHECK(cudaDeviceSynchronize());
         }},
        {"array_copy",
         [](void *p) {
             Ctx *c = (Ctx *)p;
             CHECK(cudaMemcpy2DToArray(c->kept, 0, 0, c->d_in, c->row_bytes, c->row_bytes, IN_H,
                                       cudaMemcpyDeviceToDevice));
             launch(c->kept_tex, c->d_out);
             CHECK(cudaDeviceSynchronize());
         }},
        {"array_kept",
         [](void *p) {
             Ctx *c = (Ctx *)p;
             launch(c->kept_tex, c->d_out);
             CHECK(cudaDeviceSynchronize());
         }},
        {"pitch2d",
         [](void *p) {
             Ctx *c = (Ctx *)p;
             const cudaTextureDesc t = clamp_linear();
             cudaTextureObject_t tex;
             CHECK(cudaCreateTextureObject(&tex, &c->pitched, &t, NULL));
             launch(tex, c->d_out);
             CHECK(cudaDeviceSynchronize());
             CHECK(cudaDestroyTextureObject(tex));
         }},
    };

    /* the texture unit's own answer, then every contender's against it */
    launch(kept_tex, d_out);
    CHECK(cudaMemcpy(want.data(), d_out, n_out * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    double global_us = 0.0;
    std::printf("# %-10s %10s %22s %8s\n", "contender", "median_us", "p10-p90_us", "ratio");
    for (const Contender &c : all) {
        if (!pitch_ok && std::strcmp(c.name, "pitch2d") == 0) {
            std::printf("  %-10s skipped: the rows or the base are not aligned\n", c.name);
            continue;
        }
        CHECK(cudaMemset(d_out, 0xFF, n_out * sizeof(float)));
        c.run(&ctx);
        CHECK(cudaMemcpy(got.data(), d_out, n_out * sizeof(float), cudaMemcpyDeviceToHost));
        const bool texture = std::strcmp(c.name, "global") != 0;
        const float tol = texture ? 0.0f : 2.0f * 2.0f / 256.0f; /* range 2, weights 1/256 */
        size_t bad = n_out;
        for (size_t i = 0; i < n_out && bad == n_out; ++i) {
            if (!(std::fabs(got[i] - want[i]) <= tol)) {
                bad = i;
            }
        }
        if (bad != n_out) {
            std::fprintf(stderr, "%s: out[%zu] = %.9g, the texture unit gives %.9g\n", c.name, bad,
                         (double)got[bad], (double)want[bad]);
            wrong = 1;
            continue;
        }
        const Timed t = timed([&] { c.run(&ctx); });
        if (!texture) {
            global_us = t.median;
        }
        std::printf("  %-10s %10.1f %10.1f-%-10.1f %8.3f\n", c.name, t.median, t.p10, t.p90,
                    global_us > 0.0 ? global_us / t.median : 0.0);
    }
    CHECK(cudaDestroyTextureObject(kept_tex));
    CHECK(cudaFreeArray(kept));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return wrong;
}

/* harness.cu — lab 3.2 "Global memory and the host link": the pristine harness (students never
 * edit it; the grader always builds a submission against this copy).
 *
 * The course driver (common/cml_lab.h) owns the command line, poisoning the output, the launch
 * checks, the comparison, the timing and the JSON run document (docs/protocol.md). This file
 * describes the lab's exercises to it:
 *
 *   host_copy  (n)  3.2a. The student's host_copy moves n floats d_src -> h_buf -> d_dst
 *                   through a page-locked buffer of its own (host_copy_alloc). Verified: the
 *                   n floats arrive exactly. Timed against the course's own page-locked round
 *                   trip (baselines.cu, host_copy_course): the ratio course / student is the
 *                   fraction of the host link's round-trip rate the student reaches, measured in
 *                   the same run. The pageable round trip (the same call through malloc'd
 *                   memory) is reported beside it (extra metrics), never graded directly.
 *   overlap    (n, chunk, streams)  3.2b. The student's overlap_pipeline sends each chunk
 *                   d_in -> host -> device -> kernel -> d_out on its streams. Verified: d_out =
 *                   overlap_transform(d_in) within the recurrence's rounding bound
 *                   (reference.h). Timed against the same chunks on one stream (baselines.cu,
 *                   overlap_one_stream): the ratio is the overlap achieved.
 *   unified_memory (n)  3.2c. The student's unified_memory advises and prefetches a managed
 *                   table (n floats, written on the host) to the device and runs a kernel
 *                   d_out = d_in * table. Verified: each product within one rounding
 *                   (reference.h). Timed against the same kernel with no advice and no
 *                   prefetch (baselines.cu, unified_on_demand), whose first touch of each page
 *                   faults: the ratio is what the prefetch saves. Why the table is the
 *                   harness's and what each launch includes: the exercise's section below.
 *   zero_copy  (n)  3.2d. The student's zero_copy runs a kernel d_out = ZERO_COPY_SCALE * buf
 *                   that reads a page-locked, mapped host buffer of n floats in place, the
 *                   harness having written this launch's values into it on the host. Verified:
 *                   each product within one rounding (reference.h), on fresh values for every
 *                   timed launch. Timed against the same kernel after a cudaMemcpy of the buffer
 *                   into device memory (baselines.cu, zero_copy_copied), each after the same
 *                   host update: the ratio is what reading in place saves. Measured on
 *                   the H200 (session 8): lab.toml.
 *   async_copy (n)  3.2e. The student's async_copy runs a tiled moving-window sum (lab.h's
 *                   ASYNC_COPY_WINDOW inputs per output) whose tiles reach shared memory by
 *                   asynchronous copies into two buffers. Verified: each sum within float32's
 *                   bound for ASYNC_COPY_WINDOW terms (reference.h), on fresh inputs for every
 *                   timed launch. Timed against the same tiled kernel with synchronous loads
 *                   into one buffer (baselines.cu, window_sum_sync): the ratio is what the
 *                   overlap of the next tile's copy with this tile's sums saves. Measured on
 *                   the H200 (session 8): lab.toml.
 *   l2_persist (n, table_n)  3.2f. The student's l2_persist runs lab.h's gather kernel
 *                   (out[i] = in[i] * table[hash(i / L2_PERSIST_GROUP)]) with the table marked
 *                   persisting in a set-aside of the L2 by an access-policy window, and gives
 *                   the set-aside back. Verified: each product within one rounding
 *                   (reference.h), on fresh inputs (stream and table) for every timed launch;
 *                   in the process that runs the student's code, the persisting-L2 limit
 *                   restored after every call. Timed against the same kernel with no window
 *                   (baselines.cu, l2_no_window): the ratio is what keeping the table in L2
 *                   saves. Measured on the H200 (session 8): lab.toml; the exercise's
 *                   section below says how the baseline is kept free of the student's
 *                   set-aside.
 *   tma_cluster (n)  3.2g, a stretch for sm_90 only. The student's tma_cluster runs 3.2e's
 *                   window sum one tile per block, in thread-block clusters: each tile
 *                   loaded by one bulk asynchronous copy (the Tensor Memory Accelerator), the
 *                   halo read from the next block's shared memory. Verified as 3.2e. Timed
 *                   against the same grid with ordinary loads and no cluster (baselines.cu,
 *                   tile_sum_plain). Refused before any launch below sm_90. Measured on
 *                   the H200 (session 8): lab.toml.
 *
 * What a judged run can and cannot see here (docs/protocol.md, "Judged runs"). The student's
 * launcher runs in another process than the judge's; the judge maps only the DEVICE buffers
 * (cml_dev_alloc), and host memory of the student's process is that process's own. So the data
 * of every exercise start and end in device memory, where the judge rotates fresh inputs in
 * and reads the result, and the host is the middle of the trip. The judge times the launch
 * end to end (its RUN to the student's DONE, which follows a device-wide synchronisation), and
 * the process that compares checks two things about the host it cannot see:
 *   - the host-link check (3.2a-c; 3.2d's small buffers cross the link in about its latency,
 *     which proves nothing), in timed runs only, where the GPU is the run's alone (untimed runs
 *     may share it, and a shared GPU slows any launch past any floor: write_link_check): the
 *     output's last element (index n) is written by finish(), in the
 *     process that compares, from the launch's time on ITS clock: 1 when the launch lasted at
 *     least the link's floor for the data (the fastest page-locked copy of n floats each way,
 *     whole or split over LINK_SPLIT streams, the best of LINK_PROBE_REPS rounds timed by this
 *     harness in the same run; the slower direction's, / LINK_FLOOR_MARGIN), else 0. Data
 *     that reached the output without crossing the link (a device-to-device copy) get there
 *     faster than that on the timed (large) case, whose run is then wrong and its
 *     performance lost; correctness cases check the values only. out_ref is NULL so that
 *     every timed sample is one launch (a batch would hide a fast launch among others).
 *   - 3.2a: in the process that runs the student's code, setup() calls host_copy_alloc,
 *     checks with cudaPointerGetAttributes that the buffer is page-locked, frees it with
 *     host_copy_free, checks that the runtime no longer knows it, and allocates the buffer the
 *     launches use. A failure is reported as the failed CUDA check it is (the expression names
 *     which check; the release check says what it found in the course's words). That process holds
 * the student's code, so this is a check for honest mistakes; the judge's timing is what a pageable
 * copy cannot escape.
 *
 * Inputs come from the seed (cml_rng.h, uniform in [-1, 1)). Large outputs are checked at a
 * sample (cml_sample.h, kCheckSample): the first and last CHECK_SAMPLE_BAND elements (the last
 * element is the host-link check) and CHECK_SAMPLE_RANDOM random positions.
 *
 * Memory: the context, the inputs, the check set and the device buffers come from the driver
 * (cml_setup.h), which frees them. Each exercise's teardown frees only what it holds besides:
 * page-locked host memory (the student's buffer, the staging, 3.2d's mapped buffer), managed
 * memory (3.2c's tables) and the link probe's buffer, device scratch and streams.
 *
 * Sources: CUDA C++ Programming Guide, "Page-Locked Host Memory", "Asynchronous Concurrent
 * Execution", "Unified Memory Programming"; CUDA Runtime API, cudaPointerGetAttributes
 * (cudaMemoryTypeHost: page-locked memory the runtime knows; cudaMemoryTypeUnregistered:
 * ordinary pageable memory), cudaMemAdvise and cudaMemPrefetchAsync (CUDA 13.0's
 * cuda_runtime_api.h: a cudaMemLocation names the destination); CUDA C++ Programming Guide,
 * "L2 Cache Control", and CUDA 13.0's cuda.h (cuCtxSetLimit, cuCtxResetPersistingL2Cache: 3.2f).
 */
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "baselines.h"
#include "cml_check.h"
#include "cml_compare.h"
#include "cml_lab.h"
#include "cml_rng.h"
#include "cml_sample.h"
#include "cml_setup.h"
#include "cml_stats.h"
#include "lab.h"
#include "reference.h"

/* Every position is checked when the output has at most CHECK_ALL_MAX_ELEMS elements;
 * otherwise a sample of one row: the first and last CHECK_SAMPLE_BAND elements and
 * CHECK_SAMPLE_RANDOM random positions. */
#define CHECK_ALL_MAX_ELEMS ((size_t)1 << 22)
#define CHECK_SAMPLE_BAND 64
#define CHECK_SAMPLE_RANDOM 65536
static const cml_sample_spec kCheckSample = {0, 0, CHECK_SAMPLE_BAND, CHECK_SAMPLE_BAND,
                                             CHECK_SAMPLE_RANDOM};

/* The host-link check (see the file's header). */
#define LINK_PROBE_REPS 3     /* timed rounds of copies each way, after one untimed */
#define LINK_SPLIT 4          /* the split copy: this many pieces on as many streams at once */
#define LINK_FLOOR_MARGIN 1.5 /* the floor is the slower direction's best / this */
/* Figures of extra_metrics: timed runs of each measured transfer; the median counts. */
#define FIGURE_REPS 5

/* Milliseconds on a monotonic clock. */
static double now_ms(void) {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

/* ---------------------------------------------------------------------------------------------
 * The host link, measured by the course: the floor of the host-link check, and the roof of
 * 3.2a. Course code only, in the process that compares (finish, extra_metrics) or runs the
 * baseline; its buffers are allocated on first use, so the student's process and the judge's
 * extra input sets never pay for them.
 */

typedef struct link_probe {
    size_t n;                       /* floats per copy */
    float *h_pinned;                /* (n) page-locked, the course's own */
    float *d_scratch;               /* (n) where the probe's host-to-device copies land */
    cudaStream_t split[LINK_SPLIT]; /* the split copy's streams; split[0] == NULL: none yet */
    double d2h_ms, h2d_ms;          /* fastest copy of n floats each way; < 0: not measured */
} link_probe;

static void link_probe_init(link_probe *lp, size_t n) {
    memset(lp, 0, sizeof *lp);
    lp->n = n;
    lp->d2h_ms = lp->h2d_ms = -1.0;
}

static float *link_probe_host(link_probe *lp) {
    if (lp->h_pinned == NULL) {
        /* the host's memory where it fails, not the GPU's (kind "host", cml_setup.h) */
        CML_CHECK_PINNED(cudaMallocHost((void **)&lp->h_pinned, lp->n * sizeof(float)));
    }
    return lp->h_pinned;
}

static float *link_probe_scratch(link_probe *lp) {
    if (lp->d_scratch == NULL) {
        /* The course's own temporary, never handed to a launcher: plain cudaMalloc, outside
         * the buffers a judged run shares (cml_devmem.h). */
        CML_CHECK(cudaMalloc((void **)&lp->d_scratch, lp->n * sizeof(float)));
    }
    return lp->d_scratch;
}

/* One synchronous copy, timed on this process's clock. */
static double timed_copy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
    CML_CHECK(cudaDeviceSynchronize());
    const double t0 = now_ms();
    CML_CHECK(cudaMemcpy(dst, src, bytes, kind));
    CML_CHECK(cudaDeviceSynchronize());
    return now_ms() - t0;
}

/* The same n floats as LINK_SPLIT pieces, each on its own non-blocking stream, all at once
 * (several copy engines of one direction may together outrun one copy), timed on this
 * process's clock. */
static double timed_split_copy(link_probe *lp, float *dst, const float *src, cudaMemcpyKind kind) {
    if (lp->split[0] == NULL) {
        for (int i = 0; i < LINK_SPLIT; ++i) {
            CML_CHECK(cudaStreamCreateWithFlags(&lp->split[i], cudaStreamNonBlocking));
        }
    }
    const size_t piece = (lp->n + LINK_SPLIT - 1) / LINK_SPLIT;
    CML_CHECK(cudaDeviceSynchronize());
    const double t0 = now_ms();
    for (int i = 0; i < LINK_SPLIT; ++i) {
        const size_t off = (size_t)i * piece;
        if (off < lp->n) {
            const size_t len = lp->n - off < piece ? lp->n - off : piece;
            CML_CHECK(
                cudaMemcpyAsync(dst + off, src + off, len * sizeof(float), kind, lp->split[i]));
        }
    }
    CML_CHECK(cudaDeviceSynchronize());
    return now_ms() - t0;
}

/* The time below which no launch that moves n floats across the link each way can be: the
 * slower direction's fastest page-locked copy (the best of LINK_PROBE_REPS rounds of one whole
 * copy and of the split copy), over LINK_FLOOR_MARGIN. Measured once. */
static double link_floor_ms(link_probe *lp, const float *d_src) {
    if (lp->d2h_ms < 0.0) {
        float *h = link_probe_host(lp);
        float *d = link_probe_scratch(lp);
        const size_t bytes = lp->n * sizeof(float);
        for (int r = 0; r <= LINK_PROBE_REPS; ++r) { /* r = 0: untimed, first touch */
            double d2h = timed_copy(h, d_src, bytes, cudaMemcpyDeviceToHost);
            double h2d = timed_copy(d, h, bytes, cudaMemcpyHostToDevice);
            const double d2h_split = timed_split_copy(lp, h, d_src, cudaMemcpyDeviceToHost);
            const double h2d_split = timed_split_copy(lp, d, h, cudaMemcpyHostToDevice);
            d2h = d2h_split < d2h ? d2h_split : d2h;
            h2d = h2d_split < h2d ? h2d_split : h2d;
            if (r == 1 || (r > 1 && d2h < lp->d2h_ms)) {
                lp->d2h_ms = d2h;
            }
            if (r == 1 || (r > 1 && h2d < lp->h2d_ms)) {
                lp->h2d_ms = h2d;
            }
        }
    }
    return (lp->d2h_ms > lp->h2d_ms ? lp->d2h_ms : lp->h2d_ms) / LINK_FLOOR_MARGIN;
}

static void link_probe_free(link_probe *lp) {
    if (lp->h_pinned) {
        CML_CHECK(cudaFreeHost(lp->h_pinned));
    }
    if (lp->d_scratch) {
        CML_CHECK(cudaFree(lp->d_scratch));
    }
    for (int i = 0; i < LINK_SPLIT && lp->split[i] != NULL; ++i) {
        CML_CHECK(cudaStreamDestroy(lp->split[i]));
    }
    link_probe_init(lp, lp->n);
}

/* Writes the output's last element, d_out[n]: in a timed run, 1 when a launch that took
 * run_ms (on this process's clock) is no faster than floor_ms, else 0; in an untimed run, 1.
 * A time bounds something only where the GPU is the run's alone: an untimed run may share it
 * with other gradings' runs (grader/gpu_lock.py), which slow a device-to-device copy past the
 * floor and the floor's own probe past an honest launch (session 8 on the H200: both
 * happened, bench/h200-2026-12-02-session8/README.md). An output whose first element still
 * holds the poison was not written at all: the check is left unwritten too, so that an
 * unimplemented exercise reads as one. */
static void write_link_check(float *d_out, size_t n, double run_ms, double floor_ms) {
    float first = 0.0f;
    CML_CHECK(cudaMemcpy(&first, d_out, sizeof first, cudaMemcpyDeviceToHost));
    if (cml_is_poison_f32(first)) {
        return;
    }
    const float check = !cml_run_timed() || run_ms >= floor_ms ? 1.0f : 0.0f;
    CML_CHECK(cudaMemcpy(d_out + n, &check, sizeof check, cudaMemcpyHostToDevice));
}

/* The input both exercises copy: n floats uniform in [-1, 1) from the seed (the setup's
 * scratch), and the check set of the one-row output of n + 1 elements (every position, or the
 * sample), its positions drawn after them; published in *p. */
static const float *draw_input(cml_problem *p, size_t n, uint64_t seed, cml_check_set **check) {
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_in = cml_scratch_uniform(p, &rng, n, -1.0f, 1.0f);
    const int all = n + 1 <= CHECK_ALL_MAX_ELEMS;
    *check = cml_check(p, 1, n + 1, all ? NULL : &kCheckSample, 1, &rng);
    return h_in;
}

static void add_copy_engines(cml_metrics *m) {
    int device = 0, engines = 0;
    CML_CHECK(cudaGetDevice(&device));
    CML_CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, device));
    cml_metrics_add(m, "copy_engines", (double)engines);
}

/* GB/s (1e9 bytes per second) of `bytes` moved in `ms`. */
static double gbps(double bytes, double ms) {
    return ms > 0.0 ? bytes / (ms * 1e6) : 0.0;
}

/* ---------------------------------------------------------------------------------------------
 * 3.2a  host_copy
 */

typedef struct host_copy_ctx {
    size_t n;
    float *d_src; /* (n) */
    float *d_out; /* (n + 1): the student's copy, then the host-link check */
    float *h_buf; /* the student's page-locked buffer, in the process that runs student code */
    link_probe link;
} host_copy_ctx;

/* cudaSuccess when h is page-locked host memory the runtime knows, else
 * cudaErrorHostMemoryNotRegistered ("pointer does not correspond to a registered memory
 * region"). */
static cudaError_t host_copy_expect_page_locked(const void *h) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, h) != cudaSuccess) {
        (void)cudaGetLastError(); /* not an error of the student's: clear it */
        return cudaErrorHostMemoryNotRegistered;
    }
    return a.type == cudaMemoryTypeHost ? cudaSuccess : cudaErrorHostMemoryNotRegistered;
}

/* cudaSuccess when the runtime no longer knows h (released), else
 * cudaErrorHostMemoryAlreadyRegistered: the buffer is still page-locked. The check reports it
 * in the course's words, HOST_COPY_NOT_RELEASED: CUDA's own for that error, "part or all of
 * the requested memory range is already mapped", read alone, sends a student after a mapping
 * (a student's trial). Printable ASCII under 256 bytes: the student's process relays it to the
 * judge (cml_check.h, cml_fail_saying). */
#define HOST_COPY_NOT_RELEASED                                                                     \
    "host_copy_free left the buffer page-locked: release it with the call that matches its "       \
    "allocation, cudaFreeHost for cudaMallocHost or cudaHostAlloc, cudaHostUnregister for "        \
    "cudaHostRegister; cudaFree does not (cudaErrorHostMemoryAlreadyRegistered)"

static cudaError_t host_copy_expect_released(const void *h) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, h) != cudaSuccess) {
        (void)cudaGetLastError();
        return cudaSuccess;
    }
    return a.type == cudaMemoryTypeHost ? cudaErrorHostMemoryAlreadyRegistered : cudaSuccess;
}

/* The student's page-locked buffer, allocated, released and allocated again, each step
 * checked (see the file's header). NULL when host_copy_alloc returns NULL (the skeleton's
 * stub): host_copy then has no buffer, and a copy through NULL fails with its own error. */
static float *host_copy_student_buffer(size_t n) {
    float *h = host_copy_alloc(n);
    if (h == NULL) {
        return NULL;
    }
    CML_CHECK(host_copy_expect_page_locked(h));
    host_copy_free(h);
    CML_CHECK_SAYING(host_copy_expect_released(h), HOST_COPY_NOT_RELEASED);
    h = host_copy_alloc(n);
    if (h != NULL) {
        CML_CHECK(host_copy_expect_page_locked(h));
    }
    CML_CHECK(cudaGetLastError()); /* an error the student's calls left behind */
    return h;
}

static const char *host_copy_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t n = (size_t)size[0];
    host_copy_ctx *c = CML_NEW_CTX(p, host_copy_ctx);
    c->n = n;
    link_probe_init(&c->link, n);
    cml_check_set *check;
    const float *h_in = draw_input(p, n, seed, &check);
    for (size_t i = 0; i < check->n; ++i) {
        const size_t pos = cml_check_set_pos(check, i);
        check->ref[i] = pos < n ? (double)h_in[pos] : 1.0; /* position n: the link check */
        check->mag[i] = 0.0;
    }
    c->d_src = (float *)cml_device_copy(p, h_in, n * sizeof(float));
    /* out_ref NULL: one launch per timed sample, the link check bounds each one. */
    c->d_out = cml_output(p, NULL, 1, n + 1);

    if (cml_runs_student_code()) { /* not in the judge, which holds no student code */
        c->h_buf = host_copy_student_buffer(n);
    }
    p->gamma = 0.0;             /* data movement: exact */
    p->bytes = 8.0 * (double)n; /* n floats read from device memory, n written */
    return NULL;
}

static void host_copy_launch_student(void *ctx) {
    const host_copy_ctx *c = (const host_copy_ctx *)ctx;
    host_copy(c->d_src, c->d_out, c->h_buf, c->n);
    /* Whatever streams the student used: a timing on the default stream (a plain run's)
     * then covers the copies. Errors stay for the driver's check. */
    (void)cudaDeviceSynchronize();
}

static void host_copy_launch_baseline(void *ctx) {
    host_copy_ctx *c = (host_copy_ctx *)ctx;
    host_copy_course(c->d_src, c->d_out, link_probe_host(&c->link), c->n);
}

static void host_copy_finish(void *ctx, double run_ms) {
    host_copy_ctx *c = (host_copy_ctx *)ctx;
    write_link_check(c->d_out, c->n, run_ms, link_floor_ms(&c->link, c->d_src));
}

/* The course's figures of the link, measured in the process that compares (course code only):
 *   link_d2h_gbps, link_h2d_gbps   the link probe's best copy of n floats each way (the
 *                                  host-link check's floor, before its margin)
 * and, FIGURE_REPS runs of each, interleaved, medians:
 *   pinned_roundtrip_gbps          host_copy_course through the course's page-locked buffer
 *                                  (the roof: 2 n floats over the link, in GB/s)
 *   pageable_roundtrip_gbps        the same through a malloc'd buffer
 *   pageable_over_pinned           their ratio: where a pageable submission lands on the
 *                                  graded ratio (the ramp's zero is set from it)
 *   copy_engines                   cudaDevAttrAsyncEngineCount */
static void host_copy_extra_metrics(void *ctx, cml_metrics *m) {
    host_copy_ctx *c = (host_copy_ctx *)ctx;
    const size_t bytes = c->n * sizeof(float);
    float *h_pinned = link_probe_host(&c->link);
    float *d_scratch = link_probe_scratch(&c->link);
    float *h_pageable = (float *)malloc(bytes);
    if (h_pageable == NULL) {
        return; /* no figures: the graded timing does not need them */
    }
    memset(h_pageable, 0, bytes); /* its pages exist before the first copy */
    double pinned[FIGURE_REPS], pageable[FIGURE_REPS];
    for (int r = 0; r < FIGURE_REPS; ++r) {
        CML_CHECK(cudaDeviceSynchronize());
        double t0 = now_ms();
        host_copy_course(c->d_src, d_scratch, h_pinned, c->n);
        CML_CHECK(cudaDeviceSynchronize());
        pinned[r] = now_ms() - t0;
        t0 = now_ms();
        host_copy_course(c->d_src, d_scratch, h_pageable, c->n);
        CML_CHECK(cudaDeviceSynchronize());
        pageable[r] = now_ms() - t0;
    }
    free(h_pageable);
    const double b = (double)bytes;
    const double pinned_ms = cml_median(pinned, FIGURE_REPS);
    const double pageable_ms = cml_median(pageable, FIGURE_REPS);
    (void)link_floor_ms(&c->link, c->d_src); /* measured by finish() already; else now */
    cml_metrics_add(m, "link_d2h_gbps", gbps(b, c->link.d2h_ms));
    cml_metrics_add(m, "link_h2d_gbps", gbps(b, c->link.h2d_ms));
    cml_metrics_add(m, "pinned_roundtrip_gbps", gbps(2.0 * b, pinned_ms));
    cml_metrics_add(m, "pageable_roundtrip_gbps", gbps(2.0 * b, pageable_ms));
    if (pageable_ms > 0.0) {
        cml_metrics_add(m, "pageable_over_pinned", pinned_ms / pageable_ms);
    }
    add_copy_engines(m);
}

/* The student's page-locked buffer and the link probe's (the driver frees the rest). */
static void host_copy_teardown(cml_problem *p) {
    host_copy_ctx *c = (host_copy_ctx *)p->ctx;
    if (c->h_buf != NULL) {
        host_copy_free(c->h_buf);
    }
    link_probe_free(&c->link);
}

/* ---------------------------------------------------------------------------------------------
 * 3.2b  overlap
 */

typedef struct overlap_ctx {
    size_t n, chunk;
    int streams;
    float *d_in;    /* (n) */
    float *d_stage; /* (streams, chunk): the student's per-stream device slices */
    float *d_out;   /* (n + 1): the result, then the host-link check */
    float *h_stage; /* (streams, chunk) page-locked: this process's staging (the student's
                       pipeline in its process, the baseline's slice 0 in the judge) */
    link_probe link;
} overlap_ctx;

static const char *overlap_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t n = (size_t)size[0], chunk = (size_t)size[1];
    const int streams = (int)size[2];
    const size_t stage = (size_t)streams * chunk;
    overlap_ctx *c = CML_NEW_CTX(p, overlap_ctx);
    *c = overlap_ctx{n, chunk, streams};
    link_probe_init(&c->link, n);

    cml_check_set *check;
    const float *h_in = draw_input(p, n, seed, &check);
    for (size_t i = 0; i < check->n; ++i) {
        const size_t pos = cml_check_set_pos(check, i);
        if (pos < n) {
            check->ref[i] = overlap_ref((double)h_in[pos], OVERLAP_STEPS, (double)OVERLAP_A);
            check->mag[i] = overlap_tol((double)h_in[pos], OVERLAP_STEPS);
        } else { /* position n: the link check, exact */
            check->ref[i] = 1.0;
            check->mag[i] = 0.0;
        }
    }
    c->d_in = (float *)cml_device_copy(p, h_in, n * sizeof(float));
    c->d_stage = (float *)cml_device(p, stage * sizeof(float));
    /* out_ref NULL: one launch per timed sample, the link check bounds each one. */
    c->d_out = cml_output(p, NULL, 1, n + 1);
    CML_CHECK_PINNED(cudaMallocHost((void **)&c->h_stage, stage * sizeof(float)));

    p->gamma = 1.0; /* the tolerance is mag itself: overlap_tol, the recurrence's bound */
    /* Device memory: the D2H reads n floats, the H2D writes n, the kernel reads and writes n. */
    p->bytes = 16.0 * (double)n;
    p->flops = 2.0 * OVERLAP_STEPS * (double)n;
    return NULL;
}

static void overlap_launch_student(void *ctx) {
    const overlap_ctx *c = (const overlap_ctx *)ctx;
    overlap_pipeline(c->d_in, c->d_out, c->n, c->chunk, c->streams, c->h_stage, c->d_stage);
    /* The student's streams are non-blocking (or should be): a timing on the default stream
     * (a plain run's) waits for them only through this. Errors stay for the driver's check. */
    (void)cudaDeviceSynchronize();
}

static void overlap_launch_baseline(void *ctx) {
    const overlap_ctx *c = (const overlap_ctx *)ctx;
    overlap_one_stream(c->d_in, c->d_out, c->n, c->chunk, c->h_stage, c->d_stage);
}

static void overlap_finish(void *ctx, double run_ms) {
    overlap_ctx *c = (overlap_ctx *)ctx;
    write_link_check(c->d_out, c->n, run_ms, link_floor_ms(&c->link, c->d_in));
}

/* The course's figures for the pipeline, measured in the process that compares, FIGURE_REPS
 * runs of each, medians (one chunk's transfers through slice 0 of the course's staging, the
 * kernel over one chunk, into the output, which every checked launch poisons again first):
 *   chunk_d2h_ms, chunk_h2d_ms, chunk_kernel_ms   the three stages of one full chunk
 *   overlap_bound   (d2h + h2d + kernel) / max(d2h, h2d, kernel): the ratio a perfect
 *                   pipeline would reach if the two copy directions and the kernel all
 *                   overlapped and nothing else cost time (the ramp's full is set below it)
 *   link_d2h_gbps, link_h2d_gbps   the link probe's best copy of n floats each way
 *   copy_engines                   cudaDevAttrAsyncEngineCount */
static void overlap_extra_metrics(void *ctx, cml_metrics *m) {
    overlap_ctx *c = (overlap_ctx *)ctx;
    const size_t len = c->chunk < c->n ? c->chunk : c->n;
    const size_t bytes = len * sizeof(float);
    double d2h[FIGURE_REPS], h2d[FIGURE_REPS], kernel[FIGURE_REPS];
    for (int r = 0; r < FIGURE_REPS; ++r) {
        d2h[r] = timed_copy(c->h_stage, c->d_in, bytes, cudaMemcpyDeviceToHost);
        h2d[r] = timed_copy(c->d_stage, c->h_stage, bytes, cudaMemcpyHostToDevice);
        CML_CHECK(cudaDeviceSynchronize());
        const double t0 = now_ms();
        overlap_transform_all(c->d_stage, c->d_out, len);
        CML_CHECK(cudaGetLastError());
        CML_CHECK(cudaDeviceSynchronize());
        kernel[r] = now_ms() - t0;
    }
    const double t_d2h = cml_median(d2h, FIGURE_REPS);
    const double t_h2d = cml_median(h2d, FIGURE_REPS);
    const double t_k = cml_median(kernel, FIGURE_REPS);
    double longest = t_d2h > t_h2d ? t_d2h : t_h2d;
    longest = longest > t_k ? longest : t_k;
    cml_metrics_add(m, "chunk_d2h_ms", t_d2h);
    cml_metrics_add(m, "chunk_h2d_ms", t_h2d);
    cml_metrics_add(m, "chunk_kernel_ms", t_k);
    if (longest > 0.0) {
        cml_metrics_add(m, "overlap_bound", (t_d2h + t_h2d + t_k) / longest);
    }
    (void)link_floor_ms(&c->link, c->d_in); /* measured by finish() already; else now */
    const double b = (double)(c->n * sizeof(float));
    cml_metrics_add(m, "link_d2h_gbps", gbps(b, c->link.d2h_ms));
    cml_metrics_add(m, "link_h2d_gbps", gbps(b, c->link.h2d_ms));
    add_copy_engines(m);
}

/* The page-locked staging and the link probe's buffers (the driver frees the rest). */
static void overlap_teardown(cml_problem *p) {
    overlap_ctx *c = (overlap_ctx *)p->ctx;
    link_probe_free(&c->link);
    CML_CHECK(cudaFreeHost(c->h_stage));
}

/* ---------------------------------------------------------------------------------------------
 * 3.2c  unified_memory
 *
 * The design, and why (first measured on the H200 in session 8: lab.toml). The lesson is the cost
 * of pages that migrate on demand, fault by fault, against one bulk prefetch. A launcher that
 * allocated managed memory and filled it on the host itself, at every call, would spend much of its
 * time on the host (each page's first touch by the CPU, zeroed by the operating system, then
 * n stores), by the course's estimate (unmeasured) as long as the migration or longer: the
 * ratio would mostly measure the host, the same in both contenders. So
 * the table is allocated and written on the host once, in setup() of the process that runs
 * the student's code (the baseline's in the judge, on first use: course code only), and
 * every launch starts from the same state: unified_reset undoes any advice and moves every
 * page back to host memory (a prefetch to the host: one bulk copy of the pages the previous
 * launch moved, none on the first). Before each timed sample that move is made outside it
 * (prepare_student, prepare_baseline), so a sample is the launch's own migration and kernel and
 * the launch's unified_reset finds nothing to move (reset_again_ms). Until session 18 the move
 * back (reset_ms, 3.7-4.2 ms) was timed in both contenders: the ratio was compressed toward 1
 * and moved with the move's own spread (the solution 1.31-2.0 against full at 1.45). The table
 * depends on the index only, never on the seed (reference.h): the judge rotates the seeded
 * input d_in among its input sets, and every process fills the same table. d_out's last
 * element is the host-link check of 3.2a and 3.2b (finish(); the floor: the fastest
 * host-to-device copy of n floats / 1.5): a launch that never touches the table (the weights
 * recomputed on the device) is faster than the link on the large cases. finish() keeps the
 * judge on rotated input sets (cml_judge.c: fresh inputs need an exercise without finish),
 * so cml_input_uniform records d_in's slot for nothing yet.
 */

typedef struct unified_ctx {
    size_t n;
    float *d_in;   /* (n): the seeded input */
    float *d_out;  /* (n + 1): the products, then the host-link check */
    float *um;     /* (n) managed: the student's table, in the process that runs student code */
    float *um_own; /* (n) managed: the baseline's and the figures' table (first use) */
    link_probe link;
} unified_ctx;

/* A managed table of n weights (reference.h), written on the host: its pages in host memory. */
static float *unified_table(size_t n) {
    float *um = NULL;
    CML_CHECK(cudaMallocManaged((void **)&um, n * sizeof(float), cudaMemAttachGlobal));
    for (size_t i = 0; i < n; ++i) {
        um[i] = (float)unified_weight(i); /* exact: k / 256 */
    }
    return um;
}

/* Where every launch starts: no advice on the table, every page in host memory. */
static void unified_reset(float *um, size_t n) {
    const size_t bytes = n * sizeof(float);
    int device = 0;
    CML_CHECK(cudaGetDevice(&device));
    const cudaMemLocation dev = {cudaMemLocationTypeDevice, device};
    const cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    CML_CHECK(cudaMemAdvise(um, bytes, cudaMemAdviseUnsetReadMostly, dev)); /* collapses copies */
    CML_CHECK(cudaMemAdvise(um, bytes, cudaMemAdviseUnsetPreferredLocation, dev));
    CML_CHECK(cudaMemAdvise(um, bytes, cudaMemAdviseUnsetAccessedBy, dev));
    CML_CHECK(cudaMemPrefetchAsync(um, bytes, host, 0, 0));
    CML_CHECK(cudaStreamSynchronize(0));
}

static float *unified_own_table(unified_ctx *c) {
    if (c->um_own == NULL) {
        c->um_own = unified_table(c->n);
    }
    return c->um_own;
}

static const char *unified_setup(cml_problem *p, const long long *size, uint64_t seed) {
    const size_t n = (size_t)size[0];
    unified_ctx *c = CML_NEW_CTX(p, unified_ctx);
    c->n = n;
    link_probe_init(&c->link, n);
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_in = cml_input_uniform(p, &rng, &c->d_in, n, -1.0f, 1.0f);
    const int all = n + 1 <= CHECK_ALL_MAX_ELEMS;
    cml_check_set *check = cml_check(p, 1, n + 1, all ? NULL : &kCheckSample, 1, &rng);
    for (size_t i = 0; i < check->n; ++i) {
        const size_t pos = cml_check_set_pos(check, i);
        if (pos < n) {
            check->ref[i] = unified_ref((double)h_in[pos], pos);
            check->mag[i] = fabs(check->ref[i]); /* |x w|: the product's one rounding */
        } else {
            check->ref[i] = 1.0; /* position n: the link check, exact */
            check->mag[i] = 0.0;
        }
    }
    /* out_ref NULL: one launch per timed sample, the link check bounds each one. */
    c->d_out = cml_output(p, NULL, 1, n + 1);
    if (cml_runs_student_code()) { /* not in the judge, which holds no student code */
        c->um = unified_table(n);
    }
    p->gamma = cml_gamma_f32(1.0); /* one rounded product */
    /* Device memory: d_in and the table read, d_out written (the migration is the link's). */
    p->bytes = 12.0 * (double)n;
    p->flops = (double)n;
    return NULL;
}

/* Before each timed sample, outside it (cml_lab.h, prepare_*): the move back to host memory.
 * The launch's own unified_reset then finds the pages there and moves nothing. */
static void unified_prepare_student(void *ctx) {
    const unified_ctx *c = (const unified_ctx *)ctx;
    unified_reset(c->um, c->n);
}

static void unified_prepare_baseline(void *ctx) {
    unified_ctx *c = (unified_ctx *)ctx;
    unified_reset(unified_own_table(c), c->n);
}

static void unified_launch_student(void *ctx) {
    const unified_ctx *c = (const unified_ctx *)ctx;
    unified_reset(c->um, c->n);
    unified_memory(c->d_in, c->um, c->d_out, c->n);
    (void)cudaDeviceSynchronize(); /* errors stay for the driver's check */
}

static void unified_launch_baseline(void *ctx) {
    unified_ctx *c = (unified_ctx *)ctx;
    float *um = unified_own_table(c);
    unified_reset(um, c->n);
    unified_on_demand(c->d_in, um, c->d_out, c->n);
}

/* The floor is the host-to-device direction's alone: every honest launch moves the table
 * there once (by prefetch or by faults), and the first one after setup() moves nothing back. */
static void unified_finish(void *ctx, double run_ms) {
    unified_ctx *c = (unified_ctx *)ctx;
    (void)link_floor_ms(&c->link, c->d_in); /* measures both directions, once */
    write_link_check(c->d_out, c->n, run_ms, c->link.h2d_ms / LINK_FLOOR_MARGIN);
}

/* The course's figures, on its own table in the process that compares, FIGURE_REPS rounds,
 * medians (into the output, which every checked launch poisons again first):
 *   fault_ms        the baseline's kernel from host-resident pages (on-demand migration)
 *   reset_ms        unified_reset after that: the pages' bulk move back to host memory
 *   reset_again_ms  unified_reset once more, the pages already there: what each timed launch
 *                   still pays (its own reset, after the prepare's)
 *   prefetch_ms     a prefetch to the device (no advice), then the same kernel
 *   resident_ms     the kernel again, its pages already on the device: the kernel's own time
 *   fault_gbps, prefetch_gbps    the table's bytes over fault_ms and prefetch_ms
 *   prefetch_ratio  (reset_again + fault) / (reset_again + prefetch): the graded ratio a
 *                   launch that only prefetches would reach (full is to be set below it)
 *   link_h2d_gbps, link_d2h_gbps  the link probe's best copy of n floats each way
 *   concurrent_managed_access     cudaDevAttrConcurrentManagedAccess (1: prefetch to the
 *                   device is allowed) */
static void unified_extra_metrics(void *ctx, cml_metrics *m) {
    unified_ctx *c = (unified_ctx *)ctx;
    float *um = unified_own_table(c);
    const size_t bytes = c->n * sizeof(float);
    int device = 0, concurrent = 0;
    CML_CHECK(cudaGetDevice(&device));
    CML_CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
    const cudaMemLocation dev = {cudaMemLocationTypeDevice, device};
    double t[5][FIGURE_REPS]; /* fault, reset, reset again, prefetch, resident */
    for (int r = 0; r < FIGURE_REPS; ++r) {
        unified_reset(um, c->n);
        for (int k = 0; k < 5; ++k) {
            CML_CHECK(cudaDeviceSynchronize());
            const double t0 = now_ms();
            if (k == 1 || k == 2) {
                unified_reset(um, c->n);
            } else {
                if (k == 3) {
                    CML_CHECK(cudaMemPrefetchAsync(um, bytes, dev, 0, 0));
                }
                unified_on_demand(c->d_in, um, c->d_out, c->n);
            }
            CML_CHECK(cudaGetLastError());
            CML_CHECK(cudaDeviceSynchronize());
            t[k][r] = now_ms() - t0;
        }
    }
    const double fault = cml_median(t[0], FIGURE_REPS), reset = cml_median(t[1], FIGURE_REPS);
    const double again = cml_median(t[2], FIGURE_REPS), prefetch = cml_median(t[3], FIGURE_REPS);
    cml_metrics_add(m, "fault_ms", fault);
    cml_metrics_add(m, "reset_ms", reset);
    cml_metrics_add(m, "reset_again_ms", again);
    cml_metrics_add(m, "prefetch_ms", prefetch);
    cml_metrics_add(m, "resident_ms", cml_median(t[4], FIGURE_REPS));
    cml_metrics_add(m, "fault_gbps", gbps((double)bytes, fault));
    cml_metrics_add(m, "prefetch_gbps", gbps((double)bytes, prefetch));
    if (again + prefetch > 0.0) {
        cml_metrics_add(m, "prefetch_ratio", (again + fault) / (again + prefetch));
    }
    (void)link_floor_ms(&c->link, c->d_in); /* measured by finish() already; else now */
    cml_metrics_add(m, "link_h2d_gbps", gbps((double)bytes, c->link.h2d_ms));
    cml_metrics_add(m, "link_d2h_gbps", gbps((double)bytes, c->link.d2h_ms));
    cml_metrics_add(m, "concurrent_managed_access", (double)concurrent);
}

/* The managed tables and the link probe's buffers (the driver frees the rest). */
static void unified_teardown(cml_problem *p) {
    unified_ctx *c = (unified_ctx *)p->ctx;
    if (c->um != NULL) {
        CML_CHECK(cudaFree(c->um));
    }
    if (c->um_own != NULL) {
        CML_CHECK(cudaFree(c->um_own));
    }
    link_probe_free(&c->link);
}

/* ---------------------------------------------------------------------------------------------
 * 3.2d  zero_copy
 *
 * The design, and why (first measured on the H200 in session 8: lab.toml). The lesson: a small
 * buffer the host rewrites before every launch can be read by the kernel where it lies, in
 * page-locked host memory mapped for the device (cudaHostAllocMapped), instead of being copied into
 * device memory first. A cudaMemcpy pays a fixed cost before the kernel can start (7.3-9.0 us for
 * 4 B to 4 KB on the H200, handout 3.2 section 1) whatever its size; a kernel reading a mapped
 * buffer once, one coalesced element per thread, pays the link's round trips instead, with
 * every warp's read in flight at once. So on a buffer of a few KB to a few hundred KB read once
 * the mapped read should win, and on large buffers, or data read more than once, the copy
 * (one DMA at the link's rate, then device memory) should. Where the two cross is what
 * bench/roof/lab32_zero_copy.cu measures on the H200 (a size sweep, read once and read several
 * times); the timed case, 64 KiB, must be confirmed there to lie well inside zero-copy's side.
 *
 * What a judged run allows. The buffer is host memory, so it must be the student's process's:
 * setup() allocates it there (cudaHostAlloc, mapped, course code; in the judge, where the
 * baseline runs, one of the judge's own). Its values must be ones the judge can check, and new
 * for every launch, so that a launch that does not read the buffer this time (a device copy
 * kept from an earlier call) is wrong: they are the judge's input d_src, drawn anew for every
 * timed launch (cml_input_uniform: fresh inputs), and the harness's update before each launch
 * brings them into the buffer (a page-locked cudaMemcpy device to host, standing for the host
 * program that produces them; the student's launcher is never given d_src). The judge checks a
 * launch of every timed sample against its baseline on the same values (CML_EX_LINEAR: within
 * one rounding for each), and one sample in full. The update is part of both contenders'
 * timed work (the judge times from its request to the reply; nothing in the student's process
 * can be left out of that), the same copy in both, so it narrows the ratio towards 1: the
 * sweep measures its cost ("update") beside the rest. After each launch both wait for the
 * device before the next update may overwrite the buffer (seed 001 §4.2's sensor_update()
 * rewrites it while the previous kernel may still read it). Without finish() (no host-link
 * check: on small buffers the link's floor is its latency and proves nothing) and with
 * out_ref, a timed sample batches up to 64 launches, each into its own output.
 */

typedef struct zero_copy_ctx {
    size_t n;
    float *d_src; /* (n): this launch's values, the judge's (cml_input_uniform's slot) */
    float *d_out; /* (n) */
    float *h_buf; /* (n) page-locked, mapped: this process's (the student's, or the judge's) */
} zero_copy_ctx;

static const char *zero_copy_setup(cml_problem *p, const long long *size, uint64_t seed) {
    zero_copy_ctx *c = CML_NEW_CTX(p, zero_copy_ctx);
    c->n = (size_t)size[0];
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_src = cml_input_uniform(p, &rng, &c->d_src, c->n, -1.0f, 1.0f);
    const cml_sample_spec *sample = c->n <= CHECK_ALL_MAX_ELEMS ? NULL : &kCheckSample;
    cml_check_set *check = cml_check(p, 1, c->n, sample, 1, &rng);
    for (size_t i = 0; i < check->n; ++i) {
        const double x = (double)h_src[cml_check_set_pos(check, i)];
        check->ref[i] = zero_copy_ref(x, (double)ZERO_COPY_SCALE);
        check->mag[i] = fabs(check->ref[i]); /* |s x|: the product's one rounding */
    }
    cml_output(p, &c->d_out, 1, c->n);
    /* Last: nothing after it can fail the setup and leave it unfreed (no teardown then). */
    CML_CHECK_PINNED(cudaHostAlloc((void **)&c->h_buf, c->n * sizeof(float), cudaHostAllocMapped));
    p->gamma = cml_gamma_f32(1.0);
    p->bytes = 8.0 * (double)c->n; /* the buffer read (across the link), the output written */
    return NULL;
}

/* One launch of either contender (zero_copy, the student's, or zero_copy_copied): the host
 * writes this launch's values into the buffer, the contender launches, and the host waits for
 * the device before it may write again. Errors stay for the driver's check. */
static void zero_copy_run(const zero_copy_ctx *c, void (*launch)(const float *, float *, size_t)) {
    CML_CHECK(cudaMemcpy(c->h_buf, c->d_src, c->n * sizeof(float), cudaMemcpyDeviceToHost));
    launch(c->h_buf, c->d_out, c->n);
    (void)cudaDeviceSynchronize();
}

static void zero_copy_launch_student(void *ctx) {
    zero_copy_run((const zero_copy_ctx *)ctx, zero_copy);
}

static void zero_copy_launch_baseline(void *ctx) {
    zero_copy_run((const zero_copy_ctx *)ctx, zero_copy_copied);
}

static void zero_copy_teardown(cml_problem *p) {
    CML_CHECK(cudaFreeHost(((zero_copy_ctx *)p->ctx)->h_buf));
}

/* ---------------------------------------------------------------------------------------------
 * 3.2e  async_copy
 *
 * The design, and why (first measured on the H200 in session 8: lab.toml). The lesson: a kernel
 * that streams its input through shared memory tile by tile, with synchronous loads, waits for each
 * tile's round trip to device memory (global -> register -> shared, then a barrier) with nothing
 * else to do; with the tile's copy issued asynchronously (cp.async, SASS LDGSTS) into one of two
 * buffers, the next tile's copy is in flight while this tile is summed. The work per element is
 * small (a window of ASYNC_COPY_WINDOW sums), so the time is the staging's: a 2^25-float case
 * (128 MiB each way) streams from device memory, far past the L2. The baseline is the same
 * tiling with one buffer and synchronous loads (window_sum_sync); both contenders are a kernel
 * alone, so the inputs are the judge's fresh ones (cml_input_uniform) and a sample batches
 * launches into outputs of their own (out_ref). The output is a sum with weights 1
 * (CML_EX_LINEAR: the judge checks fresh launches with the same gamma and magnitudes).
 */

typedef struct async_copy_ctx {
    float *d_in;  /* (n): the judge's input (cml_input_uniform's slot) */
    float *d_out; /* (n) */
    size_t n;
} async_copy_ctx;

static const char *async_copy_setup(cml_problem *p, const long long *size, uint64_t seed) {
    async_copy_ctx *c = CML_NEW_CTX(p, async_copy_ctx);
    c->n = (size_t)size[0];
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_in = cml_input_uniform(p, &rng, &c->d_in, c->n, -1.0f, 1.0f);
    const cml_sample_spec *sample = c->n <= CHECK_ALL_MAX_ELEMS ? NULL : &kCheckSample;
    cml_check_set *check = cml_check(p, 1, c->n, sample, 1, &rng);
    for (size_t i = 0; i < check->n; ++i) {
        check->ref[i] = async_copy_ref(h_in, c->n, cml_check_set_pos(check, i), ASYNC_COPY_WINDOW,
                                       &check->mag[i]);
    }
    cml_output(p, &c->d_out, 1, c->n);
    p->gamma = cml_gamma_f32((double)(ASYNC_COPY_WINDOW - 1)); /* a sum of WINDOW terms */
    /* Each input read once (the halo's re-reads hit L1 or L2), each sum written once. */
    p->bytes = 8.0 * (double)c->n;
    p->flops = (double)(ASYNC_COPY_WINDOW - 1) * (double)c->n;
    return NULL;
}

static void async_copy_launch_student(void *ctx) {
    const async_copy_ctx *c = (const async_copy_ctx *)ctx;
    async_copy(c->d_in, c->d_out, c->n);
}

static void async_copy_launch_baseline(void *ctx) {
    const async_copy_ctx *c = (const async_copy_ctx *)ctx;
    window_sum_sync(c->d_in, c->d_out, c->n);
}

/* ---------------------------------------------------------------------------------------------
 * 3.2f  l2_persist
 *
 * The design, and why (first measured on the H200 in session 8: lab.toml). The lesson: a table that
 * a kernel re-reads at random stays in the L2 only while nothing pushes it out; a stream read once
 * pushes it out all the same, unless part of the L2 is set aside for persisting lines
 * (cudaLimitPersistingL2CacheSize) and an access-policy window marks the table's accesses
 * persisting (hitProp) and the rest streaming. The kernel (lab.h) reads one table element per
 * L2_PERSIST_GROUP stream elements: per gather the stream moves 16 floats in and 16 out, so a
 * 16 MiB table's 32-byte sectors (512 Ki of them) are each re-read only after about 64 MiB of
 * stream has passed, more than the H200's 60 MB L2 holds: without the window the table's lines
 * should mostly be gone before their next use, with it they stay. (A denser gather would keep
 * the table in L2 without any window; a sparser one makes the table's share of the traffic,
 * and so the gain, small.) Whether the L2's replacement really behaves so is to be measured.
 * Both inputs are the judge's fresh ones (cml_input_uniform): every launch gets a table at
 * another address, so a window must be set in every call, and the judge's flush before each
 * sample starts every contender with a cold table. The output is one rounded product per
 * element (CML_EX_LINEAR).
 *
 * Keeping the baseline free of the student's set-aside. The set-aside limit is state of a
 * context (cuCtxSetLimit: "the current limit maintained by the context"), so the student's
 * cudaDeviceSetLimit does not change the judge's; but the set-aside is a part of the one
 * physical L2 that the two processes' contexts take turns on, and the CUDA documentation does
 * not say whether a switch to the judge's context takes the student's set-aside away, or what
 * becomes of lines left persisting ("cudaCtxResetPersistingL2Cache: resets all persisting lines
 * in cache to normal status", no context named; under MPS the set-aside is fixed for all
 * clients at the server's start). Lines left persisting would not be evicted by the judge's L2
 * flush (normal writes) and would shrink the L2 the baseline has: a slower baseline, a ratio in
 * the student's favour, too small for grader/plausible.py's `disturbed` (1.5x) to see. So:
 *   - in the process that runs the student's code, after every call, the limit must be what it
 *     was at setup (l2_persist_expect_restored: a failed CUDA check naming it, as 3.2a's
 *     page-locked check: for honest mistakes; the student's process is not trusted);
 *   - the judge's baseline clears any persisting line before each of its launches
 *     (cudaCtxResetPersistingL2Cache in its own context), a cost the student's launcher pays
 *     too (its own reset, lab.h step 4). Whether that reset reaches lines of another context,
 *     and what it costs (extra metric reset_us), must be measured on the H200.
 */

typedef struct l2_persist_ctx {
    float *d_in;    /* (n): the stream (cml_input_uniform's slot) */
    float *d_table; /* (table_n): the hot table (cml_input_uniform's slot) */
    float *d_out;   /* (n) */
    size_t n, table_n;
    size_t limit_before; /* this process's persisting-L2 limit at setup (bytes) */
    int set_aside_max;   /* cudaDevAttrMaxPersistingL2CacheSize; 0: no L2 persistence */
} l2_persist_ctx;

static const char *l2_persist_setup(cml_problem *p, const long long *size, uint64_t seed) {
    l2_persist_ctx *c = CML_NEW_CTX(p, l2_persist_ctx);
    c->n = (size_t)size[0];
    c->table_n = (size_t)size[1];
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h_in = cml_input_uniform(p, &rng, &c->d_in, c->n, -1.0f, 1.0f);
    const float *h_table = cml_input_uniform(p, &rng, &c->d_table, c->table_n, -1.0f, 1.0f);
    const cml_sample_spec *sample = c->n <= CHECK_ALL_MAX_ELEMS ? NULL : &kCheckSample;
    cml_check_set *check = cml_check(p, 1, c->n, sample, 1, &rng);
    for (size_t i = 0; i < check->n; ++i) {
        check->ref[i] =
            l2_persist_ref(h_in, h_table, c->table_n, cml_check_set_pos(check, i), &check->mag[i]);
    }
    cml_output(p, &c->d_out, 1, c->n);
    int device = 0;
    CML_CHECK(cudaGetDevice(&device));
    CML_CHECK(
        cudaDeviceGetAttribute(&c->set_aside_max, cudaDevAttrMaxPersistingL2CacheSize, device));
    if (c->set_aside_max > 0) {
        CML_CHECK(cudaDeviceGetLimit(&c->limit_before, cudaLimitPersistingL2CacheSize));
    }
    p->gamma = cml_gamma_f32(1.0); /* one rounded product */
    /* The stream read once, the output written once, the table read once (the ideal). */
    p->bytes = 8.0 * (double)c->n + 4.0 * (double)c->table_n;
    p->flops = (double)c->n;
    return NULL;
}

/* cudaSuccess when this process's persisting-L2 limit is `before` again (or when an error of
 * the launch is pending: the driver reports that one), else cudaErrorIllegalState. */
static cudaError_t l2_persist_expect_restored(size_t before) {
    size_t now = before;
    if (cudaPeekAtLastError() != cudaSuccess ||
        cudaDeviceGetLimit(&now, cudaLimitPersistingL2CacheSize) != cudaSuccess) {
        return cudaSuccess;
    }
    return now == before ? cudaSuccess : cudaErrorIllegalState;
}

static void l2_persist_launch_student(void *ctx) {
    const l2_persist_ctx *c = (const l2_persist_ctx *)ctx;
    l2_persist(c->d_in, c->d_table, c->table_n, c->d_out, c->n);
    (void)cudaDeviceSynchronize(); /* errors stay for the driver's check */
    if (c->set_aside_max > 0) {
        CML_CHECK(l2_persist_expect_restored(c->limit_before));
    }
}

static void l2_persist_launch_baseline(void *ctx) {
    const l2_persist_ctx *c = (const l2_persist_ctx *)ctx;
    if (c->set_aside_max > 0) {
        CML_CHECK(cudaCtxResetPersistingL2Cache()); /* no line left persisting (above) */
    }
    l2_no_window(c->d_in, c->d_table, c->table_n, c->d_out, c->n);
}

/* The course's figures, in the process that compares (FIGURE_REPS rounds, medians): the
 * device's bounds, set_aside_max_mb (cudaDevAttrMaxPersistingL2CacheSize) and window_max_mb
 * (cudaDevAttrMaxAccessPolicyWindowSize), in MiB; what the calls of lab.h's steps 1 and 4 cost
 * on the host clock: set_limit_us (the limit set to min(table, maximum), then back) and
 * reset_us (cudaCtxResetPersistingL2Cache), both paid in every call of the student's. */
static void l2_persist_extra_metrics(void *ctx, cml_metrics *m) {
    const l2_persist_ctx *c = (const l2_persist_ctx *)ctx;
    int device = 0, window_max = 0;
    CML_CHECK(cudaGetDevice(&device));
    CML_CHECK(cudaDeviceGetAttribute(&window_max, cudaDevAttrMaxAccessPolicyWindowSize, device));
    cml_metrics_add(m, "set_aside_max_mb", (double)c->set_aside_max / (1 << 20));
    cml_metrics_add(m, "window_max_mb", (double)window_max / (1 << 20));
    if (c->set_aside_max <= 0) {
        return;
    }
    const size_t table = c->table_n * sizeof(float);
    const size_t want = table < (size_t)c->set_aside_max ? table : (size_t)c->set_aside_max;
    double set[FIGURE_REPS], reset[FIGURE_REPS];
    for (int r = 0; r < FIGURE_REPS; ++r) {
        CML_CHECK(cudaDeviceSynchronize());
        double t0 = now_ms();
        CML_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, want));
        CML_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, c->limit_before));
        set[r] = 1e3 * (now_ms() - t0);
        t0 = now_ms();
        CML_CHECK(cudaCtxResetPersistingL2Cache());
        reset[r] = 1e3 * (now_ms() - t0);
    }
    cml_metrics_add(m, "set_limit_us", cml_median(set, FIGURE_REPS));
    cml_metrics_add(m, "reset_us", cml_median(reset, FIGURE_REPS));
}

/* ---------------------------------------------------------------------------------------------
 * 3.2g  tma_cluster
 *
 * The design, and why (a stretch for sm_90 only; first measured on the H200 in session 8:
 * lab.toml). 3.2e's window sum on one tile per block: each block's tile reaches shared memory by
 * ONE bulk asynchronous copy (the Tensor Memory Accelerator, SASS UBLKCP) instead of a load and a
 * store per 16 bytes, and the halo comes from the next block of the thread-block cluster,
 * whose shared memory already holds it (distributed shared memory), instead of from global
 * memory. The baseline is the same grid with ordinary loads and no cluster (tile_sum_plain).
 * The context, the inputs and the check are 3.2e's (async_copy_setup); this setup first
 * refuses a device, or a build, below sm_90: bulk copies and clusters do not exist there, and
 * the student's kernel compiled for sm_80 is a trap (kernels.cu). The grader never asks for it
 * then (lab.toml's arch_min): the refusal is for a student who runs it by hand.
 */

/* An empty kernel compiled with the lab's flags: its attributes say which architecture this
 * binary's device code was built for (ptxVersion: 80 for a build for sm_80, run by JIT on a
 * newer GPU). */
static __global__ void tma_cluster_build_probe(void) {}

static const char *tma_cluster_setup(cml_problem *p, const long long *size, uint64_t seed) {
    int device = 0, major = 0;
    CML_CHECK(cudaGetDevice(&device));
    CML_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    if (major < 9) {
        return "tma_cluster needs sm_90 (Hopper: TMA and thread-block clusters); this GPU is "
               "older";
    }
    cudaFuncAttributes attr;
    CML_CHECK(cudaFuncGetAttributes(&attr, tma_cluster_build_probe));
    if (attr.ptxVersion < 90) {
        return "tma_cluster needs sm_90 (Hopper: TMA and thread-block clusters); this binary "
               "was built for an older architecture (make CUDA_ARCH=sm_90)";
    }
    return async_copy_setup(p, size, seed);
}

static void tma_cluster_launch_student(void *ctx) {
    const async_copy_ctx *c = (const async_copy_ctx *)ctx;
    tma_cluster(c->d_in, c->d_out, c->n);
}

static void tma_cluster_launch_baseline(void *ctx) {
    const async_copy_ctx *c = (const async_copy_ctx *)ctx;
    tile_sum_plain(c->d_in, c->d_out, c->n);
}

/* ---------------------------------------------------------------------------------------------
 * The lab: one registry of exercises (their cases live in lab.toml only).
 */

static const cml_exercise kExercises[] = {
    {.name = "host_copy",
     .dim_names = "n",
     .n_dims = 1,
     .baseline = "host_copy_course",
     .dim_max = {HOST_COPY_MAX_N},
     .setup = host_copy_setup,
     .launch_student = host_copy_launch_student,
     .launch_baseline = host_copy_launch_baseline,
     .teardown = host_copy_teardown,
     .extra_metrics = host_copy_extra_metrics,
     .finish = host_copy_finish,
     .launchers = "host_copy_alloc,host_copy_free,host_copy"},
    {.name = "overlap",
     .dim_names = "n,chunk,streams",
     .n_dims = 3,
     .baseline = "overlap_one_stream",
     .dim_max = {OVERLAP_MAX_N, OVERLAP_MAX_CHUNK, OVERLAP_MAX_STREAMS},
     .setup = overlap_setup,
     .launch_student = overlap_launch_student,
     .launch_baseline = overlap_launch_baseline,
     .teardown = overlap_teardown,
     .extra_metrics = overlap_extra_metrics,
     .finish = overlap_finish,
     .launchers = "overlap_pipeline"},
    {.name = "unified_memory",
     .dim_names = "n",
     .n_dims = 1,
     .baseline = "unified_on_demand",
     .dim_max = {UNIFIED_MAX_N},
     .setup = unified_setup,
     .launch_student = unified_launch_student,
     .launch_baseline = unified_launch_baseline,
     .teardown = unified_teardown,
     .extra_metrics = unified_extra_metrics,
     .finish = unified_finish,
     .prepare_student = unified_prepare_student,
     .prepare_baseline = unified_prepare_baseline,
     .launchers = "unified_memory"},
    {.name = "zero_copy",
     .dim_names = "n",
     .n_dims = 1,
     .baseline = "zero_copy_copied",
     .dim_max = {ZERO_COPY_MAX_N},
     .setup = zero_copy_setup,
     .launch_student = zero_copy_launch_student,
     .launch_baseline = zero_copy_launch_baseline,
     .teardown = zero_copy_teardown,
     .flags = CML_EX_LINEAR,
     .launchers = "zero_copy"},
    {.name = "async_copy",
     .dim_names = "n",
     .n_dims = 1,
     .baseline = "window_sum_sync",
     .dim_max = {ASYNC_COPY_MAX_N},
     .setup = async_copy_setup,
     .launch_student = async_copy_launch_student,
     .launch_baseline = async_copy_launch_baseline,
     .flags = CML_EX_LINEAR,
     .launchers = "async_copy",
     .kernel = "async_copy_kernel"},
    {.name = "l2_persist",
     .dim_names = "n,table_n",
     .n_dims = 2,
     .baseline = "l2_no_window",
     .dim_max = {L2_PERSIST_MAX_N, L2_PERSIST_MAX_TABLE},
     .setup = l2_persist_setup,
     .launch_student = l2_persist_launch_student,
     .launch_baseline = l2_persist_launch_baseline,
     .extra_metrics = l2_persist_extra_metrics,
     .flags = CML_EX_LINEAR,
     .launchers = "l2_persist"},
    {.name = "tma_cluster",
     .dim_names = "n",
     .n_dims = 1,
     .baseline = "tile_sum_plain",
     .dim_max = {TMA_CLUSTER_MAX_N},
     .setup = tma_cluster_setup,
     .launch_student = tma_cluster_launch_student,
     .launch_baseline = tma_cluster_launch_baseline,
     .flags = CML_EX_LINEAR,
     .launchers = "tma_cluster",
     .kernel = "tma_cluster_kernel"},
};

int main(int argc, char **argv) {
    return cml_lab_main(argc, argv, "3.2", kExercises,
                        (int)(sizeof kExercises / sizeof kExercises[0]));
}

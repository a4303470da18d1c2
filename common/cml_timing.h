/* cml_timing.h — the course's timing method (DESIGN.md "Timing method", a contract).
 *
 * Several contenders (the student's kernel, the baseline, a device-to-device copy of the
 * same bytes) are timed in one process, interleaved A B C A B C ..., so clock and thermal
 * drift fall on all of them alike. For each sample:
 *   1. the L2 cache is flushed by writing a buffer of twice the device's L2 size
 *      (cudaMemsetAsync), outside the timed region;
 *   2. CUDA events are recorded around `batch` back-to-back launches of the contender;
 *   3. the sample is elapsed / batch.
 * Warm-up: each contender runs `warmup` times first (module load, first-touch, clocks).
 * Batching: kernels of a few microseconds cannot be timed one launch per event pair
 * (cudaEventElapsedTime resolves ~0.5 us); when batch == 0 it is chosen from the
 * warm-up (each warm-up launch is timed alone) so that one sample of the slowest
 * contender lasts at least target_sample_ms: batch = ceil(target / slowest single
 * launch), between 1 and 10000. Batched samples run with a warm L2 (the flush happens
 * once per sample), which is the honest choice for kernels whose data fits in L2 anyway.
 * A contender's prepare (the state its launch starts from, e.g. lab 3.2c's managed table moved
 * back to host memory) runs before each of its samples, outside the events, with batch 1.
 * Reported: median, 10th and 90th percentile over `reps` samples (reps >= 20).
 *
 * Source: DESIGN.md; FACTS.md "Timing noise on an H200"; nvbench's cold-L2 samples.
 */
#pragma once

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Launches one run of a contender on the default stream. Must not synchronise. */
typedef void (*cml_launch_fn)(void *ctx);

typedef struct cml_contender {
    const char *name; /* e.g. "student", "baseline", "copy" */
    cml_launch_fn launch;
    void *ctx;
    /* Optional (NULL: none): puts back the state each launch starts from, on the host before
     * the contender's sample, outside its events (it may synchronise). With one, every
     * sample of every contender holds one launch (batch 1). */
    cml_launch_fn prepare;
} cml_contender;

typedef struct cml_timing_opts {
    int reps;                /* samples per contender, >= 20 (default 25) */
    int warmup;              /* untimed runs per contender first (default 3) */
    int batch;               /* launches per sample; 0 = choose from warm-up (default 0) */
    double target_sample_ms; /* with batch == 0: aim for samples at least this long (default 1.0) */
    int flush_l2;            /* 1 = flush L2 before each sample (default 1) */
} cml_timing_opts;

typedef struct cml_timing_stats {
    double median_ms, p10_ms, p90_ms; /* per launch */
    int reps;
    int batch;
} cml_timing_stats;

/* The defaults above. */
cml_timing_opts cml_timing_defaults(void);

/* Times n contenders interleaved; stats[i] receives contender i's figures. The batch is
 * chosen once (from the slowest contender's warm-up) and used for all, so their samples
 * are comparable. Returns the first CUDA error met (stats then undefined). Host memory for its
 * samples that runs out is no CUDA error: the run ends there with status "error", kind "host"
 * (cml_lab_fail_host, cml_lab_internal.h), as the driver's own host allocations end it. */
cudaError_t cml_time_interleaved(const cml_contender *contenders, int n,
                                 const cml_timing_opts *opts, cml_timing_stats *stats);

#ifdef __cplusplus
}
#endif

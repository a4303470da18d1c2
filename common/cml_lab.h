/* cml_lab.h — the generic lab driver: main() of every lab harness.
 *
 * A lab's harness.cu describes its exercises in a table of cml_exercise and calls
 *     int main(int argc, char **argv) { return cml_lab_main(argc, argv, "3.3", EX, N); }
 * The driver owns everything that is the same in every lab (docs/protocol.md):
 *   - the command line (cml_options.h) and the JSON run document (cml_json.h);
 *   - the no-device path: status "no_device", exit 3;
 *   - the failure handler: any failed CML_CHECK becomes status "error" with the CUDA error
 *     string (a CML_CHECK_SAYING: the course's words) and the call's file:line, written to
 *     the JSON before exiting;
 *   - poisoning the output (CML_POISON_BYTE) before every verified run, the launch check
 *     (cudaGetLastError + cudaDeviceSynchronize), copying back and comparing;
 *   - with --time: timing student, baseline and a copy of the same bytes interleaved
 *     (cml_timing.h), then verifying once more, so a kernel that computes only when it
 *     is not timed is caught;
 *   - metrics: GB/s and GFLOP/s from the exercise's byte and flop counts, % of the copy
 *     bandwidth measured in the same run.
 * An exercise owns only what is specific to it: inputs from the seed, the CPU reference,
 * and the two launches. Its device buffers come from cml_dev_alloc (cml_devmem.h), so that
 * the same exercise also runs judged: the judge (this driver without student code, built as
 * build/<lab>/judge) owns the inputs, the reference, the verification, the timing and the
 * document, and the student's launcher runs in another process, `lab --serve FD`, that
 * maps the judge's buffers (cml_judge.c, cml_worker.c, docs/protocol.md "Judged runs").
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cml_compare.h"
#include "cml_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exercise-specific figures for the run document's "metrics" object (e.g. the latency of each
 * level of the memory hierarchy, or a second baseline's speed-up): what the driver's timing of
 * one launch against its baseline cannot measure. Filled by an exercise's extra_metrics() through
 * cml_metrics_add(). */
#define CML_MAX_EXTRA_METRICS 16
#define CML_METRIC_NAME_MAX 32
#define CML_METRIC_NOTE_MAX 200
typedef struct cml_metrics {
    int n;
    char name[CML_MAX_EXTRA_METRICS][CML_METRIC_NAME_MAX];
    double value[CML_MAX_EXTRA_METRICS];
    /* Why figures are missing, for the student ("" when none): the document's
     * "metrics_note". */
    char note[CML_METRIC_NOTE_MAX];
} cml_metrics;

/* Adds one figure. `name` is 1 to 31 characters of [a-z0-9_], not one of the driver's own
 * metric names (bytes, flops, gbps, gflops, baseline_gbps, copy_gbps, pct_of_copy) and not
 * added before; at most CML_MAX_EXTRA_METRICS per run. Returns 0, or -1 (nothing added) when
 * any of that is violated: the driver then reports a harness error, since only course code
 * calls this. */
int cml_metrics_add(cml_metrics *m, const char *name, double value);

/* Says why the exercise adds no figures (or fewer): e.g. a part of the student's work that
 * computed a wrong result when timed. One sentence, cut at CML_METRIC_NOTE_MAX - 1 bytes; a
 * later note replaces an earlier one. Written by the process that compares (course code). */
void cml_metrics_note(cml_metrics *m, const char *text);

/* One case of one exercise, filled in by the exercise's setup(). */
/* An input drawn uniform in [lo, hi) (cml_input_uniform, cml_setup.h): where the exercise's
 * context keeps its device pointer (the launchers must read it from there) and its length. */
#define CML_MAX_FRESH 4
typedef struct cml_fresh_input {
    float **slot;
    size_t n;
    float lo, hi;
} cml_fresh_input;

typedef struct cml_problem {
    /* The output under test: a device buffer of n_out float32, viewed as
     * (n_out / out_cols, out_cols) row-major for coordinates in reports. */
    float *d_out;
    size_t n_out;
    size_t out_cols;
    /* Where the exercise's context keeps d_out (e.g. &c->d_C), or NULL. The launchers must
     * read the output pointer from there: a judged timing points it at other buffers of
     * n_out floats between launches, so that one timed sample holds several launches, each
     * writing an output the judge poisoned (cml_judge.c). NULL: one launch per sample. */
    float **out_ref;
    /* The CPU reference: exact value (float64) and magnitude per element, and the
     * tolerance parameters of cml_compare_f32 (h_mag may be NULL). Owned by the exercise. */
    const double *h_ref;
    const double *h_mag;
    /* Positions checked: NULL = all n_out (h_ref, h_mag have n_out entries); else the
     * n_check positions check_idx[0..n_check), with h_ref, h_mag in step. Large timed
     * cases check a sample (cml_sample.h: bands of edge rows and columns plus random
     * positions) because a float64 CPU reference of the whole output would take minutes. */
    const size_t *check_idx;
    size_t n_check;
    double gamma;
    double abs_floor;
    /* Work of one run, for metrics: bytes that must move through device memory (each
     * input read once, each output written once) and floating-point operations. */
    double bytes;
    double flops;
    /* Where the launchers write when that is not d_out (NULL: d_out itself), raw_bytes long:
     * lab 3.5's pipeline writes uint8 pixels. The process that compares poisons it (with
     * raw_poison) before every launch it checks, and the exercise's finish() turns it
     * into d_out after that launch. An exercise with d_raw has out_ref NULL. */
    void *d_raw;
    size_t raw_bytes;
    unsigned char raw_poison; /* the byte d_raw is poisoned with: one the output rarely holds */
    /* The inputs setup() drew with cml_input_uniform (at most CML_MAX_FRESH; more are kept
     * as ordinary inputs). A judged timing points each slot at inputs of its own for every
     * launch, drawn on the device (cml_fresh.h), and checks a launch of each sample against
     * the baseline (or the exercise's launch_check) on the same inputs (cml_judge.c). */
    cml_fresh_input fresh[CML_MAX_FRESH];
    int n_fresh;
    /* Exercise-owned state passed to launch_student / launch_baseline / teardown
     * (CML_NEW_CTX, cml_setup.h). */
    void *ctx;
    /* What setup() took from the driver (cml_setup.h), freed by cml_problem_release. */
    struct cml_owned *owned;
} cml_problem;

typedef struct cml_exercise {
    const char *name;      /* e.g. "matmul_tiled"; the --exercise value */
    const char *dim_names; /* comma-separated, e.g. "M,N,K"; their count is n_dims */
    int n_dims;
    const char *baseline; /* the baseline's name for reports, e.g. "matmul_naive"; NULL: none */
    /* The largest value of each dimension, in dim_names' order (0: no bound beyond the
     * command line's), checked by the driver before setup() and given by `lab --list`
     * ("dim_max"), so that the grader checks lab.toml's cases against them offline: e.g.
     * {CML_INT_SIZE_MAX, CML_INT_SIZE_MAX, CONV2D_MAX_R}. */
    long long dim_max[CML_MAX_DIMS];
    /* The exercise's arrays as products of its dimensions, comma-separated, e.g.
     * "M*K,K*N,M*N" (NULL: none but single dimensions): the driver refuses a size that gives
     * one of them CML_MAX_ELEMS elements or more, so that an int linear index never
     * overflows (each lab.h states it), and `lab --list` gives them ("arrays"). */
    const char *arrays;
    /* Checks the size (return a message for sizes the exercise does not accept, e.g.
     * R > 4), draws inputs from `seed` (cml_rng.h), copies them to the device and computes
     * the reference, taking its memory from the driver (cml_setup.h), which frees it.
     * Returns NULL on success, else a static message; cml_no_host_memory (cml_setup.h) where
     * host memory it took elsewhere ran out (reported as kind "host", not as a size rejected).
     * CUDA calls inside use CML_CHECK. */
    const char *(*setup)(cml_problem *p, const long long *size, uint64_t seed);
    void (*launch_student)(void *ctx); /* one run of the student's launcher */
    /* One run of the baseline, writing d_out too. NULL when the exercise has no baseline
     * (then --time measures nothing: "timing" stays null; extra_metrics still runs). */
    void (*launch_baseline)(void *ctx);
    /* Optional (NULL: launch_baseline). The same output as launch_baseline computed faster by
     * course code, in d_out of ctx, for the judge's check of a timed launch on fresh inputs
     * alone (cml_judge.c, fresh_check): a check in every sample then costs less than the
     * baseline's run (lab 3.3's matmul: cuBLAS, 0.3 ms against the naive kernel's 23 ms at
     * 4096^3). Never timed, never a figure; it falls back to launch_baseline itself where its
     * means are missing (a binary without cuBLAS). */
    void (*launch_check)(void *ctx);
    /* Optional (NULL: none). Frees what setup() holds besides the driver's allocations (a
     * CUDA array, a texture object); called before the driver frees those. */
    void (*teardown)(cml_problem *p);
    /* Optional (NULL: none). Called once after the first verified run when its status is
     * "ok", with or without --time, in the process that compares (the judge, in a judged
     * run: course code only); adds exercise-specific figures with cml_metrics_add(). It may
     * time parts of the student's work with cml_time_part(). CUDA calls inside use
     * CML_CHECK. */
    void (*extra_metrics)(void *ctx, cml_metrics *m);
    /* Optional (NULL: none). Course code that turns what a launch left in p->d_raw into
     * p->d_out, run by the process that compares after every launch it checks (student's or
     * baseline's), outside any timing. run_ms: that launch's wall time on that process's
     * clock (in a judged run the judge's, from its request to the student's answer), for
     * bounds on figures the student's code measured itself (clock64() cycles). */
    void (*finish)(void *ctx, double run_ms);
    /* Optional (NULL: none). One part of the student's work, `part` >= 0, launched without
     * synchronising; timed by extra_metrics through cml_time_part(). */
    void (*launch_part)(void *ctx, int part);
    /* Optional (NULL: none). Course code that puts back the state a launch starts from, called
     * before every timed sample of the student's launcher (prepare_student, in the process that
     * runs the student's code: the judge asks for it with a RUN of count 0) and of the baseline
     * (prepare_baseline, where the baseline runs), outside the sample: lab 3.2c moves its
     * managed table back to host memory, so that the timing measures the launch's migration
     * and not the move back. launch_student and launch_baseline must still start from that
     * state by themselves (an untimed launch is not prepared); a prepare only takes the cost of
     * getting there out of the samples. A timed sample of such an exercise holds one launch.
     * The judge prepares before it loads the sample's inputs and poisons its output, so a
     * prepare must not depend on them. */
    void (*prepare_student)(void *ctx);
    void (*prepare_baseline)(void *ctx);
    /* CML_EX_* bits (0: none). */
    unsigned flags;
    /* The student's code the exercise calls, as `lab --list` gives it to the grader (its only
     * description: lab.toml does not repeat it): the launchers, comma-separated C names as
     * lab.h declares them (e.g. "stencil_constant_set_coefficients,stencil_constant"; the
     * judge's stand-ins are made from them, so a launcher left out fails the judge's link),
     * and the __global__ kernel whose SASS the static checks read (NULL: none). */
    const char *launchers;
    const char *kernel;
} cml_exercise;

/* Inside extra_metrics only: runs the exercise's launch_part(ctx, part) once in the process
 * that holds the student's code and returns its wall time in ms on the caller's clock, from
 * the request to the synchronised answer. In a judged run the request crosses to the student's
 * process and back, which adds the same exchange (about 0.15 ms on an H200) to every part:
 * compare parts by their difference. The exercise prepares the part's buffers (poison, L2
 * flush) itself before the call. A failed launch ends the run with its error, as any
 * launch does. */
double cml_time_part(int part);

/* cml_exercise.dim_max for sizes passed as int, with room for a tile's worth of indices
 * past the end (2^31 - 64). */
#define CML_INT_SIZE_MAX 2147483583LL

/* The bound on an array's elements (cml_exercise.arrays): 2^31, so that every linear index
 * fits an int. */
#define CML_MAX_ELEMS 2147483648LL

/* cml_exercise.flags */
/* The inputs do not all live in the buffers of cml_dev_alloc (setup() also hands them to the
 * student's code, e.g. coefficients uploaded to __constant__ memory), so the judge times
 * every repetition on the case's own inputs instead of rotating input sets (cml_judge.c). */
#define CML_EX_FIXED_INPUTS 1u
/* The output is a sum of products of the inputs (matmul, a convolution, a stencil with
 * non-negative weights, in * scale + bias): the baseline run on the inputs' absolute values
 * gives each output's magnitude, sum |products| (cml_compare's mag), so the judge's check of
 * a launch on fresh inputs holds it to the exercise's own tolerance, gamma * mag + abs_floor
 * for each of the two results (cml_fresh.h). Without it: gamma 0 compares within 2 abs_floor,
 * anything else within 5 % of the output's spread. */
#define CML_EX_LINEAR 2u
/* setup() reads the host values of its cml_input_uniform inputs only to compute the reference
 * (nothing the launchers read is made from them on the host). The student's process, whose
 * reference nobody compares, then gets zeros in their place instead of reading them back from
 * the judge's buffers (an 8192 x 8192 image: 256 MB while the judge holds the GPU alone;
 * cml_setup.h, cml_input_uniform). Not for inputs uploaded elsewhere by setup() (__constant__
 * tables, textures): those need the values. */
#define CML_EX_REFERENCE_ONLY_INPUTS 4u

/* 1 when this run times the student's launch (--time), 0 otherwise. For a figure that only a
 * timed run needs and that costs a run of its own (lab 3.3's cuBLAS roof, timed by the judge in
 * extra_metrics): untimed correctness runs skip it. */
int cml_run_timed(void);

/* 0 in the judge, the course's process that never runs student code, 1 elsewhere. A
 * setup() that hands inputs to the student's code (stencil_constant's coefficients) does so
 * only when this is 1. */
int cml_runs_student_code(void);

/* Runs the lab binary. Returns the process exit status (docs/protocol.md):
 * 0 a run document with status "ok" or "wrong" was written, 2 usage error (status
 * "error", kind "usage"; kind "setup" when setup() rejected the size, and only then; also
 * when the document itself could not be written), 3 no CUDA device (status "no_device"), 4 a
 * course bug (kind "harness": setup() filled *p inconsistently, asked for more than
 * CML_DEVMEM_MAX device buffers, or the baseline computed a wrong result) or host memory run
 * out (kind "host", below). A failed CUDA call writes status "error" (kind "cuda", or "launch"
 * when the check right after a launch or the timing caught it) and exits with 4 from inside
 * the failure handler. Kind "cuda" with CUDA's "out of memory" is a device allocation's
 * alone, which the grader reads as the GPU's memory full (a judge's is made again, design
 * notes 84 and 88): host memory that runs out is kind "host" wherever the course's code meets
 * it (design note 84): in setup() (cml_setup.h's allocations, or cml_no_host_memory returned
 * for a reference's own), outside it (a finish() or extra_metrics() taking scratch), a
 * page-locked buffer of the course's (CML_CHECK_PINNED: cudaMallocHost's "out of memory" is
 * the host's), the timing's samples (cml_timing.h), a percentile's sorted copy (cml_stats.h)
 * and the case's result buffer.
 * Ownership: the driver runs setup() through cml_problem_setup (cml_setup.h) and releases
 * the problem exactly once after a setup() that returned NULL, before returning (not from
 * the failure handler: the process then ends, and nothing needs freeing). What setup() took
 * through cml_setup.h is freed then; anything else it holds (d_out, h_ref, h_mag, check_idx,
 * ctx when not the driver's) must stay valid until its teardown(). */
int cml_lab_main(int argc, char **argv, const char *lab_id, const cml_exercise *exercises,
                 int n_exercises);

#ifdef __cplusplus
}
#endif

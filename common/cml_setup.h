/* cml_setup.h — what an exercise's setup() takes from the driver, and the driver frees.
 *
 * Every allocation below belongs to the problem it was made for, and the driver frees it on
 * every path: after the run, when setup() returns a message, when the judge drops an input
 * set. So a setup() has no failure path of its own, and an exercise needs a teardown() only
 * for what it holds besides (a CUDA array, a texture object, a stream):
 *
 *     matmul_ctx *c = CML_NEW_CTX(p, matmul_ctx);            // p->ctx, zeroed
 *     const float *h_A = cml_input_uniform(p, &rng, &c->d_A, M * K, -1.0f, 1.0f); // + device
 *     cml_check_set *check = cml_check(p, M, N, &kSample, 1, &rng);  // published in *p
 *     ... check->ref[i] = reference at cml_check_set_pos(check, i) ...
 *     cml_output(p, &c->d_C, M, N);                           // d_out, out_ref, n_out, out_cols
 *
 * Device buffers come from cml_dev_alloc (cml_devmem.h), in the order setup() asks for them,
 * so that a judged run's two processes agree on them. Host memory that runs out ends the
 * setup with cml_no_host_memory as its message, which the driver reports with status "error",
 * kind "host" (cml_setup_ran_out_of_host; before design note 84's follow-up it was kind
 * "setup", which says the exercise rejected the size); outside setup() (a finish() or
 * extra_metrics() taking scratch) it ends the run with status "error", kind "host" too. Never
 * CUDA's "out of memory" of kind "cuda", a device allocation's. A failed CUDA call goes to the
 * failure handler (CML_CHECK), as everywhere.
 *
 * Source: the allocate -> initialise -> copy -> launch -> verify -> free order of NVIDIA
 * cuda-samples, with the free owned by the caller (an arena per problem).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cml_lab.h"
#include "cml_rng.h"
#include "cml_sample.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The setup's message where host memory ran out: the driver's own allocations' (below), and
 * the one a setup() returns where memory it took elsewhere ran out (a reference's temporaries
 * from malloc). (A page-locked allocation's, CML_CHECK_PINNED, has its own.) */
extern const char cml_no_host_memory[];

/* Whether `message`, cml_problem_setup's, says that host memory ran out in the setup rather
 * than that the exercise rejected the size: the driver then writes kind "host" (exit 4), not
 * kind "setup" (exit 2). */
int cml_setup_ran_out_of_host(const char *message);

/* Where the failure that `message` (the last cml_problem_setup's) names happened, as
 * "file:line" of its caller, as CML_CHECK gives it: a page-locked allocation's in setup()
 * (CML_CHECK_PINNED); NULL for any other message (the exercise's own, a size over its bound,
 * the driver's own allocations, which name no line of the exercise). The driver writes it as
 * error.where. In a static buffer, until the next cml_problem_setup. */
const char *cml_setup_failed_where(const char *message);

/* Checks a page-locked host allocation of course code (cudaMallocHost, cudaHostAlloc; lab 3.2's
 * staging buffers, the judge's result buffer) as CML_CHECK does, but for
 * cudaErrorMemoryAllocation, which there is the host's memory (pages it could not lock), not the
 * GPU's: inside setup() the setup ends as out of host memory, outside it the run ends (kind
 * "host" either way, message "out of page-locked host memory", where the caller's file:line
 * (inside setup(): cml_setup_failed_where); never CUDA's "out of memory" of kind "cuda", which
 * the grader reads as the GPU's memory full). The buffer stays the caller's, freed with
 * cudaFreeHost. */
#define CML_CHECK_PINNED(expr) cml_check_pinned((expr), #expr, __FILE__, __LINE__)
void cml_check_pinned(cudaError_t err, const char *expr, const char *file, int line);

/* The exercise's context: `bytes` of zeroed host memory, kept until the problem is released,
 * and set as p->ctx. */
void *cml_new_ctx(cml_problem *p, size_t bytes);
#define CML_NEW_CTX(p, type) ((type *)cml_new_ctx((p), sizeof(type)))

/* Zeroed host memory kept until the problem is released (tables the launchers read). */
void *cml_host(cml_problem *p, size_t bytes);

/* Host memory freed when setup() returns (inputs on their way to the device, a reference's
 * temporaries); uninitialised. */
void *cml_scratch(cml_problem *p, size_t bytes);

/* Host memory from malloc that something else allocated (a decoded image) handed to the
 * driver as scratch: freed when setup() returns, on every path, the out-of-memory jump
 * included. NULL is allowed. Returns ptr. */
void *cml_scratch_adopt(cml_problem *p, void *ptr);

/* n floats of scratch drawn uniformly in [lo, hi) from rng (cml_rng_fill_uniform_f32). */
float *cml_scratch_uniform(cml_problem *p, cml_rng *rng, size_t n, float lo, float hi);

/* A device buffer of `bytes` (cml_dev_alloc), freed when the problem is released. A setup()
 * asking for more than CML_DEVMEM_MAX of them (cml_devmem.h) is a course bug: the run ends with
 * status "error", kind "harness", a message naming CML_DEVMEM_MAX (cml_lab_fail_harness). */
void *cml_device(cml_problem *p, size_t bytes);

/* cml_device(p, bytes) holding a copy of the host bytes at src. */
void *cml_device_copy(cml_problem *p, const void *src, size_t bytes);

/* An input drawn uniform in [lo, hi) from rng: n floats of scratch (returned, for the
 * reference), copied to a device buffer (cml_device) stored in *slot, the field of the
 * exercise's context the launchers read. The driver records the slot (p->fresh): a judged
 * timing gives each timed launch inputs of its own through it, drawn from the same
 * distribution on the device (cml_fresh.h), so a result kept from other inputs is wrong.
 * Declare every input this way that is drawn uniform and read only through its slot. In the
 * student's process the buffer is the judge's, already holding the values: they are read
 * back from it, not drawn again (cml_devmem_importing), or, for an exercise flagged
 * CML_EX_REFERENCE_ONLY_INPUTS, zeros are returned in their place (that process's reference
 * is never compared). */
const float *cml_input_uniform(cml_problem *p, cml_rng *rng, float **slot, size_t n, float lo,
                               float hi);

/* An input drawn on the device only, for a reference that reads a sample of its positions:
 * where cml_input_uniform's scratch holds every value, the host keeps the generator's state,
 * and cml_view_at gives a position's value. */
typedef struct cml_uniform_view {
    uint64_t state; /* the generator's state before the input's first draw */
    size_t n;
    float lo, hi;
    int zeros; /* every value reads 0: where cml_input_uniform returns zeros (below) */
} cml_uniform_view;

/* cml_input_uniform's input (the same values in the device buffer *slot, the same stream
 * consumed after it, the slot recorded in p->fresh), drawn on the device (cml_fresh_draw from
 * the generator's own state: the host's draw, bit for bit), with no host array: no n host
 * draws, page faults or copy up (issue 15: a 8192 x 8192 input, 64 M draws and 256 MiB, twice
 * per timed case of a judge's set-up). In the student's process the buffer is the judge's,
 * already holding the values, and nothing is drawn; there, for an exercise flagged
 * CML_EX_REFERENCE_ONLY_INPUTS, the view's values read as zeros, as cml_input_uniform's do
 * (that process's reference is never compared, and its set-up runs while the GPU is held). */
cml_uniform_view cml_input_uniform_view(cml_problem *p, cml_rng *rng, float **slot, size_t n,
                                        float lo, float hi);

/* Value i of a view's input (host; i < v->n). */
static inline float cml_view_at(const cml_uniform_view *v, size_t i) {
    return v->zeros ? 0.0f : cml_rng_uniform_at(v->state, i, v->lo, v->hi);
}

/* The (2R + 1) x (2R + 1) neighbourhood of (y, x) in a view's image of height x width
 * floats, row-major, into patch: zeros outside the image (a stencil's zero padding). */
void cml_view_patch(const cml_uniform_view *v, size_t width, size_t height, size_t y, size_t x,
                    int R, float *patch);

/* Every value of a view's input in n floats of scratch, for a reference that reads every
 * position (one host draw of the input, as cml_input_uniform's); zeros, untouched, for a
 * view whose values read as zeros. */
const float *cml_view_values(cml_problem *p, const cml_uniform_view *v);

/* Driver setting (the judge's input sets; harnesses never call it): with `on`, the
 * cml_input_uniform inputs of the setups that follow are drawn on the device (cml_fresh_draw,
 * a seed from the caller's rng: the same distribution, not the host's values; a
 * cml_input_uniform_view's, the host stream's, its view reading zeros) and their host
 * scratch is zeros no one touched: a set nobody computes a reference for
 * (cml_check_set_minimal), whose inputs the judge overwrites before any launch reads them,
 * costs no host draw, page faults or copy (issue 15: 200 M floats a lab 3.3 grade). 0 restores
 * the default. */
void cml_setup_inputs_on_device(int on);

/* Points the context at one launch's buffers: its output slot (p->out_ref, when it has one)
 * at out, and the slots of its first n_ins fresh inputs (p->fresh) at ins[0..n_ins). A judged
 * timing's launch i reads its own (cml_judge.c, cml_worker.c); launch 0's are the case's. */
void cml_problem_point(const cml_problem *p, float *out, float *const *ins, int n_ins);

/* The output under test: a device buffer of rows * cols floats, stored in *slot (the field of
 * the exercise's context the launchers read), and p->d_out, p->out_ref = slot, p->n_out,
 * p->out_cols. slot NULL: the launchers find the output elsewhere, out_ref stays NULL (one
 * launch per judged sample). Returns the buffer. */
float *cml_output(cml_problem *p, float **slot, size_t rows, size_t cols);

/* The positions checked on a (rows, cols) output and their reference arrays
 * (cml_check_set_init: every position when sample is NULL, else a sample drawn from rng),
 * published in *p (check_idx, n_check, h_ref, h_mag) and freed with the problem. setup() fills
 * ref[i] (and mag[i] when with_mag) for position cml_check_set_pos(set, i). */
cml_check_set *cml_check(cml_problem *p, size_t rows, size_t cols, const cml_sample_spec *sample,
                         int with_mag, cml_rng *rng);

/* The first dimension of `size` over its bound in ex->dim_max, or the first of ex->arrays with
 * CML_MAX_ELEMS elements or more, as a message ("R must be at most 4 (lab.h)", in a static
 * buffer); NULL when the size is within every bound. */
const char *cml_size_over_limit(const cml_exercise *ex, const long long *size);

/* The driver's side. cml_problem_setup zeroes *p, checks the size against ex->dim_max, runs
 * ex->setup(p, size, seed) and frees its scratch. It returns NULL, or the message that stopped
 * the setup (the exercise's own, a size over dim_max, or running out of host memory); then
 * everything the setup took is already freed. cml_problem_release runs ex->teardown (when
 * there is one) and frees everything the problem took; safe on a released or zeroed problem. */
const char *cml_problem_setup(const cml_exercise *ex, cml_problem *p, const long long *size,
                              uint64_t seed);
void cml_problem_release(const cml_exercise *ex, cml_problem *p);

/* How many allocations the problem holds (for tests). */
size_t cml_problem_owned(const cml_problem *p);

#ifdef __cplusplus
}
#endif

/* cml_lab_internal.h — what the driver's files share; not for harnesses.
 *
 *   cml_lab.c     the command line, the run document, a plain run (lab --exercise ...)
 *   cml_judge.c   a judged run: the course's process owns inputs, reference, verification,
 *                 timing and the document; the student's launches happen in another process
 *   cml_worker.c  that other process: lab --serve FD
 */
#pragma once

#include <sys/types.h>

#include "cml_compare.h"
#include "cml_device.h"
#include "cml_lab.h"
#include "cml_launch_limits.h"
#include "cml_options.h"
#include "cml_timing.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cml_role {
    CML_ROLE_PLAIN = 0, /* lab --exercise: everything in one process (compute-sanitizer's runs) */
    CML_ROLE_JUDGE,     /* judge --exercise ... --peer FD */
    CML_ROLE_WORKER,    /* lab --serve FD */
    CML_ROLE_NULL       /* judge --serve-null FD */
} cml_role;

/* The run's context: everything a document needs, also from inside the failure handler. */
typedef struct cml_run_ctx {
    const char *lab_id;
    cml_mode mode;
    cml_role role;
    int peer_fd;               /* the socket of a judged run, -1 otherwise */
    const char *exercise_name; /* as given on the command line; NULL when not given */
    const cml_exercise *ex;    /* NULL when unknown */
    long long size[CML_MAX_DIMS];
    int n_size;
    uint64_t seed;
    const char *json_path; /* NULL: standard output */
    int have_device;
    cml_device_facts device;
    int in_launch;   /* 1 while checking a student or baseline launch: failures are "launch" */
    void *part_ctx;  /* the case's ctx while extra_metrics may call cml_time_part() */
    int append_docs; /* a plain run of several cases: each document appended to json_path */
    int timed;       /* --time (cml_run_timed: extra_metrics that only a timed run needs) */
} cml_run_ctx;

extern cml_run_ctx cml_run;

/* What a judged run's document adds (docs/protocol.md, "Judged runs"). */
enum { CML_JUDGE_PHASES = 13 };
extern const char *const cml_judge_phase_names[CML_JUDGE_PHASES];

typedef struct cml_judged {
    const char *phase;         /* which run `check` is: "first", "timed" or "fresh" */
    double worker_overhead_ms; /* the exchange among the repetitions (median) */
    /* the same exchange before the student's process started, -1: not measured (design note
     * 95: a process left behind keeping the GPU busy slowed it 14 times, and so shrank every
     * student sample it was subtracted from) */
    double worker_overhead_alone_ms;
    /* what each student sample lost: worker_overhead_ms, at most worker_overhead_alone_ms plus
     * CML_EXCHANGE_ALLOWANCE_MS (cml_exchange.h, design note 96); -1: nothing timed */
    double worker_overhead_subtracted_ms;
    /* the judge's own empty launch (launch and synchronisation) before the student's process
     * started, -1: not measured (design note 97: another process's work on the GPU slows it) */
    double empty_launch_alone_ms;
    /* student samples no longer than worker_overhead_subtracted_ms (each then counted as
     * 1e-6 ms): the host's delays, not the launches */
    int under_overhead;
    int input_sets;            /* input sets the repetitions rotated among; 0: the case's own */
    int fresh_inputs;          /* inputs drawn anew for every launch (cml_fresh.h); 0: none */
    int verified_rep;          /* the timed repetition verified in full (0-based), -1: none */
    double
        baseline_alone_ms; /* the baseline before the student's process started, -1: not measured */
    /* Wall milliseconds of the judge's phases, on its own clock (where a timed run's time
     * goes: issue 15): set-up of the case, the timing's input sets, the wait at the gate, the
     * baseline alone, HELLO to READY (the student's process starting), the first verified
     * launch, the exercise's extra metrics, the timed repetitions; and two parts of the
     * repetitions: the samples themselves (every contender's, warm-up included) and the
     * checks of the student's launches (copies back, the baseline on fresh inputs, the
     * comparisons); the rest of the repetitions is preparing them (inputs, poison, the L2
     * flush); two parts of the input sets' phase: the empty-kernel server's start and the
     * baseline's check. -1: not reached. */
    double phase_ms[CML_JUDGE_PHASES];
    /* CPU milliseconds of the judge process (user and system, all its threads) in each of
     * the phases above but the parts (the repetitions', the input sets'), -1: not reached
     * (design note 55: where a batch's read phase spends its CPUs). */
    double phase_cpu_ms[CML_JUDGE_PHASES];
} cml_judged;

/* The GPU's memory when the judge relays the student's process's CUDA "out of memory", by
 * the judge's own cudaMemGetInfo (docs/protocol.md, error.gpu_memory; design note 89). */
typedef struct cml_gpu_memory {
    int known;          /* 0: the judge's cudaMemGetInfo failed ("gpu_memory": null) */
    size_t free_bytes;  /* free on the device then */
    size_t total_bytes; /* the device's total */
} cml_gpu_memory;

/* Whether a failure the student's process reported (its ERROR's kind and message, cleaned)
 * is a device allocation's: kind "cuda" and CUDA's own words for cudaErrorMemoryAllocation
 * ("out of memory"), the whole message. Then *mem is the GPU's free and total memory now,
 * by this process's own cudaMemGetInfo (known 0 where that call failed); nothing else of the
 * ERROR is read, so no figure of the student's process's can reach it. 0 otherwise (*mem
 * untouched, no CUDA call made). (cml_judge.c) */
int cml_judge_relayed_oom(const char *kind, const char *message, cml_gpu_memory *mem);

/* The contents of one document beyond the context. */
typedef struct cml_doc {
    const char *status;
    const char *err_kind; /* NULL: "error": null */
    const char *err_message, *err_where, *err_expr;
    const cml_launch_config *launch; /* NULL, or the failed launch ("error.launch") */
    const cml_compare_result *check; /* NULL: "check": null */
    const cml_problem *problem;      /* gamma, abs_floor, bytes, flops */
    int first_bad_unwritten;
    const cml_timing_stats *timing; /* NULL, or [3]: student, baseline, copy */
    const cml_metrics *extra;       /* NULL, or the exercise's own figures */
    const cml_judged *judged;       /* NULL: a plain run */

    /* NULL, or "error.gpu_memory" (cml_judge_relayed_oom) */
    const cml_gpu_memory *gpu_memory;
} cml_doc;

enum { CML_EXIT_OK = 0, CML_EXIT_USAGE = 2, CML_EXIT_NO_DEVICE = 3, CML_EXIT_FAILED = 4 };

/* Writes one run document (--json PATH through PATH.tmp and a rename, or standard output).
 * Returns CML_EXIT_OK, or CML_EXIT_USAGE after saying why on stderr. */
int cml_lab_write(const cml_doc *d);

/* Writes an error document; returns `code`, or CML_EXIT_USAGE when even that failed. */
int cml_lab_finish_error(const char *kind, const char *message, int code);

/* Writes a "no_device" document; returns CML_EXIT_NO_DEVICE (CML_EXIT_USAGE if unwritten). */
int cml_lab_no_device(void);

/* The host buffer of n floats a case's output is copied back into for its checks: page-locked
 * (cudaHostAlloc, freed with cudaFreeHost) or from malloc (freed with free). Host memory that
 * runs out ends the run with status "error", kind "host" (cml_lab_fail_host, CML_CHECK_PINNED),
 * never kind "harness" (a course bug) nor CUDA's "out of memory" of kind "cuda"; another error
 * of cudaHostAlloc goes to the failure handler. Never returns NULL. */
float *cml_lab_result_alloc(size_t n, int page_locked);

/* Writes the document of a setup that stopped with `message` (cml_problem_setup's): kind
 * "host" where host memory ran out (cml_setup_ran_out_of_host; exit 4, the run's machine, not
 * the case), where the caller's file:line for a page-locked allocation's
 * (cml_setup_failed_where), else null; kind "setup" where the exercise rejected the size (exit
 * 2). Returns the exit code (CML_EXIT_USAGE also when the document could not be written). */
int cml_lab_setup_failed(const char *message);

/* NULL, or what setup() filled in inconsistently (a course bug). */
const char *cml_lab_problem_error(const cml_problem *p);

/* One verified run in this process: poison the output (and d_raw), launch, check the launch,
 * finish (the exercise's, when it has one), copy back and compare (a plain run's student and
 * baseline, the judge's baseline). */
void cml_lab_verify(void (*launch)(void *), const cml_problem *p, float *h_got,
                    cml_compare_result *check);

/* Poisons the case's output and its raw buffer (d_raw) on the default stream. */
void cml_lab_poison(const cml_problem *p);

/* Runs the exercise's finish() (when it has one) after a launch that took run_ms. */
void cml_lab_finish_launch(const cml_problem *p, double run_ms);

/* How cml_time_part() reaches the student's launch_part in this role: set by the plain run
 * (a call in this process) and the judge (a request to the student's process) around
 * extra_metrics; NULL elsewhere. Returns the part's wall time in ms. */
extern double (*cml_part_timer)(int part);

/* Milliseconds on CLOCK_MONOTONIC. */
double cml_now_ms(void);

/* The exercise called `name` (NULL: none, or name NULL). */
const cml_exercise *cml_lab_find_exercise(const char *name, const cml_exercise *exercises,
                                          int n_exercises);

/* Compares h_got (p->n_out floats) with the problem's reference. */
void cml_lab_compare(const cml_problem *p, const float *h_got, cml_compare_result *check);

/* The failure handler of every role (CML_CHECK): a document, or for the student's process
 * an ERROR message to the judge; then the process ends. */
void cml_lab_fail(cudaError_t err, const char *expr, const char *file, int line);

/* The failure of a host allocation the driver needs outside setup() (cml_setup.c: a finish()
 * or extra_metrics() taking scratch): status "error", kind "host", `message` (its own words,
 * "out of host memory ..."), where file:line, expr null; for the student's process an ERROR of
 * kind "host" to the judge. Never CUDA's "out of memory" of kind "cuda", which is a device
 * allocation's alone (the grader makes a judge's of those an out-of-GPU-memory, design note
 * 84). Exits with 4; does not return. */
void cml_lab_fail_host(const char *message, const char *file, int line);

/* "file:line" in `out` (of `size` bytes), `file` without its folders: a failure's place as the
 * run document, the ERROR message and stderr give it (error.where). */
void cml_where(char *out, size_t size, const char *file, int line);

/* A course bug met where the driver cannot return (inside setup(): cml_setup.c, a setup() that
 * asks for more device buffers than the registry holds): as cml_lab_fail_host, with kind
 * "harness" (the grader: the course's fault, never retried as the GPU's memory full). Exits
 * with 4; does not return. */
void cml_lab_fail_harness(const char *message, const char *file, int line);

/* common/cml_null.cu: one launch of an empty kernel on the default stream. */
void cml_launch_null(void);

/* cml_judge.c: a judged run of exercise ex; with --case, case k is of exercise case_ex[k]. */
int cml_judge_run(const cml_options *opt, const cml_exercise *ex,
                  const cml_exercise *const *case_ex);
int cml_judge_serve_null(int sock);

/* The course's empty-kernel server of a judged timing (judge --serve-null FD, cml_judge.c): its
 * empty launches measure what the exchange with another process adds to a launch
 * (docs/protocol.md, timing.worker_overhead_ms). Zeroed with sock -1 before its first spawn. */
typedef struct cml_null_server {
    int sock;          /* the judge's end of its socket, -1 when none */
    pid_t pid;         /* its process */
    int ready;         /* its READY received (cml_null_server_await) */
    int ending;        /* told to end, not yet reaped (cml_judge.c) */
    char failure[768]; /* why its last start failed ("": none did), the end of a sentence */
    int out_of_memory; /* it failed for want of GPU memory (its ERROR: cuda, "out of memory") */
} cml_null_server;

/* Forks `exe` --serve-null (the judge's own program, /proc/self/exe) on a new socket pair,
 * without waiting for its READY: its CUDA context is made while the judge sets its cases up.
 * 0, or -1 with s->failure naming the call that failed and its errno's words (socketpair;
 * fork, EAGAIN where the processes are at their limit). Nothing when one is running already. */
int cml_null_server_spawn(cml_null_server *s, const char *exe);

/* Waits for the spawned server's READY: 0 when it came (now or before); else -1, the server
 * reaped (a later spawn starts another) and s->failure saying why: its ERROR where a call of its
 * own failed ("it failed before its READY: cuda: out of memory at cml_judge.c:299
 * (cudaFree(0))"), else how it ended (an exit status, 127 where `exe` could not be run; a
 * signal). -1 with s->failure the spawn's where none was spawned. */
int cml_null_server_await(cml_null_server *s);

/* Ends the run where the server could not be started (s->failure): status "error", kind
 * "harness", a message naming the server and the cause, where file:line (cml_lab_fail_harness;
 * by "judge": the grader stops the grading as the course's fault with these words). Never the
 * student's process's end (kind "worker", which the grader reports as its crash): no process of
 * the student's is involved. Where the server ran out of GPU memory (s->out_of_memory): the
 * judge's own out of memory instead (kind "cuda", "out of memory", cml_lab_fail), which the
 * grader grades again alone when the GPU was full beside other gradings (design note 88), as
 * for any of the judge's own allocations. Exits with 4; does not return. */
void cml_null_server_fail(const cml_null_server *s, const char *file, int line);

/* One empty launch of the READY server `s` (RUN `token`, its DONE awaited). Where it does not
 * answer (killed, or ended), the run ends as the course's failure: status "error", kind
 * "harness", a message naming the server and how it ended ("stopped answering during the
 * timing: it was killed by signal 9 (Killed)"), where file:line (cml_lab_fail_harness). Never
 * the student's process's end (kind "worker"): session 42's g140 killed the server during
 * lab 3.3's timing and the grader took its performance points from the solution. The server's
 * own ERROR (a failed launch) is given in its words; CUDA's out of memory is the judge's own
 * out of memory instead (kind "cuda", as cml_null_server_fail). The server is reaped (killed
 * where it has not ended a second after its socket's end). Exits with 4 where it fails;
 * returns when the server answered. */
void cml_null_server_run(cml_null_server *s, uint64_t token, const char *file, int line);

/* cml_worker.c */
int cml_worker_serve(int sock, const cml_exercise *exercises, int n_exercises);

#ifdef __cplusplus
}
#endif

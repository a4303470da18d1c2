/* cml_judge.c — a judged run: judge --exercise NAME --size ... --peer FD (docs/protocol.md,
 * "Judged runs").
 *
 * The judge is the lab's harness linked without the student's code (build/<lab>/judge; its
 * launchers are stubs). The student's code runs in another process, `lab --serve FD`
 * (cml_worker.c), on the other end of the socket FD, and is hostile: nothing that process
 * writes, prints or measures is believed. The judge
 *   - reads the device's facts itself;
 *   - runs the exercise's setup() with its buffers in an exportable memory pool
 *     (cml_devmem.h), the random positions it checks drawn from its own secret (so the
 *     student's process cannot know them), and hands the buffers to the student's process;
 *   - poisons the output, asks for one launch (RUN), reads the output back and compares it;
 *   - with --time, times the student (RUN .. DONE on its own clock), the baseline (in fewer
 *     repetitions where it only informs: --info-baseline) and a copy of the same bytes,
 *     interleaved, each repetition on fresh state: inputs no launch has
 *     seen (every launch's own, drawn on the device, when the exercise declared them with
 *     cml_input_uniform; else one of INPUT_SETS sets the judge drew from secret seeds,
 *     copied in just before), so a result kept from an earlier launch is wrong; the outputs
 *     poisoned (so a launch that skips work leaves poison), the L2 flushed, and the state
 *     the launch starts from put back first where the exercise has one (prepare_student in
 *     the student's process, a RUN of count 0; prepare_baseline here). After each
 *     student repetition PROBES random positions of the outputs must hold no poison (work
 *     still running when the student's process said DONE shows there), one launch is
 *     compared with the baseline (or the exercise's launch_check) on the same fresh inputs
 *     (cml_fresh.h), and one repetition drawn in secret is compared in full with the
 *     reference;
 *   - writes the run document.
 * A launch in another process pays what the exchange and the switch between the two
 * processes' GPU contexts add (about 0.15 ms on an H200, bench/h200-2026-12-01-judge/). The same
 * exchange with an empty kernel in a process of the course's (judge --serve-null) measures it in
 * the same run, and the student's samples are charged only what exceeds the judge's own empty
 * launch: the student's figure is then on the scale of the baseline's and the copy's (a
 * launch and its synchronisation on the judge's clock).
 *
 * Source: docs/design-notes.md, note 22 (the trust boundary).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cml_check.h"
#include "cml_devmem.h"
#include "cml_exchange.h"
#include "cml_fresh.h"
#include "cml_ipc.h"
#include "cml_lab_internal.h"
#include "cml_rng.h"
#include "cml_sample.h"
#include "cml_setup.h"
#include "cml_stats.h"

#define INPUT_SETS 2    /* input sets the timed repetitions rotate among */
#define DRAWS_PER_SET 4 /* seeds tried per set until its inputs differ from the case's */
#define PROBES 8        /* output positions probed after each timed student repetition */
/* A launch's output on fresh inputs against the baseline's on the same inputs, for an
 * exercise whose own tolerance the judge cannot model (not CML_EX_LINEAR, gamma not 0: lab
 * 3.4's texture resampling, lab 3.5's blur and Sobel): an element is wrong when it differs
 * by more than this fraction of the output's standard deviation (cml_fresh_compare). A
 * correct kernel stays far inside (texture weights in 9-bit fixed point: under 1 %); a result
 * computed from other inputs is off by about 1.4 times the spread almost everywhere. */
#define FRESH_TOLERANCE 0.05
#define WARMUP 2 /* untimed rounds first */
/* The device memory a timed run over several exercises sets up before its gate, at most
 * (judge_timed_cases), unless one case alone needs more: lab 3.2's l2_persist with its input
 * sets holds about 6 GiB, and a batch sets up one run per grading side by side. */
#define SETUP_BUDGET_BYTES ((size_t)6 << 30)

typedef struct input_set {
    cml_problem p;
    cml_devmem_registry reg;
} input_set;

typedef struct judge {
    int sock;
    const cml_exercise *ex;
    cml_problem p; /* the case: its buffers are the ones the student's process maps */
    cml_devmem_registry shared;
    float *h_got;
    uint64_t token;
    cml_rng secret;
    cml_msg_error err;    /* the student's process's last ERROR */
    cml_null_server null; /* the empty-kernel server of a timing (null.sock -1: none) */
    cudaMemPool_t pool;   /* the buffers the student's process maps */
    /* A timing's extra outputs and inputs (give_outputs): freed once the student's process
     * answered the next case's HELLO (it unmaps them then) or ended. */
    void *spare[CML_IPC_MAX_BATCH * (1 + CML_MAX_FRESH)];
    int n_spare;
} judge;

enum { ANSWERED = 0, REPORTED_ERROR = 1, GONE = -1 };

static uint64_t secret_seed(void) {
    uint64_t s = 0;
    if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s) {
        s = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() ^
            (uint64_t)(cml_now_ms() * 1e6);
    }
    return s;
}

/* `count` launches by the process behind `sock` (part: 0 the student's launcher, k >= 1 the
 * exercise's launch_part(k - 1)): ANSWERED (DONE with our token),
 * REPORTED_ERROR (its ERROR kept in *err), or GONE (it ended, or broke the protocol). */
static int remote_run(int sock, uint64_t token, uint32_t count, uint32_t part, cml_msg_error *err) {
    cml_msg_token run = {
        .head = {CML_IPC_MAGIC, CML_MSG_RUN}, .token = token, .count = count, .part = part};
    if (cml_ipc_send(sock, &run, sizeof run, -1) != 0) {
        return GONE;
    }
    union {
        cml_msg_token token;
        cml_msg_error error;
    } in;
    /* A timed run polls (the answer's time is measured); an untimed one sleeps, leaving the
     * CPU to the batch's other work while the student's kernel runs. */
    ssize_t got = cml_ipc_recv(sock, &in, sizeof in, NULL, cml_run.timed);
    cml_msg_type type = cml_ipc_type(&in, got);
    if (type == CML_MSG_DONE && in.token.token == token) {
        return ANSWERED;
    }
    if (type == CML_MSG_ERROR && err) {
        *err = in.error;
        return REPORTED_ERROR;
    }
    return GONE;
}

/* The student's process's answer to HELLO or OUTPUTS: ANSWERED (READY), REPORTED_ERROR
 * (its ERROR kept in j->err) or GONE. */
static int await_ready(judge *j) {
    union {
        cml_msg_token token;
        cml_msg_error error;
    } in;
    ssize_t got = cml_ipc_recv(j->sock, &in, sizeof in, NULL, 0);
    cml_msg_type type = cml_ipc_type(&in, got);
    if (type == CML_MSG_READY) {
        return ANSWERED;
    }
    if (type == CML_MSG_ERROR) {
        j->err = in.error;
        return REPORTED_ERROR;
    }
    return GONE;
}

const char *const cml_judge_phase_names[CML_JUDGE_PHASES] = {
    "setup",  "input_sets", "gate",   "baseline_alone", "hello",          "verify",
    "extra",  "timing",     "timing_samples", "timing_checks", "null_server", "baseline_check",
    "verify_run"};
enum {
    PH_SETUP,
    PH_SETS,
    PH_GATE,
    PH_ALONE,
    PH_HELLO,
    PH_VERIFY,
    PH_EXTRA,
    PH_TIMING,
    PH_T_SAMPLES, /* parts of PH_TIMING (cml_judged.phase_ms) */
    PH_T_CHECKS,
    PH_S_NULL,     /* the wait for the empty-kernel server before the gate: in no phase */
    PH_S_BASELINE, /* part of PH_SETS */
    PH_V_RUN /* part of PH_VERIFY: the student's launch, the RUN sent to its DONE */
};
_Static_assert(PH_V_RUN + 1 == CML_JUDGE_PHASES, "every phase has its name");

/* A judged run's record before anything is known: the first launch's check, no sample
 * verified, nothing timed, no phase reached. */
static cml_judged judged_defaults(void) {
    cml_judged judged = {.phase = "first",
                         .verified_rep = -1,
                         .baseline_alone_ms = -1.0,
                         .worker_overhead_alone_ms = -1.0,
                         .worker_overhead_subtracted_ms = -1.0,
                         .empty_launch_alone_ms = -1.0};
    for (int i = 0; i < CML_JUDGE_PHASES; ++i) {
        judged.phase_ms[i] = -1.0;
        judged.phase_cpu_ms[i] = -1.0;
    }
    return judged;
}

int cml_judge_relayed_oom(const char *kind, const char *message, cml_gpu_memory *mem) {
    if (strcmp(kind, "cuda") != 0 ||
        strcmp(message, cudaGetErrorString(cudaErrorMemoryAllocation)) != 0) {
        return 0;
    }
    size_t free_bytes = 0, total_bytes = 0;
    const int known = cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess;
    if (!known) {
        (void)cudaGetLastError(); /* not sticky: cleared, as CML_CHECK would not */
    }
    *mem = (cml_gpu_memory){.known = known,
                            .free_bytes = known ? free_bytes : 0,
                            .total_bytes = known ? total_bytes : 0};
    return 1;
}

/* The document for a student's process that reported an error or is gone. A device
 * allocation's failure there (CUDA's "out of memory") carries the GPU's free and total memory
 * by the judge's own count then (error.gpu_memory): whether the GPU was nearly full, which a
 * batch reads as other gradings' doing (docs/design-notes.md, note 89). */
static int finish_remote_failure(judge *j, int rc) {
    if (rc == REPORTED_ERROR) {
        char kind[16], message[256], where[128], expr[256];
        cml_ipc_clean(kind, sizeof kind, j->err.kind, sizeof j->err.kind);
        cml_ipc_clean(message, sizeof message, j->err.message, sizeof j->err.message);
        cml_ipc_clean(where, sizeof where, j->err.where, sizeof j->err.where);
        cml_ipc_clean(expr, sizeof expr, j->err.expr, sizeof j->err.expr);
        /* Only the kinds a launch can report; anything else is the process's own word (its
         * "host": its own host memory ran out, within the limit it shares with the student's
         * code, relayed as "worker" like its set-up's failures). */
        const char *k = strcmp(kind, "launch") == 0 ? "launch"
                        : strcmp(kind, "cuda") == 0 ? "cuda"
                                                    : "worker";
        /* The failed launch, as the student's process recorded it: shown, never scored; its
         * limits are checked against the judge's own device facts (cml_lab.c, emit_launch). */
        cml_launch_config launch = j->err.launch;
        cml_ipc_clean(launch.kernel, sizeof launch.kernel, j->err.launch.kernel,
                      sizeof j->err.launch.kernel);
        cml_gpu_memory mem;
        const int oom = cml_judge_relayed_oom(k, message, &mem);
        cml_judged judged = judged_defaults();
        cml_doc d = {.status = "error",
                     .err_kind = k,
                     .err_message = message,
                     .err_where = where[0] ? where : NULL,
                     .err_expr = expr[0] ? expr : NULL,
                     .launch = j->err.has_launch && strcmp(k, "worker") != 0 ? &launch : NULL,
                     .gpu_memory = oom ? &mem : NULL,
                     .judged = &judged};
        cml_lab_write(&d);
        return CML_EXIT_FAILED;
    }
    cml_judged judged = judged_defaults();
    cml_doc d = {.status = "error",
                 .err_kind = "worker",
                 .err_message = "the student's process ended or stopped answering",
                 .judged = &judged};
    cml_lab_write(&d);
    return CML_EXIT_FAILED;
}

/* A line for the grader on standard output (the documents' pipe), flushed: "gate"
 * (await_gate), or "launch" as the RUN of an untimed case goes out and "landed" once its
 * answer is in (or the process is gone). The grader limits the time between those two
 * (lab.toml's launch_timeout_s): a hung launch ends its case then, not at the case's whole
 * limit, which also covers the judge's own set-up. "done" ends a timed run over the lab once
 * the student's process is gone and nothing of the judge's is left on the GPU but its
 * context (judge_timed_cases). */
static void grader_line(const char *line) {
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* Poison, one remote launch, finish, read back, compare against `ref` (whose output buffer is
 * the shared one). Returns ANSWERED with *check filled, or the remote failure. `announce`:
 * the launch between the lines "launch" and "landed" (judge_cases). */
static int remote_verify(judge *j, const cml_problem *ref, cml_compare_result *check,
                         double *run_ms, int announce) {
    const cml_problem *p = &j->p;
    cml_lab_poison(p);
    CML_CHECK(cudaDeviceSynchronize());
    if (announce) {
        grader_line("launch");
    }
    const double t0 = cml_now_ms();
    int rc = remote_run(j->sock, ++j->token, 1, 0, &j->err);
    if (run_ms != NULL) {
        *run_ms = cml_now_ms() - t0;
    }
    if (announce) {
        grader_line("landed");
    }
    if (rc != ANSWERED) {
        return rc;
    }
    cml_lab_finish_launch(p, cml_now_ms() - t0);
    CML_CHECK(cudaMemcpy(j->h_got, p->d_out, p->n_out * sizeof(float), cudaMemcpyDeviceToHost));
    cml_lab_compare(ref, j->h_got, check);
    return ANSWERED;
}

/* ---------------------------------------------------------------------------------------
 * The course's empty-kernel server (judge --serve-null FD). */

int cml_judge_serve_null(int sock) {
    prctl(PR_SET_NAME, "judge-null", 0, 0, 0); /* else "exe", from /proc/self/exe */
    CML_CHECK(cudaFree(0)); /* the context, before READY */
    /* One empty launch before READY too: its module is loaded now (lazy loading, CUDA's
     * default), so a failure there (out of GPU memory beside a hog) comes through
     * cml_null_server_await as this server's ERROR, not as a failed RUN after the gate, which
     * the judge reads as the student's process gone (design note 91). */
    cml_launch_null();
    CML_CHECK_LAUNCH();
    CML_CHECK(cudaDeviceSynchronize());
    if (cml_ipc_send_token(sock, CML_MSG_READY, 0) != 0) {
        return CML_EXIT_FAILED;
    }
    /* It sleeps until the first RUN, which comes after the judge's gate (a batch's judges
     * wait there in turn, up to minutes: 13 servers polling took 13 of 16 cores in session 17's
     * g66), then polls: each answer is timed, and the first is the timing's warm-up. */
    for (int spin = 0;; spin = 1) {
        cml_msg_token in;
        ssize_t got = cml_ipc_recv(sock, &in, sizeof in, NULL, spin);
        cml_msg_type type = cml_ipc_type(&in, got);
        if (type != CML_MSG_RUN) {
            return CML_EXIT_OK;
        }
        cml_launch_null();
        CML_CHECK_LAUNCH();
        if (cml_ipc_send_token(sock, CML_MSG_DONE, in.token) != 0) {
            return CML_EXIT_OK;
        }
    }
}

/* Where the server could not be had: s->failure, as a sentence's end. */
static void null_failure(cml_null_server *s, const char *what, int err) {
    snprintf(s->failure, sizeof s->failure, "%s: %s", what, strerror(err));
}

/* The server's own ERROR (a call of its own failed, cml_lab_fail) in s->failure: "it failed
 * WHEN: kind: message at where (expr)"; s->out_of_memory where it was CUDA's out of memory. */
static void null_error_words(cml_null_server *s, const cml_msg_error *e, const char *when) {
    char kind[16], message[256], where[128], expr[256];
    cml_ipc_clean(kind, sizeof kind, e->kind, sizeof e->kind);
    cml_ipc_clean(message, sizeof message, e->message, sizeof e->message);
    cml_ipc_clean(where, sizeof where, e->where, sizeof e->where);
    cml_ipc_clean(expr, sizeof expr, e->expr, sizeof e->expr);
    snprintf(s->failure, sizeof s->failure, "it failed %s: %s: %s%s%s%s%s%s", when, kind, message,
             where[0] ? " at " : "", where, expr[0] ? " (" : "", expr, expr[0] ? ")" : "");
    s->out_of_memory = strcmp(kind, "cuda") == 0 && strcmp(message, "out of memory") == 0;
}

/* How the reaped server ended, in s->failure ("it exited with status 4" or "it was killed by
 * signal 9 (Killed)", then `when`); 0 where its wait status is neither. */
static int null_end_words(cml_null_server *s, int status, const char *when) {
    if (WIFEXITED(status)) {
        snprintf(s->failure, sizeof s->failure, "it exited with status %d%s",
                 WEXITSTATUS(status), when);
        return 1;
    }
    if (WIFSIGNALED(status)) {
        snprintf(s->failure, sizeof s->failure, "it was killed by signal %d (%s)%s",
                 WTERMSIG(status), strsignal(WTERMSIG(status)), when);
        return 1;
    }
    return 0;
}

/* Ends the run on the server's failure (s->failure, after `lead`): its CUDA out of memory as
 * the judge's own, `context` naming it (design note 88); else the course's, kind "harness". */
static void null_fail(const cml_null_server *s, const char *context, const char *lead,
                      const char *file, int line) {
    if (s->out_of_memory) {
        cml_lab_fail(cudaErrorMemoryAllocation, context, file, line);
    }
    char message[1024];
    snprintf(message, sizeof message,
             "the judge's empty-kernel server (judge --serve-null: the course's process, not the "
             "submission's) %s: %s",
             lead, s->failure[0] ? s->failure : "no cause recorded");
    cml_lab_fail_harness(message, file, line);
}

int cml_null_server_spawn(cml_null_server *s, const char *exe) {
    if (s->sock >= 0) {
        return 0;
    }
    s->out_of_memory = 0;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) {
        null_failure(s, "socketpair", errno);
        return -1;
    }
    fcntl(sv[0], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid < 0) {
        null_failure(s, "fork", errno); /* EAGAIN: the user's processes at their limit */
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        char fd[16];
        snprintf(fd, sizeof fd, "%d", sv[1]);
        execl(exe, "judge", "--serve-null", fd, (char *)NULL);
        _exit(127);
    }
    close(sv[1]);
    s->sock = sv[0];
    s->pid = pid;
    s->ready = 0;
    return 0;
}

int cml_null_server_await(cml_null_server *s) {
    if (s->sock < 0) {
        return -1; /* (s->failure: the spawn's) */
    }
    if (s->ready) {
        return 0;
    }
    union {
        cml_msg_token token;
        cml_msg_error error;
    } in;
    const ssize_t got = cml_ipc_recv(s->sock, &in, sizeof in, NULL, 0);
    const cml_msg_type type = cml_ipc_type(&in, got);
    if (type == CML_MSG_READY) {
        s->ready = 1;
        return 0;
    }
    close(s->sock);
    s->sock = -1;
    int status = 0;
    const int reaped = waitpid(s->pid, &status, 0) == s->pid;
    const int wait_errno = errno;
    if (type == CML_MSG_ERROR) { /* a call of its own failed (cml_lab_fail): its words */
        null_error_words(s, &in.error, "before its READY");
    } else if (!reaped) {
        snprintf(s->failure, sizeof s->failure, "no READY came from it, and waitpid: %s",
                 strerror(wait_errno));
    } else if (!null_end_words(s, status, " before its READY")) {
        snprintf(s->failure, sizeof s->failure, "no READY came from it (wait status %d)", status);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        const size_t used = strlen(s->failure);
        snprintf(s->failure + used, sizeof s->failure - used, " (the program could not be run)");
    }
    return -1;
}

void cml_null_server_fail(const cml_null_server *s, const char *file, int line) {
    null_fail(s, "the context of the judge's empty-kernel server (judge --serve-null)",
              "could not be started for the timing", file, line);
}

void cml_null_server_run(cml_null_server *s, uint64_t token, const char *file, int line) {
    cml_msg_error err;
    memset(&err, 0, sizeof err);
    const int answer = remote_run(s->sock, token, 1, 0, &err);
    if (answer == ANSWERED) {
        return;
    }
    s->failure[0] = '\0';
    s->out_of_memory = 0;
    if (answer == REPORTED_ERROR) { /* its launch failed (cml_lab_fail): its words */
        null_error_words(s, &err, "at a launch");
    }
    /* Its end: the socket's end comes as its descriptors close, a moment before it can be
     * reaped, so a second is given for that; one that has not ended by then (hung) is killed,
     * never left behind the judge. */
    int status = 0, reaped = 0;
    for (int i = 0; i < 100 && !(reaped = waitpid(s->pid, &status, WNOHANG) == s->pid); ++i) {
        usleep(10000);
    }
    if (!reaped) {
        kill(s->pid, SIGKILL);
        (void)waitpid(s->pid, NULL, 0);
    }
    close(s->sock);
    s->sock = -1;
    if (s->failure[0] == '\0' && !(reaped && null_end_words(s, status, ""))) {
        snprintf(s->failure, sizeof s->failure,
                 "it answered no DONE and had not ended a second later, so it was killed");
    }
    null_fail(s, "a launch of the judge's empty-kernel server (judge --serve-null)",
              "stopped answering during the timing", file, line);
}

/* The empty-kernel server, started if need be; 0 when it answered READY (judge_timed_cases
 * spawns it before the set-up and awaits it before the gate; judge_time asks again). */
static int start_null_server(judge *j) {
    if (cml_null_server_spawn(&j->null, "/proc/self/exe") != 0) {
        return -1;
    }
    return cml_null_server_await(&j->null);
}

/* Tells the empty-kernel server to end without waiting for it (reap_null_server waits): one
 * not yet READY (the judge leaving on an error during its set-up) is killed, not left making
 * its CUDA context after the judge has ended, outside its grading's hold (design note 61).
 * Nothing when none. */
static void end_null_server(judge *j) {
    cml_null_server *s = &j->null;
    if (s->sock >= 0) {
        if (s->ready) {
            (void)cml_ipc_send_token(s->sock, CML_MSG_QUIT, 0);
        } else {
            kill(s->pid, SIGKILL);
        }
        close(s->sock);
        s->sock = -1;
        s->ending = 1;
    }
}

/* Waits until a server end_null_server told to end is gone. Nothing when none. */
static void reap_null_server(judge *j) {
    if (j->null.ending) {
        waitpid(j->null.pid, NULL, 0);
        j->null.ending = 0;
    }
}

/* Ends the empty-kernel server and waits until it is gone. Nothing when none. */
static void stop_null_server(judge *j) {
    end_null_server(j);
    reap_null_server(j);
}

/* ---------------------------------------------------------------------------------------
 * Timing.
 *
 * A timed sample of the student is `batch` launches back to back, launch i writing output
 * buffer i (cml_problem.out_ref), all on one input set: the switch between the two
 * processes' GPU contexts costs about 0.15 ms and varies by tens of microseconds, so a
 * sample lasts at least TARGET_SAMPLE_MS and that variation is a small part of it. With
 * fresh inputs the baseline's sample is the first `baseline_batch` of those launches, as
 * many as fit in TARGET_SAMPLE_MS by its own time alone, at least one (all `batch` without
 * them). Each
 * output is poisoned before the sample; the L2 is flushed once per sample, as the plain
 * timing does for batched samples (cml_timing.h). */

#define TARGET_SAMPLE_MS 2.0
#define BATCH_MEMORY_BYTES ((size_t)8 << 30) /* for the extra outputs and fresh inputs */

typedef struct batch_state {
    int batch;                      /* launches per sample of the student */
    int baseline_batch;             /* of the baseline: its first launches of the student's */
    int copy_batch;                 /* copies per sample of the copy roof */
    float *outs[CML_IPC_MAX_BATCH]; /* [0] the case's output, then the extra ones */
    /* Fresh inputs (cml_input_uniform): launch i of a sample reads ins[i][0..n_fresh), [0]
     * the case's own buffers, drawn on the device before every sample; n_fresh 0: every
     * launch reads the case's inputs, one of the input sets. */
    int n_fresh;
    float *ins[CML_IPC_MAX_BATCH][CML_MAX_FRESH];
    uint64_t seeds[CML_IPC_MAX_BATCH][CML_MAX_FRESH]; /* what each was drawn from */
    /* The baseline's own problem for the check of a launch: every buffer the judge's alone
     * (the student's process can write the shared ones, inputs included), its fresh inputs
     * drawn again from a launch's seeds. */
    cml_problem *own;
    float *mag; /* CML_EX_LINEAR: each output's sum |products|, computed there */
} batch_state;

/* 1 when the buffer [b, b + bytes) holds `ptr`. */
static int holds(const void *b, size_t bytes, const void *ptr) {
    return ptr != NULL && (const char *)ptr >= (const char *)b &&
           (const char *)ptr < (const char *)b + bytes;
}

/* 1 when shared buffer i holds the case's output or its raw output: not an input. */
static int is_output(const judge *j, int i) {
    return holds(j->shared.ptr[i], j->shared.bytes[i], j->p.d_out) ||
           holds(j->shared.ptr[i], j->shared.bytes[i], j->p.d_raw);
}

/* Copies one input set into the case's buffers, all but the outputs. */
static void load_inputs(judge *j, const input_set *s) {
    for (int i = 0; i < j->shared.n; ++i) {
        if (is_output(j, i)) {
            continue;
        }
        CML_CHECK(cudaMemcpyAsync(j->shared.ptr[i], s->reg.ptr[i], j->shared.bytes[i],
                                  cudaMemcpyDeviceToDevice, 0));
    }
}

/* The launch of the batch whose output still holds the poison at one of PROBES random
 * positions, or -1. */
static int probe_unwritten(judge *j, const batch_state *b) {
    for (int k = 0; k < PROBES; ++k) {
        const int i = (int)cml_rng_below(&j->secret, (uint64_t)b->batch);
        size_t pos = (size_t)cml_rng_below(&j->secret, j->p.n_out);
        float v;
        CML_CHECK(cudaMemcpy(&v, b->outs[i] + pos, sizeof v, cudaMemcpyDeviceToHost));
        if (cml_is_poison_f32(v)) {
            return i;
        }
    }
    return -1;
}

/* 1 when the timing gives every launch inputs of its own: the exercise declared some with
 * cml_input_uniform, and its output is the float buffer the baseline writes too (no raw
 * output that finish() turns into it). */
static int uses_fresh_inputs(const judge *j) {
    return j->p.n_fresh > 0 && j->p.d_raw == NULL && j->ex->finish == NULL &&
           !(j->ex->flags & CML_EX_FIXED_INPUTS);
}

/* Draws the fresh inputs of every launch of the batch, each from a seed of its own from the
 * kernel's random source (never j->secret's stream: a seed can be searched for from the
 * values it gave, and it must tell nothing about the next one or the judge's choices), but
 * launch 0's when `keep_case` (its inputs then are an input set's, loaded by the caller). */
static void draw_fresh(judge *j, batch_state *b, int keep_case) {
    for (int i = keep_case ? 1 : 0; i < b->batch; ++i) {
        for (int k = 0; k < b->n_fresh; ++k) {
            const cml_fresh_input *in = &j->p.fresh[k];
            b->seeds[i][k] = secret_seed();
            CML_CHECK(cml_fresh_draw(b->ins[i][k], in->n, in->lo, in->hi, b->seeds[i][k]));
        }
    }
}

/* Puts launch i's inputs into the judge's own problem: drawn again from their seeds, or
 * copied from `set`; with `absolute`, their absolute values. */
static void own_inputs(const batch_state *b, int i, const input_set *set, int absolute) {
    const cml_problem *own = b->own;
    for (int k = 0; k < b->n_fresh; ++k) {
        const cml_fresh_input *in = &own->fresh[k];
        if (set != NULL) {
            CML_CHECK(cudaMemcpy(*in->slot, *set->p.fresh[k].slot, in->n * sizeof(float),
                                 cudaMemcpyDeviceToDevice));
        } else {
            CML_CHECK(cml_fresh_draw(*in->slot, in->n, in->lo, in->hi, b->seeds[i][k]));
        }
        if (absolute) {
            CML_CHECK(cml_fresh_abs(*in->slot, in->n));
        }
    }
}

/* The baseline's output on the judge's own problem, by the exercise's faster launch_check
 * where it has one. */
static void own_baseline(judge *j, const batch_state *b) {
    cml_run.in_launch = 1;
    (j->ex->launch_check ? j->ex->launch_check : j->ex->launch_baseline)(b->own->ctx);
    CML_CHECK_LAUNCH();
    cml_run.in_launch = 0;
}

/* Checks launch i of the student's last sample: the baseline (or the exercise's faster
 * launch_check) computes launch i's output in the judge's own problem (b->own) from launch i's
 * inputs, drawn again there from their seeds, or copied from `set` (launch 0 of the verified
 * sample, which read the set's), and the two outputs are compared on the device (cml_fresh_compare)
 * within the exercise's own tolerance, both results counted: gamma * mag + abs_floor each, mag from
 * the baseline on the inputs' absolute values for a CML_EX_LINEAR exercise; abs_floor each when
 * gamma is 0; else FRESH_TOLERANCE of the output's spread. Nothing the student's process can write
 * enters the reference. Returns 0, or 2 with *check filled when the student's output was wrong. */
static int fresh_check(judge *j, const batch_state *b, int i, const input_set *set,
                       cml_compare_result *check) {
    const cml_problem *own = b->own;
    cml_fresh_tolerance tol = {.gamma = j->p.gamma, .abs_floor = j->p.abs_floor};
    if (j->ex->flags & CML_EX_LINEAR) {
        own_inputs(b, i, set, 1); /* the baseline on |inputs|: each output's sum |products| */
        own_baseline(j, b);
        CML_CHECK(
            cudaMemcpy(b->mag, own->d_out, j->p.n_out * sizeof(float), cudaMemcpyDeviceToDevice));
        tol.mag = b->mag;
    } else if (j->p.gamma != 0.0) {
        tol.spread = FRESH_TOLERANCE;
    }
    own_inputs(b, i, set, 0);
    own_baseline(j, b);
    CML_CHECK(cml_fresh_compare(b->outs[i], own->d_out, j->p.n_out,
                                j->p.out_cols ? j->p.out_cols : 1, &tol, check));
    return check->n_bad != 0 ? 2 : 0;
}

/* Copies set s's fresh inputs into the case's buffers (launch 0's), and nothing else: the
 * case's other buffers (a scratch image, unused room past a table) keep what they held, so
 * no change there tells the student's process which sample is verified. */
static void load_fresh_inputs(judge *j, const batch_state *b, const input_set *s) {
    for (int k = 0; k < b->n_fresh; ++k) {
        CML_CHECK(cudaMemcpyAsync(b->ins[0][k], *s->p.fresh[k].slot,
                                  j->p.fresh[k].n * sizeof(float), cudaMemcpyDeviceToDevice, 0));
    }
}

/* 1 when every input buffer of set s holds the bytes the case's holds now (before any
 * load_inputs): compared 1 MiB at a time on the host, so sets that differ cost one chunk. */
static int same_inputs_as_case(judge *j, const input_set *s) {
    enum { CHUNK = 1 << 20 };
    static unsigned char ours[CHUNK], theirs[CHUNK];
    for (int i = 0; i < j->shared.n; ++i) {
        if (is_output(j, i)) {
            continue;
        }
        for (size_t off = 0; off < j->shared.bytes[i]; off += CHUNK) {
            const size_t n = j->shared.bytes[i] - off < CHUNK ? j->shared.bytes[i] - off : CHUNK;
            CML_CHECK(
                cudaMemcpy(ours, (const char *)j->shared.ptr[i] + off, n, cudaMemcpyDeviceToHost));
            CML_CHECK(
                cudaMemcpy(theirs, (const char *)s->reg.ptr[i] + off, n, cudaMemcpyDeviceToHost));
            if (memcmp(ours, theirs, n) != 0) {
                return 0;
            }
        }
    }
    return 1;
}

/* Draws INPUT_SETS input sets from secret seeds, in buffers of the judge's only. A set whose
 * inputs equal the case's is drawn again (up to DRAWS_PER_SET seeds): lab 3.5's photograph
 * has 8 orientations, so 1 set in 8 would otherwise be the case's own input, and a launcher
 * that replays the output of its first call would pass the verified repetition. Returns how
 * many it made (`want` of at most INPUT_SETS): 0 when the exercise keeps inputs outside its
 * buffers (CML_EX_FIXED_INPUTS) or a set's buffers do not match the case's. Sets from
 * `with_reference` on get no reference (one checked position) and inputs drawn on the device:
 * the baseline's own problem of a timing with fresh inputs compares with none and has its inputs
 * overwritten before each launch (own_inputs), and lab 3.3's matmul reference at 4096^3 takes
 * about a second. With fresh inputs, a set with a reference (set 0, the verified repetition's)
 * checks a sample's random positions without its bands (cml_check_set_light; a full check set
 * stays full). */
static int make_input_sets(judge *j, input_set *sets, int want, int with_reference) {
    if (j->ex->flags & CML_EX_FIXED_INPUTS) {
        return 0;
    }
    const int fresh = uses_fresh_inputs(j);
    int made = 0, same = 1;
    for (int k = 0; k < want && same; ++k) {
        const char *message = NULL;
        for (int draw = 0; draw < DRAWS_PER_SET; ++draw) {
            memset(&sets[k], 0, sizeof sets[k]);
            cml_devmem_use(CML_DEVMEM_PLAIN, &sets[k].reg, NULL, NULL);
            cml_check_set_minimal(k >= with_reference); /* no reference nobody compares with */
            /* ... nor inputs drawn on the host for it (the judge overwrites them); the verified
             * repetition's set checks random positions only (cml_check_set_light) */
            cml_setup_inputs_on_device(k >= with_reference);
            cml_check_set_light(k < with_reference && fresh);
            /* a seed of the kernel's: the set's values could give it away, and with it
             * j->secret's stream (the verified sample, the probes, the checked positions) */
            message = cml_problem_setup(j->ex, &sets[k].p, (const long long *)cml_run.size,
                                        secret_seed());
            cml_check_set_minimal(0);
            cml_setup_inputs_on_device(0);
            cml_check_set_light(0);
            cml_devmem_use(CML_DEVMEM_PLAIN, NULL, NULL, NULL);
            if (message != NULL) {
                break;
            }
            same = cml_lab_problem_error(&sets[k].p) == NULL && sets[k].reg.n == j->shared.n &&
                   sets[k].p.n_out == j->p.n_out;
            for (int i = 0; same && i < j->shared.n; ++i) {
                same = sets[k].reg.bytes[i] == j->shared.bytes[i];
            }
            if (!same || draw + 1 == DRAWS_PER_SET || !same_inputs_as_case(j, &sets[k])) {
                break; /* (inputs that never change with the seed are kept as they are) */
            }
            cml_problem_release(j->ex, &sets[k].p);
        }
        if (message != NULL) {
            break;
        }
        made = k + 1;
    }
    if (made < want || !same) {
        for (int k = 0; k < made; ++k) {
            cml_problem_release(j->ex, &sets[k].p);
        }
        return 0;
    }
    return made;
}

/* Gives the student's process batch - 1 more output buffers (b->outs[1..batch)), and with
 * fresh inputs batch - 1 more sets of them (b->ins[1..batch)), from the pool it maps.
 * Returns ANSWERED, or the remote failure. */
static int give_outputs(judge *j, batch_state *b) {
    static cml_msg_outputs m;
    memset(&m, 0, sizeof m);
    m.head = (cml_msg_head){CML_IPC_MAGIC, CML_MSG_OUTPUTS};
    m.n = b->batch - 1;
    m.bytes = j->p.n_out * sizeof(float);
    for (int i = 1; i < b->batch; ++i) {
        CML_CHECK(cudaMallocFromPoolAsync((void **)&b->outs[i], m.bytes, j->pool, 0));
        CML_CHECK(cudaStreamSynchronize(0));
        j->spare[j->n_spare++] = b->outs[i];
        CML_CHECK(cml_devmem_export_ptr(b->outs[i], m.export_data[i - 1]));
    }
    if (cml_ipc_send(j->sock, &m, sizeof m, -1) != 0) {
        return GONE;
    }
    int rc = await_ready(j);
    if (rc != ANSWERED || b->n_fresh == 0) {
        return rc;
    }
    static cml_msg_inputs in;
    memset(&in, 0, sizeof in);
    in.head = (cml_msg_head){CML_IPC_MAGIC, CML_MSG_INPUTS};
    in.n = b->batch - 1;
    in.n_fresh = b->n_fresh;
    for (int k = 0; k < b->n_fresh; ++k) {
        in.bytes[k] = j->p.fresh[k].n * sizeof(float);
    }
    for (int i = 1; i < b->batch; ++i) {
        for (int k = 0; k < b->n_fresh; ++k) {
            CML_CHECK(cudaMallocFromPoolAsync((void **)&b->ins[i][k], in.bytes[k], j->pool, 0));
            CML_CHECK(cudaStreamSynchronize(0));
            j->spare[j->n_spare++] = b->ins[i][k];
            CML_CHECK(cml_devmem_export_ptr(b->ins[i][k], in.export_data[i - 1][k]));
        }
    }
    if (cml_ipc_send(j->sock, &in, sizeof in, -1) != 0) {
        return GONE;
    }
    return await_ready(j);
}

typedef struct copy_ctx {
    void *d_dst, *d_src;
    size_t n_bytes;
} copy_ctx;

enum { C_STUDENT, C_NULL_WORKER, C_BASELINE, C_NULL_JUDGE, C_COPY, N_CONTENDERS };

static void summarize(const double *x, int n, int batch, cml_timing_stats *s) {
    s->median_ms = cml_median(x, (size_t)n);
    s->p10_ms = cml_percentile(x, (size_t)n, 10);
    s->p90_ms = cml_percentile(x, (size_t)n, 90);
    s->reps = n;
    s->batch = batch;
}

/* One sample of contender c (host milliseconds for the whole batch), or a remote failure
 * in *rc. */
static double sample(judge *j, int c, const batch_state *b, const copy_ctx *copy, int *rc) {
    const double t0 = cml_now_ms();
    switch (c) {
    case C_STUDENT:
        *rc = remote_run(j->sock, ++j->token, (uint32_t)b->batch, 0, &j->err);
        break;
    case C_NULL_WORKER:
        /* The course's process: where it stops answering, the run ends as the course's
         * failure, never GONE, which the document gives as the student's process ended and
         * the grader as its crash (g140: a server killed during the timing cost lab 3.3's
         * solution its performance points). */
        cml_null_server_run(&j->null, ++j->token, __FILE__, __LINE__);
        *rc = ANSWERED;
        break;
    case C_BASELINE:
        cml_run.in_launch = 1;
        for (int i = 0; i < b->baseline_batch; ++i) {
            cml_problem_point(&j->p, b->outs[i], b->ins[i], b->n_fresh);
            j->ex->launch_baseline(j->p.ctx);
            CML_CHECK(cudaGetLastError());
        }
        CML_CHECK(cudaDeviceSynchronize());
        cml_run.in_launch = 0;
        cml_problem_point(&j->p, b->outs[0], b->ins[0], b->n_fresh); /* the case's */
        break;
    case C_NULL_JUDGE:
        cml_launch_null();
        CML_CHECK_LAUNCH();
        break;
    default:
        for (int i = 0; i < b->copy_batch; ++i) {
            CML_CHECK(cudaMemcpyAsync(copy->d_dst, copy->d_src, copy->n_bytes,
                                      cudaMemcpyDeviceToDevice, 0));
        }
        CML_CHECK_LAUNCH();
        break;
    }
    return cml_now_ms() - t0;
}

/* The launches per sample: enough that a sample of the student's lasts TARGET_SAMPLE_MS,
 * from the warm-up's samples (single launches), within CML_IPC_MAX_BATCH and the memory
 * for the extra outputs; 1 when the exercise cannot redirect its output. */
/* Launches of launch_ms each that make a sample of TARGET_SAMPLE_MS, at most `cap` and
 * CML_IPC_MAX_BATCH, at least 1. */
static int launches_per_sample(double launch_ms, double cap) {
    launch_ms = launch_ms > 0.005 ? launch_ms : 0.005;
    double want = TARGET_SAMPLE_MS / launch_ms;
    want = want < cap ? want : cap;
    want = want < CML_IPC_MAX_BATCH ? want : CML_IPC_MAX_BATCH;
    return want > 1.0 ? (int)want : 1;
}

static int choose_batch(const judge *j, const batch_state *b, double student_ms,
                        double overhead_ms) {
    if (j->p.out_ref == NULL || j->ex->prepare_student || j->ex->prepare_baseline) {
        return 1; /* one output; or a state to put back before each launch (cml_lab.h) */
    }
    size_t bytes = j->p.n_out * sizeof(float); /* a launch's own buffers */
    for (int k = 0; k < b->n_fresh; ++k) {
        bytes += j->p.fresh[k].n * sizeof(float);
    }
    const double by_memory = 1.0 + (double)(BATCH_MEMORY_BYTES / (bytes ? bytes : 1));
    return launches_per_sample(student_ms - overhead_ms, by_memory);
}

/* The state the baseline's next sample starts from (cml_lab.h, prepare_baseline), where the
 * exercise has one: course code, so a failure is the judge's. */
static void prepare_baseline(judge *j) {
    if (j->ex->prepare_baseline) {
        j->ex->prepare_baseline(j->p.ctx);
        CML_CHECK(cudaGetLastError());
    }
}

/* Adds the span begun at *since (ms, 0: none open) to *sum and closes it (judge_time's
 * phase parts). */
static void end_span(double *sum, double *since) {
    if (*since > 0.0) {
        *sum += cml_now_ms() - *since;
        *since = 0.0;
    }
}

/* Times the contenders, the baseline in the first baseline_reps (<= reps) of the timed rounds
 * only (an information-only baseline, --info-baseline); stats[3] = student, baseline, copy
 * (per launch). Returns ANSWERED, a remote failure, or 2 when a timed student repetition was
 * wrong (*check, *judged say which). */
static int judge_time(judge *j, int reps, int baseline_reps, cml_timing_stats stats[3],
                      cml_compare_result *check, cml_judged *judged, input_set *sets, int made) {
    static batch_state b;
    memset(&b, 0, sizeof b);
    b.batch = 1;
    b.baseline_batch = 1;
    b.copy_batch = 1;
    b.outs[0] = j->p.d_out;
    if (uses_fresh_inputs(j)) {
        b.n_fresh = j->p.n_fresh;
        for (int k = 0; k < b.n_fresh; ++k) {
            b.ins[0][k] = *j->p.fresh[k].slot;
        }
    }
    /* With fresh inputs: set 0 for the verified repetition's launch 0, the only time it is
     * used (every other launch reads inputs drawn for it alone), and set 1 as the baseline's
     * own problem for the check of a launch (b.own). Without both, no fresh inputs. The
     * sets were made before the gate (cml_judge_run), released here. */
    int n_sets = made;
    if (b.n_fresh > 0 && made == INPUT_SETS && sets[1].p.n_fresh == b.n_fresh) {
        b.own = &sets[1].p;
        n_sets = 1; /* the rotation uses set 0 only */
        if (j->ex->flags & CML_EX_LINEAR) {
            CML_CHECK(cudaMalloc((void **)&b.mag, j->p.n_out * sizeof(float)));
        }
    } else if (b.n_fresh > 0) { /* (no lab's sets differ so; set 0 then rotates, light) */
        b.n_fresh = 0;
        n_sets = made > 0 ? 1 : 0; /* set 1 was made without a reference: not for rotation */
    }
    judged->input_sets = n_sets;
    judged->fresh_inputs = b.n_fresh;

    copy_ctx copy = {.n_bytes = j->p.bytes > 2.0 ? (size_t)(j->p.bytes / 2.0) : 1};
    CML_CHECK(cudaMalloc(&copy.d_dst, copy.n_bytes));
    CML_CHECK(cudaMalloc(&copy.d_src, copy.n_bytes));
    CML_CHECK(cudaMemset(copy.d_src, 0, copy.n_bytes));
    void *d_flush = NULL;
    const size_t flush_bytes = 2 * cml_run.device.l2_bytes;
    if (flush_bytes > 0) {
        CML_CHECK(cudaMalloc(&d_flush, flush_bytes));
    }
    if (start_null_server(j) != 0) {
        /* The course's process, not the student's: never GONE, which the document gives as
         * the student's process ended (kind "worker") and the grader as its crash. */
        cml_null_server_fail(&j->null, __FILE__, __LINE__);
    }

    double *samples = calloc((size_t)N_CONTENDERS * (size_t)reps, sizeof(double));
    double warm[N_CONTENDERS];
    if (!samples) { /* the judge's own host memory: never GONE, the student's process's end */
        cml_lab_fail_host("out of host memory for the timing's samples", __FILE__, __LINE__);
    }
    const int verified = (int)cml_rng_below(&j->secret, (uint64_t)reps);
    judged->verified_rep = verified;
    int rc = ANSWERED;
    /* where the repetitions' time goes (phase_ms): the samples, the checks of the student's
     * launches (from its sample's end to the next contender's start), the rest preparing */
    double in_samples = 0.0, in_checks = 0.0, check_started = 0.0;
    for (int r = 0; r < WARMUP + reps && rc == ANSWERED; ++r) {
        if (r == WARMUP) { /* single launches so far: now the batch for the timed rounds */
            b.batch =
                choose_batch(j, &b, warm[C_STUDENT], warm[C_NULL_WORKER] - warm[C_NULL_JUDGE]);
            /* The copy's batch is the student's; when the student's launches are not
             * batched (out_ref NULL, or long ones) the copy gets its own, so that its roof is
             * the copy's and not a launch's fixed cost (lab 3.5's pipeline: 0.7 ms, while a
             * copy of its 34 MB takes 0.02 ms, about what a launch and its synchronisation
             * cost on the host clock). */
            b.copy_batch =
                b.batch > 1 ? b.batch : launches_per_sample(warm[C_COPY], CML_IPC_MAX_BATCH);
            /* With fresh inputs the baseline's batch is its own (design note 47): as many
             * of the student's launches' buffers as fit in TARGET_SAMPLE_MS by its time, at
             * least one, not the student's count (transpose's naive kernel, 1.0 ms, beside a
             * 0.14 ms tiled one took 14 launches a sample, most of the timed hold). Each of
             * those launches reads inputs of its own after the flush, so fewer of them
             * measure the same per-launch time; launches that share one input set would not
             * (the later ones find it in L2), and keep the student's count. From its time
             * alone, taken before the student's process existed: the warm-up's, which that
             * process could slow, would let it shrink the batch and raise the baseline's
             * per-launch time. */
            b.baseline_batch = b.n_fresh > 0 && judged->baseline_alone_ms > 0.0
                                   ? launches_per_sample(judged->baseline_alone_ms, b.batch)
                                   : b.batch;
            if (b.batch > 1) {
                rc = give_outputs(j, &b);
                if (rc != ANSWERED) {
                    break;
                }
            }
        }
        const int is_verified = r - WARMUP == verified;
        for (int c = 0; c < N_CONTENDERS && rc == ANSWERED; ++c) {
            if (c == C_BASELINE && r >= WARMUP + baseline_reps) {
                continue; /* its samples are taken */
            }
            end_span(&in_checks, &check_started);
            /* The state the launch starts from, outside the sample (cml_lab.h, prepare_*),
             * before the inputs and the poison: nothing the student's process does while it
             * prepares can see this sample's inputs or write its outputs ahead of the RUN. */
            if (c == C_STUDENT && j->ex->prepare_student) {
                rc = remote_run(j->sock, ++j->token, 0, 0, &j->err);
                if (rc != ANSWERED) {
                    break;
                }
            } else if (c == C_BASELINE) {
                prepare_baseline(j);
            }
            const input_set *set = NULL;
            if (c == C_STUDENT || (c == C_BASELINE && b.n_fresh == 0)) {
                /* Fresh inputs: every launch's drawn anew, but launch 0's in the verified
                 * repetition, which reads an input set (the reference is the set's). The
                 * baseline's sample reads the inputs the student's just had. */
                if (n_sets > 0 && (b.n_fresh == 0 || is_verified)) {
                    set = &sets[cml_rng_below(&j->secret, (uint64_t)n_sets)];
                    if (b.n_fresh > 0) {
                        load_fresh_inputs(j, &b, set);
                    } else {
                        load_inputs(j, set);
                    }
                }
                if (b.n_fresh > 0 && c == C_STUDENT) {
                    draw_fresh(j, &b, set != NULL);
                }
                cml_lab_poison(&j->p); /* b.outs[0] is the case's d_out; d_raw too */
                for (int i = 1; i < b.batch; ++i) {
                    CML_CHECK(
                        cudaMemsetAsync(b.outs[i], CML_POISON_BYTE, j->p.n_out * sizeof(float), 0));
                }
            }
            if (d_flush) {
                CML_CHECK(cudaMemsetAsync(d_flush, r, flush_bytes, 0));
            }
            CML_CHECK(cudaDeviceSynchronize());
            const double elapsed = sample(j, c, &b, &copy, &rc);
            const double sampled_at = cml_now_ms();
            in_samples += elapsed;
            if (rc != ANSWERED) {
                break;
            }
            if (r < WARMUP) {
                warm[c] = r == 0 || elapsed < warm[c] ? elapsed : warm[c];
            } else {
                samples[(size_t)c * reps + (r - WARMUP)] = elapsed;
            }
            if (c == C_STUDENT) {
                cml_lab_finish_launch(&j->p, elapsed); /* outside the sample */
            }
            if (c != C_STUDENT) {
                continue;
            }
            /* from here to the end of the round's student part: the checks (phase_ms) */
            check_started = sampled_at;
            const int unwritten = probe_unwritten(j, &b);
            if (b.n_fresh > 0) {
                /* One launch of every sample against the baseline on its inputs: the one that
                 * left poison, else one at random; the verified one also against the set's
                 * reference. */
                if (is_verified && set != NULL) {
                    CML_CHECK(cudaMemcpy(j->h_got, b.outs[0], j->p.n_out * sizeof(float),
                                         cudaMemcpyDeviceToHost));
                    cml_lab_compare(&set->p, j->h_got, check);
                    if (check->n_bad != 0) {
                        judged->phase = "timed";
                        judged->verified_rep = r - WARMUP;
                        rc = 2;
                        break;
                    }
                }
                const int i =
                    unwritten >= 0 ? unwritten : (int)cml_rng_below(&j->secret, (uint64_t)b.batch);
                if (fresh_check(j, &b, i, i == 0 ? set : NULL, check) != 0) {
                    judged->phase = "fresh";
                    judged->verified_rep = r >= WARMUP ? r - WARMUP : -1;
                    j->h_got[check->first_bad] = (float)check->first_bad_got;
                    rc = 2;
                }
            } else if (is_verified || unwritten >= 0) {
                const float *out =
                    b.outs[unwritten >= 0 ? unwritten
                                          : (int)cml_rng_below(&j->secret, (uint64_t)b.batch)];
                CML_CHECK(
                    cudaMemcpy(j->h_got, out, j->p.n_out * sizeof(float), cudaMemcpyDeviceToHost));
                cml_lab_compare(set ? &set->p : &j->p, j->h_got, check);
                if (check->n_bad != 0) {
                    judged->phase = "timed";
                    judged->verified_rep = r - WARMUP;
                    rc = 2;
                }
            }
        }
    }
    end_span(&in_checks, &check_started);
    judged->phase_ms[PH_T_SAMPLES] = in_samples;
    judged->phase_ms[PH_T_CHECKS] = in_checks;
    if (rc == ANSWERED) {
        double *s = samples;
        /* The exchange with the other process, beyond a launch of the judge's own. */
        const double overhead = cml_median(&s[(size_t)C_NULL_WORKER * reps], (size_t)reps) -
                                cml_median(&s[(size_t)C_NULL_JUDGE * reps], (size_t)reps);
        judged->worker_overhead_ms = overhead;
        /* At most the exchange alone plus what the student's context adds honestly: a
         * process of the submission's that lengthens the server's turn must not shrink the
         * student's samples by as much (cml_exchange.h, design note 96). */
        const double subtracted =
            cml_exchange_subtracted(overhead, judged->worker_overhead_alone_ms);
        judged->worker_overhead_subtracted_ms = subtracted;
        const int launches[N_CONTENDERS] = {[C_STUDENT] = b.batch,
                                            [C_NULL_WORKER] = 1,
                                            [C_BASELINE] = b.baseline_batch,
                                            [C_NULL_JUDGE] = 1,
                                            [C_COPY] = b.copy_batch};
        judged->under_overhead = 0;
        for (int i = 0; i < reps; ++i) {
            double *t = &s[(size_t)C_STUDENT * reps + i];
            /* A sample no longer than the exchange with the empty-kernel server says that
             * exchange was slowed (by the host, design note 51), not that the launches took
             * nothing: counted, and the grader times such a run again (grader/plausible.py) */
            judged->under_overhead += *t - subtracted <= 1e-6;
            *t = *t - subtracted > 1e-6 ? *t - subtracted : 1e-6;
            for (int c = C_STUDENT; c < N_CONTENDERS; ++c) {
                s[(size_t)c * reps + i] /= launches[c];
            }
        }
        summarize(&s[(size_t)C_STUDENT * reps], reps, launches[C_STUDENT], &stats[0]);
        summarize(&s[(size_t)C_BASELINE * reps], baseline_reps, launches[C_BASELINE], &stats[1]);
        summarize(&s[(size_t)C_COPY * reps], reps, launches[C_COPY], &stats[2]);
    }
    free(samples);
    CML_CHECK(cudaFree(copy.d_dst));
    CML_CHECK(cudaFree(copy.d_src));
    CML_CHECK(cudaFree(d_flush));
    CML_CHECK(cudaFree(b.mag));
    return rc; /* the null server and the input sets outlive it: the run's next case */
}

/* ---------------------------------------------------------------------------------------
 * The run. */

/* The judge's cml_time_part(): one launch of the student's launch_part(part) in the student's
 * process, on the judge's clock from RUN to DONE. A failure there ends the run with its
 * document, as a failed check of the judge's own does. */
static judge *g_parts_judge;
static double time_part_remote(int part) {
    judge *j = g_parts_judge;
    CML_CHECK(cudaDeviceSynchronize());
    const double t0 = cml_now_ms();
    const int rc = remote_run(j->sock, ++j->token, 1, (uint32_t)part + 1u, &j->err);
    const double elapsed = cml_now_ms() - t0;
    if (rc != ANSWERED) {
        exit(finish_remote_failure(j, rc));
    }
    return elapsed;
}

/* The baseline's median time (single launches, output poisoned and L2 flushed before each)
 * before the student's process exists: the grader starts that process only once the judge's
 * HELLO waits on the socket (grader/harness.py). Timed again among the student's repetitions
 * it must stay near this figure; far slower, something of the student's kept the GPU busy
 * while its process was idle (a kernel left running, a process left behind), and the
 * grader scores no performance (grader/plausible.py). */
#define ALONE_REPS 5
static double baseline_alone(judge *j) {
    const size_t flush_bytes = 2 * cml_run.device.l2_bytes;
    void *d_flush = NULL;
    if (flush_bytes > 0) {
        CML_CHECK(cudaMalloc(&d_flush, flush_bytes));
    }
    static batch_state single; /* one launch into the case's own output */
    single.batch = single.baseline_batch = single.copy_batch = 1;
    single.outs[0] = j->p.d_out;
    double t[ALONE_REPS + 1]; /* the first is a warm-up */
    for (int r = 0; r <= ALONE_REPS; ++r) {
        prepare_baseline(j); /* its starting state, as among the repetitions */
        cml_lab_poison(&j->p);
        if (d_flush) {
            CML_CHECK(cudaMemsetAsync(d_flush, r, flush_bytes, 0));
        }
        CML_CHECK(cudaDeviceSynchronize());
        int rc = ANSWERED;
        t[r] = sample(j, C_BASELINE, &single, NULL, &rc); /* as among the repetitions */
    }
    CML_CHECK(cudaFree(d_flush));
    return cml_median(t + 1, ALONE_REPS);
}

/* The exchange with the empty-kernel server beyond the judge's own empty launch (as
 * worker_overhead_ms among the repetitions) before the student's process exists, after the
 * gate: the GPU the run's alone. Measured on an H100: 0.006-0.012 ms here, 0.15-0.22 ms among
 * the repetitions of honest runs (the student's context joins), 2.38 ms behind a process left
 * behind keeping the GPU busy: the server waits for its time slice, and that wait, subtracted
 * from each student sample, would shrink them (design note 95; grader/plausible.py allows 0.5
 * ms more than this figure, and the timing subtracts at most 0.25 ms more: cml_exchange.h, note
 * 96). *own_ms: the judge's own empty launch and its synchronisation alone (its median), which
 * a GPU already busy with another process's work slows where the exchange, a difference of two
 * such launches, stays as it is (design note 97). The server is up (judge_timed_cases starts
 * it again here when the set-up's did not come up); one that stops answering here ends the run
 * as the course's failure: the student's process does not exist yet. */
#define EXCHANGE_ALONE_REPS 15
static double exchange_alone(judge *j, double *own_ms) {
    double worker[EXCHANGE_ALONE_REPS + 1], own[EXCHANGE_ALONE_REPS + 1]; /* first: warm-up */
    for (int r = 0; r <= EXCHANGE_ALONE_REPS; ++r) {
        int rc = ANSWERED; /* (a server that stops answering ends the run: sample) */
        worker[r] = sample(j, C_NULL_WORKER, NULL, NULL, &rc);
        own[r] = sample(j, C_NULL_JUDGE, NULL, NULL, &rc);
    }
    *own_ms = cml_median(own + 1, EXCHANGE_ALONE_REPS);
    const double d = cml_median(worker + 1, EXCHANGE_ALONE_REPS) - *own_ms;
    return d > 0.0 ? d : 0.0;
}

/* --gate: says "gate" on standard output (the document's pipe: the grader reads this line
 * first) and waits for a byte, or the end, on standard input. The grader holds the GPU for
 * this run alone from then on: everything before (the exercise's set-up, the input sets) may
 * overlap other gradings' untimed runs (grader/gpu_lock.py). */
static void await_gate(void) {
    grader_line("gate");
    char go;
    ssize_t got;
    while ((got = read(STDIN_FILENO, &go, 1)) < 0 && errno == EINTR) {
    }
    if (got != 1) {
        _exit(CML_EXIT_FAILED); /* the grader is gone: time nothing without its hold */
    }
}

/* Sends HELLO with the case and its buffers; ANSWERED when the student's process is READY. */
static int hello(judge *j, int pool_fd) {
    static cml_msg_hello h;
    memset(&h, 0, sizeof h);
    h.head = (cml_msg_head){CML_IPC_MAGIC, CML_MSG_HELLO};
    snprintf(h.exercise, sizeof h.exercise, "%s", j->ex->name);
    h.n_size = cml_run.n_size;
    for (int i = 0; i < cml_run.n_size; ++i) {
        h.size[i] = cml_run.size[i];
    }
    h.seed = cml_run.seed;
    h.n_buffers = j->shared.n;
    h.timed = cml_run.timed;
    for (int i = 0; i < j->shared.n; ++i) {
        h.bytes[i] = j->shared.bytes[i];
        CML_CHECK(cml_devmem_export_ptr(j->shared.ptr[i], h.export_data[i]));
    }
    if (cml_ipc_send(j->sock, &h, sizeof h, pool_fd) != 0) {
        return GONE;
    }
    return await_ready(j);
}

/* Ends the student's process and waits for it to let go of the buffers. */
static void quit(judge *j) {
    (void)cml_ipc_send_token(j->sock, CML_MSG_QUIT, 0);
    char buf[64];
    while (cml_ipc_recv(j->sock, buf, sizeof buf, NULL, 0) > 0) {
    }
}

/* The host buffer a case's output is copied back into for its checks (cml_lab_result_alloc):
 * page-locked in a timed run, whose verify copies (transpose's and conv2d's 256 MB outputs
 * among them) run while it holds the GPU alone, and whose set-up before the gate pays for the
 * pinning; pageable in an untimed one (small cases). */
static void result_free(float *h) {
    if (h && cml_run.timed) {
        CML_CHECK(cudaFreeHost(h));
    } else {
        free(h);
    }
}

/* Sets the case up in the judge's exportable pool (j->shared lists its buffers, for HELLO)
 * and sizes j->h_got for its output. Returns CML_EXIT_OK, or the exit code after writing the
 * error document (the exercise rejected the size, host memory ran out in the set-up, a course
 * bug); host memory for the result that runs out ends the run (kind "host"). */
static int setup_case(judge *j, const long long *size, uint64_t seed) {
    memset(&j->shared, 0, sizeof j->shared);
    cml_devmem_use(CML_DEVMEM_EXPORT, &j->shared, j->pool, NULL);
    const char *message = cml_problem_setup(j->ex, &j->p, size, seed);
    cml_devmem_use(CML_DEVMEM_PLAIN, NULL, NULL, NULL);
    if (message) {
        fprintf(stderr, "judge: %s: %s\n", j->ex->name, message);
        return cml_lab_setup_failed(message);
    }
    const char *bug = cml_lab_problem_error(&j->p);
    result_free(j->h_got);
    j->h_got = NULL;
    if (bug) {
        return cml_lab_finish_error("harness", bug, CML_EXIT_FAILED);
    }
    j->h_got = cml_lab_result_alloc(j->p.n_out, cml_run.timed); /* result_free's */
    /* its pages faulted in now, before the gate, not by the first copy back in the verify
     * phase (an 8192 x 8192 output: 64 K pages), which holds the GPU alone */
    memset(j->h_got, 0, j->p.n_out * sizeof *j->h_got);
    return CML_EXIT_OK;
}

/* judge --case ... (untimed, several cases with one student's process): each case set up in
 * the judge's pool, sent with HELLO (the student's process releases the previous case's
 * buffers and sets this one up), launched, checked, and its document written as one line and
 * flushed, so the grader holds every finished case's result even if a later one crashes or
 * hangs. The previous case's buffers are freed only once the student's process answered the
 * next HELLO (it has unmapped them by then). A failure of the student's process ends the run
 * with that case's document; the grader runs the cases after it again in fresh processes
 * (grader/harness.py, run_judged_cases). A case may be of another exercise of the lab
 * (--case EX:...: a batch's correctness runs over the lab, run_judged_lab_cases). */
static int judge_cases(judge *j, const cml_options *opt, const cml_exercise *const *case_ex,
                       int pool_fd) {
    static cml_problem prev;
    const cml_exercise *prev_ex = NULL; /* the exercise of prev, while it is held */
    for (int k = 0; k < opt->n_cases; ++k) {
        const cml_exercise *ex = case_ex[k]; /* a case may be of another exercise (EX:) */
        j->ex = ex;
        cml_run.ex = ex;
        cml_run.exercise_name = ex->name;
        cml_run.n_size = opt->case_n_size[k];
        memcpy(cml_run.size, opt->case_size[k], sizeof cml_run.size);
        cml_run.seed = opt->case_seed[k];
        if (cml_run.n_size != ex->n_dims) {
            return cml_lab_finish_error("usage",
                                        "a --case has another number of sizes than the "
                                        "exercise's dimensions",
                                        CML_EXIT_USAGE);
        }
        const int code = setup_case(j, cml_run.size, cml_run.seed);
        if (code != CML_EXIT_OK) {
            return code;
        }
        int rc = hello(j, pool_fd);
        if (prev_ex) {
            cml_problem_release(prev_ex, &prev);
            prev_ex = NULL;
        }
        cml_compare_result check;
        if (rc == ANSWERED) {
            rc = remote_verify(j, &j->p, &check, NULL, 1);
        }
        if (rc != ANSWERED) {
            return finish_remote_failure(j, rc);
        }
        cml_judged judged = judged_defaults();
        cml_problem numbers = j->p;
        cml_doc d = {.status = check.n_bad == 0 ? "ok" : "wrong",
                     .check = &check,
                     .problem = &numbers,
                     .first_bad_unwritten =
                         check.n_bad > 0 && cml_is_poison_f32(j->h_got[check.first_bad]),
                     .judged = &judged};
        if (cml_lab_write(&d) != CML_EXIT_OK) {
            return CML_EXIT_USAGE;
        }
        fflush(stdout);
        prev = j->p;
        prev_ex = ex;
    }
    quit(j);
    if (prev_ex) {
        cml_problem_release(prev_ex, &prev);
    }
    result_free(j->h_got);
    j->h_got = NULL;
    return CML_EXIT_OK;
}

/* The judge's CPU milliseconds so far: user and system, all its threads (getrusage; -1 where
 * it cannot be read). */
static double cpu_now_ms(void) {
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0) {
        return -1.0;
    }
    return 1e3 * ((double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                  1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec));
}

/* Where a phase started: the wall clock and the judge's CPU time (milliseconds). */
typedef struct phase_clock {
    double wall_ms, cpu_ms;
} phase_clock;

/* A phase starts now. */
static void phase_mark(phase_clock *t0) {
    *t0 = (phase_clock){cml_now_ms(), cpu_now_ms()};
}

/* Phase i ends: its wall and CPU milliseconds since *t0 (where the host's work went: design
 * note 55); the next phase starts. */
static void phase_end(cml_judged *judged, int i, phase_clock *t0) {
    phase_clock now;
    phase_mark(&now);
    judged->phase_ms[i] = now.wall_ms - t0->wall_ms;
    judged->phase_cpu_ms[i] = now.cpu_ms >= 0 && t0->cpu_ms >= 0 ? now.cpu_ms - t0->cpu_ms : -1.0;
    *t0 = now;
}

/* A case of a judged run that is not judge_cases' (a timed run: one exercise's, or one per
 * exercise of the lab): set up with its timing's input sets before the gate, its baseline
 * timed alone after it, then verified and timed in turn with the one student's process. */
typedef struct judged_case {
    const cml_exercise *ex;
    long long size[CML_MAX_DIMS];
    int n_size;
    uint64_t seed;
    cml_problem p;
    cml_devmem_registry shared;
    float *h_got;
    input_set sets[INPUT_SETS];
    int made;
    cml_judged judged;
} judged_case;

/* Makes case c the judge's current one (j->p, j->shared, j->h_got, and the run's facts that
 * the document and the set-up read). */
static void use_case(judge *j, const judged_case *c) {
    j->ex = c->ex;
    j->p = c->p;
    j->shared = c->shared;
    j->h_got = c->h_got;
    cml_run.ex = c->ex;
    cml_run.exercise_name = c->ex->name;
    cml_run.n_size = c->n_size;
    memcpy(cml_run.size, c->size, sizeof cml_run.size);
    cml_run.seed = c->seed;
}

/* Frees what case c holds, and the timing's extra buffers: the student's process has let go
 * of them (it answered the next HELLO, or it ended). */
static void release_case(judge *j, judged_case *c) {
    for (int k = 0; k < c->made; ++k) {
        cml_problem_release(c->ex, &c->sets[k].p);
    }
    c->made = 0;
    if (c->ex) {
        cml_problem_release(c->ex, &c->p);
    }
    result_free(c->h_got);
    c->h_got = NULL;
    for (int i = 0; i < j->n_spare; ++i) {
        CML_CHECK(cudaFree(j->spare[i]));
    }
    j->n_spare = 0;
}

/* Device bytes case c holds from its set-up to its end: its buffers and its input sets'. */
static size_t case_bytes(const judged_case *c) {
    size_t n = 0;
    for (int i = 0; i < c->shared.n; ++i) {
        n += c->shared.bytes[i];
    }
    for (int k = 0; k < c->made; ++k) {
        for (int i = 0; i < c->sets[k].reg.n; ++i) {
            n += c->sets[k].reg.bytes[i];
        }
    }
    return n;
}

static const char kWrongBaseline[] =
    "the baseline produced a wrong result (a course bug, please report)";

/* 1 when the exercise's baseline gives the right result on problem `own`. Where: an exercise
 * without finish() is checked on the case's own buffers before the gate, when no student's
 * process exists yet (the grader starts it after the gate), so nothing it does can make a
 * right baseline look wrong. One with finish() is checked after the verified launch, inside
 * the hold, on the judge's own input set 0 where there is one (the case's buffers are the
 * student's process's too by then): its finish() may measure the machine the first time it
 * runs (lab 3.2's host-link floor), which must happen with the GPU the run's alone. */
static int check_baseline(judge *j, const cml_exercise *ex, const cml_problem *own) {
    cml_compare_result baseline_check;
    cml_lab_verify(ex->launch_baseline, own, j->h_got, &baseline_check);
    return baseline_check.n_bad == 0;
}

/* Case c after its HELLO: the first launch verified, the exercise's extra figures, and with
 * `time` the timing; its document written as one line and flushed. Returns CML_EXIT_OK, or
 * the exit code after the document of a failure that ends the run (the student's process
 * failed or is gone: the grader runs the later cases in a fresh judged run). */
static int judge_case(judge *j, judged_case *c, int time, int reps, int baseline_reps) {
    const cml_exercise *ex = c->ex;
    cml_judged *judged = &c->judged;
    phase_clock t0;
    phase_mark(&t0);
    cml_compare_result check;
    int rc = remote_verify(j, &j->p, &check, &judged->phase_ms[PH_V_RUN], 0);
    phase_end(judged, PH_VERIFY, &t0);
    if (rc != ANSWERED) {
        return finish_remote_failure(j, rc);
    }
    int first_bad_unwritten = check.n_bad > 0 && cml_is_poison_f32(j->h_got[check.first_bad]);

    /* The exercise's figures: course code on the buffers it shares, timing parts of the
     * student's work on the judge's clock (cml_time_part). */
    cml_metrics extra = {0};
    if (check.n_bad == 0 && ex->extra_metrics) {
        g_parts_judge = j;
        cml_part_timer = ex->launch_part ? time_part_remote : NULL;
        ex->extra_metrics(j->p.ctx, &extra);
        cml_part_timer = NULL;
        phase_end(judged, PH_EXTRA, &t0);
        if (extra.n < 0) {
            return cml_lab_finish_error(
                "harness", "the exercise added an invalid metric (a course bug, please report)",
                CML_EXIT_FAILED);
        }
    }

    cml_timing_stats stats[3];
    const cml_timing_stats *timing = NULL;
    if (time && check.n_bad == 0 && ex->launch_baseline) {
        if (ex->finish != NULL && !check_baseline(j, ex, c->made > 0 ? &c->sets[0].p : &j->p)) {
            return cml_lab_finish_error("harness", kWrongBaseline, CML_EXIT_FAILED);
        }
        phase_mark(&t0); /* the baseline's own check is outside the phases */
        rc = judge_time(j, reps, baseline_reps, stats, &check, judged, c->sets, c->made);
        phase_end(judged, PH_TIMING, &t0);
        if (rc == ANSWERED) {
            timing = stats;
        } else if (rc == 2) {
            first_bad_unwritten = cml_is_poison_f32(j->h_got[check.first_bad]);
        } else {
            return finish_remote_failure(j, rc);
        }
    }

    cml_problem numbers = j->p;
    cml_doc d = {.status = check.n_bad == 0 ? "ok" : "wrong",
                 .check = &check,
                 .problem = &numbers,
                 .first_bad_unwritten = first_bad_unwritten,
                 .timing = timing,
                 .extra = &extra,
                 .judged = judged};
    const int code = cml_lab_write(&d);
    fflush(stdout);
    return code;
}

/* The cases of a judged run other than judge_cases' (one exercise's --size case, or a timed
 * run's --case list, one case per exercise of the lab: a batch's timed runs, issue 15).
 * Before the gate, every case is set up with its timing's input sets, its baseline checked
 * (check_baseline) and the empty-kernel server started: work that may overlap other gradings'
 * untimed runs. After it (the GPU held alone), every case's baseline is timed alone before the
 * student's process exists, then each case is sent with HELLO, verified, timed and written as
 * one line. A failure of the student's process ends the run with that case's document. */
static int judge_timed_cases(judge *j, const cml_options *opt, const cml_exercise *const *case_ex,
                             int pool_fd) {
    static judged_case cases[CML_MAX_CASES];
    int n = opt->n_cases > 0 ? opt->n_cases : 1;
    const int time = opt->time;
    size_t held = 0; /* device bytes of the cases set up so far */
    /* The empty-kernel server (a process and a CUDA context: 0.1-0.5 s alone, 1.9-4.4 s in a
     * batch's read phase, g100): the course's, idle until a timing asks it for a launch,
     * started now so that its context is made while the cases are set up, and awaited before
     * the gate, its GPU work under the grading's shared hold (design note 61). Where it cannot
     * start, judge_time tries again and, failing, ends the run as the course's failure (kind
     * "harness", cml_null_server_fail). */
    int null_for = -1; /* the first case with a baseline: its null_server phase is the wait */
    for (int k = 0; time && k < n && null_for < 0; ++k) {
        null_for = case_ex[k]->launch_baseline ? k : -1;
    }
    if (null_for >= 0) {
        (void)cml_null_server_spawn(&j->null, "/proc/self/exe");
    }
    for (int k = 0; k < n; ++k) {
        judged_case *c = &cases[k];
        memset(c, 0, sizeof *c);
        c->judged = judged_defaults();
        phase_clock t0;
        phase_mark(&t0);
        c->ex = case_ex[k];
        c->n_size = opt->n_cases > 0 ? opt->case_n_size[k] : opt->n_size;
        memcpy(c->size, opt->n_cases > 0 ? opt->case_size[k] : opt->size, sizeof c->size);
        c->seed = opt->n_cases > 0 ? opt->case_seed[k] : opt->seed;
        if (c->n_size != c->ex->n_dims) {
            return cml_lab_finish_error("usage",
                                        "a --case has another number of sizes than the "
                                        "exercise's dimensions",
                                        CML_EXIT_USAGE);
        }
        use_case(j, c); /* j->h_got NULL: setup_case allocates the case's own */
        const int set_up = setup_case(j, c->size, c->seed);
        phase_end(&c->judged, PH_SETUP, &t0);
        if (set_up != CML_EXIT_OK) {
            return set_up;
        }
        c->p = j->p;
        c->shared = j->shared;
        c->h_got = j->h_got;
        /* The timing's input sets, before the gate: host work (inputs, references) that
         * needs no GPU of its own, while other gradings may still use it. */
        if (time && c->ex->launch_baseline) {
            c->made =
                make_input_sets(j, c->sets, INPUT_SETS, uses_fresh_inputs(j) ? 1 : INPUT_SETS);
            /* The baseline checked now, before the gate, where nothing of its check
             * depends on the GPU being the run's alone (check_baseline): its launch and the
             * host-side comparison of a large output stay out of the hold (issue 15). */
            if (c->ex->finish == NULL) {
                const double part = cml_now_ms();
                const int right = check_baseline(j, c->ex, &j->p);
                c->judged.phase_ms[PH_S_BASELINE] = cml_now_ms() - part;
                if (!right) {
                    return cml_lab_finish_error("harness", kWrongBaseline, CML_EXIT_FAILED);
                }
            }
        }
        phase_end(&c->judged, PH_SETS, &t0);
        /* Every case stays set up until its turn, in every grading of a batch at once: past
         * SETUP_BUDGET_BYTES the later cases wait for a judged run of their own (the line
         * "defer K": this run times the first K cases; docs/protocol.md). */
        held += case_bytes(c);
        if (k > 0 && held > SETUP_BUDGET_BYTES) {
            release_case(j, c);
            n = k;
            printf("defer %d\n", n);
            fflush(stdout);
        }
    }
    if (null_for >= 0) { /* awaited even for cases deferred: no GPU work past the gate */
        const double part = cml_now_ms();
        (void)cml_null_server_await(&j->null);
        if (null_for < n) {
            cases[null_for].judged.phase_ms[PH_S_NULL] = cml_now_ms() - part;
        }
    }
    phase_clock t0;
    phase_mark(&t0);
    if (opt->gate) {
        await_gate();
        if (cml_device_spin_from_here() != 0) { /* the set-up's waits blocked (cml_lab.c) */
            return cml_lab_finish_error("harness",
                                        "the judge could not make its waits spin for the timing "
                                        "(cudaSetDeviceFlags); a course bug, please report",
                                        CML_EXIT_FAILED);
        }
        phase_end(&cases[0].judged, PH_GATE, &t0); /* the run's one wait, on its first case */
    }
    const int alone = time && null_for >= 0 && null_for < n;
    if (alone && start_null_server(j) != 0) {
        /* A server that did not come up in the set-up (its context out of GPU memory beside
         * the untimed runs) is started again here, the GPU this run's alone: without it the
         * exchange would be timed only among the student's repetitions, uncapped (note 96; a
         * review's finding). The course's failure, never GONE. */
        cml_null_server_fail(&j->null, __FILE__, __LINE__);
    }
    double own = -1.0; /* the judge's own empty launch alone: a GPU already busy (note 97) */
    const double exchange = alone ? exchange_alone(j, &own) : -1.0;
    for (int k = 0; time && k < n; ++k) {
        if (cases[k].ex->launch_baseline) {
            use_case(j, &cases[k]);
            cases[k].judged.baseline_alone_ms = baseline_alone(j);
            cases[k].judged.worker_overhead_alone_ms = exchange;
            cases[k].judged.empty_launch_alone_ms = own;
            phase_end(&cases[k].judged, PH_ALONE, &t0);
        }
    }
    for (int k = 0; k < n; ++k) {
        judged_case *c = &cases[k];
        use_case(j, c);
        phase_mark(&t0);
        const int rc = hello(j, pool_fd);
        phase_end(&c->judged, PH_HELLO, &t0);
        if (k > 0) {
            release_case(j, &cases[k - 1]); /* unmapped by the student's process by now */
        }
        if (rc != ANSWERED) {
            return finish_remote_failure(j, rc);
        }
        const int baseline_reps =
            cml_info_baseline(opt, c->ex->name) && CML_INFO_BASELINE_REPS < opt->reps
                ? CML_INFO_BASELINE_REPS
                : opt->reps;
        const int code = judge_case(j, c, time, opt->reps, baseline_reps);
        if (code != CML_EXIT_OK) {
            return code;
        }
    }
    /* The empty-kernel server is told to end first: its CUDA context's teardown runs beside
     * the student's process's end, not after it (design note 82). */
    end_null_server(j);
    quit(j);
    release_case(j, &cases[n - 1]);
    reap_null_server(j);
    if (opt->n_cases > 0 && time) {
        /* no GPU work left but this context's end: the grader notes when (hold_tail_ms,
         * design note 82; docs/protocol.md). Written only after quit: a process left behind
         * holding the socket keeps it from being written. */
        grader_line("done");
    }
    return CML_EXIT_OK;
}

int cml_judge_run(const cml_options *opt, const cml_exercise *ex,
                  const cml_exercise *const *case_ex) {
    judge j;
    memset(&j, 0, sizeof j);
    j.sock = opt->peer_fd;
    j.ex = ex;
    j.null.sock = -1;
    fcntl(j.sock, F_SETFD, FD_CLOEXEC);
    /* Not dumpable: other processes of the same user (the student's, when the grader runs
     * without the sandbox) cannot open /proc/<judge>/fd or read its memory (the secret). */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    /* its name in top and ps (a batch's CPU by command, bench/throughput/top_by_command.py) */
    prctl(PR_SET_NAME, opt->time ? "judge-timed" : "judge-cases", 0, 0, 0);
    cml_rng_seed(&j.secret, secret_seed());

    if (cml_device_count() == 0) {
        return cml_lab_no_device(); /* closing the socket tells the student's process */
    }
    CML_CHECK(cml_device_query(&cml_run.device));
    cml_run.have_device = 1;

    int pool_fd = -1;
    CML_CHECK(cml_devmem_pool_create(&j.pool, &pool_fd));
    cml_check_set_secret(&j.secret);
    if (opt->n_cases > 0 && !opt->time) {
        return judge_cases(&j, opt, case_ex, pool_fd);
    }
    const cml_exercise *const one[1] = {ex};
    const int code = judge_timed_cases(&j, opt, opt->n_cases > 0 ? case_ex : one, pool_fd);
    stop_null_server(&j); /* on an error's return too: its server ends before the judge */
    close(pool_fd);
    cml_check_set_secret(NULL);
    return code;
}

/* harness.c — the fake lab's harness: the lab binary's contract (docs/protocol.md) on the
 * host only, for the grader's tests (grader/tests/fakelab/README.md).
 *
 * Judged runs as the real driver makes them, without a GPU: built as the judge (the Makefile
 * links grader/stubs.py's stubs instead of kernels.cu, which defines cml_judge_build),
 * `--exercise ... --peer FD` computes the inputs and the reference itself and asks the
 * student's process (`lab --serve FD`) for the output, which that process sends back over the
 * socket (the real judge reads it from shared device memory). The fake timing is the
 * launcher's `*speed`, as the student's process reports it. */
#define _POSIX_C_SOURCE 200809L /* nanosleep (FAKE_SETUP_MS) under -std=c11 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

extern const int cml_judge_build __attribute__((weak));

/* The judge's request and the student's process's answer (one seqpacket message each). */
typedef struct {
    char exercise[16];
    long long size[8];
    int n_size;
    unsigned long long seed;
} request;
#define MAX_N 16384 /* the largest case, 128 x 128; a seqpacket message stays well below 200 KB */
typedef struct {
    int rc;
    double speed;
    float out[MAX_N];
} answer;

#include "cml_json.h"
#include "fake.h"

/* The device facts of both documents: FAKE_CLOCK_KHZ adds the SM clock (the FP32 roof of
 * grader/plausible.py and grader/roofs.py), absent otherwise; FAKE_CC is the compute
 * capability (default 9.0). */
static void put_device(FILE *f) {
    const char *clock = getenv("FAKE_CLOCK_KHZ");
    const char *cc = getenv("FAKE_CC");
    const char *mem = getenv("FAKE_GLOBAL_MEM_BYTES");
    fprintf(f, "{\"name\":\"Fake GPU\",\"cc\":\"%s\",\"sm_count\":2,\"l2_bytes\":1024",
            cc ? cc : "9.0");
    if (clock) {
        fprintf(f, ",\"clock_khz\":%d", atoi(clock));
    }
    if (mem) {
        fprintf(f, ",\"global_mem_bytes\":%lld", atoll(mem));
    }
    fputc('}', f);
}

typedef struct {
    const char *exercise;
    long long size[8];
    int n_size;
    unsigned long long seed;
    int time, gate;
    const char *json;
    int peer, serve;
    int announce; /* an untimed --case run's judge: "launch" and "landed" around each ask */
} opts;

static int append_out; /* a plain run of several cases: a document per line (cml_lab.c) */

static FILE *open_out(const char *path) {
    if (!path) {
        return stdout;
    }
    FILE *f = fopen(path, append_out ? "a" : "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    return f;
}

/* Whether this timed run takes one of the runs FILE grants (FAKE_EXCHANGE_BOUND,
 * FAKE_EXCHANGE_SLOWED, FAKE_BUSY_BEFORE): "always", every one; a file holding N (none: 1),
 * the next N, counted down in the file and removed at the last; no such file, none. */
static int take_run(const char *path) {
    if (path == NULL) {
        return 0;
    }
    if (strcmp(path, "always") == 0) {
        return 1;
    }
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }
    int n = 1;
    if (fscanf(f, "%d", &n) != 1) {
        n = 1;
    }
    fclose(f);
    if (n > 1 && (f = fopen(path, "w")) != NULL) {
        fprintf(f, "%d\n", n - 1);
        fclose(f);
        return 1;
    }
    return unlink(path) == 0;
}

static int is_poison(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == 0xFFFFFFFFu;
}

static void put_double(FILE *f, double x) {
    if (isfinite(x)) {
        fprintf(f, "%.17g", x);
    } else {
        fputs("null", f);
    }
}

/* Ends a document: closes its file, or flushes standard output (a multi-case run writes one
 * document per line there, each as its case ends). */
static void close_out(FILE *f) {
    if (f != stdout) {
        fclose(f);
    } else {
        fflush(f);
    }
}

#define CLOSED 100 /* one_case in the student's process: the judge closed the socket */

/* --info-baseline EX (cml_options.h): the exercises whose baseline only informs */
static char g_info[64][64];
static int g_n_info;

/* the judge passed its gate: its student's process may run (FAKE_JUDGE_OOM_AFTER_GATE) */
static int g_past_gate;

/* Sleeps the milliseconds the environment variable `name` gives, if it gives any: a real
 * judge's set-up (FAKE_SETUP_MS, FAKE_CASE_SETUP_MS). */
static void sleep_ms_from(const char *name) {
    const char *text = getenv(name);
    if (text) {
        const long ms = atol(text);
        struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&t, NULL);
    }
}

/* cml_judge.c's await_gate: set up, now wait for the grader; FAKE_GATE_LOG gets a line per
 * gate passed, naming the run's exercises ("scale+offset" for a timed run over the lab) and
 * any --info-baseline's (";info=offset"). FAKE_SETUP_MS=N: a set-up of N ms before the gate
 * (a real judge's set-up takes seconds).
 * 0 on a usage error (--gate without --time) or when the grader is gone. */
static int await_gate(int time, int n, const char *const *names) {
    if (!time) {
        fprintf(stderr, "usage error: --gate without --time\n");
        return 0;
    }
    sleep_ms_from("FAKE_SETUP_MS");
    fputs("gate\n", stdout);
    fflush(stdout);
    char go;
    if (read(0, &go, 1) < 0) {
        return 0;
    }
    g_past_gate = 1;
    const char *log = getenv("FAKE_GATE_LOG"); /* the tests see each gate passed */
    FILE *g = log ? fopen(log, "a") : NULL;
    if (g) {
        for (int k = 0; k < n; ++k) {
            fprintf(g, "%s%s", k ? "+" : "", names[k]);
        }
        for (int k = 0; k < g_n_info; ++k) {
            fprintf(g, "%s%s", k ? "+" : ";info=", g_info[k]);
        }
        fputc('\n', g);
        fclose(g);
    }
    return 1;
}

/* Whether the knob `name` (=FILE: the first judge that removes FILE; =always: every judge)
 * fires for this judge. */
static int knob_fires(const char *name) {
    const char *flag = getenv(name);
    return flag && (strcmp(flag, "always") == 0 || unlink(flag) == 0);
}

/* A judge's document of a CUDA "out of memory" on standard output, flushed: `by` "judge" (a
 * device allocation of its own failed at `where`, `expr`: cml_lab.c's cml_lab_fail) or "run"
 * (relayed from the student's process, with `gpu_memory`, the judge's own figures, as
 * cml_judge.c's finish_remote_failure writes them). */
static void put_oom(const char *exercise, const long long *size, int n_size,
                    unsigned long long seed, const char *by, const char *where, const char *expr,
                    const char *gpu_memory) {
    printf("{\"schema\":%d,\"lab\":\"9.1\",\"exercise\":\"%s\",\"size\":[", CML_SCHEMA_VERSION,
           exercise);
    for (int i = 0; i < n_size; ++i) {
        printf("%s%lld", i ? "," : "", size[i]);
    }
    printf("],\"seed\":%llu,\"judged\":true,\"status\":\"error\",\"error\":{\"kind\":"
           "\"cuda\",\"message\":\"out of memory\",\"where\":\"%s\",\"expr\":\"%s\","
           "\"by\":\"%s\"%s%s},\"check\":null,\"timing\":null,\"metrics\":null}\n",
           seed, where, expr, by, gpu_memory ? ",\"gpu_memory\":" : "",
           gpu_memory ? gpu_memory : "");
    fflush(stdout);
}

/* `knob`=FILE: the first judge that removes FILE (=always: every judge) fails in its
 * set-up as the course's judge does when a device allocation of its own fails (cml_lab.c's
 * cml_lab_fail: its document, error.by "judge", kind "cuda", CUDA's "out of memory"; exit 4):
 * FAKE_JUDGE_OOM_ONCE a gated timed judge's, before its gate; FAKE_UNTIMED_JUDGE_OOM an
 * untimed judge's, before its case's ask (design note 89: another grading's process holds
 * the GPU's memory). Returns only when it does not. */
static void judge_oom_in_setup(const char *knob, const char *exercise, const long long *size,
                               int n_size, unsigned long long seed) {
    if (!knob_fires(knob)) {
        return;
    }
    fprintf(stderr, "lab: cml_setup.c:111: cml_dev_alloc(&ptr, bytes) failed: out of memory\n");
    put_oom(exercise, size, n_size, seed, "judge", "cml_setup.c:111", "cml_dev_alloc(&ptr, bytes)",
            NULL);
    exit(4);
}

/* FAKE_RUN_OOM=FILE: the first untimed judge that removes FILE (=always: every untimed
 * judge), once the student's process has answered a case, relays that process's failure to
 * map the judge's pool for want of GPU memory (cml_devmem.c: ERROR kind "cuda", CUDA's "out of
 * memory"), as the course's judge writes it: error.by "run", with the GPU's memory by the
 * judge's own count, `gpu_memory` (FAKE_RUN_OOM_FREE_BYTES=N free, default 256 MiB, of 80 GiB;
 * =null: the judge's cudaMemGetInfo failed). The document in place of that case's; exit 4 (a
 * failure of the student's process ends the run). Returns only when it does not. */
static void relayed_run_oom(const char *exercise, const long long *size, int n_size,
                            unsigned long long seed) {
    if (!knob_fires("FAKE_RUN_OOM")) {
        return;
    }
    const char *free_bytes = getenv("FAKE_RUN_OOM_FREE_BYTES");
    char memory[96];
    snprintf(memory, sizeof memory, "{\"free_bytes\":%s,\"total_bytes\":85899345920}",
             free_bytes ? free_bytes : "268435456");
    put_oom(exercise, size, n_size, seed, "run", "cml_devmem.c:153",
            "cudaMemPoolImportPointer(&ptr, pool, &data)",
            free_bytes && !strcmp(free_bytes, "null") ? "null" : memory);
    exit(4);
}

/* FAKE_JUDGE_OOM_AFTER_GATE=FILE: the first gated timed judge past its gate that removes
 * FILE (=always: every such judge), once its student's process has answered its first case,
 * fails there as the course's judge does when give_outputs' buffers for the batched samples
 * do not fit in the GPU's memory during the timing (cml_lab_fail: error.by "judge", kind
 * "cuda", CUDA's "out of memory"; exit 4), the document in place of that case's; it ends
 * 2 s later (its context's end), the student's process still alive meanwhile: the grader's
 * stub nvidia-smi reads /proc then, and 500 ms were once too short on the loaded 2-core CI
 * machine (session 45: the held figure missing for one exercise). Returns only when it
 * does not. */
static void judge_oom_after_gate(const char *exercise, const long long *size, int n_size,
                                 unsigned long long seed) {
    static int cases_past_gate;
    if (!g_past_gate || cases_past_gate++ > 0 || !knob_fires("FAKE_JUDGE_OOM_AFTER_GATE")) {
        return;
    }
    fprintf(stderr, "lab: cml_judge.c:812: cml_dev_alloc(&outs, bytes) failed: out of memory\n");
    put_oom(exercise, size, n_size, seed, "judge", "cml_judge.c:812", "cml_dev_alloc(&outs, bytes)",
            NULL);
    struct timespec t = {2, 0};
    nanosleep(&t, NULL);
    exit(4);
}

/* One case: the judge's (asks the student's process, checks, writes the document), the
 * student's process's (answers one request) or a plain run's. */
static int one_case(opts o, int have_gpu) {
    (void)have_gpu;
    const int judge = &cml_judge_build != NULL;
    request req;
    memset(&req, 0, sizeof req);
    if (o.serve) { /* the student's process: one request, one answer */
        if (recv(o.serve, &req, sizeof req, 0) != (ssize_t)sizeof req) {
            return CLOSED;
        }
        req.exercise[sizeof req.exercise - 1] = '\0';
        o.exercise = req.exercise;
        o.n_size = req.n_size < 8 ? req.n_size : 8;
        memcpy(o.size, req.size, sizeof o.size);
        o.seed = req.seed;
    }
    if (judge != (o.peer > 0)) {
        fprintf(stderr, "usage error: --peer is the judge's\n");
        return 2;
    }
    int is_scale = o.exercise && !strcmp(o.exercise, "scale");
    int is_offset = o.exercise && !strcmp(o.exercise, "offset");
    if ((!is_scale && !is_offset) || o.n_size != (is_scale ? 2 : 1)) {
        fprintf(stderr, "usage error: exercise/size\n");
        return 2;
    }
    long long rows = is_scale ? o.size[0] : 1, cols = is_scale ? o.size[1] : o.size[0];
    size_t n = (size_t)(rows * cols);
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    srand((unsigned)o.seed);
    for (size_t i = 0; i < n; ++i) {
        in[i] = (float)(rand() % 1000) / 8.0f;
    }
    memset(out, 0xFF, n * sizeof *out);
    double speed = 1.0;
    int rc;
    if (judge && o.gate && o.time) {
        judge_oom_in_setup("FAKE_JUDGE_OOM_ONCE", o.exercise, o.size, o.n_size, o.seed);
    }
    if (judge && o.gate && !await_gate(o.time, 1, &o.exercise)) {
        return 2;
    }
    if (judge) {
        /* FAKE_CASE_SETUP_MS=N: a judge's set-up of N ms before each untimed case's launch
         * (a real one computes its reference then: seconds for lab 3.3's largest case) */
        if (o.announce) {
            sleep_ms_from("FAKE_CASE_SETUP_MS");
        }
        if (!o.time) {
            judge_oom_in_setup("FAKE_UNTIMED_JUDGE_OOM", o.exercise, o.size, o.n_size, o.seed);
        }
        snprintf(req.exercise, sizeof req.exercise, "%s", o.exercise);
        memcpy(req.size, o.size, sizeof req.size);
        req.n_size = o.n_size;
        req.seed = o.seed;
        static answer a;
        if (o.announce) { /* cml_judge.c's launch_line */
            fputs("launch\n", stdout);
            fflush(stdout);
        }
        const int asked = n <= MAX_N && send(o.peer, &req, sizeof req, 0) == (ssize_t)sizeof req;
        const int answered = asked && recv(o.peer, &a, sizeof a, 0) == (ssize_t)sizeof a;
        if (o.announce) {
            fputs("landed\n", stdout);
            fflush(stdout);
        }
        if (!answered) {
            FILE *f = open_out(o.json);
            fprintf(f, "{\"schema\":%d,\"lab\":\"9.1\",\"exercise\":\"%s\",\"size\":[",
                    CML_SCHEMA_VERSION, o.exercise);
            for (int i = 0; i < o.n_size; ++i) {
                fprintf(f, "%s%lld", i ? "," : "", o.size[i]);
            }
            fprintf(f,
                    "],\"seed\":%llu,\"judged\":true,\"status\":\"error\",\"error\":{"
                    "\"kind\":\"worker\",\"message\":\"the student's process ended\","
                    "\"where\":null,\"expr\":null},\"check\":null,\"timing\":null,"
                    "\"metrics\":null}\n",
                    o.seed);
            close_out(f);
            return 4;
        }
        if (o.time) {
            judge_oom_after_gate(o.exercise, o.size, o.n_size, o.seed);
        } else {
            relayed_run_oom(o.exercise, o.size, o.n_size, o.seed);
        }
        rc = a.rc;
        speed = a.speed;
        memcpy(out, a.out, n * sizeof *out);
    } else {
        rc = is_scale ? scale(in, out, (int)rows, (int)cols, &speed)
                      : offset(in, out, (int)n, &speed);
    }
    if (o.serve) {
        static answer a;
        a.rc = rc;
        a.speed = speed;
        memcpy(a.out, out, (n < MAX_N ? n : MAX_N) * sizeof *out);
        send(o.serve, &a, sizeof a, 0);
        return 0;
    }
    FILE *f = open_out(o.json);
    fprintf(f, "{\"schema\":%d,\"lab\":\"9.1\",\"exercise\":\"%s\",\"size\":[", CML_SCHEMA_VERSION,
            o.exercise);
    for (int i = 0; i < o.n_size; ++i) {
        fprintf(f, "%s%lld", i ? "," : "", o.size[i]);
    }
    fprintf(f, "],\"seed\":%llu,\"judged\":%s,", o.seed, judge ? "true" : "false");
    if (rc == 1) {
        fprintf(f, "\"status\":\"error\",\"error\":{\"kind\":\"launch\",\"message\":"
                   "\"too many resources requested for launch\",\"where\":\"harness.c:1\","
                   "\"expr\":\"launch\"},\"check\":null,\"timing\":null,\"metrics\":null}\n");
        close_out(f);
        return 4;
    }
    if (rc == 2) {
        fprintf(stderr, "FAKE-RACE\n");
    }
    size_t n_bad = 0, n_unwritten = 0, first = 0;
    long long r0 = rows, r1 = -1, c0 = cols, c1 = -1;
    for (size_t i = 0; i < n; ++i) {
        double want = is_scale ? 2.0 * in[i] + 1.0 : in[i] + 3.0;
        if (is_poison(out[i]) || !isfinite(out[i]) || fabs(out[i] - want) > 1e-6) {
            if (n_bad++ == 0) {
                first = i;
            }
            n_unwritten += is_poison(out[i]);
            long long r = (long long)i / cols, c = (long long)i % cols;
            r0 = r < r0 ? r : r0;
            r1 = r > r1 ? r : r1;
            c0 = c < c0 ? c : c0;
            c1 = c > c1 ? c : c1;
        }
    }
    fprintf(f,
            "\"status\":\"%s\",\"error\":null,\"check\":{\"n\":%zu,\"rows\":%lld,\"cols\":%lld,"
            "\"n_bad\":%zu,\"n_unwritten\":%zu,\"n_nonfinite\":0,\"max_abs_err\":0,"
            "\"rel_l2_err\":0,\"gamma\":0,\"abs_floor\":0,\"phase\":\"%s\",",
            n_bad ? "wrong" : "ok", n, rows, cols, n_bad, n_unwritten,
            /* which run the check is (cml_judge.c): FAKE_TIMED_PHASE names a timed one's */
            o.time && getenv("FAKE_TIMED_PHASE") ? getenv("FAKE_TIMED_PHASE") : "first");
    if (n_bad) {
        double want = is_scale ? 2.0 * in[first] + 1.0 : in[first] + 3.0;
        fprintf(f, "\"first_bad\":{\"index\":%zu,\"row\":%lld,\"col\":%lld,\"expected\":", first,
                (long long)first / cols, (long long)first % cols);
        put_double(f, want);
        fputs(",\"got\":", f);
        put_double(f, is_poison(out[first]) ? NAN : out[first]);
        fprintf(f, ",\"tol\":1e-06,\"unwritten\":%s},", is_poison(out[first]) ? "true" : "false");
        fprintf(f,
                "\"bad_box\":{\"row_min\":%lld,\"row_max\":%lld,\"col_min\":%lld,"
                "\"col_max\":%lld}},",
                r0, r1, c0, c1);
    } else {
        fputs("\"first_bad\":null,\"bad_box\":null},", f);
    }
    if (o.time && !n_bad) {
        /* FAKE_DISTURB_ONCE=FILE: the first timed run that removes FILE is disturbed as a run
         * sharing the GPU would be (bench/h200-2026-12-02-session8): the course's baseline
         * and copy 4x slower, before the student's process started too (so that
         * plausible.disturbed, which blames the submission, sees nothing), the student's
         * launches 8x (test_batch.py). */
        const char *disturb = getenv("FAKE_DISTURB_ONCE");
        double slow = disturb && unlink(disturb) == 0 ? 4.0 : 1.0;
        double student = (slow > 1.0 ? 8.0 : 1.0) / speed;
        /* FAKE_SPREAD_ONCE=FILE: the first timed run that removes FILE has samples that
         * spread as a busy host's do (g36: median 2.37x the fastest tenth), its median 1.5x
         * slower; otherwise the spread of an undisturbed run (median 1.02x the fastest
         * tenth). */
        const char *spread_flag = getenv("FAKE_SPREAD_ONCE");
        const double spread = spread_flag && unlink(spread_flag) == 0 ? 2.4 : 1.02;
        student *= spread > 2.0 ? 1.5 : 1.0;
        /* FAKE_EXCHANGE_BOUND=FILE: the first timed run that removes FILE (=always: every
         * timed run) took its samples while the exchanges with the empty-kernel server were
         * slowed (bench/h200-2026-12-04-session21/g88): all 20 no longer than the 2 ms
         * subtracted from each, so each counts as 1e-6 ms (cml_judge.c, under_overhead). */
        const int bound = take_run(getenv("FAKE_EXCHANGE_BOUND"));
        if (bound) {
            student = 1e-6;
        }
        /* FAKE_EXCHANGE_SLOWED=FILE: the first timed runs that find FILE (=always: every
         * timed run; FILE holding a count N: the first N, one at a time, the last removing
         * it) had their exchanges with the empty-kernel server slowed as behind a process
         * left behind (bench/h200-2026-12-06-session40/g129: 2.38 ms against 0.006 alone,
         * design note 95), their samples shrunk by what was subtracted from them (as under a
         * judge without note 96's cap; the cap's own figure, 0.006 + 0.25 ms, is given). */
        const int slowed = take_run(getenv("FAKE_EXCHANGE_SLOWED"));
        if (slowed) {
            student /= 4.0;
        }
        /* FAKE_BUSY_BEFORE=FILE (as above): the GPU busy with another process's work before
         * the student's process started: the judge's own empty launch alone 2.38 ms against
         * 0.149 idle, every other figure slowed alike (g135, design note 97) */
        const int busy = take_run(getenv("FAKE_BUSY_BEFORE"));
        if (busy) { /* (g138: the baseline and the copy strayed from the class's too) */
            student *= 3.0;
            slow *= 3.0;
        }
        fprintf(f,
                "\"timing\":{\"worker_overhead_ms\":%s,\"worker_overhead_alone_ms\":0.006,"
                "\"worker_overhead_subtracted_ms\":%s,\"under_overhead\":%d,"
                "\"empty_launch_alone_ms\":%s,",
                bound ? "2.0" : slowed ? "2.38" : "0.15", bound || slowed ? "0.256" : "0.15",
                bound ? 20 : 0, busy ? "2.38" : "0.149");
        char alone[32];
        snprintf(alone, sizeof alone, "%.6g", slow);
        fprintf(f,
                "\"reps\":20,\"batch\":1,\"baseline_batch\":1,"
                "\"student\":{\"median_ms\":%.6g,"
                "\"p10_ms\":%.6g,\"p90_ms\":%.6g},\"baseline\":{\"median_ms\":%.6g,"
                "\"p10_ms\":%.6g,\"p90_ms\":%.6g},\"copy\":{\"median_ms\":%.6g,"
                "\"p10_ms\":%.6g,\"p90_ms\":%.6g},\"ratio\":%.6g,\"baseline_alone_ms\":%s,"
                "\"phases_ms\":{\"setup\":1,\"input_sets\":1,\"baseline_alone\":1,"
                "\"hello\":1,\"verify\":1,\"timing\":5},"
                "\"phases_cpu_ms\":{\"setup\":1,\"input_sets\":0,\"hello\":0,\"verify\":1,"
                "\"timing\":4}},",
                student, student / spread, 1.05 * student, slow, 0.98 * slow, 1.05 * slow, 0.5 * slow,
                0.5 * slow, 0.5 * slow, slow / student,
                getenv("FAKE_BASELINE_ALONE_MS") ? getenv("FAKE_BASELINE_ALONE_MS") : alone);
        fprintf(f,
                "\"metrics\":{\"bytes\":1,\"flops\":1,\"gbps\":%.6g,\"gflops\":1,"
                "\"baseline_gbps\":%.6g,\"copy_gbps\":%.6g,\"pct_of_copy\":%.6g},",
                100.0 / student, 100.0 / slow, 200.0 / slow, 50.0 * slow / student);
    } else {
        fputs("\"timing\":null,\"metrics\":null,", f);
    }
    fputs("\"device\":", f);
    put_device(f);
    fputs("}\n", f);
    close_out(f);
    free(in);
    free(out);
    return 0;
}

int main(int argc, char **argv) {
    opts o = {0};
    o.seed = 1;
    int list = 0, info = 0;
    static long long cases[64][8];
    static int case_n[64];
    static unsigned long long case_seed[64];
    static char case_ex[64][64]; /* --case EX:...: the case's exercise; "" = --exercise's */
    int n_cases = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--list")) {
            list = 1;
        } else if (!strcmp(argv[i], "--device-info")) {
            info = 1;
        } else if (!strcmp(argv[i], "--time")) {
            o.time = 1;
        } else if (!strcmp(argv[i], "--gate")) {
            o.gate = 1;
        } else if (i + 1 < argc && !strcmp(argv[i], "--exercise")) {
            o.exercise = argv[++i];
        } else if (i + 1 < argc && !strcmp(argv[i], "--seed")) {
            o.seed = strtoull(argv[++i], NULL, 0);
        } else if (i + 1 < argc && !strcmp(argv[i], "--reps")) {
            ++i;
        } else if (i + 1 < argc && !strcmp(argv[i], "--info-baseline") && g_n_info < 64) {
            snprintf(g_info[g_n_info++], sizeof g_info[0], "%s", argv[++i]);
        } else if (i + 1 < argc && !strcmp(argv[i], "--peer")) {
            o.peer = atoi(argv[++i]);
        } else if (i + 1 < argc && !strcmp(argv[i], "--serve")) {
            o.serve = atoi(argv[++i]);
        } else if (i + 1 < argc && !strcmp(argv[i], "--json")) {
            o.json = argv[++i];
        } else if (i + 1 < argc && !strcmp(argv[i], "--case") && n_cases < 64) {
            char *p = argv[++i]; /* [EX:]A,B@SEED: cml_options.c's --case */
            char *colon = strchr(p, ':');
            char *at = strchr(p, '@');
            case_ex[n_cases][0] = '\0';
            if (colon && (!at || colon < at) && colon - p < 64) {
                memcpy(case_ex[n_cases], p, (size_t)(colon - p));
                case_ex[n_cases][colon - p] = '\0';
                p = colon + 1;
            }
            case_n[n_cases] = 0;
            while (*p && *p != '@' && case_n[n_cases] < 8) {
                cases[n_cases][case_n[n_cases]++] = strtoll(p, &p, 10);
                if (*p == ',') {
                    ++p;
                }
            }
            case_seed[n_cases++] = *p == '@' ? strtoull(p + 1, NULL, 0) : 1;
        } else if (i + 1 < argc && !strcmp(argv[i], "--size")) {
            char *p = argv[++i];
            while (*p && o.n_size < 8) {
                o.size[o.n_size++] = strtoll(p, &p, 10);
                if (*p == ',') {
                    ++p;
                }
            }
        } else {
            fprintf(stderr, "usage error: %s\n", argv[i]);
            return 2;
        }
    }
    if (list) {
        FILE *f = open_out(o.json);
        fprintf(f,
                "{\"schema\":%d,\"lab\":\"9.1\",\"min_reps\":20,"
                "\"metrics\":[\"bytes\",\"flops\",\"gbps\",\"gflops\",\"baseline_gbps\","
                "\"copy_gbps\",\"pct_of_copy\"],\"exercises\":["
                "{\"name\":\"scale\",\"dims\":[\"rows\",\"cols\"],\"baseline\":\"scale_naive\","
                "\"launchers\":[\"scale\"],\"kernel\":\"scale_kernel\"},"
                "{\"name\":\"offset\",\"dims\":[\"n\"],\"baseline\":\"offset_naive\","
                "\"launchers\":[\"offset\"],\"kernel\":null}]}\n",
                CML_SCHEMA_VERSION);
        return 0;
    }
    const char *gpu = getenv("FAKE_GPU");
    int have_gpu = gpu && !strcmp(gpu, "1");
    if (!o.serve && (info || !have_gpu)) {
        FILE *f = open_out(o.json);
        if (have_gpu) {
            fprintf(f, "{\"schema\":%d,\"status\":\"ok\",\"device\":", CML_SCHEMA_VERSION);
            put_device(f);
            fputs("}\n", f);
        } else {
            fprintf(f, "{\"schema\":%d,\"status\":\"no_device\",\"device\":null}\n",
                    CML_SCHEMA_VERSION);
        }
        if (f != stdout) {
            fclose(f);
        }
        return have_gpu ? 0 : 3;
    }
    if (o.serve) { /* the student's process: each request until the judge closes the socket */
        const char *served = getenv("FAKE_SERVE_LOG"); /* the tests count its starts */
        FILE *s = served ? fopen(served, "a") : NULL;
        if (s) {
            fputs("serve\n", s);
            fclose(s);
        }
        for (;;) {
            const int rc = one_case(o, have_gpu);
            if (rc != 0) {
                return rc == CLOSED ? 0 : rc;
            }
        }
    }
    const char *starts = getenv("FAKE_JUDGE_LOG"); /* the tests count the judge's starts */
    FILE *log = starts && &cml_judge_build != NULL ? fopen(starts, "a") : NULL;
    if (log) {
        fprintf(log, "%s %d%s\n", o.exercise ? o.exercise : "-", n_cases, o.time ? " timed" : "");
        fclose(log);
    }
    if (n_cases == 0) {
        return one_case(o, have_gpu);
    }
    append_out = o.json != NULL;
    const char *exercise = o.exercise;
    /* FAKE_SETUP_BUDGET_CASES=N: a timed run of more cases sets up the first N only and says
     * so before its gate (cml_judge.c's set-up budget: "defer N") */
    const char *budget = getenv("FAKE_SETUP_BUDGET_CASES");
    if (o.time && o.peer && budget && atoi(budget) > 0 && n_cases > atoi(budget)) {
        n_cases = atoi(budget);
        printf("defer %d\n", n_cases);
        fflush(stdout);
    }
    if (o.gate && o.peer) { /* timed cases: one gate, once all are set up (cml_judge.c) */
        const char *names[64];
        for (int k = 0; k < n_cases; ++k) {
            names[k] = case_ex[k][0] ? case_ex[k] : exercise;
        }
        if (o.time) {
            judge_oom_in_setup("FAKE_JUDGE_OOM_ONCE", names[0], cases[0], case_n[0], case_seed[0]);
        }
        if (!await_gate(o.time, n_cases, names)) {
            return 2;
        }
        o.gate = 0;
    }
    o.announce = o.peer && !o.time;
    for (int k = 0; k < n_cases; ++k) { /* --case ...: one document per case and line */
        o.exercise = case_ex[k][0] ? case_ex[k] : exercise;
        memcpy(o.size, cases[k], sizeof o.size);
        o.n_size = case_n[k];
        o.seed = case_seed[k];
        const int rc = one_case(o, have_gpu);
        if (rc != 0) {
            return rc; /* the student's process failed: the grader runs the rest afresh */
        }
    }
    if (o.time && o.peer) {
        /* cml_judge.c's end of a timed run over the lab: the student's process ended (the
         * socket closed by everything that held it: a process left behind keeps the judge
         * waiting here, as the real one's quit does), then "done"; FAKE_DONE_SLEEP_MS=N: the
         * judge ends N ms after it (the real one's context teardown) */
        shutdown(o.peer, SHUT_WR);
        char end;
        while (recv(o.peer, &end, 1, 0) > 0) {
        }
        fputs("done\n", stdout);
        fflush(stdout);
        sleep_ms_from("FAKE_DONE_SLEEP_MS");
    }
    return 0;
}

/* test_lab.c — the lab driver cml_lab_main() (cml_lab.h, docs/protocol.md).
 *
 * A small lab "0.0" whose exercises need no kernel: the "student" and the baseline copy
 * the input with cudaMemcpyAsync, and each exercise gets it wrong in one known way. The
 * driver runs in a child process (run_in_child: it may exit from its failure handler, and
 * CUDA must not be initialised in Check's test process before the fork); its run document
 * is read back and checked with strstr against the protocol's field names.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cml_check.h"
#include "cml_device.h"
#include "cml_ipc.h"
#include "cml_lab.h"
#include "cml_lab_internal.h"
#include "cml_launches.h"
#include "cml_rng.h"
#include "suites.h"

/* ---- The test lab: y = x, n = rows * cols float32 values ---- */

typedef enum student_kind {
    STUDENT_COPY,       /* correct */
    STUDENT_HALF_ROWS,  /* writes only the first rows / 2 rows */
    STUDENT_LAZY,       /* correct on its first run only */
    STUDENT_FAULT,      /* a failing runtime call at launch */
    STUDENT_BAD_LAUNCH, /* the same, noted in the launch record as a launch of 0 blocks */
    STUDENT_POKE        /* correct, then overwrites element 0 with 0x40404040 (3.0039...) */
} student_kind;

typedef struct fake {
    float *d_in, *d_out; /* (rows, cols) row-major */
    float *d_raw;        /* "raw" exercises: where the launchers write; finish copies it out */
    double finish_ms;    /* the run_ms the last finish() was given */
    double *h_ref;
    size_t *check_idx;
    size_t rows, cols;
    student_kind student;
    int baseline_wrong;
    int runs;
} fake;

static const char *setup_fake(cml_problem *p, const long long *size, int n_dims, uint64_t seed,
                              student_kind student) {
    size_t rows = n_dims == 2 ? (size_t)size[0] : 1;
    size_t cols = (size_t)size[n_dims - 1];
    if (rows > 4096 || cols > (1u << 24)) {
        return "the case is too large for this test exercise";
    }
    size_t n = rows * cols;
    fake *f = calloc(1, sizeof *f);
    float *h_in = malloc(n * sizeof *h_in);
    f->h_ref = malloc(n * sizeof *f->h_ref);
    ck_assert(f && h_in && f->h_ref);
    f->rows = rows;
    f->cols = cols;
    f->student = student;
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    cml_rng_fill_uniform_f32(&rng, h_in, n, -1.0f, 1.0f);
    for (size_t i = 0; i < n; ++i) {
        f->h_ref[i] = h_in[i];
    }
    CML_CHECK(cudaMalloc((void **)&f->d_in, n * sizeof(float)));
    CML_CHECK(cudaMalloc((void **)&f->d_out, n * sizeof(float)));
    CML_CHECK(cudaMemcpy(f->d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));
    free(h_in);

    p->d_out = f->d_out;
    p->n_out = n;
    p->out_cols = cols;
    p->h_ref = f->h_ref;
    p->gamma = 0.0; /* a copy is exact */
    p->abs_floor = 0.0;
    p->bytes = 2.0 * (double)n * sizeof(float);
    p->flops = 0.0;
    p->ctx = f;
    return NULL;
}

static void copy_rows(const fake *f, size_t rows) {
    (void)cudaMemcpyAsync(f->d_raw ? f->d_raw : f->d_out, f->d_in, rows * f->cols * sizeof(float),
                          cudaMemcpyDeviceToDevice, 0);
}

static void launch_student(void *ctx) {
    fake *f = ctx;
    f->runs++;
    switch (f->student) {
    case STUDENT_COPY:
        copy_rows(f, f->rows);
        break;
    case STUDENT_HALF_ROWS:
        copy_rows(f, f->rows / 2);
        break;
    case STUDENT_LAZY:
        if (f->runs == 1) {
            copy_rows(f, f->rows);
        }
        break;
    case STUDENT_FAULT:
        (void)cudaMemsetAsync((void *)(uintptr_t)16, 0, 4, 0); /* not a device pointer */
        break;
    case STUDENT_BAD_LAUNCH: {
        /* What the launch wrappers (cml_launch_wrap.c, not linked into this runner) would note
         * for kernel<<<dim3(0, 128), dim3(32, 8)>>>: the call's error, with its configuration. */
        const cudaError_t err = cudaMemsetAsync((void *)(uintptr_t)16, 0, 4, 0);
        cml_launches_note(NULL, (dim3){0, 128, 1}, (dim3){32, 8, 1}, 0, err);
        break;
    }
    case STUDENT_POKE:
        copy_rows(f, f->rows);
        (void)cudaMemsetAsync(f->d_out, 0x40, sizeof(float), 0);
        break;
    }
}

static void launch_baseline(void *ctx) {
    fake *f = ctx;
    if (f->baseline_wrong) {
        (void)cudaMemsetAsync(f->d_out, 0, f->rows * f->cols * sizeof(float), 0);
    } else {
        copy_rows(f, f->rows);
    }
}

static void teardown_fake(cml_problem *p) {
    fake *f = p->ctx;
    CML_CHECK(cudaFree(f->d_raw));
    CML_CHECK(cudaFree(f->d_in));
    CML_CHECK(cudaFree(f->d_out));
    free(f->h_ref);
    free(f->check_idx);
    free(f);
}

static const char *setup_copy(cml_problem *p, const long long *size, uint64_t seed) {
    return setup_fake(p, size, 1, seed, STUDENT_COPY);
}

static const char *setup_rows(cml_problem *p, const long long *size, uint64_t seed) {
    return setup_fake(p, size, 2, seed, STUDENT_HALF_ROWS);
}

static const char *setup_lazy(cml_problem *p, const long long *size, uint64_t seed) {
    return setup_fake(p, size, 1, seed, STUDENT_LAZY);
}

static const char *setup_fault(cml_problem *p, const long long *size, uint64_t seed) {
    return setup_fake(p, size, 1, seed, STUDENT_FAULT);
}

static const char *setup_bad_launch(cml_problem *p, const long long *size, uint64_t seed) {
    return setup_fake(p, size, 1, seed, STUDENT_BAD_LAUNCH);
}

static const char *setup_poke(cml_problem *p, const long long *size, uint64_t seed) {
    return setup_fake(p, size, 2, seed, STUDENT_POKE);
}

static const char *setup_even(cml_problem *p, const long long *size, uint64_t seed) {
    if (size[0] % 2 != 0) {
        return "N must be even";
    }
    return setup_fake(p, size, 1, seed, STUDENT_COPY);
}

static const char *setup_bad_baseline(cml_problem *p, const long long *size, uint64_t seed) {
    const char *msg = setup_fake(p, size, 1, seed, STUDENT_COPY);
    ((fake *)p->ctx)->baseline_wrong = 1;
    return msg;
}

/* Checks three positions only, in the order last, first, second row; the student writes
 * the first rows / 2 rows, so only the last position (compared first) is bad. */
static const char *setup_sampled(cml_problem *p, const long long *size, uint64_t seed) {
    const char *msg = setup_fake(p, size, 2, seed, STUDENT_HALF_ROWS);
    fake *f = p->ctx;
    size_t n = p->n_out;
    size_t pos[3] = {n - 1, 0, f->cols};
    double *ref = malloc(3 * sizeof *ref);
    f->check_idx = malloc(3 * sizeof *f->check_idx);
    for (int i = 0; i < 3; ++i) {
        f->check_idx[i] = pos[i];
        ref[i] = f->h_ref[pos[i]];
    }
    free(f->h_ref);
    f->h_ref = ref;
    p->h_ref = ref;
    p->check_idx = f->check_idx;
    p->n_check = 3;
    return msg;
}

static const char *setup_cuda_fails(cml_problem *p, const long long *size, uint64_t seed) {
    (void)p, (void)size, (void)seed;
    void *d_huge;
    CML_CHECK(cudaMalloc(&d_huge, (size_t)1 << 60));
    return NULL;
}

/* The launchers write a raw buffer of the same floats; finish() copies it into d_out. */
static const char *setup_raw(cml_problem *p, const long long *size, uint64_t seed, student_kind k) {
    const char *msg = setup_fake(p, size, 1, seed, k);
    fake *f = p->ctx;
    CML_CHECK(cudaMalloc((void **)&f->d_raw, p->n_out * sizeof(float)));
    p->d_raw = f->d_raw;
    p->raw_bytes = p->n_out * sizeof(float);
    p->raw_poison = 0xFF;
    return msg;
}

static const char *setup_raw_copy(cml_problem *p, const long long *size, uint64_t seed) {
    return setup_raw(p, size, seed, STUDENT_COPY);
}

static const char *setup_raw_half(cml_problem *p, const long long *size, uint64_t seed) {
    return setup_raw(p, size, seed, STUDENT_HALF_ROWS);
}

static void finish_raw(void *ctx, double run_ms) {
    fake *f = ctx;
    f->finish_ms = run_ms;
    CML_CHECK(cudaMemcpy(f->d_out, f->d_raw, f->rows * f->cols * sizeof(float),
                         cudaMemcpyDeviceToDevice));
}

/* Part k: k + 1 copies of the input, so part 3 takes longer than part 0. */
static void launch_part(void *ctx, int part) {
    for (int i = 0; i <= part; ++i) {
        copy_rows(ctx, ((fake *)ctx)->rows);
    }
}

static void extra_parts(void *ctx, cml_metrics *m) {
    const fake *f = ctx;
    const double t0 = cml_time_part(0), t3 = cml_time_part(3);
    cml_metrics_add(m, "parts_timed", t0 > 0.0 && t3 > 0.0 ? 1.0 : 0.0);
    cml_metrics_add(m, "runs_so_far", (double)f->runs); /* launch_part is not launch_student */
    cml_metrics_add(m, "finish_ms_given", f->finish_ms > 0.0 ? 1.0 : 0.0);
}

/* Exercise-specific metrics: two valid figures; or a reserved name (a course bug). */
static void extra_two(void *ctx, cml_metrics *m) {
    const fake *f = ctx;
    cml_metrics_add(m, "runs_so_far", (double)f->runs);
    cml_metrics_add(m, "l2_over_l1", 6.5);
}

static void extra_reserved(void *ctx, cml_metrics *m) {
    (void)ctx;
    cml_metrics_add(m, "gbps", 1.0);
}

#define EX(name_, dims, n_dims_, setup_)                                                           \
    {                                                                                              \
        .name = name_, .dim_names = dims, .n_dims = n_dims_, .baseline = "memcpy",                 \
        .setup = setup_, .launch_student = launch_student, .launch_baseline = launch_baseline,     \
        .teardown = teardown_fake, .launchers = "first,second", .kernel = "fake_kernel"            \
    }

static const cml_exercise exercises[] = {
    EX("copy", "N", 1, setup_copy),
    EX("rows", "M,N", 2, setup_rows),
    EX("lazy", "N", 1, setup_lazy),
    EX("fault", "N", 1, setup_fault),
    EX("bad_launch", "N", 1, setup_bad_launch),
    EX("poke", "M,N", 2, setup_poke),
    EX("even", "N", 1, setup_even),
    EX("bad_baseline", "N", 1, setup_bad_baseline),
    EX("sampled", "M,N", 2, setup_sampled),
    EX("cuda_fails", "N", 1, setup_cuda_fails),
    {.name = "extra",
     .dim_names = "N",
     .n_dims = 1,
     .baseline = "memcpy",
     .setup = setup_copy,
     .launch_student = launch_student,
     .launch_baseline = launch_baseline,
     .teardown = teardown_fake,
     .extra_metrics = extra_two},
    {.name = "no_baseline",
     .dim_names = "N",
     .n_dims = 1,
     .setup = setup_copy,
     .launch_student = launch_student,
     .teardown = teardown_fake,
     .extra_metrics = extra_two},
    {.name = "extra_reserved",
     .dim_names = "N",
     .n_dims = 1,
     .baseline = "memcpy",
     .setup = setup_copy,
     .launch_student = launch_student,
     .launch_baseline = launch_baseline,
     .teardown = teardown_fake,
     .extra_metrics = extra_reserved},
    {.name = "raw",
     .dim_names = "N",
     .n_dims = 1,
     .baseline = "memcpy",
     .setup = setup_raw_copy,
     .launch_student = launch_student,
     .launch_baseline = launch_baseline,
     .teardown = teardown_fake,
     .extra_metrics = extra_parts,
     .finish = finish_raw,
     .launch_part = launch_part},
    {.name = "raw_half",
     .dim_names = "N",
     .n_dims = 1,
     .baseline = "memcpy",
     .setup = setup_raw_half,
     .launch_student = launch_student,
     .launch_baseline = launch_baseline,
     .teardown = teardown_fake,
     .finish = finish_raw},
    {.name = "raw_no_finish",
     .dim_names = "N",
     .n_dims = 1,
     .baseline = "memcpy",
     .setup = setup_raw_copy,
     .launch_student = launch_student,
     .launch_baseline = launch_baseline,
     .teardown = teardown_fake},
};
#define N_EXERCISES ((int)(sizeof exercises / sizeof exercises[0]))

/* ---- Running the driver ---- */

typedef struct lab_call {
    int argc;
    char *argv[24];
    int n_exercises;
} lab_call;

static int call_lab_main(void *arg) {
    lab_call *c = arg;
    return cml_lab_main(c->argc, c->argv, "0.0", exercises, c->n_exercises);
}

static struct {
    int code;
    char *out, *err, *doc; /* stdout, stderr, the --json file ("" when absent) */
    const char *json_path;
} result;

static void free_result(void) {
    free(result.out);
    free(result.err);
    free(result.doc);
    memset(&result, 0, sizeof result);
}

/* run_lab(1, "--exercise", "copy", ..., NULL): runs "lab ..." with the first n_exercises
 * exercises and, when with_json, "--json PATH" appended; fills `result`. */
static void run_lab_with(int n_exercises, int with_json, const char *first, ...) {
    free_result();
    lab_call c = {.n_exercises = n_exercises};
    c.argv[c.argc++] = "lab";
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && c.argc < 20; a = va_arg(ap, const char *)) {
        c.argv[c.argc++] = (char *)a;
    }
    va_end(ap);
    const char *out_path = temp_path(0), *err_path = temp_path(1);
    result.json_path = temp_path(2);
    remove(result.json_path); /* the driver must create it */
    if (with_json) {
        c.argv[c.argc++] = "--json";
        c.argv[c.argc++] = (char *)result.json_path;
    }
    c.argv[c.argc] = NULL;
    result.code = run_in_child(call_lab_main, &c, out_path, err_path);
    result.out = read_text_file(out_path);
    result.err = read_text_file(err_path);
    result.doc = read_text_file(result.json_path);
    char tmp[80];
    snprintf(tmp, sizeof tmp, "%s.tmp", result.json_path);
    ck_assert_msg(access(tmp, F_OK) != 0, "%s left behind", tmp);
    remove(out_path);
    remove(err_path);
    remove(result.json_path);
}

#define run_lab(...) run_lab_with(N_EXERCISES, 1, __VA_ARGS__, NULL)

/* The text contains the fragment (a JSON key with its value, as the writer prints it). */
#define HAS(text, fragment)                                                                        \
    ck_assert_msg(strstr((text), (fragment)) != NULL, "'%s' not in:\n%s", (fragment), (text))
#define HAS_NOT(text, fragment)                                                                    \
    ck_assert_msg(strstr((text), (fragment)) == NULL, "'%s' in:\n%s", (fragment), (text))

static void assert_one_document(const char *doc) {
    ck_assert_msg(strncmp(doc, "{\"schema\":1,\"lab\":\"0.0\",", 24) == 0, "document: %s", doc);
    size_t len = strlen(doc);
    ck_assert(len >= 2 && strcmp(doc + len - 2, "}\n") == 0);
}

/* ---- Without a GPU ---- */

START_TEST(list_to_file) {
    run_lab_with(2, 1, "--list", NULL);
    ck_assert_int_eq(result.code, 0);
    ck_assert_str_eq(result.doc,
                     "{\"schema\":1,\"lab\":\"0.0\",\"min_reps\":20,"
                     "\"metrics\":[\"bytes\",\"flops\",\"gbps\",\"gflops\",\"baseline_gbps\","
                     "\"copy_gbps\",\"pct_of_copy\"],"
                     "\"exercises\":["
                     "{\"name\":\"copy\",\"dims\":[\"N\"],\"dim_max\":[null],\"arrays\":[],"
                     "\"baseline\":\"memcpy\","
                     "\"launchers\":[\"first\",\"second\"],\"kernel\":\"fake_kernel\"},"
                     "{\"name\":\"rows\",\"dims\":[\"M\",\"N\"],\"dim_max\":[null,null],\"arrays\":"
                     "[],\"baseline\":\"memcpy\","
                     "\"launchers\":[\"first\",\"second\"],\"kernel\":\"fake_kernel\"}]}\n");
    ck_assert_str_eq(result.out, "");
}
END_TEST

START_TEST(list_to_stdout) {
    run_lab_with(1, 0, "--list", NULL);
    ck_assert_int_eq(result.code, 0);
    ck_assert_str_eq(result.out,
                     "{\"schema\":1,\"lab\":\"0.0\",\"min_reps\":20,"
                     "\"metrics\":[\"bytes\",\"flops\",\"gbps\",\"gflops\",\"baseline_gbps\","
                     "\"copy_gbps\",\"pct_of_copy\"],"
                     "\"exercises\":["
                     "{\"name\":\"copy\",\"dims\":[\"N\"],\"dim_max\":[null],\"arrays\":[],"
                     "\"baseline\":\"memcpy\","
                     "\"launchers\":[\"first\",\"second\"],\"kernel\":\"fake_kernel\"}]}\n");
}
END_TEST

START_TEST(help_prints_usage) {
    run_lab_with(N_EXERCISES, 0, "--help", NULL);
    ck_assert_int_eq(result.code, 0);
    HAS(result.out, "usage: lab --list");
}
END_TEST

START_TEST(device_info_or_no_device) {
    run_lab("--device-info");
    int have_device = cml_device_count() > 0; /* only after the child ran */
    assert_one_document(result.doc);
    if (have_device) {
        ck_assert_int_eq(result.code, 0);
        HAS(result.doc, "\"status\":\"ok\",\"device\":{\"name\":\"");
        HAS(result.doc, "\"sm_count\":");
        HAS(result.doc, "\"smem_per_block_optin_bytes\":");
    } else {
        ck_assert_int_eq(result.code, 3);
        ck_assert_str_eq(
            result.doc,
            "{\"schema\":1,\"lab\":\"0.0\",\"status\":\"no_device\",\"device\":null}\n");
    }
}
END_TEST

START_TEST(run_or_no_device) {
    run_lab("--exercise", "copy", "--size", "100", "--seed", "0x10");
    int have_device = cml_device_count() > 0;
    assert_one_document(result.doc);
    HAS(result.doc, "\"exercise\":\"copy\",\"size\":[100],\"dims\":[\"N\"],\"seed\":16,"
                    "\"judged\":false,");
    if (have_device) {
        ck_assert_int_eq(result.code, 0);
        HAS(result.doc, "\"status\":\"ok\",\"error\":null,");
    } else {
        ck_assert_int_eq(result.code, 3);
        HAS(result.doc, "\"status\":\"no_device\",\"error\":null,\"check\":null,"
                        "\"timing\":null,\"metrics\":null,\"metrics_note\":null,\"device\":null}");
    }
}
END_TEST

START_TEST(unknown_exercise) {
    run_lab("--exercise", "nope", "--size", "3");
    ck_assert_int_eq(result.code, 2);
    assert_one_document(result.doc);
    HAS(result.doc, "\"exercise\":\"nope\",\"size\":[3],\"dims\":null,");
    HAS(result.doc, "\"status\":\"error\",\"error\":{\"kind\":\"usage\",\"message\":"
                    "\"unknown exercise 'nope' (exercises: copy rows lazy");
    HAS(result.doc, "\"where\":null,\"expr\":null,\"by\":\"run\"},\"check\":null");
    HAS(result.err, "usage: lab");
}
END_TEST

START_TEST(wrong_number_of_sizes) {
    run_lab("--exercise", "rows", "--size", "3");
    ck_assert_int_eq(result.code, 2);
    HAS(result.doc, "\"dims\":[\"M\",\"N\"]");
    HAS(result.doc, "\"kind\":\"usage\",\"message\":\"exercise rows takes 2 sizes (M,N), got 1\"");
}
END_TEST

START_TEST(case_of_another_exercise_is_checked_first) {
    /* a plain run over several exercises (one compute-sanitizer process per tool over the
     * lab's cases): every case's exercise and sizes are checked before any case runs, so the
     * error comes with or without a GPU */
    run_lab("--exercise", "copy", "--case", "10@7", "--case", "nosuch:3@8");
    ck_assert_int_eq(result.code, 2);
    HAS(result.doc, "\"kind\":\"usage\",\"message\":\"--case nosuch:...: no such exercise\"");
    run_lab("--exercise", "copy", "--case", "10@7", "--case", "rows:3@8");
    ck_assert_int_eq(result.code, 2);
    HAS(result.doc, "\"message\":\"--case 2: exercise rows takes 2 sizes (M,N), got 1\"");
}
END_TEST

START_TEST(bad_option_still_writes_to_json_path) {
    /* Parsing stops at --size, before it reaches --json: the document still goes there. */
    run_lab("--exercise", "copy", "--size", "3,x");
    ck_assert_int_eq(result.code, 2);
    assert_one_document(result.doc);
    HAS(result.doc, "\"message\":\"--size: '3,x' is not a list of positive integers\"");
    HAS(result.err, "lab: --size: '3,x' is not a list of positive integers\n");
    ck_assert_str_eq(result.out, "");
}
END_TEST

START_TEST(usage_error_to_stdout) {
    run_lab_with(N_EXERCISES, 0, "--reps", "5", NULL);
    ck_assert_int_eq(result.code, 2);
    assert_one_document(result.out);
    HAS(result.out, "\"kind\":\"usage\",\"message\":\"--reps: '5' is not an integer");
}
END_TEST

START_TEST(unwritable_json_path) {
    run_lab_with(N_EXERCISES, 0, "--list", "--json", "/nonexistent/dir/out.json", NULL);
    ck_assert_int_eq(result.code, 2);
    HAS(result.err, "/nonexistent/dir/out.json.tmp");
}
END_TEST

/* A pageable result buffer of SIZE_MAX / 8 floats, more than any host has. */
static int result_past_the_host(void *arg) {
    (void)arg;
    (void)cml_lab_result_alloc(SIZE_MAX / 8, 0);
    return 0; /* not reached */
}

START_TEST(host_memory_for_the_result_running_out_is_kind_host) {
    /* The host's memory, not a course bug (kind "harness"), nor the GPU's (the page-locked
     * buffer's check is CML_CHECK_PINNED's, test_setup.c). */
    int code = -1;
    char *doc = judge_document_of(result_past_the_host, NULL, &code);
    ck_assert_int_eq(code, 4);
    HAS(doc, "\"error\":{\"kind\":\"host\",\"message\":\"out of host memory for the result\","
             "\"where\":\"cml_lab.c:");
    free(doc);
}
END_TEST

/* A check of the course's own in its words (CML_CHECK_SAYING: lab 3.2a's released buffer). */
#define STILL_LOCKED                                                                               \
    "host_copy_free left the buffer page-locked (cudaErrorHostMemoryAlreadyRegistered)"

static cudaError_t still_locked(void) {
    return cudaErrorHostMemoryAlreadyRegistered;
}

static int fails_saying(void *arg) {
    (void)arg;
    CML_CHECK_SAYING(still_locked(), STILL_LOCKED);
    return 0; /* not reached */
}

START_TEST(a_saying_check_gives_its_words_to_the_document_and_the_judge) {
    /* the document: kind "cuda", the course's words, the check's expression */
    int code = -1;
    char *doc = judge_document_of(fails_saying, NULL, &code);
    ck_assert_int_eq(code, 4);
    HAS(doc, "\"error\":{\"kind\":\"cuda\",\"message\":\"" STILL_LOCKED "\",\"where\":"
             "\"test_lab.c:");
    HAS(doc, "\"expr\":\"still_locked()\"");
    free(doc);
    /* the student's process: the same words in its ERROR to the judge */
    const cml_run_ctx saved = cml_run;
    int pair[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair), 0);
    cml_run.role = CML_ROLE_WORKER;
    cml_run.peer_fd = pair[0];
    cml_run.json_path = NULL;
    const cml_fail_fn old_handler = cml_set_fail_handler(cml_lab_fail);
    ck_assert_int_eq(run_in_child(fails_saying, NULL, temp_path(2), temp_path(1)), 4);
    cml_set_fail_handler(old_handler);
    cml_run = saved;
    static cml_msg_error got;
    const ssize_t n = cml_ipc_recv(pair[1], &got, sizeof got, NULL, 1);
    ck_assert_int_eq(cml_ipc_type(&got, n), CML_MSG_ERROR);
    ck_assert_str_eq(got.kind, "cuda");
    ck_assert_str_eq(got.message, STILL_LOCKED);
    ck_assert_str_eq(got.expr, "still_locked()");
    close(pair[0]);
    close(pair[1]);
}
END_TEST

/* ---- The judge's empty-kernel server that cannot be started (no GPU: none is made) ---- */

/* A server of the test's own on a socket pair, as cml_null_server_spawn leaves one: its child
 * does what `act` says (1: sends the ERROR the server's failure handler sends, cml_lab_fail in
 * role CML_ROLE_NULL, and exits with 4; 2: is killed by SIGKILL; 3: says READY, then waits for
 * its socket's end; 4: says READY, then is killed by SIGKILL at its first RUN, as g140's killer
 * did; 5: says READY, answers one RUN with its DONE, then waits for its socket's end; 6 and 7:
 * say READY, then answer the first RUN with the ERROR of a failed launch and exit with 4, 7's
 * CUDA's out of memory). */
static cml_null_server a_server_that(int act) {
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    fflush(NULL);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(sv[0]);
        if (act == 1) {
            (void)cml_ipc_send_error(sv[1], "cuda", "out of memory", "cml_judge.c:299",
                                     "cudaFree(0)", NULL);
            _exit(4);
        }
        if (act == 2) {
            raise(SIGKILL);
        }
        (void)cml_ipc_send_token(sv[1], CML_MSG_READY, 0);
        cml_msg_token in;
        (void)cml_ipc_recv(sv[1], &in, sizeof in, NULL, 0);
        if (act == 4) {
            raise(SIGKILL);
        }
        if (act == 6 || act == 7) {
            (void)cml_ipc_send_error(sv[1], "cuda",
                                     act == 6 ? "unspecified launch failure" : "out of memory",
                                     "cml_judge.c:325", "cml_launch_null()", NULL);
            _exit(4);
        }
        if (act == 5) {
            (void)cml_ipc_send_token(sv[1], CML_MSG_DONE, in.token);
            (void)cml_ipc_recv(sv[1], &in, sizeof in, NULL, 0);
        }
        _exit(0);
    }
    close(sv[1]);
    cml_null_server s = {.sock = sv[0], .pid = pid};
    return s;
}

START_TEST(a_server_that_did_not_start_says_why) {
    /* Its READY, or why it never came: its own ERROR's words, its exit status, its signal. */
    cml_null_server s = a_server_that(3);
    ck_assert_int_eq(cml_null_server_await(&s), 0);
    ck_assert_int_eq(s.ready, 1);
    ck_assert_int_eq(cml_null_server_await(&s), 0); /* awaited once only */
    close(s.sock);
    ck_assert_int_eq(waitpid(s.pid, NULL, 0), s.pid);

    s = a_server_that(1);
    ck_assert_int_eq(cml_null_server_await(&s), -1);
    ck_assert_int_eq(s.sock, -1); /* reaped: a later spawn starts another */
    ck_assert_str_eq(s.failure, "it failed before its READY: cuda: out of memory at "
                                "cml_judge.c:299 (cudaFree(0))");
    ck_assert_int_eq(s.out_of_memory, 1);

    s = a_server_that(2);
    ck_assert_int_eq(cml_null_server_await(&s), -1);
    ck_assert_int_eq(s.out_of_memory, 0);
    ck_assert_msg(strncmp(s.failure, "it was killed by signal 9 (", 27) == 0, "%s", s.failure);
    HAS(s.failure, ") before its READY");

    /* the program that cannot be run: its child's exit status 127 */
    cml_null_server none = {.sock = -1};
    ck_assert_int_eq(cml_null_server_spawn(&none, "/nonexistent/judge"), 0);
    ck_assert_int_ge(none.sock, 0);
    ck_assert_int_eq(cml_null_server_await(&none), -1);
    ck_assert_str_eq(none.failure,
                     "it exited with status 127 before its READY (the program could not be run)");
    ck_assert_int_eq(none.sock, -1);
}
END_TEST

/* A judge whose descriptors are at their limit: the server's socket pair cannot be made. */
static int spawn_without_descriptors(void *arg) {
    (void)arg;
    const struct rlimit three = {3, 3}; /* standard input, output and error only */
    if (setrlimit(RLIMIT_NOFILE, &three) != 0) {
        return 10;
    }
    cml_null_server s = {.sock = -1};
    if (cml_null_server_spawn(&s, "/nonexistent/judge") != -1 || s.sock != -1) {
        return 11;
    }
    if (strcmp(s.failure, "socketpair: Too many open files") != 0) {
        fprintf(stderr, "failure: %s\n", s.failure);
        return 12;
    }
    return cml_null_server_await(&s) == -1 ? 0 : 13; /* none spawned: its failure kept */
}

/* The judge's timing where its server could not be started (judge_time): the run ends. */
static int time_without_a_server(void *arg) {
    (void)arg;
    cml_null_server s = {.sock = -1};
    if (cml_null_server_spawn(&s, "/nonexistent/judge") == 0 && cml_null_server_await(&s) == 0) {
        return 10;
    }
    cml_null_server_fail(&s, __FILE__, __LINE__);
    return 11; /* not reached */
}

/* The judge's timing where its server ran out of GPU memory before its READY (judge_time). */
static int time_with_a_server_out_of_memory(void *arg) {
    (void)arg;
    cml_null_server s = a_server_that(1);
    if (cml_null_server_await(&s) == 0) {
        return 10;
    }
    cml_null_server_fail(&s, __FILE__, __LINE__);
    return 11; /* not reached */
}

START_TEST(a_server_out_of_gpu_memory_is_the_judges_own_out_of_memory) {
    /* Kind "cuda", "out of memory", by the judge: the grader's JudgeOutOfMemory
     * (harness.is_judge_out_of_memory), graded again alone where the GPU was full beside other
     * gradings (design note 88), not the "error:" row of a harness fault. */
    int code = -1;
    char *doc = judge_document_of(time_with_a_server_out_of_memory, NULL, &code);
    ck_assert_int_eq(code, 4);
    HAS(doc, "\"status\":\"error\",\"error\":{\"kind\":\"cuda\",\"message\":\"out of memory\","
             "\"where\":\"test_lab.c:");
    HAS(doc, "\"expr\":\"the context of the judge's empty-kernel server (judge --serve-null)\"");
    HAS(doc, "\"by\":\"judge\"");
    HAS_NOT(doc, "\"harness\"");
    free(doc);
}
END_TEST

/* The judge's timing where its server, READY, is killed at a launch (sample, C_NULL_WORKER). */
static int time_with_a_server_killed(void *arg) {
    (void)arg;
    cml_null_server s = a_server_that(5);
    if (cml_null_server_await(&s) != 0) {
        return 10;
    }
    cml_null_server_run(&s, 7, __FILE__, __LINE__); /* answered: returns */
    close(s.sock);
    if (waitpid(s.pid, NULL, 0) != s.pid) {
        return 11;
    }
    s = a_server_that(4);
    if (cml_null_server_await(&s) != 0) {
        return 12;
    }
    cml_null_server_run(&s, 8, __FILE__, __LINE__);
    return 13; /* not reached */
}

/* The judge's timing where its server's launch fails (arg: the act, 6 or 7). */
static int time_with_a_server_whose_launch_fails(void *arg) {
    cml_null_server s = a_server_that(*(const int *)arg);
    if (cml_null_server_await(&s) != 0) {
        return 10;
    }
    cml_null_server_run(&s, 9, __FILE__, __LINE__);
    return 11; /* not reached */
}

START_TEST(a_server_killed_during_the_timing_is_the_courses_failure) {
    /* Kind "harness" by the judge, naming the server and its signal, never kind "worker":
     * session 42's g140 killed the server during lab 3.3's timing (from outside the sandbox,
     * where no submission can reach it), and the grader reported the solution's timed run as
     * its crash, its performance points lost. */
    int code = -1;
    char *doc = judge_document_of(time_with_a_server_killed, NULL, &code);
    ck_assert_int_eq(code, 4);
    HAS(doc, "\"status\":\"error\",\"error\":{\"kind\":\"harness\",\"message\":\"the judge's "
             "empty-kernel server (judge --serve-null: the course's process, not the "
             "submission's) stopped answering during the timing: it was killed by signal 9 (");
    HAS(doc, "\"where\":\"test_lab.c:");
    HAS(doc, "\"by\":\"judge\"}");
    HAS_NOT(doc, "\"worker\"");
    free(doc);

    /* its own ERROR at a launch: its words (a review: they were lost, "exited with status 4") */
    int act = 6;
    doc = judge_document_of(time_with_a_server_whose_launch_fails, &act, &code);
    ck_assert_int_eq(code, 4);
    HAS(doc, "\"kind\":\"harness\",\"message\":\"the judge's empty-kernel server (judge "
             "--serve-null: the course's process, not the submission's) stopped answering during "
             "the timing: it failed at a launch: cuda: unspecified launch failure at "
             "cml_judge.c:325 (cml_launch_null())\"");
    HAS_NOT(doc, "\"worker\"");
    free(doc);
    /* out of GPU memory: the judge's own (note 88's path), as at the server's start */
    act = 7;
    doc = judge_document_of(time_with_a_server_whose_launch_fails, &act, &code);
    ck_assert_int_eq(code, 4);
    HAS(doc, "\"status\":\"error\",\"error\":{\"kind\":\"cuda\",\"message\":\"out of memory\"");
    HAS(doc, "\"expr\":\"a launch of the judge's empty-kernel server (judge --serve-null)\"");
    HAS(doc, "\"by\":\"judge\"");
    HAS_NOT(doc, "\"harness\"");
    free(doc);
}
END_TEST

START_TEST(a_server_not_started_is_the_courses_failure_not_the_students_crash) {
    /* Kind "harness" by the judge, its words naming the server and the cause: the grader stops
     * the grading as the course's fault (harness._raise_judge_failure). Never kind "worker",
     * "the student's process ended or stopped answering", which it reports as the submission's
     * crash: the judge's timing took a server that would not start for that before. */
    int code = -1;
    char *doc = judge_document_of(time_without_a_server, NULL, &code);
    ck_assert_int_eq(code, 4);
    HAS(doc, "\"status\":\"error\",\"error\":{\"kind\":\"harness\",\"message\":\"the judge's "
             "empty-kernel server (judge --serve-null: the course's process, not the "
             "submission's) could not be started for the timing: it exited with status 127 "
             "before its READY (the program could not be run)\",\"where\":\"test_lab.c:");
    HAS(doc, "\"expr\":null,\"by\":\"judge\"}");
    HAS_NOT(doc, "\"worker\"");
    free(doc);
    ck_assert_int_eq(run_in_child(spawn_without_descriptors, NULL, NULL, NULL), 0);
}
END_TEST

/* ---- With a GPU ---- */

START_TEST(correct_run) {
    run_lab("--exercise", "copy", "--size", "1000", "--seed", "7");
    ck_assert_int_eq(result.code, 0);
    assert_one_document(result.doc);
    HAS(result.doc,
        "\"seed\":7,\"judged\":false,\"status\":\"ok\",\"error\":null,\"check\":{\"n\":1000,"
        "\"rows\":1,\"cols\":1000,\"n_bad\":0,\"n_unwritten\":0,\"n_nonfinite\":0,"
        "\"max_abs_err\":0,\"rel_l2_err\":0,\"gamma\":0,\"abs_floor\":0,"
        "\"first_bad\":null,\"bad_box\":null},\"timing\":null,\"metrics\":null,\"metrics_note\":"
        "null,"
        "\"device\":{\"name\":");
}
END_TEST

START_TEST(several_cases_one_document_per_line) {
    /* --case ... --json: compute-sanitizer's runs, one process per tool (grader/sanitizer.py) */
    run_lab("--exercise", "copy", "--case", "10@7", "--case", "1000@8");
    ck_assert_int_eq(result.code, 0);
    const char *second = strstr(result.doc, "}\n{\"schema\":1,");
    ck_assert_ptr_nonnull(second);
    ck_assert_ptr_null(strstr(second + 2, "}\n{")); /* two documents, a line each */
    HAS(result.doc, "\"size\":[10],");
    HAS(result.doc, "\"seed\":7,\"judged\":false,\"status\":\"ok\"");
    HAS(second, "\"size\":[1000],");
    HAS(second, "\"seed\":8,\"judged\":false,\"status\":\"ok\"");
}
END_TEST

START_TEST(cases_of_several_exercises) {
    /* --case EX:...: the lab's cases of one sanitizer tool in one process, each document
     * naming its own exercise, sizes and dimensions */
    run_lab("--exercise", "copy", "--case", "10@7", "--case", "rows:5,7@8", "--case", "copy:3@9");
    ck_assert_int_eq(result.code, 0);
    const char *second = strstr(result.doc, "}\n{\"schema\":1,");
    ck_assert_ptr_nonnull(second);
    const char *third = strstr(second + 2, "}\n{\"schema\":1,");
    ck_assert_ptr_nonnull(third);
    HAS(result.doc, "\"exercise\":\"copy\",\"size\":[10],\"dims\":[\"N\"]");
    HAS(second, "\"exercise\":\"rows\",\"size\":[5,7],\"dims\":[\"M\",\"N\"],\"seed\":8");
    HAS(second, "\"status\":\"wrong\""); /* rows' fake student leaves rows unwritten */
    HAS(third, "\"exercise\":\"copy\",\"size\":[3],\"dims\":[\"N\"],\"seed\":9");
    HAS(third, "\"status\":\"ok\"");
}
END_TEST

START_TEST(correct_run_to_stdout) {
    run_lab_with(N_EXERCISES, 0, "--exercise", "copy", "--size", "10", NULL);
    ck_assert_int_eq(result.code, 0);
    assert_one_document(result.out);
    HAS(result.out, "\"status\":\"ok\"");
}
END_TEST

START_TEST(timed_run) {
    run_lab("--exercise", "copy", "--size", "1000000", "--time", "--reps", "20");
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, "\"status\":\"ok\"");
    HAS(result.doc, "\"timing\":{\"reps\":20,\"batch\":");
    HAS(result.doc, ",\"student\":{\"median_ms\":");
    HAS(result.doc, "},\"baseline\":{\"median_ms\":");
    HAS(result.doc, "},\"copy\":{\"median_ms\":");
    HAS(result.doc, "\"ratio\":");
    HAS(result.doc, "\"metrics\":{\"bytes\":8000000,\"flops\":0,\"gbps\":");
    HAS(result.doc, ",\"gflops\":0,\"baseline_gbps\":");
    HAS(result.doc, ",\"copy_gbps\":");
    HAS(result.doc, ",\"pct_of_copy\":");
    HAS_NOT(result.doc, "null,\"p10_ms\"");
}
END_TEST

START_TEST(unwritten_rows_are_reported) {
    run_lab("--exercise", "rows", "--size", "5,7");
    ck_assert_int_eq(result.code, 0); /* a wrong result is a result */
    HAS(result.doc, "\"size\":[5,7],\"dims\":[\"M\",\"N\"]");
    HAS(result.doc, "\"status\":\"wrong\"");
    HAS(result.doc, "\"n\":35,\"rows\":5,\"cols\":7,\"n_bad\":21,\"n_unwritten\":21,"
                    "\"n_nonfinite\":0,");
    HAS(result.doc, "\"first_bad\":{\"index\":14,\"row\":2,\"col\":0,\"expected\":");
    HAS(result.doc, ",\"got\":null,\"tol\":0,\"unwritten\":true}");
    HAS(result.doc, "\"bad_box\":{\"row_min\":2,\"row_max\":4,\"col_min\":0,\"col_max\":6}");
}
END_TEST

START_TEST(wrong_value_is_reported) {
    run_lab("--exercise", "poke", "--size", "3,4");
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, "\"status\":\"wrong\"");
    HAS(result.doc, "\"n_bad\":1,\"n_unwritten\":0,\"n_nonfinite\":0,");
    HAS(result.doc, "\"first_bad\":{\"index\":0,\"row\":0,\"col\":0,\"expected\":");
    HAS(result.doc, ",\"got\":3.0039215087890625,\"tol\":0,\"unwritten\":false}");
    HAS(result.doc, "\"bad_box\":{\"row_min\":0,\"row_max\":0,\"col_min\":0,\"col_max\":0}");
}
END_TEST

START_TEST(sampled_check) {
    run_lab("--exercise", "sampled", "--size", "4,8");
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, "\"status\":\"wrong\"");
    HAS(result.doc, "\"check\":{\"n\":3,\"rows\":4,\"cols\":8,\"n_bad\":1,\"n_unwritten\":1,");
    HAS(result.doc, "\"first_bad\":{\"index\":31,\"row\":3,\"col\":7,");
}
END_TEST

START_TEST(lazy_student_passes_untimed) {
    run_lab("--exercise", "lazy", "--size", "64");
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, "\"status\":\"ok\"");
}
END_TEST

START_TEST(lazy_student_is_caught_after_timing) {
    run_lab("--exercise", "lazy", "--size", "64", "--time");
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, "\"status\":\"wrong\"");
    HAS(result.doc, "\"n_unwritten\":64,");
    HAS(result.doc, "\"timing\":null,\"metrics\":null");
}
END_TEST

START_TEST(launch_failure) {
    run_lab("--exercise", "fault", "--size", "8");
    ck_assert_int_eq(result.code, 4);
    assert_one_document(result.doc);
    HAS(result.doc, "\"status\":\"error\",\"error\":{\"kind\":\"launch\",\"message\":\"");
    HAS(result.doc, "\"where\":\"cml_lab.c:");
    HAS(result.doc, "\"expr\":\"cudaGetLastError()\",\"by\":\"run\"},\"check\":null");
    HAS(result.doc, "\"device\":{\"name\":");
    HAS(result.err, "cudaGetLastError() failed");
}
END_TEST

START_TEST(launch_failure_names_the_launch) {
    run_lab("--exercise", "bad_launch", "--size", "8");
    ck_assert_int_eq(result.code, 4);
    assert_one_document(result.doc);
    HAS(result.doc, "\"expr\":\"cudaGetLastError()\",\"by\":\"run\",\"launch\":{\"kernel\":null,"
                    "\"grid\":[0,128,1],\"block\":[32,8,1],\"dynamic_smem_bytes\":0,"
                    "\"static_smem_bytes\":null,\"registers\":null,");
    HAS(result.doc, "\"limit\":\"grid_zero\",\"limit_message\":\"the grid's x dimension is 0 "
                    "(each must be ≥ 1)\"}},\"check\":null");
    HAS(result.err, "the launch of a kernel<<<(0, 128, 1), (32, 8, 1), 0>>> returned it");
    run_lab("--exercise", "fault", "--size", "8"); /* no launch noted: no "launch" */
    HAS_NOT(result.doc, "\"launch\":");
}
END_TEST

START_TEST(cuda_failure_in_setup) {
    run_lab("--exercise", "cuda_fails", "--size", "8");
    ck_assert_int_eq(result.code, 4);
    HAS(result.doc, "\"error\":{\"kind\":\"cuda\",\"message\":\"");
    HAS(result.doc, "\"where\":\"test_lab.c:");
    HAS(result.doc, "\"expr\":\"cudaMalloc(&d_huge, (size_t)1 << 60)\",\"by\":\"run\"}");
}
END_TEST

START_TEST(setup_rejects_the_size) {
    run_lab("--exercise", "even", "--size", "7");
    ck_assert_int_eq(result.code, 2);
    HAS(result.doc, "\"error\":{\"kind\":\"setup\",\"message\":\"N must be even\"");
    run_lab("--exercise", "even", "--size", "8");
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, "\"status\":\"ok\"");
}
END_TEST

START_TEST(extra_metrics_untimed) {
    run_lab("--exercise", "extra", "--size", "1000");
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, "\"timing\":null,\"metrics\":{\"runs_so_far\":1,\"l2_over_l1\":6.5}");
}
END_TEST

START_TEST(extra_metrics_timed) {
    run_lab("--exercise", "extra", "--size", "100000", "--time", "--reps", "20");
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, "\"metrics\":{\"bytes\":800000,");
    HAS(result.doc, ",\"pct_of_copy\":");
    HAS(result.doc, ",\"runs_so_far\":1,\"l2_over_l1\":6.5}");
}
END_TEST

START_TEST(no_baseline_is_not_timed) {
    run_lab("--exercise", "no_baseline", "--size", "1000", "--time");
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, "\"status\":\"ok\"");
    HAS(result.doc, "\"timing\":null,\"metrics\":{\"runs_so_far\":1,\"l2_over_l1\":6.5}");
}
END_TEST

START_TEST(reserved_metric_is_a_harness_error) {
    run_lab("--exercise", "extra_reserved", "--size", "16");
    ck_assert_int_eq(result.code, 4);
    HAS(result.doc, "\"error\":{\"kind\":\"harness\",\"message\":\"the exercise added an "
                    "invalid metric");
}
END_TEST

START_TEST(wrong_baseline_is_a_harness_error) {
    run_lab("--exercise", "bad_baseline", "--size", "16");
    ck_assert_int_eq(result.code, 0); /* not timed: the baseline does not run */
    run_lab("--exercise", "bad_baseline", "--size", "16", "--time");
    ck_assert_int_eq(result.code, 4);
    HAS(result.doc, "\"error\":{\"kind\":\"harness\",\"message\":\"the baseline produced a "
                    "wrong result (a course bug, please report)\"");
}
END_TEST

START_TEST(raw_output_is_finished_before_the_comparison) {
    run_lab("--exercise", "raw", "--size", "1000");
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, "\"status\":\"ok\"");
    /* extra_metrics timed two parts, which are not the graded launch, after a finish() that
     * was given the launch's time. */
    HAS(result.doc, "\"metrics\":{\"parts_timed\":1,\"runs_so_far\":1,\"finish_ms_given\":1}");
    run_lab("--exercise", "raw", "--size", "100000", "--time", "--reps", "20");
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, ",\"pct_of_copy\":");
}
END_TEST

START_TEST(raw_output_left_unwritten_is_reported) {
    run_lab("--exercise", "raw_half", "--size", "8"); /* 1 row: rows / 2 = 0 rows written */
    ck_assert_int_eq(result.code, 0);
    HAS(result.doc, "\"status\":\"wrong\"");
    HAS(result.doc, "\"unwritten\":true");
}
END_TEST

START_TEST(raw_output_without_finish_is_a_harness_error) {
    run_lab("--exercise", "raw_no_finish", "--size", "8");
    ck_assert_int_eq(result.code, 4);
    HAS(result.doc, "\"kind\":\"harness\",\"message\":\"setup() gave d_raw");
}
END_TEST

/* cml_metrics_add alone: no device needed. */
/* The judge's relay of the student's process's CUDA "out of memory" (cml_judge.c,
 * finish_remote_failure; docs/design-notes.md, note 89): only kind "cuda" with CUDA's whole
 * message takes figures, and those are the judge's own cudaMemGetInfo's (here this process's:
 * with no device, unknown), never what the caller had; the document writes them after "by". */
START_TEST(relayed_out_of_memory_carries_the_judges_figures) {
    cml_gpu_memory mem = {.known = 7, .free_bytes = 1, .total_bytes = 2}; /* a forger's words */
    ck_assert_int_eq(cml_judge_relayed_oom("launch", "out of memory", &mem), 0);
    ck_assert_int_eq(cml_judge_relayed_oom("worker", "out of memory", &mem), 0);
    ck_assert_int_eq(cml_judge_relayed_oom("cuda", "out of memory at cml_devmem.c:153", &mem), 0);
    ck_assert_int_eq(
        cml_judge_relayed_oom("cuda", "an illegal memory access was encountered", &mem), 0);
    ck_assert(mem.known == 7 && mem.free_bytes == 1 && mem.total_bytes == 2); /* untouched */
    ck_assert_int_eq(cml_judge_relayed_oom("cuda", "out of memory", &mem), 1);
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
        ck_assert_int_eq(mem.known, 1);
        ck_assert_uint_eq(mem.total_bytes, total_bytes);
        ck_assert_uint_le(mem.free_bytes, mem.total_bytes);
    } else {
        ck_assert(mem.known == 0 && mem.free_bytes == 0 && mem.total_bytes == 0);
    }

    cml_run.role = CML_ROLE_JUDGE;
    cml_run.mode = CML_MODE_RUN;
    cml_run.lab_id = "0.0";
    cml_run.json_path = temp_path(0);
    cml_judged judged = {.phase = "first"};
    cml_gpu_memory known = {.known = 1, .free_bytes = 5, .total_bytes = 80};
    cml_doc d = {.status = "error",
                 .err_kind = "cuda",
                 .err_message = "out of memory",
                 .err_where = "cml_devmem.c:153",
                 .gpu_memory = &known,
                 .judged = &judged};
    ck_assert_int_eq(cml_lab_write(&d), CML_EXIT_OK);
    char *doc = read_text_file(cml_run.json_path);
    HAS(doc, "\"by\":\"run\",\"gpu_memory\":{\"free_bytes\":5,\"total_bytes\":80}}");
    free(doc);
    known.known = 0; /* the judge's call failed: said so, no figure */
    ck_assert_int_eq(cml_lab_write(&d), CML_EXIT_OK);
    doc = read_text_file(cml_run.json_path);
    HAS(doc, "\"by\":\"run\",\"gpu_memory\":null}");
    free(doc);
    d.gpu_memory = NULL; /* any other relayed failure: no key */
    ck_assert_int_eq(cml_lab_write(&d), CML_EXIT_OK);
    doc = read_text_file(cml_run.json_path);
    HAS(doc, "\"by\":\"run\"},");
    HAS_NOT(doc, "gpu_memory");
    free(doc);
    remove(cml_run.json_path);
}
END_TEST

START_TEST(metrics_add_rules) {
    cml_metrics m = {0};
    ck_assert_int_eq(cml_metrics_add(&m, "dram_cycles", 700.5), 0);
    ck_assert_int_eq(m.n, 1);
    ck_assert_str_eq(m.name[0], "dram_cycles");
    ck_assert(m.value[0] == 700.5);
    cml_metrics ok = m;
    ck_assert_int_eq(cml_metrics_add(&ok, "dram_cycles", 1.0), -1); /* twice */
    ck_assert_int_eq(ok.n, -1);
    ck_assert_int_eq(cml_metrics_add(&ok, "x", 1.0), -1); /* stays invalid */
    const char *bad[] = {
        "", "Upper", "has space", "pct_of_copy", "bytes", "a_name_that_is_far_too_long_for_it"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        cml_metrics b = {0};
        ck_assert_int_eq(cml_metrics_add(&b, bad[i], 1.0), -1);
    }
    cml_metrics full = {0};
    char name[8];
    for (int i = 0; i < CML_MAX_EXTRA_METRICS; ++i) {
        snprintf(name, sizeof name, "m%d", i);
        ck_assert_int_eq(cml_metrics_add(&full, name, i), 0);
    }
    ck_assert_int_eq(cml_metrics_add(&full, "one_more", 1.0), -1);
}
END_TEST

Suite *make_lab_suite(void) {
    Suite *s = suite_create("lab");
    TCase *tc = tcase_create("Correctness");
    tcase_add_test(tc, metrics_add_rules);
    tcase_add_test(tc, list_to_file);
    tcase_add_test(tc, list_to_stdout);
    tcase_add_test(tc, help_prints_usage);
    tcase_add_test(tc, device_info_or_no_device);
    tcase_add_test(tc, run_or_no_device);
    suite_add_tcase(s, tc);
    tc = tcase_create("Errors");
    tcase_add_test(tc, unknown_exercise);
    tcase_add_test(tc, wrong_number_of_sizes);
    tcase_add_test(tc, case_of_another_exercise_is_checked_first);
    tcase_add_test(tc, bad_option_still_writes_to_json_path);
    tcase_add_test(tc, usage_error_to_stdout);
    tcase_add_test(tc, unwritable_json_path);
    tcase_add_test(tc, relayed_out_of_memory_carries_the_judges_figures);
    tcase_add_test(tc, host_memory_for_the_result_running_out_is_kind_host);
    tcase_add_test(tc, a_saying_check_gives_its_words_to_the_document_and_the_judge);
    tcase_add_test(tc, a_server_that_did_not_start_says_why);
    tcase_add_test(tc, a_server_not_started_is_the_courses_failure_not_the_students_crash);
    tcase_add_test(tc, a_server_out_of_gpu_memory_is_the_judges_own_out_of_memory);
    tcase_add_test(tc, a_server_killed_during_the_timing_is_the_courses_failure);
    suite_add_tcase(s, tc);
    tc = tcase_create("GPU");
    tcase_set_tags(tc, "gpu");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, correct_run);
    tcase_add_test(tc, correct_run_to_stdout);
    tcase_add_test(tc, several_cases_one_document_per_line);
    tcase_add_test(tc, cases_of_several_exercises);
    tcase_add_test(tc, timed_run);
    tcase_add_test(tc, unwritten_rows_are_reported);
    tcase_add_test(tc, wrong_value_is_reported);
    tcase_add_test(tc, sampled_check);
    tcase_add_test(tc, lazy_student_passes_untimed);
    tcase_add_test(tc, lazy_student_is_caught_after_timing);
    tcase_add_test(tc, launch_failure);
    tcase_add_test(tc, launch_failure_names_the_launch);
    tcase_add_test(tc, cuda_failure_in_setup);
    tcase_add_test(tc, setup_rejects_the_size);
    tcase_add_test(tc, wrong_baseline_is_a_harness_error);
    tcase_add_test(tc, extra_metrics_untimed);
    tcase_add_test(tc, extra_metrics_timed);
    tcase_add_test(tc, no_baseline_is_not_timed);
    tcase_add_test(tc, reserved_metric_is_a_harness_error);
    tcase_add_test(tc, raw_output_is_finished_before_the_comparison);
    tcase_add_test(tc, raw_output_left_unwritten_is_reported);
    tcase_add_test(tc, raw_output_without_finish_is_a_harness_error);
    suite_add_tcase(s, tc);
    return s;
}

/* test_setup.c — what a setup() takes from the driver, and the driver frees (cml_setup.h).
 *
 * Host allocations, no GPU needed, but for the test case tagged "gpu": a setup() on imported
 * device buffers (the student's process of a judged run). Device buffers otherwise go through
 * cml_dev_alloc, which every lab's selfcheck exercises on the GPU.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "cml_check.h"
#include "cml_devmem.h"
#include "cml_ipc.h"
#include "cml_lab_internal.h"
#include "cml_setup.h"
#include "suites.h"

typedef struct toy_ctx {
    int n;
    float *table;
} toy_ctx;

static int g_teardowns;

static void toy_teardown(cml_problem *p) {
    ck_assert_ptr_nonnull(p->ctx); /* before the driver frees the context */
    ++g_teardowns;
}

/* size[0] floats of scratch and a table of size[0] floats kept; size[1] = 1 asks for more
 * host memory than any machine has, after those; 2 rejects the size; 3 says host memory it
 * took elsewhere ran out (a lab's reference, reference.c). */
static const char *toy_setup(cml_problem *p, const long long *size, uint64_t seed) {
    toy_ctx *c = CML_NEW_CTX(p, toy_ctx);
    c->n = (int)size[0];
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *x = cml_scratch_uniform(p, &rng, (size_t)size[0], -1.0f, 1.0f);
    c->table = (float *)cml_host(p, (size_t)size[0] * sizeof(float));
    memcpy(c->table, x, (size_t)size[0] * sizeof(float));
    cml_check_set *check = cml_check(p, 1, (size_t)size[0], NULL, 1, NULL);
    for (size_t i = 0; i < check->n; ++i) {
        check->ref[i] = x[i];
        check->mag[i] = 1.0;
    }
    (void)cml_scratch_adopt(p, malloc(64)); /* a library's buffer, freed with the scratch */
    if (size[1] == 1) {
        (void)cml_scratch(p, SIZE_MAX / 2);
    }
    return size[1] == 2 ? "rejected by the exercise" : size[1] == 3 ? cml_no_host_memory : NULL;
}

static const cml_exercise kToy = {.name = "toy",
                                  .dim_names = "n,mode",
                                  .n_dims = 2,
                                  .dim_max = {1000, 0},
                                  .arrays = "n,n*mode",
                                  .setup = toy_setup,
                                  .teardown = toy_teardown};

START_TEST(setup_keeps_ctx_table_and_check_set_frees_scratch) {
    cml_problem p;
    const long long size[2] = {16, 0};
    ck_assert_ptr_null(cml_problem_setup(&kToy, &p, size, 7));
    const toy_ctx *c = (const toy_ctx *)p.ctx;
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(c->n, 16);
    /* the context, the table and the check set; the scratch is gone */
    ck_assert_uint_eq(cml_problem_owned(&p), 3);
    ck_assert_ptr_nonnull(p.h_ref);
    ck_assert_ptr_nonnull(p.h_mag);
    ck_assert_ptr_null(p.check_idx); /* every position */
    for (int i = 0; i < 16; ++i) {
        ck_assert_double_eq(p.h_ref[i], (double)c->table[i]);
    }
    g_teardowns = 0;
    cml_problem_release(&kToy, &p);
    ck_assert_int_eq(g_teardowns, 1);
    ck_assert_uint_eq(cml_problem_owned(&p), 0);
    cml_problem_release(&kToy, &p); /* a released problem: nothing more */
    ck_assert_int_eq(g_teardowns, 1);
}
END_TEST

START_TEST(same_seed_same_inputs) {
    cml_problem a, b;
    const long long size[2] = {8, 0};
    ck_assert_ptr_null(cml_problem_setup(&kToy, &a, size, 42));
    ck_assert_ptr_null(cml_problem_setup(&kToy, &b, size, 42));
    ck_assert_mem_eq(((toy_ctx *)a.ctx)->table, ((toy_ctx *)b.ctx)->table, 8 * sizeof(float));
    cml_problem_release(&kToy, &a);
    cml_problem_release(&kToy, &b);
}
END_TEST

START_TEST(out_of_host_memory_is_the_setups_message) {
    cml_problem p;
    const long long size[2] = {16, 1};
    g_teardowns = 0;
    const char *message = cml_problem_setup(&kToy, &p, size, 7);
    ck_assert_ptr_nonnull(message);
    ck_assert_ptr_eq(message, cml_no_host_memory);
    ck_assert(cml_setup_ran_out_of_host(message));
    ck_assert(!cml_setup_ran_out_of_host("rejected by the exercise"));
    ck_assert_uint_eq(cml_problem_owned(&p), 0); /* what it took before is freed */
    ck_assert_ptr_null(p.ctx);
    cml_problem_release(&kToy, &p);
    ck_assert_int_eq(g_teardowns, 0); /* no teardown after a failed setup */
}
END_TEST

/* Scratch asked for outside setup() (a finish() or extra_metrics() taking some), more than
 * any machine has: the driver's failure path (run_in_child: it exits). */
static int scratch_outside_setup(void *arg) {
    (void)arg;
    cml_problem p;
    memset(&p, 0, sizeof p);
    (void)cml_scratch(&p, SIZE_MAX / 2);
    return 0; /* not reached */
}

START_TEST(out_of_host_memory_outside_setup_is_kind_host) {
    /* The judge's document: kind "host" with its own words, never CUDA's "out of memory" of
     * kind "cuda", a device allocation's, which the grader retries (design note 84). */
    const cml_run_ctx saved = cml_run;
    const char *json = temp_path(0);
    cml_run.lab_id = "0.0";
    cml_run.role = CML_ROLE_JUDGE;
    cml_run.peer_fd = -1;
    cml_run.json_path = json;
    const cml_fail_fn old_handler = cml_set_fail_handler(cml_lab_fail); /* as the driver's */
    ck_assert_int_eq(run_in_child(scratch_outside_setup, NULL, NULL, temp_path(1)), 4);
    char *doc = read_text_file(json);
    const char *want = "\"status\":\"error\",\"error\":{\"kind\":\"host\",\"message\":"
                       "\"out of host memory for the problem\",\"where\":\"cml_setup.c:";
    ck_assert_msg(strstr(doc, want) != NULL, "document: %s", doc);
    ck_assert_msg(strstr(doc, "\"expr\":null,\"by\":\"judge\"}") != NULL, "document: %s", doc);
    free(doc);
    remove(json);
    /* The student's process: an ERROR of kind "host" to the judge (which relays it as the
     * process's own failure, kind "worker"). */
    int pair[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair), 0);
    cml_run.role = CML_ROLE_WORKER;
    cml_run.peer_fd = pair[0];
    cml_run.json_path = NULL;
    ck_assert_int_eq(run_in_child(scratch_outside_setup, NULL, temp_path(2), temp_path(1)), 4);
    static cml_msg_error got;
    const ssize_t n = cml_ipc_recv(pair[1], &got, sizeof got, NULL, 1);
    ck_assert_int_eq(cml_ipc_type(&got, n), CML_MSG_ERROR);
    ck_assert_str_eq(got.kind, "host");
    ck_assert_str_eq(got.message, "out of host memory for the problem");
    ck_assert_ptr_nonnull(strstr(got.where, "cml_setup.c:"));
    close(pair[0]);
    close(pair[1]);
    cml_set_fail_handler(old_handler);
    cml_run = saved;
}
END_TEST

/* One device buffer more than the registry holds (cml_devmem_use's record full): the check
 * comes before any CUDA call. */
static int one_buffer_too_many(void *arg) {
    (void)arg;
    static cml_devmem_registry full = {.n = CML_DEVMEM_MAX};
    cml_devmem_use(CML_DEVMEM_PLAIN, &full, NULL, NULL);
    cml_problem p;
    memset(&p, 0, sizeof p);
    (void)cml_device(&p, 16);
    return 0; /* not reached */
}

START_TEST(more_buffers_than_the_registry_holds_is_kind_harness) {
    /* A course bug, named: never CUDA's "out of memory" of kind "cuda" (the GPU's memory full,
     * which the grader makes again, design note 84), nor any other CUDA error. */
    int code = -1;
    char *doc = judge_document_of(one_buffer_too_many, NULL, &code);
    ck_assert_int_eq(code, 4);
    ck_assert_msg(strstr(doc, "\"error\":{\"kind\":\"harness\",\"message\":\"setup() asked for "
                              "more than CML_DEVMEM_MAX (32) device buffers") != NULL,
                  "document: %s", doc);
    ck_assert_msg(strstr(doc, "\"where\":\"cml_setup.c:") != NULL, "document: %s", doc);
    free(doc);
}
END_TEST

/* The driver's report of toy_setup's message at size (16, size[1]) (cml_lab_setup_failed). */
static int report_the_setups_message(void *arg) {
    const long long size[2] = {16, *(const long long *)arg};
    cml_problem p;
    const char *message = cml_problem_setup(&kToy, &p, size, 7);
    ck_assert_ptr_nonnull(message);
    return cml_lab_setup_failed(message);
}

START_TEST(out_of_host_memory_in_setup_is_kind_host_a_rejected_size_kind_setup) {
    /* Kind "setup" says the exercise rejected the size (a case lab.toml should not hold): host
     * memory that ran out in the set-up is kind "host" (the judge's: the grader names the
     * machine's memory left to the judges, design note 84), the driver's allocation's and the
     * exercise's own alike. */
    static const long long modes[3] = {1, 3, 2};
    for (int i = 0; i < 3; ++i) {
        int code = -1;
        char *doc = judge_document_of(report_the_setups_message, (void *)&modes[i], &code);
        const char *want =
            i < 2 ? "\"error\":{\"kind\":\"host\",\"message\":\"out of host memory for the "
                    "inputs and the CPU reference\",\"where\":null,\"expr\":null,\"by\":\"judge\"}"
                  : "\"error\":{\"kind\":\"setup\",\"message\":\"rejected by the exercise\"";
        ck_assert_msg(strstr(doc, want) != NULL, "mode %lld: %s", modes[i], doc);
        ck_assert_int_eq(code, i < 2 ? 4 : 2);
        free(doc);
    }
}
END_TEST

/* What cudaMallocHost and cudaHostAlloc return where the host cannot lock the pages, and
 * another of their errors; no GPU needed. */
static cudaError_t pinning_fails(void) {
    return cudaErrorMemoryAllocation;
}

static cudaError_t pinning_refused(void) {
    return cudaErrorInvalidValue;
}

static int pin_outside_setup(void *arg) {
    if (arg != NULL) {
        CML_CHECK_PINNED(pinning_refused());
    }
    CML_CHECK_PINNED(pinning_fails());
    return 0; /* not reached */
}

/* Host memory taken, then a page-locked buffer that cannot be had (lab 3.2's staging buffers);
 * g_pinned_line: the line of its CML_CHECK_PINNED. */
static int g_pinned_line;

static const char *pinned_setup(cml_problem *p, const long long *size, uint64_t seed) {
    (void)size;
    (void)seed;
    (void)CML_NEW_CTX(p, toy_ctx);
    (void)cml_scratch(p, 64);
    g_pinned_line = __LINE__ + 1;
    CML_CHECK_PINNED(pinning_fails());
    return "not reached";
}

static const cml_exercise kPinned = {
    .name = "pinned", .dim_names = "n", .n_dims = 1, .setup = pinned_setup};

/* g_pinned_line in this process: the setup run here once (it jumps back, it never exits). */
static int pinned_line(void) {
    if (g_pinned_line == 0) {
        cml_problem p;
        const long long size[1] = {1};
        (void)cml_problem_setup(&kPinned, &p, size, 7);
    }
    return g_pinned_line;
}

static int report_the_pinned_setup(void *arg) {
    (void)arg;
    const long long size[1] = {1};
    cml_problem p;
    return cml_lab_setup_failed(cml_problem_setup(&kPinned, &p, size, 7));
}

START_TEST(page_locked_failure_in_setup_names_its_callers_line) {
    /* As CML_CHECK does, and as CML_CHECK_PINNED outside setup() does: the caller's file:line,
     * not lost on the jump back to cml_problem_setup. No other message of the setup has one
     * (the driver's own allocations', the exercise's own words, a size over its bound). */
    cml_problem p;
    const long long one[1] = {1};
    const char *message = cml_problem_setup(&kPinned, &p, one, 7);
    ck_assert_ptr_nonnull(message);
    ck_assert(cml_setup_ran_out_of_host(message));
    char want[64];
    snprintf(want, sizeof want, "test_setup.c:%d", pinned_line());
    ck_assert_ptr_nonnull(cml_setup_failed_where(message));
    ck_assert_str_eq(cml_setup_failed_where(message), want);
    ck_assert_ptr_null(cml_setup_failed_where("rejected by the exercise"));
    static const long long modes[3] = {1, 3, 2};
    for (int i = 0; i < 3; ++i) {
        const long long size[2] = {16, modes[i]};
        message = cml_problem_setup(&kToy, &p, size, 7);
        ck_assert_ptr_nonnull(message);
        ck_assert_msg(cml_setup_failed_where(message) == NULL, "mode %lld", modes[i]);
    }
    const long long over[2] = {1001, 0};
    ck_assert_ptr_null(cml_setup_failed_where(cml_problem_setup(&kToy, &p, over, 7)));
}
END_TEST

START_TEST(page_locked_host_memory_running_out_is_kind_host) {
    /* CUDA's "out of memory" from cudaMallocHost is the host's memory: kind "host", never kind
     * "cuda" with those words, which the grader reads as the GPU's memory full (design note 84),
     * outside setup() and inside it; another error of the call is the CUDA call's, as CML_CHECK
     * reports it. */
    int code = -1;
    char *doc = judge_document_of(pin_outside_setup, NULL, &code);
    ck_assert_int_eq(code, 4);
    ck_assert_msg(strstr(doc, "\"error\":{\"kind\":\"host\",\"message\":\"out of page-locked host "
                              "memory\",\"where\":\"test_setup.c:") != NULL,
                  "document: %s", doc);
    free(doc);
    doc = judge_document_of(pin_outside_setup, "refused", &code);
    ck_assert_int_eq(code, 4);
    ck_assert_msg(strstr(doc, "\"error\":{\"kind\":\"cuda\",\"message\":\"invalid argument\"") !=
                      NULL,
                  "document: %s", doc);
    ck_assert_msg(strstr(doc, "\"expr\":\"pinning_refused()\"") != NULL, "document: %s", doc);
    free(doc);
    /* Inside setup(): the caller's line too, not lost on the jump (the last child: the line is
     * found by running the setup here, whose CML_CHECK_PINNED makes a CUDA call). */
    doc = judge_document_of(report_the_pinned_setup, NULL, &code);
    ck_assert_int_eq(code, 4);
    char want[160];
    snprintf(want, sizeof want,
             "\"error\":{\"kind\":\"host\",\"message\":\"out of page-locked host memory\","
             "\"where\":\"test_setup.c:%d\",\"expr\":null,\"by\":\"judge\"}",
             pinned_line());
    ck_assert_msg(strstr(doc, want) != NULL, "document: %s", doc);
    free(doc);
}
END_TEST

START_TEST(exercise_message_frees_everything) {
    cml_problem p;
    const long long size[2] = {16, 2};
    ck_assert_str_eq(cml_problem_setup(&kToy, &p, size, 7), "rejected by the exercise");
    ck_assert_uint_eq(cml_problem_owned(&p), 0);
    ck_assert_ptr_null(p.h_ref);
}
END_TEST

START_TEST(size_over_max_size_never_reaches_setup) {
    cml_problem p;
    const long long size[2] = {1001, 0};
    const char *message = cml_problem_setup(&kToy, &p, size, 7);
    ck_assert_str_eq(message, "n must be at most 1000 (lab.h)");
    ck_assert_ptr_null(p.ctx);
    const long long fine[2] = {1000, 2147483}; /* n * mode = 2147483000 < 2^31 */
    ck_assert_ptr_null(cml_size_over_limit(&kToy, fine));
}
END_TEST

START_TEST(array_of_2_31_elements_never_reaches_setup) {
    cml_problem p;
    const long long size[2] = {1000, 2147484}; /* n * mode = 2147484000 >= 2^31 */
    ck_assert_str_eq(cml_problem_setup(&kToy, &p, size, 7),
                     "n*mode is 2^31 elements or more: every array has fewer (lab.h), so that an "
                     "int index does not overflow");
    const long long huge[2] = {1000, 1LL << 40}; /* the product saturates, never wraps */
    ck_assert_ptr_nonnull(cml_size_over_limit(&kToy, huge));
    static const cml_exercise bad = {
        .name = "bad", .dim_names = "n", .n_dims = 1, .arrays = "n*m", .setup = toy_setup};
    const long long one[1] = {1};
    ck_assert_str_eq(cml_size_over_limit(&bad, one),
                     "cml_exercise.arrays names no dimension 'm' (a course bug)");
}
END_TEST

START_TEST(point_sets_the_output_and_fresh_input_slots_it_is_given) {
    float out0, out1, in0, in1, other;
    struct {
        float *out, *a, *b;
    } ctx = {&out0, &in0, &other};
    cml_problem p;
    memset(&p, 0, sizeof p);
    p.out_ref = &ctx.out;
    p.fresh[0].slot = &ctx.a;
    p.fresh[1].slot = &ctx.b;
    p.n_fresh = 2;
    float *ins[2] = {&in1, &out1};
    cml_problem_point(&p, &out1, ins, 1); /* the first input only */
    ck_assert_ptr_eq(ctx.out, &out1);
    ck_assert_ptr_eq(ctx.a, &in1);
    ck_assert_ptr_eq(ctx.b, &other);
    cml_problem_point(&p, &out1, ins, 5); /* no more than the problem's n_fresh */
    ck_assert_ptr_eq(ctx.b, &out1);
    p.out_ref = NULL; /* no output slot: the output pointer is left alone */
    cml_problem_point(&p, &out0, ins, 0);
    ck_assert_ptr_eq(ctx.out, &out1);
}
END_TEST

/* One uniform input of size[0] floats; its host values kept in g_seen for the test. */
static float g_seen[4];
static const char *input_setup(cml_problem *p, const long long *size, uint64_t seed) {
    float **slot = (float **)cml_new_ctx(p, sizeof(float *));
    cml_rng rng;
    cml_rng_seed(&rng, seed);
    const float *h = cml_input_uniform(p, &rng, slot, (size_t)size[0], 1.0f, 2.0f);
    memcpy(g_seen, h, sizeof g_seen);
    return NULL;
}

START_TEST(imported_inputs_are_read_back_or_zeros_for_the_reference_only) {
    /* The student's process sets up on the judge's buffer, which holds the judge's values:
     * read back, or zeros for an exercise whose host inputs only make the reference. */
    const float judges[4] = {1.25f, 1.5f, 1.75f, 1.125f};
    const long long size[1] = {4};
    cml_exercise ex = {.name = "input", .dim_names = "n", .n_dims = 1, .setup = input_setup};
    for (int flagged = 0; flagged < 2; ++flagged) {
        float *d = NULL; /* the judge's buffer; the release frees it, as the process unmaps */
        ck_assert_int_eq(cudaMalloc((void **)&d, sizeof judges), cudaSuccess);
        ck_assert_int_eq(cudaMemcpy(d, judges, sizeof judges, cudaMemcpyHostToDevice), cudaSuccess);
        cml_devmem_registry imports = {.n = 1};
        imports.ptr[0] = d;
        imports.bytes[0] = sizeof judges;
        ex.flags = flagged ? CML_EX_REFERENCE_ONLY_INPUTS : 0u;
        cml_problem p;
        cml_devmem_use(CML_DEVMEM_IMPORT, NULL, NULL, &imports);
        ck_assert_ptr_null(cml_problem_setup(&ex, &p, size, 7));
        cml_devmem_use(CML_DEVMEM_PLAIN, NULL, NULL, NULL);
        ck_assert_ptr_eq(*(float **)p.ctx, d); /* the judge's buffer, not a new one */
        for (int i = 0; i < 4; ++i) {
            ck_assert_float_eq(g_seen[i], flagged ? 0.0f : judges[i]);
        }
        cml_problem_release(&ex, &p);
    }
    /* outside the student's process the flag changes nothing: the inputs are drawn */
    cml_problem p;
    ck_assert_ptr_null(cml_problem_setup(&ex, &p, size, 7));
    ck_assert(g_seen[0] >= 1.0f && g_seen[0] < 2.0f);
    cml_problem_release(&ex, &p);
}
END_TEST

/* The judge's set without a reference (cml_setup_inputs_on_device): the device buffer holds
 * values drawn there, in range and not the host draw of the seed; the host values are zeros. */
START_TEST(inputs_on_device_are_drawn_there_and_zeros_on_the_host) {
    enum { N = 4096 };
    const long long size[1] = {N};
    cml_exercise ex = {.name = "input", .dim_names = "n", .n_dims = 1, .setup = input_setup};
    cml_problem plain, on_device;
    ck_assert_ptr_null(cml_problem_setup(&ex, &plain, size, 7));
    float host_draw[4];
    memcpy(host_draw, g_seen, sizeof host_draw);
    cml_setup_inputs_on_device(1);
    ck_assert_ptr_null(cml_problem_setup(&ex, &on_device, size, 7));
    cml_setup_inputs_on_device(0);
    for (int i = 0; i < 4; ++i) {
        ck_assert_float_eq(g_seen[i], 0.0f);
    }
    static float got[N];
    ck_assert_int_eq(
        cudaMemcpy(got, *(float **)on_device.ctx, sizeof got, cudaMemcpyDeviceToHost),
        cudaSuccess);
    int distinct = 0;
    for (int i = 0; i < N; ++i) {
        ck_assert(got[i] >= 1.0f && got[i] < 2.0f);
        distinct += i > 0 && got[i] != got[i - 1];
    }
    ck_assert_int_gt(distinct, N - 16);
    ck_assert(memcmp(got, host_draw, sizeof host_draw) != 0);
    ck_assert_int_eq(on_device.n_fresh, 1); /* still a fresh input the judge can redraw */
    cml_problem_release(&ex, &plain);
    cml_problem_release(&ex, &on_device);
}
END_TEST

Suite *make_setup_suite(void) {
    Suite *s = suite_create("setup");
    TCase *tc = tcase_create("Ownership");
    tcase_add_test(tc, setup_keeps_ctx_table_and_check_set_frees_scratch);
    tcase_add_test(tc, same_seed_same_inputs);
    tcase_add_test(tc, point_sets_the_output_and_fresh_input_slots_it_is_given);
    suite_add_tcase(s, tc);
    tc = tcase_create("Failures");
    tcase_add_test(tc, out_of_host_memory_is_the_setups_message);
    tcase_add_test(tc, out_of_host_memory_outside_setup_is_kind_host);
    tcase_add_test(tc, more_buffers_than_the_registry_holds_is_kind_harness);
    tcase_add_test(tc, out_of_host_memory_in_setup_is_kind_host_a_rejected_size_kind_setup);
    tcase_add_test(tc, page_locked_host_memory_running_out_is_kind_host);
    tcase_add_test(tc, page_locked_failure_in_setup_names_its_callers_line);
    tcase_add_test(tc, exercise_message_frees_everything);
    tcase_add_test(tc, size_over_max_size_never_reaches_setup);
    tcase_add_test(tc, array_of_2_31_elements_never_reaches_setup);
    suite_add_tcase(s, tc);
    tc = tcase_create("GPU");
    tcase_set_tags(tc, "gpu");
    tcase_add_test(tc, imported_inputs_are_read_back_or_zeros_for_the_reference_only);
    tcase_add_test(tc, inputs_on_device_are_drawn_there_and_zeros_on_the_host);
    suite_add_tcase(s, tc);
    return s;
}

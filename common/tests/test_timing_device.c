/* test_timing_device.c — device facts and the host's wait for the GPU (cml_device.h), and the
 * timing method (cml_timing.h).
 *
 * Test cases that need a GPU carry the tag "gpu" (CK_EXCLUDE_TAGS=gpu leaves them out);
 * they create the CUDA context inside the test, in Check's child process. The contenders
 * are cudaMemsetAsync calls, so no kernel is needed.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cml_check.h"

#include "cml_device.h"
#include "cml_timing.h"
#include "suites.h"

START_TEST(defaults_are_the_documented_ones) {
    cml_timing_opts o = cml_timing_defaults();
    ck_assert_int_eq(o.reps, 25);
    ck_assert_int_eq(o.warmup, 3);
    ck_assert_int_eq(o.batch, 0);
    ck_assert(o.target_sample_ms == 1.0);
    ck_assert_int_eq(o.flush_l2, 1);
}
END_TEST

/* An untimed run's host threads block while they wait for the GPU (_i = 0); a timed run keeps
 * the runtime's default (_i = 1). Each loop iteration runs in its own process (Check's fork). */
START_TEST(the_wait_for_the_gpu_follows_the_run) {
    static const unsigned int want[2] = {cudaDeviceScheduleBlockingSync, cudaDeviceScheduleAuto};
    cml_device_schedule(_i);
    unsigned int flags = 0;
    ck_assert_int_eq(cudaGetDeviceFlags(&flags), cudaSuccess);
    ck_assert_uint_eq(flags & cudaDeviceScheduleMask, want[_i]);
}
END_TEST

/* The host thread's CPU seconds per second of wall while it waits for `n` 1 GiB memsets
 * (about 0.3 ms each on an H200) in cudaDeviceSynchronize. */
static double cpu_share_of_a_wait(int n) {
    void *d = NULL;
    ck_assert_int_eq(cudaMalloc(&d, (size_t)1 << 30), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    for (int i = 0; i < n; ++i) {
        ck_assert_int_eq(cudaMemsetAsync(d, i, (size_t)1 << 30, 0), cudaSuccess);
    }
    struct timespec w0, c0, w1, c1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    const double wall = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
    const double cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    ck_assert_msg(wall > 0.02, "the wait took %.4f s: too short to tell a spin from a block", wall);
    return cpu / wall;
}

/* A gated judge sets up like an untimed run and times like a timed one (design note 55): on
 * its active context, cml_device_spin_from_here makes the waits spin that blocked before. */
START_TEST(spin_from_here_turns_a_blocking_context_into_a_spinning_one) {
    cml_device_schedule(0);
    ck_assert_int_eq(cudaFree(0), cudaSuccess); /* the context exists from here */
    unsigned int flags = 0;
    ck_assert_int_eq(cudaGetDeviceFlags(&flags), cudaSuccess);
    ck_assert_uint_eq(flags & cudaDeviceScheduleMask, cudaDeviceScheduleBlockingSync);
    const double blocking = cpu_share_of_a_wait(400);
    ck_assert_int_eq(cml_device_spin_from_here(), 0);
    const double spinning = cpu_share_of_a_wait(400);
    fprintf(stderr, "a wait's CPU share: %.3f blocking, %.3f spinning\n", blocking, spinning);
    /* relative, against other load on the machine: a spin takes most of the wait's CPU */
    ck_assert_msg(spinning > 0.5 && spinning > 3 * blocking, "blocking %.3f, spinning %.3f",
                  blocking, spinning);
}
END_TEST

static void no_launch(void *ctx) {
    (void)ctx;
}

START_TEST(invalid_arguments_are_refused_before_any_cuda_call) {
    cml_contender c = {"none", no_launch, NULL, NULL};
    cml_timing_stats st;
    cml_timing_opts o = cml_timing_defaults();
    ck_assert_int_eq(cml_time_interleaved(&c, 0, &o, &st), cudaErrorInvalidValue);
    ck_assert_int_eq(cml_time_interleaved(NULL, 1, &o, &st), cudaErrorInvalidValue);
    ck_assert_int_eq(cml_time_interleaved(&c, 1, &o, NULL), cudaErrorInvalidValue);
    o.reps = 19;
    ck_assert_int_eq(cml_time_interleaved(&c, 1, &o, &st), cudaErrorInvalidValue);
    o = cml_timing_defaults();
    o.batch = -1;
    ck_assert_int_eq(cml_time_interleaved(&c, 1, &o, &st), cudaErrorInvalidValue);
    o.batch = 10001;
    ck_assert_int_eq(cml_time_interleaved(&c, 1, &o, &st), cudaErrorInvalidValue);
    o = cml_timing_defaults();
    o.warmup = -1;
    ck_assert_int_eq(cml_time_interleaved(&c, 1, &o, &st), cudaErrorInvalidValue);
}
END_TEST

/* More samples than any host holds: 2^16 contenders x 2^30 repetitions x 8 bytes, 512 TiB, past
 * the address space, so the allocation fails whatever the machine, before any CUDA call. Checked
 * as its callers check it (lab 3.4's extra_metrics in the judge, a plain run's timing). */
static int time_more_than_the_host_holds(void *arg) {
    (void)arg;
    const cml_contender c = {"none", no_launch, NULL, NULL};
    cml_timing_opts o = cml_timing_defaults();
    o.reps = 1 << 30;
    cml_timing_stats st;
    CML_CHECK(cml_time_interleaved(&c, 1 << 16, &o, &st)); /* only c[0] exists: never read */
    return 0;
}

START_TEST(host_memory_for_the_samples_running_out_is_kind_host) {
    /* Never CUDA's "out of memory" of kind "cuda", a device allocation's, which the grader
     * makes again as the GPU's memory full (design notes 84 and 88). */
    int code = -1;
    char *doc = judge_document_of(time_more_than_the_host_holds, NULL, &code);
    ck_assert_int_eq(code, 4);
    const char *want = "\"error\":{\"kind\":\"host\",\"message\":\"out of host memory for the "
                       "timing's samples\",\"where\":\"cml_timing.c:";
    ck_assert_msg(strstr(doc, want) != NULL, "document: %s", doc);
    ck_assert_msg(strstr(doc, "\"by\":\"judge\"") != NULL, "document: %s", doc);
    free(doc);
}
END_TEST

/* ---- GPU ---- */

START_TEST(device_count_and_facts) {
    ck_assert_int_ge(cml_device_count(), 1);
    cml_device_facts f;
    ck_assert_int_eq(cml_device_query(&f), cudaSuccess);
    ck_assert_int_eq(f.ordinal, 0);
    ck_assert(f.name[0] != '\0');
    ck_assert_int_ge(f.cc_major, 5);
    ck_assert_int_gt(f.sm_count, 0);
    ck_assert_uint_gt(f.l2_bytes, 0);
    ck_assert_uint_gt(f.global_mem_bytes, 0);
    ck_assert_uint_ge(f.smem_per_block_optin_bytes, f.smem_per_block_bytes);
    ck_assert_uint_ge(f.smem_per_sm_bytes, f.smem_per_block_optin_bytes);
    ck_assert_int_gt(f.regs_per_sm, 0);
    ck_assert_int_gt(f.regs_per_block, 0);
    ck_assert_int_ge(f.clock_khz, 0);
}
END_TEST

typedef struct memset_ctx {
    void *d_buf;
    size_t n_bytes;
} memset_ctx;

static void launch_memset(void *ctx) {
    memset_ctx *m = ctx;
    (void)cudaMemsetAsync(m->d_buf, 0x5A, m->n_bytes, 0);
}

static void alloc_memset(memset_ctx *m, size_t n_bytes) {
    m->n_bytes = n_bytes;
    ck_assert_int_eq(cudaMalloc(&m->d_buf, n_bytes), cudaSuccess);
}

static void assert_sane(const cml_timing_stats *s, int reps) {
    ck_assert_int_eq(s->reps, reps);
    ck_assert_int_ge(s->batch, 1);
    ck_assert(s->median_ms > 0.0);
    ck_assert(s->p10_ms <= s->median_ms);
    ck_assert(s->median_ms <= s->p90_ms);
}

START_TEST(one_contender) {
    memset_ctx m;
    alloc_memset(&m, 64u << 20);
    cml_contender c = {"memset", launch_memset, &m, NULL};
    cml_timing_stats st;
    ck_assert_int_eq(cml_time_interleaved(&c, 1, NULL, &st), cudaSuccess);
    assert_sane(&st, 25);
    /* 64 MiB written at no more than 10 TB/s takes at least 6.7 us. */
    ck_assert(st.median_ms > (64.0 * (1 << 20)) / 10e12 * 1e3);
    cudaFree(m.d_buf);
}
END_TEST

START_TEST(fixed_batch_and_no_flush) {
    memset_ctx m;
    alloc_memset(&m, 1u << 20);
    cml_contender c = {"memset", launch_memset, &m, NULL};
    cml_timing_opts o = cml_timing_defaults();
    o.reps = 20;
    o.batch = 4;
    o.flush_l2 = 0;
    cml_timing_stats st;
    ck_assert_int_eq(cml_time_interleaved(&c, 1, &o, &st), cudaSuccess);
    assert_sane(&st, 20);
    ck_assert_int_eq(st.batch, 4);
    cudaFree(m.d_buf);
}
END_TEST

START_TEST(auto_batch_for_a_tiny_contender) {
    memset_ctx m;
    alloc_memset(&m, 4);
    cml_contender c = {"memset", launch_memset, &m, NULL};
    cml_timing_stats st;
    ck_assert_int_eq(cml_time_interleaved(&c, 1, NULL, &st), cudaSuccess);
    assert_sane(&st, 25);
    /* A 4-byte memset takes microseconds: a 1 ms sample needs many of them. */
    ck_assert_int_gt(st.batch, 10);
    ck_assert_int_le(st.batch, 10000);
}
END_TEST

START_TEST(interleaved_contenders_share_the_batch) {
    memset_ctx big, small;
    alloc_memset(&big, 256u << 20);
    alloc_memset(&small, 1u << 20);
    cml_contender c[2] = {{"big", launch_memset, &big, NULL},
                          {"small", launch_memset, &small, NULL}};
    cml_timing_stats st[2];
    ck_assert_int_eq(cml_time_interleaved(c, 2, NULL, st), cudaSuccess);
    assert_sane(&st[0], 25);
    assert_sane(&st[1], 25);
    ck_assert_int_eq(st[0].batch, st[1].batch);
    ck_assert(st[0].median_ms > 4.0 * st[1].median_ms); /* 256x the bytes */
    cudaFree(big.d_buf);
    cudaFree(small.d_buf);
}
END_TEST

/* A prepare that keeps the GPU busy far longer than the launch it precedes: four writes of the
 * big buffer, then the wait for them (a prepare may synchronise). */
static memset_ctx g_prepare_buf;
static int g_prepares;

static void prepare_busy(void *ctx) {
    (void)ctx;
    for (int i = 0; i < 4; ++i) {
        launch_memset(&g_prepare_buf);
    }
    (void)cudaDeviceSynchronize();
    ++g_prepares;
}

/* A contender's prepare runs before each of its samples (warm-up included), outside them, and
 * makes every contender's sample one launch. */
START_TEST(a_prepare_is_outside_the_sample) {
    memset_ctx small;
    alloc_memset(&small, 1u << 20);
    alloc_memset(&g_prepare_buf, 1u << 30);
    cml_contender c[2] = {{"prepared", launch_memset, &small, prepare_busy},
                          {"plain", launch_memset, &small, NULL}};
    cml_timing_stats st[2];
    ck_assert_int_eq(cml_time_interleaved(c, 2, NULL, st), cudaSuccess);
    assert_sane(&st[0], 25);
    ck_assert_int_eq(g_prepares, 3 + 25);
    ck_assert_int_eq(st[0].batch, 1);
    ck_assert_int_eq(st[1].batch, 1);
    /* The prepare alone: four 1 GiB writes, timed here the same way. */
    cml_contender busy = {"busy", prepare_busy, NULL, NULL};
    cml_timing_opts o = cml_timing_defaults();
    o.reps = 20;
    cml_timing_stats alone;
    ck_assert_int_eq(cml_time_interleaved(&busy, 1, &o, &alone), cudaSuccess);
    ck_assert(st[0].median_ms < 0.1 * alone.median_ms);
    cudaFree(small.d_buf);
    cudaFree(g_prepare_buf.d_buf);
}
END_TEST

static void launch_bad_memset(void *ctx) {
    (void)ctx;
    (void)cudaMemsetAsync((void *)(uintptr_t)16, 0, 4, 0); /* not a device pointer */
}

START_TEST(a_failing_contender_is_reported) {
    cml_contender c = {"bad", launch_bad_memset, NULL, NULL};
    cml_timing_stats st;
    ck_assert_int_ne(cml_time_interleaved(&c, 1, NULL, &st), cudaSuccess);
}
END_TEST

Suite *make_timing_device_suite(void) {
    Suite *s = suite_create("timing_device");
    TCase *tc = tcase_create("Correctness");
    tcase_add_test(tc, defaults_are_the_documented_ones);
    suite_add_tcase(s, tc);
    tc = tcase_create("Errors");
    tcase_add_test(tc, invalid_arguments_are_refused_before_any_cuda_call);
    tcase_add_test(tc, host_memory_for_the_samples_running_out_is_kind_host);
    suite_add_tcase(s, tc);
    tc = tcase_create("GPU");
    tcase_set_tags(tc, "gpu");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, device_count_and_facts);
    tcase_add_test(tc, one_contender);
    tcase_add_test(tc, fixed_batch_and_no_flush);
    tcase_add_test(tc, auto_batch_for_a_tiny_contender);
    tcase_add_test(tc, interleaved_contenders_share_the_batch);
    tcase_add_test(tc, a_failing_contender_is_reported);
    tcase_add_test(tc, a_prepare_is_outside_the_sample);
    tcase_add_loop_test(tc, the_wait_for_the_gpu_follows_the_run, 0, 2);
    tcase_add_test(tc, spin_from_here_turns_a_blocking_context_into_a_spinning_one);
    suite_add_tcase(s, tc);
    return s;
}

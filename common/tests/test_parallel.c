/* test_parallel.c — independent loop iterations on several cores (cml_parallel.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "cml_parallel.h"
#include "suites.h"

#define N_MAX 100000

typedef struct visits {
    unsigned char count[N_MAX]; /* how often each iteration ran (no two ranges share one) */
    pthread_t caller;
    int off_caller; /* ranges run on another thread than the caller's */
    pthread_mutex_t lock;
} visits;

static visits g_visits;

static void visit(void *ctx, size_t begin, size_t end) {
    visits *v = (visits *)ctx;
    ck_assert_uint_lt(begin, end); /* no empty range is handed out */
    for (size_t i = begin; i < end; ++i) {
        v->count[i]++;
    }
    pthread_mutex_lock(&v->lock);
    v->off_caller += !pthread_equal(pthread_self(), v->caller);
    pthread_mutex_unlock(&v->lock);
}

/* Runs the loop over n and checks every iteration ran once; returns how many ranges ran off
 * the caller's thread. */
static int run(size_t n, size_t min_per_thread) {
    memset(g_visits.count, 0, sizeof g_visits.count);
    g_visits.caller = pthread_self();
    g_visits.off_caller = 0;
    pthread_mutex_init(&g_visits.lock, NULL);
    cml_parallel_for(n, min_per_thread, visit, &g_visits);
    for (size_t i = 0; i < N_MAX; ++i) {
        ck_assert_uint_eq(g_visits.count[i], i < n ? 1u : 0u);
    }
    pthread_mutex_destroy(&g_visits.lock);
    return g_visits.off_caller;
}

static int cores(void) {
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

START_TEST(every_iteration_runs_once) {
    const size_t sizes[] = {1, 2, 7, 8, 9, 1000, 4097, N_MAX};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        run(sizes[k], 1);
        run(sizes[k], 1000);
    }
    cml_parallel_for(0, 1, visit, &g_visits); /* nothing to do: body never called */
}
END_TEST

START_TEST(threads_are_bounded_by_work_cores_and_the_cap) {
    ck_assert_int_eq(cml_parallel_threads(0, 1), 1);
    ck_assert_int_eq(cml_parallel_threads(4095, 4096), 1); /* less than one thread's worth */
    ck_assert_int_eq(cml_parallel_threads(8191, 4096), 1);
    const int most = cores() < CML_PARALLEL_MAX_THREADS ? cores() : CML_PARALLEL_MAX_THREADS;
    ck_assert_int_eq(cml_parallel_threads(1u << 20, 1), most);
    ck_assert_int_eq(cml_parallel_threads(3 * 4096, 4096), most < 3 ? most : 3);
}
END_TEST

START_TEST(small_loops_stay_on_the_callers_thread_large_ones_spread) {
    ck_assert_int_eq(run(1000, 4096), 0);
    const int spread = run(N_MAX, 1);
    ck_assert_int_eq(spread, cml_parallel_threads(N_MAX, 1) - 1);
}
END_TEST

Suite *make_parallel_suite(void) {
    Suite *s = suite_create("parallel");
    TCase *tc = tcase_create("Correctness");
    tcase_add_test(tc, every_iteration_runs_once);
    tcase_add_test(tc, threads_are_bounded_by_work_cores_and_the_cap);
    tcase_add_test(tc, small_loops_stay_on_the_callers_thread_large_ones_spread);
    suite_add_tcase(s, tc);
    return s;
}

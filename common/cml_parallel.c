/* cml_parallel.c — independent loop iterations on several cores (cml_parallel.h). */
#define _GNU_SOURCE
#include "cml_parallel.h"

#include <pthread.h>
#include <sched.h>

typedef struct range {
    void (*body)(void *ctx, size_t begin, size_t end);
    void *ctx;
    size_t begin, end;
} range;

static void *run_range(void *arg) {
    const range *r = (const range *)arg;
    r->body(r->ctx, r->begin, r->end);
    return NULL;
}

int cml_parallel_threads(size_t n, size_t min_per_thread) {
    cpu_set_t set;
    int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    size_t by_work = min_per_thread > 0 ? n / min_per_thread : n;
    size_t t = (size_t)(cores > 0 ? cores : 1);
    t = t < CML_PARALLEL_MAX_THREADS ? t : CML_PARALLEL_MAX_THREADS;
    t = t < by_work ? t : by_work;
    return t > 1 ? (int)t : 1;
}

void cml_parallel_for(size_t n, size_t min_per_thread,
                      void (*body)(void *ctx, size_t begin, size_t end), void *ctx) {
    const int t = cml_parallel_threads(n, min_per_thread);
    if (t <= 1) {
        if (n > 0) {
            body(ctx, 0, n);
        }
        return;
    }
    range ranges[CML_PARALLEL_MAX_THREADS];
    pthread_t threads[CML_PARALLEL_MAX_THREADS];
    int started[CML_PARALLEL_MAX_THREADS] = {0};
    for (int k = 0; k < t; ++k) {
        ranges[k] = (range){body, ctx, n * (size_t)k / (size_t)t, n * (size_t)(k + 1) / (size_t)t};
    }
    for (int k = 1; k < t; ++k) { /* range 0 is the caller's */
        started[k] = pthread_create(&threads[k], NULL, run_range, &ranges[k]) == 0;
    }
    run_range(&ranges[0]);
    for (int k = 1; k < t; ++k) {
        if (started[k]) {
            pthread_join(threads[k], NULL);
        } else {
            run_range(&ranges[k]);
        }
    }
}

/* cml_parallel.h — independent iterations of a host loop on several cores: a CPU reference
 * computed at many positions (lab 3.3's matmul at a 4096^3 case: 327 680 dot products of
 * 4096 terms, about 1 s on one core), which the judge computes before its gate, on the
 * critical path of a lone grade.
 *
 * Source: POSIX threads (pthread_create, pthread_join); the cores from sched_getaffinity, so
 * a process confined to some CPUs uses those.
 */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many threads, the caller's included. */
#define CML_PARALLEL_MAX_THREADS 8

/* Calls body(ctx, begin, end) over disjoint ranges that cover [0, n) exactly once, on up to
 * CML_PARALLEL_MAX_THREADS threads (the calling thread one of them), each range at least
 * min_per_thread iterations long (a small n runs in the caller alone), and returns when all
 * have returned. body must not longjmp out, nor allocate through the driver (cml_setup.h),
 * nor write what another range reads. A thread that cannot be started leaves its range to
 * the caller: the loop always completes. */
void cml_parallel_for(size_t n, size_t min_per_thread,
                      void (*body)(void *ctx, size_t begin, size_t end), void *ctx);

/* The threads cml_parallel_for would use for n iterations of at least min_per_thread each
 * (1 when n < 2 * min_per_thread); for tests. */
int cml_parallel_threads(size_t n, size_t min_per_thread);

#ifdef __cplusplus
}
#endif

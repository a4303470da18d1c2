/* cml_check.c — the failure handler behind CML_CHECK (cml_check.h).
 *
 * The default handler prints "file:line: expr failed: <cudaGetErrorString>" (or
 * cml_fail_saying's message) to stderr and exits with status 4 (docs/protocol.md: a CUDA call
 * failed). Lab harnesses replace it (cml_lab.c) so that the failure is written into the run
 * document first.
 *
 * Source: CUDA C++ Programming Guide, "Error Checking"; checkCudaErrors() in NVIDIA
 * cuda-samples.
 */
#include "cml_check.h"

#include <stdio.h>
#include <stdlib.h>

/* cml_fail_saying's message while its failure is reported; NULL for a plain cml_fail. */
static const char *saying = NULL;

const char *cml_fail_message(cudaError_t err) {
    return saying != NULL ? saying : cudaGetErrorString(err);
}

static void default_fail(cudaError_t err, const char *expr, const char *file, int line) {
    fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, expr, cml_fail_message(err));
    exit(4);
}

static cml_fail_fn current_fail = default_fail;

cml_fail_fn cml_set_fail_handler(cml_fail_fn fn) {
    cml_fail_fn old = current_fail;
    current_fail = fn ? fn : default_fail;
    return old;
}

static void report(cudaError_t err, const char *expr, const char *file, int line) {
    current_fail(err, expr, file, line);
    /* A handler must not return; if one does, stop here rather than run on. */
    default_fail(err, expr, file, line);
}

void cml_fail(cudaError_t err, const char *expr, const char *file, int line) {
    saying = NULL; /* not an earlier cml_fail_saying's (a test's handler may jump back) */
    report(err, expr, file, line);
}

void cml_fail_saying(cudaError_t err, const char *message, const char *expr, const char *file,
                     int line) {
    saying = message;
    report(err, expr, file, line);
}

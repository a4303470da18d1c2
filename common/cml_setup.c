/* cml_setup.c — the allocations a setup() takes from the driver, freed by it (cml_setup.h).
 *
 * Each problem keeps a list of what it took, newest first, so release frees in reverse order
 * of allocation. Running out of host memory inside setup() jumps back to cml_problem_setup,
 * which frees what the setup took and returns the message (setup() runs host code only, so
 * no frame between needs unwinding).
 */
#include "cml_setup.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cml_check.h"
#include "cml_devmem.h"
#include "cml_fresh.h"
#include "cml_hostmem.h"
#include "cml_lab_internal.h"

typedef enum owned_kind {
    OWN_HOST,
    OWN_SCRATCH,
    OWN_DEVICE,
    OWN_CHECK_SET,
    OWN_EVERY /* free_owned: every kind */
} owned_kind;

struct cml_owned {
    owned_kind kind;
    void *ptr;
    struct cml_owned *next;
};

const char cml_no_host_memory[] = "out of host memory for the inputs and the CPU reference";
static const char kNoHostMemoryOutside[] = "out of host memory for the problem";
static const char kNoPinnedMemory[] = "out of page-locked host memory";

static jmp_buf *g_setup_jump;       /* set while a setup() runs */
static const char *g_setup_no_host; /* the setup's message after the jump */
static char g_setup_where[128];     /* its caller's file:line, where it has one ("": none) */
/* While a setup() runs on imported buffers for an exercise with CML_EX_REFERENCE_ONLY_INPUTS:
 * its uniform inputs' host values are zeros, not read back (cml_input_uniform). */
static int g_zero_host_inputs;
/* cml_setup_inputs_on_device: inputs drawn on the device, zeros on the host. */
static int g_inputs_on_device;

void cml_setup_inputs_on_device(int on) {
    g_inputs_on_device = on;
}

int cml_setup_ran_out_of_host(const char *message) {
    return message == cml_no_host_memory || message == kNoPinnedMemory;
}

const char *cml_setup_failed_where(const char *message) {
    if (message == NULL || message != g_setup_no_host || g_setup_where[0] == '\0') {
        return NULL;
    }
    return g_setup_where;
}

/* Host memory ran out inside setup(): the setup ends with `message` as its message and
 * `where` (a caller's "file:line", cml_setup_failed_where; NULL: none) as its place. Kind
 * "host", never CUDA's "out of memory" (a device allocation's: design note 84). */
static void setup_no_host(const char *message, const char *where) {
    g_setup_no_host = message;
    snprintf(g_setup_where, sizeof g_setup_where, "%s", where ? where : "");
    longjmp(*g_setup_jump, 1);
}

/* The driver's own host allocation failed: inside setup() the setup ends (no line of the
 * exercise's to name); outside it (a finish() or extra_metrics() taking scratch) the run
 * cannot go on. */
static void out_of_host_memory(void) {
    if (g_setup_jump != NULL) {
        setup_no_host(cml_no_host_memory, NULL);
    }
    cml_lab_fail_host(kNoHostMemoryOutside, __FILE__, __LINE__);
}

void cml_check_pinned(cudaError_t err, const char *expr, const char *file, int line) {
    if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError(); /* not sticky: cleared for a run that goes on (a judge's set) */
        if (g_setup_jump != NULL) {
            /* the call on stderr, as CML_CHECK prints it (outside setup(): cml_lab_fail_host's) */
            char where[128];
            cml_where(where, sizeof where, file, line);
            fprintf(stderr, "lab: %s: %s failed: %s\n", where, expr, kNoPinnedMemory);
            setup_no_host(kNoPinnedMemory, where);
        }
        cml_lab_fail_host(kNoPinnedMemory, file, line);
    }
    if (err != cudaSuccess) {
        cml_fail(err, expr, file, line);
    }
}

static void own(cml_problem *p, owned_kind kind, void *ptr) {
    struct cml_owned *o = (struct cml_owned *)malloc(sizeof *o);
    if (o == NULL) {
        if (kind == OWN_DEVICE) {
            CML_CHECK(cml_dev_free(ptr));
        } else {
            free(ptr);
        }
        out_of_host_memory();
    }
    o->kind = kind;
    o->ptr = ptr;
    o->next = p->owned;
    p->owned = o;
}

static void *host_alloc(cml_problem *p, owned_kind kind, size_t bytes, int zeroed) {
    void *ptr = zeroed ? calloc(1, bytes ? bytes : 1) : malloc(bytes ? bytes : 1);
    if (ptr == NULL) {
        out_of_host_memory();
    }
    (void)cml_hugepage_hint(ptr, bytes); /* an input of 67 M floats: 128 faults, not 65 536 */
    own(p, kind, ptr);
    return ptr;
}

void *cml_new_ctx(cml_problem *p, size_t bytes) {
    p->ctx = host_alloc(p, OWN_HOST, bytes, 1);
    return p->ctx;
}

void *cml_host(cml_problem *p, size_t bytes) {
    return host_alloc(p, OWN_HOST, bytes, 1);
}

void *cml_scratch(cml_problem *p, size_t bytes) {
    return host_alloc(p, OWN_SCRATCH, bytes, 0);
}

void *cml_scratch_adopt(cml_problem *p, void *ptr) {
    if (ptr != NULL) {
        own(p, OWN_SCRATCH, ptr); /* frees ptr itself when it cannot keep it */
    }
    return ptr;
}

float *cml_scratch_uniform(cml_problem *p, cml_rng *rng, size_t n, float lo, float hi) {
    float *x = (float *)cml_scratch(p, n * sizeof(float));
    cml_rng_fill_uniform_f32(rng, x, n, lo, hi);
    return x;
}

void *cml_device(cml_problem *p, size_t bytes) {
    if (cml_devmem_full()) {
        /* A course bug, said so: never the GPU's memory full (design note 84). */
        char message[160];
        snprintf(message, sizeof message,
                 "setup() asked for more than CML_DEVMEM_MAX (%d) device buffers (cml_devmem.h): "
                 "a course bug, please report",
                 CML_DEVMEM_MAX);
        cml_lab_fail_harness(message, __FILE__, __LINE__);
    }
    void *ptr = NULL;
    CML_CHECK(cml_dev_alloc(&ptr, bytes));
    own(p, OWN_DEVICE, ptr);
    return ptr;
}

void *cml_device_copy(cml_problem *p, const void *src, size_t bytes) {
    void *ptr = cml_device(p, bytes);
    CML_CHECK(cudaMemcpy(ptr, src, bytes, cudaMemcpyHostToDevice));
    return ptr;
}

const float *cml_input_uniform(cml_problem *p, cml_rng *rng, float **slot, size_t n, float lo,
                               float hi) {
    const float *h;
    if (cml_devmem_importing()) {
        /* The student's process (cml_worker.c) sets up on the judge's buffers, which already
         * hold these values (the same seed, the same stream): read back instead of drawn and
         * copied again (an 8192 x 8192 input: 67 M draws and 256 MB to the device while the
         * judge waits for READY, in a timed run with the GPU held alone), the stream moved
         * past them so that later draws agree with the judge's. */
        float *x = (float *)host_alloc(p, OWN_SCRATCH, n * sizeof(float), g_zero_host_inputs);
        *slot = (float *)cml_device(p, n * sizeof(float));
        if (!g_zero_host_inputs) { /* zeros (calloc): pages nobody touches cost nothing */
            CML_CHECK(cudaMemcpy(x, *slot, n * sizeof(float), cudaMemcpyDeviceToHost));
        }
        cml_rng_skip(rng, n);
        h = x;
    } else if (g_inputs_on_device) {
        float *x = (float *)host_alloc(p, OWN_SCRATCH, n * sizeof(float), 1); /* untouched */
        *slot = (float *)cml_device(p, n * sizeof(float));
        CML_CHECK((cudaError_t)cml_fresh_draw(*slot, n, lo, hi, cml_rng_u64(rng)));
        h = x;
    } else {
        h = cml_scratch_uniform(p, rng, n, lo, hi);
        *slot = (float *)cml_device_copy(p, h, n * sizeof(float));
    }
    if (p->n_fresh < CML_MAX_FRESH) { /* beyond: an ordinary input, shared by every launch */
        p->fresh[p->n_fresh++] = (cml_fresh_input){slot, n, lo, hi};
    }
    return h;
}

cml_uniform_view cml_input_uniform_view(cml_problem *p, cml_rng *rng, float **slot, size_t n,
                                        float lo, float hi) {
    /* zeros where no reference is compared: the student's process (as cml_input_uniform's
     * zeros) and the judge's sets made on the device */
    const int zeros = g_zero_host_inputs || g_inputs_on_device;
    const cml_uniform_view v = {rng->state, n, lo, hi, zeros};
    *slot = (float *)cml_device(p, n * sizeof(float));
    if (!cml_devmem_importing()) { /* the student's process: the judge's buffer, drawn there */
        CML_CHECK((cudaError_t)cml_fresh_draw(*slot, n, lo, hi, rng->state));
    }
    cml_rng_skip(rng, n);
    if (p->n_fresh < CML_MAX_FRESH) { /* beyond: an ordinary input, shared by every launch */
        p->fresh[p->n_fresh++] = (cml_fresh_input){slot, n, lo, hi};
    }
    return v;
}

void cml_view_patch(const cml_uniform_view *v, size_t width, size_t height, size_t y, size_t x,
                    int R, float *patch) {
    const long long diam = 2 * (long long)R + 1;
    for (long long dy = -R; dy <= R; ++dy) {
        const long long yy = (long long)y + dy;
        for (long long dx = -R; dx <= R; ++dx) {
            const long long xx = (long long)x + dx;
            const int inside =
                yy >= 0 && yy < (long long)height && xx >= 0 && xx < (long long)width;
            patch[(dy + R) * diam + (dx + R)] =
                inside ? cml_view_at(v, (size_t)yy * width + (size_t)xx) : 0.0f;
        }
    }
}

const float *cml_view_values(cml_problem *p, const cml_uniform_view *v) {
    if (v->zeros) {
        return (const float *)host_alloc(p, OWN_SCRATCH, v->n * sizeof(float), 1);
    }
    cml_rng at = {v->state};
    return cml_scratch_uniform(p, &at, v->n, v->lo, v->hi);
}

void cml_problem_point(const cml_problem *p, float *out, float *const *ins, int n_ins) {
    if (p->out_ref != NULL) {
        *p->out_ref = out;
    }
    for (int k = 0; k < n_ins && k < p->n_fresh; ++k) {
        *p->fresh[k].slot = ins[k];
    }
}

float *cml_output(cml_problem *p, float **slot, size_t rows, size_t cols) {
    float *out = (float *)cml_device(p, rows * cols * sizeof(float));
    if (slot != NULL) {
        *slot = out;
    }
    p->d_out = out;
    p->out_ref = slot;
    p->n_out = rows * cols;
    p->out_cols = cols;
    return out;
}

cml_check_set *cml_check(cml_problem *p, size_t rows, size_t cols, const cml_sample_spec *sample,
                         int with_mag, cml_rng *rng) {
    cml_check_set *s = (cml_check_set *)host_alloc(p, OWN_CHECK_SET, sizeof *s, 1);
    if (!cml_check_set_init(s, rows, cols, sample, with_mag, rng)) {
        out_of_host_memory();
    }
    cml_check_set_publish(s, p);
    return s;
}

/* Frees the owned entries of one kind (OWN_EVERY: all of them), newest first. */
static void free_owned(cml_problem *p, owned_kind kind) {
    struct cml_owned **link = &p->owned;
    while (*link != NULL) {
        struct cml_owned *o = *link;
        if (kind != OWN_EVERY && o->kind != kind) {
            link = &o->next;
            continue;
        }
        *link = o->next;
        switch (o->kind) {
        case OWN_DEVICE:
            CML_CHECK(cml_dev_free(o->ptr));
            break;
        case OWN_CHECK_SET:
            cml_check_set_free((cml_check_set *)o->ptr);
            free(o->ptr);
            break;
        default:
            free(o->ptr);
            break;
        }
        free(o);
    }
}

/* The index of dimension `name` (len bytes) in ex->dim_names, or -1. */
static int dim_index(const cml_exercise *ex, const char *name, size_t len) {
    const char *s = ex->dim_names;
    for (int d = 0; d < ex->n_dims; ++d) {
        const size_t n = strcspn(s, ",");
        if (n == len && strncmp(s, name, len) == 0) {
            return d;
        }
        s += s[n] == ',' ? n + 1 : n;
    }
    return -1;
}

/* The first of ex->arrays with CML_MAX_ELEMS elements or more at `size`, as a message, or
 * NULL; a product naming no dimension is a course bug, said so. */
static const char *array_over_limit(const cml_exercise *ex, const long long *size, char *message,
                                    size_t cap) {
    for (const char *a = ex->arrays; a != NULL && *a != '\0';) {
        const size_t len = strcspn(a, ",");
        long long elems = 1;
        for (const char *f = a; f < a + len;) {
            const size_t n = strcspn(f, "*,");
            const int d = dim_index(ex, f, n);
            if (d < 0) {
                snprintf(message, cap,
                         "cml_exercise.arrays names no dimension '%.*s' (a course bug)", (int)n, f);
                return message;
            }
            elems = size[d] >= CML_MAX_ELEMS / elems + 1 ? CML_MAX_ELEMS : elems * size[d];
            f += n + (f[n] == '*');
        }
        if (elems >= CML_MAX_ELEMS) {
            snprintf(message, cap,
                     "%.*s is 2^31 elements or more: every array has fewer (lab.h), so that an int "
                     "index does not overflow",
                     (int)len, a);
            return message;
        }
        a += a[len] == ',' ? len + 1 : len;
    }
    return NULL;
}

const char *cml_size_over_limit(const cml_exercise *ex, const long long *size) {
    static char message[200];
    const char *name = ex->dim_names;
    for (int d = 0; d < ex->n_dims && d < CML_MAX_DIMS; ++d) {
        const size_t len = strcspn(name, ",");
        if (ex->dim_max[d] > 0 && size[d] > ex->dim_max[d]) {
            snprintf(message, sizeof message, "%.*s must be at most %lld (lab.h)", (int)len, name,
                     ex->dim_max[d]);
            return message;
        }
        name += name[len] == ',' ? len + 1 : len;
    }
    return array_over_limit(ex, size, message, sizeof message);
}

const char *cml_problem_setup(const cml_exercise *ex, cml_problem *p, const long long *size,
                              uint64_t seed) {
    memset(p, 0, sizeof *p);
    g_setup_no_host = NULL;
    g_setup_where[0] = '\0';
    const char *over = cml_size_over_limit(ex, size);
    if (over != NULL) {
        return over;
    }
    jmp_buf jump;
    const char *volatile message = NULL;
    g_setup_jump = &jump;
    g_zero_host_inputs = cml_devmem_importing() && (ex->flags & CML_EX_REFERENCE_ONLY_INPUTS);
    if (setjmp(jump) == 0) {
        message = ex->setup(p, size, seed);
    } else {
        message = g_setup_no_host; /* setup_no_host's */
    }
    g_setup_jump = NULL;
    g_zero_host_inputs = 0;
    free_owned(p, OWN_SCRATCH);
    if (message != NULL) {
        free_owned(p, OWN_EVERY);
        memset(p, 0, sizeof *p);
    }
    return message;
}

void cml_problem_release(const cml_exercise *ex, cml_problem *p) {
    if (ex->teardown != NULL && (p->ctx != NULL || p->owned != NULL)) {
        ex->teardown(p);
    }
    free_owned(p, OWN_EVERY);
    memset(p, 0, sizeof *p);
}

size_t cml_problem_owned(const cml_problem *p) {
    size_t n = 0;
    for (const struct cml_owned *o = p->owned; o != NULL; o = o->next) {
        ++n;
    }
    return n;
}

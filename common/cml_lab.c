/* cml_lab.c — the generic lab driver, main() of every lab harness (cml_lab.h).
 *
 * Reads as the harness contract does (docs/protocol.md): parse the command line; answer
 * --list / --device-info; else check the exercise and size, find a device, set up,
 * poison → launch → check launch → copy back → compare; with --time verify the baseline,
 * time student, baseline and copy interleaved, verify the student once more; write one
 * JSON run document. The document is written to PATH.tmp and renamed, so the grader never
 * reads half a document.
 *
 * Every failed CML_CHECK, here or in the exercise's code, ends in cml_lab_fail(), which writes
 * a complete document with status "error" from the run's context kept in `cml_run` below
 * (in the student's process of a judged run: an ERROR message to the judge instead).
 *
 * A judged run (--peer FD, the grader's) is cml_judge.c; the student's side of it (--serve
 * FD) is cml_worker.c; this file only dispatches to them.
 *
 * Source: docs/protocol.md; the allocate → initialise → launch → verify → free order of
 * NVIDIA cuda-samples; nvbench's report of work (GB/s, % of a measured roof).
 */
#define _GNU_SOURCE
#include "cml_lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cml_check.h"
#include "cml_device.h"
#include "cml_ipc.h"
#include "cml_json.h"
#include "cml_lab_internal.h"
#include "cml_launches.h"
#include "cml_options.h"
#include "cml_setup.h"
#include "cml_timing.h"

#include <unistd.h>

/* ---------------------------------------------------------------------------------------
 * The run's context (cml_lab_internal.h). */

cml_run_ctx cml_run;

/* The judge binary (build/<lab>/judge) links no student code: its launchers are stubs, and
 * its stub file (grader/stubs.py) defines cml_judge_build = 1. Other binaries do not define
 * it: a weak reference then has the address NULL. (A weak definition here would not do: the
 * compiler may fold a weak constant's value into this file.) */
extern const int cml_judge_build __attribute__((weak));
#define cml_judge_build (&cml_judge_build != NULL && cml_judge_build)

int cml_runs_student_code(void) {
    return cml_run.role != CML_ROLE_JUDGE;
}

int cml_run_timed(void) {
    return cml_run.timed;
}

/* ---------------------------------------------------------------------------------------
 * Exercise-specific metrics. A violation marks the set invalid (n = -1): the driver then
 * reports a harness error instead of a document with a half-written metrics object. */

/* The driver's own metric names: an exercise's extra metric may not take one. The only
 * definition: `lab --list` gives them to the grader ("metrics"). */
static const char *const reserved[] = {"bytes",         "flops",     "gbps",       "gflops",
                                       "baseline_gbps", "copy_gbps", "pct_of_copy"};

void cml_metrics_note(cml_metrics *m, const char *text) {
    if (m && text) {
        snprintf(m->note, sizeof m->note, "%s", text);
    }
}

int cml_metrics_add(cml_metrics *m, const char *name, double value) {
    if (!m || m->n < 0) {
        return -1;
    }
    size_t len = name ? strlen(name) : 0;
    int ok = len > 0 && len < CML_METRIC_NAME_MAX && m->n < CML_MAX_EXTRA_METRICS;
    for (size_t i = 0; ok && i < len; ++i) {
        char c = name[i];
        ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    }
    for (size_t i = 0; ok && i < sizeof reserved / sizeof reserved[0]; ++i) {
        ok = strcmp(name, reserved[i]) != 0;
    }
    for (int i = 0; ok && i < m->n; ++i) {
        ok = strcmp(name, m->name[i]) != 0;
    }
    if (!ok) {
        fprintf(stderr, "lab: invalid extra metric '%s'\n", name ? name : "(null)");
        m->n = -1;
        return -1;
    }
    memcpy(m->name[m->n], name, len + 1);
    m->value[m->n] = value;
    m->n += 1;
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * Writing a document. */

static void emit_dims(cml_json *w, const char *dim_names) {
    cml_json_begin_array(w);
    const char *s = dim_names;
    while (s && *s) {
        size_t len = strcspn(s, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, s);
        cml_json_string(w, name);
        s += len + (s[len] == ',');
    }
    cml_json_end_array(w);
}

static void emit_device(cml_json *w) {
    if (!cml_run.have_device) {
        cml_json_null(w);
        return;
    }
    const cml_device_facts *d = &cml_run.device;
    char cc[32];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    cml_json_begin_object(w);
    cml_json_key(w, "name");
    cml_json_string(w, d->name);
    cml_json_key(w, "cc");
    cml_json_string(w, cc);
    cml_json_key(w, "sm_count");
    cml_json_int(w, d->sm_count);
    cml_json_key(w, "l2_bytes");
    cml_json_uint(w, d->l2_bytes);
    cml_json_key(w, "smem_per_block_optin_bytes");
    cml_json_uint(w, d->smem_per_block_optin_bytes);
    cml_json_key(w, "global_mem_bytes");
    cml_json_uint(w, d->global_mem_bytes);
    cml_json_key(w, "clock_khz");
    cml_json_int(w, d->clock_khz);
    cml_json_end_object(w);
}

/* An attribute of the launch record: null when unknown (-1). */
static void emit_known(cml_json *w, long long x) {
    if (x < 0) {
        cml_json_null(w);
    } else {
        cml_json_int(w, x);
    }
}

/* A judged run's figure in milliseconds: null when not measured (-1). */
static void emit_known_ms(cml_json *w, double ms) {
    if (ms < 0) {
        cml_json_null(w);
    } else {
        cml_json_double(w, ms);
    }
}

static void emit_dim3(cml_json *w, const uint32_t v[3]) {
    cml_json_begin_array(w);
    for (int i = 0; i < 3; ++i) {
        cml_json_uint(w, v[i]);
    }
    cml_json_end_array(w);
}

/* error.launch: the failed launch from the lab's launch record (cml_launches.h) and the limit
 * it broke, checked against this process's device (the judge's, in a judged run). */
static void emit_launch(cml_json *w, const cml_launch_config *c) {
    char limit_message[512];
    const cml_limit limit = cml_launch_broken_limit(c, cml_run.have_device ? &cml_run.device : NULL,
                                                    limit_message, sizeof limit_message);
    cml_json_begin_object(w);
    cml_json_key(w, "kernel");
    cml_json_string(w, c->kernel[0] ? c->kernel : NULL);
    cml_json_key(w, "grid");
    emit_dim3(w, c->grid);
    cml_json_key(w, "block");
    emit_dim3(w, c->block);
    cml_json_key(w, "dynamic_smem_bytes");
    cml_json_uint(w, c->dynamic_smem_bytes);
    cml_json_key(w, "static_smem_bytes");
    emit_known(w, c->static_smem_bytes);
    cml_json_key(w, "registers");
    emit_known(w, c->registers);
    cml_json_key(w, "max_threads_per_block");
    emit_known(w, c->max_threads_per_block);
    cml_json_key(w, "max_dynamic_smem_bytes");
    emit_known(w, c->max_dynamic_smem_bytes);
    cml_json_key(w, "limit");
    cml_json_string(w, cml_limit_name(limit));
    cml_json_key(w, "limit_message");
    cml_json_string(w, limit == CML_LIMIT_NONE ? NULL : limit_message);
    cml_json_end_object(w);
}

static void emit_error(cml_json *w, const cml_doc *d) {
    if (!d->err_kind) {
        cml_json_null(w);
        return;
    }
    cml_json_begin_object(w);
    cml_json_key(w, "kind");
    cml_json_string(w, d->err_kind);
    cml_json_key(w, "message");
    cml_json_string(w, d->err_message);
    cml_json_key(w, "where");
    cml_json_string(w, d->err_where);
    cml_json_key(w, "expr");
    cml_json_string(w, d->err_expr);
    /* The judge's own failure (its CUDA calls, its set-up, its baseline), or one it relays from
     * the student's process (finish_remote_failure gives those a `judged`); a plain run's
     * errors are the run's own. */
    cml_json_key(w, "by");
    cml_json_string(w, cml_run.role == CML_ROLE_JUDGE && !d->judged ? "judge" : "run");
    if (d->launch) {
        cml_json_key(w, "launch");
        emit_launch(w, d->launch);
    }
    if (d->gpu_memory) { /* the judge's own figures, never the student's process's */
        cml_json_key(w, "gpu_memory");
        if (d->gpu_memory->known) {
            cml_json_begin_object(w);
            cml_json_key(w, "free_bytes");
            cml_json_uint(w, d->gpu_memory->free_bytes);
            cml_json_key(w, "total_bytes");
            cml_json_uint(w, d->gpu_memory->total_bytes);
            cml_json_end_object(w);
        } else {
            cml_json_null(w);
        }
    }
    cml_json_end_object(w);
}

static void emit_check(cml_json *w, const cml_doc *d) {
    const cml_compare_result *c = d->check;
    if (!c) {
        cml_json_null(w);
        return;
    }
    cml_json_begin_object(w);
    cml_json_key(w, "n");
    cml_json_uint(w, c->n);
    cml_json_key(w, "rows");
    cml_json_uint(w, c->rows);
    cml_json_key(w, "cols");
    cml_json_uint(w, c->cols);
    cml_json_key(w, "n_bad");
    cml_json_uint(w, c->n_bad);
    cml_json_key(w, "n_unwritten");
    cml_json_uint(w, c->n_unwritten);
    cml_json_key(w, "n_nonfinite");
    cml_json_uint(w, c->n_nonfinite);
    cml_json_key(w, "max_abs_err");
    cml_json_double(w, c->max_abs_err);
    cml_json_key(w, "rel_l2_err");
    cml_json_double(w, c->rel_l2_err);
    cml_json_key(w, "gamma");
    cml_json_double(w, d->problem->gamma);
    cml_json_key(w, "abs_floor");
    cml_json_double(w, d->problem->abs_floor);
    if (d->judged) {
        cml_json_key(w, "phase");
        cml_json_string(w, d->judged->phase);
    }
    cml_json_key(w, "first_bad");
    if (c->n_bad == 0) {
        cml_json_null(w);
    } else {
        cml_json_begin_object(w);
        cml_json_key(w, "index");
        cml_json_int(w, c->first_bad);
        cml_json_key(w, "row");
        cml_json_uint(w, c->first_bad_row);
        cml_json_key(w, "col");
        cml_json_uint(w, c->first_bad_col);
        cml_json_key(w, "expected");
        cml_json_double(w, c->first_bad_expected);
        cml_json_key(w, "got");
        cml_json_double(w, c->first_bad_got); /* null when not finite */
        cml_json_key(w, "tol");
        cml_json_double(w, c->first_bad_tol);
        cml_json_key(w, "unwritten");
        cml_json_bool(w, d->first_bad_unwritten);
        cml_json_end_object(w);
    }
    cml_json_key(w, "bad_box");
    if (c->n_bad == 0) {
        cml_json_null(w);
    } else {
        cml_json_begin_object(w);
        cml_json_key(w, "row_min");
        cml_json_uint(w, c->bad_row_min);
        cml_json_key(w, "row_max");
        cml_json_uint(w, c->bad_row_max);
        cml_json_key(w, "col_min");
        cml_json_uint(w, c->bad_col_min);
        cml_json_key(w, "col_max");
        cml_json_uint(w, c->bad_col_max);
        cml_json_end_object(w);
    }
    cml_json_end_object(w);
}

static void emit_stats(cml_json *w, const cml_timing_stats *s) {
    cml_json_begin_object(w);
    cml_json_key(w, "median_ms");
    cml_json_double(w, s->median_ms);
    cml_json_key(w, "p10_ms");
    cml_json_double(w, s->p10_ms);
    cml_json_key(w, "p90_ms");
    cml_json_double(w, s->p90_ms);
    cml_json_end_object(w);
}

/* work / (median seconds) / 1e9: GB/s for bytes, GFLOP/s for flops. */
static double per_ns(double work, double median_ms) {
    return work / (median_ms * 1e6);
}

static void emit_extra_metrics(cml_json *w, const cml_metrics *m) {
    for (int i = 0; m && i < m->n; ++i) {
        cml_json_key(w, m->name[i]);
        cml_json_double(w, m->value[i]);
    }
}

static void emit_timing_and_metrics(cml_json *w, const cml_doc *d) {
    const cml_timing_stats *t = d->timing; /* [0] student, [1] baseline, [2] copy */
    cml_json_key(w, "timing");
    if (!t) {
        cml_json_null(w);
        cml_json_key(w, "metrics");
        if (d->extra && d->extra->n > 0) {
            cml_json_begin_object(w);
            emit_extra_metrics(w, d->extra);
            cml_json_end_object(w);
        } else {
            cml_json_null(w);
        }
        return;
    }
    cml_json_begin_object(w);
    cml_json_key(w, "reps");
    cml_json_int(w, t[0].reps);
    cml_json_key(w, "batch");
    cml_json_int(w, t[0].batch);
    cml_json_key(w, "student");
    emit_stats(w, &t[0]);
    cml_json_key(w, "baseline");
    emit_stats(w, &t[1]);
    cml_json_key(w, "copy");
    emit_stats(w, &t[2]);
    cml_json_key(w, "ratio");
    cml_json_double(w, t[1].median_ms / t[0].median_ms);
    if (d->judged) {
        cml_json_key(w, "method");
        cml_json_string(w, "judge");
        cml_json_key(w, "worker_overhead_ms");
        cml_json_double(w, d->judged->worker_overhead_ms);
        cml_json_key(w, "worker_overhead_alone_ms");
        emit_known_ms(w, d->judged->worker_overhead_alone_ms);
        cml_json_key(w, "empty_launch_alone_ms");
        emit_known_ms(w, d->judged->empty_launch_alone_ms);
        cml_json_key(w, "worker_overhead_subtracted_ms");
        emit_known_ms(w, d->judged->worker_overhead_subtracted_ms);
        cml_json_key(w, "under_overhead");
        cml_json_int(w, d->judged->under_overhead);
        cml_json_key(w, "input_sets");
        cml_json_int(w, d->judged->input_sets);
        cml_json_key(w, "fresh_inputs");
        cml_json_int(w, d->judged->fresh_inputs);
        cml_json_key(w, "verified_rep");
        cml_json_int(w, d->judged->verified_rep);
        cml_json_key(w, "baseline_reps");
        cml_json_int(w, t[1].reps);
        cml_json_key(w, "baseline_batch");
        cml_json_int(w, t[1].batch);
        cml_json_key(w, "baseline_alone_ms");
        emit_known_ms(w, d->judged->baseline_alone_ms);
        const double *phases[2] = {d->judged->phase_ms, d->judged->phase_cpu_ms};
        for (int k = 0; k < 2; ++k) {
            cml_json_key(w, k == 0 ? "phases_ms" : "phases_cpu_ms");
            cml_json_begin_object(w);
            for (int i = 0; i < CML_JUDGE_PHASES; ++i) {
                if (phases[k][i] >= 0) {
                    cml_json_key(w, cml_judge_phase_names[i]);
                    cml_json_double(w, phases[k][i]);
                }
            }
            cml_json_end_object(w);
        }
    }
    cml_json_end_object(w);

    double bytes = d->problem->bytes, flops = d->problem->flops;
    double gbps = per_ns(bytes, t[0].median_ms), copy_gbps = per_ns(bytes, t[2].median_ms);
    cml_json_key(w, "metrics");
    cml_json_begin_object(w);
    cml_json_key(w, "bytes");
    cml_json_double(w, bytes);
    cml_json_key(w, "flops");
    cml_json_double(w, flops);
    cml_json_key(w, "gbps");
    cml_json_double(w, gbps);
    cml_json_key(w, "gflops");
    cml_json_double(w, per_ns(flops, t[0].median_ms));
    cml_json_key(w, "baseline_gbps");
    cml_json_double(w, per_ns(bytes, t[1].median_ms));
    cml_json_key(w, "copy_gbps");
    cml_json_double(w, copy_gbps);
    cml_json_key(w, "pct_of_copy");
    cml_json_double(w, 100.0 * gbps / copy_gbps);
    emit_extra_metrics(w, d->extra);
    cml_json_end_object(w);
}

/* The run document (schema 1), or the shorter --device-info document. */
static void emit_document(cml_json *w, const cml_doc *d) {
    cml_json_begin_object(w);
    cml_json_key(w, "schema");
    cml_json_int(w, CML_SCHEMA_VERSION);
    cml_json_key(w, "lab");
    cml_json_string(w, cml_run.lab_id);
    if (cml_run.mode == CML_MODE_DEVICE_INFO) {
        cml_json_key(w, "status");
        cml_json_string(w, d->status);
        if (d->err_kind) {
            cml_json_key(w, "error");
            emit_error(w, d);
        }
        cml_json_key(w, "device");
        emit_device(w);
        cml_json_end_object(w);
        return;
    }
    cml_json_key(w, "exercise");
    cml_json_string(w, cml_run.exercise_name);
    cml_json_key(w, "size");
    cml_json_begin_array(w);
    for (int i = 0; i < cml_run.n_size; ++i) {
        cml_json_int(w, cml_run.size[i]);
    }
    cml_json_end_array(w);
    cml_json_key(w, "dims");
    if (cml_run.ex) {
        emit_dims(w, cml_run.ex->dim_names);
    } else {
        cml_json_null(w);
    }
    cml_json_key(w, "seed");
    cml_json_uint(w, cml_run.seed);
    cml_json_key(w, "judged");
    /* every document of the judge's, its own errors too (the grader tells them apart) */
    cml_json_bool(w, d->judged != NULL || cml_run.role == CML_ROLE_JUDGE);
    cml_json_key(w, "status");
    cml_json_string(w, d->status);
    cml_json_key(w, "error");
    emit_error(w, d);
    cml_json_key(w, "check");
    emit_check(w, d);
    emit_timing_and_metrics(w, d);
    cml_json_key(w, "metrics_note");
    if (d->extra && d->extra->note[0] != '\0') {
        cml_json_string(w, d->extra->note);
    } else {
        cml_json_null(w);
    }
    cml_json_key(w, "device");
    emit_device(w);
    cml_json_end_object(w);
}

static void emit_list(cml_json *w, const cml_exercise *exercises, int n_exercises) {
    cml_json_begin_object(w);
    cml_json_key(w, "schema");
    cml_json_int(w, CML_SCHEMA_VERSION);
    cml_json_key(w, "lab");
    cml_json_string(w, cml_run.lab_id);
    cml_json_key(w, "min_reps");
    cml_json_int(w, CML_MIN_REPS);
    cml_json_key(w, "metrics");
    cml_json_begin_array(w);
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; ++i) {
        cml_json_string(w, reserved[i]);
    }
    cml_json_end_array(w);
    cml_json_key(w, "exercises");
    cml_json_begin_array(w);
    for (int i = 0; i < n_exercises; ++i) {
        cml_json_begin_object(w);
        cml_json_key(w, "name");
        cml_json_string(w, exercises[i].name);
        cml_json_key(w, "dims");
        emit_dims(w, exercises[i].dim_names);
        cml_json_key(w, "dim_max");
        cml_json_begin_array(w);
        for (int d = 0; d < exercises[i].n_dims && d < CML_MAX_DIMS; ++d) {
            if (exercises[i].dim_max[d] > 0) {
                cml_json_int(w, exercises[i].dim_max[d]);
            } else {
                cml_json_null(w);
            }
        }
        cml_json_end_array(w);
        cml_json_key(w, "arrays");
        emit_dims(w, exercises[i].arrays ? exercises[i].arrays : ""); /* a comma list */
        cml_json_key(w, "baseline");
        cml_json_string(w, exercises[i].baseline);
        cml_json_key(w, "launchers");
        emit_dims(w, exercises[i].launchers); /* a comma-separated list, as dim_names */
        cml_json_key(w, "kernel");
        cml_json_string(w, exercises[i].kernel);
        cml_json_end_object(w);
    }
    cml_json_end_array(w);
    cml_json_end_object(w);
}

/* Writes one document (emit_document or emit_list) to --json PATH through PATH.tmp and a
 * rename, or to standard output. Returns 0, or -1 after saying why on stderr. */
static int write_output(const cml_doc *d, const cml_exercise *exercises, int n_exercises) {
    FILE *f = stdout;
    char *tmp = NULL;
    if (cml_run.json_path && cml_run.append_docs) { /* one document per line, in order */
        f = fopen(cml_run.json_path, "a");
        if (!f) {
            perror(cml_run.json_path);
            return -1;
        }
    } else if (cml_run.json_path) {
        size_t len = strlen(cml_run.json_path) + sizeof ".tmp";
        tmp = malloc(len);
        if (!tmp) {
            fprintf(stderr, "lab: out of memory\n");
            return -1;
        }
        snprintf(tmp, len, "%s.tmp", cml_run.json_path);
        f = fopen(tmp, "w");
        if (!f) {
            perror(tmp);
            free(tmp);
            return -1;
        }
    }
    cml_json w;
    cml_json_init(&w, f);
    if (d) {
        emit_document(&w, d);
    } else {
        emit_list(&w, exercises, n_exercises);
    }
    fputc('\n', f);
    int rc = cml_json_finish(&w);
    if (f != stdout && !tmp) {
        rc |= fclose(f);
    }
    if (tmp) {
        rc |= fclose(f);
        if (rc == 0 && rename(tmp, cml_run.json_path) != 0) {
            perror(cml_run.json_path);
            rc = -1;
        }
        free(tmp);
    }
    if (rc != 0) {
        fprintf(stderr, "lab: could not write the run document\n");
        return -1;
    }
    return 0;
}

int cml_lab_write(const cml_doc *d) {
    return write_output(d, NULL, 0) == 0 ? CML_EXIT_OK : CML_EXIT_USAGE;
}

int cml_lab_finish_error(const char *kind, const char *message, int code) {
    cml_doc d = {.status = "error", .err_kind = kind, .err_message = message};
    return write_output(&d, NULL, 0) == 0 ? code : CML_EXIT_USAGE;
}

/* ---------------------------------------------------------------------------------------
 * Failure paths. */

void cml_where(char *out, size_t size, const char *file, int line) {
    const char *base = strrchr(file, '/');
    snprintf(out, size, "%s:%d", base ? base + 1 : file, line);
}

void cml_lab_fail(cudaError_t err, const char *expr, const char *file, int line) {
    char where[256];
    cml_where(where, sizeof where, file, line);
    const char *message = cml_fail_message(err); /* CUDA's words, or a course check's */
    fprintf(stderr, "lab: %s: %s failed: %s\n", where, expr, message);
    /* The launch call that returned this error, when one did (the lab's launch record). */
    cml_launch_config launch;
    const int have_launch = cml_launches_failed(err, &launch);
    if (have_launch) {
        fprintf(stderr, "lab: the launch of %s<<<(%u, %u, %u), (%u, %u, %u), %llu>>> returned it\n",
                launch.kernel[0] ? launch.kernel : "a kernel", launch.grid[0], launch.grid[1],
                launch.grid[2], launch.block[0], launch.block[1], launch.block[2],
                (unsigned long long)launch.dynamic_smem_bytes);
    }
    if (cml_run.role == CML_ROLE_WORKER || cml_run.role == CML_ROLE_NULL) {
        cml_ipc_send_error(cml_run.peer_fd, cml_run.in_launch ? "launch" : "cuda", message, where,
                           expr, have_launch ? &launch : NULL);
        _exit(CML_EXIT_FAILED);
    }
    cml_doc d = {.status = "error",
                 .err_kind = cml_run.in_launch ? "launch" : "cuda",
                 .err_message = message,
                 .err_where = where,
                 .err_expr = expr,
                 .launch = have_launch ? &launch : NULL};
    write_output(&d, NULL, 0);
    exit(CML_EXIT_FAILED);
}

/* A failure of the driver's that is no CUDA call's (cml_lab_fail_host, cml_lab_fail_harness):
 * status "error", `kind`, `message`, where file:line, expr null; for the student's process an
 * ERROR of that kind to the judge. Exits with 4. */
static void fail_without_cuda(const char *kind, const char *message, const char *file, int line) {
    char where[256];
    cml_where(where, sizeof where, file, line);
    fprintf(stderr, "lab: %s: %s\n", where, message);
    if (cml_run.role == CML_ROLE_WORKER || cml_run.role == CML_ROLE_NULL) {
        /* the judge relays it as the process's own failure (kind "worker", cml_judge.c) */
        cml_ipc_send_error(cml_run.peer_fd, kind, message, where, NULL, NULL);
        _exit(CML_EXIT_FAILED);
    }
    cml_doc d = {.status = "error", .err_kind = kind, .err_message = message, .err_where = where};
    write_output(&d, NULL, 0);
    exit(CML_EXIT_FAILED);
}

void cml_lab_fail_host(const char *message, const char *file, int line) {
    fail_without_cuda("host", message, file, line);
}

void cml_lab_fail_harness(const char *message, const char *file, int line) {
    fail_without_cuda("harness", message, file, line);
}

float *cml_lab_result_alloc(size_t n, int page_locked) {
    void *h = NULL;
    if (page_locked) {
        CML_CHECK_PINNED(cudaHostAlloc(&h, n * sizeof(float), cudaHostAllocDefault));
    } else if ((h = malloc(n * sizeof(float))) == NULL) {
        /* the host's memory, not a course bug (kind "harness" before design note 84's
         * follow-up) */
        cml_lab_fail_host("out of host memory for the result", __FILE__, __LINE__);
    }
    return (float *)h;
}

int cml_lab_setup_failed(const char *message) {
    if (!cml_setup_ran_out_of_host(message)) {
        return cml_lab_finish_error("setup", message, CML_EXIT_USAGE);
    }
    /* a page-locked allocation's names its caller's line (CML_CHECK_PINNED), as outside it */
    cml_doc d = {.status = "error",
                 .err_kind = "host",
                 .err_message = message,
                 .err_where = cml_setup_failed_where(message)};
    return write_output(&d, NULL, 0) == 0 ? CML_EXIT_FAILED : CML_EXIT_USAGE;
}

static int usage_error(const char *message) {
    fprintf(stderr, "lab: %s\n%s", message, cml_usage());
    return cml_lab_finish_error("usage", message, CML_EXIT_USAGE);
}

int cml_lab_no_device(void) {
    fprintf(stderr, "lab: no CUDA device\n");
    cml_doc d = {.status = "no_device"};
    return write_output(&d, NULL, 0) == 0 ? CML_EXIT_NO_DEVICE : CML_EXIT_USAGE;
}

/* --json's value when parsing stopped before it, so a usage error still lands there. */
static const char *json_path_from_argv(int argc, char **argv) {
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            return argv[i + 1];
        }
        if (strncmp(argv[i], "--json=", 7) == 0 && argv[i][7] != '\0') {
            return argv[i] + 7;
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------------
 * The cml_run. */

const char *cml_lab_problem_error(const cml_problem *p) {
    if (!p->d_out || p->n_out == 0) {
        return "setup() gave no output buffer (d_out, n_out)";
    }
    if (p->out_cols == 0 || p->n_out % p->out_cols != 0) {
        return "setup() gave out_cols that do not divide n_out";
    }
    if (!p->h_ref) {
        return "setup() gave no reference (h_ref)";
    }
    if (p->d_raw && (p->raw_bytes == 0 || p->out_ref || !cml_run.ex || !cml_run.ex->finish)) {
        return "setup() gave d_raw without raw_bytes, with out_ref, or for an exercise without "
               "finish()";
    }
    if (p->check_idx) {
        if (p->n_check == 0) {
            return "setup() gave check_idx with n_check = 0";
        }
        for (size_t i = 0; i < p->n_check; ++i) {
            if (p->check_idx[i] >= p->n_out) {
                return "setup() gave a check_idx position outside the output";
            }
        }
    }
    return NULL;
}

double cml_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void cml_lab_poison(const cml_problem *p) {
    CML_CHECK(cudaMemsetAsync(p->d_out, CML_POISON_BYTE, p->n_out * sizeof(float), 0));
    if (p->d_raw) {
        CML_CHECK(cudaMemsetAsync(p->d_raw, p->raw_poison, p->raw_bytes, 0));
    }
}

void cml_lab_finish_launch(const cml_problem *p, double run_ms) {
    if (cml_run.ex && cml_run.ex->finish) {
        cml_run.ex->finish(p->ctx, run_ms);
        CML_CHECK(cudaDeviceSynchronize());
    }
}

/* One verified run: poison, launch, check the launch, finish, copy back, compare. */
void cml_lab_verify(void (*launch)(void *), const cml_problem *p, float *h_got,
                    cml_compare_result *check) {
    cml_lab_poison(p);
    CML_CHECK(cudaDeviceSynchronize());
    cml_launches_reset();
    const double t0 = cml_now_ms();
    launch(p->ctx);
    cml_run.in_launch = 1;
    CML_CHECK_LAUNCH();
    cml_run.in_launch = 0;
    cml_lab_finish_launch(p, cml_now_ms() - t0);
    CML_CHECK(cudaMemcpy(h_got, p->d_out, p->n_out * sizeof(float), cudaMemcpyDeviceToHost));
    cml_lab_compare(p, h_got, check);
}

double (*cml_part_timer)(int part);

double cml_time_part(int part) {
    if (cml_part_timer == NULL) {
        fprintf(stderr, "lab: cml_time_part outside extra_metrics (a course bug)\n");
        abort();
    }
    return cml_part_timer(part);
}

/* A plain run's part: launched and synchronised in this process. */
static double time_part_here(int part) {
    const cml_exercise *ex = cml_run.ex;
    CML_CHECK(cudaDeviceSynchronize());
    cml_launches_reset();
    const double t0 = cml_now_ms();
    cml_run.in_launch = 1;
    ex->launch_part(cml_run.part_ctx, part);
    CML_CHECK_LAUNCH();
    cml_run.in_launch = 0;
    return cml_now_ms() - t0;
}

void cml_lab_compare(const cml_problem *p, const float *h_got, cml_compare_result *check) {
    size_t n = p->check_idx ? p->n_check : p->n_out;
    cml_compare_f32(h_got, p->n_out, p->out_cols, p->check_idx, p->h_ref, p->h_mag, n, p->gamma,
                    p->abs_floor, check);
}

/* The copy roof: a device-to-device copy of bytes/2, which reads and writes `bytes`. */
typedef struct copy_ctx {
    void *d_dst, *d_src;
    size_t n_bytes;
} copy_ctx;

static void launch_copy(void *ctx) {
    const copy_ctx *c = ctx;
    (void)cudaMemcpyAsync(c->d_dst, c->d_src, c->n_bytes, cudaMemcpyDeviceToDevice, 0);
}

/* Times student, baseline and copy interleaved; stats[0..3) in that order. */
static void time_contenders(const cml_exercise *ex, const cml_problem *p, int reps,
                            cml_timing_stats stats[3]) {
    copy_ctx copy = {.n_bytes = p->bytes > 2.0 ? (size_t)(p->bytes / 2.0) : 1};
    CML_CHECK(cudaMalloc(&copy.d_dst, copy.n_bytes));
    CML_CHECK(cudaMalloc(&copy.d_src, copy.n_bytes));
    CML_CHECK(cudaMemset(copy.d_src, 0, copy.n_bytes));

    cml_contender contenders[3] = {{"student", ex->launch_student, p->ctx, ex->prepare_student},
                                   {"baseline", ex->launch_baseline, p->ctx, ex->prepare_baseline},
                                   {"copy", launch_copy, &copy, NULL}};
    cml_timing_opts opts = cml_timing_defaults();
    opts.reps = reps;
    cml_run.in_launch = 1; /* a failure here is one of the contenders' launches */
    CML_CHECK(cml_time_interleaved(contenders, 3, &opts, stats));
    cml_run.in_launch = 0;

    CML_CHECK(cudaFree(copy.d_dst));
    CML_CHECK(cudaFree(copy.d_src));
}

const cml_exercise *cml_lab_find_exercise(const char *name, const cml_exercise *exercises,
                                          int n_exercises) {
    for (int i = 0; name && i < n_exercises; ++i) {
        if (strcmp(exercises[i].name, name) == 0) {
            return &exercises[i];
        }
    }
    return NULL;
}

static int plain_case(const cml_options *opt, const cml_exercise *ex, const long long *size,
                      uint64_t seed);

static int run_exercise(const cml_options *opt, const cml_exercise *exercises, int n_exercises) {
    char message[512];
    const cml_exercise *ex = cml_run.ex;
    if (!ex) {
        int len =
            snprintf(message, sizeof message, "unknown exercise '%s' (exercises:", opt->exercise);
        for (int i = 0; i < n_exercises && len > 0 && (size_t)len < sizeof message; ++i) {
            len += snprintf(message + len, sizeof message - (size_t)len, " %s", exercises[i].name);
        }
        if (len > 0 && (size_t)len < sizeof message) {
            snprintf(message + len, sizeof message - (size_t)len, ")");
        }
        return usage_error(message);
    }
    if (opt->n_size != ex->n_dims) {
        snprintf(message, sizeof message, "exercise %s takes %d sizes (%s), got %d", ex->name,
                 ex->n_dims, ex->dim_names, opt->n_size);
        return usage_error(message);
    }
    if (opt->peer_fd >= 0 && !cml_judge_build) {
        return usage_error("--peer: only the judge (build/<lab>/judge, no student code) runs a "
                           "judged case; this binary holds the student's code");
    }
    if (opt->peer_fd < 0 && cml_judge_build) {
        return usage_error("the judge runs a case only with --peer FD (a judged run, the "
                           "grader's); run the lab binary itself for a plain run");
    }
    /* --case EX:...: every case's exercise and number of sizes, before any case runs (a size
     * the exercise rejects is found when its case runs) */
    static const cml_exercise *case_ex[CML_MAX_CASES];
    for (int k = 0; k < opt->n_cases; ++k) {
        case_ex[k] = opt->case_exercise[k][0]
                         ? cml_lab_find_exercise(opt->case_exercise[k], exercises, n_exercises)
                         : ex;
        if (!case_ex[k]) {
            snprintf(message, sizeof message, "--case %s:...: no such exercise",
                     opt->case_exercise[k]);
            return usage_error(message);
        }
        if (opt->case_n_size[k] != case_ex[k]->n_dims) {
            snprintf(message, sizeof message, "--case %d: exercise %s takes %d sizes (%s), got %d",
                     k + 1, case_ex[k]->name, case_ex[k]->n_dims, case_ex[k]->dim_names,
                     opt->case_n_size[k]);
            return usage_error(message);
        }
    }
    /* --info-baseline EX: an exercise this run times (a name that is none would be a grader's
     * slip that times every baseline in full, unseen) */
    for (int i = 0; i < opt->n_info_baselines; ++i) {
        int named = opt->n_cases == 0 && strcmp(opt->info_baseline[i], ex->name) == 0;
        for (int k = 0; k < opt->n_cases && !named; ++k) {
            named = strcmp(case_ex[k]->name, opt->info_baseline[i]) == 0;
        }
        if (!named) {
            snprintf(message, sizeof message, "--info-baseline %s: no exercise of this run",
                     opt->info_baseline[i]);
            return usage_error(message);
        }
    }
    /* the judge's run or a plain one, before any context; a gated judge's set-up (a batch's
     * or a lone grade's pipeline: beside untimed runs) waits blocking like an untimed run's,
     * and spins from its gate (cml_judge.c, design note 55) */
    cml_device_schedule(opt->time && !opt->gate);
    if (opt->peer_fd >= 0) {
        cml_run.role = CML_ROLE_JUDGE;
        cml_run.peer_fd = opt->peer_fd;
        return cml_judge_run(opt, ex, case_ex);
    }
    if (cml_device_count() == 0) {
        return cml_lab_no_device();
    }
    CML_CHECK(cml_device_query(&cml_run.device));
    cml_run.have_device = 1;
    if (opt->n_cases == 0) {
        return plain_case(opt, ex, opt->size, opt->seed);
    }
    /* --case ... --json PATH: the cases one after the other, each document a line of PATH
     * (compute-sanitizer's runs: one process per tool, over one exercise's cases or over the
     * lab's, grader/sanitizer.py); case k is of exercise case_ex[k] */
    cml_run.append_docs = 1;
    for (int k = 0; k < opt->n_cases; ++k) {
        cml_run.ex = case_ex[k];
        cml_run.exercise_name = case_ex[k]->name;
        cml_run.n_size = opt->case_n_size[k];
        memcpy(cml_run.size, opt->case_size[k], sizeof cml_run.size);
        cml_run.seed = opt->case_seed[k];
        const int code = plain_case(opt, case_ex[k], opt->case_size[k], opt->case_seed[k]);
        if (code != CML_EXIT_OK) {
            return code;
        }
    }
    return CML_EXIT_OK;
}

/* One case of a plain run: set up, launch, verify (and time with --time), write its
 * document. */
static int plain_case(const cml_options *opt, const cml_exercise *ex, const long long *size,
                      uint64_t seed) {
    cml_problem p;
    const char *setup_message = cml_problem_setup(ex, &p, size, seed);
    if (setup_message) {
        fprintf(stderr, "lab: %s: %s\n", ex->name, setup_message);
        return cml_lab_setup_failed(setup_message);
    }
    const char *bug = cml_lab_problem_error(&p);
    if (bug) {
        cml_problem_release(ex, &p);
        return cml_lab_finish_error("harness", bug, CML_EXIT_FAILED);
    }
    float *h_got = cml_lab_result_alloc(p.n_out, 0);

    cml_compare_result check;
    cml_lab_verify(ex->launch_student, &p, h_got, &check);

    cml_metrics extra = {0};
    if (check.n_bad == 0 && ex->extra_metrics) {
        cml_run.part_ctx = p.ctx;
        cml_part_timer = ex->launch_part ? time_part_here : NULL;
        ex->extra_metrics(p.ctx, &extra);
        cml_part_timer = NULL;
        if (extra.n < 0) {
            free(h_got);
            cml_problem_release(ex, &p);
            return cml_lab_finish_error(
                "harness", "the exercise added an invalid metric (a course bug, please report)",
                CML_EXIT_FAILED);
        }
    }

    cml_timing_stats stats[3];
    const cml_timing_stats *timing = NULL;
    if (opt->time && check.n_bad == 0 && ex->launch_baseline) {
        cml_compare_result baseline_check;
        cml_lab_verify(ex->launch_baseline, &p, h_got, &baseline_check);
        if (baseline_check.n_bad != 0) {
            free(h_got);
            cml_problem_release(ex, &p);
            return cml_lab_finish_error(
                "harness", "the baseline produced a wrong result (a course bug, please report)",
                CML_EXIT_FAILED);
        }
        time_contenders(ex, &p, opt->reps, stats);
        /* Once more after timing: a kernel must compute every time, not only the first. */
        cml_lab_verify(ex->launch_student, &p, h_got, &check);
        timing = check.n_bad == 0 ? stats : NULL;
    }

    cml_problem numbers = p; /* gamma, bytes, ... for the document, whatever teardown does */
    cml_doc d = {.status = check.n_bad == 0 ? "ok" : "wrong",
                 .check = &check,
                 .problem = &numbers,
                 .first_bad_unwritten =
                     check.n_bad > 0 && cml_is_poison_f32(h_got[check.first_bad]),
                 .timing = timing,
                 .extra = &extra};
    free(h_got);
    cml_problem_release(ex, &p);
    return write_output(&d, NULL, 0) == 0 ? CML_EXIT_OK : CML_EXIT_USAGE;
}

static int device_info(void) {
    if (cml_device_count() == 0) {
        return cml_lab_no_device();
    }
    CML_CHECK(cml_device_query(&cml_run.device));
    cml_run.have_device = 1;
    cml_doc d = {.status = "ok"};
    return write_output(&d, NULL, 0) == 0 ? CML_EXIT_OK : CML_EXIT_USAGE;
}

int cml_lab_main(int argc, char **argv, const char *lab_id, const cml_exercise *exercises,
                 int n_exercises) {
    memset(&cml_run, 0, sizeof cml_run);
    cml_run.lab_id = lab_id;
    cml_run.peer_fd = -1;

    cml_options opt;
    char message[256];
    int parsed = cml_parse_options(argc, argv, &opt, message, (int)sizeof message);
    /* The context, also after a usage error: whatever was parsed before it. */
    cml_run.mode = parsed == 0 ? opt.mode : CML_MODE_RUN;
    cml_run.exercise_name = opt.exercise;
    cml_run.ex = cml_lab_find_exercise(opt.exercise, exercises, n_exercises);
    cml_run.n_size = opt.n_size;
    memcpy(cml_run.size, opt.size, sizeof cml_run.size);
    cml_run.seed = opt.seed;
    cml_run.json_path = opt.json_path ? opt.json_path : json_path_from_argv(argc, argv);
    if (parsed != 0) {
        return usage_error(message);
    }
    cml_run.timed = opt.time != 0;

    cml_fail_fn old_handler = cml_set_fail_handler(cml_lab_fail);
    int code;
    switch (opt.mode) {
    case CML_MODE_HELP:
        fputs(cml_usage(), stdout);
        code = CML_EXIT_OK;
        break;
    case CML_MODE_LIST:
        code = write_output(NULL, exercises, n_exercises) == 0 ? CML_EXIT_OK : CML_EXIT_USAGE;
        break;
    case CML_MODE_DEVICE_INFO:
        code = device_info();
        break;
    case CML_MODE_SERVE:
        if (cml_judge_build) {
            code = usage_error("--serve: the judge holds no student code to serve");
            break;
        }
        cml_run.role = CML_ROLE_WORKER;
        cml_run.peer_fd = opt.peer_fd;
        code = cml_worker_serve(opt.peer_fd, exercises, n_exercises);
        break;
    case CML_MODE_SERVE_NULL:
        cml_run.role = CML_ROLE_NULL;
        cml_run.peer_fd = opt.peer_fd;
        code = cml_judge_serve_null(opt.peer_fd);
        break;
    default:
        code = run_exercise(&opt, exercises, n_exercises);
        break;
    }
    cml_set_fail_handler(old_handler);
    return code;
}

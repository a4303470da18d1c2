/* cml_sample.c — the positions a harness checks and their reference arrays (cml_sample.h).
 *
 * Lifted from the copies that labs 3.1 and 3.3 each had in reference.c (sample_positions) and
 * harness.cu (check_set_*); the positions are the same for the same sizes, bands and
 * generator state (tests/test_sample.c pins some).
 */
#include "cml_sample.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cml_hostmem.h"

static int compare_size_t(const void *a, const void *b) {
    const size_t x = *(const size_t *)a;
    const size_t y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static size_t min_size(size_t a, size_t b) {
    return a < b ? a : b;
}

size_t *cml_sample_positions(size_t rows, size_t cols, const cml_sample_spec *spec, cml_rng *rng,
                             size_t *n) {
    const size_t n_out = rows * cols;
    const size_t first_rows = min_size(spec->first_rows, rows);   /* rows [0, first_rows) in full */
    const size_t bottom = rows - min_size(spec->last_rows, rows); /* rows [bottom, rows) in full */
    const size_t first_col = cols - min_size(spec->last_cols, cols); /* [first_col, cols) always */
    const size_t left = min_size(spec->first_cols, first_col);       /* [0, left) always */
    const size_t n_random = n_out > 0 ? spec->n_random : 0;

    const size_t n_full_rows = first_rows >= bottom ? rows : first_rows + (rows - bottom);
    const size_t n_band = n_full_rows * cols + (rows - n_full_rows) * (left + cols - first_col);
    if (n_random > SIZE_MAX / sizeof(size_t) - n_band) {
        return NULL; /* the list could not be allocated anyway */
    }
    const size_t n_max = n_band + n_random;
    size_t *idx = malloc((n_max > 0 ? n_max : 1) * sizeof *idx);
    if (idx == NULL) {
        return NULL;
    }

    size_t count = 0;
    for (size_t r = 0; r < rows; ++r) {
        const int full = r < first_rows || r >= bottom;
        for (size_t c = 0; c < (full ? 0 : left); ++c) {
            idx[count++] = r * cols + c;
        }
        for (size_t c = full ? 0 : first_col; c < cols; ++c) {
            idx[count++] = r * cols + c;
        }
    }
    for (size_t i = 0; i < n_random; ++i) {
        idx[count++] = (size_t)cml_rng_below(rng, (uint64_t)n_out);
    }

    qsort(idx, count, sizeof *idx, compare_size_t);
    size_t n_unique = 0;
    for (size_t i = 0; i < count; ++i) {
        if (n_unique == 0 || idx[i] != idx[n_unique - 1]) {
            idx[n_unique++] = idx[i];
        }
    }
    *n = n_unique;
    return idx;
}

/* The driver's settings for the sample's random positions (cml_check_set_secret, _minimal). */
static cml_rng *check_secret;
static int check_minimal;
static int check_light;

void cml_check_set_secret(cml_rng *secret) {
    check_secret = secret;
}

void cml_check_set_minimal(int on) {
    check_minimal = on;
}

void cml_check_set_light(int on) {
    check_light = on;
}

/* Moves rng past the draws cml_sample_positions(rows, cols, spec, rng, ...) makes, without
 * the list (its random positions are its only draws). */
static void skip_sample_draws(size_t rows, size_t cols, const cml_sample_spec *spec,
                              cml_rng *rng) {
    const size_t n_out = rows * cols;
    for (size_t i = 0; n_out > 0 && i < spec->n_random; ++i) {
        (void)cml_rng_below(rng, (uint64_t)n_out);
    }
}

int cml_check_set_init(cml_check_set *s, size_t rows, size_t cols, const cml_sample_spec *sample,
                       int with_mag, cml_rng *rng) {
    memset(s, 0, sizeof *s);
    s->n = rows * cols;
    if (sample != NULL) {
        /* The caller's generator moves past the sample's draws in every mode, so that what the
         * caller draws afterwards (inputs) is the same in the judge, the student's process and
         * a plain run. Where the positions come from elsewhere (the judge's secret, and then
         * a light list where it asks for one) or nobody compares them, the caller's list is
         * not built, only its draws made (issue 15: up to 590 000 positions sorted, some four
         * times a timed exercise's set-up). */
        const int secret = check_secret && !check_minimal;
        if (secret || check_minimal) {
            skip_sample_draws(rows, cols, sample, rng);
        } else {
            s->idx = cml_sample_positions(rows, cols, sample, rng, &s->n);
        }
        if (secret) {
            static const cml_sample_spec light = {0, 0, 0, 0, CML_CHECK_LIGHT_RANDOM};
            const int use_light = check_light && rows * cols > CML_CHECK_LIGHT_RANDOM;
            s->idx = cml_sample_positions(rows, cols, use_light ? &light : sample, check_secret,
                                          &s->n);
        }
        if (s->idx == NULL && !check_minimal) {
            s->n = 0;
            return 0;
        }
    }
    if (check_minimal) { /* a sample or every position, but nobody compares: position 0 */
        free(s->idx);
        s->n = rows * cols > 0 ? 1 : 0;
        s->idx = calloc(1, sizeof *s->idx);
        if (s->idx == NULL) {
            s->n = 0;
            return 0;
        }
    }
    const size_t n_alloc = s->n > 0 ? s->n : 1; /* malloc(0) may return NULL */
    s->ref = malloc(n_alloc * sizeof *s->ref);
    (void)cml_hugepage_hint(s->ref, n_alloc * sizeof *s->ref); /* 512 MiB for 2^26 positions */
    if (with_mag) {
        s->mag = malloc(n_alloc * sizeof *s->mag);
        (void)cml_hugepage_hint(s->mag, n_alloc * sizeof *s->mag);
    }
    if (s->ref == NULL || (with_mag && s->mag == NULL)) {
        cml_check_set_free(s);
        return 0;
    }
    return 1;
}

void cml_check_set_publish(const cml_check_set *s, cml_problem *p) {
    p->check_idx = s->idx;
    p->n_check = s->idx != NULL ? s->n : 0;
    p->h_ref = s->ref;
    p->h_mag = s->mag;
}

void cml_check_set_free(cml_check_set *s) {
    free(s->idx);
    free(s->ref);
    free(s->mag);
    memset(s, 0, sizeof *s);
}

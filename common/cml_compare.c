/* cml_compare.c — float32 results against a float64 reference (cml_compare.h).
 *
 * Source: Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., §3.1
 * (gamma_K, eq. 3.8); poison detection by bit pattern, as compute-sanitizer's initcheck
 * does for memory, but on the result.
 */
#include "cml_compare.h"

#include <float.h>
#include <math.h>
#include <string.h>

double cml_gamma_f32(double k) {
    double ku = k * CML_UNIT_ROUNDOFF_F32;
    if (!(k > 0)) {
        return 0.0;
    }
    if (ku >= 1.0) {
        return INFINITY;
    }
    return ku / (1.0 - ku);
}

int cml_is_poison_f32(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits); /* the bit pattern; a NaN never compares equal */
    return bits == CML_POISON_BITS;
}

void cml_poison_host_f32(float *h, size_t n) {
    memset(h, CML_POISON_BYTE, n * sizeof *h);
}

/* 1 when every got[i] is finite and equals ref[i], i < n: an exact comparison that passes (a data
 * movement's whole output, lab 3.3's transpose: 67 M elements) in one pass without branches,
 * which the compiler vectorises; the full loop then finds nothing to report. */
static int all_equal_and_finite(const float *got, const double *ref, size_t n) {
    int differ = 0;
    for (size_t i = 0; i < n; ++i) {
        const double g = got[i];
        differ |= (g != ref[i]) | !(fabs(g) <= FLT_MAX); /* NaN and the poison fail both */
    }
    return !differ;
}

void cml_compare_f32(const float *got, size_t n_got, size_t cols, const size_t *idx,
                     const double *ref, const double *mag, size_t n, double gamma, double abs_floor,
                     cml_compare_result *out) {
    memset(out, 0, sizeof *out);
    if (cols == 0) {
        cols = n_got > 0 ? n_got : 1;
    }
    out->n = n;
    out->cols = cols;
    out->rows = n_got / cols;
    out->first_bad = -1;
    /* Tolerance 0 and every element equal: no error, no bad element (rel_l2_err 0 either way) */
    if (idx == NULL && mag == NULL && gamma == 0.0 && abs_floor == 0.0 &&
        all_equal_and_finite(got, ref, n)) {
        return;
    }

    double err2 = 0.0, ref2 = 0.0; /* sums of squares for the relative L2 error */
    for (size_t i = 0; i < n; ++i) {
        size_t pos = idx ? idx[i] : i;
        float g = got[pos];
        double r = ref[i];
        double tol = gamma * (mag ? mag[i] : fabs(r)) + abs_floor;
        int bad;
        if (cml_is_poison_f32(g)) {
            out->n_unwritten++;
            bad = 1;
        } else if (!isfinite(g)) {
            out->n_nonfinite++;
            bad = 1;
        } else {
            double err = fabs((double)g - r);
            if (err > out->max_abs_err) {
                out->max_abs_err = err;
            }
            err2 += err * err;
            ref2 += r * r;
            bad = !(err <= tol); /* a NaN reference or tolerance fails too */
        }
        if (!bad) {
            continue;
        }
        size_t row = pos / cols, col = pos % cols;
        if (out->n_bad == 0) {
            out->first_bad = (long long)pos;
            out->first_bad_row = row;
            out->first_bad_col = col;
            out->first_bad_expected = r;
            out->first_bad_got = g;
            out->first_bad_tol = tol;
            out->bad_row_min = out->bad_row_max = row;
            out->bad_col_min = out->bad_col_max = col;
        } else {
            out->bad_row_min = row < out->bad_row_min ? row : out->bad_row_min;
            out->bad_row_max = row > out->bad_row_max ? row : out->bad_row_max;
            out->bad_col_min = col < out->bad_col_min ? col : out->bad_col_min;
            out->bad_col_max = col > out->bad_col_max ? col : out->bad_col_max;
        }
        out->n_bad++;
    }
    if (ref2 > 0.0) {
        out->rel_l2_err = sqrt(err2) / sqrt(ref2);
    } else {
        out->rel_l2_err = err2 > 0.0 ? INFINITY : 0.0;
    }
}

/* reference.c — lab 3.2's CPU references (reference.h). Plain C11, pristine. */
#include "reference.h"

#include <math.h>

#include "lab.h" /* l2_persist_index, L2_PERSIST_GROUP */

/* float32 unit roundoff, 2^-24 (cml_compare.h's CML_UNIT_ROUNDOFF_F32). */
#define UNIT_ROUNDOFF_F32 5.9604644775390625e-08

double overlap_ref(double x, int steps, double a) {
    return pow(a, (double)steps) * (x - 1.0) + 1.0;
}

double overlap_ref_iterate(double x, int steps, double a) {
    const double b = 1.0 - a;
    double y = x;
    for (int k = 0; k < steps; ++k) {
        y = a * y + b;
    }
    return y;
}

double overlap_tol(double x, int steps) {
    const double m = fabs(x) > 1.0 ? fabs(x) : 1.0;
    return 2.0 * (double)steps * UNIT_ROUNDOFF_F32 * m;
}

float overlap_f32(float x, int steps, float a, int fused) {
    const float b = 1.0f - a;
    volatile float y = x; /* volatile: every step rounded to float32, none contracted */
    for (int k = 0; k < steps; ++k) {
        if (fused) {
            y = fmaf(y, a, b);
        } else {
            volatile float t = y * a;
            y = t + b;
        }
    }
    return y;
}

double unified_weight(size_t i) {
    return 0.5 + (double)(i % UNIFIED_WEIGHT_PERIOD) / 256.0;
}

double unified_ref(double x, size_t i) {
    return x * unified_weight(i);
}

double zero_copy_ref(double x, double scale) {
    return scale * x;
}

double async_copy_ref(const float *x, size_t n, size_t i, int w, double *mag) {
    double sum = 0.0, abs_sum = 0.0;
    for (int k = 0; k < w && i + (size_t)k < n; ++k) {
        sum += (double)x[i + (size_t)k];
        abs_sum += fabs((double)x[i + (size_t)k]);
    }
    if (mag != NULL) {
        *mag = abs_sum;
    }
    return sum;
}

double l2_persist_ref(const float *x, const float *table, size_t table_n, size_t i, double *mag) {
    const unsigned int j =
        l2_persist_index((unsigned long long)(i / L2_PERSIST_GROUP), (unsigned long long)table_n);
    const double product = (double)x[i] * (double)table[j];
    if (mag != NULL) {
        *mag = fabs(product);
    }
    return product;
}

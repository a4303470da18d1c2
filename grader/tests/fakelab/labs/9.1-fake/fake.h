/* fake.h — the fake lab's launchers (grader/tests/fakelab/README.md). */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* out = 2 * in + 1 over (rows, cols) row-major. Returns 0, 1 (launch error) or 2 (race). */
int scale(const float *in, float *out, int rows, int cols, double *speed);
/* out = in + 3 over n elements. */
int offset(const float *in, float *out, int n, double *speed);

#ifdef __cplusplus
}
#endif

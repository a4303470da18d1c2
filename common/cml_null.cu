/* cml_null.cu — an empty kernel: the cost of one launch and its synchronisation alone.
 *
 * The judge times the student's launches from another process (cml_judge.c); the same
 * exchange with an empty kernel in a process of the course's (lab --serve-null) measures
 * what that path adds to a launch, so that only the kernel's own time is charged.
 */
#include <cuda_runtime_api.h>

static __global__ void cml_null_kernel(void) {}

extern "C" void cml_launch_null(void) {
    cml_null_kernel<<<1, 32>>>();
}

/* main.c — runs lab 3.5's Check tests (tests/test_reference.c). Plain C, no CUDA.
 * Exit status 0 when every test passed. Built by `make check-tests` as build/tests/3.5-project/run.
 */
#include <check.h>
#include <stdlib.h>

Suite *make_reference_suite(void);

int main(void) {
    SRunner *runner = srunner_create(make_reference_suite());
    srunner_run_all(runner, CK_NORMAL);
    const int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

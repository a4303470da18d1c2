/* main.c — the runner of every lab's Check tests: the test files of labs/<lab>/tests/ define
 * make_reference_suite(), the suite of the lab's CPU references; this runs it. Plain C, no
 * CUDA. Exit status 0 when every test passed. `make check-tests` links it with each lab's
 * tests as build/tests/<lab>/run (Makefile, lab_test_rules).
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

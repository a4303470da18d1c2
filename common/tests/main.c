/* main.c — runs every Check suite of common/; exits non-zero when any test failed.
 *
 * GPU test cases carry the tag "gpu": CK_EXCLUDE_TAGS=gpu leaves them out on machines
 * without a device (the Makefile sets it there). Tests fork (Check's default), so CUDA is
 * only ever initialised inside a test, never here. CK_FORK=no is not supported: the
 * driver tests fork once more, and CUDA does not survive a fork.
 *
 * Source: Check manual, "SRunner"; "Selective Running of Tests".
 */
#include <stdlib.h>

#include "suites.h"

int main(void) {
    SRunner *sr = srunner_create(make_check_suite());
    srunner_add_suite(sr, make_rng_suite());
    srunner_add_suite(sr, make_compare_suite());
    srunner_add_suite(sr, make_stats_suite());
    srunner_add_suite(sr, make_json_suite());
    srunner_add_suite(sr, make_options_suite());
    srunner_add_suite(sr, make_timing_device_suite());
    srunner_add_suite(sr, make_lab_suite());
    srunner_add_suite(sr, make_pgm_suite());
    srunner_add_suite(sr, make_sample_suite());
    srunner_add_suite(sr, make_ipc_suite());
    srunner_add_suite(sr, make_launch_limits_suite());
    srunner_add_suite(sr, make_setup_suite());
    srunner_add_suite(sr, make_fresh_suite());
    srunner_add_suite(sr, make_parallel_suite());
    srunner_add_suite(sr, make_hostmem_suite());
    srunner_add_suite(sr, make_exchange_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

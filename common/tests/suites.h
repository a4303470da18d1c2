/* suites.h — the Check suites of common/ (one per area) and the helpers they share.
 *
 * Source: Check's own test layout (one make_<area>_suite() per file, run from main.c).
 */
#pragma once

#include <check.h>

Suite *make_check_suite(void);
Suite *make_rng_suite(void);
Suite *make_compare_suite(void);
Suite *make_stats_suite(void);
Suite *make_json_suite(void);
Suite *make_options_suite(void);
Suite *make_timing_device_suite(void);
Suite *make_lab_suite(void);
Suite *make_pgm_suite(void);
Suite *make_sample_suite(void);
Suite *make_ipc_suite(void);
Suite *make_launch_limits_suite(void);
Suite *make_setup_suite(void);
Suite *make_fresh_suite(void);
Suite *make_parallel_suite(void);
Suite *make_hostmem_suite(void);
Suite *make_exchange_suite(void);

/* Runs fn(arg) in a child process, its stdout and stderr sent to the files out_path and
 * err_path (NULL: inherited), and returns its exit status, or -1 when it did not exit
 * normally. The child exits with fn's return value unless fn exits by itself. The
 * caller's process must not have initialised CUDA (CUDA does not survive fork). */
int run_in_child(int (*fn)(void *arg), void *arg, const char *out_path, const char *err_path);

/* A fresh empty file's path from mkstemp, in a static buffer of `slot` (0..3). */
const char *temp_path(int slot);

/* The whole file as a NUL-terminated string (malloc'd; "" when it cannot be read). */
char *read_text_file(const char *path);

/* Runs fn(arg) in a child as the judge's driver (cml_run's role the judge, its document to a
 * temporary file, cml_lab_fail the failure handler, as cml_lab_main installs it) and returns
 * the document the child wrote (malloc'd; "" when none); *code is the child's exit status
 * (run_in_child). For a failure path of the course's process that needs no GPU. */
char *judge_document_of(int (*fn)(void *arg), void *arg, int *code);

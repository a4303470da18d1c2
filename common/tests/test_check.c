/* test_check.c — CML_CHECK and the failure handler (cml_check.h).
 *
 * A test handler records its arguments and longjmps back, so "must not return" holds and
 * the test can look at what the handler was given. The default handler exits, so it is
 * run in a child process.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cml_check.h"
#include "suites.h"

static jmp_buf back;
static struct {
    int calls;
    cudaError_t err;
    const char *expr, *file, *message;
    int line;
} seen;

static void recording_handler(cudaError_t err, const char *expr, const char *file, int line) {
    seen.calls++;
    seen.err = err;
    seen.expr = expr;
    seen.file = file;
    seen.line = line;
    seen.message = cml_fail_message(err);
    longjmp(back, 1);
}

static cudaError_t returns(cudaError_t err) {
    return err;
}

START_TEST(success_does_not_call_the_handler) {
    memset(&seen, 0, sizeof seen);
    cml_set_fail_handler(recording_handler);
    if (setjmp(back) == 0) {
        CML_CHECK(returns(cudaSuccess));
    }
    cml_set_fail_handler(NULL);
    ck_assert_int_eq(seen.calls, 0);
}
END_TEST

START_TEST(failure_reports_error_expr_file_line) {
    memset(&seen, 0, sizeof seen);
    cml_set_fail_handler(recording_handler);
    volatile int line = 0;
    if (setjmp(back) == 0) {
        line = __LINE__ + 1;
        CML_CHECK(returns(cudaErrorInvalidValue));
    }
    cml_set_fail_handler(NULL);
    ck_assert_int_eq(seen.calls, 1);
    ck_assert_int_eq(seen.err, cudaErrorInvalidValue);
    ck_assert_str_eq(seen.expr, "returns(cudaErrorInvalidValue)");
    ck_assert_str_eq(seen.file, __FILE__);
    ck_assert_int_eq(seen.line, line);
}
END_TEST

#define NOT_RELEASED                                                                               \
    "the buffer is still page-locked: free it (cudaErrorHostMemoryAlreadyRegistered)"

START_TEST(saying_gives_the_handler_its_words) {
    memset(&seen, 0, sizeof seen);
    cml_set_fail_handler(recording_handler);
    volatile int line = 0;
    if (setjmp(back) == 0) {
        line = __LINE__ + 1;
        CML_CHECK_SAYING(returns(cudaErrorHostMemoryAlreadyRegistered), NOT_RELEASED);
    }
    ck_assert_int_eq(seen.calls, 1);
    ck_assert_int_eq(seen.err, cudaErrorHostMemoryAlreadyRegistered);
    ck_assert_str_eq(seen.message, NOT_RELEASED);
    ck_assert_str_eq(seen.expr, "returns(cudaErrorHostMemoryAlreadyRegistered)");
    ck_assert_str_eq(seen.file, __FILE__);
    ck_assert_int_eq(seen.line, line);
    /* a plain failure after it: CUDA's own words again */
    if (setjmp(back) == 0) {
        CML_CHECK(returns(cudaErrorHostMemoryAlreadyRegistered));
    }
    cml_set_fail_handler(NULL);
    ck_assert_int_eq(seen.calls, 2);
    ck_assert_str_eq(seen.message, cudaGetErrorString(cudaErrorHostMemoryAlreadyRegistered));
    /* a success says nothing */
    if (setjmp(back) == 0) {
        cml_set_fail_handler(recording_handler);
        CML_CHECK_SAYING(returns(cudaSuccess), NOT_RELEASED);
    }
    cml_set_fail_handler(NULL);
    ck_assert_int_eq(seen.calls, 2);
}
END_TEST

START_TEST(set_handler_returns_the_previous_one) {
    cml_fail_fn first = cml_set_fail_handler(recording_handler);
    ck_assert_ptr_nonnull(first); /* the default */
    ck_assert_ptr_eq(cml_set_fail_handler(NULL), recording_handler);
    ck_assert_ptr_eq(cml_set_fail_handler(NULL), first); /* NULL restored the default */
}
END_TEST

static int call_fail(void *arg) {
    (void)arg;
    cml_fail(cudaErrorInvalidValue, "cudaMalloc(&d_x, 0)", "harness.cu", 12);
    return 0; /* not reached */
}

static void returning_handler(cudaError_t err, const char *expr, const char *file, int line) {
    (void)err, (void)expr, (void)file, (void)line;
}

static int call_fail_with_returning_handler(void *arg) {
    cml_set_fail_handler(returning_handler);
    return call_fail(arg);
}

START_TEST(default_handler_prints_and_exits_4) {
    const char *err_path = temp_path(0);
    ck_assert_int_eq(run_in_child(call_fail, NULL, NULL, err_path), 4);
    char expected[256];
    snprintf(expected, sizeof expected, "harness.cu:12: cudaMalloc(&d_x, 0) failed: %s\n",
             cudaGetErrorString(cudaErrorInvalidValue));
    char *text = read_text_file(err_path);
    ck_assert_str_eq(text, expected);
    free(text);
    remove(err_path);
}
END_TEST

static int call_fail_saying(void *arg) {
    (void)arg;
    cml_fail_saying(cudaErrorHostMemoryAlreadyRegistered, NOT_RELEASED, "expect_released(h)",
                    "harness.cu", 34);
    return 0; /* not reached */
}

START_TEST(default_handler_prints_the_words_of_a_saying_check) {
    const char *err_path = temp_path(0);
    ck_assert_int_eq(run_in_child(call_fail_saying, NULL, NULL, err_path), 4);
    char *text = read_text_file(err_path);
    ck_assert_str_eq(text, "harness.cu:34: expect_released(h) failed: " NOT_RELEASED "\n");
    free(text);
    remove(err_path);
}
END_TEST

START_TEST(a_handler_that_returns_still_stops) {
    ck_assert_int_eq(run_in_child(call_fail_with_returning_handler, NULL, "/dev/null", "/dev/null"),
                     4);
}
END_TEST

Suite *make_check_suite(void) {
    Suite *s = suite_create("check");
    TCase *tc = tcase_create("Correctness");
    tcase_add_test(tc, success_does_not_call_the_handler);
    tcase_add_test(tc, failure_reports_error_expr_file_line);
    tcase_add_test(tc, saying_gives_the_handler_its_words);
    tcase_add_test(tc, set_handler_returns_the_previous_one);
    suite_add_tcase(s, tc);
    tc = tcase_create("Errors");
    tcase_add_test(tc, default_handler_prints_and_exits_4);
    tcase_add_test(tc, default_handler_prints_the_words_of_a_saying_check);
    tcase_add_test(tc, a_handler_that_returns_still_stops);
    suite_add_tcase(s, tc);
    return s;
}

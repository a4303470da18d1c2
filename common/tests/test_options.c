/* test_options.c — the lab command line (cml_options.h, docs/protocol.md).
 *
 * parse() builds argv from its arguments (program name "lab" first), so each test reads
 * like the command line it checks; it also shows that the parser runs more than once per
 * process (getopt's state is reset on each call).
 */
#include <stdarg.h>
#include <string.h>

#include "cml_options.h"
#include "suites.h"

static cml_options opt;
static char err[256];

/* parse("--size", "3", NULL): parses "lab --size 3" into opt and err. */
static int parse(const char *first, ...) {
    static char *argv[32];
    int argc = 0;
    argv[argc++] = "lab";
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *)) {
        argv[argc++] = (char *)a;
    }
    va_end(ap);
    argv[argc] = NULL;
    memset(err, 'x', sizeof err);
    return cml_parse_options(argc, argv, &opt, err, (int)sizeof err);
}

START_TEST(defaults) {
    ck_assert_int_eq(parse("--exercise", "copy", "--size", "3", NULL), 0);
    ck_assert_int_eq(opt.mode, CML_MODE_RUN);
    ck_assert_str_eq(opt.exercise, "copy");
    ck_assert_int_eq(opt.n_size, 1);
    ck_assert_int_eq(opt.size[0], 3);
    ck_assert_uint_eq(opt.seed, 1);
    ck_assert_int_eq(opt.time, 0);
    ck_assert_int_eq(opt.reps, 25);
    ck_assert_ptr_null(opt.json_path);
    ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(every_run_option) {
    ck_assert_int_eq(parse("--exercise", "matmul_tiled", "--size", "33,17,65", "--seed",
                           "0xDEADbeef", "--time", "--reps", "30", "--json", "out.json", NULL),
                     0);
    ck_assert_int_eq(opt.mode, CML_MODE_RUN);
    ck_assert_str_eq(opt.exercise, "matmul_tiled");
    ck_assert_int_eq(opt.n_size, 3);
    ck_assert_int_eq(opt.size[0], 33);
    ck_assert_int_eq(opt.size[1], 17);
    ck_assert_int_eq(opt.size[2], 65);
    ck_assert_uint_eq(opt.seed, 0xDEADBEEFu);
    ck_assert_int_eq(opt.time, 1);
    ck_assert_int_eq(opt.reps, 30);
    ck_assert_str_eq(opt.json_path, "out.json");
}
END_TEST

START_TEST(equals_form_and_any_order) {
    ck_assert_int_eq(parse("--size=4,5", "--json=o.json", "--exercise=t", NULL), 0);
    ck_assert_int_eq(opt.n_size, 2);
    ck_assert_int_eq(opt.size[1], 5);
    ck_assert_str_eq(opt.exercise, "t");
    ck_assert_str_eq(opt.json_path, "o.json");
}
END_TEST

START_TEST(modes) {
    ck_assert_int_eq(parse("--list", NULL), 0);
    ck_assert_int_eq(opt.mode, CML_MODE_LIST);
    ck_assert_int_eq(parse("--device-info", "--json", "d.json", NULL), 0);
    ck_assert_int_eq(opt.mode, CML_MODE_DEVICE_INFO);
    ck_assert_str_eq(opt.json_path, "d.json");
    ck_assert_int_eq(parse("--help", NULL), 0);
    ck_assert_int_eq(opt.mode, CML_MODE_HELP);
    ck_assert_int_eq(parse("-h", NULL), 0);
    ck_assert_int_eq(opt.mode, CML_MODE_HELP);
    ck_assert_int_eq(opt.peer_fd, -1);
}
END_TEST

START_TEST(judged_run_modes) {
    ck_assert_int_eq(parse("--serve", "5", NULL), 0);
    ck_assert_int_eq(opt.mode, CML_MODE_SERVE);
    ck_assert_int_eq(opt.peer_fd, 5);
    ck_assert_int_eq(parse("--serve-null", "7", NULL), 0);
    ck_assert_int_eq(opt.mode, CML_MODE_SERVE_NULL);
    ck_assert_int_eq(opt.peer_fd, 7);
    ck_assert_int_eq(parse("--exercise", "e", "--size", "3", "--peer", "4", NULL), 0);
    ck_assert_int_eq(opt.mode, CML_MODE_RUN);
    ck_assert_int_eq(opt.peer_fd, 4);
    ck_assert_int_eq(opt.gate, 0);
    ck_assert_int_eq(
        parse("--exercise", "e", "--size", "3", "--peer", "4", "--time", "--gate", NULL), 0);
    ck_assert_int_eq(opt.gate, 1);
}
END_TEST

START_TEST(bad_judged_run_options) {
    /* 0, 1 and 2 are the standard streams, never the judge's socket */
    ck_assert_int_eq(parse("--serve", "2", NULL), -1);
    ck_assert_str_eq(err, "--serve: '2' is not a file descriptor (3 or more)");
    ck_assert_int_eq(parse("--serve", "x", NULL), -1);
    ck_assert_int_eq(parse("--serve", "5", "--exercise", "e", NULL), -1);
    ck_assert_str_eq(err, "--serve and --serve-null take no other option");
    ck_assert_int_eq(parse("--serve", "5", "--peer", "6", NULL), -1);
    ck_assert_int_eq(parse("--list", "--peer", "6", NULL), -1);
    ck_assert_str_eq(err, "--peer is for --exercise runs");
    /* the gate stands between a judge's set-up and its timing: nothing else has one */
    ck_assert_int_eq(parse("--exercise", "e", "--size", "3", "--time", "--gate", NULL), -1);
    ck_assert_str_eq(err, "--gate is for the judge's timed runs (--peer FD --time)");
    ck_assert_int_eq(parse("--exercise", "e", "--size", "3", "--peer", "4", "--gate", NULL), -1);
}
END_TEST

START_TEST(information_only_baselines_of_a_timed_judge) {
    ck_assert_int_eq(parse("--exercise", "a", "--case", "a:3@1", "--case", "b:4@1", "--peer", "4",
                           "--time", "--info-baseline", "b", "--info-baseline", "c", NULL),
                     0);
    ck_assert_int_eq(opt.n_info_baselines, 2);
    ck_assert(cml_info_baseline(&opt, "b") && cml_info_baseline(&opt, "c"));
    ck_assert(!cml_info_baseline(&opt, "a") && !cml_info_baseline(&opt, NULL));
    ck_assert_int_eq(parse("--exercise", "a", "--size", "3", "--peer", "4", "--time", NULL), 0);
    ck_assert(!cml_info_baseline(&opt, "a")); /* none named: every baseline in full */
    /* only a judge's timing has a baseline to time less */
    ck_assert_int_eq(
        parse("--exercise", "a", "--size", "3", "--time", "--info-baseline", "a", NULL), -1);
    ck_assert_str_eq(err, "--info-baseline is for the judge's timed runs (--peer FD --time)");
    ck_assert_int_eq(
        parse("--exercise", "a", "--size", "3", "--peer", "4", "--info-baseline", "a", NULL), -1);
    ck_assert_int_eq(parse("--exercise", "a", "--size", "3", "--peer", "4", "--time",
                           "--info-baseline", "", NULL),
                     -1);
    ck_assert_str_eq(err, "--info-baseline: '' is not an exercise's name");
}
END_TEST

START_TEST(several_cases_for_the_judge) {
    ck_assert_int_eq(parse("--exercise", "e", "--case", "33,17,65@12", "--case", "1,1,1@0x10",
                           "--peer", "4", NULL),
                     0);
    ck_assert_int_eq(opt.n_cases, 2);
    ck_assert_int_eq(opt.case_n_size[0], 3);
    ck_assert_int_eq(opt.case_size[0][2], 65);
    ck_assert_uint_eq(opt.case_seed[0], 12);
    ck_assert_uint_eq(opt.case_seed[1], 16);
    /* the first case is the run's context (the documents of a failure before any case) */
    ck_assert_int_eq(opt.n_size, 3);
    ck_assert_int_eq(opt.size[1], 17);
    ck_assert_uint_eq(opt.seed, 12);
}
END_TEST

START_TEST(cases_naming_their_exercise) {
    /* a plain run's cases may name another exercise of the lab (--case EX:...) */
    ck_assert_int_eq(parse("--exercise", "e", "--case", "e:3@1", "--case", "f_2:4,5@2", "--case",
                           "6@3", "--json", "d.json", NULL),
                     0);
    ck_assert_int_eq(opt.n_cases, 3);
    ck_assert_str_eq(opt.case_exercise[0], "e");
    ck_assert_str_eq(opt.case_exercise[1], "f_2");
    ck_assert_int_eq(opt.case_n_size[1], 2);
    ck_assert_int_eq(opt.case_size[1][1], 5);
    ck_assert_uint_eq(opt.case_seed[1], 2);
    ck_assert_str_eq(opt.case_exercise[2], "");
    /* the first case is the run's context: --exercise's */
    ck_assert_int_eq(parse("--exercise", "e", "--case", "f:3@1", "--json", "d.json", NULL), -1);
    ck_assert_str_eq(err, "--case EX:...: the first case is of --exercise's exercise");
    /* the judge's too (a batch's correctness runs over the lab) */
    ck_assert_int_eq(
        parse("--exercise", "e", "--case", "3@1", "--case", "f:3@1", "--peer", "4", NULL), 0);
    ck_assert_str_eq(opt.case_exercise[1], "f");
    ck_assert_int_eq(parse("--exercise", "e", "--case", "e:3@1", "--peer", "4", NULL), 0);
    ck_assert_int_eq(parse("--exercise", "e", "--case", ":3@1", "--json", "d.json", NULL), -1);
    ck_assert_str_eq(err, "--case: ':3@1': the exercise before ':' is not a name (letters, "
                          "digits, '_'; at most 63)");
    ck_assert_int_eq(parse("--exercise", "e", "--case", "a-b:3@1", "--json", "d.json", NULL), -1);
}
END_TEST

START_TEST(bad_cases) {
    ck_assert_int_eq(parse("--exercise", "e", "--case", "3,4", "--peer", "4", NULL), -1);
    ck_assert_str_eq(err, "--case: '3,4' is not SIZES@SEED (e.g. 33,17,65@12345)");
    ck_assert_int_eq(parse("--exercise", "e", "--case", "3,0@1", "--peer", "4", NULL), -1);
    ck_assert_str_eq(err, "--case: '3,0' is not a list of positive integers");
    ck_assert_int_eq(parse("--exercise", "e", "--case", "3@x", "--peer", "4", NULL), -1);
    /* untimed, the judge's, in place of --size and --seed */
    ck_assert_int_eq(parse("--exercise", "e", "--case", "3@1", NULL), -1);
    ck_assert_str_eq(err, "--case is in place of --size and --seed: the judge's (--peer FD) or a "
                          "plain run's with --json PATH (a document per line)");
    /* a plain run writes its documents to --json; the judge to standard output */
    ck_assert_int_eq(parse("--exercise", "e", "--case", "3@1", "--json", "d.json", NULL), 0);
    ck_assert_int_eq(opt.n_cases, 1);
    ck_assert_int_eq(
        parse("--exercise", "e", "--case", "3@1", "--peer", "4", "--json", "d.json", NULL), -1);
    ck_assert_int_eq(parse("--exercise", "e", "--case", "3@1", "--size", "3", "--peer", "4", NULL),
                     -1);
    ck_assert_int_eq(parse("--exercise", "e", "--case", "3@1", "--seed", "2", "--peer", "4", NULL),
                     -1);
    /* timed cases are the judge's: one gate, each case timed in turn (cml_judge.c) */
    ck_assert_int_eq(parse("--exercise", "e", "--case", "3@1", "--case", "f:5@2", "--time",
                           "--gate", "--peer", "4", NULL),
                     0);
    ck_assert_int_eq(opt.n_cases, 2);
    ck_assert_int_eq(opt.time, 1);
    ck_assert_int_eq(opt.gate, 1);
    ck_assert_int_eq(parse("--exercise", "e", "--case", "3@1", "--time", "--json", "d.json", NULL),
                     -1);
    ck_assert_str_eq(err, "--case with --time is the judge's (--peer FD)");
}
END_TEST

START_TEST(usage_text_names_every_option) {
    const char *u = cml_usage();
    const char *names[] = {"--list", "--device-info", "--exercise", "--size", "--seed",
                           "--time", "--reps",        "--json",     "--help", "--case"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        ck_assert_ptr_nonnull(strstr(u, names[i]));
    }
}
END_TEST

START_TEST(seed_limits) {
    ck_assert_int_eq(parse("--exercise", "e", "--size", "1", "--seed", "0", NULL), 0);
    ck_assert_uint_eq(opt.seed, 0);
    ck_assert_int_eq(
        parse("--exercise", "e", "--size", "1", "--seed", "18446744073709551615", NULL), 0);
    ck_assert_uint_eq(opt.seed, UINT64_MAX);
    ck_assert_int_eq(parse("--exercise", "e", "--size", "1", "--seed", "0xFFFFFFFFFFFFFFFF", NULL),
                     0);
    ck_assert_uint_eq(opt.seed, UINT64_MAX);
}
END_TEST

START_TEST(size_limits) {
    ck_assert_int_eq(parse("--exercise", "e", "--size", "1,2,3,4,5,6,7,8", NULL), 0);
    ck_assert_int_eq(opt.n_size, CML_MAX_DIMS);
    ck_assert_int_eq(opt.size[7], 8);
    ck_assert_int_eq(parse("--exercise", "e", "--size", "9223372036854775807", NULL), 0);
    ck_assert_int_eq(opt.size[0], 9223372036854775807LL);
    ck_assert_int_eq(parse("--exercise", "e", "--size", "1", "--size", "2,3", NULL), 0);
    ck_assert_int_eq(opt.n_size, 2); /* the last one counts */
}
END_TEST

START_TEST(reps_minimum) {
    ck_assert_int_eq(parse("--exercise", "e", "--size", "1", "--reps", "20", NULL), 0);
    ck_assert_int_eq(opt.reps, 20);
}
END_TEST

START_TEST(parses_again_after_an_error) {
    ck_assert_int_eq(parse("--bogus", "--list", NULL), -1);
    ck_assert_int_eq(parse("--exercise", "e", "--size", "2", NULL), 0);
    ck_assert_int_eq(opt.size[0], 2);
    ck_assert_int_eq(parse("--list", NULL), 0);
    ck_assert_int_eq(opt.mode, CML_MODE_LIST);
}
END_TEST

/* One failing command line and its message. */
#define EXPECT_ERROR(message, ...)                                                                 \
    do {                                                                                           \
        ck_assert_int_eq(parse(__VA_ARGS__, NULL), -1);                                            \
        ck_assert_str_eq(err, message);                                                            \
    } while (0)

START_TEST(bad_sizes) {
    EXPECT_ERROR("--size: '3,x' is not a list of positive integers", "--exercise", "e", "--size",
                 "3,x");
    EXPECT_ERROR("--size: '0' is not a list of positive integers", "--exercise", "e", "--size",
                 "0");
    EXPECT_ERROR("--size: '-3' is not a list of positive integers", "--exercise", "e", "--size",
                 "-3");
    EXPECT_ERROR("--size: '3,,4' is not a list of positive integers", "--exercise", "e", "--size",
                 "3,,4");
    EXPECT_ERROR("--size: '3,' is not a list of positive integers", "--exercise", "e", "--size",
                 "3,");
    EXPECT_ERROR("--size: ' 3' is not a list of positive integers", "--exercise", "e", "--size",
                 " 3");
    EXPECT_ERROR("--size: '' is not a list of positive integers", "--exercise", "e", "--size", "");
    EXPECT_ERROR("--size: '9223372036854775808' is not a list of positive integers", "--exercise",
                 "e", "--size", "9223372036854775808");
    EXPECT_ERROR("--size: '1,2,3,4,5,6,7,8,9' has more than 8 dimensions", "--exercise", "e",
                 "--size", "1,2,3,4,5,6,7,8,9");
}
END_TEST

START_TEST(bad_seed) {
    EXPECT_ERROR("--seed: '12a' is not an unsigned 64-bit integer (decimal or 0x-hex)", "--seed",
                 "12a");
    EXPECT_ERROR("--seed: '-1' is not an unsigned 64-bit integer (decimal or 0x-hex)", "--seed",
                 "-1");
    EXPECT_ERROR("--seed: '0x' is not an unsigned 64-bit integer (decimal or 0x-hex)", "--seed",
                 "0x");
    EXPECT_ERROR(
        "--seed: '18446744073709551616' is not an unsigned 64-bit integer (decimal or 0x-hex)",
        "--seed", "18446744073709551616");
    EXPECT_ERROR(
        "--seed: '0x10000000000000000' is not an unsigned 64-bit integer (decimal or 0x-hex)",
        "--seed", "0x10000000000000000");
}
END_TEST

START_TEST(bad_reps) {
    EXPECT_ERROR("--reps: '19' is not an integer from 20 to 1000000", "--reps", "19");
    EXPECT_ERROR("--reps: 'many' is not an integer from 20 to 1000000", "--reps", "many");
    EXPECT_ERROR("--reps: '1000001' is not an integer from 20 to 1000000", "--reps", "1000001");
}
END_TEST

START_TEST(bad_options) {
    EXPECT_ERROR("unknown option '--bogus'", "--bogus");
    EXPECT_ERROR("unknown option '-x'", "-x");
    EXPECT_ERROR("--time takes no value", "--time=1");
    EXPECT_ERROR("--exercise needs a value", "--size", "3", "--exercise");
    EXPECT_ERROR("--exercise needs a value, got the option '--size'", "--exercise", "--size", "3");
    EXPECT_ERROR("--json needs a value", "--list", "--json");
    EXPECT_ERROR("--json: the path is empty", "--list", "--json", "");
    EXPECT_ERROR("--exercise: the name is empty", "--exercise", "", "--size", "1");
    EXPECT_ERROR("unexpected argument 'foo'", "--list", "foo");
    EXPECT_ERROR("--list and --device-info cannot be combined", "--list", "--device-info");
}
END_TEST

START_TEST(missing_exercise_or_size) {
    EXPECT_ERROR("--exercise is required (or --list, --device-info, --help)", "--size", "3");
    ck_assert_int_eq(parse(NULL), -1);
    ck_assert_str_eq(err, "--exercise is required (or --list, --device-info, --help)");
    EXPECT_ERROR("--size is required for --exercise copy", "--exercise", "copy");
}
END_TEST

START_TEST(message_is_truncated_to_the_buffer) {
    char small[10];
    char *argv[] = {"lab", "--bogus", NULL};
    ck_assert_int_eq(cml_parse_options(2, argv, &opt, small, (int)sizeof small), -1);
    ck_assert_str_eq(small, "unknown o");
    ck_assert_int_eq(cml_parse_options(2, argv, &opt, NULL, 0), -1);
}
END_TEST

Suite *make_options_suite(void) {
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("Correctness");
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, every_run_option);
    tcase_add_test(tc, equals_form_and_any_order);
    tcase_add_test(tc, modes);
    tcase_add_test(tc, judged_run_modes);
    tcase_add_test(tc, information_only_baselines_of_a_timed_judge);
    tcase_add_test(tc, usage_text_names_every_option);
    suite_add_tcase(s, tc);
    tc = tcase_create("Edges");
    tcase_add_test(tc, seed_limits);
    tcase_add_test(tc, size_limits);
    tcase_add_test(tc, reps_minimum);
    tcase_add_test(tc, parses_again_after_an_error);
    suite_add_tcase(s, tc);
    tc = tcase_create("Errors");
    tcase_add_test(tc, bad_sizes);
    tcase_add_test(tc, bad_seed);
    tcase_add_test(tc, bad_reps);
    tcase_add_test(tc, bad_options);
    tcase_add_test(tc, missing_exercise_or_size);
    tcase_add_test(tc, message_is_truncated_to_the_buffer);
    tcase_add_test(tc, bad_judged_run_options);
    tcase_add_test(tc, several_cases_for_the_judge);
    tcase_add_test(tc, bad_cases);
    tcase_add_test(tc, cases_naming_their_exercise);
    suite_add_tcase(s, tc);
    return s;
}

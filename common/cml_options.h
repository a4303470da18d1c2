/* cml_options.h — the lab binaries' command line (docs/protocol.md, a contract).
 *
 *   lab --list
 *   lab --device-info [--json PATH]
 *   lab --exercise NAME --size A[,B[,C...]] [--seed S] [--time] [--reps R] [--json PATH]
 *   judge --exercise NAME --size ... --peer FD [--seed S] [--time] [--reps R] [--json PATH]
 *   judge --exercise NAME --case [EX:]A[,B...]@S [--case ...] --peer FD [--time --reps R
 *                            [--info-baseline EX ...]]
 *                            several cases, one after the other, with one student's process
 *                            (cml_judge.c); one document per case, one per line; timed: all
 *                            set up before the one --gate, then timed in turn
 *   lab --exercise NAME --case [EX:]A[,B...]@S [--case ...] --json PATH
 *                            a plain run of several cases (compute-sanitizer's, one process
 *                            per tool)
 *   In both, a case may name another exercise of the lab (EX:); the first is --exercise's.
 *   lab --serve FD           the student's side of a judged run (cml_worker.c)
 *   judge --serve-null FD    the course's empty-kernel server of a judged timing
 *
 * --size gives the case's dimensions in the order the exercise names them (e.g. M,N,K);
 * --seed is a decimal or 0x-hex uint64 (default 1); --reps >= 20 (default 25); --json
 * defaults to standard output. Parsed with getopt_long (POSIX/glibc).
 */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CML_MAX_DIMS 8
#define CML_MAX_CASES 64 /* --case options of one run */
#define CML_MAX_NAME 64  /* an exercise's name, its terminating zero included */
/* The fewest timed repetitions a run accepts (--reps; cml_time_interleaved): its only
 * definition; the grader reads it from here (grader/manifest.py) and --list reports it. */
#define CML_MIN_REPS 20

typedef enum cml_mode {
    CML_MODE_RUN = 0,
    CML_MODE_LIST,
    CML_MODE_DEVICE_INFO,
    CML_MODE_HELP,
    CML_MODE_SERVE,     /* --serve FD */
    CML_MODE_SERVE_NULL /* --serve-null FD */
} cml_mode;

typedef struct cml_options {
    cml_mode mode;
    const char *exercise; /* NULL when not given */
    long long size[CML_MAX_DIMS];
    int n_size;
    uint64_t seed;
    int time; /* 1 = time against the baseline after verifying */
    int reps;
    const char *json_path; /* NULL = stdout */
    int peer_fd;           /* --peer FD, --serve FD or --serve-null FD; -1 when not given */
    int gate; /* --gate (judge, --time): wait for the grader's go between set-up and timing */
    /* --case A,B@S (repeatable; the judge's runs, timed or not, and plain --json runs):
     * n_cases > 0, and size, n_size and seed hold the first case's */
    int n_cases;
    long long case_size[CML_MAX_CASES][CML_MAX_DIMS];
    int case_n_size[CML_MAX_CASES];
    uint64_t case_seed[CML_MAX_CASES];
    /* --case EX:A,B@S: the case's exercise; "" = --exercise's */
    char case_exercise[CML_MAX_CASES][CML_MAX_NAME];
    /* --info-baseline EX (repeatable; the judge's timed runs): exercises whose grade does not
     * divide by the baseline's time (the percentage of a roof not timed among the
     * repetitions: grader/manifest.py, info_baseline): their baseline is timed in
     * CML_INFO_BASELINE_REPS of the repetitions only (cml_judge.c) */
    int n_info_baselines;
    char info_baseline[CML_MAX_CASES][CML_MAX_NAME];
} cml_options;

/* The repetitions of a baseline whose time only informs (--info-baseline): enough for its
 * median, shown in the report and compared with the baseline timed alone (a GPU kept busy by
 * the student's process slows every one of them), at a fraction of its cost (lab 3.3's SGEMM:
 * matmul_naive, 23 ms a launch, beside a 3 ms kernel). */
#define CML_INFO_BASELINE_REPS 7

/* 1 when --info-baseline named `exercise`. */
int cml_info_baseline(const cml_options *opt, const char *exercise);

/* Parses argv. Returns 0 on success; on a usage error returns -1 and writes a one-line
 * message (without newline) into err[0..err_len). Sizes must be >= 1 and at most
 * CML_MAX_DIMS of them; reps >= 20. */
int cml_parse_options(int argc, char **argv, cml_options *opt, char *err, int err_len);

/* The usage text, for --help and usage errors. */
const char *cml_usage(void);

#ifdef __cplusplus
}
#endif

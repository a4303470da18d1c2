/* cml_options.c — the lab binaries' command line (cml_options.h, docs/protocol.md).
 *
 * getopt_long with a leading "+:" in the option string: stop at the first non-option
 * (so argv is never permuted) and report a missing argument as ':' rather than '?', so
 * every error gets the course's own one-line message instead of getopt's.
 *
 * Source: POSIX getopt; glibc getopt_long(3).
 */
#define _GNU_SOURCE /* getopt_long */
#include "cml_options.h"

#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum {
    OPT_LIST = 1000,
    OPT_DEVICE_INFO,
    OPT_EXERCISE,
    OPT_SIZE,
    OPT_SEED,
    OPT_TIME,
    OPT_REPS,
    OPT_JSON,
    OPT_PEER,
    OPT_SERVE,
    OPT_SERVE_NULL,
    OPT_GATE,
    OPT_CASE,
    OPT_INFO_BASELINE,
    OPT_HELP = 'h'
};

static const struct option long_options[] = {
    {"list", no_argument, NULL, OPT_LIST},
    {"device-info", no_argument, NULL, OPT_DEVICE_INFO},
    {"exercise", required_argument, NULL, OPT_EXERCISE},
    {"size", required_argument, NULL, OPT_SIZE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"time", no_argument, NULL, OPT_TIME},
    {"reps", required_argument, NULL, OPT_REPS},
    {"json", required_argument, NULL, OPT_JSON},
    {"peer", required_argument, NULL, OPT_PEER},
    {"serve", required_argument, NULL, OPT_SERVE},
    {"serve-null", required_argument, NULL, OPT_SERVE_NULL},
    {"gate", no_argument, NULL, OPT_GATE},
    {"case", required_argument, NULL, OPT_CASE},
    {"info-baseline", required_argument, NULL, OPT_INFO_BASELINE},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

#define DEFAULT_SEED 1
#define DEFAULT_REPS 25
#define MAX_REPS 1000000

const char *cml_usage(void) {
    return "usage: lab --list\n"
           "       lab --device-info [--json PATH]\n"
           "       lab --exercise NAME --size A[,B...] [--seed S] [--time] [--reps R]"
           " [--json PATH]\n"
           "\n"
           "  --list          print the exercises and their dimensions (JSON)\n"
           "  --device-info   print the device's facts (JSON)\n"
           "  --exercise NAME the exercise to run\n"
           "  --size A,B,...  the case's dimensions, in the order the exercise names them\n"
           "  --seed S        seed of the random inputs: decimal or 0x-hex (default 1)\n"
           "  --time          after verifying, time against the baseline and a copy\n"
           "  --reps R        timing samples per contender, R >= 20 (default 25)\n"
           "  --json PATH     write the run document to PATH (default: standard output)\n"
           "  --help          this text\n"
           "\n"
           "Judged runs (the grader's; docs/protocol.md): build/<lab>/judge --exercise ...\n"
           "--peer FD runs the case with the student's launches made by `lab --serve FD`;\n"
           "with --time --gate it prints \"gate\" once its set-up is done and waits for a\n"
           "byte on standard input before it times anything. --case A,B@S (repeatable, in\n"
           "place of --size and --seed) runs several cases with one student's process, one\n"
           "document per line; with --time, every case is set up before the one gate and\n"
           "timed in turn. A case may name another exercise of the lab (--case EX:A,B@S);\n"
           "the first is --exercise's. --info-baseline EX (repeatable, timed): EX's grade\n"
           "does not divide by its baseline's time, which is then timed in fewer repetitions.\n";
}

static int fail(char *err, int err_len, const char *fmt, ...) {
    if (err && err_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, (size_t)err_len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Parses s[0..len) as a decimal (or, with hex, 0x-prefixed hexadecimal) number no larger
 * than max. Only digits: no sign, no spaces. Returns 0 on success. */
static int parse_u64(const char *s, size_t len, int hex, uint64_t max, uint64_t *out) {
    unsigned base = 10;
    if (hex && len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        len -= 2;
    }
    if (len == 0) {
        return -1;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < len; ++i) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9') {
            d = (unsigned)(c - '0');
        } else if (base == 16 && c >= 'a' && c <= 'f') {
            d = (unsigned)(c - 'a' + 10);
        } else if (base == 16 && c >= 'A' && c <= 'F') {
            d = (unsigned)(c - 'A' + 10);
        } else {
            return -1;
        }
        if (v > (max - d) / base) {
            return -1; /* v * base + d > max */
        }
        v = v * base + d;
    }
    *out = v;
    return 0;
}

/* The dimensions in arg[0..end) ("A,B,C") into dims[], their count into *n_dims. `what` names
 * the option in messages. */
static int parse_dims(const char *arg, const char *end, long long *dims, int *n_dims,
                      const char *what, char *err, int err_len) {
    int n = 0;
    const char *s = arg;
    const int whole = (int)(end - arg);
    for (;;) {
        const char *comma = memchr(s, ',', (size_t)(end - s));
        size_t len = comma ? (size_t)(comma - s) : (size_t)(end - s);
        uint64_t v;
        if (parse_u64(s, len, 0, INT64_MAX, &v) != 0 || v == 0) {
            return fail(err, err_len, "--%s: '%.*s' is not a list of positive integers", what,
                        whole, arg);
        }
        if (n == CML_MAX_DIMS) {
            return fail(err, err_len, "--%s: '%.*s' has more than %d dimensions", what, whole, arg,
                        CML_MAX_DIMS);
        }
        dims[n++] = (long long)v;
        if (!comma) {
            break;
        }
        s = comma + 1;
    }
    *n_dims = n;
    return 0;
}

static int parse_size(const char *arg, cml_options *opt, char *err, int err_len) {
    return parse_dims(arg, arg + strlen(arg), opt->size, &opt->n_size, "size", err, err_len);
}

/* --case [EX:]A,B,C@S: one more case of a multi-case run; EX names its exercise (letters,
 * digits, '_'), else it is --exercise's. */
static int parse_case(const char *arg, cml_options *opt, char *err, int err_len) {
    const char *at = strchr(arg, '@');
    if (!at) {
        return fail(err, err_len, "--case: '%s' is not SIZES@SEED (e.g. 33,17,65@12345)", arg);
    }
    if (opt->n_cases == CML_MAX_CASES) {
        return fail(err, err_len, "--case: more than %d cases", CML_MAX_CASES);
    }
    const int k = opt->n_cases;
    const char *colon = memchr(arg, ':', (size_t)(at - arg));
    const char *dims = arg;
    opt->case_exercise[k][0] = '\0';
    if (colon) {
        const size_t len = (size_t)(colon - arg);
        size_t ok = 0;
        while (ok < len && (isalnum((unsigned char)arg[ok]) || arg[ok] == '_')) {
            ++ok;
        }
        if (len == 0 || len >= CML_MAX_NAME || ok != len) {
            return fail(err, err_len,
                        "--case: '%s': the exercise before ':' is not a name (letters, digits, "
                        "'_'; at most %d)",
                        arg, CML_MAX_NAME - 1);
        }
        memcpy(opt->case_exercise[k], arg, len);
        opt->case_exercise[k][len] = '\0';
        dims = colon + 1;
    }
    if (parse_dims(dims, at, opt->case_size[k], &opt->case_n_size[k], "case", err, err_len) != 0) {
        return -1;
    }
    uint64_t v;
    if (parse_u64(at + 1, strlen(at + 1), 1, UINT64_MAX, &v) != 0) {
        return fail(err, err_len,
                    "--case: '%s': the seed is not an unsigned 64-bit integer (decimal or 0x-hex)",
                    arg);
    }
    opt->case_seed[k] = v;
    opt->n_cases = k + 1;
    return 0;
}

/* The option's name as the user typed it, for error messages. */
static const char *option_name(int val, char **argv) {
    for (const struct option *o = long_options; o->name; ++o) {
        if (o->val == val) {
            return o->name;
        }
    }
    return argv[optind - 1];
}

int cml_parse_options(int argc, char **argv, cml_options *opt, char *err, int err_len) {
    *opt = (cml_options){
        .mode = CML_MODE_RUN, .seed = DEFAULT_SEED, .reps = DEFAULT_REPS, .peer_fd = -1};
    int serve = 0, serve_null = 0, peer = 0, seeded = 0;
    if (err && err_len > 0) {
        err[0] = '\0';
    }
    int list = 0, device_info = 0, help = 0;

    /* Reset getopt's state so the parser can run more than once in a process. glibc
     * reinitialises fully on optind = 0; elsewhere optind = 1 is the POSIX reset. */
#ifdef __GLIBC__
    optind = 0;
#else
    optind = 1;
#endif
    opterr = 0; /* messages are ours */

    for (;;) {
        int c = getopt_long(argc, argv, "+:h", long_options, NULL);
        if (c == -1) {
            break;
        }
        uint64_t v;
        if (optarg && strncmp(optarg, "--", 2) == 0) {
            /* "--exercise --size 3": getopt would take "--size" as the exercise's name */
            return fail(err, err_len, "--%s needs a value, got the option '%s'",
                        option_name(c, argv), optarg);
        }
        switch (c) {
        case OPT_LIST:
            list = 1;
            break;
        case OPT_DEVICE_INFO:
            device_info = 1;
            break;
        case OPT_HELP:
            help = 1;
            break;
        case OPT_EXERCISE:
            if (optarg[0] == '\0') {
                return fail(err, err_len, "--exercise: the name is empty");
            }
            opt->exercise = optarg;
            break;
        case OPT_SIZE:
            if (parse_size(optarg, opt, err, err_len) != 0) {
                return -1;
            }
            break;
        case OPT_CASE:
            if (parse_case(optarg, opt, err, err_len) != 0) {
                return -1;
            }
            break;
        case OPT_INFO_BASELINE:
            if (optarg[0] == '\0' || strlen(optarg) >= CML_MAX_NAME) {
                return fail(err, err_len, "--info-baseline: '%s' is not an exercise's name",
                            optarg);
            }
            if (opt->n_info_baselines == CML_MAX_CASES) {
                return fail(err, err_len, "--info-baseline: at most %d", CML_MAX_CASES);
            }
            snprintf(opt->info_baseline[opt->n_info_baselines++], CML_MAX_NAME, "%s", optarg);
            break;
        case OPT_SEED:
            seeded = 1;
            if (parse_u64(optarg, strlen(optarg), 1, UINT64_MAX, &v) != 0) {
                return fail(err, err_len,
                            "--seed: '%s' is not an unsigned 64-bit integer (decimal or 0x-hex)",
                            optarg);
            }
            opt->seed = v;
            break;
        case OPT_TIME:
            opt->time = 1;
            break;
        case OPT_GATE:
            opt->gate = 1;
            break;
        case OPT_REPS:
            if (parse_u64(optarg, strlen(optarg), 0, MAX_REPS, &v) != 0 || v < CML_MIN_REPS) {
                return fail(err, err_len, "--reps: '%s' is not an integer from %d to %d", optarg,
                            CML_MIN_REPS, MAX_REPS);
            }
            opt->reps = (int)v;
            break;
        case OPT_JSON:
            if (optarg[0] == '\0') {
                return fail(err, err_len, "--json: the path is empty");
            }
            opt->json_path = optarg;
            break;
        case OPT_PEER:
        case OPT_SERVE:
        case OPT_SERVE_NULL:
            if (parse_u64(optarg, strlen(optarg), 0, 1 << 20, &v) != 0 || v < 3) {
                return fail(err, err_len, "--%s: '%s' is not a file descriptor (3 or more)",
                            option_name(c, argv), optarg);
            }
            opt->peer_fd = (int)v;
            serve += c == OPT_SERVE;
            serve_null += c == OPT_SERVE_NULL;
            peer += c == OPT_PEER;
            break;
        case ':':
            return fail(err, err_len, "--%s needs a value", option_name(optopt, argv));
        default: /* '?' */
            if (optopt >= OPT_LIST) {
                return fail(err, err_len, "--%s takes no value", option_name(optopt, argv));
            }
            if (optopt > ' ' && optopt < 127) {
                return fail(err, err_len, "unknown option '-%c'", optopt);
            }
            return fail(err, err_len, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) {
        return fail(err, err_len, "unexpected argument '%s'", argv[optind]);
    }

    if (help) {
        opt->mode = CML_MODE_HELP;
        return 0;
    }
    if (serve || serve_null) {
        if (serve + serve_null + peer > 1 || list || device_info || opt->exercise) {
            return fail(err, err_len, "--serve and --serve-null take no other option");
        }
        opt->mode = serve ? CML_MODE_SERVE : CML_MODE_SERVE_NULL;
        return 0;
    }
    if (peer && (list || device_info)) {
        return fail(err, err_len, "--peer is for --exercise runs");
    }
    if (opt->gate && !(peer && opt->time)) {
        return fail(err, err_len, "--gate is for the judge's timed runs (--peer FD --time)");
    }
    if (opt->n_info_baselines > 0 && !(peer && opt->time)) {
        return fail(err, err_len,
                    "--info-baseline is for the judge's timed runs (--peer FD --time)");
    }
    if (list && device_info) {
        return fail(err, err_len, "--list and --device-info cannot be combined");
    }
    if (list) {
        opt->mode = CML_MODE_LIST;
        return 0;
    }
    if (device_info) {
        opt->mode = CML_MODE_DEVICE_INFO;
        return 0;
    }
    if (!opt->exercise) {
        return fail(err, err_len, "--exercise is required (or --list, --device-info, --help)");
    }
    if (opt->n_cases > 0) {
        if (opt->n_size > 0 || seeded || !peer == !opt->json_path) {
            return fail(err, err_len,
                        "--case is in place of --size and --seed: the judge's (--peer FD) or a "
                        "plain run's with --json PATH (a document per line)");
        }
        if (opt->time && !peer) {
            return fail(err, err_len, "--case with --time is the judge's (--peer FD)");
        }
        if (opt->case_exercise[0][0] && strcmp(opt->case_exercise[0], opt->exercise) != 0) {
            return fail(err, err_len, "--case EX:...: the first case is of --exercise's exercise");
        }
        memcpy(opt->size, opt->case_size[0], sizeof opt->size);
        opt->n_size = opt->case_n_size[0];
        opt->seed = opt->case_seed[0];
    }
    if (opt->n_size == 0) {
        return fail(err, err_len, "--size is required for --exercise %s", opt->exercise);
    }
    return 0;
}

int cml_info_baseline(const cml_options *opt, const char *exercise) {
    for (int i = 0; exercise && i < opt->n_info_baselines; ++i) {
        if (strcmp(opt->info_baseline[i], exercise) == 0) {
            return 1;
        }
    }
    return 0;
}

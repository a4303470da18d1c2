#!/usr/bin/env bash
# gpu_check.sh LOGDIR — everything in the course that needs a GPU, in one bounded command,
# with its full logs under LOGDIR (make gpu-check; on the course's H200 machine LOGDIR=$OUT).
#
# Steps, most important first, each under its own time limit so that a slow step cannot
# starve the rest of a short GPU lease:
#   memory      peak host memory of each solution's largest runs, in its cgroup
#               (bench/memory_peaks.py: what grader/cgroup.py's memory limit must allow)
#   grade       the full grade of every solution (timed, with its build)
#   calibrate   the timing behind the lab.toml thresholds: RUNS runs of each solution's
#               performance case, one of each known-bad variant (bench/calibrate.py)
#   skeleton    the grade of every skeleton (no perf): zero, no crash
#   knownbad    every known-bad submission gets its verdict (pytest -m gpu test_known_bad;
#               pytest-xdist with XDIST workers when it is installed)
#   selfcheck   every solution full marks, every skeleton zero (grader selfcheck)
#   gputests    the other GPU tests of the grader (pytest -m gpu, known-bad excluded)
#   check       the Check tests tagged gpu (Check from .debs/ when not installed)
#   batch       a class of 30+ lab 3.3 submissions graded twice (bench/class_batch.py)
# Environment: STEPS (default: all but memory and batch), LABS (lab folder names; default:
# all), CALIBRATION_RUNS (3), XDIST (4), BATCH_LIMIT (seconds, 1500), BATCH_GPUS (e.g. 0,1:
# the batch's two gradings at once, one per GPU), BATCH_ONLY (student id prefixes, e.g.
# s01,h16: a short batch).
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=${1:-build/gpu-check}
mkdir -p "$LOG"
RUNS=${CALIBRATION_RUNS:-3}
JOBS=$(nproc)
STEPS=${STEPS:-grade calibrate skeleton knownbad selfcheck gputests check}
LABS=${LABS:-$(for t in labs/*/lab.toml; do basename "$(dirname "$t")"; done)}
export PYTHONUNBUFFERED=1
step() { printf '\n===== %s (%s)\n' "$1" "$(date +%T)" | tee -a "$LOG/summary.txt"; }
note() { printf '%s\n' "$*" | tee -a "$LOG/summary.txt"; }
want() { [[ " $STEPS " == *" $1 "* ]]; }
timed() { # timed SECONDS NAME CMD...: run CMD with a limit, log to LOG/NAME.log, note rc and time
    local limit=$1 name=$2 start rc
    shift 2
    start=$(date +%s)
    timeout -k 5 "$limit" "$@" >"$LOG/$name.log" 2>&1
    rc=$?
    note "$name: exit $rc, $(($(date +%s) - start)) s$([ $rc -eq 124 ] && echo ' (TIMED OUT)')"
    return $rc
}
lab_args() { for l in $LABS; do printf -- '--lab %s ' "${l%%-*}"; done; }
# Check from .debs/ (apt-get download check libsubunit-dev libsubunit0) where not installed
if ! pkg-config --exists check 2>/dev/null && ls .debs/*.deb >/dev/null 2>&1; then
    # outside build/: the Makefile reads every build/**/*.d as a dependency file, and a
    # package's folders (usr/lib/sysctl.d) are not
    DEBS=${TMPDIR:-/tmp}/cml-debs
    mkdir -p "$DEBS" && for d in .debs/*.deb; do dpkg -x "$d" "$DEBS"; done
    CK=$DEBS/usr
    export CHECK_CFLAGS="-I$CK/include" \
        CHECK_LIBS="-L$CK/lib/x86_64-linux-gnu -Wl,-rpath,$CK/lib/x86_64-linux-gnu -lcheck -lsubunit -lm -lrt -lpthread"
    [ -x "$CK/bin/bwrap" ] && export PATH="$CK/bin:$PATH"
fi

step "device"
nvidia-smi -L | tee -a "$LOG/summary.txt"
nvcc --version | tail -n 1 | tee -a "$LOG/summary.txt"
note "labs: $LABS; steps: $STEPS; bwrap: $(command -v bwrap || echo none)"

step "build sm_90"
timed 240 build make -j"$JOBS" all

if want memory; then
    step "peak host memory per run (bench/memory_peaks.py)"
    timed 300 memory python3 bench/memory_peaks.py $(lab_args)
    grep -E '^(\||limits|largest|runs)' "$LOG/memory.log" | tee -a "$LOG/summary.txt"
fi

if want grade; then
    for name in $LABS; do
        step "grade the $name solution (full, timed; includes its build)"
        timed 200 "grade-$name-solution" python3 -m grader grade "labs/$name" \
            --submission "solutions/$name" --json "$LOG/grade-$name-solution.json"
        tail -n 16 "$LOG/grade-$name-solution.log" | tee -a "$LOG/summary.txt"
    done
fi

if want calibrate; then
    step "calibration: $RUNS timed runs of each solution, one of each known-bad variant"
    timed 300 calibration python3 bench/calibrate.py --runs "$RUNS" $(lab_args) \
        --out "$LOG/calibration.json"
    grep '^|' "$LOG/calibration.log" | tee -a "$LOG/summary.txt"
fi

if want skeleton; then
    for name in $LABS; do
        step "grade the $name skeleton"
        timed 120 "grade-$name-skeleton" python3 -m grader grade "labs/$name" --no-perf \
            --json "$LOG/grade-$name-skeleton.json"
        tail -n 9 "$LOG/grade-$name-skeleton.log" | tee -a "$LOG/summary.txt"
    done
fi

XDIST_ARGS=()
python3 -c 'import xdist' 2>/dev/null && XDIST_ARGS=(-n "${XDIST:-4}")
if want knownbad; then
    step "known-bad submissions (${XDIST_ARGS[*]:-serial})"
    K=$(for l in $LABS; do printf '%s or ' "$l"; done)
    timed "${KNOWNBAD_LIMIT:-420}" knownbad python3 -m pytest -ra -m gpu "${XDIST_ARGS[@]}" \
        grader/tests/test_known_bad.py -k "${K% or }"
    tail -n 25 "$LOG/knownbad.log" | tee -a "$LOG/summary.txt"
fi

if want selfcheck; then
    step "selfcheck"
    timed 400 selfcheck python3 -m grader selfcheck $(lab_args) --json "$LOG/selfcheck.json"
    tail -n 20 "$LOG/selfcheck.log" | tee -a "$LOG/summary.txt"
fi

if want gputests; then
    step "the grader's other GPU tests"
    timed 300 gputests python3 -m pytest -ra -m gpu grader/tests \
        --deselect grader/tests/test_gpu.py::test_selfcheck -k "not test_known_bad_verdict"
    tail -n 15 "$LOG/gputests.log" | tee -a "$LOG/summary.txt"
fi

if want check; then
    step "Check tests, gpu tag included"
    timed 300 check make check-tests
    grep -E '^(==|[0-9]+%)' "$LOG/check.log" | tee -a "$LOG/summary.txt"
fi

if want batch; then
    step "batch: a class of lab 3.3 submissions, graded twice"
    rm -rf build/class && python3 bench/class_batch.py make build/class >"$LOG/batch-make.log" 2>&1
    timed "${BATCH_LIMIT:-1500}" batch python3 bench/class_batch.py run ${BATCH_GPUS:+--gpus "$BATCH_GPUS"} \
        ${BATCH_ONLY:+--only "$BATCH_ONLY"} build/class "$LOG/batch"
    tail -n 45 "$LOG/batch.log" | tee -a "$LOG/summary.txt"
fi

step "done"

#!/usr/bin/env bash
# gpu_check.sh LOGDIR — everything in the course that needs a GPU, in one bounded command,
# with its full logs under LOGDIR (make gpu-check; on the course's H200 machine LOGDIR=$OUT).
#
# Steps, most important first, each under its own time limit so that a slow step cannot
# starve the rest of a short GPU lease: device facts; build; the full grade of every
# solution (timed: must take under 60 s); the timing calibration behind the lab.toml
# thresholds (bench/calibrate.py); the skeletons; the GPU tests of the grader (selfcheck,
# known-bad submissions); the Check tests tagged gpu (Check from .debs/ when not installed).
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=${1:-build/gpu-check}
mkdir -p "$LOG"
RUNS=${CALIBRATION_RUNS:-3}
JOBS=$(nproc)
export PYTHONUNBUFFERED=1
step() { printf '\n===== %s (%s)\n' "$1" "$(date +%T)" | tee -a "$LOG/summary.txt"; }
note() { printf '%s\n' "$*" | tee -a "$LOG/summary.txt"; }
timed() { # timed SECONDS NAME CMD...: run CMD with a limit, log to LOG/NAME.log, note rc and time
    local limit=$1 name=$2 start rc
    shift 2
    start=$(date +%s)
    timeout -k 5 "$limit" "$@" >"$LOG/$name.log" 2>&1
    rc=$?
    note "$name: exit $rc, $(($(date +%s) - start)) s$([ $rc -eq 124 ] && echo ' (TIMED OUT)')"
    return $rc
}

step "device"
nvidia-smi -L | tee -a "$LOG/summary.txt"
nvcc --version | tail -n 1 | tee -a "$LOG/summary.txt"

step "build sm_90"
timed 150 build make -j"$JOBS" all

for lab in labs/*/lab.toml; do
    lab=$(dirname "$lab"); name=$(basename "$lab")
    step "grade the $name solution (full, timed; includes its build)"
    timed 150 "grade-$name-solution" python3 -m grader grade "$lab" \
        --submission "solutions/$name" --json "$LOG/grade-$name-solution.json"
    tail -n 14 "$LOG/grade-$name-solution.log" | tee -a "$LOG/summary.txt"
done

step "calibration: $RUNS timed runs of each solution, one of each known-bad variant"
timed 200 calibration python3 bench/calibrate.py --runs "$RUNS" --out "$LOG/calibration.json"
tail -n 20 "$LOG/calibration.log" | tee -a "$LOG/summary.txt"

for lab in labs/*/lab.toml; do
    lab=$(dirname "$lab"); name=$(basename "$lab")
    step "grade the $name skeleton"
    timed 90 "grade-$name-skeleton" python3 -m grader grade "$lab" --no-perf \
        --json "$LOG/grade-$name-skeleton.json"
    tail -n 9 "$LOG/grade-$name-skeleton.log" | tee -a "$LOG/summary.txt"
done

step "grader GPU tests (known-bad submissions, selfcheck)"
timed "${PYTEST_LIMIT:-300}" pytest python3 -m pytest -ra -m gpu grader/tests
tail -n 15 "$LOG/pytest.log" | tee -a "$LOG/summary.txt"

step "done"

#!/usr/bin/env bash
# Session 41's third check, design note 97 (g134 found that another process's work on the GPU
# before the student's process slows every figure alike, so no rule saw it): the judge now gives
# its own empty launch alone (timing.empty_launch_alone_ms) and the grader retimes, then scores
# no performance, above 0.5 ms (plausible.busy_before).
# 1. the build, the Check tests and lab 3.3's timed run over the lab (test_gpu.py: the figure in
#    every document, under 0.5 ms on an idle GPU);
# 2. lab 3.3's solution on transpose_tiled alone (control), then beside bench/left_behind/spin.cu
#    (expected: timed twice, "disturbed timing", the judge's own empty kernel named).
# Run as: LIMIT=200 bash bench/h200-2026-12-06-session41/g135.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-200}
source bench/device_prelude.sh "${NAME:-g135}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build bash -c "rm -rf build && make -k -j16 all"
s 60 check bash -c check_make
grep -E "Checks|Failures: [1-9]|Errors: [1-9]" "$L/check.log" | tee -a "$L/summary.txt"
s 60 timed_run python3 -m pytest -q -p no:cacheprovider -rA --tb=short -m gpu \
    grader/tests/test_gpu.py -k "timed_run_over_the_lab"
grep -E "PASSED|FAILED|passed|failed|Error" "$L/timed_run.log" | tee -a "$L/summary.txt"
nvcc -O2 -arch=sm_90 bench/left_behind/spin.cu -o /tmp/spin 2>&1 | tee -a "$L/summary.txt"
s 60 control python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
    --exercise transpose_tiled --no-sanitizer --json "$L/control.json"
python3 bench/perf_summary.py "$L/control.json" control | tee -a "$L/summary.txt"
/tmp/spin 100 >"$L/spin.log" 2>&1 &
spinner=$!
sleep 3
s 120 busy python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
    --exercise transpose_tiled --no-sanitizer --json "$L/busy.json"
kill "$spinner" 2>/dev/null
wait "$spinner" 2>/dev/null
python3 bench/perf_summary.py "$L/busy.json" busy | tee -a "$L/summary.txt"
grep -E "disturbed|timed twice|already busy" "$L/busy.log" | cut -c1-500 | tee -a "$L/summary.txt"
cat "$L/summary.txt"

#!/usr/bin/env bash
# Session 40's last check of design note 95 after g130 (the judge's exchange alone: 0.006 ms
# on an H100 against 0.17-0.18 among the repetitions; both left-behind fixtures caught): the
# grader now times a run whose exchange was slowed once more (as a spread one), so:
# 1. the left-behind fixtures of labs 3.2 and 3.3 again (their GPU tests, through that path);
# 2. lab 3.2's solution graded whole (no run disturbed, full marks).
# Run as: LIMIT=200 bash bench/h200-2026-12-06-session40/g131.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-200}
source bench/device_prelude.sh "${NAME:-g131}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build bash -c "rm -rf build && make -k -j16 all"
s 150 left_behind python3 -m pytest -q -p no:cacheprovider -rA --tb=short -m gpu \
    grader/tests/test_known_bad.py -k "hostile_left_behind"
grep -E "PASSED|FAILED|passed|failed" "$L/left_behind.log" | tee -a "$L/summary.txt"
grep -rho "timed twice: in the first run the exchange[^;]*" "$L/reports" | head -3 | tee -a "$L/summary.txt"
[ "$(left)" -gt 35 ] && s 60 whole32 python3 -m grader grade labs/3.2-global-memory \
    --submission solutions/3.2-global-memory --json "$L/whole32.json"
python3 bench/perf_summary.py "$L/whole32.json" whole32 | tee -a "$L/summary.txt"
cat "$L/summary.txt"

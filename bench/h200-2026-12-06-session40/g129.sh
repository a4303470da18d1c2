#!/usr/bin/env bash
# Session 40's measuring call for design note 95 (lab 3.2c's baseline_spread = 1.8):
# 1. the new fixture hostile_left_behind_unified's GPU test (a process left behind spinning
#    every SM: still "disturbed timing" with the wider spread?), then the fixture graded on
#    unified_memory alone, its figures kept (how far among/alone goes);
# 2. the solution's unified_memory alone three times (its own among/alone, with the spread);
# 3. lab 3.3's hostile_left_behind_process GPU test (the default rules, unchanged).
# Run as: LIMIT=300 bash bench/h200-2026-12-06-session40/g129.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-300}
source bench/device_prelude.sh "${NAME:-g129}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build bash -c "rm -rf build && make -k -j16 all"
s 120 fixture_test python3 -m pytest -q -p no:cacheprovider -rA --tb=short -m gpu \
    grader/tests/test_known_bad.py -k "hostile_left_behind_unified"
tail -3 "$L/fixture_test.log" | tee -a "$L/summary.txt"
LAB=3.2-global-memory
rm -rf /tmp/fx && python3 -c "
import sys; sys.path.insert(0, 'grader/tests')
from pathlib import Path
from test_known_bad import apply
apply(Path('grader/tests/known_bad/$LAB/hostile_left_behind_unified.toml'), Path('/tmp/fx'))"
g() { # g TAG SUBMISSION
    s 100 "$1" python3 -m grader grade "labs/$LAB" --submission "$2" --exercise unified_memory \
        --no-sanitizer --json "$L/$1.json"
    python3 bench/perf_summary.py "$L/$1.json" "$1" | tee -a "$L/summary.txt"
}
g fixture /tmp/fx
for k in 1 2 3; do
    [ "$(left)" -gt 40 ] && g "um$k" "solutions/$LAB"
done
[ "$(left)" -gt 60 ] && s 100 lb33 python3 -m pytest -q -p no:cacheprovider -rA --tb=short \
    -m gpu grader/tests/test_known_bad.py -k "hostile_left_behind_process"
tail -3 "$L/lb33.log" | tee -a "$L/summary.txt"
cat "$L/summary.txt"

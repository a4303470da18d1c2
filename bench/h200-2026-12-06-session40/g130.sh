#!/usr/bin/env bash
# Session 40's check of design note 95 after g129 (H100: lab 3.2's hostile_left_behind_unified
# scored full marks at ratio 123: its spinning child slowed the on-demand baseline only 1.63
# times, within 3.2c's new spread, and the empty-kernel server's exchange, subtracted from each
# student sample, 2.38 ms against 0.17): the judge now times that exchange alone too, and the
# grader compares them (plausible.disturbed).
# 1. the Check tests (the judge's C changed), then the timed run over lab 3.3 (test_gpu.py:
#    worker_overhead_alone_ms in every document, no disturbed run);
# 2. the left-behind fixtures of labs 3.2 and 3.3 (their GPU tests: "disturbed timing");
# 3. lab 3.2's solution on unified_memory alone, twice (not disturbed, the exchange alone kept).
# Run as: LIMIT=300 bash bench/h200-2026-12-06-session40/g130.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-300}
source bench/device_prelude.sh "${NAME:-g130}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build bash -c "rm -rf build && make -k -j16 all"
s 120 check bash -c check_make
grep -E "Checks|Failures: [1-9]|Errors: [1-9]" "$L/check.log" | tee -a "$L/summary.txt"
s 100 timed_run python3 -m pytest -q -p no:cacheprovider -rA --tb=short -m gpu \
    grader/tests/test_gpu.py -k "timed_run_over_the_lab"
s 150 left_behind python3 -m pytest -q -p no:cacheprovider -rA --tb=short -m gpu \
    grader/tests/test_known_bad.py -k "hostile_left_behind"
grep -E "PASSED|FAILED|passed|failed" "$L/timed_run.log" "$L/left_behind.log" | tee -a "$L/summary.txt"
for k in 1 2; do
    [ "$(left)" -gt 30 ] || break
    s 60 "um$k" python3 -m grader grade labs/3.2-global-memory --submission \
        solutions/3.2-global-memory --exercise unified_memory --no-sanitizer --json "$L/um$k.json"
    python3 bench/perf_summary.py "$L/um$k.json" "um$k" | tee -a "$L/summary.txt"
done
cat "$L/summary.txt"

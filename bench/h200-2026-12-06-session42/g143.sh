#!/usr/bin/env bash
# Session 42: after design note 98's judge change (the empty-kernel server's failures during the
# timing are the course's), the known-bad fixtures that attack the timing must keep their
# verdicts: every hostile_* fixture's GPU test (a student's process that ends, forges, replays
# or stays behind is still the student's doing), and test_gpu's timed run over lab 3.3.
# Run as: LIMIT=480 bash bench/h200-2026-12-06-session42/g143.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-480}
source bench/device_prelude.sh "${NAME:-g143}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build bash -c "rm -rf build && make -k -j16 all"
s "$(($(left) - 60))" hostile python3 -m pytest -q -rA -p no:cacheprovider -n 4 \
    grader/tests/test_known_bad.py -k "verdict and hostile"
grep -E "passed|failed|^(PASSED|FAILED|ERROR)" "$L/hostile.log" | cut -c1-200 |
    tee -a "$L/summary.txt"
s "$(left)" timed python3 -m pytest -q -p no:cacheprovider grader/tests/test_gpu.py \
    -k timed_run_over_the_lab
tail -3 "$L/timed.log" | tee -a "$L/summary.txt"
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
cat "$L/summary.txt"

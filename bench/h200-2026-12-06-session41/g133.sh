#!/usr/bin/env bash
# Session 41's check of design note 96 (the judge subtracts at most the exchange alone plus
# 0.25 ms from each student sample, common/cml_exchange.h):
# 1. the build and the Check tests (the judge's C changed; the new exchange suite);
# 2. the timed run over lab 3.3 (test_gpu.py: the subtracted figure in every document, as the
#    cap says) and both left-behind fixtures (their GPU tests: still "disturbed timing");
# 3. lab 3.5's solution on image_pipeline (single launches of 0.7 ms: the honest exchange
#    subtracted whole), then the padded variants (bench/exchange_pad): its child lengthening
#    the exchange by PAD_US after PAD_DELAY_US, the ratio graded beside the uncapped one.
# Run as: LIMIT=420 bash bench/h200-2026-12-06-session41/g133.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-420}
source bench/device_prelude.sh "${NAME:-g133}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build bash -c "rm -rf build && make -k -j16 all"
s 120 check bash -c check_make
grep -E "Checks|Failures: [1-9]|Errors: [1-9]" "$L/check.log" | tee -a "$L/summary.txt"
s 100 timed_run python3 -m pytest -q -p no:cacheprovider -rA --tb=short -m gpu \
    grader/tests/test_gpu.py -k "timed_run_over_the_lab"
s 150 left_behind python3 -m pytest -q -p no:cacheprovider -rA --tb=short -m gpu \
    grader/tests/test_known_bad.py -k "hostile_left_behind"
grep -E "PASSED|FAILED|passed|failed" "$L/timed_run.log" "$L/left_behind.log" | tee -a "$L/summary.txt"
s 60 pipeline python3 -m grader grade labs/3.5-project --submission solutions/3.5-project \
    --exercise image_pipeline --no-sanitizer --json "$L/pipeline.json"
python3 bench/exchange_pad/summary.py "$L/pipeline.json" | tee -a "$L/summary.txt"
[ "$(left)" -gt 100 ] && s "$(left)" pad bash bench/exchange_pad/run.sh "$L/pad" \
    "${PADS:-300:0 300:60 300:200 0:0}"
tail -8 "$L/pad.log" | tee -a "$L/summary.txt"
cat "$L/summary.txt"

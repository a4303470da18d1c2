#!/usr/bin/env bash
# Prepared for session 25 (not run): what session 24 built after its last call, checked on
# the H200 before the class of 100 (g92.sh) is graded with it: the Check tests on the GPU
# (spin_from_here_turns_a_blocking_context_into_a_spinning_one: a wait's CPU share with blocking
# waits and after the gate's switch) and test_gpu.py (a judged run's document, its new
# timing.phases_cpu_ms among it), then one grade of the 3.3 solution with its report's
# phases_cpu_ms printed.
# Run as: LIMIT=300 bash bench/h200-2026-12-04-session24/g94.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-300}
source bench/device_prelude.sh "${NAME:-g94}" "$1"
s 60 build make -k -j16 all
s 120 check bash -c check_make
grep -E "a wait's CPU share|%:" $L/check.log | tee -a $L/summary.txt
s 180 gpu_tests python3 -m pytest -q -p no:cacheprovider grader/tests/test_gpu.py -k timed_run_over_the_lab
tail -3 $L/gpu_tests.log | tee -a $L/summary.txt
s 60 grade python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
    --json $L/grade33.json
python3 - "$L/grade33.json" <<'PY' | tee -a $L/summary.txt
import json, sys
r = json.load(open(sys.argv[1]))
for ex in r["exercises"]:
    for d in ex["parts"]["performance"].get("details") or []:
        print(ex["name"], "wall ms", d.get("phases_ms"), "cpu ms", d.get("phases_cpu_ms"))
PY
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

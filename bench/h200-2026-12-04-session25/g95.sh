#!/usr/bin/env bash
# Issue 15, session 25: the class of 100 with design note 55 and what session 24 built after
# its last call (the judge's flags read back at the gate, timing.phases_cpu_ms), fresh.
# First one grade of the 3.3 solution, alone: its report's phases_cpu_ms (one judge's CPU per
# phase, uncontended) and a check that the gate's switch to spinning works on the GPU; where
# that grade is not 63/63 the class is not run and the GPU tests say why. Then the class, as
# g91.sh. The Check and pytest GPU tests of session 24's changes run after the class's resume
# (g95b, this script with NAME=g95b and .scratch/class100 carried: RESUME=1).
# Run as: LIMIT=590 MARGIN=12 bash bench/h200-2026-12-04-session25/g95.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-590}
source bench/device_prelude.sh "${NAME:-g95}" "$1"
s 90 build make -k -j16 all
python3 -c 'from grader import cgroup; print("limits:", cgroup.status())' | tee -a $L/summary.txt
gpu_checks() {
    s $(($(left) / 2)) check bash -c check_make
    grep -E "a wait's CPU share|%:|Checks|Errors|Failures" $L/check.log | tail -20 | tee -a $L/summary.txt
    s $(($(left) - 10)) gpu_tests python3 -m pytest -q -p no:cacheprovider grader/tests/test_gpu.py \
        -k timed_run_over_the_lab
    tail -3 $L/gpu_tests.log | tee -a $L/summary.txt
}
if [ -z "${RESUME:-}" ]; then
    s 90 grade33 python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
        --json $L/grade33.json
    python3 - "$L/grade33.json" <<'PY' | tee -a $L/summary.txt
import json, sys
r = json.load(open(sys.argv[1]))
print("grade33 total", r.get("total"), "/", r.get("max"))
for ex in r["exercises"]:
    for d in ex["parts"]["performance"].get("details") or []:
        print(ex["name"], "wall ms", d.get("phases_ms"), "cpu ms", d.get("phases_cpu_ms"))
PY
    if ! python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["total"] != r["max"])' \
        "$L/grade33.json"; then
        echo "grade33 not full marks: the class is not run" | tee -a $L/summary.txt
        gpu_checks
        cat $L/summary.txt
        exit 0
    fi
fi
class_run 100
[ -n "${RESUME:-}" ] && gpu_checks
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

#!/usr/bin/env bash
# Issue 15, session 26, the call after g98 (the class of 100 on the tree of design note 57):
# what sessions 25 and 26 changed, on the H200, before the next class. One grade of the 3.3
# solution alone (its phases: the transpose's timed case now checks a sample, design note 58),
# the same with CUDA_MODULE_LOADING=EAGER (does the student's first launch, verify_run 278 ms
# in g98's matmul, load modules?), then every lab's solution graded and the selfcheck (the
# judges' input sets of note 56 in labs 3.1, 3.2, 3.4 and 3.5: first GPU run), the Check
# tests and test_gpu.py's timed run over the lab.
# Run as: LIMIT=440 bash bench/h200-2026-12-04-session26/g99.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-440}
source bench/device_prelude.sh "${NAME:-g99}" "$1"
s 90 build make -k -j16 all
phases() {
    python3 - "$1" <<'PY' | tee -a $L/summary.txt
import json, sys
r = json.load(open(sys.argv[1]))
print(sys.argv[1].rsplit("/", 1)[-1], "total", r.get("total"), "/", r.get("max"), r.get("timings_s"))
for ex in r["exercises"]:
    for d in ex["parts"]["performance"].get("details") or []:
        w = {k: round(v) for k, v in (d.get("phases_ms") or {}).items()}
        print(" ", ex["name"], "wall ms", w)
PY
}
s 60 grade33 python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
    --json $L/grade33.json
phases $L/grade33.json
s 60 grade33_eager env CUDA_MODULE_LOADING=EAGER python3 -m grader grade labs/3.3-tiling \
    --submission solutions/3.3-tiling --json $L/grade33_eager.json
phases $L/grade33_eager.json
s $(($(left) - 45)) gpucheck env STEPS="grade selfcheck" bash grader/gpu_check.sh $L/gpucheck
tail -30 $L/gpucheck/summary.txt | tee -a $L/summary.txt
s 30 check bash -c check_make
grep -E "a wait's CPU share|%:|Checks|Errors|Failures" $L/check.log | tail -8 | tee -a $L/summary.txt
s $(($(left) - 3)) gpu_tests python3 -m pytest -q -p no:cacheprovider grader/tests/test_gpu.py \
    -k timed_run_over_the_lab
tail -3 $L/gpu_tests.log | tee -a $L/summary.txt
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

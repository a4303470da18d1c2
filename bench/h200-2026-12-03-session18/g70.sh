#!/usr/bin/env bash
# Session 18, call 2 (LIMIT seconds): lab 3.2c timed with the move back to host memory outside
# the samples (cml_exercise.prepare_student / prepare_baseline, RUN of count 0): the Check tests
# (the GPU test that a prepare is outside the sample among them), then bench/calibrate.py over
# unified_memory: the solution 3 times and each known-bad fixture once, the alternatives once,
# then the same with 16 processes spinning on the 16 cores (a batch's CPU load while a grading
# holds the GPU: the page faults are served on the CPU), to set thresholds that keep their
# verdict in both.
set -uo pipefail
LIMIT=${LIMIT:-300}
source bench/device_prelude.sh g70 "$1"
s 90 build make -k -j16 all
[ -n "${NO_CHECK:-}" ] || s 60 check bash -c check_make
grep -sE "Checks|fail|prepare" $L/check.log | head -8
cal="python3 bench/calibrate.py --lab 3.2 --exercise unified_memory"
s 120 calib $cal --runs 3 --out $L/calib.json
s 60 calib-alt $cal --runs 0 --alternatives-only --out $L/calib-alt.json
for i in $(seq 16); do timeout 200 sh -c 'while :; do :; done' & done
s 120 calib-load $cal --runs 3 --out $L/calib-load.json
s 60 calib-alt-load $cal --runs 0 --alternatives-only --out $L/calib-alt-load.json
kill $(jobs -p) 2>/dev/null
python3 - $L <<'PY' | tee $L/figures.txt
import json, sys
from pathlib import Path
for name in ("calib", "calib-alt", "calib-load", "calib-alt-load"):
    p = Path(sys.argv[1]) / f"{name}.json"
    if not p.is_file():
        continue
    for variant, docs in json.loads(p.read_text())["labs"].get("3.2", {}).get("unified_memory", {}).items():
        for d in docs if isinstance(docs, list) else [docs]:
            m, t = d.get("metrics") or {}, d.get("timing") or {}
            print(name, variant, d.get("status"), {k: round(v, 3) for k, v in m.items()
                  if k.endswith("_ms") or k.endswith("ratio")},
                  {k: round(t[k]["median_ms"], 3) for k in ("student", "baseline") if isinstance(t.get(k), dict)})
PY
grep -h "unified_memory" $L/calib*.log
cat $L/summary.txt

#!/usr/bin/env bash
# Session 29: the class of 100 (bench/class_batch.py) with 16 gradings at once, the whole
# call given to it (design notes 59-61 and 65 together, first run on the H200), then the
# rows of its timed-out cases read from the class's own reports (lab 3.3's launch limit,
# note 65: "had a launch that did not finish within 10 s") instead of grading h01-h03 again.
# Run as: NAME=g105 LIMIT=592 MARGIN=20 bash bench/h200-2026-12-05-session29/g105.sh $OUT
# carrying .debs and .scratch/wheels (never .scratch/class100: it would resume a class).
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g105}" "$1"
s 60 build make -k -j16 all
CLASS_EXTRA="--jobs ${JOBS:-16}" class_run 100
# dmon's fb column, found by its name (since session 29 dmon prints the time of day first)
awk 'sub(/^#/, "") && / fb / { for (i = 1; i <= NF; i++) if ($i == "fb") c = i; next }
     /^#/ { next } c { print $c }' $L/dmon100.txt | sort -n | tail -1 |
    sed 's/^/GPU memory peak MB: /' | tee -a $L/summary.txt
python3 - .scratch/class100/grading-1 <<'PY' | tee -a $L/summary.txt
import json, sys
from pathlib import Path
for rep_path in sorted(Path(sys.argv[1]).glob("*/report.json")):
    rep = json.loads(rep_path.read_text())
    for ex in rep.get("exercises", []):
        for d in ex.get("parts", {}).get("correctness", {}).get("details", []):
            if d.get("status") == "timeout":
                print(rep_path.parent.name, ex["name"], d.get("size"), d.get("message"))
PY
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

#!/usr/bin/env bash
# Session 39 (2026-12-06): lab 3.4's reference solution graded whole on a GPU, its exercise 3.4c
# (stencil_readonly) remade in session 38 without a GPU run as the solution:
# 1. the build of lab 3.4 alone;
# 2. the whole grade of solutions/3.4-constant-texture (static, correctness, sanitizer,
#    performance), its JSON in $L/full.json;
# 3. bench/h200-2026-12-05-session38/g125.sh: the exercise graded twice around every
#    stencil_ro_* alternative's GPU test (the old reference, stencil_ro_ldg_per_tap_32x8, first),
#    with the ladder of ratios and % of the copy roof in summary.txt.
# Run as: LIMIT=300 bash bench/h200-2026-12-06-session39/g126.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-300}
source bench/device_prelude.sh "${NAME:-g126}" "$1"
LAB=3.4-constant-texture
s 90 build make -k -j16 common "build/$LAB/student/lab" "build/$LAB/solution/lab" \
    "build/$LAB/judge"
s 120 full python3 -m grader grade "labs/$LAB" --submission "solutions/$LAB" --json "$L/full.json"
python3 - "$L/full.json" <<'PY' | tee -a "$L/summary.txt"
import json, sys
r = json.load(open(sys.argv[1]))
print("full grade:", r.get("total"), "/", r.get("max"))
for ex in r["exercises"]:
    print(" ", ex["name"], {k: (v.get("status"), v.get("points")) for k, v in ex["parts"].items()})
PY
NEW="per_tap_32x8 rolling16_256x1 rolling8_128x1" LIMIT=$(($(left) - 5)) NAME=g126-ladder \
    bash bench/h200-2026-12-05-session38/g125.sh "$1"
cat "$L/summary.txt"
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

#!/usr/bin/env bash
# Session 36, g122: design note 85's crash series with and without its speculative second
# process, one submission graded alone by a batch (--jobs 1, no knobs: the batch's path, where
# run_judged_lab_cases runs), h16_host_memory_hog (every matmul case crashes) and
# k17_launch_grid_rounded_down, each twice, speculation on then off
# (harness.SPECULATE_CRASH_SERIES); their correctness seconds, and whether the two reports'
# correctness and sanitizer parts are the same (the timed figures differ run to run).
# Run as: NAME=g122 LIMIT=330 bash bench/h200-2026-12-05-session36/g122.sh $OUT
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g122}" "$1"
s 60 build make -k -j16 all
rm -rf /tmp/class100 && python3 bench/class_batch.py make --size 100 /tmp/class100 | tail -1
for sid in h16_host_memory_hog k17_launch_grid_rounded_down; do
    for mode in on off; do
        rm -rf "/tmp/alone-$mode-$sid"
        s 120 "alone-$mode-$sid" python3 -c "import sys
import grader.harness as h
h.SPECULATE_CRASH_SERIES = sys.argv[1] == 'on'
from grader import cli
sys.exit(cli.main(sys.argv[2:]))" "$mode" batch labs/3.3-tiling /tmp/class100/"$sid"* \
            --out "/tmp/alone-$mode-$sid" --seed 7 --jobs 1
    done
    python3 - "$sid" <<'PY' | tee -a "$L/summary.txt"
import json, sys
sid = sys.argv[1]
reps = {}
for mode in ("on", "off"):
    try:
        rep = json.load(open(f"/tmp/alone-{mode}-{sid}/{sid}/report.json"))
    except OSError as e:
        print(f"{sid} speculation {mode}: no report ({e})")
        continue
    row = json.load(open(f"/tmp/alone-{mode}-{sid}/{sid}/batch.json"))
    print(f"{sid} speculation {mode}: {rep['total']}/{rep['max']}, elapsed {row['elapsed_s']} s,",
          {k: round(v, 1) for k, v in rep["timings_s"].items()})
    reps[mode] = [(ex["name"], ex["parts"]["correctness"], ex["parts"]["sanitizer"])
                  for ex in rep["exercises"]]
if len(reps) == 2:
    print(f"{sid}: correctness and sanitizer parts the same: {reps['on'] == reps['off']}")
PY
done
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

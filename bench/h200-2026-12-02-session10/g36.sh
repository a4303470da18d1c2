#!/usr/bin/env bash
# Session 10, first call (prepared in session 9 as g36-prepared.sh),
# about 560 s: what session 9 changed after its last call, and the checks it cut short.
#   - issue 16: 3.2d's known-bad one_block and copy_once_stale at zero 0.45 / full 0.8 (g35
#     cut them off), with memcpy_to_symbol_address (3.4a, now measured, not scored);
#   - issues 13, 16: selfcheck 3.2 (3.2g with racecheck and synccheck), 3.3 and 3.4 with session 9's thresholds (3.3c 0.5 / 0.75; 3.4a
#     scored = false; 3.4c 0.40 / 0.60): every solution full marks, every skeleton 0;
#   - issue 15: a batch of 16 copies of the 3.3 solution with background work niced
#     (grader/run.py, BACKGROUND_NICE): compare each timed run's phases_ms (hello, timing)
#     with session 9's g32 (s01: hello 0.48-1.38 s per run; 354 s for the batch).
set -uo pipefail
source bench/device_prelude.sh g36 "$1"
s 60 build make -k -j16 all
s 150 knownbad python3 -m pytest -v -ra -m gpu -n 4 --tb=short grader/tests/test_known_bad.py -k "verdict and (one_block or copy_once_stale or memcpy_to_symbol)"
grep -E "PASSED|FAILED|SKIPPED" $L/knownbad.log | sed 's/.*test_known_bad.py:://' | sort -u
s 200 selfcheck-234 python3 -m grader selfcheck --lab 3.2 --lab 3.3 --lab 3.4 --json $L/selfcheck-234.json
tail -10 $L/selfcheck-234.log
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do cp -r solutions/3.3-tiling /tmp/class16/s$i; done
s $(left) batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
grep -E "graded again|strayed|batch:" $L/batch16.log; cat $L/batch16/gradebook.csv
python3 - "$L/batch16" <<'PY' | tee $L/phases.txt
import json, sys, pathlib
for rep in sorted(pathlib.Path(sys.argv[1]).glob("s*/report.json")):
    d = json.loads(rep.read_text())
    for ex in d["exercises"]:
        for row in ex["parts"]["performance"].get("details", []):
            ph = row.get("phases_ms") or {}
            print(rep.parent.name, ex["name"], row.get("wall_s"),
                  " ".join(f"{k}={v / 1000:.2f}" for k, v in ph.items()))
PY
cat $L/summary.txt

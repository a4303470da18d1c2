#!/usr/bin/env bash
# PREPARED, NOT RUN (session 11 had no device time left), about 420 s: design note 35's fix.
# full-check-minimal.patch cuts a full check set to one position in the student's process (as a
# sampled one already is) and makes lab 3.4's setups fill their references over check->n. It is
# applied here, on the device's copy only; land it (git apply, commit) when this call shows:
# - selfcheck 3.3 and 3.4: solutions full, skeletons 0;
# - every 3.4 known-bad fixture and 3.3's transpose fixtures their verdicts;
# - HELLO of transpose_tiled and of 3.4's exercises down (g48: 1.73 s; 3.05, 2.58, 1.02, 0.83 s).
# The fixtures also run for the first time with the GPU tests' FileGpuLock (design note 36).
set -uo pipefail
LIMIT=${LIMIT:-570}
source bench/device_prelude.sh g50 "$1"
git apply bench/h200-2026-12-02-session11/prepared/full-check-minimal.patch || { echo "patch does not apply" | tee -a $L/summary.txt; exit 1; }
s 60 build make -k -j16 all
s 60 check bash -c check_make
s 200 selfcheck-34-33 python3 -m grader selfcheck --lab 3.4 --lab 3.3 --json $L/selfcheck.json
tail -8 $L/selfcheck-34-33.log
python3 - $L/selfcheck.json > $L/phases.txt 2>&1 <<'PY'
import json, sys
for item in json.load(open(sys.argv[1])):
    rep = item.get("report") or {}
    print(item["lab"], item["variant"], rep.get("total"), rep.get("timings_s"))
    for ex in rep.get("exercises", []):
        for row in ex["parts"].get("performance", {}).get("details", []):
            ph = row.get("phases_ms") or {}
            print("  ", ex["name"], " ".join(f"{k}={v/1000:.2f}" for k, v in ph.items()))
PY
cat $L/phases.txt
s $(left) knownbad-34 python3 -m pytest -ra -m gpu -n 8 -k "3.4-constant-texture or transpose" grader/tests/test_known_bad.py
tail -6 $L/knownbad-34.log
cat $L/summary.txt
tar czf "$CML_OUT/g50.tgz" -C /tmp g50

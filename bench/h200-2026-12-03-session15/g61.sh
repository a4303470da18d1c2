#!/usr/bin/env bash
# Session 15, call 1 (about 570 s): issue 13, part 4 under design note 40's thresholds.
# - the alternatives of labs 3.3 and 3.4 (81 on the GPU), graded, their exercise only, in one
#   pass (session 12's alts.sh's pass, the third: g52 and g53 were the first two);
# - the known-bad fixtures of 3.3 and 3.4 that must lose performance points (12);
# - selfcheck of 3.3 and 3.4 (each solution full marks, each skeleton zero).
set -uo pipefail
LIMIT=${LIMIT:-570}
source bench/device_prelude.sh g61 "$1"
s 60 build make -k -j16 all
s 360 alts-3 python3 -m pytest -v -rA -m gpu -n 8 -p no:cacheprovider --tb=line \
    grader/tests/test_alternatives.py -k "keeps_its_points_on_the_gpu and (tiling or constant)"
grep -E "^[^ ]+: performance [0-9.]+/[0-9]+:" $L/alts-3.log | sort > $L/points-3.txt
echo "pass 3: $(grep -c . $L/points-3.txt) figures, $(grep -cE ' PASSED' $L/alts-3.log) passed, $(grep -cE ' FAILED' $L/alts-3.log) failed" | tee -a $L/summary.txt
grep -E " FAILED|^E " $L/alts-3.log | head -30
IDS=$(python3 - <<'PY'
import tomllib
from pathlib import Path
for lab in ("3.3-tiling", "3.4-constant-texture"):
    for p in sorted(Path("grader/tests/known_bad", lab).glob("*.toml")):
        if "performance" in tomllib.loads(p.read_text())["expect"]["lost"]:
            print(f"grader/tests/test_known_bad.py::test_known_bad_verdict[{lab}/{p.stem}]")
PY
)
echo "$IDS" | wc -l | sed 's/^/timed fixtures: /' | tee -a $L/summary.txt
s 150 knownbad-timed python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $IDS
tail -15 $L/knownbad-timed.log
s $(left) selfcheck python3 -m grader selfcheck --lab 3.3 --lab 3.4
tail -12 $L/selfcheck.log
cat $L/summary.txt

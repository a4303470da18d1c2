#!/usr/bin/env bash
# Session 17, call 3 (LIMIT seconds): this session's changes to the harness's runtime path
# (untimed runs wait blocking and do not poll; the empty-kernel server sleeps until its first
# RUN; a timed judge's result buffer page-locked) against every lab's verdicts: the Check tests
# (the GPU ones of the wait's schedule among them), selfcheck of labs 3.1, 3.2, 3.4 and 3.5 (lab
# 3.3: g67's batch), the known-bad fixtures that must lose performance points (all labs), then
# the other known-bad fixtures as far as the time allows.
set -uo pipefail
LIMIT=${LIMIT:-300}
source bench/device_prelude.sh "${CML_CALL:-g68}" "$1"  # session 18 re-ran it as g69
s 90 build make -k -j16 all
ids() {  # the known-bad fixtures' test ids; $1 = 1: those losing performance, 0: the others
    python3 - "$1" <<'PY'
import sys, tomllib
from pathlib import Path
want = sys.argv[1] == "1"
for p in sorted(Path("grader/tests/known_bad").glob("*/*.toml")):
    if ("performance" in tomllib.loads(p.read_text())["expect"]["lost"]) == want:
        print(f"grader/tests/test_known_bad.py::test_known_bad_verdict[{p.parent.name}/{p.stem}]")
PY
}
s 60 check bash -c check_make
grep -E "Checks|fail" $L/check.log | head -8
s 150 selfcheck python3 -m grader selfcheck --lab 3.1 --lab 3.2 --lab 3.4 --lab 3.5
tail -14 $L/selfcheck.log
s $(left) knownbad-perf python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $(ids 1)
tail -4 $L/knownbad-perf.log
s $(left) knownbad-other python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $(ids 0)
tail -4 $L/knownbad-other.log
cat $L/summary.txt

#!/usr/bin/env bash
# Session 13, call 2 (about 400 s): design note 37's judge loop (a judged run's cases may switch
# exercises) against every known-bad fixture that loses no performance point (all labs, untimed,
# 8 workers), and whether CUDA processes started together wait for each other (issue 15).
set -uo pipefail
LIMIT=${LIMIT:-400}
source bench/device_prelude.sh g55 "$1"
s 60 build make -k -j16 all
s 120 starts python3 bench/throughput/process_starts.py build/3.3-tiling/solution/lab 1 4 16
cat $L/starts.log
IDS=$(python3 - <<'PY'
import tomllib
from pathlib import Path
for p in sorted(Path("grader/tests/known_bad").glob("*/*.toml")):
    lost = tomllib.loads(p.read_text())["expect"]["lost"]
    if "performance" not in lost:
        print(f"grader/tests/test_known_bad.py::test_known_bad_verdict[{p.parent.name}/{p.stem}]")
PY
)
echo "$IDS" | wc -l | sed 's/^/untimed fixtures: /' | tee -a $L/summary.txt
s $(left) knownbad-untimed python3 -m pytest -ra -m gpu -n 8 $IDS
tail -15 $L/knownbad-untimed.log
cat $L/summary.txt

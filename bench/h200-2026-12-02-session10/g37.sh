#!/usr/bin/env bash
# Session 10, call 2: CPUs kept for the timed run (grader/cpus.py) and a timed run whose
# samples spread timed again (plausible.SPREAD_LIMIT), in the batch of 16 that g36 ran
# without them (g36: 3 of 64 timed runs spread 1.6-2.4x, 2 submissions lost points).
#   - the grader's affinity and the kept CPUs; taskset present;
#   - a batch of 16 copies of the 3.3 solution: gradebook, "timed twice" lines, each timed
#     run's spread and phases, and which CPU each judge / student's process ran on (ps psr,
#     sampled every second).
set -uo pipefail
source bench/device_prelude.sh g37 "$1"
s 60 build make -k -j16 all
{ nproc; which taskset; python3 -c "
import os; print('allowed', sorted(os.sched_getaffinity(0)))
from grader import cpus; print('kept', sorted(cpus.reserve()), 'grader now', sorted(os.sched_getaffinity(0)))"; } | tee $L/cpus.txt
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do cp -r solutions/3.3-tiling /tmp/class16/s$i; done
( while sleep 1; do date +%s; ps -eLo pid,tid,psr,ni,args | grep -E "judge .*--time|--serve" | grep -v grep | cut -c1-160; done ) > $L/psr.log 2>&1 &
SAMPLER=$!
s $(left) batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
kill $SAMPLER
grep -E "graded again|strayed|batch:" $L/batch16.log; cat $L/batch16/gradebook.csv
python3 - "$L/batch16" <<'PY' | tee $L/phases.txt
import json, sys, pathlib, re
for rep in sorted(pathlib.Path(sys.argv[1]).glob("s*/report.json")):
    d = json.loads(rep.read_text())
    for ex in d["exercises"]:
        p = ex["parts"]["performance"]
        m = re.search(r"([\d.]+) ms(?: median)?, p10.p90 ([\d.]+).([\d.]+) ms", p.get("info") or "")
        spread = float(m.group(1)) / float(m.group(2)) if m else None
        for row in p.get("details", []):
            ph = row.get("phases_ms") or {}
            print(rep.parent.name, ex["name"], p.get("points"), f"spread={spread:.3f}" if spread else "",
                  "RETIMED" if row.get("retimed") else "", row.get("wall_s"),
                  " ".join(f"{k}={v / 1000:.2f}" for k, v in ph.items()))
PY
python3 - $L/psr.log <<'PY' | tee $L/psr-summary.txt
import sys, collections
c = collections.Counter()
for line in open(sys.argv[1]):
    f = line.split(None, 4)
    if len(f) == 5 and f[2].isdigit():
        who = "student --serve" if "--serve" in f[4] else "judge --time"
        c[(who, f[3], int(f[2]))] += 1  # a timed run's student's process has ni 0
for (who, ni, cpu), n in sorted(c.items()):
    print(f"{who:16} ni {ni:>3} cpu {cpu:3} thread samples {n}")
PY
cat $L/summary.txt

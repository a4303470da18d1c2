#!/usr/bin/env bash
# Session 20, call 3 (LIMIT seconds, about 200): where a batch's timed set-ups go (design note
# 47's 28 s of the read phase): the judge's input-sets phase now split (`null_server`: the
# empty-kernel server's start; `baseline_check`); and what a process of the judge (cuBLAS
# loaded at its start) costs against the student's binary when 16 start at once.
# Run as: LIMIT=200 bash bench/h200-2026-12-03-session20/g82.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-200}
source bench/device_prelude.sh g82 "$1"
s 90 build make -k -j16 all
s 40 starts-judge python3 bench/throughput/process_starts.py build/3.3-tiling/judge 1 16
s 40 starts-lab python3 bench/throughput/process_starts.py build/3.3-tiling/solution/lab 1 16
head -3 $L/starts-judge.log | tee -a $L/summary.txt; head -5 $L/starts-lab.log | tee -a $L/summary.txt
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
watch_start 16
s $(left) batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
watch_stop
python3 bench/throughput/lock_trace.py $L/trace16.txt | tee -a $L/summary.txt
python3 - $L/batch16 <<'PY' | tee -a $L/summary.txt
import json, sys, glob, statistics
rows = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/s*/report.json"))]
print(len(rows), "reports, totals", sorted({(r["total"], r["max"]) for r in rows}))
for k in rows[0]["timings_s"]:
    v = [r["timings_s"][k] for r in rows]
    print(f"  {k}: median {statistics.median(v):.1f} min {min(v):.1f} max {max(v):.1f}")
for ex in rows[0]["exercises"]:
    ds = [d for r in rows for e in r["exercises"] if e["name"] == ex["name"]
          for d in e["parts"]["performance"].get("details") or []]
    out = {}
    for k in ("setup", "input_sets", "null_server", "baseline_check", "gate"):
        v = [d.get("phases_ms", {}).get(k) for d in ds if d.get("phases_ms", {}).get(k) is not None]
        if v:
            out[k] = (round(statistics.median(v)), round(min(v)), round(max(v)))
    print(" ", ex["name"], "ms (median, min, max):", out)
PY
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

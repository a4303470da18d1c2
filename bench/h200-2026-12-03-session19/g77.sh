#!/usr/bin/env bash
# Session 19, call 3 (about 150 s): g76's lone grade of 3.3's sgemm timed its samples in 10.8 s
# (batch16 in g75: 0.35 s; a lone grade in session 16's g65: 0.35 s), with 14 s of user and 13 s
# of system CPU. g76 ran it right after a pytest step cut by its limit, whose gradings' processes
# may have lived on: here on a quiet machine, `top` beside each run.
# Run as: LIMIT=200 bash bench/h200-2026-12-03-session19/g77.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-200}
source bench/device_prelude.sh g77 "$1"
s 90 build make -k -j16 all
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv > $L/apps-before.txt 2>&1
ps -eo pid,etime,pcpu,comm --sort=-pcpu | head -15 > $L/ps-before.txt
phases() {
    python3 - "$1" <<'PY' | tee -a $L/summary.txt
import json, sys
r = json.load(open(sys.argv[1]))
print(sys.argv[1].split("/")[-1], r["timings_s"])
for e in r["exercises"]:
    for d in e["parts"]["performance"].get("details") or []:
        print(" ", e["name"], d.get("wall_s"), {k: round(v) for k, v in (d.get("phases_ms") or {}).items()})
PY
}
for i in 1 2; do
    top -b -d 1 -w 512 > $L/top-sgemm$i.txt &
    T=$!
    s 60 sgemm$i python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
        --exercise sgemm --no-sanitizer --json $L/sgemm$i.json
    kill $T
    phases $L/sgemm$i.json
    python3 bench/throughput/top_by_command.py $L/top-sgemm$i.txt 1 | head -8 | tee -a $L/summary.txt
done
top -b -d 1 -w 512 > $L/top-lab.txt &
T=$!
s 90 lab python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
    --no-sanitizer --json $L/lab.json
kill $T
phases $L/lab.json
python3 bench/throughput/top_by_command.py $L/top-lab.txt 1 | head -8 | tee -a $L/summary.txt
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

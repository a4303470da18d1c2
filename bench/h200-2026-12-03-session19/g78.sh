#!/usr/bin/env bash
# Session 19, call 4 (about 150 s): g77's second lone grade of 3.3's sgemm timed its samples in
# 10.9 s (its first: 0.36 s), the judge, the student's process and the empty-kernel server each
# busy all along. Their timed part runs pinned to the 3 CPUs the grader keeps (grader/cpus.py):
# is a fourth busy thread there? Three lone grades with `top -H` (threads) beside each, then
# three with the grader on 7 CPUs (fewer than cpus.MIN_CPUS: nothing kept, nothing pinned).
# Run as: LIMIT=200 bash bench/h200-2026-12-03-session19/g78.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-200}
source bench/device_prelude.sh g78 "$1"
s 90 build make -k -j16 all
one() {  # $1 name, then the command's prefix
    local n=$1
    shift
    top -H -b -d 0.5 -w 512 > $L/top-$n.txt &
    local T=$!
    s 40 $n "$@" python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
        --exercise sgemm --no-sanitizer --json $L/$n.json
    kill $T
    python3 - $L/$n.json <<'PY' | tee -a $L/summary.txt
import json, sys
r = json.load(open(sys.argv[1]))
for e in r["exercises"]:
    for d in e["parts"]["performance"].get("details") or []:
        ph = d.get("phases_ms") or {}
        print("  timing_samples", round(ph.get("timing_samples", -1)), "ms; wall", d.get("wall_s"))
PY
    python3 bench/throughput/top_by_command.py $L/top-$n.txt 0.5 > $L/threads-$n.txt 2>&1
    head -9 $L/threads-$n.txt | tee -a $L/summary.txt
}
for i in 1 2 3; do one pinned$i env; done
for i in 1 2 3; do one unpinned$i taskset -c 0-6; done
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

#!/usr/bin/env bash
# Session 16, call 2 (LIMIT seconds): how the batch scales past one round of 16 gradings, after
# g63 cut a 3.3 grading's hold of the GPU from 7.53 to 5.03 s (issue 15):
# - two lone grades of the 3.3 solution, timed (the issue's target: 20 s with its build);
# - a batch of 48 copies of the 3.3 solution with the GPU lock's trace and the judge's phases.
set -uo pipefail
LIMIT=${LIMIT:-570}
source bench/device_prelude.sh g64 "$1"
s 60 build make -k -j16 all
for k in 1 2; do
    a=$(date +%s.%N)
    s 60 grade$k python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --json $L/grade$k.json
    echo "grade$k: $(python3 -c "print(round($(date +%s.%N) - $a, 1))") s" | tee -a $L/summary.txt
    tail -9 $L/grade$k.log | head -8
done
mkdir -p /tmp/class48; for i in $(seq -w 1 48); do rm -rf /tmp/class48/s$i; cp -r solutions/3.3-tiling /tmp/class48/s$i; done
export GRADER_GPU_LOCK_TRACE=$L/trace48.txt; s $(left) batch48 python3 -m grader batch labs/3.3-tiling /tmp/class48/s* --out $L/batch48
unset GRADER_GPU_LOCK_TRACE
python3 bench/throughput/lock_trace.py $L/trace48.txt | tee -a $L/summary.txt
python3 bench/h200-2026-12-02-session11/phases.py $L/batch48 > $L/phases48.txt 2>&1
cat $L/phases48.txt | tee -a $L/summary.txt
cut -d, -f1 --complement $L/batch48/gradebook.csv | sort | uniq -c | sort -rn | head -3 | tee -a $L/summary.txt
tail -5 $L/batch48.log
cat $L/summary.txt

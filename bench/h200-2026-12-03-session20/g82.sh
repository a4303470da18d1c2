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
python3 bench/throughput/batch_phases.py $L/batch16 | tee -a $L/summary.txt
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

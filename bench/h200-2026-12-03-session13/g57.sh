#!/usr/bin/env bash
# Session 13, call 4 (about 420 s): where a batch's wall time goes (issue 15).
# - one grade of the 3.3 solution, twice (the target: 20 s with its build), with its timings;
# - process_starts.py (fixed: each copy writes its own document): do CUDA processes started
#   together wait for each other?
# - the batch of 16 copies of the 3.3 solution again (g56: 213 s), with the GPU lock's trace
#   (GRADER_GPU_LOCK_TRACE): time held alone, drained for a waiting timed run, shared, idle;
# - the same with 8 jobs, as time allows.
set -uo pipefail
LIMIT=${LIMIT:-420}
source bench/device_prelude.sh g57 "$1"
s 60 build make -k -j16 all
for i in 1 2; do
    s 90 grade$i python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --json $L/grade$i.json --quiet
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('grade timings_s', {k: round(v, 1) for k, v in r['timings_s'].items()})" $L/grade$i.json | tee -a $L/summary.txt
done
s 60 starts python3 bench/throughput/process_starts.py build/3.3-tiling/solution/lab 1 4 16
cat $L/starts.log
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
export GRADER_GPU_LOCK_TRACE=$L/trace16.txt; s 300 batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
python3 bench/throughput/lock_trace.py $L/trace16.txt | tee -a $L/summary.txt
python3 bench/h200-2026-12-02-session11/phases.py $L/batch16 > $L/phases16.txt 2>&1
cut -c1-100 $L/batch16/gradebook.csv | sort | uniq -c | sort -rn | head -3
export GRADER_GPU_LOCK_TRACE=$L/trace16j8.txt; s $(left) batch16-j8 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --jobs 8 --out $L/batch16j8
python3 bench/throughput/lock_trace.py $L/trace16j8.txt | tee -a $L/summary.txt
cat $L/summary.txt

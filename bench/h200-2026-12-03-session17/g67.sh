#!/usr/bin/env bash
# Session 17, call 2 (LIMIT seconds): g66 found the batch's CPU taken by timed runs' empty-kernel
# servers polling their sockets while their judges waited at the gate (13 of 16 cores). This
# call: the servers sleep until their first RUN, the student's process and the judge poll only
# in timed runs, and a timed judge copies outputs back into page-locked memory; Check tests and
# the GPU test of a timed run; compute-sanitizer's cost per case (what a batch's sanitizer phase
# waits for); then a class of 100 copies of the 3.3 solution, as far as the time allows.
set -uo pipefail
LIMIT=${LIMIT:-585}
source bench/device_prelude.sh g67 "$1"
s 90 build make -k -j16 all
s 60 check bash -c check_make
grep -E "Checks|fail" $L/check.log | head -8
s 90 gputest python3 -m pytest -ra -m gpu -p no:cacheprovider "grader/tests/test_gpu.py::test_a_timed_run_over_the_lab_times_every_exercise"
tail -3 $L/gputest.log
s 60 sancase python3 bench/throughput/sanitizer_cost.py labs/3.3-tiling 0 build/3.3-tiling/solution/lab
cat $L/sancase.log
s 60 sanworkers python3 bench/throughput/sanitizer_cost.py labs/3.3-tiling 16 build/3.3-tiling/solution/lab -- --racecheck-num-workers 1
cat $L/sanworkers.log
mkdir -p /tmp/class100; for i in $(seq -w 1 100); do rm -rf /tmp/class100/s$i; cp -r solutions/3.3-tiling /tmp/class100/s$i; done
top -b -d 2 -w 512 > $L/top100.txt &
TOP=$!
nvidia-smi dmon -s u -d 2 > $L/dmon100.txt 2>&1 &
DMON=$!
export GRADER_GPU_LOCK_TRACE=$L/trace100.txt
a=$(date +%s)
s $(($(left) - 12)) batch100 python3 -m grader batch labs/3.3-tiling /tmp/class100/s* --out $L/batch100
echo "batch100: $(ls $L/batch100/*/report.json 2>/dev/null | wc -l) reports in $(($(date +%s) - a)) s" | tee -a $L/summary.txt
unset GRADER_GPU_LOCK_TRACE
kill $TOP $DMON
python3 bench/throughput/top_by_command.py $L/top100.txt 2 > $L/cpu100.txt
python3 bench/throughput/lock_trace.py $L/trace100.txt | tee -a $L/summary.txt
python3 bench/h200-2026-12-02-session11/phases.py $L/batch100 > $L/phases100.txt 2>&1
cat $L/phases100.txt $L/cpu100.txt | tee -a $L/summary.txt
cut -d, -f1 --complement $L/batch100/gradebook.csv | sort | uniq -c | sort -rn | head -3 | tee -a $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

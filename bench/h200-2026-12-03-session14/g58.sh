#!/usr/bin/env bash
# Session 14, call 1 (about 560 s): design note 39 (a batch's timed exercises in one judged run,
# one hold of the GPU) on the GPU.
# - Check tests (the judge's options) and the new GPU test of a timed run over lab 3.3;
# - the batch of 16 copies of the 3.3 solution with the GPU lock's trace (g56/g57: 213 s and
#   218 s, 64 holds of 2.25 s);
# - selfcheck of 3.3-3.5 (single grades: each exercise's own timed run, the judge's code
#   path rewritten around the cases).
set -uo pipefail
LIMIT=${LIMIT:-560}
source bench/device_prelude.sh g58 "$1"
s 60 build make -k -j16 all
s 60 check bash -c check_make
tail -3 $L/check.log
s 90 gputest python3 -m pytest -ra -m gpu -p no:cacheprovider "grader/tests/test_gpu.py::test_a_timed_run_over_the_lab_times_every_exercise"
tail -5 $L/gputest.log
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
export GRADER_GPU_LOCK_TRACE=$L/trace16.txt; s 240 batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
unset GRADER_GPU_LOCK_TRACE
python3 bench/throughput/lock_trace.py $L/trace16.txt | tee -a $L/summary.txt
python3 bench/h200-2026-12-02-session11/phases.py $L/batch16 > $L/phases16.txt 2>&1
cut -d, -f1-4 $L/batch16/gradebook.csv | sort | uniq -c | sort -rn | head -3 | tee -a $L/summary.txt
s $(left) selfcheck python3 -m grader selfcheck --lab 3.3 --lab 3.4 --lab 3.5
tail -12 $L/selfcheck.log
cat $L/summary.txt

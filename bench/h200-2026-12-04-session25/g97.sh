#!/usr/bin/env bash
# Prepared for session 26 (not run): what session 25 changed after its last call, on the
# H200 before the next class of 100. Every lab's solution graded (timed: each lab's judges
# make their input sets as design note 56 now does: set 1 drawn on the device, set 0 light
# for samples only; lab 3.4's jacobi_texture keeps a full set 0) and the selfcheck (every
# solution full marks, every skeleton zero), then the Check tests and test_gpu.py's timed
# run over the lab (its verify_run). Then the class of 100 with note 57 (a grading lets
# the waiting timed runs pass between its correctness and sanitizer runs): g96.sh with
# NAME=g98 LIMIT=590 MARGIN=12, resumed as NAME=g98b RESUME=1 with .scratch/class100.
# Run as: LIMIT=590 bash bench/h200-2026-12-04-session25/g97.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-590}
source bench/device_prelude.sh "${NAME:-g97}" "$1"
s 90 build make -k -j16 all
s $(($(left) / 2)) gpucheck env STEPS="grade selfcheck" bash grader/gpu_check.sh $L/gpucheck
tail -30 $L/gpucheck/summary.txt | tee -a $L/summary.txt
s $(($(left) / 2)) check bash -c check_make
grep -E "a wait's CPU share|%:" $L/check.log | tee -a $L/summary.txt
s $(($(left) - 10)) gpu_tests python3 -m pytest -q -p no:cacheprovider grader/tests/test_gpu.py \
    -k timed_run_over_the_lab
tail -3 $L/gpu_tests.log | tee -a $L/summary.txt
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

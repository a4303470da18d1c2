#!/usr/bin/env bash
# Prepared in session 27 (no GPU lent; not run). What session 27 changed, for every lab, before
# or after the class (g101):
# 1. every lab's solution graded and the selfcheck (gpu_check.sh's grade and selfcheck steps):
#    a timed judge now starts its empty-kernel server before its set-up and stops it on every
#    return (design note 61), for every lab's timed runs, lone grades included;
# 2. the Check tests (common/ changed: cml_judge.c, cml_worker.c) and test_gpu.py's timed run
#    over the lab (its null_server phase on the first case);
# 3. labs 3.1, 3.2, 3.4 and 3.5 each graded as a batch of its solution and known-bad fixtures
#    (bench/throughput/lab_batch.py): notes 59 and 60 change only a batch's grading (its
#    correctness in two judged runs side by side, its sanitizer tools side by side), which the
#    known-bad GPU tests (one exercise a grade) and the class (lab 3.3) never run for these
#    labs; as many labs as the call's time allows, 3.4 first (note 60 gave it runs over the
#    lab).
# Run as: LIMIT=590 bash bench/h200-2026-12-04-session27/g103.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-590}
source bench/device_prelude.sh "${NAME:-g103}" "$1"
s 90 build make -k -j16 all
s 280 gpucheck env STEPS="grade selfcheck" bash grader/gpu_check.sh $L/gpucheck
tail -30 $L/gpucheck/summary.txt | tee -a $L/summary.txt
s 40 check bash -c check_make
grep -E "Checks|Errors|Failures" $L/check.log | tail -8 | tee -a $L/summary.txt
s 60 gpu_tests python3 -m pytest -q -p no:cacheprovider grader/tests/test_gpu.py \
    -k timed_run_over_the_lab
tail -3 $L/gpu_tests.log | tee -a $L/summary.txt
for lab in 3.4-constant-texture 3.1-registers 3.5-project 3.2-global-memory; do
    [ "$(left)" -gt 60 ] || break
    s $(($(left) - 5)) "batch-$lab" python3 bench/throughput/lab_batch.py "$lab" "/tmp/lb-$lab"
    tail -1 "$L/batch-$lab.log" | tee -a "$L/summary.txt"
    grep "NOT as expected" "$L/batch-$lab.log" | tee -a "$L/summary.txt"
done
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

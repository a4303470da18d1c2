#!/usr/bin/env bash
# Prepared in session 27 (no GPU lent; not run). Each of labs 3.1, 3.2, 3.4 and 3.5 graded as a
# batch (its reference solution and every known-bad fixture, bench/throughput/lab_batch.py):
# design notes 59 and 60 change only a batch's grading (its correctness in two judged runs
# side by side, its sanitizer tools side by side), which the known-bad GPU tests (one
# exercise a grade) and the class of bench/class_batch.py (lab 3.3) never run for these labs.
# Run as: LIMIT=590 bash bench/h200-2026-12-04-session27/g103.sh $OUT (carrying .debs).
set -uo pipefail
LIMIT=${LIMIT:-590}
source bench/device_prelude.sh "${NAME:-g103}" "$1"
s 90 build make -k -j16 all
for lab in 3.1-registers 3.2-global-memory 3.4-constant-texture 3.5-project; do
    s $(($(left) - 5)) "batch-$lab" python3 bench/throughput/lab_batch.py "$lab" "/tmp/lb-$lab"
    tail -1 "$L/batch-$lab.log" | tee -a "$L/summary.txt"
    grep "NOT as expected" "$L/batch-$lab.log" | tee -a "$L/summary.txt"
done
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

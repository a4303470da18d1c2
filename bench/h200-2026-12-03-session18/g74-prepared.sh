#!/usr/bin/env bash
# PREPARED in session 18, NOT RUN: issue 15's measurement, the class of bench/class_batch.py
# extended to 100 (its 48 students: the solution, the skeleton, the 23 known-bad fixtures, 4
# alternatives, 17 hostile submissions, a unicode name, a zip slip; then the lab's 38
# alternatives, then 14 copies of the solution), graded once with the lock's trace, `top` and
# `nvidia-smi dmon` beside it, as far as LIMIT (about 585 s) allows; every verdict checked
# against expected.json (summary.txt). Session 17's g67 graded 60 copies of the solution in
# 492 s (8.2 s a submission); note 45 expects about 5.5 s with the set-up beside the untimed
# runs.
# Run as: LIMIT=585 bash bench/h200-2026-12-03-session18/g74-prepared.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-585}
source bench/device_prelude.sh g74 "$1"
s 90 build make -k -j16 all
rm -rf /tmp/class100 && python3 bench/class_batch.py make --size 100 /tmp/class100 | tee -a $L/summary.txt
watch_start 100
a=$(date +%s)
s $(($(left) - 15)) class100 python3 bench/class_batch.py run --once /tmp/class100 $L/class100
echo "class100: $(ls $L/class100/grading-1/*/report.json 2>/dev/null | wc -l) reports in $(($(date +%s) - a)) s" | tee -a $L/summary.txt
watch_stop
gzip -f $L/top100.txt
python3 bench/throughput/lock_trace.py $L/trace100.txt | tee -a $L/summary.txt
tail -3 $L/class100/summary.txt 2>/dev/null | tee -a $L/summary.txt
grep -c "NOT AS EXPECTED" $L/class100/summary.txt 2>/dev/null | sed 's/^/not as expected: /' | tee -a $L/summary.txt
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

#!/usr/bin/env bash
# Issue 15: the class of 100 after design note 49 (a grading ends at its hold alone, taking no
# shared hold again behind the queue of timed runs; g86, before it: 67 of 100 in 554 s, in
# waves; g84: 16 copies of the 3.3 solution in 91 s, about 5.4 s a submission): the class of
# bench/class_batch.py extended to 100 (the solution, the skeleton, the 23 known-bad fixtures,
# alternatives, 17 hostile submissions, a unicode name, a zip slip, the lab's 38 alternatives,
# copies of the solution), graded once with the lock's trace, `top` and `nvidia-smi dmon`, every
# verdict checked against expected.json (summary.txt). The grading's folder is
# .scratch/class100 (carried), and is sent back in $OUT: if a call's limit cuts the class,
# unpack it into .scratch/class100 here and run this again, which resumes it (the class's time
# is then the sum of the calls' grading walls, in summary.txt).
# Run as: LIMIT=585 bash bench/h200-2026-12-04-session21/g87.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-585}
source bench/device_prelude.sh g87 "$1"
s 90 build make -k -j16 all
rm -rf /tmp/class100 && python3 bench/class_batch.py make --size 100 /tmp/class100 | tail -2 | tee -a $L/summary.txt
mkdir -p .scratch/class100
watch_start 100
a=$(date +%s)
s $(($(left) - 25)) class100 python3 bench/class_batch.py run --once /tmp/class100 .scratch/class100
echo "class100: $(ls .scratch/class100/grading-1/*/report.json 2>/dev/null | wc -l) reports in $(($(date +%s) - a)) s (this call)" | tee -a $L/summary.txt
watch_stop
gzip -f $L/top100.txt
python3 bench/throughput/lock_trace.py $L/trace100.txt | tee -a $L/summary.txt
tail -3 .scratch/class100/summary.txt 2>/dev/null | tee -a $L/summary.txt
python3 bench/throughput/batch_phases.py .scratch/class100/grading-1 | tee -a $L/summary.txt
grep -c "NOT AS EXPECTED" .scratch/class100/summary.txt 2>/dev/null | sed 's/^/not as expected: /' | tee -a $L/summary.txt
cp -r .scratch/class100 $L/class100
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

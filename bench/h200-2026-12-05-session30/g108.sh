#!/usr/bin/env bash
# Prepared in session 29 (after its device time was spent), run in session 30. In order:
# 1. The four students of the class of 100 that no call of session 29 finished (h05's 10 GB
#    of stdout, h14's huge allocation, h16's 16 GiB of host memory, k15's 2048 threads a
#    block: each fails every case of an exercise, one process each), graded as a batch on
#    their own with design note 69 (a pass only once the grading's hold has lasted 15 s):
#    their verdicts, and how long they take (g106 had not finished them after 186 s).
# 2. The new known-bad fixture sgemm_as_matmul_tile graded (test_known_bad, lab.toml's size).
# 3. sgemm alone at 2048^3 and 4096^3 (bench/calibrate.py --size): the solution, its
#    known-bad fixtures (the new one must sit below zero = 20 % of cuBLAS at both sizes for
#    2048^3 to be a candidate) and its alternatives (g104: 61.1-89.3 % at 2048^3).
# Run as: LIMIT=430 bash bench/h200-2026-12-05-session30/g108.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-400}
source bench/device_prelude.sh "${NAME:-g108}" "$1"
s 60 build make -k -j16 all
rm -rf /tmp/class100 /tmp/tail4
python3 bench/class_batch.py make --size 100 /tmp/class100 | tail -1 | tee -a $L/summary.txt
watch_start 4
s 240 tail4 python3 bench/class_batch.py run --once --only h05,h14,h16,k15 \
    /tmp/class100 /tmp/tail4
watch_stop
grep -E "^[hk][0-9]|^grading|submissions," $L/tail4.log | tee -a $L/summary.txt
python3 bench/throughput/lock_trace.py $L/trace4.txt | head -8 | tee -a $L/summary.txt
cp -r /tmp/tail4 $L/tail4
# the phases of one timed run alone (hello, verify_run, baseline_alone)
for ex in matmul_tiled sgemm; do
    s 30 "doc-$ex" python3 bench/throughput/timed_doc.py 3.3-tiling "$ex"
done
s 90 knownbad python3 -m pytest -q -p no:cacheprovider grader/tests/test_known_bad.py \
    -k "sgemm_as_matmul_tile and verdict"
tail -2 $L/knownbad.log | tee -a $L/summary.txt
for n in 2048 4096; do
    [ "$(left)" -gt 40 ] || break
    s $(($(left) - 5)) "calibrate-$n" python3 bench/calibrate.py --lab 3.3 --runs 3 \
        --exercise sgemm --size "sgemm=$n,$n,$n" --out "$L/calibrate-$n.json"
    grep "^|" "$L/calibrate-$n.log" | tee -a "$L/summary.txt"
done
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

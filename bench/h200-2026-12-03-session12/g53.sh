#!/usr/bin/env bash
# Session 12, call 4 (about 560 s): the alternatives' second pass (as alts.sh, pass 2), then
# where a batch's untimed phase goes (issue 15): 16 copies of the 3.3 solution graded with
# --no-perf, then again with --jobs 4, GPU utilization every second (dmon-*.txt).
set -uo pipefail
LIMIT=${LIMIT:-560}
source bench/device_prelude.sh g53 "$1"
s 60 build make -k -j16 all
nvidia-smi dmon -s u -d 1 > $L/dmon-alts.txt 2>&1 &
DMON=$!
s 450 alts-2 python3 -m pytest -v -rA -m gpu -n 8 --tb=line grader/tests/test_alternatives.py -k keeps_its_points_on_the_gpu
kill $DMON
grep -E "^[^ ]+: performance [0-9.]+/[0-9]+:" $L/alts-2.log | sort > $L/points-2.txt
echo "pass 2: $(grep -c . $L/points-2.txt) figures, $(grep -cE ' PASSED' $L/alts-2.log) passed, $(grep -cE ' FAILED' $L/alts-2.log) failed" | tee -a $L/summary.txt
grep -E " FAILED" $L/alts-2.log | head -20
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
for jobs in 16 4; do
    nvidia-smi dmon -s u -d 1 > $L/dmon-untimed-j$jobs.txt 2>&1 &
    DMON=$!
    s $(left) untimed-j$jobs python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --no-perf --jobs $jobs --out $L/untimed-j$jobs
    kill $DMON
    python3 bench/h200-2026-12-02-session11/phases.py $L/untimed-j$jobs > $L/phases-j$jobs.txt 2>&1
    cat $L/phases-j$jobs.txt
done
cat $L/summary.txt
tar czf "$CML_OUT/g53.tgz" -C /tmp g53

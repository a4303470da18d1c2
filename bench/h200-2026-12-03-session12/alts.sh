#!/usr/bin/env bash
# Issue 13's last measurement: every alternative correct solution (93 on the GPU: 3.2 12,
# 3.3 37, 3.4 44) graded, its exercise only, in passes of pytest (-n 8 workers sharing the GPU
# through the GPU tests' lock file, design note 36). Usage: alts.sh OUT NAME FIRST_PASS:
# passes FIRST_PASS, FIRST_PASS+1, ... while the time left (LIMIT) holds one more at the
# length of the first. Each pass's points-P.txt: one line per alternative, its performance
# points and figure; the three passes' totals must be identical (issue 13, "Done when").
# GPU utilization every second in dmon.txt (nvidia-smi dmon: sm %, memory %).
set -uo pipefail
LIMIT=${LIMIT:-570}
source bench/device_prelude.sh "$2" "$1"
nvidia-smi dmon -s u -d 1 > $L/dmon.txt 2>&1 &
DMON=$!
s 60 build make -k -j16 all
p=$3
need=0
while [ "$(left)" -gt "$need" ]; do
    a=$(date +%s)
    s $(left) alts-$p python3 -m pytest -v -rA -m gpu -n 8 --tb=line grader/tests/test_alternatives.py -k keeps_its_points_on_the_gpu
    grep -E "^[^ ]+: performance [0-9.]+/[0-9]+:" $L/alts-$p.log | sort > $L/points-$p.txt
    echo "pass $p: $(grep -c . $L/points-$p.txt) figures, $(grep -cE ' PASSED' $L/alts-$p.log) passed, $(grep -cE ' FAILED' $L/alts-$p.log) failed" | tee -a $L/summary.txt
    grep -E " FAILED" $L/alts-$p.log | head -20
    need=$(( ($(date +%s) - a) + 10 ))
    p=$((p + 1))
done
kill $DMON
cat $L/summary.txt
tar czf "$CML_OUT/$2.tgz" -C /tmp "$2"

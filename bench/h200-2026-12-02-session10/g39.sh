#!/usr/bin/env bash
# Session 10, call 4 (the last 371 s of device time): lab 3.5 with image_pipeline's full
# credit at 6.5 / 1.9 % (g38: the reference measured 7.73 / 2.26 % once), selfcheck twice;
# then the other references graded once more while time is left (issue 13: same totals).
set -uo pipefail
LIMIT=${LIMIT:-250}
source bench/device_prelude.sh g39 "$1"
s 60 build make -k -j16 all
for r in 1 2; do
    s $(left) selfcheck-35-$r python3 -m grader selfcheck --lab 3.5 --json $L/selfcheck-35-$r.json
    tail -4 $L/selfcheck-35-$r.log
done
s $(left) selfcheck-31-3 python3 -m grader selfcheck --lab 3.1 --json $L/selfcheck-31-3.json
tail -4 $L/selfcheck-31-3.log
s $(left) selfcheck-34-3 python3 -m grader selfcheck --lab 3.4 --json $L/selfcheck-34-3.json
tail -4 $L/selfcheck-34-3.log
grep -ho "timed twice: the first run.s median was [0-9.]*x" $L/*.json | sort | uniq -c
grep -ho "image_pipeline.\{0,12\}performance [^|]*" $L/selfcheck-35-*.log | head
cat $L/summary.txt

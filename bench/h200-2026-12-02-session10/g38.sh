#!/usr/bin/env bash
# Session 10, call 3: selfcheck of every lab through `python3 -m grader` with this session's
# runtime path (CPUs kept for the timed run, a spread run timed again), and the same
# references graded again where time is left: their totals must not move (issue 13).
set -uo pipefail
LIMIT=${LIMIT:-585}
source bench/device_prelude.sh g38 "$1"
s 60 build make -k -j16 all
s $(left) selfcheck-all-1 python3 -m grader selfcheck --json $L/selfcheck-all-1.json
tail -14 $L/selfcheck-all-1.log
s $(left) selfcheck-31-2 python3 -m grader selfcheck --lab 3.1 --json $L/selfcheck-31-2.json
tail -4 $L/selfcheck-31-2.log
s $(left) selfcheck-35-2 python3 -m grader selfcheck --lab 3.5 --json $L/selfcheck-35-2.json
tail -4 $L/selfcheck-35-2.log
grep -ho "timed twice: the first run.s median was [0-9.]*x" $L/*.json $L/*.log | sort | uniq -c | head
cat $L/summary.txt

#!/usr/bin/env bash
# Session 10, call 5 (run as a one-line command with the last ~100 s of device time; kept here
# as a script): selfcheck 3.2 once more, its third grading this session (issue 13).
LIMIT=95 bash -c 'source bench/device_prelude.sh g40 "$0"; s 30 build make -k -j16 all; s $(left) selfcheck-32-3 python3 -m grader selfcheck --lab 3.2 --json $L/selfcheck-32-3.json; tail -4 $L/selfcheck-32-3.log; cat $L/summary.txt' "$1"

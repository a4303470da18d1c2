#!/usr/bin/env bash
# Session 9, first call (about
# 550 s): what session 8 changed without a GPU.
#   - the host-link check in timed runs only: selfcheck 3.2 (solution full marks on a-c, e;
#     d, f, g pending; skeleton 0) and every 3.2 fixture (device_to_device now loses
#     performance; copy_once_stale stateful; tma_no_cluster_sync's launch hint);
#   - the batch's re-grading of runs whose course figures stray (grader/class_figures.py):
#     16 copies of the 3.3 solution, every one 63/63, any "graded again" line in the log.
set -uo pipefail
source bench/device_prelude.sh g32 "$1"
s 60 build make -k -j16 all
s 60 check-tests bash -c check_make
grep -E "Checks|Failures|Errors" $L/check-tests.log | tail -6
s 80 selfcheck-3.2 python3 -m grader selfcheck --lab 3.2 --json $L/selfcheck-3.2.json
tail -12 $L/selfcheck-3.2.log
s 170 knownbad-3.2 python3 -m pytest -v -ra -m gpu -n 4 grader/tests/test_known_bad.py -k "verdict and 3.2"
grep -E "PASSED|FAILED|SKIPPED" $L/knownbad-3.2.log | sed 's/.*test_known_bad.py:://' | sort -u
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do cp -r solutions/3.3-tiling /tmp/class16/s$i; done
s $(left) batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
grep -E "graded again|strayed|batch:" $L/batch16.log; cat $L/batch16/gradebook.csv
cat $L/summary.txt

#!/usr/bin/env bash
# PREPARED, NOT RUN (session 10 had no device time left). Issue 13's last measurement: every
# alternative correct solution graded three times, with identical totals. 93 alternatives
# (3.2: 12, 3.3: 37, 3.4: 44) at about 11 s of the GPU each, so one pass is about 1000 s:
# one call per lab and pass (ARG 2: the lab, e.g. 3.3-tiling; ARG 3: the pass, 1-3), a pass
# per session. Compare the passes' `points.txt` (one line per alternative: its performance
# points and figure; every line must be the same in the three passes).
# The grader runs in pytest here, so no CPUs are kept (grader/cpus.py is for python3 -m
# grader). Since session 11 the gradings share the GPU through the GPU tests' lock file
# (FileGpuLock, design note 36): only their measuring parts queue, so a pass should take well
# under the 1000 s estimated above; it is also that lock's first run on the GPU.
set -uo pipefail
LIMIT=${LIMIT:-585}
source bench/device_prelude.sh "g41-$2-pass$3" "$1"
s 60 build make -k -j16 all
s $(left) alts python3 -m pytest -v -rA -m gpu -n 6 --tb=line grader/tests/test_alternatives.py -k "keeps_its_points_on_the_gpu and $2"
grep -E "^[^ ]+: performance [0-9.]+/[0-9]+:" $L/alts.log | sort > $L/points.txt
grep -cE "PASSED|FAILED" $L/alts.log; grep -E "FAILED" $L/alts.log | head -20
cut -d: -f1,2 $L/points.txt
cat $L/summary.txt

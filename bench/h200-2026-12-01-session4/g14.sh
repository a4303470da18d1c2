#!/usr/bin/env bash
# Session 4, GPU call 3: every known-bad verdict of labs 3.3, 3.4, 3.5 after the driver-owned
# setups, the counters and the race kinds.
set -uo pipefail
START=$(date +%s)
O=$1; mkdir -p "$O"; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$O/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$O/summary.txt"; }
left() { local l=$((${LIMIT:-560} - $(date +%s) + START)); echo $(( l > 5 ? l : 5 )); }
s 150 build make -j16 all
s 240 knownbad-3.3 python3 -m pytest -ra -m gpu -n 6 grader/tests/test_known_bad.py -k "3.3"
grep -E "passed|failed|FAILED" $O/knownbad-3.3.log | tail -8
s 100 knownbad-3.5 python3 -m pytest -ra -m gpu -n 6 grader/tests/test_known_bad.py -k "3.5"
grep -E "passed|failed|FAILED" $O/knownbad-3.5.log | tail -5
s $(left) knownbad-3.4 python3 -m pytest -ra -m gpu -n 6 grader/tests/test_known_bad.py -k "3.4"
grep -E "passed|failed|FAILED" $O/knownbad-3.4.log | tail -5
cat $O/summary.txt

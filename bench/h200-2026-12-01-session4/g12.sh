#!/usr/bin/env bash
# Session 4, GPU call 1: the driver-owned setups and the pristine-object build (Check with the
# GPU, selfcheck 3.1-3.3), ncu counters and racecheck reports recorded for issue 14, known-bad 3.1.
set -uo pipefail
START=$(date +%s)
O=$1; mkdir -p "$O"; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$O/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$O/summary.txt"; }
left() { local l=$((${LIMIT:-570} - $(date +%s) + START)); echo $(( l > 5 ? l : 5 )); }
s 150 build make -j16 all
s 70 check-tests make -j16 check-tests CHECK_CFLAGS="-I$D/usr/include" CHECK_LIBS="-L$D/usr/lib/x86_64-linux-gnu -lcheck -lsubunit -lm -lrt -lpthread"
grep -E "Checks|:F:|:E:" $O/check-tests.log | tail -8
mkdir -p $O/rec
s 150 record python3 .scratch/record.py $O/rec
tail -40 $O/record.log
s 130 selfcheck-3.3 python3 -m grader selfcheck --lab 3.3
tail -4 $O/selfcheck-3.3.log
s 90 selfcheck-3.1 python3 -m grader selfcheck --lab 3.1
tail -4 $O/selfcheck-3.1.log
s 80 selfcheck-3.2 python3 -m grader selfcheck --lab 3.2
tail -4 $O/selfcheck-3.2.log
s $(left) knownbad-3.1 python3 -m pytest -ra -m gpu -n 6 grader/tests/test_known_bad.py -k "3.1"
tail -15 $O/knownbad-3.1.log
cat $O/summary.txt

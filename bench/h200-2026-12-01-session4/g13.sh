#!/usr/bin/env bash
# Session 4, GPU call 2: selfcheck 3.4 and 3.5 after the driver-owned setups, Check with the GPU,
# known-bad 3.2 and the counter-diagnosed 3.3 fixtures.
set -uo pipefail
START=$(date +%s)
O=$1; mkdir -p "$O"; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$O/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$O/summary.txt"; }
left() { local l=$((${LIMIT:-575} - $(date +%s) + START)); echo $(( l > 5 ? l : 5 )); }
s 150 build make -j16 all
s 70 check-tests make -j16 check-tests CHECK_CFLAGS="-I$D/usr/include" CHECK_LIBS="-L$D/usr/lib/x86_64-linux-gnu -lcheck -lsubunit -lm -lrt -lpthread"
grep -E "Checks|:F:|:E:" $O/check-tests.log | tail -8
s 60 counters python3 -m pytest -ra -m gpu -n 2 grader/tests/test_known_bad.py -k "swizzled_column or unpadded_transpose"
tail -25 $O/counters.log
s 170 selfcheck-3.4 python3 -m grader selfcheck --lab 3.4
tail -4 $O/selfcheck-3.4.log
s 170 selfcheck-3.5 python3 -m grader selfcheck --lab 3.5
tail -4 $O/selfcheck-3.5.log
s $(left) knownbad-3.2 python3 -m pytest -ra -m gpu -n 5 grader/tests/test_known_bad.py -k "3.2"
tail -6 $O/knownbad-3.2.log
cat $O/summary.txt

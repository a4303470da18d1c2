#!/usr/bin/env bash
# Session 5, GPU call 2: fresh inputs per timed launch (issue 12) and roofs per exercise (issue 13
# part 1): Check with the GPU, selfcheck 3.3 and 3.4, the 3.3/3.4 fixtures that reach the timing
# or were left over from call 1.
set -uo pipefail
START=$(date +%s)
O=$1; mkdir -p "$O"; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap CML_KNOWN_BAD_REPORTS=/tmp/reports
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$O/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$O/summary.txt"; }
left() { local l=$((${LIMIT:-585} - $(date +%s) + START)); echo $(( l > 5 ? l : 5 )); }
s 150 build make -j16 all
s 70 check-tests make -j16 check-tests CHECK_CFLAGS="-I$D/usr/include" CHECK_LIBS="-L$D/usr/lib/x86_64-linux-gnu -lcheck -lsubunit -lm -lrt -lpthread"
grep -E "Checks|:F:|:E:" $O/check-tests.log | tail -8
s 140 selfcheck-3.3 python3 -m grader selfcheck --lab 3.3 --json $O/selfcheck-3.3.json
tail -4 $O/selfcheck-3.3.log
K="memo_by_fingerprint or memo_by_pointer or call_counting or sample_replay or skip_if_valid or side_stream or left_behind or swizzled_column or unpadded_transpose or constant_table_divergent or inplace_ignored or memcpy_into_array"
s 250 knownbad python3 -m pytest -ra -m gpu -n 8 --durations=30 grader/tests/test_known_bad.py -k "$K"
tail -25 $O/knownbad.log
s $(left) selfcheck-3.4 python3 -m grader selfcheck --lab 3.4 --json $O/selfcheck-3.4.json
tail -4 $O/selfcheck-3.4.log
(cd /tmp && tar czf $O/reports.tgz reports)
cat $O/summary.txt

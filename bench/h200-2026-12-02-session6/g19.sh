#!/usr/bin/env bash
# Next session, GPU call 1 (prepared in session 5): verify what session 5 committed after its
# last GPU call: the fresh checks' tolerance modes (CML_EX_LINEAR), the conflicts counter,
# the batch gate, lab 3.2c's draft figures, the 9 matmul alternatives.
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
K="unpadded_transpose or memo_by_fingerprint or zeroed_inputs or fir_ring_buffer or scale_rows_threadx"
s 200 knownbad python3 -m pytest -ra -m gpu -n 6 grader/tests/test_known_bad.py -k "$K"
tail -12 $O/knownbad.log; (cd /tmp && tar czf $O/reports.tgz reports)
s 130 selfcheck-3.3 python3 -m grader selfcheck --lab 3.3 --json $O/selfcheck-3.3.json
s 160 selfcheck-3.4 python3 -m grader selfcheck --lab 3.4 --json $O/selfcheck-3.4.json
s $(left) selfcheck-3.1 python3 -m grader selfcheck --lab 3.1 --json $O/selfcheck-3.1.json
cat $O/summary.txt
# call 2: selfcheck 3.5 and 3.2 (3.2c's figures: the judge's extra metrics), the matmul
# alternatives (pytest -m gpu grader/tests/test_alternatives.py -k matmul -n 4), a batch of
# bench/class_batch.py to measure the gate's gain.

#!/usr/bin/env bash
# Session 5, GPU call 3: fresh inputs after review (the baseline in the judge's own problem):
# Check, the fixtures on the fresh path and the ones left from call 1 (lab 3.5), the launch
# record and the hung kernel, selfcheck 3.3, then 3.1 as time allows.
set -uo pipefail
START=$(date +%s)
O=$1; mkdir -p "$O"; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap CML_KNOWN_BAD_REPORTS=/tmp/reports
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$O/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$O/summary.txt"; }
left() { local l=$((${LIMIT:-455} - $(date +%s) + START)); echo $(( l > 5 ? l : 5 )); }
s 150 build make -j16 all
s 70 check-tests make -j16 check-tests CHECK_CFLAGS="-I$D/usr/include" CHECK_LIBS="-L$D/usr/lib/x86_64-linux-gnu -lcheck -lsubunit -lm -lrt -lpthread"
grep -E "Checks|:F:|:E:" $O/check-tests.log | tail -8
K="memo_by_fingerprint or memo_by_pointer or call_counting or zeroed_inputs or sample_replay or pipeline_memo or pipeline_skip_if_valid or blur_halo_zero_padding or pipeline_border_clamped_once or sobel_no_barrier or u8_truncation"
s 210 knownbad python3 -m pytest -ra -m gpu -n 8 --durations=30 grader/tests/test_known_bad.py grader/tests/test_launch_record.py grader/tests/test_hostile.py -k "$K or record or infinite"
tail -22 $O/knownbad.log; (cd /tmp && tar czf $O/reports.tgz reports)
s 125 selfcheck-3.3 python3 -m grader selfcheck --lab 3.3 --json $O/selfcheck-3.3.json
tail -4 $O/selfcheck-3.3.log
s $(left) selfcheck-3.1 python3 -m grader selfcheck --lab 3.1 --json $O/selfcheck-3.1.json
tail -4 $O/selfcheck-3.1.log
cat $O/summary.txt

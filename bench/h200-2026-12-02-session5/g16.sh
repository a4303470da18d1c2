#!/usr/bin/env bash
# Session 5, GPU call 1: Check with the GPU, all 53 known-bad fixtures together (issue 14's
# last part; the GPU gradings take turns), the launch record and the hung kernel, selfcheck 3.5.
set -uo pipefail
START=$(date +%s)
O=$1; mkdir -p "$O"; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap CML_KNOWN_BAD_REPORTS=/tmp/reports
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$O/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$O/summary.txt"; }
left() { local l=$((${LIMIT:-580} - $(date +%s) + START)); echo $(( l > 5 ? l : 5 )); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $O/gpu.txt 2>&1
s 150 build make -j16 all
s 70 check-tests make -j16 check-tests CHECK_CFLAGS="-I$D/usr/include" CHECK_LIBS="-L$D/usr/lib/x86_64-linux-gnu -lcheck -lsubunit -lm -lrt -lpthread"
grep -E "Checks|:F:|:E:" $O/check-tests.log | tail -8
s 360 knownbad python3 -m pytest -ra -m gpu -n 10 --durations=60 grader/tests/test_known_bad.py grader/tests/test_launch_record.py grader/tests/test_hostile.py
tail -30 $O/knownbad.log
(cd /tmp && tar czf $O/reports.tgz reports)
s $(left) selfcheck-3.5 python3 -m grader selfcheck --lab 3.5
tail -4 $O/selfcheck-3.5.log
cat $O/summary.txt

#!/usr/bin/env bash
# Session 6, GPU call 4 (the last, about 320 s of device time left after the start): lab 3.4's
# solution after the lookup baseline's fix (a562040), lab 3.5's solution with the rebuilt blur
# and Sobel references (4d88786), one lab 3.3 grade with GRADER_ONE_PROCESS=1 (ed66590), the
# three rewritten 3.5 fixtures, then Check with the GPU if time is left. Logs in /tmp/g22,
# tarred into $OUT after each step.
set -uo pipefail
START=$(date +%s)
O=$1; L=/tmp/g22; mkdir -p "$O" $L; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap CML_KNOWN_BAD_REPORTS=$L/reports
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$L/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$L/summary.txt"; tar czf $O/g22.tgz -C /tmp g22; }
left() { local l=$((${LIMIT:-310} - $(date +%s) + START)); echo $(( l > 5 ? l : 5 )); }
s 100 build make -k -j16 all
s 110 grade-3.4 python3 -m grader grade labs/3.4-constant-texture --submission solutions/3.4-constant-texture --json $L/grade-3.4.json
tail -12 $L/grade-3.4.log
s 130 grade-3.5 python3 -m grader grade labs/3.5-project --submission solutions/3.5-project --json $L/grade-3.5.json
tail -14 $L/grade-3.5.log
export GRADER_ONE_PROCESS=1
s 70 one-process-3.3 python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --json $L/one-process-3.3.json
tail -8 $L/one-process-3.3.log
unset GRADER_ONE_PROCESS
s $(left) fixtures-3.5 python3 -m pytest -ra -m gpu -n 3 grader/tests/test_known_bad.py -k "blur_halo_zero_padding or blur_weights_host_pointer or sobel_no_barrier"
tail -5 $L/fixtures-3.5.log
s $(left) check-tests make -j16 check-tests CHECK_CFLAGS="-I$D/usr/include" CHECK_LIBS="-L$D/usr/lib/x86_64-linux-gnu -lcheck -lsubunit -lm -lrt -lpthread"
grep -E "Checks|:F:|:E:" $L/check-tests.log | tail -8
cat $L/summary.txt

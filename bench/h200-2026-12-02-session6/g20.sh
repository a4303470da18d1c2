#!/usr/bin/env bash
# Session 6, GPU call 2: why selfcheck 3.4 failed in g19 (its log did not come back), the
# judge's phases for one 3.3 grade, selfcheck 3.2 (3.2c/d figures), a batch of 8 copies of
# the 3.3 solution (the gate's effect, per-submission cost). Every log is kept in /tmp/g20 and
# tarred into $OUT after each step ($OUT returns only a few files per folder).
set -uo pipefail
START=$(date +%s)
O=$1; L=/tmp/g20; mkdir -p "$O" $L; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap CML_KNOWN_BAD_REPORTS=/tmp/reports
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$L/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$L/summary.txt"; tar czf $O/g20.tgz -C /tmp g20; cp $L/summary.txt $O/; }
left() { local l=$((${LIMIT:-585} - $(date +%s) + START)); echo $(( l > 5 ? l : 5 )); }
s 150 build make -k -j16 all
s 170 selfcheck-3.4 python3 -m grader selfcheck --lab 3.4 --json $L/selfcheck-3.4.json
tail -30 $L/selfcheck-3.4.log
s 100 grade-3.3 python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --json $L/grade-3.3.json
s 90 selfcheck-3.2 python3 -m grader selfcheck --lab 3.2 --json $L/selfcheck-3.2.json
tail -8 $L/selfcheck-3.2.log
for i in 1 2 3 4 5 6 7 8; do mkdir -p /tmp/class/s0$i; cp solutions/3.3-tiling/kernels.cu /tmp/class/s0$i/; done
s $(left) batch-8 python3 -m grader batch labs/3.3-tiling /tmp/class/s0* --out $L/batch --seed 7
cat $L/summary.txt

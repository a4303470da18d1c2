#!/usr/bin/env bash
# Session 6, GPU call 3 (a probe): lab 3.4's solution graded once with the judge's own errors
# named (c906d97), to find what failed in g19/g20.
set -uo pipefail
O=$1; L=/tmp/g21; mkdir -p "$O" $L; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$L/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$L/summary.txt"; tar czf $O/g21.tgz -C /tmp g21; }
s 150 build make -k -j16 build/3.4-constant-texture/solution/lab build/3.4-constant-texture/judge
s 120 grade-3.4 python3 -m grader grade labs/3.4-constant-texture --submission solutions/3.4-constant-texture --no-sanitizer --json $L/grade-3.4.json
tail -40 $L/grade-3.4.log

#!/usr/bin/env bash
# Session 7, GPU call 5: why lab 3.3's solution grade stopped with "the judge wrote no run document"
set -uo pipefail
O=$1; L=/tmp/g27; mkdir -p "$O" $L; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$L/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$L/summary.txt"; tar czf $O/g27.tgz -C /tmp g27; }
[ -x build/3.3-tiling/judge ] || s 100 build make -k -j16 all
ldd build/3.3-tiling/judge | grep -i cublas > $L/ldd.txt 2>&1; cat $L/ldd.txt
s 60 sgemm-on python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --exercise sgemm --no-sanitizer --json $L/sgemm-on.json
tail -25 $L/sgemm-on.log
s 60 sgemm-off env GRADER_ONE_PROCESS=0 python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --exercise sgemm --no-sanitizer --no-perf
tail -8 $L/sgemm-off.log
s 60 matmul-on python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --exercise matmul_tiled --no-sanitizer
tail -8 $L/matmul-on.log

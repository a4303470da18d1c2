#!/usr/bin/env bash
set -uo pipefail
O=$1; L=/tmp/g28; mkdir -p "$O" $L; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$L/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$L/summary.txt"; tar czf $O/g28.tgz -C /tmp g28; }
[ -x build/3.3-tiling/judge ] || s 100 build make -k -j16 all
s 40 sgemm-on-noperf python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --exercise sgemm --no-sanitizer --no-perf
tail -4 $L/sgemm-on-noperf.log
s 50 sgemm-off-perf env GRADER_ONE_PROCESS=0 python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --exercise sgemm --no-sanitizer --json $L/off-perf.json
grep -E "performance|cuBLAS|cublas|error" $L/sgemm-off-perf.log | head
s 20 judge-direct bash -c "build/3.3-tiling/judge --help 2>&1 | head -30"

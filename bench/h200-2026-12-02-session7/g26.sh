#!/usr/bin/env bash
# Session 7, GPU call 3: the one-process default and the single-grade pipeline, lab 3.3d sgemm.
set -uo pipefail
START=$(date +%s)
echo "tree as carried (no checkout)"
O=$1; L=/tmp/g26; mkdir -p "$O" $L; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap CML_KNOWN_BAD_REPORTS=$L/reports
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$L/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$L/summary.txt"; tar czf $O/g26.tgz -C /tmp g26; }
left() { local l=$((${LIMIT:-580} - $(date +%s) + START)); echo $(( l > 5 ? l : 5 )); }
rm -rf build; s 100 build make -k -j16 all
: s 30 sgemm-build bash -c "mkdir -p build/bench && nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -I labs/3.3-tiling -o build/bench/lab33_sgemm bench/roof/lab33_sgemm.cu solutions/3.3-tiling/kernels.cu labs/3.3-tiling/baselines.cu labs/3.3-tiling/reference.c -lcublas"
: s 90 sgemm-bench build/bench/lab33_sgemm
grep -v "^csv," $L/sgemm-bench.log | tail -20
s 150 selfcheck-3.3 python3 -m grader selfcheck --lab 3.3 --json $L/selfcheck-3.3.json
tail -6 $L/selfcheck-3.3.log
s 200 knownbad python3 -m pytest -v -ra -m gpu -n 2 grader/tests/test_known_bad.py -k "left_behind or sgemm_no_stage"
grep -E "PASSED|FAILED|SKIPPED|^E  " $L/knownbad.log | head -20
for f in $L/selfcheck-3.*.log; do tail -4 $f; done
cat $L/summary.txt

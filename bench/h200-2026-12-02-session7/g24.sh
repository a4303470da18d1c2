#!/usr/bin/env bash
# Next session, GPU call 2 (prepared in session 6): the 3.3 and 3.4 alternatives on the GPU
# (issue 13: each must keep the parts its expect.keeps names), then selfcheck of 3.3 and 3.4
# with GRADER_ONE_PROCESS=1 (timings: correctness, sanitizer side by side).
set -uo pipefail
START=$(date +%s)
# helpers edit the working tree meanwhile: run the committed tree (the device's copy only)
if git rev-parse HEAD >/dev/null 2>&1; then git rev-parse --short HEAD; git status --short | head -20; git checkout -q -- . && git clean -q -fd; git status --short | head -5; else echo "no .git on the device copy"; fi
O=$1; L=/tmp/g24; mkdir -p "$O" $L; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$L/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$L/summary.txt"; tar czf $O/g24.tgz -C /tmp g24; }
left() { local l=$((${LIMIT:-580} - $(date +%s) + START)); echo $(( l > 5 ? l : 5 )); }
s 100 build make -k -j16 all
s 330 alternatives python3 -m pytest -ra -m gpu -n 8 --durations=10 grader/tests/test_alternatives.py -k "3.3 or 3.4"
tail -30 $L/alternatives.log
s 20 zc-build bash -c "mkdir -p build/bench && nvcc -O3 -arch=sm_90 -I labs/3.2-global-memory -o build/bench/lab32_zero_copy bench/roof/lab32_zero_copy.cu"
s 60 zero-copy build/bench/lab32_zero_copy
grep -E "^threshold," $L/zero-copy.log
s $(left) selfcheck-3.3 env GRADER_ONE_PROCESS=1 python3 -m grader selfcheck --lab 3.3 --json $L/selfcheck-3.3.json
cat $L/summary.txt

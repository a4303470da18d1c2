#!/usr/bin/env bash
# Next session, GPU call 1 (prepared in session 6): every known-bad and hostile fixture with
# GRADER_ONE_PROCESS=1 (one judge and one student's process per exercise's correctness cases,
# design note 26): the verdicts must be the fixtures' expected ones, as with a pair per case;
# then Check with the GPU (3 of its cases expected error.by since session 6).
set -uo pipefail
START=$(date +%s)
# helpers edit the working tree meanwhile: run the committed tree (the device's copy only)
if git rev-parse HEAD >/dev/null 2>&1; then git rev-parse --short HEAD; git status --short | head -20; git checkout -q -- . && git clean -q -fd; git status --short | head -5; else echo "no .git on the device copy"; fi
O=$1; L=/tmp/g23; mkdir -p "$O" $L; export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap CML_KNOWN_BAD_REPORTS=$L/reports
D=/tmp/cml-debs; mkdir -p $D; for f in .debs/*.deb; do dpkg -x $f $D; done; export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() { local t=$1 n=$2; shift 2; local a=$(date +%s); timeout -k 5 $t "$@" > "$L/$n.log" 2>&1; echo "$n: exit $? in $(( $(date +%s) - a )) s" | tee -a "$L/summary.txt"; tar czf $O/g23.tgz -C /tmp g23; }
left() { local l=$((${LIMIT:-580} - $(date +%s) + START)); echo $(( l > 5 ? l : 5 )); }
s 100 build make -k -j16 all
s 60 check-tests make -j16 check-tests CHECK_CFLAGS="-I$D/usr/include" CHECK_LIBS="-L$D/usr/lib/x86_64-linux-gnu -lcheck -lsubunit -lm -lrt -lpthread"
grep -E "Checks|:F:|:E:" $L/check-tests.log | tail -8
export GRADER_ONE_PROCESS=1
s $(left) knownbad-one-process python3 -m pytest -ra -m gpu -n 10 --durations=15 grader/tests/test_known_bad.py grader/tests/test_hostile.py
tail -25 $L/knownbad-one-process.log
cat $L/summary.txt
# call 2: the 3.3 and 3.4 alternatives on the GPU (pytest -m gpu grader/tests/test_alternatives.py
# -n 8), selfcheck of every lab with GRADER_ONE_PROCESS=1 (timings), a batch of 16 (the gate
# and one process pair per exercise together), the 3.2d zero-copy sweep (bench/roof/README.md).

#!/usr/bin/env bash
# Session 12, call 2 (about 570 s), right after g50 on the warm machine: the batch of 16 copies
# of the 3.3 solution (as session 11's g45) after session 11's changes (cuBLAS checks, the read-back
# of uniform inputs, FileGpuLock) and design note 35's patch, applied here unless the tree has
# it; then 3.3's known-bad and hostile fixtures in the time left.
set -uo pipefail
LIMIT=${LIMIT:-570}
source bench/device_prelude.sh g51 "$1"
P=bench/h200-2026-12-02-session11/prepared/full-check-minimal.patch
if git apply --check $P 2>/dev/null; then git apply $P && echo "patch applied" | tee -a $L/summary.txt; fi
s 60 build make -k -j16 all
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
s 400 batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
python3 bench/h200-2026-12-02-session11/phases.py $L/batch16 > $L/phases.txt 2>&1
cat $L/phases.txt; cut -c1-100 $L/batch16/gradebook.csv 2>/dev/null
s $(left) knownbad-33 python3 -m pytest -ra -m gpu -n 8 -k "3.3-tiling" grader/tests/test_known_bad.py grader/tests/test_hostile.py
tail -8 $L/knownbad-33.log
cat $L/summary.txt
tar czf "$CML_OUT/g51.tgz" -C /tmp g51

#!/usr/bin/env bash
# Session 13, call 3 (about 330 s), right after g55: the batch of 16 copies of the 3.3 solution
# (as session 12's g51: 256 s, 16.0 s a submission) with design note 37's batch path (one
# judged run over the lab's correctness cases, one process per sanitizer tool over the lab).
set -uo pipefail
LIMIT=${LIMIT:-330}
source bench/device_prelude.sh g56 "$1"
s 60 build make -k -j16 all
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
nvidia-smi dmon -s u -d 1 > $L/dmon.txt 2>&1 &
DMON=$!
s $(left) batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
kill $DMON
python3 bench/h200-2026-12-02-session11/phases.py $L/batch16 > $L/phases.txt 2>&1
cat $L/phases.txt; cut -c1-100 $L/batch16/gradebook.csv 2>/dev/null
cat $L/summary.txt

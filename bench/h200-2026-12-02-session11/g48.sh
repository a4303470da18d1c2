#!/usr/bin/env bash
# Session 11, call 4 (about 480 s): the batch of 16 copies of the 3.3 solution (g45's, 317 s
# before this session's changes) with its phases, and selfcheck of every lab (the student's
# process now reads its inputs back from the judge's buffers in every lab).
set -uo pipefail
LIMIT=${LIMIT:-580}
source bench/device_prelude.sh g48 "$1"
s 60 build make -k -j16 all
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
s 330 batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
cp $L/batch16/gradebook.csv $L/gradebook.csv
python3 bench/h200-2026-12-02-session11/phases.py $L/batch16 > $L/phases.txt 2>&1
cat $L/gradebook.csv $L/phases.txt
s $(left) selfcheck-all python3 -m grader selfcheck --json $L/selfcheck-all.json
tail -14 $L/selfcheck-all.log
cat $L/summary.txt
tar czf "$CML_OUT/g48.tgz" -C /tmp g48

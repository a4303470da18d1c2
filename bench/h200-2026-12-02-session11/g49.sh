#!/usr/bin/env bash
# Session 11, call 5, as it was typed inline (223 s, the last device time): the batch of 16
# copies of the 3.3 solution under a 215 s limit. It was cut before any submission finished:
# every submission's timed runs queue at the gate in turn, so all finish near the end.
source bench/device_prelude.sh g49 $1 >/dev/null
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
make -j16 all >/dev/null 2>&1
s 215 batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
python3 bench/h200-2026-12-02-session11/phases.py $L/batch16 > $L/phases.txt 2>&1
cat $L/phases.txt; cat $L/batch16/gradebook.csv 2>/dev/null | cut -c1-80
tar czf $OUT/g49.tgz -C /tmp g49

#!/usr/bin/env bash
# Session 11, call 3 (about 450 s): every known-bad and hostile fixture of every lab (session
# 10's prepared g42) with this session's changes: lab 3.3's cuBLAS checks, the student's process
# reading its inputs back, the host buffer touched before the gate, the two 3.3 fixtures made
# current. Then transpose and conv2d graded alone: their phases (transpose's HELLO took 1.55 s
# against 0.53 s in g46).
set -uo pipefail
LIMIT=${LIMIT:-570}
source bench/device_prelude.sh g47 "$1"
s 60 build make -k -j16 all
s 480 knownbad-hostile python3 -m pytest -ra -m gpu -n 8 --durations=15 grader/tests/test_known_bad.py grader/tests/test_hostile.py
tail -30 $L/knownbad-hostile.log
grep -l "timed twice" $L/reports/* 2>/dev/null | head
for ex in transpose_tiled conv2d_tiled; do
  s 60 alone-$ex python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --exercise $ex --no-sanitizer --quiet --json $L/alone-$ex.json
  python3 -c "
import json,sys
r=json.load(open('$L/alone-$ex.json'))
for ex in r['exercises']:
    for row in ex['parts']['performance'].get('details',[]):
        print(ex['name'], row.get('wall_s'), ' '.join(f'{k}={v/1000:.3f}' for k,v in (row.get('phases_ms') or {}).items()))
" | tee -a $L/alone.txt
done
cat $L/summary.txt
tar czf "$CML_OUT/g47.tgz" -C /tmp g47

#!/usr/bin/env bash
# Session 41's second check (after g133):
# 1. the alone rule of plausible.exchange_slowed on a GPU for the first time: lab 3.3's solution
#    graded on transpose_tiled alone (control), then beside bench/left_behind/spin.cu, a process
#    an earlier run left behind outside any sandbox (every SM spun 30 ms a launch): expected
#    "disturbed timing" saying the GPU was already busy, after a second timing;
# 2. the padding experiment again with the child's own loop (no plain run of the lab: g133's
#    child slowed its parent far more than it padded), bench/exchange_pad.
# Run as: LIMIT=400 bash bench/h200-2026-12-06-session41/g134.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-400}
source bench/device_prelude.sh "${NAME:-g134}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build bash -c "rm -rf build && make -k -j16 all"
nvcc -O2 -arch=sm_90 bench/left_behind/spin.cu -o /tmp/spin 2>&1 | tee -a "$L/summary.txt"
s 60 control python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
    --exercise transpose_tiled --no-sanitizer --json "$L/control.json"
python3 bench/perf_summary.py "$L/control.json" control | tee -a "$L/summary.txt"
/tmp/spin 100 >"$L/spin.log" 2>&1 &
spinner=$!
sleep 3
s 120 busy python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
    --exercise transpose_tiled --no-sanitizer --json "$L/busy.json"
kill "$spinner" 2>/dev/null
wait "$spinner" 2>/dev/null
python3 bench/perf_summary.py "$L/busy.json" busy | tee -a "$L/summary.txt"
grep -E "disturbed|timed twice|already busy" "$L/busy.log" | cut -c1-400 | tee -a "$L/summary.txt"
[ "$(left)" -gt 100 ] && s "$(left)" pad bash bench/exchange_pad/run.sh "$L/pad" \
    "${PADS:-0:0 300:0 300:60 300:150}"
tail -8 "$L/pad.log" | tee -a "$L/summary.txt"
cat "$L/summary.txt"

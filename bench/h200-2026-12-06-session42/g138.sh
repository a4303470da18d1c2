#!/usr/bin/env bash
# Session 42's check on an H100 (the card that came is not the H200 issue 15's class needs):
# design note 97's batch path on a GPU for the first time. It has run on the fake GPU only
# (test_batch_strays, FAKE_BUSY_BEFORE).
# Four copies of lab 3.3's solution are graded as a batch (--jobs 4, --no-sanitizer) while
# ../left_behind/spin.cu spins every SM, a process outside any sandbox; a watcher stops the
# spinner once all four have their first report, before any grading again can time.
# Expected: each grading timed beside the spinner reads "disturbed timing" (the judge's own
# empty kernel far above 0.5 ms); the batch then grades it again, alone, after the class
# ("graded again, alone: ... busy ..."), and that grade has every performance point.
# Run as: LIMIT=400 bash bench/h200-2026-12-06-session42/g138.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-400}
source bench/device_prelude.sh "${NAME:-g138}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build bash -c "rm -rf build && make -k -j16 all"
nvcc -O2 -arch=sm_90 bench/left_behind/spin.cu -o /tmp/spin 2>&1 | tee -a "$L/summary.txt"
C=/tmp/g138-class
rm -rf "$C" && mkdir -p "$C"
for i in 1 2 3 4; do cp -r solutions/3.3-tiling "$C/s$i"; done
/tmp/spin 300 >"$L/spin.log" 2>&1 &
spinner=$!
# the watcher: the spinner stops once every student has a report (the class's first pass)
(
    while [ "$(ls "$L"/batch/s*/report.json 2>/dev/null | wc -l)" -lt 4 ]; do sleep 0.2; done
    kill "$spinner" 2>/dev/null
    echo "spinner stopped at $(date +%T): every student had a report" >>"$L/summary.txt"
) &
watcher=$!
sleep 3
s "$(left)" batch python3 -m grader batch labs/3.3-tiling "$C"/s1 "$C"/s2 "$C"/s3 "$C"/s4 \
    --out "$L/batch" --jobs 4 --no-sanitizer
kill "$spinner" "$watcher" 2>/dev/null
wait "$spinner" 2>/dev/null
cat "$L/spin.log" >>"$L/summary.txt"
grep -E "graded again|strayed again|not graded again|busy" "$L/batch.log" | cut -c1-600 |
    tee -a "$L/summary.txt"
tee -a "$L/summary.txt" <"$L/batch/gradebook.csv"
for i in 1 2 3 4; do
    python3 bench/perf_summary.py "$L/batch/s$i/report.json" "s$i" 2>&1 | tee -a "$L/summary.txt"
    grep -o "disturbed timing[^\"]*" "$L/batch/s$i/batch.json" 2>/dev/null | cut -c1-300 |
        tee -a "$L/summary.txt"
done
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
cat "$L/summary.txt"

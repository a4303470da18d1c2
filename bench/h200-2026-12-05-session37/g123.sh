#!/usr/bin/env bash
# Written in session 37 (2026-12-05), when no device was lent: the next GPU session's call after
# the class (bench/h200-2026-12-05-session36/g120.sh). It checks on a GPU what session 37 built
# without one:
# 1. the Check tests (common/ changed: cml_setup.c's host allocation failure is kind "host",
#    design note 84's leftovers);
# 2. the hostile fixture hostile_gpu_memory_hog graded alone (test_known_bad.py's GPU test:
#    design note 88, a judge out of GPU memory after its gate is timed again once the grade's
#    other runs are done, and then the student's: transpose_tiled's performance lost with
#    "the judge ran out of GPU memory while your process ran beside it");
# 3. lab 3.3's solution and every known-bad fixture, the hog among them, as one batch
#    (bench/throughput/lab_batch.py, --jobs 16): the hog's grading raised TimedOutOfMemory,
#    graded again alone after the class (note 88's batch path), every other verdict as
#    expected;
# 4. labs 3.5 and 3.2 as batches of their solution and known-bad fixtures, which session 29's
#    g103 did not reach (3.5 cut at 8 of 10, 3.2 not started), as far as the call's time allows.
# Run as: LIMIT=590 bash bench/h200-2026-12-05-session37/g123.sh $OUT (carrying .debs and
# .scratch/wheels). JOBS (session 39) sets the batches' --jobs, default 16. STEPS (session 38) picks the parts, default "check hog 3.3-tiling
# 3.5-project 3.2-global-memory" (the labs' batches by lab).
set -uo pipefail
LIMIT=${LIMIT:-590}
STEPS=" ${STEPS:-check hog 3.3-tiling 3.5-project 3.2-global-memory} "
on() { [[ $STEPS == *" $1 "* ]]; }
source bench/device_prelude.sh "${NAME:-g123}" "$1"
s 90 build make -k -j16 all
if on check; then
    s 40 check bash -c check_make
    grep -E "Checks|Errors|Failures" $L/check.log | tail -8 | tee -a $L/summary.txt
fi
if on hog; then
    s 120 hog_alone python3 -m pytest -q -p no:cacheprovider grader/tests/test_known_bad.py \
        -k "hostile_gpu_memory_hog"
    tail -3 $L/hog_alone.log | tee -a $L/summary.txt
fi
for lab in 3.3-tiling 3.5-project 3.2-global-memory; do
    on "$lab" || continue
    [ "$(left)" -gt 60 ] || break
    s $(($(left) - 5)) "batch-$lab" python3 bench/throughput/lab_batch.py "$lab" "/tmp/lb-$lab" \
        -- --jobs "${JOBS:-16}"
    tail -1 "$L/batch-$lab.log" | tee -a "$L/summary.txt"
    grep -E "NOT as expected|graded again, alone|again, alone" "$L/batch-$lab.log" |
        tee -a "$L/summary.txt"
    cp -r "/tmp/lb-$lab/out" "$L/lb-$lab" 2>/dev/null
done
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

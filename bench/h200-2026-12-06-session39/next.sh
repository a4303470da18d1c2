#!/usr/bin/env bash
# The next session's first call (written in session 39), whichever card comes. On an H200 with
# CLASS_OK=1: the class of 100 (issue 15's target; bench/h200-2026-12-05-session38/first.sh's
# H200 branch, detached: the second call is `bash bench/detached_call.sh wait 560 $OUT`).
# Otherwise: g128 (the hog's GPU test alone; lab 3.2's solution alone, unified_memory with the
# host's CPUs busy: design note 92), then lab 3.2's solution and fixtures as a batch at
# --jobs 8 to its end (g123's 3.2 step).
# Run as: CLASS_OK=1 bash bench/h200-2026-12-06-session39/next.sh $OUT (carrying .debs,
# .scratch/wheels), with the call's timeout at 600 s.
set -uo pipefail
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
if [[ $card == *H200* && ${CLASS_OK:-0} = 1 ]]; then
    exec bash bench/h200-2026-12-05-session38/first.sh "$1"
fi
LIMIT=${G128_LIMIT:-250} bash bench/h200-2026-12-06-session39/g128.sh "$1"
STEPS="3.2-global-memory" JOBS=8 LIMIT=${G123_LIMIT:-320} \
    bash bench/h200-2026-12-05-session37/g123.sh "$1"

#!/usr/bin/env bash
# Session 39's first call, whichever card comes. On an H200 with CLASS_OK=1: the class of 100
# (issue 15's target), detached over two calls (bench/detached_call.sh; the second call is
# `bash bench/detached_call.sh wait 560 $OUT`). Otherwise lab 3.4's solution graded whole and
# lab 3.4c's ladder (g126.sh), then the GPU-memory hog's alone re-grading and labs 3.5 and 3.2
# as batches (session 37's g123.sh) as far as time allows.
# Run as: CLASS_OK=1 bash bench/h200-2026-12-06-session39/first.sh $OUT (carrying .debs,
# .scratch/wheels).
set -uo pipefail
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
if [[ $card == *H200* && ${CLASS_OK:-0} = 1 ]]; then
    exec bash bench/h200-2026-12-05-session38/first.sh "$1" # its H200 branch: the class
else
    LIMIT=${G126_LIMIT:-280} bash bench/h200-2026-12-06-session39/g126.sh "$1"
    STEPS=${G123_STEPS:-"check hog 3.5-project 3.2-global-memory"} LIMIT=${G123_LIMIT:-290} \
        bash bench/h200-2026-12-05-session37/g123.sh "$1"
fi

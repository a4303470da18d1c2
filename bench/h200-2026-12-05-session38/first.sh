#!/usr/bin/env bash
# Session 38's first call, whichever card comes (device machines were scarce: five tries
# failed before it). On an H200: the class of 100 (issue 15's target), detached over two calls
# as session 36's README says. On an H100, where the class was graded twice in session 36:
# what session 37 built without a GPU, checked (g123.sh: the Check tests and lab 3.3's
# solution and known-bad fixtures as one batch, the GPU-memory hog among them), then lab 3.4c's
# designs measured (g125.sh).
# CLASS_OK=1 allows the class: the session's device time left must cover it (about 1150 s with
# the start); failed starts had cost 650 s of 1800 by then.
# Run as: CLASS_OK=1 bash bench/h200-2026-12-05-session38/first.sh $OUT (carrying .debs,
# .scratch/wheels).
set -uo pipefail
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
if [[ $card == *H200* && ${CLASS_OK:-0} = 1 ]]; then
    env GRADER_UNTIMED_AT_ONCE=8 GRADER_DRAIN_AT=8,20 GRADER_DRAIN_STOP_AFTER=4 NAME=g124 \
        LIMIT=1500 MARGIN=0 bash bench/detached_call.sh start 565 "$1" -- \
        bash bench/h200-2026-12-05-session36/g120.sh
else
    STEPS="check 3.3-tiling" LIMIT=${G123_LIMIT:-300} bash bench/h200-2026-12-05-session37/g123.sh "$1"
    LIMIT=${G125_LIMIT:-200} bash bench/h200-2026-12-05-session38/g125.sh "$1"
fi

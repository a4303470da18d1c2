#!/usr/bin/env bash
# Session 44's device call: on an H200, issue 15's class of 100 (session 40's next.sh,
# detached over two calls: the second, at once, `bash bench/detached_call.sh wait 560 $OUT`);
# on any other card, g150.sh (the grader's runtime path after this session's changes).
# Run as: bash bench/h200-2026-12-06-session44/next.sh $OUT (carrying .debs and .scratch/wheels).
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
case "$card" in
    *H200*) NAME=g151 CLASS_OK=1 bash bench/h200-2026-12-06-session40/next.sh "$1" ;;
    *) NAME=g150 bash bench/h200-2026-12-06-session44/g150.sh "$1" ;;
esac

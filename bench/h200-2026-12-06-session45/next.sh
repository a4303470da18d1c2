#!/usr/bin/env bash
# Session 45's device call: on an H200, issue 15's class of 100 (session 40's next.sh,
# detached over two calls: the second, at once, `bash bench/detached_call.sh wait 560 $OUT`);
# on any other card, g158.sh (lab 3.5's stage 1 timed as its card sets it up; g155, this
# session's runtime path, ran in session 45) unless ONLY_H200=1 (nothing run there).
# Run as: bash bench/h200-2026-12-06-session45/next.sh $OUT (carrying .debs and .scratch/wheels).
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
case "$card" in
    *H200*) NAME=g156 CLASS_OK=1 bash bench/h200-2026-12-06-session40/next.sh "$1" ;;
    *) [ "${ONLY_H200:-0}" = 1 ] && { echo "not an H200: nothing run"; exit 0; }
       NAME=g158 bash bench/h200-2026-12-06-session45/g158.sh "$1" ;;
esac

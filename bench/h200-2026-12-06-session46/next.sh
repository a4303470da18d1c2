#!/usr/bin/env bash
# Session 46's device call: on an H200, issue 15's class of 100 (session 40's next.sh,
# detached over two calls: the second, at once, `bash bench/detached_call.sh wait 560 $OUT`);
# on any other card g160.sh, this session's runtime path (the class ran whole on an H100 in
# session 41, 581 s; g158, the H100 branch of session 45's next.sh, ran in session 46), unless
# ONLY_H200=1 (nothing run there).
# Run as: bash bench/h200-2026-12-06-session46/next.sh $OUT (carrying .debs and .scratch/wheels).
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
case "$card" in
    *H200*) NAME=g159 CLASS_OK=1 bash bench/h200-2026-12-06-session40/next.sh "$1" ;;
    *) [ "${ONLY_H200:-0}" = 1 ] && { echo "not an H200: nothing run"; exit 0; }
       NAME=g160 bash bench/h200-2026-12-06-session46/g160.sh "$1" ;;
esac

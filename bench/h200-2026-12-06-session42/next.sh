#!/usr/bin/env bash
# Session 42's second device call: on an H200, issue 15's class of 100 (session 40's next.sh,
# detached over two calls: the second, at once, `bash bench/detached_call.sh wait 560 $OUT`);
# on any other card, ${FALLBACK:-g140}.sh (g138: design note 97's batch path beside a busy GPU,
# the third call; g140: the empty-kernel server killed; none: nothing, the card said).
# Run as: bash bench/h200-2026-12-06-session42/next.sh $OUT (carrying .debs and .scratch/wheels).
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
case "$card" in
    *H200*) NAME=g139 CLASS_OK=1 bash bench/h200-2026-12-06-session40/next.sh "$1" ;;
    *) [ "${FALLBACK:-g140}" = none ] && exit 0 # (only the card said)
       LIMIT=${LIMIT:-300} bash bench/h200-2026-12-06-session42/${FALLBACK:-g140}.sh "$1" ;;
esac

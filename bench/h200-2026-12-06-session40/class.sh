#!/usr/bin/env bash
# Session 40's call for the class (issue 15): on an H200 with CLASS_OK=1, session 38's
# first.sh (the class of 100, detached; the second call: `bash bench/detached_call.sh wait
# 560 $OUT`); on any other card it only names the card, spending no more device time.
set -uo pipefail
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
if [[ $card == *H200* && ${CLASS_OK:-0} = 1 ]]; then
    exec bash bench/h200-2026-12-05-session38/first.sh "$1"
fi

#!/usr/bin/env bash
# Session 40's first call after g128 (H100: lab 3.2c's on-demand baseline moved 7.7-11.1 ms
# between gradings of the same code alone, and not with the host's CPUs busy): the NUMA
# probe (bench/numa/run.sh: is the host node of the managed pages the cause?), then on an
# H200 with CLASS_OK=1 the class of 100 (issue 15), detached as session 38's first.sh does
# (the second call: `bash bench/detached_call.sh wait 560 $OUT`).
# Run as: CLASS_OK=1 bash bench/h200-2026-12-06-session40/first.sh $OUT (carrying .debs,
# .scratch/wheels).
set -uo pipefail
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
bash bench/numa/run.sh "$1" | tail -40
if [[ $card == *H200* && ${CLASS_OK:-0} = 1 ]]; then
    exec bash bench/h200-2026-12-05-session38/first.sh "$1"
fi

#!/usr/bin/env bash
# Issue 15, session 25: g95.sh's call (one grade of the 3.3 solution with its phases_cpu_ms,
# then the class of 100, fresh) on the tree with the judge's set-up cut (design note 56: the
# input set without a reference drawn on the device, the verified repetition's set checked at
# random positions only, huge pages asked for the large host buffers), logged as g96. The
# kernel's transparent-huge-page policy is written to $OUT/thp.txt first. Resume: NAME=g96b
# RESUME=1 with .scratch/class100 carried (then the GPU Check and pytest tests run after it).
# Run as: LIMIT=590 MARGIN=12 bash bench/h200-2026-12-04-session25/g96.sh $OUT
mkdir -p "$1"
for f in enabled defrag; do
    echo "$f: $(cat /sys/kernel/mm/transparent_hugepage/$f 2>&1)"
done >"$1/thp.txt"
NAME=${NAME:-g96} exec bash "$(dirname "$0")/g95.sh" "$@"

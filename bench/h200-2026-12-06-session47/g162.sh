#!/usr/bin/env bash
# Session 47: lab 3.2b's issue-order alternatives under today's judge (lab.toml's "TO DO ON A
# GPU" for overlap): breadth_first_issue and stream_major_issue graded for exercise overlap
# beside the solution, in turns, as long as LIMIT allows (the performance line of each: its
# ratio against the ramp zero 1.15 / full 1.6). Only on an H200 (the thresholds are the
# H200's); on another card nothing runs.
# Run as: LIMIT=150 bash bench/h200-2026-12-06-session47/g162.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
case "$card" in *H200*) ;; *) echo "not an H200: nothing run"; exit 0 ;; esac
source bench/device_prelude.sh "${NAME:-g162}" "$1"
echo "card: $card" >>"$L/summary.txt"
s 60 build bash -c "rm -rf build && make -k -j16 all"
for f in breadth_first_issue stream_major_issue; do
    python3 -c 'import sys; from pathlib import Path; from grader import fixtures
fixtures.apply(Path("."), Path(sys.argv[1]), Path(sys.argv[2]))' \
        "grader/tests/alternatives/3.2-global-memory/$f.toml" "/tmp/alt-$f"
done
for round in 1 2 3; do
    for sub in solution breadth_first_issue stream_major_issue; do
        [ "$(left)" -gt 25 ] || break 2
        src=/tmp/alt-$sub
        [ "$sub" = solution ] && src=solutions/3.2-global-memory
        s "$(left)" "$sub-$round" python3 -m grader grade labs/3.2-global-memory \
            --submission "$src" --exercise overlap --no-sanitizer
        grep -A1 -E "^  performance" "$L/$sub-$round.log" | cut -c1-200 | tee -a "$L/summary.txt"
    done
done

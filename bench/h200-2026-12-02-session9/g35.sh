#!/usr/bin/env bash
# Session 9, last call (budget about 500 s with the start): what this session changed without
# a GPU, most important first (LIMIT bounds the whole call).
#   - lab 3.2: zero_copy calibrated (zero 0.45, full 0.8), l2_persist and tma_cluster measured,
#     not scored (lab.toml scored = false): selfcheck complete, solution full marks, skeleton 0;
#     zero_copy's known-bad one_block and copy_once_stale, its alternative zero_copy_host_pointer;
#   - lab 3.4 stencil_constant timed at 2^27 (was 2^24) with zero 0.75 / full 0.92, and
#     stencil_readonly's ramp 0.45 / 0.65: the ten stencil_const alternatives and
#     stencil_ro_ldg_grid_stride, the ratios printed (-rA);
#   - lab 3.3 conv2d's ramp 0.5 / 0.75: the alternatives conv_tile32x32 and
#     conv_grid_stride_tiles keep it, the new known-bad conv_uncoalesced_columns loses it;
#   - the 3.4 solution's stencil_constant graded alone (its time at the new size).
set -uo pipefail
source bench/device_prelude.sh g35 "$1"
s 60 build make -k -j16 all
s 80 selfcheck-3.2 python3 -m grader selfcheck --lab 3.2 --json $L/selfcheck-3.2.json
tail -8 $L/selfcheck-3.2.log
s 60 sol-3.4-stencil python3 -m grader grade labs/3.4-constant-texture --submission solutions/3.4-constant-texture --exercise stencil_constant --no-sanitizer
grep -E "performance|score" $L/sol-3.4-stencil.log
s $(left) alts python3 -m pytest -rA -m gpu -n 6 --tb=short grader/tests/test_alternatives.py -k "on_the_gpu and (stencil_const or stencil_ro_ldg_grid_stride or conv_tile32x32 or conv_grid_stride or zero_copy_host_pointer)"
grep -E ": performance " $L/alts.log | sort -u; tail -3 $L/alts.log
s $(left) knownbad python3 -m pytest -v -ra -m gpu -n 4 --tb=short grader/tests/test_known_bad.py -k "verdict and (one_block or copy_once_stale or conv_uncoalesced or memcpy_to_symbol)"
grep -E "PASSED|FAILED|SKIPPED" $L/knownbad.log | sed 's/.*test_known_bad.py:://' | sort -u
cat $L/summary.txt

#!/usr/bin/env bash
# Session 18, call 4 (LIMIT seconds): issue 13's "graded three times, identical totals" for the
# alternatives: one pass of every alternative correct solution (labs 3.2, 3.3, 3.4: 94) in the
# GPU tests, the gradings side by side under the GPU tests' lock file (only their measuring
# parts queue; ALT_K narrows them, e.g. "tiling or global"), each one's performance points and
# figure written to figures/ (one file each, so that a pass cut short keeps what it measured).
# The passes to compare it with are later calls'. The first try lost its machine (nothing came
# back); the second ran with ALT_K="tiling or global" in the session's last 417 s.
set -uo pipefail
LIMIT=${LIMIT:-470}
source bench/device_prelude.sh g72 "$1"
s 60 build make -k -j16 all
export CML_ALTERNATIVE_FIGURES=$L/figures
s $(left) alts python3 -m pytest -v -rA -m gpu -n 12 -p no:cacheprovider --tb=line \
    grader/tests/test_alternatives.py -k "keeps_its_points_on_the_gpu and (${ALT_K:-tiling or global or constant})"
cat $L/figures/*.txt > $L/points.txt 2>/dev/null
echo "alts: $(grep -cE ' PASSED' $L/alts.log) passed, $(grep -cE ' FAILED' $L/alts.log) failed, $(wc -l < $L/points.txt) figures" | tee -a $L/summary.txt
grep -E " FAILED" $L/alts.log | head -10
cat $L/summary.txt

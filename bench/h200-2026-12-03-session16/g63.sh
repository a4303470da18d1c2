#!/usr/bin/env bash
# Session 16, call 1 (LIMIT seconds; steps in the order of their risk): host work out of a 3.3
# grading's hold of the GPU (issue 15):
# - the judge checks its baseline before the gate; an exact comparison that passes takes one
#   branch-free pass; the student's process gets zeros for lab 3.3's inputs (their host values
#   only made its never-compared reference) instead of reading 256 MB back at each HELLO;
# - Check tests (a new GPU one: zeros or the judge's values at a setup on imported buffers),
#   the GPU test of a timed run over lab 3.3;
# - the batch of 16 copies of the 3.3 solution with the GPU lock's trace and the judge's phases
#   (session 14's g58: 193 s, 16 holds of 7.53 s);
# - the 3.3 known-bad fixtures that must lose performance points, the alternative whose
#   launcher zeroes its inputs after use, selfcheck of lab 3.3 (a lone grade's time);
# - issue 13's third pass of the three 3.4 alternatives not yet reached.
set -uo pipefail
LIMIT=${LIMIT:-570}
source bench/device_prelude.sh g63 "$1"
s 60 build make -k -j16 all
s 60 check bash -c check_make
tail -3 $L/check.log
s 90 gputest python3 -m pytest -ra -m gpu -p no:cacheprovider "grader/tests/test_gpu.py::test_a_timed_run_over_the_lab_times_every_exercise"
tail -3 $L/gputest.log
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
export GRADER_GPU_LOCK_TRACE=$L/trace16.txt; s 240 batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
unset GRADER_GPU_LOCK_TRACE
python3 bench/throughput/lock_trace.py $L/trace16.txt | tee -a $L/summary.txt
python3 bench/h200-2026-12-02-session11/phases.py $L/batch16 > $L/phases16.txt 2>&1
cat $L/phases16.txt | tee -a $L/summary.txt
cut -d, -f1 --complement $L/batch16/gradebook.csv | sort | uniq -c | sort -rn | head -3 | tee -a $L/summary.txt
IDS=$(python3 - <<'PY'
import tomllib
from pathlib import Path
for p in sorted(Path("grader/tests/known_bad/3.3-tiling").glob("*.toml")):
    if "performance" in tomllib.loads(p.read_text())["expect"]["lost"]:
        print(f"grader/tests/test_known_bad.py::test_known_bad_verdict[3.3-tiling/{p.stem}]")
PY
)
echo "$IDS" | wc -l | sed 's/^/timed 3.3 fixtures: /' | tee -a $L/summary.txt
export CML_ALTERNATIVE_FIGURES=$L/figures
s 150 knownbad-timed python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $IDS \
    "grader/tests/test_alternatives.py::test_alternative_keeps_its_points_on_the_gpu[3.3-tiling/matmul_inputs_overwritten_after_use]"
tail -4 $L/knownbad-timed.log
s 120 selfcheck python3 -m grader selfcheck --lab 3.3
tail -8 $L/selfcheck.log
s $(left) alts python3 -m pytest -v -rA -m gpu -n 3 -p no:cacheprovider --tb=line \
    grader/tests/test_alternatives.py -k "keeps_its_points_on_the_gpu and (stencil_const_struct or stencil_ro_ldg_1d_256 or stencil_ro_restrict_32x8)"
cat $L/figures/*.txt > $L/points.txt 2>/dev/null
echo "alts: $(grep -cE ' PASSED' $L/alts.log) passed, $(grep -cE ' FAILED' $L/alts.log) failed" | tee -a $L/summary.txt
cat $L/summary.txt

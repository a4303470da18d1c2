#!/usr/bin/env bash
# Session 15, call 2 (LIMIT seconds; steps in the order of their risk): what session 14 changed after its GPU runs, and the
# batch's one timed run per grading over labs 3.1, 3.2, 3.4 and 3.5 (design note 39), never
# run on a GPU before:
# - Check tests (the worker frees a timing's extra inputs at the next HELLO; the judge's set-up
#   budget) and the GPU test of a timed run over lab 3.3;
# - a batch of copies of each lab's solution (3.2: seven timed exercises, past the judge's
#   6 GiB set-up budget, so `defer`), with the GPU lock's trace: how many holds alone;
# - issue 13's third pass, completed: the ten 3.4 alternatives g61 did not reach, and again,
#   for their figures, the alternatives nearest design note 40's thresholds;
# - the judge checks its baseline on its own input set 0 (the batches above run that check in
#   every timed exercise of every lab; the alternative matmul_inputs_overwritten_after_use, a
#   course-bug GraderError before, must now grade as the reference), and every known-bad
#   fixture that must lose performance points (all labs; two with expected words g61 found
#   stale).
set -uo pipefail
LIMIT=${LIMIT:-570}
source bench/device_prelude.sh g62 "$1"
s 60 build make -k -j16 all
batch() { # LAB N TIMEOUT
    local lab=$1 n=$2 t=$3 name
    name=$(basename $lab)
    rm -rf /tmp/class-$name; mkdir -p /tmp/class-$name
    for i in $(seq -w 1 $n); do cp -r solutions/$name /tmp/class-$name/s$i; done
    export GRADER_GPU_LOCK_TRACE=$L/trace-$name.txt
    s $t batch-$name python3 -m grader batch $lab /tmp/class-$name/s* --out $L/batch-$name
    unset GRADER_GPU_LOCK_TRACE
    echo "$name: $(python3 bench/throughput/lock_trace.py $L/trace-$name.txt | tr '\n' ' ')" | tee -a $L/summary.txt
    cut -d, -f1 --complement $L/batch-$name/gradebook.csv | sort | uniq -c | sort -rn | head -4 | tee -a $L/summary.txt
}
batch labs/3.2-global-memory 4 150
IDS=$(python3 - <<'PY'
import tomllib
from pathlib import Path
for p in sorted(Path("grader/tests/known_bad").glob("*/*.toml")):
    if "performance" in tomllib.loads(p.read_text())["expect"]["lost"]:
        print(f"grader/tests/test_known_bad.py::test_known_bad_verdict[{p.parent.name}/{p.stem}]")
PY
)
echo "$IDS" | wc -l | sed 's/^/timed fixtures: /' | tee -a $L/summary.txt
export CML_ALTERNATIVE_FIGURES=$L/figures
s 200 knownbad-timed python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $IDS \
    "grader/tests/test_alternatives.py::test_alternative_keeps_its_points_on_the_gpu[3.3-tiling/matmul_inputs_overwritten_after_use]"
tail -8 $L/knownbad-timed.log
batch labs/3.4-constant-texture 3 120
batch labs/3.5-project 2 90
batch labs/3.1-registers 2 60
s 60 check bash -c check_make
tail -3 $L/check.log
s 90 gputest python3 -m pytest -ra -m gpu -p no:cacheprovider "grader/tests/test_gpu.py::test_a_timed_run_over_the_lab_times_every_exercise"
tail -3 $L/gputest.log
s $(left) alts-3b python3 -m pytest -v -rA -m gpu -n 8 -p no:cacheprovider --tb=line \
    grader/tests/test_alternatives.py -k "keeps_its_points_on_the_gpu and (stencil_const_struct or stencil_const_taps_array or stencil_ro_ or matmul_dynamic_smem or matmul_template_padded or transpose_pad16 or conv_block_is_input or sgemm_blocktile_64x64 or jacobi_grid_stride or jacobi_normalized)"
cat $L/figures/*.txt > $L/points-3b.txt 2>/dev/null
echo "pass 3b: $(grep -c . $L/points-3b.txt) figures, $(grep -cE ' PASSED' $L/alts-3b.log) passed, $(grep -cE ' FAILED' $L/alts-3b.log) failed" | tee -a $L/summary.txt
grep -E " FAILED" $L/alts-3b.log | head
cat $L/summary.txt

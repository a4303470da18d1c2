#!/usr/bin/env bash
# Session 46: the grader's runtime path after this session's changes, on a GPU:
# - the build from scratch;
# - the new source warnings on their fixtures, through their GPU tests (verdicts as expected):
#   3.3's no_end_barrier (a tile loop without its end barrier) and launch_grid_rounded_down
#   (a grid dimension N / TILE), and early_return_matmul (the thread reading changed);
# - the solution's matmul without its first barrier (the read-after-write warning);
# - each of those graded for its exercise: the warning in the report beside the GPU's verdict;
# - lab 3.5's solution graded for resample_bilinear with --exercise (the spaces line: kernels
#   no launcher reaches left off).
# (The tests of the files changed read source and SASS only: they ran here, without a GPU.)
# Run as: NAME=g160 bash bench/h200-2026-12-06-session46/g160.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g160}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 80 build bash -c "rm -rf build && make -k -j16 all"
s 150 fixtures python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider \
    grader/tests/test_known_bad.py \
    -k "no_end_barrier or launch_grid_rounded_down or early_return_matmul"
tail -3 "$L/fixtures.log" | tee -a "$L/summary.txt"
for f in no_end_barrier launch_grid_rounded_down; do
    python3 -c 'import sys; from pathlib import Path; from grader import fixtures
fixtures.apply(Path("."), Path(sys.argv[1]), Path(sys.argv[2]))' \
        "grader/tests/known_bad/3.3-tiling/$f.toml" "/tmp/kb-$f"
    s 60 "grade-$f" python3 -m grader grade labs/3.3-tiling --submission "/tmp/kb-$f" \
        --exercise matmul_tiled
    grep -E "warning|^  (correctness|sanitizer)|^total" "$L/grade-$f.log" | cut -c1-240 \
        | tee -a "$L/summary.txt"
done
# the matmul without its first barrier (read-after-write; no fixture has it): the new warning
# beside what racecheck and correctness make of it
python3 - <<'PY'
from pathlib import Path
text = Path("solutions/3.3-tiling/kernels.cu").read_text()
at = text.index("__syncthreads(); // read-after-write", text.index("tile_b[ty][tx] ="))
Path("/tmp/kb-first").mkdir(exist_ok=True)
Path("/tmp/kb-first/kernels.cu").write_text(text[:at] + text[at + len("__syncthreads();"):])
PY
s 60 grade-first python3 -m grader grade labs/3.3-tiling --submission /tmp/kb-first \
    --exercise matmul_tiled
grep -E "warning|^  (correctness|sanitizer)|^total" "$L/grade-first.log" | cut -c1-240 \
    | tee -a "$L/summary.txt"
s 60 grade35 python3 -m grader grade labs/3.5-project --submission solutions/3.5-project \
    --exercise resample_bilinear --no-sanitizer
sed -n '/^  spaces/,/^  device/p' "$L/grade35.log" | cut -c1-160 | tee -a "$L/summary.txt"
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

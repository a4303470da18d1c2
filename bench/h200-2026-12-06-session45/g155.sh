#!/usr/bin/env bash
# Session 45: the grader's runtime path after this session's changes, on a GPU:
# - the build from scratch;
# - the new source warnings on their fixtures, through their GPU tests (verdicts as expected):
#   3.4d's unnormalized wrap (wrap_unnormalized), 3.3's early return under a thread's
#   condition (early_return_matmul, its message now shows the condition), 3.2's TMA cluster
#   and the breadth-first alternative (the card's wording changed);
# - lab 3.4's solution with texture_resample's cudaDestroyTextureObject taken out, graded:
#   the leak warning at the creation's line, and what the GPU makes of the leak;
# - lab 3.2's solution graded for async_copy (the spaces line's commit and wait);
# - lab 3.5 with stage 1 set up as TODO(3.5a) says (bench/variants/3.5-project/u8_memcpy2d.toml:
#   an 8-bit cudaArray filled by cudaMemcpy2DToArray, never run on a GPU before), graded
#   without the sanitizer: its correctness, and resample_bilinear's timing;
# - the tests of the files changed (test_lint, test_sass, test_launches) with the GPU.
# Run as: NAME=g155 bash bench/h200-2026-12-06-session45/g155.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g155}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 80 build bash -c "rm -rf build && make -k -j16 all"
s 150 fixtures python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider \
    grader/tests/test_known_bad.py grader/tests/test_alternatives.py \
    -k "wrap_unnormalized or early_return_matmul or breadth_first_issue or stream_major_issue"
tail -3 "$L/fixtures.log" | tee -a "$L/summary.txt"
leak=/tmp/leak34 && rm -rf "$leak" && mkdir -p "$leak"
grep -v "^            cudaDestroyTextureObject(tex);$" solutions/3.4-constant-texture/kernels.cu \
    >"$leak/kernels.cu"
diff solutions/3.4-constant-texture/kernels.cu "$leak/kernels.cu" | tee -a "$L/summary.txt"
s 60 grade34leak python3 -m grader grade labs/3.4-constant-texture --submission "$leak" \
    --exercise texture_resample --no-sanitizer
grep -E "warning|^texture_resample|total|score" "$L/grade34leak.log" | cut -c1-220 \
    | tee -a "$L/summary.txt"
s 45 grade32 python3 -m grader grade labs/3.2-global-memory --submission \
    solutions/3.2-global-memory --exercise async_copy --no-sanitizer
sed -n '/^  spaces/,/^  device/p' "$L/grade32.log" | cut -c1-160 | tee -a "$L/summary.txt"
grep -E "^total" "$L/grade32.log" | tee -a "$L/summary.txt"
v=/tmp/u8_memcpy2d && rm -rf "$v"
python3 -c 'import sys; from pathlib import Path; sys.path.insert(0, "."); from grader import fixtures
fixtures.apply(Path("."), Path("bench/variants/3.5-project/u8_memcpy2d.toml"), Path("/tmp/u8_memcpy2d"))'
s 100 grade35u8 python3 -m grader grade labs/3.5-project --submission "$v" --no-sanitizer
grep -E "^  (correctness|performance)|^[a-z_]+ +[0-9—]|total|warning" "$L/grade35u8.log" \
    | cut -c1-220 | tee -a "$L/summary.txt"
s 120 tests python3 -m pytest -ra -n 16 -p no:cacheprovider grader/tests/test_lint.py \
    grader/tests/test_sass.py grader/tests/test_launches.py
tail -3 "$L/tests.log" | tee -a "$L/summary.txt"
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

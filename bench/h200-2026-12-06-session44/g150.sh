#!/usr/bin/env bash
# Session 44: the grader's runtime path after this session's changes, on a GPU:
# - the build from scratch;
# - lab 3.2's pageable-buffer source warning (6556544): the known-bad fixtures of 3.2a and the
#   alternative host_register through their GPU tests (verdicts as expected), and the
#   solution's host_copy graded (no warning);
# - the spaces line with --exercise (32ffab2): lab 3.1's solution graded for hierarchy alone
#   (no kernel named) and for latency_ladder (chase_global_kernel and chase_shared_kernel);
# - the tests of the files changed (test_lint, test_sass, test_dist, test_status) with the GPU.
# Run as: NAME=g150 bash bench/h200-2026-12-06-session44/g150.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g150}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build bash -c "rm -rf build && make -k -j16 all"
s 150 fixtures32 python3 -m pytest -ra -m gpu -n 4 -p no:cacheprovider \
    grader/tests/test_known_bad.py grader/tests/test_alternatives.py \
    -k "pageable_staging or device_to_device or free_with_cudafree or host_register"
tail -3 "$L/fixtures32.log" | tee -a "$L/summary.txt"
s 60 grade32 python3 -m grader grade labs/3.2-global-memory --submission \
    solutions/3.2-global-memory --exercise host_copy
grep -E "warning|^host_copy|total" "$L/grade32.log" | cut -c1-200 | tee -a "$L/summary.txt"
for ex in hierarchy latency_ladder; do
    s 60 "grade31-$ex" python3 -m grader grade labs/3.1-registers --submission \
        solutions/3.1-registers --exercise "$ex" --no-sanitizer
    sed -n '/^  spaces/,/^  device/p' "$L/grade31-$ex.log" | cut -c1-160 | tee -a "$L/summary.txt"
    grep -E "^total" "$L/grade31-$ex.log" | tee -a "$L/summary.txt"
done
s 200 tests python3 -m pytest -ra -n 8 -p no:cacheprovider grader/tests/test_lint.py \
    grader/tests/test_sass.py grader/tests/test_dist.py grader/tests/test_status.py
tail -3 "$L/tests.log" | tee -a "$L/summary.txt"
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

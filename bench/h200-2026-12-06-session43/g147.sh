#!/usr/bin/env bash
# Session 43: the grader's runtime path after d86a514 and c99015a/14a818f on a GPU:
# - the build from scratch, and lab 3.3's solution graded (`make` given PYTHON=, the Makefile's
#   scoped dependency files; grader.stubs' lazy imports);
# - a batch of two (the 3.3 solution as s1 and s2, --no-sanitizer), then s2 resubmitted (a
#   comment added) and the same command again: s2 graded again, its first result kept in
#   grades/s2/history/<when>/ (grader.history), s1 kept as it was.
# Run as: NAME=g147 bash bench/h200-2026-12-06-session43/g147.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g147}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build bash -c "rm -rf build && make -k -j16 all"
s 60 grade33 python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
    --no-sanitizer --json "$L/grade33.json"
grep -E "^total|score" "$L/grade33.log" | tee -a "$L/summary.txt"
C=/tmp/g147-class
rm -rf $C && mkdir -p $C/s1 $C/s2
cp solutions/3.3-tiling/kernels.cu $C/s1/ && cp solutions/3.3-tiling/kernels.cu $C/s2/
s 120 batch1 python3 -m grader batch labs/3.3-tiling $C/s1 $C/s2 --out $C/grades --no-sanitizer
echo "// resubmitted" >> $C/s2/kernels.cu
s 120 batch2 python3 -m grader batch labs/3.3-tiling $C/s1 $C/s2 --out $C/grades --no-sanitizer
cp $C/grades/gradebook.csv "$L/gradebook.csv"
find $C/grades -path '*history*' -type f | sort | tee -a "$L/summary.txt"
grep -hE "s1|s2|history" "$L/batch2.log" | cut -c1-300 | tee -a "$L/summary.txt"
cat "$L/gradebook.csv" | tee -a "$L/summary.txt"
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

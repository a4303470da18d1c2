#!/usr/bin/env bash
# Session 44's last call: the grader's runtime path at the session's end, on a GPU:
# - the build;
# - a class of lab 3.3 (--no-sanitizer): the solution, the skeleton, and a .7z (a format the
#   grader does not extract: its student's "rejected:" row, 7b1a4f2), graded with the GPU;
#   then --out in the course's build/ and --out a student's folder, refused (91703c4);
# - dist-student from the carried tree (its .git may be older than the tree: the skeleton
#   check compares with the committed solution's generation, b53479c);
# - the tests of the files changed since g150 (test_batch, test_slurm, test_dist) with the GPU.
# Run as: NAME=g153 bash bench/h200-2026-12-06-session44/g153.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g153}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
C=/tmp/g153c
rm -rf $C && mkdir -p $C/sol $C/skel
cp solutions/3.3-tiling/kernels.cu $C/sol/ && cp labs/3.3-tiling/kernels.cu $C/skel/
echo "not extracted" >$C/erin.7z
s 90 build bash -c "make -k -j16 all"
s 150 batch python3 -m grader batch labs/3.3-tiling $C/sol $C/skel $C/erin.7z --out $C/grades \
    --no-sanitizer
tail -5 "$L/batch.log" | cut -c1-300 | tee -a "$L/summary.txt"
cp $C/grades/gradebook.csv "$L/" && tee -a "$L/summary.txt" <"$L/gradebook.csv"
s 30 outbuild python3 -m grader batch labs/3.3-tiling $C/sol --out build/g
s 30 outsub python3 -m grader batch labs/3.3-tiling $C/sol $C/skel --out $C/skel
for f in outbuild outsub; do tail -n 1 "$L/$f.log" | cut -c1-200 | tee -a "$L/summary.txt"; done
s 60 dist python3 -m grader dist-student --out /tmp/g153-release.tgz
tail -2 "$L/dist.log" | cut -c1-200 | tee -a "$L/summary.txt"
s 200 tests python3 -m pytest -ra -n 8 -p no:cacheprovider grader/tests/test_batch.py \
    grader/tests/test_slurm.py grader/tests/test_dist.py
tail -3 "$L/tests.log" | tee -a "$L/summary.txt"
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

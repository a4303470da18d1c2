#!/usr/bin/env bash
# bench/lab35_runs.sh LOGDIR — lab 3.5's raw H200 figures, beside `make gpu-check`'s grading:
#   runs/    the timed run document (JSON, docs/protocol.md) of every timed case of lab.toml,
#            for the naive starting code (build/3.5-project/student/lab) and the reference
#            (build/3.5-project/solution/lab), seed 1: each stage's median ms, GB/s, % of copy,
#            and the pipeline's ratio, % of copy and PSNR (2026-11-29, before the judge timed it)
#   images/  the reference's pipeline output and stage images at 512 x 512, radius 8
#            (CML_LAB35_WRITE, CML_LAB35_STAGES: harness.cu)
# Needs `make all` first. Each command has its own time limit; the log says what ran.
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=${1:?usage: bench/lab35_runs.sh LOGDIR}
mkdir -p "$LOG/runs" "$LOG/images"
B=build/3.5-project
run() { # run NAME CMD...: 120 s limit, stdout to runs/NAME.json, stderr to runs/NAME.err
    local name=$1
    shift
    timeout -k 5 120 "$@" >"$LOG/runs/$name.json" 2>"$LOG/runs/$name.err"
    echo "$name: exit $?" | tee -a "$LOG/runs.txt"
}
for v in student solution; do
    run "$v-resample" $B/$v/lab --exercise resample_bilinear --size 512,512,8192,8192 --time
    run "$v-blur" $B/$v/lab --exercise gaussian_blur --size 8192,8192,9 --time
    run "$v-sobel" $B/$v/lab --exercise sobel_magnitude --size 8192,8192 --time
    run "$v-pipeline" $B/$v/lab --exercise image_pipeline --size 8192,8192,9
done
CML_LAB35_WRITE=$LOG/images CML_LAB35_STAGES=1 timeout 60 $B/solution/lab \
    --exercise image_pipeline --size 512,512,9 >"$LOG/images/run.json" 2>"$LOG/images/run.err"
echo "images: exit $?" | tee -a "$LOG/runs.txt"

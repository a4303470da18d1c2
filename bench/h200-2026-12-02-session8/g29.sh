#!/usr/bin/env bash
# Session 8, call 1: build, Check, one 3.3 grade (timings; 3.3d fix, pipeline), calibration of
# 3.2c-g and 3.3d (solution x3, known-bad, alternatives), 3.2g on sm_80, sgemm bench runs 2-3.
set -uo pipefail
source bench/device_prelude.sh g29 "$1"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $L/gpu.txt
s 150 build make -k -j16 all
s 60 check-tests bash -c check_make
grep -E "Checks|Failures|Errors" $L/check-tests.log | tail -8
s 80 grade-3.3 python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --json $L/grade-3.3.json
tail -25 $L/grade-3.3.log
python3 -c "import json;d=json.load(open('$L/grade-3.3.json'));print('timings',d.get('timings'))"
s 260 calib-3.2 python3 bench/calibrate.py --runs 3 --lab 3.2 --exercise unified_memory --exercise zero_copy --exercise async_copy --exercise l2_persist --exercise tma_cluster --out $L/calib-3.2.json
grep "^|" $L/calib-3.2.log | head -60
s $(left) calib-3.3d python3 bench/calibrate.py --runs 3 --lab 3.3 --exercise sgemm --out $L/calib-3.3d.json
grep "^|" $L/calib-3.3d.log
s $(left) tma-sm80 python3 -m grader grade labs/3.2-global-memory --submission solutions/3.2-global-memory --exercise tma_cluster --arch sm_80 --no-sanitizer
tail -8 $L/tma-sm80.log
s $(left) sgemm-build bash -c "mkdir -p build/bench && nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -I labs/3.3-tiling -o build/bench/lab33_sgemm bench/roof/lab33_sgemm.cu solutions/3.3-tiling/kernels.cu labs/3.3-tiling/baselines.cu labs/3.3-tiling/reference.c -lcublas"
s $(left) sgemm-bench-2 build/bench/lab33_sgemm
s $(left) sgemm-bench-3 build/bench/lab33_sgemm
grep -v "^csv," $L/sgemm-bench-2.log | tail -12
cat $L/summary.txt

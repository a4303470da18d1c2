#!/usr/bin/env bash
# Session 20, call 4 (LIMIT seconds, about 120): which part of a small CUDA process waits for
# the others when 16 start at once (g57, g82: 16 plain cases take 10 times one, 16 bare
# contexts 2 times): bench/throughput/process_starts.py on lab 3.3's solution binary as it
# is, with every module loaded at the start (CUDA_MODULE_LOADING=EAGER), and with one
# hardware connection per context (CUDA_DEVICE_MAX_CONNECTIONS=1). compute-sanitizer is kept
# off the PATH (its rows are g80's).
# Run as: LIMIT=120 bash bench/h200-2026-12-03-session20/g83.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-120}
source bench/device_prelude.sh g83 "$1"
s 90 build make -k -j16 all
P=/usr/bin:/bin
s 30 default env PATH=$P python3 bench/throughput/process_starts.py build/3.3-tiling/solution/lab 1 16
s 30 eager env PATH=$P CUDA_MODULE_LOADING=EAGER python3 bench/throughput/process_starts.py build/3.3-tiling/solution/lab 1 16
s 30 conn1 env PATH=$P CUDA_DEVICE_MAX_CONNECTIONS=1 python3 bench/throughput/process_starts.py build/3.3-tiling/solution/lab 1 16
s 30 judge-conn1 env PATH=$P CUDA_DEVICE_MAX_CONNECTIONS=1 python3 bench/throughput/process_starts.py build/3.3-tiling/judge 1 16
for f in default eager conn1 judge-conn1; do echo "== $f"; cat $L/$f.log; done | tee -a $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

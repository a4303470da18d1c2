#!/usr/bin/env bash
# Session 33, the first call: design note 72's time-slice test (N processes launching small
# kernels and synchronising, all from one start, their round time against N: 8, 64 and 1024
# blocks of 256 threads), then sessions 30-32's runtime-path changes checked before the
# class: the Check tests on the GPU and every lab's selfcheck (solution and skeleton graded
# in full, under bubblewrap: the working-folder cap, the report's escaping, the sandbox's
# hidden paths, objdump through the runner, the launch reading of every lab's static rules).
# Run as: LIMIT=420 bash bench/h200-2026-12-05-session33/g111.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-420}
source bench/device_prelude.sh "${NAME:-g111}" "$1"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee -a $L/summary.txt
s 60 build make -k -j16 all
for b in 8 64 1024; do
    s 100 timeslice$b bash -c "timeslice_bench 3000 $b"
    sed "s/^/[$b blocks] /" $L/timeslice$b.log | tee -a $L/summary.txt
done
s 40 check bash -c check_make
grep -E "Checks|Errors|Failures" $L/check.log | tail -8 | tee -a $L/summary.txt
s $(($(left) - 5)) selfcheck env STEPS="selfcheck" bash grader/gpu_check.sh $L/gpucheck
grep -A14 "^lab  " $L/gpucheck/summary.txt | tee -a $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

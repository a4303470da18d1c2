#!/usr/bin/env bash
# Prepared for session 27 (not run). The class of 100 with 20 gradings at once (CLASS_EXTRA
# "--jobs 20"; the default is one per CPU, 16): g100's cohorts shrank to 5-10 from the hostile
# submissions on, their slots held by gradings waiting out a hung case or letting timed runs
# pass; with 16 the GPU's memory peaked at 90 GB of 143 (dmon), about 5.6 GB a grading, so 20
# should stay under 115 GB (dmon100.txt says). Then h01_kernel_infinite_loop graded alone
# (81 s of correctness in the class for one 30 s hang: where does the rest go?). First, 20 s:
# bench/throughput/first_launch.cu, a fresh process's first launch with the context's limits
# as they are and set before it (the student's first launch: ~270 ms of each hold).
# Run as: LIMIT=590 MARGIN=110 JOBS=20 bash bench/h200-2026-12-04-session26/g101.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-590}
source bench/device_prelude.sh "${NAME:-g101}" "$1"
s 90 build make -k -j16 all
first_launch() {
    nvcc -O2 -arch=sm_90 bench/throughput/first_launch.cu -o /tmp/first_launch || return 1
    for v in "" "stack 0" "spin" "stack 0 spin" "heap 1048576 fifo 1048576"; do
        for k in 1 2 3 4 5; do
            # shellcheck disable=SC2086
            echo "[$v] $(/tmp/first_launch $v 2>&1)"
        done
    done
}
export -f first_launch
s 60 first_launch bash -c first_launch
grep "first launch" $L/first_launch.log | tee -a $L/summary.txt
CLASS_EXTRA="--jobs ${JOBS:-20}" class_run 100
grep -v "^#" $L/dmon100.txt | awk '{print $8}' | sort -n | tail -1 | sed 's/^/GPU memory peak MB: /' |
    tee -a $L/summary.txt
s $(($(left) - 3)) h01 python3 -m grader grade labs/3.3-tiling \
    --submission /tmp/class100/h01_kernel_infinite_loop --json $L/h01.json
python3 -c 'import json,sys; print("h01 alone", json.load(open(sys.argv[1])).get("timings_s"))' \
    $L/h01.json | tee -a $L/summary.txt
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

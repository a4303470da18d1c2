#!/usr/bin/env bash
# Session 17, call 1 (LIMIT seconds): where a batch's untimed phase spends its CPU (issue 15), and
# the first change against it: untimed runs wait for the GPU blocking, not spinning
# (cml_device_schedule). .scratch/old holds commit 7dcf698's tree (the processes spin), built
# here for the sanitizer's A/B; the batch compares with session 16's g65 (143 s, holds 4.36 s).
set -uo pipefail
LIMIT=${LIMIT:-540}
source bench/device_prelude.sh g66 "$1"
s 90 build make -k -j16 all
s 90 oldbuild make -C .scratch/old -j16 build/3.3-tiling/solution/lab
s 60 check bash -c check_make
grep -E "Checks|fail" $L/check.log | head -8
s 10 sanhelp bash -c '$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer) --help'
s 200 sancost python3 bench/throughput/sanitizer_cost.py labs/3.3-tiling 16 \
    .scratch/old/build/3.3-tiling/solution/lab build/3.3-tiling/solution/lab
cat $L/sancost.log
top -b -d 1 -w 512 > $L/top-grade.txt &
TOP=$!
a=$(date +%s.%N)
s 60 grade1 python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --json $L/grade1.json
echo "grade1: $(python3 -c "print(round($(date +%s.%N) - $a, 1))") s" | tee -a $L/summary.txt
kill $TOP
python3 bench/throughput/top_by_command.py $L/top-grade.txt 1 > $L/cpu-grade.txt; cat $L/cpu-grade.txt
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
top -b -d 1 -w 512 > $L/top16.txt &
TOP=$!
nvidia-smi dmon -s u -d 1 > $L/dmon16.txt 2>&1 &
DMON=$!
export GRADER_GPU_LOCK_TRACE=$L/trace16.txt; s 200 batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
unset GRADER_GPU_LOCK_TRACE
kill $TOP $DMON
python3 bench/throughput/top_by_command.py $L/top16.txt 1 > $L/cpu16.txt
python3 bench/throughput/lock_trace.py $L/trace16.txt | tee -a $L/summary.txt
python3 bench/h200-2026-12-02-session11/phases.py $L/batch16 > $L/phases16.txt 2>&1
cat $L/phases16.txt $L/cpu16.txt | tee -a $L/summary.txt
cut -d, -f1 --complement $L/batch16/gradebook.csv | sort | uniq -c | sort -rn | head -3 | tee -a $L/summary.txt
for lab in 3.1 3.2 3.4 3.5; do
    s $(left) selfcheck$lab python3 -m grader selfcheck --lab $lab
    tail -4 $L/selfcheck$lab.log
done
cat $L/summary.txt

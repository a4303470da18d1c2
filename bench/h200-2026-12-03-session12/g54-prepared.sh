#!/usr/bin/env bash
# PREPARED, NOT RUN (session 12 had no device time left), about 500 s: design note 37 on the
# GPU, and what bounds a batch's untimed phase (issue 15).
# - check (its GPU tests include a plain run over two exercises) and selfcheck of 3.3-3.5 (the
#   judge's --case loop now switches exercises: every grading's correctness goes through it);
# - process_starts.py: do CUDA processes (and compute-sanitizer runs) started together wait
#   for each other? (all / one near N: serialized; near 1: not)
# - the untimed batch of 16 again (g53: 83 s with 16 jobs, 19 CUDA processes a grading
#   in it; now 5), with GPU use (dmon) and CPU use (vmstat) every second;
# - the correctness and sanitizer verdicts of a batch (one judged run and one process per tool
#   over the lab, note 37) against a single grade's, for the 3.3 solution, its four sanitizer
#   fixtures and five that fail correctness: every part must be the same.
# Then (further calls): the full batch of 16, as g51 (256 s), for the throughput; every known-bad
# and hostile fixture (the judge changed); the alternatives again (alts.sh).
set -uo pipefail
LIMIT=${LIMIT:-570}
source bench/device_prelude.sh g54 "$1"
S=bench/h200-2026-12-03-session12
s 60 build make -k -j16 all
s 60 check bash -c check_make
# every grading's correctness goes through the judge's --case loop, changed with note 37
s 200 selfcheck python3 -m grader selfcheck --lab 3.3 --lab 3.4 --lab 3.5
tail -8 $L/selfcheck.log
s 150 starts python3 bench/throughput/process_starts.py build/3.3-tiling/solution 1 4 16
cat $L/starts.log
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
nvidia-smi dmon -s u -d 1 > $L/dmon-untimed.txt 2>&1 &
DMON=$!
vmstat 1 > $L/vmstat-untimed.txt 2>&1 &
VMSTAT=$!
s 200 untimed-j16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --no-perf --jobs 16 --out $L/untimed-j16
kill $DMON $VMSTAT
python3 bench/h200-2026-12-02-session11/phases.py $L/untimed-j16 > $L/phases-untimed.txt 2>&1
cat $L/phases-untimed.txt
s $(left) batch-vs python3 $S/batch_vs_grade.py labs/3.3-tiling /tmp/g54-bvg halo_unguarded no_end_barrier sgemm_no_stage_barrier hostile_forged_document drop_k_tail early_return_matmul launch_2048_threads transpose_index_swapped conv_no_halo
tail -25 $L/batch-vs.log
cat $L/summary.txt
tar czf "$CML_OUT/g54.tgz" -C /tmp g54

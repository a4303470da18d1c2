#!/usr/bin/env bash
# Prepared in session 26, revised in session 27 (no GPU was lent then; not run). In order:
# 1. bench/throughput/first_launch.cu (20 s): a fresh process's first launch with the context's
#    limits as they are and set before it (stack 0, spin waits, small heap and printf FIFO):
#    the student's first launch costs ~270 ms of each hold (g98, g100), not module loading (g99).
#    FIRST=0 leaves it out.
# 2. The class of 100 with JOBS gradings at once (default 16, one per CPU: the batch's own
#    default), on the tree of design notes 59 and 60 (a grading's sanitizer tools, and its
#    correctness in two judged runs, side by side): its
#    pace against g100's (graded by 100 / 200 / 300 / 400 / 470 s: 15 / 30 / 47 / 67 / 76), its
#    drains (g100: 118 s of 474) and the GPU's memory peak (g100: 90 GB of 143 with 16; up to
#    three compute-sanitizer contexts a grading now). JOBS=20: g100's cohorts shrank to 5-10
#    from the hostile submissions on, slots held by gradings waiting out a hung case or letting
#    timed runs pass.
# 3. The class's three hangs graded alone, h01 (a kernel's infinite loop), h02 (a launcher's)
#    and h03 (a barrier deadlock): 81 s of correctness for h01 in g100's class for one 30 s
#    hang; since session 28 a launch has lab 3.3's launch_timeout_s, 10 s (design note 65):
#    each case row should read "had a launch that did not finish within 10 s". H01=0 leaves
#    them out.
# Run as, one call each:
#   NAME=g101 LIMIT=590 MARGIN=110 bash bench/h200-2026-12-04-session27/g101.sh $OUT
#   NAME=g102 LIMIT=590 MARGIN=25 JOBS=20 FIRST=0 H01=0 bash bench/h200-2026-12-04-session27/g101.sh $OUT
# carrying .debs (and .scratch/wheels); never .scratch/class100, which would resume a class.
set -uo pipefail
LIMIT=${LIMIT:-590}
source bench/device_prelude.sh "${NAME:-g101}" "$1"
s 90 build make -k -j16 all
if [ "${FIRST:-1}" = 1 ]; then
    s 60 first_launch bash -c "first_launch_bench 5"
    grep "first launch" $L/first_launch.log | tee -a $L/summary.txt
fi
CLASS_EXTRA="--jobs ${JOBS:-16}" class_run 100
grep -v "^#" $L/dmon100.txt | awk '{print $8}' | sort -n | tail -1 | sed 's/^/GPU memory peak MB: /' |
    tee -a $L/summary.txt
hang_alone() {  # one hostile submission graded alone: its timings and its timed-out rows
    s $(($(left) - 3)) "$1" python3 -m grader grade labs/3.3-tiling \
        --submission "/tmp/class100/$1" --json "$L/$1.json"
    python3 - "$L/$1.json" "$1" <<'PY' | tee -a $L/summary.txt
import json, sys
rep = json.load(open(sys.argv[1]))
print(sys.argv[2], "alone", rep.get("timings_s"))
for ex in rep["exercises"]:
    for d in ex["parts"]["correctness"]["details"]:
        if d["status"] in ("timeout", "not_run"):
            print("   ", ex["name"], d.get("size"), d["status"], d.get("message"))
PY
}
if [ "${H01:-1}" = 1 ]; then
    for h in h01_kernel_infinite_loop h02_host_infinite_loop h03_barrier_deadlock; do
        [ "$(left)" -gt 40 ] && hang_alone $h
    done
fi
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

#!/usr/bin/env bash
# Issue 15, design note 55: what the batch's read phase spends its CPUs on. g92 (the class of
# 100 with the untimed runs on every CPU, `cpus.everywhere`) graded fewer submissions than g91
# in the same time, its judges using 26 CPU-seconds a submission instead of 19: CPU that
# grows with the CPUs given is spent waiting, and a gated judge's set-up waited for the GPU
# spinning (CUDA's default schedule) beside the untimed runs. One call, one machine, three
# trees, each grading the same 16 submissions of the class (`--only`, one cohort):
#   A  g91's tree (02b0257): set-ups spin, untimed runs off the kept CPUs;
#   C  set-ups block until the gate (g93-blocking-set-up.patch), untimed runs off the kept CPUs;
#   B  both (this tree: set-ups block, untimed runs on every CPU).
# Each with the lock's trace and `top`; first the Check tests on the GPU (the new one: a gate
# turns a blocking context into a spinning one). Then A again while time is left (drift).
# Run as: LIMIT=470 bash bench/h200-2026-12-04-session24/g93.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-470}
source bench/device_prelude.sh "${NAME:-g93}" "$1"
HERE=$PWD
P=$HERE/bench/h200-2026-12-04-session24
ONLY=b06,b070,b071,b072,b073,b074,b075
for t in A C; do
    rm -rf /tmp/tree$t && mkdir -p /tmp/tree$t && tar cf - --exclude=./build --exclude=./.scratch . |
        tar xf - -C /tmp/tree$t
    (cd /tmp/tree$t && git apply -R "$P/g93-everywhere.patch") || echo "tree $t: patch failed" | tee -a $L/summary.txt
done
(cd /tmp/treeA && git apply -R "$P/g93-blocking-set-up.patch") || echo "tree A: patch 2 failed" | tee -a $L/summary.txt
s 60 build make -k -j16 all
s 60 buildA make -C /tmp/treeA -k -j16 all  # each tree's course built before its batch, as this one
s 60 buildC make -C /tmp/treeC -k -j16 all
s 120 check bash -c check_make
grep -E "a wait's CPU share|%:|timing_device" $L/check.log | tail -8 | tee -a $L/summary.txt
rm -rf /tmp/class100 && python3 bench/class_batch.py make --size 100 /tmp/class100 | tail -1
ab() {  # ab TREE TAG: the 16 graded from tree TREE, watched as TAG
    local t=$1 tag=$2 a
    [ "$(left)" -gt 110 ] || { echo "$tag: skipped, $(left) s left" | tee -a $L/summary.txt; return; }
    watch_start "$tag"
    a=$(date +%s)
    (cd "$t" && PYTHONPATH="$t" timeout -k 5 $(($(left) - 15)) python3 bench/class_batch.py run --once --only "$ONLY" \
        /tmp/class100 "/tmp/out$tag") >"$L/run$tag.log" 2>&1
    echo "$tag: exit $? in $(($(date +%s) - a)) s, $(ls /tmp/out$tag/grading-1/*/report.json 2>/dev/null | wc -l) reports" |
        tee -a $L/summary.txt
    watch_stop
    python3 bench/throughput/top_by_command.py "$L/top$tag.txt" 2 | head -6 | tee -a $L/summary.txt
    gzip -f "$L/top$tag.txt"
    python3 bench/throughput/lock_trace.py "$L/trace$tag.txt" | head -8 | tee -a $L/summary.txt
    python3 bench/throughput/batch_phases.py "/tmp/out$tag/grading-1" | head -8 | tee -a $L/summary.txt
    python3 bench/throughput/class_verdicts.py "/tmp/out$tag/grading-1" /tmp/class100/expected.json |
        grep -v "not graded" | tail -3 | tee -a $L/summary.txt
    mkdir -p "$L/out$tag" && cp /tmp/out$tag/grading-1/*.csv "$L/out$tag/" 2>/dev/null
    for d in /tmp/out$tag/grading-1/*/; do
        mkdir -p "$L/out$tag/$(basename "$d")" && cp "$d/report.json" "$L/out$tag/$(basename "$d")/" 2>/dev/null
    done
    tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
}
ab /tmp/treeA A
ab /tmp/treeC C
ab "$HERE" B
ab /tmp/treeA A2
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

# Sourced by the course's GPU-call scripts (bench/h200-*/g*.sh): `source bench/device_prelude.sh
# NAME OUT_DIR` on the device machine, from the repository root.
# - unpacks the .debs carried in .debs/ (Check, libsubunit, bubblewrap) into /tmp/cml-debs;
# - logs into /tmp/NAME and, after every step, tars that folder into OUT_DIR/NAME.tgz (at most
#   about 8 files per folder come back from the device: one archive carries everything);
# - s TIMEOUT STEP CMD...: runs one step, its output in /tmp/NAME/STEP.log, its exit status and
#   seconds appended to /tmp/NAME/summary.txt;
# - left: the seconds left of LIMIT (default 580) since the script started, at least 5;
# - check_make: `make check-tests` with the unpacked Check (a step: s 60 check bash -c check_make);
# - first_launch_bench RUNS: the first-launch benchmark, each variant in RUNS fresh processes;
# - ipc_first_launch_bench RUNS [ARGS]: the first launch of a fresh process that imported another
#   process's memory pool, each mode in RUNS fresh children;
# - known_bad_ids 1 / 0: the known-bad fixtures' GPU test ids, those losing performance or not.
# - watch_start TAG / watch_stop: top, nvidia-smi dmon, each process's GPU memory and the GPU
#   lock's trace beside a batch.
# - class_run SIZE: bench/class_batch.py's class graded, watched and checked (resumable).
# - gpu_memory_peak TAG: the largest fb (MB) in dmon's log of watch_start TAG.
# - class_of_100: the build, the class of 100 with --jobs ${JOBS:-16}, its memory peak and
#   where its holds went (bench/throughput/hold_gap.py); grade33_alone: one grade of the 3.3
#   solution with its build, knobs unset (issue 15's 20 s).
# A device machine keeps ignored build outputs between calls; their times can be newer than the
# sources carried, so the build step removes build/ first (session 7, g26a ran stale binaries).
CML_NAME=$1
CML_OUT=$2
CML_START=$(date +%s)
L=/tmp/$CML_NAME
mkdir -p "$CML_OUT" "$L"
export PYTHONUNBUFFERED=1 GRADER_SANDBOX=bwrap CML_KNOWN_BAD_REPORTS=$L/reports
D=/tmp/cml-debs
mkdir -p $D
for f in .debs/*.deb; do dpkg -x "$f" $D; done
export PATH=$D/usr/bin:$PATH
export PYTHONPATH=$PWD/.scratch/wheels:$PWD LD_LIBRARY_PATH=$D/usr/lib/x86_64-linux-gnu
s() {
    local t=$1 n=$2
    shift 2
    local a
    a=$(date +%s)
    timeout -k 5 "$t" "$@" >"$L/$n.log" 2>&1
    echo "$n: exit $? in $(($(date +%s) - a)) s" | tee -a "$L/summary.txt"
    tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
}
left() {
    local l=$((${LIMIT:-580} - $(date +%s) + CML_START))
    echo $((l > 5 ? l : 5))
}
check_make() {
    make -j16 check-tests CHECK_CFLAGS="-I$D/usr/include" \
        CHECK_LIBS="-L$D/usr/lib/x86_64-linux-gnu -lcheck -lsubunit -lm -lrt -lpthread"
}
export D
export -f check_make
# first_launch_bench RUNS: bench/throughput/first_launch.cu built, then each variant (the
# context's limits as they are, or set before the first launch) in RUNS fresh processes (a
# step: s 60 first_launch bash -c "first_launch_bench 5").
first_launch_bench() {
    nvcc -O2 -arch=sm_90 bench/throughput/first_launch.cu -o /tmp/first_launch || return 1
    for v in "" "stack 0" "spin" "stack 0 spin" "heap 1048576 fifo 1048576"; do
        for k in $(seq "$1"); do
            # shellcheck disable=SC2086
            echo "[$v] $(/tmp/first_launch $v 2>&1)"
        done
    done
}
export -f first_launch_bench
# ipc_first_launch_bench RUNS [ARGS]: bench/throughput/ipc_first_launch.cu built, then each mode
# (plain, empty, touch, own, memset: its header) in RUNS fresh children of a parent that holds an
# exportable pool as the judge does; ARGS go to it as they are (mib=MIB, block, modes). A line
# a child, then each mode's medians (a step: s 60 ipc_first_launch bash -c
# "ipc_first_launch_bench 5").
ipc_first_launch_bench() {
    nvcc -O2 -arch=sm_90 -Icommon bench/throughput/ipc_first_launch.cu common/cml_devmem.c \
        common/cml_ipc.c -o /tmp/ipc_first_launch || return 1
    /tmp/ipc_first_launch "$@"
}
export -f ipc_first_launch_bench
# timeslice_bench DURATION_MS BLOCKS: bench/throughput/timeslice.cu built, then N copies at
# once for N = 1, 4, 16, 32, 64 (design note 72), all starting their rounds at one time (each
# N's copies given 2 s plus 0.1 s a copy to make their contexts): per N, the copies' mean
# round (us; min, mean, max) and how many reached the start late (a step: s 150 timeslice
# bash -c "timeslice_bench 3000 8").
timeslice_bench() {
    nvcc -O2 -arch=sm_90 bench/throughput/timeslice.cu -o /tmp/timeslice || return 1
    local n k start pids
    for n in 1 4 16 32 64; do
        rm -f /tmp/ts-"$n"-*.txt
        start=$(($(date +%s%3N) + 2000 + 100 * n))
        pids=()
        for k in $(seq "$n"); do
            /tmp/timeslice "$start" "$1" "$2" >"/tmp/ts-$n-$k.txt" 2>&1 &
            pids+=($!)
        done
        wait "${pids[@]}"
        awk -v n="$n" '
            / us a round/ { u = $(NF - 3); s += u; if (u > m) m = u; if (!c++ || u < l) l = u
                            late += $5 > 0 }
            END { printf "N=%d: us a round min %.1f, mean %.1f, max %.1f; %d ran, %d late\n",
                  n, l, c ? s / c : 0, m, c, late }' /tmp/ts-"$n"-*.txt
    done
}
export -f timeslice_bench
# known_bad_ids 1: the GPU test ids of the known-bad fixtures that must lose performance
# points; known_bad_ids 0: those of the others (pytest arguments).
known_bad_ids() {
    python3 - "$1" <<'PY'
import sys, tomllib
from pathlib import Path
want = sys.argv[1] == "1"
for p in sorted(Path("grader/tests/known_bad").glob("*/*.toml")):
    if ("performance" in tomllib.loads(p.read_text())["expect"]["lost"]) == want:
        print(f"grader/tests/test_known_bad.py::test_known_bad_verdict[{p.parent.name}/{p.stem}]")
PY
}
rm -rf build
git rev-parse --short HEAD 2>/dev/null |
    sed 's/^/device .git HEAD (may be stale; the tree is the carried one): /'
# watch_start TAG: `top`, `nvidia-smi dmon` (utilisation and memory, the time of day first)
# and each process's GPU memory (nvidia-smi --query-compute-apps) beside a batch
# ($L/topTAG.txt, $L/dmonTAG.txt, $L/appsTAG.txt), the GPU lock's trace ($L/traceTAG.txt,
# bench/throughput/lock_trace.py) and its clock against the time of day ($L/clockTAG.txt:
# bench/throughput/load_by_lock_state.py reads them together); watch_stop ends them.
watch_start() {
    python3 -c 'import time; t = time.time(); d = time.localtime(t)
print(time.monotonic(), d.tm_hour * 3600 + d.tm_min * 60 + d.tm_sec + t % 1)' >"$L/clock$1.txt"
    top -b -d 2 -w 512 >"$L/top$1.txt" &
    CML_TOP=$!
    nvidia-smi dmon -s um -d 2 -o T >"$L/dmon$1.txt" 2>&1 &
    CML_DMON=$!
    # each process's GPU memory (bench/throughput/gpu_memory_by_command.py joins it with top)
    nvidia-smi --query-compute-apps=timestamp,pid,used_memory --format=csv,noheader,nounits \
        -l 2 >"$L/apps$1.txt" 2>&1 &
    CML_APPS=$!
    export GRADER_GPU_LOCK_TRACE=$L/trace$1.txt
}
watch_stop() {
    unset GRADER_GPU_LOCK_TRACE
    kill "$CML_TOP" "$CML_DMON" "$CML_APPS" 2>/dev/null
}
# class_run SIZE: bench/class_batch.py's class of SIZE graded once (resuming the grading in
# .scratch/classSIZE: a call's results come back in its tgz, $L/classSIZE, and a later call
# resumes them only where they are unpacked here into .scratch/classSIZE and carried; the
# machine does not keep them: session 30's g110b regraded the class from its start), watched
# (watch_start), up to MARGIN seconds (default 25) before the call's LIMIT, kept for what
# follows: the grading copied into $L at once (a call cut after it still brings it back), then
# its lock trace, phases and verdicts appended to summary.txt. CLASS_EXTRA: more batch options.
# class_run SIZE TAG: the same, the grading in .scratch/classTAG and its files in $L named by
# TAG (two configurations graded one after the other in one call: g117.sh of session 34).
class_run() {
    local n=$1 t=${2:-$1} a
    rm -rf /tmp/class$n && python3 bench/class_batch.py make --size $n /tmp/class$n | tail -2 |
        tee -a $L/summary.txt
    mkdir -p .scratch/class$t
    echo "class$t: $(ls .scratch/class$t/grading-1/*/report.json 2>/dev/null | wc -l) reports" \
        "found before this call (carried)" | tee -a $L/summary.txt
    watch_start $t
    a=$(date +%s)
    # shellcheck disable=SC2086 # CLASS_EXTRA: more grader batch options, e.g. "--jobs 20"
    s $(($(left) - ${MARGIN:-25})) class$t python3 bench/class_batch.py run --once /tmp/class$n \
        .scratch/class$t ${CLASS_EXTRA:+-- $CLASS_EXTRA}
    echo "class$t: $(ls .scratch/class$t/grading-1/*/report.json 2>/dev/null | wc -l) reports" \
        "in $(($(date +%s) - a)) s (this call)" | tee -a $L/summary.txt
    watch_stop
    # the grading kept at once, before the readings below: a call cut during them (a small
    # MARGIN) still brings the reports and the batch log back
    cp -r .scratch/class$t $L/class$t
    tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
    python3 bench/throughput/top_by_command.py $L/top$t.txt 2 >$L/cpu_by_command$t.txt
    head -12 $L/cpu_by_command$t.txt | tee -a $L/summary.txt
    python3 bench/throughput/gpu_memory_by_command.py $L/apps$t.txt $L/top$t.txt |
        tee $L/gpu_memory_by_command$t.txt | head -10 | tee -a $L/summary.txt
    gzip -f $L/top$t.txt $L/apps$t.txt
    python3 bench/throughput/lock_trace.py $L/trace$t.txt | tee -a $L/summary.txt
    python3 bench/throughput/load_by_lock_state.py $L/trace$t.txt $L/top$t.txt.gz 2 \
        $L/clock$t.txt $L/dmon$t.txt | tee -a $L/summary.txt
    python3 bench/throughput/batch_phases.py .scratch/class$t/grading-1 | tee -a $L/summary.txt
    python3 bench/throughput/class_progress.py .scratch/class$t/grading-1.log |
        tee -a $L/summary.txt
    python3 bench/throughput/class_verdicts.py .scratch/class$t/grading-1 \
        /tmp/class$n/expected.json | tee $L/verdicts$t.txt | tail -4 | tee -a $L/summary.txt
}
# gpu_memory_peak TAG: the largest of dmon's fb column (MB) beside the batch watched as TAG,
# found by its name (since session 29 dmon prints the time of day first), into summary.txt.
gpu_memory_peak() {
    awk 'sub(/^#/, "") && / fb / { for (i = 1; i <= NF; i++) if ($i == "fb") c = i; next }
         /^#/ { next } c { print $c }' "$L/dmon$1.txt" | sort -n | tail -1 |
        sed 's/^/GPU memory peak MB: /' | tee -a "$L/summary.txt"
}
# class_of_100: sessions 35-36's class of 100 (g119, g120, g121), as in the header.
class_of_100() {
    s 60 build make -k -j16 all
    CLASS_EXTRA="--jobs ${JOBS:-16}" class_run 100
    gpu_memory_peak 100
    python3 bench/throughput/hold_gap.py $L/trace100.txt .scratch/class100/grading-1 |
        tee -a $L/summary.txt
}
# grade33_alone: one grade of the 3.3 solution, alone on the machine (the class's knobs unset).
grade33_alone() {
    unset GRADER_UNTIMED_AT_ONCE GRADER_DRAIN_AT GRADER_DRAIN_STOP_AFTER \
        GRADER_TIMED_SETUPS_AT_ONCE
    local a
    a=$(date +%s)
    s 90 grade33 python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
        --json $L/grade33.json
    echo "grade33: $(($(date +%s) - a)) s wall, $(python3 -c "import json
r = json.load(open('$L/grade33.json')); print(r['total'], '/', r['max'], r['timings_s'])")" |
        tee -a $L/summary.txt
}

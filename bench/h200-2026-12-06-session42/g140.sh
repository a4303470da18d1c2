#!/usr/bin/env bash
# Session 42: the judge's empty-kernel server (judge --serve-null) failing, provoked on a GPU
# for the first time (the carried list: its failure paths had run in Check tests only). A
# killer outside the sandbox sends SIGKILL to the server's process (its name: judge-null).
# A. the first server killed once, before its READY: the set-up's server is gone, and the judge
#    starts it again after its gate (cml_judge.c, design note 96's review fix). Expected: the
#    grade as usual, every performance point.
# B. every server killed as soon as it appears: the judge cannot have one for the timing.
#    Expected: the course's failure, named ("the judge's empty-kernel server ... could not be
#    started for the timing: it was killed by signal 9"), never the student's crash.
# C. the first server killed DELAY s after it appeared (after its READY, before the timing):
#    expected, if it lands before exchange_alone, "stopped answering before the student's
#    process started", the course's failure; the log says where it landed.
# Run as: [NAME=g14x CHECK=1] LIMIT=300 bash bench/h200-2026-12-06-session42/g140.sh $OUT
# (carrying .debs and .scratch/wheels; CHECK=1: the Check tests first).
set -uo pipefail
LIMIT=${LIMIT:-300}
source bench/device_prelude.sh "${NAME:-g140}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build bash -c "rm -rf build && make -k -j16 all"
if [ "${CHECK:-0}" = 1 ]; then # the Check tests too, with the GPU (after a change of the judge)
    s 150 check bash -c check_make
    grep -E "Checks|Failures: [1-9]|Errors: [1-9]" "$L/check.log" | tee -a "$L/summary.txt"
fi
first_server() { # waits for a judge-null process; prints its pid
    local pid
    until pid=$(pgrep -x judge-null | head -1) && [ -n "$pid" ]; do sleep 0.005; done
    echo "$pid"
}
grade() { # TAG EXERCISE: lab 3.3's solution graded on one exercise, no sanitizer
    s 150 "$1" python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
        --exercise "$2" --no-sanitizer --json "$L/$1.json"
    python3 bench/perf_summary.py "$L/$1.json" "$1" 2>&1 | cut -c1-400 | tee -a "$L/summary.txt"
    grep -iE "empty-kernel server|judge failed|error" "$L/$1.log" | cut -c1-600 |
        tee -a "$L/summary.txt"
}
( p=$(first_server); kill -9 "$p"
  echo "A: killed server $p at $(date +%T.%N)" >>"$L/summary.txt" ) &
once=$!
grade A transpose_tiled
kill "$once" 2>/dev/null # (a killer still waiting must not take B's server)
( while :; do pkill -9 -x judge-null && echo "B: killed at $(date +%T.%N)" >>"$L/kills.txt";
  sleep 0.005; done ) &
killer=$!
grade B transpose_tiled
kill "$killer" 2>/dev/null
wait "$killer" 2>/dev/null
echo "B: $(wc -l <"$L/kills.txt" 2>/dev/null || echo 0) kills" | tee -a "$L/summary.txt"
( p=$(first_server); echo "C: server $p seen at $(date +%T.%N)" >>"$L/summary.txt"
  sleep "${DELAY:-0.8}"; kill -9 "$p"
  echo "C: killed server $p at $(date +%T.%N)" >>"$L/summary.txt" ) &
once=$!
grade C matmul_tiled
kill "$once" 2>/dev/null
grep -E "phases_ms" -A3 "$L/C.json" | head -5 >>"$L/summary.txt"
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
cat "$L/summary.txt"

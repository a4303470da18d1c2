#!/usr/bin/env bash
# Session 16, call 3 (LIMIT seconds; steps in the order of their risk): what changed after g64
# (issue 15), on the GPU:
# - the judge's --info-baseline (transpose's and SGEMM's baselines, information only, timed in
#   7 of the 25 repetitions): Check tests, the GPU test of a timed run over lab 3.3 (it asserts
#   baseline_reps), the batch of 16 copies of the 3.3 solution with the lock's trace and the
#   judge's phases (g63: 149 s, 16 holds of 5.03 s);
# - lab 3.3's matmul reference at its check positions on several cores (cml_parallel_for): two
#   lone grades of the 3.3 solution, timed (g64: 21.4 s and 20.5 s; the issue's target 20 s);
# - the 3.3 known-bad fixtures that must lose performance points (hostile_left_behind_process's
#   slowed baselines among them), selfcheck of lab 3.3.
set -uo pipefail
LIMIT=${LIMIT:-420}
source bench/device_prelude.sh g65 "$1"
s 60 build make -k -j16 all
s 60 check bash -c check_make
grep -E "Checks|fail" $L/check.log | head -8
s 90 gputest python3 -m pytest -ra -m gpu -p no:cacheprovider "grader/tests/test_gpu.py::test_a_timed_run_over_the_lab_times_every_exercise"
tail -3 $L/gputest.log
for k in 1 2; do
    a=$(date +%s.%N)
    s 60 grade$k python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --json $L/grade$k.json
    echo "grade$k: $(python3 -c "print(round($(date +%s.%N) - $a, 1))") s" | tee -a $L/summary.txt
done
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
export GRADER_GPU_LOCK_TRACE=$L/trace16.txt; s 200 batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
unset GRADER_GPU_LOCK_TRACE
python3 bench/throughput/lock_trace.py $L/trace16.txt | tee -a $L/summary.txt
python3 bench/h200-2026-12-02-session11/phases.py $L/batch16 > $L/phases16.txt 2>&1
cat $L/phases16.txt | tee -a $L/summary.txt
cut -d, -f1 --complement $L/batch16/gradebook.csv | sort | uniq -c | sort -rn | head -3 | tee -a $L/summary.txt
IDS=$(python3 - <<'PY'
import tomllib
from pathlib import Path
for p in sorted(Path("grader/tests/known_bad/3.3-tiling").glob("*.toml")):
    if "performance" in tomllib.loads(p.read_text())["expect"]["lost"]:
        print(f"grader/tests/test_known_bad.py::test_known_bad_verdict[3.3-tiling/{p.stem}]")
PY
)
s 110 knownbad-timed python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $IDS
tail -4 $L/knownbad-timed.log
s $(left) selfcheck python3 -m grader selfcheck --lab 3.3
tail -6 $L/selfcheck.log
cat $L/summary.txt

#!/usr/bin/env bash
# Session 14, call 2 (about 560 s): design notes 39 and 40 on the GPU.
# - one grade of the 3.3 solution, twice, with its timings (note 40: each timed judge sets up
#   beside its exercise's correctness runs; g57: 22 s and 20 s);
# - timed_verdicts.py: lab 3.3's solution and its 11 known-bad fixtures that lose performance
#   points (the hostile ones included), graded singly (each exercise's own timed run) and in
#   one batch (the timed exercises in one judged run);
# - every known-bad fixture that loses performance points, all labs, through the GPU tests
#   (single grades, --exercise: the judge's rewritten single-case path).
set -uo pipefail
LIMIT=${LIMIT:-560}
source bench/device_prelude.sh g59 "$1"
s 60 build make -k -j16 all
s 90 gputest python3 -m pytest -ra -m gpu -p no:cacheprovider "grader/tests/test_gpu.py::test_a_timed_run_over_the_lab_times_every_exercise"
tail -3 $L/gputest.log
for i in 1 2; do
    s 90 grade$i python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --json $L/grade$i.json --quiet
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('grade timings_s', {k: round(v, 1) for k, v in r['timings_s'].items()}, r['total'], '/', r['max'])" $L/grade$i.json | tee -a $L/summary.txt
done
s 300 verdicts33 python3 bench/throughput/timed_verdicts.py labs/3.3-tiling $L/verdicts33 \
    conv_uncoalesced_columns hostile_call_counting hostile_left_behind_process \
    hostile_memo_by_fingerprint hostile_memo_by_pointer hostile_sample_replay hostile_side_stream \
    hostile_skip_if_valid hostile_zeroed_inputs transpose_swizzled_column_stores unpadded_transpose
grep -v " same " $L/verdicts33.log | tail -30
IDS=$(python3 - <<'PY'
import tomllib
from pathlib import Path
for p in sorted(Path("grader/tests/known_bad").glob("*/*.toml")):
    lost = tomllib.loads(p.read_text())["expect"]["lost"]
    if "performance" in lost:
        print(f"grader/tests/test_known_bad.py::test_known_bad_verdict[{p.parent.name}/{p.stem}]")
PY
)
echo "$IDS" | wc -l | sed 's/^/timed fixtures: /' | tee -a $L/summary.txt
s $(left) knownbad-timed python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $IDS
tail -15 $L/knownbad-timed.log
cat $L/summary.txt

#!/usr/bin/env bash
# Session 14, call 3 (about 250 s): the batch half of g59's timed_verdicts.py, which ran out of
# its 300 s after the single grades: lab 3.3's solution and its 11 known-bad fixtures that lose
# performance points, in one batch (seed 7, as the single grades in g59/verdicts33), compared
# here afterwards with timed_verdicts.py --compare.
set -uo pipefail
LIMIT=${LIMIT:-300}
source bench/device_prelude.sh g60 "$1"
s 60 build make -k -j16 all
FIX="conv_uncoalesced_columns hostile_call_counting hostile_left_behind_process hostile_memo_by_fingerprint hostile_memo_by_pointer hostile_sample_replay hostile_side_stream hostile_skip_if_valid hostile_zeroed_inputs transpose_swizzled_column_stores unpadded_transpose"
python3 - $FIX <<'PY'
import sys
from pathlib import Path
from grader import fixtures
root = Path.cwd()
for name in sys.argv[1:]:
    fixtures.apply(root, fixtures.known_bad_dir(root) / "3.3-tiling" / f"{name}.toml", Path("/tmp/subs") / name)
PY
export GRADER_GPU_LOCK_TRACE=$L/trace.txt
s $(left) batch python3 -m grader batch labs/3.3-tiling solutions/3.3-tiling $(for f in $FIX; do echo /tmp/subs/$f; done) --out $L/batch --seed 7
unset GRADER_GPU_LOCK_TRACE
python3 bench/throughput/lock_trace.py $L/trace.txt | tee -a $L/summary.txt
cut -d, -f1-10 $L/batch/gradebook.csv | tee -a $L/summary.txt
cat $L/summary.txt

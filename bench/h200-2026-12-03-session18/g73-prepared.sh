#!/usr/bin/env bash
# PREPARED in session 18, NOT RUN (its device time was spent): what session 18 changed after its
# last GPU call, in one call of about 300 s (LIMIT):
# - the judge prepares a sample before its inputs and poison, and before each baseline timed
#   alone (design note 43, after the review): lab 3.2c's known-bad fixtures (the new
#   hostile_weights_recomputed among them) and its alternative in the GPU tests, selfcheck of
#   lab 3.2, bench/calibrate.py over unified_memory twice (timing.baseline_alone_ms should now
#   be near the baseline among the repetitions);
# - a batch's timed run set up beside the same grading's untimed runs (notes 44 and 45): a batch
#   of 16 copies of the 3.3 solution with the lock's trace (g66: 145 s; g65: 143 s) and the
#   Check tests.
# Run as: LIMIT=300 bash bench/h200-2026-12-03-session18/g73-prepared.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-300}
source bench/device_prelude.sh g73 "$1"
s 90 build make -k -j16 all
s 60 check bash -c check_make
grep -E "Checks|fail" $L/check.log | head -8
KB=grader/tests/test_known_bad.py::test_known_bad_verdict
s 120 knownbad python3 -m pytest -ra -m gpu -n 4 -p no:cacheprovider \
    "$KB[3.2-global-memory/prefetch_elements_not_bytes]" "$KB[3.2-global-memory/advise_without_prefetch]" \
    "$KB[3.2-global-memory/prefetch_to_host]" "$KB[3.2-global-memory/hostile_weights_recomputed]" \
    grader/tests/test_alternatives.py -k "unified_read_mostly or prefetch or weights_recomputed"
tail -3 $L/knownbad.log
s 90 selfcheck python3 -m grader selfcheck --lab 3.2
tail -4 $L/selfcheck.log
s 60 calib python3 bench/calibrate.py --lab 3.2 --exercise unified_memory --runs 2 --out $L/calib.json
python3 - $L/calib.json <<'PY' | tee -a $L/summary.txt
import json, sys
for name, docs in json.load(open(sys.argv[1]))["labs"]["3.2"]["unified_memory"].items():
    for d in docs:
        t = d.get("timing") or {}
        print(name, d.get("status"), "baseline", t.get("baseline", {}).get("median_ms"),
              "alone", t.get("baseline_alone_ms"), "student", t.get("student", {}).get("median_ms"))
PY
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
export GRADER_GPU_LOCK_TRACE=$L/trace16.txt
s $(left) batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
unset GRADER_GPU_LOCK_TRACE
python3 bench/throughput/lock_trace.py $L/trace16.txt | tee -a $L/summary.txt
cut -d, -f1 --complement $L/batch16/gradebook.csv | sort | uniq -c | sort -rn | head -3 | tee -a $L/summary.txt
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

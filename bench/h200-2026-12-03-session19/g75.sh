#!/usr/bin/env bash
# Session 19, call 1 (LIMIT seconds, about 480): session 18's g73-prepared.sh widened to every
# known-bad fixture that must lose performance points (the judge's, the worker's and the plain
# timing's refactors after g72 touch every timed exercise):
# - the Check tests; the known-bad fixtures losing performance (all labs; lab 3.2c's new
#   hostile_weights_recomputed among them); lab 3.2c's alternatives; selfcheck of lab 3.2;
#   bench/calibrate.py over unified_memory twice (baseline_alone_ms near the baseline);
# - a batch of 16 copies of the 3.3 solution with the lock's trace (the early set-up, notes 44
#   and 45; g66: 145 s, g65: 143 s).
# Run as: LIMIT=480 bash bench/h200-2026-12-03-session19/g75.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-480}
source bench/device_prelude.sh g75 "$1"
s 90 build make -k -j16 all
s 60 check bash -c check_make
grep -E "Checks|fail" $L/check.log | head -8
s 170 knownbad-perf python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $(known_bad_ids 1) \
    "grader/tests/test_alternatives.py::test_alternative_keeps_its_points_on_the_gpu[3.2-global-memory/unified_read_mostly]"
tail -4 $L/knownbad-perf.log
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

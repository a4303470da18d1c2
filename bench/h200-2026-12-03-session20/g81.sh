#!/usr/bin/env bash
# Session 20, call 2 (LIMIT seconds, about 540): a batch's hold shortened (design note 47):
# the baseline's launches per sample its own with fresh inputs (the judge), lab 3.3's
# repetitions 25 -> 20. Verified here:
# - the Check tests; the GPU test of a timed run over lab 3.3 (baseline_batch's assertions);
# - the 26 known-bad fixtures that must lose performance points (every lab: the judge's change
#   touches every exercise with fresh inputs);
# - lab 3.3's 38 alternatives keep their points (the repetitions and the batch), with figures;
# - selfcheck of lab 3.3; a batch of 16 copies of its solution with the lock's trace
#   (g75: 136 s, holds of 4.55 s).
# Run as: LIMIT=540 bash bench/h200-2026-12-03-session20/g81.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-540}
source bench/device_prelude.sh g81 "$1"
s 90 build make -k -j16 all
s 60 check bash -c check_make
grep -E "Checks|fail" $L/check.log | head -8 | tee -a $L/summary.txt
s 90 gputest python3 -m pytest -ra -m gpu -p no:cacheprovider \
    "grader/tests/test_gpu.py::test_a_timed_run_over_the_lab_times_every_exercise"
tail -2 $L/gputest.log | tee -a $L/summary.txt
s 170 knownbad-perf python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $(known_bad_ids 1)
tail -3 $L/knownbad-perf.log | tee -a $L/summary.txt
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
watch_start 16
s 150 batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
watch_stop
python3 bench/throughput/lock_trace.py $L/trace16.txt | tee -a $L/summary.txt
cut -d, -f1 --complement $L/batch16/gradebook.csv | sort | uniq -c | sort -rn | head -3 | tee -a $L/summary.txt
python3 - $L/batch16 <<'PY' | tee -a $L/summary.txt
import json, sys, glob, statistics
rows = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/s*/report.json"))]
for ex in rows[0]["exercises"]:
    name = ex["name"]
    dets = [d for r in rows for e in r["exercises"] if e["name"] == name
            for d in e["parts"]["performance"].get("details") or []]
    ph = {k: round(statistics.median(d.get("phases_ms", {}).get(k, 0) for d in dets))
          for k in ("baseline_alone", "hello", "verify", "timing", "timing_samples", "timing_checks")}
    print(name, "batch", sorted({str(d.get("batch")) for d in dets}), "values",
          sorted(round(d.get("value") or -1, 3) for d in dets)[::5], "median phases_ms", ph)
PY
s 60 selfcheck python3 -m grader selfcheck --lab 3.3
tail -3 $L/selfcheck.log | tee -a $L/summary.txt
export CML_ALTERNATIVE_FIGURES=$L/figures
s $(left) alts33 python3 -m pytest -v -rA -m gpu -n 12 -p no:cacheprovider --tb=line \
    grader/tests/test_alternatives.py -k "keeps_its_points_on_the_gpu and 3.3"
unset CML_ALTERNATIVE_FIGURES
cat $L/figures/*.txt > $L/points.txt 2>/dev/null
echo "alts33: $(grep -cE ' PASSED' $L/alts33.log) passed, $(grep -cE ' FAILED' $L/alts33.log) failed, $(wc -l < $L/points.txt) figures" | tee -a $L/summary.txt
grep -E " FAILED" $L/alts33.log | head -10 | tee -a $L/summary.txt
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

#!/usr/bin/env bash
# Session 20, call 1 (LIMIT seconds, about 420): session 19's unrun changes, and where a batch's
# read phase goes (issue 15, design note 46: 57 s of a batch of 16, 3.6 s a submission):
# - the two known-bad fixtures of the host-link check (the `timed_edge` hint's final form);
# - each compute-sanitizer tool on each of lab 3.3's sanitizer cases alone (which case costs);
#   then 16 of each tool at once with the course's kernels excluded from instrumentation;
# - a batch of 16 copies of the 3.3 solution without its timed runs (--no-perf), then without
#   its sanitizer runs too, each with top, nvidia-smi dmon and the lock's trace: the read phase
#   split into correctness, sanitizer and (by g75's 57 s) the timed runs' set-ups;
# - a lone sgemm grade with each thread's CPU sampled (g79-prepared.sh's first part);
# - selfcheck of lab 3.2 (the timed_edge wording must not touch a passing solution).
# Run as: LIMIT=420 bash bench/h200-2026-12-03-session20/g80.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-420}
source bench/device_prelude.sh g80 "$1"
s 90 build make -k -j16 all
KB=grader/tests/test_known_bad.py::test_known_bad_verdict
s 90 hostlink python3 -m pytest -ra -m gpu -n 2 -p no:cacheprovider \
    "$KB[3.2-global-memory/hostile_weights_recomputed]" "$KB[3.2-global-memory/device_to_device]"
tail -3 $L/hostlink.log | tee -a $L/summary.txt
s 60 sancost0 python3 bench/throughput/sanitizer_cost.py labs/3.3-tiling 0 build/3.3-tiling/solution/lab
s 60 sancost16x python3 bench/throughput/sanitizer_cost.py labs/3.3-tiling 16 build/3.3-tiling/solution/lab \
    -- --kernel-name-exclude kns=cml_
cat $L/sancost0.log $L/sancost16x.log >> $L/summary.txt
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
watch_start U
s 120 batchU python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --no-perf --out $L/batchU
watch_stop
python3 bench/throughput/lock_trace.py $L/traceU.txt | head -3 | tee -a $L/summary.txt
watch_start C
s 90 batchC python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --no-perf --no-sanitizer --out $L/batchC
watch_stop
python3 bench/throughput/lock_trace.py $L/traceC.txt | head -3 | tee -a $L/summary.txt
for b in batchU batchC; do
python3 - $L/$b <<'PY' | tee -a $L/summary.txt
import json, sys, glob, statistics
rows = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/s*/report.json"))]
keys = sorted({k for r in rows for k in r.get("timings_s", {})})
print(sys.argv[1].rsplit("/", 1)[1], len(rows), "reports; median timings_s:",
      {k: round(statistics.median(r["timings_s"].get(k, 0) for r in rows), 2) for k in keys},
      "totals", sorted({(r["total"], r["max"]) for r in rows}))
PY
done
(for k in $(seq 60); do echo "== $k"; ps -eLo pid,tid,psr,pcpu,stat,comm | awk '$4 > 5'; sleep 0.5; done) > $L/psr-kept3.txt &
P=$!
s 40 kept3 python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
    --exercise sgemm --no-sanitizer --json $L/kept3.json
kill $P
python3 -c "
import json
r=json.load(open('$L/kept3.json'))
for e in r['exercises']:
    for d in e['parts']['performance'].get('details') or []:
        print('  kept3 timing_samples', round((d.get('phases_ms') or {}).get('timing_samples',-1)), 'ms')
" | tee -a $L/summary.txt
s $(left) selfcheck python3 -m grader selfcheck --lab 3.2
tail -3 $L/selfcheck.log | tee -a $L/summary.txt
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

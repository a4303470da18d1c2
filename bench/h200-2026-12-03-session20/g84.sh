#!/usr/bin/env bash
# Session 20, call 5 (LIMIT seconds, about 400): untimed runs open one CUDA hardware work
# queue (CUDA_DEVICE_MAX_CONNECTIONS=1, grader/run.py child_env; design note 48; g83: 16 plain
# cases at once 3.7 s with the default eight, 1.2 s with one). Here:
# - a batch of 16 copies of the 3.3 solution with the lock's trace (g81, g82: 123 s, a read
#   phase of about 57 s);
# - the known-bad fixtures: those keeping their performance points (correctness, sanitizer and
#   static verdicts: what untimed runs decide), then those losing them, as time allows;
# - the Check tests (the judge's two new phase parts).
# Run as: LIMIT=400 bash bench/h200-2026-12-03-session20/g84.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-400}
source bench/device_prelude.sh g84 "$1"
s 90 build make -k -j16 all
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do rm -rf /tmp/class16/s$i; cp -r solutions/3.3-tiling /tmp/class16/s$i; done
watch_start 16
s 140 batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
watch_stop
python3 bench/throughput/lock_trace.py $L/trace16.txt | tee -a $L/summary.txt
python3 bench/throughput/batch_phases.py $L/batch16 | tee -a $L/summary.txt
s 130 knownbad-other python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $(known_bad_ids 0)
tail -3 $L/knownbad-other.log | tee -a $L/summary.txt
T=$(( $(left) - 25 ))
if [ "$T" -gt 30 ]; then
    s $T knownbad-perf python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $(known_bad_ids 1)
    tail -3 $L/knownbad-perf.log | tee -a $L/summary.txt
fi
s $(left) check bash -c check_make
grep -E "Checks|fail" $L/check.log | head -8 | tee -a $L/summary.txt
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

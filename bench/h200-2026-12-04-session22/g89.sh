#!/usr/bin/env bash
# PREPARED in session 22, NOT RUN (the session had 92 s of device time, less than one cold
# start): the first call of the next session. Checks design notes 51 and 52 on the H200:
# the cgroup the runs now get (the limits line), lab 3.5's selfcheck (g88: the solution's
# image_pipeline "1889327 % of the copy", its samples at or below the exchange the judge
# subtracts), two grades of the 3.5 solution with each timed run's exchange_ms and
# under_exchange (report rows), and two lone grades of the 3.3 solution (note 46: a lone
# sgemm's samples took 10.8 s on the kept CPUs; if pollers sharing a CPU were the cause, the
# yield makes them 0.35 s, the performance row's wall_s).
# Run as: LIMIT=420 bash bench/h200-2026-12-04-session22/g89.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-420}
source bench/device_prelude.sh g89 "$1"
s 90 build make -k -j16 all
python3 -c 'from grader import cgroup; print("limits:", cgroup.status())' | tee -a $L/summary.txt
s $(left) selfcheck3.5 python3 -m grader selfcheck --lab 3.5
tail -4 $L/selfcheck3.5.log | tee -a $L/summary.txt
rows() {  # the timed rows of a report: exercise, wall, exchange, samples under it, message
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("total", r["total"], "/", r["max"], r.get("timings_s"))
for e in r["exercises"]:
    for d in e["parts"]["performance"].get("details") or []:
        print(" ", e["name"], d.get("wall_s"), "exchange_ms", d.get("exchange_ms"),
              "under", d.get("under_exchange"), d.get("retimed", ""), d.get("message", ""))
PY
}
for lab in 3.5-project 3.3-tiling; do
    for n in 1 2; do
        s $(left) grade-$lab-$n python3 -m grader grade labs/$lab --submission solutions/$lab \
            --json $L/grade-$lab-$n.json
        rows $L/grade-$lab-$n.json | tee -a $L/summary.txt
    done
done
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

#!/usr/bin/env bash
# Session 11, call 2 (about 450 s): lab 3.3's matmul and sgemm now check their timed launches
# with cuBLAS (launch_check): selfcheck 3.3 and every 3.3 known-bad and hostile fixture must keep
# their verdicts; the phases of a lone grade; where an untimed grade's time goes (wall and CPU).
set -uo pipefail
LIMIT=${LIMIT:-570}
source bench/device_prelude.sh g46 "$1"
s 60 build make -k -j16 all
s 200 selfcheck-33 python3 -m grader selfcheck --lab 3.3 --json $L/selfcheck-33.json
tail -6 $L/selfcheck-33.log
python3 - $L/selfcheck-33.json > $L/phases.txt 2>&1 <<'PY'
import json, sys
for item in json.load(open(sys.argv[1])):
    rep = item.get("report") or {}
    print(item["variant"], rep.get("total"), rep.get("timings_s"))
    for ex in rep.get("exercises", []):
        for row in ex["parts"].get("performance", {}).get("details", []):
            ph = row.get("phases_ms") or {}
            print("  ", ex["name"], row.get("wall_s"), " ".join(f"{k}={v/1000:.3f}" for k, v in ph.items()))
PY
cat $L/phases.txt
s 240 knownbad-33 python3 -m pytest -ra -m gpu -n 8 -k "3.3-tiling" --durations=10 grader/tests/test_known_bad.py
tail -15 $L/knownbad-33.log
# where an untimed grade's time goes: wall, user and system CPU of the grader and its children
for what in "--no-perf --no-sanitizer" "--no-perf"; do
  n=$(echo "$what" | tr -d ' -')
  s 120 untimed-$n /usr/bin/time -f "TIME %e s wall, %U s user, %S s sys" python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling $what --quiet --json $L/untimed-$n.json
  grep TIME $L/untimed-$n.log
done
s 120 matmul-correctness /usr/bin/time -f "TIME %e s wall, %U s user, %S s sys" python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling --no-perf --no-sanitizer --exercise matmul_tiled --quiet
grep TIME $L/matmul-correctness.log
# a CUDA process's start: the lab binary's --device-info, plain and in a bare bubblewrap
for i in 1 2 3 4 5; do /usr/bin/time -f "plain %e s" build/3.3-tiling/solution/lab --device-info >/dev/null 2>>$L/start.txt; done
for i in 1 2 3 4 5; do /usr/bin/time -f "bwrap %e s" bwrap --dev-bind / / --unshare-net build/3.3-tiling/solution/lab --device-info >/dev/null 2>>$L/start.txt; done
cat $L/start.txt
cat $L/summary.txt
tar czf "$CML_OUT/g46.tgz" -C /tmp g46

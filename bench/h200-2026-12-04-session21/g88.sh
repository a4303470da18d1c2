#!/usr/bin/env bash
# The last device time of session 21 (about 370 s): where a run's cgroup can be made on this
# machine (cgroup_probe.sh: g87's class graded without per-run limits, and a fork bomb's
# neighbours timed out), then what session 20's design note 48 and session 21's note 49 had
# not been run on: selfcheck of labs 3.2, 3.1, 3.4, 3.5 and 3.3 (every solution full marks,
# every skeleton 0), lab 3.2's known-bad fixtures (its submission runs keep the driver's
# default queues, Sandbox.own_streams), and two lone grades of the 3.3 solution (<= 20 s).
# Run as: LIMIT=370 bash bench/h200-2026-12-04-session21/g88.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-370}
source bench/device_prelude.sh g88 "$1"
s 30 cgroup bash bench/h200-2026-12-04-session21/cgroup_probe.sh
s 90 build make -k -j16 all
for lab in 3.2 3.1 3.4 3.5 3.3; do
    s $(left) selfcheck$lab python3 -m grader selfcheck --lab $lab
    tail -3 $L/selfcheck$lab.log | tee -a $L/summary.txt
done
s $(left) kb32 python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider \
    $(known_bad_ids 0 | grep 3.2-global-memory) $(known_bad_ids 1 | grep 3.2-global-memory)
tail -2 $L/kb32.log | tee -a $L/summary.txt
for n in 1 2; do
    a=$(date +%s)
    s $(left) grade$n python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
        --json $L/grade$n.json
    echo "grade$n: $(($(date +%s) - a)) s wall, $(python3 -c "import json; r=json.load(open('$L/grade$n.json')); print(r['total'], '/', r['max'], r['timings_s'])")" | tee -a $L/summary.txt
done
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

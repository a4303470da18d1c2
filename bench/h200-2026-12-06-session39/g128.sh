#!/usr/bin/env bash
# Session 39's second measuring call, after g127 (H100: the hog's single grade exit 2 under
# the GPU tests' shared lock; lab 3.2's solution 72.53/78 in a batch of its fixtures at
# --jobs 8: overlap's ratio 1.56 under full 1.6, unified_memory "disturbed timing", its
# baseline 10.4 ms among the repetitions against 6.9 ms before the student's process):
# 1. the hog's GPU test, now graded with the GPU its alone (helpers.gpu_alone);
# 2. lab 3.2's solution graded alone: whole once, then unified_memory and overlap alone
#    twice each, their JSON kept: is the "disturbed" baseline the batch's, or the card's?
#    And unified_memory once with the host's 16 CPUs kept busy by 16 shell loops.
# Run as: LIMIT=300 bash bench/h200-2026-12-06-session39/g128.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-300}
source bench/device_prelude.sh "${NAME:-g128}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
s 90 build make -k -j16 all
s 120 hog python3 -m pytest -q -p no:cacheprovider -rA --tb=short -m gpu \
    grader/tests/test_known_bad.py -k "hostile_gpu_memory_hog"
tail -4 "$L/hog.log" | tee -a "$L/summary.txt"
LAB=3.2-global-memory
g32() { # g32 TAG [--exercise E]
    local tag=$1
    shift
    s 100 "$tag" python3 -m grader grade "labs/$LAB" --submission "solutions/$LAB" "$@" \
        --json "$L/$tag.json"
    python3 - "$L/$tag.json" "$tag" <<'PY' | tee -a "$L/summary.txt"
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit(print(sys.argv[2], "no report:", e))
print(sys.argv[2], r["total"], "/", r["max"])
for ex in r["exercises"]:
    for row in ex["parts"]["performance"].get("details") or []:
        if row.get("course"):
            print("  ", ex["name"], {k: round(v, 4) for k, v in row["course"].items()})
for ex in r["exercises"]:
    p = ex["parts"]["performance"]
    d = (p.get("details") or [{}])[0]
    print("  ", ex["name"], p.get("status"), p.get("points"), "ratio", d.get("ratio"),
          (p.get("info") or p.get("finding") or "")[:200])
PY
}
g32 whole
# the host's CPUs busy (16 busy loops, as a batch's other gradings' builds and host work keep
# them) while unified_memory is timed alone on the GPU: are its on-demand page faults, served
# by the driver on the host, what slowed the baseline in the batch?
busy=()
for k in $(seq 16); do
    (while :; do :; done) &
    busy+=($!)
done
g32 um_cpu_busy --exercise unified_memory --no-sanitizer
kill "${busy[@]}" 2>/dev/null
wait "${busy[@]}" 2>/dev/null
for k in 1 2; do
    [ "$(left)" -gt 40 ] && g32 "um$k" --exercise unified_memory --no-sanitizer
    [ "$(left)" -gt 40 ] && g32 "ov$k" --exercise overlap --no-sanitizer
done
cat "$L/summary.txt"
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"

#!/usr/bin/env bash
# Session 11's first call (about 420 s): session 10's prepared g44 (3.4d's texture set-up, three
# times) and g43 (the batch of 16 copies of the 3.3 solution with the judge's timing split), and
# the sum of every report's timings_s, to say where a 3.3 submission's time goes (issue 15).
set -uo pipefail
source bench/device_prelude.sh g45 "$1"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > $L/gpu.txt 2>&1
s 60 build make -k -j16 all
mkdir -p build/bench
s 120 build-tex nvcc -O3 -arch=sm_90 -I labs/3.4-constant-texture -o build/bench/lab34_texture_setup bench/roof/lab34_texture_setup.cu labs/3.4-constant-texture/baselines.cu solutions/3.4-constant-texture/kernels.cu
for r in 1 2 3; do s 60 tex-$r build/bench/lab34_texture_setup; done
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do cp -r solutions/3.3-tiling /tmp/class16/s$i; done
s $(left) batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
cp $L/batch16/gradebook.csv $L/gradebook.csv
python3 - "$L/batch16" > $L/phases.txt 2>&1 <<'PY'
import json, sys, pathlib, collections
tot = collections.defaultdict(collections.Counter)
whole = collections.Counter()
reps = sorted(pathlib.Path(sys.argv[1]).glob("s*/report.json"))
for rep in reps:
    r = json.loads(rep.read_text())
    whole.update(r.get("timings_s") or {})
    for ex in r["exercises"]:
        for row in ex["parts"]["performance"].get("details", []):
            tot[ex["name"]].update({k: v / 1000 for k, v in (row.get("phases_ms") or {}).items()})
            tot[ex["name"]]["wall_s"] += row.get("wall_s") or 0
print(len(reps), "reports; seconds summed over them")
print("timings_s", " ".join(f"{k}={v:.1f}" for k, v in whole.items()))
for name, ph in tot.items():
    print(name, " ".join(f"{k}={v:.1f}" for k, v in ph.items()))
PY
tar czf "$CML_OUT/g45.tgz" -C /tmp g45

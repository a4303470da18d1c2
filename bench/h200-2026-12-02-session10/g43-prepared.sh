#!/usr/bin/env bash
# PREPARED, NOT RUN, about 360 s (issue 15): where a timed run's `timing` phase goes. The
# judge now splits it (docs/protocol.md, timing.phases_ms): timing_samples (every
# contender's samples), timing_checks (the checks of the student's launches: copies back,
# the baseline on fresh inputs, the comparisons), and the rest, preparing the samples. The
# same batch of 16 copies of the 3.3 solution as g36/g37 (timing was 6.3 s a submission of
# the ~11 s that holds the GPU alone).
set -uo pipefail
source bench/device_prelude.sh g43 "$1"
s 60 build make -k -j16 all
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do cp -r solutions/3.3-tiling /tmp/class16/s$i; done
s $(left) batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
cat $L/batch16/gradebook.csv
python3 - "$L/batch16" <<'PY' | tee $L/phases.txt
import json, sys, pathlib, collections
tot = collections.defaultdict(lambda: collections.Counter())
for rep in sorted(pathlib.Path(sys.argv[1]).glob("s*/report.json")):
    for ex in json.loads(rep.read_text())["exercises"]:
        for row in ex["parts"]["performance"].get("details", []):
            tot[ex["name"]].update({k: v / 1000 for k, v in (row.get("phases_ms") or {}).items()})
for name, ph in tot.items():  # seconds summed over the 16 submissions
    print(name, " ".join(f"{k}={v:.1f}" for k, v in ph.items()))
PY
cat $L/summary.txt

"""Sums a batch's timings: every report's timings_s and each timed exercise's phases_ms
(seconds, summed over the reports). Usage: python3 phases.py BATCH_OUT_DIR."""
import collections
import json
import pathlib
import sys

tot = collections.defaultdict(collections.Counter)
whole = collections.Counter()
reps = sorted(pathlib.Path(sys.argv[1]).glob("*/report.json"))
for rep in reps:
    r = json.loads(rep.read_text())
    whole.update(r.get("timings_s") or {})
    for ex in r["exercises"]:
        for row in ex["parts"].get("performance", {}).get("details", []):
            tot[ex["name"]].update({k: v / 1000 for k, v in (row.get("phases_ms") or {}).items()})
            tot[ex["name"]]["wall_s"] += row.get("wall_s") or 0
print(len(reps), "reports; seconds summed over them")
print("timings_s", " ".join(f"{k}={v:.1f}" for k, v in whole.items()))
for name, ph in tot.items():
    print(name, " ".join(f"{k}={v:.1f}" for k, v in ph.items()))

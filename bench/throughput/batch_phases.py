"""Where a batch's time went, from its students' report.json (issue 15): how many reports and
their totals, each of ``timings_s`` as median, min and max over the students (seconds), and
for each exercise the judge's phases of its timed run (median, min, max in ms; a part such as
``baseline_check`` is inside its phase, ``input_sets``; ``null_server``, the wait for the
empty-kernel server before the gate, is in none since design note 61), with every fifth of its
scored values, and the judge's CPU in its phases (``phases_cpu_ms``, median ms; design note
55) where the reports have it.

Usage: python3 bench/throughput/batch_phases.py OUT   (a ``grader batch --out`` folder)"""

from __future__ import annotations

import glob
import json
import statistics
import sys

PHASES = ("setup", "input_sets", "null_server", "baseline_check", "gate", "hello", "verify",
          "verify_run", "timing", "timing_checks")


def main(out: str) -> None:
    rows = [json.load(open(f)) for f in sorted(glob.glob(out + "/*/report.json"))]
    if not rows:
        sys.exit(f"no */report.json under {out}")
    print(len(rows), "reports, totals", sorted({(r["total"], r["max"]) for r in rows}))
    keys = dict.fromkeys(k for r in rows for k in r["timings_s"])  # a hostile's may lack some
    for k in keys:
        v = [r["timings_s"][k] for r in rows if k in r["timings_s"]]
        print(f"  {k} ({len(v)}): median {statistics.median(v):.1f} "
              f"min {min(v):.1f} max {max(v):.1f}")
    names = dict.fromkeys(e["name"] for r in rows for e in r["exercises"])
    for name in names:
        ds = [d for r in rows for e in r["exercises"] if e["name"] == name
              for d in e["parts"]["performance"].get("details") or []]
        found = {}
        for k in PHASES:
            v = [d["phases_ms"][k] for d in ds if k in (d.get("phases_ms") or {})]
            if v:
                found[k] = (round(statistics.median(v)), round(min(v)), round(max(v)))
        values = sorted(round(d.get("value") or -1, 3) for d in ds)[::5]
        print(" ", name, "ms (median, min, max):", found, "values", values)
        cpu = {}
        for k in dict.fromkeys(k for d in ds for k in d.get("phases_cpu_ms") or {}):
            v = [d["phases_cpu_ms"][k] for d in ds if k in (d.get("phases_cpu_ms") or {})]
            cpu[k] = round(statistics.median(v))
        if cpu:
            print(" ", name, "judge's CPU ms (median):", cpu)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])

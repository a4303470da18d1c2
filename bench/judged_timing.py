"""The judge's timing against the plain run's, on the reference solutions (needs a GPU).

A judged run (docs/design-notes.md, note 22) times the student's launches from the judge's
process: host clock around RUN .. DONE, less what the same exchange costs with an empty
kernel in a process of the course's. A plain run (``lab --exercise ... --time``) times
everything in one process with CUDA events. For every timed exercise of every lab this runs
the solution's performance case RUNS times each way, alternating, and prints one Markdown
row per criterion: the median of each way, their difference, and the judge's overhead
figure, and how the judge's baseline among the student's repetitions compares with the same
baseline timed alone before the student's process started (``timing.baseline_alone_ms``;
grader/plausible.py flags a run above ``BUSY_RATIO``). The issue's bar: the judged figures
of the references move by no more than the noise of the plain ones (their min..max over the
runs).

    python3 bench/judged_timing.py [--runs 3] [--lab 3.3] [--out judged_timing.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import diagnose, harness, manifest, sandbox  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--lab", action="append")
    ap.add_argument("--exercise", action="append", help="only these exercises (default: all)")
    ap.add_argument("--out", default="judged_timing.json")
    args = ap.parse_args()
    version = harness.schema_version(ROOT)
    box = sandbox.choose([ROOT], "none")
    record: dict = {"runs": args.runs, "sandbox": box.kind, "labs": {}}
    print(f"sandbox: {box.kind}; runs: {args.runs} each way, alternating\n")
    print("| exercise | metric | plain median (min–max) | judged median (min–max) | judged/plain | "
          "worker overhead ms | baseline among/alone | statuses |")
    print("|---|---|---|---|---|---|---|---|")
    for lab_dir in sorted((ROOT / "labs").glob("*/lab.toml")):
        lab = manifest.load(lab_dir.parent)
        if args.lab and lab.id not in args.lab:
            continue
        binary = ROOT / "build" / lab.name / "solution" / "lab"
        judge = ROOT / "build" / lab.name / "judge"
        docs = record["labs"].setdefault(lab.id, {})
        for ex in lab.exercises:
            spec = ex.performance
            if spec is None or not spec.timed or (args.exercise and ex.name not in args.exercise):
                continue
            plain, judged = [], []
            for k in range(args.runs):
                seed = 1000 + k
                p = harness.run_case(
                    binary, ex.name, spec.size, seed, lab.run_timeout_s, version,
                    time_reps=spec.reps, box=box,
                )
                j = harness.run_judged(
                    judge, binary, ex.name, spec.size, seed, lab.run_timeout_s, version,
                    time_reps=spec.reps, box=box,
                )
                plain.append(p.doc or {"status": p.status, "problem": p.problem})
                judged.append(j.doc or {"status": j.status, "problem": j.problem})
            docs[ex.name] = {"plain": plain, "judged": judged}
            for crit in spec.criteria:
                pv = [diagnose.metric_value(d, crit.metric) for d in plain if d.get("status") == "ok"]
                jv = [diagnose.metric_value(d, crit.metric) for d in judged if d.get("status") == "ok"]
                pv = [v for v in pv if v is not None]
                jv = [v for v in jv if v is not None]
                over = [
                    (d.get("timing") or {}).get("worker_overhead_ms")
                    for d in judged
                    if d.get("status") == "ok"
                ]
                over = [o for o in over if o is not None]
                among = []
                for d in judged:
                    timing = d.get("timing") or {}
                    alone = timing.get("baseline_alone_ms")
                    if d.get("status") == "ok" and alone:
                        among.append(timing["baseline"]["median_ms"] / alone)
                statuses = "/".join(
                    sorted({str(d.get("status")) for d in plain})
                ) + " · " + "/".join(sorted({str(d.get("status")) for d in judged}))

                def fmt(v):
                    return f"{statistics.median(v):.4g} ({min(v):.4g}–{max(v):.4g})" if v else "—"

                rel = (
                    f"{statistics.median(jv) / statistics.median(pv):.3f}" if pv and jv else "—"
                )
                ov = f"{statistics.median(over):.4f}" if over else "—"
                print(f"| {lab.id} {ex.name} | {crit.metric} | {fmt(pv)} | {fmt(jv)} | {rel} | "
                      f"{ov} | {fmt(among)} | {statuses} |", flush=True)
    Path(args.out).write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

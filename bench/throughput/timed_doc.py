"""One judged timed run of a lab's exercise on the real judge, its document's ``timing``
printed (issue 15; session 21 found lab 3.5's image_pipeline timed "faster than copying" on
the H200): the student's and the baseline's medians, the launches per sample, the exchange
overhead the judge subtracts (``worker_overhead_ms``, docs/protocol.md), the phases.

Usage: python3 bench/throughput/timed_doc.py LAB EXERCISE [SEED]
  LAB       a lab folder's name (labs/LAB), built by ``make all`` into build/LAB (the
            solution's binary, build/LAB/solution/lab, and the judge)
  EXERCISE  a timed exercise of its lab.toml, run at its performance size and repetitions
Runs alone, outside any sandbox (course code only); exit status 1 when the run failed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from grader import harness, manifest  # noqa: E402


def main(lab_name: str, exercise: str, seed: int = 7) -> int:
    lab = manifest.load(ROOT / "labs" / lab_name)
    spec = lab.exercise(exercise).performance
    if spec is None or not spec.timed:
        sys.exit(f"{exercise} of {lab_name} has no timed performance run")
    build = ROOT / "build" / lab_name
    run = harness.run_judged(
        build / "judge", build / "solution" / "lab", exercise, spec.size, seed,
        lab.run_timeout_s, harness.schema_version(ROOT), time_reps=spec.reps,
        info_baseline=spec.info_baseline,
    )
    if run.doc is None:
        print(f"no document: {run.problem}")
        return 1
    print(json.dumps({"status": run.doc.get("status"), "timing": run.doc.get("timing"),
                      "metrics": run.doc.get("metrics")}, indent=1))
    return 0 if run.doc.get("status") == "ok" else 1


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:])))

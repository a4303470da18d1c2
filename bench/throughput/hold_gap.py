"""What a timed hold spends outside the judge's own measured work (issue 15, design note 80):
for each grading with one timed hold in a batch's GPU lock trace (GRADER_GPU_LOCK_TRACE, the
hold's thread "grade SID early-timed") and one timed run per exercise in its report, the hold's
length (trace) minus the judge's phases past its gate, summed over the exercises
(``baseline_alone``, ``hello``, ``verify``, ``extra``, ``timing`` of each exercise's
``phases_ms``): the gate's opening, the student's process started, the processes' ends and the
lock let go. Prints the count, the median and quartiles of that gap, and the medians of the
holds and of the judge's part (ms), then where the run's processes ended after its last
document (``hold_tail_ms`` of the last exercise's detail, where the reports have it: the
student's process, the judge, and the hold's end).

Usage: python3 bench/throughput/hold_gap.py TRACE OUT   (a ``grader batch --out`` folder)"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lock_trace  # noqa: E402  (the trace read as lock_trace.py reads it)

AFTER_GATE = ("baseline_alone", "hello", "verify", "extra", "timing")
TIMED = "early-timed"


def timed_details(report: dict) -> list[dict] | None:
    """The report's timed-run details, one an exercise, or None when an exercise has none or
    several (a run made again, a case deferred: not one hold)."""
    found = []
    for ex in report.get("exercises", []):
        details = (ex.get("parts", {}).get("performance") or {}).get("details") or []
        if len(details) != 1:
            return None
        found.append(details[0])
    return found or None


def main(trace: str, out: str) -> None:
    gaps, held, judged, tails = [], [], [], defaultdict(list)
    lines = Path(trace).read_text().splitlines()
    for thread, lengths in lock_trace.holds_by_thread(lines).items():
        words = thread.split()
        if len(lengths) != 1 or len(words) != 3 or words[2] != TIMED:
            continue
        try:
            report = json.loads((Path(out) / words[1] / "report.json").read_text())
        except (OSError, ValueError):
            continue
        details = timed_details(report)
        if not details:
            continue
        judge_ms = sum((d.get("phases_ms") or {}).get(k, 0.0) for d in details for k in AFTER_GATE)
        gaps.append(lengths[0] * 1000 - judge_ms)
        held.append(lengths[0] * 1000)
        judged.append(judge_ms)
        for k, v in (details[-1].get("hold_tail_ms") or {}).items():
            tails[k].append(v)
    if len(gaps) < 2:
        sys.exit("fewer than two gradings with one timed hold and one timed run an exercise")
    q = statistics.quantiles(gaps, n=4)
    print(f"{len(gaps)} holds: outside the judge's phases median {statistics.median(gaps):.0f} ms"
          f" (quartiles {q[0]:.0f}, {q[2]:.0f}); hold median {statistics.median(held):.0f} ms,"
          f" the judge's phases past its gate median {statistics.median(judged):.0f} ms")
    for k, v in tails.items():
        print(f"  after the last document, {k}: median {statistics.median(v):.0f} ms,"
              f" max {max(v):.0f} ({len(v)})")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])

"""The verdicts of a class batch cut short (issue 15): every student of
bench/class_batch.py's class that has a gradebook row, checked against the class's
expected.json as ``class_batch.py run`` checks a finished one (``class_batch._check``, with
the sandbox and the memory limit read from any report's sandbox step, since the solution's
own report may be missing); the missing students are listed.

Usage: python3 bench/throughput/class_verdicts.py GRADING EXPECTED
  GRADING   a ``grader batch --out`` folder (grading-1 of a class_batch run)
  EXPECTED  the class's expected.json (``class_batch.py make --size N DIR`` writes it)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import class_batch  # noqa: E402


def main(grading: Path, expected_path: Path) -> int:
    expected = json.loads(expected_path.read_text(encoding="utf-8"))
    book = class_batch._gradebook(grading / "gradebook.csv")
    texts = [p.read_text(encoding="utf-8") for p in sorted(grading.glob("*/report.txt"))]
    sandboxed = any("sandbox      passed" in t for t in texts)
    limited = any("GiB of memory per run" in t for t in texts)
    print(f"sandbox: {sandboxed}, memory limit per run: {limited}")
    failures, missing = 0, []
    for student, expect in expected.items():
        row = book.get(student)
        # a row the batch wrote for a student it had not graded when it stopped (the
        # gradebook lists the whole class: "not graded: no result yet") is missing too
        if row is None or not row["status"] or row["status"].startswith("not graded"):
            missing.append(student)
            continue
        path = grading / student / "report.json"
        report = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
        problems = class_batch._check(student, row, report, expect, sandboxed, limited)
        if problems:
            failures += 1
            print(f"{student}: {row['total']}/{row['max']} NOT AS EXPECTED: " + "; ".join(problems))
    print(f"{len(expected) - len(missing)} graded, {failures} not as expected; "
          f"{len(missing)} not graded: {', '.join(missing)}")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))

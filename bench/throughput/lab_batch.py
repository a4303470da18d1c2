"""A lab's reference solution and its known-bad fixtures graded as one batch (issue 15): the
batch's kind of grading (its runs over the lab: correctness in two groups side by side,
design note 60; sanitizer tools side by side, note 59) checked against what each fixture
must lose, for the labs whose classes bench/class_batch.py does not grade (it is lab 3.3's).

    python3 bench/throughput/lab_batch.py LAB WORK [-- BATCH OPTIONS...]

LAB is a lab folder name (3.2-global-memory); WORK a folder this makes (its submissions in
WORK/class, the batch's results in WORK/out). Prints a line per submission, then the count
not as expected; exits 1 when some are not. A fixture is as expected when every part of
``expect.lost`` of its exercise has fewer points than its maximum and its report holds each
of ``expect.report_contains`` (a performance part of uncalibrated thresholds is not
checked); the solution when it has full marks. The known-bad GPU tests grade one exercise a
submission (``--exercise``), which a batch's runs over the lab never see.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from grader import fixtures, manifest  # noqa: E402


def make(lab: str, work: Path) -> dict[str, dict | None]:
    """WORK/class/<id>: the solution (expect None) and each fixture applied; their expects."""
    subs = work / "class"
    subs.mkdir(parents=True)
    expects: dict[str, dict | None] = {"solution": None}
    shutil.copytree(REPO / "solutions" / lab, subs / "solution")
    for path in fixtures.find(REPO, lab):
        fixtures.apply(REPO, path, subs / path.stem)
        expects[path.stem] = fixtures.load(path)["expect"]
    return expects


def verdict(lab: str, report: dict, text: str, expect: dict | None) -> str | None:
    """None when the report is as expected, else why not."""
    if expect is None:
        return None if report["total"] == report["max"] else f"{report['total']}/{report['max']}"
    spec = manifest.load(REPO / "labs" / lab).exercise(expect["exercise"]).performance
    (ex,) = [e for e in report["exercises"] if e["name"] == expect["exercise"]]
    for part in expect["lost"]:
        if part == "performance" and spec is not None and not spec.calibrated:
            continue
        p = ex["parts"][part]
        if p["points"] is None or p["points"] >= p["max"]:
            return f"{part} not lost ({p['points']}/{p['max']})"
    missing = [t for t in expect.get("report_contains", []) if t not in text]
    return f"report lacks {missing}" if missing else None


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    lab, work, extra = argv[0], Path(argv[1]), argv[3:] if argv[2:3] == ["--"] else []
    expects = make(lab, work)
    out = work / "out"
    subs = sorted(str(p) for p in (work / "class").iterdir())
    cmd = [sys.executable, "-m", "grader", "batch", str(REPO / "labs" / lab), *subs]
    subprocess.run([*cmd, "--out", str(out), *extra], cwd=REPO, check=False)
    wrong = 0
    for sid, expect in expects.items():
        try:
            report = json.loads((out / sid / "report.json").read_text())
            why = verdict(lab, report, (out / sid / "report.txt").read_text(), expect)
        except (OSError, ValueError) as e:
            why = f"no report ({e})"
        wrong += why is not None
        print(f"{sid}: {'as expected' if why is None else 'NOT as expected: ' + why}")
    print(f"{lab}: {len(expects)} graded, {wrong} not as expected")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

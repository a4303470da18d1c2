"""A Grade as Gradescope's ``results.json`` (``grade --gradescope FILE``).

Gradescope's autograder runs ``run_autograder`` and reads
``/autograder/results/results.json`` (specification: the "Autograder Specifications" page
of Gradescope's ``autograder_samples`` repository, ``docs/specs.md``). The document is
built from the same Grade as the JSON report (``grader.report.to_json``), so the two never
disagree::

    {
      "score": 58.5,                  # the report's total (not the sum of rounded tests)
      "execution_time": 42,           # seconds, an integer
      "output": "<the text report>",
      "tests": [
        {"name": "matmul_tiled: correctness", "number": "1.1", "score": 10.0,
         "max_score": 10, "status": "passed" | "failed", "output": "..",
         "visibility": "visible", "tags": ["matmul_tiled", "correctness"]},
        ...
        {"name": "REPORT.md: filled in", "number": "4.1", "score": 2.0, "max_score": 2,
         "status": "passed" | "failed", "output": "..", "visibility": "visible",
         "tags": ["report", "filled"]},
        {"name": "REPORT.md: manual review (8 points, graded by hand)", "number": "4.2",
         "output": "pending manual review: ..", "visibility": "visible",
         "tags": ["report", "manual"]}     # no score, no max_score, no status
      ],
      "leaderboard": [{"name": "matmul_tiled ratio", "value": 1.31, "order": "desc"}]
    }

One test per exercise part with points (``max`` > 0), numbered ``<exercise>.<part>`` in
the report's order. A test is "passed" only when its check ran and earned every point. A
part that could not run (or was left out) scores 0, is "failed", and its output starts
with ``not run: <reason>``: Gradescope has no "pending", and a check that did not run must
never look passed. A part whose own check ran but whose points wait for a correctness that
did not run is reported the same way. ``leaderboard`` has one entry per exercise whose
performance metric (ratio or % of copy, higher is better) was measured in this run; it is
left out when none was. Gradescope's own runners have no GPU, so without a GPU attached
the document says honestly that the device checks were not run.

A lab with a written report (lab.toml ``[report]``) adds, after the exercises, a test for
its automatic "filled" points (like a part: "passed" only with every point) and one for its
manual points that has neither ``score`` nor ``max_score`` nor ``status``: the
specification makes a test's score optional when the document has a top-level ``score``
(ours always has) and ``max_score`` optional; gradescope-utils writes such tests for
unweighted test cases. The manual points are thus neither earned nor lost here and are not
in ``score``: the instructor grades them by hand (a manually graded question of the
Gradescope assignment), and the test's output says so (docs/design-notes.md, 17).
"""

from __future__ import annotations

import json

from grader import report
from grader.errors import GraderError
from grader.files import write_atomic
from grader.results import PART_NAMES, ExerciseResult, Grade, Part, ReportResult


def _not_run_reason(ex: ExerciseResult, part: Part) -> str | None:
    """Why ``part`` has no known points, or None when its points are known."""
    if part.status in ("not_run", "skipped"):
        return part.reason or "unknown"
    if part.points is None:
        why = ex.parts["correctness"].reason or "unknown"
        return (
            f"its points need every correctness case to pass, and correctness did not run ({why})"
        )
    return None


def _test(ex: ExerciseResult, number: str, part: Part) -> dict:
    reason = _not_run_reason(ex, part)
    lines = [report._status_line(part.name, part).strip()]
    lines.extend(line.strip() for line in report._part_details(part))
    if part.finding:
        lines.append(f"=> {part.finding}")
    if reason is not None:
        lines.insert(0, f"not run: {reason}")
    passed = reason is None and part.status == "passed" and part.points >= part.max
    return {
        "name": f"{ex.name}: {part.name}",
        "number": number,
        "score": 0 if part.points is None else part.points,
        "max_score": part.max,
        "status": "passed" if passed else "failed",
        "output": "\n".join(lines) + "\n",
        "visibility": "visible",
        "tags": [ex.name, part.name],
    }


def _report_tests(r: ReportResult, group: int) -> list[dict]:
    """The written report's tests: "filled in" (automatic points) and "manual review"
    (points held for the instructor: no score, no max_score, no status)."""
    tests = []
    if r.max > 0:
        lines = [report._filled_line(r), *(f"=> {m}" for m in r.messages)]
        passed = r.status == "passed" and r.points is not None and r.points >= r.max
        tests.append(
            {
                "name": f"{r.file}: filled in",
                "number": f"{group}.{len(tests) + 1}",
                "score": 0 if r.points is None else r.points,
                "max_score": r.max,
                "status": "passed" if passed else "failed",
                "output": "\n".join(lines) + "\n",
                "visibility": "visible",
                "tags": ["report", "filled"],
            }
        )
    if r.manual > 0:
        tests.append(
            {
                "name": f"{r.file}: manual review ({r.manual} points, graded by hand)",
                "number": f"{group}.{len(tests) + 1}",
                "output": report._manual_text(r) + ": they are added once the instructor has "
                "read the report\n",
                "visibility": "visible",
                "tags": ["report", "manual"],
            }
        )
    return tests


def _leaderboard(grade: Grade) -> list[dict]:
    """One entry per performance criterion measured in this run."""
    entries = []
    for ex in grade.exercises:
        for row in ex.parts["performance"].details:
            for crit in row.get("criteria", []):
                name = f"{ex.name} {crit['metric']}"
                entries.append({"name": name, "value": crit["value"], "order": "desc"})
    return entries


def results(grade: Grade, elapsed_s: float) -> dict:
    """Gradescope's results document of ``grade`` (schema in this module's docstring);
    ``elapsed_s`` is how long grading took."""
    tests = []
    for i, ex in enumerate(grade.exercises, start=1):
        parts = [ex.parts[n] for n in PART_NAMES if ex.parts[n].max > 0]
        for j, part in enumerate(parts, start=1):
            tests.append(_test(ex, f"{i}.{j}", part))
    if grade.report is not None:
        tests.extend(_report_tests(grade.report, len(grade.exercises) + 1))
    doc = {
        "score": grade.total,
        "execution_time": int(round(elapsed_s)),
        "output": report.text(grade),
        "tests": tests,
    }
    board = _leaderboard(grade)
    if board:
        doc["leaderboard"] = board
    return doc


def write(grade: Grade, elapsed_s: float, path: str) -> None:
    """Writes ``results(grade, elapsed_s)`` to ``path`` atomically (a temporary file in the
    same folder, then ``os.replace``): Gradescope never reads a half-written file."""
    try:
        write_atomic(path, json.dumps(results(grade, elapsed_s), indent=2) + "\n")
    except OSError as e:
        raise GraderError(f"cannot write the Gradescope results {path}: {e.strerror}")

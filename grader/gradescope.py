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
"""

from __future__ import annotations

import json

from grader import report
from grader.errors import GraderError
from grader.files import write_atomic
from grader.results import PART_NAMES, ExerciseResult, Grade, Part


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

"""A Grade as Gradescope's ``results.json`` (``grade --gradescope FILE``).

Gradescope's autograder runs ``run_autograder`` and reads
``/autograder/results/results.json`` (specification: the "Autograder Specifications" page
of Gradescope's ``autograder_samples`` repository, ``docs/specs.md``). The document is
built from the same Grade as the JSON report (``grader.report.to_json``), so the two never
disagree::

    {
      "score": 58.5,                  # the report's total (not the sum of rounded tests):
                                      # the points earned so far when some are pending
      "execution_time": 42,           # seconds, an integer
      "output": "<the text report>",
      "extra_data": {"final": true | false, "pending_points": 0},
      "tests": [
        {"name": "matmul_tiled: correctness", "number": "1.1", "score": 10.0,
         "max_score": 10, "status": "passed" | "failed", "output": "..",
         "visibility": "visible", "tags": ["matmul_tiled", "correctness"]},
        {"name": "matmul_tiled: sanitizer (3 points pending: not run yet)", "number": "1.3",
         "output": "pending, not run yet: ..", "visibility": "visible",
         "tags": ["matmul_tiled", "sanitizer", "pending"],
         "extra_data": {"pending": true, "max_score": 3, "reason": ".."}},
                                      # no score, no max_score, no status
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
the report's order. A test is "passed" only when its check ran and earned every point.

A *pending* part (its points not known yet: it could not run or was left out — no GPU, no
compute-sanitizer, ``--no-perf`` — or its own check ran but its points wait for a
correctness that did not run) is neither earned nor lost, so its test is neither passed
nor failed: it has no ``score``, ``max_score`` or ``status`` (like the manual-review test
below), its name ends "(N points pending: not run yet)" (or "ran, its points wait", for a
check that ran and passed whose points wait for correctness), it is tagged "pending", its
``extra_data`` is ``{"pending": true, "max_score": N, "reason": ..}``, and its output
starts with ``pending, not run yet: <reason>``. Gradescope has no "pending" status, and a
test with a score below its maximum shows as failing, so leaving the score out is the one
way not to call a check that never ran failed — nor passed. The document's ``score`` is
the points earned so far; when some are pending its ``output`` starts with a ``NOT A FINAL
GRADE:`` line naming how many points are pending and why, and ``extra_data`` says
``{"final": false, "pending_points": N}``.

A part that did not run but whose points are known — the build or the symbol check
failed, a student file is missing, or the correctness gate closed — is a certain loss:
"failed", score 0, output ``not run: <reason> — 0 points, lost for certain``.
``leaderboard`` has one entry per exercise whose performance metric (ratio or % of copy,
higher is better) was measured in this run; it is left out when none was. Gradescope's
own runners have no GPU, so without a GPU attached the document says honestly that the
device checks were not run and the grade is not final.

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
from grader.status import (
    LOST_FOR_CERTAIN,
    LOST_FOR_CERTAIN_TEXT,
    State,
    Status,
    is_final,
    ran,
    state,
)


def _pending_reason(ex: ExerciseResult, part: Part) -> str:
    """Why ``part``'s points are not known yet (its state is PENDING)."""
    if not ran(part.status):
        return part.reason or "unknown"
    why = ex.parts["correctness"].reason or "unknown"
    return f"its points need every correctness case to pass, and correctness did not run ({why})"


def _pending_test(
    name: str, number: str, lines: list[str], tags: list[str], points: int, reason: str
) -> dict:
    """A test whose ``points`` are pending (module docstring): no score, no max_score and
    no status, tagged "pending", its ``extra_data`` saying how many and why."""
    return {
        "name": name,
        "number": number,
        "output": "\n".join(lines) + "\n",
        "visibility": "visible",
        "tags": [*tags, State.PENDING.value],
        "extra_data": {"pending": True, "max_score": points, "reason": reason},
    }


def _test(ex: ExerciseResult, number: str, part: Part) -> dict:
    lines = [report._status_line(part.name, part).strip()]
    lines.extend(line.strip() for line in report._part_details(part))
    if part.finding:
        lines.append(f"=> {part.finding}")
    st = state(part)
    if st is State.PENDING:  # neither earned nor lost (module docstring)
        reason = _pending_reason(ex, part)
        # a check that ran (static, passed) whose points wait for correctness is not "not run"
        waits = "ran, its points wait" if ran(part.status) else "not run yet"
        lines.insert(
            0,
            f"pending, {waits}: {reason}; its {part.max} points are neither earned nor "
            "lost, and the score is not final until "
            + ("correctness runs" if ran(part.status) else "it runs"),
        )
        return _pending_test(
            f"{ex.name}: {part.name} ({part.max} points pending: {waits})", number, lines,
            [ex.name, part.name], part.max, reason,
        )
    if st is State.LOST_NOT_RUN:  # it did not run, yet its 0 is known: a certain loss
        lines.insert(0, f"not run: {part.reason or 'unknown'} — {LOST_FOR_CERTAIN_TEXT}")
    passed = st is State.EARNED and part.status == Status.PASSED
    return {
        "name": f"{ex.name}: {part.name}",
        "number": number,
        "score": part.points,
        "max_score": part.max,
        "status": Status.PASSED if passed else Status.FAILED,
        "output": "\n".join(lines) + "\n",
        "visibility": "visible",
        "tags": [ex.name, part.name],
    }


def _not_final_line(grade: Grade) -> str | None:
    """The first line of the output of a grade that is not final, or None when it is."""
    if is_final(grade):
        return None
    pending = grade.pending_points
    why = [line for line in grade.not_run if not line.endswith(LOST_FOR_CERTAIN)]
    return (
        f"NOT A FINAL GRADE: {pending} of {grade.max} points are pending on checks that did "
        f"not run ({'; '.join(why) or 'see the report'}). The score, "
        f"{report._points(grade.total)}, counts only the points earned so far; the pending "
        "tests are neither passed nor failed. Grade again where those checks can run."
    )


def _report_tests(r: ReportResult, group: int) -> list[dict]:
    """The written report's tests: "filled in" (automatic points) and "manual review"
    (points held for the instructor: no score, no max_score, no status)."""
    tests = []
    if r.max > 0 and state(r) is State.PENDING:  # as a pending part's (module docstring)
        reason = r.info or "not checked"
        lines = [f"pending: {reason}; its {r.max} points are neither earned nor lost",
                 report._filled_line(r), *(f"=> {m}" for m in r.messages)]
        tests.append(_pending_test(
            f"{r.file}: filled in ({r.max} points pending)", f"{group}.{len(tests) + 1}", lines,
            ["report", "filled"], r.max, reason,
        ))
    elif r.max > 0:
        lines = [report._filled_line(r), *(f"=> {m}" for m in r.messages)]
        passed = state(r) is State.EARNED and r.status == Status.PASSED
        tests.append(
            {
                "name": f"{r.file}: filled in",
                "number": f"{group}.{len(tests) + 1}",
                "score": 0 if r.points is None else r.points,
                "max_score": r.max,
                "status": Status.PASSED if passed else Status.FAILED,
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
    """One entry per performance criterion measured in this run, scored or not (a run
    measured and shown, lab.toml ``scored = false``, keeps its figures in ``measured``)."""
    entries = []
    for ex in grade.exercises:
        for row in ex.parts["performance"].details:
            for crit in row.get("criteria") or row.get("measured") or []:
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
    output = report.text(grade)
    not_final = _not_final_line(grade)
    if not_final:
        output = f"{not_final}\n\n{output}"
    doc = {
        "score": grade.total,
        "execution_time": int(round(elapsed_s)),
        "output": output,
        "extra_data": {"final": is_final(grade), "pending_points": grade.pending_points},
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

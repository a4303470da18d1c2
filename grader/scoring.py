"""Points (docs/protocol.md, "Scoring") and the grader's exit status.

Per exercise:

- **correctness**: ``points.correctness`` split evenly over the cases (exact fractions); a
  case scores when its run document says "ok" with a fresh seed.
- **static**, **sanitizer**, **performance**: their own checks give a fraction (static:
  all rules pass or not; sanitizer: split evenly over the tools, a tool scoring when it is
  clean on every sanitizer case; performance: ``ramp``), but the points are awarded only
  when every correctness case passed. When some correctness case failed they are 0,
  whatever their checks found (which are still reported). When correctness did not run,
  they are pending — except a part whose own check ran and failed outright (a static rule
  broken, fraction 0): it cannot earn anything whatever correctness finds, so its 0 is
  known at once (issue 14: a certain loss is a loss, with or without a GPU).
- The exercise total is rounded to 2 decimals (half up); so is the grand total.
- A written report (lab.toml ``[report]``): its ``filled`` points are all or nothing (the
  check in grader.writeup passed or not) and count in the total and max; its ``manual``
  points are in neither: they are pending manual review, for the instructor.

Exit status (``exit_code``), the rule behind ``python3 -m grader grade``:

- 2: usage or internal error (raised before a Grade exists);
- 1: some part's points are *known* and below its maximum: the loss is final whatever the
  checks that did not run would find. A compile error, a missing student file or a failed
  symbol check zero every part (known even without a GPU), and so does a failed
  correctness case for the gated parts;
- 3: nothing known was lost, but some part is pending: it, or the correctness its points
  depend on, could not run (no CUDA device, no compute-sanitizer, no cuobjdump) or was
  left out (``--no-sanitizer``, ``--no-perf``). On a machine without a GPU a skeleton
  whose static checks fail is 1: those points are lost whatever the GPU would show, and the
  report separates them from the points still pending;
- 0: every part ran and every point was earned.

A report's manual points never change the exit status: they are pending in every automatic
grading by design, so counting them would make 3 permanent for such a lab and take away
its one meaning, "run it again where the missing checks can run" (docs/design-notes.md,
17). A report that is not filled in loses its ``filled`` points for certain: 1.

What the points then are (earned, lost for certain, pending, absent), and the exit status
read from them, is ``grader.status``'s model; this module only computes the points.
"""

from __future__ import annotations

import math
from fractions import Fraction

from grader import status
from grader.results import ExerciseResult, Grade, Part, ReportResult
from grader.status import Status

GATED = ("static", "sanitizer", "performance")


def round2(x: Fraction | float | int) -> float:
    """Rounds half up to 2 decimals, exactly (no binary-float ties)."""
    q = Fraction(x) * 100
    return math.floor(q + Fraction(1, 2)) / 100


def ramp(value: float, zero: float, full: float) -> float:
    """0 at or below ``zero``, 1 at or above ``full``, linear in between."""
    if value >= full:
        return 1.0
    if value <= zero or full == zero:
        return 0.0
    return min(1.0, max(0.0, (value - zero) / (full - zero)))


def _part_points(part: Part) -> Fraction | float | None:
    if part.max == 0:
        return 0
    if part.fraction is None:
        return None
    return part.max * part.fraction


def score_exercise(ex: ExerciseResult) -> None:
    """Sets ``points`` of every part, and the exercise's total and pending flag."""
    correctness = ex.parts["correctness"]
    c_points = _part_points(correctness)
    gate_open = correctness.fraction is not None and correctness.fraction == 1
    gate_known = correctness.fraction is not None or correctness.max == 0
    if correctness.max == 0:
        gate_open = True
    exact = {}
    correctness.points = None if c_points is None else round2(c_points)
    exact["correctness"] = c_points
    for name in GATED:
        part = ex.parts[name]
        p = _part_points(part)
        if part.max == 0:
            p = 0
        elif gate_known and not gate_open:
            p = 0  # a wrong kernel earns nothing for its shape or speed
        elif not gate_known:
            # its own check failed outright: nothing to earn, whatever correctness finds
            p = 0 if part.fraction is not None and part.fraction == 0 else None
        exact[name] = p
        part.points = None if p is None else round2(p)
    known = [v for v in exact.values() if v is not None]
    ex.pending = any(status.state(p).pending for p in ex.parts.values())
    ex.total = round2(sum(known, Fraction(0)))
    ex.max = sum(p.max for p in ex.parts.values())


def score_report(report: ReportResult) -> None:
    """Sets the report's automatic points: all when its check passed, none when it failed,
    None (pending) when it was not checked. Its manual points are not the grader's."""
    if report.max == 0 or report.status == Status.PASSED:
        report.points = float(report.max)
    elif report.status == Status.FAILED:
        report.points = 0.0
    else:
        report.points = None


def exit_code(exercises: list[ExerciseResult], report: ReportResult | None = None) -> int:
    """1 when a known part (or the report's filled points) lost points, else 3 when some
    part is pending, else 0 (``grader.status.exit_code``). Manual points do not count
    (module docstring)."""
    items = [p for ex in exercises for p in ex.parts.values()]
    return status.exit_code(items + ([report] if report is not None else []))


def score(grade: Grade) -> None:
    """Scores every exercise and the report, and sets the grade's total, max (both
    automatic: manual points are apart, ``Grade.manual_pending``) and exit code."""
    for ex in grade.exercises:
        score_exercise(ex)
    total = sum((Fraction(ex.total) for ex in grade.exercises), Fraction(0))
    grade.max = sum(ex.max for ex in grade.exercises)
    if grade.report is not None:
        score_report(grade.report)
        total += Fraction(grade.report.points or 0)
        grade.max += grade.report.max
    grade.total = round2(total)
    grade.exit_code = exit_code(grade.exercises, grade.report)

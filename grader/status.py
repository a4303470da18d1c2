"""The status model: what a check did, what its points are, and when a grade is final.

Every module that asks "did it run?", "is it pending?", "is it lost for certain?" or "is
this grade final?" asks here (issue 17: these questions were answered by string
comparisons and a ``None`` sentinel in eight modules). Nothing here changes a document:
the values are the strings the reports always wrote (docs/protocol.md, "Scoring").

**What a check did** — ``Status``, the ``"status"`` of a step, a part and the written
report in the JSON report (``grader.report``), spelled as its value:

- ``PASSED`` ``"passed"`` / ``FAILED`` ``"failed"``: the check ran (``ran``);
- ``SKIPPED`` ``"skipped"``: left out on purpose (``--no-sanitizer``, ``--no-perf``), its
  tool is missing (no cuobjdump for the static checks), or the exercise has no such part
  (reason ``NOT_IN_EXERCISE``);
- ``NOT_RUN`` ``"not_run"``: it could not run (no CUDA device, no compute-sanitizer, a
  correctness case hung, uncalibrated thresholds), or the submission is zeroed (a missing
  student file, a failed build or symbol check); a part's and the report's default;
- ``INFO`` ``"info"``: evidence without a verdict: a step (the memory spaces), or a
  performance part measured and shown, not scored (lab.toml ``scored = false``, 0 points).

Skipped and not-run checks are never counted as passed.

**What a part's points are** — ``State``, derived by ``state`` from the points that
``grader.scoring`` set (``points`` None is *pending*), the maximum and the ``Status``. It
applies to an exercise's part and to the report's automatic "filled" points alike:

- ``ABSENT`` — nothing at stake: the exercise has no such part (no lab.toml table) or
  it is worth 0 points. Scores 0 of 0, never pending, never lost; final. JSON: ``"max":
  0, "points": 0`` (without a table ``"status": "skipped", "reason": "not part of this
  exercise"``); no Gradescope test.
- ``EARNED`` — every point earned. Final. JSON: ``"points"`` equal to ``"max"``,
  ``"status": "passed"``.
- ``LOST`` — its check ran and some points are lost for certain (its own check found
  them, or the correctness gate closed). Final; the grade exits 1. JSON: ``"points"``
  below ``"max"``, ``"status": "failed"`` (or ``"passed"`` behind a closed gate).
- ``LOST_NOT_RUN`` — it never ran, yet its 0 is known: the submission is zeroed (a
  missing student file, a failed build or symbol check). Final; the grade exits 1. JSON:
  ``"points": 0``, ``"status": "not_run"`` (or ``"skipped"``); the reports say
  ``LOST_FOR_CERTAIN``, Gradescope fails its test.
- ``PENDING`` — not known yet: it, or the correctness its points wait for, did not run
  (or its thresholds are uncalibrated). Not final; the grade exits 3 unless some point is
  lost. JSON: ``"points": null`` and the exercise's ``"pending": true``, any status
  (``"passed"``/``"failed"`` when its own check ran and correctness did not); Gradescope's
  test has no score and no status, tagged ``"pending"``.

A grade is **final** (``is_final``: ``"final": true`` in the JSON report, Gradescope's
``extra_data``) when no automatic point is pending (``pending_points`` 0). Its exit status
(``exit_code``): 1 when some point is lost for certain (``LOST`` or ``LOST_NOT_RUN``), else
3 when some point is pending, else 0 — a certain loss wins over pending points, and a grade
can be both lost (1) and not final. The report's manual points (``MANUAL_REVIEW``) are
none of these states: the grader never earns or loses them, and they make no grade
non-final (docs/design-notes.md, 17).

A batch's **gradebook status** (``grader.batch``) spells a grade that is not final with the
prefix ``PARTIAL`` (``PARTIAL_NO_GPU``, ``PARTIAL_NOT_RUN``); ``row_is_final`` reads it
back from a ``batch.json`` row, where no Grade is left to ask.
"""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Iterable, Protocol


class Status(StrEnum):
    """What a check did: the JSON report's ``"status"`` of a step, a part, the report.
    A ``StrEnum``: a member equals, hashes and serialises as its string (module
    docstring)."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    NOT_RUN = "not_run"
    INFO = "info"  # evidence without a verdict: a step, or a performance not scored


RAN = (Status.PASSED, Status.FAILED)
DID_NOT_RUN = (Status.SKIPPED, Status.NOT_RUN)

# The reason of a part the exercise has no lab.toml table for (Status.SKIPPED, 0 points):
# it never becomes "not_run", and the NOT RUN lines leave it out.
NOT_IN_EXERCISE = "not part of this exercise"
# What the reports say of a check that did not run but whose points are known: 0, a certain
# loss (State.LOST_NOT_RUN), never pending. LOST_FOR_CERTAIN ends a reason of Grade.not_run
# whose parts all scored so.
LOST_FOR_CERTAIN_TEXT = "0 points, lost for certain"
LOST_FOR_CERTAIN = f" ({LOST_FOR_CERTAIN_TEXT})"
# The JSON report's "status" of a lab's manual points (never earned or lost by the grader).
MANUAL_REVIEW = "pending manual review"
# Gradebook statuses of a grade that is not final (grader.batch).
PARTIAL = "partial"
PARTIAL_NO_GPU = f"{PARTIAL} (no GPU)"
PARTIAL_NOT_RUN = f"{PARTIAL} (checks not run)"


class State(Enum):
    """What a part's (or the report's filled) points are; ``state`` derives it. The
    members' meaning, scoring, finality and JSON spelling: the module docstring."""

    ABSENT = "absent"
    EARNED = "earned"
    LOST = "lost"
    LOST_NOT_RUN = "lost_not_run"
    PENDING = "pending"

    @property
    def lost(self) -> bool:
        """Some points are lost for certain: the grade exits 1."""
        return self in (State.LOST, State.LOST_NOT_RUN)

    @property
    def pending(self) -> bool:
        """The points are not known yet: the grade is not final."""
        return self is State.PENDING


class Scored(Protocol):
    """A part (grader.results.Part) or the report's filled points (ReportResult)."""

    max: int
    points: float | None
    status: str


def ran(status: str) -> bool:
    """Whether a check with this status ran (passed or failed)."""
    return status in RAN


def not_in_exercise(part) -> bool:
    """Whether the exercise has no lab.toml table for ``part`` (its reason says so)."""
    return part.reason == NOT_IN_EXERCISE


def state_of(status: str, points: float | None, max_points: int) -> State:
    """The State of a check with this status and scored points (module docstring)."""
    if max_points == 0:
        return State.ABSENT
    if points is None:
        return State.PENDING
    if points >= max_points:
        return State.EARNED
    return State.LOST if ran(status) else State.LOST_NOT_RUN


def state(x: Scored) -> State:
    """The State of a scored part or report (after ``grader.scoring``)."""
    return state_of(x.status, x.points, x.max)


def state_of_json(doc: dict) -> State:
    """The State of a part (or ``report``) object of the JSON report: the report's
    documents carry all ``state`` needs."""
    return state_of(doc["status"], doc["points"], doc["max"])


def pending_points(items: Iterable[Scored]) -> int:
    """The points not known yet among ``items`` (parts, the report's filled points)."""
    return sum(x.max for x in items if state(x).pending)


def lost_points(items: Iterable[Scored]) -> float:
    """The points known to be lost among ``items``, rounded to 2 decimals."""
    return round(sum(x.max - x.points for x in items if x.points is not None), 2)


def exit_code(items: Iterable[Scored]) -> int:
    """1 when some point is lost for certain, else 3 when some is pending, else 0."""
    states = {state(x) for x in items}
    if any(s.lost for s in states):
        return 1
    return 3 if State.PENDING in states else 0


def is_final(grade) -> bool:
    """Whether a Grade's automatic score is final: no point pending (manual points are
    apart)."""
    return grade.pending_points == 0


def row_is_final(status: str) -> bool:
    """Whether a gradebook status (a ``batch.json`` row's) is a final grade."""
    return not status.startswith(PARTIAL)


ROW_ERROR = "error:"  # a gradebook status where the grader itself failed: "error: <why>"


def row_is_error(status) -> bool:
    """Whether a gradebook status (a ``batch.json`` row's) is the grader's own failure
    (``ROW_ERROR``): nothing is known of the submission, which the next run grades again."""
    return str(status).startswith(ROW_ERROR)

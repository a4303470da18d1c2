"""What a grading found: steps, parts, exercises (the data the report is made from).

A *step* is something done once per submission (assemble, build, symbols, device). A
*part* is one of an exercise's four scored parts (correctness, static, sanitizer,
performance) with a ``grader.status.Status``: what its check did ("passed", "failed",
"skipped", "not_run").

``fraction`` is the share of the part's points its own check earned (None when it did
not run); ``grader.scoring`` turns it into ``points``, applying the correctness gate.
``grader.status`` defines what the points then are (``State``): earned, lost for certain
(a part that did not run because the submission is zeroed — a missing file, a failed build
or symbol check — is "not_run" with fraction 0: its 0 is known), *pending* (``points``
None: it, or the correctness it depends on, did not run) or absent. Skipped and not-run
parts are never counted as passed.

A lab with a written report (lab.toml ``[report]``) adds a ``ReportResult``: its automatic
"filled" points, known once the check ran, and its manual points, which the grader neither
earns nor loses: they are *pending manual review* (``Grade.manual_pending``), outside the
automatic total and max.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from grader import status as status_model
from grader.status import Status

PART_NAMES = ("correctness", "static", "sanitizer", "performance")


@dataclass
class Part:
    name: str
    max: int
    status: str = Status.NOT_RUN
    fraction: Fraction | float | None = None
    messages: list[str] = field(default_factory=list)  # readable findings
    reason: str | None = None  # why skipped / not run
    details: list[dict] = field(default_factory=list)  # per case / per tool rows (JSON)
    info: str = ""  # one line of measurements (resources, measured ratio)
    finding: str | None = None  # the one-line diagnosis with its hint, when it failed
    points: float | None = None  # set by grader.scoring; None = pending

    @property
    def pending(self) -> bool:
        return status_model.state(self).pending


@dataclass
class ExerciseResult:
    name: str
    parts: dict[str, Part]
    total: float | None = None  # rounded; the points known so far when pending
    max: int = 0
    pending: bool = False
    note: str | None = None  # why the whole exercise scored nothing (build failed, ...)
    # lab.toml [[exercise.lint]] matches in the student files: likely mistakes the source
    # shows before anything runs (no points; they help most where there is no GPU)
    warnings: list[str] = field(default_factory=list)

    @property
    def findings(self) -> list[str]:
        """One line per failed part (its diagnosis and hint), in part order — but a
        sanitizer finding (a race, an out-of-bounds access) comes first when correctness
        failed too: it is the cause the wrong outputs only hint at — then the source
        warnings. Each text once: an exercise not begun is "not implemented yet" to its
        correctness and its static part alike."""
        lines = [self.note] if self.note else []
        parts = list(self.parts.values())
        san, corr = self.parts.get("sanitizer"), self.parts.get("correctness")
        if san is not None and san.finding and corr is not None and corr.finding:
            parts.remove(san)
            parts.insert(0, san)
        lines += [p.finding for p in parts if p.finding]
        return list(dict.fromkeys(lines + [f"warning: {w}" for w in self.warnings]))


@dataclass
class ReportResult:
    """The student's report (lab.toml ``[report]``, grader.writeup): the automatic check that
    it is filled in, worth ``max`` points (all or nothing), and the ``manual`` points held
    for the instructor."""

    file: str  # "REPORT.md"
    max: int  # the automatic points for a report that is filled in ("filled")
    manual: int  # graded by hand: never earned or lost by the grader
    status: str = Status.NOT_RUN  # PASSED / FAILED once checked
    points: float | None = None  # set by grader.scoring; None = not checked
    info: str = ""  # one line: how many sections are filled in
    messages: list[str] = field(default_factory=list)  # one per problem, naming the section
    sections: list[dict] = field(default_factory=list)  # {"heading": .., "status": ..}


@dataclass
class Step:
    name: str  # "assemble", "build", "symbols", "device"
    status: str  # a Status: INFO is evidence without a verdict
    messages: list[str] = field(default_factory=list)


@dataclass
class Grade:
    lab: str  # lab folder name
    lab_id: str
    title: str
    submission: str
    seed: int | None  # --seed, or None for fresh seeds
    arch: str | None
    steps: list[Step] = field(default_factory=list)
    exercises: list[ExerciseResult] = field(default_factory=list)
    device: dict | None = None
    not_run: list[str] = field(default_factory=list)  # "correctness: no CUDA device (...)"
    total: float = 0.0
    max: int = 0
    exit_code: int = 0
    notes: list[str] = field(default_factory=list)  # e.g. how to reproduce a failed case
    # wall seconds per phase: "build", "gpu_wait" (for the batch's GPU lock), "untimed"
    # (device probe, correctness, sanitizer; of which "correctness" up to the end of the
    # correctness runs, "sanitizer" the rest), "timed" (performance runs); "early_oom" only
    # where a batch's early timed run's judge ran out of memory in its set-up, the seconds
    # it lasted (its runs then made after the untimed runs: design note 84)
    timings: dict[str, float] = field(default_factory=dict)
    report: ReportResult | None = None  # the lab's [report], when it has one

    @property
    def manual_pending(self) -> int:
        """Points held for the instructor's manual review (not in ``total`` or ``max``)."""
        return self.report.manual if self.report else 0

    def scored(self) -> list:
        """Everything with automatic points: every exercise's parts, then the report's
        "filled" points when the lab has a report (``grader.status``'s items)."""
        items = [p for ex in self.exercises for p in ex.parts.values()]
        return items + ([self.report] if self.report is not None else [])

    @property
    def pending_points(self) -> int:
        """Automatic points not known yet: parts whose checks (or the correctness they
        wait for) did not run, and an unchecked report's "filled" points. 0 means the
        automatic total is final (manual points are apart: ``manual_pending``)."""
        return status_model.pending_points(self.scored())

    @property
    def lost_points(self) -> float:
        """Automatic points known to be lost: the known parts' shortfall, and a report's
        "filled" points when it is not filled in."""
        return status_model.lost_points(self.scored())

    def step(self, name: str) -> Step | None:
        for s in self.steps:
            if s.name == name:
                return s
        return None

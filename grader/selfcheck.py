"""``selfcheck``: the course's own solutions and skeletons get the grades they must.

For every lab (``labs/<lab>/lab.toml``), two gradings against the pristine lab:

- the solution (``solutions/<lab>`` as the submission) must get full marks, its written
  report (lab.toml ``[report]``, an example) included: it must be filled in;
- the skeleton (``labs/<lab>`` itself) must build, pass the symbol check, run every
  correctness case without a crash, hang or CUDA error (status "wrong", cleanly), and
  score 0 correctness points (its sanitizer and performance runs are left out: with no
  correct output they earn nothing either way); its report, the template, must earn none of
  the report's filled points. A lab whose skeleton is a correct, slow starting point
  (lab.toml ``skeleton = "naive"``, lab 3.5) expects the opposite of its runs: every
  correctness case "ok", every correctness and sanitizer point, and 0 performance points
  (its sanitizer and performance runs are made).

Without a CUDA device the runtime expectations cannot be checked; what can be is: both
build and pass the symbol check, the solution passes every static check, and the skeleton
fails the static checks of every exercise that has static points.

Exit status: 0 every expectation met; 1 some expectation not met; 3 no device (and every
expectation that could be checked was met).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from grader import grade as grading
from grader import course, manifest, report
from grader.errors import GraderError
from grader.results import Grade
from grader.status import State, Status, is_final, ran, state


@dataclass
class Row:
    lab: str
    variant: str  # "solution" or "skeleton"
    grade: Grade | None
    problems: list[str] = field(default_factory=list)  # expectations not met
    error: str | None = None  # GraderError while grading

    @property
    def ok(self) -> bool:
        return self.error is None and not self.problems


def _step_ok(g: Grade, name: str) -> bool:
    s = g.step(name)
    return s is not None and s.status == Status.PASSED


def _common(g: Grade) -> list[str]:
    problems = []
    for name in ("assemble", "build", "symbols"):
        s = g.step(name)
        if s is None or s.status != Status.PASSED:
            detail = f": {s.messages[0]}" if s and s.messages else ""
            problems.append(f"{name} did not pass{detail}")
    return problems


def _report_problems(g: Grade, solution: bool) -> list[str]:
    r = g.report
    if r is None or r.max == 0:
        return []
    if solution and r.status != Status.PASSED:
        return [f"{r.file} is not filled in: {'; '.join(r.messages) or r.status}"]
    if not solution and r.status == Status.PASSED:
        return [f"the template {r.file} passes as filled in (worth {r.max} points)"]
    return []


def _why(part) -> str:
    """A part's first message, else why it did not run, else its status."""
    return part.messages[0] if part.messages else part.reason or part.status


def _cases_not(ex, status: str, who: str, must: str) -> list[str]:
    """One problem per correctness case of ``ex`` whose run did not end with ``status``."""
    return [
        f"{ex.name}: at {'×'.join(map(str, row.get('size', ['a hidden case'])))} {who}'s run "
        f"ended with '{row['status']}' ({must}): {row.get('message', '')}"
        for row in ex.parts["correctness"].details
        if row["status"] != status
    ]


def expect_solution(g: Grade) -> list[str]:
    problems = _common(g)
    if problems:
        return problems
    problems += _report_problems(g, solution=True)
    for ex in g.exercises:
        st = ex.parts["static"]
        if st.max > 0 or ran(st.status):
            if st.status != Status.PASSED:
                problems.append(f"{ex.name}: static {st.status}: {_why(st)}")
    if g.device is None:
        return problems
    for ex in g.exercises:
        for part in ex.parts.values():
            st = state(part)
            if st.lost:
                why = _why(part)
                if part.name == "performance" and part.info:
                    why = f"measured {part.info}"
                problems.append(f"{ex.name}: {part.name} {part.points:g}/{part.max}: {why}")
            elif st.pending and part.reason != manifest.UNCALIBRATED:
                problems.append(f"{ex.name}: {part.name} not run: {part.reason}")
    return problems


def uncalibrated(g: Grade | None) -> list[str]:
    """'exercise: measured ...' for each exercise whose thresholds are not calibrated."""
    if g is None:
        return []
    return [
        f"{ex.name}: {ex.parts['performance'].info}"
        for ex in g.exercises
        if ex.parts["performance"].reason == manifest.UNCALIBRATED
    ]


def expect_skeleton(g: Grade, kind: str = "stub") -> list[str]:
    """What in the skeleton's grade contradicts its kind (manifest.SKELETON_KINDS)."""
    if kind == "naive":
        return _expect_naive(g)
    problems = _common(g)
    if problems:
        return problems
    problems += _report_problems(g, solution=False)
    for ex in g.exercises:
        st = ex.parts["static"]
        if st.max > 0 and st.status == Status.PASSED:
            problems.append(
                f"{ex.name}: the skeleton passes the static checks worth {st.max} points"
            )
    if g.device is None:
        return problems
    for ex in g.exercises:
        problems += _cases_not(ex, "wrong", "the skeleton", "must fail cleanly with 'wrong'")
        c = ex.parts["correctness"]
        if state(c).pending or c.points != 0:
            problems.append(f"{ex.name}: the skeleton scores {c.points} correctness points")
    return problems


def _expect_naive(g: Grade) -> list[str]:
    """A correct, slow starting point: every run ok, every correctness and sanitizer point,
    no performance point."""
    problems = _common(g)
    if problems:
        return problems
    problems += _report_problems(g, solution=False)
    if g.device is None:
        return problems
    for ex in g.exercises:
        problems += _cases_not(ex, "ok", "the naive starting code", "must be correct")
        for name in ("correctness", "sanitizer"):
            part = ex.parts[name]
            if state(part) not in (State.ABSENT, State.EARNED):
                problems.append(
                    f"{ex.name}: the naive code's {name} {part.points}/{part.max}: {_why(part)}"
                )
        perf = ex.parts["performance"]
        if perf.max > 0 and perf.reason != manifest.UNCALIBRATED:
            if state(perf).pending:
                problems.append(f"{ex.name}: performance not run: {perf.reason}")
            elif perf.points != 0:
                problems.append(
                    f"{ex.name}: the naive starting code earns {perf.points:g} of "
                    f"{perf.max} performance points (measured {perf.info})"
                )
    return problems


def _grade(
    lab_dir: Path, submission: Path, seed: int | None, full: bool
) -> tuple[Grade | None, str | None]:
    options = grading.Options(submission=submission, seed=seed, sanitizer=full, performance=full)
    try:
        return grading.grade(lab_dir, options), None
    except GraderError as e:
        return None, str(e)


def selfcheck(
    root: Path, labs: list[str] | None, out, json_path: str | None = None, seed: int | None = None
) -> int:
    lab_dirs = course.select_labs(root, labs)
    if not lab_dirs:
        raise GraderError(f"no lab with a lab.toml under {manifest.display_path(root / 'labs')}")
    if not (root / "solutions").is_dir():
        # a student's copy: no reference to grade, and labs/ holds the student's own work, not
        # the skeleton (a student's trial: five "does not exist" errors, then its finished lab
        # reported as a skeleton that "passes the static checks")
        raise GraderError(
            "selfcheck grades the course's reference solutions and skeletons: solutions/ is "
            "not in this copy (the student release). It is the instructors' check of a GPU; "
            "grade your own work with make grade LAB=<id>"
        )
    rows: list[Row] = []
    for lab_dir in lab_dirs:
        sol_dir = root / "solutions" / lab_dir.name
        g, err = _grade(lab_dir, sol_dir, seed, full=True)
        rows.append(Row(lab_dir.name, "solution", g, expect_solution(g) if g else [], err))
        kind = manifest.load(lab_dir).skeleton
        g, err = _grade(lab_dir, lab_dir, seed, full=kind == "naive")
        rows.append(Row(lab_dir.name, "skeleton", g, expect_skeleton(g, kind) if g else [], err))

    no_device = any(r.grade is not None and r.grade.device is None for r in rows)
    _print_table(rows, out)
    if json_path:
        _write_json(rows, json_path)
    if any(not r.ok for r in rows):
        print("selfcheck: FAILED (expectations not met, above)", file=out)
        return 1
    loose = [f"{r.lab} {r.variant} {line}" for r in rows for line in uncalibrated(r.grade)]
    if loose:
        print("UNCALIBRATED (lab.toml calibrated = false: set zero and full from these, then "
              "remove it):", file=out)
        for line in loose:
            print(f"  {line}", file=out)
        print("selfcheck: NOT COMPLETE: thresholds not calibrated (above)", file=out)
        return 3
    if no_device:
        print(
            "selfcheck: NOT COMPLETE: no CUDA device, so the correctness, sanitizer and "
            "performance expectations were not checked (builds, symbols and static checks "
            "were, and hold; a score ending in + has points pending on those checks)",
            file=out,
        )
        return 3
    print(
        "selfcheck: every solution has full marks, every skeleton scores 0 (a naive one: "
        "every correctness point, no performance point)",
        file=out,
    )
    return 0


def _write_json(rows: list[Row], path: str) -> None:
    data = [
        {
            "lab": r.lab,
            "variant": r.variant,
            "ok": r.ok,
            "problems": r.problems,
            "error": r.error,
            "report": report.to_json(r.grade) if r.grade else None,
        }
        for r in rows
    ]
    try:
        with open(path, "w") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
    except OSError as e:
        raise GraderError(f"cannot write {path}: {e.strerror}")


def _print_table(rows: list[Row], out) -> None:
    """One row per graded variant. ``score`` is the automatic total and maximum, with a
    ``+`` when some points are pending (checks that did not run); ``verdict`` is "as
    expected" only when every expectation was checked, "so far as expected" when the
    runtime ones could not be (no GPU)."""
    width = max([16, *(len(r.lab) for r in rows)])
    head = (
        f"{'lab':<{width}} {'variant':<9} {'build':<7} {'static':<8} {'correct':<9} "
        f"{'score':<12} verdict"
    )
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        if r.grade is None:
            print(f"{r.lab:<{width}} {r.variant:<9} error: {r.error}", file=out)
            continue
        g = r.grade
        build = "ok" if _step_ok(g, "build") else "FAILED"
        statics = [ex.parts["static"] for ex in g.exercises if ex.parts["static"].max > 0]
        if not statics:
            static = "·"
        else:
            n_pass = sum(p.status == Status.PASSED for p in statics)
            static = f"{n_pass}/{len(statics)}"
        cors = [ex.parts["correctness"] for ex in g.exercises]
        if any(state(p).pending for p in cors):
            correct = "not run"
        else:
            correct = f"{sum(p.points for p in cors):g}/{sum(p.max for p in cors)}"
        score = f"{g.total:g}/{g.max}" + ("" if is_final(g) else "+")
        if not r.ok:
            verdict = "NOT AS EXPECTED"
        elif g.device is None:
            verdict = "so far as expected (no GPU)"
        else:
            verdict = "as expected"
        print(
            f"{r.lab:<{width}} {r.variant:<9} {build:<7} {static:<8} {correct:<9} {score:<12} "
            f"{verdict}",
            file=out,
        )
        for p in r.problems:
            print(f"    - {p}", file=out)

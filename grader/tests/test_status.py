"""The status model (grader/status.py): the JSON spelling of a check's status, each
part state's scoring, finality and exit status as the scorer produces it, the state read
back from the JSON report, and the gradebook's final / partial statuses."""

from __future__ import annotations

import contextlib
import io
import json
from fractions import Fraction

import pytest

from grader import cli, harness, report, scoring, status
from grader import run as runner
from grader.results import PART_NAMES, ExerciseResult, Grade, Part, ReportResult, Step
from grader.status import NOT_IN_EXERCISE, State, Status

# -- Status: what a check did ----------------------------------------------------------


def test_status_values_are_the_strings_the_reports_always_wrote():
    assert [s.value for s in Status] == ["passed", "failed", "skipped", "not_run", "info"]


@pytest.mark.parametrize("s", list(Status), ids=lambda s: s.value)
def test_status_json_round_trip(s):
    text = json.dumps({"status": s})
    assert text == '{"status": "%s"}' % s.value  # written as the plain string
    back = json.loads(text)["status"]
    assert type(back) is str and back == s and Status(back) is s
    assert hash(back) == hash(s) and {s: 1}[back] == 1  # a plain string finds the member
    assert f"{s}" == s.value and f"{s:<9}" == f"{s.value:<9}"  # and prints as one


@pytest.mark.parametrize("s", ["passed", "failed", Status.PASSED, Status.FAILED])
def test_a_check_that_passed_or_failed_ran(s):
    assert status.ran(s)


@pytest.mark.parametrize("s", ["skipped", "not_run", "info", Status.SKIPPED, Status.NOT_RUN])
def test_a_skipped_or_not_run_check_did_not_run(s):
    assert not status.ran(s)


# -- State: what a part's points are, as the scorer leaves them ---------------------------

ABSENT_PART = dict(status=Status.SKIPPED, fraction=None, reason=NOT_IN_EXERCISE)


def scored(correctness: dict, static: dict | None = None) -> Grade:
    """A scored grade of one exercise: correctness (10 points) and static (2 points; absent
    when None) as given (status, fraction, ...), sanitizer and performance absent (no
    lab.toml table)."""
    specs = {"correctness": correctness, "static": static or ABSENT_PART}
    parts = {}
    for name in PART_NAMES:
        spec = specs.get(name, ABSENT_PART)
        points = {"correctness": 10, "static": 2}.get(name, 0) if spec is not ABSENT_PART else 0
        parts[name] = Part(name, points, **spec)
    g = Grade("9.1-fake", "9.1", "Fake lab", "sub", None, None)
    g.exercises.append(ExerciseResult("scale", parts))
    scoring.score(g)
    return g


PASSED = dict(status=Status.PASSED, fraction=Fraction(1))
HALF = dict(status=Status.FAILED, fraction=Fraction(1, 2))
ZEROED = dict(status=Status.NOT_RUN, fraction=0, reason="the build failed")
NO_DEVICE = dict(status=Status.NOT_RUN, fraction=None, reason="no CUDA device")

# name → (correctness, static, the part looked at, its state, exit status, final)
CASES = {
    "earned": (PASSED, None, "correctness", State.EARNED, 0, True),
    "lost by its own check": (HALF, None, "correctness", State.LOST, 1, True),
    "lost behind the correctness gate": (HALF, PASSED, "static", State.LOST, 1, True),
    "lost without running (zeroed)": (ZEROED, None, "correctness", State.LOST_NOT_RUN, 1, True),
    "pending: did not run": (NO_DEVICE, None, "correctness", State.PENDING, 3, False),
    "pending: ran, waits for correctness": (NO_DEVICE, PASSED, "static", State.PENDING, 3, False),
    "a static rule broken without a GPU is lost": (
        NO_DEVICE, dict(status=Status.FAILED, fraction=0), "static", State.LOST, 1, False,
    ),
    "absent: no lab.toml table": (PASSED, None, "sanitizer", State.ABSENT, 0, True),
    "absent: no device, but nothing at stake": (NO_DEVICE, None, "static", State.ABSENT, 3, False),
}


@pytest.mark.parametrize("case", CASES)
def test_each_state_scores_and_finalises_as_documented(case):
    correctness, static, name, expected, code, final = CASES[case]
    g = scored(correctness, static)
    part = g.exercises[0].parts[name]
    st = status.state(part)
    assert st is expected
    assert st.pending == (part.points is None)  # PENDING is exactly "points null"
    assert st.lost == (part.points is not None and part.points < part.max)
    if st is State.ABSENT:
        assert (part.max, part.points) == (0, 0)
    if st is State.EARNED:
        assert part.points == part.max > 0
    assert g.exit_code == code == status.exit_code(p for p in g.exercises[0].parts.values())
    assert status.is_final(g) is final
    assert report.to_json(g)["final"] is final


@pytest.mark.parametrize("case", CASES)
def test_the_state_reads_back_from_the_json_report(case):
    correctness, static, name, expected, _, _ = CASES[case]
    g = scored(correctness, static)
    doc = json.loads(json.dumps(report.to_json(g)))
    part = doc["exercises"][0]["parts"][name]
    assert status.state_of_json(part) is expected
    assert doc["exercises"][0]["pending"] == any(
        status.state_of_json(p) is State.PENDING for p in doc["exercises"][0]["parts"].values()
    )


def test_the_states_in_the_text_report():
    lost = report.text(scored(ZEROED))
    assert "correctness  not run: the build failed  (0 points, lost for certain)" in lost
    pending = report.text(scored(NO_DEVICE, PASSED))
    assert "(points wait for correctness, which did not run)" in pending
    assert "lost for certain" not in pending and "this is not a final grade" in pending
    assert "sanitizer    skipped" not in report.text(scored(PASSED))  # absent: not shown


def test_a_static_pass_without_a_gpu_points_to_what_static_cannot_see():
    """static ok with correctness not run (no GPU): one line names what a passed static check
    cannot see and where the list is (a student's trial read "static ok" as "correct");
    none once correctness ran, or where static failed."""
    pending = report.text(scored(NO_DEVICE, PASSED))
    assert pending.count(report.STATIC_ALONE_TEXT) == 1
    assert "handouts/grading.md, section 10" in report.STATIC_ALONE_TEXT
    assert report.STATIC_ALONE_TEXT not in report.text(scored(PASSED, PASSED))
    failed = report.text(scored(NO_DEVICE, dict(status=Status.FAILED, fraction=0)))
    assert report.STATIC_ALONE_TEXT not in failed
    assert report.STATIC_ALONE_TEXT not in report.text(scored(NO_DEVICE))  # no static part
    g = scored(NO_DEVICE, PASSED)
    g.not_run = ["correctness — no CUDA device"]
    lines = report.text(g).splitlines()
    at = lines.index("NOT RUN: correctness — no CUDA device")
    assert lines[at + 1] == report.STATIC_ALONE_TEXT  # right under the NOT RUN lines


def test_a_certain_loss_wins_over_pending_points_but_the_grade_is_not_final():
    g = scored(NO_DEVICE, dict(status=Status.FAILED, fraction=0))
    assert (g.exit_code, g.pending_points, g.lost_points) == (1, 10, 2)
    assert not status.is_final(g)


@pytest.mark.parametrize(
    "report_status, points, expected, code",
    [
        (Status.PASSED, 2.0, State.EARNED, 0),
        (Status.FAILED, 0.0, State.LOST, 1),
        (Status.NOT_RUN, None, State.PENDING, 3),
    ],
)
def test_the_reports_filled_points_take_the_same_states(report_status, points, expected, code):
    g = scored(PASSED)
    g.report = ReportResult("REPORT.md", 2, 8, status=report_status)
    scoring.score(g)
    assert g.report.points == points and status.state(g.report) is expected
    assert g.exit_code == code
    assert status.is_final(g) is (expected is not State.PENDING)  # manual points: never
    doc = json.loads(json.dumps(report.to_json(g)))
    assert status.state_of_json(doc["report"]) is expected
    assert doc["report"]["manual"]["status"] == status.MANUAL_REVIEW == "pending manual review"


def test_a_report_worth_no_filled_points_is_absent():
    g = scored(PASSED)
    g.report = ReportResult("REPORT.md", 0, 8)
    scoring.score(g)
    assert status.state(g.report) is State.ABSENT and g.exit_code == 0 and status.is_final(g)


# -- the gradebook's statuses ------------------------------------------------------------


def test_gradebook_statuses():
    assert (status.PARTIAL_NO_GPU, status.PARTIAL_NOT_RUN) == (
        "partial (no GPU)",
        "partial (checks not run)",
    )
    for s in (status.PARTIAL_NO_GPU, status.PARTIAL_NOT_RUN):
        assert not status.row_is_final(s)
    for s in ("graded", "build failed", "start-up failed", "error: x", "rejected: why"):
        assert status.row_is_final(s)


@pytest.mark.slow
def test_a_failed_device_probe_is_a_partial_grade_not_a_final_one(
    fake_root, tmp_path, monkeypatch
):
    """The judge's --device-info failing leaves every runtime point pending (report.json:
    "final": false); the gradebook once called it "start-up failed", a final status: its
    cells showed the score so far and a re-run skipped it as already graded."""
    outcome = runner.Outcome("signaled", signal="SIGSEGV")
    monkeypatch.setattr(
        harness, "device_info", lambda *a, **k: harness.CaseRun([], outcome, None, "crashed")
    )
    out = tmp_path / "out"
    sub = fake_root / "solutions" / "9.1-fake"
    err = io.StringIO()
    argv = ["batch", fake_root / "labs/9.1-fake", sub, "--out", out, "--jobs", "1"]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main([str(a) for a in argv])
    rep = json.loads((out / "9.1-fake" / "report.json").read_text())
    row = json.loads((out / "9.1-fake" / "batch.json").read_text())
    assert rep["final"] is False and row["pending_points"] > 0
    assert row["status"] == status.PARTIAL_NOT_RUN, err.getvalue()
    assert code == 3, err.getvalue()
    # the same command again grades it again instead of skipping it as final
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        cli.main([str(a) for a in argv])
    assert "already graded" not in err.getvalue()


def test_the_text_report_carries_no_terminal_escape():
    """A submission's own output reaches the report (a run's stderr, a sanitizer's report
    of its kernel, a part's messages): every line of the text report is escaped, so ESC[2J
    or an OSC 52 clipboard write reaches no terminal (a helper's review, session 32)."""
    g = scored(HALF)
    g.steps.append(Step("build", Status.PASSED, ["ok\x1b[2J", "clip \x1b]52;c;cHduZWQ=\x07"]))
    g.steps.append(Step("device", Status.FAILED, ["stderr: \x9b31mred\tok"]))
    out = report.text(g)
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "ok\\x1b[2J" in out and "stderr: \\x9b31mred\tok" in out

"""An exercise's correctness cases with one judge and one student's process
(GRADER_ONE_PROCESS=1, harness.run_judged_cases, issue 15) on the fake lab
(fakelab/README.md): the same verdicts as one process pair per case, fewer processes, a
crash's later cases run again in fresh processes, nothing after a hang."""

from __future__ import annotations

import time

import pytest

from test_pipeline_fake import course_with, grade, variant

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

CRASH_AT_33 = ("*speed = 2.5;", "*speed = 2.5;\n    if (rows == 33) { *(volatile int *)0 = 1; }")
HANG_AT_33 = (
    "*speed = 2.5;",
    "*speed = 2.5;\n    volatile int spin = 1;\n    while (rows == 33 && spin) { }",
)
RACE = (  # the fake harness prints FAKE-RACE: racecheck reports it (fakelab/bin)
    "*speed = 2.5;\n    // END SOLUTION\n    return 0;",
    "*speed = 2.5;\n    // END SOLUTION\n    return 2;",
)
LAUNCH_ERROR = (
    '    return 0;\n}\n\nextern "C" int offset',
    '    return rows >= 33;\n}\n\nextern "C" int offset',
)


def _graded(capsys, fake_root, tmp_path, monkeypatch, change, together: bool, name: str):
    """Grades the fake lab's solution, or it with ``change`` (old, new), with one process pair
    per exercise or not: (exit code, text, JSON report, the judge's multi-case starts)."""
    monkeypatch.setenv("GRADER_ONE_PROCESS", "1" if together else "0")
    starts = tmp_path / f"{name}-starts.log"
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(starts))
    sub = (
        fake_root / "solutions" / "9.1-fake"
        if change is None
        else variant(fake_root, tmp_path / name, *change)
    )
    code, out, _, rep = grade(
        capsys, fake_root, sub, "--seed", "5", json_path=tmp_path / f"{name}.json"
    )
    untimed = [line.split() for line in starts.read_text().splitlines() if line.split()[1] != "0"]
    return code, out, rep, untimed


def _verdicts(rep) -> list:
    """Every part's points, status and messages, every correctness case's size, status and
    message, every sanitizer run's tool, size, seed, verdict and report."""
    rows = []
    for ex in rep["exercises"]:
        for name, part in ex["parts"].items():
            rows.append((ex["name"], name, part["points"], part["status"], part["messages"]))
        for d in ex["parts"]["correctness"]["details"]:
            rows.append((ex["name"], d.get("size"), d["status"], d.get("message")))
        for d in (ex["parts"].get("sanitizer") or {}).get("details", []):
            rows.append((ex["name"], d["tool"], d["size"], d["seed"], d["verdict"], d["report"]))
    return rows


@pytest.mark.parametrize(
    "name, change",
    # the solution and the hang are compared in the tests below (full marks; the statuses of
    # test_pipeline_fake's hang test); a wrong output is a document like a right one
    # (a race: test_a_sanitizer_finding_is_run_again_case_by_case, beside test_pipeline_fake's)
    [("crash", CRASH_AT_33), ("launch_error", LAUNCH_ERROR)],
)
def test_the_same_verdicts_as_one_process_per_case(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch, name, change
):
    code1, _, rep1, starts1 = _graded(
        capsys, fake_root, tmp_path, monkeypatch, change, False, f"{name}-apart"
    )
    code2, _, rep2, starts2 = _graded(
        capsys, fake_root, tmp_path, monkeypatch, change, True, f"{name}-together"
    )
    assert code1 == code2
    assert _verdicts(rep1) == _verdicts(rep2)
    assert rep1["total"] == rep2["total"]
    assert starts1 == []  # one judge per case, no --case
    assert starts2, "the grading ran no multi-case judge"


def test_one_judge_per_exercise_when_every_case_passes(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    code, _, rep, starts = _graded(capsys, fake_root, tmp_path, monkeypatch, None, True, "sol")
    assert code == 0 and rep["total"] == rep["max"]
    cases = {ex["name"]: len(ex["parts"]["correctness"]["details"]) for ex in rep["exercises"]}
    # the exercises' untimed runs go side by side in a single grade: any order
    assert sorted(starts) == sorted([name, str(n)] for name, n in cases.items())


def test_each_sanitizer_tool_runs_once_over_its_cases_when_clean(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    runs = tmp_path / "sanitizer.log"
    monkeypatch.setenv("FAKE_SANITIZER_LOG", str(runs))
    two = "cases = [[33, 65]]\n"  # the sanitizer's: two cases, two documents in one file
    course = course_with(fake_root, tmp_path, two, "cases = [[33, 65], [64, 64]]\n")
    code, _, rep, _ = _graded(capsys, course, tmp_path, monkeypatch, None, True, "clean")
    assert code == 0
    expected = []
    for ex in rep["exercises"]:
        san = ex["parts"]["sanitizer"]
        tools = sorted({d["tool"] for d in san["details"]})
        if not tools:
            continue  # no sanitizer section
        per_tool = len(san["details"]) // len(tools)
        assert all(d["verdict"] == "clean" for d in san["details"])
        expected += [[tool, str(per_tool)] for tool in tools]
    assert sorted(line.split() for line in runs.read_text().splitlines()) == sorted(expected)


def test_a_sanitizer_finding_is_run_again_case_by_case(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    runs = tmp_path / "sanitizer.log"
    monkeypatch.setenv("FAKE_SANITIZER_LOG", str(runs))
    _, out, rep, _ = _graded(capsys, fake_root, tmp_path, monkeypatch, RACE, True, "race")
    assert "racecheck  33×65          ERRORS" in out
    lines = [line.split() for line in runs.read_text().splitlines()]
    # racecheck over the one case (--case), then that case alone (--size) and once more for
    # its hazard report; memcheck clean at once
    assert [x for x in lines if x[0] == "racecheck"] == [["racecheck", "1"], ["racecheck", "0"], ["racecheck", "0"]]
    assert rep["exercises"][0]["parts"]["sanitizer"]["points"] == 1


def test_the_cases_after_a_crash_run_in_fresh_processes(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    _, out, rep, starts = _graded(
        capsys, fake_root, tmp_path, monkeypatch, CRASH_AT_33, True, "crash"
    )
    details = rep["exercises"][0]["parts"]["correctness"]["details"]
    sizes = [d["size"] for d in details]
    statuses = [d["status"] for d in details]
    crashed = sizes.index([33, 65])
    assert statuses[crashed] == "crash" and "crashed (SIGSEGV)" in details[crashed]["message"]
    assert all(s == "ok" for i, s in enumerate(statuses) if i != crashed), statuses
    # scale: one judge for every case, then one for those after the crash
    scale = [n for name, n in starts if name == "scale"]
    assert scale == [str(len(sizes)), str(len(sizes) - crashed - 1)], starts


LIMITS = "run_timeout_s = 5\n"


def test_a_hung_launch_ends_at_the_launch_limit(fake_root, fake_gpu, capsys, tmp_path, monkeypatch):
    """launch_timeout_s (1 s) ends a hung launch long before the case's limit (20 s), which
    also holds the judge's set-up and check (design note 65): the case is the exercise's
    timeout, nothing of it runs after it, and the report names the launch's limit."""
    course = course_with(
        fake_root, tmp_path, LIMITS, "run_timeout_s = 20\nlaunch_timeout_s = 1\n"
    )
    start = time.monotonic()
    _, out, rep, starts = _graded(capsys, course, tmp_path, monkeypatch, HANG_AT_33, True, "h")
    assert time.monotonic() - start < 15  # not the case's 20 s
    details = rep["exercises"][0]["parts"]["correctness"]["details"]
    assert [d["status"] for d in details] == ["ok", "ok", "timeout", "not_run"], details
    assert details[2]["message"] == "had a launch that did not finish within 1 s"
    assert details[3]["message"] == (
        "not run: an earlier case of scale had a launch that did not finish within 1 s"
    )
    assert "=> scale: had a launch that did not finish within 1 s at 33" in out, out
    assert [n for name, n in starts if name == "scale"] == ["4"]  # no second judge


def test_the_judges_set_up_is_not_the_launchs(fake_root, fake_gpu, capsys, tmp_path, monkeypatch):
    """A judge that sets each case up for 1.5 s, longer than the launch limit (1 s) but
    within the case's (5 s): every case passes, since only the launch ("launch" to "landed"
    on the judge's output) has the launch limit."""
    course = course_with(fake_root, tmp_path, LIMITS, LIMITS + "launch_timeout_s = 1\n")
    monkeypatch.setenv("FAKE_CASE_SETUP_MS", "1500")
    code, out, rep, _ = _graded(capsys, course, tmp_path, monkeypatch, None, True, "slow")
    statuses = [d["status"] for d in rep["exercises"][0]["parts"]["correctness"]["details"]]
    assert statuses == ["ok"] * 4, out


def test_nothing_runs_after_a_hang(fake_root, fake_gpu, capsys, tmp_path, monkeypatch):
    limit = "run_timeout_s = 5\n"  # the cases' limit 2 s: a shorter wait for the hang
    course = course_with(fake_root, tmp_path, limit, limit + "case_timeout_s = 2\n")
    _, out, rep, starts = _graded(capsys, course, tmp_path, monkeypatch, HANG_AT_33, True, "h")
    statuses = [d["status"] for d in rep["exercises"][0]["parts"]["correctness"]["details"]]
    assert statuses == ["ok", "ok", "timeout", "not_run"], statuses
    assert "did not finish within 2 s" in out
    assert [n for name, n in starts if name == "scale"] == ["4"]  # no second judge

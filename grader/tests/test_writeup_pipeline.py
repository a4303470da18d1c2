"""The written report through the whole grader, on the fake lab with a ``[report]`` table
(REPORT.md, template REPORT.template.md, 2 filled + 8 manual points): one grade, the JSON
report and Gradescope's results.json, batch grading's gradebook, a working copy, hostile
report files, selfcheck and the skeleton check."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import zipfile

import pytest

from grader import cli
from helpers import FAKE_BIN, grade_cli, step_statuses, submission
from test_writeup import FILLED, REPORT_TOML, TEMPLATE

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

LAB = "labs/9.1-fake"


@pytest.fixture(scope="module")
def report_root(fake_root, tmp_path_factory):
    """The fake course with a written report in lab 9.1: its template in labs/, a filled-in
    example in solutions/."""
    root = tmp_path_factory.mktemp("course-report")
    shutil.copy(fake_root / "Makefile", root / "Makefile")
    for name in ("common", "labs", "solutions", "grader"):
        shutil.copytree(fake_root / name, root / name)
    lab = root / LAB
    toml = (lab / "lab.toml").read_text()
    toml = toml.replace('["kernels.cu"]', '["kernels.cu", "REPORT.md"]') + REPORT_TOML
    (lab / "lab.toml").write_text(toml)
    (lab / "REPORT.md").write_text(TEMPLATE)
    (lab / "REPORT.template.md").write_text(TEMPLATE)
    (root / "solutions" / "9.1-fake" / "REPORT.md").write_text(FILLED)
    return root


def kernels(root) -> str:
    return (root / "solutions" / "9.1-fake" / "kernels.cu").read_text()


def grade(capsys, root, sub, tmp_path, *extra):
    """(exit status, stdout, JSON report, results.json) of one grading through the CLI."""
    rep, gs = tmp_path / "r.json", tmp_path / "results.json"
    args = ["grade", root / LAB, "--submission", sub, "--json", rep, "--gradescope", gs, *extra]
    code, out, err = grade_cli(capsys, *args)
    assert "Traceback" not in out + err, err
    return code, out, json.loads(rep.read_text()), json.loads(gs.read_text())


def test_complete_report_with_a_device(report_root, fake_gpu, capsys, tmp_path):
    sol = report_root / "solutions" / "9.1-fake"
    code, out, rep, gs = grade(capsys, report_root, sol, tmp_path)
    assert code == 0, out  # manual points pending do not make the grade "not final" (3)
    assert "REPORT.md (your report)" in out
    assert "filled in    passed  all 3 sections filled in" in out
    assert "pending manual review: 8 points for REPORT.md" in out
    assert "score 19/19 automatic, 8 manual pending: every automatic check ran" in out
    assert (rep["total"], rep["max"], rep["manual_pending"]) == (19, 19, 8)
    assert rep["report"]["points"] == 2 and rep["report"]["status"] == "passed"
    assert rep["report"]["manual"]["status"] == "pending manual review"
    assert gs["score"] == 19
    names = [t["name"] for t in gs["tests"]]
    assert names[-2:] == [
        "REPORT.md: filled in",
        "REPORT.md: manual review (8 points, graded by hand)",
    ]
    filled, manual = gs["tests"][-2:]
    assert filled["score"] == 2 and filled["status"] == "passed" and filled["number"] == "3.1"
    assert "score" not in manual and "max_score" not in manual and "status" not in manual
    assert sum(t.get("max_score", 0) for t in gs["tests"]) == 19


def test_missing_report_costs_only_its_points(report_root, fake_gpu, capsys, tmp_path):
    sub = submission(tmp_path / "sub", kernels(report_root))  # kernels.cu only
    code, out, rep, gs = grade(capsys, report_root, sub, tmp_path)
    assert code == 1, out
    # the files taken: not the missing report (a student's trial found it listed)
    assert rep["steps"][0] == {
        "name": "assemble",
        "status": "passed",
        "messages": ["student files: kernels.cu", "missing REPORT.md in submission"],
    }
    assert [ex["total"] for ex in rep["exercises"]] == [14, 3]
    assert rep["report"]["points"] == 0
    assert rep["report"]["messages"] == ["missing REPORT.md in submission"]
    assert "  => missing REPORT.md in submission" in out
    assert "score 17/19 automatic, 8 manual pending: points lost" in out
    filled = next(t for t in gs["tests"] if t["name"] == "REPORT.md: filled in")
    assert filled["status"] == "failed" and "missing REPORT.md" in filled["output"]


def test_untouched_template_without_a_device(report_root, capsys, tmp_path):
    sub = submission(tmp_path / "sub", kernels(report_root))
    (sub / "REPORT.md").write_text(TEMPLATE)
    code, out, rep, _ = grade(capsys, report_root, sub, tmp_path)
    assert code == 1, out  # the report's points are lost for certain, even without a GPU
    assert "  => REPORT.md is the template, unchanged: fill in every section" in out
    assert rep["report"]["points"] == 0
    assert (
        "score so far 0/19 automatic, 8 manual pending: 2 points lost for certain, 17 more "
        "pending on checks that did not run" in out
    )


def test_complete_report_without_a_device_is_3(report_root, capsys, tmp_path):
    sol = report_root / "solutions" / "9.1-fake"
    code, out, rep, _ = grade(capsys, report_root, sol, tmp_path)
    assert code == 3, out
    assert rep["report"]["points"] == 2
    assert "score so far 2/19 automatic, 8 manual pending; 17 points pending" in out


NOT_MEASURED = FILLED.replace(
    "- GPU (name, as the grader prints it): Fake GPU, 25 timed repetitions of 0.42 ms",
    "- GPU (name, as the grader prints it): not measured: no GPU",
).replace("Mine runs 2.5x the naive kernel.", "Not measured:  no GPU yet.")


def test_not_measured_without_a_device_waits_and_with_one_is_lost(
    report_root, capsys, tmp_path, monkeypatch
):
    """A report filled in but for figures, where it says "not measured: no GPU" as the
    template asks: graded without a GPU its points wait (a student's trial found them lost,
    against the handout's word); graded on a GPU, where the figures were there to measure,
    they are lost, with the message naming the sections."""
    sub = submission(tmp_path / "sub", kernels(report_root))
    (sub / "REPORT.md").write_text(NOT_MEASURED)
    code, out, rep, gs = grade(capsys, report_root, sub, tmp_path)
    assert code == 3, out
    assert rep["report"]["points"] is None and rep["report"]["status"] == "not_run", rep["report"]
    assert rep["report"]["info"] == "3 of 3 sections written; the figures of 2 wait for a run on a GPU"
    assert "filled in    pending  3 of 3 sections written" in out, out
    assert "says 'not measured: no GPU': its figures wait for a run on a GPU" in out, out
    assert "REPORT.md (filled in) — 3 of 3 sections written" in out, out  # under NOT RUN
    assert "2 points lost" not in out and "19 points pending" in out, out
    # Gradescope: a pending test, as a pending part's (a review: it read failed, 0 of 2)
    (filled,) = [t for t in gs["tests"] if t["name"].startswith("REPORT.md: filled in")]
    assert filled["name"] == "REPORT.md: filled in (2 points pending)", filled
    assert "score" not in filled and "status" not in filled and "pending" in filled["tags"]
    assert filled["extra_data"]["pending"] is True and filled["extra_data"]["max_score"] == 2
    assert "REPORT.md (filled in)" in gs["output"].splitlines()[0]
    monkeypatch.setenv("FAKE_GPU", "1")
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    code, out, rep, gs = grade(capsys, report_root, sub, tmp_path)
    assert code == 1 and rep["report"]["points"] == 0, out
    assert "section '## 1. GPU and method' says 'not measured: no GPU': give the figures of this run" in out, out
    (filled,) = [t for t in gs["tests"] if t["name"].startswith("REPORT.md: filled in")]
    assert filled["status"] == "failed" and filled["score"] == 0
    # a section with no number and no such words is lost without a GPU too
    (sub / "REPORT.md").write_text(NOT_MEASURED.replace("Not measured:  no GPU yet.", "Fast."))
    monkeypatch.delenv("FAKE_GPU")
    code, out, rep, _ = grade(capsys, report_root, sub, tmp_path)
    assert rep["report"]["points"] == 0 and "quotes no measured figure of yours" in out, out


@pytest.mark.parametrize("gpu", [False, True], ids=["no GPU", "a GPU"])
def test_not_measured_waits_when_the_build_failed(report_root, capsys, tmp_path, monkeypatch, gpu):
    """A build that fails runs nothing, so no figure of this submission exists, GPU or not:
    the template's "not measured: no GPU" is accepted (the points wait for a run), never
    answered with "give the figures of this run" (a student's trial on a machine without a
    GPU, whose build failed)."""
    if gpu:
        monkeypatch.setenv("FAKE_GPU", "1")
        monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    broken = kernels(report_root).replace("*speed = 2.5;", "*speed = 2.5 +;")
    assert broken != kernels(report_root)
    sub = submission(tmp_path / "sub", broken)
    (sub / "REPORT.md").write_text(NOT_MEASURED)
    code, out, rep, _ = grade(capsys, report_root, sub, tmp_path)
    assert step_statuses(rep)["build"] == "failed", out
    assert "device" not in step_statuses(rep)
    assert code == 1, out  # the build's loss is certain
    assert rep["report"]["status"] == "not_run" and rep["report"]["points"] is None, rep["report"]
    assert "its figures wait for a run on a GPU" in out, out
    assert "give the figures of this run" not in out, out


@pytest.mark.parametrize(
    "kind,message",
    [
        ("binary", "REPORT.md is not a text file (it holds NUL bytes): submit Markdown text"),
        ("huge", "REPORT.md in the submission is 3145728 bytes, more than the 2097152 allowed"),
        ("link", "REPORT.md in the submission is a symbolic link: submit the file itself"),
        ("folder", "REPORT.md in the submission is not a regular file: submit the file itself"),
    ],
)
def test_hostile_report_files(report_root, capsys, tmp_path, kind, message):
    sub = submission(tmp_path / "sub", kernels(report_root))
    target = sub / "REPORT.md"
    if kind == "binary":
        target.write_bytes(bytes(range(256)) * 100)
    elif kind == "huge":
        target.write_bytes(FILLED.encode() + b"x" * (3 * 1024 * 1024 - len(FILLED.encode())))
    elif kind == "link":
        os.symlink(report_root / "solutions" / "9.1-fake" / "REPORT.md", target)
    else:
        target.mkdir()
    code, out, rep, _ = grade(capsys, report_root, sub, tmp_path)
    assert code == 1, out
    assert rep["steps"][0]["status"] == "passed"  # the code is graded as usual
    assert step_statuses(rep)["build"] == "passed"
    assert rep["report"]["messages"] == [message]
    assert {row["status"] for row in rep["report"]["sections"]} == {"not_checked"}


def test_working_copy_compares_with_the_template_not_itself(report_root, capsys, tmp_path):
    # `make grade` grades labs/<lab> itself: its REPORT.md is the student's own, so the
    # reference is REPORT.template.md
    lab_report = report_root / LAB / "REPORT.md"
    try:
        lab_report.write_text(FILLED)
        code, out, rep, _ = grade(capsys, report_root, report_root / LAB, tmp_path)
        assert rep["report"]["status"] == "passed", out
        lab_report.write_text("# My notes\n\nnothing yet\n")
        code, out, rep, _ = grade(capsys, report_root, report_root / LAB, tmp_path)
        assert rep["report"]["points"] == 0
        assert "section '## 1. GPU and method' is missing" in out
    finally:
        lab_report.write_text(TEMPLATE)


def test_exercise_option_leaves_the_report_out(report_root, capsys, tmp_path):
    sub = submission(tmp_path / "sub", kernels(report_root))
    code, out, rep, _ = grade(capsys, report_root, sub, tmp_path, "--exercise", "offset")
    assert rep["report"] is None and rep["manual_pending"] == 0
    assert "(your report)" not in out and "manual" not in out


def test_batch_gradebook_columns(report_root, tmp_path):
    d = tmp_path / "subs"
    sol = kernels(report_root)
    alice = submission(d / "alice", sol)
    (alice / "REPORT.md").write_text(FILLED)
    carol = submission(d / "carol", sol)
    (carol / "REPORT.md").write_text(TEMPLATE)
    bob = d / "bob.zip"  # wrapped in a folder, without REPORT.md: still found and graded
    with zipfile.ZipFile(bob, "w") as zf:
        zf.writestr("Bob Export/kernels.cu", sol)
    out = tmp_path / "out"
    argv = ["batch", report_root / LAB, alice, bob, carol, "--out", out, "--jobs", "2"]
    err = io.StringIO()
    with (
        pytest.MonkeyPatch.context() as mp,
        contextlib.redirect_stderr(err),
        contextlib.redirect_stdout(io.StringIO()),
    ):
        mp.setenv("FAKE_GPU", "1")
        mp.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
        code = cli.main([str(a) for a in argv])
    assert code == 0, err.getvalue()
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == [
        "id", "scale", "offset", "report", "total", "max", "lost", "pending", "manual_pending", "status",
        "gpu", "warnings",
    ]  # fmt: skip
    assert rows[1:] == [
        ["alice", "14", "3", "2", "19", "19", "0", "0", "8", "graded", "Fake GPU", "0"],
        ["bob", "14", "3", "0", "17", "19", "2", "0", "8", "graded", "Fake GPU", "0"],
        ["carol", "14", "3", "0", "17", "19", "2", "0", "8", "graded", "Fake GPU", "0"],
    ]
    row = json.loads((out / "bob" / "batch.json").read_text())
    assert row["report"] == 0 and row["manual_pending"] == 8
    assert "missing REPORT.md in submission" in (out / "bob" / "report.txt").read_text()


def test_selfcheck_and_skeleton_check(report_root, capsys):
    code, out, _ = grade_cli(capsys, "selfcheck", "--root", report_root, "--lab", "9.1")
    assert code == 3, out  # no device; every expectation that could be checked holds
    assert "NOT AS EXPECTED" not in out
    code, out, _ = grade_cli(capsys, "skeleton", "--check", "--root", report_root)
    assert code == 0, out


def test_selfcheck_catches_an_unfilled_example_and_a_drifted_template(
    report_root, capsys, tmp_path
):
    broken = tmp_path / "course"
    broken.mkdir()
    shutil.copy(report_root / "Makefile", broken / "Makefile")
    for name in ("common", "labs", "solutions", "grader"):
        shutil.copytree(report_root / name, broken / name)
    (broken / "solutions" / "9.1-fake" / "REPORT.md").write_text(TEMPLATE)
    (broken / LAB / "REPORT.md").write_text(FILLED)  # the skeleton is no longer the template
    code, out, _ = grade_cli(capsys, "selfcheck", "--root", broken, "--lab", "9.1")
    assert code == 1, out
    assert "REPORT.md is not filled in: REPORT.md is the template, unchanged" in out
    assert "the template REPORT.md passes as filled in (worth 2 points)" in out
    code, out, _ = grade_cli(capsys, "skeleton", "--check", "--root", broken)
    assert code == 1 and "REPORT.md: differs from its generated skeleton" in out

"""A batch's stray timed again (grader.batch, ``Batch._grade_strays_again``; design note 80)
on the fake lab: the submission whose timed run was disturbed (FAKE_DISTURB_ONCE) is graded
again, alone, keeping its first grading's untimed results (``grade.Options.retime``): its
reports are those of a whole grading again but for their timings, and the grading again
starts no correctness and no sanitizer run. The same of one grading timed again on a lab
with two timed exercises (one judged run for both, or one of them left untimed after a
correctness case that did not finish). A stray of its own doing (its baseline timed alone as
the class's, FAKE_BASELINE_ALONE_MS) is not graded again (design note 83)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os

import pytest

from grader import batch as batching
from grader import cli, report
from grader import grade as grading
from grader.gpu_lock import GpuLock
from helpers import FAKE_BIN, drop_timings, submission
from test_grade_pipeline import OFFSET_POINTS, _offset_performance
from test_one_process import HANG_AT_33, RACE
from test_pipeline_fake import course_with, solution_text, variant

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

LAB = "labs/9.1-fake"
# graded first with --jobs 1, so its timed run is the batch's first, the one disturbed: a
# racy submission, whose sanitizer part (racecheck's finding) is kept as well as passed ones
STRAY = "race"
_STRAYS_AGAIN = batching.Batch._grade_strays_again  # the batch's own (each test wraps it)


@pytest.fixture
def class_subs(fake_root, tmp_path) -> list[str]:
    """Four submissions with timed figures (``class_figures.MIN_CLASS``), the stray first."""
    sol = solution_text(fake_root)
    texts = {STRAY: sol.replace(*RACE), "ann": sol, "ben": sol, "cat": sol}
    return [str(submission(tmp_path / "subs" / sid, text)) for sid, text in texts.items()]


def _batch(
    fake_root, paths, out, monkeypatch, logs, before_again=None, own=False, cgroups=True
) -> str:
    """The class graded with its first timed run disturbed; the fake judge's starts and the
    fake compute-sanitizer's runs of the strays' gradings again logged in ``logs``
    (``FAKE_JUDGE_LOG``, ``FAKE_SANITIZER_LOG``, set once the class is graded), after
    ``before_again()`` where given; stderr. The disturbed run's baseline timed alone is
    slowed too (from outside: graded again), or, ``own``, as fast as every other run's (its
    own doing: not graded again where each run has a cgroup, ``cgroups``; the grader's
    ``cgroup.in_force`` says so for the test, whatever the machine)."""
    flag = out.parent / f"{out.name}-disturb-once"
    flag.write_text("")
    monkeypatch.setenv("FAKE_DISTURB_ONCE", str(flag))
    if own:  # 1 ms alone in every run, the disturbed one's baseline 4 ms among its launches
        monkeypatch.setenv("FAKE_BASELINE_ALONE_MS", "1")
    else:
        monkeypatch.delenv("FAKE_BASELINE_ALONE_MS", raising=False)
    _fake_gpu_batch(monkeypatch, cgroups)
    for name in ("FAKE_JUDGE_LOG", "FAKE_SANITIZER_LOG"):
        monkeypatch.delenv(name, raising=False)

    def strays_again(self, graded, rows):
        if before_again is not None:
            before_again()
        monkeypatch.setenv("FAKE_JUDGE_LOG", str(logs / "judge.log"))
        monkeypatch.setenv("FAKE_SANITIZER_LOG", str(logs / "sanitizer.log"))
        _STRAYS_AGAIN(self, graded, rows)

    monkeypatch.setattr(batching.Batch, "_grade_strays_again", strays_again)
    logs.mkdir()
    code, err = _run_batch(fake_root, paths, out)
    assert code == 0 and not flag.exists(), err  # one timed run was disturbed
    again = f"{STRAY}: graded again, alone: scale: " in err
    assert again is not (own and cgroups), err
    assert "strayed again" not in err
    return err


def _fake_gpu_batch(monkeypatch, cgroups: bool) -> None:
    """A batch on the fake GPU and its fake tools, each run with a cgroup of its own or not
    (``cgroups``: the grader's ``cgroup.in_force`` says so for the test, whatever the
    machine), no sandbox."""
    monkeypatch.setattr(batching.cgroup, "in_force", lambda: cgroups)
    monkeypatch.setenv("FAKE_GPU", "1")
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    # the sandbox's own /tmp would hide the fake compute-sanitizer's log (where bubblewrap is
    # installed, as in CI), and with it the runs this test counts
    monkeypatch.setenv("GRADER_SANDBOX", "none")


def _run_batch(fake_root, paths, out) -> tuple[int, str]:
    """The batch over ``paths`` into ``out`` (seed 7, one grading at a time, the first path
    first): its exit status and its stderr, asserted free of a traceback."""
    err = io.StringIO()
    argv = ["batch", fake_root / LAB, *paths, "--out", out, "--seed", "7", "--jobs", "1"]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main([str(a) for a in argv])
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, err.getvalue()


def _files(out, sid) -> dict:
    """The student's four files, less what times the grading: the report's ``timings_s``
    and its timed runs' wall seconds, results.json's ``execution_time``, the row's
    ``elapsed_s``."""
    rep = json.loads((out / sid / "report.json").read_text())
    timings, _ = drop_timings(rep)
    assert timings is not None, sid
    results = json.loads((out / sid / "results.json").read_text())
    results.pop("execution_time")
    row = json.loads((out / sid / "batch.json").read_text())
    row.pop("elapsed_s")
    return {
        "report.json": rep,
        "report.txt": (out / sid / "report.txt").read_text(),
        "results.json": results,
        "batch.json": row,
    }


def _lines(path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_a_stray_is_timed_again_only_with_the_reports_of_a_whole_grading(
    fake_root, class_subs, tmp_path, monkeypatch
):
    """The class graded twice with the same seed: the stray timed again (its first
    grading's untimed parts kept), then graded again whole (the way before design note
    80, reachable here only); every file of every student the same but for its timings.
    Timed again, the stray's grading makes one timed run and no correctness or sanitizer
    run; graded whole, it makes both (the logs do count them)."""
    err = _batch(fake_root, class_subs, tmp_path / "retimed", monkeypatch, tmp_path / "r")
    whole_grade_one = batching.Batch._grade_one
    monkeypatch.setattr(
        batching.Batch, "_grade_one",
        lambda self, sub, retimed=None, first=None: whole_grade_one(self, sub, retimed),
    )
    whole_err = _batch(fake_root, class_subs, tmp_path / "whole", monkeypatch, tmp_path / "w")
    ids = [os.path.basename(p) for p in class_subs]
    for sid in ids:
        assert _files(tmp_path / "retimed", sid) == _files(tmp_path / "whole", sid), sid
    # the stray: timed again, full marks; its race found by the first grading's racecheck
    row = json.loads((tmp_path / "retimed" / STRAY / "batch.json").read_text())
    assert row["retimed"] and "retimed_again" not in row and row["status"] == "graded"
    rep = json.loads((tmp_path / "retimed" / STRAY / "report.json").read_text())
    scale = rep["exercises"][0]["parts"]
    assert scale["correctness"]["status"] == "passed"
    assert scale["sanitizer"]["status"] == "failed"
    assert scale["performance"]["points"] == scale["performance"]["max"]
    assert all("retimed" not in json.loads((tmp_path / "retimed" / s / "batch.json")
                                           .read_text()) for s in ids if s != STRAY)
    # the stray's grading again: its timed run only (scale is the lab's one timed exercise)
    judged = _lines(tmp_path / "r" / "judge.log")
    assert judged and all(line.endswith(" timed") for line in judged), judged
    assert len(judged) == 1 and judged[0].startswith("scale "), judged
    assert _lines(tmp_path / "r" / "sanitizer.log") == []
    # graded whole, the same grading ran its correctness and sanitizer runs again
    judged = _lines(tmp_path / "w" / "judge.log")
    assert [line for line in judged if not line.endswith(" timed")], judged
    assert _lines(tmp_path / "w" / "sanitizer.log"), whole_err
    assert err.count("graded again, alone") == whole_err.count("graded again, alone") == 1


def test_a_stray_of_its_own_doing_is_not_graded_again(fake_root, class_subs, tmp_path, monkeypatch):
    """The disturbed run's baseline ran 4 ms among the student's launches against 1 ms
    timed alone before its process started, as every other run's (a process of its own left
    behind, k09 in g118/g119): the stray is not graded again (no judge started after the
    class), a line says why, its row keeps the straying and why it is its own, and its
    performance scores nothing for its disturbed timing; the gradebook is the row's."""
    out, logs = tmp_path / "out", tmp_path / "logs"
    err = _batch(fake_root, class_subs, out, monkeypatch, logs, own=True)
    assert _lines(logs / "judge.log") == [] and _lines(logs / "sanitizer.log") == []
    (line,) = [ln for ln in err.splitlines() if ln.startswith(f"{STRAY}: not graded again")]
    own = (
        "scale: the baseline took 1 ms alone before its process started, as the class's 1 ms, "
        "and 4 ms among its repetitions (4.00x): its own process kept the GPU busy"
    )
    assert line == (
        f"{STRAY}: not graded again: its course figures strayed from the class's by its own "
        f"doing ({own}); its grade stands: those runs scored no performance (\"disturbed "
        "timing\" in its report), and its batch.json keeps the figures (strayed_own)"
    ), line
    row = json.loads((out / STRAY / "batch.json").read_text())
    assert "retimed" not in row and len(row["strayed_own"]) == 2, row
    assert row["own_doing"] == [own]
    perf = json.loads((out / STRAY / "report.json").read_text())["exercises"][0]["parts"][
        "performance"
    ]
    assert perf["points"] == 0 and perf["max"] > 0, perf
    assert any(m.startswith("disturbed timing at ") for m in perf["messages"]), perf
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as f:
        book = {r["id"]: r for r in csv.DictReader(f)}
    assert float(book[STRAY]["total"]) == row["total"] < row["max"], (book[STRAY], row)
    for sid in ("ann", "ben", "cat"):
        other = json.loads((out / sid / "batch.json").read_text())
        assert other["total"] == other["max"] and "strayed_own" not in other, other


def test_a_stray_of_its_own_doing_without_cgroups_is_graded_again(
    fake_root, class_subs, tmp_path, monkeypatch
):
    """The same stray where runs have no cgroup of their own: another grading's process left
    behind could have slowed its run (design note 83), so it is timed again, as before."""
    out, logs = tmp_path / "out", tmp_path / "logs"
    err = _batch(fake_root, class_subs, out, monkeypatch, logs, own=True, cgroups=False)
    assert "not graded again" not in err, err
    assert len(_lines(logs / "judge.log")) == 1, _lines(logs / "judge.log")  # timed again
    row = json.loads((out / STRAY / "batch.json").read_text())
    assert "strayed_own" not in row and row["retimed"], row


def _first_disturbed_twice(fake_root, class_subs, tmp_path, monkeypatch, cgroups, variable):
    """The batch (``_run_batch``, --jobs 1) whose first grading's two timings take the two
    runs the fake harness's ``variable`` (FAKE_EXCHANGE_SLOWED, FAKE_BUSY_BEFORE) grants:
    (its stderr, the stray's batch.json row, its scale exercise's performance part). Asserts
    the runs were taken and the others were graded once, undisturbed."""
    out, logs = tmp_path / "out", tmp_path / "logs"
    logs.mkdir()
    flag = tmp_path / "granted"
    flag.write_text("2\n")
    monkeypatch.setenv(variable, str(flag))
    monkeypatch.delenv("FAKE_BASELINE_ALONE_MS", raising=False)
    _fake_gpu_batch(monkeypatch, cgroups)
    _, text = _run_batch(fake_root, class_subs, out)
    assert not flag.exists(), text
    row = json.loads((out / STRAY / "batch.json").read_text())
    rep = json.loads((out / STRAY / "report.json").read_text())
    (perf,) = [e["parts"]["performance"] for e in rep["exercises"] if e["name"] == "scale"]
    for sid in ("ann", "ben", "cat"):  # the others, undisturbed, graded once
        other = json.loads((out / sid / "batch.json").read_text())
        assert "retimed" not in other and "strayed_own" not in other, other
    return text, row, perf


@pytest.mark.parametrize("cgroups", [True, False])
def test_a_run_whose_exchange_was_slowed_twice(
    fake_root, class_subs, tmp_path, monkeypatch, cgroups
):
    """The batch's first grading had its exchange with the empty-kernel server slowed in both
    its timings (design note 95; FAKE_EXCHANGE_SLOWED granting 2 runs, --jobs 1): "disturbed
    timing". Where each run has a cgroup of its own that is its own doing, and its grade
    stands; without, another grading's process left behind could have slowed it (a review),
    so it is graded again, alone, after the class, and timed undisturbed keeps its points."""
    text, row, perf = _first_disturbed_twice(
        fake_root, class_subs, tmp_path, monkeypatch, cgroups, "FAKE_EXCHANGE_SLOWED"
    )
    if cgroups:
        assert f"{STRAY}: not graded again" in text and "graded again, alone" not in text, text
        assert row["own_doing"][0].startswith("scale: the exchange with the course's")
        assert perf["points"] == 0 and perf["details"][0]["message"].startswith("disturbed")
    else:
        assert f"{STRAY}: graded again, alone: scale: the exchange with the course's" in text
        assert "strayed again" not in text and row["retimed"], text
        assert perf["points"] == perf["max"], perf


@pytest.mark.parametrize("cgroups", [True, False])
def test_a_run_that_found_the_gpu_busy_before_is_graded_again_whatever_the_cgroups(
    fake_root, class_subs, tmp_path, monkeypatch, cgroups
):
    """The batch's first grading found the GPU busy before its process started, in both its
    timings (design note 97; FAKE_BUSY_BEFORE granting 2 runs, --jobs 1): "disturbed
    timing". Another process's work, never its own, so even where each run has a cgroup it
    is graded again, alone, after the class, and timed on an idle GPU keeps its points."""
    text, row, perf = _first_disturbed_twice(
        fake_root, class_subs, tmp_path, monkeypatch, cgroups, "FAKE_BUSY_BEFORE"
    )
    assert f"{STRAY}: graded again, alone: scale: the judge's own empty kernel took 2.380 ms" in (
        text
    ), text
    # its baseline strayed from the class's too (every figure slowed alike): listed after the
    # cause (g138)
    (line,) = [ln for ln in text.splitlines() if ln.startswith(f"{STRAY}: graded again")]
    assert line.index("the judge's own empty kernel") < line.index("not the run's alone"), line
    assert "not graded again" not in text and "strayed again" not in text, text
    assert row["retimed"] and "own_doing" not in row, row
    assert perf["points"] == perf["max"], perf


def _grading(course, sub, tmp_path, monkeypatch, name: str, first=None):
    """A batch's kind of grading of ``sub`` (``Grading._runtime``, a lock of its own, seed
    5), timed again only where ``first`` (``Options.retime``) is given: (its Grade, its JSON
    report less the timings and the timed runs' wall seconds, the fake judge's starts, the
    fake compute-sanitizer's runs)."""
    logs = tmp_path / name
    logs.mkdir()
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(logs / "judge.log"))
    monkeypatch.setenv("FAKE_SANITIZER_LOG", str(logs / "sanitizer.log"))
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=sub, seed=5, one_process=True, gpu_lock=GpuLock(),
                        retime=first),
    )
    assert not g.pipelined
    grade = g.run()
    rep = report.to_json(grade)
    timings, rows = drop_timings(rep)
    assert timings is not None and all(run["wall_s"] >= 0 for _, run in rows)
    return grade, rep, _lines(logs / "judge.log"), _lines(logs / "sanitizer.log")


@pytest.mark.parametrize("name, change", [("solution", None), ("race", RACE),
                                          ("hang", HANG_AT_33)])
def test_a_grading_timed_again_keeps_its_untimed_parts(
    fake_root, tmp_path, monkeypatch, name, change
):
    """scale and offset both timed: the grading timed again (``Options.retime``) gives the
    first's report but for its timings, with the first's untimed parts (racecheck's finding
    kept) and one timed run over the lab; after scale's correctness case that did not finish
    (33 x 65 hangs), scale is still not timed and offset is timed alone."""
    course = course_with(fake_root, tmp_path, OFFSET_POINTS, _offset_performance(True))
    if name == "hang":  # a shorter wait (5 s by default)
        toml = course / "labs" / "9.1-fake" / "lab.toml"
        toml.write_text(toml.read_text().replace("run_timeout_s = 5\n", "run_timeout_s = 2\n"))
    monkeypatch.setenv("FAKE_GPU", "1")
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    sub = course / "solutions" / "9.1-fake" if change is None else variant(
        course, tmp_path / name, *change
    )
    first, rep, judged, sanitized = _grading(course, sub, tmp_path, monkeypatch, "first")
    assert [line for line in judged if not line.endswith(" timed")]
    assert bool(sanitized) is (name != "hang")  # scale's sanitizer part waits for no hang
    _, again, judged, sanitized = _grading(course, sub, tmp_path, monkeypatch, "again", first)
    assert again == rep
    timed = {"solution": "scale 2 timed", "race": "scale 2 timed", "hang": "offset 0 timed"}[name]
    assert judged == [timed] and sanitized == [], (judged, sanitized)
    scale, offset = (ex["parts"] for ex in again["exercises"])
    assert offset["performance"]["points"] == offset["performance"]["max"]
    if name == "race":
        assert scale["sanitizer"]["status"] == "failed"
        assert any("FAKE-RACE-HINT" in f for f in again["exercises"][0]["findings"])
    if name == "hang":
        perf = scale["performance"]
        assert (perf["status"], perf["reason"]) == ("not_run", "a correctness case did not finish")


def test_a_stray_whose_files_changed_is_graded_whole_again(
    fake_root, class_subs, tmp_path, monkeypatch
):
    """The stray's kernels.cu is fixed between its first grading and its grading again (a
    review's case): its parts are not kept, since they were another source's; it is graded
    whole (its sanitizer runs made again), and its report is the new source's throughout."""
    race = tmp_path / "subs" / STRAY / "kernels.cu"

    def fixed():
        race.write_text(solution_text(fake_root))

    out, logs = tmp_path / "out", tmp_path / "logs"
    _batch(fake_root, class_subs, out, monkeypatch, logs, fixed)
    assert _lines(logs / "sanitizer.log"), "no sanitizer run: its old parts were kept"
    rep = json.loads((out / STRAY / "report.json").read_text())
    assert {ex["parts"]["sanitizer"]["status"] for ex in rep["exercises"]} <= {"passed", "skipped"}
    row = json.loads((out / STRAY / "batch.json").read_text())
    assert row["total"] == row["max"] and row["retimed"], row

"""A timed judge out of GPU memory after its gate (design note 88), on the fake lab
(fakelab/README.md: ``FAKE_JUDGE_OOM_AFTER_GATE``, the course judge's document when
``give_outputs``' buffers do not fit during the timing): in a batch, graded again alone after
the class; alone (that grading, or a single grade's run made again once its other runs are
done), the student's process's doing: that exercise's performance lost with a line that
names the cause and the fix, never an "error:" row, never a third judge. The GPU memory the
student's process held is shown where ``nvidia-smi`` lists it (a stub on PATH here)."""

from __future__ import annotations

import contextlib
import io
import json
import os

import pytest

from grader import cli
from helpers import drop_timings, fake_batch
from test_batch_strays import _files
from test_batch_timed_runs import course  # noqa: F401 - the fixture: offset timed too

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

OOM = (
    "the judge failed in scale at 128x128: cuda: out of memory at cml_judge.c:812 "
    "(cml_dev_alloc(&outs, bytes)); its log: lab: cml_judge.c:812: cml_dev_alloc(&outs, "
    "bytes) failed: out of memory"
)
STUDENTS = "the judge ran out of GPU memory while your process ran beside it"
HELD_MIB = 71884  # what the stub says each student's process holds: 70.2 GiB

# nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits as a driver
# that sees every process: here each student's process (lab --serve FD) of any grading, and
# nothing else (the tests' other processes hold no GPU memory)
SMI_STUB = f"""#!/bin/sh
[ "$1" = "--query-compute-apps=pid,used_memory" ] || exit 9
grep -l -a -e --serve /proc/[0-9]*/cmdline 2>/dev/null |
    sed -n 's|^/proc/\\([0-9]*\\)/cmdline$|\\1, {HELD_MIB}|p'
"""

def _oom_after_gate(monkeypatch, tmp_path, oom: str | None, smi: bool) -> None:
    """FAKE_JUDGE_OOM_AFTER_GATE's value: "once" (a file, made here), "always", or None;
    ``smi``: the stub nvidia-smi first on PATH; both in the folder ``tmp_path``."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    if oom is None:
        monkeypatch.delenv("FAKE_JUDGE_OOM_AFTER_GATE", raising=False)
    elif oom == "once":
        flag = tmp_path / "oom-after-gate"
        flag.write_text("")
        monkeypatch.setenv("FAKE_JUDGE_OOM_AFTER_GATE", str(flag))
    else:
        monkeypatch.setenv("FAKE_JUDGE_OOM_AFTER_GATE", oom)
    if smi:
        stub = tmp_path / "smi-bin"
        stub.mkdir(exist_ok=True)
        (stub / "nvidia-smi").write_text(SMI_STUB)
        (stub / "nvidia-smi").chmod(0o755)
        monkeypatch.setenv("PATH", f"{stub}{os.pathsep}{os.environ['PATH']}")


def _batch(course, out, monkeypatch, oom: str | None, smi: bool = False):
    """The solution graded by a batch (seed 7, one grading at a time: its early run over the
    lab times scale then offset in one judge). (exit code, stderr, the fake judge's timed
    starts: FAKE_JUDGE_LOG's "EXERCISE CASES timed" lines)."""
    _oom_after_gate(monkeypatch, out.parent / f"{out.name}-env", oom, smi)
    return fake_batch(course, [course / "solutions" / "9.1-fake"], out, monkeypatch)


def test_a_judge_out_of_memory_during_its_timing_is_graded_again_alone(
    course, fake_gpu, tmp_path, monkeypatch
):
    """The early run over the lab's judge runs out of GPU memory after its gate, once: the
    grading is not an "error:" row but graded again, alone, after the class, its timed runs
    only (one more timed judge, no correctness judge); a line says why, its row keeps it
    (``judge_out_of_memory``), and its four files are those of the same batch without the
    failure but for that key and the timings."""
    (tmp_path / "once").mkdir()
    code, err, timed = _batch(course, tmp_path / "once" / "out", monkeypatch, "once")
    assert code == 0, err
    assert not (tmp_path / "once" / "out-env" / "oom-after-gate").exists()  # it ran out once
    assert timed == ["scale 2 timed", "scale 2 timed"], timed
    why = f"its judge ran out of GPU memory during its timing beside other gradings ({OOM})"
    assert f"9.1-fake: graded again, alone: {why}\n" in err, err
    assert f"error: its timed judge ran out of GPU memory during its timing" in err, err
    assert "again, alone" in err and "own process's doing" not in err, err
    (tmp_path / "clean").mkdir()
    code, clean_err, clean_timed = _batch(course, tmp_path / "clean" / "out", monkeypatch, None)
    assert code == 0 and clean_timed == ["scale 2 timed"], clean_err
    files = _files(tmp_path / "once" / "out", "9.1-fake")
    clean = _files(tmp_path / "clean" / "out", "9.1-fake")
    assert files["batch.json"].pop("judge_out_of_memory") == why
    assert files == clean
    assert clean["batch.json"]["status"] == "graded"
    assert clean["batch.json"]["total"] == clean["batch.json"]["max"]


@pytest.mark.parametrize("smi", [True, False], ids=["nvidia-smi", "no-nvidia-smi"])
def test_a_judge_out_of_memory_again_alone_is_the_students(
    course, fake_gpu, tmp_path, monkeypatch, smi
):
    """Every timed judge runs out of GPU memory at its first case after its gate: the batch
    grades the submission again alone, where its judge runs out again: the student's
    process's doing. Scale's performance is lost with the line naming the cause and the fix
    (scale's timed judge started twice: never a third), offset's likewise in the fresh run
    after it; the status is "graded", not an "error:" row, and the exit code 0. With the
    stub nvidia-smi the line and report.json give the GPU memory the student's process
    held (70.2 GiB); without one, no figure and the same verdict."""
    code, err, timed = _batch(course, tmp_path / "out", monkeypatch, "always", smi)
    assert code == 0, err
    assert timed == ["scale 2 timed", "scale 2 timed", "offset 1 timed"], timed
    assert "9.1-fake: graded again, alone: its judge ran out of GPU memory during its" in err
    held = " (your process held 70.2 GiB)" if smi else ""
    assert (
        "9.1-fake: its judge ran out of GPU memory again, alone: its own process's doing; no "
        f"performance points for scale{held}, offset{held} (its report says why and what to "
        "fix)"
    ) in err, err
    row = json.loads((tmp_path / "out" / "9.1-fake" / "batch.json").read_text())
    assert row["status"] == "graded", row
    rep = json.loads((tmp_path / "out" / "9.1-fake" / "report.json").read_text())
    text = (tmp_path / "out" / "9.1-fake" / "report.txt").read_text()
    lost = 0
    for ex in rep["exercises"]:
        perf = ex["parts"]["performance"]
        (detail,) = perf["details"]
        assert perf["status"] == "failed" and perf["points"] == 0, perf
        assert detail["judge_out_of_memory"] is True
        assert STUDENTS in detail["message"] and "must free what it allocates" in detail["message"]
        assert ("held_gpu_mib" in detail) is smi
        if smi:
            assert detail["held_gpu_mib"] == HELD_MIB
            assert "your process held 70.2 GiB" in detail["message"]
        lost += perf["max"]
        assert ex["parts"]["correctness"]["status"] == "passed"
    assert rep["total"] == rep["max"] - lost and row["total"] == rep["total"]
    assert STUDENTS in text and ("70.2 GiB" in text) is smi


def _grade(course, tmp_path, monkeypatch, oom: str | None, name: str):
    """``python3 -m grader grade`` of the solution (seed 5): a single grade, its exercises
    side by side (the pipeline), each timed in a judged run of its own. (exit code, its JSON
    report less what times it, the fake judge's timed starts)."""
    judged = tmp_path / f"{name}-judge.log"
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(judged))
    _oom_after_gate(monkeypatch, tmp_path / f"{name}-env", oom, smi=False)
    out = tmp_path / f"{name}.json"
    argv = ["grade", course / "labs" / "9.1-fake", "--submission",
            course / "solutions" / "9.1-fake", "--seed", "5", "--json", out]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main([str(a) for a in argv])
    assert "Traceback" not in err.getvalue(), err.getvalue()
    rep = json.loads(out.read_text())
    drop_timings(rep)
    lines = judged.read_text().splitlines() if judged.exists() else []
    return code, rep, sorted(line for line in lines if line.endswith(" timed"))


def test_a_single_grade_times_a_judge_out_of_memory_again_after_its_other_runs(
    course, fake_gpu, tmp_path, monkeypatch
):
    """A single grade: the first timed judge past its gate runs out of GPU memory (another
    exercise's judge could be set up at its gate beside it): that exercise is timed again
    once every other run of the grading is done, and graded: the report is the one without
    the failure but for the row's ``judge_out_of_memory_first`` (the judge's words)."""
    code, rep, timed = _grade(course, tmp_path, monkeypatch, "once", "once")
    clean_code, clean, clean_timed = _grade(course, tmp_path, monkeypatch, None, "clean")
    assert code == clean_code == 0 and clean["total"] == clean["max"]
    assert clean_timed == ["offset 0 timed", "scale 0 timed"]
    assert len(timed) == 3 and set(timed) == set(clean_timed), timed  # one of them twice
    firsts = []
    for ex in rep["exercises"]:
        for row in ex["parts"]["performance"]["details"]:
            if "judge_out_of_memory_first" in row:
                firsts.append(row.pop("judge_out_of_memory_first"))
    assert len(firsts) == 1 and "cuda: out of memory at cml_judge.c:812" in firsts[0], firsts
    assert rep == clean


def test_a_single_grade_whose_judge_runs_out_again_loses_that_performance(
    course, fake_gpu, tmp_path, monkeypatch
):
    """A single grade whose every timed judge runs out of GPU memory after its gate: each
    exercise's timed run is made exactly twice (the second once the grading's other runs are
    done), and the second's failure is the student's: that exercise's performance lost with
    the line naming the cause and the fix, the grade complete, not a grader error."""
    code, rep, timed = _grade(course, tmp_path, monkeypatch, "always", "always")
    assert code == 1, rep  # points lost (exit code 1), no grader error (2)
    assert timed == ["offset 0 timed", "offset 0 timed", "scale 0 timed", "scale 0 timed"]
    lost = 0
    for ex in rep["exercises"]:
        perf = ex["parts"]["performance"]
        (detail,) = perf["details"]
        assert perf["status"] == "failed" and perf["points"] == 0, perf
        assert detail["judge_out_of_memory"] is True and STUDENTS in detail["message"]
        assert "cuda: out of memory" in detail["judge_out_of_memory_first"]
        lost += perf["max"]
    assert rep["total"] == rep["max"] - lost


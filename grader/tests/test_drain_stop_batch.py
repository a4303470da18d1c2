"""A class on the fake lab graded as a batch with GRADER_DRAIN_STOP_AFTER (design note 78) and
without, with GRADER_UNTIMED_AT_ONCE and GRADER_DRAIN_AT as the GPU measurement will use them
(scaled down), side by side on and off: the runs stopped and made again (the batch says how
many times), and every student's report the same as without stops (review)."""

from __future__ import annotations

import contextlib
import io
import json
import os

import pytest

from grader import cli, gpu_lock
from grader import grade as grading
from grader import batch as batching
from helpers import FAKE_BIN, drop_timings, submission
from test_one_process import CRASH_AT_33, HANG_AT_33, RACE
from test_pipeline_fake import course_with, solution_text

pytestmark = pytest.mark.slow

LAB = "labs/9.1-fake"


def _class(root, d):
    sol = solution_text(root)
    # (a second solution and the skeleton, once here too, cost CI 20 s and took no other path)
    subs = {
        "solution": sol,
        "crash": sol.replace(*CRASH_AT_33),
        "hang": sol.replace(*HANG_AT_33),
        "race": sol.replace(*RACE),
    }
    return {k: str(submission(d / k, v)) for k, v in subs.items()}


def _batch(root, paths, out):
    err = io.StringIO()
    argv = ["batch", root / LAB, *paths, "--out", out, "--seed", "7", "--jobs", "4"]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main([str(a) for a in argv])
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, err.getvalue()


def _reports(out, ids):
    reps = {}
    for sid in ids:
        rep = json.loads((out / sid / "report.json").read_text())
        drop_timings(rep)
        reps[sid] = rep
    return reps


def test_a_class_with_stops_grades_as_without(fake_root, tmp_path, monkeypatch):
    """One batch without stops, then two with (side by side on: the measured configuration;
    off: the tools one after another), each report compared with the first: side by side
    and the drain's policy change no report (design notes 72 and 77), so one reference
    serves both (a batch each would cost CI some 10 CPU-s more)."""
    root = course_with(fake_root, tmp_path, "run_timeout_s = 5\n", "run_timeout_s = 2\n")
    subs = _class(root, tmp_path / "subs")
    monkeypatch.setattr(grading.cgroup, "in_force", lambda: True)  # a cgroup per run
    monkeypatch.setenv("FAKE_GPU", "1")
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("GRADER_SANDBOX", "none")
    monkeypatch.setenv("FAKE_SANITIZER_SPANS", str(tmp_path / "spans.log"))
    monkeypatch.setenv("FAKE_CASE_SETUP_MS", "300")
    monkeypatch.setenv(batching.UNTIMED_ENV, "2")
    monkeypatch.delenv(gpu_lock.STOP_ENV, raising=False)
    monkeypatch.delenv(gpu_lock.DRAIN_ENV, raising=False)
    monkeypatch.setenv("FAKE_SANITIZER_SLEEP", "1")
    code, err = _batch(root, list(subs.values()), tmp_path / "quiet")
    quiet = _reports(tmp_path / "quiet", subs)
    for stop, drain, side, sleep in (("0.2", "2,0.5", "1", "1"), ("0.1", "3,0.3", "0", "0.6")):
        monkeypatch.setenv("GRADER_SIDE_BY_SIDE", side)
        monkeypatch.setenv(gpu_lock.DRAIN_ENV, drain)
        monkeypatch.setenv("FAKE_SANITIZER_SLEEP", sleep)
        monkeypatch.setenv(gpu_lock.STOP_ENV, stop)
        monkeypatch.setenv(gpu_lock.TRACE_ENV, str(tmp_path / f"trace{side}"))
        code2, err2 = _batch(root, list(subs.values()), tmp_path / f"stopped{side}")
        stopped = _reports(tmp_path / f"stopped{side}", subs)
        assert code2 == code, err2
        assert "stopped for a drain and made again" in err2, (side, err2)
        for sid in subs:
            assert stopped[sid] == quiet[sid], (side, sid)
            # each row says which knobs it was graded with (an instructor's trial)
            row = json.loads((tmp_path / f"stopped{side}" / sid / "batch.json").read_text())
            # each as set, as grade.sbatch exports it (one form for every knob)
            assert row["knobs"] == {batching.UNTIMED_ENV: "2", gpu_lock.DRAIN_ENV: drain,
                                    gpu_lock.STOP_ENV: stop}, row
    quiet_row = json.loads((tmp_path / "quiet" / "solution" / "batch.json").read_text())
    assert quiet_row["knobs"] == {batching.UNTIMED_ENV: "2"}, quiet_row  # only the knob set

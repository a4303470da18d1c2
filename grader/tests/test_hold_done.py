"""GRADER_HOLD_ENDS_AT_DONE (docs/design-notes.md, note 82): a timed run over the lab lets
the GPU's hold go once the student's process has ended and the judge has written "done"
(nothing of its own left on the GPU but its context's end), not at the judge's end; never
before the student's process has ended, and as before where "done" never comes (a process
left behind holding the socket keeps the judge waiting). Off by default; the report is the
same either way."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import threading
import time

import pytest

from grader import batch, harness
from grader.errors import GraderError
from grader.gpu_lock import GpuLock
from helpers import grade_cli
from test_batch_timed_runs import _graded
from test_grade_pipeline import OFFSET_POINTS, _offset_performance
from test_pipeline_fake import course_with

# A timed judge over several cases (as test_harness's): after its gate it sends HELLO, writes
# every case's document, then, as cml_judge.c's end does, waits until the student's socket
# is closed by everything that held it, writes "done" and ends DONE_SLEEP seconds later (the
# real judge's context teardown).
_JUDGE = r'''#!/usr/bin/env python3
import json, os, socket, sys, time
args = sys.argv[1:]
first = args[args.index("--exercise") + 1]
sock = socket.socket(fileno=int(args[args.index("--peer") + 1]))
cases = []
for i, a in enumerate(args):
    if a == "--case":
        ex, _, rest = args[i + 1].rpartition(":")
        size, _, seed = rest.partition("@")
        cases.append((ex or first, [int(d) for d in size.split(",")], int(seed)))
print("gate", flush=True)
sys.stdin.read(1)
sock.send(b"HELLO")
for ex, size, seed in cases:
    print(json.dumps({"schema": 1, "exercise": ex, "size": size, "seed": seed,
                      "judged": True, "status": "ok", "check": {"n": 1}}), flush=True)
sock.shutdown(socket.SHUT_WR)
while sock.recv(16):
    pass
print("done", flush=True)
time.sleep(float(os.environ.get("DONE_SLEEP", "0")))
'''

# The student's process (lab --serve FD): reads HELLO, then ends (with CLOSE_FIRST, a second
# after closing its socket); with LEAVE_BEHIND=FILE a
# child in a session of its own keeps the socket open LEAVE_BEHIND_S seconds after it (its
# pid in FILE).
_WORKER = r'''#!/usr/bin/env python3
import os, socket, sys, time
sock = socket.socket(fileno=int(sys.argv[sys.argv.index("--serve") + 1]))
sock.recv(16)
if os.environ.get("CLOSE_FIRST"):  # its socket closed, the process still running a while
    sock.close()
    time.sleep(1.0)
left = os.environ.get("LEAVE_BEHIND")
if left and os.fork() == 0:
    os.setsid()
    with open(left, "w") as f:
        f.write(str(os.getpid()))
    time.sleep(float(os.environ.get("LEAVE_BEHIND_S", "3")))
    os._exit(0)
time.sleep(0.1)
'''

CASES = [("scale", (3, 4), 9), ("offset", (5,), 2)]


def _script(path, text):
    path.write_text(text)
    path.chmod(0o755)
    return path


def _timed(tmp_path, monkeypatch, at_done: bool, gate):
    """run_judged_timed_cases over CASES with the scripted judge and student: its results,
    and the times (time.monotonic()) _serve returned (the student's process ended) and the
    run returned."""
    judge = _script(tmp_path / "judge", _JUDGE)
    worker = _script(tmp_path / "lab", _WORKER)
    served = []
    serve = harness._serve

    def noted(*args, **kw):
        out = serve(*args, **kw)
        served.append(time.monotonic())
        return out

    monkeypatch.setattr(harness, "_serve", noted)
    got = harness.run_judged_timed_cases(
        judge, worker, CASES, 20, 10, 1, gate=gate, hold_ends_at_done=at_done
    )
    return got, served[-1], time.monotonic()


@pytest.mark.parametrize("at_done", [True, False])
def test_the_hold_is_let_go_at_done_before_the_judge_ends(tmp_path, monkeypatch, at_done):
    """The judge ends a second after "done": with the knob the hold is let go at "done" (the
    other timed run takes the lock while the judge still runs, and ``hold_tail_ms`` shows
    the release before the judge's end), after the student's process ended; without it, at
    the judge's end, as before."""
    monkeypatch.setenv("DONE_SLEEP", "1.0")
    lock = GpuLock()
    entered, taken = threading.Event(), []

    def other():
        entered.wait(30)
        with lock.exclusive():
            taken.append(time.monotonic())

    @contextlib.contextmanager
    def gate():
        with lock.exclusive():
            entered.set()
            yield

    t = threading.Thread(target=other, daemon=True)
    t.start()
    got, student_end, returned = _timed(tmp_path, monkeypatch, at_done, gate)
    t.join(30)
    assert [got[ex].run.doc["status"] for ex, _, _ in CASES] == ["ok", "ok"]
    tail = got["offset"].tail_ms
    assert list(tail) == ["student", "judge", "released"] or list(tail) == [
        "student", "released", "judge"], tail
    if at_done:
        assert tail["student"] <= tail["released"] < tail["judge"] - 500, tail
        assert student_end <= taken[0] < returned - 0.5, (student_end, taken, returned)
    else:
        assert tail["released"] >= tail["judge"] >= tail["student"] + 900, tail
        assert taken[0] >= returned - 0.1, (taken, returned)
    assert (lock._readers, lock._writer, lock._writers_waiting) == (0, False, 0)


def _recording_gate(released: list):
    """A gate that appends the time (monotonic) it is let go to ``released``."""

    @contextlib.contextmanager
    def gate():
        try:
            yield
        finally:
            released.append(time.monotonic())

    return gate


def test_a_process_left_behind_keeps_the_hold_until_the_judge_is_killed(
    tmp_path, monkeypatch
):
    """A child of the student's process, in a session of its own, keeps the socket open
    (where runs have no cgroup, so it outlives the run): the judge never writes "done" in
    its grace, so the hold is let go only once the judge is killed, as without the knob, and
    the case reads as a process left behind."""
    monkeypatch.setattr(harness.runner.cgroup, "group", lambda *a, **k: contextlib.nullcontext())
    monkeypatch.setattr(harness, "JUDGE_GRACE_S", 1.0)
    pid_file = tmp_path / "left.pid"
    monkeypatch.setenv("LEAVE_BEHIND", str(pid_file))
    monkeypatch.setenv("LEAVE_BEHIND_S", "4")
    released = []
    gate = _recording_gate(released)

    try:
        got, student_end, _ = _timed(tmp_path, monkeypatch, True, gate)
    finally:
        with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert got["scale"].run.doc["status"] == "ok"
    offset = got["offset"].run
    assert offset.doc is None and offset.problem == (
        "left a process behind that kept the judge waiting for 1.0 s"
    )
    assert released and released[0] >= student_end + 0.95, (released, student_end)


def test_done_before_the_student_process_ends_keeps_the_hold_until_it_has(
    tmp_path, monkeypatch
):
    """The student's process closes its socket and goes on a second: the judge writes "done"
    at once, but the hold is let go only once the process has ended (_serve returned)."""
    monkeypatch.setenv("CLOSE_FIRST", "1")
    monkeypatch.setenv("DONE_SLEEP", "2.0")
    released = []
    gate = _recording_gate(released)

    got, student_end, returned = _timed(tmp_path, monkeypatch, True, gate)
    assert got["offset"].run.doc["status"] == "ok"
    assert student_end <= released[0] < returned - 0.5, (student_end, released, returned)


@pytest.fixture
def course(fake_root, tmp_path):
    return course_with(fake_root, tmp_path, OFFSET_POINTS, _offset_performance(True))


def test_the_report_is_the_same_with_the_hold_let_go_at_done(
    course, fake_gpu, tmp_path, monkeypatch
):
    """On the fake lab (its judge ends 600 ms after "done"), a batch's grading with the knob
    gives the report of one without, and its hold's tail shows the release before the
    judge's end; without it, at or after the judge's end."""
    monkeypatch.setenv("FAKE_DONE_SLEEP_MS", "600")
    sub = course / "solutions" / "9.1-fake"
    on_tails, off_tails = [], []
    on, gates = _graded(course, sub, tmp_path, monkeypatch, True, "on", on_tails,
                        hold_ends_at_done=True)
    off, _ = _graded(course, sub, tmp_path, monkeypatch, True, "off", off_tails)
    assert gates == ["scale+offset"]
    assert on == off and on["total"] == on["max"]
    ((_, on_tail),) = on_tails
    ((_, off_tail),) = off_tails
    assert on_tail["student"] <= on_tail["released"] < on_tail["judge"] - 400, on_tail
    assert off_tail["released"] >= off_tail["judge"] >= off_tail["student"] + 500, off_tail


def test_the_knob_is_read_and_a_wrong_value_refused(monkeypatch):
    """batch.hold_ends_at_done: off unset, empty or 0, on at 1, and a GraderError naming
    what to give otherwise (Batch.run and slurm.submit call it before anything is built)."""
    monkeypatch.delenv(batch.HOLD_DONE_ENV, raising=False)
    assert batch.hold_ends_at_done() is False
    for text, want in (("", False), ("0", False), (" 1 ", True)):
        monkeypatch.setenv(batch.HOLD_DONE_ENV, text)
        assert batch.hold_ends_at_done() is want, text
    for text in ("yes", "2", "true", "１"):
        monkeypatch.setenv(batch.HOLD_DONE_ENV, text)
        with pytest.raises(GraderError, match="GRADER_HOLD_ENDS_AT_DONE=.*give 1 .on. or 0"):
            batch.hold_ends_at_done()


def test_a_wrong_value_stops_a_batch_and_a_slurm_submission(fake_root, capsys, tmp_path,
                                                            monkeypatch):
    """Before anything is built or written: the batch's --out and Slurm's are never made."""
    monkeypatch.setenv(batch.HOLD_DONE_ENV, "yes")
    sub = tmp_path / "subs" / "alice"
    shutil.copytree(fake_root / "solutions" / "9.1-fake", sub)
    lab = fake_root / "labs" / "9.1-fake"
    code, _, err = grade_cli(capsys, "batch", lab, sub, "--out", tmp_path / "o")
    assert code == 2 and "GRADER_HOLD_ENDS_AT_DONE='yes'" in err, err
    assert not (tmp_path / "o").exists()
    code, _, err = grade_cli(capsys, "slurm", lab, sub, "--out", tmp_path / "s", "--dry-run")
    assert code == 2 and "GRADER_HOLD_ENDS_AT_DONE='yes'" in err, err
    assert not (tmp_path / "s").exists()


def test_a_batch_records_the_knob_and_grades_as_without(fake_root, fake_gpu, capsys, tmp_path,
                                                        monkeypatch):
    """A batch with the knob grades the solution in full and records it in batch.json's
    ``knobs``."""
    monkeypatch.setenv(batch.HOLD_DONE_ENV, "1")
    sub = tmp_path / "subs" / "alice"
    shutil.copytree(fake_root / "solutions" / "9.1-fake", sub)
    out = tmp_path / "out"
    code, _, err = grade_cli(capsys, "batch", fake_root / "labs" / "9.1-fake", sub, "--out", out,
                             "--seed", "7", "--jobs", "1")
    assert code == 0, err
    row = json.loads((out / "alice" / "batch.json").read_text())
    assert row["knobs"] == {batch.HOLD_DONE_ENV: 1}, row
    rep = json.loads((out / "alice" / "report.json").read_text())
    assert rep["total"] == rep["max"]

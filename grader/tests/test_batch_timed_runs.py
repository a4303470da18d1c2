"""A batch's timed runs over the lab (grade.Grading._timed_lab_runs,
harness.run_judged_timed_cases; issue 15, docs/design-notes.md note 39) on the fake lab
(fakelab/README.md) with two timed exercises: one gated judge and one hold of the GPU for
both, and the same report as each exercise's own timed run whatever the submission does in
the first one (a crash, a failed launch, a hang): the exercises after it are timed in a
fresh judged run, through a gate of their own."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from grader import batch as batching
from grader import cli, cpus, gpu_lock, harness, report
from grader.errors import GraderError
from grader import grade as grading
from grader.gpu_lock import GpuLock
from helpers import drop_timings, fake_batch
from test_grade_pipeline import OFFSET_POINTS, _offset_performance
from test_one_process import CRASH_AT_33, HANG_AT_33
from test_batch_strays import _files
from test_pipeline_fake import course_with, variant

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

# scale's timed case is 128 x 128 (lab.toml), no correctness case is
CRASH_TIMED = ("*speed = 2.5;", "*speed = 2.5;\n    if (rows == 128) { *(volatile int *)0 = 1; }")
LAUNCH_ERROR_TIMED = ("*speed = 2.5;\n    // END SOLUTION\n    return 0;",
                      "*speed = 2.5;\n    // END SOLUTION\n    return rows == 128;")
HANG_TIMED = (
    "*speed = 2.5;",
    "*speed = 2.5;\n    volatile int spin = 1;\n    while (rows == 128 && spin) { }",
)


def _graded(course, sub, tmp_path, monkeypatch, lab_runs: bool, name: str, tails=None):
    """The JSON report of a batch's kind of grading (``Grading._runtime`` with a lock of its
    own, so every timed run is gated; seed 5), with the timed runs over the lab or each
    exercise's own, less the timings and the performance rows' wall times and hold tails
    (appended to ``tails`` as (exercise, tail) where a list is given); and the gates the
    fake judge passed (one line each, the run's exercises joined by "+")."""
    gates = tmp_path / f"{name}-gates.log"
    monkeypatch.setenv("FAKE_GATE_LOG", str(gates))
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=sub, seed=5, one_process=True),
    )
    g.pipelined, g.gpu_lock = False, GpuLock()  # a batch's steps, its lock
    if not lab_runs:
        monkeypatch.setattr(g, "_timed_lab_runs", lambda gate: {})
    rep = report.to_json(g.run())
    lock = g.gpu_lock  # every hold let go, on every path (a fresh run, a retimed one)
    assert (lock._readers, lock._writer, lock._writers_waiting) == (0, False, 0)
    timings, rows = drop_timings(rep)
    assert timings is not None and all(run["wall_s"] >= 0 for _, run in rows)
    if tails is not None:
        tails.extend((name, run["hold_tail_ms"]) for name, run in rows if "hold_tail_ms" in run)
    return rep, gates.read_text().split() if gates.exists() else []


@pytest.fixture
def course(fake_root, tmp_path):
    return course_with(fake_root, tmp_path, OFFSET_POINTS, _offset_performance(True))


def test_one_gate_for_the_lab_and_the_same_report(course, fake_gpu, tmp_path, monkeypatch):
    sub = course / "solutions" / "9.1-fake"
    rep, gates = _graded(course, sub, tmp_path, monkeypatch, True, "together")
    alone, alone_gates = _graded(course, sub, tmp_path, monkeypatch, False, "apart")
    assert gates == ["scale+offset"]
    assert alone_gates == ["scale", "offset"]
    assert rep == alone and rep["total"] == rep["max"]
    for ex in rep["exercises"]:
        (row,) = ex["parts"]["performance"]["details"]
        assert row["status"] == "ok" and row["phases_ms"]


def test_the_run_over_the_lab_records_where_its_hold_ended(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Design notes 80 and 82: the last exercise's row of a gated run over the lab says how
    long after its document the student's process ended, the judge wrote "done" (the fake
    judge does, as the course's), the judge ended, and the hold was let go (ms; here the
    fake judge ends 300 ms after its "done", as the course's tears its context down);
    exercises timed in runs of their own record none."""
    monkeypatch.setenv("FAKE_DONE_SLEEP_MS", "300")
    sub = course / "solutions" / "9.1-fake"
    tails, apart = [], []
    _graded(course, sub, tmp_path, monkeypatch, True, "together", tails)
    _graded(course, sub, tmp_path, monkeypatch, False, "apart", apart)
    assert [name for name, _ in tails] == ["offset"] and apart == []
    ((_, tail),) = tails
    assert set(tail) == {"student", "done", "judge", "released"}, tail
    # The student's process may end just before the reader thread stamps the document's
    # arrival (two threads' clocks; CI saw -0.1 ms in session 40): nothing orders them, and
    # the record keeps the figure as measured.
    assert -5 <= tail["student"] <= tail["judge"] <= tail["released"] < 60_000
    assert 0 <= tail["done"] <= tail["judge"] - 200, tail


def test_a_judge_done_but_not_ended_is_the_courses_fault(
    course, fake_gpu, tmp_path, monkeypatch
):
    """A judge that wrote "done" (every holder of the socket had closed it) and then did not
    end within its grace (JUDGE_GRACE_S) is a course fault, not the student's process left
    behind (a review's case, design note 82): the grading stops on a GraderError naming the
    judge, instead of the last case reading "left a process behind"."""
    monkeypatch.setattr(harness, "JUDGE_GRACE_S", 0.5)
    monkeypatch.setenv("FAKE_DONE_SLEEP_MS", "2000")
    sub = course / "solutions" / "9.1-fake"
    with pytest.raises(GraderError, match="said it was done but did not end within 0.5 s"):
        _graded(course, sub, tmp_path, monkeypatch, True, "together")


@pytest.mark.parametrize(
    "name, change, status",
    [
        ("crash", CRASH_TIMED, "crash"),
        ("launch_error", LAUNCH_ERROR_TIMED, "error"),
        ("hang", HANG_TIMED, "timeout"),
    ],
)
def test_after_a_failure_the_next_exercise_is_timed_in_a_fresh_run(
    course, fake_gpu, tmp_path, monkeypatch, name, change, status
):
    """scale's timed case fails its own way; offset's is timed in a fresh judged run
    through a gate of its own, and graded as in its own timed run."""
    if name == "hang":  # a shorter wait (5 s by default), twice
        toml = course / "labs" / "9.1-fake" / "lab.toml"
        toml.write_text(toml.read_text().replace("run_timeout_s = 5\n", "run_timeout_s = 2\n"))
    sub = variant(course, tmp_path / name, *change)
    rep, gates = _graded(course, sub, tmp_path, monkeypatch, True, "together")
    alone, alone_gates = _graded(course, sub, tmp_path, monkeypatch, False, "apart")
    assert gates == ["scale+offset", "offset"]
    assert alone_gates == ["scale", "offset"]
    assert rep == alone
    scale, offset = rep["exercises"]
    assert scale["parts"]["performance"]["details"][0]["status"] == status
    assert scale["parts"]["performance"]["points"] == 0
    assert offset["parts"]["performance"]["points"] == offset["parts"]["performance"]["max"]


def test_a_correctness_hang_keeps_the_set_up_from_its_gate(course, fake_gpu, tmp_path, monkeypatch):
    """scale's correctness case 33 x 65 never ends: the run over the lab, set up beside the
    untimed runs (design note 45), must not pass its gate (it would time a hanging exercise);
    offset is timed in a run of its own, and the report is the one without runs over the lab."""
    toml = course / "labs" / "9.1-fake" / "lab.toml"
    toml.write_text(toml.read_text().replace("run_timeout_s = 5\n", "run_timeout_s = 2\n"))
    sub = variant(course, tmp_path / "hang", *HANG_AT_33)
    starts = tmp_path / "starts.log"
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(starts))
    rep, gates = _graded(course, sub, tmp_path, monkeypatch, True, "together")
    early = [line for line in starts.read_text().splitlines() if line.endswith(" 2 timed")]
    assert early == ["scale 2 timed"]  # the run over the lab was set up, then let go
    alone, alone_gates = _graded(course, sub, tmp_path, monkeypatch, False, "apart")
    assert gates == alone_gates == ["offset"]
    assert rep == alone
    scale, offset = rep["exercises"]
    perf = scale["parts"]["performance"]
    assert (perf["status"], perf["reason"]) == ("not_run", "a correctness case did not finish")
    assert offset["parts"]["performance"]["points"] == offset["parts"]["performance"]["max"]


def test_a_spread_run_is_timed_again_on_its_own(course, fake_gpu, tmp_path, monkeypatch):
    """scale's samples spread in the run over the lab: scale alone is timed once more
    (through its own gate) and that run graded, as a run of its own would be."""
    sub = course / "solutions" / "9.1-fake"
    flag = tmp_path / "spread"
    monkeypatch.setenv("FAKE_SPREAD_ONCE", str(flag))
    flag.touch()
    rep, gates = _graded(course, sub, tmp_path, monkeypatch, True, "together")
    flag.touch()
    alone, _ = _graded(course, sub, tmp_path, monkeypatch, False, "apart")
    assert gates == ["scale+offset", "scale"]
    assert rep == alone
    row = rep["exercises"][0]["parts"]["performance"]["details"][0]
    assert "retimed" in row and rep["total"] == rep["max"]


def test_exercises_with_other_repetitions_run_apart(course, fake_gpu, tmp_path, monkeypatch):
    """A run over the lab has one --reps: an exercise timed with other repetitions is
    timed in a run of its own (here each, the only one with its count)."""
    toml = course / "labs" / "9.1-fake" / "lab.toml"
    text = toml.read_text()
    assert text.count("reps = 20\n") == 2
    toml.write_text(text.replace("reps = 20\n", "reps = 30\n", 1))
    sub = course / "solutions" / "9.1-fake"
    _, gates = _graded(course, sub, tmp_path, monkeypatch, True, "reps")
    assert gates == ["scale", "offset"]



def test_a_computed_roofs_percentage_times_its_baseline_as_information(
    course, fake_gpu, tmp_path, monkeypatch
):
    """An exercise graded on a roof not timed among the repetitions (here the FP32 peak), not
    on the ratio over its baseline, has the judge time its baseline in fewer repetitions
    (--info-baseline; PerformanceSpec.info_baseline), in a run over the lab and in its own
    run; one graded on the ratio or on % of copy not."""
    toml = course / "labs" / "9.1-fake" / "lab.toml"
    text = toml.read_text()
    assert text.count('metric = "ratio"\n') == 2  # scale's, then offset's
    i = text.rindex('metric = "ratio"\n')
    sub = course / "solutions" / "9.1-fake"
    for metric, info in (("pct_of_fp32", ";info=offset"), ("pct_of_copy", "")):
        toml.write_text(
            text[:i] + f'roof = "fp32"\nmetric = "{metric}"\n' + text[i + 17 :]
            if metric == "pct_of_fp32"
            else text[:i] + f'metric = "{metric}"\n' + text[i + 17 :]
        )
        _, gates = _graded(course, sub, tmp_path, monkeypatch, True, f"{metric}-together")
        assert gates == [f"scale+offset{info}"], metric
        _, gates = _graded(course, sub, tmp_path, monkeypatch, False, f"{metric}-apart")
        assert gates == ["scale", f"offset{info}"], metric


def test_cases_past_the_judges_set_up_budget_run_apart(course, fake_gpu, tmp_path, monkeypatch):
    """A judge that cannot set every case up within its budget (cml_judge.c: "defer K"
    before its gate) times the first K; the grader times the rest in a fresh run, and the
    report is the same."""
    monkeypatch.setenv("FAKE_SETUP_BUDGET_CASES", "1")
    sub = course / "solutions" / "9.1-fake"
    rep, gates = _graded(course, sub, tmp_path, monkeypatch, True, "deferred")
    monkeypatch.delenv("FAKE_SETUP_BUDGET_CASES")
    alone, _ = _graded(course, sub, tmp_path, monkeypatch, False, "apart")
    assert gates == ["scale", "offset"]
    assert rep == alone and rep["total"] == rep["max"]


def test_the_set_up_overlaps_the_untimed_runs_under_one_shared_presence(
    course, fake_gpu, tmp_path, monkeypatch
):
    """A batch's grading sets its timed run up beside its untimed runs (design notes 44 and
    45), even while another grading's timed run waits for the GPU: the run over the lab starts
    before the untimed runs end, and in the lock's trace the grading's shared hold lasts from
    its start to the drop before a hold alone, so timed runs queued elsewhere cannot come
    between its untimed runs and its set-up."""
    trace = tmp_path / "lock.trace"
    monkeypatch.setenv(gpu_lock.TRACE_ENV, str(trace))
    monkeypatch.setenv("FAKE_SETUP_MS", "800")  # the set-up outlasts the untimed runs
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=course / "solutions" / "9.1-fake", seed=5, one_process=True),
    )
    g.pipelined, g.gpu_lock = False, GpuLock()
    when: dict[str, float] = {}
    probe, untimed, timed = g._probe, g._sanitizer_lab_runs, g._timed_lab_runs
    other = threading.Thread(target=lambda: _hold_alone(g.gpu_lock, 0.5))

    def probed():
        probe()
        other.start()  # another grading's timed run asks for the GPU alone now, first
        deadline = time.monotonic() + 10
        while g.gpu_lock._writers_waiting == 0 and time.monotonic() < deadline:
            time.sleep(0.005)

    def untimed_then():
        untimed()
        when["untimed_end"] = time.monotonic()

    def timed_then(gate):
        when["timed_start"] = time.monotonic()

        def gate_then():
            when.setdefault("at_gate", time.monotonic())
            return gate()

        return timed(gate_then)

    monkeypatch.setattr(g, "_probe", probed)
    monkeypatch.setattr(g, "_sanitizer_lab_runs", untimed_then)
    monkeypatch.setattr(g, "_timed_lab_runs", timed_then)
    rep = report.to_json(g.run())
    other.join()
    assert rep["total"] == rep["max"]
    assert when["timed_start"] < when["untimed_end"]
    lines = trace.read_text().splitlines()
    rows = [tuple(int(x) for x in line.split()[1:4]) for line in lines if line]
    holds = [k for k in range(1, len(rows)) if rows[k][2] and not rows[k - 1][2]]
    assert len(holds) == 2, rows  # the other grading's hold alone, then this one's
    readers = [0] + [r for r, _, _ in rows[: holds[-1]]]
    takes = sum(1 for a, b in zip(readers, readers[1:]) if b and not a)
    assert takes == 1, rows  # one shared hold over the untimed runs and the set-up
    # ... kept until the judge waits at its gate, well after the untimed runs ended
    stamps = [float(line.split()[0]) for line in lines if line]
    let_go = next(stamps[k] for k in range(1, len(rows)) if rows[k - 1][0] and not rows[k][0])
    assert when["untimed_end"] + 0.5 < when["at_gate"] <= let_go, (when, let_go)


def _hold_alone(lock: GpuLock, seconds: float) -> None:
    with lock.exclusive():
        time.sleep(seconds)


def test_a_grading_ends_without_waiting_behind_the_queue_of_timed_runs(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Design note 49: once its run over the lab has been timed, a batch's grading ends while
    another grading's timed run, queued during its hold alone, still holds the GPU (before,
    it took the shared hold again behind that queue: the class went in waves)."""
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=course / "solutions" / "9.1-fake", seed=5, one_process=True),
    )
    g.pipelined, g.gpu_lock = False, GpuLock()
    timed = g._timed_lab_runs
    other = threading.Thread(target=lambda: _hold_alone(g.gpu_lock, 3.0))
    when: dict[str, float] = {}

    def timed_then(gate):
        @contextlib.contextmanager
        def gate_then():
            with gate():
                other.start()  # queues behind this hold alone
                while g.gpu_lock._writers_waiting == 0:
                    time.sleep(0.005)
                yield
            when["let_go"] = time.monotonic()

        return timed(gate_then)

    monkeypatch.setattr(g, "_timed_lab_runs", timed_then)
    rep = report.to_json(g.run())
    ended = time.monotonic()
    assert other.is_alive(), "the grading waited for the other timed run"
    other.join()
    assert rep["total"] == rep["max"]
    assert ended - when["let_go"] < 2.0, ended - when["let_go"]


def _one_run_over_the_lab(monkeypatch) -> None:
    """The lab's correctness cases in one judged run (note 37), not two side by side (note
    60): its crash's fresh processes then follow one another on this thread, each with its
    pass, whatever the other run's pace."""
    monkeypatch.setattr(grading, "_two_groups", lambda exercises: (list(exercises), []))


def _queued_grading(course, sub, monkeypatch):
    """A batch's kind of grading of sub (seed 5, a lock of its own, a cgroup per run
    assumed), its lock, a dict of instants, and a thread body that holds the lock alone
    once and notes when ("other_alone"): another grading's timed run queueing."""
    monkeypatch.setattr(grading.cgroup, "in_force", lambda: True)  # each run in its own group
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=sub, seed=5, one_process=True),
    )
    g.pipelined, g.gpu_lock = False, GpuLock()
    lock, when = g.gpu_lock, {}

    def other():
        with lock.exclusive():
            when["other_alone"] = time.monotonic()

    return g, lock, when, other


def _queue_behind(g, lock, other) -> threading.Thread:
    """Starts `other` once the grading's early judge is at its gate (as it would be by now)
    and returns when it waits for the lock (at most 10 s each)."""
    if g._early is not None:
        g._early.at_gate.wait(10)
    t = threading.Thread(target=other)
    t.start()
    deadline = time.monotonic() + 10
    while lock._writers_waiting == 0 and time.monotonic() < deadline:
        time.sleep(0.005)
    return t


def _without_walls(rep: dict) -> dict:
    """The report less its timings and the performance rows' wall times."""
    timings, rows = drop_timings(rep)
    assert timings is not None and all("wall_s" in run for _, run in rows)
    return rep


def test_a_timed_run_waiting_passes_between_a_crashing_submissions_processes(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Design note 54: scale's correctness case 33 x 65 crashes, so its later cases run in a
    fresh process. Another grading's timed run that asks for the GPU alone while the crash
    is graded holds it before that fresh process starts (once the run over the lab has set
    up), instead of after all of this grading's untimed runs; the report is the same as with
    no timed run waiting, and every hold is let go."""
    sub = variant(course, tmp_path / "crash", *CRASH_AT_33)
    _one_run_over_the_lab(monkeypatch)
    monkeypatch.setattr(grading, "PASS_AFTER_S", 0.0)  # note 69: any hold is old enough
    quiet, _ = _graded(course, sub, tmp_path, monkeypatch, True, "quiet")
    g, lock, when, other = _queued_grading(course, sub, monkeypatch)
    real_lock_pass, real_untimed = lock.let_timed_runs_pass, g._sanitizer_lab_runs
    real_grading_pass = g._let_timed_runs_pass

    def lock_pass(stopped=False):
        when["passed"] = real_lock_pass(stopped=stopped)
        return when["passed"]

    def passing():
        t = _queue_behind(g, lock, other)
        waited = real_grading_pass()
        when["back"] = time.monotonic()
        t.join(10)
        return waited

    def untimed_then():
        when["untimed_start"] = time.monotonic()
        real_untimed()

    monkeypatch.setattr(lock, "let_timed_runs_pass", lock_pass)
    monkeypatch.setattr(g, "_let_timed_runs_pass", passing)
    monkeypatch.setattr(g, "_sanitizer_lab_runs", untimed_then)
    rep = report.to_json(g.run())
    assert when["passed"] is True
    assert when["other_alone"] < when["back"] < when["untimed_start"]
    assert (lock._readers, lock._writer, lock._writers_waiting) == (0, False, 0)
    assert _without_walls(rep) == quiet


def test_a_timed_run_waiting_passes_between_the_correctness_and_the_sanitizer_runs(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Design note 57: another grading's timed run that asks for the GPU alone while this
    grading's correctness runs end holds it before this grading's sanitizer runs start (once
    the run over the lab has set up), not after them; the report is the same as with no
    timed run waiting, and every hold is let go."""
    sub = course / "solutions" / "9.1-fake"
    quiet, _ = _graded(course, sub, tmp_path, monkeypatch, True, "quiet")
    g, lock, when, other = _queued_grading(course, sub, monkeypatch)
    real_correctness, real_untimed = g._correctness, g._sanitizer_lab_runs
    last = g.lab.exercises[-1].name

    def correctness_then(ex):
        real_correctness(ex)
        if ex.name == last:
            when["thread"] = _queue_behind(g, lock, other)

    def untimed_then():
        when["untimed_start"] = time.monotonic()
        real_untimed()

    monkeypatch.setattr(g, "_correctness", correctness_then)
    monkeypatch.setattr(g, "_sanitizer_lab_runs", untimed_then)
    rep = report.to_json(g.run())
    when["thread"].join(10)
    assert when["other_alone"] < when["untimed_start"]
    assert (lock._readers, lock._writer, lock._writers_waiting) == (0, False, 0)
    assert _without_walls(rep) == quiet


@pytest.mark.parametrize("sanitizer", [True, False])
def test_the_pass_before_the_sanitizer_runs_only_when_some_will_run(
    course, fake_gpu, monkeypatch, sanitizer
):
    """Note 57's pass is asked for only when a sanitizer run follows: without one
    (--no-sanitizer) a grading that stepped out would only lose its place in the queue."""
    g, _, _, _ = _queued_grading(course, course / "solutions" / "9.1-fake", monkeypatch)
    g.options.sanitizer = sanitizer
    asked = []
    monkeypatch.setattr(g, "_let_timed_runs_pass", lambda: asked.append(1) or 0.0)
    rep = report.to_json(g.run())
    assert asked == ([1] if sanitizer else [])
    assert rep["total"] == rep["max"] if sanitizer else rep["total"] <= rep["max"]


@pytest.mark.parametrize("why", ["the early run still sets up", "no cgroup per run"])
def test_no_timed_run_passes_while_the_grading_may_still_have_gpu_work(
    course, fake_gpu, tmp_path, monkeypatch, why
):
    """Design note 54's exceptions, at its pass and note 57's: between the crashing
    submission's processes, and between its correctness and sanitizer runs, the grading
    keeps its hold while its early timed run's judge is still setting up (its GPU work must
    stay held: the fake judge's set-up lasts 3 s here), and without a cgroup per run (a
    killed process could still be tearing its GPU context down)."""
    sub = variant(course, tmp_path / "crash", *CRASH_AT_33)
    _one_run_over_the_lab(monkeypatch)
    monkeypatch.setattr(grading, "PASS_AFTER_S", 0.0)  # note 69: any hold is old enough
    if why == "the early run still sets up":
        monkeypatch.setenv("FAKE_SETUP_MS", "3000")
        monkeypatch.setattr(grading.cgroup, "in_force", lambda: True)
    else:
        monkeypatch.setattr(grading.cgroup, "in_force", lambda: False)
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=sub, seed=5, one_process=True),
    )
    g.pipelined, g.gpu_lock = False, GpuLock()
    asked, passed = [], []
    real_grading_pass = g._let_timed_runs_pass

    def idle():
        return g._early is None or g._early.idle()

    def asking():
        asked.append(idle())
        return real_grading_pass()

    # the lock is asked (and notes whether the judge was at its gate then) only when allowed
    monkeypatch.setattr(
        g.gpu_lock, "let_timed_runs_pass", lambda stopped=False: passed.append(idle()) or False
    )
    monkeypatch.setattr(g, "_let_timed_runs_pass", asking)
    rep = report.to_json(g.run())
    # asked after the crash and again before the sanitizer runs (note 57)
    assert len(asked) == 2
    if why == "the early run still sets up":
        assert asked[0] is False  # the judge was not at its gate at the crash
        assert all(passed) and len(passed) <= 1  # the lock asked only with the judge there
    else:
        assert passed == []
    assert rep["exercises"][0]["parts"]["correctness"]["points"] < rep["exercises"][0][
        "parts"]["correctness"]["max"]


def test_a_crashing_submissions_fresh_process_passes_only_once_its_hold_is_old(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Design note 69: a fresh process after a crash lets the timed runs pass (note 54) only
    once the grading's shared hold has lasted PASS_AFTER_S; a younger hold goes on to the
    fresh process, and only note 57's pass (before the sanitizer runs) is asked. The report
    is the same either way: only when the timed runs go changes."""
    sub = variant(course, tmp_path / "crash", *CRASH_AT_33)
    _one_run_over_the_lab(monkeypatch)
    monkeypatch.setattr(grading.cgroup, "in_force", lambda: True)
    reports, asks = {}, {}
    for hold, after in (("young", 3600.0), ("old", 0.0)):
        monkeypatch.setattr(grading, "PASS_AFTER_S", after)
        g = grading.Grading(
            course / "labs" / "9.1-fake",
            grading.Options(submission=sub, seed=5, one_process=True),
        )
        g.pipelined, g.gpu_lock = False, GpuLock()
        asked = asks[hold] = []  # each ask: whether the correctness runs had ended
        monkeypatch.setattr(
            g, "_let_timed_runs_pass",
            lambda g=g, asked=asked: asked.append("correctness" in g.grade.timings) or 0.0,
        )
        reports[hold] = _without_walls(report.to_json(g.run()))
    assert asks == {"young": [True], "old": [False, True]}
    assert reports["young"] == reports["old"]
    correctness = reports["old"]["exercises"][0]["parts"]["correctness"]
    assert correctness["points"] < correctness["max"]  # the crash's case, and only it
    assert [d["status"] for d in correctness["details"]].count("crash") == 1


def test_a_pass_restarts_the_age_of_the_hold(course, monkeypatch):
    """Design note 69: the hold's age counts from when it was taken, and again from when a
    pass took it back; a young hold does not ask the lock at all."""
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=course / "solutions" / "9.1-fake", one_process=True),
    )
    monkeypatch.setattr(grading.cgroup, "in_force", lambda: True)
    lock = GpuLock()
    asked = []
    monkeypatch.setattr(lock, "let_timed_runs_pass", lambda stopped=False: asked.append(1) or True)
    g._shared_lock, g._early = lock, None
    g._shared_since = time.monotonic()
    g._pass_between_processes()
    assert asked == []  # younger than PASS_AFTER_S
    g._shared_since = time.monotonic() - grading.PASS_AFTER_S - 1
    before = time.monotonic()
    g._pass_between_processes()
    assert asked == [1] and g._shared_since >= before  # passed: the age starts again
    g._pass_between_processes()
    assert asked == [1]


@pytest.mark.skipif(
    shutil.which("taskset") is None or shutil.which("nice") is None,
    reason="no taskset or nice: no CPUs kept, no background work told apart",
)
def test_untimed_runs_and_set_ups_use_every_cpu_and_timed_processes_the_kept_ones(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Design note 55: under a batch's grading's shared hold its untimed runs (probe,
    correctness, sanitizer) and its early judge's set-up start on every CPU the grader may
    use, where each run has a cgroup; the build and the SASS reads, outside the hold, on the
    grader's own (no taskset); the timed run's student's process on the kept CPUs. Without a
    cgroup per run, and in a lone grade's pipeline (whose untimed runs may run beside its
    timed one), no untimed run starts on the kept CPUs."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        pytest.skip("one CPU: nothing to keep")
    monkeypatch.setattr(grading.cgroup, "in_force", lambda: True)  # each run in its own group
    monkeypatch.setattr(cpus, "_kept", frozenset(allowed[-1:]))
    monkeypatch.setattr(cpus, "_all", frozenset(allowed))
    every, kept = ",".join(map(str, allowed)), str(allowed[-1])
    started: list[list[str]] = []
    real = subprocess.Popen

    class Recorded(real):
        def __init__(self, args, *more, **kw):
            started.append([str(a) for a in args])
            super().__init__(args, *more, **kw)

    monkeypatch.setattr(subprocess, "Popen", Recorded)

    def cpus_of(argv):
        return argv[argv.index("-c") + 1] if any(a.endswith("/taskset") for a in argv) else None

    def runs(marker):
        return [cpus_of(a) for a in started if any(marker in x for x in a)]

    sub = course / "solutions" / "9.1-fake"
    rep, _ = _graded(course, sub, tmp_path, monkeypatch, True, "cpus")
    assert rep["total"] == rep["max"]
    judges = [a for a in started if "--peer" in a]
    assert any("--time" in a for a in judges) and any("--time" not in a for a in judges)
    assert {cpus_of(a) for a in judges} == {every}  # set-ups (pinned at the gate) and correctness
    assert set(runs("compute-sanitizer")) == {every}
    serving = [a for a in started if "--serve" in a]  # the student's processes
    timed = [a for a in serving if not a[0].endswith("/nice")]  # background work runs nicer
    assert timed and {cpus_of(a) for a in timed} == {kept}
    assert {cpus_of(a) for a in serving if a not in timed} == {every}  # its correctness runs
    assert set(runs("cuobjdump")) | set(runs("make")) == {None}  # outside the hold

    started.clear()
    g = grading.Grading(
        course / "labs" / "9.1-fake", grading.Options(submission=sub, seed=5, one_process=True)
    )
    assert g.pipelined  # a lone grade
    g.run()
    assert every not in {cpus_of(a) for a in started} and kept in set(runs("--serve"))

    started.clear()
    monkeypatch.setattr(grading.cgroup, "in_force", lambda: False)  # a run may leave some behind
    rep, _ = _graded(course, sub, tmp_path, monkeypatch, True, "no-cgroups")
    assert rep["total"] == rep["max"]
    assert every not in {cpus_of(a) for a in started} and kept in set(runs("--serve"))
    assert (cpus.kept(), cpus.untimed_prefix()) == ({allowed[-1]}, [])  # nothing left behind


def test_a_judge_not_due_is_killed_under_the_gradings_hold(course, fake_gpu, tmp_path, monkeypatch):
    """A correctness hang leaves the early run over the lab not due: its judge is killed
    (harness._kill) while the grading still holds the GPU shared, so its teardown never
    overlaps another grading's hold alone (design note 55). The check of what is due is made
    slow here: the grading must not let go of its hold while it runs."""
    toml = course / "labs" / "9.1-fake" / "lab.toml"
    toml.write_text(toml.read_text().replace("run_timeout_s = 5\n", "run_timeout_s = 2\n"))
    sub = variant(course, tmp_path / "hang", *HANG_AT_33)
    g = grading.Grading(
        course / "labs" / "9.1-fake", grading.Options(submission=sub, seed=5, one_process=True)
    )
    g.pipelined, g.gpu_lock = False, GpuLock()
    real_ready, real_kill = g._timed_ready, grading.harness._kill
    readers_at_kill = []

    def slow_ready(ex):
        time.sleep(0.3)
        return real_ready(ex)

    def kill(proc):
        if threading.current_thread().name.endswith("early-timed"):  # the run over the lab's
            readers_at_kill.append(g.gpu_lock._readers)
        real_kill(proc)

    monkeypatch.setattr(g, "_timed_ready", slow_ready)
    monkeypatch.setattr(grading.harness, "_kill", kill)
    rep = report.to_json(g.run())
    scale = rep["exercises"][0]["parts"]["performance"]
    assert (scale["status"], scale["reason"]) == ("not_run", "a correctness case did not finish")
    assert readers_at_kill and min(readers_at_kill) >= 1, readers_at_kill


def _batch(course, subs, out, monkeypatch, oom: str | None) -> tuple[int, str, list[str]]:
    """``subs`` graded by a batch of one grading at a time (seed 7) on ``course``'s lab, whose
    two timed exercises make an early timed run over the lab in each grading; ``oom``:
    FAKE_JUDGE_OOM_ONCE's value (a file, made here, or "always"), None: no judge runs out of
    memory. (exit code, stderr, the fake judge's timed starts: FAKE_JUDGE_LOG); each
    student's process of a judged run appends a line to OUT-serve.log beside ``out``
    (FAKE_SERVE_LOG)."""
    monkeypatch.setenv("FAKE_SERVE_LOG", str(out.parent / f"{out.name}-serve.log"))
    if oom is None:
        monkeypatch.delenv("FAKE_JUDGE_OOM_ONCE", raising=False)
    else:
        if oom != "always":
            Path(oom).write_text("")
        monkeypatch.setenv("FAKE_JUDGE_OOM_ONCE", oom)
    return fake_batch(course, subs, out, monkeypatch)


def test_an_early_judge_out_of_memory_before_its_gate_is_set_up_again_later(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Design note 84: the early run over the lab's judge fails in its set-up, before its
    gate, with CUDA's "out of memory" (FAKE_JUDGE_OOM_ONCE: the error.by "judge" document of
    the course's judge). The grading makes its runs over the lab again after its untimed runs
    (the judge started twice for them) and is graded, not an "error:" row: its four files
    are those of the same batch without the failure but for their timings, which say how
    long the failed early run lasted (``early_oom``)."""
    sub = str(course / "solutions" / "9.1-fake")
    flag = tmp_path / "oom-once"
    code, err, timed = _batch(course, [sub], tmp_path / "oom", monkeypatch, str(flag))
    assert code == 0 and not flag.exists(), err  # the one judge ran out of memory
    assert timed == ["scale 2 timed", "scale 2 timed"], timed  # the early run's, then again
    code, clean_err, clean_timed = _batch(course, [sub], tmp_path / "clean", monkeypatch, None)
    assert code == 0 and clean_timed == ["scale 2 timed"], clean_err
    # the failed early run started no student's process on its judge's closed socket
    served = {run: len((tmp_path / f"{run}-serve.log").read_text().splitlines())
              for run in ("oom", "clean")}
    assert served["oom"] == served["clean"] > 0, served
    row = json.loads((tmp_path / "oom" / "9.1-fake" / "batch.json").read_text())
    assert row["status"] == "graded" and row["total"] == row["max"], row
    assert _files(tmp_path / "oom", "9.1-fake") == _files(tmp_path / "clean", "9.1-fake")
    timings = json.loads((tmp_path / "oom" / "9.1-fake" / "report.json").read_text())["timings_s"]
    assert timings["early_oom"] >= 0, timings
    clean = json.loads((tmp_path / "clean" / "9.1-fake" / "report.json").read_text())
    assert "early_oom" not in clean["timings_s"]


def test_a_judge_out_of_memory_before_its_gate_even_alone_is_the_error_row(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Every gated timed judge runs out of memory before its gate: the early run is made
    again after the untimed runs once (note 84); that run's failure, beside other gradings,
    has the grading graded again alone after the class (note 88), where the failure before
    its gate, no student's process yet, is the grader error it always was (an "error:" row
    naming the judge's out of memory, retried on the batch's next run); no fourth judge is
    started."""
    sub = str(course / "solutions" / "9.1-fake")
    code, err, timed = _batch(course, [sub], tmp_path / "oom", monkeypatch, "always")
    assert code == 2, err
    assert timed == ["scale 2 timed", "scale 2 timed", "scale 2 timed"], timed
    assert "9.1-fake: graded again, alone: its judge ran out of GPU memory before its gate" in err
    row = json.loads((tmp_path / "oom" / "9.1-fake" / "batch.json").read_text())
    assert row["status"] == (
        "error: the judge failed in scale at 128x128: cuda: out of memory at cml_setup.c:111 "
        "(cml_dev_alloc(&ptr, bytes)); its log: lab: cml_setup.c:111: cml_dev_alloc(&ptr, "
        "bytes) failed: out of memory"
    ), row["status"]


def test_an_early_judge_out_of_memory_ends_under_the_gradings_hold(
    course, fake_gpu, tmp_path, monkeypatch
):
    """The early run's judge that ran out of memory before its gate leaves nothing in its
    process group (its empty-kernel server, in the course's judge) when its thread ends: the
    early thread waits for the group while the grading still holds the GPU shared, as a
    judge not due is killed (design note 55), and the grading is then graded."""
    flag = tmp_path / "oom-once"
    flag.write_text("")
    monkeypatch.setenv("FAKE_JUDGE_OOM_ONCE", str(flag))
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=course / "solutions" / "9.1-fake", seed=5, one_process=True),
    )
    g.pipelined, g.gpu_lock = False, GpuLock()
    real_await = harness._await_group_end
    readers_at_wait = []

    def await_group_end(pgid, timeout_s):
        assert threading.current_thread().name.endswith("early-timed")
        readers_at_wait.append(g.gpu_lock._readers)
        gone = real_await(pgid, timeout_s)
        assert gone and not harness._group_alive(pgid)
        return gone

    monkeypatch.setattr(harness, "_await_group_end", await_group_end)
    rep = report.to_json(g.run())
    assert not flag.exists() and rep["total"] == rep["max"]
    assert readers_at_wait == [1], readers_at_wait
    assert rep["timings_s"]["early_oom"] >= 0


def _timed_judges_alive(monkeypatch) -> list[int]:
    """Wraps the harness's timed judged runs (the runs over the lab, an exercise's own timed
    run), each returning once its judge has ended: the returned list gets, at each start, how
    many such runs are then alive, this one included."""
    alive, seen, books = [0], [], threading.Lock()
    real_lab, real_one = harness.run_judged_timed_cases, harness.run_judged

    def counted(call, *args, **kwargs):
        with books:
            alive[0] += 1
            seen.append(alive[0])
        try:
            return call(*args, **kwargs)
        finally:
            with books:
                alive[0] -= 1

    def one(*args, **kwargs):
        if kwargs.get("time_reps") is None:  # an untimed run: not a timed judge's set-up
            return real_one(*args, **kwargs)
        return counted(real_one, *args, **kwargs)

    monkeypatch.setattr(
        harness, "run_judged_timed_cases", lambda *a, **k: counted(real_lab, *a, **k)
    )
    monkeypatch.setattr(harness, "run_judged", one)
    return seen


def _class_of_three(course, tmp_path, out, monkeypatch, setups: str | None):
    """Three copies of the solution graded by a batch of three gradings at once (seed 7),
    each judge's set-up 0.8 s (so that their early runs over the lab overlap);
    ``setups``: GRADER_TIMED_SETUPS_AT_ONCE. (exit code, stderr, timed judges alive at each
    start: ``_timed_judges_alive``)."""
    monkeypatch.setenv("GRADER_SANDBOX", "none")
    monkeypatch.setenv("FAKE_SETUP_MS", "800")
    if setups is None:
        monkeypatch.delenv(batching.TIMED_SETUPS_ENV, raising=False)
    else:
        monkeypatch.setenv(batching.TIMED_SETUPS_ENV, setups)
    sol = course / "solutions" / "9.1-fake"
    subs = []
    for sid in ("ann", "ben", "cat"):
        shutil.copytree(sol, tmp_path / "class" / sid, dirs_exist_ok=True)
        subs.append(tmp_path / "class" / sid)
    with monkeypatch.context() as m:
        seen = _timed_judges_alive(m)
        err = io.StringIO()
        argv = ["batch", course / "labs" / "9.1-fake", *subs, "--out", out, "--seed", "7",
                "--jobs", "3"]
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli.main([str(a) for a in argv])
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, err.getvalue(), seen


def test_timed_setups_at_once_caps_the_timed_judges_alive(course, fake_gpu, tmp_path, monkeypatch):
    """GRADER_TIMED_SETUPS_AT_ONCE=1 (design note 87), three gradings at once: never two timed
    judges alive at once (without it, two or more: their early runs over the lab set up side
    by side); every student's four files are those of the batch without it but for the
    timings and the row's ``knobs``, which records it; the batch says it."""
    code, err, free = _class_of_three(course, tmp_path, tmp_path / "free", monkeypatch, None)
    assert code == 0 and max(free) >= 2, (free, err)  # the instrument sees overlaps
    code, err, capped = _class_of_three(course, tmp_path, tmp_path / "one", monkeypatch, "1")
    assert code == 0, err
    assert "at most 1 of the 3 gradings' timed runs at once set up or waiting" in err, err
    assert len(capped) >= 3 and max(capped) == 1, capped  # one run over the lab each, or more
    for sid in ("ann", "ben", "cat"):
        files, clean = _files(tmp_path / "one", sid), _files(tmp_path / "free", sid)
        assert files["batch.json"].pop("knobs") == {batching.TIMED_SETUPS_ENV: "1"}
        assert "knobs" not in clean["batch.json"]
        assert files == clean, sid
        assert files["batch.json"]["total"] == files["batch.json"]["max"]


def _capped_grading(course, slots, sub=None) -> grading.Grading:
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=sub or course / "solutions" / "9.1-fake", seed=5,
                        one_process=True, timed_setup_slots=slots),
    )
    g.pipelined, g.gpu_lock = False, GpuLock()
    return g


def test_a_grading_without_a_timed_slot_times_after_its_untimed_runs(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Design note 87: the batch's one slot of timed set-ups is held elsewhere (another
    grading's judge) when the grading starts. Its early run over the lab does not wait for it
    (that wait, under the grading's shared hold, could deadlock with a drain): no early run is
    made, the untimed runs go on, and the run over the lab is made after them, once the slot
    is given back, its wait counted in ``gpu_wait``; the slot is free again at the end."""
    slots = threading.BoundedSemaphore(1)
    assert slots.acquire(blocking=False)
    g = _capped_grading(course, slots)
    early = []
    monkeypatch.setattr(grading, "_EarlyTimedRuns",
                        lambda *a, **k: early.append(1) or pytest.fail("an early run"))
    when: dict[str, float] = {}
    timed = g._timed_lab_runs

    def timed_then(gate):
        when["timed_start"] = time.monotonic()
        return timed(gate)

    monkeypatch.setattr(g, "_timed_lab_runs", timed_then)

    def give_back():  # once the untimed runs are done (or 20 s have passed: a failure)
        deadline = time.monotonic() + 20
        while "untimed" not in g.grade.timings and time.monotonic() < deadline:
            time.sleep(0.01)
        when["untimed_seen"] = "untimed" in g.grade.timings
        time.sleep(0.5)
        when["given_back"] = time.monotonic()
        slots.release()

    other = threading.Thread(target=give_back)
    other.start()
    rep = report.to_json(g.run())
    other.join()
    assert when["untimed_seen"] and not early, when
    assert when["given_back"] <= when["timed_start"], when
    assert rep["total"] == rep["max"] and rep["timings_s"]["gpu_wait"] >= 0.4, rep["timings_s"]
    assert slots.acquire(blocking=False)  # given back
    slots.release()


@pytest.mark.parametrize("case", ["early", "oom_once", "not_due"])
def test_a_timed_slot_is_given_back_on_every_path(course, fake_gpu, tmp_path, monkeypatch, case):
    """The one slot (design note 87) is taken by the early run over the lab and given back
    when its thread ends: after its timings; after its judge ran out of memory before its gate
    (note 84), when the later run takes it again; after a correctness hang made it not due
    (scale's timed run not made). The grading ends each time with the slot free."""
    if case == "oom_once":
        flag = tmp_path / "oom-once"
        flag.write_text("")
        monkeypatch.setenv("FAKE_JUDGE_OOM_ONCE", str(flag))
    sub = course / "solutions" / "9.1-fake"
    if case == "not_due":
        toml = course / "labs" / "9.1-fake" / "lab.toml"
        toml.write_text(toml.read_text().replace("run_timeout_s = 5\n", "run_timeout_s = 2\n"))
        sub = variant(course, tmp_path / "hang", *HANG_AT_33)
    slots = threading.BoundedSemaphore(1)
    g = _capped_grading(course, slots, sub)
    taken = []
    real_early = grading._EarlyTimedRuns

    def early(*args, **kwargs):
        taken.append(not slots.acquire(blocking=False) or slots.release())  # held: True
        return real_early(*args, **kwargs)

    monkeypatch.setattr(grading, "_EarlyTimedRuns", early)
    rep = report.to_json(g.run())
    assert taken == [True], taken  # the early run took the slot
    assert slots.acquire(blocking=False), case  # ... and it was given back
    slots.release()
    if case == "oom_once":
        assert rep["total"] == rep["max"] and rep["timings_s"]["early_oom"] >= 0
    elif case == "early":
        assert rep["total"] == rep["max"] and "early_oom" not in rep["timings_s"]
    else:
        perf = rep["exercises"][0]["parts"]["performance"]
        assert (perf["status"], perf["reason"]) == ("not_run", "a correctness case did not finish")

"""GRADER_DRAIN_STOP_AFTER=S (docs/design-notes.md, note 78) in a batch's kind of grading on
the fake lab (fakelab/README.md): an untimed run that keeps another grading's timed run
waiting S seconds in a drain is stopped, its grading's hold given up until the timed run has
had the GPU, and made again from its start, never stopped a second time; the report is the
one without the knob. Off by default."""

from __future__ import annotations

import threading
import time

import pytest

from grader import batch, gpu_lock, report
from grader import grade as grading
from grader.errors import GraderError
from grader.gpu_lock import GpuLock
from test_batch_timed_runs import _graded, _without_walls
from test_grade_pipeline import OFFSET_POINTS, _offset_performance
from test_pipeline_fake import course_with

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

SANITIZER_S = 2.5  # each fake compute-sanitizer run: far longer than S (8 times)
STOP_AFTER_S = 0.3


@pytest.fixture
def course(fake_root, tmp_path):
    return course_with(fake_root, tmp_path, OFFSET_POINTS, _offset_performance(True))


def _spans(path) -> list[tuple[str, str, float]]:
    """The fake compute-sanitizer's (tool, "start" | "end", seconds) lines, in order."""
    if not path.exists():
        return []
    rows = (line.split() for line in path.read_text().splitlines())
    return [(tool, what, float(s)) for tool, what, s in rows]


def _count(spans, what: str) -> int:
    return sum(1 for _, w, _ in spans if w == what)


def _wait_for(predicate, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def _stoppable_grading(course, monkeypatch, stop_after_s, side_by_side: bool = True):
    """A batch's kind of grading of the solution (seed 5, one process a case group, a cgroup
    per run assumed) with a lock of its own whose S is ``stop_after_s``: (grading, lock)."""
    monkeypatch.setattr(grading.cgroup, "in_force", lambda: True)  # each run in its own group
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=course / "solutions" / "9.1-fake", seed=5, one_process=True,
                        side_by_side=side_by_side),
    )
    lock = GpuLock(stop_after_s=stop_after_s)
    g.pipelined, g.gpu_lock = False, lock
    return g, lock


def _graded_with_a_timed_run_queued(course, tmp_path, monkeypatch, stop_after_s, name):
    """A batch's kind of grading of the solution (seed 5, a lock of its own, a cgroup per run
    assumed) whose two sanitizer tools (scale's memcheck and racecheck, side by side) each
    take SANITIZER_S; once both have started, another grading's timed run asks for the GPU
    alone ("first_alone": when it got it), and, where runs are stopped, a second one once the
    runs made again have started ("second_alone"): wall-clock instants, as the spans'.
    Returns the report less its walls, the fake sanitizer's spans, the instants and the
    lock."""
    spans = tmp_path / f"{name}-spans.log"
    monkeypatch.setenv("FAKE_SANITIZER_SPANS", str(spans))
    monkeypatch.setenv("FAKE_SANITIZER_SLEEP", str(SANITIZER_S))
    g, lock = _stoppable_grading(course, monkeypatch, stop_after_s)
    when: dict[str, float] = {}

    def other():
        _wait_for(lambda: _count(_spans(spans), "start") == 2, "both tools started")
        if g._early is not None:  # set up and idle at its gate, as it is by now in a class
            g._early.at_gate.wait(10)
        when["asked"] = time.time()
        with lock.exclusive():
            when["first_alone"] = time.time()
        if stop_after_s is None:
            return
        _wait_for(lambda: _count(_spans(spans), "start") == 4, "both tools made again")
        with lock.exclusive():
            when["second_alone"] = time.time()

    t = threading.Thread(target=other, daemon=True)
    t.start()
    rep = report.to_json(g.run())
    t.join(30)
    assert not t.is_alive()
    assert (lock._readers, lock._writer, lock._writers_waiting) == (0, False, 0)
    return _without_walls(rep), _spans(spans), when, lock


def test_a_long_sanitizer_run_is_stopped_for_the_drain_and_made_again_after_it(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Both tools' runs, in when the timed run asks, are stopped once its drain has waited S
    (not at their end): the timed run has the GPU before they start again. Made again, they
    run to their end though a second timed run's drain waits S for them too (never stopped
    twice), and the report is the one of a grading with no run stopped."""
    quiet, _ = _graded(course, course / "solutions" / "9.1-fake", tmp_path, monkeypatch, True,
                       "quiet")
    rep, spans, when, lock = _graded_with_a_timed_run_queued(
        course, tmp_path, monkeypatch, STOP_AFTER_S, "stopped"
    )
    starts = [s for _, what, s in spans if what == "start"]
    ends = [s for _, what, s in spans if what == "end"]
    # two runs started, stopped (no end), two started again and ended
    assert len(starts) == 4 and len(ends) == 2, spans
    assert sorted(tool for tool, what, _ in spans if what == "start") == [
        "memcheck", "memcheck", "racecheck", "racecheck"]
    assert max(starts[:2]) < when["first_alone"] < min(starts[2:])
    # the timed run waited about S, not the tools' SANITIZER_S
    assert when["first_alone"] - when["asked"] < SANITIZER_S - 1.0, when
    # the second timed run waited for the runs made again: they were not stopped
    assert min(ends) >= min(starts[2:]) + SANITIZER_S - 0.1
    assert when["second_alone"] > max(ends) - 0.1, (when, ends)
    assert lock.stops == 1  # the grading's hold given up once, for both tools
    assert rep == quiet


def test_a_series_of_runs_each_shorter_than_s_is_stopped_once_the_drain_has_waited_s(
    course, fake_gpu, tmp_path, monkeypatch
):
    """The tools one after another (side by side off), each run shorter than S: the drain
    begins during the first; the second, begun inside the drain, is stopped once the drain
    has waited S from its start (the grading's hold is older than the drain: design note 79),
    not given an S of its own, which would let the series keep the drain waiting to its end;
    the timed run has the GPU before it starts again, and the report is the quiet one."""
    sleep_s, stop_s = 0.8, 1.0
    quiet, _ = _graded(course, course / "solutions" / "9.1-fake", tmp_path, monkeypatch, True,
                       "quiet")
    spans = tmp_path / "series-spans.log"
    monkeypatch.setenv("FAKE_SANITIZER_SPANS", str(spans))
    monkeypatch.setenv("FAKE_SANITIZER_SLEEP", str(sleep_s))
    g, lock = _stoppable_grading(course, monkeypatch, stop_s, side_by_side=False)
    when: dict[str, float] = {}

    def other():
        _wait_for(lambda: _count(_spans(spans), "start") == 1, "the first tool started")
        if g._early is not None:
            g._early.at_gate.wait(10)
        time.sleep(sleep_s / 2)  # the first run ends inside the drain, well before S
        when["asked"] = time.time()
        with lock.exclusive():
            when["alone"] = time.time()

    t = threading.Thread(target=other, daemon=True)
    t.start()
    rep = _without_walls(report.to_json(g.run()))
    t.join(30)
    assert not t.is_alive()
    got = _spans(spans)
    starts = [s for _, what, s in got if what == "start"]
    # the first ran to its end; the second was stopped (no end) and made again
    assert [tool for tool, what, _ in got if what == "start"] == [
        "memcheck", "racecheck", "racecheck"], got
    assert _count(got, "end") == 2, got
    assert starts[1] < when["alone"] < starts[2], (when, got)
    assert lock.stops == 1
    assert (lock._readers, lock._writer, lock._writers_waiting) == (0, False, 0)
    assert rep == quiet


def test_no_run_is_stopped_by_default(course, fake_gpu, tmp_path, monkeypatch):
    """Without GRADER_DRAIN_STOP_AFTER the timed run waits for the tools' runs to end, as
    before; the same report."""
    quiet, _ = _graded(course, course / "solutions" / "9.1-fake", tmp_path, monkeypatch, True,
                       "quiet")
    rep, spans, when, lock = _graded_with_a_timed_run_queued(
        course, tmp_path, monkeypatch, None, "default"
    )
    assert _count(spans, "start") == 2 and _count(spans, "end") == 2, spans
    assert when["first_alone"] > max(s for _, what, s in spans if what == "end") - 0.1
    assert lock.stops == 0
    assert rep == quiet


def test_a_batch_reads_the_stop_and_refuses_a_wrong_one(monkeypatch):
    """batch.drain_stop_after: the knob's seconds, None unset, and a GraderError naming what
    to give (Batch.run and slurm.submit call it before anything is built)."""
    monkeypatch.delenv(gpu_lock.STOP_ENV, raising=False)
    assert batch.drain_stop_after() is None
    monkeypatch.setenv(gpu_lock.STOP_ENV, "7.5")
    assert batch.drain_stop_after() == 7.5
    monkeypatch.setenv(gpu_lock.STOP_ENV, "soon")
    with pytest.raises(GraderError, match="GRADER_DRAIN_STOP_AFTER='soon': give S"):
        batch.drain_stop_after()


def test_the_correctness_runs_over_the_lab_are_stopped_and_made_again(
    course, fake_gpu, tmp_path, monkeypatch
):
    """The same for the correctness runs over the lab (two judged runs side by side, one in
    a thread of the grading's own, which carries the stop): both are stopped once the drain
    has waited S, the timed run has the GPU, and the step is made again from its start (two
    more judges), with the report of a grading with no run stopped."""
    monkeypatch.setenv("FAKE_CASE_SETUP_MS", "800")  # each case: the two runs last 2.4-3.2 s
    quiet, _ = _graded(course, course / "solutions" / "9.1-fake", tmp_path, monkeypatch, True,
                       "quiet")
    starts = tmp_path / "starts.log"
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(starts))
    g, lock = _stoppable_grading(course, monkeypatch, STOP_AFTER_S)
    when: dict[str, float] = {}

    def untimed() -> int:  # the judges of untimed runs started so far ("EX N", N cases)
        lines = starts.read_text().splitlines() if starts.exists() else []
        return sum(1 for line in lines if "timed" not in line and line.split()[1] != "0")

    def other():
        _wait_for(lambda: untimed() == 2, "both runs over the lab started")
        if g._early is not None:
            g._early.at_gate.wait(10)
        when["asked"] = time.monotonic()
        with lock.exclusive():
            when["alone"] = time.monotonic()
            when["untimed_then"] = untimed()

    t = threading.Thread(target=other, daemon=True)
    t.start()
    rep = _without_walls(report.to_json(g.run()))
    t.join(30)
    assert when["untimed_then"] == 2  # nothing made again before the timed run
    assert when["alone"] - when["asked"] < 3.0, when
    assert untimed() == 4 and lock.stops == 1
    assert (lock._readers, lock._writer, lock._writers_waiting) == (0, False, 0)
    assert rep == quiet


def test_a_batch_says_when_no_run_can_be_stopped_here(monkeypatch):
    """Where runs have no cgroup of their own, no run is ever stopped (``_stop_check``, as
    ``_let_timed_runs_pass``): the batch's line about the knob says so, so that a measurement
    made there is not read as one with stops (review)."""
    monkeypatch.setattr(batch.cgroup, "in_force", lambda: True)
    line = batch._stop_line(4.0)
    assert "keeps a drain waiting 4 s is stopped and made again" in line
    assert "no run is stopped" not in line
    monkeypatch.setattr(batch.cgroup, "in_force", lambda: False)
    line = batch._stop_line(4.0)
    assert "keeps a drain waiting 4 s" in line and "no run is stopped" in line, line


def test_the_closing_line_says_how_many_stops_none_included_and_why_none_without_a_gpu():
    """batch._stops_line, printed whenever GRADER_DRAIN_STOP_AFTER is set (an instructor's
    trial: a stop announced at the start and never mentioned again read as if stops had
    happened on a machine without a GPU)."""
    on_gpu = [{"gpu": "NVIDIA H100 80GB HBM3"}, {"gpu": None}]
    assert "no student was graded on a GPU here" in batch._stops_line(0, [{"gpu": None}])
    assert batch._stops_line(0, on_gpu).startswith("batch: no untimed run was stopped for a")
    line = batch._stops_line(3, on_gpu)
    assert line.startswith("batch: 3 times a grading's untimed runs were stopped"), line
    assert "result is never read" in line

"""A single grade's pipeline (GRADER_ONE_PROCESS=1, grade.Grading._pipeline,
docs/design-notes.md note 26) on the fake lab (fakelab/README.md): the exercises side by
side, each one's sanitizer tools beside its performance run; the same report as the steps
one after the other, and no measuring part beside any other run on the GPU."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest

from grader import grade as grading
from grader import report
from test_one_process import HANG_AT_33, RACE
from test_pipeline_fake import course_with, variant

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

OFFSET_POINTS = "points = { correctness = 3 }\n"


def _offset_performance(timed: bool) -> str:
    """lab.toml's offset exercise with a performance run: timed (two timed exercises in the
    lab), or untimed, scored on a metric of its own (lab 3.1b's kind: alone on the GPU from
    its start). The solution's offset reports speed 1: full points when timed."""
    metric = 'metric = "ratio"' if timed else 'timed = false\nmetric = "hops"'
    return (
        "points = { correctness = 3, performance = 2 }\n\n[exercise.performance]\n"
        f"size = [1000]\n{metric}\nzero = 0.5\nfull = 1.0\nreps = 20\n"
    )


def _graded(course, sub, pipelined: bool) -> tuple[dict, str]:
    """The JSON report, less its timings (and each performance run's wall time, the grader's
    clock), and the text report of one grade with one process pair per exercise: the
    pipeline, or each step one after the other over the exercises."""
    options = grading.Options(submission=sub, seed=5, one_process=True)
    g = grading.Grading(course / "labs" / "9.1-fake", options)
    assert g.pipelined and g.gpu_lock is not None  # a single grade's own lock
    if not pipelined:
        g.pipelined, g.gpu_lock = False, None  # the single grade before the pipeline
    graded = g.run()
    rep = report.to_json(graded)
    assert set(rep.pop("timings_s")) == {
        "build", "gpu_wait", "untimed", "correctness", "sanitizer", "timed"
    }
    for ex in rep["exercises"]:
        for row in ex["parts"]["performance"]["details"]:
            assert row.pop("wall_s") >= 0
    return rep, report.text(graded)


@pytest.mark.parametrize(
    "name, change",
    [
        ("solution", None),
        ("race", RACE),  # racecheck case by case, and its hazard report
        ("hang", HANG_AT_33),  # no sanitizer or performance run after it
        # a crash and a failed launch: test_one_process.py grades them pipelined (a single
        # grade with one process per exercise) against a pair per case, one step after the
        # other, and compares the verdicts
    ],
)
def test_the_same_report_as_one_step_after_the_other(
    fake_root, fake_gpu, tmp_path, name, change
):
    course = course_with(fake_root, tmp_path, OFFSET_POINTS, _offset_performance(True))
    if name == "hang":  # the cases' limit 2 s (5 by default): a shorter wait, twice
        toml = course / "labs" / "9.1-fake" / "lab.toml"
        limit = "run_timeout_s = 5\n"
        assert toml.read_text().count(limit) == 1
        toml.write_text(toml.read_text().replace(limit, limit + "case_timeout_s = 2\n"))
    sub = (
        course / "solutions" / "9.1-fake"
        if change is None
        else variant(course, tmp_path / name, *change)
    )
    piped, piped_text = _graded(course, sub, True)
    one_by_one, text = _graded(course, sub, False)
    assert piped == one_by_one
    assert piped_text == text
    if name == "solution":
        assert piped["total"] == piped["max"]


def test_a_tool_that_cannot_run_makes_the_part_not_run_either_way(
    fake_root, fake_gpu, tmp_path, monkeypatch
):
    """The first tool (in the lab's order) whose run reports ``not_run`` decides the part,
    as when the tools ran one after the other; the other tool's rows are dropped."""
    real_run, real_all_clean = grading.sanitizer.run, grading.sanitizer.all_clean

    def run(tool, name, *args, **kwargs):
        r = real_run(tool, name, *args, **kwargs)
        if name == "racecheck":
            r.verdict, r.report = "not_run", ["compute-sanitizer could not run: FAKE"]
        return r

    monkeypatch.setattr(grading.sanitizer, "run", run)
    monkeypatch.setattr(
        grading.sanitizer,
        "all_clean",
        lambda tool, name, *a, **k: (False, "") if name == "racecheck" else real_all_clean(
            tool, name, *a, **k
        ),
    )
    sub = fake_root / "solutions" / "9.1-fake"
    piped, _ = _graded(fake_root, sub, True)
    one_by_one, _ = _graded(fake_root, sub, False)
    assert piped == one_by_one
    san = piped["exercises"][0]["parts"]["sanitizer"]
    assert san["status"] == "not_run" and san["details"] == []
    assert san["reason"] == "compute-sanitizer could not run: FAKE"


class _Runs:
    """When each run on the (fake) GPU started and ended: (kind, exercise, start, end) on the
    monotonic clock. Kinds: "correctness" and "sanitizer" (untimed runs), "setup" (a timed
    run's set-up: from its start until it asks for its gate), "measure" (its measuring part,
    inside the gate) and "alone" (an untimed performance run, the whole of it)."""

    def __init__(self, monkeypatch):
        self.spans: list[tuple[str, str, float, float]] = []
        self._guard = threading.Lock()
        # Set once scale's two sanitizer tools are both running (each holds the lock shared).
        # Until then no run asks for the GPU alone: offset's correctness and every gate wait
        # for it. Otherwise a writer asking first (the lock prefers writers) could hold the
        # second tool back, and whether the tools overlap would be a race of the threads.
        self.scale_tools = threading.Event()
        self._tools_seen = 0
        h, s = grading.harness, grading.sanitizer
        self._real_run_judged = h.run_judged
        monkeypatch.setattr(h, "run_judged", self.run_judged)
        monkeypatch.setattr(h, "run_judged_cases", self.untimed(h.run_judged_cases, 2))
        monkeypatch.setattr(s, "all_clean", self.untimed(s.all_clean, 3, "sanitizer"))
        monkeypatch.setattr(s, "run", self.untimed(s.run, 3, "sanitizer"))

    def note(self, kind: str, exercise: str, start: float) -> None:
        with self._guard:
            self.spans.append((kind, exercise, start, time.monotonic()))

    @contextlib.contextmanager
    def span(self, kind: str, exercise: str, hold: float):
        start = time.monotonic()
        try:
            time.sleep(hold)  # long enough for the other threads to arrive meanwhile
            yield
        finally:
            self.note(kind, exercise, start)

    def untimed(self, real, exercise_at: int, kind: str = "correctness"):
        def call(*args, **kwargs):
            exercise = args[exercise_at]
            start = time.monotonic()
            if kind == "sanitizer" and exercise == "scale":
                with self._guard:
                    self._tools_seen += 1
                    if self._tools_seen == 2:
                        self.scale_tools.set()
                self.wait_for_tools()
            try:
                time.sleep(0.2)  # long enough for the other threads to arrive meanwhile
                if kind == "correctness" and exercise == "offset":
                    self.wait_for_tools()
                return real(*args, **kwargs)
            finally:
                self.note(kind, exercise, start)

        return call

    def wait_for_tools(self) -> None:
        assert self.scale_tools.wait(10), "scale's sanitizer tools did not run side by side"

    def run_judged(self, judge, binary, exercise, *args, **kwargs):
        real = self._real_run_judged
        if kwargs.get("time_reps") is None:
            # offset's untimed performance run (its correctness runs go together, through
            # run_judged_cases): alone on the GPU from its start
            with self.span("alone", exercise, 0.05):
                return real(judge, binary, exercise, *args, **kwargs)
        gate = kwargs["gate"]
        assert gate is not None  # a pipelined grade gates every timed run
        start = time.monotonic()

        @contextlib.contextmanager
        def measuring():
            self.wait_for_tools()
            self.note("setup", exercise, start)
            with gate(), self.span("measure", exercise, 0.05):
                yield

        kwargs["gate"] = measuring
        return real(judge, binary, exercise, *args, **kwargs)

    def of(self, kind: str, exercise: str | None = None) -> list[tuple[str, str, float, float]]:
        return [s for s in self.spans if s[0] == kind and exercise in (None, s[1])]


def _overlap(a, b) -> bool:
    return a[2] < b[3] and b[2] < a[3]


@pytest.mark.parametrize("timed", [True, False], ids=["two-timed", "untimed-performance"])
def test_each_measuring_part_is_alone_and_the_rest_overlaps(
    fake_root, fake_gpu, tmp_path, monkeypatch, timed
):
    course = course_with(fake_root, tmp_path, OFFSET_POINTS, _offset_performance(timed))
    runs = _Runs(monkeypatch)
    rep, _ = _graded(course, course / "solutions" / "9.1-fake", True)
    assert rep["exercises"][0]["parts"]["performance"]["status"] == "passed"
    alone = runs.of("measure") + runs.of("alone")
    assert sorted(s[:2] for s in alone) == [
        ("measure", "offset") if timed else ("alone", "offset"),
        ("measure", "scale"),
    ]
    # a measuring part overlaps no other run: no untimed run, no set-up, no other measuring
    for a in alone:
        assert [s for s in runs.spans if s is not a and _overlap(a, s)] == [], a
    # what the pipeline is for: scale's two sanitizer tools side by side (_Runs makes every
    # request for the GPU alone wait until both have started), and its timed run's set-up
    # beside them
    tools = runs.of("sanitizer", "scale")
    assert len(tools) == 2 and _overlap(*tools), runs.spans
    setup = runs.of("setup", "scale")
    assert len(setup) == 1 and any(_overlap(setup[0], s) for s in tools), runs.spans

"""A crash series' next fresh process started beside the one before it
(harness.run_judged_lab_cases, ``_crash_series_round``, design note 85) on the fake lab
(fakelab/README.md): the CaseRuns of the order of one process at a time
(``SPECULATE_CRASH_SERIES`` off), in fewer rounds; the second process stopped and unread
where that order would not have started it; ``between`` never with a run in flight; a stop
of the thread's own (a batch's drain) ends both."""

from __future__ import annotations

import threading
import time

import pytest

from grader import grade as grading
from grader import harness
from grader import report
from grader import run as runner
from grader.errors import GraderError
from test_pipeline_fake import course_with, variant

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

SCALE = 'extern "C" int scale(const float *in, float *out, int rows, int cols, double *speed) {'


def _scale_does(body: str) -> tuple[str, str]:
    """A change of the fake solution whose scale launcher does ``body`` first (C, with
    ``served``: how many scale cases this process had before this one)."""
    return SCALE, (
        "#include <unistd.h>\nstatic int served;\n" + SCALE
        + "\n    const int first = served++ == 0;\n    (void)first;\n    " + body
    )


CRASH = "*(volatile int *)0 = 1;"
CRASH_ALL = _scale_does(CRASH)  # every scale case: a crash series (h16's)
CRASH_FIRST_TWO = _scale_does(f"if (rows == 1 || rows == 32) {{ {CRASH} }}")
# case 1 crashes; the process over the rest from 33 x 65 on (only the speculative one starts
# there) waits 3 s first: it is still running when the first of its round has passed all
CRASH_THEN_SLOW_SECOND = _scale_does(
    f"if (rows == 1) {{ {CRASH} }}\n    if (first && rows == 33) {{ sleep(3); }}"
)
CRASH_THEN_HANG = _scale_does(
    f"if (rows == 1) {{ {CRASH} }}\n    volatile int spin = 1;\n"
    "    while (rows == 32 && spin) { }"
)
LIMITS = "run_timeout_s = 5\n"


class _Runs:
    """``harness.lab_cases_once`` recorded (its calls' first case, number of cases, start,
    end and how each ended) with the number in flight, and ``between`` calls with the number
    in flight at each."""

    def __init__(self, monkeypatch, real):
        self.lock = threading.Lock()
        self.in_flight = 0
        self.most = 0
        self.calls: list[dict] = []
        self.betweens: list[int] = []
        self.both = threading.Event()  # set once two were in flight
        monkeypatch.setattr(harness, "lab_cases_once", self.wrap(real))

    def wrap(self, real):
        def once(judge, binary, cases, *args, **kwargs):
            row = {"first": cases[0], "n": len(cases), "start": time.monotonic()}
            with self.lock:
                self.in_flight += 1
                self.most = max(self.most, self.in_flight)
                if self.in_flight == 2:
                    self.both.set()
            try:
                got = real(judge, binary, cases, *args, **kwargs)
                row["how"] = "ended"
                return got
            except runner.Stopped:
                row["how"] = "stopped"
                raise
            finally:
                row["end"] = time.monotonic()
                with self.lock:
                    self.in_flight -= 1
                    self.calls.append(row)

        return once

    def between(self) -> None:
        with self.lock:
            self.betweens.append(self.in_flight)


def _comparable(results: dict) -> dict:
    """Every CaseRun less what differs between any two runs (its wall time, peak memory, the
    socket's descriptor number in argv)."""
    return {
        ex: [
            (run.status, run.doc, run.problem, run.launch_limit_s, run.outcome.kind,
             run.outcome.code, run.outcome.signal, run.outcome.stdout, run.outcome.stderr)
            for run in runs
        ]
        for ex, runs in results.items()
    }


def _both_orders(course, sub, tmp_path, monkeypatch, extra=None) -> dict:
    """Grades ``sub`` as a batch's grading does, its correctness cases in one run over the
    lab (side by side off); that run is made in the order of one process at a time
    (``SPECULATE_CRASH_SERIES`` off, key False) and with speculation (True), each with its
    own ``_Runs``, judge start log (FAKE_JUDGE_LOG, [exercise, cases]), wall time and
    results. ``extra(call, runs)``: called with speculation on, before the rest, where
    ``call()`` makes the run over the lab."""
    seen: dict = {}
    real_lab_runs = harness.run_judged_lab_cases
    real_once = harness.lab_cases_once

    def both(judge, binary, cases, timeout_s, version, box=None, between=None, launch_s=None):
        for speculate in (False, True):
            monkeypatch.setattr(harness, "SPECULATE_CRASH_SERIES", speculate)
            runs = _Runs(monkeypatch, real_once)
            starts = tmp_path / f"starts-{speculate}.log"
            monkeypatch.setenv("FAKE_JUDGE_LOG", str(starts))

            def call():
                return real_lab_runs(
                    judge, binary, cases, timeout_s, version, box, runs.between, launch_s
                )

            if speculate and extra is not None:
                extra(call, runs)
                runs = _Runs(monkeypatch, real_once)
                starts.unlink(missing_ok=True)
            start = time.monotonic()
            results = call()
            seen[speculate] = {
                # (a copy: the grading takes each exercise's list from what it is given)
                "results": {ex: list(ex_runs) for ex, ex_runs in results.items()},
                "runs": runs, "wall": time.monotonic() - start,
                "starts": [  # untimed runs of several cases (--case ...)
                    row for row in map(str.split, starts.read_text().splitlines())
                    if len(row) == 2 and row[1] != "0"
                ],
            }
        return results

    monkeypatch.setattr(harness, "run_judged_lab_cases", both)
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=sub, seed=5, one_process=True, side_by_side=False),
    )
    g.pipelined, g.gpu_lock = False, None  # a batch's steps, without the batch's lock
    result = g.run()
    assert set(seen) == {False, True}, str(report.to_json(result))[:3000]
    for speculate in (False, True):  # never a pass with a run of its own in flight
        assert seen[speculate]["runs"].betweens and not any(seen[speculate]["runs"].betweens)
    assert _comparable(seen[True]["results"]) == _comparable(seen[False]["results"])
    return seen


@pytest.fixture
def course(fake_root, tmp_path):
    """The fake course whose cases' launches have a limit of 1 s (a hang's)."""
    return course_with(fake_root, tmp_path, LIMITS, LIMITS + "launch_timeout_s = 1\n")


@pytest.fixture
def plain_course(fake_root, tmp_path):
    """The fake course whose submissions may call sleep (a case's limit: 5 s, its launch's
    none of its own)."""
    return course_with(fake_root, tmp_path, "allow_calls = []", 'allow_calls = ["sleep"]')


def _sub(course, tmp_path, change):
    return variant(course, tmp_path / "v", *change)


def test_a_crash_series_runs_two_processes_a_round_with_the_same_results(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Every scale case crashes (h16's series): the same processes over the same cases as
    one at a time (scale 7, 6, 5, 4, then offset's 3), the same CaseRuns, but after the
    first process two at a time: 3 rounds (2 passes) instead of 5 (4)."""
    seen = _both_orders(course, _sub(course, tmp_path, CRASH_ALL), tmp_path, monkeypatch)
    one, two = seen[False], seen[True]
    statuses = {ex: [run.status for run in runs] for ex, runs in two["results"].items()}
    assert statuses == {"scale": ["crash"] * 4, "offset": ["ok"] * 3}, statuses
    expected = [["scale", "7"], ["scale", "6"], ["scale", "5"], ["scale", "4"], ["offset", "3"]]
    assert one["starts"] == expected
    assert sorted(two["starts"]) == sorted(expected)  # the same processes, none more
    assert len(one["runs"].betweens) == 4 and one["runs"].most == 1
    assert len(two["runs"].betweens) == 2 and two["runs"].most == 2


def test_between_is_never_called_with_a_run_in_flight(course, fake_gpu, tmp_path, monkeypatch):
    """The rounds of two processes overlap (two in flight at once), yet every ``between``
    (a batch's pass: the timed runs have the GPU) comes once both of a round have ended."""
    monkeypatch.setenv("FAKE_CASE_SETUP_MS", "200")  # each crash a moment later
    seen = _both_orders(course, _sub(course, tmp_path, CRASH_ALL), tmp_path, monkeypatch)
    runs = seen[True]["runs"]
    assert runs.most == 2 and runs.betweens == [0, 0]
    by_n = {row["n"]: row for row in runs.calls}
    assert sorted(by_n) == [3, 4, 5, 6, 7]

    def overlap(a, b):  # each started before the other ended
        return by_n[a]["start"] < by_n[b]["end"] and by_n[b]["start"] < by_n[a]["end"]

    # the first process alone; then each round's two side by side, one round after the other
    assert overlap(6, 5) and overlap(4, 3), runs.calls
    assert by_n[7]["end"] <= min(by_n[6]["start"], by_n[5]["start"])
    assert max(by_n[6]["end"], by_n[5]["end"]) <= min(by_n[4]["start"], by_n[3]["start"])


def test_a_series_of_two_crashes_uses_the_second_process(course, fake_gpu, tmp_path, monkeypatch):
    """Cases 1 and 32 crash, the rest pass: the second round's second process (from 33 x 65
    on) is the one the first's crash at 32 x 32 calls for: two rounds instead of three."""
    seen = _both_orders(course, _sub(course, tmp_path, CRASH_FIRST_TWO), tmp_path, monkeypatch)
    statuses = [run.status for run in seen[True]["results"]["scale"]]
    assert statuses == ["crash", "crash", "ok", "ok"]
    assert seen[False]["starts"] == [["scale", "7"], ["scale", "6"], ["scale", "5"]]
    assert sorted(seen[True]["starts"]) == sorted(seen[False]["starts"])
    assert len(seen[False]["runs"].betweens) == 2 and len(seen[True]["runs"].betweens) == 1


def test_the_second_process_is_stopped_when_the_first_goes_past_its_first_case(
    plain_course, fake_gpu, tmp_path, monkeypatch
):
    """Case 1 crashes, the rest pass: the next round's first process passes all its cases, so
    its second (from 33 x 65 on, 3 s into its first case) is stopped at once, not waited
    for, and nothing of it counts: the results of one process at a time."""
    sub = _sub(plain_course, tmp_path, CRASH_THEN_SLOW_SECOND)
    seen = _both_orders(plain_course, sub, tmp_path, monkeypatch)
    one, two = seen[False], seen[True]
    assert [run.status for run in two["results"]["scale"]] == ["crash", "ok", "ok", "ok"]
    assert one["starts"] == [["scale", "7"], ["scale", "6"]]
    assert sorted(two["starts"]) == [["scale", "5"], ["scale", "6"], ["scale", "7"]]
    (second,) = [row for row in two["runs"].calls if row["n"] == 5]
    assert second["how"] == "stopped"
    assert second["end"] - second["start"] < 2.5, two["runs"].calls  # not its 3 s
    assert two["wall"] < 2.5 and len(two["runs"].betweens) == 1


def test_a_hang_after_a_crash_drops_the_second_process(course, fake_gpu, tmp_path, monkeypatch):
    """Case 1 crashes, 32 x 32 hangs (its launch limit, 1 s) as the next process's first
    case: scale's later cases never count (the second process, from 33 x 65 on, is not
    used), offset's run in a fresh process of its own (a hang starts no series)."""
    seen = _both_orders(course, _sub(course, tmp_path, CRASH_THEN_HANG), tmp_path, monkeypatch)
    one, two = seen[False], seen[True]
    statuses = {ex: [run.status for run in runs] for ex, runs in two["results"].items()}
    assert statuses == {"scale": ["crash", "timeout"], "offset": ["ok"] * 3}, statuses
    assert one["starts"] == [["scale", "7"], ["scale", "6"], ["offset", "3"]]
    assert sorted(two["starts"]) == sorted(one["starts"] + [["scale", "5"]])
    assert two["starts"][-1] == ["offset", "3"]  # alone, after the round
    assert [row["n"] for row in two["runs"].calls].count(3) == 1


def test_a_stop_of_the_threads_own_ends_both_and_is_raised(
    course, fake_gpu, tmp_path, monkeypatch
):
    """A batch's drain stop (the thread's stop check, ``runner.stoppable``) while a round's
    two processes run: both are stopped, Stopped is raised once neither is in flight (the
    caller makes the call again, ``Grading._untimed``), and the call made again gives the
    results of one process at a time."""
    monkeypatch.setenv("FAKE_CASE_SETUP_MS", "500")  # each crash half a second in
    stopped: dict = {}

    def extra(call, runs):
        with runner.stoppable(lambda start: runs.both.is_set()):
            with pytest.raises(runner.Stopped):
                call()
        stopped["in_flight"] = runs.in_flight
        stopped["calls"] = list(runs.calls)

    _both_orders(course, _sub(course, tmp_path, CRASH_ALL), tmp_path, monkeypatch, extra)
    assert stopped["in_flight"] == 0
    assert [(row["n"], row["how"]) for row in stopped["calls"]][0] == (7, "ended")
    assert sorted((row["n"], row["how"]) for row in stopped["calls"][1:]) == [
        (5, "stopped"), (6, "stopped")]


def _scripted(monkeypatch, fail_second: type[BaseException] | None, first_ran: int):
    """``lab_cases_once`` without processes: a lab of 4 cases of one exercise whose first
    process crashed at its first case; the next round's first finishes ``first_ran`` cases
    (crashing at the last unless all), its second raises ``fail_second``."""

    def once(judge, binary, cases, *args, **kwargs):
        crash = harness.CaseRun([], runner.Outcome("signaled", signal="SIGSEGV"), None, "x")
        ok = harness.CaseRun([], runner.Outcome("exited", 0), {"status": "ok"}, None)
        if len(cases) == 4:
            return {"ex": [crash]}, cases[1:]
        if len(cases) == 3:
            time.sleep(0.2)  # the second has ended by then
            runs = [ok] * (first_ran - 1) + [crash if first_ran < 3 else ok]
            return {"ex": runs}, cases[first_ran:]
        if fail_second is not None:
            raise fail_second("the second's own")
        return {"ex": [ok] * len(cases)}, []

    monkeypatch.setattr(harness, "lab_cases_once", once)


def test_a_second_process_that_does_not_count_raises_nothing(monkeypatch):
    """The second's GraderError where the first went past its first case: that order never
    made the second's run, so its error is not the call's."""
    _scripted(monkeypatch, GraderError, first_ran=3)
    cases = [("ex", (k,), k) for k in range(4)]
    got = harness.run_judged_lab_cases("j", "b", cases, 1, 1)
    assert [run.status for run in got["ex"]] == ["crash", "ok", "ok", "ok"]


def test_the_error_of_a_second_process_that_counts_is_raised(monkeypatch):
    _scripted(monkeypatch, GraderError, first_ran=1)
    cases = [("ex", (k,), k) for k in range(4)]
    with pytest.raises(GraderError, match="the second's own"):
        harness.run_judged_lab_cases("j", "b", cases, 1, 1)


def test_a_stop_of_the_threads_own_reaches_a_second_process_that_counts(monkeypatch):
    """The thread's stop check (a batch's drain) goes with the second process: once it says
    stop, the second is stopped though the first's crash made it the one that counts, and
    Stopped is the call's (made again by ``Grading._untimed``), not a wait for its end."""
    first_done = threading.Event()

    def once(judge, binary, cases, *args, **kwargs):
        crash = harness.CaseRun([], runner.Outcome("signaled", signal="SIGSEGV"), None, "x")
        if len(cases) > 2:
            if len(cases) == 3:
                first_done.set()
            return {"ex": [crash]}, cases[1:]
        check = runner.stop_check()  # as runner.run asks it at each poll
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if check is not None and check(0.0):
                raise runner.Stopped("stopped")
            time.sleep(0.01)
        return {"ex": [crash] * len(cases)}, []

    monkeypatch.setattr(harness, "lab_cases_once", once)
    cases = [("ex", (k,), k) for k in range(4)]
    start = time.monotonic()
    with runner.stoppable(lambda started: first_done.is_set()):
        with pytest.raises(runner.Stopped):
            harness.run_judged_lab_cases("j", "b", cases, 1, 1)
    assert time.monotonic() - start < 2.5

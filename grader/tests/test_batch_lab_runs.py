"""A batch's grading runs over the lab, not an exercise at a time (grade.Grading,
``_correctness_lab_runs`` and ``_sanitizer_lab_runs``, issue 15), on the fake lab
(fakelab/README.md), whose offset exercise gets a sanitizer section here: every exercise's
correctness cases with one judge and one student's process, each sanitizer tool in one
process when the submission is clean, and the same report as the exercises' own runs
whatever the submission does (a crash, a hang, a failed launch, a race)."""

from __future__ import annotations

import re
import threading
import time
import types
from pathlib import Path

import pytest

from grader import grade as grading
from grader import harness
from grader import report
from grader.errors import GraderError
from helpers import REPO
from test_one_process import CRASH_AT_33, HANG_AT_33, LAUNCH_ERROR, RACE
from test_pipeline_fake import course_with, variant

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

OFFSET_POINTS = "points = { correctness = 3 }\n"
OFFSET_SANITIZED = (
    "points = { correctness = 3, sanitizer = 2 }\n\n[exercise.sanitizer]\n"
    'tools = ["memcheck", "racecheck"]\ncases = [[100], [7]]\n'
)


def _graded(course, sub, tmp_path, monkeypatch, lab_runs: bool, name: str, **options):
    """The JSON report of a batch's kind of grading (``Grading._runtime``, each step over
    the exercises in turn; seed 5 unless ``options`` say otherwise), with the runs over the
    lab or without them, the fake
    compute-sanitizer's runs ([tool, number of --case], one per run) and the judge's
    untimed starts ([exercise, number of --case], one per start)."""
    log = tmp_path / f"{name}-sanitizer.log"
    starts = tmp_path / f"{name}-starts.log"
    monkeypatch.setenv("FAKE_SANITIZER_LOG", str(log))
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(starts))
    options = {"seed": 5, **options}
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=sub, one_process=True, **options),
    )
    g.pipelined, g.gpu_lock = False, None  # a batch's steps, without the batch's lock
    if not lab_runs:
        monkeypatch.setattr(g, "_correctness_lab_runs", lambda: None)
        monkeypatch.setattr(g, "_sanitizer_lab_runs", lambda: None)
    rep = report.to_json(g.run())
    rep.pop("timings_s")
    for ex in rep["exercises"]:
        for row in ex["parts"]["performance"]["details"]:
            row.pop("wall_s")

    def lines(path):
        return [line.split() for line in path.read_text().splitlines()] if path.exists() else []

    judged = [line for line in lines(starts) if line[1] != "0"]  # untimed: --case
    return rep, lines(log), judged


@pytest.fixture
def course(fake_root, tmp_path):
    return course_with(fake_root, tmp_path, OFFSET_POINTS, OFFSET_SANITIZED)


def test_one_process_per_tool_when_the_lab_is_clean(course, fake_gpu, tmp_path, monkeypatch):
    sub = course / "solutions" / "9.1-fake"
    rep, runs, _ = _graded(course, sub, tmp_path, monkeypatch, True, "together")
    alone, alone_runs, _ = _graded(course, sub, tmp_path, monkeypatch, False, "apart")
    assert rep["total"] == rep["max"]
    # scale's one sanitizer case and offset's two, each tool in one process
    assert sorted(runs) == [["memcheck", "3"], ["racecheck", "3"]]
    # without: a process per exercise and tool
    assert sorted(alone_runs) == sorted(
        [["memcheck", "1"], ["racecheck", "1"], ["memcheck", "2"], ["racecheck", "2"]]
    )
    assert rep == alone  # every row, seed and summary line the same
    for ex in rep["exercises"]:
        details = ex["parts"]["sanitizer"]["details"]
        assert details and all(d["verdict"] == "clean" for d in details)


def _spans(path) -> list[tuple[str, float, float]]:
    """The fake compute-sanitizer's runs as (tool, start, end), in the order they started
    (``FAKE_SANITIZER_SPANS``; each tool's runs in turn, as a tool runs them)."""
    starts: dict[str, list[float]] = {}
    runs = []
    for tool, what, when in (line.split() for line in path.read_text().splitlines()):
        if what == "start":
            starts.setdefault(tool, []).append(float(when))
        else:
            runs.append((tool, starts[tool].pop(0), float(when)))
    return sorted(runs, key=lambda run: run[1])


def _overlap(a, b) -> bool:
    return a[1] < b[2] and b[1] < a[2]


@pytest.mark.parametrize(
    "name, change, lab_runs", [("lab", None, True), ("own", None, False), ("race", RACE, True)]
)
def test_the_tools_run_side_by_side(
    course, fake_gpu, tmp_path, monkeypatch, name, change, lab_runs
):
    """Design note 59: a batch's grading runs its sanitizer tools side by side, over the lab
    and in an exercise's own runs, so its untimed runs last as long as its slowest tool; the
    report is the one of the tools one after the other."""
    sub = course / "solutions" / "9.1-fake"
    if change is not None:
        sub = variant(course, tmp_path / name, *change)
    spans = tmp_path / f"{name}-spans.log"
    monkeypatch.setenv("FAKE_SANITIZER_SPANS", str(spans))
    rep, _, _ = _graded(course, sub, tmp_path, monkeypatch, lab_runs, name)
    runs = _spans(spans)
    if change is None:  # memcheck and racecheck together: over the lab, or each exercise's
        assert len(runs) == (2 if lab_runs else 4)
        for first, second in zip(runs[::2], runs[1::2]):
            assert {first[0], second[0]} == {"memcheck", "racecheck"} and _overlap(first, second)
    else:  # both over the lab, then racecheck in each exercise's own runs (memcheck clean)
        assert {runs[0][0], runs[1][0]} == {"memcheck", "racecheck"}
        assert _overlap(runs[0], runs[1])
        assert {tool for tool, _, _ in runs[2:]} == {"racecheck"} and rep["total"] < rep["max"]
    monkeypatch.delenv("FAKE_SANITIZER_SPANS")
    monkeypatch.setattr(grading, "_side_by_side", grading._one_after_another)
    apart, _, _ = _graded(course, sub, tmp_path, monkeypatch, lab_runs, f"{name}-apart")
    assert rep == apart


def test_side_by_side_off_runs_the_tools_in_turn_and_the_cases_in_one_run(
    course, fake_gpu, tmp_path, monkeypatch
):
    """``Options.side_by_side`` off (GRADER_SIDE_BY_SIDE=0, design note 72): the sanitizer
    tools one after the other, no two runs at once, and the lab's correctness cases in one
    judged run (the fake lab's two exercises in two side by side otherwise); the same report
    as with the runs side by side."""
    sub = course / "solutions" / "9.1-fake"
    spans = tmp_path / "apart-spans.log"
    monkeypatch.setenv("FAKE_SANITIZER_SPANS", str(spans))
    apart, _, judged = _graded(course, sub, tmp_path, monkeypatch, True, "apart",
                               side_by_side=False)
    runs = _spans(spans)
    assert [tool for tool, _, _ in runs] == ["memcheck", "racecheck"]
    assert not _overlap(runs[0], runs[1]), runs
    n = {ex["name"]: len(ex["parts"]["correctness"]["details"]) for ex in apart["exercises"]}
    assert judged == [["scale", str(n["scale"] + n["offset"])]]
    monkeypatch.delenv("FAKE_SANITIZER_SPANS")
    together, _, together_judged = _graded(course, sub, tmp_path, monkeypatch, True, "together")
    assert len(together_judged) == 2 and apart == together and apart["total"] == apart["max"]
    # an exercise's own runs (the lab's left out): each exercise's two tools in turn too
    monkeypatch.setenv("FAKE_SANITIZER_SPANS", str(tmp_path / "own-spans.log"))
    own, _, _ = _graded(course, sub, tmp_path, monkeypatch, False, "own", side_by_side=False)
    runs = _spans(tmp_path / "own-spans.log")
    assert len(runs) == 4 and own == apart
    assert not any(_overlap(a, b) for a, b in zip(runs, runs[1:])), runs
    monkeypatch.delenv("FAKE_SANITIZER_SPANS")
    monkeypatch.setenv("GRADER_SIDE_BY_SIDE", "0")
    assert not grading.Options(submission=sub).side_by_side
    monkeypatch.setenv("GRADER_SIDE_BY_SIDE", "1")
    assert grading.Options(submission=sub).side_by_side


def test_side_by_side_the_part_reads_as_the_tools_one_after_the_other(
    course, fake_gpu, tmp_path, monkeypatch
):
    """A review's finding (note 59): memcheck cannot run (an internal sanitizer error) while
    racecheck's run, beside it, stops with a grader error (a run document of another schema):
    one after the other racecheck would never have run, so the part is not run with
    memcheck's reason and the grading goes on; racecheck's error alone stops it."""
    def tool_run(fail_first):
        def run(self, tool, ex, name):
            if name == "memcheck" and fail_first:
                return grading._ToolRun(not_run="compute-sanitizer could not run: Internal Error")
            if name == "racecheck":
                raise GraderError("the lab binary wrote run document schema 0, not 1")
            return grading._ToolRun()

        return run

    sub = course / "solutions" / "9.1-fake"
    monkeypatch.setattr(grading.Grading, "_sanitizer_run", tool_run(True))
    rep, _, _ = _graded(course, sub, tmp_path, monkeypatch, False, "not-run")
    for ex in rep["exercises"]:
        part = ex["parts"]["sanitizer"]
        assert part["status"] == "not_run" and "Internal Error" in part["reason"], part
    monkeypatch.setattr(grading.Grading, "_sanitizer_run", tool_run(False))
    with pytest.raises(GraderError, match="schema 0"):
        _graded(course, sub, tmp_path, monkeypatch, False, "error")


def test_a_finding_goes_back_to_the_exercises_own_runs(course, fake_gpu, tmp_path, monkeypatch):
    """scale's race makes racecheck's lab-wide run not clean: each exercise's racecheck then
    runs as before (scale's case by case, with its hazard report), offset's clean."""
    sub = variant(course, tmp_path / "race", *RACE)
    rep, runs, _ = _graded(course, sub, tmp_path, monkeypatch, True, "together")
    alone, _, _ = _graded(course, sub, tmp_path, monkeypatch, False, "apart")
    assert rep == alone
    racecheck = [n for tool, n in runs if tool == "racecheck"]
    # the lab's 3 cases, then scale's 1 over its cases, alone and for its hazard report, and
    # offset's 2
    assert sorted(racecheck) == sorted(["3", "1", "0", "0", "2"])
    assert [n for tool, n in runs if tool == "memcheck"] == ["3"]
    scale, offset = rep["exercises"]
    assert scale["parts"]["sanitizer"]["points"] == 1  # memcheck's half
    assert offset["parts"]["sanitizer"]["points"] == 2


def test_no_sanitizer_run_with_no_sanitizer(course, fake_gpu, tmp_path, monkeypatch):
    """--no-sanitizer: the parts are skipped as before, and no tool runs over the lab."""
    sub = course / "solutions" / "9.1-fake"
    rep, runs, _ = _graded(course, sub, tmp_path, monkeypatch, True, "none", sanitizer=False)
    alone, _, _ = _graded(course, sub, tmp_path, monkeypatch, False, "apart", sanitizer=False)
    assert runs == [] and rep == alone
    assert all(ex["parts"]["sanitizer"]["status"] == "skipped" for ex in rep["exercises"])


def test_the_grader_knows_the_harness_case_limit():
    header = (REPO / "common" / "cml_options.h").read_text()
    limit = re.search(r"#define CML_MAX_CASES (\d+)", header)
    assert limit and int(limit.group(1)) == harness.MAX_CASES


def _recorded_runs(monkeypatch) -> list[dict]:
    """The grading's runs over the lab as they are made: ``run_judged_lab_cases`` in the
    grading's thread, ``lab_cases_once`` in the other (the first calls it too, for each of
    its processes: those are left out); each its exercises, its thread and its start and end
    (``time.monotonic``), appended once it has ended."""
    spans: list[dict] = []
    grading_thread = threading.current_thread()

    def recording(real, name):
        def run(judge, binary, cases, *args, **kwargs):
            start = time.monotonic()
            try:
                return real(judge, binary, cases, *args, **kwargs)
            finally:
                thread = threading.current_thread()
                if name == "run_judged_lab_cases" or thread is not grading_thread:
                    spans.append({
                        "exercises": sorted({case[0] for case in cases}), "thread": thread,
                        "start": start, "end": time.monotonic(),
                    })

        return run

    for name in ("run_judged_lab_cases", "lab_cases_once"):
        real = getattr(grading.harness, name)
        monkeypatch.setattr(grading.harness, name, recording(real, name))
    return spans


def _one_group(monkeypatch) -> None:
    """Every exercise in the first group: one judged run over the lab, as a lab whose
    exercises' cases the split leaves in one group (design note 60)."""
    monkeypatch.setattr(grading, "_two_groups", lambda exercises: (list(exercises), []))


@pytest.mark.parametrize("groups", ["two", "one"])
def test_a_judge_for_each_group_when_every_case_passes(
    course, fake_gpu, tmp_path, monkeypatch, groups
):
    """Design note 60: the lab's cases in two judged runs side by side (the fake lab's two
    exercises, one in each), or in one when one group holds them all (note 37)."""
    if groups == "one":
        _one_group(monkeypatch)
    sub = course / "solutions" / "9.1-fake"
    spans = _recorded_runs(monkeypatch)
    rep, _, judged = _graded(course, sub, tmp_path, monkeypatch, True, "together")
    alone, _, alone_judged = _graded(course, sub, tmp_path, monkeypatch, False, "apart")
    assert rep == alone and rep["total"] == rep["max"]
    n = {ex["name"]: len(ex["parts"]["correctness"]["details"]) for ex in rep["exercises"]}
    if groups == "one":
        assert judged == [["scale", str(n["scale"] + n["offset"])]]
    else:
        assert sorted(judged) == sorted([name, str(k)] for name, k in n.items())
        a, b = spans  # side by side: each started before the other ended
        assert a["start"] < b["end"] and b["start"] < a["end"], spans
    assert sorted(alone_judged) == sorted([name, str(k)] for name, k in n.items())


@pytest.mark.parametrize(
    "name, change, groups",
    [
        ("crash", CRASH_AT_33, "two"),
        ("launch_error", LAUNCH_ERROR, "two"),
        ("race", RACE, "two"),
        ("hang", HANG_AT_33, "two"),
        # one run over several exercises (a group holding them all): its fresh processes
        # after a crash, and its next exercise's after a hang
        ("crash", CRASH_AT_33, "one"),
        ("hang", HANG_AT_33, "one"),
    ],
)
def test_the_same_report_as_the_exercises_own_runs(
    course, fake_gpu, tmp_path, monkeypatch, name, change, groups
):
    """After scale's crash or failed launch its later cases (and, in one run over the lab,
    offset's) run again in fresh processes; after its hang none of its later cases run,
    offset's do; a race goes back to the exercise's own racecheck runs. Every part, row,
    message and seed the same."""
    if groups == "one":
        _one_group(monkeypatch)
    if name == "hang":  # the cases' limit 2 s (5 by default): a shorter wait, twice
        toml = course / "labs" / "9.1-fake" / "lab.toml"
        limit = "run_timeout_s = 5\n"
        assert toml.read_text().count(limit) == 1
        toml.write_text(toml.read_text().replace(limit, limit + "case_timeout_s = 2\n"))
    sub = variant(course, tmp_path / name, *change)
    rep, _, judged = _graded(course, sub, tmp_path, monkeypatch, True, "together")
    alone, _, _ = _graded(course, sub, tmp_path, monkeypatch, False, "apart")
    assert rep == alone
    again = name in ("crash", "launch_error")  # fresh processes after scale's case 33
    if groups == "one":  # the lab's run, then (after a crash, a failed launch or a hang) fresh ones
        assert judged[0][0] == "scale" and (len(judged) == 1) == (name == "race"), judged
        if name == "hang":  # no more of scale's cases: offset's start the next process
            assert [start[0] for start in judged] == ["scale", "offset"], judged
    else:  # offset's run beside scale's, never again; scale's again after its failure
        scale = [start for start in judged if start[0] == "scale"]
        assert [start for start in judged if start[0] == "offset"] == [["offset", "3"]]
        assert scale[0] == ["scale", "4"] and (len(scale) > 1) == again, judged
    offset = rep["exercises"][1]["parts"]["correctness"]
    assert offset["status"] == "passed", offset


OFFSET_CRASH_AT_100 = (
    "*speed = 1.0;",
    "*speed = 1.0;\n    if (n == 100) { *(volatile int *)0 = 1; }",
)


def test_a_failure_in_the_second_group_runs_its_later_cases_after_the_first(
    course, fake_gpu, tmp_path, monkeypatch
):
    """offset (the second group, its own thread) crashes at its case 100: its case 1000 runs
    in a fresh process once scale's run is done, and the report is the exercises' own."""
    sub = variant(course, tmp_path / "offset-crash", *OFFSET_CRASH_AT_100)
    spans = _recorded_runs(monkeypatch)
    rep, _, judged = _graded(course, sub, tmp_path, monkeypatch, True, "together")
    alone, _, _ = _graded(course, sub, tmp_path, monkeypatch, False, "apart")
    assert rep == alone
    # offset's case left after its crash: on the grading's thread, after scale's run ended
    (scale,) = [span for span in spans if span["exercises"] == ["scale"]]
    (left,) = [span for span in spans if span["thread"] is threading.current_thread()
               and span["exercises"] == ["offset"]]
    assert left["start"] >= scale["end"], spans
    assert sorted(judged[:2]) == [["offset", "3"], ["scale", "4"]] and judged[2:] == [
        ["offset", "1"]
    ], judged
    offset = rep["exercises"][1]["parts"]["correctness"]
    assert [row["status"] for row in offset["details"]][:2] == ["ok", "crash"], offset


def test_two_groups_of_about_the_same_work_each_in_the_labs_order():
    """``_two_groups``: the heaviest first, each to the lighter group (an exercise's work is
    its cases' sizes' products and ``CASE_WORK`` a case); each group keeps the lab's order,
    and each holds one exercise at least, even with no cases at all."""
    big, small = [(1000, 1000, 1000)], [(10, 10)] * 3
    names = [("a", small), ("b", big), ("c", small), ("d", big), ("e", small)]
    exercises = [types.SimpleNamespace(name=n, cases=c) for n, c in names]
    first, second = grading._two_groups(exercises)
    assert ([e.name for e in first], [e.name for e in second]) == (["a", "b", "e"], ["c", "d"])
    empty = [types.SimpleNamespace(name=n, cases=[]) for n in "xy"]
    assert [[e.name for e in g] for g in grading._two_groups(empty)] == [["x"], ["y"]]


def test_the_grading_steps_out_only_with_no_run_of_its_own_on_the_gpu(course, monkeypatch):
    """Design note 60: a fresh process of the first group (after a crash) lets the timed
    runs pass (``_let_timed_runs_pass``) only once the second group's run has ended, and
    the cases that run left run after the first group's, a pass before them."""
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=course / "solutions" / "9.1-fake", one_process=True, seed=5),
    )
    g.judge, g.binary = types.SimpleNamespace(path=Path("judge")), Path("lab")
    monkeypatch.setattr(grading, "PASS_AFTER_S", 0.0)  # note 69: any hold is old enough
    g._shared_since = time.monotonic()
    passes: list[str] = []
    threads = set()

    def passing():
        threads.add(threading.current_thread())
        passes.append("pass")
        return 0.0

    g._let_timed_runs_pass = passing
    release, ended = threading.Event(), threading.Event()
    seen = {}

    def other_run(judge, binary, cases, *args, **kwargs):  # the second group: offset's
        assert [case[0] for case in cases] == ["offset"] * 3
        release.wait(10)
        ended.set()
        return {"offset": ["run 1"]}, cases[1:]  # crashed at its second case

    def lab_run(judge, binary, cases, *args, between=None, **kwargs):
        exercises = list(dict.fromkeys(case[0] for case in cases))
        if exercises == ["scale"]:
            between()  # scale crashed while offset's run is on the GPU: no pass
            seen["while the other ran"] = list(passes)
            release.set()
            ended.wait(10)
            deadline = time.monotonic() + 10
            while not passes and time.monotonic() < deadline:
                between()  # its run has ended (its future done a moment later): a pass
            passes.append("scale's fresh process")
        else:
            seen["left"] = [case[1] for case in cases]
        return {ex: [f"{ex} {case[1]}" for case in cases if case[0] == ex] for ex in exercises}

    monkeypatch.setattr(grading.harness, "lab_cases_once", other_run)
    monkeypatch.setattr(grading.harness, "run_judged_lab_cases", lab_run)
    g._correctness_lab_runs()
    assert seen["while the other ran"] == []
    assert threads == {threading.current_thread()}  # the thread that took the hold
    assert passes == ["pass", "scale's fresh process", "pass"]  # and one before offset's rest
    assert seen["left"] == [(100,), (1000,)]
    assert g._lab_runs["offset"] == ["run 1", "offset (100,)", "offset (1000,)"]
    assert len(g._lab_runs["scale"]) == 4


@pytest.mark.parametrize("hold", ["young", "old"])
def test_the_two_groups_pass_only_once_the_hold_is_old(course, monkeypatch, hold):
    """Design note 69 on the path lab 3.3 takes (two groups, note 60): a fresh process of
    the first group after the second's run has ended, and the cases that run left, let the
    timed runs pass only once the grading's hold has lasted PASS_AFTER_S."""
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=course / "solutions" / "9.1-fake", one_process=True, seed=5),
    )
    g.judge, g.binary = types.SimpleNamespace(path=Path("judge")), Path("lab")
    age = 0.0 if hold == "young" else grading.PASS_AFTER_S + 1
    g._shared_since = time.monotonic() - age
    passes, asked = [], []
    g._let_timed_runs_pass = lambda: passes.append("pass") or 0.0
    real_pass = g._pass_between_processes

    def aged_pass():  # reached only with no run of the grading's own on the GPU
        asked.append(1)
        real_pass()

    g._pass_between_processes = aged_pass

    def other_run(judge, binary, cases, *args, **kwargs):  # offset's, crashed at its second
        return {"offset": ["run 1"]}, cases[1:]

    def lab_run(judge, binary, cases, *args, between=None, **kwargs):
        exercises = list(dict.fromkeys(case[0] for case in cases))
        if exercises == ["scale"]:
            deadline = time.monotonic() + 10
            while not asked and time.monotonic() < deadline:
                between()  # scale's fresh process, asked once the other run has ended
            assert asked, "the other run never ended"
        return {ex: [f"{ex} {case[1]}" for case in cases if case[0] == ex] for ex in exercises}

    monkeypatch.setattr(grading.harness, "lab_cases_once", other_run)
    monkeypatch.setattr(grading.harness, "run_judged_lab_cases", lab_run)
    g._correctness_lab_runs()
    # asked before scale's fresh process and before offset's left cases; passed only if old
    assert len(asked) == 2
    assert passes == ([] if hold == "young" else ["pass", "pass"])


def test_an_exercises_own_run_is_given_the_aged_pass(course, monkeypatch):
    """Design note 69: an exercise's own judged run (no run over the lab) is given the pass
    that waits for the hold's age, not note 54's unconditional one."""
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=course / "solutions" / "9.1-fake", one_process=True, seed=5),
    )
    g.judge, g.binary = types.SimpleNamespace(path=Path("judge")), Path("lab")
    seen = {}

    def run_cases(*args, between=None, **kwargs):
        seen["between"] = between
        raise RuntimeError("stop here")

    monkeypatch.setattr(grading.harness, "run_judged_cases", run_cases)
    with pytest.raises(RuntimeError, match="stop here"):
        g._correctness(g.lab.exercises[0])
    assert seen["between"] == g._pass_between_processes


def test_rows_name_the_seeds_that_ran(course, fake_gpu, tmp_path, monkeypatch):
    """Without --seed the seeds are fresh per grading, and a batch runs the lab's cases
    before each exercise writes its rows: every row and reproduce command must still name
    the seed its case ran with."""
    ran = {}

    def recording(real):
        def run(judge, binary, cases, *args, **kwargs):
            ran.update({(ex, tuple(size)): seed for ex, size, seed in cases})
            return real(judge, binary, cases, *args, **kwargs)

        return run

    for name in ("run_judged_lab_cases", "lab_cases_once"):  # the two groups' runs
        monkeypatch.setattr(grading.harness, name, recording(getattr(grading.harness, name)))
    sub = course / "solutions" / "9.1-fake"
    rep, _, _ = _graded(course, sub, tmp_path, monkeypatch, True, "fresh", seed=None)
    rows = [
        (ex["name"], d) for ex in rep["exercises"] for d in ex["parts"]["correctness"]["details"]
    ]
    assert ran and len(rows) == len(ran)
    for name, row in rows:
        assert row["seed"] == ran[(name, tuple(row["size"]))], (name, row)


def test_a_hung_launch_ends_at_the_launch_limit_over_the_lab(
    course, fake_gpu, tmp_path, monkeypatch
):
    """A batch's runs over the lab give each launch the lab's launch limit too (design note
    65): scale's hang at its case 33 ends after 1 s, not the case's 20, and says so; offset's
    cases, beside it, pass."""
    toml = course / "labs" / "9.1-fake" / "lab.toml"
    limit = "run_timeout_s = 5\n"
    assert toml.read_text().count(limit) == 1
    toml.write_text(toml.read_text().replace(limit, "run_timeout_s = 20\nlaunch_timeout_s = 1\n"))
    sub = variant(course, tmp_path / "hang", *HANG_AT_33)
    start = time.monotonic()
    rep, _, _ = _graded(course, sub, tmp_path, monkeypatch, True, "hang")
    assert time.monotonic() - start < 15  # not the case's 20 s
    scale, offset = (ex["parts"]["correctness"] for ex in rep["exercises"])
    assert [d["status"] for d in scale["details"]] == ["ok", "ok", "timeout", "not_run"]
    assert scale["details"][2]["message"] == "had a launch that did not finish within 1 s"
    assert offset["status"] == "passed", offset


class _Slot:
    """A batch's untimed slot (``Options.untimed_slots``) held by the test: ``asked`` is set
    when a grading asks for it, which then waits until the test calls ``release``."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self._free = threading.Semaphore(0)

    def release(self) -> None:
        self._free.release()

    def __enter__(self):
        self.asked.set()
        self._free.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self._free.release()


def test_a_grading_starts_its_untimed_runs_only_with_a_slot(
    course, fake_gpu, tmp_path, monkeypatch
):
    """``Options.untimed_slots`` (GRADER_UNTIMED_AT_ONCE, design note 73): a batch's grading
    waits for a slot before its device probe and untimed runs, with no process of its own on
    the GPU meanwhile, and then grades as without the cap."""
    starts = tmp_path / "starts.log"
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(starts))
    sub = course / "solutions" / "9.1-fake"
    slot = _Slot()
    g = grading.Grading(
        course / "labs" / "9.1-fake",
        grading.Options(submission=sub, seed=5, one_process=True, untimed_slots=slot),
    )
    g.pipelined, g.gpu_lock = False, grading.GpuLock()
    probes = []
    real_probe = g._probe
    monkeypatch.setattr(g, "_probe", lambda: probes.append(1) or real_probe())
    result: list = []
    worker = threading.Thread(target=lambda: result.append(g.run()), daemon=True)
    worker.start()
    assert slot.asked.wait(timeout=120), "the grading never asked for an untimed slot"
    time.sleep(1.0)  # had it gone on without the slot, its probe and judge would have run
    assert worker.is_alive() and not probes and not starts.exists()
    slot.release()
    worker.join(timeout=300)
    assert not worker.is_alive() and probes and starts.exists()
    rep = report.to_json(result[0])
    assert rep["total"] == rep["max"], rep
    assert rep["timings_s"]["gpu_wait"] >= 1.0  # the wait for the slot is the GPU's wait

"""grader.class_figures: a timed run whose course figures stray from the class's median."""

from __future__ import annotations

import pytest

from grader import class_figures as cf


def _doc(baseline_ms=1.0, copy_ms=0.5, cublas=None, alone=None):
    doc = {
        "timing": {"baseline": {"median_ms": baseline_ms}, "copy": {"median_ms": copy_ms}},
        "metrics": {"gbps": 10.0},
    }
    if cublas is not None:
        doc["metrics"]["cublas_gflops"] = cublas
    if alone is not None:
        doc["timing"]["baseline_alone_ms"] = alone
    return doc


def _report(**by_exercise):
    """A report's JSON with one timed detail per exercise, its ``course`` as given."""
    return {
        "exercises": [
            {"name": ex, "parts": {"performance": {"details": [{"course": course}]}}}
            for ex, course in by_exercise.items()
        ]
    }


def test_course_figures_of_a_timed_run():
    assert cf.course_figures(_doc(2.0, 0.25, 5e4)) == {
        "baseline_ms": 2.0,
        "copy_ms": 0.25,
        "cublas_gflops": 5e4,
    }
    assert cf.course_figures(_doc()) == {"baseline_ms": 1.0, "copy_ms": 0.5}


def test_course_figures_keep_the_baseline_timed_alone():
    """The judge's baseline timed before the student's process started is kept (for
    ``own_doing``), but it is not a figure the class's runs are compared on."""
    assert cf.course_figures(_doc(2.3, 0.25, alone=1.0)) == {
        "baseline_ms": 2.3,
        "copy_ms": 0.25,
        "baseline_alone_ms": 1.0,
    }
    assert cf.ALONE not in cf.FIGURES
    for alone in (0, -1.0, True, "1.0"):
        assert cf.ALONE not in cf.course_figures(_doc(alone=alone))
    # alone far faster than the class's baselines: no stray for it
    assert cf.strays(_class(8, s02={"transpose_tiled": {cf.ALONE: 0.01}})) == {}


@pytest.mark.parametrize(
    "doc", [None, {}, {"timing": None}, {"timing": {"copy": {"median_ms": 0}}}, "text"]
)
def test_course_figures_of_a_run_without_them(doc):
    assert cf.course_figures(doc) == {}


def test_course_figures_ignore_booleans_and_negatives():
    doc = {"timing": {"baseline": {"median_ms": True}, "copy": {"median_ms": -1.0}}}
    assert cf.course_figures(doc) == {}


def _class(n, **odd):
    """n students with the same figures (transpose: copy 0.5 ms, baseline 1 ms; sgemm:
    cuBLAS 50 TFLOP/s), the students of ``odd`` with their own."""
    figures = {}
    for i in range(n):
        sid = f"s{i:02d}"
        figures[sid] = {
            "transpose_tiled": {"baseline_ms": 1.0, "copy_ms": 0.5},
            "sgemm": {"baseline_ms": 23.0, "copy_ms": 0.1, "cublas_gflops": 50000.0},
        }
    for sid, per_ex in odd.items():
        for ex, figs in per_ex.items():
            figures[sid][ex].update(figs)
    return figures


def test_an_undisturbed_class_has_no_strays():
    assert cf.strays(_class(16)) == {}


def test_a_slow_copy_strays():
    """Session 8's s05: the judge's copy 2.8x slower than the class's."""
    found = cf.strays(_class(16, s05={"transpose_tiled": {"copy_ms": 1.4}}))
    assert list(found) == ["s05"]
    (why,) = found["s05"]
    assert why.startswith("transpose_tiled: the judge's device-to-device copy, 1.4 ms")
    assert "2.80x slower" in why and "the GPU was not the run's alone" in why


def test_a_slow_cublas_strays():
    """Session 8's s09: cuBLAS at 38.9 of the class's 50 TFLOP/s (1.28x)."""
    found = cf.strays(_class(16, s09={"sgemm": {"cublas_gflops": 38948.0}}))
    assert list(found) == ["s09"] and found["s09"][0].startswith("sgemm: cuBLAS's SGEMM")


def test_a_fast_figure_does_not_stray():
    """A run faster than the class is not a disturbed one (and no submission can speed up
    the course's code)."""
    odd = {"transpose_tiled": {"copy_ms": 0.2, "baseline_ms": 0.5}}
    assert cf.strays(_class(16, s03=odd)) == {}


@pytest.mark.parametrize("factor, strays", [(1.19, False), (1.21, True)])
def test_the_tolerance(factor, strays):
    found = cf.strays(_class(8, s01={"transpose_tiled": {"baseline_ms": factor}}))
    assert ("s01" in found) is strays


class _Spread:
    """An exercise's performance spec as class_figures reads it (manifest.PerformanceSpec
    with lab.toml's baseline_spread = 1.8)."""

    stray_tolerance = busy_ratio = 1.8


def test_an_exercise_whose_baseline_spreads_more_allows_it():
    """Lab 3.2c's on-demand baseline moves up to 1.54 times the class's median by itself
    (design note 95): with its spread given, such a run is not a stray, nor its own doing;
    further off, it still is; the copy keeps the default tolerance."""
    spreads = {"transpose_tiled": _Spread()}
    moved = _class(8, s01={"transpose_tiled": {"baseline_ms": 1.54}})
    assert "s01" in cf.strays(moved) and cf.strays(moved, spreads) == {}
    far = _class(8, s01={"transpose_tiled": {"baseline_ms": 1.9}})
    assert "s01" in cf.strays(far, spreads)
    copy = _class(8, s01={"transpose_tiled": {"copy_ms": 0.5 * 1.3}})
    assert "s01" in cf.strays(copy, spreads)
    # a baseline alone as the class's, 1.7x slower among the repetitions: within the spread
    figures = _class(8, s01={"transpose_tiled": {"baseline_ms": 1.95}})
    for per_ex in figures.values():
        per_ex["transpose_tiled"][cf.ALONE] = 1.0
    figures["s01"]["transpose_tiled"][cf.ALONE] = 1.15
    assert list(cf.own_doing(figures)) == ["s01"]
    assert "s01" in cf.strays(figures, spreads) and cf.own_doing(figures, spreads) == {}


def test_a_small_class_has_no_median():
    small = _class(cf.MIN_CLASS - 1, s00={"transpose_tiled": {"copy_ms": 5.0}})
    assert cf.strays(small) == {}
    assert "s00" in cf.strays(_class(cf.MIN_CLASS, s00={"transpose_tiled": {"copy_ms": 5.0}}))


def test_strays_from_reports():
    reports = [(f"s{i}", _report(scale={"baseline_ms": 1.0, "copy_ms": 0.5})) for i in range(5)]
    reports.append(("slow", _report(scale={"baseline_ms": 4.0, "copy_ms": 2.0})))
    reports.append(("untimed", {"exercises": [{"name": "scale", "parts": {}}]}))
    found = cf.strays({student: cf.of_report(rep) for student, rep in reports})
    assert list(found) == ["slow"] and len(found["slow"]) == 2


def _left_behind(n=16):
    """A class whose s07 ran behind its own process left behind (k09 in g118/g119): both
    exercises' baselines timed alone as the class's, then 2.3x slower among its
    repetitions, its copy and cuBLAS slowed too; every other student's baseline the same
    alone and among."""
    alone = {"transpose_tiled": 1.0, "sgemm": 23.0}
    figures = _class(n)
    for per_ex in figures.values():
        for ex, figs in per_ex.items():
            figs[cf.ALONE] = alone[ex]
    figures["s07"]["transpose_tiled"].update(baseline_ms=2.3, copy_ms=1.1)
    figures["s07"]["sgemm"].update(baseline_ms=52.9, cublas_gflops=30000.0)
    return figures


def test_a_stray_of_its_own_doing():
    """Every straying exercise's baseline ran alone as the class's, and among the student's
    repetitions as ``plausible.disturbed`` calls the submission's doing: it is named, one
    line per exercise, with the numbers."""
    figures = _left_behind()
    assert list(cf.strays(figures)) == ["s07"]
    assert cf.own_doing(figures) == {
        "s07": [
            "sgemm: the baseline took 23 ms alone before its process started, as the class's "
            "23 ms, and 52.9 ms among its repetitions (2.30x): its own process kept the GPU "
            "busy",
            "transpose_tiled: the baseline took 1 ms alone before its process started, as the "
            "class's 1 ms, and 2.3 ms among its repetitions (2.30x): its own process kept the "
            "GPU busy",
        ]
    }


def test_only_a_stray_is_named():
    """A run ``plausible.disturbed`` calls the submission's doing whose figures do not stray
    (its baseline alone 0.5 ms, among its repetitions the class's 1 ms) is not a stray: its
    performance is scored as nothing, and nothing is timed again."""
    figures = _class(16)
    for per_ex in figures.values():
        per_ex["transpose_tiled"][cf.ALONE] = 1.0
    figures["s07"]["transpose_tiled"][cf.ALONE] = 0.5
    assert cf.strays(figures) == {} and cf.own_doing(figures) == {}


@pytest.mark.parametrize(
    "case, figs",
    [
        # transpose's baseline not disturbed (among/alone 1.4, under 1.5): its copy strayed
        # from outside
        ("not disturbed", {"baseline_ms": 1.4}),
        # the GPU was slow before the student's process started (alone 1.3x the class's
        # median baseline): the disturbance is not proven the submission's
        ("slow alone", {"baseline_ms": 3.0, cf.ALONE: 1.3}),
        # the judge did not time the baseline alone (a document without it)
        ("missing alone", None),
    ],
)
def test_a_stray_not_shown_its_own_doing_is_left_out(case, figs):
    """One straying exercise (transpose_tiled) that does not show the submission's own doing
    leaves the stray out of ``own_doing`` (the batch grades it again), though its other
    straying exercise (sgemm) shows it."""
    figures = _left_behind()
    transpose = figures["s07"]["transpose_tiled"]
    if figs is None:
        del transpose[cf.ALONE]
    else:
        transpose.update(figs)
    found = cf.strays(figures)
    assert list(found) == ["s07"] and any(w.startswith("transpose_tiled: ") for w in found["s07"])
    assert any(w.startswith("sgemm: ") for w in found["s07"])
    assert cf.own_doing(figures) == {}, case


def test_own_doing_reads_the_reports():
    """The batch's way: the figures of each student's report (``of_report``), the baseline
    alone among them."""
    course = {"baseline_ms": 1.0, "copy_ms": 0.5, cf.ALONE: 1.0}
    reports = [(f"s{i}", _report(scale=course)) for i in range(5)]
    reports.append(("k09", _report(scale={"baseline_ms": 2.3, "copy_ms": 1.0, cf.ALONE: 1.0})))
    figures = {student: cf.of_report(rep) for student, rep in reports}
    assert list(cf.own_doing(figures)) == ["k09"] and list(cf.strays(figures)) == ["k09"]


def _timed_row(**row):
    return {"exercises": [{"name": "scale", "parts": {"performance": {"details": [row]}}},
                          {"name": "untimed", "parts": {"performance": {}}}]}


def test_a_gpu_busy_before_the_students_process_is_read_from_the_report():
    """Design note 97 (g135: the judge's own empty launch alone 2.378 ms beside another
    process's work, 0.149 idle): one line per exercise, none without the figure."""
    (line,) = cf.busy_before(_timed_row(empty_launch_alone_ms=2.378))
    assert line.startswith("scale: the judge's own empty kernel took 2.378 ms")
    assert line.endswith(", in both its timings")
    assert cf.busy_before(_timed_row(empty_launch_alone_ms=0.149)) == []
    assert cf.busy_before(_timed_row()) == [] and cf.busy_before({}) == []
    # nor is it read as a slowed exchange: the batch treats the two apart (never its own)
    assert cf.exchanges_slowed(_timed_row(empty_launch_alone_ms=2.378)) == []

"""grader.class_figures: a timed run whose course figures stray from the class's median."""

from __future__ import annotations

import pytest

from grader import class_figures as cf


def _doc(baseline_ms=1.0, copy_ms=0.5, cublas=None):
    doc = {
        "timing": {"baseline": {"median_ms": baseline_ms}, "copy": {"median_ms": copy_ms}},
        "metrics": {"gbps": 10.0},
    }
    if cublas is not None:
        doc["metrics"]["cublas_gflops"] = cublas
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

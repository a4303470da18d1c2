"""selfcheck's expectation of a naive skeleton (lab.toml ``skeleton = "naive"``, lab 3.5): a
correct, slow starting point must earn every correctness and sanitizer point and no
performance point; a stub skeleton keeps its old expectation."""

from __future__ import annotations

from grader.results import PART_NAMES, ExerciseResult, Grade, Part, Step
from grader.selfcheck import expect_skeleton


def _grade(statuses, points, maxes, device=True):
    """One exercise whose parts have these points (None: not run) out of these maxima."""
    parts = {n: Part(n, maxes.get(n, 0)) for n in PART_NAMES}
    for n, p in points.items():
        parts[n].points = p
        parts[n].status = "passed" if p == parts[n].max else "failed"
        parts[n].info = "ratio 1.0"
    parts["correctness"].details = [{"size": [8, 8], "status": s} for s in statuses]
    g = Grade("9.1-fake", "9.1", "Fake", "labs/9.1-fake", None, None)
    g.steps = [Step(n, "passed") for n in ("assemble", "build", "symbols")]
    g.exercises = [ExerciseResult("scale", parts)]
    g.device = {"name": "GPU"} if device else None
    return g


MAXES = {"correctness": 6, "sanitizer": 2, "performance": 4}


def test_naive_correct_and_slow_meets_the_expectation():
    g = _grade(["ok", "ok"], {"correctness": 6, "sanitizer": 2, "performance": 0}, MAXES)
    assert expect_skeleton(g, "naive") == []


def test_naive_with_a_wrong_case_or_speed_points_does_not():
    g = _grade(["ok", "wrong"], {"correctness": 3, "sanitizer": 2, "performance": 0}, MAXES)
    problems = expect_skeleton(g, "naive")
    assert any("ended with 'wrong' (must be correct)" in p for p in problems)
    assert any("correctness 3/6" in p for p in problems)
    g = _grade(["ok"], {"correctness": 6, "sanitizer": 2, "performance": 1.5}, MAXES)
    assert expect_skeleton(g, "naive") == [
        "scale: the naive starting code earns 1.5 of 4 performance points (measured ratio 1.0)"
    ]
    g = _grade(["ok"], {"correctness": 6, "sanitizer": 2, "performance": None}, MAXES)
    assert "performance not run" in expect_skeleton(g, "naive")[0]


def test_stub_expectation_is_unchanged():
    g = _grade(["wrong"], {"correctness": 0}, MAXES)
    assert expect_skeleton(g) == []
    g = _grade(["ok"], {"correctness": 6, "sanitizer": 2, "performance": 0}, MAXES)
    assert expect_skeleton(g) != []  # a correct skeleton is wrong for a stub lab


def test_without_a_device_only_the_build_is_expected():
    g = _grade([], {}, MAXES, device=False)
    assert expect_skeleton(g, "naive") == []

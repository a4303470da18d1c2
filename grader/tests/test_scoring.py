"""Scoring: the performance ramp, the correctness gate, rounding and the exit status."""

from __future__ import annotations

from fractions import Fraction

import pytest

from grader import scoring
from grader.results import ExerciseResult, Part


@pytest.mark.parametrize(
    "value,expected",
    [(0.5, 0.0), (1.0, 0.0), (1.1, 0.4), (1.125, 0.5), (1.25, 1.0), (3.0, 1.0)],
    ids=["below-zero", "at-zero", "between", "middle", "at-full", "above-full"],
)
def test_ramp(value, expected):
    assert scoring.ramp(value, 1.0, 1.25) == pytest.approx(expected)


def test_ramp_with_zero_equal_to_full_is_a_step():
    assert scoring.ramp(0.99, 1.0, 1.0) == 0.0
    assert scoring.ramp(1.0, 1.0, 1.0) == 1.0
    assert scoring.ramp(2.0, 1.0, 1.0) == 1.0


@pytest.mark.parametrize(
    "x,expected",
    [
        (Fraction(20, 3), 6.67),
        (Fraction(10, 3), 3.33),
        (Fraction(1, 8), 0.13),
        (0.125, 0.13),
        (2.675, 2.67),
        (Fraction(2675, 1000), 2.68),
        (0, 0.0),
        (17, 17.0),
    ],
)
def test_round2_is_half_up_and_exact(x, expected):
    # 2.675 as a binary float is slightly below 2.675, so it rounds down; the exact
    # fraction 2675/1000 rounds up (half up)
    assert scoring.round2(x) == expected


def make(correct, static=None, sanitizer=None, perf=None, points=(10, 2, 3, 5)):
    parts = {
        name: Part(
            name,
            pts,
            status="passed" if frac == 1 else ("failed" if frac is not None else "not_run"),
            fraction=frac,
        )
        for name, pts, frac in zip(
            ("correctness", "static", "sanitizer", "performance"),
            points,
            (correct, static, sanitizer, perf),
        )
    }
    return ExerciseResult("ex", parts)


def test_full_marks():
    ex = make(Fraction(1), 1, Fraction(1), 1.0)
    scoring.score_exercise(ex)
    assert ex.total == 20 and ex.max == 20 and not ex.pending
    assert scoring.exit_code([ex]) == 0


def test_correctness_split_evenly_and_rounded():
    ex = make(Fraction(2, 3), 1, Fraction(1), 1.0)
    scoring.score_exercise(ex)
    assert ex.parts["correctness"].points == 6.67
    assert ex.total == 6.67
    assert scoring.exit_code([ex]) == 1


def test_gate_zeroes_static_sanitizer_performance_when_a_case_fails():
    ex = make(Fraction(16, 17), 1, Fraction(1), 1.0)
    scoring.score_exercise(ex)
    for name in ("static", "sanitizer", "performance"):
        assert ex.parts[name].points == 0, name
        assert ex.parts[name].status == "passed"  # still run and reported
    assert ex.total == scoring.round2(Fraction(160, 17))


def test_exercise_total_is_rounded_once():
    # 10/3 + 10/3 = 6.67; rounding each part first would give 3.33 + 3.33 = 6.66
    ex = make(Fraction(1), 1, Fraction(1, 3), 1 / 3, points=(0, 0, 10, 10))
    scoring.score_exercise(ex)
    assert ex.total == 6.67


def test_performance_ramp_points():
    ex = make(Fraction(1), 1, Fraction(1), scoring.ramp(1.1, 1.0, 1.25))
    scoring.score_exercise(ex)
    assert ex.parts["performance"].points == 2.0
    assert ex.total == 17.0


def test_pending_when_correctness_did_not_run():
    ex = make(None, 1)  # static ran and passed; nothing else ran
    scoring.score_exercise(ex)
    assert ex.pending
    assert ex.parts["static"].points is None  # depends on correctness
    assert ex.total == 0
    assert scoring.exit_code([ex]) == 3


def test_static_failure_without_correctness_is_a_known_loss():
    # the static rule failed: nothing to earn whatever correctness finds (issue 14)
    ex = make(None, 0)
    scoring.score_exercise(ex)
    assert ex.parts["static"].points == 0
    assert ex.pending  # correctness and the rest still are
    assert scoring.exit_code([ex]) == 1


def test_static_pass_without_correctness_is_pending():
    ex = make(None, 1)
    scoring.score_exercise(ex)
    assert ex.parts["static"].points is None
    assert scoring.exit_code([ex]) == 3


def test_known_loss_wins_over_pending():
    lost = make(Fraction(1, 2), 1, None, None)
    pending = make(None, 1)
    for e in (lost, pending):
        scoring.score_exercise(e)
    assert scoring.exit_code([pending, lost]) == 1


def test_sanitizer_not_run_with_everything_else_full_is_3():
    ex = make(Fraction(1), 1, None, 1.0)
    scoring.score_exercise(ex)
    assert ex.parts["sanitizer"].points is None and ex.total == 17
    assert scoring.exit_code([ex]) == 3


def test_zero_point_parts_never_lose_or_pend():
    ex = make(Fraction(1), None, None, None, points=(3, 0, 0, 0))
    scoring.score_exercise(ex)
    assert not ex.pending and ex.total == 3
    assert scoring.exit_code([ex]) == 0

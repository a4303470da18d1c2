"""Timed results no correct kernel can reach (grader/plausible.py): the copy roof and the
FP32 roof, from the judge's device facts."""

from __future__ import annotations

import pytest

from grader import plausible

H200 = {"name": "NVIDIA H200", "cc": "9.0", "sm_count": 132, "clock_khz": 1980000}


def test_fp32_roof_of_an_h200():
    # 2 flops per FMA x 128 FP32 lanes x 132 SMs x 1.98 GHz = 66.9 TFLOP/s (the datasheet's 67)
    assert plausible.fp32_gflops(H200) == pytest.approx(66908.16)


@pytest.mark.parametrize(
    "device",
    [None, {}, {"cc": "9.0", "sm_count": 132}, {"cc": "x", "sm_count": 1, "clock_khz": 1},
     {"cc": "9.0", "sm_count": 0, "clock_khz": 1}],
)
def test_unknown_roof(device):
    assert plausible.fp32_gflops(device) is None


def test_an_a100_has_64_lanes_per_sm():
    a100 = {"cc": "8.0", "sm_count": 108, "clock_khz": 1410000}
    assert plausible.fp32_gflops(a100) == pytest.approx(2 * 64 * 108 * 1.41e6 / 1e6)  # 19.5 TFLOP/s


def test_faster_than_the_copy_is_not_believed():
    assert plausible.implausible({"metrics": {"pct_of_copy": 98.0}}, H200) is None
    assert plausible.implausible({"metrics": {"pct_of_copy": 124.0}}, H200) is None
    why = plausible.implausible({"metrics": {"pct_of_copy": 400.0}}, H200)
    assert why.startswith("400 % of the copy bandwidth")


def test_above_the_fp32_roof_is_not_believed():
    assert plausible.implausible({"metrics": {"gflops": 50000.0}}, H200) is None
    why = plausible.implausible({"metrics": {"gflops": 2.0e6}}, H200)
    assert "above the device's FP32 roof of 66.9 TFLOP/s" in why
    # without the device's facts the FP32 roof is not applied
    assert plausible.implausible({"metrics": {"gflops": 2.0e6}}, None) is None


def test_no_metrics_is_plausible():
    assert plausible.implausible({"metrics": None}, H200) is None
    assert plausible.implausible({}, H200) is None


def _timed(alone, among):
    return {"timing": {"baseline_alone_ms": alone, "baseline": {"median_ms": among}}}


def test_a_baseline_slowed_down_by_the_submission_is_not_believed():
    assert plausible.disturbed(_timed(1.0, 0.98)) is None  # batched: a little faster
    assert plausible.disturbed(_timed(1.0, 1.4)) is None  # within the noise allowed
    assert plausible.disturbed(_timed(0.02, 0.06)) is None  # 3x, but 40 us: launch jitter
    why = plausible.disturbed(_timed(1.0, 2.6))
    assert why.startswith("the baseline took 2.600 ms per launch among your repetitions")
    assert "1.000 ms before your process started" in why


def test_an_exercise_whose_baseline_spreads_more_allows_it():
    """Lab 3.2c's on-demand baseline: 10.41 ms among the solution's repetitions against
    6.93 ms alone (bench/h200-2026-12-06-session39, g127) with its spread (design note 95)
    allowed; twice alone still is not."""
    assert plausible.disturbed(_timed(6.93, 10.41)) is not None
    assert plausible.disturbed(_timed(6.93, 10.41), 2.0) is None
    assert plausible.disturbed(_timed(6.93, 14.2), 2.0) is not None


def _exchange_slowed(alone, among, baseline=(8.0, 8.0)):
    doc = _timed(*baseline)
    doc["timing"].update(worker_overhead_alone_ms=alone, worker_overhead_ms=among)
    return doc


def test_an_exchange_slowed_down_by_the_submission_is_not_believed():
    """Lab 3.2c's hostile_left_behind_unified on an H100 (session 40, g129): the exchange
    with the empty-kernel server 2.384 ms among the repetitions against about 0.009 alone
    (g131), its baseline only 1.63 times slower (within its spread, 1.8): caught by the
    exchange. The honest runs' 0.146-0.224 ms among, 0.006-0.012 alone, are not; 0.5 ms
    more is the limit."""
    why = plausible.disturbed(_exchange_slowed(0.009, 2.384, (9.11, 14.87)), 1.8)
    assert why.startswith("the exchange with the course's empty-kernel process took 2.384 ms")
    assert "0.009 ms before your process started" in why and "process left behind" in why
    assert why.endswith("ask for a grade alone on an idle machine")
    assert plausible.disturbed(_exchange_slowed(0.006, 0.224)) is None
    assert plausible.disturbed(_exchange_slowed(0.012, 0.146)) is None
    assert plausible.disturbed(_exchange_slowed(0.006, 0.505)) is None
    assert plausible.disturbed(_exchange_slowed(0.006, 0.51)) is not None
    assert plausible.disturbed(_exchange_slowed(0.05, 0.3)) is None  # 6x, but 0.25 ms more
    assert plausible.disturbed(_exchange_slowed(0.2, 0.75)) is None  # 0.55 ms more, under 4x
    assert plausible.disturbed(_exchange_slowed(0.0, 0.6)) is not None  # alone measured as nothing
    for alone in (None, -1.0, True, "0.1"):
        assert plausible.disturbed(_exchange_slowed(alone, 5.0)) is None, alone
    # the GPU already busy before the student's process started (a process an earlier run
    # left behind, without a PID namespace or cgroup: a review): alone and among alike
    why = plausible.disturbed(_exchange_slowed(2.3, 2.4))
    assert "took 2.300 ms before your process started" in why and "already busy" in why
    assert plausible.disturbed(_exchange_slowed(0.45, 0.5)) is None
    # a run bound by the exchange (note 51) is exchange_bound's to name
    assert plausible.disturbed(_exchange_slowed(0.17, 2.4), exchange=False) is None
    assert plausible.exchange_slowed(_exchange_slowed(0.17, 2.4)).endswith("of your samples")
    # the baseline's rule speaks first
    assert plausible.disturbed(_exchange_slowed(0.17, 2.4, (1.0, 2.6))).startswith("the baseline")


def test_the_messages_give_the_exchange_the_judge_subtracted():
    """A judge with the cap (common/cml_exchange.h, design note 96) subtracts at most the
    exchange alone plus 0.25 ms: the message gives that figure, not the exchange among the
    repetitions; a document without it (an older judge) subtracted the whole exchange."""
    doc = _exchange_slowed(0.009, 2.384)
    doc["timing"]["worker_overhead_subtracted_ms"] = 0.259
    assert "and 0.259 ms of it is subtracted" in plausible.exchange_slowed(doc)
    assert "and 2.384 ms of it is subtracted" in plausible.exchange_slowed(
        _exchange_slowed(0.009, 2.384)
    )
    busy = _exchange_slowed(2.3, 2.4)
    busy["timing"]["worker_overhead_subtracted_ms"] = 2.4
    assert "(2.400 ms of it subtracted from each" in plausible.exchange_slowed(busy)
    bound = _exchanged(25, over=2.384)
    bound["timing"]["worker_overhead_subtracted_ms"] = 0.259
    assert "(0.259 ms)" in plausible.exchange_bound(bound)
    bound["timing"]["worker_overhead_subtracted_ms"] = None
    assert "(2.384 ms)" in plausible.exchange_bound(bound)


def test_a_gpu_busy_before_the_students_process_is_not_graded():
    """Design note 97: beside another process spinning every SM (bench/left_behind/spin.cu,
    g134 on an H100) lab 3.3's transpose_tiled had its baseline 3.56 ms alone and 3.58 among,
    its exchange 0.008 alone and 0.0085 among: no rule saw it, while its own median went from
    0.191 to 2.588 ms. The judge's own empty launch alone tells: over 0.5 ms, the run is timed
    again (exchange_slowed) and, busy again, scores no performance (disturbed), whatever the
    other figures; its message does not blame the submission."""
    doc = _exchange_slowed(0.008, 0.0085, (3.5618, 3.5845))
    assert plausible.disturbed(doc) is None and plausible.exchange_slowed(doc) is None
    doc["timing"]["empty_launch_alone_ms"] = 2.5
    why = plausible.disturbed(doc)
    assert why.startswith("the judge's own empty kernel took 2.500 ms to launch and finish")
    assert "already busy with another process's work" in why
    assert why.endswith("; grade again on an idle GPU") and "your submission kept" not in why
    assert plausible.exchange_slowed(doc) == plausible.busy_before(doc)
    # an exchange-bound run (note 51) is exchange_bound's to name, as for the exchange's rules
    assert plausible.disturbed(doc, exchange=False) is None
    for own in (0.02, plausible.EMPTY_LAUNCH_MAX_MS, None, -1.0, True, "3"):
        doc["timing"]["empty_launch_alone_ms"] = own
        assert plausible.busy_before(doc) is None, own
        assert plausible.disturbed(doc) is None, own


@pytest.mark.parametrize("doc", [{}, {"timing": None}, _timed(None, 5.0), _timed(0.0, 5.0)])
def test_no_baseline_alone_no_verdict(doc):
    assert plausible.disturbed(doc) is None


def _sampled(median, p10):
    return {"timing": {"student": {"median_ms": median, "p10_ms": p10, "p90_ms": median}}}


def test_the_spread_of_a_run_is_its_median_over_its_fastest_tenth():
    assert plausible.spread(_sampled(0.336, 0.1419)) == pytest.approx(2.368, abs=1e-3)  # g36 s13
    assert plausible.spread(_sampled(0.141, 0.1386)) < plausible.SPREAD_LIMIT  # g36 s01


@pytest.mark.parametrize(
    "doc", [None, {}, {"timing": None}, _sampled(None, 1.0), _sampled(1.0, 0), _sampled(True, 1.0)]
)
def test_no_spread_without_both_figures(doc):
    assert plausible.spread(doc) is None


def _exchanged(under, reps=25, over=1.2):
    return {"timing": {"under_overhead": under, "reps": reps, "worker_overhead_ms": over}}


def test_a_run_whose_samples_fit_in_the_exchange_measured_the_host():
    """g88's lab 3.5 pipeline: every sample no longer than the exchange subtracted from it
    (each then 1e-6 ms, "1889327 % of the copy"); half is enough to make the median one."""
    why = plausible.exchange_bound(_exchanged(25))
    assert why.startswith("25 of the 25 samples of your launches took no longer than")
    assert "(1.200 ms)" in why and "not your kernel" in why
    assert plausible.exchange_bound(_exchanged(13)) is not None
    assert plausible.exchange_bound(_exchanged(12)) is None  # the median is a real sample
    assert plausible.exchange_bound(_exchanged(0)) is None


@pytest.mark.parametrize(
    "doc",
    [None, {}, {"timing": None}, _exchanged(None), _exchanged(True, 1), _exchanged(3, 0)],
)
def test_no_exchange_verdict_without_the_judges_count(doc):
    assert plausible.exchange_bound(doc) is None

"""The course's own figures in a class's timed runs: a run whose figures stray from the
class's was disturbed, and its submission is graded again, unless the judge's figures show
the disturbance was the submission's own doing (``own_doing``).

Every timed run of an exercise times the same course code on the same sizes: the baseline,
the judge's device-to-device copy and, in lab 3.3d, cuBLAS's SGEMM (``course_figures``, kept
in each performance detail of a report as ``course``). Whatever the submission, these figures
are the device's, so across a class they agree within a few per cent: on the H200, 16
gradings of lab 3.3 at once gave copies of 4109-4161 GB/s for transpose and cuBLAS at
49-51 TFLOP/s (bench/h200-2026-12-02-session8/, g31).

Two of those 64 timed runs did not: one copy at 1452 GB/s (its student's transpose timed at
5 % of the copy, 5 points lost) and one cuBLAS at 38.9 TFLOP/s (its student's SGEMM at 103 %
of cuBLAS). The GPU lock held every other grading's GPU work off those runs; what disturbed
them is not known yet, and the figures say only that something did. ``strays`` names such
runs by comparing each course figure with the class's median of the same exercise: a time
more than ``TOLERANCE`` times the median (a rate less than the median over it). The batch
grades those submissions again, one at a time, after the others (grader.batch).

Trust: the figures come from the judge, the course's process (docs/design-notes.md, note
22). A submission that disturbs its own runs (a process left behind) strays again when graded
again, and ``plausible.disturbed`` already scores no performance for it; it cannot move the
class's median, which needs ``MIN_CLASS`` runs. ``own_doing`` names such strays, so that the
batch does not grade them again (note 83): the judge timed the baseline alone before the
student's process existed (``baseline_alone_ms``, kept beside the figures but not one of
``FIGURES``), as fast as the class's, and it ran slower among the student's repetitions, in
the same exclusive hold of the GPU.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Protocol

from grader import plausible


class PerformanceSpread(Protocol):
    """What ``strays`` and ``own_doing`` read of an exercise's performance spec
    (manifest.PerformanceSpec, which imports this module)."""

    @property
    def stray_tolerance(self) -> float: ...

    @property
    def busy_ratio(self) -> float: ...

# A course figure further than this factor from the class's median strays. The copies and
# cuBLAS of a class agree within 2 % on the H200 (the module's header); the disturbed runs
# were 2.8x and 1.28x off. Lab 3.2d's copy of 64 KiB, latency-bound, varies most: 24-32 GB/s
# over six runs (bench/h200-2026-12-02-session8/g29, g31), within 1.2.
TOLERANCE = 1.2
# A median of fewer runs says little about the device.
MIN_CLASS = 4

# figure -> (what it is, unit, True when more is better)
FIGURES = {
    "baseline_ms": ("the baseline's median launch", "ms", False),
    "copy_ms": ("the judge's device-to-device copy", "ms", False),
    "cublas_gflops": ("cuBLAS's SGEMM", "GFLOP/s", True),
}
# The baseline's median launch (ms) timed by the judge alone, before the student's process
# started (``timing.baseline_alone_ms``): a run's figure kept beside FIGURES, not compared
# across the class (``own_doing`` reads it).
ALONE = "baseline_alone_ms"


def course_figures(doc: dict | None) -> dict[str, float]:
    """The course's own figures of a timed run document (docs/protocol.md): the medians of
    the baseline and of the copy among the student's repetitions (``baseline_ms``,
    ``copy_ms``), the metric ``cublas_gflops`` (GFLOP/s) and the baseline timed alone before
    the student's process started (``baseline_alone_ms``, ``ALONE``; not one of ``FIGURES``),
    those of them the run has as positive numbers; {} for a run without timing."""
    if not isinstance(doc, dict):
        return {}
    timing = doc.get("timing")
    timing = timing if isinstance(timing, dict) else {}
    found = {}
    for key, name in (("baseline", "baseline_ms"), ("copy", "copy_ms")):
        median = (timing.get(key) or {}).get("median_ms")
        if _positive(median):
            found[name] = float(median)
    if _positive(timing.get(ALONE)):
        found[ALONE] = float(timing[ALONE])
    cublas = (doc.get("metrics") or {}).get("cublas_gflops")
    if _positive(cublas):
        found["cublas_gflops"] = float(cublas)
    return found


def _positive(x) -> bool:
    return plausible.is_number(x) and x > 0


def of_report(report: Mapping) -> dict[str, dict[str, float]]:
    """exercise -> its timed run's course figures, from a report's JSON (report.to_json):
    the ``course`` of each performance part's first detail."""
    found = {}
    for ex in report.get("exercises") or []:
        details = ((ex.get("parts") or {}).get("performance") or {}).get("details") or []
        course = details[0].get("course") if details and isinstance(details[0], dict) else None
        if isinstance(course, dict):
            found[ex.get("name")] = {k: v for k, v in course.items() if _positive(v)}
    return found


def exchanges_slowed(report: Mapping) -> list[str]:
    """One line per exercise of a report's JSON (report.to_json) whose graded timed run had
    its exchange with the course's empty-kernel server slowed (``plausible.exchange_slowed``
    on its first detail's ``exchange_ms`` and ``exchange_alone_ms``): in both its timings,
    since the grade times such a run again and keeps the second (design note 95). Not one of
    the class's compared figures: a process left behind slows it, and in a batch where runs
    have no cgroup of their own, that process may be another grading's (grader.batch)."""
    found = []
    for name, row in _timed_rows(report):
        timing = {
            "worker_overhead_ms": row.get("exchange_ms"),
            "worker_overhead_alone_ms": row.get("exchange_alone_ms"),
            "worker_overhead_subtracted_ms": row.get("exchange_subtracted_ms"),
        }
        why = plausible.exchange_slowed({"timing": timing})
        if why:
            found.append(f"{name}: {why}, in both its timings")
    return found


def busy_before(report: Mapping) -> list[str]:
    """One line per exercise of a report's JSON whose graded timed run found the GPU busy
    before the student's process started (``plausible.busy_before`` on its first detail's
    ``empty_launch_alone_ms``): in both its timings, as ``exchanges_slowed``'s (design note
    97). Never the submission's own doing, cgroups or not: its process did not exist yet
    (grader.batch grades it again, alone, after the class)."""
    found = []
    for name, row in _timed_rows(report):
        why = plausible.busy_before({"timing": {"empty_launch_alone_ms": row.get(
            "empty_launch_alone_ms")}})
        if why:
            found.append(f"{name}: {why}, in both its timings")
    return found


def _timed_rows(report: Mapping):
    """(exercise name, its performance part's first detail row, {} when none) of a report's
    JSON, in its order."""
    for ex in report.get("exercises") or []:
        details = ((ex.get("parts") or {}).get("performance") or {}).get("details") or []
        yield ex.get("name"), details[0] if details and isinstance(details[0], dict) else {}


def strays(
    class_figures: Mapping[str, Mapping[str, Mapping[str, float]]],
    spreads: Mapping[str, PerformanceSpread] | None = None,
) -> dict[str, list[str]]:
    """student -> why their timed runs were disturbed (one line per straying figure), for the
    students of ``class_figures`` (student -> exercise -> course figures, ``of_report``)
    whose figures stray from their class's medians; the others are left out. ``spreads``:
    exercise -> its performance spec, whose ``stray_tolerance`` and ``busy_ratio`` replace
    ``TOLERANCE`` and ``plausible.BUSY_RATIO`` for its baseline (an exercise whose
    baseline's own time moves more: lab.toml's ``baseline_spread``; absent: the defaults)."""
    medians = _medians(class_figures)
    return {
        student: [line for _, lines in sorted(per_ex.items()) for line in lines]
        for student, per_ex in _straying(class_figures, medians, spreads or {}).items()
    }


def own_doing(
    class_figures: Mapping[str, Mapping[str, Mapping[str, float]]],
    spreads: Mapping[str, PerformanceSpread] | None = None,
) -> dict[str, list[str]]:
    """student -> why their straying (``strays``) is their own submission's doing (one line
    per straying exercise), for the straying students of ``class_figures`` (as ``strays``)
    each of whose straying exercises' runs shows it: the judge timed the baseline alone,
    before the student's process started (``ALONE``), no more than ``TOLERANCE`` times the
    class's median baseline of that exercise (the GPU was as the class's), and the run is
    ``plausible.disturbed`` (the baseline among the student's repetitions slower than alone
    by its rule). Where one straying exercise lacks either, the student is left out (its
    stray may come from outside: graded again), as are those who do not stray. ``spreads``:
    as ``strays``'s."""
    spreads = spreads or {}
    medians = _medians(class_figures)
    found: dict[str, list[str]] = {}
    for student, per_ex in _straying(class_figures, medians, spreads).items():
        why = [
            _own_doing(ex, class_figures[student][ex], medians, spreads.get(ex))
            for ex in sorted(per_ex)
        ]
        if all(why):
            found[student] = why
    return found


def _own_doing(
    ex: str,
    figs: Mapping[str, float],
    medians: dict[tuple[str, str], float],
    spread: PerformanceSpread | None,
) -> str | None:
    """Why exercise ``ex``'s run (its course figures ``figs``) was disturbed by the
    submission's own doing (``own_doing``), or None when its figures do not show it;
    ``spread``: the exercise's performance spec (``strays``), None for the defaults."""
    alone, among = figs.get(ALONE), figs.get("baseline_ms")
    median = medians.get((ex, "baseline_ms"))
    tolerance = spread.stray_tolerance if spread is not None else TOLERANCE
    if alone is None or among is None or median is None or alone > tolerance * median:
        return None
    # plausible's own rule, on the figures the report kept of the judge's document
    timing = {"baseline_alone_ms": alone, "baseline": {"median_ms": among}}
    ratio = spread.busy_ratio if spread is not None else plausible.BUSY_RATIO
    if not plausible.disturbed({"timing": timing}, ratio):
        return None
    return (
        f"{ex}: the baseline took {_fmt(alone)} ms alone before its process started, as the "
        f"class's {_fmt(median)} ms, and {_fmt(among)} ms among its repetitions "
        f"({among / alone:.2f}x): its own process kept the GPU busy"
    )


def _medians(
    class_figures: Mapping[str, Mapping[str, Mapping[str, float]]],
) -> dict[tuple[str, str], float]:
    """(exercise, figure) -> the class's median of that figure, for each of ``FIGURES``
    that at least ``MIN_CLASS`` students' runs have."""
    values: dict[tuple[str, str], list[float]] = {}
    for per_ex in class_figures.values():
        for ex, figs in per_ex.items():
            for name, v in figs.items():
                if name in FIGURES:
                    values.setdefault((ex, name), []).append(v)
    return {key: statistics.median(vs) for key, vs in values.items() if len(vs) >= MIN_CLASS}


def _straying(
    class_figures: Mapping[str, Mapping[str, Mapping[str, float]]],
    medians: dict[tuple[str, str], float],
    spreads: Mapping[str, PerformanceSpread],
) -> dict[str, dict[str, list[str]]]:
    """student -> exercise -> one line per figure of ``FIGURES`` that strays more than
    ``TOLERANCE`` (for a baseline, its exercise's ``stray_tolerance`` in ``spreads``) from
    the class's ``medians`` (``_medians``), for the straying exercises of the straying
    students only."""
    found: dict[str, dict[str, list[str]]] = {}
    for student, per_ex in class_figures.items():
        for ex, figs in per_ex.items():
            for name, v in figs.items():
                median = medians.get((ex, name))
                if median is None:
                    continue
                what, unit, more_is_better = FIGURES[name]
                off = median / v if more_is_better else v / median
                spread = spreads.get(ex) if name == "baseline_ms" else None
                if off > (spread.stray_tolerance if spread is not None else TOLERANCE):
                    found.setdefault(student, {}).setdefault(ex, []).append(
                        f"{ex}: {what}, {_fmt(v)} {unit} against the class's median "
                        f"{_fmt(median)} {unit}, ran {off:.2f}x slower: the GPU was not the "
                        "run's alone"
                    )
    return found


def _fmt(x: float) -> str:
    return f"{x:.4g}"

"""The roof a timed exercise is measured against (lab.toml ``[exercise.performance] roof``):
what the hardware allows its work at best, and where the run stands below it.

- ``copy`` (the default): a device-to-device copy of the bytes the work must move (each
  input read once, each output written once), timed by the judge in the same run. Its
  figures are the judge's own, from the run document's ``metrics``: ``gbps`` against
  ``copy_gbps``, and ``pct_of_copy`` = 100 · gbps / copy_gbps (common/cml_lab.c), in GB/s.
  For memory-bound kernels.
- ``fp32``: the device's FP32 compute roof, ``plausible.fp32_gflops`` of the ``device``
  facts in the run document (2 FLOP × FP32 lanes × SMs × clock). The judge's ``gflops``
  (its ``metrics``: the exercise's flops over the judge's median time of the student's
  launch) against it; ``pct_of_fp32`` = 100 · gflops / fp32 roof is computed here, by the
  grader, never read from the document. For compute-bound kernels (lab 3.3's matmul).
- ``cublas``: cuBLAS's SGEMM (strict FP32) on the case's own inputs, timed by the judge in
  the same run (lab 3.3's harness, ``sgemm_extra_metrics``: the judge alone links cuBLAS; the
  student's process never gives the figure), reported as the metric ``cublas_gflops``. The
  judge's ``gflops`` against it; ``pct_of_cublas`` = 100 · gflops / cublas_gflops is
  computed here, like ``pct_of_fp32``. For lab 3.3's SGEMM stretch (3.3d).

Every figure comes from the judge's run document (``metrics`` and ``device``, both written
by the judge: docs/protocol.md, "Judged runs"); nothing the student's process printed.

A roof's percentage is also a criterion's ``metric`` (``pct_of_copy``, ``pct_of_fp32``),
and its figures go into the performance details row of the report under the keys it names
(``achieved``, ``ceiling``, ``metric``), which ``grader.report.roofline`` shows.

Adding a roof: one more ``Roof`` in ``ROOFS``, with its row keys, its unit and a
``figures`` function reading the run document (``cublas`` was added so: its figure is an
extra metric of the exercise, common/cml_lab.h). The manifest then accepts its name, a
criterion may score its metric (``computed`` when the grader derives it), and the roofline
table shows it, with no other change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from grader import plausible


def _number(x) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x)


@dataclass(frozen=True)
class Roof:
    name: str  # lab.toml's value: "copy", "fp32", "cublas"
    label: str  # the report's word for it: "copy", "FP32", "cuBLAS"
    metric: str  # the percentage of the roof reached: a criterion metric and a row key
    achieved: str  # the row key of what the run reached (in the document's unit)
    ceiling: str  # the row key of the roof's own figure (the same unit)
    unit: str  # the unit the report shows both in: "GB/s", "TFLOP/s"
    per_unit: float  # document units per shown unit (GFLOP/s per TFLOP/s: 1000)
    digits: int  # decimals shown
    means: str  # the roofline table's legend for it
    # the run document -> {achieved, ceiling, metric: figure} (achieved and ceiling may be
    # left out where the document lacks them), or None when the percentage cannot be had
    figures: Callable[[dict], dict[str, float] | None]
    computed: bool  # the metric is the grader's (True) or the judge's own, in "metrics"
    # a computed metric: why ``figures`` gave None, in words (the report's "gave no" line)
    missing: Callable[[dict], str] | None = None

    def show(self, value: float | None) -> str:
        """``value`` (in the document's unit) as the report shows it: "4153 GB/s"."""
        if value is None:
            return "—"
        return f"{value / self.per_unit:.{self.digits}f} {self.unit}"


def _copy_figures(doc: dict) -> dict[str, float] | None:
    metrics = doc.get("metrics") or {}
    pct = _number(metrics.get("pct_of_copy"))
    if pct is None:
        return None
    out = {k: v for k in ("gbps", "copy_gbps") if (v := _number(metrics.get(k))) is not None}
    out["pct_of_copy"] = pct
    return out


def _gflops(doc: dict) -> float | None:
    """The judge's FLOP rate of the student's launch (``metrics.gflops``), in GFLOP/s."""
    return _number((doc.get("metrics") or {}).get("gflops"))


def _against(doc: dict, ceiling: str, roof: float | None, metric: str) -> dict | None:
    """A compute roof's figures: the judge's gflops, the roof ``roof`` (GFLOP/s) under the key
    ``ceiling``, and ``metric`` = 100 · gflops / roof; None without both."""
    gflops = _gflops(doc)
    if gflops is None or gflops <= 0 or roof is None or roof <= 0:
        return None
    return {"gflops": gflops, ceiling: roof, metric: 100.0 * gflops / roof}


def _no_gflops(doc: dict) -> str | None:
    """Why a compute roof's percentage cannot be had on the student's side, or None."""
    gflops = _gflops(doc)
    if gflops is None:
        return "its metrics give no gflops (the run was not timed)"
    if gflops <= 0:
        return "its metrics give 0 gflops (the exercise counts no floating-point work)"
    return None


def _fp32_figures(doc: dict) -> dict[str, float] | None:
    roof = plausible.fp32_gflops(doc.get("device"))
    return _against(doc, "fp32_gflops", roof or None, "pct_of_fp32")


def _fp32_missing(doc: dict) -> str:
    return _no_gflops(doc) or (
        "the device's FP32 roof is unknown (the run document's device facts lack its compute "
        "capability, SM count or clock)"
    )


def _cublas_figures(doc: dict) -> dict[str, float] | None:
    roof = _number((doc.get("metrics") or {}).get("cublas_gflops"))
    return _against(doc, "cublas_gflops", roof, "pct_of_cublas")


def _cublas_missing(doc: dict) -> str:
    note = doc.get("metrics_note")
    why = f": {note}" if isinstance(note, str) and note else ""
    return _no_gflops(doc) or (
        f"its metrics give no cublas_gflops (the judge timed no cuBLAS SGEMM{why})"
    )


COPY = Roof(
    name="copy",
    label="copy",
    metric="pct_of_copy",
    achieved="gbps",
    ceiling="copy_gbps",
    unit="GB/s",
    per_unit=1.0,
    digits=0,
    means="achieved bandwidth against a device-to-device copy of the same bytes in the same run",
    figures=_copy_figures,
    computed=False,
)
FP32 = Roof(
    name="fp32",
    label="FP32",
    metric="pct_of_fp32",
    achieved="gflops",
    ceiling="fp32_gflops",
    unit="TFLOP/s",
    per_unit=1000.0,
    digits=1,
    means="achieved FLOP/s against the device's FP32 peak (2 FLOP × FP32 lanes × SMs × clock)",
    figures=_fp32_figures,
    computed=True,
    missing=_fp32_missing,
)
CUBLAS = Roof(
    name="cublas",
    label="cuBLAS",
    metric="pct_of_cublas",
    achieved="gflops",
    ceiling="cublas_gflops",
    unit="TFLOP/s",
    per_unit=1000.0,
    digits=1,
    means="achieved FLOP/s against cuBLAS's SGEMM (strict FP32) on the same inputs, timed by "
    "the judge in the same run",
    figures=_cublas_figures,
    computed=True,
    missing=_cublas_missing,
)
ROOFS: dict[str, Roof] = {r.name: r for r in (COPY, FP32, CUBLAS)}
NAMES = tuple(ROOFS)
DEFAULT = COPY.name  # lab.toml without a roof: the copy (shown when the run reports bytes)
METRICS = tuple(r.metric for r in ROOFS.values())  # each roof's percentage, a criterion metric
# Criterion metrics the grader computes from the run document (never read from it)
COMPUTED: dict[str, Roof] = {r.metric: r for r in ROOFS.values() if r.computed}


def figures(name: str, doc: dict) -> dict[str, float] | None:
    """The run document's figures against the roof ``name`` (``Roof.figures``)."""
    return ROOFS[name].figures(doc)


def computed_metric(doc: dict, metric: str) -> float | None:
    """A metric of ``COMPUTED`` (``pct_of_fp32``, ``pct_of_cublas``) from the run document's
    judge figures; None when they are missing."""
    roof = COMPUTED[metric]
    found = roof.figures(doc)
    return None if found is None else found[roof.metric]


def why_missing(doc: dict, metric: str) -> str:
    """Why ``computed_metric`` gave None for ``doc``, in words."""
    roof = COMPUTED[metric]
    return roof.missing(doc) if roof.missing else f"its figures give no {metric}"

"""Each timed exercise against its own roof (grader/roofs.py, issue 13 part 1): the copy's
figures read from the judge's metrics, ``pct_of_fp32`` computed by the grader from the
judge's ``gflops`` and the run document's device facts (and from nothing else), the "gave
no" line when they are missing, and the report's roofline table."""

from __future__ import annotations

import pytest

from grader import diagnose, manifest, report, roofs
from grader.results import PART_NAMES, ExerciseResult, Grade, Part
from helpers import FAKELAB

H200 = {"name": "NVIDIA H200", "cc": "9.0", "sm_count": 132, "clock_khz": 1980000}
H200_FP32 = 2 * 128 * 132 * 1980000 * 1e3 / 1e9  # 66908.16 GFLOP/s
SCALE = manifest.load(FAKELAB / "labs" / "9.1-fake").exercise("scale")
FP32 = manifest.Criterion("pct_of_fp32", 5, 20)


def run_doc(gflops=8700.0, device=H200, **metrics) -> dict:
    """A timed run document as the judge writes it (docs/protocol.md)."""
    m = {"bytes": 2.0e8, "flops": 1.37e11, "gbps": 12.7, "gflops": gflops,
         "baseline_gbps": 8.6, "copy_gbps": 4150.0, "pct_of_copy": 0.31}
    m.update(metrics)
    if gflops is None:
        del m["gflops"]
    return {
        "status": "ok",
        "timing": {"student": {"median_ms": 15.8, "p10_ms": 15.7, "p90_ms": 15.9},
                   "baseline": {"median_ms": 23.4}, "ratio": 1.48},
        "metrics": m,
        "device": device,
    }


def test_the_roofs_and_their_metrics():
    assert roofs.NAMES == ("copy", "fp32", "cublas") and roofs.DEFAULT == "copy"
    assert roofs.METRICS == ("pct_of_copy", "pct_of_fp32", "pct_of_cublas")
    # pct_of_copy is the judge's own
    assert set(roofs.COMPUTED) == {"pct_of_fp32", "pct_of_cublas"}
    assert roofs.ROOFS["cublas"].show(51200.0) == "51.2 TFLOP/s"
    assert roofs.ROOFS["fp32"].show(8700.0) == "8.7 TFLOP/s"
    assert roofs.ROOFS["copy"].show(4150.4) == "4150 GB/s"
    assert roofs.ROOFS["copy"].show(None) == "—"


def test_pct_of_fp32_from_the_judges_gflops_and_the_documents_device():
    doc = run_doc()
    assert roofs.figures("fp32", doc) == pytest.approx(
        {"gflops": 8700.0, "fp32_gflops": H200_FP32, "pct_of_fp32": 100 * 8700 / H200_FP32}
    )
    assert diagnose.metric_value(doc, "pct_of_fp32") == pytest.approx(13.0028, abs=1e-3)
    # an A100 (64 FP32 lanes per SM at 8.0): the same gflops is a larger share
    a100 = {"cc": "8.0", "sm_count": 108, "clock_khz": 1410000}
    a100_roof = 2 * 64 * 108 * 1410000 * 1e3 / 1e9
    assert diagnose.metric_value(run_doc(device=a100), "pct_of_fp32") == pytest.approx(
        100 * 8700 / a100_roof
    )


def test_pct_of_fp32_is_never_read_from_the_document():
    # a pct_of_fp32 in the metrics object is not believed: the grader computes its own
    doc = run_doc(pct_of_fp32=99.0)
    assert diagnose.metric_value(doc, "pct_of_fp32") == pytest.approx(100 * 8700 / H200_FP32)
    assert diagnose.metric_value(run_doc(device=None, pct_of_fp32=99.0), "pct_of_fp32") is None


@pytest.mark.parametrize(
    "doc,why",
    [
        (run_doc(device=None), "the device's FP32 roof is unknown"),
        (run_doc(device={"cc": "9.0", "sm_count": 132}), "the device's FP32 roof is unknown"),
        (run_doc(device={**H200, "clock_khz": 0}), "the device's FP32 roof is unknown"),
        (run_doc(gflops=None), "its metrics give no gflops"),
        (run_doc(gflops=0.0), "its metrics give 0 gflops"),
        ({"status": "ok", "timing": None, "metrics": None, "device": H200},
         "its metrics give no gflops"),
    ],
    ids=["no device", "no clock", "zero clock", "no gflops", "no flops", "untimed"],
)
def test_missing_fp32_facts_give_no_value_and_say_why(doc, why):
    assert diagnose.metric_value(doc, "pct_of_fp32") is None
    assert roofs.figures("fp32", doc) is None
    value, text = diagnose.performance_text(SCALE, FP32, doc, "scale_naive")
    # the same treatment as a missing pct_of_copy: no value, "the timed run gave no ..."
    assert value is None and text.startswith(f"the timed run gave no pct_of_fp32: {why}")


def test_performance_text_for_pct_of_fp32():
    value, text = diagnose.performance_text(SCALE, FP32, run_doc(), "matmul_naive")
    assert value == pytest.approx(13.0028, abs=1e-3)
    assert text == (
        "13.0 % of the FP32 roof (8.7 TFLOP/s of 66.9 TFLOP/s; median 15.8 ms, p10–p90 "
        "15.7–15.9 ms; ratio 1.48 over matmul_naive); full points at ≥ 20, none at ≤ 5"
    )
    assert diagnose.slow_summary(SCALE, FP32, 13.0).startswith(
        "scale: % of the FP32 roof 13, full credit from 20"
    )


def test_copy_figures_are_the_judges():
    doc = run_doc()
    assert roofs.figures("copy", doc) == {"gbps": 12.7, "copy_gbps": 4150.0, "pct_of_copy": 0.31}
    del doc["metrics"]["pct_of_copy"]
    assert roofs.figures("copy", doc) is None


def _grade(rows: dict[str, list[dict]]) -> Grade:
    g = Grade("3.3-tiling", "3.3", "Shared-memory tiling", "sub", None, "sm_90")
    for name, details in rows.items():
        parts = {p: Part(p, 5) for p in PART_NAMES}
        parts["performance"].details = details
        g.exercises.append(ExerciseResult(name, parts))
    return g


def test_roofline_shows_each_exercise_against_its_own_roof_furthest_first():
    g = _grade(
        {
            "matmul_tiled": [{"roof": "fp32", "gflops": 8700.0, "fp32_gflops": H200_FP32,
                              "pct_of_fp32": 13.0, "gbps": 12.7, "copy_gbps": 4150.0,
                              "pct_of_copy": 0.31, "ratio": 1.48}],
            "transpose_tiled": [{"roof": "copy", "gbps": 3836.0, "copy_gbps": 4153.0,
                                 "pct_of_copy": 92.4, "ratio": 11.6}],
            "conv2d_tiled": [{"roof": "copy", "gbps": 2349.0, "copy_gbps": 4150.0,
                              "pct_of_copy": 56.6, "ratio": 6.61}],
            "not_timed": [{"size": [1], "seed": 1, "status": "ok"}],  # no figures: no row
        }
    )
    lines = report.roofline(g)
    assert lines[0] == "roofline: each timed exercise against its own roof (furthest from it first)"
    assert lines[1].split() == ["exercise", "roof", "achieved", "roof", "value", "%", "of",
                                "roof", "×", "baseline"]
    rows = [line.split() for line in lines[2:5]]
    # matmul against the FP32 peak (not its 0.31 % of the copy), then conv2d, then transpose
    assert rows == [
        ["matmul_tiled", "FP32", "8.7", "TFLOP/s", "66.9", "TFLOP/s", "13.0", "1.48"],
        ["conv2d_tiled", "copy", "2349", "GB/s", "4150", "GB/s", "56.6", "6.61"],
        ["transpose_tiled", "copy", "3836", "GB/s", "4153", "GB/s", "92.4", "11.6"],
    ]
    assert lines[5:] == [
        f"  copy: {roofs.ROOFS['copy'].means}",
        f"  FP32: {roofs.ROOFS['fp32'].means}",
    ]
    # and in the whole text report, before the score table
    text = report.text(g)
    assert "\n".join(lines) in text
    assert text.index("roofline:") < text.index("exercise ") < text.index("total")


def test_roofline_reads_a_row_without_a_roof_as_the_copys_and_leaves_out_missing_figures():
    g = _grade(
        {
            "old_report": [{"gbps": 100.0, "copy_gbps": 200.0, "pct_of_copy": 50.0}],
            # an fp32 roof whose device facts were missing: no figure, no row
            "matmul_tiled": [{"roof": "fp32", "gbps": 12.7, "copy_gbps": 4150.0,
                              "pct_of_copy": 0.31}],
        }
    )
    lines = report.roofline(g)
    assert [line.split()[:2] for line in lines[2:-1]] == [["old_report", "copy"]]
    assert lines[2].split()[-1] == "—"  # no ratio in the row
    assert lines[-1] == f"  copy: {roofs.ROOFS['copy'].means}"
    assert report.roofline(_grade({"matmul_tiled": [{"roof": "fp32"}]})) == []


def test_roofline_columns_line_up_for_every_roof_label():
    # "cuBLAS" is the longest label: the roof column is as wide as it, so every row's figures
    # end where the header's do
    g = _grade(
        {
            "sgemm": [{"roof": "cublas", "gflops": 40400.0, "cublas_gflops": 49900.0,
                       "pct_of_cublas": 81.0, "ratio": 6.9}],
            "transpose_tiled": [{"roof": "copy", "gbps": 3836.0, "copy_gbps": 4153.0,
                                 "pct_of_copy": 92.4, "ratio": 11.6}],
        }
    )
    header, *rows = report.roofline(g)[1:4]
    assert [r.split()[:2] for r in rows] == [["sgemm", "cuBLAS"], ["transpose_tiled", "copy"]]
    end = header.index("achieved") + len("achieved")
    for row in rows:
        assert row[end - 1] != " " and row[end] == " ", (header, row)

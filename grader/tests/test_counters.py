"""The counter-based diagnosis of a slow kernel (grader.counters), on ncu reports recorded on an
H200 with CUDA 13.0 (grader/tests/data/ncu/: ``ncu --import ... --csv --page raw`` of one
launch each, 2026-12-01): the hint names bank conflicts for the unpadded transpose and not for
the padded or XOR-swizzled one, uncoalesced accesses for scale_rows with threadIdx.x along the
rows and not for the solution."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader import counters

RECORDED = Path(__file__).parent / "data" / "ncu"


def recorded(name: str) -> counters.Counters:
    c = counters.parse_csv((RECORDED / f"{name}.csv").read_text())
    assert c is not None
    return c


def test_unpadded_transpose_is_told_bank_conflicts():
    c = recorded("3.3-tiling-unpadded_transpose-transpose_tiled")
    assert c.shared_ld_waves == pytest.approx(32.05, abs=0.01)  # a 32-way conflict
    hint = counters.slow_hint(c)
    assert hint.startswith("shared-memory bank conflicts: 32.1 wavefronts per shared load")
    assert "(32-way)" in hint and "pad the tile" in hint and "uncoalesced" not in hint


@pytest.mark.parametrize(
    "name",
    [
        "3.3-tiling-solution-transpose_tiled",  # [32][33]
        "3.3-tiling-transpose_xor_swizzle-transpose_tiled",  # no padding, column index swizzled
        "3.3-tiling-solution-matmul_tiled",
        "3.1-registers-solution-coalescing",
    ],
)
def test_conflict_free_and_coalesced_kernels_get_no_cause(name):
    c = recorded(name)
    assert counters.slow_hint(c) is None, c
    for waves in (c.shared_ld_waves, c.shared_st_waves):
        assert waves is None or waves < counters.CONFLICT_WAVES  # matmul's loads: 1.20


def test_uncoalesced_scale_rows_is_told_so():
    c = recorded("3.1-registers-scale_rows_threadx_along_rows-coalescing")
    assert c.shared_ld_waves is None  # no shared memory at all
    assert c.global_ld_use_pct == pytest.approx(21.96, abs=0.01)
    assert c.global_st_use_pct == pytest.approx(12.5)
    hint = counters.slow_hint(c)
    assert "uncoalesced global loads: only 22 %" in hint
    assert "uncoalesced global stores: only 12 %" in hint or "only 13 %" in hint
    assert "bank conflicts" not in hint


def test_text_gives_the_figures():
    text = recorded("3.3-tiling-transpose_xor_swizzle-transpose_tiled").text()
    assert text.startswith("shared memory 1.07 wavefronts per load, 1.03 wavefronts per store")
    assert "global sectors used: loads 100 %, stores 100 %" in text
    assert "occupancy 85 % of the SM's warps" in text


def test_no_launch_in_the_report_is_none():
    assert counters.parse_csv("") is None
    assert counters.parse_csv('"ID","Kernel Name"\n"",""\n') is None

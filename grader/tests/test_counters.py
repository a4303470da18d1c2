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
    if not RECORDED.is_dir():  # the student release leaves the recordings out (grader/dist.py)
        pytest.skip("recorded from solutions and fixtures: in the instructors' repository only")
    c = counters.parse_csv((RECORDED / f"{name}.csv").read_text())
    assert c is not None
    return c


def test_unpadded_transpose_is_told_bank_conflicts():
    c = recorded("3.3-tiling-unpadded_transpose-transpose_tiled")
    assert c.shared_ld_waves == pytest.approx(32.05, abs=0.01)  # a 32-way conflict
    assert c.shared_ld_conflicts == pytest.approx(31.05, abs=0.01)
    hint = counters.slow_hint(c)
    assert hint.startswith("shared-memory bank conflicts: 31.1 extra wavefronts per shared load")
    assert "(a 32-way conflict for 4-byte accesses)" in hint
    assert "pad the tile" in hint and "uncoalesced" not in hint


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
    for extra in (c.shared_ld_conflicts, c.shared_st_conflicts):
        assert extra is None or extra < counters.CONFLICT_EXTRA  # matmul's stores: 0.16


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
    assert text.startswith(
        "shared memory 1.07 wavefronts per load (0.07 from bank conflicts), 1.03 wavefronts per "
        "store (0.03 from bank conflicts)"
    )
    assert "global sectors used: loads 100 %, stores 100 %" in text
    assert "occupancy 85 % of the SM's warps" in text


def test_no_launch_in_the_report_is_none():
    assert counters.parse_csv("") is None
    assert counters.parse_csv('"ID","Kernel Name"\n"",""\n') is None


def _row(**values: float) -> str:
    """A one-launch ``--csv --page raw`` text holding ``values`` (metric name: figure)."""
    names = ",".join(f'"{k}"' for k in values)
    units = ",".join('""' for _ in values)
    figures = ",".join(f'"{v}"' for v in values.values())
    return f"{names}\n{units}\n{figures}\n"


def test_wide_shared_loads_are_not_conflicts():
    """A conflict-free warp-wide 16-byte load takes 4 wavefronts (512 bytes, 128 per
    wavefront): wavefronts per instruction alone told lab 3.3's float4 convolution of a
    6-way conflict (bench/h200-2026-12-02-session5, hostile_memo_by_fingerprint). The
    conflicts counter decides."""
    wide = {
        counters.SHARED_LD_INST: 100,
        counters.SHARED_LD_WAVES: 400,
        counters.SHARED_LD_CONFLICTS: 0,
    }
    c = counters.parse_csv(_row(**wide))
    assert c.shared_ld_waves == pytest.approx(4.0) and c.shared_ld_conflicts == 0
    assert counters.slow_hint(c) is None
    conflicted = dict(wide, **{counters.SHARED_LD_WAVES: 600, counters.SHARED_LD_CONFLICTS: 200})
    hint = counters.slow_hint(counters.parse_csv(_row(**conflicted)))
    assert hint.startswith("shared-memory bank conflicts: 2 extra wavefronts per shared load")
    assert "(a 3-way conflict for 4-byte accesses)" in hint

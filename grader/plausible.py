"""Timed results that no correct kernel can reach: scored as nothing, with the reason.

The judge times the student's launches itself (docs/design-notes.md, note 22), but a
submission can still be faster than its work allows in one way: by not doing the work in
the timed launch — a result kept from an earlier repetition (the judge rotates input sets,
and a kernel that recognises one can copy the answer it kept) or work done before the timed
launch. Such a launch still has to write its output, so it looks like a copy: far faster
than a compute-bound kernel can be, about as fast as a memory-bound one. Two roofs catch
what is left:

- the copy roof: a kernel cannot move the bytes its work needs (each input read once, each
  output written once) much faster than ``cudaMemcpy`` moves them on the same device in the
  same run (``pct_of_copy``); ``COPY_MARGIN`` allows for the measurement's noise;
- the FP32 roof: no kernel does more float32 operations per second than the device's cores
  can (two per fused multiply-add, per FP32 lane, per clock: ``fp32_gflops``); the device's
  facts come from the judge.
"""

from __future__ import annotations

COPY_MARGIN = 1.25  # above 125 % of the copy's speed a result is not believed
FP32_MARGIN = 1.05

# FP32 lanes per SM by compute capability (CUDA C++ Programming Guide, "Arithmetic
# Instructions": throughput of 32-bit floating-point add, multiply, multiply-add).
_FP32_LANES = {(7, 0): 64, (7, 5): 64, (8, 0): 64}
_FP32_LANES_DEFAULT = 128  # 8.6, 8.7, 8.9, 9.0, 10.x, 12.x


def fp32_gflops(device: dict | None) -> float | None:
    """The device's FP32 roof in GFLOP/s from the judge's facts, or None when unknown."""
    if not isinstance(device, dict):
        return None
    try:
        major, minor = (int(x) for x in str(device.get("cc", "")).split("."))
        sm_count = int(device["sm_count"])
        clock_khz = int(device["clock_khz"])
    except (KeyError, TypeError, ValueError):
        return None
    if sm_count <= 0 or clock_khz <= 0:
        return None
    lanes = _FP32_LANES.get((major, minor), _FP32_LANES_DEFAULT)
    return 2.0 * lanes * sm_count * clock_khz * 1e3 / 1e9


def implausible(doc: dict, device: dict | None) -> str | None:
    """Why the timed run ``doc`` cannot be true (None when it can)."""
    metrics = doc.get("metrics") or {}
    pct = metrics.get("pct_of_copy")
    if isinstance(pct, (int, float)) and pct > 100 * COPY_MARGIN:
        return (
            f"{pct:.0f} % of the copy bandwidth: faster than copying the bytes the work needs "
            f"(a correct kernel stays below {100 * COPY_MARGIN:.0f} %)"
        )
    roof = fp32_gflops(device)
    gflops = metrics.get("gflops")
    if roof and isinstance(gflops, (int, float)) and gflops > FP32_MARGIN * roof:
        return (
            f"{gflops / 1000:.1f} TFLOP/s: above the device's FP32 roof of {roof / 1000:.1f} "
            "TFLOP/s"
        )
    return None

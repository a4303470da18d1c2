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

``disturbed`` catches the other way to shape a ratio: slowing the baseline down. Work the
submission keeps on the GPU while its process is idle (a kernel left running in a process it
left behind) shares the GPU with the judge's baseline, which then takes longer than it did
when the judge timed it alone, before the student's process started
(``timing.baseline_alone_ms``). Above ``BUSY_RATIO`` times that figure (and ``BUSY_MIN_MS``
more) no performance is scored. The same work makes the course's empty-kernel server wait for
its time slice, and that exchange is subtracted from each of the student's samples: so the
exchange is compared with its time alone too (``EXCHANGE_RATIO``), which catches it where the
baseline's own time spreads too much to (lab 3.2c's page faults: design note 95).
"""

from __future__ import annotations

COPY_MARGIN = 1.25  # above 125 % of the copy's speed a result is not believed
# The baseline among the student's repetitions is per launch of a batch (its one
# synchronisation shared), so it is at most about its single-launch time alone. Measured on
# the H200 (bench/h200-2026-12-01-hostile/): the references 0.98-1.00, a process left
# behind 2.23.
BUSY_RATIO = 1.5
BUSY_MIN_MS = 0.05
# The exchange with the course's empty-kernel server (``timing.worker_overhead_ms``, subtracted
# from each student sample up to a cap: design note 96) against the same exchange timed before the
# student's process started (``worker_overhead_alone_ms``). Measured on an H100 (design note 95):
# alone 0.006-0.012 ms (bench/h200-2026-12-06-session40, g130-g131; 0.0035-0.0126 in session 41's
# class of 100); among the repetitions 0.146-0.224 ms in the 259 honest timed runs of labs 3.2 and
# 3.5 kept from sessions 39-40 (alone and in batches of 8-16; the H200's 0.148-0.188 in session
# 23), and 2.38 ms behind a process left behind spinning every SM (lab 3.2's
# hostile_left_behind_unified, g129): the server waits for its time slice. In practice
# EXCHANGE_MIN_MS decides; the ratio keeps a slow host's exchange, alone and among alike, from
# tripping it. Alone above EXCHANGE_MIN_MS, the GPU was busy before the student's process started
# (a review's finding); but a process already spinning the GPU then slowed neither exchange in
# session 41 (g134: both are differences of two empty launches that wait alike), which busy_before
# sees (design note 97). Under this margin the judge itself subtracts at most the exchange alone
# plus 0.25 ms (common/cml_exchange.h, design note 96), so a lengthened exchange no longer shrinks
# the samples by as much.
EXCHANGE_RATIO = 4.0
EXCHANGE_MIN_MS = 0.5
# The judge's own empty launch and its synchronisation before the student's process started
# (``timing.empty_launch_alone_ms``, design note 97): on an idle H100 0.149 ms; beside another
# process spinning every SM in 30 ms launches 2.378-2.386 ms (bench/h200-2026-12-06-session41,
# g135), where that run's exchange stayed at 0.017-0.024 ms and its baseline's among/alone at
# 1.00. Not yet measured in a class batch, nor on the H200.
EMPTY_LAUNCH_MAX_MS = 0.5
FP32_MARGIN = 1.05

# FP32 lanes per SM by compute capability (CUDA C++ Programming Guide, "Arithmetic
# Instructions": throughput of 32-bit floating-point add, multiply, multiply-add).
_FP32_LANES = {(7, 0): 64, (7, 5): 64, (8, 0): 64}
_FP32_LANES_DEFAULT = 128  # 8.6, 8.7, 8.9, 9.0, 10.x, 12.x


def compute_capability(device: dict | None) -> tuple[int, int] | None:
    """(major, minor) of the judge's device facts ("cc": "9.0"), or None when unknown."""
    if not isinstance(device, dict):
        return None
    try:
        major, minor = (int(x) for x in str(device.get("cc", "")).split("."))
    except ValueError:
        return None
    return major, minor


def fp32_gflops(device: dict | None) -> float | None:
    """The device's FP32 roof in GFLOP/s from the judge's facts, or None when unknown."""
    cc = compute_capability(device)
    if cc is None:
        return None
    try:
        sm_count = int(device["sm_count"])
        clock_khz = int(device["clock_khz"])
    except (KeyError, TypeError, ValueError):
        return None
    if sm_count <= 0 or clock_khz <= 0:
        return None
    lanes = _FP32_LANES.get(cc, _FP32_LANES_DEFAULT)
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


def disturbed(doc: dict, ratio: float = BUSY_RATIO, exchange: bool = True) -> str | None:
    """Why the timing in ``doc`` shows the GPU was kept busy by the submission between its
    launches, or already busy before its process started (``busy_before``, design note 97:
    another process's work; its message blames no one); None when neither, or when the judge
    timed neither figure alone. Kept busy: the
    baseline among the repetitions more than ``ratio`` times (the exercise's
    ``PerformanceSpec.busy_ratio``: ``BUSY_RATIO`` or its baseline's wider measured spread)
    and ``BUSY_MIN_MS`` more than alone; or the exchange with the empty-kernel server slowed
    against its time alone, or already slow then (``exchange_slowed``; not with ``exchange``
    False: a run whose samples were no longer than the exchange is ``exchange_bound``'s,
    which names both causes, note 51)."""
    timing = doc.get("timing") or {}
    before = busy_before(doc) if exchange else None
    if before:  # nothing of the submission's existed yet: not "kept" below
        return before + "; grade again on an idle GPU"
    alone = timing.get("baseline_alone_ms")
    among = (timing.get("baseline") or {}).get("median_ms")
    kept = (
        ": something of your submission kept the GPU busy while its process was idle (a kernel "
        "left running, a process left behind)"
    )
    if is_number(alone) and is_number(among) and alone > 0:
        if among > ratio * alone and among - alone > BUSY_MIN_MS:
            return (
                f"the baseline took {among:.3f} ms per launch among your repetitions against "
                f"{alone:.3f} ms before your process started" + kept
            )
    # the exchange subtracted from each of the student's samples (design note 95): inflated,
    # it shrinks them, whatever the baseline's own spread
    slowed = exchange_slowed(doc) if exchange else None
    # the exchange is the course's process: a grading beside yours cannot slow it while the
    # GPU is your run's alone, but say how to tell (note 51's hint)
    return (
        slowed + kept + "; if yours leaves nothing running, ask for a grade alone on an idle "
        "machine"
        if slowed
        else None
    )


def exchange_slowed(doc: dict | None) -> str | None:
    """Why the exchange with the course's empty-kernel server among the student's
    repetitions (``timing.worker_overhead_ms``, subtracted from each of their samples up to
    alone + 0.25 ms, note 96) says the GPU was not the run's alone: more than
    ``EXCHANGE_RATIO`` times and ``EXCHANGE_MIN_MS`` more than the same exchange before the
    student's process started (``worker_overhead_alone_ms``); None when it does not, or was
    not timed alone. The grader times such a run again (as a spread one, note 33), and where
    the second is slowed too ``disturbed`` scores no performance: a host's passing delay is
    not timed twice, a process left behind is (design note 95). First, ``busy_before``: the
    GPU busy before the student's process started (design note 97)."""
    before = busy_before(doc)
    if before:
        return before
    timing = (doc or {}).get("timing") or {}
    alone, among = timing.get("worker_overhead_alone_ms"), timing.get("worker_overhead_ms")
    if not (is_number(alone) and is_number(among) and alone >= 0):
        return None
    taken = _subtracted(timing, among)
    if among > EXCHANGE_RATIO * alone and among - alone > EXCHANGE_MIN_MS:
        return (
            f"the exchange with the course's empty-kernel process took {among:.3f} ms among "
            f"your repetitions against {alone:.3f} ms before your process started, and "
            f"{taken} of it is subtracted from each of your samples"
        )
    if alone > EXCHANGE_MIN_MS:
        return (
            f"the exchange with the course's empty-kernel process took {alone:.3f} ms before "
            f"your process started, where an idle GPU takes under {EXCHANGE_MIN_MS} ms, and "
            f"{among:.3f} ms among your repetitions ({taken} of it subtracted from each of your "
            "samples): the GPU was already busy (a process an earlier run left behind?)"
        )
    return None


def busy_before(doc: dict | None) -> str | None:
    """Why the GPU was busy before the student's process started (None when it was not, or
    the figure is missing): the judge's own empty launch and its synchronisation, timed then
    (``timing.empty_launch_alone_ms``), took more than ``EMPTY_LAUNCH_MAX_MS``. Another
    process's work on the GPU (another user's job, a process left behind outside any sandbox)
    slows every figure of the run alike: the baseline alone and among, the copy, the exchange's
    two launches, so none of the rules above sees it, while short launches lose far more to the
    GPU's time slices than long ones (design note 97). ``exchange_slowed`` gives it first, so
    the grade times the run again; busy again, ``disturbed`` scores no performance."""
    own = ((doc or {}).get("timing") or {}).get("empty_launch_alone_ms")
    if not (is_number(own) and own > EMPTY_LAUNCH_MAX_MS):
        return None
    return (
        f"the judge's own empty kernel took {own:.3f} ms to launch and finish before your "
        f"process started, where an idle GPU takes under {EMPTY_LAUNCH_MAX_MS} ms: the GPU was "
        "already busy with another process's work, which slows short launches far more than "
        "long ones"
    )


def _subtracted(timing: dict, among: float) -> str:
    """The exchange the judge subtracted from each student sample, as the messages give it:
    ``timing.worker_overhead_subtracted_ms`` (at most the exchange alone plus an allowance,
    common/cml_exchange.h, design note 96), else all of ``among`` (a judge without the cap)."""
    taken = timing.get("worker_overhead_subtracted_ms")
    return f"{taken if is_number(taken) else among:.3f} ms"


def is_number(x) -> bool:
    """Whether ``x`` is a JSON number (an int or a float, not a bool)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def exchange_bound(doc: dict | None) -> str | None:
    """Why the timed run ``doc`` measured the host rather than the student's launches (None
    when it did not): half its samples or more were no longer than the exchange with the
    course's empty-kernel server that the judge subtracts from each (``timing.under_overhead``,
    docs/protocol.md). Such a sample says that exchange was slowed (processes waiting for a
    CPU, design note 51), not that the launches took nothing: its figure would be
    "implausible". The grader times such a run again; bound again, it scores no performance:
    the host's delays cannot be told from a submission's own process keeping the kept CPUs
    busy to slow the course's exchange (which, overdone, would otherwise be a risk-free way
    past the copy roof), and the message says both."""
    timing = (doc or {}).get("timing") or {}
    under, reps, over = (timing.get(k) for k in ("under_overhead", "reps", "worker_overhead_ms"))
    numbers = all(is_number(x) for x in (under, reps))
    if not numbers or reps <= 0 or 2 * under < reps:
        return None
    took = f" ({_subtracted(timing, over)})" if is_number(over) else ""
    return (
        f"{under} of the {reps} samples of your launches took no longer than the exchange with "
        f"the course's empty-kernel process{took} that is subtracted from each: the host's "
        "delays were measured, not your kernel"
    )



# A timed run's samples spread: the median of the student's samples over their fastest tenth.
# The 153 undisturbed timed runs of lab 3.3 kept in bench/ (sessions 6-10, solutions in
# batches of 16 and alone) stay within 1.032; the three that lost points to a busy host were
# 1.17, 1.61 and 2.37 (bench/h200-2026-12-02-session10/g36, session8/batch16). Kernels that
# vary by nature cross it now and then, and cost one more run: lab 3.2's zero_copy (0.03 ms)
# and unified_memory 1.15 and 1.13, lab 3.5's pipeline 1.13 (session10/g38, g40).
SPREAD_LIMIT = 1.10


def spread(doc: dict | None) -> float | None:
    """The median of the student's timed samples over their 10th percentile in the run
    document ``doc`` (docs/protocol.md, ``timing.student``); None without both figures."""
    student = ((doc or {}).get("timing") or {}).get("student") or {}
    median, p10 = student.get("median_ms"), student.get("p10_ms")
    ok = all(is_number(x) for x in (median, p10))
    return median / p10 if ok and p10 > 0 else None


def spread_text(ratio: float) -> str:
    """The report's words for a run timed again because its samples spread by ``ratio``."""
    return (
        f"timed twice: the first run's median was {ratio:.2f}x its fastest tenth (over "
        f"{SPREAD_LIMIT:.2f}x: other work on the host or the GPU may have slowed it), so the "
        "second run's figures are graded"
    )

"""Hardware counters that decide a slow kernel's diagnosis (issue 14, part 2).

When a timed exercise falls short of full performance points, the grader runs the student's
kernel once more under Nsight Compute, on the performance case, and measures what the usual
causes would show::

    ncu --kernel-name KERNEL --launch-count 1 --metrics M,... -f -o REPORT \\
        LAB --exercise NAME --size ... --seed S --json FILE
    ncu --import REPORT.ncu-rep --csv --page raw

- shared-memory bank conflicts: the wavefronts per shared load (store) instruction that
  conflicts add (``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum`` over
  ``smsp__sass_inst_executed_op_shared_ld.sum``): 0 without conflicts, 31 for a 32-way
  conflict of 4-byte accesses. Not the wavefronts per instruction themselves
  (``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum``, also shown): a conflict-free
  128-bit load of a warp takes 4 (512 bytes, 128 per wavefront), so lab 3.3's float4
  convolution read 6.22 per load and was told of a 6-way conflict it may not have;
- coalescing: the share of each 32-byte sector fetched from (written to) global memory that
  the instructions used (``smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct``);
- occupancy: ``sm__warps_active.avg.pct_of_peak_sustained_active``.

The hint is chosen from the measurement — conflicts: pad or swizzle; sectors: coalesce;
neither: the figures, and the lab's own hint — and the figures are printed. Measured on an
H200 (grader/tests/data/ncu/): the lab 3.3 transpose with an unpadded [32][32] tile has 32.1
wavefronts per shared load, the padded and the XOR-swizzled ones 1.04 and 1.07; lab 3.1's
scale_rows with threadIdx.x along the rows uses 22 % (loads) and 12.5 % (stores) of each
sector, the solution 90 % and 100 %.

The counters are a hint, never points: ncu runs the student's process (in the sandbox, like
every run of it), which could disturb what ncu writes; that would mislead only its own
author. The report file lies in that run's folder, so it is read back (``ncu --import``) in the
same sandbox and limits, and only when it is a regular file. Where ncu is missing, not permitted to read the counters (``ERR_NVGPUCTRPERM``), or
fails, the report says so and keeps the lab's hint.
"""

from __future__ import annotations

import csv
import io
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader import harness, sandbox
from grader import run as runner
from grader.sandbox import Sandbox
from grader.tools import Tool

SHARED_LD_INST = "smsp__sass_inst_executed_op_shared_ld.sum"
SHARED_ST_INST = "smsp__sass_inst_executed_op_shared_st.sum"
SHARED_LD_WAVES = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
SHARED_ST_WAVES = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
SHARED_LD_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
SHARED_ST_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
GLOBAL_LD_USE = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"
GLOBAL_ST_USE = "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
METRICS = (
    SHARED_LD_INST,
    SHARED_ST_INST,
    SHARED_LD_WAVES,
    SHARED_ST_WAVES,
    SHARED_LD_CONFLICTS,
    SHARED_ST_CONFLICTS,
    GLOBAL_LD_USE,
    GLOBAL_ST_USE,
    OCCUPANCY,
)

CONFLICT_EXTRA = 0.5  # conflict wavefronts per shared instruction from which they are the cause
SECTOR_USE_PCT = 60.0  # below this share of each sector used, accesses are not coalesced
TIMEOUT_S = 120.0


@dataclass
class Counters:
    """One launch's figures; None where the kernel made no such access."""

    shared_ld_waves: float | None  # wavefronts per shared load instruction
    shared_st_waves: float | None
    shared_ld_conflicts: float | None  # of those, the ones bank conflicts added
    shared_st_conflicts: float | None
    global_ld_use_pct: float | None  # % of each global sector loaded that was used
    global_st_use_pct: float | None
    occupancy_pct: float | None

    def text(self) -> str:
        parts = []
        if self.shared_ld_waves is not None or self.shared_st_waves is not None:
            parts.append(
                "shared memory "
                + ", ".join(
                    f"{w:.3g} wavefronts per {what}"
                    + (f" ({c:.2f} from bank conflicts)" if c is not None else "")
                    for what, w, c in (
                        ("load", self.shared_ld_waves, self.shared_ld_conflicts),
                        ("store", self.shared_st_waves, self.shared_st_conflicts),
                    )
                    if w is not None
                )
                + " (1 per 4-byte access of a warp, 4 per 16-byte one, without conflicts)"
            )
        use = [
            f"{what} {u:.0f} %"
            for what, u in (("loads", self.global_ld_use_pct), ("stores", self.global_st_use_pct))
            if u is not None
        ]
        if use:
            parts.append("global sectors used: " + ", ".join(use))
        if self.occupancy_pct is not None:
            parts.append(f"occupancy {self.occupancy_pct:.0f} % of the SM's warps")
        return "; ".join(parts) or "no shared or global accesses counted"


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _per(waves: float | None, inst: float | None) -> float | None:
    return waves / inst if waves is not None and inst else None


def parse_csv(text: str) -> Counters | None:
    """The first kernel row of ``ncu --import ... --csv --page raw`` (a header row, a units
    row, then one row per profiled launch), or None when it holds none."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) < 3:
        return None
    row = dict(zip(rows[0], rows[2]))
    use = {k: _number(row.get(k)) for k in (GLOBAL_LD_USE, GLOBAL_ST_USE)}
    ld_inst, st_inst = _number(row.get(SHARED_LD_INST)), _number(row.get(SHARED_ST_INST))
    return Counters(
        shared_ld_waves=_per(_number(row.get(SHARED_LD_WAVES)), ld_inst),
        shared_st_waves=_per(_number(row.get(SHARED_ST_WAVES)), st_inst),
        shared_ld_conflicts=_per(_number(row.get(SHARED_LD_CONFLICTS)), ld_inst),
        shared_st_conflicts=_per(_number(row.get(SHARED_ST_CONFLICTS)), st_inst),
        # ncu gives 0 % for a kind of access the kernel never makes
        global_ld_use_pct=use[GLOBAL_LD_USE] or None,
        global_st_use_pct=use[GLOBAL_ST_USE] or None,
        occupancy_pct=_number(row.get(OCCUPANCY)),
    )


def slow_hint(c: Counters) -> str | None:
    """The cause the counters show, with what to do about it; None when they show neither
    bank conflicts nor uncoalesced accesses."""
    found = []
    for what, x in (("load", c.shared_ld_conflicts), ("store", c.shared_st_conflicts)):
        if x is not None and x >= CONFLICT_EXTRA:
            found.append(
                f"shared-memory bank conflicts: {x:.3g} extra wavefronts per shared {what} "
                f"instruction (a {1 + x:.0f}-way conflict for 4-byte accesses): pad the tile "
                "([TILE][TILE + 1]) or swizzle its column index so that the 32 threads of a "
                "warp hit 32 different banks"
            )
    for what, u in (("loads", c.global_ld_use_pct), ("stores", c.global_st_use_pct)):
        if u is not None and u < SECTOR_USE_PCT:
            found.append(
                f"uncoalesced global {what}: only {u:.0f} % of each 32-byte sector is used: "
                "make consecutive threadIdx.x touch consecutive addresses"
            )
    return "; ".join(found) or None


@dataclass
class Profile:
    counters: Counters | None
    problem: str | None = None  # why there are no counters, for the report


def profile(
    ncu: Tool,
    binary: Path,
    exercise: str,
    kernel: str,
    size: tuple[int, ...],
    seed: int,
    box: Sandbox | None = None,
) -> Profile:
    """One launch of ``kernel`` in a plain run of the exercise under ncu, in the sandbox
    like every run of the lab binary; its report is read back with ``ncu --import``."""
    with tempfile.TemporaryDirectory(prefix="grader-ncu-") as tmp:
        report = Path(tmp) / "counters"
        argv = [ncu.path, "--kernel-name", kernel, "--launch-count", "1"]
        argv += ["--metrics", ",".join(METRICS), "-f", "-o", str(report)]
        argv += [str(binary), *harness.case_args(exercise, size, seed)]
        argv += ["--json", str(Path(tmp) / "run.json")]
        out = runner.run(
            argv,
            timeout_s=TIMEOUT_S,
            cwd=tmp,
            env=ncu.env(),
            max_output=64 * 1024,
            sandbox=box or sandbox.choose(),
            readable=harness.run_readable(binary),
        )
        if "ERR_NVGPUCTRPERM" in out.stdout + out.stderr:
            return Profile(None, "ncu may not read the GPU's counters here (ERR_NVGPUCTRPERM)")
        rep = report.with_suffix(".ncu-rep")
        # the folder was the student's process's to write: a regular file only (no link, no
        # FIFO), read by ncu in the same sandbox and limits, never the grader's own
        try:
            regular = stat.S_ISREG(os.lstat(rep).st_mode)
        except OSError:
            regular = False
        if not regular:
            return Profile(None, f"ncu wrote no report (it {out.describe()})")
        read = runner.run(
            [ncu.path, "--import", str(rep), "--csv", "--page", "raw"],
            timeout_s=TIMEOUT_S,
            cwd=tmp,
            env=ncu.env(),
            max_output=1024 * 1024,
            sandbox=box or sandbox.choose(),
            readable=[tmp],
        )
    counters = parse_csv(read.stdout) if read.ok else None
    if counters is None:
        return Profile(None, f"ncu's report holds no launch of {kernel}")
    return Profile(counters)

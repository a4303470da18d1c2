"""Failures into readable lines, each with a hint that names the likely mistake.

Every function here reads run documents (docs/protocol.md) and the exercise's manifest
entry, and returns text. Lab-specific advice comes only from ``[exercise.hints]`` in
lab.toml; the generic text below is about CUDA, never about one lab. The conditions:

- **not implemented**: every checked element still holds the poison pattern
  (``n_unwritten == n``) → "matmul_tiled: not implemented yet — see TODO(3.3a) in
  kernels.cu" (``hints.not_implemented``, else the exercise's ``todo`` tag).
- **edge**: the bad elements' bounding box is a band along the last rows or the last
  columns (at most half of them, not starting at 0) → "wrong only in rows 992–999 and
  columns 992–999 of the 1000×1000 output: <hints.edge>". A race spreads its errors over
  most of the output (rows 64–999), which is not an edge.
- **border**: a 2D output whose first bad element is its corner (row 0, column 0), with at
  most half of the checked elements bad: the mark of a wrong border rule (a halo read as 0
  where the lab clamps, or the reverse), whose errors lie along all four sides, so that
  their bounding box is the whole output and no edge. The run document gives no map of the
  bad elements, only that box, the first one and the count, so this is a likelihood: the
  summary leads with ``hints.edge`` (the lab's border rule), then gives ``hints.wrong``
  for the case it is not (a student's trial of lab 3.5: a zero-padded blur halo was told
  first to upload the weights).
- **wrong**: the first bad element with its coordinates, expected and got; when some sizes
  pass and others fail, which sizes fail.
- **launch / CUDA error**: the CUDA message, with a hint for the messages students meet
  ("too many resources requested for launch", "invalid configuration argument", ...). When
  the error came from a launch call, ``error.launch`` (the lab's launch record, made in the
  student's process: shown, never scored) names the launch — kernel, grid, block, dynamic
  and static shared memory, registers — and the limit it broke, which replaces the guess:
  "matmul_tiled: at 1×1×1 the launch matmul_tiled_kernel<<<(0, 0), (32, 32), 0 B>>> (...)
  failed (invalid configuration argument): the grid's x dimension is 0 (each must be ≥ 1):
  ... round up, (n + TILE - 1) / TILE ...". A record that breaks no known limit still names
  the launch, with the message's hint.
- **timeout**: a divergent ``__syncthreads()`` or an infinite loop.
- **crash**: the signal, and where host-side crashes usually come from.
- **static**, **sanitizer**, **slow**: the finding with ``hints.static`` /
  ``hints.<tool>`` / ``hints.slow`` or a generic hint.
- **compiler messages** (``compiler_hints``): a line of the build's output that students
  cannot read unaided gets a line of its own saying what it means and what to do, in
  every lab (the build step's lines, whether the build failed or only warned).
"""

from __future__ import annotations

import re

from grader import roofs
from grader.harness import CaseRun, launch_hung_text
from grader.manifest import Criterion, Exercise, Lab

GENERIC = {
    "edge": (
        "the elements at the far edge of the output are wrong: handle the last, partial "
        "block or tile (sizes need not be multiples of it) with bounds checks on loads "
        "and stores"
    ),
    "wrong": "compare your indexing with the reference on the smallest failing size",
    "border": (
        "the elements along the output's border are wrong: a neighbour outside the image "
        "follows the lab's border rule (lab.h: clamped, or 0), in every pass and every tile"
    ),
    "sizes": (
        "look at what the failing sizes have in common (not a multiple of the block or "
        "tile size? a dimension of 1?)"
    ),
    "timeout": (
        "a barrier inside a branch some threads skip (divergent __syncthreads) or an "
        "infinite loop?"
    ),
    "crash": (
        "a host-side bug in the launcher (a device pointer dereferenced on the host, a "
        "host array written out of bounds)?"
    ),
    "static": "the exercise asks for a particular use of the memory hierarchy: see its TODO",
    "static_forbid": "the exercise forbids these instructions: see its TODO and the handout",
    "memcheck": (
        "an out-of-bounds or misaligned access: guard every load and store against the "
        "sizes (the line is named above)"
    ),
    "racecheck": (
        "a shared-memory race: a __syncthreads() is missing between writing shared memory "
        "and reading what other threads wrote, or before the next iteration overwrites it"
    ),
    "racecheck_raw": (
        "a read-after-write race: threads read shared-memory elements that other threads "
        "have not written yet; a __syncthreads() is missing between those writes and the reads"
    ),
    "racecheck_war": (
        "a write-after-read race: shared-memory elements are overwritten while other threads "
        "may still be reading them; a __syncthreads() is missing between the reads and the "
        "next writes (at the end of a loop, before the next iteration refills shared memory)"
    ),
    "racecheck_waw": (
        "a write-after-write race: two threads write the same shared-memory element with no "
        "barrier between them, so which value stays is a matter of timing; give each element "
        "one writer, or order the writes with a __syncthreads()"
    ),
    "synccheck": (
        "a __syncthreads() that not every thread of the block reaches (inside a branch or "
        "after an early return)"
    ),
    "initcheck": "device memory read before anything was written to it",
    "slow": "see the handout's performance notes for what makes this kernel fast",
}

LAUNCH_HINTS = (
    (
        "too many resources requested",
        "the block needs more registers or shared memory than an SM has: use fewer threads "
        "per block, or fewer registers or less shared memory per thread",
    ),
    (
        "invalid configuration argument",
        "a block of more than 1024 threads, or a grid with a zero dimension (check the "
        "launcher's grid arithmetic for small sizes)",
    ),
    (
        "illegal memory access",
        "an out-of-bounds read or write: guard indices against the sizes (the sanitizer's "
        "memcheck names the line)",
    ),
    (
        "misaligned address",
        "a vector access (float2/float4) at an address that is not aligned to its size",
    ),
    (
        "unspecified launch failure",
        "the kernel faulted, often through an out-of-bounds access",
    ),
    (
        "invalid argument",
        "a CUDA call got an invalid argument (a size in elements instead of bytes? more "
        "than 48 KB of dynamic shared memory without cudaFuncSetAttribute?)",
    ),
    ("out of memory", "a device allocation failed: is a size computed in the wrong unit?"),
    (
        "no kernel image",
        "the binary was built for another GPU architecture (make CUDA_ARCH=sm_XX)",
    ),
    ("invalid device function", "the binary was built for another GPU architecture"),
)


# What to do about each limit a launch can break (error.launch.limit, common/cml_launch_limits.h).
LIMIT_ADVICE = {
    "grid_zero": (
        "a block count rounded down (n / TILE) is 0 for a size below the tile: round up, "
        "(n + TILE - 1) / TILE, and guard the last, partial tile in the kernel"
    ),
    "block_zero": "every block dimension needs at least 1 thread",
    "block_threads": (
        "a block has at most 1024 threads (x × y × z): use a smaller block and give each "
        "thread more elements, or launch more blocks"
    ),
    "block_dim": "a block is at most 1024 threads along x and y and 64 along z",
    "grid_dim": (
        "a grid is at most 65535 blocks along y and z (2^31 − 1 along x): put the long "
        "dimension along x, or let each block loop over several tiles"
    ),
    "registers": (
        "use fewer threads per block, or __launch_bounds__(threads per block) on the kernel "
        "so the compiler keeps its registers within the block's share"
    ),
    "kernel_threads": (
        "launch at most as many threads per block as the kernel's __launch_bounds__ (or its "
        "registers) allow"
    ),
    "smem_optin": (
        "above 48 KB a block's shared memory needs the opt-in: call cudaFuncSetAttribute(kernel, "
        "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) in the launcher before the launch "
        "— or check the size: bytes of the element type the kernel uses, not more"
    ),
    "smem_attr": (
        "raise cudaFuncAttributeMaxDynamicSharedMemorySize (cudaFuncSetAttribute) to the bytes "
        "the launch asks for"
    ),
    "smem_max": (
        "no block gets that much shared memory on this GPU: use smaller tiles, and check that "
        "the size is in bytes of the element type the kernel uses"
    ),
}

# A limit in words without its values (hidden cases: the values could give the size away).
LIMIT_WORDS = {
    "grid_zero": "a grid dimension of 0 blocks",
    "block_zero": "a block dimension of 0 threads",
    "block_threads": "more threads per block than the device allows",
    "block_dim": "a block dimension over the device's maximum",
    "grid_dim": "a grid dimension over the device's maximum",
    "registers": "more registers per block than the device has",
    "kernel_threads": "more threads per block than the kernel allows",
    "smem_max": "more shared memory per block than the device has",
    "smem_optin": "over 48 KB of shared memory per block without the opt-in",
    "smem_attr": "more dynamic shared memory than the kernel's attribute allows",
}


# Compiler messages that can appear in any lab, each with what it means and the fix. The
# texts were checked against nvcc 13.0 for sm_90 at the course's -O3 (grader tests:
# test_diagnose.py, with a real compile where nvcc is installed).
# - A store to __constant__ memory in device code: NVVM warns "Cannot store to pointer that
#   points to constant memory space" (a direct c_coef[i] = v as well as a store through a
#   pointer cast from &c_coef[0]), and the build succeeds; the PTX of the path that reaches
#   the store is `trap;` (SASS BPT.TRAP): an unconditional store makes the whole kernel a
#   trap. Nothing is written; a thread that gets there aborts the launch.
# - More than 64 KiB of __constant__ data in one file (the limit is per module): ptxas fails
#   with "File uses too much global constant data (0x10004 bytes, 0x10000 max)".
_CONSTANT_STORE = re.compile(
    r"(?:(?P<where>[^\s:]+\(\d+\)):\s*)?(?:warning:?\s*)?"
    r"Cannot store to pointer that points to constant memory space",
    re.I,
)
_CONSTANT_TOO_BIG = re.compile(
    r"uses too much global constant data \((?P<used>0x[0-9a-f]+) bytes, "
    r"(?P<limit>0x[0-9a-f]+) max\)",
    re.I,
)


def _constant_store_hint(m: re.Match) -> str:
    where = f"{m.group('where')}: " if m.group("where") else ""
    return (
        f"{where}__constant__ memory is read-only in a kernel: a store to it is no write. "
        "The compiler replaces the code that reaches this store with a trap (nvcc 13.0, "
        "sm_90: the kernel's PTX says trap;), so a thread that gets there aborts the launch "
        "on a GPU. Write a __constant__ array's values from the host before the launch, "
        "cudaMemcpyToSymbol(symbol, h_values, bytes); data a kernel must write belongs in "
        "global memory"
    )


def _constant_too_big_hint(m: re.Match) -> str:
    used, limit = int(m.group("used"), 16), int(m.group("limit"), 16)
    over = used - limit
    return (
        f"__constant__ memory holds at most {limit // 1024} KiB ({limit} bytes) per file, "
        f"and this file's __constant__ variables take {used} bytes, {over} too many. Keep "
        "a large table in global memory (cudaMalloc, then cudaMemcpy from the host) and "
        "read it through the read-only path: pass it as const float *__restrict__ and read "
        "__ldg(&table[i]); __constant__ suits a few coefficients the whole warp reads at "
        "the same index"
    )


COMPILER_HINTS = (
    (_CONSTANT_STORE, _constant_store_hint),
    (_CONSTANT_TOO_BIG, _constant_too_big_hint),
)


def compiler_hints(lines: list[str]) -> list[str]:
    """One "=> ..." line for each line of a build's output (``lines``, paths already made
    relative) that ``COMPILER_HINTS`` explains, in order, each text once."""
    out: list[str] = []
    for line in lines:
        for pattern, text in COMPILER_HINTS:
            m = pattern.search(line)
            if m:
                hint_line = f"=> {text(m)}"
                if hint_line not in out:
                    out.append(hint_line)
    return out


def hint(ex: Exercise, key: str) -> str:
    """The lab's hint for ``key`` when it has one, else the generic one."""
    return ex.hints.get(key) or GENERIC.get(key, "")


def _files(lab: Lab) -> str:
    return " and ".join(lab.required_files)  # the code, not a written report


def not_implemented(lab: Lab, ex: Exercise) -> str:
    if "not_implemented" in ex.hints:
        advice = ex.hints["not_implemented"]
    elif ex.todo:
        advice = f"see TODO({ex.todo}) in {_files(lab)}"
    else:
        advice = f"write it in {_files(lab)}"
    return f"{ex.name}: not implemented yet — {advice}"


def size_text(size) -> str:
    return "×".join(str(s) for s in size)


def _range(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}–{hi}"


def _number(x) -> str:
    if x is None:
        return "NaN/Inf"
    if isinstance(x, float):
        return f"{x:.7g}"
    return str(x)


# A band of wrong elements at the far end of a dimension is a partial last tile's only where
# the dimension is longer than a tile: on the H200, lab 3.1b's 4x5 table of chase results and
# lab 3.5d's 3-element output were told to "handle the last, partial block or tile" for a
# wrong checksum column and a rounding.
EDGE_MIN_LEN = 16


def _far_band(lo: int, hi: int, n: int) -> bool:
    """[lo, hi] is a band at the far end of 0..n-1, at most half of it, not all of it, in a
    dimension of at least EDGE_MIN_LEN."""
    return n >= EDGE_MIN_LEN and lo > 0 and hi == n - 1 and 2 * (hi - lo + 1) <= n


def is_edge(box: dict | None, rows: int, cols: int) -> bool:
    """The bad elements lie in a band along the last rows or the last columns (a partial
    last tile), not spread over the output (a race or a wrong formula)."""
    if not box or rows < 1 or cols < 1:
        return False
    try:
        r0, r1 = box["row_min"], box["row_max"]
        c0, c1 = box["col_min"], box["col_max"]
    except (KeyError, TypeError):
        return False
    return _far_band(r0, r1, rows) or _far_band(c0, c1, cols)


def is_border(check: dict) -> bool:
    """The bad elements of a 2D output start at its corner (row 0, column 0) and are at most
    half of those checked: likely a border rule broken along all four sides (``kind``
    "border"), not a wrong formula (every element) or a partial last tile (``is_edge``)."""
    rows, cols = check.get("rows") or 0, check.get("cols") or 0
    n, n_bad = check.get("n") or 0, check.get("n_bad") or 0
    first = check.get("first_bad") or {}
    if rows < 2 or cols < 2 or not 0 < 2 * n_bad <= n:
        return False
    return first.get("row") == 0 and first.get("col") == 0


def region(box: dict, rows: int, cols: int) -> str:
    """ "rows 992–999 and columns 992–999 of the 1000×1000 output"."""
    r0, r1, c0, c1 = box["row_min"], box["row_max"], box["col_min"], box["col_max"]
    if rows == 1:
        return f"elements {_range(c0, c1)} of the {cols}-element output"
    parts = []
    if not (r0 == 0 and r1 == rows - 1):
        parts.append(f"rows {_range(r0, r1)}")
    if not (c0 == 0 and c1 == cols - 1):
        parts.append(f"columns {_range(c0, c1)}")
    where = " and ".join(parts) if parts else "all rows and columns"
    return f"{where} of the {rows}×{cols} output"


def first_bad(check: dict) -> str:
    fb = check.get("first_bad") or {}
    if not fb:
        return ""
    rows = check.get("rows", 0)
    if rows and rows > 1:
        where = f"row {fb.get('row')}, column {fb.get('col')}"
    else:
        where = f"index {fb.get('index')}"
    if fb.get("unwritten"):
        got = "nothing (never written)"
    else:
        got = _number(fb.get("got"))
    text = f"first wrong element at {where}: expected {_number(fb.get('expected'))}, got {got}"
    if fb.get("tol") is not None and not fb.get("unwritten"):
        text += f" (tolerance {_number(fb.get('tol'))})"
    return text


def kind(run: CaseRun) -> str:
    """ "ok", "not_implemented", "edge", "border", "wrong", "launch", "cuda", "setup",
    "timeout", "crash" or "no_device"."""
    if run.doc is None:
        return "timeout" if run.outcome.kind == "timeout" else "crash"
    status = run.doc["status"]
    if status in ("ok", "no_device"):
        return status
    if status == "error":
        err = run.doc.get("error") or {}
        k = err.get("kind")
        return k if k in ("launch", "setup", "usage") else "cuda"
    check = run.doc.get("check") or {}
    n = check.get("n") or 0
    if n and check.get("n_unwritten") == n:
        return "not_implemented"
    if is_edge(check.get("bad_box"), check.get("rows") or 0, check.get("cols") or 0):
        return "edge"
    if is_border(check):
        return "border"
    return "wrong"


def _count(x) -> int | None:
    """A non-negative integer of the launch record, else None (unknown or malformed)."""
    if isinstance(x, bool) or not isinstance(x, int) or x < 0:
        return None
    return x


def launch_record(run: CaseRun) -> dict | None:
    """The run's ``error.launch`` (the launch call that failed, docs/protocol.md) when it is
    well formed: grid and block three counts each, dynamic shared memory a count."""
    err = (run.doc or {}).get("error")
    rec = err.get("launch") if isinstance(err, dict) else None
    if not isinstance(rec, dict):
        return None
    for key in ("grid", "block"):
        dims = rec.get(key)
        if not isinstance(dims, list) or len(dims) != 3 or any(_count(v) is None for v in dims):
            return None
    if _count(rec.get("dynamic_smem_bytes")) is None:
        return None
    return rec


def bytes_text(n: int) -> str:
    """ "512 B", "48 KB", "48.8 KB" (KB = 1024 B, as CUDA's "48 KB")."""
    if n < 1024:
        return f"{n} B"
    if n % 1024 == 0:
        return f"{n // 1024} KB"
    return f"{n / 1024:.1f} KB"


def _dims_text(dims: list[int]) -> str:
    """A dim3 as written in a launch: "256", "(0, 128)", "(8, 8, 4)"."""
    x, y, z = dims
    if y == 1 and z == 1:
        return str(x)
    return f"({x}, {y})" if z == 1 else f"({x}, {y}, {z})"


def launch_text(rec: dict) -> str:
    """ "conv2d_tiled_kernel<<<(0, 128), (32, 8), 0 B>>> (the kernel's static shared memory
    8 KB, 38 registers per thread)": the launch as written, and what the kernel itself needs
    (each part the record knows)."""
    name = rec.get("kernel") if isinstance(rec.get("kernel"), str) and rec.get("kernel") else None
    text = (
        f"{name or 'a kernel'}<<<{_dims_text(rec['grid'])}, {_dims_text(rec['block'])}, "
        f"{bytes_text(rec['dynamic_smem_bytes'])}>>>"
    )
    own = []
    static = _count(rec.get("static_smem_bytes"))
    if static is not None:
        own.append(f"static shared memory {bytes_text(static)}")
    regs = _count(rec.get("registers"))
    if regs is not None:
        own.append(f"{regs} registers per thread")
    return text + (f" (the kernel's {', '.join(own)})" if own else "")


def broken_limit(rec: dict | None) -> tuple[str, str] | None:
    """(limit, its message in words) when the record names a broken limit we know."""
    if not rec:
        return None
    limit, message = rec.get("limit"), rec.get("limit_message")
    if limit in LIMIT_ADVICE and isinstance(message, str) and message:
        return limit, message
    return None


def launch_hint(message: str) -> str:
    low = message.lower()
    for needle, text in LAUNCH_HINTS:
        if needle in low:
            return text
    return ""


def _timeout_text(run: CaseRun, timeout_s: float) -> str:
    """How a run past its time limit ended: at its launch's limit (``launch_limit_s``,
    harness.LAUNCH_LINE), else at the case's, ``timeout_s``."""
    if run.launch_limit_s is not None:
        return launch_hung_text(run.launch_limit_s)
    return f"did not finish within {timeout_s:g} s"


def case_message(run: CaseRun, timeout_s: float) -> str:
    """One line about one failed run (no lab hint: ``exercise_summary`` adds it)."""
    k = kind(run)
    if k == "timeout":
        return _timeout_text(run, timeout_s)
    if k == "crash":
        return run.problem or run.outcome.describe()
    doc = run.doc
    if k in ("launch", "cuda", "setup", "usage"):
        err = doc.get("error") or {}
        msg = err.get("message", "unknown error")
        if k == "setup":
            return f"the harness rejected this size: {msg}"
        # (kind "host": host memory of the driver's or the course's ran out, not a CUDA call:
        # common/cml_setup.c, CML_CHECK_PINNED, the timing's samples, the result buffer)
        what = (
            "launch failed"
            if k == "launch"
            else "the run failed" if err.get("kind") == "host" else "a CUDA call failed"
        )
        rec = launch_record(run)
        if rec:
            # The launch call itself failed: name it rather than the harness's check.
            found = broken_limit(rec)
            text = f"{what}: {msg}: the launch {launch_text(rec)} (the lab's launch record)"
            return text + (f": {found[1]}" if found else "")
        where = f" at {err['where']}" if err.get("where") else ""
        expr = f" ({err['expr']})" if err.get("expr") else ""
        return f"{what}: {msg}{where}{expr}"
    check = doc.get("check") or {}
    n, n_bad = check.get("n", 0), check.get("n_bad", 0)
    if k == "not_implemented":
        return f"nothing written: all {n} checked elements still hold the poison pattern"
    parts = [f"{n_bad} of {n} checked elements wrong"]
    if check.get("n_unwritten"):
        parts[0] += f" ({check['n_unwritten']} never written)"
    box = check.get("bad_box")
    if k == "edge":
        parts.append("only in " + region(box, check.get("rows") or 0, check.get("cols") or 0))
    fb = first_bad(check)
    if fb:
        parts.append(fb)
    return "; ".join(parts)


def exercise_summary(
    lab: Lab, ex: Exercise, runs: list[tuple[tuple[int, ...], CaseRun]]
) -> str | None:
    """The one line that says what is wrong with the exercise's correctness (None: all
    cases passed or none ran)."""
    kinds = [(size, run, kind(run)) for size, run in runs]
    failed = [t for t in kinds if t[2] not in ("ok", "no_device")]
    if not failed:
        return None
    passed = [t for t in kinds if t[2] == "ok"]
    by_kind = {}
    for t in failed:
        by_kind.setdefault(t[2], t)
    if all(t[2] == "not_implemented" for t in failed) and not passed:
        return not_implemented(lab, ex)
    if "timeout" in by_kind:
        size, run, _ = by_kind["timeout"]
        return (
            f"{ex.name}: {_timeout_text(run, lab.correctness_timeout_s)} at "
            f"{size_text(size)}: {hint(ex, 'timeout')}"
        )
    if "crash" in by_kind:
        size, run, _ = by_kind["crash"]
        return f"{ex.name}: at {size_text(size)} the run {run.problem}: {hint(ex, 'crash')}"
    for k in ("launch", "cuda"):
        if k in by_kind:
            size, run, _ = by_kind[k]
            msg = (run.doc.get("error") or {}).get("message", "unknown error")
            rec = launch_record(run)
            found = broken_limit(rec)
            if found:
                # The record explains the error: the limit's advice, not a guess from the message.
                return (
                    f"{ex.name}: at {size_text(size)} the launch {launch_text(rec)} "
                    f"failed ({msg}): {found[1]}: {LIMIT_ADVICE[found[0]]}"
                )
            advice = ex.hints.get("launch") or launch_hint(msg)
            text = f"{ex.name}: at {size_text(size)} {case_message(run, lab.correctness_timeout_s)}"
            return text + (f": {advice}" if advice else "")
    if "setup" in by_kind or "usage" in by_kind:
        size, run, _ = by_kind.get("setup") or by_kind["usage"]
        return (
            f"{ex.name}: {case_message(run, lab.correctness_timeout_s)} ({size_text(size)}): "
            "a case in lab.toml the harness does not accept"
        )
    if "edge" in by_kind:
        size, run, _ = by_kind["edge"]
        check = run.doc.get("check") or {}
        where = region(check["bad_box"], check.get("rows") or 0, check.get("cols") or 0)
        return f"{ex.name}: wrong only in {where} (size {size_text(size)}): {hint(ex, 'edge')}"
    if "border" in by_kind:
        # the lab's border rule first (its edge hint), then its general hint in case the
        # errors along the sides are something else
        size, run, _ = by_kind["border"]
        check = run.doc.get("check") or {}
        sizes = ", ".join(size_text(t[0]) for t in failed)
        public = " public" if ex.n_hidden else ""
        text = (
            f"{ex.name}: {len(failed)} of {len(kinds)}{public} sizes wrong ({sizes}); at "
            f"{size_text(size)}: {check.get('n_bad')} of {check.get('n')} checked elements "
            f"wrong, from the corner (row 0, column 0) on: wrong along the image's border? "
            f"{ex.hints.get('edge') or GENERIC['border']}"
        )
        other = ex.hints.get("wrong")
        return text + (f". If not: {other}" if other else "")
    size, run, _ = failed[0]
    fb = first_bad(run.doc.get("check") or {}) or case_message(run, lab.correctness_timeout_s)
    if passed:
        sizes = ", ".join(size_text(t[0]) for t in failed)
        public = " public" if ex.n_hidden else ""  # hidden cases: counted apart (the table)
        return (
            f"{ex.name}: {len(failed)} of {len(kinds)}{public} sizes wrong ({sizes}); at "
            f"{size_text(size)}: {fb}. {ex.hints.get('wrong') or GENERIC['sizes']}"
        )
    return f"{ex.name}: at {size_text(size)}: {fb}: {hint(ex, 'wrong')}"


_HIDDEN_TEXT = {
    "not_implemented": "nothing written: every output element still holds the poison pattern",
    "edge": "wrong output along the last rows or columns (a partial last tile)",
    "border": "wrong output from the corner on, at most half of it: the border rule?",
    "wrong": "wrong output",
    "crash": "the run crashed",
    "launch": "a kernel launch failed",
    "cuda": "a CUDA call failed",
    "setup": "the harness rejected the case",
    "usage": "the harness rejected the case",
}
_HIDDEN_HINT = {"not_implemented": "wrong", "launch": "crash", "cuda": "crash", "setup": "crash"}


def hidden_case_message(run: CaseRun, timeout_s: float) -> str:
    """``case_message`` for a hidden case: what went wrong, never its size (no element
    counts, coordinates or messages of the harness, which could give the size away)."""
    k = kind(run)
    if k == "timeout":
        return _timeout_text(run, timeout_s)
    found = broken_limit(launch_record(run)) if k in ("launch", "cuda") else None
    if found:
        return f"{_HIDDEN_TEXT[k]}: {LIMIT_WORDS[found[0]]}"
    return _HIDDEN_TEXT.get(k, "failed")


def hidden_summary(lab: Lab, ex: Exercise, failed: list[CaseRun]) -> str:
    """The finding when only hidden cases failed (their sizes are not named)."""
    k = kind(failed[0])
    what = hidden_case_message(failed[0], lab.correctness_timeout_s)
    key = _HIDDEN_HINT.get(k, k)
    found = broken_limit(launch_record(failed[0])) if k in ("launch", "cuda") else None
    if found:
        advice = LIMIT_ADVICE[found[0]]
    elif key == "border":  # the lab's border rule is its edge hint
        advice = ex.hints.get("edge") or GENERIC["border"]
    elif key == "wrong":
        advice = ex.hints.get("wrong") or (
            "the hidden cases use sizes the public ones do not: make sure the kernel handles "
            "any size (not a multiple of the block or tile size, large, or 1)"
        )
    else:
        advice = hint(ex, key) or hint(ex, "wrong")
    n = len(failed)
    cases = "hidden case" if n == 1 else "hidden cases"
    return f"{ex.name}: {n} {cases} failed ({what}): {advice}"


# At most this many of the static hints after "=>", in the manifest's order (the first names the
# cause; a student's trial of lab 3.2 read four of them joined, about 1,000 characters); the
# JSON report keeps them all (the static part's details, "hints").
STATIC_HINTS_SHOWN = 2


def static_hints(ex: Exercise, missing: list[str], found: list[str]) -> list[str]:
    """The hints for a static failure, each text once: for every missing required pattern, in
    the manifest's order, its "static.<PATTERN>" hint or else the lab's "static" hint; with none
    missing, the first forbidden pattern found decides (its "static.<PATTERN>" hint, else
    generic text). Empty when the kernel was not found: that message says what to do."""
    rules = ex.static
    ordered_missing = [p for p in (rules.require if rules else ()) if p in missing] or missing
    first_found = [p for p in (rules.forbid if rules else ()) if p in found] or found
    if ordered_missing:
        texts = [ex.hints.get(f"static.{p}") or hint(ex, "static") for p in ordered_missing]
        return list(dict.fromkeys(texts))
    if first_found:
        return [ex.hints.get(f"static.{first_found[0]}") or GENERIC["static_forbid"]]
    return []


def static_hint(ex: Exercise, missing: list[str], found: list[str]) -> str:
    """``static_hints`` in one text, all of them."""
    return "; ".join(static_hints(ex, missing, found))


def _shown_hints(texts: list[str]) -> str:
    """The first ``STATIC_HINTS_SHOWN`` of ``texts``, and how many more the JSON report has."""
    shown = "; ".join(texts[:STATIC_HINTS_SHOWN])
    more = len(texts) - STATIC_HINTS_SHOWN
    if more > 0:
        shown += f" ({more} more in the JSON report, --json: the static part's details)"
    return shown


def static_summary(ex: Exercise, messages: list[str], missing=(), found=()) -> str:
    """The static part's finding: its first message and the first ``STATIC_HINTS_SHOWN`` hints;
    only the hints where the lab has one of its own for every missing pattern that names the
    pattern itself, as the message would (an instructor read "its SASS has no LDG ...: no
    global load (LDG) ..." as the same sentence twice)."""
    first = messages[0] if messages else "static checks failed"
    advice = _shown_hints(static_hints(ex, list(missing), list(found)))
    if missing and not found and all(p in ex.hints.get(f"static.{p}", "") for p in missing):
        return f"{ex.name}: {advice}"  # each hint names its instruction (a review: not all do)
    if found and not missing:
        # a forbidden instruction: the static block lists each one found (count, first
        # line); a hint of the lab's own that names the one it was chosen for says the rest
        # (a student's trial read lab 3.3's LDL message twice, there and after "=>")
        rules = ex.static
        decides = ([p for p in (rules.forbid if rules else ()) if p in found] or list(found))[0]
        if decides in ex.hints.get(f"static.{decides}", ""):
            return f"{ex.name}: {advice}"
    return f"{ex.name}: {first}" + (f": {advice}" if advice else "")


def sanitizer_summary(
    ex: Exercise, tool: str, report: list[str], race_kind: str | None = None
) -> str:
    """The sanitizer's first finding and its hint; for racecheck, the hint of the race's kind
    (``race_kind``: "RAW", "WAR" or "WAW", from its hazard report) when it is known."""
    first = report[0] if report else f"{tool} reported errors"
    text = hint(ex, tool)
    if tool == "racecheck" and race_kind:
        key = f"racecheck_{race_kind.lower()}"
        if key in ex.hints:
            text = ex.hints[key]
        elif key in GENERIC:  # the kind, then what the lab says of its own barriers
            text = GENERIC[key] + (f"; here: {ex.hints[tool]}" if tool in ex.hints else "")
    return f"{ex.name}: {tool}: {first.strip()}: {text}"


def metric_value(doc: dict, metric: str) -> float | None:
    """A performance criterion's figure in a run document: "ratio" from its timing, a
    metric the grader computes (grader.roofs.COMPUTED: pct_of_fp32, from the judge's gflops
    and device facts) from its figures, never read from the document, any other metric from
    its metrics object; None when it is not a number there."""
    if metric in roofs.COMPUTED:
        return roofs.computed_metric(doc, metric)
    source = doc.get("timing") if metric == "ratio" else doc.get("metrics")
    value = (source or {}).get(metric)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def performance_text(
    ex: Exercise, crit: Criterion, doc: dict, baseline: str | None
) -> tuple[float | None, str]:
    """One criterion's measured value and a line describing it, from the performance run's
    document (``metric_value``). A missing value is (None, "the timed run gave no ...")."""
    timing = doc.get("timing") or {}
    metrics = doc.get("metrics") or {}
    student = timing.get("student") or {}
    base = timing.get("baseline") or {}
    name = baseline or "the baseline"
    spread = ""
    if student.get("p10_ms") is not None and student.get("p90_ms") is not None:
        spread = f", p10–p90 {student['p10_ms']:.4g}–{student['p90_ms']:.4g} ms"
    value = metric_value(doc, crit.metric)
    if crit.metric == "ratio":
        if value is None:
            return None, "the timed run gave no ratio"
        text = (
            f"ratio {value:.3g} ({name} {base.get('median_ms', float('nan')):.4g} ms / yours "
            f"{student.get('median_ms', float('nan')):.4g} ms median{spread})"
        )
    elif crit.metric == "pct_of_copy":
        if value is None:
            return None, "the timed run gave no pct_of_copy"
        text = (
            f"{value:.1f} % of the copy bandwidth ({metrics.get('gbps', float('nan')):.0f} of "
            f"{metrics.get('copy_gbps', float('nan')):.0f} GB/s; median "
            f"{student.get('median_ms', float('nan')):.4g} ms{spread}; {name} "
            f"{metrics.get('baseline_gbps', float('nan')):.0f} GB/s)"
        )
    elif crit.metric in roofs.COMPUTED:  # a share of a roof the grader computes (FP32)
        roof = roofs.COMPUTED[crit.metric]
        if value is None:
            why = roofs.why_missing(doc, crit.metric)
            return None, f"the timed run gave no {crit.metric}: {why}"
        found = roof.figures(doc) or {}
        ratio = timing.get("ratio")
        over = f"; ratio {ratio:.3g} over {name}" if isinstance(ratio, (int, float)) else ""
        text = (
            f"{value:.1f} % of the {roof.label} roof ({roof.show(found.get(roof.achieved))} of "
            f"{roof.show(found.get(roof.ceiling))}; median "
            f"{student.get('median_ms', float('nan')):.4g} ms{spread}{over})"
        )
    else:
        if value is None:
            note = doc.get("metrics_note")
            why = f": {note}" if isinstance(note, str) and note else ""
            return None, f"the performance run gave no {crit.metric}{why}"
        text = f"{crit.metric} {value:.4g}"
    if crit.full is not None and crit.zero is not None:  # None: measured, not scored
        text += f"; full points at ≥ {crit.full:g}, none at ≤ {crit.zero:g}{_whose(crit)}"
    return value, text


def _whose(crit: Criterion) -> str:
    """" (the thresholds measured on the H100 80GB HBM3)" where a GPU's own thresholds
    replaced the course GPU's (``Criterion.for_device``), else ""."""
    return f" (the thresholds measured on the {crit.gpu})" if crit.gpu else ""


def _criterion_name(crit: Criterion) -> str:
    """What a criterion measures, in the report's words: "ratio", "% of copy", "% of the
    cuBLAS roof", or the metric's own name."""
    what = {"ratio": "ratio", "pct_of_copy": "% of copy"}.get(crit.metric)
    if what is None and crit.metric in roofs.COMPUTED:
        what = f"% of the {roofs.COMPUTED[crit.metric].label} roof"
    return what or crit.metric


def ramp_text(ex: Exercise, device: dict | None = None) -> str | None:
    """How the exercise's timed run is scored, for a report whose performance part did not run
    (no GPU): "graded when timed: ratio of matmul_naive's time to yours, full points at ≥ 1.05,
    none at ≤ 1"; None when nothing is scored. ``device`` (the judge's device facts, when
    known): that GPU's own thresholds (``Criterion.for_device``)."""
    perf = ex.performance
    if perf is None:
        return None
    ramps = []
    for course_crit in perf.criteria:
        crit = course_crit.for_device(device)
        if crit.full is None or crit.zero is None:
            continue
        what = _criterion_name(crit)
        if crit.metric == "ratio" and ex.baseline:
            what = f"ratio of {ex.baseline}'s time to yours"
        text = f"{what}, full points at ≥ {crit.full:g}, none at ≤ {crit.zero:g}{_whose(crit)}"
        if device is None and course_crit.on:  # no GPU seen: the others' ramps too
            # each card's figure is against its own baseline or roof, timed in the same run
            # (an instructor's trial read a faster card's lower bar as a mistake)
            own = "baseline" if crit.metric == "ratio" else "roof"
            text += " (the H200's" + "".join(
                f"; on an {gpu}: full at ≥ {full:g}, none at ≤ {zero:g}"
                for gpu, zero, full in course_crit.on
            ) + f"; each card's figure against its own {own}, timed in the same run)"
        ramps.append(text)
    return f"graded when timed: {'; '.join(ramps)}" if ramps else None


def slow_summary(ex: Exercise, crit: Criterion, value: float, cause: str | None = None) -> str:
    """A criterion short of full points, and its cause: ``cause`` when it was measured
    (grader.counters), else the lab's hint."""
    what = _criterion_name(crit)
    return (
        f"{ex.name}: {what} {value:.3g}, full credit from {crit.full:g}: "
        f"{cause or hint(ex, 'slow')}"
    )

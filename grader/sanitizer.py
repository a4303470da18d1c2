"""compute-sanitizer runs and their reports.

Each tool of ``[exercise.sanitizer]`` runs on each sanitizer case::

    compute-sanitizer --tool T --error-exitcode 99 --print-limit 20 \\
        LAB --exercise NAME --size A,B,C --seed S --json FILE

compute-sanitizer exits 0 even when it reports errors unless ``--error-exitcode`` is given
(shared/FACTS.md), so 99 means "errors found"; otherwise it passes the program's own exit
status through. Outcomes (``SanitizerRun.verdict``):

- "clean": no error reported and the run wrote its document;
- "errors": status 99; ``report`` keeps the first error blocks, e.g.::

      Invalid __global__ read of size 4 bytes
        at matmul_tiled_kernel(...)+0x1b0 in kernels.cu:57
        by thread (0,1,0) in block (1,0,0)

      Error: Race reported between Write access at transpose_tiled_kernel(...)+0x90 in
        kernels.cu:40 and Read access at ...+0x120 in kernels.cu:47 [1024 hazards]

- "failed": the run crashed, timed out or reported a CUDA error without the sanitizer
  reporting anything;
- "not_run": no device, or the sanitizer itself could not start (an internal error).

Scoring (``grader.scoring``): the sanitizer points are split evenly over the tools; a tool
scores when it is clean on every sanitizer case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from grader import harness
from grader.sandbox import Sandbox
from grader.tools import Tool

ERROR_EXIT = 99
PRINT_LIMIT = 20
MAX_BLOCKS = 2
MAX_DETAILS = 3

_PREFIX = re.compile(r"^=+ ?")
_SKIP_TITLE = re.compile(
    r"^(COMPUTE-SANITIZER|ERROR SUMMARY|\w+ SUMMARY|LEAK SUMMARY|Target application|"
    r"Saved host backtrace)"
)
_KEEP_DETAIL = re.compile(r"^(at |and |by thread|Address |Access (at|to) |is |Divergent|Barrier)")
_SUMMARY = re.compile(r"^\w+ SUMMARY: ")
_COUNT_SUMMARY = re.compile(r"^\w+ SUMMARY: \d+ (errors?|hazards?)\b(?!.*not printed)")
_INTERNAL = re.compile(r"Internal Sanitizer Error|Sanitizer Error:|Unable to|Failed to initialize")
_ARGS = re.compile(r"\((?:[^()]|\([^()]*\))*\)\+0x")
_HAZARD = re.compile(r"Potential (RAW|WAR|WAW) hazard")
# What racecheck's hazard report (--racecheck-report hazard) is run for: the kind of a race
# its default report ("Race reported between Write access ... and Read access ...") does not
# say — a missing barrier after filling a tile (read-after-write) reads the same as one
# missing before refilling it (write-after-read). Recorded on an H200 with CUDA 13.0:
# grader/tests/data/racecheck/.
HAZARD_REPORT = ("--racecheck-report", "hazard")


@dataclass
class SanitizerRun:
    tool: str
    size: tuple[int, ...]
    seed: int
    verdict: str  # "clean", "errors", "failed", "not_run"
    report: list[str] = field(default_factory=list)  # readable lines
    summary: str = ""  # e.g. "ERROR SUMMARY: 3 errors"
    argv: list[str] = field(default_factory=list)
    peak_bytes: int | None = None  # the run's peak host memory, where the kernel says
    hazards: dict[str, int] = field(default_factory=dict)  # racecheck's hazard report: kind: n


def hazard_kinds(text: str) -> dict[str, int]:
    """{"RAW" | "WAR" | "WAW": how many of the printed hazards} in racecheck's hazard report
    (errors and warp-level warnings alike: both name the kind)."""
    found: dict[str, int] = {}
    for m in _HAZARD.finditer(text):
        found[m.group(1)] = found.get(m.group(1), 0) + 1
    return found


def race_kind(hazards: dict[str, int]) -> str | None:
    """The kind most of the printed hazards have ("RAW", "WAR", "WAW"), or None."""
    return max(sorted(hazards), key=lambda k: hazards[k]) if hazards else None


def _clean(line: str, strip_paths: list[str]) -> str:
    for p in strip_paths:
        line = line.replace(p.rstrip("/") + "/", "")
    return _ARGS.sub("(...)+0x", line)


def parse_report(text: str, strip_paths: list[str] | None = None) -> tuple[list[str], str]:
    """The first error blocks of a sanitizer's output (readable lines) and its summary."""
    strip_paths = strip_paths or []
    blocks: list[list[str]] = []
    summary = ""
    current: list[str] | None = None
    for raw in text.splitlines():
        if not raw.startswith("="):
            continue
        body = _PREFIX.sub("", raw.rstrip())
        content = body.strip()
        if not content:
            current = None
            continue
        if _SUMMARY.match(content):
            if _COUNT_SUMMARY.match(content) and not summary:
                summary = content
            current = None
            continue
        if body[:1].isspace():
            if current is not None and _KEEP_DETAIL.match(content):
                if len(current) <= MAX_DETAILS:
                    current.append("  " + _clean(content, strip_paths))
            continue
        if _SKIP_TITLE.match(content):
            current = None
            continue
        current = [_clean(content, strip_paths)]
        blocks.append(current)
    lines: list[str] = []
    for block in blocks[:MAX_BLOCKS]:
        lines.extend(block)
    if len(blocks) > MAX_BLOCKS:
        lines.append(f"... and {len(blocks) - MAX_BLOCKS} more reports")
    return lines, summary


def _prefix(tool: Tool, name: str, options: tuple[str, ...] = ()) -> list[str]:
    return [
        tool.path,
        "--tool",
        name,
        *options,
        "--error-exitcode",
        str(ERROR_EXIT),
        "--print-limit",
        str(PRINT_LIMIT),
    ]


def all_clean(
    tool: Tool,
    name: str,
    binary: Path,
    exercise: str,
    cases: list[tuple[tuple[int, ...], int]],
    timeout_s: float,
    version: int,
    box: Sandbox | None = None,
    limit_s: float | None = None,
) -> tuple[bool, str]:
    """One run of ``name`` over every case in one process (issue 15): (size, seed) each, of
    ``exercise``, or (size, seed, exercise) for the cases of several exercises of the lab
    (``exercise`` then the first case's). (True, the tool's summary line) when it reported
    nothing and every case wrote its document without a CUDA error, else (False, ""): the
    caller then runs the cases one by one (``run``), whose reports name the case. The fast
    path of a clean submission; it never decides a failure. ``limit_s``: the run's time
    limit (default ``timeout_s`` per case)."""
    out, docs, _ = harness.invoke_cases(
        binary,
        exercise,
        cases,
        timeout_s * len(cases) if limit_s is None else limit_s,
        version,
        prefix=_prefix(tool, name),
        env=tool.env(),
        max_output=64 * 1024,
        box=box,
    )
    text = out.stdout + "\n" + out.stderr
    _, summary = parse_report(text, [])
    clean = (
        out.kind == "exited"
        and out.code == 0
        and all(d is not None and d["status"] in ("ok", "wrong") for d in docs)
    )
    return clean, summary if clean else ""


def run(
    tool: Tool,
    name: str,
    binary: Path,
    exercise: str,
    size: tuple[int, ...],
    seed: int,
    timeout_s: float,
    version: int,
    strip_paths: list[str],
    box: Sandbox | None = None,
    options: tuple[str, ...] = (),
) -> SanitizerRun:
    """One tool on one case, in the sandbox ``box`` (``grader.sandbox``) like every run of
    the lab binary: compute-sanitizer executes the submission's host code too. ``options``:
    more of the tool's options (``HAZARD_REPORT``)."""
    prefix = _prefix(tool, name, options)
    args = harness.case_args(exercise, size, seed)
    expect = {"exercise": exercise, "size": size, "seed": seed}
    case = harness.invoke(
        binary,
        args,
        timeout_s,
        version,
        expect,
        prefix=prefix,
        env=tool.env(),
        max_output=64 * 1024,
        box=box,
    )
    out = case.outcome
    text = out.stdout + "\n" + out.stderr
    report, summary = parse_report(text, strip_paths)
    result = SanitizerRun(name, size, seed, "clean", report, summary, case.argv, out.peak_bytes)
    result.hazards = hazard_kinds(text)
    if out.kind == "exited" and out.code == ERROR_EXIT:
        result.verdict = "errors"
        if not report:
            result.report = [f"{name} reported errors ({summary or 'no details printed'})"]
        return result
    if case.doc is not None and case.doc["status"] == "no_device":
        result.verdict = "not_run"
        result.report = ["no CUDA device (the harness reported no_device)"]
        return result
    if case.doc is None and _INTERNAL.search(text):
        result.verdict = "not_run"
        line = next(ln for ln in text.splitlines() if _INTERNAL.search(ln))
        result.report = [f"compute-sanitizer could not run: {_PREFIX.sub('', line).strip()}"]
        return result
    if case.doc is None:
        result.verdict = "failed"
        what = case.problem or out.describe()
        result.report = [f"under {name} the run {what}"] + report
        return result
    if case.doc["status"] == "error":
        err = case.doc.get("error") or {}
        result.verdict = "failed"
        result.report = [
            f"under {name} a CUDA call failed: {err.get('message', 'unknown error')}"
            + (f" ({err['where']})" if err.get("where") else "")
        ] + report
        return result
    return result

"""The terminal report and the JSON report of a Grade.

Terminal: the steps (assemble, build, symbols, device), then one block per exercise
(static with the kernel's resources, correctness per case with size and seed, sanitizer
per tool, performance with the measured ratio or % of copy, its p10–p90 spread and the
baseline), then the score table and a line naming every check that was NOT RUN and why.

JSON (``--json FILE``), schema ``grader_report`` 1::

    {
      "grader_report": 1,
      "lab": {"id": "3.3", "name": "3.3-tiling", "title": "Shared-memory tiling"},
      "submission": "solutions/3.3-tiling",
      "seeds": {"base": null | S, "mode": "fresh" | "derived"},  # each run's seed is in
                                         # its details row
      "arch": "sm_90" | null,
      "device": {"name": .., "cc": .., ...} | null,
      "steps": [{"name": "build", "status": "passed", "messages": [..]}, ...],
      "exercises": [
        {"name": "matmul_tiled", "total": 20.0, "max": 20, "pending": false,
         "findings": ["one line per failed part: diagnosis and hint"],
         "parts": {
           "correctness": {"points": 10.0 | null, "max": 10,
                           "status": "passed" | "failed" | "skipped" | "not_run",
                           "reason": null | "why not run", "info": "..",
                           "messages": [..],
                           "details": [{"size": [33, 17, 65], "seed": 123,  # a hidden
                                        # case (hidden.toml): {"hidden": true} instead
                                        "status": "ok" | "wrong" | "error" | "crash" |
                                                  "timeout",
                                        "message": .., "reproduce": ..}]},
           "static": {.., "details": [{"kernel": .., "missing": [..], "found": [..]}]},
           "sanitizer": {.., "details": [{"tool": "racecheck", "size": [..], "seed": ..,
                                          "verdict": "clean" | "errors" | "failed",
                                          "report": [..], "summary": ..}]},
           "performance": {.., "details": [{"size": [..], "seed": .., "status": ..,
                                            "metric": "ratio", "value": 1.31}]}}}
      ],
      "total": 58.5, "max": 60,
      "not_run": ["correctness, sanitizer, performance — no CUDA device (...)"],
      "timings_s": {"build": 6.1, "gpu_wait": 0.0, "untimed": 30.2, "timed": 5.9},
                                         # wall seconds per phase; gpu_wait: for the
                                         # batch's GPU lock (grader.gpu_lock)
      "exit_code": 1
    }

``points`` null means pending (not known: the part or the correctness it depends on did
not run); skipped and not-run parts are never reported as passed.
"""

from __future__ import annotations

import json

from grader.diagnose import size_text
from grader.errors import GraderError
from grader.files import write_atomic
from grader.results import PART_NAMES, Grade, Part

REPORT_SCHEMA = 1
MAX_CASE_DETAILS = 2  # failed correctness cases whose message the terminal report shows
_MARK = {
    "passed": "passed",
    "failed": "FAILED",
    "skipped": "skipped",
    "not_run": "not run",
    "info": "",  # evidence without a verdict (the memory spaces each kernel uses)
}


def _points(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:g}" if x == int(x) else f"{x:.2f}"


def _part_cell(part: Part) -> str:
    if part.max == 0 and part.status == "skipped":
        return "·"
    return f"{_points(part.points)}/{part.max}"


def _status_line(label: str, part: Part) -> str:
    mark = _MARK.get(part.status, part.status)
    text = f"  {label:<12} {mark}"
    if part.reason:
        text += f": {part.reason}"
    elif part.info:
        text += f"  {part.info}"
    if part.name != "correctness" and part.status in ("passed", "failed") and part.max > 0:
        if part.points is None:
            text += "  (points wait for correctness, which did not run)"
        elif part.points == 0 and part.status == "passed":
            text += "  (0 points: every correctness case must pass first)"
    return text


def text(grade: Grade, quiet: bool = False) -> str:
    """The readable report."""
    out: list[str] = []
    if not quiet:
        out.append(f"CUDA Memory Labs grader — lab {grade.lab_id}: {grade.title}")
        seeds = "fresh" if grade.seed is None else f"derived from --seed {grade.seed}"
        arch = f"   arch: {grade.arch}" if grade.arch else ""
        out.append(f"submission: {grade.submission}   seeds: {seeds}{arch}")
        out.append("")
        for step in grade.steps:
            mark = _MARK.get(step.status, step.status)
            first = (f"  " if mark else "") + step.messages[0] if step.messages else ""
            out.append(f"  {step.name:<12} {mark}{first}")
            for msg in step.messages[1:]:
                out.append(f"  {'':<12} {msg}")
        for ex in grade.exercises:
            out.append("")
            out.append(f"{ex.name}")
            for name in PART_NAMES:
                part = ex.parts[name]
                if part.max == 0 and part.status == "skipped":
                    continue
                out.append(_status_line(name, part))
                out.extend(_part_details(part))
            for finding in ex.findings:
                out.append(f"  => {finding}")
    out.append("")
    out.extend(_table(grade))
    if grade.not_run:
        out.append("")
        for line in grade.not_run:
            out.append(f"NOT RUN: {line}")
    out.append("")
    out.append(_verdict(grade))
    return "\n".join(out) + "\n"


def _part_details(part: Part) -> list[str]:
    lines = []
    pad = " " * 15
    if part.name == "correctness":
        rows = part.details
        if rows and all(str(r.get("message", "")).startswith("nothing written") for r in rows):
            # an untouched skeleton: one line, not one per size
            lines.append(
                f"{pad}nothing written at any of the {len(rows)} sizes: every output element "
                "still holds the poison pattern"
            )
            if rows[0].get("reproduce"):
                lines.append(f"{pad}  {rows[0]['reproduce']}")
            return lines
        # every case on one line; the details of the first few failures only
        failures = 0
        said_not_run = False
        for row in part.details:
            status = "ok" if row["status"] == "ok" else row["status"].upper().replace("_", " ")
            if row.get("hidden"):  # instructor-only: its size and seed are never shown
                line = f"{pad}{'hidden case':<35} {status}"
            elif "seed" not in row:  # not run: no seed was drawn
                line = f"{pad}{size_text(row['size']):<35} {status}"
            else:
                line = f"{pad}{size_text(row['size']):<18} seed {row['seed']:<11} {status}"
            lines.append(line)
            if row["status"] == "ok":
                continue
            if row["status"] == "not_run":  # after a hang: the same reason for every case
                if not said_not_run and row.get("message"):
                    lines.append(f"{pad}  {row['message']}")
                said_not_run = True
                continue
            failures += 1
            if row.get("message") and failures <= MAX_CASE_DETAILS:
                lines.append(f"{pad}  {row['message']}")
            if row.get("reproduce") and failures == 1:
                lines.append(f"{pad}  {row['reproduce']}")
        return lines
    if part.name == "sanitizer":
        for row in part.details:
            verdict = "clean" if row["verdict"] == "clean" else row["verdict"].upper()
            lines.append(f"{pad}{row['tool']:<10} {size_text(row['size']):<14} {verdict}")
            for rep in row["report"][:8]:
                lines.append(f"{pad}  {rep}")
        return lines
    for msg in part.messages:
        lines.append(f"{pad}{msg}")
    return lines


def _table(grade: Grade) -> list[str]:
    width = max([len("exercise"), len("total")] + [len(ex.name) for ex in grade.exercises])
    head = f"{'exercise':<{width}}  " + "  ".join(f"{n:>11}" for n in PART_NAMES)
    head += f"  {'total':>11}"
    rows = [head, "-" * len(head)]  # "—/N": pending; "N/M+": more points pending
    for ex in grade.exercises:
        cells = "  ".join(f"{_part_cell(ex.parts[n]):>11}" for n in PART_NAMES)
        total = f"{_points(ex.total)}/{ex.max}" + ("+" if ex.pending else "")
        rows.append(f"{ex.name:<{width}}  {cells}  {total:>11}")
    rows.append("-" * len(head))
    total = f"{_points(grade.total)}/{grade.max}"
    if any(ex.pending for ex in grade.exercises):
        total += "+"
    rows.append(f"{'total':<{width}}  {'':>{len(head) - width - 15}}{total:>13}")
    return rows


def _verdict(grade: Grade) -> str:
    pending = sum(p.max for ex in grade.exercises for p in ex.parts.values() if p.points is None)
    if grade.exit_code == 0:
        return f"score {_points(grade.total)}/{grade.max}: every check ran, full marks"
    if grade.exit_code == 3:
        return (
            f"score so far {_points(grade.total)}/{grade.max}; {pending} points pending on "
            "checks that did not run (see NOT RUN): this is not a final grade"
        )
    text = f"score {_points(grade.total)}/{grade.max}: points lost"
    if pending:
        text += f" ({pending} more points pending on checks that did not run)"
    return text


def to_json(grade: Grade) -> dict:
    """The JSON report (schema in this module's docstring)."""

    def part(p: Part) -> dict:
        return {
            "points": p.points,
            "max": p.max,
            "status": p.status,
            "reason": p.reason,
            "info": p.info,
            "messages": p.messages,
            "finding": p.finding,
            "details": p.details,
        }

    return {
        "grader_report": REPORT_SCHEMA,
        "lab": {"id": grade.lab_id, "name": grade.lab, "title": grade.title},
        "submission": grade.submission,
        "seeds": {"base": grade.seed, "mode": "fresh" if grade.seed is None else "derived"},
        "arch": grade.arch,
        "device": grade.device,
        "steps": [
            {"name": s.name, "status": s.status, "messages": s.messages} for s in grade.steps
        ],
        "exercises": [
            {
                "name": ex.name,
                "total": ex.total,
                "max": ex.max,
                "pending": ex.pending,
                "findings": ex.findings,
                "parts": {n: part(ex.parts[n]) for n in PART_NAMES},
            }
            for ex in grade.exercises
        ],
        "total": grade.total,
        "max": grade.max,
        "not_run": grade.not_run,
        "exit_code": grade.exit_code,
        "timings_s": {k: round(v, 3) for k, v in grade.timings.items()},
    }


def write_json(grade: Grade, path: str) -> None:
    """Writes the JSON report atomically (grader.files): a reader never sees half of it."""
    try:
        write_atomic(path, json.dumps(to_json(grade), indent=2) + "\n")
    except OSError as e:
        raise GraderError(f"cannot write the JSON report {path}: {e.strerror}")

"""The terminal report and the JSON report of a Grade.

Terminal: the steps (assemble, build, symbols, device), then one block per exercise
(static with the kernel's resources, correctness per case with size and seed, sanitizer
per tool, performance with the measured ratio or % of a roof, its p10–p90 spread and the
baseline), the written report's block when the lab has one (filled in or not, which
sections are not; its manual points "pending manual review"), a roofline table of the
timed exercises (each against its own roof: the copy in GB/s or the FP32 peak in TFLOP/s,
% of it, and the ratio over the baseline; furthest from its roof first: ``roofline``), then
the score table and a line naming every check that was NOT RUN and why. With manual points
the score reads "45/50 automatic, 8 manual pending".

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
                           "status": "passed" | "failed" | "skipped" | "not_run" |
                                     "info" (performance measured, not scored: 0 points),
                           "reason": null | "why not run", "info": "..",
                           "messages": [..],
                           "details": [{"size": [33, 17, 65], "seed": 123,  # a hidden
                                        # case (hidden.toml): {"hidden": true} instead
                                        "status": "ok" | "wrong" | "error" | "crash" |
                                                  "timeout",
                                        "message": .., "reproduce": ..}]},
           "static": {.., "details": [{"kernel": .., "missing": [..], "found": [..],
                                       "hints": [..]}]},  # hints: every one, where the
                                       # finding gives the first two (a kernel begun)
           "sanitizer": {.., "details": [{"tool": "racecheck", "size": [..], "seed": ..,
                                          "verdict": "clean" | "errors" | "failed",
                                          "report": [..], "summary": ..}]},
           "performance": {.., "details": [{"size": [..], "seed": .., "status": ..,
                                            "metric": "ratio", "value": 1.31,
                                            "criteria": [{"metric": .., "value": ..,
                                                          "fraction": ..}],
                                            # or, a run not scored or not calibrated:
                                            "measured": [{"metric": .., "value": ..}],
                                            "retimed": "timed twice: ..",  # if it was
                                            "first_wall_s": ..,
                                            "wall_s": ..,  # the grader's clock, the run
                                            "hold_tail_ms": {"student": .., "judge": ..,
                                                             "released": ..},  # a run
                                            # over the lab's last case: its processes'
                                            # ends and the hold's, after its document
                                            "phases_ms": {"setup": .., ..},  # the judge's
                                            "phases_cpu_ms": {"setup": .., ..},  # its CPU
                                            "batch": [8, 1],  # launches a sample: the
                                            # student's, the baseline's (timing.batch,
                                            # timing.baseline_batch)
                                            "exchange_ms": 0.15,  # among the repetitions;
                                            "under_exchange": 0,  # samples no longer than
                                            # it subtracted (worker_overhead_ms,
                                            # under_overhead)
                                            "exchange_alone_ms": 0.01,  # before the
                                            # student's process (worker_overhead_alone_ms)
                                            "exchange_subtracted_ms": 0.15,  # from each
                                            # sample: at most alone + 0.25 ms (design
                                            # note 96, worker_overhead_subtracted_ms)
                                            "empty_launch_alone_ms": 0.15,  # the
                                            # judge's own, before the student's process
                                            # (a GPU already busy: design note 97)
                                            "gbps": .., "copy_gbps": ..,
                                            "pct_of_copy": ..,  # the judge's, GB/s
                                            "roof": "copy" | "fp32",
                                            "gflops": .., "fp32_gflops": ..,
                                            "pct_of_fp32": ..,  # the grader's (roof
                                            # fp32), GFLOP/s
                                            "ratio": ..,  # timing.ratio
                                            "course": {"baseline_ms": .., "copy_ms": ..,
                                                       "cublas_gflops": ..,
                                                       "baseline_alone_ms": ..}}]}}}
                                            # the roofline keys (grader.roofs) when the
                                            # judge timed it and reported them; "course":
                                            # the course code's own figures of the run
                                            # (grader.class_figures), those it has: the
                                            # baseline's and the copy's medians among the
                                            # student's repetitions (ms), cuBLAS's
                                            # GFLOP/s, and the baseline timed alone before
                                            # the student's process started (ms; not
                                            # compared across the class: own_doing)
      ],
      "report": null | {"file": "REPORT.md", "points": 2.0 | 0.0, "max": 2,
                 "status": "passed" | "failed", "info": "all 7 sections filled in, ..",
                 "messages": ["REPORT.md: section '## 4. Roofline table' quotes no measured "
                              "figure ..."],
                 "sections": [{"heading": "## 1. GPU and method",
                               "status": "ok" | "missing" | "out_of_order" | "empty" |
                                         "template" | "no_number" | "not_measured" |
                                         "not_checked"}],
                 "manual": {"max": 8, "points": null, "status": "pending manual review"}},
      "total": 58.5, "max": 60,          # automatic points only
      "final": true,                     # false: some automatic points are pending (no GPU,
                                         # a check left out): "total" is a score so far
      "manual_pending": 8,               # points held for the instructor (0: none)
      "not_run": ["correctness, sanitizer, performance — no CUDA device (...)"],
                                         # a reason whose parts scored 0 without running
                                         # (the build failed) ends "(0 points, lost for
                                         # certain)": those are not pending
      "timings_s": {"build": 6.1, "gpu_wait": 0.0, "untimed": 30.2, "timed": 5.9},
                                         # wall seconds per phase; gpu_wait: for the
                                         # batch's GPU lock (grader.gpu_lock)
      "exit_code": 1
    }

``points`` null means pending (not known: the part or the correctness it depends on did
not run); skipped and not-run parts are never reported as passed. ``report`` is null for a
lab without a ``[report]`` (and with ``--exercise``); its manual points are never in
``total`` or ``max`` and never change ``exit_code``.
"""

from __future__ import annotations

import json
import re

from grader import roofs
from grader.assemble import printable
from grader.diagnose import size_text
from grader.errors import GraderError
from grader.files import write_atomic
from grader.results import PART_NAMES, Grade, Part, ReportResult
from grader.status import (
    DID_NOT_RUN,
    LOST_FOR_CERTAIN_TEXT,
    MANUAL_REVIEW,
    State,
    Status,
    is_final,
    ran,
    state,
)

REPORT_SCHEMA = 1
MAX_CASE_DETAILS = 2  # failed correctness cases whose message the terminal report shows
_MARK = {
    Status.PASSED: "passed",
    Status.FAILED: "FAILED",
    Status.SKIPPED: "skipped",
    Status.NOT_RUN: "not run",
    Status.INFO: "",  # evidence without a verdict (the memory spaces each kernel uses)
}


# After the NOT RUN lines, where a static check passed and its exercise's correctness did
# not run (no GPU): what a passed static check does not show (a student's trial read
# "static ok" as "correct" with a missing barrier, an unpadded tile and a dropped K tail;
# lab 3.4's, with an in-place call that read its own output). Every lab's words: a lab 3.1
# trial wondered what "an in-place call" of its lab was, another why bank conflicts were
# named in a lab without shared memory (now one example of a cost, beside coalescing);
# section 10 lists each lab's cases.
STATIC_ALONE_TEXT = (
    "static ok reads the SASS only (which memory spaces the kernels use): a wrong index or "
    "border, a data race (a barrier missing where another one remains, a thread reading "
    "what another overwrote) and what costs only time (an uncoalesced access, a bank "
    "conflict) show only on a GPU "
    "(handouts/grading.md, section 10)"
)


def _static_alone(grade: Grade) -> bool:
    """Whether an exercise passed its static check while its correctness did not run."""
    for ex in grade.exercises:
        static, corr = ex.parts.get("static"), ex.parts.get("correctness")
        if static is None or corr is None or static.status != Status.PASSED:
            continue
        if state(corr) is not State.ABSENT and not ran(corr.status):
            return True
    return False


def _points(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:g}" if x == int(x) else f"{x:.2f}"


def _not_shown(part: Part) -> bool:
    """A part with nothing at stake that was skipped (the exercise has no such part): no
    line in the exercise's block, "·" in the score table."""
    return state(part) is State.ABSENT and part.status == Status.SKIPPED


def _part_cell(part: Part) -> str:
    if _not_shown(part) or (state(part) is State.ABSENT and not ran(part.status)):
        # no such part, or one that carries no points and gave no verdict: measured and not
        # scored (lab.toml scored = false), shown or not run
        return "·"
    if state(part) is State.PENDING and part.status == Status.PASSED:
        return f"ok/{part.max}"  # a check that passed, its points waiting for correctness
    return f"{_points(part.points)}/{part.max}"


def _status_line(label: str, part: Part) -> str:
    mark = _MARK.get(part.status, part.status)
    text = f"  {label:<12} {mark}"
    if part.reason:
        text += f": {part.reason}"
    elif part.info:
        text += f"  {part.info}"
    st = state(part)
    if st is State.ABSENT and part.status in DID_NOT_RUN and part.name == "performance":
        text += "  (0 points: measured and shown, not scored)"  # lab.toml scored = false
    if st is State.LOST_NOT_RUN:
        # it never ran, yet its points are known: a build failure (or a failed symbol check,
        # a missing file, a wrong kernel's gate) took them whatever it would have found
        text += f"  ({LOST_FOR_CERTAIN_TEXT})"
    if part.name != "correctness" and ran(part.status) and st is not State.ABSENT:
        if st is State.PENDING:
            text += "  (points wait for correctness, which did not run)"
        elif part.points == 0 and part.status == Status.PASSED:
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
            first = ("  " if mark else "") + step.messages[0] if step.messages else ""
            out.append(f"  {step.name:<12} {mark}{first}")
            for msg in step.messages[1:]:
                out.append(f"  {'':<12} {msg}")
        for ex in grade.exercises:
            out.append("")
            out.append(f"{ex.name}")
            for name in PART_NAMES:
                part = ex.parts[name]
                if _not_shown(part):
                    continue
                out.append(_status_line(name, part))
                out.extend(_part_details(part))
            for finding in ex.findings:
                out.append(f"  => {finding}")
        if grade.report is not None:
            out.append("")
            out.extend(_report_block(grade.report))
    roof = roofline(grade)
    if roof and not quiet:
        out.append("")
        out.extend(roof)
    out.append("")
    out.extend(_table(grade))
    if grade.not_run:
        out.append("")
        for line in grade.not_run:
            out.append(f"NOT RUN: {line}")
    if _static_alone(grade):
        if not grade.not_run:
            out.append("")
        out.append(STATIC_ALONE_TEXT)
    out.append("")
    out.append(_verdict(grade))
    # a submission's own output reaches the report (a run's stderr, a sanitizer's report of
    # its kernel, the compiler's messages): no line may carry a terminal escape
    return "\n".join(printable(line) for line in "\n".join(out).split("\n")) + "\n"


def _manual_text(r: ReportResult) -> str:
    return (
        f"{MANUAL_REVIEW}: {r.manual} points for {r.file}, graded by the instructor "
        "(not in the automatic score)"
    )


def _filled_line(r: ReportResult) -> str:
    mark = _MARK.get(r.status, r.status)
    if r.status == Status.NOT_RUN and any(s.get("status") == "not_measured" for s in r.sections):
        mark = "pending"  # checked: written, but for figures that wait for a GPU
    line = f"{'filled in':<12} {mark}"
    return line + (f"  {r.info}" if r.info else "")


def _report_block(r: ReportResult) -> list[str]:
    """The written report: filled in or not, and its manual points."""
    out = [f"{r.file} (your report)"]
    if r.max > 0:
        out.append(f"  {_filled_line(r)}")
    if r.manual > 0:
        out.append(f"  {'manual':<12} {_manual_text(r)}")
    out.extend(f"  => {m}" for m in r.messages)
    return out


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
            if row["status"] == Status.NOT_RUN:  # after a hang: the same reason for every case
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


def roofline(grade: Grade) -> list[str]:
    """Each timed exercise against its own roof (lab.toml ``[exercise.performance] roof``,
    grader.roofs), one row per performance details row that has the roof's percentage,
    furthest from its roof first, so a student sees which one to work on; then one legend
    line per roof shown. Empty when nothing was timed.

    Columns: the exercise; its roof ("copy": a device-to-device copy of the same bytes in
    the same run, or "FP32": the device's FP32 peak); what the run achieved and the roof's
    own figure, in the roof's unit (GB/s for the copy, TFLOP/s for FP32; the details row
    holds GB/s and GFLOP/s); the % of the roof (``pct_of_copy``, the judge's, or
    ``pct_of_fp32``, the grader's); and the ratio over the exercise's baseline
    (``timing.ratio``), as information. A row without a ``roof`` key is read as the copy's
    (reports written before lab.toml named roofs)."""
    rows = []
    for ex in grade.exercises:
        for row in ex.parts["performance"].details:
            roof = roofs.ROOFS.get(row.get("roof", roofs.DEFAULT))
            pct = row.get(roof.metric) if roof is not None else None
            if pct is not None:
                rows.append((pct, ex.name, roof, row))
    if not rows:
        return []
    width = max(len("roof"), *(len(r.label) for r in roofs.ROOFS.values()))  # "cuBLAS": 6
    out = [
        "roofline: each timed exercise against its own roof (furthest from it first)",
        f"  {'exercise':<24} {'roof':<{width}} {'achieved':>13} {'roof value':>13} "
        f"{'% of roof':>9} {'× baseline':>10}",
    ]
    rows.sort(key=lambda r: (r[0], r[1]))
    for pct, name, roof, row in rows:
        ratio = row.get("ratio")
        r = f"{ratio:.3g}" if isinstance(ratio, (int, float)) else "—"
        out.append(
            f"  {name:<24} {roof.label:<{width}} {roof.show(row.get(roof.achieved)):>13} "
            f"{roof.show(row.get(roof.ceiling)):>13} {pct:>9.1f} {r:>10}"
        )
    shown = {roof.name for _, _, roof, _ in rows}
    out.extend(f"  {r.label}: {r.means}" for r in roofs.ROOFS.values() if r.name in shown)
    return out


def _score(grade: Grade) -> str:
    """ "45/50", or "45/50 automatic, 8 manual pending" when a report has manual points."""
    text = f"{_points(grade.total)}/{grade.max}"
    if grade.manual_pending:
        text += f" automatic, {grade.manual_pending} manual pending"
    return text


def _table(grade: Grade) -> list[str]:
    r = grade.report
    labels = [ex.name for ex in grade.exercises]
    if r is not None:
        labels += [r.file, "manual review"]
    width = max([len("exercise"), len("total")] + [len(x) for x in labels])
    head = f"{'exercise':<{width}}  " + "  ".join(f"{n:>11}" for n in PART_NAMES)
    head += f"  {'total':>11}"
    rows = [head, "-" * len(head)]  # "—/N": pending; "ok/N": passed, waiting; "N/M+": more
    for ex in grade.exercises:
        cells = "  ".join(f"{_part_cell(ex.parts[n]):>11}" for n in PART_NAMES)
        total = f"{_points(ex.total)}/{ex.max}" + ("+" if ex.pending else "")
        rows.append(f"{ex.name:<{width}}  {cells}  {total:>11}")
    if r is not None and r.max > 0:
        cells = "  ".join(f"{'·':>11}" for _ in PART_NAMES)
        rows.append(f"{r.file:<{width}}  {cells}  {_points(r.points) + '/' + str(r.max):>11}")
    rows.append("-" * len(head))
    total = f"{_points(grade.total)}/{grade.max}"
    if not is_final(grade):
        total += "+"
    rows.append(f"{'total':<{width}}  {'':>{len(head) - width - 15}}{total:>13}")
    if grade.manual_pending:
        pending = f"{grade.manual_pending} pending"
        rows.append(f"{'manual review':<{width}}  {'':>{len(head) - width - 15}}{pending:>13}")
    legend = _legend(rows[2:])
    if legend:
        rows.append(legend)
    return rows


def _legend(rows: list[str]) -> str:
    """The line under the score table that says what its marks mean, those it shows only
    ("" when it shows none)."""
    text = " ".join(rows)
    keys = []
    if "—/" in text:
        keys.append("—/N: not run, its N points pending")
    if re.search(r"(?<!\w)ok/\d", text):
        keys.append("ok/N: passed, its N points wait for correctness")
    if "+" in text:
        keys.append("N/M+: N points so far of M, more pending")
    if "·" in text:
        keys.append("·: no such part, or measured and not scored")
    return "(" + "; ".join(keys) + ")" if keys else ""


def _verdict(grade: Grade) -> str:
    pending = grade.pending_points
    score = _score(grade)
    if grade.exit_code == 0:
        if grade.manual_pending:
            return (
                f"score {score}: every automatic check ran, full automatic marks; "
                f"{grade.report.file} awaits the instructor's review"
            )
        if grade.max == 0:  # every exercise graded is for a later GPU (lab.toml arch_min)
            return f"score {score}: nothing here is graded for {grade.arch} (see the notes above)"
        return f"score {score}: every check ran, full marks"
    # what to do next, where the checks waited for a GPU
    gpu = any("no CUDA device" in line for line in grade.not_run)
    then = "; grade it again on a machine with a CUDA GPU" if gpu else ""
    if grade.exit_code == 3:
        return (
            f"score so far {score}; {pending} points pending on "
            f"checks that did not run (see NOT RUN): this is not a final grade{then}"
        )
    if pending:
        return (
            f"score so far {score}: {_points(grade.lost_points)} points lost for certain, "
            f"{pending} more pending on checks that did not run (see NOT RUN): this is not a "
            f"final grade{then}"
        )
    return f"score {score}: points lost"


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
        "report": _report_json(grade.report),
        "total": grade.total,
        "max": grade.max,
        "final": is_final(grade),
        "manual_pending": grade.manual_pending,
        "not_run": grade.not_run,
        "exit_code": grade.exit_code,
        "timings_s": {k: round(v, 3) for k, v in grade.timings.items()},
    }


def _report_json(r: ReportResult | None) -> dict | None:
    if r is None:
        return None
    return {
        "file": r.file,
        "points": r.points,
        "max": r.max,
        "status": r.status,
        "info": r.info,
        "messages": r.messages,
        "sections": r.sections,
        "manual": {"max": r.manual, "points": None, "status": MANUAL_REVIEW},
    }


def write_json(grade: Grade, path: str) -> None:
    """Writes the JSON report atomically (grader.files): a reader never sees half of it."""
    try:
        write_atomic(path, json.dumps(to_json(grade), indent=2) + "\n")
    except OSError as e:
        raise GraderError(f"cannot write the JSON report {path}: {e.strerror}")

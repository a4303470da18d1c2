"""Measure what the lab.toml performance thresholds are calibrated from (needs a GPU).

For every lab and every exercise with a [exercise.performance] table, this runs the
reference solution's timed case RUNS times (fresh seeds, each run timed against the
baseline and a device-to-device copy by the lab's judge, as a grade times it: docs/protocol.md,
"Judged runs")
and each known-bad variant (grader/tests/known_bad/<lab>/) and each correct alternative
(grader/tests/alternatives/<lab>/, labelled "alt:<name>") of that exercise once, then prints a
Markdown table and writes every run document to --out (JSON). bench/h200.md quotes these
tables; each threshold in a lab.toml carries the solution's measured value beside it, and lies
between the known-bad variants' figures and the alternatives' (issue 13, part 4).

    python3 bench/calibrate.py [--runs 5] [--lab 3.3] [--exercise NAME] [--out calibration.json]
    python3 bench/calibrate.py --runs 0 --alternatives-only --lab 3.3   # the alternatives alone
    python3 bench/calibrate.py --lab 3.3 --exercise matmul_tiled --size matmul_tiled=2048,2048,2048
        # another timed size than lab.toml's (issue 15: a smaller case holds the GPU less)

Source of the method: DESIGN.md "Timing method"; the spread reported is min..max of the
per-run medians, which is what a threshold's margin must exceed. "timed ms": the judge's
timing and verify phases (median), the most of what a batch's timed run holds the GPU for.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import assemble, build, diagnose, course, fixtures, harness, manifest, tools  # noqa: E402


def metric_of(doc: dict, metric: str) -> float | None:
    """The criterion's figure in an ok run document, as the grader reads it."""
    return diagnose.metric_value(doc, metric) if doc.get("status") == "ok" else None


def variants_of(lab, exercises: set[str], alternatives_only: bool) -> list[tuple[str, Path]]:
    """(label, fixture) of the lab's known-bad variants (label: the fixture's name) and correct
    alternatives (label "alt:<name>") whose exercise is one of ``exercises``."""
    found = [] if alternatives_only else [(f.stem, f) for f in fixtures.find(ROOT, lab.name)]
    found += [(f"alt:{f.stem}", f) for f in fixtures.find(ROOT, lab.name, alternatives=True)]
    return [(label, f) for label, f in found if fixtures.load(f)["expect"]["exercise"] in exercises]


def build_variant(lab, label: str, fixture: Path, work: Path, nvcc) -> tuple[Path | None, str]:
    """Builds one variant; (binary or None, message)."""
    where = work / label.replace(":", "-")
    sub = fixtures.apply(ROOT, fixture, where / "sub")
    assembled = assemble.assemble(lab, sub, where)
    result = build.build(ROOT, assembled.src, where / "out", nvcc, None)
    return result.binary, "" if result.ok else "; ".join(result.summary[:3])


def summary_rows(ex, variant: str, docs: list[dict]) -> list[str]:
    """One Markdown row per performance criterion of ``ex``."""
    rows = []
    for crit in ex.performance.criteria:
        values = [v for v in (metric_of(d, crit.metric) for d in docs) if v is not None]
        if not values:
            statuses = ", ".join(sorted({str(d.get("status", "?")) for d in docs}))
            rows.append(f"| {ex.name} | {variant} | {crit.metric} | none ({statuses}) | | | |")
            continue
        ok = [d for d in docs if metric_of(d, crit.metric) is not None]
        gbps = [d["metrics"]["gbps"] for d in ok if "gbps" in (d.get("metrics") or {})]
        copy = [d["metrics"]["copy_gbps"] for d in ok if "copy_gbps" in (d.get("metrics") or {})]
        measured = (
            f"{statistics.median(values):.4g} "
            f"({min(values):.4g}–{max(values):.4g}, n={len(values)})"
        )
        bandwidth = (
            f"{statistics.median(gbps):.0f} | {statistics.median(copy):.0f}"
            if gbps and copy
            else " | "
        )
        phases = [(d.get("timing") or {}).get("phases_ms") or {} for d in ok]
        held = [p["timing"] + p.get("verify", 0) for p in phases if "timing" in p]
        hold = f"{statistics.median(held):.0f}" if held else ""
        rows.append(
            f"| {ex.name} | {variant} | {crit.metric} | {measured} | {bandwidth} | {hold} |"
        )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="runs of the solution (0: none)")
    ap.add_argument("--lab", action="append")
    ap.add_argument("--exercise", action="append", help="only these exercises (default: all)")
    ap.add_argument(
        "--alternatives-only",
        action="store_true",
        help="time the correct alternatives, not the known-bad variants",
    )
    ap.add_argument("--out", default="calibration.json")
    ap.add_argument(
        "--size",
        action="append",
        default=[],
        metavar="EXERCISE=A,B,C",
        help="time EXERCISE at this size instead of its lab.toml performance.size",
    )
    args = ap.parse_args()
    sizes = {}
    for text in args.size:
        name, _, dims = text.partition("=")
        try:
            sizes[name] = tuple(int(d) for d in dims.split(","))
        except ValueError:
            ap.error(f"--size {text}: EXERCISE=A,B,C with whole numbers")

    version = harness.schema_version(ROOT)
    nvcc = tools.find("nvcc")
    record: dict = {"runs": args.runs, "sizes": {k: list(v) for k, v in sizes.items()}, "labs": {}}
    rows = [
        "| exercise | variant | metric | median (min–max, runs) | GB/s | copy GB/s | timed ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for lab_dir in course.select_labs(ROOT, args.lab):
        lab = manifest.load(lab_dir)
        solution = ROOT / "build" / lab.name / "solution" / "lab"
        judge = ROOT / "build" / lab.name / "judge"
        for needed in (solution, judge):
            if not needed.is_file():
                print(f"{needed} missing: run make first", file=sys.stderr)
                return 2
        timed = [
            ex
            for ex in lab.exercises
            if ex.performance and (not args.exercise or ex.name in args.exercise)
        ]
        with tempfile.TemporaryDirectory(prefix="calibrate-") as tmp:
            variants = variants_of(lab, {e.name for e in timed}, args.alternatives_only)
            with ThreadPoolExecutor() as pool:
                built = list(
                    pool.map(lambda v: build_variant(lab, *v, Path(tmp), nvcc), variants)
                )
            for ex in timed:
                perf = ex.performance
                size = sizes.get(ex.name, perf.size)
                reps = perf.reps if perf.timed else None
                runs = []
                for i in range(args.runs):
                    run = harness.run_judged(
                        judge,
                        solution,
                        ex.name,
                        size,
                        1000 + i,
                        lab.run_timeout_s,
                        version,
                        reps,
                    )
                    runs.append(run.doc or {"status": run.status, "problem": run.problem})
                record["labs"].setdefault(lab.id, {})[ex.name] = {"solution": runs} if runs else {}
                if runs:
                    rows.extend(summary_rows(ex, "solution", runs))
                for (binary, msg), (name, fixture) in zip(built, variants):
                    if fixtures.load(fixture)["expect"]["exercise"] != ex.name:
                        continue
                    if binary is None:
                        doc = {"status": "build_failed", "problem": msg}
                    else:
                        run = harness.run_judged(
                            judge, binary, ex.name, size, 2000, lab.run_timeout_s, version, reps
                        )
                        doc = run.doc or {"status": run.status, "problem": run.problem}
                    record["labs"][lab.id][ex.name][name] = [doc]
                    rows.extend(summary_rows(ex, name, [doc]))
                print(rows[-1] if len(rows) > 2 else "", file=sys.stderr, flush=True)
    Path(args.out).write_text(json.dumps(record, indent=1))
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

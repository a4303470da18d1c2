"""Measure what the lab.toml performance thresholds are calibrated from (needs a GPU).

For every lab and every exercise with a [exercise.performance] table, this runs the
reference solution's timed case RUNS times (fresh seeds, each run timed against the
baseline and a device-to-device copy in the same process, per the course's timing method)
and each known-bad variant of that exercise once, then prints a Markdown table and writes
every run document to --out (JSON). bench/h200.md quotes these tables; each threshold in a
lab.toml carries the solution's measured value beside it.

    python3 bench/calibrate.py [--runs 5] [--lab 3.3] [--out calibration.json]

Source of the method: DESIGN.md "Timing method"; the spread reported is min..max of the
per-run medians, which is what a threshold's margin must exceed.
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


def build_variant(lab, fixture: Path, work: Path, nvcc) -> tuple[str, Path | None, str]:
    """Builds one known-bad variant; (name, binary or None, message)."""
    sub = fixtures.apply(ROOT, fixture, work / fixture.stem / "sub")
    assembled = assemble.assemble(lab, sub, work / fixture.stem)
    result = build.build(ROOT, assembled.src, work / fixture.stem / "out", nvcc, None)
    return fixture.stem, result.binary, "" if result.ok else "; ".join(result.summary[:3])


def summary_rows(ex, variant: str, docs: list[dict]) -> list[str]:
    """One Markdown row per performance criterion of ``ex``."""
    rows = []
    for crit in ex.performance.criteria:
        values = [v for v in (metric_of(d, crit.metric) for d in docs) if v is not None]
        if not values:
            statuses = ", ".join(sorted({str(d.get("status", "?")) for d in docs}))
            rows.append(f"| {ex.name} | {variant} | {crit.metric} | none ({statuses}) | | |")
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
        rows.append(f"| {ex.name} | {variant} | {crit.metric} | {measured} | {bandwidth} |")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--lab", action="append")
    ap.add_argument("--out", default="calibration.json")
    args = ap.parse_args()

    version = harness.schema_version(ROOT)
    nvcc = tools.find("nvcc")
    record: dict = {"runs": args.runs, "labs": {}}
    rows = [
        "| exercise | variant | metric | median (min–max, runs) | GB/s | copy GB/s |",
        "|---|---|---|---|---|---|",
    ]
    for lab_dir in course.select_labs(ROOT, args.lab):
        lab = manifest.load(lab_dir)
        solution = ROOT / "build" / lab.name / "solution" / "lab"
        if not solution.is_file():
            print(f"{solution} missing: run make first", file=sys.stderr)
            return 2
        timed = [ex for ex in lab.exercises if ex.performance]
        with tempfile.TemporaryDirectory(prefix="calibrate-") as tmp:
            variants = [
                f
                for f in fixtures.find(ROOT, lab.name)
                if fixtures.load(f)["expect"]["exercise"] in {e.name for e in timed}
            ]
            with ThreadPoolExecutor() as pool:
                built = list(pool.map(lambda f: build_variant(lab, f, Path(tmp), nvcc), variants))
            for ex in timed:
                perf = ex.performance
                reps = perf.reps if perf.timed else None
                runs = []
                for i in range(args.runs):
                    run = harness.run_case(
                        solution,
                        ex.name,
                        perf.size,
                        1000 + i,
                        lab.run_timeout_s,
                        version,
                        reps,
                    )
                    runs.append(run.doc or {"status": run.status, "problem": run.problem})
                record["labs"].setdefault(lab.id, {})[ex.name] = {"solution": runs}
                rows.extend(summary_rows(ex, "solution", runs))
                for (name, binary, msg), fixture in zip(built, variants):
                    if fixtures.load(fixture)["expect"]["exercise"] != ex.name:
                        continue
                    if binary is None:
                        doc = {"status": "build_failed", "problem": msg}
                    else:
                        run = harness.run_case(
                            binary, ex.name, perf.size, 2000, lab.run_timeout_s, version, reps
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

"""Peak host memory of the runs a grading makes (needs a GPU): what ``grader.cgroup``'s
memory limit per run (``MAX_MEMORY_BYTES``) must leave room for.

For every lab, the reference solution's binary (``make all``: build/<lab>/solution/lab)
runs through the grader's own run layer — so in a cgroup of its own, whose peak the kernel
reports (v2 ``memory.peak``, v1 ``memory.max_usage_in_bytes``) — for each exercise: the
largest correctness case, the performance case (``--time`` with the manifest's reps where it is timed), and each
compute-sanitizer tool on the largest sanitizer case. Prints a Markdown table (bench/h200.md
"Host memory per run" quotes it) and the largest peak; exits 1 when a run did not end
well (a run killed at the limit reads "memory").

    python3 bench/memory_peaks.py [--lab 3.5] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import cgroup, harness, manifest, sanitizer, tools  # noqa: E402


def _largest(sizes) -> tuple[int, ...]:
    return max(sizes, key=math.prod)


def _mib(n: int | None) -> str:
    return "not reported" if n is None else f"{n / 2**20:.0f}"


def measure(lab: manifest.Lab, seed: int) -> list[tuple[str, str, tuple, int | None, str]]:
    """(exercise, run, size, peak bytes, outcome) for every run measured in ``lab``."""
    binary = ROOT / "build" / lab.name / "solution" / "lab"
    version = harness.schema_version(ROOT)
    tool = tools.find("compute-sanitizer")
    rows = []
    for ex in lab.exercises:
        size = _largest(ex.cases)
        run = harness.run_case(binary, ex.name, size, seed, lab.run_timeout_s, version)
        rows.append((ex.name, "correctness", size, run.outcome.peak_bytes, run.status))
        if ex.performance is not None:
            spec = ex.performance
            reps = spec.reps if spec.timed else None
            run = harness.run_case(
                binary, ex.name, spec.size, seed, lab.run_timeout_s, version, reps
            )
            what = "timed" if spec.timed else "performance"
            rows.append((ex.name, what, spec.size, run.outcome.peak_bytes, run.status))
        if ex.sanitizer is not None and tool is not None:
            size = _largest(ex.sanitizer.cases)
            for name in ex.sanitizer.tools:
                r = sanitizer.run(
                    tool, name, binary, ex.name, size, seed, lab.sanitizer_timeout_s, version, []
                )
                rows.append((ex.name, name, size, r.peak_bytes, r.verdict))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lab", action="append", help="lab id (3.3) or folder name; repeatable")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print(f"limits: {cgroup.status()}\n")
    print("| lab | exercise | run | size | peak host MiB | status |")
    print("|---|---|---|---|---|---|")
    peak, bad = 0, 0
    for lab_dir in sorted((ROOT / "labs").glob("*/lab.toml")):
        lab = manifest.load(lab_dir.parent)
        if args.lab and lab.id not in args.lab and lab.name not in args.lab:
            continue
        for exercise, run, size, peak_bytes, status in measure(lab, args.seed):
            size_text = "x".join(map(str, size))
            print(
                f"| {lab.id} | {exercise} | {run} | {size_text} | {_mib(peak_bytes)} | {status} |"
            )
            peak = max(peak, peak_bytes or 0)
            bad += status not in ("ok", "clean")
    print(f"\nlargest peak: {_mib(peak)} MiB; limit {cgroup.size_text(cgroup.MAX_MEMORY_BYTES)}")
    print(f"runs that did not end ok/clean: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

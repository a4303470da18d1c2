"""The correctness and sanitizer verdicts of a batch (every exercise's correctness cases in one
judged run, each sanitizer tool over the lab in one process first: design note 37) against a
single grade's (each exercise's own runs), for the solution and the known-bad fixtures
given, untimed (--no-perf), with one seed. Usage, from the repository root on a GPU machine:
python3 batch_vs_grade.py LABDIR OUT FIXTURE... (FIXTURE: a known-bad fixture's name in
grader/tests/known_bad/<lab>/). Prints one line per submission, exercise and part (status,
points, and each row: a correctness case's size, status and message; a sanitizer run's tool,
size, seed and verdict), DIFFERS where the two disagree, then a summary line; exit status 1
when any differs. A correctness case's message is not compared, only shown where it differs
(session 13, g54: a fixture with a data race, e.g. no_end_barrier, gets other wrong elements
in each run, its verdict and points the same)."""

import json
import subprocess
import sys
from pathlib import Path

from grader import fixtures

REPO = Path.cwd()


def parts(report: dict) -> dict:
    """(exercise, part): (status, points, rows) for correctness and sanitizer."""
    got = {}
    for ex in report["exercises"]:
        cor = ex["parts"]["correctness"]
        rows = [(d.get("size"), d["status"], d.get("message")) for d in cor["details"]]
        got[(ex["name"], "correctness")] = (cor["status"], cor["points"], rows)
        san = ex["parts"].get("sanitizer") or {}
        runs = [(d["tool"], d["size"], d["seed"], d["verdict"]) for d in san.get("details", [])]
        got[(ex["name"], "sanitizer")] = (san.get("status"), san.get("points"), sorted(runs))
    return got


def verdict(part: tuple | None) -> tuple | None:
    """A part without its correctness cases' messages."""
    if part is None:
        return None
    status, points, rows = part
    return status, points, [row[:2] if len(row) == 3 else row for row in rows]


def main() -> int:
    lab, out, names = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
    subs = {"solution": REPO / "solutions" / lab.name}
    for name in names:
        path = fixtures.known_bad_dir(REPO) / lab.name / f"{name}.toml"
        subs[name] = fixtures.apply(REPO, path, out / "subs" / name)
    seed = ["--seed", "7"]
    for name, sub in subs.items():
        subprocess.run([sys.executable, "-m", "grader", "grade", str(lab), "--submission",
                        str(sub), "--no-perf", "--json", str(out / f"{name}.grade.json"),
                        "--quiet", *seed], check=False)
    subprocess.run([sys.executable, "-m", "grader", "batch", str(lab), *map(str, subs.values()),
                    "--no-perf", "--out", str(out / "batch"), *seed], check=False)
    differ = 0
    for name, sub in subs.items():
        single = parts(json.loads((out / f"{name}.grade.json").read_text()))
        batch_report = out / "batch" / sub.name / "report.json"
        batched = parts(json.loads(batch_report.read_text()))
        for key in single:
            same = verdict(single[key]) == verdict(batched.get(key))
            if same and single[key] != batched.get(key):
                print(f"{name} {key[0]} {key[1]}: messages differ (a data race?)")
            differ += not same
            print(f"{name} {key[0]} {key[1]}: {'same' if same else 'DIFFERS'} {single[key][:2]}"
                  + ("" if same else f"\n  grade {single[key]}\n  batch {batched.get(key)}"))
    print(f"{len(subs)} submissions: {differ} parts differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

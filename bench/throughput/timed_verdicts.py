"""A batch's performance verdicts (its timed exercises in one judged run, one hold of the GPU:
docs/design-notes.md, note 39) against single grades' (each exercise's own timed run), for the
lab's solution and the known-bad fixtures given, with one seed.

Usage, from the repository root on a GPU machine:
    python3 bench/throughput/timed_verdicts.py LABDIR OUT FIXTURE...
    python3 bench/throughput/timed_verdicts.py --compare LABDIR OUT FIXTURE...
FIXTURE: a known-bad fixture's name in grader/tests/known_bad/<lab>/. The first form grades
each submission singly, one at a time (OUT/NAME.grade.json), then all in one batch
(OUT/batch), and compares; --compare only compares what OUT holds (e.g. single grades and a
batch made in two device calls). Session 14's g59 graded four at a time under one
GRADER_GPU_LOCK file: two full-lab grades beside a hostile fixture's timed out correctness
cases at 1x1x1, so the single grades now run one at a time.

Prints one line per submission and exercise: the performance part's status and points in
the single grade and in the batch, "same" or "DIFFERS" (timed figures vary from run to run:
a ramp's points may differ by noise, so each line shows the figures too), and each total;
then, for each fixture, whether the batch's report loses every part its expect.lost names,
at its exercise, and holds each of its expect.report_contains ("MISSED" otherwise). Exit
status 1 when a fixture's expectation was MISSED in the batch."""

import json
import subprocess
import sys
from pathlib import Path

from grader import fixtures

REPO = Path.cwd()


def performance(report: dict) -> dict:
    """exercise: (status, points, the first row's figures) of the performance part."""
    got = {}
    for ex in report["exercises"]:
        part = ex["parts"].get("performance") or {}
        rows = part.get("details") or [{}]
        figures = {k: rows[-1].get(k) for k in ("status", "value", "pct_of_copy", "ratio")}
        got[ex["name"]] = (part.get("status"), part.get("points"), figures)
    return got


def grade_all(lab: Path, out: Path, subs: dict[str, Path]) -> None:
    """Each submission graded singly, one at a time, then all of them in one batch."""
    seed = ["--seed", "7"]
    for name, sub in subs.items():
        subprocess.run([sys.executable, "-m", "grader", "grade", str(lab), "--submission",
                        str(sub), "--json", str(out / f"{name}.grade.json"), "--quiet", *seed],
                       check=False)
    subprocess.run([sys.executable, "-m", "grader", "batch", str(lab), *map(str, subs.values()),
                    "--out", str(out / "batch"), *seed], check=False)


def compare(out: Path, subs: dict[str, Path], expect: dict[str, dict]) -> int:
    """The lines described above; 1 when a fixture missed its verdict in the batch."""
    differ = missed = 0
    for name, sub in subs.items():
        single_report = json.loads((out / f"{name}.grade.json").read_text())
        batch_dir = out / "batch" / sub.name
        report = json.loads((batch_dir / "report.json").read_text())
        single, batched = performance(single_report), performance(report)
        for ex, one in single.items():
            two = batched.get(ex)
            same = two is not None and one[:2] == two[:2]
            differ += not same
            print(f"{name} {ex}: {'same' if same else 'DIFFERS'} grade {one} batch {two}")
        print(f"{name}: total {single_report['total']} (grade) {report['total']} (batch)")
        if name in expect:
            want = expect[name]
            (ex,) = [e for e in report["exercises"] if e["name"] == want["exercise"]]
            text = (batch_dir / "report.txt").read_text()
            lost = all(ex["parts"][p]["points"] < ex["parts"][p]["max"] for p in want["lost"])
            says = [t for t in want.get("report_contains", []) if t not in text]
            ok = lost and not says
            missed += not ok
            print(f"{name}: {'expected verdict' if ok else 'MISSED'} (lost {want['lost']}: "
                  f"{lost}; missing words: {says})")
    print(f"{len(subs)} submissions: {differ} performance parts differ from the single grade's, "
          f"{missed} fixtures missed their verdict in the batch")
    return 1 if missed else 0


def main() -> int:
    args = sys.argv[1:]
    only_compare = args[:1] == ["--compare"]
    lab, out, names = Path(args[only_compare]), Path(args[only_compare + 1]), args[only_compare + 2:]
    subs = {"solution": REPO / "solutions" / lab.name}
    expect = {}
    for name in names:
        path = fixtures.known_bad_dir(REPO) / lab.name / f"{name}.toml"
        subs[name] = out / "subs" / name
        if not only_compare:
            fixtures.apply(REPO, path, subs[name])
        expect[name] = fixtures.load(path)["expect"]
    if not only_compare:
        out.mkdir(parents=True, exist_ok=True)
        grade_all(lab, out, subs)
    return compare(out, subs, expect)


if __name__ == "__main__":
    sys.exit(main())

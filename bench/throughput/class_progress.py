"""How many students a batch had graded by given times (issue 15): reads the batch's own log
(``python3 -m grader batch``'s lines "[K/N] STUDENT: ... (elapsed S s, ...)", one per
finished student; bench/class_batch.py keeps it as OUT/grading-1.log) and prints one row per
log: the students finished by each time, seconds from the batch's start (default 100, 200,
300, 400, 470, 530, 564: the columns of sessions 29 and 30's READMEs). A resumed batch
rewrites the log, and the students it kept print no line: its log counts only that call's
students, from that call's start.

Usage: python3 class_progress.py LOG... [--at S,S,...]"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

FINISHED = re.compile(r"^\[\d+/\d+\] .*\(elapsed (\d+) s")


def finished_at(text: str) -> list[int]:
    """The elapsed seconds of each finished student's line, in the log's order."""
    return [int(m.group(1)) for line in text.splitlines() if (m := FINISHED.match(line))]


def graded_by(elapsed: list[int], times: list[int]) -> list[int]:
    """For each time, how many students had finished by it (at that second included)."""
    return [sum(t <= limit for t in elapsed) for limit in times]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+", type=Path)
    ap.add_argument("--at", default="100,200,300,400,470,530,564")
    args = ap.parse_args(argv)
    times = [int(t) for t in args.at.split(",")]
    print("| log | " + " | ".join(f"{t} s" for t in times) + " | last |")
    print("|---" * (len(times) + 2) + "|")
    for log in args.logs:
        elapsed = finished_at(log.read_text(errors="replace"))
        counts = " | ".join(str(c) for c in graded_by(elapsed, times))
        last = f"{len(elapsed)} at {max(elapsed)} s" if elapsed else "none"
        print(f"| {log} | {counts} | {last} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

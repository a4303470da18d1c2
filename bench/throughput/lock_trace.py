"""How a batch used the GPU lock (issue 15): reads the trace a batch run with
GRADER_GPU_LOCK_TRACE=FILE wrote (grader/gpu_lock.py: one line "SECONDS READERS
WRITERS_WAITING WRITER" at every change) and prints the seconds, from the first line to the
last, spent in each state:
  alone    a timed run held the GPU alone (its measuring part: the judge past its gate)
  drain    a timed run waited while untimed runs (set-ups, correctness, sanitizer) still held it
  shared   untimed runs held it and no timed run waited
  idle     nobody held it
and the number of holds alone with their mean length. Usage: python3 lock_trace.py FILE."""

from __future__ import annotations

import sys
from collections import Counter


def states(lines: list[str]) -> tuple[Counter, int, float]:
    """(seconds per state, holds alone, span in seconds) of the trace's lines."""
    spent: Counter = Counter()
    rows = [tuple(float(x) for x in line.split()) for line in lines if line.strip()]
    holds = sum(1 for a, b in zip(rows, rows[1:]) if b[3] and not a[3])
    holds += bool(rows and rows[0][3])
    for (t, readers, waiting, writer), nxt in zip(rows, rows[1:]):
        if writer:
            state = "alone"
        elif readers and waiting:
            state = "drain"
        elif readers:
            state = "shared"
        else:
            state = "idle"
        spent[state] += nxt[0] - t
    span = rows[-1][0] - rows[0][0] if rows else 0.0
    return spent, holds, span


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        spent, holds, span = states(f.readlines())
    print(f"span {span:.1f} s")
    for state in ("alone", "drain", "shared", "idle"):
        pct = 100 * spent[state] / span if span else 0.0
        print(f"{state:<7} {spent[state]:8.1f} s {pct:5.1f} %")
    if holds:
        print(f"{holds} holds alone, {spent['alone'] / holds:.2f} s each on average")


if __name__ == "__main__":
    main()

"""How a batch used the GPU lock (issue 15): reads the trace a batch run with
GRADER_GPU_LOCK_TRACE=FILE wrote (grader/gpu_lock.py: one line "SECONDS READERS
WRITERS_WAITING WRITER THREAD" at every change; WRITERS_WAITING counts the timed runs waiting
once a drain has begun, 0 before: with GRADER_DRAIN_AT, untimed runs still start beside the
first ones) and prints the seconds, from the first line to the last, spent in each state:
  alone    a timed run held the GPU alone (its measuring part: the judge past its gate)
  drain    a timed run waited while untimed runs (set-ups, correctness, sanitizer) still held it
  shared   untimed runs held it and no timed run waited
  idle     nobody held it
the number of holds alone with their mean and median length, the read phases between runs of
holds (``cycles``), and the longest drains (when they began, from the first line, and the
thread whose shared hold ended each: a batch's grading is named after its student): a drain
that lasts a case's time limit is an untimed run that hung while timed runs waited (g87: 3 of
29-43 s made 101 of its 148.5 s of drain), and how many untimed runs were stopped for a drain
(GRADER_DRAIN_STOP_AFTER, design note 78: the line of the hold given up after each stop ends
its thread's name with STOPPED_MARK; the drain it ends is "ended by NAME (stopped ...)").
Usage: python3 lock_trace.py FILE."""

from __future__ import annotations

import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
# what ends the thread's name on the line of a hold given up after an untimed run was stopped
# for the drain: the lock's own constant, not a copy of it
from grader.gpu_lock import STOPPED_MARK  # noqa: E402


def _rows(lines: list[str]) -> list[tuple[float, ...]]:
    """The trace's lines as (seconds, readers, writers waiting, writer)."""
    return [tuple(float(x) for x in line.split()[:4]) for line in lines if line.strip()]


def _names(lines: list[str]) -> list[str]:
    """The name of the thread that wrote each of the trace's lines ("" in a trace written
    before the lines carried it)."""
    return [(line.split(maxsplit=4)[4:] or [""])[0].strip() for line in lines if line.strip()]


def intervals(lines: list[str]) -> list[tuple[float, float, str, int]]:
    """The trace's lines as (start, end, state, readers): each line's state lasts until the
    next line (times on the trace's own clock, Python's time.monotonic())."""
    rows = _rows(lines)
    out = []
    for (t, readers, waiting, writer), nxt in zip(rows, rows[1:]):
        if writer:
            state = "alone"
        elif readers and waiting:
            state = "drain"
        elif readers:
            state = "shared"
        else:
            state = "idle"
        out.append((t, nxt[0], state, int(readers)))
    return out


def states(lines: list[str]) -> tuple[Counter, int, float]:
    """(seconds per state, holds alone, span in seconds) of the trace's lines."""
    spent: Counter = Counter()
    rows = _rows(lines)
    holds = sum(1 for a, b in zip(rows, rows[1:]) if b[3] and not a[3])
    holds += bool(rows and rows[0][3])
    for start, end, state, _readers in intervals(lines):
        spent[state] += end - start
    span = rows[-1][0] - rows[0][0] if rows else 0.0
    return spent, holds, span


def drains(lines: list[str]) -> list[tuple[float, float, str]]:
    """The trace's drains, longest first: (seconds, start in seconds from the first line, the
    thread whose untimed run ended it: the last to leave, which the timed runs waited for; or,
    "NAME giving up its wait", the timed run's thread that stopped waiting)."""
    rows, names = _rows(lines), _names(lines)
    spans, start = [], None
    for (t, readers, waiting, writer), name in zip(rows, names):
        draining = bool(readers and waiting and not writer)
        if draining and start is None:
            start = t
        elif not draining and start is not None:
            if readers and not writer:  # untimed runs still in: the timed one stopped waiting
                name = f"{name} giving up its wait"
            spans.append((t - start, start - rows[0][0], name))
            start = None
    if start is not None:  # still draining at the trace's last line
        spans.append((rows[-1][0] - start, start - rows[0][0], "(still held)"))
    return sorted(spans, reverse=True)


def holds_by_thread(lines: list[str]) -> dict[str, list[float]]:
    """Each thread's holds alone (seconds), in the trace's order, by the name on the line
    that began each (a batch's timed run over the lab: "grade SID early-timed")."""
    out: dict[str, list[float]] = defaultdict(list)
    for (start, end, state, _readers), name in zip(intervals(lines), _names(lines)):
        if state == "alone":
            out[name].append(end - start)
    return out


def stops(lines: list[str]) -> int:
    """How many untimed runs were stopped for a drain and made again after it (each a hold
    given up, its line's name ending with ``STOPPED_MARK``)."""
    return sum(1 for name in _names(lines) if name.endswith(STOPPED_MARK))


def cycles(lines: list[str], gap_s: float = 1.0) -> tuple[list[float], list[tuple[float, float]]]:
    """(the holds alone, in seconds, in order, one still going at the last line up to it; the
    read phases between them as (start in seconds from the first line, seconds)): a read
    phase is the time from the end of one hold alone, or the trace's start, to the next hold,
    where it lasts at least ``gap_s`` (a batch's convoy, design note 55: each cohort's probes,
    correctness, sanitizer runs and set-ups, then its holds back to back)."""
    rows = _rows(lines)
    holds, phases = [], []
    began = None  # the current hold's start
    ended = rows[0][0] if rows else 0.0  # the last hold's end
    for t, _readers, _waiting, writer in rows:
        if writer and began is None:
            began = t
            if t - ended >= gap_s:
                phases.append((ended - rows[0][0], t - ended))
        elif not writer and began is not None:
            holds.append(t - began)
            began, ended = None, t
    if began is not None:  # a hold still going at the trace's last line
        holds.append(rows[-1][0] - began)
    return holds, phases


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        lines = f.readlines()
    spent, holds, span = states(lines)
    print(f"span {span:.1f} s")
    for state in ("alone", "drain", "shared", "idle"):
        pct = 100 * spent[state] / span if span else 0.0
        print(f"{state:<7} {spent[state]:8.1f} s {pct:5.1f} %")
    if holds:
        print(f"{holds} holds alone, {spent['alone'] / holds:.2f} s each on average")
    held, phases = cycles(lines)
    if held:
        print(f"holds alone: median {statistics.median(held):.2f} s")
    if phases:
        print("read phases (start s, seconds): " + ", ".join(f"{t:.0f} {d:.1f}" for t, d in phases))
    stopped = stops(lines)
    if stopped:
        print(f"{stopped} untimed runs stopped for a drain and made again after it")
    longest = drains(lines)[:5]
    if longest:
        print("longest drains:")
        for d, t, name in longest:
            print(f"  {d:6.1f} s at {t:6.1f} s, ended by {name or '(not traced)'}")


if __name__ == "__main__":
    main()

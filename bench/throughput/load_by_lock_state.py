"""What the machine did in each state of the GPU lock (issue 15): which resource bounds a
batch's read phases. Session 29's class (g105) ran at g100's pace although a grading's
steps ran side by side (design note 68): its read phases are bound by throughput, with the
CPUs 11 of 16 busy and the GPU's SMs mostly idle while some 48 processes held a context, and
the figures came from aligning three clocks by hand. This reads them together:

  TRACE  the GPU lock's trace (GRADER_GPU_LOCK_TRACE; lock_trace.py), on the clock of
         Python's time.monotonic()
  TOP    `top -b -d SECONDS -w 512` (plain or .gz), each sample headed by the time of day
  CLOCK  the two clocks read at one instant: a file holding "MONOTONIC SECONDS_OF_DAY"
         (bench/device_prelude.sh's watch_start writes clockTAG.txt), or MONO@HH:MM:SS.s
         (g105: 0@01:52:34.0, from top's uptime and the GPU processes' jumps)
  DMON   optional: `nvidia-smi dmon -s um -d 2 -o T` (its first column the time of day)

A sample of top or dmon counts for a lock state when at least 80 % of the seconds it covers
(the SECONDS before it) fall in that state; drains are split by the untimed runs still in
(six or more, or fewer). Prints per state: samples, the machine's busy share (us, sy, ni),
the CPUs each of the busiest commands used on average, and dmon's sm % (mean, median) and
fb MB (the largest). Usage:
  python3 load_by_lock_state.py TRACE TOP SECONDS CLOCK [DMON]"""

from __future__ import annotations

import gzip
import re
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lock_trace  # noqa: E402
import top_by_command  # noqa: E402

_DAY = 86400.0
_HEADER = re.compile(r"^top - (\d+):(\d+):(\d+)")
_CLOCK = re.compile(r"^([\d.]+)@(\d+):(\d+):([\d.]+)$")
STATES = ("alone", "drain, 6+ runs in", "drain, fewer", "shared", "idle")


def _lines(path: str) -> list[str]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        return f.read().splitlines()


def clock_offset(clock: str) -> float:
    """Seconds of the day minus monotonic seconds, from CLOCK (a file or MONO@HH:MM:SS.s)."""
    m = _CLOCK.match(clock)
    if m:
        mono, h, mi, s = (float(x) for x in m.groups())
        return h * 3600 + mi * 60 + s - mono
    mono, day = (float(x) for x in Path(clock).read_text().split()[:2])
    return day - mono


def _state(spans: list[tuple[float, float, str, int]], a: float, b: float) -> str | None:
    """The lock state covering at least 80 % of [a, b] (monotonic seconds), or None."""
    seen: Counter = Counter()
    for start, end, state, readers in spans:
        overlap = min(b, end) - max(a, start)
        if overlap > 0:
            if state == "drain":
                state = "drain, 6+ runs in" if readers >= 6 else "drain, fewer"
            seen[state] += overlap
    if not seen:
        return None
    state, secs = seen.most_common(1)[0]
    return state if secs >= 0.8 * (b - a) else None


def _mono(day_s: float, offset: float, near: float) -> float:
    """Seconds of the day as monotonic seconds, the day's wrap taken nearest to ``near``."""
    mono = day_s - offset
    return mono + _DAY * round((near - mono) / _DAY)


def top_samples(lines: list[str], interval_s: float, offset: float, near: float):
    """Each top sample as (monotonic end, CPU seconds by command, %Cpu(s) shares)."""
    out, chunk, end = [], [], None

    def take() -> None:  # the sample read so far, headed at ``end``
        if end is not None:
            per, shares, n = top_by_command.summarise(chunk, interval_s)
            if n:
                out.append((end, per, shares))

    for line in lines:
        m = _HEADER.match(line)
        if m:
            take()
            h, mi, s = (int(x) for x in m.groups())
            end, chunk = _mono(h * 3600 + mi * 60 + s, offset, near), []
        else:
            chunk.append(line)
    take()
    return out


def dmon_samples(lines: list[str], offset: float, near: float):
    """Each dmon line as (monotonic end, sm %, fb MB); its first column the time of day."""
    cols, out = None, []
    for line in lines:
        fields = line.split()
        if line.startswith("#"):
            names = line.lstrip("#").split()  # "#Time gpu sm ..." or "# Time gpu sm ..."
            cols = names if "sm" in names and names[0].lower() == "time" else cols
            continue
        if cols is None or len(fields) != len(cols) or ":" not in fields[0]:
            continue
        h, mi, s = (float(x) for x in fields[0].split(":"))
        try:
            sm, fb = float(fields[cols.index("sm")]), float(fields[cols.index("fb")])
        except (ValueError, IndexError):
            continue  # "-" where the driver gave no figure
        out.append((_mono(h * 3600 + mi * 60 + s, offset, near), sm, fb))
    return out


def main(argv: list[str]) -> int:
    if len(argv) not in (5, 6):
        print(__doc__, file=sys.stderr)
        return 2
    spans = lock_trace.intervals(_lines(argv[1]))
    if not spans:
        print("the trace has fewer than two lines", file=sys.stderr)
        return 1
    interval, offset, near = float(argv[3]), clock_offset(argv[4]), spans[0][0]
    by_state = defaultdict(list)
    for end, per, shares in top_samples(_lines(argv[2]), interval, offset, near):
        state = _state(spans, end - interval, end)
        if state:
            by_state[state].append((per, shares))
    gpu = defaultdict(list)
    if len(argv) == 6:
        dmon = dmon_samples(_lines(argv[5]), offset, near)
        for prev, cur in zip(dmon, dmon[1:]):
            state = _state(spans, prev[0], cur[0])
            if state:
                gpu[state].append(cur[1:])
    for state in STATES:
        samples = by_state.get(state, [])
        line = f"{state:<18} top {len(samples):4d}"
        if samples:
            busy = [100 - s.get("id", 0.0) for _, s in samples]
            parts = "/".join(f"{statistics.mean(s.get(k, 0.0) for _, s in samples):.0f}"
                             for k in ("us", "sy", "ni"))
            line += f"  busy {statistics.mean(busy):5.1f} % (us/sy/ni {parts})"
        if gpu.get(state):
            sm = [g[0] for g in gpu[state]]
            fb = max(g[1] for g in gpu[state])
            line += (f"  dmon {len(sm)}: sm {statistics.mean(sm):.1f} % mean, "
                     f"{statistics.median(sm):.0f} median, fb {fb:.0f} MB")
        print(line)
        if samples:
            cpus: Counter = Counter()
            for per, _ in samples:
                cpus.update(per)
            top = cpus.most_common(6)
            print("    CPUs by command: " + ", ".join(
                f"{name} {secs / interval / len(samples):.2f}" for name, secs in top))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

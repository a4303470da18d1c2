"""Where a batch's CPU time went, by command (issue 15): reads what `top -b -d SECONDS -w 512`
printed while the batch ran and prints, per command name, the CPU seconds summed over the
samples (%CPU x SECONDS / 100: the processes alive at a sample, so processes shorter than a
sample are undercounted), then the whole machine's user / nice / system / idle shares from
top's "%Cpu(s)" lines. Since session 27 the course's processes name their role: judge-timed,
judge-cases (correctness), judge-null (the empty-kernel server, "exe" before), lab-timed and
lab-cases (the student's processes of judged runs), lab (a plain run: compute-sanitizer's).
Usage: python3 top_by_command.py TOP_OUTPUT SECONDS."""

from __future__ import annotations

import re
import sys
from collections import Counter

_CPUS = re.compile(r"^%Cpu\(s\):(.*)$")
_FIELD = re.compile(r"([\d.]+)\s+(us|sy|ni|id|wa|hi|si|st)")


def summarise(lines: list[str], interval_s: float) -> tuple[Counter, Counter, int]:
    """(CPU seconds per command, summed %Cpu(s) shares, number of samples)."""
    per_command: Counter = Counter()
    shares: Counter = Counter()
    samples = 0
    cpu_col = None
    for line in lines:
        m = _CPUS.match(line)
        if m:
            samples += 1
            shares.update({k: float(v) for v, k in _FIELD.findall(m.group(1))})
            continue
        fields = line.split()
        if "%CPU" in fields and "COMMAND" in fields:
            cpu_col = fields.index("%CPU")
            continue
        if cpu_col is None or len(fields) <= cpu_col + 3 or not fields[0].isdigit():
            continue
        try:
            pct = float(fields[cpu_col])
        except ValueError:
            continue
        per_command[fields[-1]] += pct * interval_s / 100
    return per_command, shares, samples


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], errors="replace") as f:
        per_command, shares, samples = summarise(f.read().splitlines(), float(argv[2]))
    total = sum(per_command.values())
    print(f"{samples} samples; {total:.0f} CPU seconds in the processes seen")
    for name, seconds in per_command.most_common(12):
        print(f"  {name:<20} {seconds:8.1f} s  {100 * seconds / max(total, 1e-9):5.1f} %")
    if samples:
        print("machine:", "  ".join(f"{k} {v / samples:.1f} %" for k, v in shares.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Where a batch's GPU memory went, by command (issue 15): reads what
`nvidia-smi --query-compute-apps=timestamp,pid,used_memory --format=csv,noheader,nounits -l S`
printed while the batch ran (one line per process per sample, MiB) and `top -b` beside it (its
PID and COMMAND columns name each process: since session 27 the course's name their role,
judge-timed, judge-cases, judge-null, lab-timed, lab-cases, lab), and prints per command its
processes' largest sum in one sample and their count, then the largest sum over all processes
and when. A PID top never showed counts as "?".

Usage: python3 gpu_memory_by_command.py APPS_OUTPUT TOP_OUTPUT"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict


def commands_by_pid(lines: list[str]) -> dict[int, str]:
    """PID -> COMMAND from `top -b` output (the last name seen for a PID)."""
    names: dict[int, str] = {}
    pid_col = None
    for line in lines:
        fields = line.split()
        if "PID" in fields and "COMMAND" in fields:
            pid_col = fields.index("PID")
            continue
        if pid_col is None or len(fields) <= pid_col or not fields[pid_col].isdigit():
            continue
        names[int(fields[pid_col])] = fields[-1]
    return names


def samples(lines: list[str]) -> dict[str, dict[int, int]]:
    """timestamp -> {pid: MiB} from the compute-apps lines (others, e.g. "No running
    processes found", are skipped)."""
    out: dict[str, dict[int, int]] = defaultdict(dict)
    for line in lines:
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            continue
        out[parts[0]][int(parts[1])] = int(parts[2])
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], errors="replace") as f:
        apps = samples(f.read().splitlines())
    with open(argv[1], errors="replace") as f:
        names = commands_by_pid(f.read().splitlines())
    peak: Counter = Counter()
    seen: dict[str, set[int]] = defaultdict(set)
    top_total, top_when = 0, None
    for when, used in apps.items():
        by_command: Counter = Counter()
        for pid, mib in used.items():
            command = names.get(pid, "?")
            by_command[command] += mib
            seen[command].add(pid)
        for command, mib in by_command.items():
            peak[command] = max(peak[command], mib)
        total = sum(used.values())
        if total > top_total:
            top_total, top_when = total, when
    print(f"{len(apps)} samples; largest sum {top_total} MiB at {top_when}")
    for command, mib in peak.most_common():
        print(f"  {command:<16} {mib:>8} MiB at most at once, {len(seen[command])} processes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

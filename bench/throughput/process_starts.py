"""Do CUDA processes started side by side on one GPU wait for each other? (issue 15)

A batch's untimed phase runs about 19 processes per lab 3.3 submission (4 judges, 4 student
processes, 11 compute-sanitizer runs). On the H200 it was bound at about 5 s a submission
whatever the parallel gradings (4 or 16), with the GPU's kernels busy 13-16 % of the time and
the CPUs mostly idle (bench/h200-2026-12-03-session12, g53). If CUDA context creation (or
compute-sanitizer's start) is serialized across processes by the driver, N processes started
together take about N times one process's start; if not, about one start.

Usage: python3 bench/throughput/process_starts.py BINARY [N ...] (from the repository root,
after `make all`; BINARY e.g. build/3.3-tiling/solution/lab). For each command below and each N
(default 1 2 4 8 16), N copies start together; prints the wall time until all exit and the
mean of each copy's own wall time, in seconds, best of 3 rounds. Commands:
  device-info   BINARY --device-info (creates a CUDA context, queries the device, exits)
  case          BINARY --exercise matmul_tiled --size 33,17,65 (a plain correctness case)
  memcheck      compute-sanitizer --tool memcheck on that case
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time


def together(argv: list[str], n: int, folder: str) -> tuple[float, float]:
    """(wall until all n copies of argv exit, mean of each copy's wall), in seconds; "{json}"
    in argv becomes a document path of each copy's own in ``folder`` (a run writes its
    document beside its path, then renames it: not /dev/null); exits with the copies' output
    when one fails."""
    start = time.monotonic()
    procs = [
        subprocess.Popen(
            [a.replace("{json}", os.path.join(folder, f"{i}.json")) for a in argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for i in range(n)
    ]
    own = []
    for p in procs:
        out, _ = p.communicate()
        own.append(time.monotonic() - start)
        if p.returncode != 0:
            sys.exit(f"{' '.join(argv)} exited {p.returncode}:\n{out.decode(errors='replace')}")
    return time.monotonic() - start, sum(own) / n


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    counts = [int(a) for a in sys.argv[2:]] or [1, 2, 4, 8, 16]
    case = [binary, "--exercise", "matmul_tiled", "--size", "33,17,65", "--json", "{json}"]
    commands = {"device-info": [binary, "--device-info", "--json", "{json}"], "case": case}
    sanitizer = shutil.which("compute-sanitizer")
    if sanitizer:
        commands["memcheck"] = [sanitizer, "--tool", "memcheck", "--error-exitcode", "99", *case]
    print(f"{'command':<12} {'N':>3} {'all (s)':>8} {'each (s)':>9} {'all / one':>9}")
    for name, argv in commands.items():
        one = None
        for n in counts:
            with tempfile.TemporaryDirectory() as folder:
                wall, each = min(together(argv, n, folder) for _ in range(3))
            one = one or wall
            print(f"{name:<12} {n:>3} {wall:>8.3f} {each:>9.3f} {wall / one:>9.2f}")


if __name__ == "__main__":
    main()

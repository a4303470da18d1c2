"""What a grading's compute-sanitizer runs cost, in wall and CPU seconds (issue 15): each tool of
a lab's [exercise.sanitizer] tables over every exercise's sanitizer cases in one process, as a
batch's grading runs them (grader/grade.py, _sanitizer_lab_runs), for each lab binary given;
first alone, one after the other, then COPIES runs of each tool at once (a batch's gradings
side by side); with COPIES 0, each case alone in a process of its own instead. CPU seconds are the children's user + system time (getrusage), the lab binary's
and compute-sanitizer's together. Extra tool options go after "--" (e.g. -- --kernel-name-exclude
kns=cml_). Not sandboxed: for course binaries only.
Usage: python3 sanitizer_cost.py LABDIR COPIES BINARY... [-- OPTION...]"""

from __future__ import annotations

import concurrent.futures
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from grader import harness, manifest, tools  # noqa: E402


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _cases(lab, tool: str) -> list:
    return [
        (size, 1000 + i, ex.name)
        for ex in lab.exercises
        if ex.sanitizer and tool in ex.sanitizer.tools
        for i, size in enumerate(ex.sanitizer.cases)
    ]


def _argv(sanitizer: str, tool: str, binary: str, cases, options: list[str], out: Path) -> list[str]:
    return [sanitizer, "--tool", tool, *options, "--error-exitcode", "99", binary,
            *harness.case_list_args(cases[0][2], cases), "--json", str(out)]


def main(argv: list[str]) -> int:
    options: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, options = argv[:at], argv[at + 1:]
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    lab = manifest.load(Path(argv[1]))
    copies = int(argv[2])
    sanitizer = tools.find("compute-sanitizer")
    if sanitizer is None:
        print("no compute-sanitizer", file=sys.stderr)
        return 1
    names = list(dict.fromkeys(t for ex in lab.exercises if ex.sanitizer for t in ex.sanitizer.tools))
    with tempfile.TemporaryDirectory() as tmp:
        for binary in argv[3:]:
            if copies == 0:
                for tool in names:
                    for case in _cases(lab, tool):
                        cmd = _argv(sanitizer.path, tool, binary, [case], options,
                                    Path(tmp) / "one.json")
                        t0, c0 = time.monotonic(), _cpu()
                        p = subprocess.run(cmd, capture_output=True)
                        print(f"{binary} {tool:<9} {case[2]} {case[0]} exit {p.returncode:3d}  "
                              f"wall {time.monotonic() - t0:6.2f} s  cpu {_cpu() - c0:6.2f} s",
                              flush=True)
                continue
            for tool in names:
                cmd = _argv(sanitizer.path, tool, binary, _cases(lab, tool), options,
                            Path(tmp) / "one.json")
                t0, c0 = time.monotonic(), _cpu()
                p = subprocess.run(cmd, capture_output=True, text=True)
                wall, cpu = time.monotonic() - t0, _cpu() - c0
                tail = (p.stdout + p.stderr).strip().splitlines()[-1:] or [""]
                print(f"{binary} {tool:<9} alone   exit {p.returncode:3d}  wall {wall:6.2f} s  "
                      f"cpu {cpu:6.2f} s  {tail[0][:90]}", flush=True)
            for tool in names:
                cmds = [_argv(sanitizer.path, tool, binary, _cases(lab, tool), options,
                              Path(tmp) / f"{k}.json")
                        for k in range(copies)]
                t0, c0 = time.monotonic(), _cpu()
                with concurrent.futures.ThreadPoolExecutor(copies) as pool:
                    codes = list(pool.map(lambda c: subprocess.run(c, capture_output=True).returncode,
                                          cmds))
                wall, cpu = time.monotonic() - t0, _cpu() - c0
                print(f"{binary} {tool:<9} x{copies:<5} exits {sorted(set(codes))}  wall {wall:6.2f} s  "
                      f"cpu {cpu:6.2f} s ({cpu / copies:.2f} s each)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

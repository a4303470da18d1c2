"""Where a lone grade's CPU time goes, by exercise and by part (issue 15): for each exercise of
the lab, `python3 -m grader grade LABDIR --submission SUB --exercise EX --no-sanitizer` with and
without its timed run (--no-perf), one after the other, each measured as the children's user and
system CPU seconds (getrusage: the grader, the judges, the student's processes, the sandbox)
and its wall seconds; the difference is the timed run's (the judge's set-up, its input sets,
the timing). Then the whole lab without timed runs, with and without compute-sanitizer (the
difference: the sanitizer tools' runs). Prints one line per run and the judge's phases of the
timed ones. The gradings run under the sandbox the grader chooses, as a batch's do.
Usage: python3 grade_cpu.py LABDIR SUBMISSION OUT_DIR"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from grader import manifest  # noqa: E402


def _cpu() -> tuple[float, float]:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime, r.ru_stime


def measure(lab_dir: Path, sub: Path, name: str, flags: list[str], out: Path) -> dict:
    """One grade: wall, user and system seconds, and the (last) judge's phases."""
    js = out / f"{name}.json"
    cmd = [sys.executable, "-m", "grader", "grade", str(lab_dir), "--submission", str(sub),
           "--json", str(js), *flags]
    u0, s0 = _cpu()
    t0 = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.monotonic() - t0
    u1, s1 = _cpu()
    phases = {}
    try:
        rep = json.loads(js.read_text())
        for e in rep["exercises"]:
            for d in e["parts"]["performance"].get("details") or []:
                phases = d.get("phases_ms") or {}
    except (OSError, ValueError, KeyError):
        pass
    return {"wall": wall, "user": u1 - u0, "sys": s1 - s0, "phases": phases}


def main() -> int:
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    lab_dir, sub, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    lab = manifest.load(lab_dir)
    measure(lab_dir, sub, "warm-up", ["--no-perf", "--no-sanitizer"], out)  # builds what is shared
    for ex in lab.exercises:
        if ex.performance is None:
            continue
        runs = {
            t: measure(lab_dir, sub, f"{ex.name}-{t}", ["--exercise", ex.name, "--no-sanitizer"]
                       + ([] if t else ["--no-perf"]), out)
            for t in (False, True)
        }
        for t, m in runs.items():
            print(f"{ex.name:20s} {'timed  ' if t else 'untimed'} wall {m['wall']:6.1f} s  "
                  f"user {m['user']:6.1f} s  sys {m['sys']:5.1f} s", flush=True)
        d = {k: runs[True][k] - runs[False][k] for k in ("wall", "user", "sys")}
        ph = " ".join(f"{k}={v:.0f}" for k, v in runs[True]["phases"].items())
        print(f"{ex.name:20s} timed run: wall +{d['wall']:.1f} s, user +{d['user']:.1f} s, "
              f"sys +{d['sys']:.1f} s; judge ms: {ph}", flush=True)
    for with_tools in (False, True):
        m = measure(lab_dir, sub, f"lab-sanitizer-{with_tools}",
                    ["--no-perf"] + ([] if with_tools else ["--no-sanitizer"]), out)
        what = "with" if with_tools else "without"
        print(f"{'whole lab, untimed':20s} {what} compute-sanitizer: wall {m['wall']:6.1f} s  "
              f"user {m['user']:6.1f} s  sys {m['sys']:5.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

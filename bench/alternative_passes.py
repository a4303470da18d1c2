"""Issue 13's "the same submission graded three times gives identical totals", from the figures
that passes of the alternatives' GPU test recorded (``points.txt``: one line per alternative,
``LAB/NAME: performance P/M: INFO``, or the ``figures/`` folder of such lines, one file each,
written through ``CML_ALTERNATIVE_FIGURES``).

Each pass's figure (the ratio, or the percentage of a roof, as the report printed it: three
significant digits) is scored again under the thresholds in today's lab.toml files, so that
passes measured under older thresholds compare; the table gives each alternative's figures and
points per pass and whether the points agree, and the nearest a figure came to its ramp's full
end (a margin under a few per cent is one a pass-to-pass spread can cross). Figures rounded to
three digits can land on the other side of a threshold than the figure measured; the points the
pass itself printed are shown beside the rescored ones where they differ for that reason
(thresholds unchanged).

    python3 bench/alternative_passes.py g52=bench/.../points-1.txt g72=bench/.../points.txt \
        [--skip 3.2-global-memory/unified_read_mostly] [--lab 3.3-tiling]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import fixtures, manifest, scoring  # noqa: E402

LINE = re.compile(r"^(?P<key>[\w.-]+/\w+): performance (?P<got>[\d.]+)/(?P<max>\d+): (?P<info>.*)$")
FIGURE = re.compile(r"^(?:ratio )?(?P<x>[\d.]+)(?: %)?")
# the report's words where a GPU's own thresholds scored the pass (lab.toml's on, note 76)
WHOSE = re.compile(r"\(the thresholds measured on the (?P<gpu>[^)]+)\)")


def read_pass(path: Path) -> dict[str, tuple[float, float, int, str | None]]:
    """{LAB/NAME: (figure, points printed, max, GPU)} of one pass's points file, or of the
    one-line files of its ``figures/`` folder; GPU: the one whose own thresholds the pass
    printed (None: the course GPU's)."""
    found = {}
    files = sorted(path.glob("*.txt")) if path.is_dir() else [path]
    for line in (ln for f in files for ln in f.read_text().splitlines()):
        m = LINE.match(line.strip())
        if not m:
            continue
        f = FIGURE.match(m["info"])
        if f:
            whose = WHOSE.search(m["info"])
            gpu = whose["gpu"] if whose else None
            found[m["key"]] = (float(f["x"]), float(m["got"]), int(m["max"]), gpu)
    return found


def ramp_of(key: str, gpu: str | None = None) -> tuple[float | None, float | None, int]:
    """(zero, full, performance points) of the alternative's exercise in today's lab.toml,
    on ``gpu`` where it has thresholds of its own (``Criterion.for_device``); zero and full
    None for a figure measured and not scored."""
    lab, name = key.split("/")
    exercise = fixtures.load(ROOT / "grader/tests/alternatives" / lab / f"{name}.toml")["expect"]
    ex = manifest.load(ROOT / "labs" / lab).exercise(exercise["exercise"])
    crit = ex.performance.criteria[0].for_device({"name": gpu} if gpu else None)
    return crit.zero, crit.full, ex.points["performance"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("passes", nargs="+", help="LABEL=points.txt, in the order to show")
    ap.add_argument("--skip", action="append", default=[], help="LAB/NAME left out")
    ap.add_argument("--lab", action="append", help="only these labs (folder names)")
    args = ap.parse_args()
    passes = [(p.split("=", 1)[0], read_pass(Path(p.split("=", 1)[1]))) for p in args.passes]
    keys = sorted({k for _, found in passes for k in found})
    keys = [k for k in keys if k not in args.skip]
    if args.lab:
        keys = [k for k in keys if k.split("/")[0] in args.lab]
    labels = [label for label, _ in passes]
    print(f"| alternative | zero / full | {' | '.join(labels)} | same points | nearest full |")
    print(f"|---|---|{'---|' * len(labels)}---|---|")
    differing = compared = 0
    for key in keys:
        zero, full, most = ramp_of(key)
        if zero is None or full is None:
            print(f"| {key} | not scored | {' | '.join('·' for _ in passes)} | | |")
            continue
        cells, points = [], []
        for _, found in passes:
            if key not in found:
                cells.append("·")
                continue
            x, printed, _, gpu = found[key]
            z, f, _ = ramp_of(key, gpu)  # that pass's GPU's own ramp, where it has one
            got = scoring.round2(most * scoring.ramp(x, z, f))
            points.append(got)
            cells.append(f"{x:g}: {got:g}/{most}")
        same = len(set(points)) <= 1
        if len(points) >= 2:
            compared += 1
            differing += not same
        figures = [found[key][0] for _, found in passes if key in found]
        nearest = min(figures) / full - 1.0 if full > 0 else float("nan")
        print(
            f"| {key} | {zero:g} / {full:g} | {' | '.join(cells)} | "
            f"{'yes' if same else '**no**'} | {nearest:+.1%} |"
        )
    print(f"\n{compared} alternatives in two or more passes; points differ for {differing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

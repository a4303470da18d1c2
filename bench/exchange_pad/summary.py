"""Design note 96's table: per graded report (python3 -m grader grade ... --json), each timed
exercise's exchange with the empty-kernel server (alone, among the repetitions, subtracted from
each sample) and its ratio as graded, beside the ratio a judge without the cap would have given
from the same samples: the student's median per launch with the rest of the exchange taken off
too, (among - subtracted) / batch.
Usage: python3 bench/exchange_pad/summary.py REPORT.json..."""

import json
import sys
from pathlib import Path


def rows(path: Path):
    report = json.loads(path.read_text())
    for ex in report.get("exercises", []):
        for d in ex["parts"]["performance"].get("details") or []:
            base = (d.get("course") or {}).get("baseline_ms")
            ratio, among = d.get("ratio"), d.get("exchange_ms")
            alone, taken = d.get("exchange_alone_ms"), d.get("exchange_subtracted_ms")
            taken = among if taken is None else taken  # a judge without the cap: all of it
            alone = -1.0 if alone is None else alone
            if None in (base, ratio, among, taken) or not ratio:
                yield f"{path.stem} {ex['name']}: {ex['parts']['performance'].get('status')}"
                continue
            student = base / ratio
            batch = (d.get("batch") or [1])[0] or 1
            uncapped = student - (among - taken) / batch
            old = f"{base / uncapped:.2f}" if uncapped > 0 else "n/a (<= 0 ms)"
            yield (
                f"{path.stem} {ex['name']}: exchange alone {alone:.4f} among {among:.4f} "
                f"subtracted {taken:.4f} ms; student {student:.4f} ms a launch (batch {batch}), "
                f"ratio {ratio:.2f} (uncapped {old}), performance "
                f"{ex['parts']['performance'].get('points')}"
            )


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        for line in rows(Path(arg)):
            print(line)

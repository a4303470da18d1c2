"""One line per graded exercise of a grade's JSON report (python3 -m grader grade ... --json):
its performance status, points and ratio, and the course's own figures (baseline among the
repetitions, copy, baseline alone: grader.class_figures), for a GPU call's summary.
Usage: python3 bench/perf_summary.py REPORT.json TAG"""

import json
import sys


def main(path: str, tag: str) -> None:
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(print(tag, "no report:", e))
    print(tag, r["total"], "/", r["max"])
    for ex in r["exercises"]:
        p = ex["parts"]["performance"]
        d = (p.get("details") or [{}])[0]
        course = {k: round(v, 4) for k, v in (d.get("course") or {}).items()}
        alone, among = course.get("baseline_alone_ms"), course.get("baseline_ms")
        x = f" among/alone {among / alone:.3f}" if alone and among else ""
        x += f" exchange {d.get('exchange_ms')} alone {d.get('exchange_alone_ms')}"
        x += f" subtracted {d.get('exchange_subtracted_ms')}"
        x += f" own empty launch alone {d.get('empty_launch_alone_ms')}"
        print("  ", ex["name"], p.get("status"), p.get("points"), "ratio", d.get("ratio"),
              course, x, (p.get("info") or p.get("finding") or "")[:240])


if __name__ == "__main__":
    main(*sys.argv[1:3])

#!/usr/bin/env python3
"""transpose_figure.py — the transpose bandwidth figure of handout 3.3, from a CSV.

Reads bench/transpose-h200.csv (columns: variant, gbps, source; one row per kernel variant)
and writes handouts/figures/transpose-h200.svg: a horizontal bar chart of GB/s, each bar
labelled with its value and its percentage of the copy row, with the rows' sources printed
under the chart. Python standard library only (no matplotlib), so the figure can be
regenerated anywhere the repository is checked out:

    python3 bench/transpose_figure.py [--csv PATH] [--out PATH] [--title TEXT]

The copy row is the one whose variant is "copy" or starts with "copy " (case-insensitive);
it is the reference for the percentages and is drawn in grey. Bars keep the CSV's order.
GB/s counts bytes read plus bytes written (a transpose of n floats moves 8 n bytes), the
same convention as the copy row, so "% of copy" compares like with like.

Sources: FACTS.md (the seed rows); the lead engineer replaces them with the repository's
own H200 measurements (bench/) and reruns this script.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import textwrap
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CSV = ROOT / "bench" / "transpose-h200.csv"
DEFAULT_OUT = ROOT / "handouts" / "figures" / "transpose-h200.svg"
DEFAULT_TITLE = "Matrix transpose on one H200: bandwidth by kernel variant"

# Layout, in SVG user units (pixels at 100 % zoom).
WIDTH = 820
MARGIN = 20
TITLE_H = 34  # title line
SUBTITLE_H = 22  # subtitle line
BAR_H = 26
BAR_GAP = 12
AXIS_H = 52  # tick labels and axis label under the bars
LINE_H = 17  # one footnote line
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
CHAR_W = 7.3  # average width of a 13 px character of FONT, for sizing the label column
VALUE_W = 160  # room right of the longest bar for "3614 GB/s · 86 % of copy"

COLOR_BAR = "#3a6ea5"
COLOR_COPY = "#9a9a9a"
COLOR_GRID = "#dddddd"
COLOR_TEXT = "#1a1a1a"
COLOR_NOTE = "#555555"


def read_rows(path: Path) -> list[dict]:
    """Rows of the CSV as dicts with variant (str), gbps (float), source (str)."""
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = {"variant", "gbps", "source"} - set(reader.fieldnames or ())
        if missing:
            raise SystemExit(f"{path}: missing column(s): {', '.join(sorted(missing))}")
        rows = []
        for n, raw in enumerate(reader, start=2):
            try:
                gbps = float(raw["gbps"])
            except (TypeError, ValueError):
                raise SystemExit(f"{path}:{n}: gbps is not a number: {raw['gbps']!r}")
            if not (gbps >= 0 and math.isfinite(gbps)):
                raise SystemExit(f"{path}:{n}: gbps must be finite and >= 0")
            variant = (raw["variant"] or "").strip()
            if not variant:
                raise SystemExit(f"{path}:{n}: empty variant")
            rows.append({"variant": variant, "gbps": gbps, "source": (raw["source"] or "").strip()})
    if not rows:
        raise SystemExit(f"{path}: no rows")
    return rows


def is_copy(variant: str) -> bool:
    v = variant.lower()
    return v == "copy" or v.startswith("copy ")


def nice_step(span: float, max_ticks: int = 6) -> float:
    """A tick step of 1, 2 or 5 times a power of ten giving at most max_ticks intervals."""
    if span <= 0:
        return 1.0
    raw = span / max_ticks
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power


def fmt_gbps(x: float) -> str:
    return f"{x:.0f}" if x >= 100 else f"{x:.3g}"


def text(x, y, s, size=13, anchor="start", weight="normal", color=COLOR_TEXT) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}" fill="{color}">{escape(s)}</text>'
    )


def render(rows: list[dict], title: str) -> str:
    copy = next((r for r in rows if is_copy(r["variant"])), None)
    copy_gbps = copy["gbps"] if copy and copy["gbps"] > 0 else None

    label_w = max(len(r["variant"]) for r in rows) * CHAR_W + 14
    x0 = MARGIN + label_w  # left end of the bars
    plot_w = WIDTH - x0 - MARGIN - VALUE_W
    top = MARGIN + TITLE_H + SUBTITLE_H
    bars_h = len(rows) * BAR_H + (len(rows) - 1) * BAR_GAP

    vmax = max(r["gbps"] for r in rows)
    step = nice_step(vmax)
    axis_max = step * math.ceil(vmax / step) if vmax > 0 else step
    scale = plot_w / axis_max

    sources = []
    for r in rows:
        if r["source"] and r["source"] not in sources:
            sources.append(r["source"])
    notes = []
    if sources:
        notes.append(("Source: " if len(sources) == 1 else "Sources: ") + "; ".join(sources))
    notes.append(
        "GB/s = (bytes read + bytes written) / time."
        + (" % = share of the copy row's GB/s." if copy_gbps else "")
    )
    # Wrap long footnotes (several sources) to the figure's width; 12 px characters.
    chars = int((WIDTH - 2 * MARGIN) / 6.6)
    notes = [line for note in notes for line in textwrap.wrap(note, chars)]
    height = top + bars_h + AXIS_H + len(notes) * LINE_H + MARGIN

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" font-family="{FONT}" role="img" '
        f'aria-label="{escape(title, {chr(34): "&quot;"})}">',
        f"<title>{escape(title)}</title>",
        # An opaque background keeps the text readable on dark page themes.
        f'<rect x="0" y="0" width="{WIDTH}" height="{height:.0f}" fill="#ffffff"/>',
        text(MARGIN, MARGIN + 18, title, size=16, weight="bold"),
        text(
            MARGIN,
            MARGIN + TITLE_H + 8,
            "float32, square matrix; longer bar = faster"
            + (", grey = copy (the roof)" if copy_gbps else ""),
            size=12,
            color=COLOR_NOTE,
        ),
    ]

    # Vertical grid lines and tick labels.
    axis_y = top + bars_h + 6
    n_ticks = int(round(axis_max / step))
    for i in range(n_ticks + 1):
        v = i * step
        x = x0 + v * scale
        out.append(
            f'<line x1="{x:.1f}" y1="{top - 4:.1f}" x2="{x:.1f}" y2="{axis_y:.1f}" '
            f'stroke="{COLOR_GRID}" stroke-width="1"/>'
        )
        out.append(text(x, axis_y + 16, fmt_gbps(v), size=12, anchor="middle", color=COLOR_NOTE))
    out.append(
        f'<line x1="{x0:.1f}" y1="{axis_y:.1f}" x2="{x0 + axis_max * scale:.1f}" y2="{axis_y:.1f}" '
        f'stroke="{COLOR_NOTE}" stroke-width="1"/>'
    )
    out.append(
        text(x0 + axis_max * scale / 2, axis_y + 38, "bandwidth, GB/s", size=13, anchor="middle")
    )

    # Bars, labels and values.
    for i, r in enumerate(rows):
        y = top + i * (BAR_H + BAR_GAP)
        w = max(r["gbps"] * scale, 1.0)
        color = COLOR_COPY if is_copy(r["variant"]) else COLOR_BAR
        out.append(text(x0 - 10, y + BAR_H / 2 + 4.5, r["variant"], anchor="end"))
        out.append(
            f'<rect x="{x0:.1f}" y="{y:.1f}" width="{w:.1f}" height="{BAR_H}" fill="{color}">'
            f"<title>{escape(r['variant'])}: {fmt_gbps(r['gbps'])} GB/s</title></rect>"
        )
        value = f"{fmt_gbps(r['gbps'])} GB/s"
        if copy_gbps and not is_copy(r["variant"]):
            value += f" · {100 * r['gbps'] / copy_gbps:.0f} % of copy"
        out.append(text(x0 + w + 6, y + BAR_H / 2 + 4.5, value, weight="bold"))

    y = axis_y + AXIS_H
    for note in notes:
        out.append(text(MARGIN, y, note, size=12, color=COLOR_NOTE))
        y += LINE_H
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--csv", type=Path, default=DEFAULT_CSV, help="input (default bench/transpose-h200.csv)"
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help="output SVG (default handouts/figures/transpose-h200.svg)",
    )
    ap.add_argument("--title", default=DEFAULT_TITLE)
    args = ap.parse_args(argv)
    svg = render(read_rows(args.csv), args.title)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(svg, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

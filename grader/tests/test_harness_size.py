"""Harness exercises as short as a benchmark (issue 17): the lab driver owns the buffers, the
check sets and their release (common/cml_setup.h), so an exercise in ``labs/*/harness.cu`` is
its setup, its launchers and what only it measures. The median exercise holds at most
``MEDIAN_CODE_LINES`` lines of code: non-blank lines outside comments, in the exercise's
section (from its ``/* ----`` banner naming ``<id><letter>  name``, e.g. ``3.3a  matmul_tiled``,
to the next banner). The registry
table and ``main`` are not in any section."""

from __future__ import annotations

import re
import statistics

from helpers import REPO

MEDIAN_CODE_LINES = 40
_BANNER = re.compile(r"^/\* -{20,}\n", re.M)
_NAME = re.compile(r"\s*\*\s*(\d+\.\d+[a-z])\s+(\w+)")  # " * 3.3a  matmul_tiled"


def code_lines(text: str) -> int:
    """Non-blank lines of C once /* */ and // comments are removed."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return sum(1 for line in text.splitlines() if line.strip())


def exercise_sections(text: str) -> dict[str, int]:
    """{"3.3a matmul_tiled": code lines, ...} for the banner-delimited exercise sections."""
    found = {}
    for part in _BANNER.split(text)[1:]:
        if m := _NAME.match(part):  # the banner's comment runs on to its first */
            found[f"{m.group(1)} {m.group(2)}"] = code_lines(part.split("*/", 1)[-1])
    return found


def test_code_lines_skip_comments_and_blanks():
    assert code_lines("/* a\n b */\nint x;\n\n// c\n  y = 1; /* d */\n") == 2


def test_sections_are_found_by_banner():
    text = (
        "/* ----------------------------------------\n * 3.9a  first: x\n */\nint a;\nint b;\n"
        "/* ----------------------------------------\n * The lab: table\n */\nint t;\n"
    )
    assert exercise_sections(text) == {"3.9a first": 2}
    assert exercise_sections(text.replace("3.9a", "12.10b")) == {"12.10b first": 2}  # any id


def test_median_harness_exercise_is_short():
    sizes = {}
    for harness in sorted(REPO.glob("labs/*/harness.cu")):
        sizes.update(exercise_sections(harness.read_text()))
    assert len(sizes) >= 15, f"found only {sorted(sizes)}: has a banner changed?"
    median = statistics.median(sizes.values())
    listing = ", ".join(f"{k} {v}" for k, v in sorted(sizes.items()))
    assert median <= MEDIAN_CODE_LINES, f"median {median} code lines: {listing}"

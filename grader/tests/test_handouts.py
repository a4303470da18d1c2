"""The handouts as the course promises them (issue 17): each lab's handout teaches in at
most ``TEACHING_WORDS`` words before its ``## What is graded`` section, closes its teaching
sections with self-check questions and answers, and every relative link of every page
under handouts/ (the site ``make site`` renders with mkdocs --strict) reaches a file there.
Checked without mkdocs, on any machine."""

from __future__ import annotations

import re

import pytest

from helpers import REPO

HANDOUTS = REPO / "handouts"
TEACHING_WORDS = 6000
GRADED = "## What is graded"
LAB_HANDOUTS = sorted(HANDOUTS.glob("[0-9]*.md"))
# [text](target) and ![alt](target), not inside inline code
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """``text`` without fenced code blocks and inline code (links there are not links)."""
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def test_there_is_a_handout_per_lab_and_the_shared_pages():
    labs = sorted(p.parent.name for p in REPO.glob("labs/*/lab.toml"))
    assert [p.stem for p in LAB_HANDOUTS] == labs
    for name in ("index.md", "grading.md", "glossary.md"):
        assert (HANDOUTS / name).is_file(), name


@pytest.mark.parametrize("path", LAB_HANDOUTS, ids=lambda p: p.stem)
def test_a_handout_teaches_in_an_hour_and_ends_with_what_is_graded(path):
    text = path.read_text()
    assert text.count(f"\n{GRADED}") == 1, f"{path.name}: one '{GRADED}' section"
    teaching, graded = text.split(f"\n{GRADED}")
    words = len(re.sub(r"<[^>\n]+>", " ", teaching).split())  # words read, not markup
    assert words <= TEACHING_WORDS, f"{path.name}: {words} words before '{GRADED}'"
    assert "\n## " not in graded, f"{path.name}: '{GRADED}' is the last section"


@pytest.mark.parametrize("path", LAB_HANDOUTS, ids=lambda p: p.stem)
def test_each_teaching_section_closes_with_questions_and_answers(path):
    teaching = path.read_text().split(f"\n{GRADED}")[0]
    sections = re.split(r"^## ", teaching, flags=re.M)[1:]  # the intro is not a section
    assert sections, path.name
    for section in sections:
        title = section.splitlines()[0]
        assert "\n### Self-check" in section, f"{path.name}: '{title}' has no self-check"
        check = section.split("\n### Self-check", 1)[1]
        assert check.count("**Answer.**") >= 2, f"{path.name}: '{title}': answers"


@pytest.mark.parametrize("path", sorted(HANDOUTS.glob("*.md")), ids=lambda p: p.stem)
def test_every_relative_link_reaches_a_page_or_figure(path):
    bad = []
    for target in _LINK.findall(_prose(path.read_text())):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a URL, or an anchor on the same page
        file = target.split("#", 1)[0]
        resolved = (path.parent / file).resolve()
        if not resolved.is_relative_to(HANDOUTS.resolve()) or not resolved.exists():
            bad.append(target)
    assert not bad, f"{path.name}: links outside handouts/ or to nothing: {bad}"


def _number(cell: str) -> float | None:
    """The number a table cell gives (``45``, ``0.40``, ``**2.5**``), or None."""
    m = re.fullmatch(r"[*_`\s]*(-?\d+(?:\.\d+)?)[*_`\s]*", cell)
    return float(m.group(1)) if m else None


def _ramps(row: list[str], header: list[str]) -> list[tuple[float, float]]:
    """The (zero, full) pairs a row of a "What is graded" table gives: a ``zero`` and a
    ``full`` column, or one column headed with both and cells such as ``10 → 60; 85.2``."""
    pairs = []
    cols = [h.strip("` ").lower() for h in header]
    if "zero" in cols and "full" in cols:
        zero, full = _number(row[cols.index("zero")]), _number(row[cols.index("full")])
        if zero is not None and full is not None:
            pairs.append((zero, full))
    for i, h in enumerate(cols):
        if "zero" in h and "full" in h and h not in ("zero", "full"):
            m = re.match(r"\s*(-?\d+(?:\.\d+)?)\s*→\s*(-?\d+(?:\.\d+)?)", row[i])
            if m:
                pairs.append((float(m.group(1)), float(m.group(2))))
    return pairs


@pytest.mark.parametrize("path", LAB_HANDOUTS, ids=lambda p: p.stem)
def test_the_graded_tables_give_the_thresholds_of_lab_toml(path):
    """Each row of a "What is graded" table with zero and full columns names an exercise
    (its name or its todo id; a row whose first cell is empty continues the one above) and
    gives thresholds that lab.toml has for it (a student's trial found 3.2c's table at the
    full of before session 19, the prose and lab.toml at the new one)."""
    import tomllib

    lab = tomllib.loads((REPO / "labs" / path.stem / "lab.toml").read_text())
    ramps = {}
    for ex in lab["exercise"]:
        perf = ex.get("performance") or {}
        criteria = perf.get("criteria") or ([perf] if "zero" in perf else [])
        ramps[ex["name"]] = (ex.get("todo", ""), {(c["zero"], c["full"]) for c in criteria})
    graded = path.read_text().split(f"\n{GRADED}")[1]
    checked, header, current = 0, None, None
    for line in graded.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header, current = cells, None
            continue
        if set("".join(cells)) <= set("-: "):
            continue  # the rule under the header
        if cells[0]:
            named = [n for n, (todo, _) in ramps.items()
                     if re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", cells[0])
                     or (todo and re.search(rf"(?<![\w.]){re.escape(todo)}(?!\w)", cells[0]))]
            current = named[0] if len(named) == 1 else None
        pairs = _ramps(cells, header)
        if not pairs:
            continue
        assert current is not None, f"{path.name}: a row with thresholds names no exercise: {line}"
        for pair in pairs:
            assert pair in ramps[current][1], (
                f"{path.name}: {current}'s row gives zero {pair[0]}, full {pair[1]}; lab.toml "
                f"has {sorted(ramps[current][1])}: {line}"
            )
            checked += 1
    has_table = any("zero" in line and "full" in line and line.startswith("|")
                    for line in graded.splitlines())
    assert checked or not has_table, f"{path.name}: a thresholds table, but no row was read"

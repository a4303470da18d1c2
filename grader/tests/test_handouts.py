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


def _forms(x: float) -> str:
    """A regex alternation of how a handout writes a threshold: 5.0 as 5.0 or 5."""
    return "|".join(re.escape(t) for t in dict.fromkeys((f"{x:g}", str(x))))


@pytest.mark.parametrize("path", LAB_HANDOUTS, ids=lambda p: p.stem)
def test_the_graded_section_gives_the_thresholds_of_lab_toml(path):
    """Each row of a "What is graded" table with zero and full columns names an exercise
    (its name or its todo id; a row whose first cell is empty continues the one above) and
    gives thresholds that lab.toml has for it: the criterion the row names (`ratio`,
    `pct_of_copy`) where the exercise has several, and a cell that is no number (a unit
    added) fails for a scored exercise. A scored criterion no table row gives must be in the
    section's prose, as "Z → F" or "zero at Z, full at F" (3.1's). A student's trial found
    3.2c's table at the full of before session 19, the prose and lab.toml at the new one."""
    import tomllib

    lab = tomllib.loads((REPO / "labs" / path.stem / "lab.toml").read_text())
    ramps, todos = {}, {}
    for ex in lab["exercise"]:
        perf = ex.get("performance") or {}
        criteria = perf.get("criteria") or ([perf] if "zero" in perf else [])
        ramps[ex["name"]] = {c.get("metric", ""): (c["zero"], c["full"]) for c in criteria}
        todos[ex["name"]] = ex.get("todo", "")
    graded = path.read_text().split(f"\n{GRADED}")[1]
    covered, header, current = set(), None, None
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
            named = [n for n in ramps
                     if re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", cells[0])
                     or (todos[n] and re.search(rf"(?<![\w.]){re.escape(todos[n])}(?!\w)",
                                                cells[0]))]
            assert len(named) <= 1, f"{path.name}: a row names {named}: {line}"
            current = named[0] if named else None
        cols = [h.strip("` ").lower() for h in header]
        ramp_cols = [i for i, h in enumerate(cols) if "zero" in h or "full" in h]
        if not ramp_cols:
            continue
        pairs = _ramps(cells, header)
        scored = current is not None and ramps[current]
        if not pairs:
            given = [cells[i] for i in ramp_cols if cells[i] not in ("", "—", "-")]
            assert not (scored and given), f"{path.name}: thresholds not read as numbers: {line}"
            continue
        assert current is not None, f"{path.name}: a row with thresholds names no exercise: {line}"
        metrics = [m for m in ramps[current] if m and f"`{m}`" in line]
        want = {ramps[current][m] for m in metrics} if metrics else set(ramps[current].values())
        for pair in pairs:
            assert pair in want, (
                f"{path.name}: {current}'s row gives zero {pair[0]}, full {pair[1]}; lab.toml "
                f"has {sorted(want)}: {line}"
            )
            covered.add((current, pair))
    for name, criteria in ramps.items():
        for metric, (zero, full) in criteria.items():
            if (name, (zero, full)) in covered:
                continue
            z, f = _forms(zero), _forms(full)
            prose = rf"(?<![\d.])(?:{z})\s*→\s*(?:{f})(?![\d.])|zero at (?:{z}), full at (?:{f})(?![\d])"
            assert re.search(prose, graded), (
                f"{path.name}: {name}'s {metric or 'criterion'} (zero {zero}, full {full}) is in "
                "no table row and not in the prose"
            )

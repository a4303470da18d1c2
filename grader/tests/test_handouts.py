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

"""Source warnings: likely mistakes a lab can see in the student files before anything runs.

Some mistakes only fail at run time — ``cudaMemcpyToSymbol(&c_coef, ...)`` compiles, links
and passes every static check, then fails with "invalid device symbol" on a GPU — so a
student without a GPU would never hear of them. ``[[exercise.lint]]`` in lab.toml lists
regexes with a message; each is searched in every line of the student files with comments
removed (``//`` to the end of the line, ``/* ... */``; string and character literals are
kept as they are). A match becomes a warning in the report ("kernels.cu:48: ..."): no
points are given or taken, the checks that decide the grade are unchanged.
"""

from __future__ import annotations

import re
from pathlib import Path

from grader.manifest import Lab


def strip_comments(text: str) -> list[str]:
    """The lines of C/C++ source ``text`` with comments blanked out (line count kept)."""
    out, i, n = [], 0, len(text)
    state = "code"  # code | line | block | str | chr
    while i < n:
        ch, nxt = text[i], text[i + 1] if i + 1 < n else ""
        if state == "code":
            if ch == "/" and nxt == "/":
                state, i = "line", i + 2
                continue
            if ch == "/" and nxt == "*":
                state, i = "block", i + 2
                out.append(" ")
                continue
            if ch in "\"'":
                state = "str" if ch == '"' else "chr"
            out.append(ch)
        elif state == "line":
            if ch == "\n":
                state = "code"
                out.append(ch)
        elif state == "block":
            if ch == "*" and nxt == "/":
                state, i = "code", i + 2
                continue
            if ch == "\n":
                out.append(ch)
        else:  # inside a string or character literal
            out.append(ch)
            if ch == "\\" and nxt:
                out.append(nxt)
                i += 2
                continue
            if (ch == '"' and state == "str") or (ch == "'" and state == "chr") or ch == "\n":
                state = "code"
        i += 1
    return "".join(out).split("\n")


def warnings(lab: Lab, src: Path) -> dict[str, list[str]]:
    """Per exercise, one line per match of its lint rules in the student files under
    ``src`` ("kernels.cu:48: <message>"), in file and line order."""
    found: dict[str, list[str]] = {}
    sources = {}
    for name in lab.required_files:  # not the written report: it is Markdown, not C
        path = src / name
        if path.is_file():
            sources[name] = strip_comments(path.read_text(errors="replace"))
    for ex in lab.exercises:
        for rule in ex.lint:
            pattern = re.compile(rule.pattern)
            for name, lines in sources.items():
                for number, line in enumerate(lines, start=1):
                    if pattern.search(line):
                        found.setdefault(ex.name, []).append(f"{name}:{number}: {rule.message}")
    return found

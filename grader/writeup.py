"""The student's written report (lab.toml ``[report]``, docs/protocol.md "Manifest"): is it
filled in?

A lab may ask for a short Markdown report (lab 3.5: REPORT.md, the memory space chosen for
each array and the measured evidence). Its quality is the instructor's to judge: its
``manual`` points are never earned or lost by the grader, they are shown as pending manual
review. The grader checks only that it is filled in, for the ``filled`` points (all or
nothing):

- the file was submitted, is text (not binary, mostly UTF-8), is not empty and is not the
  template unchanged;
- every heading of ``sections`` is there, in order. Headings are compared leniently: the
  number of ``#``, case, white space, emphasis marks (``*``, ``_``, backquotes), a closing
  ``#`` sequence and a final colon do not matter;
- each section holds text of the student's own: a line that is none of the template's lines
  of that section (lines are compared without white space, case or a list or quote marker;
  a line with no letter or digit, such as a table rule, is no text);
- each section named in ``need_numbers`` quotes a measured figure of the student's: a
  number (digits not glued to a letter, ``_`` or ``.`` before them: "H200" and "sm_90" are
  none) that is not one of the template's section (so a table row label "1 resample" or a
  size "8192 x 8192" kept from the template is no figure of the student's) and that is a
  measurement, not a count or a size:

  - followed by a unit of time, bandwidth, throughput or ratio, or of the accuracy the
    report asks for (``_UNIT``: "0.59 ms", "410 GB/s", "95 %", "1.31x", "84.7 dB", "0.5 grey
    levels"; an "x" before another number is a size, "8192 x 8192"), or
  - after the name of a metric, at most two words before it (``_METRICS``: "ratio 9.3",
    "`pct_of_copy` = 2.7", "PSNR of 84.7", "max_abs_err 0.505"), or
  - in a table cell whose column heading names a unit or a metric ("| naive GB/s |",
    "| speed-up |": the roofline table's numbers are bare).

  "4 bytes per pixel", "25 reps", "132 SMs" and "CUDA 13.0" are no figures (a student's
  trial: any digit counted). Such a section that says "not measured: no GPU" (what the
  template asks of a student without one) is ``not_measured``, whatever figures it quotes
  beside it: where that is all that is missing and no GPU ran the submission, the points wait
  for one (``waits_for_gpu``, grader.grade). The check reads a figure's form, not where it
  came from: a figure copied from the handout passes it, and the instructor's manual reading
  judges whether the claims match the evidence.

A section runs from its heading to the next heading of the same or a higher level (fewer
``#``), or to the next listed heading. Lines inside fenced code blocks are never headings. A
heading needs a space after its ``#`` (``#include`` is not one), except a listed heading,
found even without it.

The template is the lab's pristine copy (``[report] template``, a file of the lab folder
that is not a student file): in a student's working copy ``labs/<lab>/REPORT.md`` is the
student's own, so it cannot be the reference.

Everything here is linear in the size of the file (no regex that can backtrack on a long
line): a report is untrusted input of up to ``assemble.MAX_FILE_BYTES``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol


class ReportSpec(Protocol):
    """What ``check`` reads of a lab's ``[report]`` (grader.manifest.ReportSpec): named
    here, so that this module imports nothing of the grader's (manifest imports it)."""

    file: str
    sections: tuple[str, ...]
    need_numbers: tuple[str, ...]
    template_text: str

MAX_TEMPLATE_BYTES = 1024 * 1024
# digits with an optional decimal part or thousands groups, not glued to a letter, "_" or "."
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
# a measurement's unit right after a number (matched at the number's end: no backtracking over
# the line); "x" or "×" before another number is a size (8192 x 8192), not a ratio
_UNIT = re.compile(
    r" {0,2}(?:%|[x×](?![a-z0-9]| {0,2}\d)|(?:[µμu]s|ms|ns|s|secs?|seconds?|milliseconds?"
    r"|microseconds?|[kmgt]i?b/s|[gt]bps|[gt]flop/s|[gt]flops|db|gr[ae]y levels?)"
    r"(?![a-z0-9]))",
    re.IGNORECASE,
)
# names of measured quantities: a number at most two words after one is a figure (the run
# document's keys, timing.ratio, metrics.pct_of_copy, check.max_abs_err, and their words)
_METRICS = (
    "ratio", "speed-up", "speedup", "pct_of_copy", "psnr", "psnr_db", "max_abs_err", "err",
    "error", "median_ms", "p10_ms", "p90_ms", "gbps", "copy_gbps", "baseline_gbps",
)
_TOKEN_MARKS = "`*_:=()[]{},;≈~'\""
_EMPHASIS = str.maketrans("", "", "*_`")
_FENCES = ("```", "~~~")
_LINE_MARKERS = "-*+>#|"  # list, quote, heading and table-edge marks before a line's text


def heading_key(text: str) -> str:
    """A heading's text as headings are compared: without its ``#`` marks (leading and
    closing), emphasis marks, case, runs of white space or a final colon."""
    t = text.strip().lstrip("#").rstrip("#").translate(_EMPHASIS)
    return " ".join(t.split()).casefold().rstrip(":").rstrip()


def parse_heading(line: str) -> tuple[int, str, bool] | None:
    """(level, key, strict) when ``line`` is an ATX heading (``## text``), else None;
    ``strict`` when a space follows the ``#`` marks (CommonMark), so ``#include`` is a
    heading only when a caller looks for it by name."""
    stripped = line.lstrip(" \t")
    if len(line) - len(stripped) > 3:
        return None
    level = len(stripped) - len(stripped.lstrip("#"))
    if not 1 <= level <= 6:
        return None
    rest = stripped[level:]
    strict = rest == "" or rest[0] in " \t"
    return level, heading_key(rest), strict


@dataclass
class _Heading:
    line: int
    level: int
    key: str


class Document:
    """A Markdown text split into lines, with the headings that delimit its sections
    (``wanted``: the keys of the listed sections, found even without a space after ``#``)."""

    def __init__(self, text: str, wanted: set[str]):
        self.lines = text.split("\n")
        self.wanted = wanted
        self.heads: list[_Heading] = []
        fence = None
        for i, line in enumerate(self.lines):
            s = line.lstrip()
            if fence is not None:
                if s.startswith(fence):
                    fence = None
                continue
            if s.startswith(_FENCES):
                fence = s[:3]
                continue
            h = parse_heading(line)
            if h is not None and (h[2] or h[1] in wanted):
                self.heads.append(_Heading(i, h[0], h[1]))

    def locate(self, keys: list[str]) -> list[int | str]:
        """For each key in order: the index in ``heads`` of its heading (the first one after
        the previous key's), else "out_of_order" (it is only before) or "missing"."""
        found: list[int | str] = []
        pos = -1
        for key in keys:
            idx = next(
                (i for i in range(pos + 1, len(self.heads)) if self.heads[i].key == key), None
            )
            if idx is not None:
                found.append(idx)
                pos = idx
            elif any(h.key == key for h in self.heads[: pos + 1]):
                found.append("out_of_order")
            else:
                found.append("missing")
        return found

    def body(self, idx: int) -> list[str]:
        """The lines of the section under ``heads[idx]``."""
        head = self.heads[idx]
        end = len(self.lines)
        for nxt in self.heads[idx + 1 :]:
            if nxt.level <= head.level or nxt.key in self.wanted:
                end = nxt.line
                break
        return self.lines[head.line + 1 : end]


def decode(data: bytes, name: str) -> tuple[str | None, str | None, str | None]:
    """(text, problem, note) of a file's bytes: text with Unix line ends and no BOM, or the
    problem that makes it no text file; ``note`` says when a few bytes were not UTF-8."""
    if b"\0" in data:
        return None, f"{name} is not a text file (it holds NUL bytes): submit Markdown text", None
    note = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        bad = text.count("\ufffd")
        if bad * 20 > len(text):  # more than 5 %: binary, or another encoding throughout
            return None, f"{name} is not UTF-8 text: save it as UTF-8 Markdown", None
        note = f"{name} is not valid UTF-8: {bad} bytes could not be read"
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return text, None, note


def _flat(text: str) -> str:
    """The whole text without trailing white space and blank lines at either end."""
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def _content(line: str) -> str | None:
    """A line as lines are compared (no white space, case or leading marker), or None when
    it holds no letter or digit."""
    if not any(ch.isalnum() for ch in line):
        return None
    return "".join(line.lstrip().lstrip(_LINE_MARKERS).split()).casefold()


@dataclass
class Checked:
    """What ``check`` found: one message per problem (none: filled in), one row per
    section (``{"heading": .., "status": ..}``) and a one-line summary."""

    messages: list[str] = field(default_factory=list)
    sections: list[dict] = field(default_factory=list)
    info: str = ""
    note: str | None = None  # e.g. a few bytes that were not UTF-8 (no points lost)

    @property
    def passed(self) -> bool:
        return not self.messages


def _not_checked(spec: ReportSpec, message: str) -> Checked:
    rows = [{"heading": s, "status": "not_checked"} for s in spec.sections]
    return Checked([message], rows, "not checked")


def check(spec: ReportSpec, data: bytes | None, problem: str | None = None) -> Checked:
    """Whether the submitted report (its bytes, or ``problem``: why there are none) is
    filled in, against ``spec`` and its template (``spec.template_text``)."""
    name = spec.file
    if problem is not None or data is None:
        return _not_checked(spec, problem or f"missing {name} in submission")
    text, problem, note = decode(data, name)
    if text is None:
        return _not_checked(spec, problem)
    if not text.strip():
        return _not_checked(spec, f"{name} is empty: fill in the template's sections")

    keys = [heading_key(s) for s in spec.sections]
    numbers = {heading_key(s) for s in spec.need_numbers}
    mine = Document(text, set(keys))
    tmpl = Document(spec.template_text, set(keys))
    where_mine, where_tmpl = mine.locate(keys), tmpl.locate(keys)
    unchanged = _flat(text) == _flat(spec.template_text)

    out = Checked(note=note)
    for heading, key, at, t_at in zip(spec.sections, keys, where_mine, where_tmpl):
        status = "ok"
        if isinstance(at, str):
            status = at
        else:
            body = mine.body(at)
            t_body = tmpl.body(t_at) if isinstance(t_at, int) else []
            lines = [c for c in map(_content, body) if c is not None]
            t_lines = {c for c in map(_content, t_body) if c is not None}
            if not lines:
                status = "empty"
            elif all(c in t_lines for c in lines):
                status = "template"
            elif key in numbers:
                given = set(_NUMBER.findall("\n".join(t_body)))
                own = [b for b in body if _content(b) not in t_lines]  # not the template's
                # "not measured: no GPU" is the student's word that the section has no figure
                # of theirs, whatever numbers it quotes (a student's trial quoted the
                # handout's floors beside it, and those sections counted as measured)
                if _says_not_measured(own):
                    status = "not_measured"
                elif not _figures(body) - given:
                    status = "no_number"
        out.sections.append({"heading": heading, "status": status})
        if unchanged or status == "ok":
            continue
        out.messages.append(f"{name}: section '{heading}' " + _SAYS[status])
    if unchanged:
        out.messages = [f"{name} is the template, unchanged: fill in every section"]
    n_ok = sum(r["status"] == "ok" for r in out.sections)
    if out.passed:
        out.info = f"all {n_ok} sections filled in"
        if numbers:
            out.info += f", measured figures quoted in the {len(numbers)} that need them"
    else:
        out.info = f"{n_ok} of {len(out.sections)} sections filled in"
    return out


def _names_a_measure(text: str, units: bool = True) -> bool:
    """Whether ``text`` (a few words) names a metric, or with ``units`` a unit too (a table
    column's heading; a unit BEFORE a number makes no figure of it: "4096 x 4096")."""
    for token in text.casefold().split():
        word = token.strip(_TOKEN_MARKS)
        if any(word.endswith(m) for m in _METRICS) or (units and _UNIT.fullmatch(word)):
            return True
    return False


def _table_cells(line: str) -> list[str] | None:
    """The cells of a Markdown table row (``| a | b |``), else None."""
    s = line.strip()
    if not s.startswith("|"):
        return None
    return [c.strip() for c in s.strip("|").split("|")]


def _is_table_rule(cells: list[str] | None) -> bool:
    return bool(cells) and all(c and set(c) <= set("-: ") for c in cells)


def _figures(lines: list[str]) -> set[str]:
    """The numbers of ``lines`` that are measured figures (the module's docstring): with a
    unit after them, a metric's name before them, or in a table column headed by either."""
    found: set[str] = set()
    measured_columns: set[int] = set()  # of the table being read: headed by a unit or metric
    for i, line in enumerate(lines):
        cells = _table_cells(line)
        if cells is None:
            measured_columns = set()
        elif i + 1 < len(lines) and _is_table_rule(_table_cells(lines[i + 1])):
            measured_columns = {j for j, c in enumerate(cells) if _names_a_measure(c)}
            continue  # a heading row holds no figures
        elif not _is_table_rule(cells):
            for j, cell in enumerate(cells):
                if j in measured_columns:
                    found.update(_NUMBER.findall(cell))
        for m in _NUMBER.finditer(line):
            before = line[max(0, m.start() - 40) : m.start()].split()[-2:]
            if _UNIT.match(line, m.end()) or _names_a_measure(" ".join(before), units=False):
                found.add(m.group())
    return found


def _says_not_measured(lines: list[str]) -> bool:
    """Whether the student's own ``lines`` say "not measured: no GPU", what the template asks
    of a student without a GPU where a figure belongs: case, white space (line breaks too),
    emphasis marks and the spacing or dash around the colon aside (``**not measured** - no
    GPU``)."""
    text = " ".join(" ".join(lines).translate(_EMPHASIS).casefold().split())
    return re.search(r"not measured\s*[:\-–—]\s*no gpu", text) is not None


def waits_for_gpu(sections: list[dict]) -> bool:
    """Whether a check's ``sections`` rows (``Checked.sections``) failed only for sections
    that say "not measured: no GPU" where a figure belongs: a report that is filled in but
    for the figures a GPU run gives."""
    bad = [r["status"] for r in sections if r["status"] != "ok"]
    return bool(bad) and all(b == "not_measured" for b in bad)


# what a not_measured section's message says while no GPU has run the code, and what it says
# once one has (``measured_on_gpu``)
_WAITS = "its figures wait for a run on a GPU"
_MEASURE = "give the figures of this run"


def measured_on_gpu(messages: list[str]) -> list[str]:
    """``check``'s messages for a grading where a GPU ran the code: a not_measured section's
    figures were there to measure, so its message asks for them."""
    return [m.replace(_WAITS, _MEASURE) for m in messages]


_SAYS = {
    "missing": "is missing: keep the template's headings",
    "out_of_order": "is out of order: keep the template's order of sections",
    "empty": "is empty",
    "template": "still holds only the template's text: write your own",
    "no_number": (
        "quotes no measured figure of yours: give the figures with their units (ms, GB/s, %, "
        "x, dB) or the metric they are (ratio, pct_of_copy, psnr_db)"
    ),
    "not_measured": f"says 'not measured: no GPU': {_WAITS}",
}

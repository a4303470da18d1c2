"""Skeletons generated from solutions (docs/protocol.md, "Skeletons: solution markers").

In ``solutions/<lab>/<student file>`` the lines between ``// BEGIN SOLUTION`` and
``// END SOLUTION`` are the solution. Generation drops both marker lines and everything
between them and keeps every other line byte for byte (indentation, line endings, the
final newline). A marker line holds only the marker: leading white space, ``//``, the
marker; trailing white space is tolerated.

The opposite block, for starting code that only the skeleton has (e.g. a correct but naive
version the student replaces), is written so that the solution's compiler skips it::

    #if 0 // BEGIN SKELETON
    ... starting code: compiled in the skeleton, not in the solution ...
    #endif // END SKELETON

Generation drops the two marker lines and KEEPS the lines between them. The marker lines
are exactly a preprocessor ``#if 0`` / ``#endif`` with the marker as a ``//`` comment
(white space as above), so the block can never be compiled into the solution by mistake.

Blocks do not nest, of either kind. Errors, each with ``file:line``:

- a ``BEGIN`` inside a block (nested, or a block of the other kind),
- an ``END`` without a ``BEGIN`` of its kind, or while the other kind's block is open,
- a ``BEGIN`` never closed,
- a line that mentions a marker but is not one (trailing text, code before it, ``/* */``,
  or ``// BEGIN SKELETON`` without its ``#if 0``).

A lab's written report (lab.toml ``[report]``) is the exception: its skeleton is the lab's
pristine template (``[report] template``), copied as it is, and ``solutions/<lab>/`` holds a
filled-in example report (selfcheck grades it) without markers.

``check`` compares every lab's student files with what generation yields from
``solutions/`` (and the report templates); ``write`` rewrites them, keeping each replaced file as ``<file>.orig``
so that running it over a student's work loses nothing. Students' copies of the course
(``make dist-student``) have no ``solutions/``: there both say so and succeed, with
nothing to check or write.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from grader import course, dist, manifest
from grader.errors import GraderError

_MARKER = re.compile(r"^[ \t]*//[ \t]*(BEGIN|END) SOLUTION[ \t]*\r?\n?\Z")
_SKELETON_BEGIN = re.compile(r"^[ \t]*#[ \t]*if[ \t]+0[ \t]*//[ \t]*BEGIN SKELETON[ \t]*\r?\n?\Z")
_SKELETON_END = re.compile(r"^[ \t]*#[ \t]*endif[ \t]*//[ \t]*END SKELETON[ \t]*\r?\n?\Z")
_MENTION = re.compile(r"\b(BEGIN|END)[ \t]+(SOLUTION|SKELETON)\b")
# How each marker must be written (error messages).
_SPELLING = {
    ("BEGIN", "SOLUTION"): "// BEGIN SOLUTION",
    ("END", "SOLUTION"): "// END SOLUTION",
    ("BEGIN", "SKELETON"): "#if 0 // BEGIN SKELETON",
    ("END", "SKELETON"): "#endif // END SKELETON",
}
DIFF_LINES = 40
NO_SOLUTIONS = "no solutions/ in this copy: nothing to check"


class MarkerError(GraderError):
    """A malformed solution marker; the message starts with ``file:line:``."""


def _marker(line: str) -> tuple[str, str] | None:
    """(BEGIN or END, SOLUTION or SKELETON) when ``line`` is a marker line, else None."""
    m = _MARKER.match(line)
    if m:
        return m.group(1), "SOLUTION"
    if _SKELETON_BEGIN.match(line):
        return "BEGIN", "SKELETON"
    if _SKELETON_END.match(line):
        return "END", "SKELETON"
    return None


def strip(text: str, name: str = "<text>") -> str:
    """The skeleton of one solution file's text; raises MarkerError.

    SOLUTION blocks are dropped with their markers; SKELETON blocks lose only their two
    marker lines."""
    out = []
    open_kind = None  # "SOLUTION" or "SKELETON" while a block is open
    begin_line = None  # the line of its BEGIN
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        marker = _marker(line)
        if marker is None:
            mention = _MENTION.search(line)
            if mention:
                spelling = _SPELLING[(mention.group(1), mention.group(2))]
                raise MarkerError(
                    f"{name}:{number}: '{mention.group(0)}' must be alone on its line "
                    f"as '{spelling}'"
                )
            if open_kind != "SOLUTION":
                out.append(line)
            continue
        what, kind = marker
        if what == "BEGIN":
            if open_kind == kind:
                raise MarkerError(
                    f"{name}:{number}: nested BEGIN {kind} (the block opened at line "
                    f"{begin_line} is not closed)"
                )
            if open_kind is not None:
                raise MarkerError(
                    f"{name}:{number}: BEGIN {kind} inside the {open_kind} block opened at "
                    f"line {begin_line} (blocks do not nest)"
                )
            open_kind, begin_line = kind, number
        else:
            if open_kind is None:
                raise MarkerError(f"{name}:{number}: END {kind} without BEGIN {kind}")
            if open_kind != kind:
                raise MarkerError(
                    f"{name}:{number}: END {kind} inside the {open_kind} block opened at line "
                    f"{begin_line} (close it with '{_SPELLING[('END', open_kind)]}' first)"
                )
            open_kind = begin_line = None
    if open_kind is not None:
        raise MarkerError(f"{name}:{begin_line}: BEGIN {open_kind} is never closed")
    return "".join(out)


@dataclass
class FileResult:
    """One student file: where it is, what generation yields, and what went wrong."""

    skeleton: Path  # labs/<lab>/<file>
    solution: Path  # solutions/<lab>/<file>
    expected: str | None = None  # the generated skeleton
    current: str | None = None  # the file in labs/ (None when missing)
    template: bool = False  # a written report: ``solution`` is its template, no markers
    error: str | None = None  # a marker error or a missing solution

    @property
    def differs(self) -> bool:
        return self.error is None and self.expected != self.current

    def diff(self, limit: int = DIFF_LINES) -> str:
        """A unified diff (labs/ file → generated), cut after ``limit`` lines."""
        lines = list(
            difflib.unified_diff(
                (self.current or "").splitlines(keepends=True),
                (self.expected or "").splitlines(keepends=True),
                fromfile=manifest.display_path(self.skeleton),
                tofile=f"generated from {manifest.display_path(self.solution)}",
            )
        )
        cut = len(lines) - limit
        lines = [ln if ln.endswith("\n") else ln + "\n" for ln in lines[:limit]]
        if cut > 0:
            lines.append(f"... ({cut} more diff lines)\n")
        return "".join(lines)


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def _source(root: Path, lab_dir: Path, lab, name: str) -> tuple[Path, bool]:
    """(the file the skeleton of the student file ``name`` comes from, whether it is a
    written report's template, copied as it is): ``solutions/<lab>/<name>``, stripped of its
    SOLUTION blocks, else the lab's report template."""
    if lab.report is not None and name == lab.report.file:
        return lab_dir / lab.report.template, True
    return root / "solutions" / lab_dir.name / name, False


def generate(root: Path, labs: list[str] | None = None) -> list[FileResult]:
    """Generates the skeleton of every student file of the chosen labs (all by default)."""
    results = []
    for lab_dir in course.select_labs(root, labs):
        lab = manifest.load(lab_dir, student_files_exist=False)
        for name in lab.student_files:
            source, template = _source(root, lab_dir, lab, name)
            r = FileResult(lab_dir / name, source, template=template)
            if r.skeleton.is_file():
                r.current = _read(r.skeleton)
            if template:
                r.expected = _read(r.solution)
            elif not r.solution.is_file():
                r.error = (
                    f"{manifest.display_path(r.solution)}: missing (no solution to generate from)"
                )
            else:
                try:
                    r.expected = strip(_read(r.solution), manifest.display_path(r.solution))
                except MarkerError as e:
                    r.error = str(e)
            results.append(r)
    return results


def committed_skeletons(root: Path, labs: list[str] | None = None) -> dict[str, str]:
    """{``labs/<lab>/<file>``: the skeleton its source generates} for each student file of
    the chosen labs (all by default) whose ``solutions/<lab>/`` the last commit holds (the
    working tree's outside a git checkout): the source as committed, since a release is the
    last commit (``grader.dist``) and a solution under change is not what it must match. A
    lab without solutions has none (its ``labs/`` files are then the pristine ones: a
    student's copy). Raises GraderError where a lab's solution file is missing beside the
    others, or holds a marker error."""
    tree = dist.committed(root)
    sources: dict[str, tuple[str, bool]] = {}  # skeleton: (its source, a report template)
    for lab_dir in course.select_labs(root, labs):
        folder = f"solutions/{lab_dir.name}/"
        if not (any(n.startswith(folder) for n in tree) if tree is not None
                else (root / folder).is_dir()):
            continue
        lab = manifest.load(lab_dir, student_files_exist=False)
        for name in lab.student_files:
            path, report = _source(root, lab_dir, lab, name)
            source = path.relative_to(root).as_posix()
            if not (source in tree if tree is not None else (root / source).is_file()):
                where = "the last commit" if tree is not None else "the course tree"
                raise GraderError(
                    f"cannot generate labs/{lab_dir.name}/{name}: {source} is missing from {where}"
                )
            sources[f"labs/{lab_dir.name}/{name}"] = (source, report)
    names = sorted({source for source, _ in sources.values()})
    if tree is not None:
        texts = {n: data.decode("utf-8") for n, (data, _) in dist.read(root, names).items()}
    else:
        texts = {n: _read(root / n) for n in names}
    out = {}
    for skel, (source, report) in sources.items():
        try:
            out[skel] = texts[source] if report else strip(texts[source], source)
        except MarkerError as e:
            raise GraderError(f"cannot generate {skel}: {e}")
    return out


def release_drift(root: Path, contents: dict[str, tuple[bytes, int]]) -> list[str]:
    """The student files among a release's ``contents`` ({repository path: (bytes, mode)},
    ``grader.dist.read``) that are not the skeletons their committed sources generate
    (``committed_skeletons``): a solution committed over a skeleton would otherwise ship."""
    return sorted(
        name
        for name, text in committed_skeletons(root).items()
        if name in contents and contents[name][0] != text.encode("utf-8")
    )


def check(root: Path, labs: list[str] | None, out) -> int:
    """``skeleton --check``: 0 when every labs/ file is what generation yields, else 1."""
    if not (root / "solutions").is_dir():
        print(NO_SOLUTIONS, file=out)
        return 0
    results = generate(root, labs)
    bad = 0
    for r in results:
        if r.error:
            bad += 1
            print(f"error: {r.error}", file=out)
        elif r.differs:
            bad += 1
            what = "missing" if r.current is None else "differs from its generated skeleton"
            print(f"{manifest.display_path(r.skeleton)}: {what}", file=out)
            print(r.diff(), end="", file=out)
    if bad:
        print(
            f"skeleton check: {bad} of {len(results)} files differ from the skeletons generated "
            "from solutions/.\n"
            "  Students: this is expected once you have started a lab — your work is in those "
            "files. The course's test suite checks the course, not your work: grade it with "
            "'make grade LAB=<id>'.\n"
            "  Course authors: edit solutions/, then run 'make skeletons' (it keeps a copy of "
            "every file it replaces as <file>.orig).",
            file=out,
        )
        return 1
    print(f"skeleton check: {len(results)} files match their solutions", file=out)
    return 0


def write(root: Path, labs: list[str] | None, out) -> int:
    """``skeleton --write``: rewrites labs/ files; 1 when a marker error stopped a file."""
    if not (root / "solutions").is_dir():
        print("no solutions/ in this copy: nothing to generate", file=out)
        return 0
    results = generate(root, labs)
    status = written = 0
    for r in results:
        if r.error:
            status = 1
            print(f"error: {r.error}", file=out)
        elif r.differs:
            if r.current is not None:  # never lose what was there (a student's work)
                backup = r.skeleton.with_name(r.skeleton.name + ".orig")
                with open(backup, "w", encoding="utf-8", newline="") as f:
                    f.write(r.current)
                print(
                    f"kept the previous {r.skeleton.name} as " f"{manifest.display_path(backup)}",
                    file=out,
                )
            with open(r.skeleton, "w", encoding="utf-8", newline="") as f:
                f.write(r.expected)
            print(f"wrote {manifest.display_path(r.skeleton)}", file=out)
            written += 1
    if status == 0:
        print(
            f"skeletons: {written} written, {len(results) - written} already up to date",
            file=out,
        )
    return status

"""Assembling a submission: the pristine lab plus the submission's student files.

The pristine lab folder is copied to a fresh temporary directory, then each student file
named in lab.toml is copied from the submission over it. Nothing else is ever taken from
the submission. A student file must be a regular file (a symbolic link is refused: it
could point at the solutions or at another student's work) of at most
``MAX_FILE_BYTES``; it is opened with ``O_NOFOLLOW`` so it cannot be swapped for a link
between the check and the copy, and with ``O_NONBLOCK`` so that a FIFO in its place is
refused instead of waited on (a FIFO or a device is "not a regular file").

A missing, linked or oversized student file is a graded result (the submission scores 0,
exit status 1), reported as e.g. "missing kernels.cu in submission (it has Kernels.cu: file
names are case-sensitive, name it kernels.cu)"; a submission folder
that does not exist is a usage error (``GraderError``, exit status 2). The lab's written
report (lab.toml ``[report]``) is the exception: without it only the report's own points
are lost, so its problem is kept apart (``report_problem``) and the pristine copy stays in
the assembled folder.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import GraderError
from grader.manifest import HIDDEN_FILE, Lab, display_path

MAX_FILE_BYTES = 2 * 1024 * 1024


@dataclass
class Assembled:
    src: Path  # the assembled lab folder
    problems: list[str] = field(default_factory=list)  # readable, one per student file
    report_problem: str | None = None  # why the report (lab.toml [report]) was not taken

    @property
    def ok(self) -> bool:
        return not self.problems


def _ignore_links(folder: str, names: list[str]) -> list[str]:
    """Links, and the instructor-only hidden.toml: the build does not need it, and the
    assembled copy is readable by the submission's runs."""
    return [n for n in names if os.path.islink(os.path.join(folder, n)) or n == HIDDEN_FILE]


def _read_student_file(path: Path, name: str) -> tuple[bytes | None, str | None]:
    try:
        # O_NONBLOCK: opening a FIFO named kernels.cu waits for a writer that never comes
        # (a red-team review hung the grader so); a regular file's reads ignore the flag.
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None, f"missing {name} in submission"
    except OSError as e:
        if os.path.islink(path):
            return None, f"{name} in the submission is a symbolic link: submit the file itself"
        return None, f"cannot read {name} in the submission: {e.strerror}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, f"{name} in the submission is not a regular file: submit the file itself"
        if st.st_size > MAX_FILE_BYTES:
            return None, (
                f"{name} in the submission is {st.st_size} bytes, more than the "
                f"{MAX_FILE_BYTES} allowed"
            )
        with os.fdopen(fd, "rb") as f:
            fd = -1
            return f.read(MAX_FILE_BYTES + 1), None
    finally:
        if fd >= 0:
            os.close(fd)


def printable(text: str, keep: str = "\t") -> str:
    """``text`` (one line) as a report may print it: each character that is not printable
    (``str.isprintable``: a control character such as a terminal escape's ESC or BEL, a
    byte that was not UTF-8, a bidi override) written as Python writes it in ``ascii``
    (``\\x1b``, ``\\udce9``, ``\\u202e``); the characters in ``keep`` (a tab: nvcc echoes
    a tab-indented source line) and printable ones, accented letters included, are kept. A
    student's source reaches a report through the compiler's messages (a ``#warning``
    holding ESC[2J or an OSC 52 clipboard write, a red-team review); ``shown_name`` escapes
    a whole name the same way."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in keep else ascii(c)[1:-1] for c in text)


def shown_name(name: str, limit: int = 60) -> str:
    """An entry's name as a report may print it: a submission names its own files, so a name
    with a control character (a newline, a terminal escape) or bytes that are not UTF-8 is
    shown escaped and quoted (Python's ``ascii``, as ``printable`` escapes a line), and a
    long one cut to ``limit`` characters."""
    text = name if name.isprintable() else ascii(name)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _missing_hint(folder: Path, name: str, student_files: tuple[str, ...]) -> str:
    """What a submission missing the student file ``name`` holds instead, when it tells the
    fix: the same name in other letter cases, an empty folder, or (none of the lab's student
    files there: another folder was submitted) its first entries. "" otherwise."""
    try:
        entries = sorted(e.name for e in folder.iterdir() if not e.name.startswith("."))
    except OSError:
        return ""
    near = [e for e in entries if e.lower() == name.lower()]
    if near:
        return f" (it has {shown_name(near[0])}: file names are case-sensitive, name it {name})"
    if not entries:
        return " (the folder is empty)"
    if not set(entries) & set(student_files):
        shown = ", ".join(map(shown_name, entries[:5])) + (", ..." if len(entries) > 5 else "")
        return f" (it holds {shown})"
    return ""


def assemble(lab: Lab, submission: Path, workdir: Path) -> Assembled:
    """Builds ``workdir/src`` from the pristine lab and the submission's student files."""
    if not submission.is_dir():
        if submission.is_file():
            raise GraderError(
                f"submission {display_path(submission)} is a file: grade takes the folder "
                "holding the student files (extract an archive first; batch and slurm take "
                ".zip, .tar.gz and .tgz as they are)"
            )
        raise GraderError(f"submission folder {display_path(submission)} does not exist")
    src = workdir / "src"
    shutil.copytree(lab.dir, src, ignore=_ignore_links)
    result = Assembled(src)
    for name in lab.student_files:
        data, problem = _read_student_file(submission / name, name)
        if problem and not os.path.lexists(submission / name):  # missing, not refused
            problem += _missing_hint(submission, name, lab.student_files)
        if problem and lab.report is not None and name == lab.report.file:
            result.report_problem = problem
            continue
        if problem:
            result.problems.append(problem)
            continue
        target = src / name
        if target.exists() or target.is_symlink():
            target.unlink()
        with open(target, "wb") as f:
            f.write(data)
    return result

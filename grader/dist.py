"""``make dist-student``: the course as students receive it, without the solutions.

The release is the repository's committed files (``git ls-files --cached``) in a git
checkout, else every file of the tree outside ``build/`` and caches — less what would give
solutions away or is of no use to students. Files git does not track are left out and
named (``untracked``): a class graded inside the course tree (``subs/``, ``grades/``) holds
students' names and work, often a copy of the reference solution, and must not ship. Left
out too:

- ``solutions/``: the reference solutions;
- ``grader/tests/known_bad/``: known-bad submissions, each a patch over a solution;
- ``grader/tests/alternatives/``: correct designs other than the reference, whole answers;
- ``bench/variants/``: measured alternatives, patches over a solution too;
- ``bench/roof/``: the references' measured steps (lab 3.3's transpose and convolution),
  whole answers;
- ``bench/h200-2026-11-29-lab35/``: lab 3.5's raw H200 logs, which list the reference
  solution's kernels and their memory spaces (the project is to choose those);
- ``.ci/``: the course's CI scripts;
- ``labs/<lab>/hidden.toml``: the instructor-only correctness cases (docs/protocol.md,
  "Manifest");
- every dated session folder of ``bench/`` (``bench/<card>-<YYYY-MM-DD>…/``, e.g.
  ``bench/h200-2026-12-02-session6/``): the raw records of GPU sessions, which hold grading
  logs and reports of the reference solutions (lab 3.5's name its kernels and design),
  of the known-bad fixtures and of the alternatives, with their verdicts. The rule is the
  folder's name, not its contents, so a new session is left out without a list to keep.
  ``bench/h200.md`` (the summary the handouts cite), bench's scripts and
  ``bench/throughput/`` ship; a handout citing a session folder says it is in the
  instructors' repository only;
- ``grader/tests/data/``: GPU output recorded from the known-bad fixtures, the alternatives
  and the solutions (compute-sanitizer reports naming their kernels and source lines, lab
  3.5's the reference's design; Nsight Compute counters), named after the fixtures; the
  tests that read it skip where it is absent.

The last two are not in ``EXCLUDED`` (the session folders are matched by pattern,
``grader/tests/data/`` is ``RECORD_FOLDERS``); the grader's sandbox hides all of them from a
submission's runs (``bench/`` whole, grader/sandbox.py), so that a submission cannot print
what they hold into its own report.

The tarball (``build/dist/cuda-memory-labs-student.tar.gz`` by default) holds the files
under ``cuda-memory-labs/`` and is deterministic, so that two releases of the same tree
are byte-identical: sorted names, mtime 0, uid/gid 0 with no owner names, modes 0644 or
0755 (executable), and a gzip header without a name or time.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import subprocess
import tarfile
from pathlib import Path

from grader import manifest
from grader.errors import GraderError
from grader.files import write_atomic

PREFIX = "cuda-memory-labs"
DEFAULT_OUT = Path("build") / "dist" / "cuda-memory-labs-student.tar.gz"
EXCLUDED = (
    "solutions/",
    "grader/tests/known_bad/",
    "grader/tests/alternatives/",
    "bench/variants/",
    "bench/roof/",
    "bench/h200-2026-11-29-lab35/",
    ".ci/",
)
EXCLUDED_FILES = (f"labs/*/{manifest.HIDDEN_FILE}",)  # shown with EXCLUDED in messages
# records of GPU sessions and of known-bad fixtures' runs (shown with EXCLUDED in messages)
EXCLUDED_RECORDS = ("bench/<card>-<YYYY-MM-DD>*/", "grader/tests/data/")
_SESSION_FOLDER = re.compile(r"bench/[a-z][a-z0-9]*-\d{4}-\d{2}-\d{2}[^/]*/")
RECORD_FOLDERS = ("grader/tests/data/",)  # left out whole, as EXCLUDED (a pattern: below)
_WALK_SKIP = {".git", "build", "__pycache__", ".pytest_cache", ".whl", ".debs", "grader-out"}


def excluded(name: str) -> bool:
    """Whether the repository path ``name`` (with ``/``) stays out of the student release."""
    if any(name == d.rstrip("/") or name.startswith(d) for d in EXCLUDED + RECORD_FOLDERS):
        return True
    if _SESSION_FOLDER.match(name + "/"):  # the folder itself or anything under it
        return True
    return is_hidden_cases(name)


def is_hidden_cases(name: str) -> bool:
    """Whether the repository path ``name`` is a lab's instructor-only hidden.toml."""
    parts = name.split("/")
    return len(parts) == 3 and parts[0] == "labs" and parts[2] == manifest.HIDDEN_FILE


def _git_ls(root: Path, *which: str) -> list[str] | None:
    """``git ls-files -z WHICH...`` of the checkout, or None when ``root`` is not the top
    of a git checkout."""
    try:
        top = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
        )
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != root.resolve():
            return None
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", *which],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return [n for n in listed.stdout.split("\0") if n]


def untracked(root: Path) -> list[str]:
    """The files of the checkout that git does not track and does not ignore (left out of
    every release: ``files``); empty outside a git checkout."""
    return sorted(_git_ls(root, "--others", "--exclude-standard") or [])


def _walk_files(root: Path) -> list[str]:
    names = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _WALK_SKIP]
        for f in files:
            if not f.endswith(".pyc"):
                names.append((Path(folder) / f).relative_to(root).as_posix())
    return names


def files(root: Path) -> list[str]:
    """The sorted repository paths that go into the student release."""
    names = _git_ls(root, "--cached")
    if names is None:
        names = _walk_files(root)
    # a file deleted in the working tree but still in the index is not shipped
    return sorted(n for n in set(names) if not excluded(n) and (root / n).is_file())


def build(root: Path, out: Path) -> list[str]:
    """Writes the student tarball to ``out`` (atomically); returns the paths it holds."""
    names = files(root)
    if not names:
        raise GraderError(f"{root}: no files to release")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for name in names:
                path = root / name
                data = path.read_bytes()
                info = tarfile.TarInfo(f"{PREFIX}/{name}")
                info.size = len(data)
                info.mtime = 0
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.mode = 0o755 if os.access(path, os.X_OK) else 0o644
                tar.addfile(info, io.BytesIO(data))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, buf.getvalue())
    except OSError as e:
        raise GraderError(f"cannot write {out}: {e.strerror}")
    return names


def untracked_notice(root: Path) -> str | None:
    """One line naming the files a release leaves out because git does not track them."""
    names = untracked(root)
    if not names:
        return None
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (
        f"left out {len(names)} file(s) git does not track: {shown} "
        "(commit a file to release it; keep graded classes outside the course tree)"
    )


def dist_student(root: Path, out: str | None, stream) -> int:
    """``dist-student [--out PATH]``: builds the release and says where it is."""
    path = Path(out) if out else root / DEFAULT_OUT
    names = build(root, path)
    print(
        f"wrote {manifest.display_path(path)}: {len(names)} files "
        f"(without {', '.join(EXCLUDED + EXCLUDED_FILES + EXCLUDED_RECORDS)})",
        file=stream,
    )
    notice = untracked_notice(root)
    if notice:
        print(notice, file=stream)
    return 0

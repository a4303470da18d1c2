"""``make dist-student``: the course as students receive it, without the solutions.

The release is the repository's last commit (git's ``HEAD``: its files and their committed
contents, ``committed``) in a git checkout, else every file of the tree outside ``build/``
and caches — less what would give solutions away or is of no use to students. Files git
does not track are left out and named (``untracked``): a class graded inside the course tree
(``subs/``, ``grades/``) holds students' names and work, often a copy of the reference
solution, and must not ship. Changes not committed are left out and named too
(``uncommitted``): an instructor who tried a lab in the checkout has its skeleton filled in,
and the release would have handed out the answers (a trial, session 44). Left out too:

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
NO_FILES = (
    "no files to release (a git checkout with no commit yet, or one that commits nothing "
    "under this folder?)"
)
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


def _run_git(root: Path, *args: str) -> subprocess.CompletedProcess | None:
    """``git -C root ARGS...`` run (its output as text), or None where git is not installed."""
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    except OSError:
        return None


def _git(root: Path, *args: str) -> str | None:
    """The output of ``git -C root ARGS...``, or None where it fails (``ls-tree HEAD`` in a
    checkout with no commit yet). Paths are relative to ``root``, also where ``root`` is a
    folder of a larger checkout (the course in a department's repository)."""
    done = _run_git(root, *args)
    return done.stdout if done is not None and done.returncode == 0 else None


def _git_names(root: Path, *args: str) -> list[str] | None:
    """The NUL-separated names ``git ARGS... -z`` prints, or None (``_git``)."""
    out = _git(root, *args, "-z")
    return None if out is None else [n for n in out.split("\0") if n]


def is_checkout(root: Path) -> bool:
    """Whether ``root`` lies in a git work tree (its top, or a folder of a larger one): the
    release is then the last commit's files under ``root``. GraderError where ``root`` holds
    a ``.git`` that git cannot read (another user's checkout, "dubious ownership"; no git
    installed): the working tree would otherwise ship unannounced (a review, session 44)."""
    done = _run_git(root, "rev-parse", "--is-inside-work-tree")
    if done is not None and done.returncode == 0 and done.stdout.strip() == "true":
        return True
    if (root / ".git").exists():
        said = (done.stderr.strip().splitlines() or ["?"])[-1] if done else "git not installed"
        raise GraderError(
            f"{root} is a git checkout that git cannot read ({said}): the release is its last "
            "commit, so git must read it (another user's checkout: git config --global "
            f"--add safe.directory {root}); then run this again"
        )
    return False


def committed(root: Path) -> dict[str, tuple[int, str]] | None:
    """{path under ``root``: (mode 0o644 or 0o755, blob id)} of the regular files of the
    last commit (links and submodules are not files to ship); {} in a checkout with no
    commit yet, or one that commits nothing under ``root``; None outside a git checkout."""
    if not is_checkout(root):
        return None
    return {
        name: (0o755 if mode == "100755" else 0o644, blob)
        for name, mode, blob in _tree(root)
        if mode in ("100644", "100755")
    }


def _tree(root: Path) -> list[tuple[str, str, str]]:
    """(path under ``root``, git mode, object id) of every blob of the last commit."""
    out = _git(root, "ls-tree", "-r", "-z", "HEAD")  # relative to root, under it only
    entries = []
    for entry in (out or "").split("\0"):
        head, _, name = entry.partition("\t")
        fields = head.split()
        if name and len(fields) == 3 and fields[1] == "blob":
            entries.append((name, fields[0], fields[2]))
    return entries


def committed_links(root: Path) -> list[str]:
    """The symbolic links of the last commit that the release would hold were they files
    (``excluded`` ones aside): left out, since a release holds files only (a review, session
    44: before, each shipped as its target's bytes); empty outside a git checkout."""
    if not is_checkout(root):
        return []
    return sorted(n for n, mode, _ in _tree(root) if mode == "120000" and not excluded(n))


def untracked(root: Path) -> list[str]:
    """The files of the checkout that git does not track and does not ignore (left out of
    every release: ``files``); empty outside a git checkout."""
    return sorted(_git_names(root, "ls-files", "--others", "--exclude-standard") or [])


def uncommitted(root: Path) -> list[str]:
    """The paths the release would hold or would have held (``excluded`` ones aside) whose
    working tree or index differs from the last commit: changed, added to the index, or
    deleted. The release holds their committed contents (``read``); empty outside a git
    checkout."""
    names = _git_names(root, "diff", "--name-only", "--no-renames", "--relative", "HEAD") or []
    return sorted(n for n in names if not excluded(n))


def _walk_files(root: Path) -> list[str]:
    names = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _WALK_SKIP]
        for f in files:
            if not f.endswith(".pyc"):
                names.append((Path(folder) / f).relative_to(root).as_posix())
    return names


def files(root: Path) -> list[str]:
    """The sorted repository paths that go into the student release: the last commit's files
    in a git checkout (``committed``), else the tree's."""
    tree = committed(root)
    names = list(tree) if tree is not None else [
        n for n in _walk_files(root) if (root / n).is_file()
    ]
    return sorted(n for n in set(names) if not excluded(n))


def read(root: Path, names: list[str]) -> dict[str, tuple[bytes, int]]:
    """{path: (bytes, mode 0o644 or 0o755)} of ``names`` (from ``files``): their contents in
    the last commit in a git checkout (``git cat-file --batch``), else on disk. Raises
    GraderError when git cannot give them."""
    tree = committed(root)
    if tree is None:
        return {
            n: ((root / n).read_bytes(), 0o755 if os.access(root / n, os.X_OK) else 0o644)
            for n in names
        }
    ids = "".join(f"{tree[n][1]}\n" for n in names).encode()
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "cat-file", "--batch"],
            input=ids, capture_output=True, check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise GraderError(f"{root}: git cannot read the last commit's files: {e}")
    found, at = {}, 0
    for n in names:
        eol = out.find(b"\n", at)
        head = out[at:eol].split()  # "<id> blob <size>", or "<id> missing"
        if eol < 0 or len(head) != 3 or head[1] != b"blob":
            raise GraderError(f"{root}: git cannot read {n} from the last commit")
        size = int(head[2])
        found[n] = (out[eol + 1 : eol + 1 + size], tree[n][0])
        at = eol + 1 + size + 1  # the contents, then a newline
    return found


def build(root: Path, out: Path, *, drift) -> list[str]:
    """Writes the student tarball to ``out`` (atomically); returns the paths it holds.
    ``drift(root, contents)``: the student files among ``contents`` ({path: (bytes, mode)})
    that are not the skeletons ``solutions/`` generates (``grader.skeleton.release_drift``,
    passed in: the generator imports the harness, which imports this module's EXCLUDED);
    any is a GraderError naming them, so that a solution committed over a lab's skeleton
    never ships (an instructor's trial, session 44: only ``make test`` compared them)."""
    names = files(root)
    if not names:
        raise GraderError(f"{root}: {NO_FILES}")
    contents = read(root, names)
    wrong = drift(root, contents)
    if wrong:
        raise GraderError(
            f"not the skeletons solutions/ generates: {_shown(wrong)}. The release would "
            "ship them as committed (a solution committed over a skeleton would hand out the "
            "answers): run `make skeletons`, check `git diff`, commit, and make the release again"
        )
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for name in names:
                data, mode = contents[name]
                info = tarfile.TarInfo(f"{PREFIX}/{name}")
                info.size = len(data)
                info.mtime = 0
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.mode = mode
                tar.addfile(info, io.BytesIO(data))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, buf.getvalue())
    except OSError as e:
        raise GraderError(f"cannot write {out}: {e.strerror}")
    return names


def untracked_notice(root: Path) -> str | None:
    """The lines naming what a release leaves out of the checkout: files git does not
    track, and changes not committed (``uncommitted``); None when there are none."""
    lines = []
    names = untracked(root)
    if names:
        lines.append(
            f"left out {len(names)} file(s) git does not track: {_shown(names)} "
            "(commit a file to release it; keep graded classes outside the course tree)"
        )
    links = committed_links(root)
    if links:
        lines.append(
            f"left out {len(links)} symbolic link(s) of the last commit: {_shown(links)} (a "
            "release holds files only: commit the file itself to release it)"
        )
    changed = uncommitted(root)
    if changed:
        lines.append(
            f"left out the changes not committed to {len(changed)} file(s): {_shown(changed)} "
            "(the release holds the last commit's; commit a change to release it)"
        )
    return "\n".join(lines) or None


def _shown(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def dist_student(root: Path, out: str | None, stream, *, drift) -> int:
    """``dist-student [--out PATH]``: builds the release and says where it is (``drift``:
    as ``build``'s)."""
    path = Path(out) if out else root / DEFAULT_OUT
    names = build(root, path, drift=drift)
    print(
        f"wrote {manifest.display_path(path)}: {len(names)} files "
        f"(without {', '.join(EXCLUDED + EXCLUDED_FILES + EXCLUDED_RECORDS)})",
        file=stream,
    )
    notice = untracked_notice(root)
    if notice:
        print(notice, file=stream)
    return 0

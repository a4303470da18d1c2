"""A memo of the grader's successful builds for one test session, on machines without a GPU.

The fake-GPU tests grade the same few sources again and again: in session 42, 1030 nvcc calls
in one run of the suite on the 2-core CI machine, 506 compiles of only 140 distinct sources
(249 of the fake lab's solution), about 730 s of its workers' time spent compiling sources
already compiled. ``BuildMemo.wrap`` wraps ``grader.build.build``: the first build of an input
is the grader's own, in its sandbox, with its limits; a later build of the same input gets a
copy of that build's folder, the course's paths in its text (make's log, the dependency files
``check_includes`` reads) rewritten to the new grading's.

The input, hashed (sha256): every file of the assembled sources (``src``), the course's
Makefile and ``common/`` (``libcml`` and the headers), the nvcc path, the architecture, the
sandbox as laid out (its kind, what it hides and shows, the course's and the grading's own
folders written as names), the names of the course's objects offered (``reuse``), and
``build.BUILD_TIMEOUT_S``. Only successful builds are kept: a failure, a time-out, a build
over a limit is always the grader's own build. Nor is a build kept whose sources name the
course's folder or use ``.incbin`` (what they read would not be in the input), or whose
dependency files name a file outside the sources, the course's ``common/`` and the system's
and toolkit's folders. Where the memo itself fails (a copy, a write), the build is the
grader's own.

What a copy does not give: the objects' ``-lineinfo`` keeps the first build's paths, which
only compute-sanitizer reads. So the memo is used only where there is no CUDA device (conftest:
CI's machine); a GPU machine's tests build everything. ``CML_TEST_BUILD_MEMO=0`` turns it off.

Several pytest-xdist workers share the memo's folder: an entry is written under a temporary
name and renamed into place, so a reader sees a whole entry or none; two workers building the
same input at once both build, and the second rename is dropped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path

from grader import build

# the build folder's files whose text names the grading's paths (dependency files)
_TEXT_SUFFIXES = (".d",)


def _digest_tree(h, base: Path, label: str, refused: tuple[bytes, ...] = ()) -> bool:
    """Adds every regular file under ``base`` (its path relative to ``base`` and its bytes) to
    ``h``; False where it holds anything else (a link, a device) or a file holding one of
    ``refused``: such an input is not kept."""
    for path in sorted(base.rglob("*")):
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            return False
        if path.is_file():
            data = path.read_bytes()
            if any(r in data for r in refused):
                return False
            h.update(f"{label}/{path.relative_to(base)}\0{len(data)}\0".encode())
            h.update(data)
    return True


def _names(root: Path, src: Path) -> list[tuple[str, str]]:
    """(path, name) for the course's and the grading's own folders, the longer first."""
    pairs = {(str(src.parent), "<grading>"), (str(root), "<course>"),
             (str(root.resolve()), "<course>")}
    return sorted(pairs, key=lambda p: -len(p[0]))


def _sandbox(box, root: Path, src: Path) -> str:
    """The sandbox as laid out, the course's and the grading's folders as names."""
    if box is None:
        return "null"
    return _rewrite(json.dumps(dataclasses.asdict(box), sort_keys=True, default=str),
                    _names(root, src))


def _rewrite(text: str, pairs: list[tuple[str, str]]) -> str:
    for old, new in pairs:
        text = text.replace(old, new)
    return text


class BuildMemo:
    """Successful builds by their input (module docstring), under ``folder``."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.hits = 0
        self._lock = threading.Lock()  # (hits: a batch's gradings build in threads)

    def key(self, root, src, nvcc, arch, box, reuse) -> str | None:
        """The input's digest, or None where it is not to be kept (build as usual)."""
        root, src = Path(root), Path(src)
        h = hashlib.sha256()
        h.update(
            json.dumps(
                [str(nvcc.path) if nvcc else None, arch, _sandbox(box, root, src),
                 sorted(reuse or {}), build.BUILD_TIMEOUT_S]
            ).encode()
        )
        # what a source would read from outside the input: the course's folder, .incbin
        refused = (str(root).encode(), str(root.resolve()).encode(), b"incbin")
        try:
            h.update((root / "Makefile").read_bytes())
            whole = _digest_tree(h, src, "src", refused) and _digest_tree(h, root / "common", "c")
        except OSError:
            return None
        return h.hexdigest() if whole else None

    def wrap(self, real):
        """``real`` (``grader.build.build``) with the memo in front of it."""

        def memo_build(root, src, out_dir, nvcc, arch, box=None, reuse=None):
            key = self.key(root, src, nvcc, arch, box, reuse)
            entry = self.folder / key if key else None
            if entry is not None and (entry / "meta.json").is_file():
                try:
                    return self._copy(entry, root, src, out_dir)
                except (OSError, ValueError, KeyError):  # the grader's own build instead
                    shutil.rmtree(out_dir, ignore_errors=True)
            got = real(root, src, out_dir, nvcc, arch, box, reuse)
            if entry is not None and got.ok and self._inputs_known(root, src, out_dir, nvcc):
                try:
                    self._keep(entry, got, root, src, out_dir)
                except OSError:  # not kept: the next build of it is the grader's own
                    pass
            return got

        return memo_build

    @staticmethod
    def _inputs_known(root, src, out_dir, nvcc) -> bool:
        """Whether every file the dependency files name is in the input (the sources, the
        course's common/) or the system's or the toolkit's."""
        root = Path(root)
        known = [Path(src).resolve(), (root / "common").resolve(), Path("/usr").resolve()]
        if nvcc:
            known.append(Path(nvcc.path).resolve().parent.parent)
        for dep_file in Path(out_dir).glob("*.d"):
            for dep in build._dependencies(dep_file):
                path = Path(dep) if os.path.isabs(dep) else root / dep
                if not any(path.resolve().is_relative_to(k) for k in known):
                    return False
        return True

    def _keep(self, entry: Path, got, root, src, out_dir) -> None:
        tmp = Path(tempfile.mkdtemp(prefix=".new-", dir=self.folder))
        try:
            shutil.copytree(out_dir, tmp / "out", symlinks=True)
            meta = {"root": str(root), "src": str(src), "out": str(out_dir), "log": got.log,
                    "binary": got.binary.name}
            (tmp / "meta.json").write_text(json.dumps(meta))
            tmp.rename(entry)
        finally:  # (renamed: nothing left; another worker's came first, or a failure: removed)
            shutil.rmtree(tmp, ignore_errors=True)

    def _copy(self, entry: Path, root, src, out_dir):
        meta = json.loads((entry / "meta.json").read_text())
        # the longer paths first: a grading's out and src folders share their parent
        pairs = sorted(
            {(meta["out"], str(out_dir)), (meta["src"], str(src)), (meta["root"], str(root)),
             (str(Path(meta["root"]).resolve()), str(Path(root).resolve()))},
            key=lambda p: -len(p[0]),
        )
        out_dir = Path(out_dir)
        shutil.copytree(entry / "out", out_dir, symlinks=True, dirs_exist_ok=True)
        for path in out_dir.rglob("*"):
            if path.suffix in _TEXT_SUFFIXES and path.is_file():
                path.write_text(_rewrite(path.read_text(errors="replace"), pairs))
        with self._lock:
            self.hits += 1
        return build.BuildResult(
            True, out_dir / meta["binary"], out_dir, _rewrite(meta["log"], pairs)
        )


def enabled() -> bool:
    """Whether the test session uses the memo: off with ``CML_TEST_BUILD_MEMO=0``."""
    return os.environ.get("CML_TEST_BUILD_MEMO", "1") != "0"

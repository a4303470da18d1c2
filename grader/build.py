"""Building an assembled submission with the course's own Makefile.

``make -C <root> -s lab-bin LAB_SRC=<assembled> LAB_OUT=<out> [CUDA_ARCH=..] [NVCC=..]``
builds ``<out>/lab`` and one object per source, ``<out>/<name>.o`` (``kernels.cu.o``),
with exactly the flags that build labs/ and solutions/ (docs/design-notes.md, note 2).
The course library is built first, on its own (``make common``): when *it* fails, the
course is broken and grading stops (``GraderError``), whatever the submission holds.

A failed build is a graded result: ``summarize`` keeps about 20 lines, those that say
"error" first, with paths made relative to the assembled folder, so the report reads
``kernels.cu(57): error: identifier "tile" is undefined``. A compiler message that
``diagnose.compiler_hints`` knows (a store to ``__constant__`` memory, more than 64 KiB of
it) gets a line saying what it means and the fix, after the compiler's own lines, in a
failed build's summary and in a successful build's warnings alike.

The dependency files that ``-MD`` writes (``<out>/<name>.d``) show every file the
preprocessor opened, system headers too (``-MMD`` would leave out whatever a source
includes after a linemarker that declares a system header, ``# 1 "/usr/include/stdio.h" 1 3``): ``check_includes`` refuses headers inside the course tree other than
``common/`` and the lab's own (``#include "../../solutions/..."`` would compile the
reference solution into a submission) and headers outside system and CUDA folders.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from grader import run as runner
from grader.assemble import assemble, printable
from grader.diagnose import compiler_hints
from grader.errors import GraderError
from grader.manifest import Lab
from grader.sandbox import Sandbox
from grader.tools import Tool

BUILD_TIMEOUT_S = 600
SUMMARY_LINES = 20
_NOISE = re.compile(
    r"^\s*(make(\[\d+\])?: \*\*\*|make(\[\d+\])?: (Entering|Leaving)|(NVCC|CC|LINK|AR)\s"
    r"|\d+ errors? detected in the compilation)"
)
_ERROR = re.compile(r"\berror\b|undefined reference|multiple definition|fatal", re.I)
_WARNING = re.compile(r"\bwarning( #[\w-]+)?:", re.I)  # nvcc "warning #177-D:", gcc "warning:"
_SYSTEM_PREFIXES = ("/usr/", "/opt/", "/lib/", "/lib64/")


@dataclass
class BuildResult:
    ok: bool
    binary: Path | None
    out_dir: Path
    log: str  # make's output (truncated)
    summary: list[str] = field(default_factory=list)  # readable lines when it failed
    timed_out: bool = False


def _make_args(root: Path, nvcc: Tool | None, arch: str | None) -> list[str]:
    """make's command line for the course at ``root``. ``PYTHON``: the grader's own
    interpreter, which the judge's rules run (``grader.stubs``): the ``python3`` first on
    ``PATH`` may be another (older, without ``tomllib``; a version manager's shim, which
    cost 0.07 s a judge goal here, several a grading); left to the Makefile where the
    interpreter's path is unknown or holds what make's shell would read."""
    args = ["make", "-C", str(root), "-s"]
    if re.fullmatch(r"[\w./+@%:,=~-]+", sys.executable or ""):
        args.append(f"PYTHON={sys.executable}")
    if arch:
        args.append(f"CUDA_ARCH={arch}")
    if nvcc:
        args.append(f"NVCC={nvcc.path}")
    return args


def default_arch(root: Path) -> str | None:
    """The GPU architecture the course's Makefile builds for when none is given
    (``CUDA_ARCH ?= sm_90``), for reports; None when the Makefile does not say."""
    try:
        text = (root / "Makefile").read_text()
    except OSError:
        return None
    m = re.search(r"^CUDA_ARCH\s*\?=\s*(\S+)", text, re.M)
    return m.group(1) if m else None


@contextlib.contextmanager
def _course_build_lock(root: Path) -> Iterator[None]:
    """Held around a make of the course's own outputs (``build/``): two gradings started at
    once (parallel test workers, two instructors' shells) would otherwise run two makes on
    the same judge, one linking what the other is rewriting. An exclusive ``flock`` on
    ``build/.grader-build.lock``; where the course tree is read-only (a cluster's shared
    copy, built beforehand) there is nothing to build and no lock is taken."""
    try:
        (root / "build").mkdir(exist_ok=True)
        lock = open(root / "build" / ".grader-build.lock", "a")
    except OSError:
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def build_common(root: Path, nvcc: Tool | None, arch: str | None) -> None:
    """``make common``; raises GraderError when the course library does not build."""
    with _course_build_lock(root):
        out = runner.run(
            [*_make_args(root, nvcc, arch), "common"],
            timeout_s=BUILD_TIMEOUT_S,
            max_output=64 * 1024,
            limits=False,
            background=True,
        )
    if not out.ok:
        log = (out.stdout + out.stderr).strip().splitlines()
        raise GraderError(
            "the course library did not build (make common "
            f"{out.describe()}):\n" + "\n".join(log[-20:])
        )


def _build_dir(root: Path, arch: str | None) -> str:
    """``build`` for the Makefile's default architecture, ``build/<arch>`` for another."""
    return "build" if arch in (None, default_arch(root)) else f"build/{arch}"


def build_judge(root: Path, nvcc: Tool | None, arch: str | None, lab_folder: str) -> Path:
    """``make <build>/<lab>/judge``: the lab's pristine harness without student code, the
    course's process of a judged run (grader/stubs.py, docs/protocol.md). Built from the
    course tree, outside the sandbox, once per course and architecture (``build/`` for the
    Makefile's default, ``build/<arch>/`` for another, as ``make build-sm80`` does). Raises
    GraderError when it does not build: the course is broken."""
    build_dir = _build_dir(root, arch)
    target = f"{build_dir}/{lab_folder}/judge"
    args = _make_args(root, nvcc, arch)
    if build_dir != "build":
        args.append(f"BUILD={build_dir}")
    with _course_build_lock(root):
        out = runner.run(
            [*args, target],
            timeout_s=BUILD_TIMEOUT_S,
            max_output=64 * 1024,
            limits=False,
            background=True,
        )
    judge = root / target
    if not out.ok or not judge.is_file():
        log = (out.stdout + out.stderr).strip().splitlines()
        raise GraderError(
            f"the judge of {lab_folder} did not build (make {target} {out.describe()}):\n"
            + "\n".join(log[-20:])
        )
    return judge


def pristine_objects(
    root: Path, arch: str | None, lab_folder: str, student_files: tuple[str, ...]
) -> dict[str, tuple[Path, Path]]:
    """{source name: (the course's source, its object)} for the lab's sources that are not
    student files, as the course
    built them for the judge (``<build>/<lab>/student/<name>.o``, after ``build_judge``), so a
    grading compiles only the student's files (issue 15). An object is offered only when it
    is at least as new as every file its dependency file names and none of those is a student
    file (a header the student writes would change it); otherwise the grading compiles that
    source itself, as before."""
    lab_dir = root / "labs" / lab_folder
    built = root / _build_dir(root, arch) / lab_folder / "student"
    offered = {}
    for source in sorted([*lab_dir.glob("*.cu"), *lab_dir.glob("*.c")]):
        name = source.name
        obj, dep = built / f"{name}.o", built / f"{name}.d"
        if name in student_files or not obj.is_file() or not dep.is_file():
            continue
        deps = [Path(d) if os.path.isabs(d) else root / d for d in _dependencies(dep)]
        deps.extend((lab_dir / "data").glob("*"))  # what .incbin reads (lab 3.5)
        try:
            newest = max(d.stat().st_mtime for d in deps) if deps else 0.0
        except OSError:
            continue
        if any(d.name in student_files and d.parent.resolve() == lab_dir.resolve() for d in deps):
            continue
        if obj.stat().st_mtime >= newest:
            offered[name] = (source, obj)
    return offered


def _reuse(objects: dict[str, tuple[Path, Path]], src: Path, out_dir: Path) -> None:
    """Copies each offered object into out_dir when the assembled source is byte for byte
    the course's, dated now so that make keeps it."""
    for name, (pristine, obj) in objects.items():
        try:
            same = (src / name).read_bytes() == pristine.read_bytes()
        except OSError:
            same = False
        if same:
            target = out_dir / obj.name
            shutil.copyfile(obj, target)
            os.utime(target)


def summarize(log: str, src: Path, out_dir: Path, limit: int = SUMMARY_LINES) -> list[str]:
    """The lines of a failed build worth showing: errors first, paths made relative, each
    line's control characters escaped (``assemble.printable``: the compiler quotes the
    student's source, ``#warning`` and ``#error`` text included)."""
    lines = []
    for raw in log.splitlines():
        line = raw.rstrip()
        for prefix, repl in ((str(src) + "/", ""), (str(out_dir) + "/", ""), (str(src), ".")):
            line = line.replace(prefix, repl)
        if not line.strip() or _NOISE.match(line):
            continue
        lines.append(printable(line))
    is_error = [bool(_ERROR.search(ln)) for ln in lines]
    errors = [i for i, e in enumerate(is_error) if e]
    if not errors:
        return lines[:limit]
    context = []  # up to 3 lines after each error (nvcc prints the source line and a caret)
    for i in errors:
        j = i + 1
        while j < len(lines) and j <= i + 3 and not is_error[j]:
            context.append(j)
            j += 1
    chosen = set(errors[:limit])
    for j in context:
        if len(chosen) >= limit:
            break
        chosen.add(j)
    return [lines[i] for i in sorted(chosen)]


def failure_summary(log: str, src: Path, out_dir: Path) -> list[str]:
    """A failed build's lines for the report: ``summarize``'s, then what each compiler
    message that ``diagnose.compiler_hints`` knows means ("=> ...")."""
    return summarize(log, src, out_dir) + compiler_hints(
        summarize(log, src, out_dir, limit=10_000)
    )


def warnings(log: str, src: Path, out_dir: Path, limit: int = 6) -> list[str]:
    """The compiler's warnings in a successful build's log (paths made relative, control
    characters escaped as ``summarize`` does), so a student sees them in the report as they
    would in their own build, then what each message ``diagnose.compiler_hints`` knows
    means."""
    lines = summarize(log, src, out_dir, limit=10_000)
    found = [ln for ln in lines if _WARNING.search(ln)]
    more = len(found) - limit
    shown = found[:limit] + ([f"... and {more} more warnings"] if more > 0 else [])
    return shown + compiler_hints(lines)


def build(
    root: Path,
    src: Path,
    out_dir: Path,
    nvcc: Tool | None,
    arch: str | None,
    box: Sandbox | None = None,
    reuse: dict[str, tuple[Path, Path]] | None = None,
) -> BuildResult:
    """Builds ``src`` into ``out_dir``; a failure is a result, not an exception.

    The build runs with the limits of a run of submission code (``grader.run``: time,
    file size, a cgroup's processes and memory) and in the sandbox ``box`` when one is
    given: ``out_dir`` is then the only writable place, ``src`` is readable, ``solutions/``
    is hidden — the preprocessor (``#include``) and the assembler (``.incbin``) read any
    file the source names, so outside the sandbox a submission could compile a solution
    into itself (``check_includes`` catches headers, not ``.incbin``).

    ``reuse``: ``pristine_objects`` — the course's own objects of the lab's other sources,
    copied in so that only the student's files are compiled."""
    out_dir.mkdir(parents=True, exist_ok=True)
    if reuse is not None:
        _reuse(reuse, src, out_dir)
    out = runner.run(
        [*_make_args(root, nvcc, arch), "lab-bin", f"LAB_SRC={src}", f"LAB_OUT={out_dir}"],
        timeout_s=BUILD_TIMEOUT_S,
        cwd=str(out_dir),
        max_output=256 * 1024,
        sandbox=box,
        readable=[str(src)],
        background=True,  # grader.run: a timed run of another grading goes first
    )
    log = out.stdout + out.stderr
    binary = out_dir / "lab"
    if out.ok and binary.is_file():
        return BuildResult(True, binary, out_dir, log)
    if out.kind == "timeout" or out.over_limit:  # the reason, before what the log holds
        summary = [f"the build {out.describe()}"]
    else:
        summary = failure_summary(log, src, out_dir) or [f"make {out.describe()}"]
    return BuildResult(False, None, out_dir, log, summary, out.kind == "timeout")


# skeleton_builds' results, one a (course, lab, architecture, sandbox) in this process
_SKELETONS: dict[tuple, BuildResult] = {}
_SKELETONS_LOCK = threading.Lock()


def skeleton_builds(
    root: Path,
    lab: Lab,
    nvcc: Tool | None,
    arch: str | None,
    box: Sandbox | None,
    reuse: dict[str, tuple[Path, Path]] | None = None,
) -> BuildResult:
    """The lab's untouched skeleton (the student files of ``labs/<lab>/``) built as a
    submission's files are (``build``: the same toolchain, sandbox ``box`` and limits): whether
    anything builds here at all. Asked where a submission's build failed: a skeleton that
    fails too makes that failure the machine's, not the student's (a compiler, or the host
    compiler nvcc calls, outside what the sandbox shows: an instructor's trial in session 39
    got a final 0 for every student of a class, the untouched skeleton's included). Built once
    a process for each (course, lab, architecture, sandbox kind), under a lock, so a batch's
    failing gradings wait for the one build; the result is kept (but a build out of time: its
    paths point into a removed folder, so only ``ok`` and ``summary`` are to be read). Raises
    GraderError where the skeleton cannot even be assembled (a course fault)."""
    key = (
        str(Path(root).resolve()), lab.name, arch, box.kind if box else None,
        str(nvcc.path) if nvcc else None,
    )
    with _SKELETONS_LOCK:
        if key not in _SKELETONS:
            with tempfile.TemporaryDirectory(prefix="grader-skeleton-") as tmp:
                asm = assemble(lab, Path(root) / "labs" / lab.name, Path(tmp))
                if not asm.ok:
                    raise GraderError(
                        f"the course's skeleton of {lab.name} cannot be assembled: "
                        + "; ".join(asm.problems)
                    )
                got = build(root, asm.src, Path(tmp) / "out", nvcc, arch, box, reuse)
                if got.ok or not got.timed_out:  # a build out of time may pass next time
                    _SKELETONS[key] = got
                return got
        return _SKELETONS[key]


def _dependencies(dep_file: Path) -> list[str]:
    text = dep_file.read_text(errors="replace").replace("\\\n", " ")
    deps = []
    for line in text.splitlines():
        if ":" not in line:
            continue
        target, _, rest = line.partition(":")
        if target.strip().endswith(".o"):
            deps.extend(rest.split())
    return deps


def check_includes(
    root: Path, src: Path, out_dir: Path, student_files: tuple[str, ...], nvcc: Tool | None
) -> list[str]:
    """Problems with the headers the student files included (one line each)."""
    root = root.resolve()
    allowed = [src.resolve(), (root / "common").resolve()]
    if nvcc:
        allowed.append(Path(nvcc.path).resolve().parent.parent)
    problems = []
    for name in student_files:
        dep_file = out_dir / f"{name}.d"
        if not dep_file.is_file():
            continue
        for dep in _dependencies(dep_file):
            path = Path(dep) if os.path.isabs(dep) else root / dep
            resolved = path.resolve()
            if resolved == (src / name).resolve():
                continue
            inside = any(resolved.is_relative_to(a) for a in allowed)
            in_course = resolved.is_relative_to(root)
            system = str(resolved).startswith(_SYSTEM_PREFIXES)
            if inside or (system and not in_course):
                continue
            problems.append(
                f"{name} includes {printable(dep)}: only the lab's own headers, common/ and "
                "system or CUDA headers may be included"
            )
    return problems


def student_objects(out_dir: Path, student_files: tuple[str, ...]) -> dict[str, Path]:
    """{student file: its object} for the compiled student files (.cu, .c)."""
    objects = {}
    for name in student_files:
        obj = out_dir / f"{name}.o"
        if name.endswith((".cu", ".c")):
            if not obj.is_file():
                raise GraderError(f"the build made no object {obj.name} for {name}")
            objects[name] = obj
    return objects

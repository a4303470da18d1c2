"""Grading a class: ``python3 -m grader batch LABDIR SUBMISSION... --out DIR``.

Each SUBMISSION is one student's folder, ``.zip``, ``.tar.gz`` or ``.tgz``; the student's
id is its name without the extension (``alice.tar.gz`` → ``alice``). Archives are
extracted by ``grader.archives`` into a fresh temporary folder per student; an unsafe
archive (zip slip, links, a bomb), or one of a format not extracted (``.7z``,
``.tar.bz2``: ``archives.OTHER_ARCHIVE_SUFFIXES``), is not an error but a graded row, status
``rejected: <why>``, scoring 0. The student files may sit inside one wrapping folder (found
by the files without which nothing can be graded: a missing report costs only its points).

Outputs in DIR, every file written atomically (a temporary file in the same folder, then
``os.replace``)::

    gradebook.csv           id, <exercise>..., total, max, lost, pending, status, gpu
                            (one row per student of this batch; lost: the automatic points
                            lost for certain, pending: those waiting for checks that did
                            not run, both empty after the grader's own error; gpu: the card
                            it was graded on); a lab with a written report ([report]) adds
                            "report" (its automatic filled points) before total and
                            "manual_pending" (the points held for the instructor) after
                            pending
    <id>/report.json        the grader's JSON report (grader.report)
    <id>/report.txt         the text report
    <id>/results.json       Gradescope's results.json (grader.gradescope)
    <id>/batch.json         the gradebook row (written last: "this student is done"):
                            "total" the points earned (so far, when the status is
                            "partial ..."), "pending_points" the points not known yet (0:
                            the grade is final)
    <id>/history/<when>/    the four files above as an earlier run left them, copied
                            before the student was graded again (grader.history; <when>:
                            the UTC time its batch.json was written, 20261206T131500Z)

Status: "graded"; "partial (no GPU)" or "partial (checks not run)" when some checks could
not run or were left out (not a final grade: its exercise and total cells are left empty,
so that a spreadsheet or LMS import never takes a score so far for a grade; the student's
batch.json keeps the points earned so far and ``pending_points``, the progress line reads
``15 so far of 17, 2 pending``, and report.txt and report.json have it, with ``"final":
false``); "rejected: <why>"; "incomplete: <what is missing>"; "build failed"; "symbol
check failed"; "start-up failed"; "error: <message>" when the grader itself failed on that
submission (retried on the next run).

**Resuming.** A student whose ``batch.json`` and reports exist in DIR is skipped unless
``--force`` (or ``--regrade`` with their id), or unless their grade is not final ("partial
..."): it is graded again, so the same command run again on the GPU machine completes a
class first graded without one; or unless their submission changed since (``digest``: a
fixed resubmission at the same id).
``gradebook.csv`` is rebuilt from the ``*/batch.json`` in DIR of this batch's submissions
after each submission and at the end, so an interrupted batch leaves a complete gradebook
of the students done so far, and running the same command again continues.

**The gradebook is this batch's class.** DIR may hold results of students this batch does
not name (an earlier batch over other submissions: a trial run, a student who withdrew, a
mistyped glob). They are left out of ``gradebook.csv`` — an instructor imports the file
into the LMS as the grades of the submissions just graded, and a stale row would be
imported as a grade — and a line before the closing one names them; their folders stay
in DIR. To grade a few students again, name every submission with ``--regrade ID`` for
each: the others are kept and listed. After grading a class in parts into one DIR, or
regrading a few students with ``--force`` over those few, run the batch over every
submission once more: those already graded are skipped, and the gradebook lists them all.
(The Slurm jobs pass the whole class as the ``--roster`` of each task's batch:
``grader.slurm``.)

**Parallelism.** Gradings run in a thread pool (``--jobs``, default one per CPU the grader
may use, ``default_jobs``, or fewer where the GPU's memory holds fewer,
``gradings_in_gpu_memory``).
Builds and the untimed GPU runs (device probe, correctness, compute-sanitizer) of
different submissions run side by side; a performance run has the GPU to itself, since
concurrent kernels would corrupt its timing: one ``grader.gpu_lock.GpuLock`` for the class
(``grade.Options.gpu_lock``), shared for untimed runs, exclusive for the measuring part of
timed ones: a timed run's judge makes its inputs and references under the shared hold and
waits at its gate (``--gate``) until the grader holds the GPU alone (``GpuLock.upgrade``),
so set-ups run beside other submissions' untimed runs instead of inside the exclusive hold
(a judge waiting at its gate stops new untimed runs; the timings then follow one another).
A grading's timed run is set up beside its own untimed runs, from the device probe on, and
passes its gate once they are done (note 45): its shared holds overlap from the probe to the
gate, so a queue of timed runs cannot come between its untimed runs and its set-up.
This keeps
the one grading pipeline of ``grader.grade`` instead of a second, split one. The course
library is built once up front, so parallel builds only read it. Threads, not processes:
the work is in child processes (make, the lab binary), and one lock in one process is easy
to get right.

**A disturbed timing is timed again.** Within a grading, a timed run whose samples spread
(its median over 1.10 times its fastest tenth, ``plausible.SPREAD_LIMIT``) is made once more,
at its next turn for the GPU (docs/design-notes.md, note 33); the timed run's processes have
CPUs of their own (``grader.cpus``), so the other gradings' CPU work does not slow them.
Across the class: every timed run of an exercise times the same course code (the baseline,
the judge's copy, cuBLAS in 3.3d) on the same sizes, so these figures agree within a few per
cent. A submission whose figures stray from the class's median (``grader.class_figures``) is
graded again, alone, after the others; its row keeps
why (``retimed``), and says so again where the second grading strays too
(``retimed_again``): grade it once more on an idle GPU. On the H200 two of 64 timed runs of
a batch of 16 strayed, with the GPU lock held (docs/design-notes.md, note 28). Only its
timed runs are made again (``grade.Options.retime``): the second grading keeps the first's
correctness and sanitizer parts, which do not depend on the GPU being the run's alone (the
same seeds give the same results; a data race may not, and is not asked twice), builds the
submission again (only its own files: some seconds) and makes its static checks and device
probe again, so its reports are the ones a whole grading gives but for their timings, for a
few seconds per stray instead of a whole grading (an H100's class of 100: 13 s and 35 s of
tail for two strays, design notes 80-81). A stray of its own doing is not graded again
(``class_figures.own_doing``, note 83): where each straying exercise's baseline, timed by the
judge before the student's process started, was as fast as the class's and then ran slower
among the student's repetitions (by ``plausible.disturbed``'s rule, which already scores no
performance for the run), its own process kept the GPU busy and would again. A line names
it, with the straying and why it is its own; its row keeps both (``strayed_own``,
``own_doing``) and its grade stands (timing again a hostile fixture's process left behind
cost an H100's class of 100 24 s of tail).

**A timed judge out of GPU memory is graded again alone.** A grading whose timed judge ran
out of GPU memory beside other gradings (during its timing, after its gate; or before it
where note 84's one retry is spent: ``grade.TimedOutOfMemory``) is an "error:" row until the
class and its strays are done; then it is graded again, alone, its timed runs only
(``grade.Options.retime``), with a line saying why, its row keeping it
(``judge_out_of_memory``). Alone (``grade.Options.alone``, a stray's grading again too), a
judge out of memory after its gate is the student's process's doing: that exercise's
performance is lost with a line in its report naming the cause and the fix, and the GPU
memory its process held where ``nvidia-smi`` lists it (docs/design-notes.md, note 88).
So is, whole (its correctness in question), a grading whose untimed judge ran out of GPU
memory, or whose correctness case's process did with the GPU nearly full by the judge's own
count (``harness.crowded_out_of_memory``: the hog's memory, not the student's words; its row
keeps ``judge_out_of_memory`` or ``process_out_of_memory``); alone, that failure stands
(note 89). ``grade.Crowded`` is each such first grading's error.

``GRADER_UNTIMED_AT_ONCE=K`` lets at most K gradings be in their untimed runs at once
(``untimed_at_once``; the others wait for a slot before their device probe): fewer processes
with a CUDA context on the GPU, an experiment's knob (docs/design-notes.md, note 73).
``GRADER_DRAIN_AT=W[,T]`` starts a drain for the timed runs only once W of them wait, or
the first has waited T seconds (default 30), or the GPU is free: fewer drains, the holds back
to back (``grader.gpu_lock.drain_policy``; note 77), another experiment's knob.
``GRADER_DRAIN_STOP_AFTER=S`` stops an untimed run that has kept a drain waiting S seconds and
makes it again from its start once the timed runs have had the GPU (the same seeds and inputs,
a time limit of its own, never stopped twice: the same grades): shorter drains
(``grader.gpu_lock.drain_stop_after``; note 78), a third experiment's knob.
``GRADER_TIMED_SETUPS_AT_ONCE=N`` lets at most N gradings' timed runs be set up or wait at
their gates at once, each holding its judge's set-up in GPU memory (``timed_setups_at_once``,
``grade.Options.timed_setup_slots``): a grading's early timed run (note 45) takes a slot
without waiting or is not made early, and a timed run made after the untimed runs waits for
one before it takes the shared hold; a fourth experiment's knob, against the GPU memory
that ran out at ``--jobs 16`` on an H100 (note 87).
One table lists the four (``KNOBS``: what reads each, and ``batch --help``'s list); each row
records those set as they were set (``knobs``); once the students to grade are known, a
line says what each set knob does in this batch (counting the gradings that run at once,
``min(--jobs, students to grade)``), and one names those that cannot act: with --no-perf
the three of timed runs, with nothing to grade every one (``knob_lines``).

Seeds: ``--seed S`` derives every run's seed from S, the same for every student, so
grading the same batch twice gives identical scores; without it each grading draws fresh
seeds.

Exit status: 0 when every submission was graded (whatever the scores); 2 on usage errors
or when the grader failed on some submission ("error:" rows); 3 when some grade is not
final (runtime checks could not run, e.g. no GPU, or were left out).
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import difflib
import hashlib
import io
import json
import os
import socket
import stat
import sys
import tempfile
import textwrap
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from grader import (
    archives,
    cgroup,
    class_figures,
    course,
    cpus,
    gpu_lock,
    gradescope,
    harness,
    history,
    manifest,
    report,
    sandbox,
    tools,
)
from grader import build as builder
from grader import grade as grading
from grader.errors import GraderError
from grader.files import write_atomic
from grader.gpu_lock import GpuLock
from grader.results import Grade
from grader.status import (
    PARTIAL_NO_GPU,
    PARTIAL_NOT_RUN,
    ROW_ERROR,
    Status,
    is_final,
    row_is_error,
    row_is_final,
)

ROW_SCHEMA = 1
GRADEBOOK = "gradebook.csv"
STUDENT_FILES = ("report.json", "report.txt", "results.json", "batch.json")


def _lost(row: dict) -> float:
    """The automatic points a row lost for certain, final or not: its maximum less the
    points earned and those pending (the gradebook's "lost", the progress line's)."""
    return round(max(0.0, row["max"] - row["total"] - (row.get("pending_points") or 0)), 2)


@contextlib.contextmanager
def _thread_named(name: str):
    """The current thread renamed ``name`` while the block runs: the GPU lock's trace names
    the thread of each hold, so a drain is told by the grading it waited for
    (bench/throughput/lock_trace.py)."""
    me = threading.current_thread()
    before, me.name = me.name, name
    try:
        yield
    finally:
        me.name = before


@dataclass
class Submission:
    id: str
    path: Path
    kind: str  # "dir", "zip", "tar", or "other" (an archive never extracted: ``problem``)
    # why the submission cannot be graded, found before any grading (``collect``: a folder
    # holding several copies of the student's files): its row is "rejected: ..."
    problem: str | None = None


def digest(path: Path, required: tuple[str, ...] = ()) -> str:
    """What a submission holds, as a SHA-256 (hex), so that a re-run can tell a changed
    submission from the one graded (an instructor's trial, session 19: a fixed resubmission
    at the same id kept its 0). ``path`` is followed if it is itself a link (grading follows
    it). An archive: its bytes (up to ``archives.MAX_TOTAL_BYTES``). A folder: first the
    ``required`` student files where the grade finds them (``archives.find_student_files``),
    in full; then the path and size of every other entry not named ".*" (a ``.git`` folder
    that git rewrites changes nothing graded), walked without following links, at most
    ``archives.MAX_MEMBERS`` entries and 32 levels deep. Only regular files are opened
    (never a FIFO or a device), without following a link, for at most the size they had.
    Anything unreadable counts by its name; the digest never raises."""
    h = hashlib.sha256()

    def content(p: Path, limit: int) -> None:
        try:
            fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            h.update(b"unreadable\0")
            return
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                h.update(b"not a file\0")
                return
            h.update(f"{st.st_size}\0".encode())
            left = min(st.st_size, limit)
            while left > 0:
                block = os.read(fd, min(left, 1 << 20))
                if not block:
                    break
                h.update(block)
                left -= len(block)
        except OSError:
            h.update(b"unreadable\0")
        finally:
            os.close(fd)

    def name(text: str) -> None:
        h.update(text.encode("utf-8", "surrogateescape") + b"\0")

    try:
        top = path.resolve()
        if not top.is_dir():
            name(top.name)
            content(top, archives.MAX_TOTAL_BYTES)
            return h.hexdigest()
        held = archives.find_student_files(top, required) if required else top
        for n in required:
            name(f"student file {n}")
            content(held / n, archives.MAX_TOTAL_BYTES)
        seen, stack = 0, [(top, 0)]
        while stack and seen < archives.MAX_MEMBERS:
            folder, depth = stack.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
            except OSError:
                name(f"unreadable {folder.relative_to(top).as_posix()}")
                continue
            for e in entries:
                if e.name.startswith(".") or seen >= archives.MAX_MEMBERS:
                    continue
                seen += 1
                rel = Path(e.path).relative_to(top).as_posix()
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    name(f"unreadable {rel}")
                    continue
                if stat.S_ISLNK(st.st_mode):
                    name(f"link {rel} -> {os.readlink(e.path)}")
                elif stat.S_ISDIR(st.st_mode):
                    name(f"folder {rel}")
                    if depth < 32:
                        stack.append((Path(e.path), depth + 1))
                else:
                    name(f"entry {rel} {st.st_size}")
    except Exception as e:  # never a batch's end: a digest that differs grades it again
        name(f"digest failed: {type(e).__name__}")
    return h.hexdigest()


def _holders(path: Path, required: tuple[str, ...]) -> list[str]:
    """The folders of ``path`` that each hold the ``required`` student files (or a single
    folder wrapping them), sorted, where ``path`` itself holds none of them (nor does a
    single folder wrapping them) and two or more of its folders do; [] otherwise."""
    if not required or archives.find_student_files(path, required) != path or any(
        (path / n).is_file() for n in required
    ):
        return []
    holders = sorted(
        e.name
        for e in path.iterdir()
        if e.is_dir()
        and not e.is_symlink()
        and all((archives.find_student_files(e, required) / n).is_file() for n in required)
    )
    return holders if len(holders) >= 2 else []


def _shown(holders: list[str]) -> str:
    """The first three of ``holders`` (``_holders``), for a message."""
    return ", ".join(holders[:3]) + (", ..." if len(holders) > 3 else "")


def _class_folder_error(text: str, path: Path, required: tuple[str, ...]) -> str | None:
    """Why the folder ``path`` (named ``text``), the one submission named, looks like a
    class's folder rather than one submission (``_holders``); None when it does not."""
    holders = _holders(path, required)
    if not holders:
        return None
    return (
        f"submission {text} holds no {required[0]}, but {len(holders)} of its folders do "
        f"({_shown(holders)}): it looks like the class's folder; name each submission, e.g. "
        f"{text.rstrip('/')}/*"
    )


def _several_copies(path: Path, required: tuple[str, ...]) -> str | None:
    """Why the student's folder ``path``, one of a class's, cannot be graded: it holds
    several copies of the ``required`` files, in folders of its own (``_holders``: a student
    who uploaded two versions); None when it does not."""
    holders = _holders(path, required)
    if not holders:
        return None
    return (
        f"the submission holds no {required[0]} of its own but {len(holders)} folders that "
        f"each do ({_shown(holders)}): which to grade is not known; hand in one copy of your files"
    )


def collect(
    paths: list[str], required: tuple[str, ...] = (), err=None, one: bool | None = None
) -> list[Submission]:
    """The submissions named on the command line; GraderError (exit 2) for a path that does
    not exist, two with the same id, or, where ``one`` submission is named (default: a
    single path), a file that is neither a folder nor an archive and (with ``required``, the
    lab's student files) a folder that holds other submissions rather than one. Among
    several (a class's ``subs/*``: an instructor's trial, session 36, saw one student's
    upload stop the class), such a file is left out with a line on ``err`` (a README.txt
    beside the submissions), and such a folder is that student's submission, rejected
    (``Submission.problem``: its row says why)."""
    one = len(paths) == 1 if one is None else one
    subs: dict[str, Submission] = {}
    for text in paths:
        path = Path(text)
        problem = None
        if path.is_dir():
            kind = "dir"
            if one:
                found = _class_folder_error(text, path, required)
                if found:
                    raise GraderError(found)
            else:
                problem = _several_copies(path, required)
        elif path.is_file() and archives.archive_kind(path):
            kind = archives.archive_kind(path)
        elif path.is_file() and archives.other_archive(path) and not one:
            kind = "other"  # never extracted: its row is rejected, naming what is taken
            problem = (
                f"a {archives.other_archive(path)} archive, which the grader does not "
                "extract: hand in a folder, .zip, .tar.gz or .tgz"
            )
        elif path.exists():
            why = f"{text} is not a folder, .zip, .tar.gz or .tgz"
            if one:
                raise GraderError(f"submission {why}")
            out = err or sys.stderr
            print(f"batch: {why}: left out of the class (not a submission)", file=out)
            continue
        elif any(c in text for c in "*?["):
            raise GraderError(
                f"submission {text} does not exist: a pattern the shell matched to no file "
                "(is the class folder's path right?)"
            )
        else:
            raise GraderError(f"submission {text} does not exist")
        sid = archives.strip_suffix(
            path.resolve().name if kind == "dir" else path.name, other=kind == "other"
        )
        if kind == "other" and (
            not sid or sid.startswith(".") or sid == GRADEBOOK or sid in subs
            or any(archives.strip_suffix(Path(p).name) == sid for p in paths if p != text)
        ):  # a stray beside the student's real hand-in, or no student's name: not a row
            print(f"batch: {text} is an archive of a format the grader does not extract, "
                  "beside a submission of the same id or with no student's name: left out "
                  "of the class", file=err or sys.stderr)
            continue
        if not sid or sid.startswith(".") or sid == GRADEBOOK:
            raise GraderError(f"submission {text}: '{sid}' cannot be a student id")
        if sid in subs:
            raise GraderError(
                f"two submissions have the id '{sid}': {subs[sid].path} and {path} (name "
                "each student once: a student's id is the file or folder name without its "
                "extension)"
            )
        subs[sid] = Submission(sid, path, kind, problem)
    return list(subs.values())


def status_of(g: Grade) -> str:
    """The gradebook status of a grading (rejected archives are named by the caller). A
    grade that is not final is "partial ...", also when some points are already lost or a
    step failed: a failed device probe (the judge's) leaves every runtime point pending. A
    step that zeroes the submission (assemble, build, symbols, the lab binary's start-up)
    leaves nothing pending, and its status names it."""
    if not is_final(g):
        device = g.step("device")
        return PARTIAL_NO_GPU if device and device.status == Status.NOT_RUN else PARTIAL_NOT_RUN
    failed = {s.name: s for s in g.steps if s.status == Status.FAILED}
    if "assemble" in failed:
        return "incomplete: " + "; ".join(failed["assemble"].messages)
    if "build" in failed:
        return "build failed"
    if "symbols" in failed:
        return "symbol check failed"
    if "device" in failed:
        return "start-up failed"
    return "graded"


def _row(
    sub: Submission, lab: manifest.Lab, g: Grade | None, status: str, elapsed: float, held: str,
    options: dict | None = None,
):
    """The gradebook row of one student (``<id>/batch.json``): ``total`` and ``exercises``
    hold the points earned, so far when ``pending_points`` (automatic points not known yet,
    the status then "partial ...") is not 0; ``held``: the submission's ``digest``;
    ``options``: what it was graded with (``_options_of``)."""
    return {
        "batch_row": ROW_SCHEMA,
        "id": sub.id,
        "lab": lab.id,
        "submission": str(sub.path),
        "digest": held,  # what it held when graded (digest): a change grades it again
        "status": status,
        "exercises": {ex.name: ex.total for ex in g.exercises} if g else {},
        "report": g.report.points if g and g.report else None,
        "total": g.total if g else 0,
        "pending_points": g.pending_points if g else 0,
        "max": g.max if g else lab.max_points,
        "manual_pending": lab.manual_points,
        "seed": g.seed if g else None,
        "exit_code": g.exit_code if g else 2,
        "elapsed_s": round(elapsed, 3),
        "options": options,  # as given: "arch": null is the build's default
        # the architecture its build targeted (the report's "arch: sm_90"; an instructor's
        # trial read options' null as none)
        "arch": (g.arch or None) if g else None,
        # the GPU it was graded on (the judge's probe; None without one): its thresholds are
        # that GPU's where lab.toml has them (design note 76), so a mixed cluster shows it
        "gpu": ((g.device or {}).get("name") or None) if g else None,
        # the source warnings of its report (no points): the gradebook counts them, so that
        # an instructor sees which reports to read (an instructor's trial, session 46)
        "warnings": len({w for ex in g.exercises for w in ex.warnings}) if g else 0,
    }


def final_row(folder: Path) -> dict | None:
    """The row of a student graded in ``folder`` for good: its reports and ``batch.json``
    there, neither a grader error (retried) nor a partial grade (no GPU, checks left out:
    graded again, so that running the same command on the GPU machine completes it); else
    None."""
    if not _has_reports(folder):
        return None
    row = _read_row(folder / "batch.json")
    if row is None or row_is_error(row["status"]) or not row_is_final(row["status"]):
        return None
    return row


def _has_reports(folder: Path) -> bool:
    """Whether a student's folder of ``--out`` holds every file a grading writes there."""
    return all((folder / name).is_file() for name in STUDENT_FILES)


def changed(row: dict, sub: Submission, required: tuple[str, ...]) -> bool:
    """Whether ``sub`` holds something else than when ``row`` was written (its ``digest``
    over the lab's ``required`` student files differs); False for a row from before digests
    (``Batch.run`` counts those)."""
    return row.get("digest") not in (None, digest(sub.path, required))


def _read_row(path: Path) -> dict | None:
    try:
        row = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(row, dict) or row.get("batch_row") != ROW_SCHEMA:
        return None
    return row


def _closing_line(
    statuses: list[str], gradebook: Path, listed: int | None = None, roster: int | None = None
) -> str:
    """``batch: 30 students: 27 graded, 2 build failed, 1 partial (no GPU) — not final;
    gradebook: grades/gradebook.csv``; with a roster of which the gradebook lists only
    ``listed`` so far (a Slurm task's shard), the gradebook is named as that."""
    counts: dict[str, int] = {}
    for status in statuses:
        key = (
            status.split(":")[0]
            if status.startswith((ROW_ERROR, "rejected:", "incomplete:", "not graded:"))
            else status
        )
        counts[key] = counts.get(key, 0) + 1
    parts = [f"{n} {key}" for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    noun = "student" if len(statuses) == 1 else "students"
    text = f"batch: {len(statuses)} {noun}: {', '.join(parts) or 'none'}"
    if not all(map(row_is_final, statuses)):
        # what finishes them: a GPU for "partial (no GPU)"; for "partial (checks not run)" it
        # depends (--no-sanitizer or --no-perf given, a tool missing), so the reports say (g138,
        # session 42: a batch with --no-sanitizer was told to run again with a GPU it had)
        todo = [
            hint
            for status, hint in (
                (PARTIAL_NO_GPU, "run again on a machine with a GPU"),
                (PARTIAL_NOT_RUN, "each report's NOT RUN lines say which checks did not run "
                 "and why"),
            )
            if status in statuses
        ]
        text += (
            " — partial grades are not final (their cells are empty; "
            + "; ".join(todo or ["grade them again"]) + ")"
        )
    if statuses.count("build failed") > 1 and not any(
        s == "graded" or not row_is_final(s) for s in statuses
    ):  # none built and ran (rejected, incomplete or error rows beside them: a review)
        # the whole class failed one way: more likely the wrong LABDIR than the class (an
        # instructor's trial graded a 3.3 class against lab 3.4: every row final, exit 0)
        text += (
            " — every build failed: is LABDIR the lab they handed in? (each report's build "
            "step shows the compiler's first error)"
        )
    if listed is not None and roster is not None and listed < roster:
        return (
            f"{text}; gradebook so far, {listed} of the class's {roster} (the others are "
            f"graded elsewhere or not yet): {manifest.display_path(gradebook)}"
        )
    return f"{text}; gradebook: {manifest.display_path(gradebook)}"


def name_list(ids: list[str], shown: int = 10) -> str:
    """``a, b, c`` for a line of the batch's: the first ``shown`` ids, and how many more."""
    more = f", … ({len(ids) - shown} more)" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more


def _stops_line(stops: int, rows) -> str:
    """The batch's closing line about ``GRADER_DRAIN_STOP_AFTER`` where it is set: how many
    times a grading's untimed runs were stopped for a drain (``GpuLock.stops``), none
    included, and why none could be where no row was graded on a GPU (an instructor's trial:
    the opening line alone read as if stops happened on a machine without one)."""
    if not any(r.get("gpu") for r in rows):
        return (
            f"batch: no untimed run was stopped ({gpu_lock.STOP_ENV}): no student was graded "
            "on a GPU here, so no timed run waited for a drain"
        )
    if not stops:
        return f"batch: no untimed run was stopped for a drain ({gpu_lock.STOP_ENV})"
    return (
        f"batch: {stops} time{'s' if stops > 1 else ''} a grading's untimed runs were "
        f"stopped for a drain and made again after it ({gpu_lock.STOP_ENV}): a stopped run's "
        "result is never read, and the run made again has the same inputs and seed"
    )


def _stop_line(stop_after_s: float) -> str:
    """The batch's line about ``GRADER_DRAIN_STOP_AFTER`` (design note 78). Where runs have no
    cgroup of their own no run is ever stopped (``grade.Grading._stop_check``: a killed run's
    processes could outlive it on the GPU), and the line says so: a measurement made there
    is one without stops."""
    line = (
        f"batch: an untimed run that keeps a drain waiting {stop_after_s:g} s is stopped and "
        f"made again after it ({gpu_lock.STOP_ENV}), where a GPU is graded on; the lock's "
        f"trace ({gpu_lock.TRACE_ENV}=FILE) marks each stop"
    )
    if not cgroup.in_force():
        line += (
            "; but here runs have no cgroup of their own (the report's limits line says why), "
            "so no run is stopped"
        )
    return line


def _stale_line(stale: list[str], out: Path, who: str = "batch") -> str:
    """The line naming the results in DIR that the gradebook left out (module docstring);
    ``who``: the command that says it ("slurm": before its jobs, of the class it names)."""
    names = name_list(stale)
    return (
        f"{who}: {len(stale)} earlier result(s) in {manifest.display_path(out)} are not in "
        f"this {'batch' if who == 'batch' else 'class'} and are left out of the gradebook: "
        f"{names} (their folders are kept; "
        "name them too to list them; to grade a few students again and keep every row, name "
        "the whole class with --regrade ID for each)"
    )


def _cell(text: str) -> str:
    """A CSV cell that a spreadsheet will not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "@", "\t", "\r") else text


def _lab_rows(out: Path, lab: manifest.Lab) -> list[dict]:
    """Every readable ``out/*/batch.json`` row of this lab, sorted by id."""
    rows = []
    for path in sorted(out.glob("*/batch.json")):
        row = _read_row(path)
        if row is not None and row.get("lab") == lab.id:
            rows.append(row)
    return sorted(rows, key=lambda r: r["id"])


def stale_ids(out: Path, lab: manifest.Lab, roster) -> list[str]:
    """The ids of ``out``'s rows of this lab that are not in ``roster`` (sorted): results of
    an earlier batch that ``write_gradebook(out, lab, roster)`` leaves out."""
    names = set(roster)
    return [r["id"] for r in _lab_rows(out, lab) if r["id"] not in names]


NOT_GRADED = "not graded: no result yet"  # a roster's student without a batch.json row


def missing_ids(rows: list[dict], roster) -> list[str]:
    """The ids of ``roster`` (None: none) that no row of ``rows`` has, sorted."""
    have = {r["id"] for r in rows}
    return sorted(set(roster or ()) - have)


def write_gradebook(out: Path, lab: manifest.Lab, roster=None) -> list[dict]:
    """Rebuilds ``out/gradebook.csv`` from the ``out/*/batch.json`` rows of this lab whose
    id is in ``roster`` (the ids of the batch's class; None: every row), sorted by id;
    returns those rows. A student of the roster not graded yet (its Slurm task not run yet,
    or ended without a result) is listed too, every cell empty and its status
    ``NOT_GRADED``: the gradebook lists the whole class."""
    rows = _lab_rows(out, lab)
    if roster is not None:
        names = set(roster)
        rows = [r for r in rows if r["id"] in names]
    names = [ex.name for ex in lab.exercises]
    has_report = lab.report is not None
    buf = io.StringIO()
    w = csv.writer(buf)
    head = ["id", *names, *(["report"] if has_report else []), "total", "max"]
    w.writerow([
        *head, "lost", "pending", *(["manual_pending"] if has_report else []), "status", "gpu",
        "warnings",
    ])
    lines: list[tuple[str, list]] = []  # (id, cells): the rows, then the roster's missing
    for r in rows:
        final = row_is_final(r["status"])
        cells = [
            report._points(r["exercises"][n]) if final and n in r["exercises"] else ""
            for n in names
        ]
        if has_report:
            cells.append("" if r.get("report") is None else report._points(r["report"]))
        total = report._points(r["total"]) if final else ""
        # the automatic points lost for certain, final or not: a partial row's cells stay
        # empty, and this tells a skeleton (points lost already) from a solution that waits
        # for its GPU checks (an instructor's trial)
        pending = r.get("pending_points") or 0
        failed = row_is_error(r["status"])  # retried next run, nothing known
        lost = "" if failed else report._points(_lost(r))
        # the automatic points that wait for checks not run (0 when final): with lost, what a
        # partial row's empty cells hide, without opening each batch.json (an instructor's
        # trial)
        waiting = "" if failed else report._points(pending)
        row = [_cell(r["id"]), *cells, total, r["max"], lost, waiting]
        if has_report:
            row.append(r.get("manual_pending", lab.manual_points))
        lines.append((r["id"], [*row, _cell(r["status"]), _cell(r.get("gpu") or ""),
                                "" if failed else r.get("warnings", "")]))
    for sid in missing_ids(rows, roster):
        row = [_cell(sid), *[""] * len(names), *([""] if has_report else []), "",
               lab.max_points, "", ""]
        if has_report:
            row.append(lab.manual_points)
        lines.append((sid, [*row, NOT_GRADED, "", ""]))
    w.writerows(line for _, line in sorted(lines, key=lambda pair: pair[0]))
    write_atomic(out / GRADEBOOK, buf.getvalue())
    return rows


def _within(path: Path, folder: Path) -> bool:
    """Whether ``path`` (resolved) is ``folder`` or lies inside it."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))


def without_out(paths: list[str], out: Path, err, files: tuple[str, ...] = ()) -> list[str]:
    """``paths`` without ``--out`` itself, which is never a submission: ``class/*`` with
    ``--out class/grades`` matches it from the second run on (a review: the same command
    worked once, then was refused); a line says it was left out. GraderError where that
    folder holds one of the lab's student ``files`` at its top: it is a student's submission
    (an instructor's trial gave ``--out class/subs/alice``: alice had no row, and the grades
    were written into her hand-in)."""
    kept = [p for p in paths if os.path.realpath(p) != os.path.realpath(out)]
    if len(kept) == len(paths):
        return kept
    # the student's files at its top or in one wrapping folder, as grading finds them
    where = archives.find_student_files(out, files) if files else out
    held = [f for f in files if (where / f).is_file()]
    if held:
        raise GraderError(
            f"--out {out} is a submission of the class (it holds {', '.join(held)}): give "
            "the grades a folder of their own (e.g. ~/class/grades beside ~/class/subs)"
        )
    print(f"batch: {out} is --out, not a submission: left out of the class", file=err)
    return kept


def check_out(out: Path, subs: list[Submission], root: Path) -> None:
    """GraderError when ``--out`` and a submission overlap: ``--out`` the folder holding a
    submission (an instructor's trial named the class folder itself: each student's grades
    folder sat among the submissions, and the rerun found "two submissions have the id
    'carol'"), a student's grades folder (``--out/<id>``) that is, holds or lies in their
    own submission (reached through a link too: a review), or ``--out`` inside a student's
    folder (its grades would change what the student handed in); then where ``--out`` lies
    in the course tree at ``root`` as ``check_out_course`` refuses. ``--out`` further above
    the class (``~/class`` for ``~/class/subs/*``) is fine."""
    real_out = os.path.realpath(out)
    for sub in subs:
        real = os.path.realpath(sub.path)
        if real_out in (os.path.realpath(Path(sub.path).parent), os.path.dirname(real)):
            raise GraderError(
                f"--out {out} is the class folder holding the submission {sub.path}: each "
                "student's grades folder would sit among the submissions; give the grades a "
                "folder of their own (e.g. ~/class/grades beside ~/class/subs)"
            )
        grades = os.path.realpath(Path(out) / sub.id)  # holds every --out inside sub.path too
        if _within(grades, real) or _within(real, grades):
            raise GraderError(
                f"--out {out} would put {sub.id}'s grades in or around their own submission "
                f"{sub.path}: put the grades outside the class folder"
            )
    check_out_course(out, root)


# the course's own folders: its commands rewrite or delete what lies in them (make clean
# removes build/, make skeletons rewrites labs/), and a release or a Slurm job reads them
COURSE_FOLDERS = (
    "labs", "solutions", "grader", "common", "handouts", "docs", "bench", "build", ".git", ".ci"
)


def check_out_course(out: Path, root: Path) -> None:
    """GraderError when ``--out`` is the course tree, holds it, or lies in one of its own
    folders (``COURSE_FOLDERS``): an instructor's trial gave ``--out .`` in the course
    tree, and the user sandbox closed the course to other users for the grades' privacy,
    after which every later grading of that machine ran unsandboxed; ``--out build/grades``
    is deleted by ``make clean``. ``--out`` elsewhere in the tree (``course/grades``) is
    only warned of (``Batch.run``)."""
    real_out, real_root = os.path.realpath(out), os.path.realpath(root)
    if _within(real_root, real_out):
        raise GraderError(
            f"--out {out} is the course tree or holds it: the grades folder is made private "
            "(closed to other users), which the course tree must not be; give the grades a "
            "folder outside the course (e.g. ~/class/grades)"
        )
    for name in COURSE_FOLDERS:
        if _within(real_out, os.path.join(real_root, name)):
            raise GraderError(
                f"--out {out} lies in the course's own {name}/ folder, which the course's "
                "commands rewrite or delete (make clean removes build/); give the grades a "
                "folder outside the course (e.g. ~/class/grades)"
            )


def make_private(out: Path) -> None:
    """Creates the grades folder ``out`` readable by its owner only (0700: a class's scores
    and reports are private; README's "keep --out unreadable to others"); an existing
    folder keeps its mode (the instructor chose it), but for the user sandbox, which closes it
    to other users, as each submission (grader.sandbox)."""
    if out.is_symlink() and not out.exists():
        raise GraderError(f"--out {out} is a link to nothing: remove it or name another folder")
    if out.exists() and not out.is_dir():
        raise GraderError(f"--out {out} is a file: name a folder for the grades (made if missing)")
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        out.mkdir(mode=0o700, exist_ok=True)
        os.chmod(out, 0o700)  # whatever the umask


class Batch:
    """One batch run; ``run()`` returns the exit status. ``roster``: the ids the gradebook
    lists (default: the ids of ``subs``); ``jobs`` None: one grading per CPU, fewer where
    the GPU's memory holds fewer (``gradings_in_gpu_memory``)."""

    def __init__(
        self, lab_dir: Path, lab: manifest.Lab, subs: list[Submission], out: Path, options,
        force, jobs, err, roster=None, classmates=(), regrade=(),
    ):
        self.lab_dir = lab_dir
        self.lab = lab
        self.subs = subs
        self.roster = sorted(roster if roster is not None else {s.id for s in subs})
        self.out = out
        self.options = options  # its GPU lock: run(), once GRADER_DRAIN_AT is read
        self.force = force
        self.regrade = frozenset(regrade)  # ids graded again as with --force (--regrade)
        self.jobs = jobs
        self.err = err
        self.classmates = tuple(classmates)  # other submissions of the class (``batch``)
        self.knobs: dict = {}  # the throughput knobs set for this run (``run``), in its rows
        # id: the Grade of each grading of this run with timed course figures (``_grade_one``),
        # which a stray's grading again keeps but for its timed runs (``_grade_strays_again``)
        self._timed: dict[str, Grade] = {}
        # id: each grading of this run that ran out of GPU memory beside other gradings
        # (``grade.Crowded``: why, and its Grade so far where only its timed runs are made
        # again), graded again alone after the class (``_grade_alone_again``, notes 88-89)
        self._crowded: dict[str, grading.Crowded] = {}

    def run(self) -> int:
        root = course.find_root(self.lab_dir.absolute().parent)
        if root is None:
            raise GraderError(f"cannot find the course root above {self.lab_dir}")
        values = read_knobs()  # a wrong value stops the batch before anything is built
        cap, setups = values[UNTIMED_ENV], values[TIMED_SETUPS_ENV]
        policy, stop_after_s = values[gpu_lock.DRAIN_ENV], values[gpu_lock.STOP_ENV]
        # recorded in each row graded now (batch.json's "knobs", not compared as "options"
        # are: they change when runs go, not a grade; an instructor's trial found a class's
        # files silent about them), each as set, as grade.sbatch exports it (grader.slurm)
        self.knobs = knobs_in_environment()
        self.options = dataclasses.replace(
            self.options,
            gpu_lock=gpu_lock.for_process(
                GpuLock(*policy, stop_after_s=stop_after_s), policy, stop_after_s
            ),
        )
        check_out(self.out, self.subs, root)
        make_private(self.out)
        hidden = (root / "solutions", root / "build")  # hidden from every run already
        inside = [
            str(p)
            for p in (self.out, *(s.path for s in self.subs))
            if _within(p, root) and not any(_within(p, h) for h in hidden)
        ]
        if inside:
            print(
                f"batch: {name_list(inside, 3)} inside the course tree {root}: this batch hides "
                "them from its own builds and runs, but any other command's runs see the "
                "course tree; keep the class and --out outside it (e.g. ~/class)",
                file=self.err,
            )
        # the class's grades and work: no submission's build or run may read them (a Slurm
        # task grades a shard: its classmates are the whole class's, ``classmates``)
        private = (
            self.out.absolute(),
            *(sub.path.absolute() for sub in self.subs),
            *(Path(p).absolute() for p in self.classmates),
        )
        self.options = dataclasses.replace(self.options, private=private)
        # once, before any grading: which sandbox the class's builds and runs get (each
        # report says it too; an instructor's trial found the batch's own output silent)
        box = sandbox.choose([root], self.options.sandbox_default, private)
        # (the user sandbox's notice names this choice's uid; each grading gets its own)
        said = (
            "each grading runs as an unprivileged user of its own (its report names it)"
            if box.kind == "user"
            else box.notice
        )
        print(f"batch: sandbox: {box.kind}: {said}", file=self.err)
        for path in self.out.glob("*/batch.json"):
            row = _read_row(path)
            if row is not None and row.get("lab") != self.lab.id:
                raise GraderError(
                    f"{self.out} holds results of lab {row.get('lab')}, not {self.lab.id}: "
                    "use another --out"
                )
        nvcc = tools.find("nvcc")
        if nvcc is None:
            raise GraderError(f"cannot build: {tools.not_found('nvcc')}")
        # once: the parallel gradings only read them (their own make finds nothing to do)
        builder.build_common(root, nvcc, self.options.arch)
        judge = builder.build_judge(root, nvcc, self.options.arch, self.lab.name)
        with self.options.gpu_lock.shared():  # a context: never beside a timed run
            probe = harness.device_info(judge, harness.schema_version(root), box=harness.TRUSTED)
        device = (probe.doc or {}).get("device") if probe.status == "ok" else None
        no_device = probe.status == "no_device"  # the judge found none (not a failed probe)
        given = os.environ.get("CUDA_VISIBLE_DEVICES", "").strip()
        if no_device and given and given != "-1":
            # GPUs named for this process (Slurm's, in a task that asked for them) that CUDA
            # does not see: a node's fault, which a partial grade "kept: no GPU here" would hide
            # on every run again (an instructor's trial, session 47)
            print(
                f"batch: warning: CUDA_VISIBLE_DEVICES={given} names GPU(s) for this grading "
                f"on {socket.gethostname()}, but the judge found no CUDA device there: every "
                "grade here stays partial (no GPU). Check the node's NVIDIA driver and its "
                "GPUs' device files (nvidia-smi on the node), then grade again there or "
                "elsewhere",
                file=self.err,
            )
        fit = gradings_in_gpu_memory(device)
        if self.jobs is None:  # one per CPU, as many as the GPU's memory holds
            self.jobs = default_jobs()
            if fit is not None and fit < self.jobs:
                print(
                    f"batch: {fit} at once, not {self.jobs} (one per CPU): the GPU's memory "
                    f"holds {fit} grading{'s' if fit > 1 else ''} at "
                    f"{GPU_BYTES_PER_GRADING / 2**30:g} GiB each (--jobs sets the number)",
                    file=self.err,
                )
                self.jobs = fit
        elif fit is not None and fit < self.jobs:  # --jobs as given, but said (session 34:
            # with --jobs 16 an H100's 80 GB peaked at 78.2, note 79)
            print(
                f"batch: --jobs {self.jobs}, but the GPU's memory holds {fit} "
                f"grading{'s' if fit > 1 else ''} at {GPU_BYTES_PER_GRADING / 2**30:g} GiB "
                "each, and a timed run's set-up may run out of it: give fewer --jobs, or "
                "leave it out",
                file=self.err,
            )

        n, k = len(self.subs), 0
        rows: dict[str, dict] = {}
        todo, other_seed, undigested, no_gpu = [], [], [], []
        options = _options_of(self.options)
        for sub in self.subs:
            forced = self.force or sub.id in self.regrade
            row = None if forced else final_row(self.out / sub.id)
            if row is None:
                before = None if forced else _read_row(self.out / sub.id / "batch.json")
                moved = before is not None and before.get("digest") is not None and changed(
                    before, sub, self.lab.required_files
                )
                if no_device and _no_gpu_row(self.out / sub.id, before, moved, options):
                    k += 1  # graded without a GPU, and none here either: the same again
                    rows[sub.id] = before
                    no_gpu.append(sub.id)
                    with contextlib.suppress(OSError):  # this grading's result now: a Slurm
                        os.utime(self.out / sub.id / "batch.json")  # merge reads its time
                    self._progress(k, n, before, "kept: no GPU here to finish it")
                    continue
                if before is not None:  # a partial grade or a grader error, not final
                    if moved:
                        why = "changed since it was graded"
                    elif (
                        no_device
                        and before["status"] == PARTIAL_NO_GPU
                        and before.get("options") not in (None, options)
                    ):
                        why = (  # kept but for its options (_no_gpu_row)
                            "graded without a GPU last time with other options (--seed, "
                            "--arch, --no-sanitizer or --no-perf)"
                        )
                    else:
                        why = f"not final last time ({before['status']})"
                    print(f"{sub.id}: {why}: graded again", file=self.err)
                todo.append(sub)
            elif changed(row, sub, self.lab.required_files):
                print(f"{sub.id}: changed since it was graded: graded again", file=self.err)
                todo.append(sub)
            else:
                k += 1
                rows[sub.id] = row
                self._progress(k, n, row, "already graded; --regrade ID grades it again")
                if row.get("digest") is None:
                    undigested.append(sub.id)
                if row.get("seed") != self.options.seed:
                    other_seed.append(sub.id)
        if undigested:
            print(
                f"batch: {len(undigested)} kept from an older grader's run, which recorded "
                "nothing of what it graded: a resubmission changed since is not seen (--force "
                "grades them again)",
                file=self.err,
            )
        if no_gpu:
            print(
                f"batch: {len(no_gpu)} graded without a GPU kept as they were, since this "
                "machine has none either: run the same command on a GPU machine to finish "
                "them (--force grades them again here)",
                file=self.err,
            )
        if other_seed and todo:
            # the kept rows and the ones graded now would not share one seed (grade --seed)
            print(
                f"batch: {len(other_seed)} kept from an earlier run with another --seed "
                f"({', '.join(other_seed[:3])}{', ...' if len(other_seed) > 3 else ''}): "
                "--force grades every one with this run's",
                file=self.err,
            )
        # the knobs that act on the gradings of this batch, each said once, and those set
        # that cannot act (an instructor's trial: with --no-perf it told of drains)
        at_once = min(self.jobs, len(todo))
        if cap is not None and cap < at_once:
            self.options = dataclasses.replace(
                self.options, untimed_slots=threading.BoundedSemaphore(cap)
            )
        if setups is not None and setups < at_once:
            self.options = dataclasses.replace(
                self.options, timed_setup_slots=threading.BoundedSemaphore(setups)
            )
        timed = self.options.performance and bool(todo)  # a timed run, so drains, may come
        said = knob_lines(self.knobs, values, self.jobs, len(todo), self.options.performance)
        for line in said:
            print(line, file=self.err)
        start, graded = time.monotonic(), 0
        pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="grade")
        interrupted = False
        try:
            futures = {pool.submit(self._grade_one, sub): sub for sub in todo}
            for fut in as_completed(futures):
                row = fut.result()
                rows[row["id"]] = row
                k, graded = k + 1, graded + 1
                elapsed = time.monotonic() - start
                left = elapsed / graded * (n - k)
                write_gradebook(self.out, self.lab, self.roster)
                self._progress(k, n, row, f"elapsed {elapsed:.0f} s, ~{left:.0f} s left")
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            if interrupted:  # the gradings that ended are in the gradebook (best effort)
                with contextlib.suppress(Exception):
                    write_gradebook(self.out, self.lab, self.roster)
        self._grade_strays_again({sub.id: sub for sub in todo}, rows)
        self._grade_alone_again({sub.id: sub for sub in todo}, rows)
        listed = write_gradebook(self.out, self.lab, self.roster)
        statuses = [r["status"] for r in rows.values()]
        stale = stale_ids(self.out, self.lab, self.roster)
        if stale:
            print(_stale_line(stale, self.out), file=self.err)
        if stop_after_s is not None and timed:
            print(_stops_line(self.options.gpu_lock.stops, rows.values()), file=self.err)
        print(
            _closing_line(statuses, self.out / GRADEBOOK, len(listed), len(set(self.roster))),
            file=self.err,
        )
        if any(map(row_is_error, statuses)):
            return 2
        if not all(map(row_is_final, statuses)):
            return 3
        return 0

    def _progress(self, k: int, n: int, row: dict, note: str) -> None:
        """``[3/30] alice: 17/17 graded (...)``; a partial grade shows the points earned so
        far, those pending and any lost for certain (as the gradebook's columns): ``[4/30]
        bob: 10 so far of 17, 2 pending, 5 lost; partial (...)``."""
        total = report._points(row["total"])
        if row_is_final(row["status"]):
            score = f"{total}/{row['max']} "
        else:
            pending = row.get("pending_points")
            more = f", {pending} pending" if pending is not None else ", more pending"
            lost = _lost(row)
            if pending is not None and lost > 0:
                more += f", {report._points(lost)} lost"
            score = f"{total} so far of {row['max']}{more}; "
        print(f"[{k}/{n}] {row['id']}: {score}{row['status']} ({note})", file=self.err)
        self.err.flush()

    def _grade_strays_again(self, graded: dict[str, Submission], rows: dict[str, dict]) -> None:
        """Grades again, one at a time and so alone on the GPU, each submission graded in
        this run whose timed runs' course figures stray from the class's (grader.
        class_figures): its timed runs only, its first grading's untimed results kept
        (``grade.Options.retime``; a whole grading where that Grade is not at hand, or where
        its files changed since: a review found a retimed report mixing two sources). Its row
        then says why (``retimed``), and, where the second grading strays too, that it did
        (``retimed_again``). A stray timed in this run (``self._timed``) wholly of its own
        doing (``class_figures.own_doing``: its process kept the GPU busy, the judge's figures
        show) is not graded again: a line says why, and its row (``rows`` and batch.json)
        keeps the straying lines (``strayed_own``) and why they are its own (``own_doing``);
        its grade stands. Only where each run has a cgroup of its own (``cgroup.in_force``):
        without, another grading's process left behind could have slowed the run, and the
        stray is graded again. So is a grading whose exchange with the empty-kernel server
        was slowed in both its timings (``class_figures.exchanges_slowed``, note 95): its own
        doing where each run has its cgroup, else graded again; and one that found the GPU
        busy before its process started (``class_figures.busy_before``, note 97), graded
        again whatever the cgroups: never its own doing."""
        reports = {p.parent.name: self._report_of(p.parent.name)
                   for p in self.out.glob("*/report.json")}
        figures = {sid: class_figures.of_report(rep) for sid, rep in reports.items()}
        spreads = self._spreads()
        strays = class_figures.strays(figures, spreads)
        own = class_figures.own_doing(figures, spreads)
        # a run whose exchange with the empty-kernel server was slowed in both its timings
        # (note 95) is graded again too: its own doing only where each run has a cgroup (no
        # other grading's process can outlive its run), so with those its grade stands; one
        # that found the GPU busy before its process started (note 97): another process's
        # work, never its own, cgroups or not: graded again, alone, after the class
        for sid in graded:
            slowed = class_figures.exchanges_slowed(reports.get(sid, {}))
            if slowed:
                mine = sid not in strays or sid in own  # every other straying its own too
                strays[sid] = [*strays.get(sid, []), *slowed]
                if mine:
                    own[sid] = [
                        *own.get(sid, []),
                        *(f"{line}, the GPU its run's alone: its own process kept it busy"
                          for line in slowed),
                    ]
            busy = class_figures.busy_before(reports.get(sid, {}))
            if busy:
                # the cause first: every other figure of such a run strays with it (g138's
                # lines began with the baseline and the copy, the GPU "not the run's alone")
                strays[sid] = [*busy, *strays.get(sid, [])]
                own.pop(sid, None)
        for sid in sorted(strays.keys() & graded.keys()):
            why = strays[sid]
            # only where each run has a cgroup, emptied before the run returns: else another
            # grading's process left behind could be what slowed this run (note 83)
            mine = sid in own and cgroup.in_force()
            if mine and self._timed.pop(sid, None) is not None:  # timed in this run
                row = rows[sid] = {**rows[sid], "strayed_own": why, "own_doing": own[sid]}
                write_atomic(self.out / sid / "batch.json", json.dumps(row, indent=2) + "\n")
                # what disturbed them first, the straying lines in the row only (an
                # instructor's trial: "the GPU was not the run's alone" before "its own
                # process" read as a contradiction)
                print(
                    f"{sid}: not graded again: its course figures strayed from the class's by "
                    "its own doing (" + "; ".join(own[sid]) + "); its grade stands: those "
                    "runs scored no performance (\"disturbed timing\" in its report), and its "
                    "batch.json keeps the figures (strayed_own)",
                    file=self.err,
                )
                self.err.flush()
                continue
            print(f"{sid}: graded again, alone: " + "; ".join(why), file=self.err)
            first = self._unchanged(graded[sid], self._timed.pop(sid, None), rows)
            row = self._grade_one(graded[sid], retimed=why, first=first)
            rep = self._report_of(sid)  # the grading again's; the others' stand as they were
            figures[sid] = class_figures.of_report(rep)
            again = class_figures.strays(figures, spreads).get(sid, []) + (
                class_figures.exchanges_slowed(rep) + class_figures.busy_before(rep)
            )
            if again:
                row["retimed_again"] = again
                write_atomic(self.out / sid / "batch.json", json.dumps(row, indent=2) + "\n")
                print(
                    f"{sid}: its timed runs strayed again ("
                    + "; ".join(again)
                    + "): grade it again on an idle GPU",
                    file=self.err,
                )
            rows[sid] = row
            self.err.flush()

    def _grade_alone_again(self, graded: dict[str, Submission], rows: dict[str, dict]) -> None:
        """Grades again, one at a time after the class and its strays, and so alone on the
        GPU, each grading of this run that ran out of GPU memory beside other gradings
        (``self._crowded``, ``grade.Crowded``): its timed judge (design note 88), its timed
        runs only, its first grading's untimed results kept (``grade.Options.retime``), as a
        stray's; its untimed judge, or a correctness case's process with the GPU nearly full
        by the judge's count (note 89), whole; whole too where its files changed since.
        Alone (``grade.Options.alone``), the same failure is not graded again: a timed judge
        out of memory after its gate is the student's process's doing (that exercise's
        performance lost, with a line in its report naming the cause and the fix), a
        correctness case's process out of memory that case's failure, a judge out of memory
        before its gate or in the untimed runs the "error:" row it was. A line says why it is
        graded again; its row keeps it (``Crowded.row_key``), and another line names the
        exercises whose performance was lost alone."""
        for sid in sorted(self._crowded.keys() & graded.keys()):
            crowded = self._crowded.pop(sid)
            print(f"{sid}: graded again, alone: {crowded.why}", file=self.err)
            first = self._unchanged(graded[sid], crowded.grade, rows)
            rows[sid] = self._grade_one(graded[sid], first=first, crowded=crowded)
            lost = self._lost_alone(sid)
            if lost:
                print(
                    f"{sid}: its judge ran out of GPU memory again, alone: its own process's "
                    f"doing; no performance points for {', '.join(lost)} (its report says "
                    "why and what to fix)",
                    file=self.err,
                )
            self.err.flush()

    def _lost_alone(self, sid: str) -> list[str]:
        """The exercises whose performance ``sid``'s report scores as its own judge out of GPU
        memory (the rows ``judge_out_of_memory``), each with the GPU memory its process held
        where measured ("scale (your process held 70.2 GiB)"); [] when it cannot be read."""
        try:
            doc = json.loads((self.out / sid / "report.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        lost = []
        for ex in doc.get("exercises") or []:
            rows = ((ex.get("parts") or {}).get("performance") or {}).get("details") or []
            oom = [r for r in rows if isinstance(r, dict) and r.get("judge_out_of_memory")]
            if oom:
                mib = oom[-1].get("held_gpu_mib")
                held = f" (your process held {mib / 1024:.1f} GiB)" if mib is not None else ""
                lost.append(f"{ex.get('name')}{held}")
        return lost

    def _unchanged(
        self, sub: Submission, first: Grade | None, rows: dict[str, dict]
    ) -> Grade | None:
        """``first``, the Grade of ``sub``'s first grading in this run, for a grading again
        that times again only (``grade.Options.retime``), where its files are as they were
        then (their digest as its row's); None where they changed since, or there is none:
        graded whole, as it is now (a review found a retimed report mixing two sources)."""
        if first is None:
            return None
        held = digest(sub.path, self.lab.required_files)
        return first if held == rows.get(sub.id, {}).get("digest") else None

    def _spreads(self) -> dict[str, manifest.PerformanceSpec]:
        """exercise -> its performance spec, for the exercises whose baseline has a measured
        spread of its own (lab.toml's ``baseline_spread``: class_figures.strays)."""
        return {
            ex.name: ex.performance
            for ex in self.lab.exercises
            if ex.performance is not None and ex.performance.baseline_spread is not None
        }

    def _report_of(self, sid: str) -> dict:
        """The student's report.json in the out folder ({} when it cannot be read)."""
        try:
            doc = json.loads((self.out / sid / "report.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return doc if isinstance(doc, dict) else {}

    def _grade_one(
        self, sub: Submission, retimed: list[str] | None = None, first: Grade | None = None,
        crowded: grading.Crowded | None = None,
    ) -> dict:
        """Grades ``sub`` and writes its files; never raises for the submission's faults.
        ``retimed``: why it is graded again (``_grade_strays_again``), kept in its row;
        ``crowded``: its first grading's error where it is graded again alone
        (``_grade_alone_again``), whose ``why`` its row keeps (under ``row_key``); either way
        alone on the GPU (``grade.Options.alone``). ``first``: its first grading's Grade,
        whose untimed results the grading keeps, timing it again only
        (``grade.Options.retime``; None: a whole grading). A grading with timed course
        figures keeps its Grade in ``self._timed`` for that; one that ran out of GPU memory
        beside other gradings (``grade.Crowded``) is the "error:" row until
        ``_grade_alone_again`` grades it (retried on the next run, should the batch end
        first), its error in ``self._crowded``."""
        start = time.monotonic()
        # before grading: a change while it is graded is seen next run
        held = digest(sub.path, self.lab.required_files)
        folder = self.out / sub.id
        alone = bool(retimed) or crowded is not None
        if first is None and not alone:  # graded again whole: its earlier files kept
            try:
                history.keep(folder, STUDENT_FILES)
            except OSError as e:
                print(
                    f"{sub.id}: its earlier reports could not be kept in "
                    f"{manifest.display_path(folder / history.HISTORY)} ({e}): graded again "
                    "over them",
                    file=self.err,
                )
        try:
            with _thread_named(f"grade {sub.id}"):
                g, status = self._grade(sub, first, alone)
            elapsed = time.monotonic() - start
            g.submission = str(sub.path)
            folder.mkdir(exist_ok=True)
            doc = report.to_json(g)
            write_atomic(folder / "report.json", json.dumps(doc, indent=2) + "\n")
            timed = bool(class_figures.of_report(doc))  # it may stray from the class
            write_atomic(folder / "report.txt", report.text(g))
            doc = gradescope.results(g, elapsed)
            write_atomic(folder / "results.json", json.dumps(doc, indent=2) + "\n")
        except Exception as e:  # the grader failed on this one: a row, retried next run
            # (its reports too: one that cannot be written must not end the class's batch)
            if not isinstance(e, GraderError):
                traceback.print_exc(file=self.err)
            if isinstance(e, grading.Crowded) and not alone:
                self._crowded[sub.id] = e  # graded again alone after the class (notes 88-89)
            row = _row(sub, self.lab, None, f"{ROW_ERROR} {e}", time.monotonic() - start, held)
            folder.mkdir(exist_ok=True)
            write_atomic(folder / "batch.json", json.dumps(row, indent=2) + "\n")
            return row
        if timed and first is None:
            self._timed[sub.id] = g
        row = _row(sub, self.lab, g, status, elapsed, held, _options_of(self.options))
        if self.knobs:
            row["knobs"] = self.knobs
        if retimed:
            row["retimed"] = retimed
        if crowded is not None:
            row[crowded.row_key] = crowded.why
        write_atomic(folder / "batch.json", json.dumps(row, indent=2) + "\n")
        return row

    def _grade(
        self, sub: Submission, first: Grade | None = None, alone: bool = False
    ) -> tuple[Grade, str]:
        """``sub``'s Grade and status; ``first``: ``grade.Options.retime``, ``alone``:
        ``grade.Options.alone`` (``_grade_one``)."""
        with tempfile.TemporaryDirectory(prefix="grader-batch-") as tmp:
            folder = sub.path
            if sub.problem is not None:  # found by collect: nothing to grade
                why = f"rejected: {sub.problem}"
                options = dataclasses.replace(self.options, submission=sub.path)
                return grading.rejected(self.lab_dir, options, why), why
            if sub.kind != "dir":
                folder = Path(tmp) / "submission"
                try:
                    archives.extract(sub.path, folder)
                except archives.Rejected as e:
                    why = f"rejected: {e}"
                    options = dataclasses.replace(self.options, submission=sub.path)
                    return grading.rejected(self.lab_dir, options, why), why
            folder = archives.find_student_files(folder, self.lab.required_files)
            options = dataclasses.replace(
                self.options, submission=folder, retime=first, alone=alone
            )
            g = grading.grade(self.lab_dir, options)
        return g, status_of(g)


def _caps_nothing(env: str, value: int, jobs: int, by: str = "--jobs") -> str:
    """The batch's line for a cap ``env=value`` on gradings at once that ``jobs`` gradings at
    once already keep, as ``by`` limits them (--jobs, or the students to grade: ``_at_once``)
    (an instructor's trial, session 34: it said nothing; session 36: with --jobs 1 it
    advised a value below 1, which is refused)."""
    fix = (
        f"give it less than {jobs} or leave it unset"
        if jobs > 1
        else "one grading runs at a time: leave it unset"
    )
    return (
        f"batch: {env}={value} caps nothing: no more than {jobs} "
        f"grading{'s' if jobs > 1 else ''} run at once ({by}); {fix}"
    )


def _at_once(jobs: int, todo: int) -> tuple[int, str]:
    """How many gradings of a batch run at once, ``--jobs`` ``jobs`` with ``todo`` students
    to grade, and what limits them, for a line (an instructor's trial: "1 of the 2 gradings"
    counted --jobs 2 in a class of one)."""
    if todo >= jobs:
        return jobs, "--jobs"
    return todo, f"{todo} to grade, --jobs {jobs}"


# why the knobs of timed runs (``Knob.timed``) do nothing with --no-perf (a batch's line,
# ``knob_lines``, and a Slurm submission's, grader.slurm)
NO_PERF_IGNORED = "with --no-perf no run is timed, and they act on timed runs only"


def knob_lines(
    knobs: dict[str, str], values: dict, jobs: int, todo: int, performance: bool
) -> list[str]:
    """The batch's lines about its throughput knobs, said once the students to grade are
    known: ``knobs`` those set (``knobs_in_environment``), ``values`` their values
    (``read_knobs``), ``jobs`` --jobs, ``todo`` the students to grade, ``performance``
    False with --no-perf. A line for each knob that acts (or caps nothing, or changes
    nothing), and one naming those set that cannot act here, and why: with --no-perf no run
    is timed, so the knobs of timed runs (``Knob.timed``) are ignored, and with nothing to
    grade every one is (an instructor's trial: --no-perf printed the drain's lines)."""
    if not todo:
        why, idle = "nothing is graded in this batch", [k for k in KNOBS if k.env in knobs]
    else:
        why = NO_PERF_IGNORED
        idle = [k for k in KNOBS if k.env in knobs and k.timed and not performance]
    lines = []
    if idle:
        lines.append(
            "batch: " + ", ".join(f"{k.env}={knobs[k.env]}" for k in idle) + f" ignored: {why}"
        )
    acts = set(knobs) - {k.env for k in idle}
    at, by = _at_once(jobs, todo)
    cap, setups = values[UNTIMED_ENV], values[TIMED_SETUPS_ENV]
    drain_at, drain_after_s = values[gpu_lock.DRAIN_ENV]
    stop_after_s = values[gpu_lock.STOP_ENV]
    if UNTIMED_ENV in acts:
        lines.append(
            f"batch: at most {cap} of the {at} gradings at once in their untimed runs "
            f"({UNTIMED_ENV}={cap})"
            if cap < at  # (an instructor's trial, session 34: a cap of none said nothing)
            else _caps_nothing(UNTIMED_ENV, cap, at, by)
        )
    if gpu_lock.DRAIN_ENV in acts and drain_at == 1:  # recorded as set, but the default
        lines.append(
            f"batch: {gpu_lock.DRAIN_ENV}={knobs[gpu_lock.DRAIN_ENV]} changes nothing: without "
            "it too a drain begins at the first timed run's ask; leave it unset"
        )
    elif gpu_lock.DRAIN_ENV in acts:
        lines.append(
            f"batch: a drain for the timed runs once {drain_at} wait, or the first has "
            f"waited {drain_after_s:g} s, or the GPU is free ({gpu_lock.DRAIN_ENV})"
        )
        if drain_at > at:  # W timed runs can never wait at once: T starts each drain
            lines.append(
                f"batch: {gpu_lock.DRAIN_ENV}'s W is {drain_at}, but no more than {at} "
                f"timed run{'s' if at > 1 else ''} can wait at once ({by}), so each drain "
                f"begins once the first has waited {drain_after_s:g} s"
            )
    if gpu_lock.STOP_ENV in acts:
        lines.append(_stop_line(stop_after_s))
    if TIMED_SETUPS_ENV in acts:
        lines.append(
            f"batch: at most {setups} of the {at} gradings' timed runs at once set up or "
            f"waiting at their gates ({TIMED_SETUPS_ENV}={setups}); a grading without a slot "
            "makes its timed runs after its untimed runs"
            if setups < at
            else _caps_nothing(TIMED_SETUPS_ENV, setups, at, by)
        )
    return lines


def _string_list(path: Path, what: str, items: str) -> list[str]:
    """The JSON list of strings in ``path`` (a file grader.slurm wrote: ``what``, a list of
    ``items``); GraderError when it cannot be read or is not one."""
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise GraderError(f"cannot read the {what} {path}: {e}")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GraderError(f"the {what} {path} is not a JSON list of {items}")
    return value


def read_roster(path: Path) -> list[str]:
    """A roster file (``--roster``, written by grader.slurm): a JSON list of student ids;
    GraderError when it is not one."""
    return _string_list(path, "roster", "student ids")


def read_regrade(path: Path) -> list[str]:
    """The ids to grade again (``--regrade-from``, written by grader.slurm from its
    ``--regrade``): a JSON list of student ids; GraderError when it is not one."""
    return _string_list(path, "regrade file", "student ids")


def read_classmates(path: Path) -> list[str]:
    """A classmates file (``--classmates``, written by grader.slurm): a JSON list of the
    class's submission paths; GraderError when it is not one."""
    return _string_list(path, "classmates file", "paths")


# GPU memory a batch's grading may hold at once: its timed run's set-up keeps about 6 GiB of
# cases at most (the judge's SETUP_BUDGET_BYTES, its first case whatever its size), beside a
# few CUDA contexts (its untimed runs', its judges', compute-sanitizer's). Lab 3.3's class on
# the H200 peaked at 90 GB with 16 gradings (g100, bench/h200-2026-12-04-session26): 5.6 GB
# each, before design notes 59 and 60 added contexts; other labs not measured. The GPU's
# whole memory is counted: batches sharing one GPU (GRADER_GPU_LOCK) each count all of it.
GPU_BYTES_PER_GRADING = 8 * 2**30


def _options_of(options) -> dict:
    """What of a batch's grade options a row records (``options``): the seed and what
    changes a grade without a GPU too."""
    return {
        "seed": options.seed,
        "arch": options.arch,
        "sanitizer": options.sanitizer,
        "performance": options.performance,
    }


def _no_gpu_row(folder: Path, row: dict | None, moved: bool, options: dict) -> bool:
    """Whether ``row`` (``folder``'s last ``batch.json``) is a grade left partial for want
    of a GPU (``PARTIAL_NO_GPU``), with its reports, of what the submission still holds
    (``moved``: its ``digest`` differs, ``changed``), graded with these ``options``
    (``_options_of``): a batch on a machine without one keeps it, since grading it again
    there ends the same way."""
    return (
        row is not None
        and row["status"] == PARTIAL_NO_GPU
        and row.get("options") == options
        and _has_reports(folder)
        and row.get("digest") is not None
        and not moved
    )


def gradings_in_gpu_memory(device: dict | None) -> int | None:
    """How many gradings the GPU's memory holds at ``GPU_BYTES_PER_GRADING`` each (at least
    one), from the judge's device probe's ``device`` (the device the runs use, as
    ``CUDA_VISIBLE_DEVICES`` gives it); None when it gives no memory size (no device)."""
    total = (device or {}).get("global_mem_bytes")
    if not isinstance(total, int) or total <= 0:
        return None
    return max(1, total // GPU_BYTES_PER_GRADING)


UNTIMED_ENV = "GRADER_UNTIMED_AT_ONCE"


def untimed_at_once() -> int | None:
    """The most gradings of a batch that may run their untimed runs (correctness, sanitizer)
    at once, from ``GRADER_UNTIMED_AT_ONCE`` (unset or empty: no cap beyond --jobs): the
    knob of design note 73's experiment, fewer processes with a CUDA context on the GPU at
    once. Raises GraderError on anything but a whole number of at least 1."""
    return _whole_number_knob(UNTIMED_ENV, "gradings")


def _whole_number_knob(env: str, what: str) -> int | None:
    """The whole number of ``what`` (at least 1) that the knob ``env`` gives (unset or
    empty: None); GraderError naming the fix on anything else."""
    text = os.environ.get(env, "").strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or int(text) < 1:  # "²".isdigit() is True
        raise GraderError(
            f"{env}={text!r}: give a whole number of {what}, at least 1, or unset it"
        )
    return int(text)


TIMED_SETUPS_ENV = "GRADER_TIMED_SETUPS_AT_ONCE"


def knobs_in_environment() -> dict[str, str]:
    """The throughput knobs set (not empty) in this process's environment, as written there
    (``KNOB_ENVS``; their values are checked by ``read_knobs``). A batch records these in
    each row it grades (batch.json's ``knobs``), and a Slurm submission exports them."""
    return {k: os.environ[k].strip() for k in KNOB_ENVS if os.environ.get(k, "").strip()}


def timed_setups_at_once() -> int | None:
    """The most gradings of a batch whose timed runs may be set up or wait at their gates
    at once, each holding its judge's set-up in GPU memory, from
    ``GRADER_TIMED_SETUPS_AT_ONCE`` (unset or empty: no cap beyond --jobs): the knob of
    design note 87's experiment. Raises GraderError on anything but a whole number of at
    least 1."""
    return _whole_number_knob(TIMED_SETUPS_ENV, "timed runs set up at once")


def drain_policy() -> tuple[int, float]:
    """The batch's GPU lock's drain (``gpu_lock.drain_policy``: ``GRADER_DRAIN_AT``, design
    note 77), GraderError on a wrong value."""
    try:
        return gpu_lock.drain_policy()
    except ValueError as e:
        raise GraderError(str(e)) from None


def drain_stop_after() -> float | None:
    """The batch's GPU lock's S (``gpu_lock.drain_stop_after``: ``GRADER_DRAIN_STOP_AFTER``,
    design note 78), GraderError on a wrong value."""
    try:
        return gpu_lock.drain_stop_after()
    except ValueError as e:
        raise GraderError(str(e)) from None


@dataclass(frozen=True)
class Knob:
    """A throughput knob of a batch's environment (README, "Performance and GPU memory
    knobs"): ``env`` set to ``form``; ``default`` what unset means; ``what`` it does, in one
    line; ``read`` its value (GraderError naming the fix on a wrong one); ``timed``: it acts
    on timed runs only (with --no-perf it is ignored)."""

    env: str
    form: str
    default: str
    what: str
    read: Callable[[], object]
    timed: bool


# every throughput knob a batch reads from its environment: the one list that reads them
# (read_knobs), says which act (knob_lines) and lists them in --help (knobs_help)
KNOBS = (
    Knob(UNTIMED_ENV, "K", "unset, no cap beyond --jobs",
         "at most K gradings at once in their untimed (correctness, sanitizer) runs "
         "(design note 73)", untimed_at_once, False),
    Knob(gpu_lock.DRAIN_ENV, "W[,T]",
         f"1, a drain at the first timed run's ask; T {gpu_lock.DRAIN_AFTER_S:g}",
         "a drain for the timed runs begins once W wait, or the first has waited T seconds "
         f"(0 to {gpu_lock.DRAIN_AFTER_MAX_S:g}), or the GPU is free (design note 77)",
         drain_policy, True),
    Knob(gpu_lock.STOP_ENV, "S", "unset, no run is stopped",
         "an untimed run that keeps a drain waiting S seconds "
         f"({gpu_lock.STOP_MIN_S:g} to {gpu_lock.STOP_MAX_S:g}) is stopped and made again "
         "after it (design note 78)", drain_stop_after, True),
    Knob(TIMED_SETUPS_ENV, "N", "unset, no cap beyond --jobs",
         "at most N gradings' timed runs set up or waiting at their gates at once, each "
         "holding its set-up in GPU memory (design note 87)", timed_setups_at_once, True),
)
KNOB_ENVS = tuple(k.env for k in KNOBS)


def read_knobs() -> dict[str, object]:
    """Every knob's value (``KNOBS``' ``read``: None or the default where unset), by its
    name; GraderError naming the fix for the first wrong one (a batch and a Slurm submission
    read them before anything is built)."""
    return {k.env: k.read() for k in KNOBS}


def knobs_help() -> str:
    """The knobs for ``--help`` (the batch's and Slurm's epilog), from ``KNOBS``."""
    lines = textwrap.wrap(
        "environment knobs (experiments' knobs for a batch's throughput, off unless set; "
        "each student's batch.json records those set as \"knobs\"; README, \"Performance "
        "and GPU memory knobs\"):", 88
    )
    for k in KNOBS:
        lines += textwrap.wrap(f"{k.env}={k.form} (default: {k.default})", 88,
                               initial_indent="  ", subsequent_indent="      ")
        lines += textwrap.wrap(k.what, 88, initial_indent="      ", subsequent_indent="      ")
    return "\n".join(lines)


def default_jobs() -> int:
    """One grading per CPU the grader may use: those of its affinity (a Slurm job's cpuset,
    not the whole node's ``os.cpu_count()``), or Slurm's share of them where tasks are not
    bound to their CPUs (``cpus.slurm_share``), and those it keeps for timed runs
    (grader.cpus), which the timed part of each grading uses."""
    share = cpus.slurm_share()
    return max(1, (share if share is not None else cpus.allowed_count()) + len(cpus.kept()))


def check_regrade(regrade, subs: list[Submission]) -> None:
    """GraderError naming each id of ``regrade`` (``--regrade``) that no submission of
    ``subs`` has, with the nearest ids there are and what an id is."""
    ids = sorted({s.id for s in subs})
    unknown = sorted(set(regrade) - set(ids))
    if not unknown:
        return
    near = sorted({m for u in unknown for m in difflib.get_close_matches(u, ids, n=2)})
    raise GraderError(
        f"--regrade {', '.join(repr(u) for u in unknown)}: no submission named on this "
        f"command has {'that id' if len(unknown) == 1 else 'these ids'} (an id is the "
        "submission's name without its archive extension, .zip, .tar.gz, ..."
        + (f"; the nearest: {', '.join(repr(m) for m in near)}" if near else "")
        + "); name the whole class, e.g. ~/class/subs/*, and --regrade ID for each student "
        "to grade again"
    )


def batch(
    lab_dir: Path, paths: list[str], out: Path, options, force=False, jobs=None, err=None,
    roster=None, classmates=(), regrade=(), regrade_from=(),
):
    """Grades every submission in ``paths``; returns the exit status (module docstring).
    ``roster``: the ids the gradebook lists (default: those of ``paths``); ``classmates``:
    the paths of the class's other submissions, which no run may read either (a Slurm
    task's); ``regrade``: ids of ``paths`` graded again as ``force`` grades every one
    (GraderError for an id no submission has, ``check_regrade``); ``regrade_from``: the
    whole class's (a Slurm task's), of which those of ``paths`` are graded again."""
    lab_dir = course.lab_folder(lab_dir)
    lab = manifest.load(lab_dir)
    err = err or sys.stderr
    # a Slurm task's share is one of a class (its classmates): as a class, never one
    kept = without_out(paths, out, err, lab.required_files)
    subs = collect(kept, lab.required_files, err, one=len(kept) == 1 and not classmates)
    check_regrade(regrade, subs)
    ids = {s.id for s in subs}
    regrade = {*regrade, *(i for i in regrade_from if i in ids)}  # a Slurm task's share
    return Batch(
        lab_dir, lab, subs, out, options, force, jobs, err, roster, classmates, regrade
    ).run()

"""CPUs kept for the timed run: its processes have cores that no other work of the grader uses.

The judge times on the host clock: each sample is a request to the student's process, its
launches and synchronisation, and the reply (docs/protocol.md, "Judged runs"). In a batch,
the other gradings' builds, correctness and sanitizer runs and judges' set-ups keep every core
busy, and a timed run whose judge or student's process waits for a core at a request or a
reply takes longer than its kernel. On the H200 with 16 cores, 3 of 64 timed runs of a batch of
16 lost points that way (bench/h200-2026-12-02-session10/g36): their samples' median was 1.6
and 2.4 times their fastest tenth, where the 153 undisturbed runs of lab 3.3 in bench/ stay
within 1.032 — and background work already ran at nice +10 (grader.run). Niceness is no
fence: the judges' set-ups (references on the host) are not background work, and a process
cannot become less nice again without privilege.

Affinity is a fence that needs no privilege and can be moved: ``reserve`` (once, before the
grader starts any thread or child) keeps the last ``TIMING_CPUS`` of the CPUs the grader may
use, when it may use at least ``MIN_CPUS``, and moves the grader onto the others; every
thread and child it starts later inherits that. A timed run's processes are moved onto the
kept CPUs once the GPU is theirs: the judge and the processes it started (its empty-kernel
server) by ``pin`` when it reaches its gate, the student's process by ``prefix`` (``taskset``)
when it starts. Only one timed run holds the GPU at a time (grader.gpu_lock), so the kept CPUs
serve one run.

Untimed runs under a batch's shared hold (its gradings' probes, correctness and sanitizer
runs, and its early timed run's judge from its start) may run on the kept CPUs too
(``everywhere``), where each run has a cgroup, emptied before the run returns: a batch's read
phase is bound by its CPUs (g91, bench/h200-2026-12-04-session24: 13 of 16 busy through it,
the 3 kept idle; design note 55), and none of those processes works while a timed run holds
the GPU alone: a timed run waits for every shared hold to end, and what outlives one, a judge
waiting at its gate with its empty-kernel server, blocks (a read of its standard input, a
blocking receive, blocking CUDA waits) until its own hold, when ``pin`` moves it here. A
gate that polled would put those processes on the kept CPUs through other gradings' holds.
Work outside a hold (builds, SASS reads) keeps off them: a timed run may be holding the GPU.

Trust: nothing here is a defence. A student's process may move itself anywhere the grader may
run (onto the kept CPUs too, where it runs nicer than the timed run, or off them, which only
slows its own timing); it is the judge's samples and the class's figures
(grader.class_figures) that say whether a timing was disturbed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from pathlib import Path

TIMING_CPUS = 3  # the judge, the student's process and the judge's empty-kernel server
MIN_CPUS = 8  # with fewer, keeping 3 would starve the rest: nothing is kept

_lock = threading.Lock()
_kept: frozenset[int] = frozenset()
_all: frozenset[int] = frozenset()  # the kept CPUs and the rest: what the grader may use
_thread = threading.local()  # .everywhere: this thread's untimed runs may use _all


def allowed_count() -> int:
    """How many CPUs the grader may run on: its affinity (a Slurm job's cpuset, not the whole
    node's ``os.cpu_count()``), that count where affinity cannot be read."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def slurm_share() -> int | None:
    """The CPUs Slurm gave this job on this node (``SLURM_CPUS_ON_NODE``) when they are fewer
    than the CPUs the process may run on: a cluster that does not bind tasks to their CPUs
    (``TaskPlugin=task/none``) lets every task of a node run on all of them, so which ones a
    task may call its own is unknown, only how many. None outside Slurm, or where the task is
    bound (its affinity is its allocation)."""
    try:
        share = int(os.environ.get("SLURM_CPUS_ON_NODE", ""))
    except ValueError:
        return None
    return share if 0 < share < allowed_count() else None


def split(allowed: set[int] | frozenset[int]) -> tuple[frozenset[int], frozenset[int]]:
    """(kept for timed runs, left for everything else) out of the CPUs ``allowed``: the
    highest-numbered ``TIMING_CPUS`` kept when there are at least ``MIN_CPUS``, else none."""
    cpus = sorted(allowed)
    if len(cpus) < MIN_CPUS:
        return frozenset(), frozenset(cpus)
    return frozenset(cpus[-TIMING_CPUS:]), frozenset(cpus[:-TIMING_CPUS])


def reserve() -> frozenset[int]:
    """Keeps CPUs for timed runs (module docstring) and moves the calling thread, and so
    everything it starts afterwards, off them; the CPUs kept (none where the grader may use
    fewer than ``MIN_CPUS``, where affinity cannot be read or set, or where no ``taskset`` is
    installed to start a student's process on the kept CPUs). Call it before any
    thread starts: a thread already running keeps its CPUs. Idempotent."""
    global _kept, _all
    with _lock:
        if _kept:
            return _kept
        if shutil.which("taskset") is None:  # a student's process could not start there
            return frozenset()
        if slurm_share() is not None:  # CPUs shared with the node's other tasks: none ours
            return frozenset()
        try:
            kept, rest = split(os.sched_getaffinity(0))
            if kept:
                os.sched_setaffinity(0, rest)
        except (AttributeError, OSError):  # no affinity on this system: nothing is kept
            return frozenset()
        _kept, _all = kept, kept | rest
        return kept


def kept() -> frozenset[int]:
    """The CPUs ``reserve`` kept for timed runs (empty before it, or where none were)."""
    return _kept


def _cpu_list(cpus) -> str:
    return ",".join(str(c) for c in sorted(cpus))


def prefix() -> list[str]:
    """``taskset -c KEPT`` to put before a timed run's student's process; [] where nothing is
    kept or no ``taskset`` is installed (the process then runs beside the other work)."""
    taskset = shutil.which("taskset") if _kept else None
    return [taskset, "-c", _cpu_list(_kept)] if taskset else []


@contextlib.contextmanager
def everywhere():
    """Within it, the children this thread starts that are not timed may run on every CPU
    the grader may use, the kept ones too (``untimed_prefix``): for a batch's grading while
    it holds the GPU shared, when no timed run can hold it (module docstring)."""
    before = getattr(_thread, "everywhere", False)
    _thread.everywhere = True
    try:
        yield
    finally:
        _thread.everywhere = before


def carried(call):
    """``call`` (no arguments) made to run with this thread's ``everywhere``, in whichever
    thread runs it: for the runs a grading hands to threads of its own (its sanitizer tools
    side by side, grade._side_by_side), which would otherwise start on the grader's CPUs
    only."""
    if not getattr(_thread, "everywhere", False):
        return call

    def run():
        with everywhere():
            return call()

    return run


def untimed_prefix() -> list[str]:
    """``taskset -c ALL`` (every CPU the grader may use, kept by ``reserve``) to put before
    an untimed child's argv inside ``everywhere``; [] elsewhere, where nothing is kept or no
    ``taskset`` is installed (the child then runs on the CPUs the grader runs on)."""
    if not (_kept and _all and getattr(_thread, "everywhere", False)):
        return []
    taskset = shutil.which("taskset")
    return [taskset, "-c", _cpu_list(_all)] if taskset else []


def others() -> frozenset[int]:
    """The CPUs the grader may use that are not kept for timed runs (empty where none are
    kept, or before ``reserve``)."""
    return _all - _kept


def processes():
    """(pid, the fields of its /proc/PID/stat after the command's name: state, ppid, pgrp,
    ...) for every process, from one read of /proc (none where it cannot be read; a process
    that ended meanwhile is left out)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for name in entries:
        if not name.isdigit():
            continue
        try:  # (a process may name itself in bytes that are not UTF-8)
            stat = Path(f"/proc/{name}/stat").read_bytes().decode(errors="replace")
        except OSError:
            continue  # it ended meanwhile
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after ")"
        yield int(name), stat[stat.rfind(")") + 2 :].split()


def descendants(roots) -> set[int]:
    """The pids ``roots`` and every process descending from them (their children, theirs,
    ...), from one read of /proc (``roots`` alone where it cannot be read; a process that
    ended meanwhile is left out, a root whatever its state)."""
    children: dict[int, list[int]] = {}
    for pid, fields in processes():
        if len(fields) > 1 and fields[1].isdigit():
            children.setdefault(int(fields[1]), []).append(pid)
    tree, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid not in tree:
            tree.add(pid)
            todo.extend(children.get(pid, ()))
    return tree


def pin(pid: int, cpus: frozenset[int] | None = None) -> int:
    """Moves every thread of process ``pid`` and of the processes it started (their
    children too) onto ``cpus`` (default: those kept for timed runs); the threads moved.
    A process or thread that ended meanwhile, or that may not be moved, is left as it is:
    pinning only helps a timing, it decides nothing."""
    cpus = _kept if cpus is None else cpus
    if not cpus:
        return 0
    moved = 0
    for p in descendants([pid]):  # one read of /proc for the whole tree: a timed run's gate
        try:
            tids = [int(t) for t in os.listdir(f"/proc/{p}/task")]
        except OSError:
            continue
        for tid in tids:
            try:
                os.sched_setaffinity(tid, cpus)
                moved += 1
            except OSError:
                pass
    return moved

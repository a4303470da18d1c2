"""A control group per run of submission code: a process limit and a memory limit.

A pid namespace (the sandbox) hides other processes from a fork bomb but does not stop it
from filling the machine's process table, and ``RLIMIT_NPROC`` does not apply to root: on
the course's GPU machine a fork bomb made every other ``fork`` fail for the 30 s until its
wall-clock limit — other students' runs, CUDA's threads, the grader itself
(bench/h200-2026-11-29-batch/README.md). ``RLIMIT_AS`` cannot bound memory either: the
CUDA driver reserves a very large virtual address range and fails to start under any
useful bound. The kernel's cgroup controllers hold for root and count what a run really
uses (Linux kernel documentation: "Process Number Controller", "Memory Resource
Controller", and "Control Group v2" for ``pids.max``, ``memory.max``, ``memory.events``).

``group()`` makes a fresh cgroup under ``cml-grader``, made inside the grader's own cgroup
(``/proc/self/cgroup``) where that cgroup can delegate: a grader that runs in a delegated
cgroup keeps its runs inside it, so its limits hold for them too (in practice the
hierarchy's root, or a delegated cgroup that holds no process: the grader's own cgroup
holds the grader). Under cgroup v2 a cgroup that holds processes cannot give controllers
to children ("no internal processes", EBUSY), nor give one its own ``cgroup.controllers``
lacks (ENOENT). Where the grader's cgroup cannot delegate (or is not in the hierarchy
mounted at ``/sys/fs/cgroup``): inside a Slurm job (``SLURM_JOB_ID``, or a cgroup path with
``/job_<id>``) no per-run group is made, since leaving the job's cgroup would escape its
``--mem`` and process tracking, and ``status()`` says the job's limits are the ones in
force; elsewhere the groups are made at the mount's root where it may be written (the
course's H200 machine: design note 53), and ``status()`` says where and why; where neither,
none, and ``status()`` says so rather than claiming limits of its own. Each group has

- ``pids.max`` = ``MAX_PIDS`` (processes and threads);
- ``memory.max`` = ``MAX_MEMORY_BYTES`` of host memory (RAM and page cache the run
  charges; GPU memory is the driver's, not counted) and no swap (``memory.swap.max`` 0),
  so a run that allocates too much is killed by the kernel's OOM killer inside its own
  group instead of pushing the machine — and the other students' runs — into swap;

and yields a ``Group``: the argv prefix that moves the run into the group(s) before it
execs (a shell writes its own pid to each ``cgroup.procs``, then ``exec``s the run: no
``preexec_fn``, which is unsafe in the threaded batch grader); while the run lasts, whether
it has reached its memory limit (``at_limit``: ``grader.run`` kills it then, not waiting for
the kernel's OOM killer, which can take longer than the run's time limit); after the run,
whether the OOM killer struck (``oom_killed``) and the most memory it used (``peak_bytes``).
On exit it kills whatever is left in the group and removes it.

Both hierarchies are handled: cgroup v2 (``/sys/fs/cgroup`` with ``pids`` and ``memory``
in ``cgroup.controllers``: one group) and v1 (``/sys/fs/cgroup/pids`` and
``/sys/fs/cgroup/memory``: one group in each, ``memory.limit_in_bytes``,
``memory.oom_control``, ``memory.max_usage_in_bytes``). A controller that is missing or
not writable (not root, a read-only /sys/fs/cgroup) is left out and ``status()`` says so:
the run then has the other limits only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import re
import signal
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MAX_PIDS = 512  # CUDA starts ~10 threads, compute-sanitizer a few dozen more
# Host memory per run. The largest peak measured on the H200 is in bench/h200.md
# ("Host memory per run"); the limit leaves room above it, and 16 runs at their limit at
# once fit in the course machine's 128 GiB. A batch's grading now makes up to three untimed
# runs at once (its sanitizer tools side by side, design note 59), so 16 gradings' runs at
# their limit at once would not: the runs' parent group bounds them all together
# (ALL_RUNS_SHARE of the machine's memory, design note 64).
MAX_MEMORY_BYTES = 6 * 2**30
# The share of the machine's memory (MemTotal) all runs may use together, in their parent
# group: the rest stays for the grader, its judges (course code, in no run's group), builds
# and the system. A run that pushes the runs past it is one the kernel's OOM killer ends (the
# largest process of the runs: a memory hog's), not one of the machine's.
ALL_RUNS_SHARE = 0.75
ROOT_V2 = Path("/sys/fs/cgroup")
ROOT_V1 = {"pids": ROOT_V2 / "pids", "memory": ROOT_V2 / "memory"}
PROC_SELF_CGROUP = Path("/proc/self/cgroup")
PARENT = "cml-grader"
# sh -c JOIN cml-join <cgroup.procs>... -- <argv...>: a failure to join is said, never a
# failed run
JOIN = (
    'for p; do shift; [ "$p" = -- ] && break; '
    'echo $$ 2>/dev/null > "$p" || echo "grader: could not join the cgroup $p" >&2; '
    'done; exec "$@"'
)


@dataclass(frozen=True)
class _Parents:
    """Where the runs' groups are made: one folder per hierarchy (v2: one for both
    controllers), and why a controller is missing."""

    v2: bool
    folders: dict[str, Path]  # controller -> parent folder ("pids", "memory")
    missing: dict[str, str]  # controller -> why there is none
    where: str = ""  # where the groups are, when not inside the grader's own cgroup
    all_runs_bytes: int | None = None  # the memory limit of the parent: all runs together


def own_cgroup(controller: str | None) -> str:
    """The grader's own cgroup path in a hierarchy, from ``/proc/self/cgroup`` ("/" where
    it does not say): ``controller`` None for cgroup v2 (the ``0::`` line), else a v1
    controller's name."""
    try:
        lines = PROC_SELF_CGROUP.read_text().splitlines()
    except OSError:
        return "/"
    for line in lines:
        hid, _, rest = line.partition(":")
        names, _, path = rest.partition(":")
        if (controller is None and hid == "0" and names == "") or (
            controller is not None and controller in names.split(",")
        ):
            return path or "/"
    return "/"


def _inside(root: Path, own: str) -> Path:
    """The folder of the cgroup ``own`` (a path of the hierarchy) under its mount ``root``."""
    return root / own.strip("/") if own.strip("/") else root


def _delegate(base: Path, parent: Path, wanted: list[str]) -> None:
    """Makes ``parent`` under ``base`` and enables ``wanted`` for the children of each, the
    controllers missing at a level in one write (the kernel enables all of them or none);
    OSError where a level cannot: a controller its own ``cgroup.controllers`` lacks (ENOENT)
    or a level that holds processes (EBUSY, "no internal processes"; a threaded controller
    such as ``pids`` alone would be let in). On failure nothing of this call is left: the
    controllers it enabled are disabled again, and ``parent`` is removed."""
    enabled_here: list[tuple[Path, list[str]]] = []  # (level, controllers this call enabled)
    try:
        parent.mkdir(exist_ok=True)
        if not os.access(parent, os.W_OK):  # made by root earlier: not ours to fill
            raise PermissionError(13, "Permission denied")
        for level in (base, parent):
            control = level / "cgroup.subtree_control"
            new = [c for c in wanted if c not in control.read_text().split()]
            if new:
                control.write_text(" ".join(f"+{c}" for c in new))
                enabled_here.append((level, new))
    except OSError:
        with contextlib.suppress(OSError):
            parent.rmdir()  # nothing of ours left in a cgroup that is not ours to fill
        for level, new in reversed(enabled_here):
            if level != parent:
                with contextlib.suppress(OSError):
                    (level / "cgroup.subtree_control").write_text(
                        " ".join(f"-{c}" for c in new))
        raise


def _in_slurm_job(own: str) -> bool:
    """Whether the grader runs in a Slurm job: ``SLURM_JOB_ID`` (which ``sudo`` clears), or
    its cgroup's path, which Slurm's cgroup plugins name ``.../job_<id>/...`` (v2:
    ``/system.slice/slurmstepd.scope/job_7/step_0/user/task_0``)."""
    return bool(os.environ.get("SLURM_JOB_ID")) or re.search(r"/job_\d+(/|$)", own) is not None


def _offered(level: Path) -> list[str] | None:
    """The controllers a cgroup folder may give its children (its ``cgroup.controllers``);
    None where that file cannot be read."""
    try:
        return (level / "cgroup.controllers").read_text().split()
    except OSError:
        return None


def _v2_parent(controllers: list[str]) -> _Parents:
    """The runs' parent under cgroup v2 (``controllers``: the mount root's
    ``cgroup.controllers``): inside the grader's own cgroup where it can delegate (in
    practice the hierarchy's root, or a delegated cgroup holding no process); else, outside
    a Slurm job, at the mount's root; else none, and why (design notes 52, 53)."""
    wanted = [c for c in ("pids", "memory") if c in controllers]
    missing = {c: "cgroup v2 without the controller" for c in ("pids", "memory") if c not in wanted}
    if not wanted:
        return _Parents(True, {}, missing)
    own = own_cgroup(None)
    base = _inside(ROOT_V2, own)
    if own.strip("/") and not base.is_dir():
        why = f"the grader's cgroup {own} is not in the hierarchy mounted at {ROOT_V2}"
    else:
        offered = _offered(base)
        try:
            if offered is None:
                raise OSError(0, f"its {base / 'cgroup.controllers'} cannot be read")
            lacks = [c for c in wanted if c not in offered]
            if lacks:  # the kernel's answer to "+pids" there would be ENOENT
                raise OSError(0, f"it offers no {' and no '.join(lacks)} controller to its "
                                 "children")
            _delegate(base, base / PARENT, wanted)
            return _Parents(True, {c: base / PARENT for c in wanted}, missing)
        except OSError as e:
            if not own.strip("/"):
                why = f"cannot make a cgroup ({e.strerror or e})"
                return _Parents(True, {}, {c: why for c in ("pids", "memory")})
            why = (f"the grader's cgroup {own} cannot delegate to a group per run "
                   f"({e.strerror or e})")
    # The grader's cgroup gives its runs no group of their own. Inside a Slurm job that is
    # no reason to leave the job's cgroup (part 3 of issue 15): the job's limits hold. Else
    # the runs' groups are made at the mount's root, and the status says so.
    if _in_slurm_job(own):
        why = f"runs share the Slurm job's cgroup and its limits (--mem): {why}"
        return _Parents(True, {}, {c: why for c in ("pids", "memory")})
    try:
        _delegate(ROOT_V2, ROOT_V2 / PARENT, wanted)
    except OSError as e:
        why = (f"runs share the grader's cgroup and its limits: {why}, nor could groups be "
               f"made at the root of {ROOT_V2} ({e.strerror or e})")
        return _Parents(True, {}, {c: why for c in ("pids", "memory")})
    return _Parents(True, {c: ROOT_V2 / PARENT for c in wanted}, missing,
                    f"at the root of {ROOT_V2}: {why}")


def _v1_parents() -> _Parents:
    folders, missing = {}, {}
    for c, root in ROOT_V1.items():
        if not (root / "cgroup.procs").exists():
            missing[c] = f"no {c} cgroup controller"
            continue
        try:
            parent = _inside(root, own_cgroup(c)) / PARENT  # inside the grader's own
            parent.mkdir(exist_ok=True)
            if not os.access(parent, os.W_OK):  # made by root earlier: not ours to fill
                raise PermissionError(13, "Permission denied")
            folders[c] = parent
        except OSError as e:
            missing[c] = f"cannot make a {c} cgroup ({e.strerror or e})"
    return _Parents(False, folders, missing)


def _machine_memory() -> int | None:
    """The machine's memory in bytes (the kernel's total RAM, /proc/meminfo's ``MemTotal``),
    None where the system does not say."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return None


def _bound_all_runs(p: _Parents) -> _Parents:
    """``p`` with the memory parent's own limit written: ``ALL_RUNS_SHARE`` of the machine's
    memory, no less than one run's ``MAX_MEMORY_BYTES`` (``all_runs_bytes``); ``p`` as it
    is where there is no memory parent or the limit cannot be written (not ours to limit)."""
    parent = p.folders.get("memory")
    total = _machine_memory()
    if parent is None or total is None:
        return p
    bound = max(MAX_MEMORY_BYTES, int(total * ALL_RUNS_SHARE) // 2**30 * 2**30)  # whole GiB
    try:
        (parent / ("memory.max" if p.v2 else "memory.limit_in_bytes")).write_text(str(bound))
    except OSError:
        return p
    return dataclasses.replace(p, all_runs_bytes=bound)


@functools.lru_cache(maxsize=None)
def _parents() -> _Parents:
    try:
        controllers = (ROOT_V2 / "cgroup.controllers").read_text().split()
    except OSError:
        return _bound_all_runs(_v1_parents())
    return _bound_all_runs(_v2_parent(controllers))


def in_force() -> bool:
    """Whether each run gets a group of its own (a limit of either kind): then no process of
    a run outlives it, since the group is emptied and removed before the run returns."""
    return bool(_parents().folders)


def status() -> str:
    """One line for the report: the limits in force, or why one is missing."""
    p = _parents()
    have = []
    if "pids" in p.folders:
        have.append(f"at most {MAX_PIDS} processes and threads")
    if "memory" in p.folders:
        have.append(f"{size_text(MAX_MEMORY_BYTES)} of memory")
    where = f", {p.where}" if p.where else ""
    together = (
        f", {size_text(p.all_runs_bytes)} of memory for all runs together"
        if p.all_runs_bytes else ""
    )
    lines = [f"{' and '.join(have)} per run{together} (cgroup{where})"] if have else []
    pids, memory = p.missing.get("pids"), p.missing.get("memory")
    if pids is not None and pids == memory:  # one reason, said once
        lines.append(f"no process limit and no memory limit: {pids}")
    else:
        if pids is not None:
            lines.append(f"no process limit: {pids}")
        if memory is not None:
            lines.append(f"no memory limit: {memory}")
    return "; ".join(lines)


def size_text(n: int) -> str:
    """``6 GiB``, ``64 MiB``: a memory size for a report."""
    return f"{n / 2**30:g} GiB" if n >= 2**30 else f"{n / 2**20:g} MiB"


def _read_int(path: Path, key: str | None = None) -> int | None:
    """An integer file, or the value of ``key`` in a flat-keyed file; None when missing."""
    try:
        text = path.read_text()
    except OSError:
        return None
    try:
        if key is None:
            return int(text.split()[0])
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (ValueError, IndexError):
        return None
    return None


@dataclass
class Group:
    """One run's group(s): ``prefix`` joins them; after the run, what it used."""

    prefix: list[str]
    memory: Path | None  # the folder with the memory controller's files
    v2: bool
    memory_limit: int | None  # bytes, when a memory limit is in force

    def oom_killed(self) -> bool:
        """True when the kernel's OOM killer killed a process of the run for reaching the
        memory limit (v2 ``memory.events`` / v1 ``memory.oom_control``: ``oom_kill``)."""
        if self.memory is None:
            return False
        name = "memory.events" if self.v2 else "memory.oom_control"
        return (_read_int(self.memory / name, "oom_kill") or 0) > 0

    def at_limit(self) -> bool:
        """True once the run's memory use has reached the limit (v2 ``memory.events``:
        ``max``; v1 ``memory.failcnt``). ``grader.run`` then kills the run at once: a
        process with large file mappings (the CUDA driver's libraries) can spend tens of
        seconds at the limit, its file pages evicted and read back over and over, before
        the kernel's OOM killer acts — on the H200 a 16 GiB host allocation in a lab binary
        ran into its 30 s time limit instead of being killed (bench/h200.md). No run of the
        course comes near the limit (largest peak measured: 1.3 GiB)."""
        if self.memory is None:
            return False
        if self.v2:
            return (_read_int(self.memory / "memory.events", "max") or 0) > 0
        return (_read_int(self.memory / "memory.failcnt") or 0) > 0

    def peak_bytes(self) -> int | None:
        """The most host memory the run used (v2 ``memory.peak``, kernel 5.19 and later;
        v1 ``memory.max_usage_in_bytes``), None where the kernel does not say."""
        if self.memory is None:
            return None
        name = "memory.peak" if self.v2 else "memory.max_usage_in_bytes"
        return _read_int(self.memory / name)


def _kill_all(path: Path) -> None:
    """Kills every process left in the group (cgroup.kill where the kernel has it)."""
    kill = path / "cgroup.kill"
    for _ in range(50):
        try:
            pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return
        if not pids:
            return
        if kill.exists():
            with contextlib.suppress(OSError):
                kill.write_text("1")
        else:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)


def _remove(path: Path) -> None:
    _kill_all(path)
    for _ in range(50):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)


def _limit(path: Path, controller: str, v2: bool, max_pids: int, max_memory: int) -> None:
    """Writes the controller's limit into a new group (OSError when it cannot)."""
    if controller == "pids":
        (path / "pids.max").write_text(str(max_pids))
    elif v2:
        (path / "memory.max").write_text(str(max_memory))
        with contextlib.suppress(OSError):  # no swap controller: nothing to turn off
            (path / "memory.swap.max").write_text("0")
    else:
        (path / "memory.limit_in_bytes").write_text(str(max_memory))
        with contextlib.suppress(OSError):  # memsw exists only with swap accounting
            (path / "memory.memsw.limit_in_bytes").write_text(str(max_memory))


@contextlib.contextmanager
def group(max_pids: int | None = None, max_memory: int | None = None) -> Iterator[Group | None]:
    """Fresh limited group(s) for one run (``MAX_PIDS`` and ``MAX_MEMORY_BYTES`` unless
    given): yields the ``Group`` (whose ``prefix`` is ``["/bin/sh", "-c", JOIN, "cml-join",
    <procs>..., "--"]``), or None without cgroups."""
    max_pids = max_pids or MAX_PIDS
    max_memory = max_memory or MAX_MEMORY_BYTES
    p = _parents()
    name = f"run-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    made: dict[str, Path] = {}  # controller -> its group folder
    for controller, parent in p.folders.items():
        path = parent / name
        try:
            path.mkdir(exist_ok=True)
            _limit(path, controller, p.v2, max_pids, max_memory)
            made[controller] = path
        except OSError:
            continue
    paths = list(dict.fromkeys(made.values()))
    try:
        if not made:
            yield None
            return
        procs = [str(path / "cgroup.procs") for path in paths]
        memory = made.get("memory")
        yield Group(
            ["/bin/sh", "-c", JOIN, "cml-join", *procs, "--"],
            memory,
            p.v2,
            max_memory if memory else None,
        )
    finally:
        for path in paths:
            _remove(path)
        for controller, parent in p.folders.items():  # a group whose limit failed
            if controller not in made and (parent / name).is_dir():
                _remove(parent / name)

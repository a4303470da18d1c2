"""A control group per run of submission code: at most ``MAX_PIDS`` processes and threads.

A pid namespace (the sandbox) hides other processes from a fork bomb but does not stop it
from filling the machine's process table, and ``RLIMIT_NPROC`` does not apply to root: on
the course's GPU machine a fork bomb made every other ``fork`` fail for the 30 s until its
wall-clock limit — other students' runs, CUDA's threads, the grader itself
(bench/h200-2026-11-29-batch/README.md). The kernel's pids controller is the tool that
holds for root (Linux kernel documentation, "Process Number Controller"; cgroup v2:
``pids.max`` in "Control Group v2").

``group()`` makes a fresh cgroup under ``cml-grader`` with ``pids.max``, and yields the
argv prefix that moves the run into it before it execs (a shell writes its own pid to
``cgroup.procs``, then ``exec``s the run: no ``preexec_fn``, which is unsafe in the
threaded batch grader). On exit it kills whatever is left in the group and removes it.
Both hierarchies are handled: cgroup v2 (``/sys/fs/cgroup`` with ``pids`` in
``cgroup.controllers``) and v1 (``/sys/fs/cgroup/pids``). Where neither is writable (not
root, a read-only /sys/fs/cgroup), ``group()`` yields ``None`` and ``status()`` says why:
the run then has the other limits only.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

MAX_PIDS = 512  # CUDA starts ~10 threads, compute-sanitizer a few dozen more
ROOT_V2 = Path("/sys/fs/cgroup")
ROOT_V1 = Path("/sys/fs/cgroup/pids")
PARENT = "cml-grader"
# sh -c JOIN <cgroup.procs> <argv...>: a failure to join is said, never a failed run
JOIN = 'echo $$ 2>/dev/null > "$0" || echo "grader: could not join the cgroup $0" >&2; exec "$@"'


@functools.lru_cache(maxsize=None)
def _parent() -> tuple[Path | None, str]:
    """The folder the runs' groups are made in, and why there is none when None."""
    try:
        controllers = (ROOT_V2 / "cgroup.controllers").read_text().split()
    except OSError:
        controllers = None
    try:
        if controllers is not None:
            if "pids" not in controllers:
                return None, "cgroup v2 without the pids controller"
            parent = ROOT_V2 / PARENT
            parent.mkdir(exist_ok=True)
            # the controller must be enabled for the children of each level on the way
            for level in (ROOT_V2, parent):
                if "pids" not in (level / "cgroup.subtree_control").read_text().split():
                    (level / "cgroup.subtree_control").write_text("+pids")
            return parent, ""
        if (ROOT_V1 / "cgroup.procs").exists():
            parent = ROOT_V1 / PARENT
            parent.mkdir(exist_ok=True)
            return parent, ""
    except OSError as e:
        return None, f"cannot make a pids cgroup ({e.strerror or e})"
    return None, "no pids cgroup controller"


def status() -> str:
    """One line for the report: the process limit in force, or why there is none."""
    parent, why = _parent()
    if parent is None:
        return f"no process limit: {why}"
    return f"at most {MAX_PIDS} processes and threads per run (pids cgroup)"


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


@contextlib.contextmanager
def group(max_pids: int = MAX_PIDS) -> Iterator[list[str] | None]:
    """A fresh pids-limited group for one run: yields the argv prefix that puts the run in
    it (``["/bin/sh", "-c", JOIN, "<group>/cgroup.procs"]``), or None without cgroups."""
    parent, _ = _parent()
    if parent is None:
        yield None
        return
    path = parent / f"run-{os.getpid()}-{uuid.uuid4().hex[:12]}"
    try:
        path.mkdir()
        (path / "pids.max").write_text(str(max_pids))
    except OSError:
        with contextlib.suppress(OSError):
            path.rmdir()
        yield None
        return
    try:
        yield ["/bin/sh", "-c", JOIN, str(path / "cgroup.procs")]
    finally:
        _kill_all(path)
        for _ in range(50):
            try:
                path.rmdir()
                break
            except OSError:
                time.sleep(0.02)

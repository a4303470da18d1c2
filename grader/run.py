"""Running untrusted programs: one process group, a wall-clock limit, resource limits.

``run(argv, timeout_s)`` starts ``argv`` in a new session (so in its own process group),
waits at most ``timeout_s`` seconds, and then kills the whole group with SIGKILL: a
student's program that forks, or a shell that spawns children, leaves nothing behind. The
group is killed after a normal exit too, for the same reason.

Limits set in the child before exec (``resource``):

- ``RLIMIT_CPU``: twice the wall-clock limit plus 10 s, a backstop (CUDA's host thread
  spins while it waits for the GPU, so CPU time tracks wall time);
- ``RLIMIT_FSIZE``: 256 MB per file written;
- ``RLIMIT_CORE``: 0, no core dumps.

``RLIMIT_AS`` is not set: the CUDA driver reserves a very large virtual address range and
fails to initialise under any useful bound. ``RLIMIT_NPROC`` is not set either: it counts
all processes and threads of the user (CUDA starts several threads), and root ignores it.
Instead each run gets its own cgroup where the grader may make one (``grader.cgroup``: at
most 512 processes and threads, and ``cgroup.MAX_MEMORY_BYTES`` of host memory), so a fork
bomb cannot fill the machine's process table and a huge allocation cannot push the machine
into swap; the group is emptied and removed after the run. A run that reaches its memory
limit is killed at once by the poll loop below (the kernel's OOM killer can take longer
than the time limit, ``cgroup.Group.at_limit``) or by the OOM killer, whichever comes first;
its outcome is "memory" ("killed for using more than 6 GiB of host memory"). Every outcome
carries the run's peak host memory where the kernel reports it (``peak_bytes``).

Output goes to temporary files (no pipe can fill up and block the child) and comes back
truncated to ``max_output`` bytes: its head and its tail, with a marker in between, read
from the files without loading them whole. While the child runs, the files' sizes are
watched: a program that writes more than ``output_cap`` bytes (``OUTPUT_CAP_BYTES``, 64 MB,
on stdout and stderr together) is killed, and the outcome is "flooded" ("killed after
writing more than 64 MB of output"), so 10 GB printed in a loop costs neither the disk nor
the grader's memory.

The working folder (``cwd``: a run's fresh temporary folder, a build's output folder, on the
host's disk, and under bubblewrap the only writable place that is not a tmpfs) is watched
too: ``RLIMIT_FSIZE`` bounds one file, not how many, and a review's program wrote 256 MB
files one after another there (100 GB and more in a 300 s run, and the disk full for every
other grading of a batch, whose builds then failed for good). Every ``WORKDIR_POLL_S`` the
folder is walked (``workdir_use``): a run that leaves more than ``workdir_cap`` bytes there
(``WORKDIR_CAP_BYTES``, 1 GiB), more than ``WORKDIR_CAP_ENTRIES`` files and folders, or a
folder the grader cannot read (a path too long, a folder made unreadable) is killed, and the
outcome is "filled" ("killed after writing more than 1024 MB to its working folder").

``background``: the child runs ``BACKGROUND_NICE`` steps nicer than the grader (started
through ``nice -n``, not a ``preexec_fn``, which can deadlock in a threaded grader; raising
one's niceness needs no privilege). Builds, SASS and symbol reads,
correctness and sanitizer runs are background work; a timed run's judge and student's
process are not: while one holds the GPU alone (``grader.gpu_lock``), the CPU work of the
other gradings of a batch (nvcc, CPU references, compute-sanitizer) yields to it, so its
student's process starts, and its host clock reads, with less contention (issue 15: in a
batch of 16 on 16 cores the timed run's HELLO took 0.5-2.6 s).

``timed``: the child is a timed run's student's process and starts on the CPUs kept for
timed runs (``grader.cpus``: niceness alone did not keep a batch's other work off them).

CUDA's hardware work queues (``child_env``): a background child's CUDA contexts open one
(``CUDA_DEVICE_MAX_CONNECTIONS=1``), every other child's the driver's default (the variable
removed, whatever the grader's own environment says). Opening the default eight is what CUDA
processes started side by side wait for each other in: on the H200, 16 small correctness
runs at once took 3.7 s with eight each and 1.2 s with one (docs/design-notes.md, note 48).
One queue runs a process's streams one after another in the order their work was issued;
a timed run keeps the default its thresholds were measured with, and so does the untimed
run of a submission whose lab lets it make streams of its own (``sandbox.own_streams``),
where a race between its streams may show only when they run side by side.

``stoppable(check)``: the runs this thread starts within it ask ``check(start)`` at every poll
and, once it says True, are killed as a run past its limit is and raise ``Stopped``: no
outcome, no result. For a batch's untimed runs that keep a drain of the GPU lock waiting
(``GpuLock.stop_wanted``, design note 78); the caller makes the run again from its start.

``sandbox``: a ``grader.sandbox.Sandbox`` that wraps ``argv`` (bubblewrap), with ``cwd`` as
the only writable directory and ``readable`` re-exposed read-only under the fresh /tmp.
bwrap reports a child killed by signal N as exit status 128 + N; such a status is read
back as the signal, so a segfault is "killed by SIGSEGV" inside the sandbox too.
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from grader import cgroup, cpus
from grader.errors import GraderError

if TYPE_CHECKING:
    from grader.sandbox import Sandbox

FSIZE_LIMIT_BYTES = 256 * 1024 * 1024
DEFAULT_MAX_OUTPUT = 8 * 1024
OUTPUT_CAP_BYTES = 64 * 1024 * 1024
POLL_S = 0.02
# What a run may leave in its working folder (module docstring). Legitimate runs leave little:
# a build about 8 MB in some 30 files (build/3.5-project/, the largest), a lab binary's run
# its JSON documents (kilobytes), ncu its report of one launch, lab 3.5 its images where
# CML_LAB35_WRITE asks (a student's own runs, never the grader's: a few MB). A margin of 100
# times over each; 16 gradings of a batch at the cap hold 16 GiB of the disk, not all of it.
WORKDIR_CAP_BYTES = 1 << 30
# files and folders: bounds the walk too, which takes about 10 ms over 4096 entries (a run's
# folder 0.01 ms, a build's 0.1 ms; test_run.py, test_the_walk_of_a_working_folder_is_cheap)
WORKDIR_CAP_ENTRIES = 4096
WORKDIR_POLL_S = 0.1  # how often the folder is walked: every fifth poll, not every one
# the kinds of outcome where the grader killed the run for a resource it used up (not a
# time limit): their describe() says which, and a case reads "was killed after ..."
OVER_LIMIT = ("flooded", "filled", "memory")


@dataclass
class Outcome:
    """How a run ended: ``kind`` is "exited", "signaled", "timeout", "flooded" (killed
    for writing more than the output cap), "filled" (killed for what it left in its
    working folder: ``filled_by`` "bytes", more than ``workdir_cap``; "entries", more than
    ``workdir_entries`` files and folders; "hidden", a part the grader could not read) or
    "memory" (killed by the kernel for reaching the run's memory limit, ``memory_limit``
    bytes); or "not_started": never started (a judged run's student's process whose judge
    ended before its HELLO, grader.harness: ``seconds`` 0, no output)."""

    kind: str
    code: int | None = None  # exit status when "exited"
    signal: str | None = None  # e.g. "SIGSEGV" when "signaled"
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    timeout_s: float = 0.0
    output_cap: int = OUTPUT_CAP_BYTES
    memory_limit: int | None = None  # bytes, when the run had a memory limit
    peak_bytes: int | None = None  # the most host memory the run used, where known
    workdir_cap: int = WORKDIR_CAP_BYTES
    workdir_entries: int = WORKDIR_CAP_ENTRIES
    filled_by: str | None = None  # "bytes", "entries" or "hidden" when "filled"

    @property
    def ok(self) -> bool:
        return self.kind == "exited" and self.code == 0

    @property
    def over_limit(self) -> bool:
        """Whether the grader killed the run for a resource it used up (``OVER_LIMIT``)."""
        return self.kind in OVER_LIMIT

    def describe(self) -> str:
        """ "exited with status 4", "killed by SIGSEGV", "timed out after 60 s"."""
        if self.kind == "timeout":
            return f"timed out after {self.timeout_s:g} s"
        if self.kind == "flooded":
            return f"killed after writing more than {self.output_cap // 2**20} MB of output"
        if self.kind == "filled":
            if self.filled_by == "entries":
                return (
                    f"killed after making more than {self.workdir_entries} files and "
                    "folders in its working folder"
                )
            if self.filled_by == "hidden":
                return (
                    "killed for making part of its working folder unreadable to the grader "
                    "(a folder it may not read, or one nested too deep to name)"
                )
            return (
                f"killed after writing more than {self.workdir_cap // 2**20} MB to its "
                "working folder"
            )
        if self.kind == "memory":
            limit = cgroup.size_text(self.memory_limit) if self.memory_limit else "its limit"
            return f"killed for using more than {limit} of host memory"
        if self.kind == "signaled":
            return f"killed by {self.signal}"
        if self.kind == "not_started":
            return "not started (its judge ended first)"
        return f"exited with status {self.code}"


BACKGROUND_NICE = 10  # how much nicer background work runs than the grader (module docstring)


@functools.cache
def _nice() -> str | None:
    return shutil.which("nice")


def background_prefix(background: bool) -> list[str]:
    """``nice -n BACKGROUND_NICE`` to put before a background child's argv; [] otherwise,
    or where no ``nice`` is installed (the child then runs at the grader's priority)."""
    nice = _nice() if background else None
    return [nice, "-n", str(BACKGROUND_NICE)] if nice else []


CONNECTIONS_VAR = "CUDA_DEVICE_MAX_CONNECTIONS"
BACKGROUND_CONNECTIONS = "1"


def child_env(
    env: dict[str, str] | None, background: bool, own_streams: bool = False
) -> dict[str, str]:
    """The environment a child starts with: ``env`` (default the grader's own) with
    ``CUDA_DEVICE_MAX_CONNECTIONS`` set to 1 for background work (an untimed run: its CUDA
    contexts open one hardware work queue, not eight) and removed for anything else (a timed
    run gets the driver's default) and for the submission runs of a lab whose submissions
    make streams of their own (``own_streams``). Module docstring; design note 48."""
    env = dict(os.environ if env is None else env)
    if background and not own_streams:
        env[CONNECTIONS_VAR] = BACKGROUND_CONNECTIONS
    else:
        env.pop(CONNECTIONS_VAR, None)
    return env


def priority_prefix(background: bool, timed: bool = False) -> list[str]:
    """What goes before a child's argv for its priority and CPUs: ``nice`` for background
    work (``background_prefix``), ``taskset`` onto the CPUs kept for timed runs for a timed
    run's process, or onto every CPU for an untimed one started under a batch's shared hold
    (``grader.cpus``: ``prefix``, ``untimed_prefix``); [] for neither."""
    return [*background_prefix(background), *(cpus.prefix() if timed else cpus.untimed_prefix())]


def _limits(cpu_s: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FSIZE_LIMIT_BYTES, FSIZE_LIMIT_BYTES))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def truncate(data: bytes, limit: int) -> str:
    """Head and tail of ``data`` within about ``limit`` bytes, decoded leniently."""
    if len(data) > limit:
        head = data[: limit * 3 // 4]
        tail = data[-(limit // 4) :]
        cut = len(data) - len(head) - len(tail)
        data = head + f"\n… [{cut} bytes cut] …\n".encode() + tail
    return data.decode("utf-8", errors="replace")


def _read_capped(f, limit: int) -> str:
    """``truncate`` of a file's content, reading only its head and tail."""
    size = os.fstat(f.fileno()).st_size
    f.seek(0)
    if size <= limit:
        return truncate(f.read(), limit)
    head = f.read(limit * 3 // 4)
    f.seek(size - limit // 4)
    tail = f.read(limit // 4)  # a sandboxed writer may outlive bwrap by a moment
    cut = size - len(head) - len(tail)
    return (head + f"\n… [{cut} bytes cut] …\n".encode() + tail).decode("utf-8", errors="replace")


def _written(*files) -> int:
    return sum(os.fstat(f.fileno()).st_size for f in files)


def workdir_use(path: str, max_entries: int = WORKDIR_CAP_ENTRIES) -> tuple[int, int] | None:
    """(bytes, entries) of what lies under the folder ``path``, not following links: each
    file's, folder's and link's size or its allocated blocks, whichever is more (a file
    fallocated with FALLOC_FL_KEEP_SIZE takes disk beyond its size, and RLIMIT_FSIZE does
    not bound it), and how many there are. The walk stops once it has counted more than
    ``max_entries`` (so a million empty files cost no more than ``max_entries`` stat calls)
    and returns the counts so far. An entry that goes while it is read (a document renamed
    into place) is skipped; None where a part cannot be read (a folder the grader may not
    read, a path longer than the system names): what it holds is unknown. A missing
    ``path`` holds nothing: (0, 0)."""
    used = entries = 0
    folders = [path]
    while folders:
        try:
            with os.scandir(folders.pop()) as listing:
                for entry in listing:
                    entries += 1
                    if entries > max_entries:
                        return used, entries
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    used += max(st.st_size, st.st_blocks * 512)
                    if stat.S_ISDIR(st.st_mode):
                        folders.append(entry.path)
        except (FileNotFoundError, NotADirectoryError):
            continue  # gone, or replaced by a file, since it was listed
        except OSError:
            return None
    return used, entries


def _filled(cwd: str, workdir_cap: int, max_entries: int) -> str | None:
    """Why the working folder ``cwd`` is over its caps ("bytes", "entries", "hidden"), or
    None when it is not (``workdir_use``)."""
    use = workdir_use(cwd, max_entries)
    if use is None:
        return "hidden"
    if use[1] > max_entries:
        return "entries"
    return "bytes" if use[0] > workdir_cap else None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class Stopped(Exception):
    """A run stopped by its thread's stop check (``stoppable``): its processes killed, its
    outcome discarded. Not the submission's doing: the caller makes the run again."""


_stops = threading.local()  # .check: the stop check of this thread's runs (``stoppable``)


@contextlib.contextmanager
def stoppable(check: Callable[[float], bool] | None):
    """Within it, every run this thread starts asks ``check(its start, monotonic)`` at each
    poll and is stopped once it says True (``Stopped``); ``check`` None: none is (a run made
    again after a stop). The thread's check before is put back on leaving."""
    before = stop_check()
    _stops.check = check
    try:
        yield
    finally:
        _stops.check = before


def stop_check() -> Callable[[float], bool] | None:
    """This thread's stop check (``stoppable``), None where its runs have none."""
    return getattr(_stops, "check", None)


def carried_stops(call):
    """``call`` (no arguments) made to run with this thread's stop check (``stoppable``) in
    whichever thread runs it (a run a grading hands to a thread of its own)."""
    check = stop_check()
    if check is None:
        return call

    def run():
        with stoppable(check):
            return call()

    return run


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(
    argv: list[str],
    timeout_s: float,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    max_output: int = DEFAULT_MAX_OUTPUT,
    limits: bool = True,
    output_cap: int = OUTPUT_CAP_BYTES,
    workdir_cap: int | None = WORKDIR_CAP_BYTES,
    sandbox: Sandbox | None = None,
    readable: list[str] | tuple[str, ...] = (),
    pass_fds: tuple[int, ...] = (),
    deadline_fn: Callable[[], float] | None = None,
    cpu_s: float | None = None,
    background: bool = False,
    timed: bool = False,
    started: Callable[[int], object] | None = None,
) -> Outcome:
    """Runs ``argv`` to completion, until ``timeout_s``, until it has written more than
    ``output_cap`` bytes of output, or until its working folder ``cwd`` holds more than
    ``workdir_cap`` bytes or ``WORKDIR_CAP_ENTRIES`` entries, or a part the grader cannot
    read (``workdir_cap`` None: not watched; nor is the grader's own folder when ``cwd`` is
    None); never raises for the child's failures (a missing executable raises OSError,
    which is the caller's bug). ``pass_fds`` stay open in the child (the socket of a judged
    run, ``grader.harness.run_judged``). ``deadline_fn``: the deadline
    (``time.monotonic()``) is what it returns, asked at every poll, in place of start +
    ``timeout_s`` (a run of several cases moves it on as each case finishes,
    ``harness.run_judged_cases``); ``cpu_s``: the run's wall-clock budget for RLIMIT_CPU
    (default ``timeout_s``); ``background``: run it nicer; ``timed``: on the CPUs kept for
    timed runs (module docstring); ``started``: called with the child's pid (its session's
    and process group's: the sandbox and the command descend from it) once it is started.
    Raises GraderError when bubblewrap could not start the
    command (``_sandbox_failure``): the grader's fault, never the submission's result; and
    ``Stopped`` when this thread's stop check said to stop it (``stoppable``)."""
    stop = stop_check()
    boxed = sandbox is not None and sandbox.kind == "bwrap"
    command = os.path.basename(argv[0])
    if sandbox is not None and sandbox.kind in ("bwrap", "user"):
        argv = sandbox.wrap(argv, workdir=cwd, readable=readable)
    with (
        _bwrap_status() if boxed else contextlib.nullcontext() as status,
        cgroup.group() if limits else contextlib.nullcontext() as group,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
    ):
        if status is not None:  # bubblewrap says on this pipe whether the command ran
            argv = [argv[0], "--json-status-fd", str(status[1]), *argv[1:]]
            pass_fds = (*pass_fds, status[1])
        if group:
            argv = [*group.prefix, *argv]
        argv = [*priority_prefix(background, timed), *argv]
        start = time.monotonic()
        deadline = start + timeout_s
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=child_env(env, background, sandbox is not None and sandbox.own_streams),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
                preexec_fn=_limits(int(2 * (cpu_s or timeout_s)) + 10) if limits else None,
                pass_fds=pass_fds,
            )
        finally:
            if status is not None:
                os.close(status.pop())  # the write end: bubblewrap holds it now
        if started is not None:
            started(proc.pid)
        timed_out = flooded = at_limit = stopped = False
        watched = cwd if workdir_cap is not None else None
        filled_by = None
        walk_at = start + WORKDIR_POLL_S
        while proc.poll() is None:
            if _written(out, err) > output_cap:
                flooded = True
                break
            if watched is not None and time.monotonic() >= walk_at:
                filled_by = _filled(watched, workdir_cap, WORKDIR_CAP_ENTRIES)
                if filled_by:
                    break
                walk_at = time.monotonic() + WORKDIR_POLL_S
            if group and group.at_limit():
                at_limit = True
                break
            left = (deadline_fn() if deadline_fn else deadline) - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            if stop is not None and stop(start):  # killed as at its limit, then Stopped
                stopped = True
                break
            try:
                proc.wait(timeout=min(POLL_S, left))
            except subprocess.TimeoutExpired:
                pass
        _kill_group(proc.pid)
        proc.wait()
        seconds = time.monotonic() - start
        if stopped:  # nothing of it is read: the temporary files and the group go
            raise Stopped(f"{command} stopped after {seconds:.1f} s, to be made again")
        flooded = flooded or (not timed_out and _written(out, err) > output_cap)
        if watched is not None and not (timed_out or flooded or filled_by):
            filled_by = _filled(watched, workdir_cap, WORKDIR_CAP_ENTRIES)  # its last writes
        stdout = _read_capped(out, max_output)
        stderr = _read_capped(err, max_output)
        oom = at_limit or (group.oom_killed() if group else False)
        peak = group.peak_bytes() if group else None
        memory_limit = group.memory_limit if group else None
        if status is not None and not (timed_out or flooded or filled_by or oom):
            _sandbox_failure(status[0], stderr, command)
    code = proc.returncode
    if boxed and code > 128 and _is_signal(code - 128):
        code = -(code - 128)
    if flooded:
        kind, code, sig = "flooded", None, None
    elif filled_by:
        kind, code, sig = "filled", None, None
    elif timed_out:
        kind, code, sig = "timeout", None, None
    elif oom and code != 0:
        kind, code, sig = "memory", None, None
    elif code < 0:
        kind, code, sig = "signaled", None, _signal_name(-code)
    else:
        kind, code, sig = "exited", code, None
    return Outcome(
        kind, code, sig, stdout, stderr, seconds, timeout_s, output_cap, memory_limit, peak,
        workdir_cap=workdir_cap or WORKDIR_CAP_BYTES,
        filled_by=filled_by if kind == "filled" else None,
    )


@contextlib.contextmanager
def _bwrap_status():
    """A pipe for bubblewrap's ``--json-status-fd``: [read end (non-blocking), write end];
    whichever ends are still in the list are closed on leaving (the caller pops the write
    end once bubblewrap holds it)."""
    ends = list(os.pipe())
    try:
        os.set_blocking(ends[0], False)
        yield ends
    finally:
        for fd in ends:
            os.close(fd)


def _sandbox_failure(status_fd: int, stderr: str, command: str) -> None:
    """Raises GraderError when bubblewrap's status (``--json-status-fd``, read from
    ``status_fd``) has no "exit-code": it could not set the sandbox up or start the command
    (a path it could not mount, a namespace refused), so nothing of the submission ran and
    nothing it did is a result: a build would otherwise read as the student's "build
    failed", for good. Not asked of a run the grader ended itself (its time limit, its
    output, its working folder, its memory), whose bubblewrap it killed."""
    status = b""
    with contextlib.suppress(BlockingIOError, OSError):
        while chunk := os.read(status_fd, 65536):
            status += chunk
    if b'"exit-code"' in status:
        return
    said = [line for line in stderr.splitlines() if line.startswith("bwrap:")]
    why = said[0] if said else (stderr.strip().splitlines() or ["no message"])[-1]
    raise GraderError(
        f"the sandbox (bubblewrap) could not start {command}: {why}"
        " (the grader's environment, not the submission: nothing of it ran; fix the cause, "
        "or GRADER_SANDBOX=none where runs need no sandbox, and grade again)"
    )


def _is_signal(number: int) -> bool:
    try:
        signal.Signals(number)
    except ValueError:
        return False
    return True

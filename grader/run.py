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
Batch grading of untrusted code adds a sandbox around the grader (docs: trust model).

Output goes to temporary files (no pipe can fill up and block the child) and comes back
truncated to ``max_output`` bytes: its head and its tail, with a marker in between.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass

FSIZE_LIMIT_BYTES = 256 * 1024 * 1024
DEFAULT_MAX_OUTPUT = 8 * 1024


@dataclass
class Outcome:
    """How a run ended: ``kind`` is "exited", "signaled" or "timeout"."""

    kind: str
    code: int | None = None  # exit status when "exited"
    signal: str | None = None  # e.g. "SIGSEGV" when "signaled"
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    timeout_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.kind == "exited" and self.code == 0

    def describe(self) -> str:
        """ "exited with status 4", "killed by SIGSEGV", "timed out after 60 s"."""
        if self.kind == "timeout":
            return f"timed out after {self.timeout_s:g} s"
        if self.kind == "signaled":
            return f"killed by {self.signal}"
        return f"exited with status {self.code}"


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


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


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
) -> Outcome:
    """Runs ``argv`` to completion or until ``timeout_s``; never raises for the child's
    failures (a missing executable raises OSError, which is the caller's bug)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
            preexec_fn=_limits(int(2 * timeout_s) + 10) if limits else None,
        )
        timed_out = False
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        _kill_group(proc.pid)
        proc.wait()
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        stdout = truncate(out.read(), max_output)
        stderr = truncate(err.read(), max_output)
    if timed_out:
        kind, code, sig = "timeout", None, None
    elif proc.returncode < 0:
        kind, code, sig = "signaled", None, _signal_name(-proc.returncode)
    else:
        kind, code, sig = "exited", proc.returncode, None
    return Outcome(kind, code, sig, stdout, stderr, seconds, timeout_s)

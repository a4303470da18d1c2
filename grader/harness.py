"""Running the lab binary (docs/protocol.md, "Harness") and reading its run documents.

``run_judged`` is how the grader runs a case of a submission: the course's judge
(``build/<lab>/judge``, the pristine harness without student code) and the student's
process (``lab --serve FD``, the harness with the student's launchers, in the sandbox with
the run's limits) on the two ends of a socket pair. The judge writes the run document to
its standard output, a pipe only the grader holds; the student's process only launches,
and nothing it writes, prints or measures is read (docs/design-notes.md, note 22). It returns a
``CaseRun``: the judge's document when it is valid, else a readable ``problem`` from how the
student's process ended ("crashed (SIGSEGV) before writing its result", "did not finish
within 60 s"). The document must belong to the run: its schema version
(``CML_SCHEMA_VERSION``, read from ``common/cml_json.h``), exercise, size, seed, and
``"judged": true``.

``run_case`` runs the lab binary alone (``lab --exercise ... --json FILE``, everything in
one process): compute-sanitizer's runs use it, and only the sanitizer's findings count.

Seeds: ``Seeds(S)`` derives each run's seed from S, the exercise, the purpose and the
case, so a graded run can be repeated exactly; ``Seeds(None)`` the same from a fresh base
drawn per grading (``secrets``).

Every run of the lab binary (and of compute-sanitizer around it) goes through the sandbox
``box`` (``grader.sandbox``; by default the one ``GRADER_SANDBOX`` selects): the run's
temporary directory is its only writable place, the grading's build is readable.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import hashlib
import json
import re
import secrets
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Collection, ContextManager

import os
import signal

from grader import cpus
from grader import run as runner
from grader import sandbox
from grader.errors import GraderError

STATUSES = ("ok", "wrong", "error", "no_device")
# The judge's own runs (--device-info): course code only, no sandbox needed.
TRUSTED = sandbox.Sandbox("none", "the judge: course code only", off=True)
PROBE_TIMEOUT_S = 60
GATE_LINE = b"gate"  # a gated judge's first line: set up, waiting to time (run_judged)
# before the gate, in a timed run of several cases: "defer K", it times only the first K
# (the rest would not fit its set-up budget beside the other gradings': run_judged_timed_cases)
DEFER_LINE = b"defer "
# an untimed judged run of several cases (judge --case ...): "launch" as the student's launch
# of a case is sent, "landed" once it answered or ended; between them the case has the lab's
# launch limit too (launch_timeout_s, docs/design-notes.md note 65)
LAUNCH_LINE, LANDED_LINE = b"launch", b"landed"
# a timed run over the lab (judge --case ... --time), after its last document: "done", the
# student's process gone and nothing of the judge's left on the GPU but its context's end
# (_timed_cases_once records when, in hold_tail_ms: design note 82)
DONE_LINE = b"done"


def schema_version(root: Path) -> int:
    """``CML_SCHEMA_VERSION`` from ``common/cml_json.h`` (its only definition)."""
    path = root / "common" / "cml_json.h"
    try:
        text = path.read_text()
    except OSError as e:
        raise GraderError(f"cannot read {path}: {e.strerror}")
    m = re.search(r"^\s*#\s*define\s+CML_SCHEMA_VERSION\s+(\d+)\b", text, re.M)
    if not m:
        raise GraderError(f"{path} does not define CML_SCHEMA_VERSION")
    return int(m.group(1))


def run_seed(base: int, exercise: str, purpose: str, size) -> int:
    """The seed of one run under ``--seed base``: a stable hash (SHA-256, the same in every
    process and Python version) of the base seed, the exercise, the run's purpose
    ("correctness", "sanitizer-<tool>", "performance") and the case's size — never of the
    case's position in lab.toml, so inserting or removing a case changes no other run's
    inputs (issue 17). 32 bits: within the harness's --seed (any uint64,
    common/cml_options.c)."""
    dims = ",".join(map(str, size))
    key = f"{base}:{exercise}:{purpose}:{dims}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:4], "little")


class Seeds:
    """Seeds for the runs of one grading: ``run_seed`` of the base seed, the exercise, the
    purpose and the size. Without a base seed, of a fresh one (``secrets``, 64 bits) drawn
    for this grading: fresh inputs every grading, and within it one seed per run however
    often it is asked for (a batch runs the lab's cases before each exercise writes its rows
    and reproduce commands, which must name the seeds that ran)."""

    def __init__(self, base: int | None):
        self.base = base
        self._fresh = secrets.randbits(64)

    def seed(self, exercise: str, purpose: str, size) -> int:
        return run_seed(self._fresh if self.base is None else self.base, exercise, purpose, size)


@dataclass
class CaseRun:
    """One run of the lab binary."""

    argv: list[str]
    outcome: runner.Outcome
    doc: dict | None  # the valid run document, or None
    problem: str | None  # why there is no valid document
    # the launch limit (lab.toml's launch_timeout_s) that ended the run, when one did
    launch_limit_s: float | None = None
    # a timed case whose judge ran out of GPU memory after its gate with the GPU otherwise
    # idle: the student's process's doing (``problem``: students_oom_text; design note 88),
    # and the GPU memory its process tree held then, in MiB, where measured (held_gpu_mib)
    judge_out_of_memory: bool = False
    held_gpu_mib: int | None = None

    @property
    def status(self) -> str:
        """The document's status, or "crash" / "timeout" when there is none."""
        if self.doc is not None:
            return self.doc["status"]
        return "timeout" if self.outcome.kind == "timeout" else "crash"


def run_readable(binary: Path) -> list[str]:
    """What a sandboxed run may read under its fresh /tmp: the folder above the binary's
    (for a grading, its temporary directory: the assembled sources and the build, which
    compute-sanitizer's reports refer to)."""
    return [str(Path(binary).absolute().parent.parent)]


def launch_hung_text(limit_s: float) -> str:
    """What a case ended at its launch's limit (``CaseRun.launch_limit_s``) says."""
    return f"had a launch that did not finish within {limit_s:g} s"


def _describe_missing(outcome: runner.Outcome, timeout_s: float) -> str:
    if outcome.kind == "timeout":
        return f"did not finish within {timeout_s:g} s"
    if outcome.kind == "signaled":
        return f"crashed ({outcome.signal}) before writing its result"
    if outcome.over_limit:
        return f"was {outcome.describe()} before writing its result"
    if outcome.kind == "not_started":  # (a judge's document about a process it never had)
        return f"was {outcome.describe()}"
    return f"exited with status {outcome.code} without writing its result"


def validate(doc, version: int, expect: dict) -> str | None:
    """Why ``doc`` is not a valid run document for the run ``expect`` describes (None
    when it is). ``expect`` may hold "exercise", "size", "seed"."""
    if not isinstance(doc, dict):
        return "the run document is not a JSON object"
    if doc.get("schema") != version:
        raise GraderError(
            f"the lab binary wrote run document schema {doc.get('schema')!r}, the grader "
            f"reads schema {version} (common/cml_json.h): rebuild the course"
        )
    if doc.get("status") not in STATUSES:
        return f"the run document has an unknown status {doc.get('status')!r}"
    if doc["status"] in ("no_device",):
        return None
    for key, want in expect.items():
        got = doc.get(key)
        if key == "size":
            got = list(got) if isinstance(got, list) else got
            want = list(want)
        if got != want:
            return f"the run document's {key} is {got!r}, the run asked for {want!r}"
    check = doc.get("check")
    if doc["status"] == "wrong" and not isinstance(check, dict):
        return "the run document has status 'wrong' but no check"
    if doc["status"] == "error" and not isinstance(doc.get("error"), dict):
        return "the run document has status 'error' but no error"
    return None


def _read_doc(path: Path) -> tuple[object | None, str | None]:
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None, None
    except OSError as e:
        return None, f"cannot read the run document: {e.strerror}"
    return _parse_doc(text)


def _parse_doc(text: str) -> tuple[object | None, str | None]:
    if not text.strip():
        return None, None
    try:
        return json.loads(text), None
    except json.JSONDecodeError as e:
        return None, f"the run document is not valid JSON ({e.msg} at line {e.lineno})"


def _plain(
    argv, binary: Path, cwd: str, timeout_s: float, env, max_output: int, box, background=True
):
    """A plain run of the lab binary (maybe under compute-sanitizer) in the sandbox;
    background work (grader.run) unless it is timed (``background`` False)."""
    return runner.run(
        argv,
        timeout_s=timeout_s,
        cwd=cwd,
        env=env,
        max_output=max_output,
        sandbox=box or sandbox.choose(),
        readable=run_readable(binary),
        background=background,
    )


def invoke(
    binary: Path,
    args: list[str],
    timeout_s: float,
    version: int,
    expect: dict,
    prefix: list[str] | None = None,
    env: dict[str, str] | None = None,
    max_output: int = runner.DEFAULT_MAX_OUTPUT,
    box: sandbox.Sandbox | None = None,
    background: bool = True,
) -> CaseRun:
    """Runs ``[*prefix, binary, *args, --json TMP]`` in the sandbox and reads the document
    (only that path: whatever else the run wrote or printed is not read); nicer unless
    ``background`` is False (a timed run, grader.run)."""
    with tempfile.TemporaryDirectory(prefix="grader-run-") as tmp:
        doc_path = Path(tmp) / "run.json"
        argv = [*(prefix or []), str(binary), *args, "--json", str(doc_path)]
        outcome = _plain(argv, binary, tmp, timeout_s, env, max_output, box, background)
        doc, problem = _read_doc(doc_path)
    if doc is None:
        return CaseRun(argv, outcome, None, problem or _describe_missing(outcome, timeout_s))
    problem = validate(doc, version, expect)
    if problem:
        return CaseRun(argv, outcome, None, problem)
    return CaseRun(argv, outcome, doc, None)


MAX_CASES = 64  # --case options of one run (CML_MAX_CASES, common/cml_options.h)


def case_list_args(exercise: str, cases) -> list[str]:
    """``--exercise NAME --case A,B@S ...`` for several cases: (size, seed) each, or (size,
    seed, exercise) for a plain run over several exercises of the lab, whose cases of another
    exercise than ``exercise`` (the first case's) are ``--case EX:A,B@S``."""
    args = ["--exercise", exercise]
    for size, seed, *named in cases:
        prefix = f"{named[0]}:" if named and named[0] != exercise else ""
        args += ["--case", f"{prefix}{','.join(str(int(d)) for d in size)}@{int(seed)}"]
    return args


def invoke_cases(
    binary: Path,
    exercise: str,
    cases: list[tuple[tuple[int, ...], int]],
    timeout_s: float,
    version: int,
    prefix: list[str] | None = None,
    env: dict[str, str] | None = None,
    max_output: int = runner.DEFAULT_MAX_OUTPUT,
    box: sandbox.Sandbox | None = None,
) -> tuple[runner.Outcome, list[dict | None], list[str]]:
    """A plain run of several cases (``--case ... --json TMP``: a document per line, in
    order; compute-sanitizer's runs, one per tool): the outcome, each case's valid document
    or None (not written, or not valid for its case), and the argv. A case is (size, seed),
    of ``exercise``, or (size, seed, exercise) (``case_list_args``). Like ``invoke``, nothing
    but that file is read."""
    with tempfile.TemporaryDirectory(prefix="grader-run-") as tmp:
        doc_path = Path(tmp) / "run.json"
        argv = [*(prefix or []), str(binary), *case_list_args(exercise, cases)]
        argv += ["--json", str(doc_path)]
        outcome = _plain(argv, binary, tmp, timeout_s, env, max_output, box)
        try:
            lines = doc_path.read_text(errors="replace").splitlines()
        except OSError:
            lines = []
    docs: list[dict | None] = []
    for (size, seed, *named), line in zip(cases, lines + [""] * len(cases)):
        doc, _ = _parse_doc(line) if line else (None, None)
        expect = {"exercise": named[0] if named else exercise, "size": size, "seed": seed}
        docs.append(doc if doc is not None and validate(doc, version, expect) is None else None)
    return outcome, docs, argv


def run_case(
    binary: Path,
    exercise: str,
    size: tuple[int, ...],
    seed: int,
    timeout_s: float,
    version: int,
    time_reps: int | None = None,
    box: sandbox.Sandbox | None = None,
) -> CaseRun:
    """One verified run of an exercise (timed against the baseline with ``time_reps``)."""
    args = case_args(exercise, size, seed, time_reps)
    expect = {"exercise": exercise, "size": size, "seed": seed}
    # a timed run keeps the grader's priority (grader.run, background)
    return invoke(binary, args, timeout_s, version, expect, box=box, background=time_reps is None)


def case_args(exercise: str, size, seed: int, time_reps: int | None = None) -> list[str]:
    """The lab binary's (and the judge's) options for one case."""
    args = ["--exercise", exercise, "--size", ",".join(map(str, size)), "--seed", str(seed)]
    if time_reps is not None:
        args += ["--time", "--reps", str(time_reps)]
    return args


JUDGE_GRACE_S = 60  # the judge's time to finish once the student's process has ended


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError as e:
        raise GraderError(f"cannot read the judge {path}: {e.strerror}")
    return h.hexdigest()


class Judge:
    """The judge binary of one grading, pinned by its SHA-256 when the grading built it
    (before any of the submission's code ran). ``path`` checks the file still has that
    content every time it is asked for: a submission that runs without the sandbox runs as
    the grader's user and can rewrite the course's files, the judge too; a changed judge
    stops the grading. (It cannot undo a judge replaced before the grading built it: a
    submission graded earlier without the sandbox may have done that, which is why someone
    else's work is graded in the sandbox; docs/design-notes.md, note 22.)"""

    def __init__(self, path: Path):
        self._path = Path(path)
        self.sha256 = _sha256(self._path)

    @property
    def path(self) -> Path:
        if _sha256(self._path) != self.sha256:
            raise GraderError(
                f"the judge {self._path} changed while the submission ran: a submission "
                "graded without the sandbox can rewrite the course's files. Rebuild the "
                "course (make clean all) and grade others' work with GRADER_SANDBOX=bwrap"
            )
        return self._path


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _await_hello(sock: socket.socket, judge_proc: subprocess.Popen, timeout_s: float) -> bool:
    """Waits until the judge's HELLO is on the socket (or the judge ended, or ``timeout_s``
    passed): a timed judge measures its baseline alone before it says HELLO
    (``timing.baseline_alone_ms``), so the student's process, whose code could leave the
    GPU busy from its first instruction, must not exist yet. The message stays queued for
    the student's process to read. Whether to start that process: False when the judge is
    known to have ended with no message queued (it ended, or every holder of its end of the
    socket closed it: its document, if any, came in place of HELLO, design note 84), so that
    nothing is started on a closed socket; True otherwise (a message queued, or none yet at
    ``timeout_s`` from a judge still running: the process then waits for it)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and judge_proc.poll() is None:
        ready, _, _ = select.select([sock], [], [], 0.1)
        if ready:  # a message, or the end: the judge's side closed
            return _queued(sock)
    return judge_proc.poll() is None or _queued(sock)


def _queued(sock: socket.socket) -> bool:
    """Whether a message waits on ``sock`` (left there: only peeked at)."""
    try:
        return len(sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)) > 0
    except OSError:  # nothing queued (BlockingIOError), or the socket failed
        return False


def _await_gate(judge_proc: subprocess.Popen, timeout_s: float) -> tuple[str, bytes]:
    """Reads the judge's standard output up to its "gate" line (``--gate``): ("gate", what
    followed it); ("done", all it wrote) when it wrote a document instead (a set-up that
    failed writes one without a gate, and ends) or ended; ("late", all it wrote) past
    ``timeout_s`` with neither. A "defer K" line before the gate is kept at the head of what
    is returned (and so would a "done", which no judge writes before its gate: never a
    document)."""
    fd = judge_proc.stdout.fileno()
    head, got = b"", b""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                return "done", head + got
            got += chunk
            while b"\n" in got:
                line, _, rest = got.partition(b"\n")
                if line == GATE_LINE:
                    return "gate", head + rest
                if not line.startswith(DEFER_LINE) and line != DONE_LINE:
                    return "done", head + got  # a document, not a gate
                head, got = head + line + b"\n", rest
        elif judge_proc.poll() is not None:
            return "done", head + got
    return "late", head + got


def _pass_gate(judge_proc: subprocess.Popen, gate, held_gate: contextlib.ExitStack, timeout_s):
    """Lets a gated judge (``--gate``) through once ``gate`` is held (entered on
    ``held_gate``, so it is held to the end of the run): what the judge wrote after its
    gate line (with a "defer K" line before it), or all it wrote when it ended first."""
    return _through_gate(judge_proc, gate, held_gate, timeout_s)[1]


def _through_gate(
    judge_proc: subprocess.Popen, gate, held_gate: contextlib.ExitStack, timeout_s
) -> tuple[str, bytes]:
    """``_pass_gate``'s work: (how the judge's wait for its gate ended, ``_await_gate``'s
    "gate", "done" or "late"; what ``_pass_gate`` returns)."""
    state, head = _await_gate(judge_proc, timeout_s)
    at_gate = state == "gate"
    if at_gate:  # its set-up done (a gate may want to know: grade._EarlyTimedRuns)
        getattr(gate, "reached", lambda: None)()
    # a judge that wrote its document instead of its gate line times nothing: no hold for it,
    # even while it is still ending (its process not yet gone), and no byte
    held = at_gate or (state == "late" and judge_proc.poll() is None)
    if held:
        # at its gate, or still setting up past the time limit (it may reach the gate
        # later): either way it times only with the GPU held alone; still setting up, it
        # keeps off the CPUs kept for timed runs until its hold (grader.cpus, note 55)
        if not at_gate:
            cpus.pin(judge_proc.pid, cpus.others())
        try:
            held_gate.enter_context(gate())
        except BaseException:
            # the gate will not open (grade._NotDue): the judge and its empty-kernel server
            # (its session) end before they time anything, their pipes closed here
            _kill(judge_proc)
            for pipe in (judge_proc.stdin, judge_proc.stdout):
                if pipe is not None:
                    pipe.close()
            raise
    cpus.pin(judge_proc.pid)  # with its empty-kernel server, before it times
    try:
        if held:  # only with the gate held may it time
            judge_proc.stdin.write(b"g")
        judge_proc.stdin.close()  # else only closed: a judge at its gate then ends untimed
    except OSError:
        pass  # it ended: its document, if any, is in head and the pipe
    judge_proc.stdin = None  # closed here: communicate() must not flush it
    return state, head


# what cudaGetErrorString says for cudaErrorMemoryAllocation, the judge's error.message when
# a device allocation of its own failed (common/cml_lab.c, cml_lab_fail: kind "cuda"); a host
# allocation's failure is kind "host" (cml_lab_fail_host, HOST_MEMORY_FAULT)
OUT_OF_MEMORY = "out of memory"
# what the grader adds to a judge's failure of kind "host": its host memory ran out, not the
# GPU's (its set-up's and the driver's allocations, common/cml_setup.c; its timing's samples,
# its result buffer, a page-locked buffer of the course's, CML_CHECK_PINNED); not retried
# (design note 84)
HOST_MEMORY_FAULT = (
    "the course's fault, not the submission's: the judge ran out of host memory (judges run "
    "outside the runs' memory limit, on the machine's memory left to the grader, "
    "grader/cgroup.py): grade fewer submissions at once (batch --jobs) or on a machine with "
    "more memory"
)


def is_judge_out_of_memory(doc) -> bool:
    """Whether ``doc`` (a parsed run document) is the judge's own failure for want of memory
    (``error.by`` "judge", kind "cuda", message ``OUT_OF_MEMORY``: ``JudgeOutOfMemory``)."""
    err = doc.get("error") if isinstance(doc, dict) else None
    return (
        doc.get("status") == "error"
        and isinstance(err, dict)
        and err.get("by") == "judge"
        and err.get("kind") == "cuda"
        and err.get("message") == OUT_OF_MEMORY
    )


# A relayed failure of the student's process for want of GPU memory (kind "cuda", message
# OUT_OF_MEMORY) with the GPU nearly full by the judge's own count (error.gpu_memory,
# common/cml_judge.c): a student's process needs some hundreds of MB of the GPU's memory
# before the submission's code runs (its CUDA context, the lab's kernels, cuBLAS's for lab
# 3.3's sgemm, the mapping of the judge's pool: cml_devmem.c), so with less than 1 GiB free,
# or 2 % of the card (1.6 GB of an H100's 80, 2.8 of an H200's 141), an allocation of the
# course's in it can fail whatever the submission does. A batch grades such a grading again
# alone after the class (design note 89).
CROWDED_FREE_BYTES = 1 << 30
CROWDED_FREE_FRACTION = 0.02


def crowded_out_of_memory(doc) -> tuple[int, int] | None:
    """(free, total) bytes of the GPU where ``doc`` (a parsed run document) is a failure the
    judge relayed from the student's process for want of GPU memory (``error.by`` "run", kind
    "cuda", message ``OUT_OF_MEMORY``) with the GPU nearly full by the judge's own
    ``cudaMemGetInfo`` (``error.gpu_memory``: free below ``CROWDED_FREE_BYTES`` or
    ``CROWDED_FREE_FRACTION`` of the total); None otherwise: another failure, no figure (the
    judge's call failed, or a judge before design note 89), or memory to spare. The
    student's process's own words (message, where) never make it so alone."""
    err = doc.get("error") if isinstance(doc, dict) else None
    if not (
        isinstance(err, dict)  # so ``doc`` is a dict too
        and doc.get("status") == "error"
        and err.get("by") == "run"
        and err.get("kind") == "cuda"
        and err.get("message") == OUT_OF_MEMORY
        and isinstance(err.get("gpu_memory"), dict)
    ):
        return None
    free, total = err["gpu_memory"].get("free_bytes"), err["gpu_memory"].get("total_bytes")
    if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in (free, total)):
        return None
    if free < max(CROWDED_FREE_BYTES, CROWDED_FREE_FRACTION * total):
        return free, total
    return None


# nvidia-smi's answer is evidence only (held_gpu_mib): a driver that hangs must not hold a run
NVIDIA_SMI_TIMEOUT_S = 3.0


def held_gpu_mib(roots: Collection[int]) -> int | None:
    """The GPU memory, in MiB, that the processes ``roots`` (host pids: a student's process
    as the grader started it, ``runner.run``'s ``started``) and every process descending from
    them (``cpus.processes``: the sandbox's and the lab binary's, whose pids are the host's
    in /proc) hold now, as ``nvidia-smi --query-compute-apps=pid,used_memory --format=csv,
    noheader,nounits`` lists them (one "PID, MIB" line per process with a CUDA context); the
    sum over those listed with a number. None where nvidia-smi is not on PATH, fails, takes
    longer than ``NVIDIA_SMI_TIMEOUT_S``, or lists none of them with a number (a container's
    driver often lists no process, or "[N/A]"). Never raises: it is evidence for a message
    and report.json (design note 88), and never decides a grade."""
    smi = shutil.which("nvidia-smi")
    if smi is None or not roots:
        return None
    tree = cpus.descendants(roots)
    try:
        out = subprocess.run(
            [smi, "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=NVIDIA_SMI_TIMEOUT_S, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    held = None
    for line in out.stdout.splitlines():
        pid, _, mib = (field.strip() for field in line.partition(","))
        if pid.isdigit() and int(pid) in tree and mib.isdigit():
            held = (held or 0) + int(mib)
    return held


def students_oom_text(held_mib: int | None) -> str:
    """Why a timed case is lost where its judge ran out of GPU memory after its gate with the
    GPU otherwise idle (design note 88): the student's process's doing, and the fix;
    ``held_mib``: ``held_gpu_mib``'s figure then, where there was one."""
    held = f"; your process held {held_mib / 1024:.1f} GiB" if held_mib is not None else ""
    return (
        "the judge ran out of GPU memory while your process ran beside it, on a GPU otherwise "
        f"idle where the course's own solution fits{held}: your process must free what it "
        "allocates and not allocate beyond what its launches need (no buffer, pool or cache "
        "kept across launches, nothing allocated ahead to hold the GPU)"
    )


def _students_oom(argv: list[str], outcome: runner.Outcome, held_mib: int | None) -> CaseRun:
    """The CaseRun of a timed case whose judge ran out of GPU memory after its gate with the
    GPU otherwise idle: the student's process's doing (``students_oom_text``; design note
    88), ``held_mib`` its process tree's GPU memory then, where measured."""
    return CaseRun(
        argv, outcome, None, students_oom_text(held_mib), judge_out_of_memory=True,
        held_gpu_mib=held_mib,
    )


def _says_judge_out_of_memory(text: bytes) -> bool:
    """Whether ``text``, the judge's output (one document, or all it wrote so far), is the
    judge's own out of GPU memory (``is_judge_out_of_memory``): parsed only where CUDA's
    words are in it."""
    if OUT_OF_MEMORY.encode() not in text:
        return False
    doc, _ = _parse_doc(text.decode("utf-8", "replace"))
    return is_judge_out_of_memory(doc)


def _lingered(judge, judge_log: str) -> GraderError:
    """The course's fault where a timed judge ended its run before its HELLO (no student's
    process was started) but its process did not end within ``JUDGE_GRACE_S``."""
    return GraderError(
        f"the judge ({judge}) ended its run before its HELLO but did not end within "
        f"{JUDGE_GRACE_S} s" + (f": {judge_log.strip()}" if judge_log.strip() else "")
    )


class JudgeOutOfMemory(GraderError):
    """The judge's own failure was running out of GPU memory (``error.by`` "judge", kind
    "cuda", message ``OUT_OF_MEMORY``: a device allocation's; its host memory's is kind "host",
    a plain GraderError): in a batch, other gradings' judges may hold the GPU's memory at
    their gates (design note 84). A course fault like any judge failure, with the same
    message. ``before_gate``: set by ``_timed_cases_once`` where the judge of a gated timed
    run wrote that failure instead of its gate line, in its set-up: no student's process of
    that run existed yet and nothing was timed (the one case ``grade._EarlyTimedRuns`` makes
    again later); the judge's process group is gone by the time it is raised there. The same
    in ``run_judged``; there, a judge without a gate that ended before its student's process
    started is ``before_gate`` too. ``held_mib``: the GPU memory its student's process tree
    held when the document came (``held_gpu_mib``), where it was measured (design note 88)."""

    before_gate = False
    held_mib: int | None = None


def _group_alive(pgid: int) -> bool:
    """Whether process group ``pgid`` holds a process that is not a zombie (a zombie's memory,
    its GPU memory included, is freed already)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return any(
        len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z"
        for _, fields in cpus.processes()  # state, ppid, pgrp, ...
    )


def _await_group_end(pgid: int, timeout_s: float) -> bool:
    """Waits until process group ``pgid`` (a judge's session, ``_start_judge``: the judge and
    its empty-kernel server) has no live process left, at most ``timeout_s``: whether it
    has none."""
    deadline = time.monotonic() + timeout_s
    while _group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def _raise_judge_failure(doc: dict, exercise: str, size, judge_log: str) -> None:
    """Raises GraderError when ``doc`` is the judge's own failure (``error.by`` "judge": a CUDA
    call of the course's, a set-up it rejected, the baseline wrong, its host memory run out,
    its empty-kernel server not started for a timing, kind "harness" naming the cause):
    a course fault, named with the judge's words (kind "host": ``HOST_MEMORY_FAULT`` after
    them); ``JudgeOutOfMemory`` where it ran out of GPU memory."""
    err = doc.get("error")
    if doc.get("status") != "error" or not isinstance(err, dict) or err.get("by") != "judge":
        return
    where = f" at {err['where']}" if err.get("where") else ""
    expr = f" ({err['expr']})" if err.get("expr") else ""
    raise (JudgeOutOfMemory if is_judge_out_of_memory(doc) else GraderError)(
        f"the judge failed in {exercise} at {'x'.join(map(str, size))}: "
        f"{err.get('kind')}: {err.get('message')}{where}{expr}"
        + (f"; {HOST_MEMORY_FAULT}" if err.get("kind") == "host" else "")
        + (f"; its log: {judge_log.strip()[-500:]}" if judge_log.strip() else "")
    )


def _start_judge(
    judge: Path,
    args: list[str],
    ours: socket.socket,
    cwd: str,
    log,
    gated: bool = False,
    background: bool = False,
    kept_cpus: bool = False,
):
    """Starts ``judge ARGS --peer FD [--gate]`` on our end of the socket pair (closed here
    once the judge holds it): its own session, its document on a pipe only the grader reads,
    its standard input a pipe when gated, its stderr into ``log``; nicer when
    ``background`` (grader.run), its CUDA context with one hardware work queue
    (``runner.child_env``); on the CPUs kept for timed runs when ``kept_cpus``
    (grader.cpus)."""
    judge_proc = subprocess.Popen(
        [
            *runner.priority_prefix(background, kept_cpus),
            str(judge),
            *args,
            "--peer",
            str(ours.fileno()),
            *(["--gate"] if gated else []),
        ],
        cwd=cwd,
        env=runner.child_env(None, background),
        stdin=subprocess.PIPE if gated else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=log,
        start_new_session=True,
        pass_fds=(ours.fileno(),),
    )
    ours.close()
    return judge_proc


def _serve_argv(binary: Path, theirs: socket.socket) -> list[str]:
    return [str(binary), "--serve", str(theirs.fileno())]


def _serve(argv, theirs: socket.socket, cwd: str, timeout_s: float, box, **more) -> runner.Outcome:
    """The student's process of a judged run (``lab --serve FD``) in the sandbox, its end of
    the socket passed in; ``more``: runner.run's deadline_fn, cpu_s, background, timed and
    started."""
    return runner.run(
        argv,
        timeout_s=timeout_s,
        cwd=cwd,
        sandbox=box or sandbox.choose(),
        readable=run_readable(argv[0]),
        pass_fds=(theirs.fileno(),),
        **more,
    )


def run_judged(
    judge: Path,
    binary: Path,
    exercise: str,
    size: tuple[int, ...],
    seed: int,
    timeout_s: float,
    version: int,
    time_reps: int | None = None,
    box: sandbox.Sandbox | None = None,
    gate: Callable[[], ContextManager[None]] | None = None,
    background: bool = False,
    info_baseline: bool = False,
    alone: bool = False,
) -> CaseRun:
    """One judged run of an exercise (timed by the judge with ``time_reps``; with
    ``info_baseline``, its baseline only in ``--info-baseline``'s fewer repetitions: the
    exercise's grade does not divide by its time, ``PerformanceSpec.info_baseline``). ``gate``
    (timed runs): a context held from the end of the judge's set-up to the end of the run,
    e.g. ``GpuLock.upgrade``: the judge (``--gate``) says "gate" once its inputs and
    references are made and waits for the grader's byte on its standard input before it
    times anything (docs/protocol.md, "Judged runs"). ``background``: an untimed run that
    does not hold the GPU alone runs nicer (grader.run); a timed one never does, and runs on
    the CPUs kept for timed runs (grader.cpus): a gated judge sets up beside the other work
    and is moved there at its gate, the student's process starts there. ``alone``: as
    ``run_judged_timed_cases``' (design note 88): a judge out of GPU memory after its gate
    (without a gate: one still running when the student's process started) is the run's
    result, the student's; else ``JudgeOutOfMemory``, ``before_gate`` where its student's
    process had not started, its student's process tree's GPU memory (``held_gpu_mib``)
    measured as its document came."""
    args = case_args(exercise, size, seed, time_reps)
    timed = time_reps is not None
    if timed and info_baseline:
        args += ["--info-baseline", exercise]
    background = background and not timed
    gated = timed and gate is not None
    expect = {"exercise": exercise, "size": size, "seed": seed, "judged": True}
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with (
        tempfile.TemporaryDirectory(prefix="grader-judge-") as jtmp,
        tempfile.TemporaryDirectory(prefix="grader-run-") as tmp,
        open(Path(jtmp) / "judge.log", "w+") as log,
        contextlib.ExitStack() as held_gate,
    ):
        # The document comes back on the judge's standard output, a pipe only the grader
        # holds: no file the student's process could name (without the sandbox it shares
        # the user and the /tmp), and the judge makes itself undumpable, so its /proc/PID/fd
        # is closed to other processes of the user too (docs/design-notes.md, note 22).
        judge_proc = _start_judge(
            judge, args, ours, jtmp, log, gated, background, kept_cpus=timed and not gated
        )
        state, head = (
            _through_gate(judge_proc, gate, held_gate, timeout_s) if gated else ("", b"")
        )
        # a timed judge that ended before its HELLO (its document, if any, in its place) gets
        # no student's process: nothing would answer it (as _timed_cases_once)
        serve = time_reps is None or (
            state != "done" and _await_hello(theirs, judge_proc, timeout_s)
        )
        # timed: before its gate, or (without one) ended before the student's process started
        before_gate = state == "done" if gated else timed and judge_proc.poll() is not None
        argv = _serve_argv(binary, theirs)
        pids: list[int] = []  # the student's process as started (runner.run's ``started``)
        held_mib: list[int | None] = []  # its GPU memory when the judge ran out (note 88)
        got = bytearray()

        def read() -> None:  # the judge's output as it comes, measured at an out of memory
            for chunk in iter(lambda: judge_proc.stdout.read1(65536), b""):
                got.extend(chunk)
                if pids and not held_mib and _says_judge_out_of_memory(got):
                    held_mib.append(held_gpu_mib(pids))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        stopped = False  # (runner.Stopped: nothing of the judge is read, so not waited for)
        try:
            outcome = (
                _serve(
                    argv, theirs, tmp, timeout_s, box, background=background, timed=timed,
                    started=pids.append,
                )
                if serve
                else runner.Outcome("not_started")
            )
        except runner.Stopped:
            stopped = True
            raise
        finally:
            theirs.close()  # the judge sees the student's side closed
            held, text = False, b""
            if not stopped:
                try:
                    judge_proc.wait(timeout=JUDGE_GRACE_S)
                except subprocess.TimeoutExpired:
                    held = True
            _kill(judge_proc)
            reader.join(timeout=5)
            if not stopped and not held:
                text = bytes(got)
            judge_proc.stdout.close()
        out = head + text
        if gated and out.startswith(GATE_LINE + b"\n"):  # a gate reached after the deadline
            out = out[len(GATE_LINE) + 1 :]
        doc, problem = _parse_doc(out.decode("utf-8", "replace"))
        log.seek(0)
        judge_log = log.read()[-2000:]
    if doc is None and held and not serve:  # nothing of the student's ran: the judge's own
        raise _lingered(judge, judge_log)
    if doc is None and held:
        # Something of the student's kept its end of the socket open after the process
        # ended (a child it left behind): the judge waited for it in vain.
        return CaseRun(
            argv,
            outcome,
            None,
            f"left a process behind that kept the judge waiting for {JUDGE_GRACE_S} s",
        )
    if doc is None:
        raise GraderError(
            f"the judge ({judge}) wrote no run document"
            + (f" ({problem})" if problem else "")
            + (f": {judge_log.strip()}" if judge_log.strip() else "")
        )
    if isinstance(doc, dict) and isinstance(doc.get("error"), dict):
        err = doc["error"]
        if err.get("kind") == "worker":
            return CaseRun(argv, outcome, None, _describe_missing(outcome, timeout_s))
        mib = held_mib[0] if held_mib else None
        if alone and timed and not before_gate and is_judge_out_of_memory(doc):
            return _students_oom(argv, outcome, mib)  # the GPU otherwise idle: theirs
        try:
            _raise_judge_failure(doc, exercise, size, judge_log)
        except JudgeOutOfMemory as e:
            e.before_gate, e.held_mib = before_gate, mib
            raise
    problem = validate(doc, version, expect)
    if problem:
        raise GraderError(f"the judge's run document is not valid: {problem}")
    return CaseRun(argv, outcome, doc, None)


def _judge_lines(
    stream,
    lines: list[bytes],
    progress: list[float],
    pending: bytes = b"",
    arrivals=None,
    deferred=None,
    launch=None,
    done=None,
    on_oom=None,
) -> None:
    """Reads the judge's standard output into ``lines`` (one document each), setting
    ``progress[0]`` to the time each arrives (a reader thread of run_judged_cases and
    run_judged_timed_cases; ``pending``: what was read before, ``arrivals``: a list that
    gets each line's time). A "gate" line is not a document (a gate reached late), nor a
    "defer K" line, whose K goes into ``deferred``, nor "launch" and "landed", which set
    ``launch[0]`` to the time a launch was sent and back to None when it answered, and leave
    ``progress[0]`` as it was (a case's limit runs from the line before its own, its
    launch's within it), nor "done", which sets ``done[0]`` to the time it came where a list
    is given, and leaves ``progress[0]`` too. ``on_oom``: called (no arguments) in this
    thread once a document that is the judge's own out of memory (``is_judge_out_of_memory``)
    is in ``lines``, before the next is read: the moment its student's process is measured
    (design note 88)."""

    def take(complete):
        now = time.monotonic()
        moved = False
        for line in complete:
            if line == DONE_LINE:
                if done is not None:
                    done[0] = now
                continue
            if line in (LAUNCH_LINE, LANDED_LINE):
                if launch is not None:
                    launch[0] = now if line == LAUNCH_LINE else None
                continue
            moved = True
            if launch is not None:
                launch[0] = None  # whatever the judge says after a launch, it has landed
            if line.startswith(DEFER_LINE):
                if deferred is not None and line[len(DEFER_LINE) :].strip().isdigit():
                    deferred.append(int(line[len(DEFER_LINE) :]))
            elif line != GATE_LINE:
                lines.append(line)
                if arrivals is not None:
                    arrivals.append(now)
                if on_oom is not None and _says_judge_out_of_memory(line):
                    on_oom()
        if moved:
            progress[0] = now

    *complete, pending = pending.split(b"\n")
    take(complete)
    for chunk in iter(lambda: stream.read1(65536), b""):
        pending += chunk
        *complete, pending = pending.split(b"\n")
        if complete:
            take(complete)
    if pending.strip():
        take([pending])


def _case_runs(
    judge, expected, lines, argv, outcome, timeout_s, version, judge_log, launch_limit_s=None,
    students_oom=None,
) -> tuple[list[CaseRun], bool]:
    """Each case's CaseRun from the judge's document lines, in order (``expected``:
    (exercise, size, seed) each), as its own run_judged would give it, and whether the run
    stopped early: at a failure of the student's process (a worker error: the process is
    gone; status "error": a failed launch ended it), after which the rest run in a fresh
    judged run, or at "no_device", the answer of every case. Not stopped, a case without a
    document is the caller's to explain. Raises GraderError for an invalid document or the
    judge's own failure. ``launch_limit_s``: the launch's limit, when it was the one that
    ended the run. ``students_oom``: where given (a timed run past its gate with the GPU
    otherwise idle, design note 88), the judge's own out of memory is no grader error but
    the case's CaseRun it returns (no arguments), and the run stops there, the rest in a
    fresh judged run."""
    results: list[CaseRun] = []
    for (exercise, size, seed), line in zip(expected, lines):
        doc, problem = _parse_doc(line.decode("utf-8", "replace"))
        if doc is None:
            raise GraderError(f"the judge ({judge}) wrote an invalid run document ({problem})")
        if students_oom is not None and is_judge_out_of_memory(doc):
            results.append(students_oom())
            return results, True  # the judge is gone: the rest in a fresh judged run
        # (the judge's own failure may be in a later case's set-up: it names that case)
        _raise_judge_failure(
            doc, doc.get("exercise") or exercise, doc.get("size") or size, judge_log
        )
        if isinstance(doc.get("error"), dict) and doc["error"].get("kind") == "worker":
            why = (
                launch_hung_text(launch_limit_s)
                if launch_limit_s is not None
                else _describe_missing(outcome, timeout_s)
            )
            results.append(CaseRun(argv, outcome, None, why, launch_limit_s=launch_limit_s))
            return results, True  # the student's process is gone: the rest in fresh ones
        expect = {"exercise": exercise, "size": size, "seed": seed, "judged": True}
        problem = validate(doc, version, expect)
        if problem:
            raise GraderError(f"the judge's run document is not valid: {problem}")
        results.append(CaseRun(argv, outcome, doc, None))
        if doc["status"] == "no_device":
            # the judge found no device (gone since the grading's probe) and ran no case:
            # that is every case's answer, as each case's own run_judged would give it
            return results + [results[-1]] * (len(expected) - len(results)), True
        if doc["status"] == "error":
            return results, True  # a failed launch ended the student's process (cml_lab_fail)
    for line in lines[len(expected) :]:  # one more: the judge's own failure at its end
        doc, problem = _parse_doc(line.decode("utf-8", "replace"))
        if isinstance(doc, dict):
            _raise_judge_failure(doc, doc.get("exercise") or "?", doc.get("size") or (), judge_log)
        raise GraderError(
            f"the judge ({judge}) wrote more run documents than its {len(expected)} cases"
        )
    return results, False


def _too_few(judge, got: int, want: int, judge_log: str) -> str:
    return f"the judge ({judge}) wrote {got} run documents for {want} cases" + (
        f": {judge_log.strip()}" if judge_log.strip() else ""
    )


def _serve_cases(
    judge_proc, reader, argv, theirs, cwd, timeout_s, box, progress, n_cases, launch=None,
    launch_s=None, ends=None, **more
) -> tuple[runner.Outcome, bool, bool]:
    """The student's process of a judged run of ``n_cases`` cases: each case has
    ``timeout_s`` from the end of the one before (the judge's line, ``progress[0]``), and a
    launch of it ``launch_s`` from its "launch" line (``launch[0]``, None between launches;
    ``launch_s`` None: no limit of its own); then the judge's end, at most JUDGE_GRACE_S, and
    the reader thread's. (outcome, held, launch_hung): held when the judge was still waiting
    (for something the student's process left behind holding its end of the socket);
    launch_hung when the limit that ended it was the launch's. ``ends``: a dict given gets
    the time (``time.monotonic()``) the student's process ended ("student") and the judge
    ended ("judge"). ``more``: _serve's background or timed."""
    held = False
    bound = [False]  # the deadline last asked for was the launch's

    def deadline() -> float:
        case = progress[0] + timeout_s
        started = launch[0] if launch is not None else None
        bound[0] = started is not None and launch_s is not None and started + launch_s < case
        return started + launch_s if bound[0] else case

    stopped = False  # (runner.Stopped: nothing of the judge is read, so not waited for)
    try:
        progress[0] = time.monotonic()
        outcome = _serve(
            argv,
            theirs,
            cwd,
            timeout_s,
            box,
            deadline_fn=deadline,
            cpu_s=timeout_s * n_cases,
            **more,
        )
    except runner.Stopped:
        stopped = True
        raise
    finally:
        theirs.close()
        if ends is not None:
            ends["student"] = time.monotonic()
        try:
            if not stopped:
                try:
                    judge_proc.wait(timeout=JUDGE_GRACE_S)
                except subprocess.TimeoutExpired:
                    held = True
        finally:  # (a wait that raised too: an interrupt)
            _kill(judge_proc)
            if ends is not None:
                ends["judge"] = time.monotonic()
            reader.join(timeout=5)
    return outcome, held, outcome.kind == "timeout" and bound[0]


def _judge_ended(judge_proc, reader, ends: dict) -> bool:
    """``_serve_cases``' end for a judged run whose student's process was never started (its
    judge ended before its HELLO, ``_await_hello``): the judge's end, at most JUDGE_GRACE_S
    (its time into ``ends["judge"]``; no "student"), then its process group killed and the
    reader thread's end. Whether the judge ended within that wait."""
    ended = False
    try:
        judge_proc.wait(timeout=JUDGE_GRACE_S)
        ended = True
    except subprocess.TimeoutExpired:
        pass
    finally:  # (a wait that raised too: an interrupt)
        _kill(judge_proc)
        ends["judge"] = time.monotonic()
        reader.join(timeout=5)
    return ended


def _run_cases_once(
    judge, binary, exercise, cases, timeout_s, version, box, launch_s=None
) -> list[CaseRun]:
    """One judge and one student's process over ``cases`` (run_judged_cases: (size, seed)
    each, of ``exercise``; run_judged_lab_cases: (size, seed, exercise)): the results of the
    cases they finished, and of the one that failed (crash, time limit: ``timeout_s`` a case,
    ``launch_s`` a launch of it) if any."""
    args = case_list_args(exercise, cases)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    lines: list[bytes] = []
    progress = [time.monotonic()]
    launch: list[float | None] = [None]
    with (
        tempfile.TemporaryDirectory(prefix="grader-judge-") as jtmp,
        tempfile.TemporaryDirectory(prefix="grader-run-") as tmp,
        open(Path(jtmp) / "judge.log", "w+") as log,
    ):
        # correctness cases: background work (grader.run), never timed
        judge_proc = _start_judge(judge, args, ours, jtmp, log, background=True)
        reader = threading.Thread(
            target=_judge_lines,
            args=(judge_proc.stdout, lines, progress),
            kwargs={"launch": launch},
            daemon=True,
        )
        reader.start()
        argv = _serve_argv(binary, theirs)
        outcome, _, launch_hung = _serve_cases(
            judge_proc, reader, argv, theirs, tmp, timeout_s, box, progress, len(cases),
            launch=launch, launch_s=launch_s, background=True,
        )
        log.seek(0)
        judge_log = log.read()[-2000:]
    expected = [(named[0] if named else exercise, size, seed) for size, seed, *named in cases]
    results, stopped = _case_runs(
        judge, expected, lines, argv, outcome, timeout_s, version, judge_log,
        launch_s if launch_hung else None,
    )
    if not stopped and len(results) < len(cases):
        raise GraderError(_too_few(judge, len(results), len(cases), judge_log))
    return results


def run_judged_cases(
    judge: Path,
    binary: Path,
    exercise: str,
    cases: list[tuple[tuple[int, ...], int]],
    timeout_s: float,
    version: int,
    box: sandbox.Sandbox | None = None,
    between: Callable[[], object] | None = None,
    launch_s: float | None = None,
) -> list[CaseRun]:
    """The untimed judged runs of ``cases`` ((size, seed) each) with one judge and one
    student's process (judge --case ..., docs/protocol.md, "Judged runs"): one CaseRun per
    case, in order, each as run_judged would give it. Each case has ``timeout_s`` from the
    end of the one before, and its launch ``launch_s`` (None: no limit of its own). A case
    whose student's process crashed, or went past its limit, is that case's result; the
    cases after a crash run again in fresh processes, and none run after a case that went
    past its limit (one hang is enough evidence: a hanging kernel must not cost the limit
    once per case). Issue 15: one CUDA context pair per exercise
    instead of one per case. ``between``: as ``run_judged_lab_cases``'s."""
    results: list[CaseRun] = []
    while len(results) < len(cases):
        if between is not None and results:
            between()
        got = _run_cases_once(
            judge, binary, exercise, cases[len(results) :], timeout_s, version, box, launch_s
        )
        results.extend(got)
        if got[-1].doc is None and got[-1].outcome.kind == "timeout":
            break
    return results


LabCase = tuple[str, tuple[int, ...], int]  # a case of a run over the lab: exercise, size, seed

# A crash series' next fresh process started beside the one before it (run_judged_lab_cases,
# _crash_series_round, design note 85); False: one process at a time, the order it keeps
SPECULATE_CRASH_SERIES = True


def run_judged_lab_cases(
    judge: Path, binary: Path, cases: list[LabCase], timeout_s: float, version: int,
    box: sandbox.Sandbox | None = None, between: Callable[[], object] | None = None,
    launch_s: float | None = None,
) -> dict[str, list[CaseRun]]:
    """``run_judged_cases`` over the cases of several exercises ((exercise, size, seed) each,
    an exercise's cases together; a batch's grading, issue 15): one judge and one student's
    process for all of them (``--case EX:...``; a batch's grading runs two groups of its
    exercises side by side, one through ``lab_cases_once`` in a thread of its own,
    grade.Grading._correctness_lab_runs). Each exercise's CaseRuns, in its cases' order,
    each as ``run_judged_cases`` would give it: the cases after a crash run again in fresh
    processes; after a case past its limit, none of that exercise's later cases run (its
    list ends there), and the next exercise's cases go on in fresh processes. ``between``:
    called before each round of fresh processes, when none of these runs is in flight (a
    batch's grading lets the timed runs waiting pass there once its hold has lasted
    ``grade.PASS_AFTER_S``: ``GpuLock.let_timed_runs_pass``, design notes 54 and 69);
    ``launch_s``: as ``run_judged_cases``'.

    A round is one fresh process, or two in a crash series: once a process has failed at
    its first case (``_failed_first``) with two or more cases left, the next round starts
    the process over those cases and, beside it, the one the order of one process at a time
    would start after it should it fail at its first case too (``_crash_series_round``,
    design note 85; a submission that crashes every case, h16: half the rounds). The
    results are those of that order: the same processes over the same cases and seeds, each
    started fresh, their CaseRuns appended in the same order."""
    results: dict[str, list[CaseRun]] = {ex: [] for ex, _, _ in cases}
    todo = list(cases)
    series = False  # the last process failed at its first case (_failed_first)
    while todo:
        if between is not None and len(todo) < len(cases):
            between()
        if series and len(todo) > 1 and SPECULATE_CRASH_SERIES:
            steps = _crash_series_round(judge, binary, todo, timeout_s, version, box, launch_s)
        else:
            got, left = lab_cases_once(judge, binary, todo, timeout_s, version, box, launch_s)
            steps = [(todo, got, left)]
        for ran, got, left in steps:
            for ex, runs in got.items():
                results[ex] += runs
        ran, got, todo = steps[-1]
        series = _failed_first(ran, got, todo)
    return results


def _failed_first(cases: list[LabCase], got: dict[str, list[CaseRun]], left) -> bool:
    """Whether the process of ``lab_cases_once(cases)`` (its results ``got`` and ``left``)
    ended at its first case, failed there other than at a time limit (a crash, a limit of
    memory or output, a failed launch), leaving every later case to the next fresh process:
    then that process is ``lab_cases_once(cases[1:])``. (After a time limit the hung
    exercise's later cases are dropped: a hang never starts a series.)"""
    first = got[cases[0][0]][0]
    return left == cases[1:] and not (first.doc is None and first.outcome.kind == "timeout")


def _crash_series_round(
    judge, binary, todo: list[LabCase], timeout_s, version, box, launch_s
) -> list[tuple[list[LabCase], dict[str, list[CaseRun]], list[LabCase]]]:
    """A round of ``run_judged_lab_cases`` in a crash series (design note 85): the process
    over ``todo`` (``lab_cases_once``) and, in a thread of its own, started with it, the one
    over ``todo[1:]``: the fresh process that the order of one process at a time starts next
    exactly when the first fails at its first case (``_failed_first``). Each step of the
    round that counts, in order: (its cases, its results by exercise, the cases it left).

    The results are that order's: where the first failed at its first case, the second's
    (its CaseRuns, its cases left, or its GraderError or Stopped) are those of the process
    that order would have started next over the same cases, seeds, judge and binary, fresh
    as it would have been (no state passes between processes; each case's limit runs from
    its own process's progress); anywhere else (more cases done, a time limit, an error)
    the second is stopped (``runner.stoppable``: killed within a poll, its outcome never
    read) and nothing of it counts, as that order would not have started it. The second
    runs with its own stop check: stopped once not wanted, or once the thread's own check
    (a batch's drain stop, ``runner.carried_stops``) says so; on the CPUs the caller's runs
    have (``cpus.carried``). The round ends once both have ended: a Stopped or GraderError
    of the first is raised after the second has been stopped, so ``between`` is never
    called with a run of the round in flight. Resources: two judged runs at once, two
    student's processes at the host-memory limit at worst (12 GiB, within the runs' joint
    limit, ``cgroup``); a third where a batch's grading's other group runs beside them."""
    ahead = todo[1:]
    unwanted = threading.Event()
    outer = runner.stop_check()

    def check(start: float) -> bool:
        return unwanted.is_set() or (outer is not None and outer(start))

    def speculate():
        with runner.stoppable(check):
            return lab_cases_once(judge, binary, ahead, timeout_s, version, box, launch_s)

    wanted = False
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="crash-series") as pool:
        second = pool.submit(cpus.carried(speculate))
        try:
            got, left = lab_cases_once(judge, binary, todo, timeout_s, version, box, launch_s)
            wanted = _failed_first(todo, got, left)
        finally:
            if not wanted:
                unwanted.set()
        # (leaving the pool waits for the second's end: stopped, or its own)
    steps = [(todo, got, left)]
    if wanted:
        more, rest = second.result()  # its GraderError or Stopped: the next process's own
        steps.append((ahead, more, rest))
    return steps


def lab_cases_once(
    judge: Path, binary: Path, cases: list[LabCase], timeout_s: float, version: int,
    box: sandbox.Sandbox | None = None, launch_s: float | None = None,
) -> tuple[dict[str, list[CaseRun]], list[LabCase]]:
    """One judge and one student's process over ``cases`` (``run_judged_lab_cases``' step):
    the CaseRuns of the cases they finished and of the one that failed, by exercise (those
    with none left out), and the cases still to run in a fresh process: none after a
    failure's when all finished, and none of a hung exercise's."""
    first = cases[0][0]
    got = _run_cases_once(
        judge, binary, first, [(size, seed, ex) for ex, size, seed in cases], timeout_s,
        version, box, launch_s,
    )
    ran, todo = cases[: len(got)], cases[len(got) :]
    results: dict[str, list[CaseRun]] = {}
    for (ex, _, _), run in zip(ran, got):
        results.setdefault(ex, []).append(run)
    if got[-1].doc is None and got[-1].outcome.kind == "timeout":
        hung = ran[-1][0]
        todo = [case for case in todo if case[0] != hung]
    return results, todo


@dataclass
class TimedCase:
    """One exercise's case of a timed judged run over the lab (run_judged_timed_cases): its
    run as run_judged would give it, and ``wall_s``, the grader's wall clock from the
    previous case's document to its own (the first case's from the judge's start: every
    case's set-up, the wait at the gate and every baseline timed alone included).
    ``tail_ms``, on the last case of a gated run only: how long after its document the
    student's process had ended ("student"; slightly negative where it ended before the
    reader thread stamped the document), then the judge ("judge"), and the GPU's hold
    was let go ("released"), in milliseconds on the grader's clock (design note 80: the
    part of a hold that is neither the judge's phases nor the gate's wait); and, where the
    judge wrote it, its "done" line ("done": no GPU work of its own left but its context's
    end, note 82). "released" comes after the gate's exit: through ``GpuLock.upgrade`` that
    includes taking the shared hold back behind the timed runs waiting."""

    run: CaseRun
    wall_s: float
    tail_ms: dict[str, float] | None = None


def _timed_cases_once(
    judge, binary, cases, reps, timeout_s, version, box, gate, info_baselines=(), alone=False
) -> list[TimedCase]:
    """One gated judge and one student's process over ``cases`` ((exercise, size, seed)
    each, timed with ``reps``, the baselines of ``info_baselines``' exercises in fewer): the
    results of the cases they finished, and of the one that failed (crash, time limit, a
    process left behind; with ``alone``, the judge out of GPU memory past its gate: design
    note 88) if any. A judge out of memory is measured against its student's process tree
    as its document comes (``held_gpu_mib``)."""
    first = cases[0][0]
    args = case_list_args(first, [(size, seed, ex) for ex, size, seed in cases])
    args += ["--time", "--reps", str(reps)]
    for ex, _, _ in cases:
        if ex in info_baselines:
            args += ["--info-baseline", ex]
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    lines: list[bytes] = []
    arrivals: list[float] = []
    deferred: list[int] = []  # "defer K": the judge times the first K cases only
    started = time.monotonic()
    progress = [started]
    gated = gate is not None
    ends: dict[str, float] = {}
    done: list[float | None] = [None]  # when the judge's "done" line came (_judge_lines)
    pids: list[int] = []  # the student's process as started (runner.run's ``started``)
    held_mib: list[int | None] = []  # its GPU memory when the judge ran out (design note 88)

    def measure() -> None:
        if pids and not held_mib:  # (none before the student's process exists)
            held_mib.append(held_gpu_mib(pids))

    with (
        tempfile.TemporaryDirectory(prefix="grader-judge-") as jtmp,
        tempfile.TemporaryDirectory(prefix="grader-run-") as tmp,
        open(Path(jtmp) / "judge.log", "w+") as log,
        contextlib.closing(theirs),
        contextlib.ExitStack() as held_gate,
    ):
        # called last as the stack closes: once the gate's hold (entered later) is let go
        held_gate.callback(lambda: ends.__setitem__("released", time.monotonic()))
        judge_proc = _start_judge(judge, args, ours, jtmp, log, gated, kept_cpus=not gated)
        # every case is set up before the one gate: the sum of their set-ups
        state, head = (
            _through_gate(judge_proc, gate, held_gate, timeout_s * len(cases))
            if gated
            else ("", b"")
        )
        reader = threading.Thread(
            target=_judge_lines,
            args=(judge_proc.stdout, lines, progress, head, arrivals, deferred),
            kwargs={"done": done, "on_oom": measure},
            daemon=True,
        )
        reader.start()
        # every case's baseline is timed alone before the student's process exists; a judge
        # whose document came in place of its gate line (its set-up's failure, design note
        # 84), or that ended before its HELLO, gets none: nothing would answer it
        serve = state != "done" and _await_hello(theirs, judge_proc, timeout_s * len(cases))
        argv = _serve_argv(binary, theirs)
        lingered = False  # a judge that ended its run before the hello but not its process
        if serve:
            outcome, held, _ = _serve_cases(
                judge_proc, reader, argv, theirs, tmp, timeout_s, box, progress, len(cases),
                ends=ends, timed=True, started=pids.append,
            )
        else:
            outcome, held = runner.Outcome("not_started"), False
            theirs.close()  # as _serve_cases does: the judge sees the student's side closed
            lingered = not _judge_ended(judge_proc, reader, ends)
        log.seek(0)
        judge_log = log.read()[-2000:]
    if deferred and 0 < deferred[0] < len(cases):
        cases = cases[: deferred[0]]  # the rest in a fresh run (run_judged_timed_cases)
    mib = held_mib[0] if held_mib else None
    try:
        runs, stopped = _case_runs(
            judge, cases, lines, argv, outcome, timeout_s, version, judge_log,
            # (alone, past its gate: design note 88)
            students_oom=(
                functools.partial(_students_oom, argv, outcome, mib)
                if alone and state != "done"
                else None
            ),
        )
    except JudgeOutOfMemory as e:
        # before_gate where its document came in place of its gate line: the set-up's
        # failure, before any student's process of this run (design note 84). Whatever the
        # judge left in its process group (its empty-kernel server, killed with it) ends
        # before this raises, and its memory with it.
        e.before_gate = state == "done"
        e.held_mib = mib
        _await_group_end(judge_proc.pid, JUDGE_GRACE_S)
        raise
    if lingered:  # nothing of the student's ran: the course's judge kept itself going
        raise _lingered(judge, judge_log)
    marks = [started, *arrivals]  # a case's wall time: from the previous document to its own
    results = [
        TimedCase(run, marks[k + 1] - marks[k] if k + 1 < len(marks) else 0.0)
        for k, run in enumerate(runs)
    ]
    if gated and not held and len(results) == len(arrivals) == len(cases) and len(ends) == 3:
        # where the hold went after the last document: the processes' ends, the judge's "done"
        # (its GPU work over but its context's end: design note 82), the lock let go
        marks_ms = {**ends, "done": done[0]} if done[0] is not None else ends
        results[-1].tail_ms = {k: round((t - arrivals[-1]) * 1000, 1) for k, t in marks_ms.items()}
    if stopped:
        return results
    if held and done[0] is not None:
        # "done" comes only once every holder of the socket has closed it (design note 82):
        # nothing of the student's kept the judge; the judge itself did not end (a review's
        # case, session 35): a course fault, not the student's process left behind
        raise GraderError(
            f"the judge ({judge}) said it was done but did not end within {JUDGE_GRACE_S} s"
            + (f": {judge_log.strip()}" if judge_log.strip() else "")
        )
    if held:
        # Something of the student's kept its end of the socket open after the process
        # ended (a child it left behind): the judge waited for it in vain. As in run_judged,
        # where the judge's document is then lost, the case it waited in gets that result:
        # the one without a document, else the last.
        why = f"left a process behind that kept the judge waiting for {JUDGE_GRACE_S} s"
        if len(results) == len(cases):
            results.pop()
        wall = time.monotonic() - marks[len(results)]  # from the previous case's document
        results.append(TimedCase(CaseRun(argv, outcome, None, why), wall))
    elif len(results) < len(cases):
        raise GraderError(_too_few(judge, len(results), len(cases), judge_log))
    return results


def run_judged_timed_cases(
    judge: Path,
    binary: Path,
    cases: list[tuple[str, tuple[int, ...], int]],
    reps: int,
    timeout_s: float,
    version: int,
    box: sandbox.Sandbox | None = None,
    gate: Callable[[], ContextManager[None]] | None = None,
    info_baselines: Collection[str] = (),
    alone: bool = False,
) -> dict[str, TimedCase]:
    """The timed runs of several exercises ((exercise, size, seed) each, one case per
    exercise, timed with ``reps``; the baselines of ``info_baselines``' exercises in
    ``--info-baseline``'s fewer repetitions) with one judge, one hold of ``gate`` and one student's
    process (judge --case EX:... --time --gate; a batch's grading, issue 15,
    docs/design-notes.md, note 39): every case is set up before the gate, every baseline
    is timed alone after it and before the student's process starts, then each case is
    verified and timed in turn, its document written as a line. Each exercise's result as
    its own run_judged would give it; a failure of the student's process (a crash, a failed
    launch, a hang, a process left behind) is that exercise's result, and the exercises
    after it are timed in a fresh judged run (another hold), as are those a judge did not
    set up within its device-memory budget ("defer K" before its gate). ``alone``: nothing
    else of the grader is on the GPU (design note 88), so a judge that runs out of GPU memory
    after its gate does so beside its student's process only: that case's result is the
    student's (``CaseRun.judge_out_of_memory``), the exercises after it in a fresh run;
    otherwise, and before a gate, it raises ``JudgeOutOfMemory``."""
    results: dict[str, TimedCase] = {}
    todo = list(cases)
    while todo:
        got = _timed_cases_once(
            judge, binary, todo, reps, timeout_s, version, box, gate, info_baselines, alone
        )
        for (ex, _, _), timed in zip(todo, got):
            results[ex] = timed
        todo = todo[len(got) :]
    return results


def device_info(binary: Path, version: int, box: sandbox.Sandbox | None = None) -> CaseRun:
    """``lab --device-info``: status "ok" (with "device") or "no_device"."""
    return invoke(binary, ["--device-info"], PROBE_TIMEOUT_S, version, {}, box=box)


def course_listing(binary: Path) -> dict:
    """``--list`` of one of the course's own binaries (the judge, the lister: no student
    code, no sandbox, no GPU needed): the lab's exercises, launchers, kernels and constants
    (docs/protocol.md, "Harness"). Raises GraderError when it gives none: the course is
    broken."""
    listing, problem = list_exercises(binary, box=TRUSTED)
    if listing is None:
        raise GraderError(f"{binary} --list: {problem}")
    return listing


def list_exercises(
    binary: Path, box: sandbox.Sandbox | None = None
) -> tuple[dict | None, str | None]:
    """``lab --list`` (printed on stdout): (listing, None), or (None, why it failed) when
    the binary did not run to the end or printed no listing. The binary holds the student's
    code, whose static constructors run first and may print or exit, so a broken listing is
    the submission's failed start-up (graded 0), not a course error; the course's own
    binaries are held to the contract by ``selfcheck``."""
    with tempfile.TemporaryDirectory(prefix="grader-run-") as tmp:
        out = runner.run(
            [str(binary), "--list"],
            timeout_s=PROBE_TIMEOUT_S,
            cwd=tmp,
            sandbox=box or sandbox.choose(),
            readable=run_readable(binary),
        )
    if not out.ok:
        detail = out.stderr.strip().splitlines()
        return None, f"lab --list {out.describe()}" + (f": {detail[-1]}" if detail else "")
    hint = "(does a global object or static constructor in the student file print or exit?)"
    try:
        listing = json.loads(out.stdout)
    except json.JSONDecodeError as e:
        return None, f"lab --list printed no valid JSON ({e.msg}) {hint}"
    if not isinstance(listing, dict) or not isinstance(listing.get("exercises"), list):
        return None, f"lab --list printed no list of exercises {hint}"
    return listing, None

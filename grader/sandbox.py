"""The sandbox around every run of submission code: bubblewrap where it works.

A submission is linked into the lab binary, so each run of that binary (correctness,
performance, ``--list``, ``--device-info``) and each compute-sanitizer run executes the
student's host code with the grader's rights; and its build reads whatever files the
source names (``#include``, the assembler's ``.incbin``). The symbol allow-list (``grader.symbols``)
refuses the obvious calls (``fopen``, ``fork``, ``socket``, ``exit``...) before anything
runs; the sandbox is the second wall, for what gets past it (inline ``syscall``, a static
constructor, a bug in the allow-list). ``Sandbox.wrap`` runs a command under ``bwrap``:

- only the system's folders (``SYSTEM_DIRS``: /usr, /etc, /opt, /sys, /run and the
  /bin, /lib... links), the CUDA toolkits the grader found (nvcc's, compute-sanitizer's,
  which may live in a Python environment under /root), and the course tree, all read-only:
  home folders, other checkouts of the course (with their ``solutions/``), /mnt, /srv and
  the rest of / are not there, and nothing is writable but what is named below;
- ``--dev /dev`` (a minimal /dev) plus the NVIDIA device nodes that exist
  (``/dev/nvidia*``, ``/dev/nvidia-caps``, ``/dev/dri``) with ``--dev-bind``;
- ``--proc /proc``, a fresh tmpfs on /tmp (other runs' work directories are not visible),
  the paths the run needs to read re-bound read-only (the lab binary's folder, which lies
  in the grading's temporary directory), and the run's own work directory (where the run
  document is written) the only writable place;
- every course's ``solutions/``, its build outputs but the course library
  (``build/<lab>/solution/`` holds the compiled reference, ``build/dist/`` the Gradescope
  zip), what the student release leaves out whole (``grader.dist``'s ``EXCLUDED`` and
  ``RECORD_FOLDERS``, ``bench/`` whole: alternatives and known-bad patches that quote answers,
  GPU session records, recorded sanitizer reports) and ``.git`` (its objects hold all of
  them) hidden under an empty tmpfs, its ``labs/*/hidden.toml`` shown empty; so are a
  batch's ``--out`` and its class's submissions where a run would see them (kept inside the
  course tree or a system folder: other students' grades and work);
- ``--unshare-net`` (no network, not even the host's loopback), ``--unshare-pid`` (when the
  run ends, the kernel kills everything left in its pid namespace, including children that
  left the process group with ``setsid``), ``--die-with-parent``, ``--new-session`` (no
  ``TIOCSTI`` into the grader's terminal).

Where it applies: ``python3 -m grader batch`` (an instructor grading untrusted submissions)
defaults to ``auto``; ``python3 -m grader grade`` (a student grading their own work) and
direct harness runs default to ``none``. The batch of 32 hostile and ordinary submissions
ran under it on the H200 (bench/h200-2026-11-29-batch/).

``GRADER_SANDBOX`` overrides the default: ``auto`` (bwrap when it is installed and a probe
``bwrap --ro-bind / / ... true`` succeeds, else the user sandbox below where the grader
runs as root, else none), ``bwrap`` (required: a GraderError when it cannot work), ``user``
(required likewise) or ``none``.

The user sandbox (kind "user") is for a grader running as root where bubblewrap cannot
make its namespaces — a Docker container such as Gradescope's may forbid them. The build
and every run of one grading's submission code switch to an unprivileged user and group of
that grading's own (an unused id from ``USER_IDS``, one per ``choose``: two submissions of
a batch never share one), with util-linux's ``setpriv`` after the run has joined its
cgroup, and ``--no-new-privs``. The course's hidden paths (``hidden``: solutions/,
labs/*/hidden.toml, build outputs but the course library, what the release leaves out,
.git) are made unreadable to other
users when the sandbox is chosen (``chmod o-rwx``: their owner keeps every right); the
run's work directory is given to the grading's user, and the folders it must read (the
grading's temporary folder) to its group. That user cannot write the course tree or the
judge (root's), read the hidden cases or another student's work (a grading's folder, or
the batch's ``private`` paths, closed to others too), or signal the grader or
another grading; the network stays reachable and the rest of the file system readable
where its permissions allow, which is what bubblewrap adds. The user sandbox needs the
course tree and the CUDA toolkit readable by others (``chmod -R o+rX``); where they are
not, ``auto`` says why and runs without a sandbox.

Without a sandbox the grader says so in the report
("sandbox: not available (bubblewrap not installed): running with resource limits only;
the submission's code can read whatever the grader can (an instructor's hidden.toml too,
where the course has one)";
"off (...)" when it was not asked for) and relies on ``grader.run``'s limits: a wall-clock
limit that kills the process group, CPU time, file size, no core dumps, the output cap,
and the cap on what a run leaves in its working folder (not in ``/tmp``, which only
bubblewrap replaces: design note 75).

The build (make, nvcc, the host compiler) of the submission runs in the same sandbox
(``grader.build.build``): its output folder is the only writable place and ``solutions/``
is hidden, so ``.incbin "solutions/..."`` fails to assemble instead of compiling the
reference into the submission. The course library (``make common``) is built outside it,
before any submission: it is the course's own code.
"""

from __future__ import annotations

import functools
import glob
import grp
import itertools
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from grader import tools
from grader.dist import EXCLUDED as RELEASE_EXCLUDED
from grader.dist import RECORD_FOLDERS
from grader.errors import GraderError

ENV = "GRADER_SANDBOX"
MODES = ("auto", "bwrap", "user", "none")
USER_IDS = range(61000, 65000)  # uids (and gids) for the user sandbox's gradings
_user_ids = itertools.count((os.getpid() * 97) % len(USER_IDS))
REPO = Path(__file__).resolve().parents[1]
DEVICE_PATTERNS = ("/dev/nvidia*", "/dev/nvidia-caps", "/dev/dri")
# what a build (make, nvcc, the host compiler) and a run (the lab binary, the CUDA driver,
# compute-sanitizer) read of the system; a link (/bin -> usr/bin) stays a link
SYSTEM_DIRS = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/sys",
    "/run",
    "/var/run",
)
TOOLCHAIN_TOOLS = ("nvcc", "compute-sanitizer")
PROBE_TIMEOUT_S = 30
NAMESPACES = ["--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"]


@dataclass(frozen=True)
class Sandbox:
    """How runs of submission code are contained: ``kind`` is "bwrap", "user" or "none"."""

    kind: str
    reason: str = ""  # why there is no sandbox (kind "none")
    bwrap: str | None = None
    hidden: tuple[str, ...] = ()  # shown empty: solutions/, hidden.toml, .git, ... (choose)
    # course trees shown read-only even when they live under /tmp, which the sandbox
    # replaces with a fresh tmpfs (a CI clone or a grading copy may well be there)
    visible: tuple[str, ...] = ()
    off: bool = False  # kind "none" by choice (GRADER_SANDBOX, one grade's default), not for lack
    toolchains: tuple[str, ...] = ()  # CUDA toolkit folders outside SYSTEM_DIRS, read-only
    user: tuple[int, int] | None = None  # kind "user": the grading's (uid, gid)
    setpriv: str | None = None
    # kind "user": hidden and private paths it made unreadable to others
    protected: tuple[str, ...] = ()
    # kind "user": private paths others may read that it could not close ("PATH (why)"; the
    # notice gives only their number: the names are classmates')
    left_open: tuple[str, ...] = ()
    # the submission may make streams of its own (its lab's allow_calls): its untimed runs
    # keep the driver's CUDA work queues, where a race between streams can show
    # (grader.run.child_env; docs/design-notes.md, note 48)
    own_streams: bool = False

    @property
    def notice(self) -> str:
        """The report's line about the sandbox."""
        if self.kind == "bwrap":
            return (
                "bubblewrap: only the system, the CUDA toolkit and the course visible, "
                "read-only, its solutions, hidden cases and build outputs hidden; no network; "
                "only the run's work directory writable"
            )
        if self.kind == "user":
            return (
                f"an unprivileged user of this grading's own (uid {self.user[0]}; "
                f"{self.reason}): the submission's build and runs cannot write the course or "
                "read its solutions, hidden.toml, other gradings' folders or the class's "
                "submissions and grades; they see the network and the rest of the system that "
                "others may read"
                + (
                    f"; but {len(self.left_open)} of the class's paths stay readable to it "
                    "(the grader's log names them)"
                    if self.left_open else ""
                )
            )
        state = "off" if self.off else "not available"
        return (
            f"{state} ({self.reason}): running with resource limits only; the submission's "
            "code can read whatever the grader can (an instructor's hidden.toml too, where the "
            "course has one)"
        )

    def wrap(self, argv: list[str], workdir: str | os.PathLike | None, readable=()) -> list[str]:
        """``argv`` under bwrap (unchanged without a sandbox): ``workdir`` writable,
        ``readable`` visible read-only even under the fresh /tmp, ``hidden`` empty (but
        for a hidden folder that holds ``workdir`` or a ``readable`` path)."""
        if self.kind == "user":
            self._prepare(workdir, readable)
            uid, gid = self.user
            return [self.setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                    "--no-new-privs", "--", *argv]
        if self.kind != "bwrap":
            return list(argv)
        args = [self.bwrap]
        for path in SYSTEM_DIRS:
            if os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                args += ["--ro-bind", path, path]
        args += ["--dev", "/dev"]
        for pattern in DEVICE_PATTERNS:
            for node in sorted(glob.glob(pattern)):
                args += ["--dev-bind", node, node]
        args += ["--proc", "/proc", "--tmpfs", "/tmp"]
        for path in (*self.toolchains, *self.visible, *readable):
            path = _bindable(os.path.abspath(path))
            if os.path.exists(path):
                args += ["--ro-bind", path, path]
        if workdir is not None:
            workdir = _bindable(os.path.abspath(workdir))
            args += ["--bind", workdir, workdir, "--chdir", workdir]
        # what the caller named readable or writable stays visible even inside a hidden
        # folder: bench tools run the course's own build/<lab>/solution/lab (a grading's
        # binary and work directory lie in its temporary folder, never in a hidden one)
        keep = [os.path.abspath(p) for p in (*readable, workdir) if p is not None]
        keep += [os.path.realpath(p) for p in keep]
        for path in self.hidden:
            real = os.path.realpath(path)
            if any(Path(k).is_relative_to(h) for k in keep for h in (path, real)):
                continue
            # hidden where the path as named leads (a course reached by a link in /opt: the
            # link's target, _bindable) and where it really is: a course that lives in a
            # system folder, named through a link elsewhere, is seen there too (a review)
            for place in dict.fromkeys((_bindable(path), real)):
                if os.path.isdir(place):
                    args += ["--tmpfs", place, "--remount-ro", place]
                elif os.path.isfile(place):  # a file reads as empty
                    args += ["--ro-bind", _empty_file(), place]
        args += ["--remount-ro", "/"]  # the new root itself: no file but in workdir, /tmp
        return [*args, *NAMESPACES, "--", *argv]


    def _prepare(self, workdir, readable) -> None:
        """Kind "user": ``workdir`` (and what is in it) belongs to the grading's user; each
        ``readable`` path, and each folder above it or above ``workdir`` that others cannot
        pass, is given to the grading's group (read and pass) — only folders of the
        grader's inside the temporary folder (``tempfile.gettempdir()``); another one is a
        GraderError that names it."""
        uid, gid = self.user
        tmp = Path(tempfile.gettempdir()).resolve()
        paths = [Path(p).absolute() for p in readable]
        if workdir is not None:
            workdir = Path(workdir).absolute()
            for folder, dirs, files in os.walk(workdir):
                for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
                    os.chown(name, uid, gid, follow_symlinks=False)
            paths.append(workdir.parent)
        for path in paths:
            for folder in [path, *path.parents]:
                st = folder.stat()
                if st.st_mode & 0o005 == 0o005 or (st.st_gid == gid and st.st_mode & 0o050):
                    continue
                if not (folder.resolve().is_relative_to(tmp) and folder.resolve() != tmp
                        and st.st_uid == os.geteuid()):
                    raise GraderError(
                        f"{folder} cannot be read by other users, and the user sandbox runs "
                        f"the submission as one: chmod o+rx {folder}, or grade from a folder "
                        "others can read"
                    )
                os.chown(folder, -1, gid)
                os.chmod(folder, stat.S_IMODE(st.st_mode) | 0o050)


def _bindable(path: str) -> str:
    """``path``, or where its links lead where it lies in a system folder the sandbox shows
    read-only (``SYSTEM_DIRS``): a link there cannot be a mount point (bwrap: "Can't bind
    mount ... No such file or directory", every run of a course installed as a link in
    /opt), while its target, bound, is what the link leads to inside the sandbox too."""
    real = os.path.realpath(path)
    if real != path and any(Path(path).is_relative_to(d) for d in SYSTEM_DIRS):
        return real
    return path


def _others_can_read(path: Path) -> bool:
    """Whether a user who is neither the owner nor in the group can read ``path`` (every
    folder above it searchable by others, the path itself readable, a folder searchable)."""
    path = Path(path).absolute()
    try:
        for folder in path.parents:
            if not folder.stat().st_mode & stat.S_IXOTH:
                return False
        mode = path.stat().st_mode
    except OSError:
        return False
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    return mode & need == need


def _user_sandbox(roots: list, hidden: list[str], reason: str, private=()) -> Sandbox | str:
    """The user sandbox (its hidden paths, and each of ``private`` that others could read,
    made unreadable to others) with a fresh user and group, or why there is none: not root,
    no setpriv, no unused id, a course or toolkit folder others cannot read, a path to close
    that cannot be closed."""
    if os.geteuid() != 0:
        return "the grader is not root, so it cannot switch the submission to another user"
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return "setpriv (util-linux) not found"
    uid = _unused_id()
    if uid is None:
        return f"no unused user and group id in {USER_IDS.start}-{USER_IDS.stop - 1}"
    for path in [*(Path(r) / "Makefile" for r in roots), *map(Path, _toolchains())]:
        if not _others_can_read(path):
            return (
                f"{path} is not readable by other users, so an unprivileged user could not "
                "build or run the submission (chmod -R o+rX it and the folders above it)"
            )
    protected = []
    for path in hidden:
        if os.path.exists(path) and os.stat(path).st_mode & 0o007:
            try:
                os.chmod(path, stat.S_IMODE(os.stat(path).st_mode) & ~0o007)
            except OSError as e:  # a read-only course tree: it must come so from its owner
                return f"{path} is readable by other users and cannot be closed ({e.strerror})"
            protected.append(path)
    # a batch's --out and its class's submissions: another student's work and grades, which
    # the grading's user could read where the instructor's folders let others in (a class in
    # a home folder of mode 755 was open to every submission, session 28)
    closed, left_open = _close_private(private)
    protected += [p for p in closed if p not in protected]
    return Sandbox(
        "user",
        reason,
        hidden=tuple(hidden),
        user=(uid, uid),
        setpriv=setpriv,
        protected=tuple(protected),
        left_open=tuple(left_open),
    )


# private paths this process has warned of: each of a batch's gradings (threads) chooses its
# sandbox, and a class of N would otherwise be warned of N times. Each choice looks at every
# path again (a few thousand stat calls for a class of 300), so a path reopened meanwhile is
# closed again (a review found a cache of closed paths that left it open)
_private_warned: set[str] = set()
_private_lock = threading.Lock()


def _close_private(private) -> tuple[list[str], list[str]]:
    """Makes each of ``private`` that other users could reach (every folder above it
    searchable by others, and any right for others on the path itself: a folder of mode 0711
    lets a known name such as kernels.cu be opened) unreadable to them (``chmod o-rwx``);
    returns (the paths it closed, "PATH (why)" for each it left open). A link is left as it
    is (chmod would change its target: a submission linked to the course tree would close
    the course to every run), and so is a path chmod refuses (a read-only class, root
    squashed over NFS): the sandbox stays. Each path left open is named once a process on
    the grader's standard error (the batch's log), never in a student's report: its name is
    a classmate's."""
    closed, left_open = [], []
    with _private_lock:
        for path in map(os.path.abspath, private):
            try:
                mode = os.lstat(path).st_mode
                reachable = all(os.stat(f).st_mode & stat.S_IXOTH for f in Path(path).parents)
            except OSError:  # gone: nothing to close
                continue
            why = None
            if not reachable:
                pass  # others cannot pass a folder above it: closed already
            elif stat.S_ISLNK(mode):
                if _others_can_read(Path(path)):
                    why = "a link: chmod o-rwx its target"
            elif mode & 0o007:
                try:
                    os.chmod(path, stat.S_IMODE(mode) & ~0o007)
                    closed.append(path)
                except OSError as e:
                    why = e.strerror
            if why is None:
                continue
            left_open.append(f"{path} ({why})")
            if path not in _private_warned:
                _private_warned.add(path)
                print(f"grader: {path} stays readable to other users, and so to the user "
                      f"sandbox's runs ({why}): chmod o-rwx it", file=sys.stderr, flush=True)
    return closed, left_open


def _unused_id() -> int | None:
    """The next id of ``USER_IDS`` that names no user and no group of the system."""
    for _ in range(len(USER_IDS)):
        uid = USER_IDS[next(_user_ids) % len(USER_IDS)]
        try:
            pwd.getpwuid(uid)
            continue
        except KeyError:
            pass
        try:
            grp.getgrgid(uid)
            continue
        except KeyError:
            return uid
    return None


def _toolchains() -> tuple[str, ...]:
    """The install folders of the CUDA tools the sandboxed commands run (nvcc and its
    compilers and headers, compute-sanitizer), where they lie outside SYSTEM_DIRS: the
    folder above the tool's bin/ (a pip wheel's ``nvidia/cu13``, ``/usr/local/cuda``)."""
    found = []
    for name in TOOLCHAIN_TOOLS:
        tool = tools.find(name)
        if tool is None:
            continue
        top = Path(tool.path).resolve().parent.parent
        inside = any(top.is_relative_to(d) for d in SYSTEM_DIRS)
        if not inside and top != Path("/") and str(top) not in found:
            found.append(str(top))
    return tuple(found)


@functools.lru_cache(maxsize=None)
def _empty_file() -> str:
    """A read-only empty file to bind over hidden files (binding /dev/null does not work:
    bwrap's binds are nodev)."""
    fd, path = tempfile.mkstemp(prefix="grader-empty-")
    os.close(fd)
    os.chmod(path, 0o444)
    return path


@functools.lru_cache(maxsize=None)
def _probe(bwrap: str) -> str | None:
    """Why ``bwrap`` cannot run a command here (None when it can); asked once."""
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs"]
    argv += ["/tmp", *NAMESPACES, "true"]
    try:
        out = subprocess.run(
            argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap does not run: {e}"
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        return "bubblewrap cannot create its namespaces here" + (f": {lines[-1]}" if lines else "")
    return None


def _seen_at(path: str, shown: list[str]) -> list[str]:
    """Where bubblewrap's runs would see ``path`` (resolved: a link, or a course reached
    through one, is the folder it leads to): under each folder of ``shown`` that holds it
    (a course tree, a toolkit or a system folder, each bound whole at its own name; a
    system folder that is a link stays a link there, so the folder it leads to is the one
    seen), at that folder's name."""
    real = Path(os.path.realpath(path))
    seen = []
    for top in shown:
        if top == "/" or (top in SYSTEM_DIRS and os.path.islink(top)):
            continue
        real_top = Path(os.path.realpath(top))
        if real.is_relative_to(real_top):
            seen.append(str(Path(top) / real.relative_to(real_top)))
    return seen


def _hide_private(private, hidden: list[str], visible: tuple[str, ...], shown: list[str]) -> None:
    """Adds to ``hidden`` each place where the runs would see a path of ``private``, but
    never one inside a path hidden already (its tmpfs is read-only: bubblewrap could not
    mount another there, and every run would fail), one that holds a course tree (its build
    reads the course), or one inside another private path (only the outermost is hidden)."""
    for path in private:
        for seen in _seen_at(os.path.abspath(path), shown):
            if any(Path(seen).is_relative_to(h) for h in hidden):
                continue
            if any(Path(v).is_relative_to(seen) for v in visible):
                continue
            hidden[:] = [h for h in hidden if not Path(h).is_relative_to(seen)]
            hidden.append(seen)


def _released_without(root: Path, trees) -> list[Path]:
    """What the student release leaves out whole under the course tree ``root``
    (``dist.EXCLUDED``, ``dist.RECORD_FOLDERS``, the dated GPU-session folders) that is there,
    as the sandbox hides it: ``bench/`` whole, one entry for its session folders and its other
    left-out folders (nothing a build or run needs is in bench/; a mount per session cost each
    sandboxed process 25-40 ms more as the sessions grew, a review); a link by its target where
    that lies in one of ``trees`` (the course trees the runs see), else not at all (no run sees
    it; a tmpfs on the link itself made bubblewrap fail every run, a review)."""
    names = [d.rstrip("/") for d in (*RELEASE_EXCLUDED, *RECORD_FOLDERS)]
    out: list[Path] = []
    for path in [root / "bench", *(root / n for n in names if not n.startswith("bench/"))]:
        if not os.path.lexists(path):
            continue
        real = Path(os.path.realpath(path))
        if real != Path(os.path.abspath(path)):  # a link on the way
            if not any(real.is_relative_to(os.path.realpath(t)) for t in trees):
                continue
            path = real
        if path not in out:
            out.append(path)
    return out


def choose(roots=(), default: str = "none", private=()) -> Sandbox:
    """The sandbox ``GRADER_SANDBOX`` asks for (``default`` when it is unset), hiding
    ``solutions/`` and ``labs/*/hidden.toml`` of each of ``roots`` and of the grader's own
    repository; and, under bubblewrap, each of ``private`` (a batch's ``--out`` and its
    class's submissions: other students' work and grades) that lies where the runs would
    see it, in a course tree or a system folder (README keeps them elsewhere, as
    ``~/class``, which no run sees); in the user sandbox, each of ``private`` that other
    users could read is made unreadable to them (``chmod o-rwx``)."""
    asked = os.environ.get(ENV, "").strip().lower()
    mode = asked or default
    if mode not in MODES:
        raise GraderError(f"{ENV}={mode} is not one of {', '.join(MODES)}")
    if mode == "none":
        why = (
            f"{ENV}=none"
            if asked
            else f"the default when you grade your own work; {ENV}=auto turns it on"
        )
        return Sandbox("none", why, off=True)
    # solutions/ folders, the instructor-only labs/*/hidden.toml files, and the course's
    # build outputs but its library (build/common): build/<lab>/solution/ holds the compiled
    # reference, build/dist/ the Gradescope zip with the hidden cases; and what the student
    # release leaves out because it gives answers away (_released_without: whole
    # correct alternatives, known-bad patches that quote the solution, bench variants, GPU
    # session records and recorded sanitizer reports naming the solutions' lines), with .git,
    # whose objects hold every one of them (a red-team review read solutions/ and hidden.toml
    # through `git show` inside the sandbox)
    hidden = []
    for root in [*roots, REPO]:
        built = sorted(p for p in Path(root).glob("build/*") if p.name != "common")
        hidden_toml = sorted(Path(root).glob("labs/*/hidden.toml"))
        present = _released_without(Path(root), [*roots, REPO])
        if os.path.lexists(Path(root) / ".git"):
            present.append(Path(root) / ".git")
        for path in [Path(root) / "solutions", *hidden_toml, *built, *present]:
            path = os.path.abspath(path)
            if path not in hidden:
                hidden.append(path)
    bwrap = shutil.which("bwrap")
    reason = "bubblewrap not installed" if bwrap is None else _probe(bwrap)
    if mode == "user":
        reason = f"{ENV}=user"
    if reason is None:
        visible = tuple(dict.fromkeys(os.path.abspath(r) for r in [*roots, REPO]))
        toolchains = _toolchains()
        _hide_private(private, hidden, visible, [*visible, *toolchains, *SYSTEM_DIRS])
        return Sandbox("bwrap", "", bwrap, tuple(hidden), visible, toolchains=toolchains)
    if mode == "bwrap":
        raise GraderError(f"{ENV}=bwrap but {reason}")
    user = _user_sandbox([*roots, REPO], hidden, reason, private)
    if isinstance(user, Sandbox):
        return user
    if mode == "user":
        raise GraderError(f"{ENV}=user but {user}")
    return Sandbox("none", f"{reason}; no user sandbox: {user}")

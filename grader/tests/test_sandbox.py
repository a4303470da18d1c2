"""The sandbox and the run layer against hostile programs, independently of the symbol
check (defence in depth): small C programs compiled here (gcc) do the hostile thing
directly (write into the course tree, read solutions/, connect to a port, fork and
escape the process group, flood stdout) and ``grader.run`` with ``grader.sandbox`` must
contain them. Tests that need bubblewrap skip, with the reason, where it cannot run."""

from __future__ import annotations

import dataclasses
import os
import resource
import secrets
import shutil
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from grader import dist, run, sandbox
from grader.errors import GraderError
from helpers import REPO


@pytest.fixture
def box(monkeypatch) -> sandbox.Sandbox:
    """The bubblewrap sandbox, hiding the repository's solutions/ (skips without it)."""
    monkeypatch.setenv(sandbox.ENV, "auto")
    chosen = sandbox.choose([REPO])
    if chosen.kind != "bwrap":
        pytest.skip(f"sandbox {chosen.notice}")
    return chosen


def cc(folder: Path, name: str, source: str) -> str:
    """``source`` compiled with gcc into ``folder/name``."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.c").write_text(source)
    exe = folder / name
    subprocess.run(["gcc", "-O1", "-o", str(exe), str(folder / f"{name}.c")], check=True)
    return str(exe)


def boxed(box, exe: str, work: Path, *args, timeout_s: float = 30, **kw) -> run.Outcome:
    """``exe ARGS`` in ``box`` with ``work`` as its work directory, as the harness runs."""
    work.mkdir(exist_ok=True)
    return run.run(
        [exe, *args],
        timeout_s=timeout_s,
        cwd=str(work),
        sandbox=box,
        readable=[str(Path(exe).parent)],
        **kw,
    )


# -- choosing the sandbox ------------------------------------------------------------


def test_none_is_a_readable_notice_and_leaves_argv_alone(monkeypatch):
    monkeypatch.setenv(sandbox.ENV, "none")
    box = sandbox.choose()
    assert box.kind == "none"
    assert box.notice == (
        "off (GRADER_SANDBOX=none): running with resource limits only; the submission's code "
        "can read whatever the grader can (an instructor's hidden.toml too, where the course "
        "has one)"
    )
    assert box.wrap(["lab", "--list"], "/tmp") == ["lab", "--list"]


def test_auto_without_bubblewrap_runs_with_limits_only(monkeypatch):
    monkeypatch.setenv(sandbox.ENV, "auto")
    monkeypatch.setattr(sandbox.shutil, "which", lambda name, **kw: None)
    box = sandbox.choose()
    assert box.kind == "none"
    # no setpriv either (which finds nothing), so no user sandbox, and the report says why
    assert box.notice.startswith(
        "not available (bubblewrap not installed; no user sandbox: "
    ) and box.notice.endswith("(an instructor's hidden.toml too, where the course has one)")


def test_required_bubblewrap_that_is_missing_is_an_error(monkeypatch):
    monkeypatch.setenv(sandbox.ENV, "bwrap")
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(GraderError, match="GRADER_SANDBOX=bwrap but bubblewrap not installed"):
        sandbox.choose()


def test_unknown_mode_is_an_error(monkeypatch):
    monkeypatch.setenv(sandbox.ENV, "docker")
    with pytest.raises(GraderError, match="GRADER_SANDBOX=docker is not one of"):
        sandbox.choose()


@pytest.mark.instructors
def test_wrap_has_the_promised_options(box, tmp_path):
    argv = box.wrap(["lab"], tmp_path, readable=[str(tmp_path)])
    for option in ("--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"):
        assert option in argv
    assert ["--ro-bind", "/", "/"] not in [argv[i : i + 3] for i in range(len(argv))]
    assert ["--ro-bind", "/usr", "/usr"] == argv[argv.index("/usr") - 1 : argv.index("/usr") + 2]
    assert argv[argv.index("--unshare-net") - 2 : argv.index("--unshare-net")] == [
        "--remount-ro",
        "/",
    ]
    assert ["--tmpfs", str(REPO / "solutions")] == argv[
        argv.index(str(REPO / "solutions")) - 1 : argv.index(str(REPO / "solutions")) + 1
    ]
    assert argv[-2:] == ["--", "lab"]


# -- the run layer, with or without a sandbox -----------------------------------------

FLOOD = r"""
#include <stdio.h>
#include <string.h>
int main(void) {
    static char buf[1 << 20];
    memset(buf, 'x', sizeof buf);
    for (long i = 0; i < 10L * 1024; ++i) {   /* 10 GB */
        fwrite(buf, 1, sizeof buf, stdout);
    }
    return 0;
}
"""


@pytest.mark.parametrize("sandboxed", [False, True], ids=["limits-only", "bwrap"])
def test_10_gb_on_stdout_is_killed_at_the_output_cap(sandboxed, tmp_path, monkeypatch):
    monkeypatch.setenv(sandbox.ENV, "auto")
    box = sandbox.choose() if sandboxed else None
    if sandboxed and box.kind != "bwrap":
        pytest.skip(f"sandbox {box.notice}")
    exe = cc(tmp_path / "bin", "flood", FLOOD)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    out = boxed(box, exe, tmp_path / "work", timeout_s=120)
    assert out.kind == "flooded"
    assert out.describe() == "killed after writing more than 64 MB of output"
    assert time.monotonic() - start < 60
    assert len(out.stdout) < 2 * run.DEFAULT_MAX_OUTPUT and "bytes cut" in out.stdout
    # the grader read the head and the tail, never the whole file
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before < 64 * 1024


@pytest.mark.parametrize("sandboxed", [False, True], ids=["limits-only", "bwrap"])
def test_256_mb_files_one_after_another_are_killed_at_the_working_folders_cap(
    sandboxed, tmp_path, monkeypatch
):
    """The review's program: files of RLIMIT_FSIZE each in the run's working folder (on the
    host's disk, writable under bubblewrap too) for as long as it was let, 100 GB and more
    in a sanitizer run's 300 s; now killed just past WORKDIR_CAP_BYTES."""
    monkeypatch.setenv(sandbox.ENV, "auto")
    box = sandbox.choose() if sandboxed else None
    if sandboxed and box.kind != "bwrap":
        pytest.skip(f"sandbox {box.notice}")
    work = tmp_path / "work"
    script = f"i=0; while :; do head -c {run.FSIZE_LIMIT_BYTES} /dev/zero > f$i; i=$((i+1)); done"
    out = boxed(box, "/bin/sh", work, "-c", script, timeout_s=120)
    assert out.kind == "filled", out.describe()
    assert out.describe() == "killed after writing more than 1024 MB to its working folder"
    assert out.seconds < 60
    written = sum(f.stat().st_size for f in work.iterdir())
    assert run.WORKDIR_CAP_BYTES < written <= run.WORKDIR_CAP_BYTES + 4 * run.FSIZE_LIMIT_BYTES


def test_host_infinite_loop_times_out_in_the_sandbox(box, tmp_path):
    exe = cc(tmp_path / "bin", "spin", "int main(void) { for (volatile int x = 1; x;) {} }")
    out = boxed(box, exe, tmp_path / "work", timeout_s=1)
    assert out.kind == "timeout" and out.describe() == "timed out after 1 s"
    assert out.seconds < 15


def test_segfault_in_the_sandbox_is_named(box, tmp_path):
    exe = cc(tmp_path / "bin", "segv", "int main(void) { *(volatile int *)0 = 1; return 0; }")
    out = boxed(box, exe, tmp_path / "work")
    assert out.kind == "signaled" and out.describe() == "killed by SIGSEGV"


def test_exit_status_passes_through_the_sandbox(box, tmp_path):
    exe = cc(tmp_path / "bin", "four", '#include <stdio.h>\nint main(void){puts("hi");return 4;}')
    out = boxed(box, exe, tmp_path / "work")
    assert (out.kind, out.code, out.stdout) == ("exited", 4, "hi\n")


WRITE = r"""
#include <errno.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    int bad = 0;
    for (int i = 1; i < argc; ++i) {
        FILE *f = fopen(argv[i], "w");
        printf("%s %s\n", argv[i], f ? "written" : strerror(errno));
        if (f) { fputs("pwned\n", f); fclose(f); } else { bad = 1; }
    }
    return bad;
}
"""


def test_write_into_the_course_tree_fails_only_the_work_dir_is_writable(box, tmp_path):
    exe = cc(tmp_path / "bin", "write", WRITE)
    work = tmp_path / "work"
    target = REPO / "labs" / f"pwned-{secrets.token_hex(4)}.txt"
    try:
        out = boxed(box, exe, work, str(target), str(work / "mine.txt"))
        assert f"{target} Read-only file system" in out.stdout
        assert not target.exists()
        assert (work / "mine.txt").read_text() == "pwned\n"  # its own folder is writable
    finally:
        target.unlink(missing_ok=True)


def test_tmp_is_fresh_other_runs_are_invisible(box, tmp_path):
    other = Path(tmp_path / "other-submission")  # under /tmp, like another run's folder
    other.mkdir()
    (other / "kernels.cu").write_text("secret")
    exe = cc(
        tmp_path / "bin",
        "peek",
        "#include <stdio.h>\nint main(int c, char **v) {" 'return fopen(v[1], "r") ? 0 : 7; }',
    )
    assert boxed(box, exe, tmp_path / "work", str(other / "kernels.cu")).code == 7


LIST = r"""
#include <dirent.h>
#include <stdio.h>
int main(int argc, char **argv) {
    DIR *d = opendir(argv[1]);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        n += e->d_name[0] != '.';
    }
    printf("%d\n", n);
    return 0;
}
"""


@pytest.mark.instructors
def test_solutions_are_hidden(box, tmp_path):
    assert any((REPO / "solutions").iterdir())
    exe = cc(tmp_path / "bin", "list", LIST)
    out = boxed(box, exe, tmp_path / "work", str(REPO / "solutions"))
    assert out.stdout == "0\n"
    # a course elsewhere: visible when readable, hidden once it is a graded root
    course = tmp_path / "course"
    (course / "solutions" / "9.1-fake").mkdir(parents=True)
    exe_dir = str(Path(exe).parent)
    seen = run.run(
        [exe, str(course / "solutions")],
        30,
        cwd=str(tmp_path / "work"),
        sandbox=box,
        readable=[exe_dir, str(course)],
    )
    assert seen.stdout == "1\n"
    hiding = sandbox.choose([course])
    hidden = run.run(
        [exe, str(course / "solutions")],
        30,
        cwd=str(tmp_path / "work"),
        sandbox=hiding,
        readable=[exe_dir, str(course)],
    )
    assert hidden.stdout == "0\n"


CONNECT = r"""
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
int main(int argc, char **argv) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons(atoi(argv[1]));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = connect(s, (struct sockaddr *)&a, sizeof a);
    if (rc == 0) { send(s, "pwned", 5, 0); }
    printf("%s\n", rc == 0 ? "connected" : "refused");
    return rc == 0 ? 0 : 1;
}
"""


def _accepts(server: socket.socket) -> bool:
    server.settimeout(1.0)
    try:
        conn, _ = server.accept()
    except socket.timeout:
        return False
    conn.close()
    return True


def test_no_network_connection_arrives(box, tmp_path):
    exe = cc(tmp_path / "bin", "connect", CONNECT)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        port = str(server.getsockname()[1])
        # the control: without the sandbox the connection arrives
        assert run.run([exe, port], 30).stdout == "connected\n"
        assert _accepts(server)
        out = boxed(box, exe, tmp_path / "work", port)
        assert (out.code, out.stdout) == (1, "refused\n")
        assert not _accepts(server)


FORK = r"""
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
int main(void) {
    for (int i = 0; i < 64; ++i) {          /* bounded: 64 children */
        pid_t p = fork();
        if (p == 0) {
            setsid();                        /* leave the process group */
            alarm(120);                      /* a bound if everything else failed */
            for (;;) pause();
        }
        if (p < 0) break;
    }
    puts("forked");
    fflush(stdout);
    for (;;) pause();
}
"""


def _alive_named(comm: str) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read()
        except OSError:
            continue
        name = fields[fields.index("(") + 1 : fields.rindex(")")]
        state = fields[fields.rindex(")") + 2]
        if name == comm and state != "Z":
            pids.append(int(entry))
    return pids


def test_fork_bomb_children_that_leave_the_group_die_with_the_run(box, tmp_path):
    name = f"fb{secrets.token_hex(5)}"  # a unique process name (< 16 characters)
    exe = cc(tmp_path / "bin", name, FORK)
    out = boxed(box, exe, tmp_path / "work", timeout_s=2)
    assert out.kind == "timeout" and out.stdout == "forked\n"
    for _ in range(50):
        if not _alive_named(name):
            break
        time.sleep(0.1)
    assert _alive_named(name) == [], "children of the fork bomb survived the sandbox"


def test_huge_allocation_is_graceful(box, tmp_path):
    src = (
        "#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n"
        "  char *p = malloc(1ULL << 40);\n  if (p) { p[0] = 1; }\n"
        '  puts(p ? "got" : "null");\n  free(p);\n  return 0;\n}\n'
    )
    exe = cc(tmp_path / "bin", "huge", src)
    out = boxed(box, exe, tmp_path / "work")
    assert out.ok and out.stdout in ("got\n", "null\n")


def test_the_default_is_none_for_one_grade_and_auto_for_a_batch(monkeypatch):
    """One grade (a student's own work, the path verified on the H200) runs unsandboxed
    unless GRADER_SANDBOX asks; batch grading of untrusted submissions asks for auto."""
    from grader import grade

    monkeypatch.delenv(sandbox.ENV, raising=False)
    assert sandbox.choose().kind == "none"
    assert sandbox.choose().notice == (
        "off (the default when you grade your own work; GRADER_SANDBOX=auto turns it on): "
        "running with resource limits only; the submission's code can read whatever the "
        "grader can (an instructor's hidden.toml too, where the course has one)"
    )
    assert grade.Options().sandbox_default == "none"
    monkeypatch.setattr(sandbox.shutil, "which", lambda name, **kw: None)
    assert sandbox.choose(default="auto").notice.startswith(
        "not available (bubblewrap not installed; no user sandbox"
    )


SIZE = r"""
#include <stdio.h>
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    long n = -1;
    if (f) { fseek(f, 0, SEEK_END); n = ftell(f); fclose(f); }
    printf("%ld\n", n);
    return 0;
}
"""


@pytest.mark.instructors
def test_what_the_release_leaves_out_and_git_are_hidden(box, tmp_path):
    """What the student release leaves out whole because it gives answers away (dist.EXCLUDED:
    correct alternatives, known-bad patches quoting the solution, bench variants; the GPU
    session records and grader/tests/data's recorded sanitizer reports, which name the
    solutions' kernels and lines) and .git, whose objects hold solutions/ and every
    hidden.toml, list empty in a run (a red-team review printed the solution with `git show`
    inside the sandbox)."""
    names = [d.rstrip("/") for d in (*dist.EXCLUDED, ".git")]
    names += ["grader/tests/data"] + sorted(
        f"bench/{p.name}" for p in (REPO / "bench").glob("h200-20*") if p.is_dir()
    )
    present = [REPO / n for n in names if (REPO / n).is_dir() and any((REPO / n).iterdir())]
    assert REPO / "grader" / "tests" / "alternatives" in present  # the check is not empty
    assert REPO / "grader" / "tests" / "data" in present
    assert REPO / "bench" / "h200-2026-12-05-session38" in present
    exe = cc(tmp_path / "bin", "list", LIST)
    assert str(REPO / "bench") in box.hidden  # whole: one mount for every session folder
    for path in present:
        assert any(path.is_relative_to(h) for h in box.hidden), path
        assert boxed(box, exe, tmp_path / "work", str(path)).stdout == "0\n", path


@pytest.mark.instructors
def test_hidden_cases_file_reads_empty(box, tmp_path):
    """The instructor-only labs/<lab>/hidden.toml is hidden like solutions/."""
    hidden = sorted(REPO.glob("labs/*/hidden.toml"))
    assert hidden, "the course has a hidden.toml to hide"
    exe = cc(tmp_path / "bin", "size", SIZE)
    plain = run.run([exe, str(hidden[0])], 30, cwd=str(tmp_path))
    assert int(plain.stdout) > 0  # control: readable without the sandbox
    out = boxed(box, exe, tmp_path / "work", str(hidden[0]))
    assert out.stdout == "0\n"


@pytest.mark.instructors
def test_the_assembled_copy_has_no_hidden_cases_file(tmp_path):
    """Runs can read the assembled lab (their binary lives there), so it holds no
    hidden.toml: the grader reads hidden cases from the pristine lab only."""
    from grader import assemble, manifest

    lab = manifest.load(REPO / "labs" / "3.3-tiling")
    assert (lab.dir / "hidden.toml").is_file()
    done = assemble.assemble(lab, REPO / "solutions" / "3.3-tiling", tmp_path)
    assert done.ok and (done.src / "lab.toml").is_file()
    assert not (done.src / "hidden.toml").exists()


def test_only_the_system_the_toolkit_and_the_course_are_visible(box, tmp_path):
    """Another copy of the course (an instructor's checkout in their home folder, with its
    solutions/) is not in the sandbox: only SYSTEM_DIRS, the toolkits and the course are
    (the instructor walkthrough read one at build time with .incbin)."""
    home = Path.home()
    if any(str(home).startswith(d + "/") for d in sandbox.SYSTEM_DIRS) or str(home) == "/":
        pytest.skip(f"the home folder {home} lies in a system folder")
    secret_dir = home / f".cml-other-copy-{secrets.token_hex(4)}" / "solutions"
    secret_dir.mkdir(parents=True)
    try:
        (secret_dir / "kernels.cu").write_text("the reference\n")
        assert (secret_dir / "kernels.cu").read_text() == "the reference\n"  # outside: there
        out = boxed(box, "/usr/bin/cat", tmp_path / "work", str(secret_dir / "kernels.cu"))
        assert out.kind == "exited" and out.code != 0, out.stdout
        assert "No such file or directory" in out.stderr
        out = boxed(box, "/usr/bin/sh", tmp_path / "work", "-c", "echo x > /new-at-the-root")
        assert out.code != 0  # the new root is read-only too
        out = boxed(box, "/usr/bin/ls", tmp_path / "work", "/usr/bin/make", str(REPO / "Makefile"))
        assert out.ok, out.stderr  # the system and the course are there
    finally:
        shutil.rmtree(secret_dir.parent)


def test_the_build_outputs_but_the_course_library_are_hidden(box):
    """build/<lab>/solution/ holds the compiled reference (an instructor walkthrough
    embedded it with .incbin) and build/dist/ the Gradescope zip with the hidden cases;
    only build/common (the library every build links) stays visible."""
    built = [p for p in (REPO / "build").glob("*") if p.name != "common"]
    if not built:
        pytest.skip("nothing built in this checkout yet")
    for path in built:
        assert str(path) in box.hidden
    assert str(REPO / "build" / "common") not in box.hidden


@pytest.mark.instructors
def test_a_hidden_folder_that_holds_what_the_caller_reads_stays_visible(box):
    """bench tools (memory_peaks.py, calibrate.py) run build/<lab>/solution/lab in the
    sandbox: the folder they name readable is not hidden; every other one still is."""
    inside = REPO / "solutions" / "3.3-tiling"
    argv = box.wrap(["lab"], None, readable=[str(inside)])
    assert ["--tmpfs", str(REPO / "solutions")] not in [argv[i : i + 2] for i in range(len(argv))]
    argv = box.wrap(["lab"], None, readable=[str(REPO / "labs")])
    assert ["--tmpfs", str(REPO / "solutions")] in [argv[i : i + 2] for i in range(len(argv))]


# -- the user sandbox: root without namespaces (a Docker container such as Gradescope's) --


@pytest.fixture
def user_box(monkeypatch) -> sandbox.Sandbox:
    """The user sandbox (needs root: it switches to a user of the grading's own)."""
    if os.geteuid() != 0:
        pytest.skip("the user sandbox needs the grader to run as root")
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) not found")
    monkeypatch.setenv(sandbox.ENV, "user")
    return sandbox.choose([REPO])


ID_AND_TRIES = r"""
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
/* prints its uid, then for each "r:PATH" / "w:PATH" whether it could open PATH */
int main(int argc, char **argv) {
    printf("uid %d\n", (int)getuid());
    for (int i = 1; i < argc; ++i) {
        int fd = open(argv[i] + 2, argv[i][0] == 'w' ? O_WRONLY | O_CREAT : O_RDONLY, 0644);
        printf("%s %s\n", argv[i], fd >= 0 ? "opened" : strerror(errno));
        if (fd >= 0) close(fd);
    }
    return 0;
}
"""


def test_auto_without_bubblewrap_as_root_switches_to_a_user(monkeypatch):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("the user sandbox needs root and setpriv")
    monkeypatch.setenv(sandbox.ENV, "auto")
    real = shutil.which
    monkeypatch.setattr(sandbox.shutil, "which", lambda n, **kw: None if n == "bwrap" else real(n, **kw))
    box = sandbox.choose([REPO])
    assert box.kind == "user" and box.reason == "bubblewrap not installed"
    assert "an unprivileged user of this grading's own" in box.notice
    assert box.user[0] in sandbox.USER_IDS and box.user[0] != 0


@pytest.mark.instructors
def test_a_user_sandbox_run_cannot_read_the_hidden_or_write_the_course(user_box):
    hidden = sorted(REPO.glob("labs/*/hidden.toml"))
    assert hidden, "the course has a hidden.toml to hide"
    solution = next(REPO.glob("solutions/*/kernels.cu"), None)
    if solution is None:
        pytest.skip("no solutions/ in this checkout")
    work = Path(tempfile.mkdtemp(prefix="grader-run-"))
    target = REPO / "labs" / f"pwned-{secrets.token_hex(4)}.txt"
    try:
        exe = cc(work.parent / f"bin-{secrets.token_hex(4)}", "tries", ID_AND_TRIES)
        args = [f"r:{hidden[0]}", f"r:{solution}", f"w:{target}", f"w:{work / 'mine.txt'}"]
        out = run.run([exe, *args], 30, cwd=str(work), sandbox=user_box,
                      readable=[str(Path(exe).parent)])
        assert out.ok, out.stderr
        assert f"uid {user_box.user[0]}\n" in out.stdout
        assert f"r:{hidden[0]} Permission denied" in out.stdout
        assert f"r:{solution} Permission denied" in out.stdout
        assert f"w:{target} Permission denied" in out.stdout
        assert f"w:{work / 'mine.txt'} opened" in out.stdout  # its own folder is writable
        assert not target.exists()
    finally:
        target.unlink(missing_ok=True)
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(Path(exe).parent, ignore_errors=True)


def test_two_gradings_in_user_sandboxes_cannot_read_each_others_work(user_box, monkeypatch):
    """Each grading has a user and group of its own: another grading's folder (its
    assembled sources, its build, its work directory) is closed to it."""
    other_box = sandbox.choose([REPO])
    assert other_box.user != user_box.user
    grading = Path(tempfile.mkdtemp(prefix="grader-"))  # a grading's folder: 0700, root's
    other = Path(tempfile.mkdtemp(prefix="grader-"))
    try:
        exe = cc(grading / "bin", "tries", ID_AND_TRIES)
        (other / "src").mkdir()
        (other / "src" / "kernels.cu").write_text("someone else's work\n")
        other_box.wrap(["true"], workdir=None, readable=[str(other / "src")])  # its group
        (grading / "work").mkdir()
        out = run.run([exe, f"r:{other / 'src' / 'kernels.cu'}"], 30, cwd=str(grading / "work"),
                      sandbox=user_box, readable=[str(grading / "bin")])
        assert out.ok, out.stderr
        assert "Permission denied" in out.stdout, out.stdout
    finally:
        shutil.rmtree(grading, ignore_errors=True)
        shutil.rmtree(other, ignore_errors=True)


def test_a_course_others_cannot_read_gets_no_user_sandbox(monkeypatch, tmp_path):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("the user sandbox needs root and setpriv")
    closed = tmp_path / "course"  # under pytest's 0700 folder
    closed.mkdir()
    (closed / "Makefile").write_text("all:\n")
    monkeypatch.setenv(sandbox.ENV, "user")
    with pytest.raises(GraderError, match="is not readable by other users.*chmod -R o\\+rX"):
        sandbox.choose([closed])


def test_a_class_kept_inside_the_course_tree_is_hidden(box, tmp_path, monkeypatch):
    """A batch's --out and its class's submissions (``private``) are hidden where a run
    would see them (here inside the course tree), and only there: other students' reports
    and work are not for a submission to read."""
    course = tmp_path / "course"
    (course / "labs").mkdir(parents=True)
    out, sub = course / "grades", course / "class" / "alice.zip"
    (out / "bob").mkdir(parents=True)
    (out / "bob" / "report.json").write_text("bob's report\n")
    sub.parent.mkdir()
    sub.write_text("alice's work\n")
    far = Path.home() / "class-grades-not-in-any-sandbox"
    monkeypatch.setenv(sandbox.ENV, "auto")
    shown = sandbox.choose([course])
    hiding = sandbox.choose([course], private=[out, sub, far])
    assert str(out) in hiding.hidden and str(sub) in hiding.hidden
    assert str(far) not in hiding.hidden  # not seen by any run: nothing to hide
    for chosen, report, work in ((shown, "bob's report\n", "alice's work\n"), (hiding, "", "")):
        got = boxed(chosen, "/usr/bin/cat", tmp_path / "work", str(sub))
        assert got.stdout == work, got.stderr
        got = boxed(chosen, "/usr/bin/cat", tmp_path / "work", str(out / "bob" / "report.json"))
        assert got.stdout == report, got.stderr


def test_a_private_path_never_breaks_a_run(box, tmp_path, monkeypatch):
    """Layouts a review found failing every run of a batch (bubblewrap could not mount the
    private path): a submission inside solutions/ (hidden already, read-only), one that is a
    link inside the course to a folder outside it, and --out holding a submission, named
    first. Each run still works, and what the class holds stays unread."""
    course = tmp_path / "course"
    (course / "labs").mkdir(parents=True)
    (course / "solutions" / "9.1-fake").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere" / "dave"
    elsewhere.mkdir(parents=True)
    (course / "class").mkdir()
    (course / "class" / "dave").symlink_to(elsewhere)
    out = course / "grades"
    (out / "erin").mkdir(parents=True)
    (out / "erin" / "kernels.cu").write_text("erin's work\n")
    private = [out, out / "erin", course / "solutions" / "9.1-fake", course / "class" / "dave"]
    monkeypatch.setenv(sandbox.ENV, "auto")
    chosen = sandbox.choose([course], private=private)
    assert str(out) in chosen.hidden and str(out / "erin") not in chosen.hidden  # outermost
    assert str(course / "solutions" / "9.1-fake") not in chosen.hidden  # inside a hidden one
    ran = boxed(chosen, "/usr/bin/cat", tmp_path / "work", str(out / "erin" / "kernels.cu"))
    assert ran.kind == "exited" and ran.code != 0 and "No such file" in ran.stderr, ran.stderr
    assert boxed(chosen, "/usr/bin/true", tmp_path / "work").ok


def test_a_course_reached_through_a_link_hides_the_class_at_both_names(box, tmp_path, monkeypatch):
    """A course seen at two names (a link to it, and its own folder: the grader's repository
    is always bound at its resolved path): the class's --out is hidden at each, wherever it
    was named."""
    real = tmp_path / "real" / "course"
    (real / "labs").mkdir(parents=True)
    (real / "grades" / "bob").mkdir(parents=True)
    (real / "grades" / "bob" / "report.json").write_text("bob's report\n")
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "real")
    monkeypatch.setenv(sandbox.ENV, "auto")
    for named in (link / "course" / "grades", real / "grades"):
        chosen = sandbox.choose([link / "course", real], private=[named])
        assert {str(link / "course" / "grades"), str(real / "grades")} <= set(chosen.hidden)
        for seen in (link / "course" / "grades", real / "grades"):
            ran = boxed(chosen, "/usr/bin/cat", tmp_path / "work", str(seen / "bob" / "report.json"))
            assert ran.stdout == "", (named, seen)


def test_a_sandbox_that_cannot_start_is_the_graders_error(box, tmp_path, monkeypatch):
    """bubblewrap failing to set a run up (here a hidden path it cannot mount: a file under a
    read-only folder that does not exist in the sandbox) raises GraderError naming it, rather
    than giving a result the submission would be graded by (a build's "build failed", for
    good); a command that runs and fails is still its own result."""
    broken = dataclasses.replace(box, hidden=(*box.hidden, "/usr/no-such-folder/x"))
    # wrap hides only what exists: make it look so for this one path
    real_isdir = os.path.isdir
    monkeypatch.setattr(os.path, "isdir", lambda p: p == "/usr/no-such-folder/x" or real_isdir(p))
    with pytest.raises(GraderError, match=r"sandbox \(bubblewrap\) could not start true: bwrap:"):
        boxed(broken, "/usr/bin/true", tmp_path / "work")
    monkeypatch.undo()
    out = boxed(box, "/usr/bin/false", tmp_path / "work")
    assert out.kind == "exited" and out.code == 1
    seg = boxed(box, "/usr/bin/sh", tmp_path / "work", "-c", "kill -SEGV $$")
    assert seg.kind == "signaled", seg


def test_a_user_sandbox_closes_the_class_to_the_submissions(monkeypatch):
    """A batch's ``private`` paths (its --out and its class's submissions) in folders others
    may read (an instructor's home of mode 755): the user sandbox makes each unreadable to
    other users, so a submission's run cannot read a classmate's work or grades; a path
    others could not read anyway is left as it was."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("the user sandbox needs root and setpriv")
    home = Path(tempfile.mkdtemp(prefix="grader-class-"))  # not under pytest's 0700 folder
    try:
        os.chmod(home, 0o755)
        sub, out, closed = home / "bob.zip", home / "grades", home / "carol"
        sub.write_text("bob's work\n")
        os.chmod(sub, 0o644)
        out.mkdir(mode=0o755)
        (out / "report.json").write_text("alice's report\n")
        os.chmod(out / "report.json", 0o644)
        closed.mkdir(mode=0o750)
        monkeypatch.setenv(sandbox.ENV, "user")
        box = sandbox.choose([REPO], private=[sub, out, closed])
        assert str(sub) in box.protected and str(out) in box.protected
        assert str(closed) not in box.protected and stat.S_IMODE(closed.stat().st_mode) == 0o750
        assert stat.S_IMODE(sub.stat().st_mode) == 0o640
        assert "the class's submissions and grades" in box.notice and "stay readable" not in box.notice
        work = Path(tempfile.mkdtemp(prefix="grader-run-"))
        try:
            exe = cc(work.parent / f"bin-{secrets.token_hex(4)}", "tries", ID_AND_TRIES)
            got = run.run([exe, f"r:{sub}", f"r:{out / 'report.json'}"], 30, cwd=str(work),
                          sandbox=box, readable=[str(Path(exe).parent)])
            assert got.ok, got.stderr
            assert f"r:{sub} Permission denied" in got.stdout, got.stdout
            assert f"r:{out / 'report.json'} Permission denied" in got.stdout, got.stdout
        finally:
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(Path(exe).parent, ignore_errors=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_the_user_sandbox_leaves_links_and_what_it_cannot_close_open_and_says_so(monkeypatch,
                                                                                 capsys):
    """A review's findings: chmod follows a link (a submission linked to a course folder
    closed it to every later run), a folder of mode 0711 lets a known file name be opened,
    and a path chmod refuses (a class mounted read-only) turned the user sandbox off. Now a
    link is left as it is, a 0711 folder is closed, and a path that cannot be closed keeps
    the sandbox. The grader's log names each path left readable, with why, once; the
    report's notice gives their number only (a second review: the names are classmates'),
    and a link others cannot reach is no concern."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("the user sandbox needs root and setpriv")
    home = Path(tempfile.mkdtemp(prefix="grader-class-"))
    try:
        os.chmod(home, 0o755)
        shared = home / "course_lib"
        shared.mkdir(mode=0o755)
        link = home / "eve"
        link.symlink_to(shared)
        searchable = home / "alice"
        searchable.mkdir(mode=0o711)
        frozen = home / "bob.zip"
        frozen.write_text("bob's work\n")
        os.chmod(frozen, 0o644)
        real_chmod = os.chmod

        def chmod(path, mode, *args, **kwargs):
            if os.path.abspath(path) == str(frozen):
                raise OSError(30, "Read-only file system")
            return real_chmod(path, mode, *args, **kwargs)

        monkeypatch.setattr(sandbox.os, "chmod", chmod)
        monkeypatch.setenv(sandbox.ENV, "user")
        hidden = Path(tempfile.mkdtemp(prefix="grader-closed-"))  # 0700: others cannot pass
        (hidden / "mallory").symlink_to(shared)
        box = sandbox.choose([REPO], private=[link, searchable, frozen, hidden / "mallory"])
        assert box.kind == "user"
        assert stat.S_IMODE(shared.stat().st_mode) == 0o755  # the link's target untouched
        assert stat.S_IMODE(searchable.stat().st_mode) == 0o710 and str(searchable) in box.protected
        assert "2 of the class's paths stay readable to it" in box.notice, box.notice
        assert str(home) not in box.notice  # no classmate's name in a student's report
        log = capsys.readouterr().err
        assert f"{link} stays readable to other users" in log and "(a link: chmod" in log, log
        assert f"{frozen} stays readable" in log and "(Read-only file system)" in log, log
        assert "mallory" not in log
        os.chmod(searchable, 0o711)  # reopened while the batch runs
        again = sandbox.choose([REPO], private=[link, searchable, frozen])  # another grading
        assert "2 of the class's paths" in again.notice and capsys.readouterr().err == ""
        assert stat.S_IMODE(searchable.stat().st_mode) == 0o710  # closed again
        shutil.rmtree(hidden)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _linked_course(real_parent: Path | None, link_parent: Path) -> tuple[Path, Path]:
    """A course tree (Makefile, solutions/, labs/x/hidden.toml, build/x/solution/lab and
    build/common/lib) in a fresh folder of ``real_parent`` (None: the temporary folder), and a
    link to it in ``link_parent``: (the course, the link)."""
    course = Path(tempfile.mkdtemp(prefix="cml-course-", dir=real_parent))
    (course / "Makefile").write_text("the course's Makefile\n")
    for secret in ("solutions/kernels.cu", "labs/x/hidden.toml", "build/x/solution/lab"):
        (course / secret).parent.mkdir(parents=True, exist_ok=True)
        (course / secret).write_text("the answer\n")
    (course / "build" / "common").mkdir(parents=True)
    (course / "build" / "common" / "lib").write_text("the library\n")
    os.chmod(course, 0o755)
    link = link_parent / f"cml-course-link-{secrets.token_hex(4)}"
    link.symlink_to(course)
    return course, link


@pytest.mark.parametrize("where", ["link in /opt", "course in /opt"])
def test_a_course_reached_through_a_link_shows_no_secret(box, tmp_path, where):
    """A course reached through a link in /opt (a folder the sandbox shows read-only):
    bubblewrap could not mount it on the link and failed every run (noticed in session 28);
    the link's target is bound instead. And a course that lives in /opt, named through a link
    elsewhere, was readable at its real place, its secrets with it (a review). Either way the
    course reads through the link and its library stays readable, and no solution, hidden
    case or compiled solution is readable through the link or at the real place."""
    if not os.access("/opt", os.W_OK):
        pytest.skip("cannot make a link in /opt")
    if where == "link in /opt":
        course, link = _linked_course(None, Path("/opt"))
    else:
        course, link = _linked_course(Path("/opt"), tmp_path)
    try:
        chosen = sandbox.choose([link], "bwrap")
        for base in (link, course):
            got = boxed(chosen, "/usr/bin/cat", tmp_path / "work", str(base / "Makefile"))
            assert got.ok and got.stdout == "the course's Makefile\n", (base, got.stderr)
            got = boxed(chosen, "/usr/bin/cat", tmp_path / "work",
                        str(base / "build" / "common" / "lib"))
            assert got.stdout == "the library\n", (base, got.stderr)
            for secret in ("solutions/kernels.cu", "labs/x/hidden.toml", "build/x/solution/lab"):
                got = boxed(chosen, "/usr/bin/cat", tmp_path / "work", str(base / secret))
                assert "the answer" not in got.stdout, (base / secret, got.stdout)
    finally:
        link.unlink(missing_ok=True)
        shutil.rmtree(course, ignore_errors=True)


def test_the_sandbox_hides_what_the_release_leaves_out_whole(tmp_path):
    """sandbox._released_without lists what is there of the folders the release leaves out
    whole (grader/tests/data and the dated session folders of any card among them, each also
    dist.excluded), bench/ standing for its own; nothing else the release ships."""
    for d in ("solutions/3.3-tiling", "grader/tests/data/racecheck", "bench/throughput",
              "bench/h200-2026-12-05-session38/g123", "bench/h100-2027-01-10-session1",
              "bench/roof", "bench/notes-2026", "labs/3.3-tiling"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "bench" / "h200.md").write_text("x")
    got = [p.relative_to(tmp_path).as_posix()
           for p in sandbox._released_without(tmp_path, [tmp_path])]
    assert got == ["bench", "solutions", "grader/tests/data"], got
    assert all(dist.excluded(g + "/x") for g in got if g != "bench")
    for session in ("bench/h200-2026-12-05-session38", "bench/h100-2027-01-10-session1",
                    "bench/roof"):
        assert dist.excluded(session + "/x"), session  # under the bench/ that is hidden
    assert sandbox._released_without(tmp_path / "nowhere", [tmp_path]) == []


def test_what_the_sandbox_hides_of_the_release_links_and_bench(tmp_path):
    """sandbox._released_without: bench/ whole in place of its dated session folders (one
    mount, not one a session: a review measured 25-40 ms more a sandboxed process); a link
    among them hidden by its target where that lies in a course tree the runs see, else not
    at all (a tmpfs on the link itself made bubblewrap fail every run, a review)."""
    course = tmp_path / "course"
    for d in ("bench/h200-2026-01-01-session1", "bench/roof", "grader/tests/known_bad",
              "solutions/9.1-fake", "kept/records"):
        (course / d).mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, course / "grader" / "tests" / "data")  # outside: no run sees it
    os.symlink(course / "kept" / "records", course / "grader" / "tests" / "alternatives")
    got = sandbox._released_without(course, [course])
    assert got == [course / "bench", course / "solutions", course / "grader/tests/known_bad",
                   course / "kept/records"], got
    assert sandbox._released_without(tmp_path / "nowhere", [tmp_path]) == []

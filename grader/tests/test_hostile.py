"""Hostile submissions through the whole grader (issue 6, part 4): each must be contained
with a readable verdict and no points it did not earn. They run on the fake lab
(fakelab/README.md) with ``FAKE_GPU=1``: its harness calls the student's launchers on the
host, so host-side hostility really executes. What the symbol allow-list refuses is
asserted as refused; what gets past it (inline ``syscall``, a static constructor) meets
the sandbox. test_sandbox.py tests the sandbox itself with plain C programs."""

from __future__ import annotations

import json
import os
import platform
import resource
import secrets
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from grader import cgroup, harness, sandbox
from helpers import REPO, grade_cli, instructors_only_reason, step_statuses, submission

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

SOLUTION = "solutions/9.1-fake/kernels.cu"
LAUNCH = "*speed = 2.5;"

# raw system calls: no libc symbol, so the symbol check cannot see them (x86-64 Linux)
SYSCALL = """
static long raw3(long n, long a, long b, long c) {
    long r;
    asm volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}
"""
x86_only = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86-64 system calls")


@pytest.fixture(params=["bwrap", "user"])
def contained(request, monkeypatch, fake_root):
    """The fake course to grade in each sandbox (one grade defaults to none: ask for it):
    bubblewrap, and the user sandbox of a root grader without namespaces, for which the
    course must be readable by other users (a copy outside pytest's 0700 folder)."""
    kind = request.param
    if kind == "user" and (os.geteuid() != 0 or shutil.which("setpriv") is None):
        pytest.skip("the user sandbox needs root and setpriv")
    monkeypatch.setenv(sandbox.ENV, kind if kind == "user" else "auto")
    root = fake_root
    if kind == "user":
        root = Path(tempfile.mkdtemp(prefix="cml-course-")) / "course"
        shutil.copytree(fake_root, root)
        subprocess.run(["chmod", "-R", "o+rX", str(root.parent)], check=True)
        request.addfinalizer(lambda: shutil.rmtree(root.parent, ignore_errors=True))
    box = sandbox.choose([root])
    if box.kind != kind:
        pytest.skip(f"sandbox {box.notice}")
    return root


def hostile(fake_root, tmp_path, new: str, old: str = LAUNCH, head: str = "") -> Path:
    """The fake solution with ``old`` replaced by ``new`` and ``head`` put at its top."""
    text = (fake_root / SOLUTION).read_text()
    assert text.count(old) == 1, old
    return submission(tmp_path / "sub", head + text.replace(old, new))


def grade(capsys, fake_root, sub, tmp_path, *extra):
    path = tmp_path / "report.json"
    args = ["grade", fake_root / "labs" / "9.1-fake", "--submission", sub, "--json", path]
    code, out, err = grade_cli(capsys, *args, "--no-sanitizer", *extra)
    assert "Traceback" not in out + err
    return code, out, json.loads(path.read_text())


def scale(rep) -> dict:
    return rep["exercises"][0]["parts"]


# -- refused by the symbol check before anything runs ------------------------------


@pytest.mark.parametrize(
    "call, code",
    [
        ("fork", "for (int i = 0; i < 4; ++i) { fork(); }"),
        ("socket", "socket(2, 1, 0);"),
        ("fopen", 'fopen("solutions/9.1-fake/kernels.cu", "r");'),
    ],
)
def test_dangerous_calls_are_refused_and_never_run(
    call, code, fake_root, fake_gpu, capsys, tmp_path
):
    head = "#include <cstdio>\n#include <cstdlib>\n#include <unistd.h>\n#include <sys/socket.h>\n"
    sub = hostile(fake_root, tmp_path, f"{LAUNCH}\n    {code}", head=head)
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 1
    assert f"kernels.cu calls {call}, which submissions may not call" in out
    assert rep["total"] == 0 and scale(rep)["correctness"]["details"] == []


def test_redefined_timing_function_is_refused(fake_root, fake_gpu, capsys, tmp_path):
    head = 'extern "C" int cml_time_interleaved(void) { return 0; }\n'
    sub = hostile(fake_root, tmp_path, LAUNCH, head=head)
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 1 and "symbols      FAILED" in out
    assert "cml_time_interleaved" in out
    assert rep["total"] == 0 and scale(rep)["correctness"]["details"] == []


def test_static_constructor_calling_exit_earns_nothing(fake_root, fake_gpu, capsys, tmp_path):
    # exit is allowed (nvcc's host body of a __device__ helper calls it), and gains nothing:
    # the binary never gets to write a document, --list fails, the start-up fails
    head = "#include <cstdlib>\n__attribute__((constructor)) static void early() { exit(0); }\n"
    sub = hostile(fake_root, tmp_path, LAUNCH, head=head)
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 1, out
    assert "symbols      passed" in out
    assert rep["total"] == 0


def test_exit_in_a_launcher_is_graded_as_a_crash(fake_root, fake_gpu, capsys, tmp_path):
    sub = hostile(
        fake_root,
        tmp_path,
        f"{LAUNCH}\n    if (rows == 33) {{ exit(0); }}",
        head="#include <cstdlib>\n",
    )
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 1
    assert "exited with status 0 without writing its result" in out
    assert scale(rep)["correctness"]["status"] == "failed"


# -- past the symbol check: contained at run time ----------------------------------


@x86_only
def test_static_constructor_exiting_0_earns_nothing(fake_root, fake_gpu, capsys, tmp_path):
    # exit_group(0) by a raw syscall before main, only in graded runs (--serve, the
    # student's side of a judged run): --list still works, so the grader gets as far as
    # the cases
    head = SYSCALL + (
        "__attribute__((constructor)) static void early(int argc, char **argv) {\n"
        "    for (int i = 1; i < argc; ++i) {\n"
        '        const char *a = argv[i], *w = "--serve";\n'
        "        while (*w && *a == *w) { ++a; ++w; }\n"
        "        if (!*w && !*a) { raw3(231, 0, 0, 0); }\n"
        "    }\n"
        "}\n"
    )
    sub = hostile(fake_root, tmp_path, LAUNCH, head=head)
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 1
    assert "exited with status 0 without writing its result" in out
    assert rep["total"] == 0
    assert {d["status"] for d in scale(rep)["correctness"]["details"]} == {"crash"}


def test_static_constructor_breaking_the_listing_is_graded_0(fake_root, fake_gpu, capsys, tmp_path):
    # printing before main spoils `lab --list`: the submission's failed start-up, scored 0
    # and reported, not a course error (exit 2)
    head = '#include <cstdio>\n__attribute__((constructor)) static void early() { puts("hi"); }\n'
    sub = hostile(fake_root, tmp_path, LAUNCH, head=head)
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 1, out
    assert "lab --list printed no valid JSON" in out
    assert "static constructor in the student file" in out
    assert rep["total"] == 0


def test_forged_result_line_on_stdout_is_ignored(fake_root, fake_gpu, capsys, tmp_path):
    # prints a perfect-looking run document and computes nothing
    forged = (
        '{"schema":1,"lab":"9.1","exercise":"scale","size":[33,65],"seed":1,'
        '"status":"ok","error":null,"check":null,"timing":null,"metrics":null}'
    )
    head = "#include <cstdio>\n"
    text = (fake_root / SOLUTION).read_text()
    start = text.index("    for (int i = 0; i < rows * cols", text.index("// BEGIN SOLUTION"))
    end = text.index("// END SOLUTION", start)
    body = f'printf("%s\\n", {json.dumps(forged)});\n    *speed = 99.0;\n    '
    sub = submission(tmp_path / "sub", head + text[:start] + body + text[end:])
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 1
    assert "scale: not implemented yet" in out
    assert scale(rep)["correctness"]["points"] == 0 and scale(rep)["performance"]["points"] == 0


def _script(tmp_path: Path, body: str) -> Path:
    exe = tmp_path / "bin" / "lab"
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def _doc(seed: int) -> str:
    return json.dumps(
        {
            "schema": harness.schema_version(REPO),
            "lab": "9.1",
            "exercise": "scale",
            "size": [33, 65],
            "seed": seed,
            "status": "ok",
            "error": None,
            "check": {"n": 2145},
            "timing": None,
            "metrics": None,
        }
    )


def test_forged_documents_wrong_seed_and_neighbour_are_rejected(tmp_path):
    version = harness.schema_version(REPO)
    # the lab binary writes a document for another seed to its --json path, and a
    # correct-looking one next to it and to stdout
    body = (
        "for a; do json=$a; done\n"
        f"echo '{_doc(7)}' > \"$json\"\n"
        f"echo '{_doc(1234)}' > \"$json.forged\"\n"
        f'echo \'{_doc(1234)}\' > "$(dirname "$json")/result.json"\n'
        f"echo '{_doc(1234)}'\n"
    )
    exe = _script(tmp_path, body)
    run = harness.run_case(exe, "scale", (33, 65), 1234, 30, version)
    assert run.doc is None
    assert run.problem == "the run document's seed is 7, the run asked for 1234"
    # only neighbours and stdout: no document at all
    exe = _script(tmp_path, body.replace('> "$json"', "> /dev/null"))
    run = harness.run_case(exe, "scale", (33, 65), 1234, 30, version)
    assert run.doc is None
    assert run.problem == "exited with status 0 without writing its result"


def test_flood_of_stdout_is_cut_with_a_readable_verdict(fake_root, fake_gpu, capsys, tmp_path):
    flood = (
        "static char buf[1 << 20];\n"
        "    for (int i = 0; i < (int)sizeof buf; ++i) { buf[i] = 'x'; }\n"
        "    if (rows == 33) { for (long i = 0; i < 10L * 1024; ++i) "
        "{ fwrite(buf, 1, sizeof buf, stdout); } }\n    " + LAUNCH
    )
    sub = hostile(fake_root, tmp_path, flood, head="#include <cstdio>\n")
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path, "--no-perf")
    assert rc == 1
    assert "was killed after writing more than 64 MB of output before writing its result" in out
    assert [d["status"] for d in scale(rep)["correctness"]["details"]] == [
        "ok",
        "ok",
        "crash",
        "ok",
    ]
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before < 64 * 1024


# fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, LEN): disk taken at once, the file's size still 0 and
# RLIMIT_FSIZE not asked (a review: the run's folder on the host's disk had no bound at all)
FALLOCATE = SYSCALL + """
static long raw4(long n, long a, long b, long c, long d) {
    long r;
    register long r10 asm("r10") = d;
    asm volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                 : "rcx", "r11", "memory");
    return r;
}
"""


@x86_only
def test_a_working_folder_filled_past_its_cap_is_killed_with_a_readable_verdict(
    contained, fake_gpu, capsys, tmp_path
):
    # 1.25 GiB in the run's working folder at the third case, then a wait for the kill
    # (getpid over and over: a loop the compiler keeps)
    code = (
        "if (rows == 33) {\n"
        '        long fd = raw3(2, (long)"held", 01 | 0100, 0644);\n'
        "        raw4(285, fd, 1, 0, 5L << 28);\n"
        "        for (;;) { raw3(39, 0, 0, 0); }\n"
        f"    }}\n    {LAUNCH}"
    )
    sub = hostile(contained, tmp_path, code, head=FALLOCATE)
    rc, out, rep = grade(capsys, contained, sub, tmp_path, "--no-perf")
    assert rc == 1
    assert step_statuses(rep)["sandbox"] == "passed", out
    assert (
        "was killed after writing more than 1024 MB to its working folder before writing its "
        "result" in out
    ), out
    assert [d["status"] for d in scale(rep)["correctness"]["details"]] == [
        "ok",
        "ok",
        "crash",
        "ok",
    ]


def test_host_infinite_loop_times_out(fake_root, fake_gpu, capsys, tmp_path):
    sub = hostile(fake_root, tmp_path, f"{LAUNCH}\n    for (volatile int x = rows == 64; x;) {{ }}")
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 1
    assert "did not finish within 5 s" in out
    assert [d["status"] for d in scale(rep)["correctness"]["details"]][-1] == "timeout"
    assert scale(rep)["performance"]["status"] == "not_run"


def test_segfault_is_named(fake_root, fake_gpu, capsys, tmp_path):
    sub = hostile(
        fake_root, tmp_path, f"{LAUNCH}\n    if (rows == 1) {{ *(volatile int *)0 = 1; }}"
    )
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 1 and "crashed (SIGSEGV) before writing its result" in out
    assert scale(rep)["correctness"]["points"] < 6


def test_huge_allocation_is_graceful(fake_root, fake_gpu, capsys, tmp_path):
    alloc = (
        "float *big = (float *)malloc(1ULL << 40);  // 1 TB\n"
        "    if (big) { big[0] = 1.0f; free(big); }\n    " + LAUNCH
    )
    sub = hostile(fake_root, tmp_path, alloc, head="#include <cstdlib>\n")
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 3  # sanitizer left out; everything else passed
    assert scale(rep)["correctness"]["status"] == "passed"


@pytest.mark.skipif("memory" not in cgroup._parents().folders, reason=cgroup.status())
def test_host_memory_over_the_limit_is_killed_with_a_readable_verdict(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    monkeypatch.setattr(cgroup, "MAX_MEMORY_BYTES", 256 * 2**20)  # the fake lab needs ~10 MB
    hog = (
        "if (rows == 33) { volatile char *p = (volatile char *)malloc(1ULL << 30);\n"
        "        for (size_t i = 0; p && i < (1ULL << 30); i += 4096) { p[i] = 1; } }\n    "
        + LAUNCH
    )
    sub = hostile(fake_root, tmp_path, hog, head="#include <cstdlib>\n")
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path, "--no-perf")
    assert rc == 1
    assert "was killed for using more than 256 MiB of host memory before writing its result" in out
    statuses = [d["status"] for d in scale(rep)["correctness"]["details"]]
    assert statuses == ["ok", "ok", "crash", "ok"]


@x86_only
def test_build_time_read_of_solutions_fails_in_the_sandbox(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """The assembler's ``.incbin`` reads any file at build time (no #include for
    check_includes to see): in the sandbox solutions/ is empty, so the build fails; without
    it the same submission builds — the test can tell the two apart."""
    secret = REPO / "solutions" / "3.3-tiling" / "kernels.cu"
    if not secret.exists():
        pytest.skip(instructors_only_reason() or "no solution of lab 3.3 in this repository")
    head = f'__asm__(".section .rodata\\n.incbin \\"{secret}\\"\\n.text");\n'
    sub = hostile(fake_root, tmp_path, LAUNCH, head=head)
    monkeypatch.setenv(sandbox.ENV, "none")
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path, "--no-perf")
    assert step_statuses(rep)["build"] == "passed", out
    monkeypatch.setenv(sandbox.ENV, "auto")
    if sandbox.choose().kind != "bwrap":
        pytest.skip(f"sandbox {sandbox.choose().notice}")
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path, "--no-perf")
    steps = step_statuses(rep)
    assert steps["sandbox"] == "passed" and steps["build"] == "failed", out
    assert "file not found" in out
    assert rc == 1 and rep["total"] == 0


def test_a_baseline_slowed_by_the_submission_scores_no_performance(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """The judge's baseline took 2.5x as long among the student's repetitions as it did
    alone before the student's process started: something of the submission's kept the GPU
    busy (the GPU fixture hostile_left_behind_kernel does it for real). Correctness stands;
    performance scores nothing, with the reason."""
    monkeypatch.setenv("FAKE_BASELINE_ALONE_MS", "0.4")
    rc, out, rep = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake", tmp_path)
    parts = scale(rep)
    assert parts["correctness"]["status"] == "passed"
    assert parts["performance"]["points"] == 0, out
    assert "disturbed timing at" in out and "0.400 ms before your process started" in out
    monkeypatch.setenv("FAKE_BASELINE_ALONE_MS", "0.9")
    rc, out, rep = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake", tmp_path)
    assert scale(rep)["performance"]["points"] == scale(rep)["performance"]["max"], out


def test_a_baseline_spread_of_its_own_widens_the_disturbed_rule(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """An exercise whose lab.toml gives ``baseline_spread = 1.8`` (lab 3.2c's on-demand
    baseline, design note 95): its baseline 1.67 times its time alone among the repetitions
    (FAKE_BASELINE_ALONE_MS 0.6 against 1.0) keeps its points, where the default 1.5 takes
    them; 2.5 times still takes them."""
    toml = fake_root / "labs" / "9.1-fake" / "lab.toml"
    text = toml.read_text()
    assert text.count("reps = 20\n") == 1
    monkeypatch.setenv("FAKE_BASELINE_ALONE_MS", "0.6")
    rc, out, rep = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake", tmp_path)
    assert scale(rep)["performance"]["points"] == 0 and "disturbed timing at" in out
    try:
        toml.write_text(text.replace("reps = 20\n", "reps = 20\nbaseline_spread = 1.8\n"))
        rc, out, rep = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake", tmp_path)
        perf = scale(rep)["performance"]
        assert perf["points"] == perf["max"] and "disturbed" not in out, out
        monkeypatch.setenv("FAKE_BASELINE_ALONE_MS", "0.4")
        rc, out, rep = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake", tmp_path)
        assert scale(rep)["performance"]["points"] == 0 and "disturbed timing at" in out
    finally:
        toml.write_text(text)


def test_an_include_hidden_by_a_linemarker_is_refused(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """A linemarker that says "this is a system header" (flag 3) makes ``-MMD`` leave out
    every header included below it; the course builds with ``-MD`` (the preprocessor's
    real inputs), so check_includes still sees the file of solutions/ and refuses it.
    Without the sandbox (where solutions/ is visible) it builds and fails that check."""
    secret = fake_root / "solutions" / "9.1-fake" / "secret.h"
    secret.write_text("#define SECRET_SPEED 2.5f\n")
    head = f'# 1 "/usr/include/stdio.h" 1 3\n#include "{secret}"\n# 3 "kernels.cu" 2\n'
    try:
        sub = hostile(fake_root, tmp_path, "*speed = SECRET_SPEED;", head=head)
        monkeypatch.setenv(sandbox.ENV, "none")
        rc, out, rep = grade(capsys, fake_root, sub, tmp_path, "--no-perf")
    finally:
        secret.unlink()
    steps = step_statuses(rep)
    assert steps["build"] == "passed" and steps["symbols"] == "failed", out
    assert f"kernels.cu includes {secret}" in out
    assert rc == 1 and rep["total"] == 0


def test_the_graded_binary_has_no_symbol_table(fake_root, tmp_path):
    """A submission that reads /proc/self/exe finds no symbol table to look the CUDA
    runtime's denied functions up in (the Makefile links lab-bin with --strip-all)."""
    out_dir, src = tmp_path / "out", tmp_path / "src"
    shutil.copytree(fake_root / "labs" / "9.1-fake", src)
    shutil.copy(fake_root / SOLUTION, src / "kernels.cu")
    result = subprocess.run(
        ["make", "-C", str(fake_root), "-s", "lab-bin", f"LAB_SRC={src}", f"LAB_OUT={out_dir}"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    nm = subprocess.run(["nm", str(out_dir / "lab")], capture_output=True, text=True)
    assert "no symbols" in nm.stderr, nm.stdout[:500]
    objdump = subprocess.run(["nm", str(out_dir / "kernels.cu.o")], capture_output=True, text=True)
    assert "scale" in objdump.stdout  # the objects the symbol check reads keep theirs


@x86_only
def test_write_into_the_course_tree_by_syscall_fails(
    contained, fake_gpu, capsys, tmp_path
):
    target = REPO / "labs" / f"pwned-{secrets.token_hex(4)}"
    # open(target, O_WRONLY | O_CREAT, 0644); the result is only graded correct when the
    # open failed, so the verdict also says what happened inside
    code = (
        f"long fd = raw3(2, (long){json.dumps(str(target))}, 01 | 0100, 0644);\n"
        f"    if (fd >= 0) {{ return 0; }}\n    {LAUNCH}"
    )
    try:
        sub = hostile(contained, tmp_path, code, head=SYSCALL)
        rc, out, rep = grade(capsys, contained, sub, tmp_path, "--no-perf")
        assert not target.exists()
        assert scale(rep)["correctness"]["status"] == "passed"
        steps = step_statuses(rep)
        assert steps["sandbox"] == "passed"
    finally:
        target.unlink(missing_ok=True)


@x86_only
def test_read_of_solutions_by_syscall_sees_nothing(
    contained, fake_gpu, capsys, tmp_path
):
    secret = REPO / "solutions" / "3.3-tiling" / "kernels.cu"
    if not secret.exists():
        pytest.skip(instructors_only_reason() or "no solution of lab 3.3 in this repository")
    # open(secret, O_RDONLY): correct output only when the solution could not be opened
    code = (
        f"long fd = raw3(2, (long){json.dumps(str(secret))}, 0, 0);\n"
        f"    if (fd >= 0) {{ return 0; }}\n    {LAUNCH}"
    )
    sub = hostile(contained, tmp_path, code, head=SYSCALL)
    rc, out, rep = grade(capsys, contained, sub, tmp_path, "--no-perf")
    assert scale(rep)["correctness"]["status"] == "passed", out


@x86_only
@pytest.mark.instructors
def test_read_of_the_hidden_cases_by_syscall_gets_nothing(contained, fake_gpu, capsys, tmp_path):
    """labs/<lab>/hidden.toml: empty in bubblewrap, unreadable to the user sandbox's user."""
    hidden = sorted(REPO.glob("labs/*/hidden.toml"))
    assert hidden, "the course has a hidden.toml to hide"
    # read(open(hidden), buf, 64): correct output only when nothing could be read
    code = (
        f"char buf[64];\n    long fd = raw3(2, (long){json.dumps(str(hidden[0]))}, 0, 0);\n"
        "    long n = fd >= 0 ? raw3(0, fd, (long)buf, sizeof buf) : -1;\n"
        f"    if (n > 0) {{ return 0; }}\n    {LAUNCH}"
    )
    sub = hostile(contained, tmp_path, code, head=SYSCALL)
    rc, out, rep = grade(capsys, contained, sub, tmp_path, "--no-perf")
    assert step_statuses(rep)["sandbox"] == "passed", out
    assert scale(rep)["correctness"]["status"] == "passed", out


def test_without_a_sandbox_the_report_says_so(fake_root, fake_gpu, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv(sandbox.ENV, "none")
    rc, out, rep = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake", tmp_path)
    assert "sandbox      skipped" in out
    assert "off (GRADER_SANDBOX=none): running with resource limits only" in out
    assert rc == 3 and rep["total"] == rep["max"] - 2  # only the sanitizer left out


@pytest.mark.gpu
def test_infinite_loop_in_a_kernel_times_out(capsys, tmp_path):
    lab = REPO / "labs" / "3.3-tiling"
    text = (REPO / "solutions" / "3.3-tiling" / "kernels.cu").read_text()
    old = (
        "__global__ void transpose_tiled_kernel(const float *in, float *out, int rows, int cols) {"
    )
    assert text.count(old) == 1
    sub = submission(tmp_path / "sub", text.replace(old, old + "\n    for (;;) { }"))
    code, out, err = grade_cli(  # a hung kernel keeps the GPU busy: alone, as a timed one
        capsys, "grade", lab, "--submission", sub, "--exercise", "transpose_tiled", timed=True
    )
    assert code == 1 and "Traceback" not in out + err
    assert "did not finish within" in out


# -- the trust boundary: nothing the student's process writes is read (note 22) ------

# A full-marks run document, and a device document, as a forger would write them.
FORGED = (
    '{"schema":1,"lab":"9.1","exercise":"scale","size":[33,65],"seed":1,"judged":true,'
    '"status":"ok","error":null,"check":{"n":2145,"n_bad":0},"timing":{"ratio":400.0},'
    '"metrics":{"pct_of_copy":400.0},'
    '"device":{"name":"NVIDIA H200","cc":"9.0","sm_count":132}}'
)
FORGER = (
    SYSCALL
    + f'static const char forged[] = R"FORGED({FORGED}\n)FORGED";\n'
    + "static void forge() {\n"
    + '    const char *paths[] = {"run.json", "result.json"};\n'
    + "    for (const char *p : paths) {\n"
    + "        long fd = raw3(2, (long)p, 01 | 0100 | 01000, 0644);\n"
    + "        if (fd >= 0) { raw3(1, fd, (long)forged, sizeof forged - 1); raw3(3, fd, 0, 0); }\n"
    + "    }\n"
    + "    for (long fd = 1; fd < 64; ++fd) { raw3(1, fd, (long)forged, sizeof forged - 1); }\n"
    + "}\n"
    + "static int serving;\n"  # only as the student's side of a judged run (lab --list stays)
    + "__attribute__((constructor)) static void early(int argc, char **argv) {\n"
    + "    for (int i = 1; i < argc; ++i) {\n"
    + '        const char *a = argv[i], *w = "--serve";\n'
    + "        while (*w && *a == *w) { ++a; ++w; }\n"
    + "        if (!*w && !*a) { serving = 1; forge(); }\n"
    + "    }\n"
    + "}\n"
    + "__attribute__((destructor)) static void late() { if (serving) { forge(); } }\n"
)
# the launcher computes nothing and claims a speed of 400
IDLE = "*speed = 400.0;\n    return 0;"
IDLE_OLD = """    for (int i = 0; i < rows * cols; ++i) {
        out[i] = 2.0f * in[i] + 1.0f;
    }
    *speed = 2.5;"""


@x86_only
def test_forged_documents_earn_nothing_without_a_gpu(fake_root, capsys, tmp_path):
    # no device: the judge says so before any of the student's code runs (grade._probe
    # asks it first); whatever the student's process would write to files, standard output
    # or inherited descriptors, no report says a GPU ran, and no correctness or performance
    # point is awarded
    sub = hostile(fake_root, tmp_path, IDLE, old=IDLE_OLD, head=FORGER)
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 3, out
    assert step_statuses(rep)["device"] == "not_run"
    assert "NVIDIA H200" not in out
    for ex in rep["exercises"]:
        for name in ("correctness", "performance"):
            part = ex["parts"][name]
            assert part["points"] in (None, 0), (ex["name"], name, part)


@x86_only
def test_forged_documents_earn_nothing_with_a_gpu(fake_root, fake_gpu, capsys, tmp_path):
    # the judge computes the reference and reads the output itself: the forger's documents
    # (before main, after it, on every descriptor it inherited) change nothing
    sub = hostile(fake_root, tmp_path, IDLE, old=IDLE_OLD, head=FORGER)
    rc, out, rep = grade(capsys, fake_root, sub, tmp_path)
    assert rc == 1, out
    assert step_statuses(rep)["device"] == "passed"
    assert "Fake GPU" in out and "NVIDIA H200" not in out
    part = scale(rep)["correctness"]
    assert part["points"] == 0 and part["status"] == "failed"
    # a forged text on the judge's socket is a broken protocol: the case is unanswered
    assert {d["status"] for d in part["details"]} == {"crash"}


def test_a_worker_that_forges_and_exits_gives_no_document(fake_root, fake_gpu, tmp_path):
    # harness.run_judged reads the judge's standard output only: a student's process that
    # prints a document and writes one beside itself, then exits, leaves the case unanswered
    version = harness.schema_version(REPO)
    worker = tmp_path / "worker"
    worker.write_text(
        "#!/bin/sh\n"
        f"printf '%s' '{FORGED}' | tee run.json\n"
        "exit 0\n"
    )
    worker.chmod(0o755)
    import subprocess

    subprocess.run(["make", "-s", "-C", str(fake_root), "build/9.1-fake/judge"], check=True)
    judge = fake_root / "build" / "9.1-fake" / "judge"
    run = harness.run_judged(judge, worker, "scale", (33, 65), 1, 30, version)
    assert run.doc is None
    assert run.problem == "exited with status 0 without writing its result"


@x86_only
def test_a_judge_rewritten_during_the_grading_stops_it(fake_root, fake_gpu, capsys, tmp_path):
    # Without the sandbox the student's process runs as the grader's user and can write
    # the course's files: here `lab --list` truncates the judge (found by an absolute path,
    # as a student would find it through /proc). The grading must not run a changed judge.
    import shutil

    course = tmp_path / "course"
    shutil.copytree(fake_root, course, symlinks=True)
    judge = course / "build" / "9.1-fake" / "judge"
    head = SYSCALL + (
        "__attribute__((constructor)) static void early() {\n"
        f'    long fd = raw3(2, (long)"{judge}", 01 | 01000, 0);\n'
        '    if (fd >= 0) { raw3(1, fd, (long)"#!/bin/sh\\n", 10); raw3(3, fd, 0, 0); }\n'
        "}\n"
    )
    sub = hostile(course, tmp_path, LAUNCH, head=head)
    args = ["grade", course / "labs" / "9.1-fake", "--submission", sub, "--no-sanitizer"]
    code, out, err = grade_cli(capsys, *args)
    assert code == 2, out + err
    assert "changed while the submission ran" in err
    assert "GRADER_SANDBOX=bwrap" in err

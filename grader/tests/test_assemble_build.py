"""Assembling (only student files, no links) and build-output summaries and includes."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from grader import assemble, build, manifest
from grader.errors import GraderError
from helpers import FAKELAB

LAB = manifest.load(FAKELAB / "labs" / "9.1-fake")


def test_only_student_files_are_taken(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "kernels.cu").write_text("// mine\n")
    (sub / "harness.c").write_text("// a forged harness\n")
    (sub / "extra.cu").write_text("// extra\n")
    work = tmp_path / "work"
    work.mkdir()
    result = assemble.assemble(LAB, sub, work)
    assert result.ok
    assert (result.src / "kernels.cu").read_text() == "// mine\n"
    assert (result.src / "harness.c").read_text() == (LAB.dir / "harness.c").read_text()
    assert not (result.src / "extra.cu").exists()


def test_missing_student_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "work").mkdir()
    result = assemble.assemble(LAB, tmp_path / "sub", tmp_path / "work")
    assert result.problems == ["missing kernels.cu in submission (the folder is empty)"]


@pytest.mark.parametrize(
    "files, hint",
    [
        (["Kernels.cu"], " (it has Kernels.cu: file names are case-sensitive, name it kernels.cu)"),
        (["README", "notes.txt"], " (it holds README, notes.txt)"),  # another folder, maybe
        ([f"f{i}" for i in range(7)], " (it holds f0, f1, f2, f3, f4, ...)"),
    ],
)
def test_a_missing_student_file_says_what_the_folder_holds(tmp_path, files, hint):
    for name in files:
        (tmp_path / "sub").mkdir(exist_ok=True)
        (tmp_path / "sub" / name).write_text("x")
    (tmp_path / "work").mkdir()
    result = assemble.assemble(LAB, tmp_path / "sub", tmp_path / "work")
    assert result.problems == ["missing kernels.cu in submission" + hint]


def test_symlink_is_refused(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    os.symlink(FAKELAB / "solutions" / "9.1-fake" / "kernels.cu", sub / "kernels.cu")
    (tmp_path / "work").mkdir()
    result = assemble.assemble(LAB, sub, tmp_path / "work")
    assert result.problems == [
        "kernels.cu in the submission is a symbolic link: submit the file itself"
    ]


def test_directory_instead_of_file(tmp_path):
    sub = tmp_path / "sub"
    (sub / "kernels.cu").mkdir(parents=True)
    (tmp_path / "work").mkdir()
    result = assemble.assemble(LAB, sub, tmp_path / "work")
    assert result.problems and "not a regular file" in result.problems[0]


def test_fifo_instead_of_file_is_refused_without_waiting(tmp_path):
    """Opening a FIFO waits for a writer: a red-team kernels.cu FIFO hung the grader."""
    sub = tmp_path / "sub"
    sub.mkdir()
    os.mkfifo(sub / "kernels.cu")
    (tmp_path / "work").mkdir()
    done: list = []
    worker = threading.Thread(
        target=lambda: done.append(assemble.assemble(LAB, sub, tmp_path / "work")), daemon=True
    )
    worker.start()
    worker.join(timeout=10)
    if worker.is_alive():  # a writer's open lets the stuck reader's open return
        os.close(os.open(sub / "kernels.cu", os.O_WRONLY | os.O_NONBLOCK))
        worker.join()
        pytest.fail("assemble waited on a FIFO named kernels.cu")
    assert done[0].problems == [
        "kernels.cu in the submission is not a regular file: submit the file itself"
    ]


def test_missing_submission_folder_is_a_usage_error(tmp_path):
    with pytest.raises(GraderError, match="does not exist"):
        assemble.assemble(LAB, tmp_path / "nope", tmp_path)


def test_an_archive_given_to_grade_says_what_grade_takes(tmp_path):
    archive = tmp_path / "bob.tar.gz"
    archive.write_bytes(b"")
    with pytest.raises(GraderError, match="is a file: grade takes the folder.*batch and slurm"):
        assemble.assemble(LAB, archive, tmp_path)


NVCC_LOG = """\
  NVCC    /tmp/grader-x/src/kernels.cu
/tmp/grader-x/src/kernels.cu(12): warning #177-D: variable "t" was declared but never referenced
/tmp/grader-x/src/kernels.cu(57): error: identifier "tile" is undefined
      out[i] = tile[threadIdx.x];
               ^

/tmp/grader-x/src/kernels.cu(60): error: expected a ";"

2 errors detected in the compilation of "/tmp/grader-x/src/kernels.cu".
make: *** [Makefile:90: /tmp/grader-x/out/kernels.cu.o] Error 2
"""


def test_summary_keeps_errors_with_their_context_and_relative_paths():
    lines = build.summarize(NVCC_LOG, Path("/tmp/grader-x/src"), Path("/tmp/grader-x/out"))
    assert lines == [
        'kernels.cu(57): error: identifier "tile" is undefined',
        "      out[i] = tile[threadIdx.x];",
        "               ^",
        'kernels.cu(60): error: expected a ";"',
    ]


def test_summary_is_capped_and_prefers_error_lines():
    log = "".join(f"k.cu({i}): error: bad {i}\n    context {i}\n" for i in range(30))
    lines = build.summarize(log, Path("/x/src"), Path("/x/out"))
    assert len(lines) == build.SUMMARY_LINES
    assert all("error" in ln for ln in lines)


def test_link_errors_are_kept():
    log = (
        "/usr/bin/ld: harness.c.o: in function `main':\n"
        "harness.c:(.text+0x1): undefined reference to `scale'\n"
    )
    lines = build.summarize(log, Path("/x/src"), Path("/x/out"))
    assert lines[0] == "harness.c:(.text+0x1): undefined reference to `scale'"


def test_includes_outside_the_lab_are_refused(tmp_path):
    root = tmp_path / "course"
    (root / "common").mkdir(parents=True)
    (root / "solutions" / "9.1-fake").mkdir(parents=True)
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    (out / "kernels.cu.d").write_text(
        f"{out}/kernels.cu.o : {src}/kernels.cu \\\n"
        f"    {src}/fake.h common/cml_json.h /usr/include/stdio.h \\\n"
        f"    {root}/solutions/9.1-fake/kernels.cu {tmp_path}/elsewhere.h\n"
        f"{src}/fake.h:\n"
    )
    problems = build.check_includes(root, src, out, ("kernels.cu",), None)
    assert len(problems) == 2, problems
    assert "kernels.cu includes " + str(root / "solutions/9.1-fake/kernels.cu") in problems[0]
    assert "elsewhere.h" in problems[1]


def test_an_include_named_with_a_terminal_escape_is_shown_escaped(tmp_path):
    root, src, out = tmp_path / "course", tmp_path / "src", tmp_path / "out"
    for folder in (root / "common", src, out):
        folder.mkdir(parents=True)
    (out / "kernels.cu.d").write_text(f"{out}/kernels.cu.o : {src}/kernels.cu /tmp/\x1b[2J.h\n")
    (problem,) = build.check_includes(root, src, out, ("kernels.cu",), None)
    assert problem.startswith("kernels.cu includes /tmp/\\x1b[2J.h: only the lab's own headers")


def test_warnings_of_a_successful_build_are_shown_relative():
    src, out = Path("/tmp/x/src"), Path("/tmp/x/out")
    log = (
        "  NVCC    /tmp/x/src/kernels.cu\n"
        '/tmp/x/src/kernels.cu(102): warning #177-D: variable "v" was declared but never referenced\n'
        'Remark: The warnings can be suppressed with "-diag-suppress <warning-number>"\n'
        "  LINK    /tmp/x/out/lab\n"
    )
    assert build.warnings(log, src, out) == [
        'kernels.cu(102): warning #177-D: variable "v" was declared but never referenced'
    ]
    many = "".join(f"/tmp/x/src/k.cu({i}): warning: w{i}\n" for i in range(9))
    shown = build.warnings(many, src, out, limit=6)
    assert len(shown) == 7 and shown[-1] == "... and 3 more warnings"
    assert build.warnings("  NVCC    k.cu\n", src, out) == []


def test_compiler_lines_reach_the_report_with_control_characters_escaped():
    """A red-team ``#warning`` clearing the screen (ESC[2J) and writing the clipboard (OSC 52,
    ended by BEL) reached the terminal and report.txt raw."""
    src, out = Path("/tmp/x/src"), Path("/tmp/x/out")
    hostile = '"\x1b[2J\x1b[1;1Hall good \x1b]52;c;ZWNobyBoaQ==\x07 \x9b31m \u202e olé"'
    warned = f"/tmp/x/src/kernels.cu(823): warning: #warning {hostile}\n"
    failed = "/tmp/x/src/kernels.cu(9): error: bad\n\tint x = 1; // \x1b]0;title\x07\n"
    shown = build.warnings(warned, src, out) + build.summarize(failed, src, out)
    assert shown == [
        "kernels.cu(823): warning: #warning "
        '"\\x1b[2J\\x1b[1;1Hall good \\x1b]52;c;ZWNobyBoaQ==\\x07 \\x9b31m \\u202e olé"',
        "kernels.cu(9): error: bad",
        "\tint x = 1; // \\x1b]0;title\\x07",
    ]
    assert all(ch == "\t" or ch.isprintable() for line in shown for ch in line)


def _pristine_tree(tmp_path: Path, header_is_student: bool = False) -> tuple[Path, Path]:
    """A course with labs/9.9-x/{harness.cu, lab.h, kernels.cu} and the judge's build of
    harness.cu (object and dependency file, newer than its sources)."""
    root = tmp_path / "course"
    lab = root / "labs" / "9.9-x"
    built = root / "build" / "9.9-x" / "student"
    lab.mkdir(parents=True)
    built.mkdir(parents=True)
    (root / "Makefile").write_text("CUDA_ARCH ?= sm_90\n")
    for name in ("harness.cu", "lab.h", "kernels.cu"):
        (lab / name).write_text(f"// {name}\n")
    header = "kernels.cu" if header_is_student else "lab.h"
    (built / "harness.cu.d").write_text(
        f"build/9.9-x/student/harness.cu.o: labs/9.9-x/harness.cu \\\n labs/9.9-x/{header}\n"
    )
    (built / "harness.cu.o").write_bytes(b"OBJ")
    old = (built / "harness.cu.o").stat().st_mtime - 100
    for name in ("harness.cu", "lab.h", "kernels.cu"):
        os.utime(lab / name, (old, old))
    return root, built


def test_pristine_objects_are_offered_when_up_to_date(tmp_path):
    root, built = _pristine_tree(tmp_path)
    assert build.pristine_objects(root, None, "9.9-x", ("kernels.cu",)) == {
        "harness.cu": (root / "labs" / "9.9-x" / "harness.cu", built / "harness.cu.o")
    }
    # a source changed after the object was built: compiled by the grading instead
    os.utime(root / "labs" / "9.9-x" / "lab.h")
    assert build.pristine_objects(root, None, "9.9-x", ("kernels.cu",)) == {}


def test_pristine_object_that_reads_a_student_file_is_not_offered(tmp_path):
    root, _ = _pristine_tree(tmp_path, header_is_student=True)
    assert build.pristine_objects(root, None, "9.9-x", ("kernels.cu",)) == {}


def test_reuse_copies_only_objects_of_unchanged_sources(tmp_path):
    root, built = _pristine_tree(tmp_path)
    offered = build.pristine_objects(root, None, "9.9-x", ("kernels.cu",))
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    (src / "harness.cu").write_text("// harness.cu\n")
    build._reuse(offered, src, out)
    assert (out / "harness.cu.o").read_bytes() == b"OBJ"
    assert (out / "harness.cu.o").stat().st_mtime >= (src / "harness.cu").stat().st_mtime
    (out / "harness.cu.o").unlink()
    (src / "harness.cu").write_text("// changed\n")  # not the course's: compiled here
    build._reuse(offered, src, out)
    assert not (out / "harness.cu.o").exists()


def test_course_builds_are_serialised_by_a_lock_in_build(tmp_path):
    import fcntl

    with build._course_build_lock(tmp_path):
        lock = tmp_path / "build" / ".grader-build.lock"
        assert lock.is_file()
        with open(lock) as other:  # another process's make would wait here
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with open(lock) as other:  # released
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    with build._course_build_lock(not_a_folder):  # a tree it cannot write: no lock, no error
        pass


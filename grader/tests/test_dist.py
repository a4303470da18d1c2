"""The student release (grader/dist.py, ``make dist-student``): nothing of solutions/ in
it, the files students need are, it is deterministic, and ``skeleton --check`` works in
the extracted copy, which has no solutions/."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

from grader import dist, gradescope_zip, skeleton
from grader.errors import GraderError
from helpers import FAKELAB, INSTRUCTORS_ONLY, REPO, grade_cli, instructors_only_reason

NEEDED = (
    "labs/3.3-tiling/kernels.cu",
    "labs/3.3-tiling/lab.toml",
    "handouts/3.3-tiling.md",
    "common/cml_lab.h",
    "grader/grade.py",
    "Makefile",
    "README.md",
)
# Files that show or test the marker syntax itself, not a solution of the course: the
# protocol's example, the generator's tests, and the toy lab the grader's tests grade.
MARKER_EXAMPLES = {
    "docs/protocol.md",
    "grader/tests/test_skeleton.py",
    "grader/tests/fakelab/solutions/9.1-fake/kernels.cu",
}


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """(tarball path, {repository path: bytes}) of a release built from this checkout."""
    if reason := instructors_only_reason():  # this copy is already a student release
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("dist") / "student.tar.gz"
    assert dist.dist_student(REPO, str(out), sys.stdout, drift=skeleton.release_drift) == 0
    members = {}
    with tarfile.open(out) as tar:
        for m in tar.getmembers():
            assert m.isfile() and m.name.startswith(dist.PREFIX + "/"), m.name
            assert (m.mtime, m.uid, m.gid, m.uname, m.gname) == (0, 0, 0, "", "")
            members[m.name[len(dist.PREFIX) + 1 :]] = tar.extractfile(m).read()
    return out, members


def test_nothing_of_the_solutions(release):
    _, members = release
    for name in members:
        assert not name.startswith(
            ("solutions/", "grader/tests/known_bad/", "grader/tests/alternatives/", "bench/variants/", "bench/roof/", ".ci/")
        ), name
    solutions = {p: p.read_bytes() for p in (REPO / "solutions").rglob("*") if p.is_file()}
    assert solutions
    for name, data in members.items():
        for path, sol in solutions.items():
            assert data != sol, f"{name} is {path.relative_to(REPO)}"


def test_no_solution_markers(release):
    _, members = release
    with_markers = set()
    for name, data in members.items():
        for line in data.decode("utf-8", errors="replace").splitlines():
            if line.strip() in ("// BEGIN SOLUTION", "// END SOLUTION"):
                with_markers.add(name)
    assert with_markers <= MARKER_EXAMPLES, with_markers - MARKER_EXAMPLES


def test_contains_what_students_need(release):
    _, members = release
    for name in NEEDED:
        assert name in members, name
    assert members["Makefile"] == (REPO / "Makefile").read_bytes()


def test_deterministic(release, tmp_path, capsys):
    out, _ = release
    again = tmp_path / "again.tar.gz"
    code, stdout, _ = grade_cli(capsys, "dist-student", "--root", REPO, "--out", again)
    assert code == 0 and "wrote " in stdout
    assert again.read_bytes() == out.read_bytes()


def test_skeleton_check_in_the_extracted_release(release, tmp_path):
    out, _ = release
    with tarfile.open(out) as tar:
        tar.extractall(tmp_path)  # our own tarball: plain files under one folder
    copy = tmp_path / dist.PREFIX
    assert not (copy / "solutions").exists()
    done = subprocess.run(
        [sys.executable, "-m", "grader", "skeleton", "--check"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert skeleton.NO_SOLUTIONS in done.stdout
    assert "Traceback" not in done.stderr


def test_the_release_skips_the_tests_of_the_instructors_material(release, tmp_path):
    """The release ships grader/tests but not what some of them read (solutions/, the
    known-bad and alternative fixtures, hidden.toml): there those tests are skipped with a
    reason that says so, and the rest pass (a student's trial: `make test-fast` in the
    release gave 90 failures, FileNotFoundError: solutions/3.3-tiling/kernels.cu)."""
    out, _ = release
    with tarfile.open(out) as tar:
        tar.extractall(tmp_path)
    copy = tmp_path / dist.PREFIX
    pytest_ = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"]
    tests = ["grader/tests/test_lint.py", "grader/tests/test_class_batch.py"]
    done = subprocess.run(
        [*pytest_, "--strict-markers", "-m", "not slow and not gpu", *tests],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"test(s) skipped: {INSTRUCTORS_ONLY}" in done.stdout, done.stdout
    assert "SKIPPED [1] grader/tests/test_lint.py" in done.stdout, done.stdout
    assert " passed" in done.stdout and "failed" not in done.stdout, done.stdout


def test_skeleton_check_without_solutions(tmp_path, capsys):
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "cml_json.h").write_text("")
    (tmp_path / "Makefile").write_text("")
    code, out, err = grade_cli(capsys, "skeleton", "--check", "--root", tmp_path)
    assert code == 0, out + err
    assert out.strip() == skeleton.NO_SOLUTIONS


def test_excluded():
    assert dist.excluded("solutions/3.3-tiling/kernels.cu")
    assert dist.excluded("grader/tests/known_bad/3.3-tiling/x.toml")
    assert dist.excluded("grader/tests/alternatives/3.3-tiling/x.toml")  # correct answers
    assert dist.excluded("bench/variants/3.5-project/u8_texels.toml")
    assert dist.excluded("bench/roof/lab33_variants.cu")
    assert dist.excluded("bench/h200-2026-11-29-lab35/first-run/u8.txt")
    assert dist.excluded(".ci/run")
    # GPU sessions' records and the fixtures' recorded output
    assert dist.excluded("bench/h200-2026-12-02-session6/g22/grade-3.5.log")
    assert dist.excluded(
        "bench/h200-2026-12-02-session11/g47/reports/3.5-project-sobel_no_barrier.txt"
    )
    assert dist.excluded("bench/h100-2027-01-10-session1/README.md")  # a session to come
    assert dist.excluded("grader/tests/data/racecheck/3.5-project-sobel_no_barrier-hazard.log")
    assert not dist.excluded("labs/3.3-tiling/kernels.cu")
    assert not dist.excluded("grader/tests/fakelab/solutions/9.1-fake/kernels.cu")
    for shipped in ("bench/h200.md", "bench/calibrate.py", "bench/throughput/lock_trace.py"):
        assert not dist.excluded(shipped), shipped


def test_files_git_does_not_track_are_left_out_and_named(tmp_path, capsys):
    """A class graded inside the course tree (the instructor walkthrough's ``subs/`` with a
    copy of the reference solution) must not ship with the release or the Gradescope zip."""
    root = tmp_path / "course"
    root.mkdir()
    (root / "README.md").write_text("course\n")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "README.md"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    (root / "subs" / "alice").mkdir(parents=True)
    (root / "subs" / "alice" / "kernels.cu").write_text("// the reference, handed in\n")
    assert dist.files(root) == ["README.md"]
    assert dist.untracked(root) == ["subs/alice/kernels.cu"]
    assert dist.dist_student(
        root, str(tmp_path / "r.tar.gz"), sys.stdout, drift=skeleton.release_drift
    ) == 0
    out = capsys.readouterr().out
    assert "left out 1 file(s) git does not track: subs/alice/kernels.cu" in out
    with tarfile.open(tmp_path / "r.tar.gz") as tar:
        assert tar.getnames() == [f"{dist.PREFIX}/README.md"]


def test_the_release_is_the_last_commit_and_names_the_changes_left_out(tmp_path, capsys):
    """An instructor who tried a lab in the checkout has its skeleton filled in: the release
    holds the skeleton as committed, not the answers (a trial: make dist-student shipped the
    working tree's kernels.cu, 0 TODOs left). A file added to the index only is not shipped,
    one deleted from the working tree is (it is committed), the commit's executable bit is
    kept, and one line names the changes left out. A checkout with no commit is refused."""
    root = tmp_path / "course"
    (root / "labs" / "9.1").mkdir(parents=True)
    (root / "labs" / "9.1" / "kernels.cu").write_text("// TODO(9.1a)\n")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / "latest.sh").symlink_to("run.sh")  # a link: named, not shipped (files only)
    (root / "notes.md").write_text("notes\n")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    with pytest.raises(GraderError, match="no commit yet"):
        dist.build(root, tmp_path / "none.tar.gz", drift=skeleton.release_drift)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    (root / "labs" / "9.1" / "kernels.cu").write_text("// the student's answer, filled in\n")
    (root / "notes.md").unlink()
    (root / "new.md").write_text("staged only\n")
    subprocess.run([*git, "add", "new.md"], check=True)
    assert dist.uncommitted(root) == ["labs/9.1/kernels.cu", "new.md", "notes.md"]
    assert dist.dist_student(
        root, str(tmp_path / "r.tar.gz"), sys.stdout, drift=skeleton.release_drift
    ) == 0
    out = capsys.readouterr().out
    assert ("left out the changes not committed to 3 file(s): labs/9.1/kernels.cu, new.md, "
            "notes.md") in out, out
    assert "left out 1 symbolic link(s) of the last commit: latest.sh" in out, out
    with tarfile.open(tmp_path / "r.tar.gz") as tar:
        members = {m.name[len(dist.PREFIX) + 1 :]: m for m in tar.getmembers()}
        assert sorted(members) == ["labs/9.1/kernels.cu", "notes.md", "run.sh"]
        assert tar.extractfile(members["labs/9.1/kernels.cu"]).read() == b"// TODO(9.1a)\n"
        assert tar.extractfile(members["notes.md"]).read() == b"notes\n"
        assert (members["run.sh"].mode, members["notes.md"].mode) == (0o755, 0o644)


def test_a_solution_committed_over_a_skeleton_is_refused(tmp_path):
    """An instructor's trial committed the 3.3 solution over labs/3.3-tiling/kernels.cu and
    make dist-student shipped it (its TODO comments are the skeleton's too). The release
    compares each student file with the skeleton the committed solution generates and
    refuses, naming the file and the fix. The course as committed passes, also while a
    solution is being changed (not committed: the release is the last commit)."""
    root = tmp_path / "course"
    shutil.copytree(FAKELAB / "labs", root / "labs")
    shutil.copytree(FAKELAB / "solutions", root / "solutions")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    build = functools.partial(dist.build, root, drift=skeleton.release_drift)
    assert "labs/9.1-fake/kernels.cu" in build(tmp_path / "ok.tar.gz")
    solution = root / "solutions" / "9.1-fake" / "kernels.cu"
    text = solution.read_text()
    solution.write_text("// an edit under way\n" + text)
    assert "labs/9.1-fake/kernels.cu" in build(tmp_path / "ok2.tar.gz")
    solution.write_text(text)
    shutil.copy(solution, root / "labs" / "9.1-fake" / "kernels.cu")
    subprocess.run([*git, "commit", "-qam", "the solution over the skeleton"], check=True)
    with pytest.raises(GraderError) as e:
        build(tmp_path / "bad.tar.gz")
    assert "not the skeletons solutions/ generates: labs/9.1-fake/kernels.cu" in str(e.value)
    assert "make skeletons" in str(e.value) and not (tmp_path / "bad.tar.gz").exists()


def test_a_course_in_a_folder_of_a_larger_checkout_ships_its_commit(tmp_path, capsys):
    """A course kept in a folder of a department's repository is that checkout's last
    commit under the folder, paths relative to it (a review: it shipped the working tree,
    an untracked copy of a solution included). A .git that git cannot read is the course's
    error, not a release of the tree; so is a Gradescope zip with nothing committed."""
    top = tmp_path / "dept"
    root = top / "gpu-course"
    (root / "labs").mkdir(parents=True)
    (root / "labs" / "a.md").write_text("committed\n")
    (top / "other.md").write_text("another course\n")
    git = ["git", "-C", str(top), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    (root / "labs" / "a.md").write_text("changed\n")
    (root / "subs").mkdir()
    (root / "subs" / "alice.cu").write_text("// the reference, handed in\n")
    assert dist.files(root) == ["labs/a.md"]
    assert dist.read(root, ["labs/a.md"])["labs/a.md"][0] == b"committed\n"
    assert dist.untracked(root) == ["subs/alice.cu"] and dist.uncommitted(root) == ["labs/a.md"]
    assert dist.dist_student(
        root, str(tmp_path / "r.tar.gz"), sys.stdout, drift=skeleton.release_drift
    ) == 0
    out = capsys.readouterr().out
    assert "left out the changes not committed to 1 file(s): labs/a.md" in out, out
    with tarfile.open(tmp_path / "r.tar.gz") as tar:
        assert tar.getnames() == [f"{dist.PREFIX}/labs/a.md"]
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text("gitdir: /nonexistent/course.git\n")
    (broken / "a.md").write_text("x\n")
    with pytest.raises(GraderError, match="is a git checkout that git cannot read"):
        dist.files(broken)
    empty = tmp_path / "empty"
    shutil.copytree(FAKELAB / "labs", empty / "labs")
    subprocess.run(["git", "-C", str(empty), "init", "-q"], check=True)
    with pytest.raises(GraderError, match="no files to release"):
        gradescope_zip.contents(empty, "9.1")


# A kernel a solution defines: ``__global__ void [__launch_bounds__(...)] name(``.
_KERNEL = re.compile(r"__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(\w+)\s*\(")


def solution_only_kernels() -> dict[str, str]:
    """{kernel: lab} of the kernels a reference solution defines that its lab's folder
    (skeleton, harness, headers, manifest) never names: lab 3.5's students choose their own
    kernels, so the reference's names and design are part of the answer."""
    found = {}
    for sol in sorted((REPO / "solutions").iterdir()):
        lab = REPO / "labs" / sol.name
        known = " ".join(
            p.read_text(errors="replace") for p in lab.rglob("*")
            if p.is_file() and p.suffix in (".cu", ".cuh", ".c", ".h", ".toml", ".md")
        )
        for src in sol.glob("*.cu"):
            for name in _KERNEL.findall(src.read_text()):
                if not re.search(rf"\b{name}\b", known):
                    found[name] = sol.name
    return found


def fixture_names() -> set[str]:
    """``<lab>-<name>`` of every known-bad fixture and alternative: what the reports and
    recordings of their runs are named after."""
    tests = REPO / "grader" / "tests"
    return {
        f"{p.parent.name}-{p.stem}"
        for kind in ("known_bad", "alternatives")
        for p in (tests / kind).glob("*/*.toml")
    }


def test_no_solution_material_elsewhere(release):
    """A student's trial of lab 3.5 found the release's bench/ session folders holding a
    grading log that names the reference's kernels and design, and reports of the known-bad
    submissions with their verdicts. No released file may hold a path under solutions/ or a
    fixture folder, a name of a kernel only a reference solution defines, or a report or
    recording named after a known-bad fixture or an alternative."""
    _, members = release
    kernels, fixtures = solution_only_kernels(), fixture_names()
    assert "3.5-project" in kernels.values() and fixtures  # the check has something to find
    leaks = []
    for name, data in members.items():
        parts = name.split("/")
        if parts[0] == "solutions" or {"known_bad", "alternatives", "variants"} & set(parts):
            leaks.append(f"{name}: a solution or fixture folder")
        leaks += [f"{name}: named after the fixture {f}" for f in fixtures if f in name]
        text = data.decode("utf-8", errors="replace")
        leaks += [
            f"{name}: names {k}, a kernel of solutions/{lab} only"
            for k, lab in kernels.items() if re.search(rf"\b{k}\b", text)
        ]
    assert not leaks, "\n".join(leaks[:20])

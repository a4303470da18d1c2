"""Batch grading (grader.batch) on the fake lab: a class of folders and archives, the
gradebook, per-student reports, resuming, --force, identical scores with --seed."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import socket
import threading
import time
import tarfile
import zipfile
from pathlib import Path

import pytest

from grader import batch as batching
from grader import build as builder
from grader import files, gpu_lock, sandbox
from grader import cli
from grader.errors import GraderError
from helpers import FAKE_BIN, grade_cli, submission

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

LAB = "labs/9.1-fake"
EDGE_OLD = "out[i] = 2.0f * in[i] + 1.0f;"
EDGE_NEW = "out[i] = (i / cols >= 32 && i % cols >= 32) ? 0.0f : 2.0f * in[i] + 1.0f;"
UNICODE_ID = "José Ñoño müller"

# id → (total, status) with a (fake) device
EXPECTED = {
    "solution": ("17", "graded"),
    "skeleton": ("0", "graded"),
    "edge": ("6", "graded"),
    "compile": ("0", "build failed"),
    "alice": ("17", "graded"),
    "bob": ("17", "graded"),
    "carol": ("17", "graded"),
    UNICODE_ID: ("17", "graded"),
    "evil": ("0", "rejected: member '../evil.cu' has a '..' component (it would leave its folder)"),
    "abs": ("0", "rejected: member '/tmp/grader-abs-evil.cu' has an absolute path"),
    "link": ("0", "rejected: member 'kernels.cu' is a link"),
}


def _zip(path, members: dict[str, str]):
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    return path


def _tar(path, members: list):
    with tarfile.open(path, "w:gz") as tf:
        for m in members:
            if isinstance(m, tarfile.TarInfo):
                tf.addfile(m)
            else:
                data = m[1].encode()
                info = tarfile.TarInfo(m[0])
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture(scope="module")
def gate_log(tmp_path_factory) -> Path:
    """Where the fake judge notes each gate it passed (FAKE_GATE_LOG)."""
    return tmp_path_factory.mktemp("gates") / "gates.log"


@pytest.fixture(scope="module")
def lock_trace(tmp_path_factory) -> Path:
    """Where the batches' GPU lock writes its trace (GRADER_GPU_LOCK_TRACE)."""
    return tmp_path_factory.mktemp("trace") / "lock.trace"


@pytest.fixture(scope="module")
def gpu_env(gate_log, lock_trace):
    """FAKE_GPU=1 and the fake compute-sanitizer for the whole module (fake_gpu is
    per-test; the batch runs are shared between tests)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FAKE_GPU", "1")
        mp.setenv("FAKE_GATE_LOG", str(gate_log))
        mp.setenv(gpu_lock.TRACE_ENV, str(lock_trace))
        mp.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
        yield


@pytest.fixture(scope="module")
def subs(fake_root, tmp_path_factory) -> dict[str, str]:
    """id → submission path: folders and archives, good, bad and hostile."""
    d = tmp_path_factory.mktemp("subs")
    sol = (fake_root / "solutions/9.1-fake/kernels.cu").read_text()
    skel = (fake_root / LAB / "kernels.cu").read_text()
    out = {
        "solution": submission(d / "solution", sol),
        "skeleton": submission(d / "skeleton", skel),
        "edge": submission(d / "edge", sol.replace(EDGE_OLD, EDGE_NEW)),
        "compile": submission(d / "compile", sol.replace("*speed = 2.5;", "*speed = 2.5 +;")),
        "alice": _zip(d / "alice.zip", {"kernels.cu": sol}),
        "bob": _tar(d / "bob.tar.gz", [("./kernels.cu", sol)]),
        "carol": _zip(d / "carol.zip", {"Carol Export/kernels.cu": sol, "__MACOSX/._x": "m"}),
        UNICODE_ID: _zip(d / f"{UNICODE_ID}.zip", {"kernels.cu": sol, "notes ü ñ.txt": "n"}),
        "evil": _zip(d / "evil.zip", {"kernels.cu": sol, "../evil.cu": "int x;"}),
        "abs": _tar(d / "abs.tgz", [("kernels.cu", sol), ("/tmp/grader-abs-evil.cu", "x")]),
    }
    link = tarfile.TarInfo("kernels.cu")
    link.type = tarfile.SYMTYPE
    link.linkname = str(fake_root / "solutions/9.1-fake/kernels.cu")
    out["link"] = _tar(d / "link.tar.gz", [link])
    return {k: str(v) for k, v in out.items()}


def run_batch(fake_root, paths, out, *extra) -> tuple[int, str]:
    """``python3 -m grader batch`` in this process: (exit status, stderr)."""
    err = io.StringIO()
    argv = ["batch", fake_root / LAB, *paths, "--out", out, "--seed", "7", "--jobs", "2", *extra]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main([str(a) for a in argv])
    assert "Traceback" not in err.getvalue(), err.getvalue()
    return code, err.getvalue()


def gradebook(out) -> dict[str, dict]:
    with open(out / "gradebook.csv", newline="", encoding="utf-8") as f:
        return {r["id"]: r for r in csv.DictReader(f)}


@pytest.fixture(scope="module")
def graded(fake_root, subs, gpu_env, tmp_path_factory):
    """The whole class graded once: (exit status, stderr, out folder)."""
    out = tmp_path_factory.mktemp("batch") / "out"
    code, err = run_batch(fake_root, list(subs.values()), out)
    return code, err, out


def test_a_cap_that_caps_nothing_names_a_fix_that_can_be_given():
    """The line for a knob's cap that --jobs already keeps: below --jobs, or with --jobs 1
    unset (an instructor's trial, session 36: "give it less than 1", a value refused)."""
    assert batching._caps_nothing("GRADER_UNTIMED_AT_ONCE", 2, 2) == (
        "batch: GRADER_UNTIMED_AT_ONCE=2 caps nothing: no more than 2 gradings run at once "
        "(--jobs); give it less than 2 or leave it unset"
    )
    line = batching._caps_nothing("GRADER_TIMED_SETUPS_AT_ONCE", 3, 1)
    assert line == (
        "batch: GRADER_TIMED_SETUPS_AT_ONCE=3 caps nothing: no more than 1 grading run at "
        "once (--jobs); one grading runs at a time: leave it unset"
    )


def test_gradebook_rows_and_statuses(graded, subs):
    code, _, out = graded
    assert code == 0
    rows = gradebook(out)
    assert list(rows) == sorted(subs)
    got = {sid: (r["total"], r["status"]) for sid, r in rows.items()}
    assert got == EXPECTED
    assert list(next(iter(rows.values()))) == [
        "id", "scale", "offset", "total", "max", "lost", "pending", "status", "gpu", "warnings"
    ]
    assert rows["edge"]["scale"] == "3" and rows["edge"]["offset"] == "3"
    assert {r["max"] for r in rows.values()} == {"17"}


def test_timed_runs_pass_the_judges_gate(graded, gate_log):
    """In a batch every timed run's judge is gated (--gate): it sets up under the shared
    hold and measures only once the grader holds the GPU alone (GpuLock.upgrade). One gate
    per submission whose scale exercise reached its timed run."""
    _, _, out = graded
    gates = gate_log.read_text().split()
    reached = [
        sid
        for sid, r in gradebook(out).items()
        if json.loads((out / sid / "report.json").read_text())["exercises"][0]["parts"][
            "performance"
        ].get("details")
    ]
    assert gates and set(gates) == {"scale"}
    assert len(gates) == len(reached)


def test_the_locks_trace_names_the_grading_of_each_hold(graded, lock_trace):
    """Each line of the GPU lock's trace names the thread that changed the lock's state, a
    batch's grading after its student (its early timed run's thread after it too), so
    lock_trace.py can tell which grading a drain waited for."""
    names = {line.split(maxsplit=4)[4] for line in lock_trace.read_text().splitlines()}
    assert {"grade solution", "grade alice", f"grade {UNICODE_ID}"} <= names, names
    assert all(n.startswith(("grade ", "MainThread")) for n in names), names  # no "grade_3"


def test_per_student_files(graded, subs):
    _, _, out = graded
    for sid in subs:
        for name in batching.STUDENT_FILES:
            assert (out / sid / name).is_file(), (sid, name)
    rep = json.loads((out / "solution" / "report.json").read_text())
    assert rep["total"] == 17 and rep["seeds"]["base"] == 7
    gs = json.loads((out / "alice" / "results.json").read_text())
    assert gs["score"] == 17 and gs["leaderboard"][0]["value"] == 2.5
    assert rep["submission"] == subs["solution"]
    evil = (out / "evil" / "report.txt").read_text()
    assert "rejected: member '../evil.cu'" in evil and "score 0/17" in evil
    assert "missing" not in (out / UNICODE_ID / "report.txt").read_text()


def test_a_new_grades_folder_is_private(graded, tmp_path):
    """The batch makes --out readable by its owner only (the class's scores); a folder
    that exists keeps the mode its owner gave it."""
    _, _, out = graded
    assert out.stat().st_mode & 0o777 == 0o700
    mine = tmp_path / "shared"
    mine.mkdir(mode=0o755)
    os.chmod(mine, 0o755)
    batching.make_private(mine)
    assert mine.stat().st_mode & 0o777 == 0o755


def test_hostile_archives_wrote_nothing_outside(graded, subs):
    _, _, out = graded
    assert not os.path.exists("/tmp/grader-abs-evil.cu")
    for root in (out.parent, out.parent.parent, os.path.dirname(subs["evil"])):
        assert not os.path.exists(os.path.join(root, "evil.cu"))
    assert not list(out.rglob("*.tmp"))  # every file was written whole


def test_progress_lines(graded, subs):
    _, err, _ = graded
    lines = [ln for ln in err.splitlines() if ln.startswith("[")]
    assert len(lines) == len(subs)
    assert lines[-1].startswith(f"[{len(subs)}/{len(subs)}] ")
    assert any(": 17/17 graded (elapsed " in ln and " s left)" in ln for ln in lines)


def test_resume_skips_then_force_regrades_identically(graded, fake_root, subs, monkeypatch):
    _, _, out = graded
    before = {sid: (out / sid / "report.json").stat().st_mtime_ns for sid in subs}
    book = (out / "gradebook.csv").read_text()
    code, err = run_batch(fake_root, list(subs.values()), out)
    assert code == 0
    assert err.count("already graded; --regrade ID grades it again") == len(subs)
    assert {sid: (out / sid / "report.json").stat().st_mtime_ns for sid in subs} == before
    assert (out / "gradebook.csv").read_text() == book

    # untimed runs of different submissions may share the GPU, and so may a timed run's
    # set-up; its measuring part, past the judge's gate, never overlaps any other run
    # (grader.gpu_lock, GpuLock.upgrade)
    guard = threading.Lock()
    running = {"untimed": 0, "timed": 0}
    clashes, timed_runs = [], []
    real_run_judged = batching.grading.harness.run_judged

    def enter(kind):
        with guard:
            if running["timed"] or (kind == "timed" and running["untimed"]):
                clashes.append(dict(running, starting=kind))
            running[kind] += 1

    def leave(kind):
        with guard:
            running[kind] -= 1

    def watched(gate):
        @contextlib.contextmanager
        def measuring():
            with gate():
                enter("timed")
                try:
                    time.sleep(0.05)
                    yield
                finally:
                    leave("timed")

        return measuring

    def run_judged(*args, **kwargs):
        if kwargs.get("time_reps") is not None:
            assert kwargs.get("gate") is not None  # a batch's timed run is always gated
            kwargs["gate"] = watched(kwargs["gate"])
            timed_runs.append(args[2])
            return real_run_judged(*args, **kwargs)
        enter("untimed")
        try:
            time.sleep(0.05)
            return real_run_judged(*args, **kwargs)
        finally:
            leave("untimed")

    monkeypatch.setattr(batching.grading.harness, "run_judged", run_judged)
    again = ["solution", "edge", "alice", "evil"]
    code, err = run_batch(fake_root, [subs[s] for s in again], out, "--force")
    assert code == 0 and "already graded" not in err
    for sid in subs:
        changed = (out / sid / "report.json").stat().st_mtime_ns != before[sid]
        assert changed == (sid in again), sid
    assert sorted(gradebook(out)) == sorted(again)  # the gradebook of this batch's students
    assert f"{len(subs) - len(again)} earlier result(s) in " in err
    # the class's command again skips everyone and lists them all: identical scores
    code, err = run_batch(fake_root, list(subs.values()), out)
    assert code == 0 and err.count("already graded") == len(subs)
    assert (out / "gradebook.csv").read_text() == book
    assert clashes == []
    assert timed_runs  # the performance runs did happen, each alone
    assert not list(out.rglob("*.tmp"))


def test_regrade_grades_those_students_again_and_lists_the_whole_class(graded, fake_root, subs,
                                                                        capsys):
    """--regrade ID (an instructor's trial: --force over one student left the gradebook that
    one row): the whole class named, only those ids graded again, every row listed, the same
    scores with the same --seed; an id no submission has is a usage error naming the fix."""
    _, _, out = graded
    before = {sid: (out / sid / "report.json").stat().st_mtime_ns for sid in subs}
    book = (out / "gradebook.csv").read_text()
    code, err = run_batch(fake_root, list(subs.values()), out, "--regrade", "alice",
                          "--regrade", "edge")
    assert code == 0, err
    for sid in subs:
        changed = (out / sid / "report.json").stat().st_mtime_ns != before[sid]
        assert changed == (sid in ("alice", "edge")), sid
    assert err.count("already graded") == len(subs) - 2 and "earlier result" not in err
    assert (out / "gradebook.csv").read_text() == book
    code, _, err = grade_cli(capsys, "batch", fake_root / LAB, subs["solution"], "--out", out,
                             "--regrade", "alicee")
    assert code == 2 and "--regrade 'alicee': no submission named on this command" in err, err
    assert "name the whole class" in err and "the nearest" not in err  # alice not named
    code, _, err = grade_cli(capsys, "batch", fake_root / LAB, *subs.values(), "--out", out,
                             "--regrade", "alicee")
    assert code == 2 and "the nearest: 'alice'" in err, err
    # a Slurm task's --regrade-from: the class's list, of which this batch grades its own
    regrade = out.parent / "regrade.json"
    regrade.write_text(json.dumps(["bob", "someone-in-another-task"]))
    before = {sid: (out / sid / "report.json").stat().st_mtime_ns for sid in subs}
    code, err = run_batch(fake_root, [subs["bob"], subs["carol"]], out, "--regrade-from", regrade)
    assert code == 0, err
    assert (out / "bob" / "report.json").stat().st_mtime_ns != before["bob"]
    assert (out / "carol" / "report.json").stat().st_mtime_ns == before["carol"]
    code, err = run_batch(fake_root, list(subs.values()), out)  # the class's gradebook again
    assert code == 0 and (out / "gradebook.csv").read_text() == book


def test_interrupted_gradebook_write_keeps_the_old_one(graded, monkeypatch, fake_root):
    _, _, out = graded
    book = (out / "gradebook.csv").read_text()

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "fsync", interrupted)  # inside grader.files.write_atomic
    lab = batching.manifest.load(fake_root / LAB)
    with pytest.raises(KeyboardInterrupt):
        batching.write_gradebook(out, lab)
    assert (out / "gradebook.csv").read_text() == book
    assert not list(out.rglob("*.tmp"))


@pytest.mark.parametrize("given", ["0", "1,2", "", "-1"])
def test_gpus_named_for_the_batch_that_cuda_does_not_see_are_said(
    fake_root, subs, tmp_path, monkeypatch, given
):
    """An instructor's trial (session 47): a Slurm task given a GPU (CUDA_VISIBLE_DEVICES
    set) on a node where CUDA sees none graded every student partial (no GPU), and every
    re-run kept those grades, with nothing said of the node. The batch says so, naming the
    GPUs and the host; with none named (unset, empty, -1) it does not."""
    monkeypatch.delenv("FAKE_GPU", raising=False)  # no device
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", given)
    code, err = run_batch(fake_root, [subs["solution"]], tmp_path / "out")
    assert code == 3, err
    said = [line for line in err.splitlines() if "but the judge found no CUDA device" in line]
    if given in ("", "-1"):
        assert said == [], err
    else:
        assert len(said) == 1 and f"CUDA_VISIBLE_DEVICES={given} " in said[0], err
        assert socket.gethostname() in said[0] and "NVIDIA driver" in said[0]


def test_without_a_device_is_3_and_partial(fake_root, subs, tmp_path, monkeypatch):
    monkeypatch.delenv("FAKE_GPU", raising=False)  # gpu_env may be active for the module
    out = tmp_path / "out"
    code, err = run_batch(fake_root, [subs["solution"], subs["compile"]], out)
    assert code == 3
    rows = gradebook(out)
    assert rows["solution"]["status"] == "partial (no GPU)"
    assert rows["solution"]["gpu"] == ""  # graded on none
    # graded again without a GPU: kept, its batch.json dated now (slurm.unrenewed reads the
    # time: a kept row is this run's result, not a cancelled task's earlier one)
    os.utime(out / "solution" / "batch.json", (1e9, 1e9))
    again, said = run_batch(fake_root, [subs["solution"]], out)
    assert again == 3 and "kept: no GPU here to finish it" in said, said
    assert (out / "solution" / "batch.json").stat().st_mtime > time.time() - 600
    # the architecture the build targeted, where the options keep what was given (none: the
    # default; an instructor's trial read "arch": null as no architecture)
    row = json.loads((out / "solution" / "batch.json").read_text())
    assert (row["options"]["arch"], row["arch"]) == (None, builder.default_arch(fake_root))
    assert row["arch"].startswith("sm_"), row
    assert rows["compile"]["status"] == "build failed"
    assert "[2/2] " in err
    # which sandbox the class's builds and runs get, said once before any grading
    said = [line for line in err.splitlines() if line.startswith("batch: sandbox: ")]
    assert len(said) == 1 and err.index(said[0]) < err.index("[1/2] "), err
    assert said[0].split(":")[2].strip() in ("bwrap", "user", "none"), said
    # a score so far is not a grade: no cell an LMS import could take for one
    assert [rows["solution"][k] for k in ("scale", "offset", "total")] == ["", "", ""]
    assert rows["solution"]["max"] == rows["compile"]["max"]
    assert [rows["compile"][k] for k in ("scale", "offset", "total")] == ["0", "0", "0"]
    # what the empty cells hide: lost for certain and pending, in the gradebook itself
    assert [rows["solution"][k] for k in ("lost", "pending")] == ["0", "17"]
    assert [rows["compile"][k] for k in ("lost", "pending")] == ["17", "0"]
    report = json.loads((out / "solution" / "report.json").read_text())
    assert report["final"] is False and report["total"] == 0
    assert "batch: 2 students: 1 build failed, 1 partial (no GPU) — partial grades are not " in err
    assert "(their cells are empty; run again on a machine with a GPU)" in err, err
    # the progress line: nothing earned so far, everything pending — never a bare "0/17"
    assert "solution: 0 so far of 17, 17 pending; partial (no GPU)" in err
    assert "solution: 0/" not in err

    # again on this machine without a GPU: the partial grade is kept, not graded again
    # (it would end the same way), and the closing lines say how to finish it
    before = (out / "solution" / "report.json").stat().st_mtime_ns
    code, err = run_batch(fake_root, [subs["solution"], subs["compile"]], out)
    assert code == 3 and "solution: 0 so far of 17, 17 pending; partial (no GPU) (kept: no GPU" in err
    assert "batch: 1 graded without a GPU kept as they were" in err
    assert (out / "solution" / "report.json").stat().st_mtime_ns == before
    assert gradebook(out) == rows
    # but not with other options (another seed, --no-perf): graded again, as they ask
    for other in (["--seed", "8"], ["--no-perf"]):
        code, err = run_batch(fake_root, [subs["solution"], subs["compile"]], out, *other)
        assert "solution: graded without a GPU last time with other options" in err, other
    run_batch(fake_root, [subs["solution"], subs["compile"]], out)  # as before them

    # the same command again: the build failure is final and skipped, the partial grade is
    # graded again — with a GPU now, it completes
    monkeypatch.setenv("FAKE_GPU", "1")
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    code, err = run_batch(fake_root, [subs["solution"], subs["compile"]], out)
    assert err.count("already graded") == 1 and "compile: 0/" in err
    assert "solution: not final last time (partial (no GPU)): graded again" in err
    rows = gradebook(out)
    assert rows["solution"]["status"] == "graded" and rows["solution"]["total"] != ""
    assert json.loads((out / "solution" / "report.json").read_text())["final"] is True


def test_a_changed_submission_is_graded_again(fake_root, tmp_path, monkeypatch):
    """A final row (a build failure) is skipped on the next run while its submission is
    unchanged; once the student's file is fixed (or the folder or archive holds anything
    else), the same command grades it again (an instructor's trial: a fixed resubmission kept
    its 0)."""
    monkeypatch.delenv("FAKE_GPU", raising=False)
    sol = (fake_root / "solutions/9.1-fake/kernels.cu").read_text()
    broken = submission(tmp_path / "subs" / "dana", sol.replace("*speed = 2.5;", "*speed = 2.5 +;"))
    out = tmp_path / "out"
    code, err = run_batch(fake_root, [broken], out)
    assert gradebook(out)["dana"]["status"] == "build failed"
    row = json.loads((out / "dana" / "batch.json").read_text())
    assert row["digest"] == batching.digest(broken, ("kernels.cu",))
    code, err = run_batch(fake_root, [broken], out)  # unchanged: kept
    assert "dana: 0/" in err and "already graded" in err and "changed since" not in err
    # a row an older grader wrote records nothing of what it graded: kept, and said so
    path = out / "dana" / "batch.json"
    legacy = {k: v for k, v in json.loads(path.read_text()).items() if k != "digest"}
    path.write_text(json.dumps(legacy))
    code, err = run_batch(fake_root, [broken], out)
    assert "batch: 1 kept from an older grader's run, which recorded nothing" in err
    path.write_text(json.dumps(row))
    failed = (out / "dana" / "report.txt").read_text()
    assert not (out / "dana" / "history").exists()  # nothing graded again yet
    (broken / "kernels.cu").write_text(sol)  # fixed at the same id
    code, err = run_batch(fake_root, [broken], out)
    assert "dana: changed since it was graded: graded again" in err
    assert "already graded" not in err
    assert gradebook(out)["dana"]["status"] == "partial (no GPU)"  # built now; no GPU here
    # the grade it had is kept beside the new one (grader.history), not in the gradebook
    (kept,) = (out / "dana" / "history").iterdir()
    assert sorted(p.name for p in kept.iterdir()) == sorted(batching.STUDENT_FILES)
    assert json.loads((kept / "batch.json").read_text()) == row
    assert (kept / "report.txt").read_text() == failed != (out / "dana" / "report.txt").read_text()
    report = (out / "dana" / "report.txt").read_text()
    assert "not graded" not in report  # nothing beside kernels.cu
    (broken / "helper.cu").write_text("int helper;")
    (broken / "notes.txt").write_text("n")
    (broken / "lab.toml").write_text("x")  # a copy of the lab's own files: not the student's
    (broken / "__MACOSX").mkdir()
    code, err = run_batch(fake_root, [broken], out)
    # partial, graded again anyway (no GPU here either, but it changed): and said so
    assert "dana: changed since it was graded: graded again" in err
    report = (out / "dana" / "report.txt").read_text()
    assert "not graded (only kernels.cu is): helper.cu, notes.txt" in report
    statuses = sorted(
        json.loads((p / "batch.json").read_text())["status"]
        for p in (out / "dana" / "history").iterdir()
    )
    assert statuses == ["build failed", "partial (no GPU)"], statuses  # both earlier grades
    # a copy elsewhere with the same files is the same submission
    moved = tmp_path / "moved" / "dana"
    moved.parent.mkdir()
    (tmp_path / "subs" / "dana").rename(moved)
    kept = json.loads((out / "dana" / "batch.json").read_text())["digest"]
    assert batching.digest(moved, ("kernels.cu",)) == kept


def test_a_rerun_with_another_seed_says_the_kept_rows_had_another(fake_root, subs, tmp_path,
                                                                    monkeypatch):
    monkeypatch.delenv("FAKE_GPU", raising=False)
    out = tmp_path / "out"
    run_batch(fake_root, [subs["solution"], subs["compile"]], out)  # --seed 7
    code, err = run_batch(fake_root, [subs["solution"], subs["compile"]], out, "--seed", "8")
    assert "batch: 1 kept from an earlier run with another --seed (compile)" in err
    code, err = run_batch(fake_root, [subs["solution"], subs["compile"]], out)  # --seed 7 again
    assert "another --seed" not in err


def test_the_digest_reads_what_is_graded_and_never_hangs(tmp_path):
    req = ("kernels.cu",)
    a = tmp_path / "a"
    a.mkdir()
    (a / "kernels.cu").write_text("x")
    first = batching.digest(a, req)
    assert batching.digest(a, req) == first
    (a / "notes.txt").write_text("n")
    assert batching.digest(a, req) != first  # anything else it holds counts, by name and size
    (a / "notes.txt").unlink()
    (a / "kernels.cu").write_text("y")
    assert batching.digest(a, req) != first
    (a / "kernels.cu").write_text("x")
    assert batching.digest(a, req) == first
    (a / ".git").mkdir()  # what git rewrites is not handed in
    (a / ".git" / "index").write_text("1")
    assert batching.digest(a, req) == first
    target = tmp_path / "target.txt"
    target.write_text("t")
    (a / "link").symlink_to(target)  # by its target's name: never read through
    linked = batching.digest(a, req)
    target.write_text("changed behind the link")
    assert batching.digest(a, req) == linked != first
    (a / "link").unlink()
    # a submission that is itself a link is followed, as grading follows it
    via = tmp_path / "via"
    via.symlink_to(a)
    assert batching.digest(via, req) == first
    (a / "kernels.cu").write_text("fixed")
    assert batching.digest(via, req) != first
    # a FIFO (a student's prank) is not opened; a very deep folder does not raise
    os.mkfifo(a / "pipe")
    deep = a / "d"
    for _ in range(40):
        deep = deep / "d"
    deep.mkdir(parents=True)
    done = []
    t = threading.Thread(target=lambda: done.append(batching.digest(a, req)), daemon=True)
    t.start()
    t.join(10)
    assert done and len(done[0]) == 64
    z = _zip(tmp_path / "z.zip", {"kernels.cu": "x"})
    assert len(batching.digest(z, req)) == 64 and batching.digest(z, req) == batching.digest(z)
    assert batching.digest(tmp_path / "missing", req) != batching.digest(z, req)  # no raise


def test_names_a_submission_gives_its_files_are_shown_escaped(fake_root, tmp_path, monkeypatch):
    """A file named with a newline and a terminal escape, or with bytes that are not UTF-8,
    is listed escaped on the report's "not graded" line: it neither forges a line nor ends
    the batch (a review found both)."""
    monkeypatch.delenv("FAKE_GPU", raising=False)
    sol = (fake_root / "solutions/9.1-fake/kernels.cu").read_text()
    sub = submission(tmp_path / "subs" / "eve", sol)
    (sub / "x\nbatch: forged line\x1b[31m").write_text("n")
    fd = os.open(os.fsencode(sub) + b"/r\xe9sum\xe9.txt", os.O_WRONLY | os.O_CREAT, 0o644)
    os.close(fd)
    out = tmp_path / "out"
    code, err = run_batch(fake_root, [sub], out)
    assert code == 3, err
    text = (out / "eve" / "report.txt").read_text()
    assert "\nbatch: forged line" not in text and "\x1b" not in text
    assert "'x\\nbatch: forged line\\x1b[31m'" in text and "'r\\udce9sum\\udce9.txt'" in text


def test_a_partial_grade_keeps_the_points_earned_so_far(fake_root, subs, tmp_path, monkeypatch):
    # a GPU but no compute-sanitizer: 15 of 17 earned, the sanitizer's 2 pending (exit 3)
    monkeypatch.setenv("FAKE_GPU", "1")
    real_find = batching.tools.find
    monkeypatch.setattr(
        batching.tools, "find",
        lambda n, env=None: None if n == "compute-sanitizer" else real_find(n, env),
    )
    out = tmp_path / "out"
    code, err = run_batch(fake_root, [subs["solution"]], out)
    assert code == 3, err
    row = json.loads((out / "solution" / "batch.json").read_text())
    assert row["status"] == "partial (checks not run)"
    assert (row["total"], row["pending_points"], row["max"]) == (15, 2, 17)  # never 0.0
    assert row["exercises"] == {"scale": 12, "offset": 3}
    assert "solution: 15 so far of 17, 2 pending; partial (checks not run)" in err
    # Gradescope's document scores what was earned and leaves the sanitizer pending
    gs = json.loads((out / "solution" / "results.json").read_text())
    assert gs["score"] == 15 and gs["extra_data"] == {"final": False, "pending_points": 2}
    assert gs["output"].startswith("NOT A FINAL GRADE: 2 of 17 points are pending")
    pending = [t for t in gs["tests"] if "pending" in t["tags"]]
    assert [t["name"] for t in pending] == ["scale: sanitizer (2 points pending: not run yet)"]
    assert "status" not in pending[0] and "score" not in pending[0]
    # the gradebook still leaves a score so far out of its cells (design note 21)
    assert [gradebook(out)["solution"][k] for k in ("scale", "offset", "total")] == ["", "", ""]
    assert [gradebook(out)["solution"][k] for k in ("lost", "pending")] == ["0", "2"]


def test_the_gradebook_lists_only_this_batchs_submissions(fake_root, subs, tmp_path, monkeypatch):
    # an earlier batch over other submissions left its results in --out: the new batch's
    # gradebook is its own class; the stale results are named, and their folders kept
    monkeypatch.delenv("FAKE_GPU", raising=False)
    out = tmp_path / "out"
    run_batch(fake_root, [subs["compile"], subs["edge"]], out)
    assert sorted(gradebook(out)) == ["compile", "edge"]
    code, err = run_batch(fake_root, [subs["solution"]], out)
    assert code == 3
    assert sorted(gradebook(out)) == ["solution"]
    assert (
        "batch: 2 earlier result(s) in " in err
        and "are not in this batch and are left out of the gradebook: compile, edge" in err
    )
    assert (out / "compile" / "batch.json").is_file() and (out / "edge" / "report.txt").is_file()
    # naming them again lists them again (graded ones are skipped, not graded twice)
    code, err = run_batch(fake_root, [subs["solution"], subs["compile"], subs["edge"]], out)
    assert sorted(gradebook(out)) == ["compile", "edge", "solution"]
    assert "already graded" in err and "left out of the gradebook" not in err
    # a roster (the Slurm tasks') lists the whole class, more than this batch's submissions
    roster = tmp_path / "roster.json"
    roster.write_text(json.dumps(["solution", "edge"]))
    code, err = run_batch(fake_root, [subs["solution"]], out, "--roster", roster)
    assert sorted(gradebook(out)) == ["edge", "solution"]
    assert "left out of the gradebook: compile" in err
    # a student of the roster graded by no task yet: the gradebook is named as partial
    roster.write_text(json.dumps(["solution", "edge", "zed"]))
    code, err = run_batch(fake_root, [subs["solution"]], out, "--roster", roster)
    assert "batch: 1 student: " in err
    assert "gradebook so far, 2 of the class's 3 (the others are graded elsewhere" in err


def test_a_grader_error_is_a_row_retried_next_time(fake_root, subs, tmp_path, monkeypatch):
    out = tmp_path / "out"
    real = batching.grading.grade

    def boom(lab_dir, options):
        raise batching.GraderError("the harness broke its contract")

    monkeypatch.setattr(batching.grading, "grade", boom)
    code, _ = run_batch(fake_root, [subs["compile"]], out)
    assert code == 2
    assert gradebook(out)["compile"]["status"] == "error: the harness broke its contract"
    monkeypatch.setattr(batching.grading, "grade", real)
    code, err = run_batch(fake_root, [subs["compile"]], out)
    assert "already graded" not in err
    assert gradebook(out)["compile"]["status"] == "build failed"


@pytest.mark.parametrize(
    "args, message",
    [
        (["nope"], "does not exist"),
        (["SUB", "SUB"], "two submissions have the id 'solution'"),
        (["--jobs", "0"], "usage:"),
        (["CLASS"], "of its folders do (compile, edge, skeleton, ...): it looks like the "
                    "class's folder; name each submission, e.g. "),
    ],
)
def test_usage_errors_are_2(fake_root, subs, capsys, tmp_path, args, message):
    where = {"SUB": subs["solution"], "CLASS": str(Path(subs["solution"]).parent)}
    args = [where.get(a, a) for a in args]
    if args[0] == "--jobs":
        args = [subs["solution"], *args]
    code, _, err = grade_cli(capsys, "batch", fake_root / LAB, *args, "--out", tmp_path / "o")
    assert code == 2 and message in err


def test_one_students_messy_upload_does_not_stop_the_class(fake_root, subs, gpu_env, tmp_path):
    """Among several submissions (an instructor's trial, session 36: each of these stopped
    the whole class), a student's folder holding two copies of the files in folders of its
    own is that student's "rejected:" row, naming the fix, and a file that is no submission
    (a README.txt beside them) is left out with a line; the others are graded. Named alone,
    each is still the usage error it was."""
    sol = (Path(subs["solution"]) / "kernels.cu").read_text()
    messy = tmp_path / "dave"
    submission(messy / "v1", sol)
    submission(messy / "v2", sol)
    notes = tmp_path / "README.txt"
    notes.write_text("grade these\n")
    # archives of a format the grader does not extract (a second instructor's trial, session
    # 44: left out with a line, the students had no row): each its student's rejected row
    others = [tmp_path / "erin.tar.bz2", tmp_path / "fay.7z", tmp_path / "gus.tar"]
    # beside a student's real hand-in (a review: the same id stopped the whole class)
    stray = tmp_path / "solution.rar"
    for other in [*others, stray]:
        other.write_bytes(b"not extracted")
    out = tmp_path / "out"
    code, err = run_batch(
        fake_root, [subs["solution"], str(messy), str(notes), *map(str, others), str(stray)], out
    )
    assert code == 0, err
    assert f"batch: {stray} is an archive of a format the grader does not extract, beside " in err
    assert f"batch: {notes} is not a folder, .zip, .tar.gz or .tgz: left out of the class" in err
    book = gradebook(out)
    assert sorted(book) == ["dave", "erin", "fay", "gus", "solution"], book
    for sid, suffix in (("erin", ".tar.bz2"), ("fay", ".7z"), ("gus", ".tar")):
        assert book[sid]["status"] == (
            f"rejected: a {suffix} archive, which the grader does not extract: hand in a "
            "folder, .zip, .tar.gz or .tgz"
        ), book[sid]
        assert float(book[sid]["total"]) == 0
    assert book["dave"]["status"] == (
        "rejected: the submission holds no kernels.cu of its own but 2 folders that each do "
        "(v1, v2): which to grade is not known; hand in one copy of your files"
    ), book["dave"]
    assert float(book["dave"]["total"]) == 0
    assert book["solution"]["status"] == "graded"
    for alone, says in ((messy, "it looks like the class's folder"),
                        (notes, "is not a folder, .zip, .tar.gz or .tgz"),
                        (others[1], "is not a folder, .zip, .tar.gz or .tgz")):
        code, err = run_batch(fake_root, [str(alone)], tmp_path / "alone")
        assert code == 2 and says in err, err


def test_an_out_that_overlaps_the_class_or_is_a_file_is_refused(fake_root, subs, capsys, tmp_path):
    """Mistakes an instructor's trial made: --out a file (a traceback after the first
    grading), --out the class folder (grades written among the submissions, also when the
    submission is named through a link: a review), --out inside a student's folder, and a
    pattern the shell matched to nothing. Each is a usage error that names its fix, before
    any grading. --out matched by class/* is left out of the class, and --out above the
    class folder is fine."""
    sol = Path(subs["solution"])
    afile = tmp_path / "afile"
    afile.write_text("x")
    export = tmp_path / "export"
    (export / "alice_123").mkdir(parents=True)
    (export / "alice_123" / "kernels.cu").write_text((sol / "kernels.cu").read_text())
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "alice_123").symlink_to(export / "alice_123")
    hana = tmp_path / "hana"
    submission(hana / "Hana Export", (sol / "kernels.cu").read_text())
    cases = [
        ([subs["solution"]], afile, f"--out {afile} is a file: name a folder"),
        ([subs["solution"]], sol.parent, f"--out {sol.parent} is the class folder holding"),
        ([str(tmp_path / "links" / "alice_123")], export, "is the class folder holding"),
        ([subs["solution"]], sol / "grades", "would put solution's grades in or around their own"),
        ([str(tmp_path / "nope" / "*")], tmp_path / "o", "a pattern the shell matched to no file"),
        # a second instructor's trial (session 44): --out a student's own folder, named among
        # the class (she had no row, and her hand-in got the grades); --out the course tree,
        # which the grades' privacy would close to other users; --out in build/ (make clean)
        ([subs["skeleton"], subs["solution"]], sol,
         f"--out {sol} is a submission of the class (it holds kernels.cu)"),
        ([subs["skeleton"], str(hana)], hana,  # her files in a wrapping folder (a review)
         f"--out {hana} is a submission of the class (it holds kernels.cu)"),
        ([subs["solution"]], fake_root, "is the course tree or holds it"),
        ([subs["solution"]], fake_root / "build" / "grades", "lies in the course's own build/"),
        ([subs["solution"]], fake_root / LAB / "grades", "lies in the course's own labs/"),
    ]
    for paths, out, message in cases:
        code, _, err = grade_cli(capsys, "batch", fake_root / LAB, *paths, "--out", out)
        assert code == 2 and message in err, (out, err)
        assert "Traceback" not in err
    assert not (sol / "grades").exists() and not (export / "alice_123" / "report.txt").exists()
    assert not (sol / "report.txt").exists() and not (fake_root / "build" / "grades").exists()
    code, _, err = grade_cli(capsys, "batch", fake_root / LAB / "lab.toml", subs["solution"],
                             "--out", tmp_path / "o")
    assert code == 2 and "is a file: name the lab's folder" in err, err
    # --out further above the class is fine; the same command again, class/* now matching
    # --out's own student folder beside the class, still grades the class alone
    above = tmp_path / "above"
    mine = submission(above / "subs" / "solo", (sol / "kernels.cu").read_text())
    code, _, err = grade_cli(capsys, "batch", fake_root / LAB, mine, "--out", above, "--no-perf")
    assert json.loads((above / "solo" / "batch.json").read_text())["status"].startswith(
        "partial"
    ), err
    grades = above / "subs" / "grades"
    for _ in range(2):  # --out inside the class folder: class/* names it from the second run
        names = sorted(str(p) for p in (above / "subs").iterdir())
        code, _, err = grade_cli(capsys, "batch", fake_root / LAB, *names, "--out", grades,
                                 "--no-perf")
        assert code == 3 and (grades / "solo" / "batch.json").is_file(), err
    assert "is --out, not a submission: left out of the class" in err


def test_out_of_another_lab_is_refused(fake_root, subs, capsys, tmp_path):
    out = tmp_path / "out"
    (out / "x").mkdir(parents=True)
    row = {"batch_row": 1, "id": "x", "lab": "3.3", "status": "graded"}
    (out / "x" / "batch.json").write_text(json.dumps(row))
    code, _, err = grade_cli(capsys, "batch", fake_root / LAB, subs["solution"], "--out", out)
    assert code == 2 and "holds results of lab 3.3" in err


def test_a_grade_with_points_pending_is_partial_even_when_some_are_lost():
    """Lab 3.5 without a GPU and with the template REPORT.md: the report's filled points are
    lost for certain (exit status 1), its exercises' points pending. The gradebook status must
    say partial — the cells it leaves empty and a re-run follow the status."""
    from grader.results import ExerciseResult, Grade, Part, ReportResult, Step

    ex = ExerciseResult("blur", {"correctness": Part("correctness", 10)})  # points None
    g = Grade("3.5-project", "3.5", "t", "s", None, None, exercises=[ex], exit_code=1)
    g.report = ReportResult("REPORT.md", 2, 8, status="failed", points=0.0)
    g.steps.append(Step("device", "not_run", []))
    assert g.pending_points == 10
    assert batching.status_of(g) == "partial (no GPU)"
    g.exercises[0].parts["correctness"].points = 0.0
    assert batching.status_of(g) == "graded"


def test_a_disturbed_timed_run_is_graded_again_alone(
    fake_root, subs, gpu_env, tmp_path, monkeypatch
):
    """A timed run whose course figures (the judge's copy, the baseline) stray from the
    class's is graded again, alone, after the others (grader.class_figures): the fake
    harness disturbs the first timed run of the batch (FAKE_DISTURB_ONCE), as something
    disturbed one of 64 timed runs of a batch on the H200 (session 8), and the student keeps
    full marks, the row saying why it was graded again."""
    flag = tmp_path / "disturb-once"
    flag.write_text("")
    monkeypatch.setenv("FAKE_DISTURB_ONCE", str(flag))
    names = ["solution", "alice", "bob", "carol", UNICODE_ID]
    out = tmp_path / "out"
    code, err = run_batch(fake_root, [subs[k] for k in names], out)
    assert not flag.exists()  # one timed run was disturbed
    assert code == 0, err
    rows = gradebook(out)
    assert {sid: r["total"] for sid, r in rows.items()} == dict.fromkeys(names, "17")
    rows_of = {sid: json.loads((out / sid / "batch.json").read_text()) for sid in names}
    again = [sid for sid, row in rows_of.items() if "retimed" in row]
    assert len(again) == 1, err
    why = rows_of[again[0]]["retimed"]
    assert [w.split(",")[0] for w in why] == [
        "scale: the baseline's median launch",
        "scale: the judge's device-to-device copy",
    ]
    assert all("4.00x slower" in w for w in why), why
    assert f"{again[0]}: graded again, alone: scale: " in err
    assert "strayed again" not in err


def test_only_a_folder_of_several_submissions_is_taken_for_the_class(tmp_path):
    """A folder holding the student files, or one folder wrapping them, or one student's
    drafts beside them, is one submission; a folder whose own folders hold them is not."""
    names = ("kernels.cu",)
    (tmp_path / "wrapped" / "Export").mkdir(parents=True)
    (tmp_path / "wrapped" / "Export" / "kernels.cu").write_text("x")
    (tmp_path / "drafts" / "old").mkdir(parents=True)
    (tmp_path / "drafts" / "kernels.cu").write_text("x")
    (tmp_path / "drafts" / "old" / "kernels.cu").write_text("x")
    for name in ("a", "b"):
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "kernels.cu").write_text("x")
    got = batching.collect([str(tmp_path / "wrapped"), str(tmp_path / "drafts")], names)
    assert [s.id for s in got] == ["wrapped", "drafts"]
    with pytest.raises(GraderError, match=r"2 of its folders do \(a, b\).*e\.g\. .*class/\*"):
        batching.collect([str(tmp_path / "class")], names)
    assert [s.id for s in batching.collect([str(tmp_path / "class")])] == ["class"]  # no lab


def test_the_progress_line_of_a_partial_grade_says_the_points_lost_for_certain():
    """A partial grade's progress line reads like the gradebook's lost and pending columns:
    a skeleton that lost 5 points for certain while 2 wait is not shown as 'so far' alone."""
    import types

    me = types.SimpleNamespace(err=io.StringIO())
    row = {"id": "bob", "total": 10.0, "max": 17, "pending_points": 2,
           "status": "partial (no GPU)"}
    batching.Batch._progress(me, 4, 30, row, "elapsed 9 s")
    assert me.err.getvalue() == (
        "[4/30] bob: 10 so far of 17, 2 pending, 5 lost; partial (no GPU) (elapsed 9 s)\n")
    row["total"] = 15.0  # nothing lost: the line says nothing of it
    batching.Batch._progress(me, 5, 30, row, "x")
    last = me.err.getvalue().splitlines()[-1]
    assert last == "[5/30] bob: 15 so far of 17, 2 pending; partial (no GPU) (x)"


def test_a_gpu_with_less_memory_grades_fewer_at_once(fake_root, subs, tmp_path, monkeypatch):
    """Without --jobs a batch grades one submission per CPU, but no more than the GPU's
    memory holds at ``batch.GPU_BYTES_PER_GRADING`` each (its device probe's
    ``global_mem_bytes``); --jobs is taken as given, with a line where the memory holds
    fewer."""
    from grader import batch

    monkeypatch.setenv("FAKE_GPU", "1")
    monkeypatch.setattr(batch, "default_jobs", lambda: 4)
    monkeypatch.setenv("FAKE_GLOBAL_MEM_BYTES", str(batch.GPU_BYTES_PER_GRADING * 2 + 1))
    pools = []
    real = batch.ThreadPoolExecutor
    monkeypatch.setattr(
        batch, "ThreadPoolExecutor", lambda max_workers, **kw: pools.append(max_workers)
        or real(max_workers=max_workers, **kw),
    )
    argv = ["batch", fake_root / LAB, subs["alice"], "--out", tmp_path / "out", "--no-perf"]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        cli.main([str(a) for a in argv])  # partial (--no-perf): 3
    assert pools == [2] and "2 at once, not 4 (one per CPU)" in err.getvalue(), err.getvalue()
    pools.clear()
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        argv = [*argv[:4], tmp_path / "out2", "--no-perf", "--jobs", "3"]
        cli.main([str(a) for a in argv])
    # --jobs as given, but said to be more than the memory holds (note 79)
    assert pools == [3] and "at once" not in err.getvalue(), err.getvalue()
    assert "--jobs 3, but the GPU's memory holds 2 gradings" in err.getvalue(), err.getvalue()
    monkeypatch.delenv("FAKE_GLOBAL_MEM_BYTES")  # no memory size: one per CPU
    pools.clear()
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        cli.main([str(a) for a in [*argv[:4], tmp_path / "out3", "--no-perf"]])
    assert pools == [4]


def test_an_interrupted_command_exits_130_and_says_a_batch_resumes(monkeypatch, capsys):
    """Ctrl-C is not a usage error (2, an instructor's trial): the shell's 130, and the line
    says that running a batch again resumes it."""
    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run", interrupted)
    assert cli.main(["batch"]) == 130
    assert "interrupted (a batch run again resumes" in capsys.readouterr().err


def test_an_interrupted_batch_lists_every_grading_that_ended(fake_root, subs, tmp_path,
                                                              monkeypatch):
    """Ctrl-C as one grading ends while another still runs: the batch waits for the one
    running, and its gradebook lists both (an instructor's trial found the second listed as
    "not graded" though its files were written)."""
    monkeypatch.delenv("FAKE_GPU", raising=False)
    ended = threading.Event()
    real_grade_one, real_progress = batching.Batch._grade_one, batching.Batch._progress

    def grade_one(self, sub, retimed=None):
        if sub.id == "bob":
            ended.wait(30)  # still running when the first one's progress line is interrupted
        return real_grade_one(self, sub, retimed)

    def progress(self, k, n, row, note):
        real_progress(self, k, n, row, note)
        ended.set()
        raise KeyboardInterrupt

    monkeypatch.setattr(batching.Batch, "_grade_one", grade_one)
    monkeypatch.setattr(batching.Batch, "_progress", progress)
    out = tmp_path / "out"
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        argv = ["batch", fake_root / LAB, subs["solution"], subs["bob"], "--out", out,
                "--jobs", "2", "--no-perf"]
        assert cli.main([str(a) for a in argv]) == 130
    rows = gradebook(out)
    assert sorted(rows) == ["bob", "solution"], rows
    assert all(r["status"].startswith("partial") for r in rows.values()), rows



def test_no_run_of_a_batch_may_read_the_class(fake_root, subs, tmp_path, monkeypatch):
    """Each grading's sandbox, and the one the batch says it uses, is chosen with the batch's
    --out and every submission of the class as private (grader.sandbox hides those a run
    would see: test_sandbox.py)."""
    seen = []
    real = batching.grading.sandbox.choose

    def choose(roots=(), default="none", private=()):
        seen.append(tuple(private))
        return real(roots, default, private)

    monkeypatch.setattr(batching.grading.sandbox, "choose", choose)
    out = tmp_path / "out"
    # a Slurm task's batch (--classmates, grader.slurm's classmates.json): the whole class's
    classmates = tmp_path / "classmates.json"
    classmates.write_text(json.dumps([subs["bob"], subs["carol"]]))
    run_batch(fake_root, [subs["solution"], subs["alice"]], out, "--no-perf", "--no-sanitizer",
              "--classmates", classmates)
    want = (out.absolute(), Path(subs["solution"]).absolute(), Path(subs["alice"]).absolute(),
            Path(subs["bob"]).absolute(), Path(subs["carol"]).absolute())
    # the batch's own choice, said before any grading, then each of the two gradings'
    assert seen == [want, want, want], seen
    classmates.write_text('{"not": "a list"}')
    code, err = run_batch(fake_root, [subs["alice"]], out, "--classmates", classmates)
    assert code == 2 and "is not a JSON list of paths" in err, err


def test_a_class_kept_inside_the_course_builds(fake_root, tmp_path, monkeypatch):
    """The class and --out inside the course tree, a submission inside solutions/ (layouts a
    review found making bubblewrap fail every build, each then a final "build failed", and
    since design note 67 a grader error; --out holding a submission is refused now): every
    submission builds under the sandbox, each grade partial only for want of a GPU, and the
    batch warns. (That no run reads the class: test_sandbox.py's bubblewrap runs.)"""
    monkeypatch.delenv("FAKE_GPU", raising=False)  # gpu_env may be active for the module
    monkeypatch.setenv(sandbox.ENV, "auto")
    if sandbox.choose().kind != "bwrap":
        pytest.skip("bubblewrap cannot run here")
    course = tmp_path / "course"
    shutil.copytree(fake_root, course)
    sol = (course / "solutions/9.1-fake/kernels.cu").read_text()
    out = course / "grades"
    paths = [submission(course / "class" / "alice", sol), submission(course / "more" / "bob", sol),
             course / "solutions" / "9.1-fake"]
    code, err = run_batch(course, paths, out, "--no-perf")
    statuses = {sid: row["status"] for sid, row in gradebook(out).items()}
    assert statuses == dict.fromkeys(["9.1-fake", "alice", "bob"], "partial (no GPU)"), err
    assert "inside the course tree" in err and "keep the class and --out outside it" in err


def test_a_drain_policy_is_said_and_a_wrong_one_stops_the_batch(
    fake_root, subs, gpu_env, tmp_path, monkeypatch, capsys
):
    """GRADER_DRAIN_AT=W,T (design note 77): the batch grades as without it and says when its
    drains start, and that T alone starts them where W is more than the gradings at once (as
    it says of a GRADER_UNTIMED_AT_ONCE that caps nothing: an instructor's trial, session 34);
    a value it cannot read stops the batch before it builds, naming the fix."""
    monkeypatch.setenv(gpu_lock.DRAIN_ENV, "3,5")
    monkeypatch.setenv(batching.UNTIMED_ENV, "2")
    code, err = run_batch(fake_root, [subs["solution"], subs["alice"]], tmp_path / "out")
    assert code == 0, err
    assert "a drain for the timed runs once 3 wait, or the first has waited 5 s" in err, err
    assert "no more than 2 timed runs can wait at once (--jobs), so each drain begins" in err
    assert "GRADER_UNTIMED_AT_ONCE=2 caps nothing: no more than 2 gradings" in err, err
    assert {r["status"] for r in gradebook(tmp_path / "out").values()} == {"graded"}
    # the gradebook names the GPU each student was graded on (whose thresholds: note 76)
    assert {r["gpu"] for r in gradebook(tmp_path / "out").values()} == {"Fake GPU"}
    monkeypatch.setenv(gpu_lock.DRAIN_ENV, "2,soon")
    code, _, err = grade_cli(
        capsys, "batch", fake_root / LAB, subs["solution"], "--out", tmp_path / "o"
    )
    assert code == 2 and "give W, the timed runs that must wait" in err, err
    assert not (tmp_path / "o").exists()


def test_untimed_at_once_caps_the_gradings_in_their_untimed_runs(
    fake_root, subs, gpu_env, tmp_path, monkeypatch, capsys
):
    """GRADER_UNTIMED_AT_ONCE=1 (design note 73): of two gradings at once, one at a time
    runs its untimed runs, so no more than its own two sanitizer tools (side by side, a
    second each here) are ever on the GPU together; the grades are full, as without the cap.
    A value that is not a whole number of at least 1 stops the batch before it builds, naming
    the fix."""
    spans = tmp_path / "spans.log"
    monkeypatch.setenv("FAKE_SANITIZER_SPANS", str(spans))
    monkeypatch.setenv("GRADER_SANDBOX", "none")  # the sandbox's /tmp would hide the spans
    monkeypatch.setenv(batching.UNTIMED_ENV, "1")
    paths = [subs["solution"], subs["alice"]]
    code, err = run_batch(fake_root, paths, tmp_path / "out")  # --jobs 2
    assert code == 0 and "at most 1 of the 2 gradings at once in their untimed runs" in err, err
    assert {r["status"] for r in gradebook(tmp_path / "out").values()} == {"graded"}
    events = []  # (time, +1 a run starts / -1 it ends)
    for _, what, when in (line.split() for line in spans.read_text().splitlines()):
        events.append((float(when), 1 if what == "start" else -1))
    at_once = most = 0
    for _, step in sorted(events, key=lambda e: (e[0], e[1])):  # an end before a start
        at_once += step
        most = max(most, at_once)
    assert len(events) == 2 * 2 * 2 and most == 2, sorted(events)
    _refused_before_build(
        fake_root, subs, tmp_path, monkeypatch, capsys, batching.UNTIMED_ENV,
        ("0", "two", "-1", "²"), "give a whole number of gradings, at least 1",
    )


def _refused_before_build(fake_root, subs, tmp_path, monkeypatch, capsys, env, bads, words):
    """With each of ``bads`` in the knob ``env``, a batch exits 2 naming the fix (``words``)
    and makes no out folder: refused before anything is built."""
    for bad in bads:
        monkeypatch.setenv(env, bad)
        code, _, err = grade_cli(
            capsys, "batch", fake_root / LAB, subs["solution"], "--out", tmp_path / "o"
        )
        assert code == 2 and words in err, err
        assert not (tmp_path / "o").exists()


def test_timed_setups_at_once_is_said_and_a_wrong_one_stops_the_batch(
    fake_root, subs, gpu_env, tmp_path, monkeypatch, capsys
):
    """GRADER_TIMED_SETUPS_AT_ONCE=N (design note 87): N of at least --jobs caps nothing, and
    the batch says so (and grades as without it, the row recording it); a value that is not a
    whole number of at least 1 stops the batch before it builds, naming the fix. Beside it,
    GRADER_DRAIN_AT=1, the default drain, is recorded too and said to change nothing (an
    instructor's trial: taken silently and missing from the rows); every knob is recorded
    as set, a string, as grade.sbatch exports it (the trial found 4.0 beside strings)."""
    monkeypatch.setenv(batching.TIMED_SETUPS_ENV, "2")
    monkeypatch.setenv(gpu_lock.DRAIN_ENV, " 1 ")
    code, err = run_batch(fake_root, [subs["solution"], subs["alice"]], tmp_path / "out")
    assert code == 0, err
    assert "GRADER_TIMED_SETUPS_AT_ONCE=2 caps nothing: no more than 2 gradings" in err, err
    assert "batch: GRADER_DRAIN_AT=1 changes nothing: without it too a drain begins" in err, err
    row = json.loads((tmp_path / "out" / "alice" / "batch.json").read_text())
    assert row["status"] == "graded", row
    assert row["knobs"] == {gpu_lock.DRAIN_ENV: "1", batching.TIMED_SETUPS_ENV: "2"}, row
    _refused_before_build(
        fake_root, subs, tmp_path, monkeypatch, capsys, batching.TIMED_SETUPS_ENV,
        ("0", "two", "-1", "²", "1.5"), "give a whole number of timed runs set up at once",
    )


def test_with_no_perf_the_knobs_of_timed_runs_are_said_to_be_ignored(
    fake_root, subs, gpu_env, tmp_path, monkeypatch
):
    """--no-perf makes no timed run: the drain's, the stop's and the timed set-ups' knobs
    cannot act, and one line says so instead of their lines (an instructor's trial: it
    printed the drain's lines and the timed set-ups' line, and closed on the stops); the
    untimed cap still acts and is said; every knob set is recorded in the rows as set."""
    knobs = {batching.UNTIMED_ENV: "1", gpu_lock.DRAIN_ENV: "8,20", gpu_lock.STOP_ENV: "4",
             batching.TIMED_SETUPS_ENV: "1"}
    for name, value in knobs.items():
        monkeypatch.setenv(name, value)
    code, err = run_batch(fake_root, [subs["solution"], subs["alice"]], tmp_path / "out",
                          "--no-perf")
    assert code == 3, err  # not final: the performance checks were left out
    # and the closing line sends the instructor to the reports, not to a GPU it had (g138)
    assert "(their cells are empty; each report's NOT RUN lines say which checks did not run "\
        "and why)" in err, err
    ignored = [line for line in err.splitlines() if "ignored" in line]
    assert ignored == [
        "batch: GRADER_DRAIN_AT=8,20, GRADER_DRAIN_STOP_AFTER=4, GRADER_TIMED_SETUPS_AT_ONCE=1 "
        "ignored: with --no-perf no run is timed, and they act on timed runs only"
    ], err
    assert "at most 1 of the 2 gradings at once in their untimed runs" in err, err
    for said in ("drain for the timed runs", "W is", "keeps a drain waiting", "set up or",
                 "untimed run was stopped", "caps nothing"):
        assert said not in err, (said, err)
    row = json.loads((tmp_path / "out" / "alice" / "batch.json").read_text())
    assert row["knobs"] == knobs, row


def test_the_knobs_lines_count_the_gradings_that_run_at_once(monkeypatch):
    """``knob_lines``: with fewer students to grade than --jobs, the gradings at once are
    the students (an instructor's trial: "at most 1 of the 2 gradings" with --jobs 2 and a
    class of one), and a cap of them caps nothing; with nothing to grade no knob acts."""
    monkeypatch.setenv(batching.UNTIMED_ENV, "1")
    monkeypatch.setenv(gpu_lock.DRAIN_ENV, "3,5")
    monkeypatch.setenv(batching.TIMED_SETUPS_ENV, "2")
    monkeypatch.delenv(gpu_lock.STOP_ENV, raising=False)
    knobs, values = batching.knobs_in_environment(), batching.read_knobs()
    lines = batching.knob_lines(knobs, values, 4, 2, True)
    assert lines == [
        "batch: at most 1 of the 2 gradings at once in their untimed runs "
        "(GRADER_UNTIMED_AT_ONCE=1)",
        "batch: a drain for the timed runs once 3 wait, or the first has waited 5 s, or the "
        "GPU is free (GRADER_DRAIN_AT)",
        "batch: GRADER_DRAIN_AT's W is 3, but no more than 2 timed runs can wait at once (2 to "
        "grade, --jobs 4), so each drain begins once the first has waited 5 s",
        "batch: GRADER_TIMED_SETUPS_AT_ONCE=2 caps nothing: no more than 2 gradings run at "
        "once (2 to grade, --jobs 4); give it less than 2 or leave it unset",
    ], lines
    (line,) = batching.knob_lines(knobs, values, 1, 1, True)[:1]
    assert line.startswith("batch: GRADER_UNTIMED_AT_ONCE=1 caps nothing: no more than 1 "
                           "grading run at once (--jobs)"), line
    assert batching.knob_lines(knobs, values, 4, 0, True) == [
        "batch: GRADER_UNTIMED_AT_ONCE=1, GRADER_DRAIN_AT=3,5, GRADER_TIMED_SETUPS_AT_ONCE=2 "
        "ignored: nothing is graded in this batch"
    ]


def test_batch_help_lists_every_knob(capsys):
    """``batch --help`` (and ``slurm --help``) end with the environment's knobs, each with
    its form, default and what it does, from the table that reads them (``batch.KNOBS``;
    an instructor's trial found none)."""
    for command in ("batch", "slurm"):
        assert cli.main([command, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())  # unwrapped
        assert "environment knobs" in text, text
        for knob in batching.KNOBS:
            assert f"{knob.env}={knob.form} (default: {knob.default})" in text, (knob, text)
            assert " ".join(knob.what.split()) in text, (knob, text)
    assert [k.env for k in batching.KNOBS] == list(batching.KNOB_ENVS)
    assert "0.1 to 600" in batching.knobs_help()  # the ranges the readers refuse outside


def test_a_class_whose_every_build_failed_is_asked_about_its_lab(tmp_path):
    """An instructor's trial (session 44) graded a lab 3.3 class against lab 3.4: every row
    "build failed", final, exit 0, and nothing said the lab was the likelier mistake. The
    closing line asks when every build of two or more failed, and only then."""
    book = tmp_path / "gradebook.csv"
    ask = "every build failed: is LABDIR the lab they handed in?"
    assert ask in batching._closing_line(["build failed"] * 3, book)
    assert ask not in batching._closing_line(["build failed", "graded"], book)
    assert ask not in batching._closing_line(["build failed"], book)
    # rows that never built beside them (a review: one rejected row hid the question)
    assert ask in batching._closing_line(["build failed", "build failed", "rejected: x"], book)
    assert ask not in batching._closing_line(["build failed"] * 2 + ["partial (no GPU)"], book)

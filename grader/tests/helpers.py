"""Helpers of the grader's tests: paths, device detection, running the CLI in-process."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
from pathlib import Path
from unittest import mock

import pytest

from grader import cli, fixtures, gpu_lock, manifest, tools
from grader.results import PART_NAMES

REPO = Path(__file__).resolve().parents[2]
FAKELAB = Path(__file__).resolve().parent / "fakelab"
FAKE_BIN = FAKELAB / "bin"
KNOWN_BAD = Path(__file__).resolve().parent / "known_bad"


def assert_patch_well_formed(
    path: Path, tmp_path: Path, parts: str, expect_keys: set[str], empty: str
) -> dict:
    """What every patch of a reference solution must be, known-bad fixture (``parts`` =
    "lost") or alternative ("keeps"): a description; replacements of the lab's student files
    that change their text, each ``old`` once in the solution (grader.fixtures raises
    FixtureError otherwise); an exercise of the lab; a non-empty list ``expect[parts]`` of
    parts that have points there (``empty`` says why it must not be empty); no key of
    ``expect`` outside "exercise", ``parts`` and ``expect_keys``. Returns the fixture."""
    fixture = fixtures.load(path)
    lab = manifest.load(REPO / "labs" / path.parent.name)
    assert set(fixture) <= {"description", "replace", "expect"}, set(fixture)
    assert isinstance(fixture.get("description"), str) and fixture["description"]
    assert fixture["replace"], "no [[replace]]"
    for rep in fixture["replace"]:
        assert rep["file"] in lab.student_files, rep["file"]
        assert rep["old"] != rep["new"]
    expect = fixture["expect"]
    assert set(expect) <= {"exercise", parts, *expect_keys}, set(expect)
    assert expect["exercise"] in {e.name for e in lab.exercises}, expect["exercise"]
    ex = lab.exercise(expect["exercise"])
    assert expect[parts], f"expect.{parts} is empty: {empty}"
    for part in expect[parts]:
        assert part in PART_NAMES, part
        assert ex.points[part] > 0, f"{part} has no points in {ex.name}"
    applied = fixtures.apply(REPO, path, tmp_path / "sub")
    for rep in fixture["replace"]:
        assert rep["new"] in (applied / rep["file"]).read_text()
    return fixture


def _no_device_reason() -> str | None:
    """Why there is no CUDA device, or None when there is one."""
    if shutil.which("nvidia-smi") is None:
        return "no CUDA device: nvidia-smi not found on PATH"
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"no CUDA device: nvidia-smi -L failed ({e})"
    if listed.returncode != 0:
        return "no CUDA device: nvidia-smi -L lists no GPU"
    for binary in sorted(REPO.glob("build/*/student/lab")):
        try:
            out = subprocess.run(
                [str(binary), "--device-info"], capture_output=True, text=True, timeout=120
            )
            doc = json.loads(out.stdout)
        except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
            continue
        if doc.get("status") == "no_device":
            rel = binary.relative_to(REPO)
            return f"no CUDA device: {rel} --device-info reported no_device"
        break
    return None


_REASON: list[str | None] = []


def no_device_reason() -> str | None:
    """Cached ``_no_device_reason()``."""
    if not _REASON:
        _REASON.append(_no_device_reason())
    return _REASON[0]


# Why a test marked ``instructors`` is skipped in the student release (``make dist-student``,
# grader.dist): it reads what only the instructors' repository has (solutions/, the
# known-bad and alternative fixtures, labs/*/hidden.toml).
INSTRUCTORS_ONLY = "instructors' repository only: solutions/ not in the student release"


def instructors_only_reason() -> str | None:
    """``INSTRUCTORS_ONLY`` where this copy has no solutions/ (the student release), else
    None."""
    return None if (REPO / "solutions").is_dir() else INSTRUCTORS_ONLY


def need(tool: str) -> None:
    """Skips the test (with the reason) when ``tool`` cannot be found."""
    if tools.find(tool) is None:
        pytest.skip(tools.not_found(tool))


GPU_TESTS_LOCK = REPO / "build" / ".gpu-tests.lock"


def grade_cli(capsys, *argv, timed: bool | None = None) -> tuple[int, str, str]:
    """Runs ``python3 -m grader ARGV`` in this process: (exit status, stdout, stderr).

    ``timed`` not None (a grading on the GPU, True when the test needs its performance
    measured): the grading takes the GPU through GPU_TESTS_LOCK, the lock file pytest-xdist's
    workers share (``GRADER_GPU_LOCK``, grader.gpu_lock.FileGpuLock), as a batch's gradings
    share its lock: its untimed runs beside other workers' gradings, every measuring part
    alone. On the H200, known-bad fixtures graded in parallel without it slowed one another's
    baseline 2.5x, and the grader, rightly, scored no performance ("disturbed timing")."""
    with gpu_lock_file() if timed is not None else contextlib.nullcontext():
        code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@contextlib.contextmanager
def gpu_alone():
    """The GPU the block's alone among the GPU tests: GPU_TESTS_LOCK held alone (as a timed run
    holds it) for the whole block, in this process, with ``GRADER_GPU_LOCK`` unset. A grade
    made inside is a single grade whose runs meet no other worker's on the GPU, as on an
    instructor's idle machine (design note 88's "alone": a judge out of GPU memory after its
    gate is timed again once, and then the student's), where under ``grade_cli(timed=...)``
    other workers' gradings may share the GPU and that judge's failure stays a grader error."""
    GPU_TESTS_LOCK.parent.mkdir(exist_ok=True)
    held = gpu_lock.FileGpuLock(GPU_TESTS_LOCK)
    env = {k: v for k, v in os.environ.items() if k != gpu_lock.LOCK_ENV}
    with held.exclusive(), mock.patch.dict(os.environ, env, clear=True):
        yield


def gpu_lock_file():
    """``GRADER_GPU_LOCK`` set to GPU_TESTS_LOCK while the block runs (restored after)."""
    GPU_TESTS_LOCK.parent.mkdir(exist_ok=True)
    return mock.patch.dict(os.environ, {gpu_lock.LOCK_ENV: str(GPU_TESTS_LOCK)})


def step_statuses(report: dict) -> dict[str, str]:
    """{step name: status} of a JSON report's steps ("build": "passed", ...)."""
    return {step["name"]: step["status"] for step in report["steps"]}


# a timed run's row's keys that time it, not what it grades (grade._performance)
RUN_TIMINGS = ("wall_s", "first_wall_s", "hold_tail_ms")


def drop_timings(report: dict) -> tuple[dict | None, list[tuple[str, dict]]]:
    """Removes from a JSON report what times its grading, not what it grades, so that two
    gradings' reports compare: (its ``timings_s``, None where it had none; for each
    performance row in order, (its exercise, the RUN_TIMINGS it had, removed))."""
    timings = report.pop("timings_s", None)
    rows = []
    for ex in report["exercises"]:
        for row in ex["parts"]["performance"]["details"]:
            rows.append((ex["name"], {k: row.pop(k) for k in RUN_TIMINGS if k in row}))
    return timings, rows


def submission(folder: Path, text: str, name: str = "kernels.cu") -> Path:
    """A submission folder holding one student file."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder


def real_labs() -> list[Path]:
    """labs/<lab> folders of the repository that have a lab.toml and a solution."""
    return [
        p.parent
        for p in sorted(REPO.glob("labs/*/lab.toml"))
        if (REPO / "solutions" / p.parent.name).is_dir()
    ]


def fake_batch(
    course: Path, subs: list[Path], out: Path, monkeypatch
) -> tuple[int, str, list[str]]:
    """``subs`` graded by a batch on ``course``'s fake lab 9.1-fake, one grading at a time
    (seed 7), without a sandbox (the fake lab's logs are read), the fake judge's starts logged
    to OUT-judge.log beside ``out`` (FAKE_JUDGE_LOG). (exit code, stderr, the timed starts:
    the "EXERCISE CASES timed" lines). A traceback on stderr fails the test."""
    judged = out.parent / f"{out.name}-judge.log"
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(judged))
    monkeypatch.setenv("GRADER_SANDBOX", "none")  # (as test_batch_strays._batch)
    err = io.StringIO()
    argv = ["batch", course / "labs" / "9.1-fake", *subs, "--out", out, "--seed", "7"]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main([str(a) for a in [*argv, "--jobs", "1"]])
    assert "Traceback" not in err.getvalue(), err.getvalue()
    lines = judged.read_text().splitlines() if judged.exists() else []
    return code, err.getvalue(), [line for line in lines if line.endswith(" timed")]

"""Fixtures of the grader's tests, and the ``gpu`` marker.

Tests marked ``gpu`` need a CUDA device. They are skipped, with the reason shown by
``pytest -ra`` ("no CUDA device: nvidia-smi not found on PATH", or "... --device-info
reported no_device"), when ``nvidia-smi`` is absent or the built lab binary says there is
no device. Tests marked ``instructors`` read what only the instructors' repository has
(solutions/, the known-bad and alternative fixtures, labs/*/hidden.toml): in the student
release (``make dist-student``) they are skipped with the reason ``helpers.INSTRUCTORS_ONLY``,
and the summary counts them.

``fake_root`` is a course tree made from ``fakelab/`` (a lab whose harness is plain C, see
fakelab/README.md), the real Makefile, the real ``common/cml_json.h`` and the grader's
modules (``grader.stubs`` writes the judge's stubs): the whole grading pipeline runs on it
without a GPU.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import build_memo
from grader import build, tools
from helpers import (
    FAKE_BIN,
    FAKELAB,
    INSTRUCTORS_ONLY,
    REPO,
    instructors_only_reason,
    no_device_reason,
)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped without one)")
    config.addinivalue_line(
        "markers",
        "slow: builds labs or runs the whole grader, seconds per test (`make test-fast`, "
        "pytest -m 'not slow', leaves them out; CI runs them)",
    )
    config.addinivalue_line(
        "markers",
        "instructors: reads solutions/, the known-bad or alternative fixtures or a lab's "
        "hidden.toml (skipped in the student release, which has none of them)",
    )


def pytest_collection_modifyitems(config, items):
    only = instructors_only_reason()
    if only:
        for item in items:
            if "instructors" in item.keywords:  # first, before an empty parameter set's skip
                item.add_marker(pytest.mark.skip(reason=only), append=False)
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items:
        return
    reason = no_device_reason()
    if reason:
        for item in gpu_items:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_terminal_summary(terminalreporter):
    """One line counting the tests skipped for the student release, also under ``-q``."""
    skipped = terminalreporter.stats.get("skipped", [])
    n = sum(1 for r in skipped if INSTRUCTORS_ONLY in str(r.longrepr))
    if n:
        terminalreporter.write_line(
            f"{n} test(s) skipped: {INSTRUCTORS_ONLY} (they read the reference solutions, the "
            "known-bad and alternative fixtures or the hidden cases)"
        )


@pytest.fixture(scope="session", autouse=True)
def memo_of_builds(tmp_path_factory):
    """Where there is no CUDA device (CI), the grader's successful builds are kept for the
    session, shared by pytest-xdist's workers, and a build of the same input is a copy
    (build_memo: why, and what a copy cannot give); a GPU machine builds every time."""
    if no_device_reason() is None or not build_memo.enabled():
        yield None
        return
    base = tmp_path_factory.getbasetemp()
    # pytest-xdist's workers each have a folder in the session's: that one they share
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    memo = build_memo.BuildMemo(shared / "build-memo")
    patch = pytest.MonkeyPatch()
    patch.setattr(build, "build", memo.wrap(build.build))
    yield memo
    patch.undo()


@pytest.fixture(scope="session")
def fake_root(tmp_path_factory) -> Path:
    """A course tree with the fake lab 9.1-fake (labs/ and solutions/)."""
    if tools.find("nvcc") is None:
        pytest.skip(tools.not_found("nvcc"))
    root = tmp_path_factory.mktemp("course")
    shutil.copy(REPO / "Makefile", root / "Makefile")
    (root / "common").mkdir()
    shutil.copy(REPO / "common" / "cml_json.h", root / "common" / "cml_json.h")
    shutil.copy(FAKELAB / "common" / "fake_common.c", root / "common" / "fake_common.c")
    shutil.copytree(FAKELAB / "labs", root / "labs")
    shutil.copytree(FAKELAB / "solutions", root / "solutions")
    # the Makefile writes the judge's stubs with grader/stubs.py (grader.stubs), from the
    # lister's --list
    (root / "grader").mkdir()
    for path in (REPO / "grader").glob("*.py"):
        shutil.copy(path, root / "grader" / path.name)
    # the course's own outputs (libcml.a, the lister, the judge) built here, once per worker,
    # as the first grading would build them: every copy of this tree a test makes
    # (test_pipeline_fake.course_with, ...) then starts with them, instead of building its
    # own judge (0.7 s of CPU a copy) or not depending on whether a grading ran first. A copy
    # whose harness or common/ a test changes is still rebuilt by make (newer sources).
    nvcc = tools.find("nvcc")
    build.build_common(root, nvcc, None)
    build.build_judge(root, nvcc, None, "9.1-fake")
    return root


@pytest.fixture
def fake_gpu(monkeypatch):
    """The fake harness reports a device; the fake compute-sanitizer comes first on PATH."""
    monkeypatch.setenv("FAKE_GPU", "1")
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ.get('PATH', '')}")

"""Known-bad submissions (grader/tests/known_bad/<lab>/*.toml, written by the lab authors):
each is a copy of the lab's solution with exact replacements, and the verdict it must get.

On any machine: every fixture applies cleanly (each ``old`` occurs exactly once in its
file) and names a real exercise and real parts, and one that must lose its static points
loses them (static is read from the SASS). On a GPU: each gets its verdict — every
part in ``expect.lost`` loses points, the report contains each of ``expect.report_contains``
and none of ``expect.report_lacks``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from grader import fixtures, grade, manifest, tools
from helpers import (
    KNOWN_BAD,
    REPO,
    assert_patch_well_formed,
    gpu_alone,
    grade_cli,
    step_statuses,
)

FIXTURES = fixtures.find(REPO)


def apply(path: Path, dest: Path) -> Path:
    """A copy of solutions/<lab> with the fixture's replacements (grader.fixtures)."""
    return fixtures.apply(REPO, path, dest)


def test_there_are_fixtures_for_every_lab():
    for lab_dir in sorted(REPO.glob("labs/*/lab.toml")):
        name = lab_dir.parent.name
        if (REPO / "solutions" / name).is_dir():
            assert list((KNOWN_BAD / name).glob("*.toml")), f"no known-bad fixture for {name}"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.instructors
def test_fixture_applies_cleanly(path, tmp_path):
    fixture = assert_patch_well_formed(
        path, tmp_path, "lost", {"report_contains", "report_lacks", "stateful", "in_class", "alone"},
        "a known-bad submission must lose something",
    )
    for key in ("report_contains", "report_lacks"):
        assert all(isinstance(s, str) for s in fixture["expect"].get(key, []))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.instructors
def test_every_lost_part_carries_points(path):
    """A part a known-bad fixture must lose is worth points in lab.toml: a performance
    measured, not scored (scored = false, 0 points) cannot be lost."""
    expect = fixtures.load(path)["expect"]
    ex = manifest.load(REPO / "labs" / path.parent.name).exercise(expect["exercise"])
    for part in expect["lost"]:
        assert ex.points[part] > 0, f"{expect['exercise']}: {part} has no points in lab.toml"


STATIC = [p for p in FIXTURES if "static" in fixtures.load(p)["expect"]["lost"]]


@pytest.mark.slow  # builds the lab
@pytest.mark.parametrize("path", STATIC, ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.instructors
def test_known_bad_loses_its_static_points_without_a_gpu(path, tmp_path, capsys):
    """Static is decided from the SASS on any machine: a fixture that must lose its static
    points loses them in CI too (the GPU's parts stay pending), as test_alternatives.py
    checks that the alternatives keep theirs."""
    for tool in ("nvcc", "cuobjdump"):
        if tools.find(tool) is None:
            pytest.skip(tools.not_found(tool))
    expect = fixtures.load(path)["expect"]
    sub = apply(path, tmp_path / "sub")
    args = ["grade", REPO / "labs" / path.parent.name, "--submission", sub, "--exercise",
            expect["exercise"], "--no-sanitizer", "--no-perf", "--json", tmp_path / "r.json"]
    code, out, err = grade_cli(capsys, *args)
    rep = json.loads((tmp_path / "r.json").read_text())
    steps = step_statuses(rep)
    assert (steps.get("build"), steps.get("symbols")) == ("passed", "passed"), (steps, out)
    (ex,) = rep["exercises"]
    static = ex["parts"]["static"]
    assert static["points"] is not None and static["points"] < static["max"], (static, out)


@pytest.mark.gpu
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.instructors
def test_known_bad_verdict(path, tmp_path, capsys):
    fixture = fixtures.load(path)
    expect = fixture["expect"]
    lab_dir = REPO / "labs" / path.parent.name
    spec = manifest.load(lab_dir).exercise(expect["exercise"]).performance
    if "performance" in expect["lost"] and spec is not None and not spec.calibrated:
        # its points stay pending until lab.toml's thresholds are measured (calibrated =
        # false): a lost performance cannot be told yet; bench/calibrate.py reports it
        pytest.skip(f"{expect['exercise']}: performance thresholds not calibrated yet")
    sub = apply(path, tmp_path / "sub")
    args = [
        "grade",
        lab_dir,
        "--submission",
        sub,
        "--exercise",
        expect["exercise"],
        "--json",
        tmp_path / "r.json",
    ]
    if "performance" not in expect["lost"]:
        args.append("--no-perf")
    if "sanitizer" not in expect["lost"]:
        args.append("--no-sanitizer")
    if expect.get("alone"):  # graded with the GPU its alone (helpers.gpu_alone, note 88)
        with gpu_alone():
            code, out, err = grade_cli(capsys, *args)
    else:
        code, out, err = grade_cli(capsys, *args, timed="performance" in expect["lost"])
    if os.environ.get("CML_KNOWN_BAD_REPORTS"):  # kept for choosing expected words
        keep = Path(os.environ["CML_KNOWN_BAD_REPORTS"])
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{path.parent.name}-{path.stem}.txt").write_text(out + err)
    assert code == 1, out + err
    rep = json.loads((tmp_path / "r.json").read_text())
    # the loss must come from the submission's code, not from a grader or harness that
    # could not build or run it (which would lose the same points)
    steps = step_statuses(rep)
    assert (steps.get("build"), steps.get("device")) == ("passed", "passed"), (steps, out)
    (ex,) = rep["exercises"]
    statuses = [row["status"] for row in ex["parts"]["correctness"]["details"]]
    # A stateful cheat (expect.stateful: its launcher keeps state between calls, which lab.h
    # forbids) is correct in each case's fresh process; with one student's process for all
    # of an exercise's cases (grade.Options.one_process, docs/design-notes.md, note 26) a
    # later case may catch it as well: its verdict is then stricter, never laxer.
    stateful_caught = expect.get("stateful") is True and grade.Options().one_process
    if set(expect["lost"]) <= {"static", "performance"} and not stateful_caught:
        assert set(statuses) == {"ok"}, (statuses, out)  # correct code, slow or misplaced
    for part in expect["lost"]:
        p = ex["parts"][part]
        assert p["points"] is not None and p["points"] < p["max"], (part, p, out)
    for text in expect.get("report_contains", []):
        assert text in out, f"{text!r} is not in the report:\n{out}"
    for text in expect.get("report_lacks", []):
        assert text not in out, f"{text!r} is in the report:\n{out}"


def test_gpu_alone_keeps_other_workers_gradings_off(tmp_path):
    """helpers.gpu_alone holds the GPU tests' lock file alone (another open of it cannot share
    it meanwhile) with GRADER_GPU_LOCK unset, and lets both go after."""
    import fcntl

    from helpers import GPU_TESTS_LOCK
    from grader import gpu_lock

    def try_share() -> bool:
        fd = os.open(GPU_TESTS_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        finally:
            os.close(fd)

    with gpu_alone():
        assert gpu_lock.LOCK_ENV not in os.environ
        assert not try_share()
    assert try_share()

"""Correct designs other than the reference (grader/tests/alternatives/<lab>/*.toml, in the
known-bad fixtures' format, grader/fixtures.py; README.md there): each must keep the points
its ``expect.keeps`` names: "a threshold grades the concept, not the tuning" (issue 13,
part 4).

On any machine: every alternative applies cleanly and names a real exercise and parts it
can keep. Static points need no GPU: the SASS of the build decides them, so the
alternatives that keep "static" are checked in ``make test`` (issue 14: the static rules
name the job, not one instruction). On a GPU (marked ``gpu``, skipped with the reason
without one): each alternative that keeps "correctness" or "performance" is graded, its
exercise only, and every part it keeps must be passed with all its points.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from grader import fixtures, manifest, tools
from helpers import REPO, assert_patch_well_formed, grade_cli, step_statuses

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

ALTERNATIVES = fixtures.find(REPO, alternatives=True)
# the parts only a GPU can check; static is checked from the SASS on any machine
GPU_PARTS = {"correctness", "sanitizer", "performance"}


def _keeps(path: Path) -> list[str]:
    return fixtures.load(path)["expect"]["keeps"]


def _ids(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


STATIC = [p for p in ALTERNATIVES if "static" in _keeps(p)]
ON_GPU = [p for p in ALTERNATIVES if {"correctness", "performance"} & set(_keeps(p))]


def _grade(
    path: Path, tmp_path: Path, capsys, *extra, timed: bool | None = None
) -> tuple[int, str, dict, dict]:
    """Grades the alternative's exercise: (exit status, text report, JSON report, the
    exercise's JSON); ``timed``: as helpers.grade_cli."""
    expect = fixtures.load(path)["expect"]
    sub = fixtures.apply(REPO, path, tmp_path / "sub")
    lab_dir = REPO / "labs" / path.parent.name
    args = ["grade", lab_dir, "--submission", sub, "--exercise", expect["exercise"], *extra]
    code, out, err = grade_cli(capsys, *args, "--json", tmp_path / "r.json", timed=timed)
    assert (tmp_path / "r.json").is_file(), f"no JSON report (exit {code})\n{out}{err}"
    report = json.loads((tmp_path / "r.json").read_text())
    (ex,) = report["exercises"]
    return code, out + err, report, ex


@pytest.mark.instructors
def test_there_are_alternatives():
    assert ALTERNATIVES, "no alternative in grader/tests/alternatives/"


@pytest.mark.parametrize("path", ALTERNATIVES, ids=_ids)
@pytest.mark.instructors
def test_alternative_applies_cleanly(path, tmp_path):
    assert_patch_well_formed(
        path, tmp_path, "keeps", {"spaces_contains", "spaces_lacks", "loses_on"},
        "an alternative must keep something",
    )
    expect = fixtures.load(path)["expect"]
    for gpu, parts in expect.get("loses_on", {}).items():
        # a GPU named, and parts kept on the course's GPU that its thresholds take
        assert gpu.strip() and parts and set(parts) <= set(expect["keeps"]), (gpu, parts)


@pytest.mark.parametrize("path", ALTERNATIVES, ids=_ids)
@pytest.mark.instructors
def test_every_kept_part_carries_points(path):
    """A part an alternative keeps must be worth points in lab.toml: a performance measured,
    not scored (scored = false, 0 points) can be neither kept nor lost."""
    expect = fixtures.load(path)["expect"]
    ex = manifest.load(REPO / "labs" / path.parent.name).exercise(expect["exercise"])
    for part in expect["keeps"]:
        assert ex.points[part] > 0, f"{expect['exercise']}: {part} has no points in lab.toml"


@pytest.mark.parametrize("path", STATIC, ids=_ids)
@pytest.mark.instructors
def test_alternative_keeps_its_static_points(path, tmp_path, capsys):
    for tool in ("nvcc", "cuobjdump"):
        if tools.find(tool) is None:
            pytest.skip(tools.not_found(tool))
    expect = fixtures.load(path)["expect"]
    # the GPU's parts stay pending here: only static is decided without one
    code, out, report, ex = _grade(path, tmp_path, capsys, "--no-sanitizer", "--no-perf")
    steps = step_statuses(report)
    assert (steps.get("build"), steps.get("symbols")) == ("passed", "passed"), (steps, out)
    static = ex["parts"]["static"]
    assert static["status"] == "passed", out
    # the report's spaces line of the exercise's kernel: the evidence a student sees
    if expect.get("spaces_contains") or expect.get("spaces_lacks"):
        kernel_line = next(
            line for line in out.splitlines() if f"{expect['exercise']}_kernel:" in line
        )
        for text in expect.get("spaces_contains", []):
            assert text in kernel_line, kernel_line
        for pattern in expect.get("spaces_lacks", []):  # regular expressions
            assert re.search(pattern, kernel_line) is None, kernel_line


@pytest.mark.gpu
@pytest.mark.parametrize("path", ON_GPU, ids=_ids)
@pytest.mark.instructors
def test_alternative_keeps_its_points_on_the_gpu(path, tmp_path, capsys):
    keeps = _keeps(path)
    expect = fixtures.load(path)["expect"]
    spec = manifest.load(REPO / "labs" / path.parent.name).exercise(expect["exercise"]).performance
    if spec is not None and not spec.calibrated:
        # performance points stay pending until lab.toml's thresholds are measured
        # (calibrated = false); the other parts are checked already
        keeps = [k for k in keeps if k != "performance"]
        if not keeps:
            pytest.skip(f"{expect['exercise']}: performance thresholds not calibrated yet")
    # the sanitizer runs only where it is kept (it is the slowest step); the performance
    # step always runs, so that the report shows the alternative's figure beside the ramp
    extra = [] if "sanitizer" in keeps else ["--no-sanitizer"]
    code, out, report, ex = _grade(path, tmp_path, capsys, *extra, timed=True)
    # the measured figure, shown by `pytest -rA` (the margins thresholds are set from)
    perf = ex["parts"].get("performance") or {}
    figure = f"{_ids(path)}: performance {perf.get('points')}/{perf.get('max')}: {perf.get('info')}"
    print(figure)
    if os.environ.get("CML_ALTERNATIVE_FIGURES"):  # one file each: survives a pass cut short
        keep = Path(os.environ["CML_ALTERNATIVE_FIGURES"])
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{path.parent.name}-{path.stem}.txt").write_text(figure + "\n")
    # the grade must come from the submission's code, on a device that ran it
    steps = step_statuses(report)
    assert (steps.get("build"), steps.get("device")) == ("passed", "passed"), (steps, out)
    # what this GPU's own thresholds take, as measured there (expect.loses_on, note 76)
    keeps = [k for k in keeps if k in fixtures.kept_on(expect, report.get("device"))]
    for part in keeps:
        p = ex["parts"][part]
        assert p["status"] == "passed" and p["points"] == p["max"] > 0, (part, p, out)
    assert code in (0, 1, 3), out  # 1 or 3: a part it does not keep lost or left pending


def test_an_alternative_keeps_less_on_a_gpu_that_takes_points():
    """``loses_on``: on a GPU whose name holds the key, the parts it names are not kept; on
    any other device (or none) every part of ``keeps`` is."""
    expect = {"keeps": ["correctness", "performance"], "loses_on": {"H100 80GB": ["performance"]}}
    assert fixtures.kept_on(expect, {"name": "NVIDIA H100 80GB HBM3"}) == ["correctness"]
    for device in ({"name": "NVIDIA H200"}, None):
        assert fixtures.kept_on(expect, device) == ["correctness", "performance"]

"""Correct designs other than the reference (grader/tests/alternatives/<lab>/*.toml, in the
known-bad fixtures' format, grader/fixtures.py): each must keep the points its ``keeps``
names. Static points need no GPU: the SASS of the build decides them, so these run in
``make test`` (issue 14: the static rules name the job, not one instruction)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from grader import fixtures, tools
from helpers import REPO, grade_cli

ALTERNATIVES = sorted((REPO / "grader" / "tests" / "alternatives").glob("*/*.toml"))


@pytest.mark.parametrize("path", ALTERNATIVES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_alternative_keeps_its_static_points(path, tmp_path, capsys):
    for tool in ("nvcc", "cuobjdump"):
        if tools.find(tool) is None:
            pytest.skip(tools.not_found(tool))
    alt = fixtures.load(path)
    expect = alt["expect"]
    assert expect["keeps"] == ["static"], "only static points are checked without a GPU"
    sub = fixtures.apply(REPO, path, tmp_path / "sub")
    lab_dir = REPO / "labs" / path.parent.name
    args = ["grade", lab_dir, "--submission", sub, "--exercise", expect["exercise"]]
    code, out, err = grade_cli(capsys, *args, "--json", tmp_path / "r.json")
    report = json.loads(Path(tmp_path / "r.json").read_text())
    (ex,) = report["exercises"]
    assert ex["parts"]["static"]["status"] == "passed", out
    # the report's spaces line of the exercise's kernel: the evidence a student sees
    kernel_line = next(
        line for line in out.splitlines() if f"{expect['exercise']}_kernel:" in line
    )
    for text in expect.get("spaces_contains", []):
        assert text in kernel_line, kernel_line
    for pattern in expect.get("spaces_lacks", []):  # regular expressions
        assert re.search(pattern, kernel_line) is None, kernel_line

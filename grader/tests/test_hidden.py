"""Instructor-only hidden cases (``labs/<lab>/hidden.toml``, docs/protocol.md "Manifest"):
merged after lab.toml's cases, validated with messages naming hidden.toml, left out of the
student release, kept in the Gradescope zip, and never shown by size or seed in a report."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from grader import dist, gradescope_zip, manifest
from grader.errors import GraderError
from helpers import FAKELAB, REPO, grade_cli, instructors_only_reason

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

HIDDEN = """\
# Instructor-only cases: graded like lab.toml's cases, never shipped to students.
[[exercise]]
name = "scale"
cases = [[37, 91], [5, 3]]
"""
# strings that would give the hidden sizes away (37×91 and 5×3; 3367 = 37 * 91 elements)
LEAKS = ("37×91", "37,91", "[37, 91]", "37, 91", "of the 37", "3367", "5×3", "5,3", "[5, 3]")


def course(tmp_path: Path, hidden: str | None = HIDDEN) -> Path:
    """A course tree with the fake lab (no solutions/), and ``hidden`` as its hidden.toml."""
    root = tmp_path / "course"
    (root / "common").mkdir(parents=True)
    shutil.copy(REPO / "Makefile", root / "Makefile")
    shutil.copy(REPO / "common" / "cml_json.h", root / "common" / "cml_json.h")
    shutil.copytree(FAKELAB / "labs", root / "labs")
    if hidden is not None:
        (root / "labs" / "9.1-fake" / "hidden.toml").write_text(hidden)
    return root


# -- manifest ------------------------------------------------------------------------


def test_merged_after_the_public_cases(tmp_path):
    lab = manifest.load(course(tmp_path) / "labs" / "9.1-fake")
    scale, offset = lab.exercises
    assert scale.cases == ((1, 1), (32, 32), (33, 65), (64, 64), (37, 91), (5, 3))
    assert scale.n_hidden == 2
    assert [scale.is_hidden(i) for i in range(6)] == [False] * 4 + [True] * 2
    assert offset.cases == ((1,), (100,), (1000,)) and offset.n_hidden == 0
    assert not offset.is_hidden(2)


def test_without_hidden_toml(tmp_path):
    lab = manifest.load(course(tmp_path, None) / "labs" / "9.1-fake")
    assert all(e.n_hidden == 0 for e in lab.exercises)
    assert len(lab.exercise("scale").cases) == 4


@pytest.mark.parametrize(
    "text, message",
    [
        ("[[exercise]]\nname = 'nope'\ncases = [[1, 2]]\n", "exercise 'nope': lab.toml has no"),
        ("[[exercise]]\nname = 'scale'\ncases = [[1, 2, 3]]\n", "cases[0] has 3 dimensions"),
        ("[[exercise]]\nname = 'offset'\ncases = [[5], [1, 2]]\n", "cases[1] has 2 dimensions"),
        ("[[exercise]]\nname = 'scale'\ncases = [[0, 2]]\n", "integers >= 1"),
        ("[[exercise]]\nname = 'scale'\ncases = [[-3, 2]]\n", "integers >= 1"),
        ("[[exercise]]\nname = 'scale'\ncases = [[1.5, 2]]\n", "integers >= 1"),
        ("[[exercise]]\nname = 'scale'\ncases = []\n", "cases must be a non-empty list"),
        ("[[exercise]]\nname = 'scale'\n", "cases must be a non-empty list"),
        ("[[exercise]]\nname = 'scale'\ncases = [[1, 2]]\nseeds = [1]\n", "unknown key 'seeds'"),
        ("title = 'x'\n", "unknown key 'title'"),
        ("[[exercise]]\ncases = [[1, 2]]\n", "exercise #1: name is missing"),
        (
            "[[exercise]]\nname = 'scale'\ncases = [[1, 2]]\n"
            "[[exercise]]\nname = 'scale'\ncases = [[3, 4]]\n",
            "exercise 'scale' is defined twice",
        ),
        ("[[exercise]\n", "not valid TOML"),
    ],
)
def test_invalid_hidden_toml(tmp_path, text, message):
    lab_dir = course(tmp_path, text) / "labs" / "9.1-fake"
    with pytest.raises(GraderError) as e:
        manifest.load(lab_dir)
    assert "hidden.toml: " in str(e.value)
    assert message in str(e.value)


def test_lab_33_hidden_cases_are_valid():
    if not (REPO / "labs" / "3.3-tiling" / "hidden.toml").is_file():
        pytest.skip(instructors_only_reason() or "no hidden.toml in lab 3.3")
    lab = manifest.load(REPO / "labs" / "3.3-tiling")
    assert all(e.n_hidden >= 1 for e in lab.exercises)


# -- student release and Gradescope zip ----------------------------------------------


def test_excluded_from_the_student_release(tmp_path):
    root = course(tmp_path)
    assert dist.excluded("labs/3.3-tiling/hidden.toml")
    assert not dist.excluded("labs/3.3-tiling/lab.toml")
    assert not dist.excluded("grader/tests/fakelab/labs/9.1-fake/hidden.toml.txt")
    names = dist.files(root)
    assert "labs/9.1-fake/lab.toml" in names
    assert not [n for n in names if n.endswith("hidden.toml")]


def test_real_release_has_no_hidden_toml():
    names = dist.files(REPO)
    assert not [n for n in names if n.endswith("hidden.toml")], names


def test_in_the_gradescope_zip(tmp_path):
    root = course(tmp_path)
    lab_name, entries = gradescope_zip.contents(root, "9.1")
    data, mode = entries["labs/9.1-fake/hidden.toml"]
    assert data == HIDDEN.encode() and mode == 0o644
    _, without = gradescope_zip.contents(course(tmp_path / "2", None), "9.1")
    assert "labs/9.1-fake/hidden.toml" not in without


# -- reports -------------------------------------------------------------------------


@pytest.fixture
def hidden_root(fake_root, tmp_path) -> Path:
    """A copy of the fake course with hidden cases for ``scale``."""
    root = tmp_path / "course"
    shutil.copytree(fake_root, root, ignore=shutil.ignore_patterns("build"))
    (root / "labs" / "9.1-fake" / "hidden.toml").write_text(HIDDEN)
    return root


def _grade(capsys, root, sub, tmp_path):
    json_path = tmp_path / "r.json"
    code, out, err = grade_cli(
        capsys,
        "grade",
        root / "labs" / "9.1-fake",
        "--submission",
        sub,
        "--seed",
        "7",
        "--json",
        json_path,
    )
    assert "Traceback" not in out + err
    text = json_path.read_text()
    return code, out, text, json.loads(text)


def _no_leaks(*texts):
    for text in texts:
        for leak in LEAKS:
            assert leak not in text, leak


def test_solution_with_hidden_cases(hidden_root, fake_gpu, capsys, tmp_path):
    code, out, text, rep = _grade(
        capsys, hidden_root, hidden_root / "solutions" / "9.1-fake", tmp_path
    )
    assert code == 0, out
    assert "score 17/17" in out
    assert out.count("hidden case") == 2
    rows = rep["exercises"][0]["parts"]["correctness"]["details"]
    assert len(rows) == 6
    assert rows[4] == {"hidden": True, "status": "ok"} == rows[5]
    assert rows[0]["size"] == [1, 1] and "seed" in rows[0]
    assert rep["exercises"][0]["parts"]["correctness"]["info"] == "6 of 6 sizes correct"
    _no_leaks(out, text)


def test_wrong_hidden_cases_are_not_described(hidden_root, fake_gpu, capsys, tmp_path):
    # wrong only at the hidden sizes: public cases pass, the hidden ones fail
    sol = (hidden_root / "solutions" / "9.1-fake" / "kernels.cu").read_text()
    old = "out[i] = 2.0f * in[i] + 1.0f;"
    assert sol.count(old) == 1
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "kernels.cu").write_text(
        sol.replace(old, "out[i] = (rows == 37 || rows == 5) ? 0.0f : 2.0f * in[i] + 1.0f;")
    )
    code, out, text, rep = _grade(capsys, hidden_root, sub, tmp_path)
    assert code == 1, out
    corr = rep["exercises"][0]["parts"]["correctness"]
    assert corr["points"] == pytest.approx(float(Fraction(6) * Fraction(4, 6)))  # 4 of 6
    assert [r.get("hidden", False) for r in corr["details"]] == [False] * 4 + [True] * 2
    for row in corr["details"][4:]:
        assert set(row) == {"hidden", "status", "message"}
        assert row["status"] == "wrong" and row["message"] == "wrong output"
    assert "scale: 2 hidden cases failed (wrong output)" in out
    assert "hidden case" in out and "WRONG" in out
    assert "reproduce:" not in out and "reproduce" not in text
    _no_leaks(out, text)

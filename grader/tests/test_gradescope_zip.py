"""The Gradescope autograder zip (grader/gradescope_zip.py, ``make gradescope LAB=..``):
setup.sh and run_autograder at its root, the course and the grader next to them, nothing
of solutions/, and run_autograder grades a submission into a results.json."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import zipfile

import pytest

from grader import dist, gradescope_zip, manifest, skeleton
from helpers import REPO, instructors_only_reason, need, real_labs

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

LABS = real_labs()


@pytest.fixture(scope="module", params=[p.name for p in LABS] or [None])
def built(request, tmp_path_factory):
    """(lab folder name, zip path, {name: ZipInfo}, {name: bytes})."""
    if request.param is None:
        pytest.skip(instructors_only_reason() or "no lab with solutions/ in this copy")
    out = tmp_path_factory.mktemp("gs") / "autograder.zip"
    said = io.StringIO()
    assert gradescope_zip.gradescope_zip(REPO, request.param, str(out), said) == 0
    with zipfile.ZipFile(out) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        data = {n: zf.read(n) for n in infos}
    # what it says it leaves out is what it leaves out (an instructor's trial: the records'
    # folders were left out unsaid); the hidden cases it keeps are named
    line = said.getvalue()
    every = dist.committed(REPO) or {}  # outside a checkout: nothing to compare
    left_out = [n for n in every if dist.excluded(n) and not dist.is_hidden_cases(n)]
    assert not [n for n in left_out if n in data]
    said_out = [d for d in dist.EXCLUDED + dist.EXCLUDED_RECORDS if d in line]
    for name in left_out:  # a records pattern (bench/<card>-<YYYY-MM-DD>*/) by its stem
        assert any(name.startswith(d.split("<")[0]) for d in said_out), name
    hidden = [n for n in data if dist.is_hidden_cases(n)]
    assert all(n in line for n in hidden) and ("hidden cases" in line) == bool(hidden), line
    return request.param, out, infos, data


def test_scripts_at_root(built):
    _, _, infos, data = built
    for name in gradescope_zip.SCRIPTS:
        assert name in infos, name
        assert stat.S_IMODE(infos[name].external_attr >> 16) == 0o755, name
        assert data[name].startswith(b"#!"), name


def test_course_files(built):
    lab, _, _, data = built
    for name in (f"labs/{lab}/lab.toml", f"labs/{lab}/harness.cu", "Makefile", "grader/cli.py"):
        assert name in data, name
    assert any(n.startswith("common/") for n in data)
    # the last commit's contents (a change not committed is not shipped), else the tree's
    name = "grader/gradescope_zip.py"
    if dist.is_checkout(REPO):
        want = subprocess.run(["git", "-C", str(REPO), "show", f"HEAD:{name}"],
                              capture_output=True, check=True).stdout
    else:
        want = (REPO / name).read_bytes()
    assert data[name] == want


def test_pristine_student_files(built):
    lab, _, _, data = built
    for r in skeleton.generate(REPO, [lab]):
        assert data[f"labs/{lab}/{r.skeleton.name}"] == r.expected.encode()


def test_nothing_of_the_solutions(built):
    _, _, _, data = built
    assert not [n for n in data if n.startswith(("solutions/", "grader/tests/known_bad/"))]
    solutions = {p: p.read_bytes() for p in (REPO / "solutions").rglob("*") if p.is_file()}
    assert solutions
    for name, blob in data.items():
        for path, sol in solutions.items():
            assert blob != sol, f"{name} is {path.relative_to(REPO)}"


def test_run_autograder_names_the_lab(built):
    lab, _, _, data = built
    text = data["run_autograder"].decode()
    assert f'LAB="labs/{lab}"' in text
    assert "python3 -m grader grade" in text and "--gradescope" in text
    assert "AUTOGRADER_ROOT:-/autograder" in text
    # someone else's code: sandboxed by default, with bubblewrap installed by setup.sh
    assert 'GRADER_SANDBOX="${GRADER_SANDBOX:-auto}"' in text
    assert "bubblewrap" in data["setup.sh"].decode()


def test_deterministic(built, tmp_path):
    lab, out, _, _ = built
    again, _ = gradescope_zip.build(REPO, lab, tmp_path / "again.zip")
    assert again.read_bytes() == out.read_bytes()


def test_find_submission(built, tmp_path):
    lab, _, _, _ = built
    names = manifest.load(REPO / "labs" / lab).student_files
    flat = tmp_path / "flat"
    nested = tmp_path / "nested" / "a" / "b"  # two folders, one with a README beside it
    for folder in (flat, nested):
        folder.mkdir(parents=True)
        for n in names:
            (folder / n).write_text("x")
    (tmp_path / "nested" / "README").write_text("x")
    empty = tmp_path / "empty"
    empty.mkdir()
    labdir = REPO / "labs" / lab
    assert gradescope_zip.find_submission(labdir, flat) == flat
    assert gradescope_zip.find_submission(labdir, tmp_path / "nested") == nested
    assert gradescope_zip.find_submission(labdir, empty) == empty


def _autograde(source, root, env_extra=None):
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), **(env_extra or {}))
    return subprocess.run(
        [str(source / "run_autograder")], env=env, capture_output=True, text=True, timeout=900
    )


# The labs graded end to end through the zip: the autograder's path is the same for every lab
# but for the written report (lab 3.5); each lab's zip contents are checked by the tests above.
END_TO_END = ("3.3-tiling", "3.5-project")


def test_end_to_end_skeleton(built, tmp_path):
    """The zip extracted as /autograder/source grades the skeleton, uploaded in a folder:
    score 0, every test listed (without a GPU the device parts are pending, not failed)."""
    need("nvcc")
    lab, out, infos, _ = built
    if lab not in END_TO_END:  # CI's time: the run is the same code for every lab
        pytest.skip(f"end to end on {' and '.join(END_TO_END)} only (one without a report, one with)")
    root = tmp_path / "autograder"
    source = root / "source"
    with zipfile.ZipFile(out) as zf:
        zf.extractall(source)
    for name, info in infos.items():  # extractall drops the modes; Gradescope keeps them
        os.chmod(source / name, stat.S_IMODE(info.external_attr >> 16))
    sub = root / "submission" / "my-work"
    sub.mkdir(parents=True)
    for n in manifest.load(source / "labs" / lab).student_files:
        (sub / n).write_bytes((source / "labs" / lab / n).read_bytes())
    r = _autograde(source, root)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads((root / "results" / "results.json").read_text())
    assert doc["score"] == 0, doc["output"]
    assert doc["tests"], doc["output"]
    # no automatic test passed; a test without a status is either pending (a check that
    # needs the GPU Gradescope's runner may lack) or a report's manual points (lab 3.5),
    # pending the instructor's review (docs/design-notes.md, 17)
    auto = [t for t in doc["tests"] if "status" in t]
    assert all(t["status"] == "failed" for t in auto)
    assert all(
        "manual review" in t["name"] or "pending" in t["tags"]
        for t in doc["tests"]
        if "status" not in t
    )


def test_failure_still_writes_results(built, tmp_path):
    """No course in source/: the grader cannot run, and results.json still says why."""
    lab, _, _, data = built
    root = tmp_path / "autograder"
    source = root / "source"
    source.mkdir(parents=True)
    (source / "run_autograder").write_bytes(data["run_autograder"])
    (source / "run_autograder").chmod(0o755)
    (root / "submission").mkdir()
    r = _autograde(source, root)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads((root / "results" / "results.json").read_text())
    assert doc["score"] == 0
    assert "failed" in doc["output"]

"""The judge's stand-ins for the student's launchers (grader/stubs.py), made from the
launchers the lab binary's own --list names."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from grader import manifest, stubs
from grader.errors import GraderError
from helpers import REPO


def _lister(tmp_path, listing) -> str:
    """A stand-in lister: a script that prints ``listing`` for --list."""
    path = tmp_path / "lister"
    path.write_text("#!/bin/sh\ncat <<'EOF'\n" + json.dumps(listing) + "\nEOF\n")
    path.chmod(0o755)
    return str(path)


LISTING = {
    "schema": 1,
    "lab": "3.4",
    "exercises": [
        {"name": "a", "dims": ["n"], "launchers": ["set_coefficients", "stencil"]},
        {"name": "b", "dims": ["n"], "launchers": ["lookup", "stencil"]},
    ],
}


def test_stubs_name_every_launcher_once_and_mark_the_judge():
    names = manifest.listing_launchers(LISTING)
    assert names == ("set_coefficients", "stencil", "lookup")
    text = stubs.stub_source(names)
    assert "const int cml_judge_build = 1;" in text
    for name in names:
        assert text.count(f'void {name}(void) {{ no_student_code("{name}"); }}') == 1


def test_student_files_from_the_manifest():
    assert stubs.student_files(REPO / "labs" / "3.5-project") == ["kernels.cu", "REPORT.md"]


def test_launchers_must_be_c_names():
    bad = {"exercises": [{"name": "a", "launchers": ["ok", "not a name"]}]}
    with pytest.raises(GraderError, match="launchers are not C names"):
        manifest.listing_launchers(bad)
    with pytest.raises(GraderError, match="gives no exercises"):
        manifest.listing_launchers({"exercises": []})


def test_command_line(tmp_path):
    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "grader.stubs", *map(str, args)],
            cwd=REPO, capture_output=True, text=True, timeout=60,
        )

    done = run("--student-files", REPO / "labs" / "3.3-tiling")
    assert done.returncode == 0 and done.stdout.strip() == "kernels.cu"
    done = run(_lister(tmp_path, LISTING))
    assert done.returncode == 0, done.stderr
    assert 'void lookup(void) { no_student_code("lookup"); }' in done.stdout
    done = run(tmp_path / "missing")  # no lister
    assert done.returncode == 2 and done.stderr.startswith("grader stubs:")
    assert run().returncode == 2


def test_the_real_judges_stubs_are_the_listers_launchers():
    """make builds each judge with stubs made from its lister's --list: every launcher the
    judge names has its stub (a launcher the exercise table left out would have failed the
    judge's link)."""
    checked = 0
    for stub_file in sorted(REPO.glob("build/*/judge_stubs.c")):
        judge = stub_file.parent / "judge"
        if not judge.is_file():
            continue
        listing = json.loads(subprocess.run([judge, "--list"], capture_output=True, text=True,
                                            check=True, timeout=60).stdout)
        assert stub_file.read_text() == stubs.stub_source(manifest.listing_launchers(listing))
        checked += 1
    if not checked:
        pytest.skip("no judge built (make judges)")

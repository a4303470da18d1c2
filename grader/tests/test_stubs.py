"""The judge's stand-ins for the student's launchers (grader/stubs.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from grader import stubs
from grader.errors import GraderError
from helpers import REPO


def test_stubs_name_every_launcher_and_mark_the_judge():
    lab = REPO / "labs" / "3.4-constant-texture"
    text = stubs.stub_source(lab)
    assert "const int cml_judge_build = 1;" in text
    for name in stubs.launchers(lab):
        assert f'void {name}(void) {{ no_student_code("{name}"); }}' in text


def test_student_files_from_the_manifest():
    assert stubs.student_files(REPO / "labs" / "3.5-project") == ["kernels.cu", "REPORT.md"]


def test_launchers_must_be_c_names(tmp_path):
    (tmp_path / "lab.toml").write_text('launchers = ["ok", "not a name"]\n')
    with pytest.raises(GraderError, match="launchers must be a list of C names"):
        stubs.launchers(tmp_path)


def test_command_line(tmp_path):
    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "grader.stubs", *map(str, args)],
            cwd=REPO, capture_output=True, text=True, timeout=60,
        )

    done = run("--student-files", REPO / "labs" / "3.3-tiling")
    assert done.returncode == 0 and done.stdout.strip() == "kernels.cu"
    done = run(tmp_path)  # no lab.toml
    assert done.returncode == 2 and done.stderr.startswith("grader stubs:")
    assert run().returncode == 2

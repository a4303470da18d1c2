"""grader.lint: source warnings from lab.toml's [[exercise.lint]] — mistakes that compile,
pass the static checks and fail only on a GPU, reported before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader import fixtures, lint, manifest
from grader.errors import GraderError
from helpers import REPO, grade_cli, need

LAB = REPO / "labs" / "3.4-constant-texture"
FIXTURE = REPO / "grader/tests/known_bad/3.4-constant-texture/memcpy_to_symbol_address.toml"


def test_comments_are_blanked_and_lines_kept():
    src = (
        "int a = 1; // cudaMemcpyToSymbol(&x)\n"
        "/* cudaMemcpyToSymbol(&y,\n"
        "   more */ cudaMemcpyToSymbol(&z, h, 4);\n"
        'printf("// kept, a string"); char q = \'"\';\n'
    )
    lines = lint.strip_comments(src)
    assert len(lines) == 5
    assert "&x" not in lines[0] and "&y" not in lines[1]
    assert lines[2].strip() == "cudaMemcpyToSymbol(&z, h, 4);"
    assert '"// kept, a string"' in lines[3] and "q = '\"'" in lines[3]


def test_the_address_of_the_symbol_is_found_in_the_known_bad_submission(tmp_path):
    lab = manifest.load(LAB)
    sub = fixtures.apply(REPO, FIXTURE, tmp_path / "sub")
    found = lint.warnings(lab, sub)
    assert list(found) == ["stencil_constant"]
    (line,) = found["stencil_constant"]
    assert line.startswith("kernels.cu:") and "not its address" in line
    # the reference solution has nothing to warn about
    assert lint.warnings(lab, REPO / "solutions" / LAB.name) == {}


def test_a_bad_lint_pattern_is_a_manifest_error(tmp_path):
    lab = tmp_path / "labs" / LAB.name
    lab.mkdir(parents=True)
    for f in LAB.iterdir():
        if f.is_file():
            (lab / f.name).write_bytes(f.read_bytes())
    toml = lab / "lab.toml"
    text = toml.read_text()
    old = "pattern = 'cudaMemcpyToSymbol\\s*\\(\\s*&'"
    assert old in text
    toml.write_text(text.replace(old, "pattern = 'cudaMemcpyToSymbol('"))
    with pytest.raises(GraderError, match=r"lint\[0\]\.pattern: .* is not a valid regular"):
        manifest.load(lab)


def test_the_report_shows_the_warning_without_a_gpu(tmp_path, capsys):
    need("nvcc")
    sub = fixtures.apply(REPO, FIXTURE, tmp_path / "sub")
    args = ["grade", LAB, "--submission", sub, "--exercise", "stencil_constant", "--no-perf"]
    code, out, err = grade_cli(capsys, *args)
    assert "Traceback" not in out + err
    assert "=> warning: kernels.cu:" in out and "not its address" in out

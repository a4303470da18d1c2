"""The skeleton generator: stripping, indentation, marker errors, and the repo's drift."""

from __future__ import annotations

import pytest

from grader import manifest, skeleton
from grader.errors import GraderError
from grader.skeleton import MarkerError
from helpers import REPO, grade_cli, real_labs

SOLUTION = """\
__global__ void k(float *x) {
    /* TODO(1.1a): double x. */
    // BEGIN SOLUTION
    x[threadIdx.x] *= 2.0f;
    // END SOLUTION
}

void launch(float *x) {
\t// BEGIN SOLUTION
\tk<<<1, 32>>>(x);
\t//   END SOLUTION
    return;
}
"""

SKELETON = """\
__global__ void k(float *x) {
    /* TODO(1.1a): double x. */
}

void launch(float *x) {
    return;
}
"""


def test_strip_removes_blocks_and_keeps_indentation():
    assert skeleton.strip(SOLUTION) == SKELETON


def test_strip_keeps_crlf_and_missing_final_newline():
    text = "a\r\n  // BEGIN SOLUTION\r\n  b\r\n  // END SOLUTION\r\n    c"
    assert skeleton.strip(text) == "a\r\n    c"


def test_strip_without_markers_is_identity():
    assert skeleton.strip("int x;\n  int y;\n") == "int x;\n  int y;\n"


def test_trailing_whitespace_after_marker_is_tolerated():
    assert skeleton.strip("a\n// BEGIN SOLUTION  \nb\n// END SOLUTION\t\nc\n") == "a\nc\n"


@pytest.mark.parametrize(
    "text,where,message",
    [
        ("a\n// BEGIN SOLUTION\nb\n  // BEGIN SOLUTION\n// END SOLUTION\n", ":4:", "nested BEGIN"),
        ("a\n// END SOLUTION\n", ":2:", "END SOLUTION without BEGIN"),
        ("a\n\n   // BEGIN SOLUTION\nb\n", ":3:", "BEGIN SOLUTION is never closed"),
        ("a\n// BEGIN SOLUTION here\n// END SOLUTION\n", ":2:", "must be alone on its line"),
        ("x = 1; // END SOLUTION\n", ":1:", "must be alone on its line"),
        ("/* BEGIN SOLUTION */\n", ":1:", "must be alone on its line"),
    ],
    ids=["nested", "end-without-begin", "unclosed", "trailing-text", "code-before", "c-comment"],
)
def test_marker_errors_name_file_and_line(text, where, message):
    with pytest.raises(MarkerError) as e:
        skeleton.strip(text, "solutions/x/kernels.cu")
    assert str(e.value).startswith("solutions/x/kernels.cu" + where)
    assert message in str(e.value)


# A solution whose skeleton keeps starting code the solution must not compile.
SOLUTION_WITH_STARTER = """\
/* TODO(1.1b): make it fast. */
#if 0 // BEGIN SKELETON
__global__ void slow(float *x) { x[threadIdx.x] *= 2.0f; }
#endif // END SKELETON
// BEGIN SOLUTION
__global__ void quick(float *x) { x[threadIdx.x] += x[threadIdx.x]; }
// END SOLUTION
  #  if   0   //   BEGIN SKELETON
  int starter;
  #  endif  //  END SKELETON\t
"""

SKELETON_WITH_STARTER = """\
/* TODO(1.1b): make it fast. */
__global__ void slow(float *x) { x[threadIdx.x] *= 2.0f; }
  int starter;
"""


def test_strip_keeps_skeleton_blocks_without_their_markers():
    assert skeleton.strip(SOLUTION_WITH_STARTER) == SKELETON_WITH_STARTER


def test_skeleton_block_keeps_crlf():
    text = "a\r\n#if 0 // BEGIN SKELETON\r\n  b\r\n#endif // END SKELETON\r\nc"
    assert skeleton.strip(text) == "a\r\n  b\r\nc"


@pytest.mark.parametrize(
    "text,where,message",
    [
        (
            "#if 0 // BEGIN SKELETON\n#if 0 // BEGIN SKELETON\n",
            ":2:",
            "nested BEGIN SKELETON (the block opened at line 1",
        ),
        (
            "// BEGIN SOLUTION\n#if 0 // BEGIN SKELETON\n",
            ":2:",
            "BEGIN SKELETON inside the SOLUTION block opened at line 1",
        ),
        (
            "#if 0 // BEGIN SKELETON\n// BEGIN SOLUTION\n",
            ":2:",
            "BEGIN SOLUTION inside the SKELETON block opened at line 1",
        ),
        (
            "#if 0 // BEGIN SKELETON\n// END SOLUTION\n",
            ":2:",
            "END SOLUTION inside the SKELETON block opened at line 1",
        ),
        (
            "// BEGIN SOLUTION\n#endif // END SKELETON\n",
            ":2:",
            "END SKELETON inside the SOLUTION block opened at line 1",
        ),
        ("a\n#endif // END SKELETON\n", ":2:", "END SKELETON without BEGIN SKELETON"),
        ("a\n#if 0 // BEGIN SKELETON\nb\n", ":2:", "BEGIN SKELETON is never closed"),
        # Without its #if 0 the starting code would be compiled into the solution.
        ("// BEGIN SKELETON\n", ":1:", "as '#if 0 // BEGIN SKELETON'"),
        ("#if 1 // BEGIN SKELETON\n", ":1:", "must be alone on its line"),
        ("#if 0 // BEGIN SKELETON naive\n", ":1:", "must be alone on its line"),
        ("#if 0 // BEGIN SKELETON\n// END SKELETON\n", ":2:", "as '#endif // END SKELETON'"),
    ],
    ids=[
        "nested",
        "skeleton-in-solution",
        "solution-in-skeleton",
        "end-solution-in-skeleton",
        "end-skeleton-in-solution",
        "end-without-begin",
        "unclosed",
        "comment-only-begin",
        "if-1",
        "trailing-text",
        "comment-only-end",
    ],
)
def test_skeleton_marker_errors_name_file_and_line(text, where, message):
    with pytest.raises(MarkerError) as e:
        skeleton.strip(text, "solutions/x/kernels.cu")
    assert str(e.value).startswith("solutions/x/kernels.cu" + where)
    assert message in str(e.value)


def _course(tmp_path, solution_text, skeleton_text):
    (tmp_path / "Makefile").write_text("")
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "cml_json.h").write_text("#define CML_SCHEMA_VERSION 1\n")
    lab = tmp_path / "labs" / "1.1-x"
    lab.mkdir(parents=True)
    (lab / "lab.toml").write_text(
        'id = "1.1"\nslug = "x"\ntitle = "X"\nstudent_files = ["kernels.cu"]\n'
        '[[exercise]]\nname = "k"\ncases = [[1]]\npoints = { correctness = 1 }\n'
    )
    (lab / "kernels.cu").write_text(skeleton_text)
    sol = tmp_path / "solutions" / "1.1-x"
    sol.mkdir(parents=True)
    (sol / "kernels.cu").write_text(solution_text)
    return tmp_path


def test_check_and_write(tmp_path, capsys):
    root = _course(tmp_path, SOLUTION, SKELETON)
    code, out, _ = grade_cli(capsys, "skeleton", "--check", "--root", root)
    assert code == 0, out
    assert "1 files match" in out

    (root / "labs" / "1.1-x" / "kernels.cu").write_text(SKELETON.replace("return;", "return 0;"))
    code, out, _ = grade_cli(capsys, "skeleton", "--check", "--root", root)
    assert code == 1
    assert "labs/1.1-x/kernels.cu: differs from its generated skeleton" in out
    assert "-    return 0;" in out and "+    return;" in out  # a unified diff excerpt

    assert "Students: this is expected" in out  # never advice that would erase their work

    code, out, _ = grade_cli(capsys, "skeleton", "--write", "--root", root)
    assert code == 0 and "wrote" in out
    assert (root / "labs" / "1.1-x" / "kernels.cu").read_text() == SKELETON
    kept = root / "labs" / "1.1-x" / "kernels.cu.orig"  # what was replaced is kept
    assert kept.read_text() == SKELETON.replace("return;", "return 0;")
    code, _, _ = grade_cli(capsys, "skeleton", "--check", "--root", root, "--lab", "1.1")
    assert code == 0


def test_check_reports_marker_errors(tmp_path, capsys):
    root = _course(tmp_path, SOLUTION + "// BEGIN SOLUTION\n", SKELETON)
    code, out, _ = grade_cli(capsys, "skeleton", "--check", "--root", root)
    assert code == 1
    assert "solutions/1.1-x/kernels.cu:14: BEGIN SOLUTION is never closed" in out
    code, out, _ = grade_cli(capsys, "skeleton", "--write", "--root", root)
    assert code == 1
    assert (root / "labs" / "1.1-x" / "kernels.cu").read_text() == SKELETON  # untouched


def test_missing_solution_is_reported(tmp_path, capsys):
    root = _course(tmp_path, SOLUTION, SKELETON)
    (root / "solutions" / "1.1-x" / "kernels.cu").unlink()
    code, out, _ = grade_cli(capsys, "skeleton", "--check", "--root", root)
    assert code == 1 and "missing (no solution to generate from)" in out


def test_write_creates_a_missing_student_file(tmp_path, capsys):
    """A new lab's student file is generated, not copied by hand (docs/adding-a-lab.md);
    grading a lab without it names the file and the fix."""
    root = _course(tmp_path, SOLUTION, SKELETON)
    student = root / "labs" / "1.1-x" / "kernels.cu"
    student.unlink()
    code, out, _ = grade_cli(capsys, "skeleton", "--check", "--root", root)
    assert code == 1 and "kernels.cu" in out
    code, out, _ = grade_cli(capsys, "skeleton", "--write", "--root", root)
    assert code == 0 and "labs/1.1-x/kernels.cu" in out and "wrote" in out
    assert student.read_text() == SKELETON
    assert not student.with_name("kernels.cu.orig").exists()  # nothing was there to keep
    student.unlink()
    with pytest.raises(GraderError, match="skeleton --write"):
        manifest.load(root / "labs" / "1.1-x")


def test_unknown_lab_is_a_usage_error(tmp_path, capsys):
    root = _course(tmp_path, SOLUTION, SKELETON)
    code, _, err = grade_cli(capsys, "skeleton", "--check", "--root", root, "--lab", "7.7")
    assert code == 2 and "no lab '7.7'" in err


def test_repository_skeletons_match_their_solutions(capsys):
    if not real_labs():
        pytest.skip("solutions/ has no lab yet (nothing to compare)")
    code, out, _ = grade_cli(capsys, "skeleton", "--check", "--root", REPO)
    assert code == 0, out


def test_every_real_solution_has_markers():
    labs = real_labs()
    if not labs:
        pytest.skip("solutions/ has no lab yet")
    for results in (skeleton.generate(REPO, [lab.name]) for lab in labs):
        for r in results:
            assert r.error is None, r.error
            if r.template:  # a written report: copied from its template, no markers
                continue
            assert r.expected != skeleton._read(r.solution), f"{r.solution} has no solution block"


def test_fake_lab_skeleton_matches_its_solution(fake_root, capsys):
    code, out, _ = grade_cli(capsys, "skeleton", "--check", "--root", fake_root)
    assert code == 0, out

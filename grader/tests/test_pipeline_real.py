"""The real labs through ``python3 -m grader grade``: on a machine without a GPU the
solution's static checks pass and the skeleton's fail (both exit 3, naming what did not
run); a compile error and a missing student file are graded results (exit 1)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys

import pytest

from grader import harness, manifest
from helpers import (
    REPO,
    grade_cli,
    instructors_only_reason,
    no_device_reason,
    real_labs,
    step_statuses,
    submission,
)

LABS = real_labs()
pytestmark = [
    pytest.mark.skipif(
        not LABS, reason=instructors_only_reason() or "no lab with a solution in the repository yet"
    ),
    pytest.mark.slow,  # builds and grades the real labs: `make test-fast` leaves it out
]


def _cpu_only():
    if no_device_reason() is None:
        pytest.skip("this machine has a CUDA device: the GPU tests cover it")


@pytest.mark.parametrize("lab_dir", LABS, ids=lambda p: p.name)
def test_solution_without_gpu(lab_dir, capsys, tmp_path):
    _cpu_only()
    sol = REPO / "solutions" / lab_dir.name
    code, out, err = grade_cli(
        capsys, "grade", lab_dir, "--submission", sol, "--json", tmp_path / "r.json"
    )
    assert code == 3, out + err
    rep = json.loads((tmp_path / "r.json").read_text())
    lab = manifest.load(lab_dir)
    for ex, exr in zip(lab.exercises, rep["exercises"]):
        if ex.static is not None:
            assert exr["parts"]["static"]["status"] == "passed", exr["parts"]["static"]
        # a pending performance part says how it will be scored: the bar, without a GPU
        ramps = [c for c in ex.performance.criteria if c.full is not None] if ex.performance else []
        said = [m for m in exr["parts"]["performance"]["messages"] if "graded when timed" in m]
        assert len(said) == (1 if ramps else 0), exr["parts"]["performance"]
        for crit in ramps:
            assert f"full points at ≥ {crit.full:g}, none at ≤ {crit.zero:g}" in said[0]
    assert "NOT RUN: correctness, sanitizer, performance — no CUDA device" in out
    steps = step_statuses(rep)
    assert [steps[n] for n in ("assemble", "build", "symbols")] == ["passed"] * 3


@pytest.mark.parametrize("lab_dir", LABS, ids=lambda p: p.name)
def test_skeleton_without_gpu(lab_dir, capsys):
    _cpu_only()
    code, out, err = grade_cli(capsys, "grade", lab_dir)
    lab = manifest.load(lab_dir)
    # 3: checks not run; 1 where points are certainly lost already: the skeleton's static
    # rules fail (issue 14: a certain loss with or without a GPU), or its report is the
    # template (lab 3.5: docs/design-notes.md, 17)
    static = any(ex.points["static"] > 0 for ex in lab.exercises)
    assert code == (1 if static or (lab.report and lab.report.filled) else 3), out + err
    assert "this is not a final grade" in out  # whichever the exit status
    if static:
        assert "static       FAILED" in out
        assert "points lost for certain" in out
    assert "NOT RUN: correctness" in out


@pytest.mark.parametrize("lab_dir", LABS, ids=lambda p: p.name)
def test_compile_error_is_readable(lab_dir, capsys, tmp_path):
    lab = manifest.load(lab_dir)
    name = lab.student_files[0]
    text = (REPO / "solutions" / lab_dir.name / name).read_text()
    sub = submission(tmp_path / "sub", text + "\nthis is not C++;\n", name)
    code, out, err = grade_cli(capsys, "grade", lab_dir, "--submission", sub)
    assert code == 1, out + err
    assert "build        FAILED" in out
    assert f"{name}(" in out and "error" in out
    assert "Traceback" not in out + err
    assert str(tmp_path / "sub") not in out.split("\n", 2)[2]  # paths are relative


@pytest.mark.parametrize("lab_dir", LABS, ids=lambda p: p.name)
def test_missing_student_file(lab_dir, capsys, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = grade_cli(capsys, "grade", lab_dir, "--submission", empty)
    assert code == 1
    lab = manifest.load(lab_dir)
    assert f"missing {lab.student_files[0]} in submission" in out
    assert "Traceback" not in out + err


def test_python_m_grader_runs_as_a_module(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            str(LABS[0]),
            "--submission",
            str(tmp_path / "nope"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "grader: error: submission folder" in out.stderr


def test_make_grade_without_a_gpu_is_not_a_completed_grading(tmp_path):
    """make grade exits 0 only for a completed grading: lab 3.5's starting code without a
    GPU loses points for certain (its report's format) while the rest is pending, which
    the grader says with exit 1 and "final": false; make passes that on as exit 3 (make: 2)."""
    _cpu_only()
    lab = next((p for p in LABS if p.name.startswith("3.5")), None)
    if lab is None:
        pytest.skip("no lab 3.5")
    # a BUILD of its own (make grade writes last-grade.json there), its common/ the one `make
    # all` built, times kept: make finds libcml.a up to date and does not build it again
    # (3 CPU-s; make rebuilds it where a source is newer); the grader uses the course's own
    if (REPO / "build" / "common").is_dir():
        shutil.copytree(REPO / "build" / "common", tmp_path / "build" / "common")
    out = subprocess.run(
        ["make", "-s", "-C", str(REPO), "grade", "LAB=3.5", f"BUILD={tmp_path / 'build'}"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2, out.stdout[-2000:] + out.stderr[-2000:]
    assert "make grade: exit 3" in out.stdout
    assert "lost for certain" in out.stdout
    # make's own line says the certain loss too, not only the checks not run
    (line,) = [x for x in out.stdout.splitlines() if x.startswith("make grade: exit 3")]
    assert line.endswith("some points are already lost for certain (see the report above)")


def test_judged_cases_without_a_device_answer_no_device_for_each_case():
    """The judge of a lab finds no device and writes one document for a run of several cases
    (one exercise's, or the lab's): each case's result is no_device, as its own run's would be
    (the grading then says the checks did not run), not a grader error."""
    _cpu_only()
    lab = REPO / "build" / "3.3-tiling"
    judge, binary = lab / "judge", lab / "solution" / "lab"
    if not (judge.is_file() and binary.is_file()):
        pytest.skip("build/3.3-tiling is not built (make all)")
    version = harness.schema_version(REPO)
    runs = harness.run_judged_cases(
        judge, binary, "matmul_tiled", [((7, 7, 7), 1), ((9, 9, 9), 2)], 30, version
    )
    assert [run.doc["status"] for run in runs] == ["no_device", "no_device"]
    by_ex = harness.run_judged_lab_cases(
        judge, binary, [("matmul_tiled", (7, 7, 7), 1), ("transpose_tiled", (9, 9), 2)], 30,
        version,
    )
    assert {ex: [run.doc["status"] for run in runs] for ex, runs in by_ex.items()} == {
        "matmul_tiled": ["no_device"], "transpose_tiled": ["no_device"]}
    # a batch's timed run over the lab (--case ... --time --gate): the same
    timed = harness.run_judged_timed_cases(
        judge, binary, [("matmul_tiled", (64, 64, 64), 1), ("transpose_tiled", (64, 64), 2)],
        20, 30, version, gate=contextlib.nullcontext, info_baselines={"transpose_tiled"},
    )
    assert {ex: t.run.doc["status"] for ex, t in timed.items()} == {
        "matmul_tiled": "no_device", "transpose_tiled": "no_device"}


def test_the_judge_refuses_an_info_baseline_of_no_exercise_of_its_run():
    """--info-baseline names an exercise the run times; any other name is a usage error (the
    grader's slip would time that baseline in full, unseen), before any device is looked for
    (a name the run times passes: test_judged_cases_without_a_device_...)."""
    judge = REPO / "build" / "3.3-tiling" / "judge"
    if not judge.is_file():
        pytest.skip("build/3.3-tiling is not built (make all)")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with ours, theirs:
        out = subprocess.run(
            [str(judge), "--exercise", "matmul_tiled", "--size", "64,64,64", "--time",
             "--peer", str(ours.fileno()), "--info-baseline", "sgemm"],
            capture_output=True, text=True, pass_fds=(ours.fileno(),), timeout=60,
        )
    assert out.returncode == 2, out.stderr
    doc = json.loads(out.stdout.splitlines()[-1])
    assert doc["error"] == {**doc["error"], "kind": "usage",
                            "message": "--info-baseline sgemm: no exercise of this run"}


@pytest.mark.parametrize(("given", "expected"), [([], None), (["CUDA_ARCH=sm_80"], "sm_80")])
def test_make_grade_passes_a_given_architecture_to_the_grader(given, expected):
    """``make CUDA_ARCH=sm_80 grade`` (README) grades for sm_80: the grader is given --arch,
    so its report, its judge and the student's object agree (a student's trial found the
    report saying sm_90 over an sm_80 object); without CUDA_ARCH the grader's default."""
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_ARCH", "MAKEFLAGS")}
    out = subprocess.run(
        ["make", "-n", "-C", str(REPO), "grade", "LAB=3.3", *given],
        capture_output=True,
        text=True,
        env=env,
    )
    (line,) = [x for x in out.stdout.splitlines() if "-m grader grade" in x]
    assert ("--arch" in line.split()) == (expected is not None), line
    if expected:
        assert f"--arch {expected}" in line


def test_make_lab_builds_one_labs_student_binary_and_objects(tmp_path):
    """``make lab LAB=3.4`` (README, handouts: the build before cuobjdump) builds that lab's
    student binary and objects alone, not every lab (``make``) as the handouts said; without
    LAB, or with no such lab, it says how to call it and exits 2, as ``make grade`` does."""
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_ARCH", "MAKEFLAGS")}
    build = tmp_path / "build"
    out = subprocess.run(
        ["make", "-n", "-C", str(REPO), "lab", "LAB=3.4", f"BUILD={build}"],
        capture_output=True, text=True, env=env,
    )
    assert out.returncode == 0, out.stderr
    objects = re.findall(r"-o (\S+\.o)\b", out.stdout)
    student = build / "3.4-constant-texture" / "student"
    assert str(student / "kernels.cu.o") in objects, out.stdout
    assert all(o.startswith((str(student), str(build / "common"))) for o in objects), objects
    for args, said in ((["lab"], "usage: make lab LAB=<id>"), (["lab", "LAB=9.9"], "no lab '9.9'")):
        out = subprocess.run(["make", "-C", str(REPO), *args, f"BUILD={build}"],
                             capture_output=True, text=True, env=env)
        assert out.returncode == 2 and said in out.stdout, out.stdout + out.stderr


BOGUS_FATBIN = (
    'asm(".section .nv_fatbin,\\"a\\"\\n.align 8\\n.long 0xba55ed50\\n.short 1\\n.short 16\\n'
    '.quad 0x1000000\\n.long 0xdeadbeef\\n.previous\\n");\n'
)


def test_an_object_cuobjdump_cannot_read_loses_its_static_points(capsys, tmp_path):
    """A source that writes a bogus fatbin header into its object (a red-team review) made
    cuobjdump fail, and static stayed pending as if the tool were missing: never a final
    grade, and a known-bad kernel's static loss hidden. It is lost now, with the reason."""
    lab_dir = next((p for p in LABS if p.name.startswith("3.3")), None)
    if lab_dir is None:
        pytest.skip("no lab 3.3")
    text = (REPO / "solutions" / lab_dir.name / "kernels.cu").read_text()
    sub = submission(tmp_path / "sub", text + BOGUS_FATBIN)
    args = ["grade", lab_dir, "--submission", sub, "--exercise", "matmul_tiled",
            "--no-sanitizer", "--no-perf", "--json", tmp_path / "r.json"]
    code, out, err = grade_cli(capsys, *args)
    rep = json.loads((tmp_path / "r.json").read_text())
    assert step_statuses(rep).get("build") == "passed", out
    static = rep["exercises"][0]["parts"]["static"]
    assert static["status"] == "failed" and static["points"] == 0, (static, out)
    assert "the object compiled from your files could not be read" in out

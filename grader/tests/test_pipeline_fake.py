"""The whole grading pipeline on the fake lab (fakelab/README.md): every step, with and
without a (fake) device, known-bad submissions, exit codes and the JSON report."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path

import pytest

from grader import grade as grading
from grader import cli, diagnose, report, tools
from grader.results import Part
from grader.status import Status
from helpers import grade_cli, submission

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

SOLUTION_NAME = "solutions/9.1-fake/kernels.cu"


def solution_text(fake_root) -> str:
    return (fake_root / SOLUTION_NAME).read_text()


def variant(fake_root, tmp_path, old: str, new: str):
    text = solution_text(fake_root)
    assert text.count(old) == 1, old
    return submission(tmp_path / "sub", text.replace(old, new))


def course_with(fake_root, tmp_path, old: str, new: str) -> Path:
    """A copy of the fake course whose lab.toml has ``old`` (found exactly once) replaced by
    ``new``; returns the copy's root."""
    root = tmp_path / "course"
    shutil.copytree(fake_root, root)
    toml = root / "labs" / "9.1-fake" / "lab.toml"
    text = toml.read_text()
    assert text.count(old) == 1, old
    toml.write_text(text.replace(old, new))
    return root


def grade(capsys, fake_root, sub, *extra, json_path=None):
    args = ["grade", fake_root / "labs" / "9.1-fake", "--submission", sub, *extra]
    if json_path:
        args += ["--json", json_path]
    code, out, err = grade_cli(capsys, *args)
    assert "Traceback" not in out + err
    report = json.loads(json_path.read_text()) if json_path else None
    return code, out, err, report


def test_solution_full_marks_with_a_device(fake_root, fake_gpu, capsys, tmp_path):
    code, out, _, rep = grade(
        capsys, fake_root, fake_root / "solutions" / "9.1-fake", json_path=tmp_path / "r.json"
    )
    assert code == 0, out
    assert "score 17/17: every check ran, full marks" in out
    assert "ratio 2.5 (scale_naive 1 ms / yours 0.4 ms median" in out
    assert rep["exit_code"] == 0 and rep["total"] == 17 and rep["max"] == 17
    assert rep["device"]["name"] == "Fake GPU"
    scale = rep["exercises"][0]
    assert scale["parts"]["correctness"]["details"][2]["size"] == [33, 65]
    assert isinstance(scale["parts"]["correctness"]["details"][2]["seed"], int)
    assert scale["parts"]["performance"]["details"][0]["value"] == 2.5
    assert {p["status"] for p in scale["parts"].values()} == {"passed"}
    assert rep["exercises"][1]["parts"]["static"]["status"] == "skipped"
    assert rep["not_run"] == []
    # the roofline table: the timed exercise against the copy of its run (its default roof),
    # with its ratio over the baseline
    assert "roofline: each timed exercise against its own roof" in out
    assert "  copy: achieved bandwidth against a device-to-device copy of the same bytes" in out
    assert [
        line.split() for line in out.splitlines() if line.startswith("  scale ")
    ] == [["scale", "copy", "250", "GB/s", "200", "GB/s", "125.0", "2.5"]]
    assert scale["parts"]["performance"]["details"][0]["copy_gbps"] == 200
    assert scale["parts"]["performance"]["details"][0]["roof"] == "copy"
    # where the timed run's wall time went: the judge's phases, the grader's clock
    row = scale["parts"]["performance"]["details"][0]
    assert {"setup", "input_sets", "baseline_alone", "hello", "verify", "timing"} <= set(
        row["phases_ms"]
    ), row
    assert "gate" not in row["phases_ms"]  # a single grade: no gate
    # and the judge's CPU in them, as its document gave it (design note 55)
    assert row["phases_cpu_ms"] == {"setup": 1, "input_sets": 0, "hello": 0, "verify": 1,
                                    "timing": 4}
    assert row["batch"] == [1, 1]  # launches per sample: the student's, the baseline's
    assert sum(row["phases_ms"].values()) / 1000 <= row["wall_s"]
    # every phase is timed (an instructor's batch says where its hours went)
    assert set(rep["timings_s"]) == {
            "build", "gpu_wait", "untimed", "correctness", "sanitizer", "timed"
        }
    assert all(v >= 0 for v in rep["timings_s"].values()) and rep["timings_s"]["build"] > 0


def test_solution_without_a_device_is_3_with_static_passed(fake_root, capsys):
    code, out, _, _ = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake")
    assert code == 3, out
    assert "  static       passed" in out
    assert (
        "NOT RUN: correctness, sanitizer, performance — no CUDA device (the judge reported "
        "no_device)" in out
    )
    # what to do next
    assert "this is not a final grade; grade it again on a machine with a CUDA GPU\n" in out


def test_a_gpu_older_than_the_build_leaves_the_grade_pending(
    fake_root, fake_gpu, capsys, monkeypatch
):
    """A GPU of a lower compute capability than the build's architecture (a Slurm task given
    an A100 for an sm_90 build) runs none of the submission's kernels: its runtime parts wait
    for a GPU that can (exit 3, nothing lost), with the fix named, not a student's failure."""
    monkeypatch.setenv("FAKE_CC", "8.0")
    code, out, _, _ = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake")
    assert code == 3, out
    assert "  static       passed" in out
    assert "cannot run code built for sm_90" in out and "--arch sm_80" in out, out
    assert "NOT RUN: correctness, sanitizer, performance" in out
    monkeypatch.setenv("FAKE_CC", "9.0")  # the same capability: graded in full
    code, out, _, _ = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake")
    assert code == 0, out


def test_skeleton_without_a_device_loses_its_static_points_for_certain(
    fake_root, capsys, tmp_path
):
    # a failed static rule cannot earn anything whatever the GPU would show: a certain
    # loss (exit 1), told apart from the points still pending (issue 14)
    code, out, _, rep = grade(
        capsys, fake_root, fake_root / "labs" / "9.1-fake", json_path=tmp_path / "r.json"
    )
    assert code == 1, out
    assert "static       FAILED" in out
    assert "scale_kernel: its SASS has no LDS (shared-memory load), STS" in out
    # the kernel has no load or store at all: after "=>" its TODO, not each rule's hint
    assert "  => scale: not implemented yet — see TODO(9.1a) in kernels.cu\n" in out, out
    assert "=> scale: scale_kernel: its SASS" not in out, out
    assert "NOT RUN: correctness, sanitizer, performance" in out
    assert "2 points lost for certain, 15 more pending on checks that did not run" in out
    assert "this is not a final grade" in out
    static = rep["exercises"][0]["parts"]["static"]
    assert static["points"] == 0 and static["max"] == 2


def test_a_static_failure_with_nothing_pending_is_final(fake_root, fake_gpu, capsys, tmp_path):
    # issue 14: a failed static rule is a certain loss — 0/2, never "—/2" — and with every
    # other check run the grade is final (exit 1: points lost; make grade's 0), not 3
    text = solution_text(fake_root)
    for old, new in (
        ("tile[threadIdx.x] = i < n ? in[i] : 0.0f;\n    __syncthreads();\n", ""),
        ("2.0f * tile[threadIdx.x] + 1.0f", "2.0f * in[i] + 1.0f"),
    ):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    sub = submission(tmp_path / "sub", text)
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    assert code == 1, out
    assert "static       FAILED" in out
    # a kernel begun (a load and a store) is told the rules it breaks, not "not implemented"
    assert "=> scale: scale_kernel: its SASS has no LDS (shared-memory load)" in out, out
    assert "not implemented yet" not in out, out
    assert "scale             6/6          0/2          2/2          4/4        12/14" in out
    assert "—" not in out.split("exercise  correctness")[1] and "NOT RUN" not in out
    assert "score 15/17: points lost" in out
    static = rep["exercises"][0]["parts"]["static"]
    assert (static["status"], static["points"]) == ("failed", 0)
    # every hint of the static finding, those the "=>" line leaves out too (none here)
    assert static["details"][0]["hints"] == [diagnose.GENERIC["static"]], static
    assert rep["final"] is True and rep["not_run"] == [] and rep["total"] == 15


def test_an_empty_kernel_beside_the_one_launched_is_no_skeleton(fake_root, capsys, tmp_path):
    """The named kernel left empty while its launcher launches another: the rules it breaks
    and the launch (the static block) are the finding, not "not implemented yet"."""
    text = (fake_root / "labs" / "9.1-fake" / "kernels.cu").read_text()  # the skeleton
    decoy = (
        "__global__ void decoy_kernel(const float *in, float *out, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) { out[i] = 2.0f * in[i] + 1.0f; }\n}\n\n"
    )
    old = "    /* TODO(9.1a): out = 2 * in + 1. */\n"
    launch = "    if (rows < 0) { decoy_kernel<<<1, 32>>>(in, out, 0); }\n"
    assert text.count(old) == 1
    head = 'extern "C" int scale('
    text = text.replace(old, old + launch).replace(head, decoy + head)
    code, out, _, _ = grade(capsys, fake_root, submission(tmp_path / "sub", text))
    assert "scale_kernel: registers only" in out, out  # the named kernel: no load or store
    assert "scale does not launch scale_kernel (it launches decoy_kernel)" in out, out
    assert "=> scale: scale_kernel: its SASS has no LDS" in out, out
    assert "not implemented yet" not in out, out


def test_skeleton_with_a_device_is_not_implemented(fake_root, fake_gpu, capsys, tmp_path):
    code, out, _, rep = grade(
        capsys, fake_root, fake_root / "labs" / "9.1-fake", json_path=tmp_path / "r.json"
    )
    assert code == 1
    assert "scale: not implemented yet — see TODO(9.1a) in kernels.cu" in out
    assert "offset: not implemented yet — see TODO(9.1b) in kernels.cu" in out
    # correctness and the static part both found it: said once
    assert out.count("=> scale: not implemented yet") == 1, out
    assert rep["exercises"][0]["findings"] == [
        "scale: not implemented yet — see TODO(9.1a) in kernels.cu"
    ]
    assert "nothing written at any of the 4 sizes" in out  # one line, not one per size
    assert rep["total"] == 0
    statuses = [d["status"] for d in rep["exercises"][0]["parts"]["correctness"]["details"]]
    assert statuses == ["wrong"] * 4


def test_edge_bug(fake_root, fake_gpu, capsys, tmp_path):
    sub = variant(
        fake_root,
        tmp_path,
        "out[i] = 2.0f * in[i] + 1.0f;",
        "out[i] = (i / cols >= 32 && i % cols >= 32) ? 0.0f : 2.0f * in[i] + 1.0f;",
    )
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    assert code == 1
    assert "scale: wrong only in rows 32 and columns 32–64 of the 33×65 output" in out
    assert "FAKE-EDGE-HINT" in out
    assert "reproduce: <lab binary> --exercise scale --size 33,65 --seed" in out
    scale = rep["exercises"][0]
    assert scale["parts"]["correctness"]["points"] == 3  # 2 of 4 sizes
    # the gate: static and sanitizer passed but earn nothing; the timed run is wrong too
    for part in ("static", "sanitizer", "performance"):
        assert scale["parts"][part]["points"] == 0
    assert scale["parts"]["static"]["status"] == "passed"
    assert scale["parts"]["sanitizer"]["status"] == "passed"
    assert scale["parts"]["performance"]["status"] == "failed"
    assert "the output was wrong in the timed run at 128×128" in out
    assert "0 points: every correctness case must pass first" in out
    assert scale["total"] == 3 and rep["total"] == 6


def test_wrong_on_fresh_inputs_in_a_timed_launch(fake_root, fake_gpu, capsys, tmp_path, monkeypatch):
    """A kernel right on every correctness case but wrong in a timed launch the judge checked
    against its baseline on fresh inputs (check.phase "fresh", cml_judge.c): the report says
    so and suspects a result kept between calls, not a race."""
    sub = variant(
        fake_root,
        tmp_path,
        "out[i] = 2.0f * in[i] + 1.0f;",
        "out[i] = (rows * cols >= 128 * 128) ? 0.0f : 2.0f * in[i] + 1.0f;",
    )
    monkeypatch.setenv("FAKE_TIMED_PHASE", "fresh")
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    scale = rep["exercises"][0]
    assert scale["parts"]["correctness"]["points"] == 6
    assert scale["parts"]["performance"]["points"] == 0
    assert "the output was wrong in the timed run at 128×128, in a launch on fresh inputs" in out
    assert "a result kept from other inputs, or work skipped in some launches?" in out
    assert "a race between threads" not in out


def test_wrong_only_at_the_far_edge_of_a_timed_launch(fake_root, fake_gpu, capsys, tmp_path):
    """A kernel right on every correctness case but wrong only in the last column of the timed
    size (lab 3.2's host-link check lives in the output's last element): the finding gives the
    lab's timed_edge hint, not a race (g75: hostile_weights_recomputed was told "a race"), and
    not its edge hint (a partial tile, which the correctness cases just passed)."""
    sub = variant(
        fake_root,
        tmp_path,
        "out[i] = 2.0f * in[i] + 1.0f;",
        "out[i] = (rows * cols >= 128 * 128 && i % cols == cols - 1) ? 0.0f : 2.0f * in[i] + 1.0f;",
    )
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    scale = rep["exercises"][0]
    assert scale["parts"]["correctness"]["points"] == 6
    assert scale["parts"]["performance"]["points"] == 0
    assert "the output was wrong in the timed run at 128×128" in out
    assert "only in columns 127 of the 128×128 output" in out
    assert "the kernel passed every correctness case; FAKE-TIMED-EDGE-HINT" in out
    assert "FAKE-EDGE-HINT" not in out
    assert "a race between threads" not in out


def test_a_timed_run_whose_samples_spread_is_timed_again(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """A timed run whose median is far above its fastest tenth (a busy host, FAKE_SPREAD_ONCE:
    2.4x, its median 1.5x slower) is timed once more and the second run graded; the report
    says why. An undisturbed run (1.02x) is timed once."""
    flag = tmp_path / "spread-once"
    flag.touch()
    monkeypatch.setenv("FAKE_SPREAD_ONCE", str(flag))
    sub = variant(fake_root, tmp_path, "*speed = 2.5;", "*speed = 1.5;")
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    assert not flag.exists()  # the first timed run was the spread one
    perf = rep["exercises"][0]["parts"]["performance"]
    # the second run's ratio 1.5 (2 of 4 points); the first's, 1.0, would have scored none
    assert perf["points"] == 2 and "ratio 1.5" in perf["info"]
    assert "timed twice: the first run's median was 2.40x its fastest tenth" in out
    row = perf["details"][0]
    assert row["retimed"].startswith("timed twice") and row["first_wall_s"] >= 0
    assert out.count("timed twice") == 1


def test_a_run_that_measured_the_host_is_timed_again(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """A timed run whose samples were no longer than the exchange the judge subtracts (g88's
    lab 3.5 pipeline, FAKE_EXCHANGE_BOUND: each sample 1e-6 ms, its "% of copy" far above the
    copy) is timed once more and the second graded; never called implausible."""
    flag = tmp_path / "bound-once"
    flag.touch()
    monkeypatch.setenv("FAKE_EXCHANGE_BOUND", str(flag))
    code, out, _, rep = grade(
        capsys, fake_root, fake_root / "solutions" / "9.1-fake", json_path=tmp_path / "r.json"
    )
    assert not flag.exists()  # the first timed run was the bound one
    assert code == 0 and rep["total"] == rep["max"], out
    assert "timed twice: in the first run 20 of the 20 samples of your launches" in out
    assert "implausible" not in out
    rows = [e["parts"]["performance"]["details"][0] for e in rep["exercises"]
            if e["parts"]["performance"].get("details")]
    assert rows and all(r["exchange_ms"] == 0.15 and r["under_exchange"] == 0 for r in rows)


def _unscored_timed_rows(rep: dict) -> list[dict]:
    """The first performance detail of each timed exercise of the report ``rep`` (at least
    one), each exercise's performance asserted failed with no points."""
    timed = [e for e in rep["exercises"] if e["parts"]["performance"].get("details")]
    assert timed
    for ex in timed:
        perf = ex["parts"]["performance"]
        assert perf["status"] == "failed" and perf["points"] == 0, perf
    return [ex["parts"]["performance"]["details"][0] for ex in timed]


def test_a_run_that_measured_the_host_twice_scores_no_performance(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """Bound by the exchange in both runs: no performance points (a submission's own busy
    process could cause it, and pending points would make overdoing that risk-free), with a
    message that names both causes instead of calling the work implausible. A run that is
    also disturbed (the baseline slowed, FAKE_BASELINE_ALONE_MS) is called disturbed."""
    monkeypatch.setenv("FAKE_EXCHANGE_BOUND", "always")
    code, out, _, rep = grade(
        capsys, fake_root, fake_root / "solutions" / "9.1-fake", json_path=tmp_path / "r.json"
    )
    assert code == 1, out
    for row in _unscored_timed_rows(rep):
        assert row["message"].startswith("timing not trusted at ") and "(timed twice)" in row[
            "message"
        ]
        assert "a process of yours busy on the CPU" in row["message"]
        assert row["under_exchange"] == 20 and row["retimed"].startswith("timed twice")
    assert "implausible" not in out

    monkeypatch.setenv("FAKE_BASELINE_ALONE_MS", "0.4")
    code, out, _, rep = grade(
        capsys, fake_root, fake_root / "solutions" / "9.1-fake", json_path=tmp_path / "r2.json"
    )
    assert code == 1 and "disturbed timing at" in out and "timing not trusted" not in out


def test_a_run_whose_exchange_was_slowed_is_timed_again(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """The exchange with the empty-kernel server slowed against its time alone (design note
    95: a process left behind, 2.38 ms against 0.006; FAKE_EXCHANGE_SLOWED), its samples
    shrunk by what the judge subtracted: timed once more and the second graded (a passing
    delay of the host's); slowed in both, no performance, "disturbed timing" naming it."""
    flag = tmp_path / "slowed-once"
    flag.touch()
    monkeypatch.setenv("FAKE_EXCHANGE_SLOWED", str(flag))
    code, out, _, rep = grade(
        capsys, fake_root, fake_root / "solutions" / "9.1-fake", json_path=tmp_path / "r.json"
    )
    assert not flag.exists()  # the first timed run was the slowed one
    assert code == 0 and rep["total"] == rep["max"], out
    assert "timed twice: in the first run the exchange with the course's empty-kernel" in out
    rows = [e["parts"]["performance"]["details"][0] for e in rep["exercises"]
            if e["parts"]["performance"].get("details")]
    assert rows and all(r["exchange_alone_ms"] == 0.006 for r in rows)
    # what the judge subtracted from each sample, in the report (design note 96)
    assert all(r["exchange_subtracted_ms"] == 0.15 for r in rows)

    monkeypatch.setenv("FAKE_EXCHANGE_SLOWED", "always")
    code, out, _, rep = grade(
        capsys, fake_root, fake_root / "solutions" / "9.1-fake", json_path=tmp_path / "r2.json"
    )
    assert code == 1, out
    for row in _unscored_timed_rows(rep):
        message = row["message"]
        assert message.startswith("disturbed timing at "), message
        assert "took 2.380 ms among your repetitions against 0.006 ms" in message
        assert "and 0.256 ms of it is subtracted from each of your samples" in message
        assert "a process left behind" in message


def test_an_undisturbed_run_is_timed_once(fake_root, fake_gpu, capsys, tmp_path, monkeypatch):
    log = tmp_path / "judge.log"
    monkeypatch.setenv("FAKE_JUDGE_LOG", str(log))
    code, out, _, rep = grade(
        capsys, fake_root, fake_root / "solutions" / "9.1-fake", json_path=tmp_path / "r.json"
    )
    assert code == 0 and "timed twice" not in out
    timed = [e for e in rep["exercises"] if e["parts"]["performance"].get("details")]
    assert timed and all("retimed" not in e["parts"]["performance"]["details"][0] for e in timed)


def test_a_gated_timed_judge_is_moved_onto_the_kept_cpus(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """At its gate a timed judge (and what it started) is pinned to the CPUs kept for timed
    runs (grader.cpus), the student's process started there; untimed runs are not."""
    from grader import cpus

    cpu = min(os.sched_getaffinity(0))
    monkeypatch.setattr(cpus, "_kept", frozenset({cpu}))
    pinned = []
    real_pin = cpus.pin

    def pin(pid, where=None):
        moved = real_pin(pid, where)
        pinned.append((pid, moved, os.sched_getaffinity(pid) if moved else None))
        return moved

    monkeypatch.setattr(cpus, "pin", pin)
    code, out, _, rep = grade(
        capsys, fake_root, fake_root / "solutions" / "9.1-fake", json_path=tmp_path / "r.json"
    )
    assert code == 0, out
    timed = [e for e in rep["exercises"] if e["parts"]["performance"].get("details")]
    assert len(pinned) == len(timed) >= 1  # once per timed run, at its gate
    assert all(moved >= 1 and now == {cpu} for _, moved, now in pinned), pinned


def test_crash(fake_root, fake_gpu, capsys, tmp_path):
    sub = variant(
        fake_root,
        tmp_path,
        "*speed = 2.5;",
        "*speed = 2.5;\n    if (rows * cols > 1000) { *(volatile int *)0 = 1; }",
    )
    code, out, _, _ = grade(capsys, fake_root, sub)
    assert code == 1
    assert "crashed (SIGSEGV) before writing its result" in out
    assert "host-side bug in the launcher" in out


def test_hang_stops_sanitizer_and_performance(fake_root, fake_gpu, capsys, tmp_path):
    sub = variant(
        fake_root,
        tmp_path,
        "*speed = 2.5;",
        "*speed = 2.5;\n    volatile int spin = 1;\n    while (rows == 33 && spin) { }",
    )
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    assert code == 1
    assert "did not finish within 5 s" in out
    assert "divergent __syncthreads" in out
    parts = rep["exercises"][0]["parts"]
    assert parts["sanitizer"]["status"] == "not_run"
    assert parts["sanitizer"]["reason"] == "a correctness case did not finish"
    assert parts["performance"]["status"] == "not_run"
    assert parts["sanitizer"]["points"] == 0  # the gate is closed: known, not pending
    # one hang is enough: the case after it (64 x 64) is not run, and counts as failed
    statuses = [row["status"] for row in parts["correctness"]["details"]]
    assert statuses == ["ok", "ok", "timeout", "not_run"], statuses
    assert "an earlier case of scale did not finish within 5 s" in out


def test_a_hang_is_reported_with_the_case_limit(fake_root, fake_gpu, capsys, tmp_path):
    """case_timeout_s (here 3 s) is the correctness cases' limit: the case's line and the
    exercise's summary both name it, not run_timeout_s (5 s, the timed runs')."""
    course = course_with(
        fake_root, tmp_path, "run_timeout_s = 5\n", "run_timeout_s = 5\ncase_timeout_s = 3\n"
    )
    sub = variant(
        course,
        tmp_path,
        "*speed = 2.5;",
        "*speed = 2.5;\n    volatile int spin = 1;\n    while (rows == 33 && spin) { }",
    )
    code, out, _, rep = grade(capsys, course, sub, json_path=tmp_path / "r.json")
    assert code == 1
    assert "=> scale: did not finish within 3 s at 33" in out, out
    assert "within 5 s" not in out


def test_uncalibrated_thresholds_report_figures_and_keep_points_pending(
    fake_root, fake_gpu, capsys, tmp_path
):
    """A new lab's performance thresholds before they are measured on the course's GPU
    (docs/adding-a-lab.md): lab.toml says calibrated = false; the run is made and its
    figures shown, the points stay pending (exit 3), and selfcheck lists what to set."""
    old = 'metric = "ratio"\n'
    course = course_with(fake_root, tmp_path, old, old + "calibrated = false\n")
    sub = course / "solutions" / "9.1-fake"
    code, out, _, rep = grade(capsys, course, sub, json_path=tmp_path / "r.json")
    assert code == 3, out
    perf = rep["exercises"][0]["parts"]["performance"]
    assert perf["points"] is None and perf["status"] == "not_run"
    assert "not calibrated" in perf["reason"] and "ratio 2.5" in perf["info"], perf
    code, out, _ = grade_cli(capsys, "selfcheck", "--root", course)
    assert code == 3, out
    assert "UNCALIBRATED" in out and "9.1-fake solution scale: ratio 2.5" in out


def test_a_run_measured_not_scored_shows_its_figure_for_no_points(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """lab.toml performance.scored = false (lab 3.2f and 3.2g: an effect smaller than the
    run-to-run spread): the timed run is made and its figure shown beside "measured, not
    scored", the part has 0 points (the score table shows "·"), the grade is final with
    full marks, and selfcheck is complete (nothing to calibrate)."""
    course = course_with(
        fake_root,
        tmp_path,
        'performance = 4 }\n',
        'performance = 0 }\n',
    )
    toml = course / "labs" / "9.1-fake" / "lab.toml"
    text = toml.read_text()
    for old, new in (('zero = 1.0\n', ''), ('full = 2.0\n', 'scored = false\n')):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    toml.write_text(text)
    sub = course / "solutions" / "9.1-fake"
    code, out, _, rep = grade(capsys, course, sub, json_path=tmp_path / "r.json")
    assert code == 0, out
    perf = rep["exercises"][0]["parts"]["performance"]
    assert (perf["points"], perf["max"], perf["status"]) == (0, 0, "info"), perf
    assert "ratio 2.5" in perf["info"] and "measured, not scored" in perf["info"], perf
    assert "full points at" not in perf["info"], perf
    assert "measured, not scored" in out and rep["final"], out
    # shown in the roofline table and kept for the leaderboard too (gradescope._leaderboard)
    row = perf["details"][0]
    assert row["measured"] == [{"metric": "ratio", "value": 2.5}] and "criteria" not in row
    roofline = out[out.index("roofline:") :]
    assert any(line.split()[:1] == [rep["exercises"][0]["name"]] for line in roofline.splitlines())
    code, out, _ = grade_cli(capsys, "selfcheck", "--root", course)
    assert code == 0, out
    assert "UNCALIBRATED" not in out
    # a disturbed timing is not believed, and costs nothing: no FAILED part for 0 points
    monkeypatch.setenv("FAKE_BASELINE_ALONE_MS", "0.4")
    code, out, _, rep = grade(capsys, course, sub, json_path=tmp_path / "d.json")
    perf = rep["exercises"][0]["parts"]["performance"]
    assert code == 0 and perf["status"] == "info", (perf, out)
    assert "disturbed timing" in perf["info"] and "measured, not scored" in perf["info"], perf
    assert "FAILED" not in out, out
    monkeypatch.delenv("FAKE_BASELINE_ALONE_MS")
    # left out, it is no loss: nothing was at stake
    code, out, _, rep = grade(capsys, course, sub, "--no-perf", json_path=tmp_path / "n.json")
    assert code == 0 and "lost for certain" not in out, out
    # not run (no GPU): its line says what it would be, its cell carries no "0/0"
    part = Part("performance", 0, status=Status.NOT_RUN, reason="no CUDA device")
    assert "(0 points: measured and shown, not scored)" in report._status_line("performance", part)
    assert report._part_cell(part) == "·"


def test_an_exercise_for_a_later_arch_is_skipped_and_left_out_of_the_total(
    fake_root, fake_gpu, capsys, tmp_path
):
    """lab.toml arch_min (lab 3.2g needs sm_90): a grade that builds for an older architecture
    (--arch sm_80, CI's sm_80 build) skips every part of that exercise with the reason, never
    runs it, and leaves its points out of the total and max; the grade is final (nothing
    pending, nothing lost). A grade for the architecture itself grades it as usual."""
    old = 'todo = "9.1b"\n'
    why = 'arch_min = "sm_90"\narch_why = "Hopper: clusters"\n'
    course = course_with(fake_root, tmp_path, old, old + why)
    sub = course / "solutions" / "9.1-fake"
    code, out, _, rep = grade(capsys, course, sub, "--arch", "sm_80", json_path=tmp_path / "a.json")
    assert code == 0, out
    reason = "needs sm_90 (Hopper: clusters); this grade builds for sm_80"
    assert f"=> offset: not graded: {reason}" in out
    assert "score 14/14: every check ran, full marks" in out
    assert rep["arch"] == "sm_80" and (rep["total"], rep["max"]) == (14, 14) and rep["final"]
    offset = rep["exercises"][1]
    assert offset["name"] == "offset" and (offset["total"], offset["max"]) == (0, 0)
    for part in offset["parts"].values():
        assert (part["status"], part["reason"], part["max"]) == ("skipped", reason, 0)
        assert part["details"] == []  # never run
    assert rep["not_run"] == []
    code, out, _, rep = grade(capsys, course, sub, "--arch", "sm_90", json_path=tmp_path / "b.json")
    assert code == 0 and (rep["total"], rep["max"]) == (17, 17), out
    assert rep["exercises"][1]["parts"]["correctness"]["status"] == "passed"
    # that exercise alone, for the older architecture: nothing is graded, and the verdict
    # says so instead of "every check ran"
    code, out, _, _ = grade(capsys, course, sub, "--arch", "sm_80", "--exercise", "offset")
    assert code == 0, out
    assert "score 0/0: nothing here is graded for sm_80 (see the notes above)" in out


def test_selfcheck_with_an_exercise_for_a_later_arch(fake_root, fake_gpu, capsys, tmp_path):
    """selfcheck grades for the Makefile's architecture: an exercise that needs a later one is
    skipped for the solution and the skeleton alike, and neither expectation counts it."""
    old = 'todo = "9.1b"\n'
    course = course_with(fake_root, tmp_path, old, old + 'arch_min = "sm_100"\n')
    code, out, _ = grade_cli(capsys, "selfcheck", "--root", course)
    assert code == 0, out
    assert "NOT AS EXPECTED" not in out
    solution = next(ln for ln in out.splitlines() if ln.startswith("9.1-fake") and "solution" in ln)
    assert "14/14" in solution  # offset's 3 points are not in the max


def test_launch_error(fake_root, fake_gpu, capsys, tmp_path):
    sub = variant(
        fake_root,
        tmp_path,
        '    return 0;\n}\n\nextern "C" int offset',
        '    return rows >= 33;\n}\n\nextern "C" int offset',
    )
    code, out, _, _ = grade(capsys, fake_root, sub)
    assert code == 1
    assert "launch failed: too many resources requested for launch at harness.c:1" in out
    assert "fewer threads per block" in out


def test_race_loses_one_sanitizer_tool(fake_root, fake_gpu, capsys, tmp_path):
    sub = variant(
        fake_root,
        tmp_path,
        "*speed = 2.5;\n    // END SOLUTION\n    return 0;",
        "*speed = 2.5;\n    // END SOLUTION\n    return 2;",
    )
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    assert code == 1
    assert "racecheck  33×65          ERRORS" in out
    assert (
        "Error: Race reported between Write access at scale_kernel(...)+0x90 in kernels.cu:12"
        in out
    )
    # the kind from racecheck's hazard report, run again for it: that kind's hint, then the
    # lab's own words
    assert "read-after-write race" in out and "here: FAKE-RACE-HINT" in out
    san = rep["exercises"][0]["parts"]["sanitizer"]
    assert san["points"] == 1 and san["max"] == 2
    assert [d["verdict"] for d in san["details"]] == ["clean", "errors"]
    assert san["details"][1]["race_kind"] == "RAW"


def test_a_race_that_also_breaks_a_case_is_named_before_the_wrong_output(
    fake_root, fake_gpu, capsys, tmp_path
):
    """The sanitizer's finding (the cause) comes before the correctness summary (its
    symptom, from which the grader can only guess) in the exercise's => lines."""
    sub = variant(
        fake_root,
        tmp_path,
        "*speed = 2.5;\n    // END SOLUTION\n    return 0;",
        "*speed = 2.5;\n    if (rows == 64) { out[5] = 0.0f; }\n    // END SOLUTION\n    return 2;",
    )
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    assert code == 1
    findings = rep["exercises"][0]["findings"]
    kinds = ["race" if "racecheck" in f or "Race" in f or "FAKE-RACE-HINT" in f else "other"
             for f in findings if not f.startswith("warning:")]
    assert rep["exercises"][0]["parts"]["correctness"]["status"] == "failed", out
    assert kinds and kinds[0] == "race", findings


def test_slow_gets_part_of_the_ramp(fake_root, fake_gpu, capsys, tmp_path):
    sub = variant(fake_root, tmp_path, "*speed = 2.5;", "*speed = 1.5;")
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    assert code == 1
    perf = rep["exercises"][0]["parts"]["performance"]
    assert perf["points"] == 2 and perf["status"] == "failed"
    assert "ratio 1.5" in out and "full points at ≥ 2, none at ≤ 1" in out
    assert rep["total"] == 15


def test_compile_error_is_a_readable_result(fake_root, capsys, tmp_path):
    sub = variant(fake_root, tmp_path, "*speed = 2.5;", "*speed = 2.5 +;")
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    assert code == 1
    assert "build        FAILED" in out
    assert "kernels.cu(" in out and "error" in out
    assert str(tmp_path) not in out.split("submission:")[1].split("\n", 1)[1]
    assert rep["total"] == 0
    assert rep["exercises"][0]["parts"]["correctness"]["reason"] == "the build failed"


def test_a_build_failure_where_the_skeleton_fails_too_is_the_machines(fake_root, capsys, tmp_path):
    """A submission's build failure where the course's untouched skeleton does not build
    either (an instructor's trial, session 39: a host compiler outside what the sandbox shows
    gave every student, the untouched skeleton included, a final 0) is a grader error naming
    the machine's fault and the fix, never a certain 0; where the skeleton builds, the
    failure stays the student's (test_compile_error_is_a_readable_result)."""
    course = tmp_path / "course"
    shutil.copytree(fake_root, course)
    skeleton = course / "labs" / "9.1-fake" / "kernels.cu"
    skeleton.write_text(skeleton.read_text() + "\nthis is not C;\n")
    sub = variant(fake_root, tmp_path, "*speed = 2.5;", "*speed = 2.5 +;")
    code, out, err, _ = grade(capsys, course, sub)
    assert code == 2, out + err
    assert "the course's own skeleton of this lab does not build here either" in err, err
    assert "host compiler" in err and "then grade again" in err
    assert "lost for certain" not in out + err
    # a submission that builds is graded as ever in that course
    code, out, err, _ = grade(capsys, course, fake_root / "solutions" / "9.1-fake")
    assert code in (0, 3) and "build        passed" in out, out + err


def test_a_build_failure_is_a_certain_loss_in_every_part(fake_root, capsys, tmp_path):
    # every check the failed build prevented says so, and scores 0 — a certain loss, not
    # pending, and never "FAILED" for one part and "not run" for the others
    sub = variant(fake_root, tmp_path, "*speed = 2.5;", "*speed = 2.5 +;")
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    assert code == 1 and rep["final"] is True
    for name in ("correctness", "static", "sanitizer", "performance"):
        assert f"  {name:<12} not run: the build failed  (0 points, lost for certain)" in out
        part = rep["exercises"][0]["parts"][name]
        assert (part["status"], part["points"], part["reason"]) == (
            "not_run", 0, "the build failed"
        )
    assert "FAILED: the build failed" not in out
    assert "scale             0/6          0/2          0/2          0/4         0/14" in out
    assert rep["not_run"] == [
        "correctness, static, sanitizer, performance — the build failed (0 points, lost for "
        "certain)"
    ]
    assert f"NOT RUN: {rep['not_run'][0]}" in out
    assert "score 0/17: points lost" in out and "pending" not in out


def test_missing_student_file_is_graded_zero(fake_root, capsys, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, _, rep = grade(capsys, fake_root, empty, json_path=tmp_path / "r.json")
    assert code == 1
    assert "missing kernels.cu in submission" in out
    assert rep["total"] == 0 and rep["steps"][0]["status"] == "failed"


def test_forbidden_call_zeroes_and_does_not_run(fake_root, fake_gpu, capsys, tmp_path):
    sub = variant(
        fake_root,
        tmp_path,
        '#include "fake.h"',
        '#include <cstdio>\n#include "fake.h"\nvoid leak() { fclose(fopen("/tmp/x", "w")); }',
    )
    code, out, _, rep = grade(capsys, fake_root, sub, json_path=tmp_path / "r.json")
    assert code == 1
    assert "symbols      FAILED  kernels.cu calls" in out
    assert "kernels.cu calls fopen, which submissions may not call" in out
    assert "the symbol check failed (see 'symbols' above), so the submission was not" in out
    assert rep["total"] == 0
    assert rep["exercises"][0]["parts"]["correctness"]["details"] == []  # never run


def test_including_the_solution_is_refused(fake_root, fake_gpu, capsys, tmp_path):
    sol = fake_root / SOLUTION_NAME
    sub = submission(tmp_path / "sub", f'#include "{sol}"\n')
    code, out, _, _ = grade(capsys, fake_root, sub)
    assert code == 1
    assert f"kernels.cu includes {sol}" in out


def test_left_out_checks_are_3_and_named(fake_root, fake_gpu, capsys, tmp_path):
    code, out, _, rep = grade(
        capsys,
        fake_root,
        fake_root / "solutions" / "9.1-fake",
        "--no-sanitizer",
        "--no-perf",
        json_path=tmp_path / "r.json",
    )
    assert code == 3
    assert "NOT RUN: sanitizer — left out (--no-sanitizer)" in out
    assert "NOT RUN: performance — left out (--no-perf)" in out
    assert rep["exercises"][0]["parts"]["sanitizer"]["status"] == "skipped"
    assert rep["exercises"][0]["parts"]["sanitizer"]["points"] is None


def test_seed_makes_runs_repeatable(fake_root, fake_gpu, capsys, tmp_path):
    sol = fake_root / "solutions" / "9.1-fake"
    seeds = []
    for i in range(2):
        path = tmp_path / f"r{i}.json"
        grade(capsys, fake_root, sol, "--seed", "0x2a", "--no-perf", json_path=path)
        rep = json.loads(path.read_text())
        assert rep["seeds"] == {"base": 42, "mode": "derived"}
        seeds.append([d["seed"] for d in rep["exercises"][0]["parts"]["correctness"]["details"]])
    assert seeds[0] == seeds[1] and len(set(seeds[0])) == 4


def test_a_case_inserted_into_lab_toml_changes_no_other_runs_seed(
    fake_root, fake_gpu, capsys, tmp_path
):
    """Under the same --seed, every run of the course with a case inserted keeps its seed
    (and so its inputs): seeds come from (exercise, purpose, size), not a case's position."""
    sol = fake_root / "solutions" / "9.1-fake"

    def seeds(root, name):
        path = tmp_path / f"{name}.json"
        grade(capsys, root, sol, "--seed", "7", json_path=path)
        rep = json.loads(path.read_text())
        return {
            (ex["name"], part, row.get("tool"), tuple(row["size"])): row["seed"]
            for ex in rep["exercises"]
            for part, p in ex["parts"].items()
            for row in p["details"]
            if "seed" in row
        }

    before = seeds(fake_root, "before")
    old, new = "cases = [[1, 1], [32, 32]", "cases = [[1, 1], [5, 7], [32, 32]"
    root = course_with(fake_root, tmp_path, old, new)
    after = seeds(root, "after")
    assert set(after) - set(before) == {("scale", "correctness", None, (5, 7))}
    assert {k: after[k] for k in before} == before
    assert {part for _, part, _, _ in before} == {"correctness", "sanitizer", "performance"}


def test_without_cuobjdump_static_is_skipped_never_passed(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    real_find = tools.find
    monkeypatch.setattr(
        tools, "find", lambda n, env=None: None if n == "cuobjdump" else real_find(n, env)
    )
    code, out, _, rep = grade(
        capsys, fake_root, fake_root / "solutions" / "9.1-fake", json_path=tmp_path / "r.json"
    )
    assert code == 3
    assert "static       skipped: cuobjdump not found (install nvidia-cuda-cuobjdump" in out
    static = rep["exercises"][0]["parts"]["static"]
    assert static["status"] == "skipped" and static["points"] is None


def test_without_compute_sanitizer(fake_root, fake_gpu, capsys, monkeypatch):
    real_find = tools.find
    monkeypatch.setattr(
        tools, "find", lambda n, env=None: None if n == "compute-sanitizer" else real_find(n, env)
    )
    code, out, _, _ = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake")
    assert code == 3
    assert "NOT RUN: sanitizer — compute-sanitizer not found" in out


def test_without_nm_nothing_runs(fake_root, fake_gpu, capsys, monkeypatch):
    real_find = tools.find
    monkeypatch.setattr(tools, "find", lambda n, env=None: None if n == "nm" else real_find(n, env))
    code, out, _, _ = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake")
    assert code == 3
    assert "the symbols could not be checked (nm not found (install binutils))" in out


@pytest.fixture(scope="module")
def quiet_without_a_device(fake_root):
    """(exit status, stdout) of the solution graded --quiet without a device: the same
    grading for the two tests that read its table (graded once, not once each)."""
    out, err = io.StringIO(), io.StringIO()
    argv = ["grade", fake_root / "labs" / "9.1-fake", "--submission",
            fake_root / "solutions" / "9.1-fake", "--quiet"]
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("FAKE_GPU", raising=False)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main([str(a) for a in argv])
    assert "Traceback" not in out.getvalue() + err.getvalue()
    return code, out.getvalue()


def test_quiet_prints_only_the_table(quiet_without_a_device):
    code, out = quiet_without_a_device
    assert code == 3
    assert "exercise" in out and "NOT RUN" in out
    assert "assemble" not in out


def test_the_table_says_what_its_marks_mean(quiet_without_a_device):
    """Without a device the runtime parts are pending: the line under the score table says
    what "—/N" and "N/M+" mean, and "ok/N" for a static check that passed and waits for
    correctness (a student's trial read "—/3" there as nothing earned), and only the marks
    the table shows."""
    code, out = quiet_without_a_device
    assert code == 3
    lines = out.splitlines()
    legend = next(line for line in lines if line.startswith("(—/N"))
    assert "—/N: not run, its N points pending" in legend
    assert "N/M+: N points so far of M, more pending" in legend
    table = lines[: lines.index(legend)]
    assert any("—/" in line for line in table) and any("+" in line for line in table)
    assert ("·" in " ".join(table)) == ("·: no such part" in legend)
    scale = next(line for line in table if line.startswith("scale"))
    assert "ok/2" in scale and "ok/N: passed, its N points wait for correctness" in legend


def test_selfcheck_with_a_device(fake_root, fake_gpu, capsys):
    code, out, _ = grade_cli(capsys, "selfcheck", "--root", fake_root)
    assert code == 0, out
    assert "9.1-fake         solution" in out and "as expected" in out
    assert "every solution has full marks, every skeleton scores 0" in out


def test_selfcheck_without_a_device(fake_root, capsys):
    code, out, _ = grade_cli(capsys, "selfcheck", "--root", fake_root, "--lab", "9.1")
    assert code == 3, out
    assert "NOT COMPLETE: no CUDA device" in out


def test_selfcheck_catches_a_broken_solution(fake_root, fake_gpu, capsys, tmp_path):
    broken = tmp_path / "course"
    shutil.copytree(fake_root, broken)
    sol = broken / SOLUTION_NAME
    sol.write_text(sol.read_text().replace("*speed = 2.5;", "*speed = 1.2;"))
    code, out, _ = grade_cli(capsys, "selfcheck", "--root", broken)
    assert code == 1
    assert "NOT AS EXPECTED" in out
    assert "scale: performance" in out


def test_bad_manifest_is_exit_2_without_traceback(fake_root, capsys, tmp_path):
    course = course_with(fake_root, tmp_path, 'metric = "ratio"', 'metric = "2x speed"')
    code, out, err = grade_cli(capsys, "grade", course / "labs" / "9.1-fake")
    assert code == 2
    assert "performance.metric must be 'ratio' or a name of the run document's metrics" in err
    assert "Traceback" not in out + err


@pytest.mark.parametrize(
    "args",
    [
        ["grade"],
        ["grade", "x", "--seed", "abc"],
        ["frobnicate"],
        ["grade", "x", "--arch", "90"],
        ["skeleton"],
    ],
)
def test_usage_errors_are_2(capsys, args):
    code, _, err = grade_cli(capsys, *args)
    assert code == 2
    assert "usage:" in err


@pytest.mark.parametrize(
    "args, command, unknown",
    [
        (["grade", "x", "--submision", "y"], "grade", "--submision y"),
        (["grade", "x", "y"], "grade", "y"),  # --submission left out
        (["batch", "x", "y", "--out", "z", "--seeds", "1"], "batch", "--seeds 1"),
    ],
)
def test_an_unknown_argument_is_shown_with_its_commands_usage(capsys, args, command, unknown):
    code, _, err = grade_cli(capsys, *args)
    assert code == 2
    assert f"usage: python3 -m grader {command} " in err
    assert f"python3 -m grader {command}: error: unrecognized arguments: {unknown}" in err


def test_missing_lab_folder_is_2(capsys, tmp_path):
    code, _, err = grade_cli(capsys, "grade", tmp_path / "nope")
    assert code == 2 and "does not exist" in err


def test_internal_error_is_2_with_a_first_line(capsys, monkeypatch, fake_root):
    def boom(*a, **k):
        raise RuntimeError("bug")

    monkeypatch.setattr(grading, "grade", boom)
    code, _, err = grade_cli(capsys, "grade", fake_root / "labs" / "9.1-fake")
    assert code == 2
    assert err.startswith("grader: internal error")


def test_selfcheck_json(fake_root, capsys, tmp_path):
    code, _, _ = grade_cli(capsys, "selfcheck", "--root", fake_root, "--json", tmp_path / "s.json")
    assert code == 3
    rows = json.loads((tmp_path / "s.json").read_text())
    assert [(r["lab"], r["variant"], r["ok"]) for r in rows] == [
        ("9.1-fake", "solution", True),
        ("9.1-fake", "skeleton", True),
    ]
    assert rows[0]["report"]["exit_code"] == 3


def test_unwritable_json_report_is_2(fake_root, capsys, tmp_path):
    code, _, err = grade_cli(
        capsys,
        "grade",
        fake_root / "labs" / "9.1-fake",
        "--submission",
        fake_root / "solutions" / "9.1-fake",
        "--json",
        tmp_path / "no" / "such" / "dir.json",
    )
    assert code == 2 and "cannot write the JSON report" in err


def test_exercise_option_grades_only_that_exercise(fake_root, capsys, tmp_path):
    code, out, _, rep = grade(
        capsys,
        fake_root,
        fake_root / "solutions" / "9.1-fake",
        "--exercise",
        "offset",
        json_path=tmp_path / "r.json",
    )
    assert [e["name"] for e in rep["exercises"]] == ["offset"] and rep["max"] == 3
    code, _, err = grade_cli(capsys, "grade", fake_root / "labs" / "9.1-fake", "--exercise", "x")
    assert code == 2 and "has no exercise x" in err


FP32_CRITERIA = (
    'roof = "fp32"\n'
    "criteria = [\n"
    '  { metric = "ratio", zero = 1.0, full = 2.0 },\n'  # 2.5: all of its share
    '  { metric = "pct_of_fp32", zero = 0, full = 100 },\n'
    "]\n"
)


def test_an_fp32_roof_scores_pct_of_fp32_from_the_judges_figures(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """roof = "fp32" and a pct_of_fp32 criterion: the grader divides the judge's gflops (1
    in the fake lab) by the FP32 roof of the run document's device facts (cc 9.0: 128 lanes
    x 2 SMs x 4 MHz x 2 = 2.048 GFLOP/s); the roofline shows the exercise against it."""
    course = course_with(
        fake_root, tmp_path, 'metric = "ratio"\nzero = 1.0\nfull = 2.0\n', FP32_CRITERIA
    )
    monkeypatch.setenv("FAKE_CLOCK_KHZ", "4000")
    sub = course / "solutions" / "9.1-fake"
    code, out, _, rep = grade(capsys, course, sub, json_path=tmp_path / "r.json")
    assert code == 1, out
    perf = rep["exercises"][0]["parts"]["performance"]
    (row,) = perf["details"]
    pct = 100 * 1 / 2.048
    assert row["roof"] == "fp32" and row["fp32_gflops"] == pytest.approx(2.048)
    assert row["pct_of_fp32"] == pytest.approx(pct) and row["ratio"] == 2.5
    assert [c["metric"] for c in row["criteria"]] == ["ratio", "pct_of_fp32"]
    assert row["criteria"][1]["value"] == pytest.approx(pct)
    assert perf["points"] == pytest.approx(4 * (1 + pct / 100) / 2, abs=0.01)
    assert "48.8 % of the FP32 roof (0.0 TFLOP/s of 0.0 TFLOP/s" in out
    assert [
        line.split() for line in out.splitlines() if line.startswith("  scale ")
    ] == [["scale", "FP32", "0.0", "TFLOP/s", "0.0", "TFLOP/s", "48.8", "2.5"]]
    assert "  FP32: achieved FLOP/s against the device's FP32 peak" in out


def test_an_fp32_roof_without_the_devices_clock_scores_nothing_for_it(
    fake_root, fake_gpu, capsys, tmp_path
):
    """The fake device reports no clock_khz: the FP32 roof is unknown, so pct_of_fp32 earns
    nothing for its share and says why, like any metric the run did not give; the
    exercise has no roofline row."""
    course = course_with(
        fake_root, tmp_path, 'metric = "ratio"\nzero = 1.0\nfull = 2.0\n', FP32_CRITERIA
    )
    sub = course / "solutions" / "9.1-fake"
    code, out, _, rep = grade(capsys, course, sub, json_path=tmp_path / "r.json")
    assert code == 1, out
    perf = rep["exercises"][0]["parts"]["performance"]
    assert perf["points"] == pytest.approx(2.0)
    assert (
        "the timed run gave no pct_of_fp32: the device's FP32 roof is unknown" in out
    )
    (row,) = perf["details"]
    assert row["roof"] == "fp32" and "pct_of_fp32" not in row
    assert [c["metric"] for c in row["criteria"]] == ["ratio"]
    assert "roofline:" not in out


def test_several_performance_criteria_share_the_points(fake_root, fake_gpu, capsys, tmp_path):
    """criteria = [...]: each a ramp, the part's fraction their mean; a metric the run does
    not report scores 0 for its share and says so."""
    course = course_with(
        fake_root,
        tmp_path,
        'metric = "ratio"\nzero = 1.0\nfull = 2.0\n',
        "criteria = [\n"
        '  { metric = "ratio", zero = 1.0, full = 2.0 },\n'  # 2.5: all of its share
        '  { metric = "pct_of_copy", zero = 100, full = 200 },\n'  # 125: a quarter
        '  { metric = "l2_over_l1", zero = 1, full = 2 },\n'  # not reported: nothing
        "]\n",
    )
    sub = course / "solutions" / "9.1-fake"
    code, out, _, rep = grade(capsys, course, sub, json_path=tmp_path / "r.json")
    assert code == 1
    perf = rep["exercises"][0]["parts"]["performance"]
    assert perf["points"] == pytest.approx(4 * (1 + 0.25 + 0) / 3, abs=0.01)
    (row,) = perf["details"]
    assert [c["metric"] for c in row["criteria"]] == ["ratio", "pct_of_copy"]
    assert row["criteria"][1]["fraction"] == pytest.approx(0.25)
    assert "the performance run gave no l2_over_l1" in out
    assert "ratio 2.5" in out and "125.0 % of the copy bandwidth" in out


def test_the_probe_shares_the_gpu_with_other_grader_processes(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    """With GRADER_GPU_LOCK, a single grade's device probe (its first CUDA context, and the
    student's binary listing its exercises) holds the lock file shared: it never overlaps
    another grader process's timed run (review of design note 36)."""
    import fcntl

    from grader import gpu_lock

    lock_file = tmp_path / "gpu.lock"
    monkeypatch.setenv(gpu_lock.LOCK_ENV, str(lock_file))
    real_probe = grading.Grading._probe
    seen = []

    def probe(self):
        with open(lock_file) as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                seen.append("not held")
            except BlockingIOError:
                seen.append("held")
        return real_probe(self)

    monkeypatch.setattr(grading.Grading, "_probe", probe)
    code, out, _, _ = grade(capsys, fake_root, fake_root / "solutions" / "9.1-fake")
    assert code == 0, out
    assert seen == ["held"]


def test_a_gpu_of_its_own_thresholds_scores_with_them(fake_root, fake_gpu, capsys, tmp_path):
    """A criterion's ``on`` table (design note 76): on a GPU whose name holds the key, its
    zero and full replace the course GPU's, and the report says whose they are; a key that
    is not part of the name leaves the course GPU's thresholds."""
    old = 'metric = "ratio"\nzero = 1.0\nfull = 2.0\n'
    strict = 'metric = "ratio"\nzero = 3.0\nfull = 4.0\n'  # the fake run's 2.5 scores nothing
    other = '"Other GPU" = { zero = 2.9, full = 3.0 }'
    course = course_with(
        fake_root, tmp_path / "a", old,
        strict + f'on = {{ {other}, "Fake GPU" = {{ zero = 1.0, full = 2.0 }} }}\n',
    )
    _, out, _, rep = grade(
        capsys, course, course / "solutions" / "9.1-fake", json_path=tmp_path / "a.json"
    )
    perf = rep["exercises"][0]["parts"]["performance"]
    assert perf["points"] == perf["max"], out
    assert "full points at ≥ 2, none at ≤ 1 (the thresholds measured on the Fake GPU)" in out
    course = course_with(fake_root, tmp_path / "b", old, strict + f"on = {{ {other} }}\n")
    _, out, _, rep = grade(
        capsys, course, course / "solutions" / "9.1-fake", json_path=tmp_path / "b.json"
    )
    assert rep["exercises"][0]["parts"]["performance"]["points"] == 0, out
    assert "full points at ≥ 4, none at ≤ 3" in out and "measured on the" not in out


def test_selfcheck_in_a_student_copy_says_it_is_the_instructors(fake_root, capsys, tmp_path):
    """In the student release (no solutions/) selfcheck printed "does not exist" per lab and
    then graded the student's finished labs/ as a skeleton that "passes the static checks"
    (a student's trial, session 44): it is refused with one line naming what to run instead,
    before anything is built or graded."""
    root = tmp_path / "course"
    shutil.copytree(fake_root, root)
    shutil.rmtree(root / "solutions")
    code, out, err = grade_cli(capsys, "selfcheck", "--root", root)
    assert code == 2 and "solutions/ is not in this copy (the student release)" in err, err
    assert "make grade LAB=<id>" in err and "Traceback" not in err and out == ""

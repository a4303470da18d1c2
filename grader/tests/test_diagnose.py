"""Diagnoses of synthetic run documents: not implemented, edge, first bad, launch error (with
the lab's launch record: the failed launch and the limit it broke), timeout, crash, and the
lab's hints taking the place of the generic ones; and the course-wide hints on compiler
messages (recorded, and from a real nvcc where one is installed)."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from grader import build, diagnose, manifest, tools
from grader.harness import CaseRun
from grader.run import Outcome
from helpers import FAKELAB, REPO, need

LAB = manifest.load(FAKELAB / "labs" / "9.1-fake")
SCALE = LAB.exercise("scale")
OFFSET = LAB.exercise("offset")


def doc(status="wrong", size=(1000, 1000), check=None, error=None):
    return {
        "schema": 1,
        "exercise": "scale",
        "size": list(size),
        "seed": 1,
        "status": status,
        "error": error,
        "check": check,
        "timing": None,
        "metrics": None,
    }


def check(rows, cols, n_bad, unwritten=0, box=None, first=None):
    return {
        "n": rows * cols,
        "rows": rows,
        "cols": cols,
        "n_bad": n_bad,
        "n_unwritten": unwritten,
        "n_nonfinite": 0,
        "first_bad": first,
        "bad_box": box,
    }


def run_of(d=None, outcome=None, problem=None):
    return CaseRun(["lab"], outcome or Outcome("exited", 0), d, problem)


def box(r0, r1, c0, c1):
    return {"row_min": r0, "row_max": r1, "col_min": c0, "col_max": c1}


def test_not_implemented():
    c = check(
        33,
        65,
        33 * 65,
        33 * 65,
        box(0, 32, 0, 64),
        {"index": 0, "row": 0, "col": 0, "expected": 1.5, "got": None, "tol": 0, "unwritten": True},
    )
    runs = [((33, 65), run_of(doc(check=c, size=(33, 65))))]
    assert diagnose.kind(runs[0][1]) == "not_implemented"
    assert diagnose.exercise_summary(LAB, SCALE, runs) == (
        "scale: not implemented yet — see TODO(9.1a) in kernels.cu"
    )
    assert "still hold the poison pattern" in diagnose.case_message(runs[0][1], 5)


def test_edge_uses_the_lab_hint_and_names_the_region():
    ok = run_of(doc(status="ok", size=(32, 32), check=check(32, 32, 0)))
    first = {
        "index": 992 * 1000 + 992,
        "row": 992,
        "col": 992,
        "expected": 3.0,
        "got": 0.0,
        "tol": 1e-6,
        "unwritten": False,
    }
    bad = run_of(doc(check=check(1000, 1000, 64, 0, box(992, 999, 992, 999), first)))
    assert diagnose.kind(bad) == "edge"
    summary = diagnose.exercise_summary(LAB, SCALE, [((32, 32), ok), ((1000, 1000), bad)])
    assert summary == (
        "scale: wrong only in rows 992–999 and columns 992–999 of the 1000×1000 output "
        "(size 1000×1000): FAKE-EDGE-HINT"
    )
    msg = diagnose.case_message(bad, 5)
    assert "64 of 1000000 checked elements wrong" in msg
    assert "first wrong element at row 992, column 992: expected 3, got 0 (tolerance 1e-06)" in msg


def test_edge_of_last_rows_only():
    c = check(1000, 1000, 8000, 0, box(992, 999, 0, 999))
    assert diagnose.is_edge(c["bad_box"], 1000, 1000)
    assert diagnose.region(c["bad_box"], 1000, 1000) == "rows 992–999 of the 1000×1000 output"


def test_whole_output_wrong_is_not_edge_and_gives_first_bad():
    first = {
        "index": 17,
        "row": 0,
        "col": 17,
        "expected": 1.5,
        "got": 2.25,
        "tol": 1e-6,
        "unwritten": False,
    }
    bad = run_of(doc(check=check(33, 65, 2000, 0, box(0, 32, 0, 64), first), size=(33, 65)))
    assert diagnose.kind(bad) == "wrong"
    summary = diagnose.exercise_summary(LAB, SCALE, [((33, 65), bad)])
    assert summary.startswith(
        "scale: at 33×65: first wrong element at row 0, column 17: "
        "expected 1.5, got 2.25 (tolerance 1e-06)"
    )
    assert diagnose.GENERIC["wrong"] in summary


def test_some_sizes_wrong_names_them():
    ok = run_of(doc(status="ok", check=check(1, 100, 0)))
    first = {
        "index": 517,
        "row": 0,
        "col": 517,
        "expected": 4.0,
        "got": 5.0,
        "tol": 0,
        "unwritten": False,
    }
    bad = run_of(doc(check=check(1, 1000, 10, 0, box(0, 0, 0, 999), first)))
    summary = diagnose.exercise_summary(LAB, OFFSET, [((100,), ok), ((1000,), bad)])
    assert summary.startswith(
        "offset: 1 of 2 sizes wrong (1000); at 1000: first wrong element "
        "at index 517: expected 4, got 5"
    )
    # with hidden cases, which the table counts but the summary never names: "public"
    hidden = dataclasses.replace(OFFSET, n_hidden=1)
    summary = diagnose.exercise_summary(LAB, hidden, [((100,), ok), ((1000,), bad)])
    assert summary.startswith("offset: 1 of 2 public sizes wrong (1000)")


def test_one_dimensional_edge():
    c = check(1, 1000, 8, 0, box(0, 0, 992, 999))
    assert diagnose.is_edge(c["bad_box"], 1, 1000)
    assert diagnose.region(c["bad_box"], 1, 1000) == "elements 992–999 of the 1000-element output"


def test_launch_errors_get_their_hint():
    for message, needle in [
        ("too many resources requested for launch", "fewer threads per block"),
        ("invalid configuration argument", "more than 1024 threads"),
        ("an illegal memory access was encountered", "out-of-bounds"),
    ]:
        err = {"kind": "launch", "message": message, "where": "harness.cu:120", "expr": "launch"}
        r = run_of(doc(status="error", error=err))
        assert diagnose.kind(r) == "launch"
        summary = diagnose.exercise_summary(LAB, SCALE, [((1000, 1000), r)])
        assert f"launch failed: {message} at harness.cu:120" in summary
        assert needle in summary


def launch_error(message, limit=None, limit_message=None, **rec):
    """A run whose launch call failed, with the lab's launch record (docs/protocol.md)."""
    record = {
        "kernel": "matmul_tiled_kernel",
        "grid": [0, 0, 1],
        "block": [32, 32, 1],
        "dynamic_smem_bytes": 0,
        "static_smem_bytes": 8192,
        "registers": 38,
        "max_threads_per_block": 1024,
        "max_dynamic_smem_bytes": 40960,
        "limit": limit,
        "limit_message": limit_message,
    }
    record.update(rec)
    err = {
        "kind": "launch",
        "message": message,
        "where": "cml_worker.c:113",
        "expr": "cudaGetLastError()",
        "launch": record,
    }
    return run_of(doc(status="error", size=(1, 1), error=err))


def test_launch_record_names_the_launch_and_the_limit():
    r = launch_error(
        "invalid configuration argument",
        "grid_zero",
        "the grid's x dimension is 0 (each must be ≥ 1)",
    )
    assert diagnose.kind(r) == "launch"
    summary = diagnose.exercise_summary(LAB, SCALE, [((1, 1), r)])
    assert summary == (
        "scale: at 1×1 the launch matmul_tiled_kernel<<<(0, 0), (32, 32), 0 B>>> (the kernel's "
        "static shared memory 8 KB, 38 registers per thread) failed (invalid configuration "
        "argument): the grid's x dimension is 0 (each must be ≥ 1): "
        + diagnose.LIMIT_ADVICE["grid_zero"]
    )
    assert "(n + TILE - 1) / TILE" in summary
    assert "more than 1024 threads" not in summary  # the guess from the message is replaced
    assert diagnose.case_message(r, 5) == (
        "launch failed: invalid configuration argument: the launch matmul_tiled_kernel<<<(0, 0), "
        "(32, 32), 0 B>>> (the kernel's static shared memory 8 KB, 38 registers per thread) (the "
        "lab's launch record): the grid's x dimension is 0 (each must be ≥ 1)"
    )


def test_launch_record_replaces_the_lab_launch_hint_and_the_bytes_guess():
    lab_hinted = dataclasses.replace(SCALE, hints={**SCALE.hints, "launch": "LAB-LAUNCH-HINT"})
    r = launch_error(
        "invalid argument",
        "smem_optin",
        "66 KB of shared memory per block (66 KB dynamic + 0 B static), over the 48 KB a block "
        "gets without the opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize)",
        kernel="chase_shared_kernel",
        grid=[1, 1, 1],
        block=[256, 1, 1],
        dynamic_smem_bytes=66 * 1024,
        static_smem_bytes=0,
        registers=None,
    )
    summary = diagnose.exercise_summary(LAB, lab_hinted, [((1, 1), r)])
    launch = "chase_shared_kernel<<<1, 256, 66 KB>>> (the kernel's static shared memory 0 B)"
    assert launch in summary
    assert "over the 48 KB a block gets without the opt-in" in summary
    assert "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize" in summary
    assert "a size in elements instead of bytes?" not in summary
    assert "LAB-LAUNCH-HINT" not in summary
    del r.doc["error"]["launch"]  # the same error without the record: the lab's hint, as before
    assert diagnose.exercise_summary(LAB, lab_hinted, [((1, 1), r)]).endswith("LAB-LAUNCH-HINT")


def test_launch_record_without_a_limit_keeps_the_message_hint():
    r = launch_error("invalid argument", kernel=None, grid=[8, 8, 2], block=[8, 8, 4])
    summary = diagnose.exercise_summary(LAB, SCALE, [((1, 1), r)])
    assert "the launch a kernel<<<(8, 8, 2), (8, 8, 4), 0 B>>>" in summary
    assert diagnose.launch_hint("invalid argument") in summary
    assert diagnose.broken_limit(diagnose.launch_record(r)) is None


def test_malformed_launch_record_is_ignored():
    malformed = (
        {"grid": [0, 1]},
        {"block": "32"},
        {"dynamic_smem_bytes": -1},
        {"grid": [True, 1, 1]},
    )
    for bad in malformed:
        r = launch_error("invalid configuration argument", "grid_zero", "x is 0", **bad)
        assert diagnose.launch_record(r) is None
        summary = diagnose.exercise_summary(LAB, SCALE, [((1, 1), r)])
        assert "launch failed: invalid configuration argument at cml_worker.c:113" in summary
        assert "more than 1024 threads" in summary
    # an unknown limit name is no finding of ours
    r = launch_error("invalid argument", "warp_size", "something new")
    assert diagnose.broken_limit(diagnose.launch_record(r)) is None


def test_launch_record_of_a_hidden_case_gives_no_values():
    r = launch_error(
        "invalid configuration argument",
        "block_threads",
        "32 × 64 = 2048 threads per block, over the device's maximum of 1024",
        block=[32, 64, 1],
        grid=[4, 4, 1],
    )
    msg = diagnose.hidden_case_message(r, 5)
    assert msg == "a kernel launch failed: more threads per block than the device allows"
    summary = diagnose.hidden_summary(LAB, SCALE, [r])
    assert summary.endswith(diagnose.LIMIT_ADVICE["block_threads"])
    assert "2048" not in summary and "64" not in summary


def test_launch_text_and_sizes():
    rec = {"kernel": "k", "grid": [1000, 1, 1], "block": [8, 8, 4], "dynamic_smem_bytes": 50000}
    assert diagnose.launch_text(rec) == "k<<<1000, (8, 8, 4), 48.8 KB>>>"
    assert diagnose.bytes_text(512) == "512 B"
    assert diagnose.bytes_text(48 * 1024) == "48 KB"


def test_setup_error_blames_the_manifest():
    err = {"kind": "setup", "message": "R must be <= 4", "where": None, "expr": None}
    r = run_of(doc(status="error", error=err))
    summary = diagnose.exercise_summary(LAB, SCALE, [((9, 9), r)])
    assert "the harness rejected this size: R must be <= 4" in summary
    assert "a case in lab.toml the harness does not accept" in summary


def test_timeout():
    r = run_of(None, Outcome("timeout", timeout_s=5), "did not finish within 5 s")
    assert diagnose.kind(r) == "timeout"
    assert diagnose.exercise_summary(LAB, SCALE, [((33, 65), r)]) == (
        "scale: did not finish within 5 s at 33×65: a barrier inside a branch some threads skip "
        "(divergent __syncthreads) or an infinite loop?"
    )


def test_crash():
    r = run_of(
        None, Outcome("signaled", signal="SIGSEGV"), "crashed (SIGSEGV) before writing its result"
    )
    assert diagnose.kind(r) == "crash"
    summary = diagnose.exercise_summary(LAB, SCALE, [((33, 65), r)])
    assert summary.startswith("scale: at 33×65 the run crashed (SIGSEGV) before writing its result")
    assert "host-side bug in the launcher" in summary


def test_a_plain_runs_host_memory_failure_is_not_called_a_cuda_call():
    """Kind "host" (common/cml_setup.c: a host allocation of the driver's outside the set-up,
    docs/protocol.md) is the run's failure, as a CUDA call's is, in its own words."""
    err = {"kind": "host", "message": "out of host memory for the problem",
           "where": "cml_setup.c:57", "expr": None, "by": "run"}
    r = run_of(doc(status="error", error=err))
    assert diagnose.kind(r) == "cuda"  # scored and hinted as a failed call of the run
    assert diagnose.case_message(r, 5) == (
        "the run failed: out of host memory for the problem at cml_setup.c:57"
    )


def test_a_plain_runs_host_memory_in_its_set_up_does_not_blame_the_manifest():
    """Host memory that ran out in the set-up is kind "host" (design note 84's follow-up; it was
    kind "setup", read as a size the harness rejects): the run's failure, with no "where"."""
    err = {
        "kind": "host",
        "message": "out of host memory for the inputs and the CPU reference",
        "where": None,
        "expr": None,
        "by": "run",
    }
    r = run_of(doc(status="error", error=err))
    assert diagnose.case_message(r, 5) == (
        "the run failed: out of host memory for the inputs and the CPU reference"
    )
    summary = diagnose.exercise_summary(LAB, SCALE, [((9, 9), r)])
    assert "lab.toml" not in summary and "rejected" not in summary


def test_passing_cases_give_no_summary():
    ok = run_of(doc(status="ok", check=check(2, 2, 0)))
    assert diagnose.exercise_summary(LAB, SCALE, [((2, 2), ok)]) is None


def test_performance_text_ratio_and_pct_of_copy():
    d = doc(status="ok")
    d["timing"] = {
        "student": {"median_ms": 2.0, "p10_ms": 1.9, "p90_ms": 2.2},
        "baseline": {"median_ms": 3.0},
        "ratio": 1.5,
    }
    d["metrics"] = {
        "gbps": 3000.0,
        "copy_gbps": 4000.0,
        "baseline_gbps": 500.0,
        "pct_of_copy": 75.0,
    }
    (ratio,) = SCALE.performance.criteria
    value, text = diagnose.performance_text(SCALE, ratio, d, "scale_naive")
    assert value == 1.5
    assert text == (
        "ratio 1.5 (scale_naive 3 ms / yours 2 ms median, p10–p90 1.9–2.2 ms); "
        "full points at ≥ 2, none at ≤ 1"
    )
    pct = manifest.Criterion("pct_of_copy", 50, 75)
    value, text = diagnose.performance_text(SCALE, pct, d, "transpose_naive")
    assert value == 75.0
    assert text.startswith("75.0 % of the copy bandwidth (3000 of 4000 GB/s")


def test_performance_text_extra_metric():
    d = doc(status="ok")
    d["timing"] = None
    d["metrics"] = {"dram_over_l2": 3.25, "flag": True}
    crit = manifest.Criterion("dram_over_l2", 1.5, 2.5)
    assert diagnose.performance_text(SCALE, crit, d, None) == (
        3.25,
        "dram_over_l2 3.25; full points at ≥ 2.5, none at ≤ 1.5",
    )
    missing = manifest.Criterion("l2_over_l1", 1, 2)
    assert diagnose.performance_text(SCALE, missing, d, None) == (
        None,
        "the performance run gave no l2_over_l1",
    )
    d["metrics_note"] = "the l2 chase computed a wrong result when timed"
    assert diagnose.performance_text(SCALE, missing, d, None) == (
        None,
        "the performance run gave no l2_over_l1: the l2 chase computed a wrong result when timed",
    )
    not_a_number = manifest.Criterion("flag", 0, 1)
    assert diagnose.performance_text(SCALE, not_a_number, d, None)[0] is None
    assert diagnose.slow_summary(SCALE, crit, 2.0).startswith("scale: dram_over_l2 2, full credit")


def test_static_and_sanitizer_hints():
    assert diagnose.static_summary(SCALE, ["k: its SASS has no LDS"], ["LDS"]).endswith(
        diagnose.GENERIC["static"]
    )
    # a hint of the lab's own for every missing pattern names it: the message is not repeated
    own = dataclasses.replace(SCALE, hints={**SCALE.hints, "static.LDS": "no LDS: load a tile"})
    assert diagnose.static_summary(own, ["k: its SASS has no LDS"], ["LDS"]) == (
        "scale: no LDS: load a tile"
    )
    assert diagnose.static_summary(own, ["k: its SASS has no LDS, BAR"], ["LDS", "BAR"]).startswith(
        "scale: k: its SASS has no LDS, BAR: "
    )
    vague = dataclasses.replace(SCALE, hints={**SCALE.hints, "static.LDS": "stage a tile"})
    assert diagnose.static_summary(vague, ["k: its SASS has no LDS"], ["LDS"]) == (
        "scale: k: its SASS has no LDS: stage a tile"
    )
    assert diagnose.sanitizer_summary(SCALE, "racecheck", ["Error: Race"]).endswith(
        "FAKE-RACE-HINT"
    )
    assert diagnose.sanitizer_summary(SCALE, "memcheck", ["Invalid"]).endswith(
        diagnose.GENERIC["memcheck"]
    )


LDL_MESSAGE = (
    "matmul_tiled_kernel: 1 LDL (local-memory load, from a spill or a run-time-indexed "
    "per-thread array) instruction in its SASS, which this exercise forbids "
    "(first: /*3840*/ LDL R4, [R4])"
)
STL_MESSAGE = LDL_MESSAGE.replace("1 LDL", "64 STL").replace("load,", "store,")


def test_a_forbidden_instruction_is_told_once_in_the_report():
    """Lab 3.3's local-memory failure: the static block lists each LDL/STL message, and the
    finding after "=>" gives the lab's hint (which names LDL/STL) without repeating the
    message (a student's trial saw it twice). A hint that does not name the instruction
    keeps the message in the finding."""
    from grader import report, scoring
    from grader.results import PART_NAMES, ExerciseResult, Grade, Part
    from grader.status import Status

    ex = manifest.load(REPO / "labs" / "3.3-tiling").exercise("matmul_tiled")
    messages = [LDL_MESSAGE, STL_MESSAGE]
    finding = diagnose.static_summary(ex, messages, [], ["LDL", "STL"])
    assert finding == f"matmul_tiled: {ex.hints['static.LDL']}"
    parts = {n: Part(n, 0, status=Status.SKIPPED) for n in PART_NAMES}
    parts["correctness"] = Part("correctness", 10, status=Status.NOT_RUN, reason="no device")
    parts["static"] = Part("static", 2, status=Status.FAILED, fraction=0, messages=messages,
                           finding=finding)
    g = Grade("3.3-tiling", "3.3", "Shared-memory tiling", "sub", None, None)
    g.exercises.append(ExerciseResult("matmul_tiled", parts))
    scoring.score(g)
    out = report.text(g)
    assert out.count(LDL_MESSAGE) == 1 and out.count(STL_MESSAGE) == 1, out
    assert out.count(ex.hints["static.LDL"]) == 1, out
    vague = dataclasses.replace(ex, hints={**ex.hints, "static.LDL": "keep values in registers"})
    assert diagnose.static_summary(vague, messages, [], ["LDL", "STL"]) == (
        f"matmul_tiled: {LDL_MESSAGE}: keep values in registers"
    )


def test_errors_spread_over_most_rows_are_not_an_edge():
    # a missing barrier (a race) on 1000×1000: rows 64–999 wrong, every column
    assert not diagnose.is_edge(box(64, 999, 0, 999), 1000, 1000)
    assert diagnose.is_edge(box(960, 999, 0, 999), 1000, 1000)
    assert not diagnose.is_edge(box(0, 999, 0, 999), 1000, 1000)
    assert not diagnose.is_edge(box(0, 0, 0, 0), 1, 1)


def test_static_hint_names_every_missing_pattern_in_manifest_order():
    rules = manifest.StaticRules(("LDS", "STS", "BAR"), ("LDL", "STL"))
    hints = {"static": "STAGE", "static.BAR": "BARRIER", "static.STL": "SPILL"}
    ex = manifest.Exercise("k", ((1,),), {}, kernel="k", static=rules, hints=hints)
    # the skeleton misses all three: LDS and STS have no hint of their own (the general one,
    # once), then the barrier's
    assert diagnose.static_hint(ex, ["BAR", "LDS", "STS"], []) == "STAGE; BARRIER"
    # only the barrier is missing: its own hint, not the one about staging
    assert diagnose.static_hint(ex, ["BAR"], ["STL"]) == "BARRIER"
    # forbidden instructions: a pattern's hint, else the generic text
    assert diagnose.static_hint(ex, [], ["LDL", "STL"]) == diagnose.GENERIC["static_forbid"]
    assert diagnose.static_hint(ex, [], ["STL"]) == "SPILL"
    # kernel not found: no missing or found patterns, no hint after its own message
    assert diagnose.static_summary(ex, ["kernel k not found"]) == "k: kernel k not found"


def test_a_static_finding_shows_two_hints_and_keeps_the_rest_for_the_json():
    """A kernel missing four required patterns (lab 3.2e's, a student's trial): the first two
    distinct hints in the manifest's order after "=>", and how many more the JSON report
    keeps (``static_hints``: all of them, each once)."""
    rules = manifest.StaticRules(("A", "B", "C", "D", "E"), ())
    hints = {"static": "GENERAL", "static.A": "FIX A", "static.B": "FIX B", "static.D": "FIX D"}
    ex = manifest.Exercise("k", ((1,),), {}, kernel="k", static=rules, hints=hints)
    missing = ["E", "D", "C", "B", "A"]
    assert diagnose.static_hints(ex, missing, []) == ["FIX A", "FIX B", "GENERAL", "FIX D"]
    finding = diagnose.static_summary(ex, ["k: its SASS has no A, B, C, D, E"], missing)
    assert finding == (
        "k: k: its SASS has no A, B, C, D, E: FIX A; FIX B "
        "(2 more in the JSON report, --json: the static part's details)"
    )
    # two distinct hints (C and E share the general one): both, nothing said of more
    two = diagnose.static_summary(ex, ["k: its SASS has no C, E, A"], ["A", "C", "E"])
    assert two == "k: k: its SASS has no C, E, A: FIX A; GENERAL"
    # the lab's own 3.2e: its four hints were about 1,000 characters after "=>"
    lab32 = manifest.load(REPO / "labs" / "3.2-global-memory").exercise("async_copy")
    need = list(lab32.static.require)
    shown = diagnose.static_summary(lab32, ["async_copy_kernel: its SASS shows none of: ..."], need)
    assert shown.endswith(
        f": {lab32.hints['static.async_copy']}; {lab32.hints['static.async_wait']} (2 more in "
        "the JSON report, --json: the static part's details)"
    ), shown


def test_an_exercise_not_begun_is_said_once():
    """On a GPU the skeleton's correctness and its static part both find "not implemented
    yet": the exercise's findings say it once."""
    from grader.results import PART_NAMES, ExerciseResult, Part

    parts = {n: Part(n, 1) for n in PART_NAMES}
    text = diagnose.not_implemented(LAB, SCALE)
    parts["correctness"].finding = parts["static"].finding = text
    exr = ExerciseResult("scale", parts, warnings=["kernels.cu:3: look"])
    assert exr.findings == [text, "warning: kernels.cu:3: look"]


def test_lab_3_2_release_check_reads_in_the_courses_words():
    """Lab 3.2a's buffer left page-locked by host_copy_free: the harness's message
    (test_harness_messages.py) says what it found and the fix, the CUDA error's name in
    parentheses, and the lab's hint does not contradict it (CUDA's own "part or all of the
    requested memory range is already mapped" misled a student's trial)."""
    from test_harness_messages import saying_messages

    lab = manifest.load(REPO / "labs" / "3.2-global-memory")
    ex = lab.exercise("host_copy")
    text = (REPO / "labs" / "3.2-global-memory" / "harness.cu").read_text()
    expr = "host_copy_expect_released(h)"
    message = saying_messages(text)[expr]
    err = {"kind": "cuda", "message": message, "where": "harness.cu:351", "expr": expr}
    runs = [((1,), run_of(doc("error", (1,), error=err)))]
    line = diagnose.exercise_summary(lab, ex, runs)
    assert line == (
        f"host_copy: at 1 a CUDA call failed: {message} at harness.cu:351 ({expr}): "
        f"{ex.hints['launch']}"
    )
    assert "already mapped" not in line and line.count("a CUDA call failed") == 1, line
    assert "host_copy_expect_released, the message says" in ex.hints["launch"]


def test_a_race_of_known_kind_gets_that_kinds_hint():
    report = ["Error: Race reported between Write access at k(...)+0x380 in kernels.cu:85"]
    war = diagnose.sanitizer_summary(SCALE, "racecheck", report, "WAR")
    assert war.startswith("scale: racecheck: Error: Race reported between Write access")
    assert "write-after-read race" in war and "end of a loop" in war
    # the lab's own words about its barriers follow the kind's
    lab_hinted = manifest.Exercise("k", ((1,),), {}, hints={"racecheck": "LAB-BARRIERS"})
    assert diagnose.sanitizer_summary(lab_hinted, "racecheck", report, "WAR").endswith(
        "refills shared memory); here: LAB-BARRIERS"
    )
    own = manifest.Exercise("k", ((1,),), {}, hints={"racecheck_war": "LAB-WAR"})
    assert diagnose.sanitizer_summary(own, "racecheck", report, "WAR").endswith(": LAB-WAR")
    assert "read-after-write race" in diagnose.sanitizer_summary(SCALE, "racecheck", report, "RAW")
    # kind unknown (the hazard report printed none): the tool's hint, as before
    assert diagnose.sanitizer_summary(SCALE, "racecheck", report).endswith(
        diagnose.hint(SCALE, "racecheck")
    )


def test_a_band_of_a_small_table_is_not_a_partial_tile():
    """Lab 3.1b's 4x5 table of chase results with its last column wrong, and lab 3.5d's
    3-element output with its last element wrong, were told to handle a partial last tile
    (H200, 2026-12-01): too short a dimension for one."""
    assert not diagnose.is_edge(box(1, 3, 4, 4), 4, 5)
    assert not diagnose.is_edge(box(0, 0, 2, 2), 1, 3)
    assert diagnose.is_edge(box(0, 31, 31, 32), 33, 33)  # a 33-wide output's last column


def test_a_pending_ramp_names_the_thresholds_of_the_gpu_graded_on():
    """ramp_text with the judge's device (note 76): a performance part left pending on an
    H100 says the H100's ramp, and whose; without a device, or on another, the H200's."""
    transpose = manifest.load(REPO / "labs" / "3.3-tiling").exercise("transpose_tiled")
    h100 = diagnose.ramp_text(transpose, {"name": "NVIDIA H100 80GB HBM3"})
    assert h100.endswith("full points at ≥ 78, none at ≤ 66 (the thresholds measured on the "
                         "H100 80GB HBM3)"), h100
    for device in ({"name": "NVIDIA H200"}, {"name": "NVIDIA H100 80GB HBM3 MIG 1g.10gb"}):
        assert diagnose.ramp_text(transpose, device).endswith(
            "full points at ≥ 47.5, none at ≤ 45"
        ), device
    # no GPU seen (a student's laptop): the H200's ramp, and the other GPUs' (an instructor
    # trial's finding: an H100 owner read the H200's bar as theirs)
    assert diagnose.ramp_text(transpose, None).endswith(
        "full points at ≥ 47.5, none at ≤ 45 (the H200's; on an H100 80GB HBM3: full at ≥ 78, "
        "none at ≤ 66; each card's figure against its own roof, timed in the same run)"
    )


# Compiler messages every lab can meet (diagnose.compiler_hints), as nvcc 13.0 printed them
# for sm_90 at the course's -O3 (recorded on the CPU machine, session 34), in the form the
# grader's build log holds: full paths, make's progress lines.
CONSTANT_STORE_LOG = """\
  NVCC    /tmp/g/src/kernels.cu
warning: /tmp/g/src/kernels.cu(61): Warning: Cannot store to pointer that points to constant memory space
  LINK    /tmp/g/out/lab
"""
CONSTANT_TOO_BIG_LOG = """\
  NVCC    /tmp/g/src/kernels.cu
ptxas error   : File uses too much global constant data (0x10004 bytes, 0x10000 max)
make: *** [Makefile:112: /tmp/g/out/kernels.cu.o] Error 255
"""
SRC, OUT = Path("/tmp/g/src"), Path("/tmp/g/out")
STORE_MARK = "__constant__ memory is read-only in a kernel"
TOO_BIG_MARK = "__constant__ memory holds at most 64 KiB (65536 bytes) per file"


def test_a_store_to_constant_memory_is_explained_after_the_warning():
    """The warning alone does not say that the build succeeded with a kernel that traps:
    the build step's lines add what it means and the fix (cudaMemcpyToSymbol)."""
    shown = build.warnings(CONSTANT_STORE_LOG, SRC, OUT)
    assert shown[0] == (
        "warning: kernels.cu(61): Warning: Cannot store to pointer that points to constant "
        "memory space"
    )
    (hint_line,) = shown[1:]
    assert hint_line.startswith(f"=> kernels.cu(61): {STORE_MARK}")
    assert "trap" in hint_line and "cudaMemcpyToSymbol" in hint_line


def test_too_much_constant_data_names_the_limit_the_bytes_and_the_fix():
    shown = build.failure_summary(CONSTANT_TOO_BIG_LOG, SRC, OUT)
    assert shown[0].startswith("ptxas error   : File uses too much global constant data")
    assert shown[-1] == (
        f"=> {TOO_BIG_MARK}, and this file's __constant__ variables take 65540 bytes, 4 too "
        "many. Keep a large table in global memory (cudaMalloc, then cudaMemcpy from the "
        "host) and read it through the read-only path: pass it as const float *__restrict__ "
        "and read __ldg(&table[i]); __constant__ suits a few coefficients the whole warp "
        "reads at the same index"
    )


def test_other_compiler_lines_get_no_hint():
    assert diagnose.compiler_hints(
        ['kernels.cu(12): warning #177-D: variable "t" was declared but never referenced',
         'kernels.cu(57): error: identifier "tile" is undefined']
    ) == []


STORE_SRC = """\
__constant__ float c_coef[9];
__global__ void fill(const float *in) {
    c_coef[threadIdx.x % 9] = in[threadIdx.x];  // line 3: no write, a trap
}
"""
TOO_BIG_SRC = """\
__constant__ float c_table[16385];  // 65540 bytes: one float over 64 KiB
__global__ void lookup(const int *idx, float *out) { out[0] = c_table[idx[0]]; }
"""


def _nvcc(folder: Path, source: str, *flags: str) -> tuple[int, str]:
    """``source`` compiled as the course compiles (-O3, sm_90): (exit status, output)."""
    need("nvcc")
    (folder / "kernels.cu").write_text(source)
    nvcc = tools.find("nvcc")
    done = subprocess.run(
        [nvcc.path, "-std=c++17", "-O3", "-arch=sm_90", "-lineinfo", *flags,
         str(folder / "kernels.cu")],
        cwd=folder, capture_output=True, text=True, check=False,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.slow
def test_real_compiler_messages_about_constant_memory_are_explained(tmp_path):
    """The hints match what nvcc prints, and say what it does: the store compiles (a
    warning) into a kernel whose PTX is a trap; 64 KiB + 4 bytes fails ptxas."""
    code, log = _nvcc(tmp_path, STORE_SRC, "-c", "-o", str(tmp_path / "k.o"))
    assert code == 0, log
    shown = build.warnings(log, tmp_path, tmp_path)
    assert shown[-1].startswith(f"=> kernels.cu(3): {STORE_MARK}"), shown
    code, ptx = _nvcc(tmp_path, STORE_SRC, "-ptx", "-o", "-")
    body = ptx[ptx.index(".entry"):]
    assert code == 0 and "trap;" in body and "st.const" not in body, body

    code, log = _nvcc(tmp_path, TOO_BIG_SRC, "-c", "-o", str(tmp_path / "k.o"))
    assert code != 0
    shown = build.failure_summary(log, tmp_path, tmp_path)
    assert shown[-1].startswith(f"=> {TOO_BIG_MARK}, and this file's __constant__ variables "
                                "take 65540 bytes, 4 too many"), shown


# -- a wrong border rule (lab 3.5: a zero-padded blur halo) ------------------------------

LAB35 = manifest.load(REPO / "labs" / "3.5-project")
BLUR = LAB35.exercise("gaussian_blur")


def check_of_map(bad: list[list[bool]]) -> dict:
    """The run document's ``check`` of a mismatch map (True: a wrong element), as the
    harness's comparison writes it: a row-major scan, the first bad element and the
    bounding box of all of them (common/cml_compare.c)."""
    rows, cols = len(bad), len(bad[0])
    cells = [(r, c) for r in range(rows) for c in range(cols) if bad[r][c]]
    out = check(rows, cols, len(cells))
    if cells:
        r, c = cells[0]
        out["first_bad"] = {"index": r * cols + c, "row": r, "col": c, "expected": 120.5,
                            "got": 80.25, "tol": 1e-3, "unwritten": False}
        out["bad_box"] = box(min(r for r, _ in cells), max(r for r, _ in cells),
                             min(c for _, c in cells), max(c for _, c in cells))
    return out


def mismatch(rows: int, cols: int, wrong) -> dict:
    return check_of_map([[bool(wrong(r, c)) for c in range(cols)] for r in range(rows)])


def near_border(rows: int, cols: int, radius: int):
    """The pixels a zero-padded halo of ``radius`` gets wrong: those within it of a side."""
    return lambda r, c: min(r, c, rows - 1 - r, cols - 1 - c) < radius


def blur_runs(wrong_of_size) -> list:
    """gaussian_blur's cases, each run's check made from a mismatch map."""
    runs = []
    for size in ((1, 1, 1), (33, 31, 4), (257, 129, 9), (2048, 64, 1)):
        w, h, r1 = size
        c = mismatch(h, w, wrong_of_size(h, w, r1 - 1))
        status = "wrong" if c["n_bad"] else "ok"
        runs.append((size, run_of(doc(status=status, size=size, check=c))))
    return runs


def test_a_border_only_error_leads_with_the_edge_hint():
    """A zero-padded blur halo: every output within the radius of a side is wrong (radius 0
    passes). The summary leads with lab 3.5's edge hint (its border rule), not with the
    weights' upload, and still gives the general hint after it."""
    runs = blur_runs(lambda h, w, r: near_border(h, w, r))
    assert [diagnose.kind(run) for _, run in runs] == ["ok", "border", "border", "ok"]
    summary = diagnose.exercise_summary(LAB35, BLUR, runs)
    assert summary.startswith(
        "gaussian_blur: 2 of 4 sizes wrong (33×31×4, 257×129×9); at 33×31×4: 348 of 1023 "
    ), summary
    lead, rest = summary.split(": wrong along the image's border? ", 1)
    assert rest.startswith(BLUR.hints["edge"]), summary
    assert rest.index(BLUR.hints["edge"]) < rest.index(BLUR.hints["wrong"]), summary
    assert "from the corner (row 0, column 0)" in lead
    # a hidden case of the same kind gets the border rule too, without its size
    text = diagnose.hidden_summary(LAB35, BLUR, [runs[1][1]])
    assert text.endswith(BLUR.hints["edge"]) and "33" not in text


def test_errors_everywhere_or_scattered_are_no_border():
    """Weights not uploaded: every pixel wrong (the weights' hint leads). A race: a few
    pixels here and there, the first not at the corner. A wrong right edge: a partial
    tile's band (``edge``)."""
    everywhere = blur_runs(lambda h, w, r: lambda y, x: r > 0)
    assert [diagnose.kind(run) for _, run in everywhere][1:3] == ["wrong", "wrong"]
    summary = diagnose.exercise_summary(LAB35, BLUR, everywhere)
    assert BLUR.hints["wrong"] in summary and BLUR.hints["edge"] not in summary
    scattered = mismatch(129, 257, lambda y, x: (y * 257 + x) % 97 == 5)
    assert diagnose.kind(run_of(doc(check=scattered))) == "wrong"
    right = mismatch(129, 257, lambda y, x: x >= 240)
    assert diagnose.kind(run_of(doc(check=right))) == "edge"
    # a border error on most of a small image (more than half wrong) stays "wrong"
    small = mismatch(17, 31, near_border(17, 31, 8))
    assert diagnose.kind(run_of(doc(check=small))) == "wrong"
    # one row or one column has no corner to start from
    assert not diagnose.is_border(mismatch(1, 100, lambda y, x: x < 3))

"""bench/class_batch.py, the class a batch's throughput is measured on (issue 15): extended to
100 students, and the expectation that an alternative keeps the parts its fixture lists."""

from __future__ import annotations

import importlib.util
import json

import pytest

from helpers import REPO

spec = importlib.util.spec_from_file_location("class_batch", REPO / "bench" / "class_batch.py")
class_batch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(class_batch)


@pytest.mark.instructors
def test_a_class_extended_to_100(tmp_path):
    assert class_batch.make(tmp_path / "class", 100) == 0
    expected = json.loads((tmp_path / "class" / "expected.json").read_text())
    assert len(expected) == 100
    assert len([p for p in (tmp_path / "class").iterdir() if p.name != "expected.json"]) == 100
    alternatives = {k: v for k, v in expected.items() if k.startswith("b")}
    assert alternatives and all(v["keeps"] for v in alternatives.values())
    # the base class first, then the lab's alternatives, then copies of the solution
    assert "s01_reference" in expected and "h01_kernel_infinite_loop" in expected


@pytest.mark.instructors
def test_a_class_cut_to_10_keeps_some_of_every_kind(tmp_path, monkeypatch, capsys):
    """``make --size 10`` (an instructor's trial: it wrote the class of 51 and exited 1): ten
    students, the reference and the skeleton, then hostile and known-bad ones half and half,
    each with its id and expectation in the whole class, and exit 0; a size under 1 is
    refused before anything is written."""
    class_batch.make(tmp_path / "whole")
    whole = json.loads((tmp_path / "whole" / "expected.json").read_text())
    monkeypatch.setattr(class_batch.sys, "argv",
                        ["class_batch.py", "make", "--size", "10", str(tmp_path / "cut")])
    assert class_batch.main() == 0
    said = capsys.readouterr().out
    assert (f"10 submissions in {tmp_path / 'cut'} (the class of {len(whole)} cut to --size 10: "
            "the reference and the skeleton, 4 of its 20 hostile, 4 of its ") in said, said
    expected = json.loads((tmp_path / "cut" / "expected.json").read_text())
    assert len([p for p in (tmp_path / "cut").iterdir() if p.name != "expected.json"]) == 10
    assert expected == {k: v for k, v in whole.items() if k in expected} and len(expected) == 10
    assert [k[0] for k in expected] == list("sskkkkhhhh"), list(expected)
    hostile = [k for k in expected if k[0] == "h"]  # spread, not h01-h04 (hangs, a fork bomb)
    assert hostile != [k for k in whole if k[0] == "h"][:4]
    assert "h01_kernel_infinite_loop" in hostile
    with pytest.raises(SystemExit, match="--size 0: give 1 or more"):
        class_batch.make(tmp_path / "none", 0)
    assert not (tmp_path / "none").exists()


@pytest.mark.instructors
def test_the_class_is_graded_in_a_fixed_order_uncorrelated_with_the_kind(tmp_path):
    """``class_order`` (design note 73): every submission once, the same order each time, and
    the hostile and known-bad fixtures (h, k), which id order puts in the last quarter of the
    class of 100, spread over it; ``--in-id-order`` keeps the id order."""
    class_batch.make(tmp_path / "class", 100)
    subs = [p for p in (tmp_path / "class").iterdir() if p.name != "expected.json"]
    order = class_batch.class_order(subs)
    assert sorted(order) == sorted(subs) and order == class_batch.class_order(subs[::-1])
    heavy = [i for i, p in enumerate(sorted(subs)) if p.name[0] in "hk"]
    assert min(heavy) >= 25  # in id order: none in the first quarter
    spread = [i for i, p in enumerate(order) if p.name[0] in "hk"]
    assert len(spread) == len(heavy) and sum(i < 50 for i in spread) >= len(spread) // 3, spread


def _report(points):
    parts = {"correctness": {"points": 10, "max": 10}, "performance": {"points": points, "max": 5}}
    return {"exercises": [{"name": "matmul_tiled", "parts": parts}]}


def test_an_alternative_that_loses_a_kept_part_is_not_as_expected():
    row = {"total": "15", "max": "20", "status": "graded"}
    expect = {"total": "any", "keeps": {"matmul_tiled": ["correctness", "performance"]}}
    assert class_batch._check("b", row, _report(5), expect, True, True) == []
    (problem,) = class_batch._check("b", row, _report(2.5), expect, True, True)
    assert "matmul_tiled performance: 2.5/5" in problem
    assert class_batch._check("b", row, None, expect, True, True) == ["no report"]


def test_an_alternative_may_lose_what_another_gpus_thresholds_take():
    """expected.json's ``loses_on`` (from the fixture, design note 76): on that GPU the part
    it names may lose points; on another it must still keep them."""
    row = {"total": "15", "max": "20", "status": "graded"}
    expect = {
        "total": "any",
        "keeps": {"matmul_tiled": ["correctness", "performance"]},
        "loses_on": {"H100 80GB HBM3": ["performance"]},
    }
    h100 = {**_report(0), "device": {"name": "NVIDIA H100 80GB HBM3"}}
    assert class_batch._check("b", row, h100, expect, True, True) == []
    h200 = {**_report(0), "device": {"name": "NVIDIA H200"}}
    (problem,) = class_batch._check("b", row, h200, expect, True, True)
    assert "matmul_tiled performance: 0/5" in problem


@pytest.mark.instructors
def test_a_class_made_twice_is_the_same_bytes(tmp_path, monkeypatch):
    """A batch resumed over the class made again skips the students it graded only if their
    archives did not change: g90b and g90c (bench/h200-2026-12-04-session23) regraded every
    zip and tarball, made with the clock's date."""
    clock = iter([1.0e9, 1.5e9])
    class_batch.make(tmp_path / "a")
    monkeypatch.setattr(class_batch.time, "time", lambda: next(clock, 2.0e9))
    class_batch.make(tmp_path / "b")
    archives = sorted(p.name for p in (tmp_path / "a").iterdir() if p.suffix in (".zip", ".gz"))
    assert any(a.endswith(".zip") for a in archives) and any(a.endswith(".gz") for a in archives)
    for name in archives:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_a_batch_without_the_reference_reads_its_sandbox_from_another_report(tmp_path):
    """``run --only h16`` grades no s01_reference: the sandbox and the memory limit are read
    from the report there is, so that h16's expectation (it needs a memory limit) is checked,
    not waved through as it was in g108's first summary."""
    student = tmp_path / "grading-1" / "h16_host_memory_hog"
    student.mkdir(parents=True)
    (student / "report.txt").write_text(
        "  sandbox      passed  bubblewrap\n  at most 512 processes and 6 GiB of memory per run\n")
    (student / "report.json").write_text(json.dumps({"exercises": []}))
    row = {"id": "h16_host_memory_hog", "total": "43", "max": "63", "status": "graded"}
    expect = {"total": "partial", "says": "killed for using more than 6 GiB", "needs": "memory"}
    lab_toml = (REPO / "labs" / class_batch.LAB / "lab.toml").read_bytes()
    rc = class_batch.summarize(tmp_path, {"h16_host_memory_hog": expect}, [{row["id"]: row}],
                               [(1.0, 0)], lab_toml, once=True)
    text = (tmp_path / "summary.txt").read_text()
    assert "course tree: unchanged" in text  # so rc 1 is the verdict's
    assert "sandbox: bubblewrap" in text and "memory limit per run: yes" in text
    assert "NOT AS EXPECTED: the report does not say 'killed" in text and rc == 1


def test_class_progress_counts_the_students_finished_by_each_time(tmp_path, capsys):
    """bench/throughput/class_progress.py reads a batch's log: only "[K/N] …(elapsed S s" lines
    count, a student finished at the time itself is counted by it, and a log with none says
    so (the session 29-30 tables of students graded by 100, 200, … s)."""
    spec = importlib.util.spec_from_file_location(
        "class_progress", REPO / "bench" / "throughput" / "class_progress.py")
    progress = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(progress)
    log = tmp_path / "grading-1.log"
    log.write_text(
        "batch: .scratch/class100/grading-1 inside the course tree\n"
        "[1/100] b051: 63/63 graded (elapsed 41 s, ~4043 s left)\n"
        "[2/100] a01: 63/63 graded (elapsed 100 s, ~2145 s left)\n"
        "note (elapsed 5 s) not a student's line\n"
        "[3/100] z01_mallory: 0/63 rejected: member '../x' (elapsed 527 s, ~93 s left)\n")
    empty = tmp_path / "empty.log"
    empty.write_text("batch: nothing graded\n")
    assert progress.finished_at(log.read_text()) == [41, 100, 527]
    assert progress.graded_by([41, 100, 527], [99, 100, 600]) == [1, 2, 3]
    assert progress.main([str(log), str(empty), "--at", "100,530"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "| log | 100 s | 530 s | last |"
    assert rows[2].endswith("| 2 | 3 | 3 at 527 s |") and rows[3].endswith("| 0 | 0 | none |")

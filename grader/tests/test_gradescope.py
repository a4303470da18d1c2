"""Gradescope's results.json (grader/gradescope.py) on the fake lab: the document's shape,
its numbers against the JSON report of the same grading, not-run parts never passed, and
the leaderboard only when performance was measured."""

from __future__ import annotations

import json

from grader import gradescope
from grader import grade as grading
from test_pipeline_fake import grade, variant

TEST_KEYS = {"name", "number", "score", "max_score", "status", "output", "visibility", "tags"}


def both(capsys, fake_root, tmp_path, sub, *extra):
    """Grades ``sub`` once through the CLI: (exit status, stdout, JSON report, results.json)."""
    gs_path = tmp_path / "results.json"
    code, out, _, rep = grade(
        capsys, fake_root, sub, "--gradescope", gs_path, *extra, json_path=tmp_path / "r.json"
    )
    return code, out, rep, json.loads(gs_path.read_text())


def check_shape(doc: dict, rep: dict) -> None:
    """The fields Gradescope reads, and the numbers of the report they come from."""
    assert isinstance(doc["execution_time"], int) and doc["execution_time"] >= 0
    assert doc["score"] == rep["total"]
    assert doc["output"].startswith("CUDA Memory Labs grader")
    for t in doc["tests"]:
        assert set(t) == TEST_KEYS
        assert t["status"] in ("passed", "failed") and t["visibility"] == "visible"
        assert 0 <= t["score"] <= t["max_score"]
    assert sum(t["max_score"] for t in doc["tests"]) == rep["max"]
    expected = [
        (f"{ex['name']}: {name}", part["max"])
        for ex in rep["exercises"]
        for name, part in ex["parts"].items()
        if part["max"] > 0
    ]
    assert [(t["name"], t["max_score"]) for t in doc["tests"]] == expected
    assert len({t["number"] for t in doc["tests"]}) == len(doc["tests"])


def test_solution_with_a_device_passes_every_test(fake_root, fake_gpu, capsys, tmp_path):
    sol = fake_root / "solutions" / "9.1-fake"
    code, out, rep, doc = both(capsys, fake_root, tmp_path, sol)
    assert code == 0, out
    check_shape(doc, rep)
    assert doc["score"] == 17
    assert doc["output"] == out  # the text report, as printed
    assert {t["status"] for t in doc["tests"]} == {"passed"}
    assert all(t["score"] == t["max_score"] for t in doc["tests"])
    assert doc["tests"][0]["name"] == "scale: correctness" and doc["tests"][0]["number"] == "1.1"
    assert doc["leaderboard"] == [{"name": "scale ratio", "value": 2.5, "order": "desc"}]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".results-")] == []


def test_without_a_device_not_run_parts_fail_with_not_run(fake_root, capsys, tmp_path):
    sol = fake_root / "solutions" / "9.1-fake"
    code, out, rep, doc = both(capsys, fake_root, tmp_path, sol)
    assert code == 3, out
    check_shape(doc, rep)
    assert "leaderboard" not in doc
    parts = {
        f"{ex['name']}: {name}": part
        for ex in rep["exercises"]
        for name, part in ex["parts"].items()
    }
    not_run = [t for t in doc["tests"] if parts[t["name"]]["points"] is None]
    assert not_run, "some part is pending without a device"
    for t in not_run:
        assert t["status"] == "failed" and t["score"] == 0, t
        assert t["output"].startswith("not run: "), t
    correctness = next(t for t in doc["tests"] if t["name"] == "scale: correctness")
    assert correctness["output"].startswith("not run: no CUDA device")
    # the static check ran and passed, but its points wait for correctness: not passed
    static = next(t for t in doc["tests"] if t["name"] == "scale: static")
    assert static["status"] == "failed" and "correctness did not run" in static["output"]
    assert "passed" not in {t["status"] for t in doc["tests"]}


def test_lost_points_and_no_perf(fake_root, fake_gpu, capsys, tmp_path):
    sub = variant(
        fake_root,
        tmp_path,
        "out[i] = 2.0f * in[i] + 1.0f;",
        "out[i] = (i / cols >= 32 && i % cols >= 32) ? 0.0f : 2.0f * in[i] + 1.0f;",
    )
    code, out, rep, doc = both(capsys, fake_root, tmp_path, sub, "--no-perf")
    assert code == 1, out
    check_shape(doc, rep)
    assert doc["score"] == rep["total"] == 6
    tests = {t["name"]: t for t in doc["tests"]}
    assert tests["scale: correctness"]["score"] == 3
    assert tests["scale: correctness"]["status"] == "failed"
    # sanitizer ran clean but the correctness gate took its points
    assert tests["scale: sanitizer"]["score"] == 0
    assert tests["scale: sanitizer"]["status"] == "failed"
    perf = tests["scale: performance"]
    assert perf["status"] == "failed" and perf["output"].startswith("not run: left out")
    assert "leaderboard" not in doc


def test_results_of_a_grade_object(fake_root, fake_gpu):
    g = grading.grade(
        fake_root / "labs" / "9.1-fake",
        grading.Options(submission=fake_root / "solutions" / "9.1-fake", performance=False),
    )
    doc = gradescope.results(g, 2.6)
    assert doc["execution_time"] == 3
    assert doc["score"] == g.total
    assert sum(t["max_score"] for t in doc["tests"]) == g.max
    assert "leaderboard" not in doc
    json.dumps(doc)  # serialisable as it is

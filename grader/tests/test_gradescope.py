"""Gradescope's results.json (grader/gradescope.py) on the fake lab: the document's shape,
its numbers against the JSON report of the same grading, not-run parts never passed, and
the leaderboard only when performance was measured."""

from __future__ import annotations

import pytest

import json

from grader import gradescope, tools
from grader import grade as grading
from test_pipeline_fake import course_with, grade, variant

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

TEST_KEYS = {"name", "number", "score", "max_score", "status", "output", "visibility", "tags"}
# a pending part: neither passed nor failed, so no score, max_score or status
PENDING_KEYS = {"name", "number", "output", "visibility", "tags", "extra_data"}


def both(capsys, fake_root, tmp_path, sub, *extra):
    """Grades ``sub`` once through the CLI: (exit status, stdout, JSON report, results.json)."""
    gs_path = tmp_path / "results.json"
    code, out, _, rep = grade(
        capsys, fake_root, sub, "--gradescope", gs_path, *extra, json_path=tmp_path / "r.json"
    )
    return code, out, rep, json.loads(gs_path.read_text())


def max_of(t: dict) -> int:
    return t["max_score"] if "max_score" in t else t["extra_data"]["max_score"]


def check_shape(doc: dict, rep: dict) -> None:
    """The fields Gradescope reads, and the numbers of the report they come from."""
    assert isinstance(doc["execution_time"], int) and doc["execution_time"] >= 0
    assert doc["score"] == rep["total"]
    pending = sum(
        part["max"]
        for ex in rep["exercises"]
        for part in ex["parts"].values()
        if part["points"] is None and part["max"] > 0
    )
    assert doc["extra_data"] == {"final": rep["final"], "pending_points": pending}
    head = "CUDA Memory Labs grader" if rep["final"] else "NOT A FINAL GRADE: "
    assert doc["output"].startswith(head)
    for t in doc["tests"]:
        if "pending" in t["tags"]:
            assert set(t) == PENDING_KEYS and t["extra_data"]["pending"] is True
            assert t["output"].startswith(("pending, not run yet: ", "pending, ran, its "))
        else:
            assert set(t) == TEST_KEYS
            assert t["status"] in ("passed", "failed") and 0 <= t["score"] <= t["max_score"]
        assert t["visibility"] == "visible"
    assert sum(max_of(t) for t in doc["tests"]) == rep["max"]
    expected = [
        (f"{ex['name']}: {name}", part["max"])
        for ex in rep["exercises"]
        for name, part in ex["parts"].items()
        if part["max"] > 0
    ]
    assert [(t["name"].split(" (")[0], max_of(t)) for t in doc["tests"]] == expected
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


def test_a_run_measured_not_scored_is_on_the_leaderboard(fake_root, fake_gpu, capsys, tmp_path):
    """lab.toml scored = false: no test carries its 0 points, but its measured figure is on
    the leaderboard like a scored one's (the handouts say its figure is shown)."""
    course = course_with(fake_root, tmp_path, "performance = 4 }\n", "performance = 0 }\n")
    toml = course / "labs" / "9.1-fake" / "lab.toml"
    toml.write_text(
        toml.read_text().replace("zero = 1.0\n", "").replace("full = 2.0\n", "scored = false\n")
    )
    code, out, rep, doc = both(capsys, course, tmp_path, course / "solutions" / "9.1-fake")
    assert code == 0, out
    check_shape(doc, rep)
    assert not any("performance" in t["name"] for t in doc["tests"])
    assert doc["leaderboard"] == [{"name": "scale ratio", "value": 2.5, "order": "desc"}]


def test_without_a_device_not_run_parts_are_pending_never_failed(fake_root, capsys, tmp_path):
    sol = fake_root / "solutions" / "9.1-fake"
    code, out, rep, doc = both(capsys, fake_root, tmp_path, sol)
    assert code == 3, out
    check_shape(doc, rep)
    assert "leaderboard" not in doc
    assert doc["score"] == 0 and doc["extra_data"] == {"final": False, "pending_points": 17}
    # not a final grade, and why, before anything else
    first = doc["output"].splitlines()[0]
    assert first.startswith("NOT A FINAL GRADE: 17 of 17 points are pending on checks that did "
                            "not run (correctness, sanitizer, performance — no CUDA device")
    assert doc["output"].endswith(out)  # then the text report, as printed
    # every part is pending: no score, no status — neither passed nor failed
    assert all("pending" in t["tags"] for t in doc["tests"])
    assert not any("status" in t or "score" in t for t in doc["tests"])
    correctness = next(t for t in doc["tests"] if t["name"].startswith("scale: correctness"))
    assert correctness["name"] == "scale: correctness (6 points pending: not run yet)"
    assert correctness["output"].startswith("pending, not run yet: no CUDA device")
    # the static check ran and passed, but its points wait for correctness: pending too
    static = next(t for t in doc["tests"] if t["name"].startswith("scale: static"))
    assert static["name"] == "scale: static (2 points pending: ran, its points wait)", static
    assert static["output"].startswith("pending, ran, its points wait: its points need every")
    assert "correctness did not run" in static["output"]
    assert "\nstatic       passed" in static["output"]


def test_a_partial_grade_scores_what_was_earned_and_names_the_pending(
    fake_root, fake_gpu, capsys, tmp_path, monkeypatch
):
    # a GPU, but no compute-sanitizer: every other point is earned, the sanitizer's pending
    real_find = tools.find
    monkeypatch.setattr(
        tools, "find", lambda n, env=None: None if n == "compute-sanitizer" else real_find(n, env)
    )
    code, out, rep, doc = both(capsys, fake_root, tmp_path, fake_root / "solutions" / "9.1-fake")
    assert code == 3, out
    check_shape(doc, rep)
    assert doc["score"] == rep["total"] == 15  # earned so far, never 0
    assert doc["extra_data"] == {"final": False, "pending_points": 2}
    assert doc["output"].splitlines()[0] == (
        "NOT A FINAL GRADE: 2 of 17 points are pending on checks that did not run (sanitizer "
        f"— {tools.not_found('compute-sanitizer')}). The score, 15, counts only the points "
        "earned so far; the pending tests are neither passed nor failed. Grade again where "
        "those checks can run."
    )
    tests = {t["name"]: t for t in doc["tests"]}
    san = tests["scale: sanitizer (2 points pending: not run yet)"]
    assert "status" not in san and "score" not in san and "max_score" not in san
    assert san["extra_data"] == {
        "pending": True, "max_score": 2, "reason": tools.not_found("compute-sanitizer"),
    }
    others = [t for t in doc["tests"] if t is not san]
    assert {t["status"] for t in others} == {"passed"}
    assert sum(t["score"] for t in others) == 15


def test_after_a_build_failure_every_part_is_a_certain_loss(fake_root, capsys, tmp_path):
    sub = variant(fake_root, tmp_path, "*speed = 2.5;", "*speed = 2.5 +;")
    code, out, rep, doc = both(capsys, fake_root, tmp_path, sub)
    assert code == 1, out
    check_shape(doc, rep)
    assert doc["score"] == 0 and doc["extra_data"] == {"final": True, "pending_points": 0}
    assert all(t["status"] == "failed" and t["score"] == 0 for t in doc["tests"])
    for t in doc["tests"]:
        assert t["output"].startswith("not run: the build failed — 0 points, lost for certain")


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
    # left out, but the correctness gate took its points anyway: a certain loss
    perf = tests["scale: performance"]
    assert perf["status"] == "failed" and perf["output"].startswith(
        "not run: left out (--no-perf) — 0 points, lost for certain"
    )
    assert "leaderboard" not in doc


def test_results_of_a_grade_object(fake_root, fake_gpu):
    g = grading.grade(
        fake_root / "labs" / "9.1-fake",
        grading.Options(submission=fake_root / "solutions" / "9.1-fake", performance=False),
    )
    doc = gradescope.results(g, 2.6)
    assert doc["execution_time"] == 3
    assert doc["score"] == g.total == 13  # the performance points are pending
    assert sum(max_of(t) for t in doc["tests"]) == g.max
    assert "leaderboard" not in doc
    json.dumps(doc)  # serialisable as it is

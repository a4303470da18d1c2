"""grader.history: a student's earlier files kept before the batch grades them again."""

from __future__ import annotations

import os

from grader import history

NAMES = ("report.txt", "batch.json")


def test_the_earlier_files_are_copied_once_under_the_time_of_their_row(tmp_path):
    folder = tmp_path / "alice"
    folder.mkdir()
    assert history.keep(folder, NAMES) is None  # nothing graded yet: nothing kept
    (folder / "report.txt").write_text("7/10")
    (folder / "batch.json").write_text('{"total": 7}')
    os.utime(folder / "batch.json", (1796563800, 1796563800))  # 2026-12-06 13:30:00 UTC
    kept = history.keep(folder, NAMES)
    assert kept == folder / "history" / "20261206T133000Z"
    assert (kept / "report.txt").read_text() == "7/10"
    # the same row again (a run interrupted before its new files): not copied twice
    assert history.keep(folder, NAMES) == kept
    assert len(list((folder / "history").iterdir())) == 1
    # another row written in the same second: a second folder, the first left as it was
    (folder / "batch.json").write_text('{"total": 9}')
    os.utime(folder / "batch.json", (1796563800, 1796563800))
    again = history.keep(folder, NAMES)
    assert again == folder / "history" / "20261206T133000Z-2"
    assert (again / "batch.json").read_text() == '{"total": 9}'
    assert (kept / "batch.json").read_text() == '{"total": 7}'


def test_an_error_row_is_kept_without_the_reports_of_the_result_before_it(tmp_path):
    """A grader error writes batch.json only: the reports beside it are the result before,
    already kept when that one was graded again, so only the row is copied; and a folder
    without batch.json (a first grading stopped before it) holds no result to keep."""
    folder = tmp_path / "bob"
    folder.mkdir()
    (folder / "report.txt").write_text("an earlier result's report")
    assert history.keep(folder, NAMES) is None
    (folder / "batch.json").write_text('{"status": "error: the judge failed"}')
    kept = history.keep(folder, NAMES)
    assert sorted(p.name for p in kept.iterdir()) == ["batch.json"]
    assert not [p for p in (folder / "history").iterdir() if p.name.startswith(".")]

"""A batch grading's untimed runs out of GPU memory beside other gradings (design note 89),
on the fake lab (fakelab/README.md): ``FAKE_RUN_OOM``, the judge's relay of its student's
process's failure to map the judge's pool for want of GPU memory, with the GPU's free memory
by the judge's own count (``error.gpu_memory``); ``FAKE_UNTIMED_JUDGE_OOM``, an untimed
judge's own out of memory. With the GPU nearly full by the judge's figure, or the judge's
own failure, the grading is an "error:" row until the class is done, then graded again,
whole, alone; alone the failure stands. With memory to spare by the judge's figure, or
none, the student's process's words alone change nothing: the case fails as before."""

from __future__ import annotations

import json

import pytest

from test_batch_strays import _files
from test_batch_timed_runs import course  # noqa: F401 - the fixture: offset timed too
from test_judge_oom_alone import _batch

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

GRADED_AGAIN = "9.1-fake: graded again, alone: "
NEARLY_FULL = (
    "ran out of GPU memory in its process with the GPU nearly full (0.25 of 80.0 GiB free, by "
    "the judge's count) beside other gradings"
)
JUDGE_OOM = (
    "its judge ran out of GPU memory in its untimed runs beside other gradings (the judge "
    "failed in "
)


def _knobs(monkeypatch, tmp_path, **knobs: str) -> None:
    """Sets each fake lab knob: "once" a flag file made in ``tmp_path`` (the first judge to
    remove it fires), any other value as it is; every other knob of this file unset."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name in ("FAKE_RUN_OOM", "FAKE_RUN_OOM_FREE_BYTES", "FAKE_UNTIMED_JUDGE_OOM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in knobs.items():
        if value == "once":
            flag = tmp_path / name
            flag.write_text("")
            value = str(flag)
        monkeypatch.setenv(name, value)


def _graded(course, tmp_path, monkeypatch, name: str, **knobs: str):
    """The solution graded by a batch of one (``test_judge_oom_alone._batch``) with the
    knobs set: (exit code, stderr, the untimed judges started, the out folder)."""
    (tmp_path / name).mkdir()
    _knobs(monkeypatch, tmp_path / name / "env", **knobs)
    out = tmp_path / name / "out"
    code, err, _ = _batch(course, out, monkeypatch, None)
    starts = (tmp_path / name / "out-judge.log").read_text().splitlines()
    return code, err, [line for line in starts if not line.endswith(" timed")], out


def _clean(course, tmp_path, monkeypatch):
    code, err, untimed, out = _graded(course, tmp_path, monkeypatch, "clean")
    assert code == 0 and GRADED_AGAIN not in err, err
    files = _files(out, "9.1-fake")
    assert files["batch.json"]["status"] == "graded"
    assert files["batch.json"]["total"] == files["batch.json"]["max"]
    return files, untimed


def _assert_graded_again_whole(course, tmp_path, monkeypatch, out, untimed, key, line):
    """The batch's files in ``out`` are those of the clean batch (``_clean``) but for the
    row's ``key``, which holds the "graded again, alone" ``line``'s reason; and the grading
    was made again whole: its untimed judges (``untimed``, in order) end with the clean
    batch's, after more of them."""
    clean, clean_untimed = _clean(course, tmp_path, monkeypatch)
    files = _files(out, "9.1-fake")
    assert files["batch.json"].pop(key) == line[len(GRADED_AGAIN) :]
    assert files == clean
    # graded whole again: the alone grading's correctness judges, last, are the clean's
    assert sorted(untimed[-len(clean_untimed) :]) == sorted(clean_untimed), untimed
    assert len(untimed) > len(clean_untimed), untimed


def test_a_correctness_case_out_of_memory_on_a_full_gpu_is_graded_again_whole_alone(
    course, fake_gpu, tmp_path, monkeypatch
):
    """A correctness case's student's process ran out of GPU memory with 256 MiB of 80 GiB
    free by the judge's count, once: the "error:" row first, then the grading again, whole
    (its correctness runs made again), alone, after the class, with a line saying why; its
    four files are those of the batch without the failure but for its row's
    ``process_out_of_memory`` and the timings: full marks."""
    code, err, untimed, out = _graded(course, tmp_path, monkeypatch, "once", FAKE_RUN_OOM="once")
    assert code == 0, err
    assert not (tmp_path / "once" / "env" / "FAKE_RUN_OOM").exists()  # it fired once
    assert f"error: its correctness case of " in err and NEARLY_FULL in err, err
    (line,) = [x for x in err.splitlines() if x.startswith(GRADED_AGAIN)]
    assert line.startswith(GRADED_AGAIN + "its correctness case of ") and NEARLY_FULL in line
    _assert_graded_again_whole(
        course, tmp_path, monkeypatch, out, untimed, "process_out_of_memory", line
    )


@pytest.mark.parametrize("free", ["42949672960", "null"], ids=["40-GiB-free", "no-figure"])
def test_a_correctness_case_out_of_memory_with_memory_to_spare_fails_as_before(
    course, fake_gpu, tmp_path, monkeypatch, free
):
    """The same relayed failure where the judge's own count says 40 GiB free, or gives no
    figure (its cudaMemGetInfo failed): the student's process's words ("out of memory at
    cml_devmem.c:153", which a submission can forge) buy nothing: no second grading, the
    case fails as a CUDA error, points lost."""
    code, err, _, out = _graded(
        course, tmp_path, monkeypatch, "spare", FAKE_RUN_OOM="once", FAKE_RUN_OOM_FREE_BYTES=free
    )
    assert GRADED_AGAIN not in err and "error: " not in err, err
    row = json.loads((out / "9.1-fake" / "batch.json").read_text())
    assert row["status"] == "graded" and "process_out_of_memory" not in row, row
    assert row["total"] < row["max"], row
    rep = json.loads((out / "9.1-fake" / "report.json").read_text())
    failed = [ex for ex in rep["exercises"] if ex["parts"]["correctness"]["status"] == "failed"]
    (ex,) = failed
    messages = [d.get("message", "") for d in ex["parts"]["correctness"]["details"]]
    assert any("out of memory at cml_devmem.c:153" in m for m in messages), messages


def test_a_correctness_case_out_of_memory_again_alone_stands(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Every correctness case's process runs out of GPU memory with the GPU nearly full: the
    batch grades it again alone once (one line), where the failure stands: the correctness
    cases fail as CUDA errors, the row "graded", never a third grading."""
    code, err, untimed, out = _graded(
        course, tmp_path, monkeypatch, "always", FAKE_RUN_OOM="always"
    )
    assert err.count(GRADED_AGAIN) == 1, err
    row = json.loads((out / "9.1-fake" / "batch.json").read_text())
    assert row["status"] == "graded", row
    assert NEARLY_FULL in row["process_out_of_memory"]
    rep = json.loads((out / "9.1-fake" / "report.json").read_text())
    for ex in rep["exercises"]:
        part = ex["parts"]["correctness"]
        assert part["status"] == "failed" and part["points"] == 0, part
        assert any("out of memory" in d.get("message", "") for d in part["details"]), part
    assert row["total"] < row["max"]


def test_an_untimed_judge_out_of_memory_is_graded_again_whole_alone(
    course, fake_gpu, tmp_path, monkeypatch
):
    """An untimed judge runs out of GPU memory in its set-up, once: not the "error:" row
    retried on the batch's next run, but the grading again, whole, alone, after the class,
    its four files those of the batch without it but for its row's ``judge_out_of_memory``
    and the timings."""
    code, err, untimed, out = _graded(
        course, tmp_path, monkeypatch, "once", FAKE_UNTIMED_JUDGE_OOM="once"
    )
    assert code == 0, err
    assert "error: " + JUDGE_OOM in err, err
    (line,) = [x for x in err.splitlines() if x.startswith(GRADED_AGAIN)]
    assert line.startswith(GRADED_AGAIN + JUDGE_OOM) and "cuda: out of memory" in line, line
    _assert_graded_again_whole(
        course, tmp_path, monkeypatch, out, untimed, "judge_out_of_memory", line
    )


def test_an_untimed_judge_out_of_memory_again_alone_is_the_error_row(
    course, fake_gpu, tmp_path, monkeypatch
):
    """Every untimed judge runs out of GPU memory: graded again alone once, where it is the
    "error:" row it was (a course fault, retried on the batch's next run), never a third
    grading."""
    code, err, _, out = _graded(
        course, tmp_path, monkeypatch, "always", FAKE_UNTIMED_JUDGE_OOM="always"
    )
    assert err.count(GRADED_AGAIN) == 1, err
    row = json.loads((out / "9.1-fake" / "batch.json").read_text())
    assert row["status"].startswith("error: the judge failed in "), row
    assert "cuda: out of memory" in row["status"] and "graded again" not in row["status"], row

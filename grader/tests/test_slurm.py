"""Grading a class through Slurm (grader/slurm.py): the job scripts (any machine), and a
whole class through a real single-node Slurm where one answers (.ci/slurm-up starts one
in CI; elsewhere the test is skipped, visibly)."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from helpers import grade_cli

SOLUTION = ("solutions", "9.1-fake")


def _class(fake_root: Path, tmp_path: Path, ids=("alice", "bob", "carol")) -> list[Path]:
    subs = []
    for sid in ids:
        shutil.copytree(fake_root.joinpath(*SOLUTION), tmp_path / "subs" / sid)
        subs.append(tmp_path / "subs" / sid)
    return subs


def test_dry_run_writes_the_three_jobs_and_submits_nothing(fake_root, capsys, tmp_path):
    subs = _class(fake_root, tmp_path)
    out = tmp_path / "out"
    code, _, err = grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out", out,
        "--partition", "gpu", "--gpus-per-task", "1", "--max-parallel", "2", "--per-task", "2",
        "--time", "00:20:00", "--seed", "7", "--dry-run",
    )
    assert code == 0, err
    folder = out / "slurm"
    grade = (folder / "grade.sbatch").read_text()
    assert "#SBATCH --array=0-1%2" in grade  # 3 students, 2 per task
    assert "#SBATCH --gpus-per-task=1" in grade and "#SBATCH --partition=gpu" in grade
    assert "#SBATCH --time=00:20:00" in grade and "--seed 7" in grade
    assert '[ "$rc" -eq 3 ] && rc=0' in grade  # a partial grade is no failed job
    assert (folder / "shard-0.txt").read_text().splitlines() == [str(subs[0]), str(subs[1])]
    assert (folder / "shard-1.txt").read_text().splitlines() == [str(subs[2])]
    assert "--stage build" in (folder / "build.sbatch").read_text()
    assert "--stage merge" in (folder / "merge.sbatch").read_text()
    assert "--dependency=afterok:{build}" in err and "--dependency=afterany:{grade}" in err
    assert "nothing submitted" in err and not (folder / "jobs.json").exists()


def _slurm_answers() -> str | None:
    if shutil.which("sbatch") is None or shutil.which("sinfo") is None:
        return "no Slurm client (sbatch, sinfo) on PATH; .ci/slurm-up starts a single-node one"
    out = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        return f"no Slurm cluster answers: {out.stderr.strip() or 'sinfo lists no node'}"
    return None


def _wait(ids: list[str], limit_s: float = 240) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        q = subprocess.run(["squeue", "-h", "-j", ",".join(ids)], capture_output=True, text=True)
        if q.returncode == 0 and not q.stdout.strip():
            return
        time.sleep(1)
    pytest.fail(f"Slurm jobs {ids} did not finish within {limit_s:g} s")


def test_a_class_graded_through_slurm_and_resubmitted_only_where_needed(
    fake_root, fake_gpu, capsys, tmp_path
):
    why = _slurm_answers()
    if why:
        pytest.skip(why)
    subs = _class(fake_root, tmp_path)
    out = tmp_path / "out"
    args = ["slurm", fake_root / "labs" / "9.1-fake", *subs, "--out", out,
            "--gpus-per-task", "0", "--max-parallel", "2", "--seed", "1"]
    code, _, err = grade_cli(capsys, *args)
    assert code == 0, err
    ids = json.loads((out / "slurm" / "jobs.json").read_text())
    _wait(list(ids.values()))
    rows = (out / "gradebook.csv").read_text().splitlines()
    assert len(rows) == 4, rows
    assert all(r.endswith(",graded") and ",17," in r for r in rows[1:]), rows
    assert "3 graded" in (out / "slurm" / f"merge-{ids['merge']}.log").read_text()

    code, _, err = grade_cli(capsys, *args)  # every grade is final: nothing to do
    assert code == 0 and "nothing to submit" in err

    (out / "bob" / "batch.json").unlink()  # bob's grade lost: only bob goes again
    code, _, err = grade_cli(capsys, *args)
    assert code == 0 and "1 of 3 students to grade, in 1 array tasks" in err, err
    assert (out / "slurm" / "shard-0.txt").read_text().splitlines() == [str(subs[1])]
    ids = json.loads((out / "slurm" / "jobs.json").read_text())
    _wait(list(ids.values()))
    rows = (out / "gradebook.csv").read_text().splitlines()
    assert len(rows) == 4 and rows[2].startswith("bob,") and rows[2].endswith(",graded"), rows

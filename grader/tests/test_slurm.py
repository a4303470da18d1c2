"""Grading a class through Slurm (grader/slurm.py): the job scripts (any machine), and a
whole class through a real single-node Slurm where one answers (.ci/slurm-up starts one
in CI; elsewhere the test is skipped, visibly)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from grader import batch, slurm
from helpers import grade_cli

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

SOLUTION = ("solutions", "9.1-fake")


def _class(fake_root: Path, tmp_path: Path, ids=("alice", "bob", "carol")) -> list[Path]:
    subs = []
    for sid in ids:
        shutil.copytree(fake_root.joinpath(*SOLUTION), tmp_path / "subs" / sid)
        subs.append(tmp_path / "subs" / sid)
    return subs


def test_cpus_per_task_goes_to_the_grade_array_only(fake_root, capsys, tmp_path):
    """--cpus-per-task C: each array task asks for C CPUs (8 or more let its grader keep 3
    for the timed runs, grader.cpus); the build and merge jobs ask for the default."""
    subs = _class(fake_root, tmp_path)
    out = tmp_path / "out"
    code, _, err = grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out", out,
        "--cpus-per-task", "8", "--dry-run",
    )
    assert code == 0, err
    folder = out / "slurm"
    assert "#SBATCH --cpus-per-task=8" in (folder / "grade.sbatch").read_text().splitlines()
    for job in ("build", "merge"):
        assert "--cpus-per-task" not in (folder / f"{job}.sbatch").read_text()
    code, _, err = grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out", out,
        "--cpus-per-task", "0", "--dry-run",
    )
    assert code == 2 and "--cpus-per-task" in err


def test_the_knobs_are_written_into_the_grade_script(fake_root, capsys, tmp_path, monkeypatch):
    """The throughput knobs set when the class is submitted are exported by grade.sbatch,
    the others unset, so that the printed sbatch commands run from another shell grade the
    same (an instructor's trial, session 36: the dry-run showed none of them); a line says
    so, and names a cap that a task's --per-task leaves nothing to cap."""
    for name in batch.KNOB_ENVS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(batch.UNTIMED_ENV, "2")
    monkeypatch.setenv("GRADER_DRAIN_AT", "2,5")
    subs = _class(fake_root, tmp_path)
    out = tmp_path / "out"
    code, _, err = grade_cli(capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out",
                             out, "--dry-run")
    assert code == 0, err
    lines = (out / "slurm" / "grade.sbatch").read_text().splitlines()
    assert "export GRADER_UNTIMED_AT_ONCE=2" in lines and "export GRADER_DRAIN_AT=2,5" in lines
    assert "unset GRADER_DRAIN_STOP_AFTER GRADER_TIMED_SETUPS_AT_ONCE" in lines, lines
    assert (
        "slurm: each task grades with GRADER_UNTIMED_AT_ONCE=2, GRADER_DRAIN_AT=2,5 (written "
        "into grade.sbatch); GRADER_UNTIMED_AT_ONCE caps nothing where a task grades "
        "--per-task 1 student"
    ) in err, err
    # with --no-perf the drain's knob cannot act, and the line says so (as each task's batch)
    code, _, err = grade_cli(capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out",
                             tmp_path / "out1", "--dry-run", "--no-perf")
    assert code == 0 and err.count("ignored") == 1, err
    assert ("--per-task 1 student; GRADER_DRAIN_AT ignored: with --no-perf no run is timed, "
            "and they act on timed runs only") in err, err
    for name in batch.KNOB_ENVS:
        monkeypatch.delenv(name, raising=False)
    code, _, err = grade_cli(capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out",
                             tmp_path / "out2", "--dry-run")
    assert code == 0 and "each task grades with" not in err, err
    lines = (tmp_path / "out2" / "slurm" / "grade.sbatch").read_text().splitlines()
    assert f"unset {' '.join(batch.KNOB_ENVS)}" in lines, lines


def test_mem_goes_to_the_grade_array_only(fake_root, capsys, tmp_path):
    """--mem M: each array task asks for M (sbatch's --mem; an instructor's trial found no
    way to ask for memory); the build and merge jobs, and a run without it, ask for the
    cluster's default; a size sbatch would refuse is a usage error."""
    subs = _class(fake_root, tmp_path)
    lab = fake_root / "labs" / "9.1-fake"
    code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", tmp_path / "out",
                             "--mem", "64G", "--dry-run")
    assert code == 0, err
    folder = tmp_path / "out" / "slurm"
    assert "#SBATCH --mem=64G" in (folder / "grade.sbatch").read_text().splitlines()
    for job in ("build", "merge"):
        assert "--mem" not in (folder / f"{job}.sbatch").read_text()
    grade_cli(capsys, "slurm", lab, *subs, "--out", tmp_path / "out2", "--dry-run")
    assert "--mem" not in (tmp_path / "out2" / "slurm" / "grade.sbatch").read_text()
    for good in ("64g", "64GB", "16000", "0"):  # as sbatch takes them (0: the node's all)
        code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", tmp_path / "o4",
                                 "--mem", good, "--dry-run")
        assert code == 0, (good, err)
        assert f"#SBATCH --mem={good}" in (tmp_path / "o4" / "slurm" / "grade.sbatch").read_text()
    for bad in ("64 G", "lots", "1.5G", "G"):
        code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", tmp_path / "o3",
                                 "--mem", bad, "--dry-run")
        assert code == 2 and "not a memory size as sbatch takes it" in err, (bad, err)


def test_regrade_submits_those_students_again_and_each_task_grades_its_own(
    fake_root, capsys, tmp_path
):
    """slurm --regrade ID (a review: the merge's line pointed to it, and slurm refused it):
    with every grade final, the named students go into the array, the tasks' batches read
    regrade.json, and an unknown id stops the command before any script."""
    subs = _class(fake_root, tmp_path)
    lab = fake_root / "labs" / "9.1-fake"
    out = tmp_path / "out"
    for s in subs:  # every grade final, for what each hands in now
        (out / s.name).mkdir(parents=True)
        for name in batch.STUDENT_FILES:
            (out / s.name / name).write_text("{}")
        row = {"batch_row": batch.ROW_SCHEMA, "id": s.name, "lab": "9.1", "status": "graded",
               "total": 17, "max": 17, "digest": batch.digest(s, ("kernels.cu",))}
        (out / s.name / "batch.json").write_text(json.dumps(row))
    code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", out, "--dry-run")
    assert code == 0 and "nothing to submit" in err, err
    code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", out, "--regrade", "bob",
                             "--dry-run")
    assert code == 0 and "1 of 3 students to grade" in err, err
    folder = out / "slurm"
    assert (folder / "shard-0.txt").read_text().splitlines() == [str(subs[1])]
    assert json.loads((folder / "regrade.json").read_text()) == ["bob"]
    assert f"--regrade-from {folder / 'regrade.json'}" in (folder / "grade.sbatch").read_text()
    # naming part of the class: the merge's gradebook would leave the others out, said now
    code, _, err = grade_cli(capsys, "slurm", lab, subs[0], "--out", out, "--regrade", "alice",
                             "--dry-run")
    assert code == 0 and "slurm: 2 earlier result(s) in" in err, err
    assert "are not in this class and are left out of the gradebook: bob, carol" in err, err
    code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", tmp_path / "o2",
                             "--regrade", "bobb", "--dry-run")
    assert code == 2 and "--regrade 'bobb'" in err and "the nearest: 'bob'" in err, err
    assert not (tmp_path / "o2").exists()


@pytest.mark.parametrize(
    "env, value, says",
    [
        (batch.UNTIMED_ENV, "many", "give a whole number of gradings"),
        ("GRADER_DRAIN_AT", "0", "GRADER_DRAIN_AT='0': give W"),
        # design note 87
        (batch.TIMED_SETUPS_ENV, "0", "GRADER_TIMED_SETUPS_AT_ONCE='0': give a whole number"),
    ],
)
def test_a_wrong_knob_stops_the_submission_not_every_task(
    fake_root, capsys, tmp_path, monkeypatch, env, value, says
):
    """GRADER_UNTIMED_AT_ONCE, GRADER_DRAIN_AT and GRADER_TIMED_SETUPS_AT_ONCE reach every
    task (sbatch --export=ALL): a wrong value is the command's usage error, before any
    script, not each task's (a review's finding)."""
    monkeypatch.setenv(env, value)
    subs = _class(fake_root, tmp_path)
    code, _, err = grade_cli(capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out",
                             tmp_path / "out", "--dry-run")
    assert code == 2 and says in err, err
    assert not (tmp_path / "out").exists()


def test_paths_in_a_node_local_folder_are_named_in_a_warning(fake_root, capsys, tmp_path,
                                                             monkeypatch):
    """A course tree, a class or an --out in /tmp (each node's own on most clusters: an
    instructor's trial submitted from a clone there) is named in a warning that says where
    to keep them; nothing is refused, since a single-node cluster sees them."""
    subs = _class(fake_root, tmp_path)
    lab = fake_root / "labs" / "9.1-fake"
    monkeypatch.setattr(slurm, "NODE_LOCAL", (str(tmp_path),))
    monkeypatch.setattr(slurm, "one_node_here", lambda nodes: False)
    code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", tmp_path / "out", "--dry-run")
    assert code == 0, err
    assert f"--out {tmp_path / 'out'}" in err and "the submissions (" in err, err
    assert "on a file system every node mounts" in err
    # a single-node cluster, this machine (an instructor's trial: noise there)
    monkeypatch.setattr(slurm, "one_node_here", lambda nodes: True)
    code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", tmp_path / "o3", "--dry-run")
    assert code == 0 and "warning" not in err, err
    monkeypatch.setattr(slurm, "NODE_LOCAL", ("/no-such-node-local-folder",))
    code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", tmp_path / "o2", "--dry-run")
    assert code == 0 and "warning" not in err, err


def test_dry_run_writes_the_three_jobs_and_submits_nothing(fake_root, capsys, tmp_path):
    subs = _class(fake_root, tmp_path)
    out = tmp_path / "out"
    code, scripts, err = grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out", out,
        "--partition", "gpu", "--gpus-per-task", "1", "--max-parallel", "2", "--per-task", "2",
        "--time", "00:20:00", "--seed", "7", "--dry-run",
    )
    assert code == 0, err
    folder = out / "slurm"
    grade = (folder / "grade.sbatch").read_text()
    assert "#SBATCH --array=0-1%2" in grade  # 3 students, 2 per task
    assert "#SBATCH --gpus-per-task=1" in grade and "#SBATCH --partition=gpu" in grade
    assert "#SBATCH --ntasks=1" in grade  # sbatch refuses --gpus-per-task without a count
    # nothing of the submitting shell's GPU lock or GPU list reaches a task
    assert "\nunset GRADER_GPU_LOCK\n" in grade and "CUDA_VISIBLE_DEVICES=\n" not in grade
    assert "#SBATCH --time=00:20:00" in grade and "--seed 7" in grade
    assert "--cpus-per-task" not in grade  # the cluster's default unless asked for
    assert '[ "$rc" -eq 3 ] && rc=0' in grade  # a partial grade is no failed job
    assert (folder / "shard-0.txt").read_text().splitlines() == [str(subs[0]), str(subs[1])]
    for job in ("build", "merge"):  # no GPU: --partition's, unless --cpu-partition
        assert "#SBATCH --partition=gpu" in (folder / f"{job}.sbatch").read_text()
        assert "#SBATCH --time=00:20:00" in (folder / f"{job}.sbatch").read_text()  # --time's
    assert (folder / "shard-1.txt").read_text().splitlines() == [str(subs[2])]
    assert "--stage build" in (folder / "build.sbatch").read_text()
    assert "--stage merge" in (folder / "merge.sbatch").read_text()
    # the scripts and commands on stdout (--dry-run > scripts.txt keeps them), the rest on stderr
    # shell lines that submit as the command would (each id in a variable), to paste as they are
    assert f"build=$(sbatch --parsable {folder / 'build.sbatch'})" in scripts
    grade_line = "grade=$(sbatch --parsable --dependency=afterok:$build --kill-on-invalid-dep=yes "
    assert grade_line in scripts
    assert "merge=$(sbatch --parsable --dependency=afterany:$grade " in scripts
    assert f"==> {folder / 'grade.sbatch'}" in scripts and "#SBATCH --array=0-1%2" in scripts
    assert "nothing submitted" in err and not (folder / "jobs.json").exists()
    grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out", tmp_path / "out2",
        "--partition", "gpu", "--cpu-partition", "cpu", "--dry-run",
    )
    grade2 = (tmp_path / "out2" / "slurm" / "grade.sbatch").read_text()
    assert "#SBATCH --partition=gpu" in grade2
    grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out", tmp_path / "out3",
        "--gpus-per-task", "0", "--dry-run",
    )
    grade3 = (tmp_path / "out3" / "slurm" / "grade.sbatch").read_text()
    assert "--gpus-per-task" not in grade3 and "\nexport CUDA_VISIBLE_DEVICES=\n" in grade3
    for job in ("build", "merge"):
        assert "#SBATCH --partition=cpu" in (tmp_path / "out2" / "slurm" / f"{job}.sbatch").read_text()


def _fake_sbatch(tmp_path: Path, monkeypatch) -> Path:
    """An ``sbatch`` first on PATH that answers ``--parsable`` with a new job id per call
    (101, 102, ...) and runs nothing: a submission's bookkeeping without a cluster. Returns
    the file counting the calls."""
    folder = tmp_path / "fake-slurm"
    folder.mkdir()
    count = folder / "last-id"
    script = folder / "sbatch"
    c = shlex.quote(str(count))
    script.write_text(
        "#!/bin/sh\n"
        f"n=$(cat {c} 2>/dev/null || echo 100); n=$((n + 1)); echo $n > {c}\n"
        'echo "$n;fake-cluster"\n'
    )
    script.chmod(0o755)
    # and an ``squeue`` that lists the job ids in folder/live (none unless a test writes them)
    live = shlex.quote(str(folder / "live"))
    (folder / "squeue").write_text(f"#!/bin/sh\ncat {live} 2>/dev/null\n")
    (folder / "squeue").chmod(0o755)
    # and an ``sinfo -h -N -o %N|%P|%c|%m|%G [-p P]`` that prints folder/nodes' lines (none
    # unless a test writes them: nothing known, so any request is submitted)
    nodes = shlex.quote(str(folder / "nodes"))
    (folder / "sinfo").write_text(
        "#!/bin/sh\n"
        'p=""; while [ $# -gt 0 ]; do [ "$1" = -p ] && p=$2; shift; done\n'
        f"[ -z \"$p\" ] && exec cat {nodes} 2>/dev/null\n"
        f"awk -F'|' -v p=\"$p\" '{{ q = $2; sub(/[*]$/, \"\", q); if (q == p) print }}' {nodes}\n"
    )
    (folder / "sinfo").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    return count


# two partitions: debug (the default) of one small node, gpu of a large one
NODES = "n1|debug*|2|21000|gpu:2\nn2|gpu|64|512000|gpu:h100:8(S:0-1)\nn2|big|64|512000|gpu:8\n"


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        (["--cpus-per-task", "8"], "at most 2 CPUs, 21000 MB and 2 GPUs"),
        (["--mem", "64G"], "64G of memory"),
        (["--gpus-per-task", "3"], "3 GPU(s)"),
        (["--partition", "gpu", "--cpus-per-task", "8", "--mem", "64G"], None),
        (["--partition", "gpu", "--gpus-per-task", "9"], "no node of partition gpu"),
        (["--cpus-per-task", "2", "--mem", "20000", "--gpus-per-task", "2"], None),
        (["--partition", "nowhere", "--cpus-per-task", "99"], None),  # sinfo knows none
    ],
)
def test_a_grade_task_no_node_can_run_is_refused_before_anything_is_submitted(
    fake_root, capsys, tmp_path, monkeypatch, options, refused
):
    """An instructor's trial (session 47): the README's --cpus-per-task 8 --mem 64G on a
    2-CPU node were submitted, and the array stayed pending for ever (PartitionConfig) with
    nothing said. A request no node of the partition (the default one, marked *, without
    --partition) has room for, by sinfo's CPUs, memory and GPUs, is refused before any sbatch,
    naming what the nodes have; a dry run shows the scripts and warns; where sinfo names no
    node, nothing is known and it is submitted."""
    count = _fake_sbatch(tmp_path, monkeypatch)
    (tmp_path / "fake-slurm" / "nodes").write_text(NODES)
    subs = _class(fake_root, tmp_path)
    args = ["slurm", fake_root / "labs" / "9.1-fake", *subs, *options]
    code, _, err = grade_cli(capsys, *args, "--out", tmp_path / "out")
    if refused is None:
        assert code == 0 and count.read_text().strip() == "103", err
        return
    assert code == 2 and refused in err and "pending without end" in err, err
    assert not count.exists() and not (tmp_path / "out" / "slurm").exists()
    code, shown, err = grade_cli(capsys, *args, "--out", tmp_path / "dry", "--dry-run")
    assert code == 0 and "slurm: warning: no node of" in err and "#SBATCH" in shown, err


def test_a_refused_sbatch_cancels_the_jobs_already_queued_and_names_the_fix(
    fake_root, capsys, tmp_path, monkeypatch
):
    """sbatch refuses the grade array (--gpus-per-task 1 on a cluster without GPU gres,
    an instructor's trial): the build job already queued is cancelled, nothing is
    recorded, and the error names --partition and --gpus-per-task 0."""
    subs = _class(fake_root, tmp_path)
    folder = tmp_path / "fake-slurm"
    folder.mkdir()
    calls = folder / "calls"
    q = shlex.quote(str(calls))
    (folder / "sbatch").write_text(
        "#!/bin/sh\n"
        f'echo "sbatch $*" >> {q}\n'
        'case "$*" in *grade.sbatch*) '
        'echo "sbatch: error: Invalid generic resource (gres) specification" >&2; exit 1;; esac\n'
        'echo "201;fake-cluster"\n'
    )
    (folder / "scancel").write_text(f'#!/bin/sh\necho "scancel $*" >> {q}\n')
    for tool in ("sbatch", "scancel"):
        (folder / tool).chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    out = tmp_path / "out"
    code, _, err = grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out", out,
        "--gpus-per-task", "1",
    )
    assert code == 2, err
    assert "Invalid generic resource" in err and "--gpus-per-task 0" in err, err
    assert "cancelled the jobs already submitted: 201" in err, err
    assert calls.read_text().splitlines()[-1] == "scancel 201"
    assert not (out / "slurm" / "jobs.json").exists()


def _final(out: Path, sid: str) -> None:
    """Leaves a final grade of ``sid`` in ``out``, as a finished batch would."""
    (out / sid).mkdir(parents=True, exist_ok=True)
    for name in batch.STUDENT_FILES:
        (out / sid / name).write_text("{}\n")
    row = {"batch_row": 1, "id": sid, "lab": "9.1", "status": "graded", "total": 17,
           "pending_points": 0, "max": 17, "exercises": {"scale": 14, "offset": 3}}
    (out / sid / "batch.json").write_text(json.dumps(row))


def _submitted(fake_root, capsys, tmp_path, monkeypatch):
    """The class submitted once to the fake sbatch (jobs 101, 102, 103): (the fake's call
    counter, the submissions, --out, the command's arguments, its standard error)."""
    count = _fake_sbatch(tmp_path, monkeypatch)
    subs = _class(fake_root, tmp_path)
    out = tmp_path / "out"
    args = ["slurm", fake_root / "labs" / "9.1-fake", *subs, "--out", out, "--seed", "1"]
    code, _, err = grade_cli(capsys, *args)
    assert code == 0, err
    return count, subs, out, args, err


def test_a_resubmission_says_why_each_student_goes_again(
    fake_root, capsys, tmp_path, monkeypatch
):
    """An instructor's trial (session 47): a re-run's "5 of 6 students to grade" gave no
    reason, where 4 were partial grades (no GPU) that a node without one keeps. The line
    counts the reasons once any student has a result; a first submission's stays short."""
    count, subs, out, args, err = _submitted(fake_root, capsys, tmp_path, monkeypatch)
    assert "3 of 3 students to grade, in 3 array tasks" in err, err
    _final(out, "alice")
    row = json.loads((out / "alice" / "batch.json").read_text())
    (out / "bob").mkdir()
    (out / "bob" / "batch.json").write_text(json.dumps({**row, "id": "bob",
                                                        "status": "partial (no GPU)"}))
    code, _, err = grade_cli(capsys, *args)
    assert code == 0, err
    # the most frequent first, ties in the class's order (bob, then carol)
    assert "2 of 3 students to grade (1 partial (no GPU), 1 no result yet), in 2" in err, err
    code, _, err = grade_cli(capsys, *args, "--force")
    assert code == 0 and "3 of 3 students to grade (3 --force), in 3" in err, err


def test_a_resubmission_keeps_the_history_of_job_ids(fake_root, capsys, tmp_path, monkeypatch):
    count, subs, out, args, err = _submitted(fake_root, capsys, tmp_path, monkeypatch)
    assert "follow with: squeue -j 101,102,103;" in err
    jobs = out / "slurm" / "jobs.json"
    first = json.loads(jobs.read_text())["submissions"]
    assert len(first) == 1
    assert first[0]["students"] == ["alice", "bob", "carol"] and first[0]["tasks"] == 3
    assert slurm.job_ids(first[0]) == ["101", "102", "103"]
    assert json.loads((out / "slurm" / "roster.json").read_text()) == ["alice", "bob", "carol"]
    grade_sh = (out / "slurm" / "grade.sbatch").read_text()
    assert f"--roster {out / 'slurm' / 'roster.json'}" in grade_sh

    _final(out, "alice")  # alice's grade is final: bob and carol go again
    code, _, err = grade_cli(capsys, *args)
    assert code == 0 and "2 of 3 students to grade" in err, err
    assert "kept, their grades final: alice (--force grades them again)" in err, err
    assert "follow with: squeue -j 104,105,106;" in err and "the 1 earlier submission(s) of this folder are kept" in err
    records = slurm.read_jobs(out / "slurm")
    assert records[0] == first[0]  # the first submission's record is kept, not overwritten
    assert records[1]["students"] == ["bob", "carol"]
    assert slurm.job_ids(records[1]) == ["104", "105", "106"]
    assert records[1]["submitted"].endswith("Z")
    # the gradebook still lists the whole class (the roster), not only the resubmitted
    assert json.loads((out / "slurm" / "roster.json").read_text()) == ["alice", "bob", "carol"]
    # and each task's runs are kept from every submission of the class, alice's included
    classmates = json.loads((out / "slurm" / "classmates.json").read_text())
    assert sorted(classmates) == sorted(str(Path(s).absolute()) for s in subs)
    grade_sh = (out / "slurm" / "grade.sbatch").read_text()
    assert f"--classmates {out / 'slurm' / 'classmates.json'}" in grade_sh

    # a jobs.json of the first layout (one submission's ids) becomes the first record
    jobs.write_text(json.dumps({"build": "7", "grade": "8", "merge": "9"}))
    code, _, err = grade_cli(capsys, *args)
    assert code == 0, err
    records = slurm.read_jobs(out / "slurm")
    assert [slurm.job_ids(r) for r in records] == [["7", "8", "9"], ["107", "108", "109"]]
    # one that cannot be read is never replaced, and nothing is submitted
    jobs.write_text("{not json")
    code, _, err = grade_cli(capsys, *args)
    assert code == 2 and "move it away" in err
    assert jobs.read_text() == "{not json" and count.read_text().strip() == "109"


def test_jobs_still_queued_keep_their_scripts(fake_root, capsys, tmp_path, monkeypatch):
    """While Slurm still lists a job of an earlier submission (an array task queued), neither
    a resubmission nor a dry run rewrites the shards and roster its tasks read: both stop and
    say what to wait for or cancel; once it is gone, the resubmission goes ahead."""
    count, _, out, args, _ = _submitted(fake_root, capsys, tmp_path, monkeypatch)
    shards = {p.name: p.read_text() for p in (out / "slurm").glob("shard-*.txt")}
    (count.parent / "live").write_text("102_2\n9999\n")  # the array's task 2, and another's
    for extra in ([], ["--dry-run", "--per-task", "3"]):
        code, _, err = grade_cli(capsys, *args, *extra)
        assert code == 2, err
        assert "still queued or running (102)" in err and "scancel 102" in err, err
        assert {p.name: p.read_text() for p in (out / "slurm").glob("shard-*.txt")} == shards
    assert count.read_text().strip() == "103"  # nothing submitted
    (count.parent / "live").write_text("9999\n")
    code, _, err = grade_cli(capsys, *args)
    assert code == 0 and "follow with: squeue -j 104,105,106;" in err, err


def test_the_merge_lists_the_class_of_the_roster(fake_root, capsys, tmp_path):
    out = tmp_path / "out"
    for sid in ("alice", "bob", "dave"):  # dave: a result of an earlier, other batch
        _final(out, sid)
    (out / "slurm").mkdir()
    (out / "slurm" / "roster.json").write_text(json.dumps(["alice", "bob", "carol"]))
    code, _, err = grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", "--out", out, "--stage", "merge"
    )
    # carol's task ended without a result: she is listed, not graded, and named (an
    # instructor's trial: she was left out and the merge said nothing, exit 0)
    assert code == 3, err
    rows = (out / "gradebook.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["alice", "bob", "carol"]
    assert rows[3].endswith(",not graded: no result yet,,") and ",,,," in rows[3], rows[3]
    assert "left out of the gradebook: dave" in err
    assert "1 of the class's 3 have no result (carol)" in err and "run the same command" in err
    assert "batch: 3 students: " in err and "1 not graded" in err, err  # the gradebook's rows
    _final(out, "carol")
    code, _, err = grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", "--out", out, "--stage", "merge"
    )
    assert code == 0 and "no result" not in err, err
    # a last submission (--force) of bob and carol whose tasks were cancelled: their results
    # are the earlier ones, and the merge names them (an instructor's trial, session 47: it
    # reported the old gradebook as if nothing were wrong); alice's is not the submission's
    record = {"submitted": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 5)),
              "students": ["bob", "carol"], "tasks": 2, "build": "1", "grade": "2",
              "merge": "3"}
    (out / "slurm" / "jobs.json").write_text(
        json.dumps({"slurm_jobs": slurm.JOBS_SCHEMA, "submissions": [record]}))
    code, _, err = grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", "--out", out, "--stage", "merge"
    )
    assert code == 0, err
    assert "2 of the last submission's students have no result of theirs (bob, carol)" in err
    record["submitted"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60))
    (out / "slurm" / "jobs.json").write_text(
        json.dumps({"slurm_jobs": slurm.JOBS_SCHEMA, "submissions": [record]}))
    code, _, err = grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", "--out", out, "--stage", "merge"
    )
    assert code == 0 and "no result of theirs" not in err, err


def _slurm_answers() -> str | None:
    if shutil.which("sbatch") is None or shutil.which("sinfo") is None:
        return "no Slurm client (sbatch, sinfo) on PATH; .ci/slurm-up starts a single-node one"
    out = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        # sinfo's last line only: the skip summary is one line a reason (a student's trial
        # read the other lines of a client with no cluster as errors of the course)
        said = (out.stderr.strip().splitlines() or ["sinfo lists no node"])[-1]
        return f"no Slurm cluster answers: {said}"
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
            "--gpus-per-task", "1", "--max-parallel", "2", "--seed", "1", "--mem", "256M"]
    code, _, err = grade_cli(capsys, *args)
    assert code == 0, err
    last = slurm.read_jobs(out / "slurm")[-1]
    _wait(slurm.job_ids(last))
    rows = (out / "gradebook.csv").read_text().splitlines()
    assert len(rows) == 4, rows
    assert all(r.endswith(",graded,Fake GPU,0") and ",17," in r for r in rows[1:]), rows
    assert "3 graded" in (out / "slurm" / f"merge-{last['merge']}.log").read_text()
    # each array task was given a GPU of its own by Slurm (.ci/slurm-up declares two)
    seen = {}
    for log in (out / "slurm").glob(f"grade-{last['grade']}_*.log"):
        m = re.search(r"^task (\d+) on .*, CUDA_VISIBLE_DEVICES=(.*)$", log.read_text(), re.M)
        assert m, log.read_text()[-500:]
        seen[int(m.group(1))] = m.group(2)
    assert sorted(seen) == [0, 1, 2] and set(seen.values()) <= {"0", "1"}, seen

    code, _, err = grade_cli(capsys, *args)  # every grade is final: nothing to do
    assert code == 0 and "nothing to submit" in err

    (out / "bob" / "batch.json").unlink()  # bob's grade lost: only bob goes again
    code, _, err = grade_cli(capsys, *args)
    assert code == 0 and "1 of 3 students to grade, in 1 array tasks" in err, err
    assert (out / "slurm" / "shard-0.txt").read_text().splitlines() == [str(subs[1])]
    records = slurm.read_jobs(out / "slurm")
    assert len(records) == 2 and records[1]["students"] == ["bob"]  # the first one kept
    _wait(slurm.job_ids(records[1]))
    rows = (out / "gradebook.csv").read_text().splitlines()
    assert len(rows) == 4 and rows[2].startswith("bob,"), rows
    assert rows[2].endswith(",graded,Fake GPU,0"), rows


def test_an_out_folder_with_white_space_is_refused_before_anything_is_written(
    fake_root, capsys, tmp_path
):
    """The jobs' logs are named in '#SBATCH --output=' lines, which sbatch splits at white
    space (an instructor's trial): such an --out is refused, naming the fix."""
    out = tmp_path / "my grades"
    subs = _class(fake_root, tmp_path)
    code, _, err = grade_cli(
        capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs, "--out", out, "--dry-run"
    )
    assert code == 2 and "holds white space" in err and "choose a folder" in err, err
    assert not out.exists()



def test_an_out_among_the_submissions_is_refused_before_any_script(fake_root, capsys, tmp_path):
    """--out the class folder (each student's grades folder among the submissions) is a usage
    error before anything is written (batch.check_out, as a batch's); --out that subs/*
    matched is left out of the class."""
    subs = _class(fake_root, tmp_path)
    lab = fake_root / "labs" / "9.1-fake"
    code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", tmp_path / "subs", "--dry-run")
    assert code == 2 and "is the class folder holding the submission" in err, err
    assert not (tmp_path / "subs" / "slurm").exists()
    grades = tmp_path / "subs" / "grades"
    grades.mkdir()
    code, _, err = grade_cli(capsys, "slurm", lab, *subs, grades, "--out", grades, "--dry-run")
    assert code == 0 and "is --out, not a submission: left out of the class" in err, err
    shards = sorted((grades / "slurm").glob("shard-*.txt"))
    assert sorted(line for f in shards for line in f.read_text().splitlines()) == [
        str(s) for s in subs
    ]
    # --out a student's own folder, or in the course's own folders, as a batch's (session 44)
    code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", subs[0], "--dry-run")
    assert code == 2 and f"--out {subs[0]} is a submission of the class" in err, err
    code, _, err = grade_cli(capsys, "slurm", lab, *subs, "--out", fake_root / "build" / "g",
                             "--dry-run")
    assert code == 2 and "lies in the course's own build/" in err, err
    assert not (Path(subs[0]) / "slurm").exists() and not (fake_root / "build" / "g").exists()
    named = _class(fake_root, tmp_path / "b", ids=("slurm", "bob"))  # the scripts' folder
    code, _, err = grade_cli(capsys, "slurm", lab, *named, "--out", tmp_path / "g2", "--dry-run")
    assert code == 2 and "a submission has the id 'slurm'" in err, err


def test_without_sbatch_nothing_is_written(fake_root, capsys, tmp_path, monkeypatch):
    """Off a Slurm login node (no sbatch on PATH) the command says so before it writes or
    rewrites anything (an instructor's trial, session 44: "6 of 6 students to grade ...
    scripts in ..." came first, the scripts rewritten, then "sbatch not found")."""
    subs = _class(fake_root, tmp_path)
    empty = tmp_path / "bin"
    empty.mkdir()
    (empty / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(empty))
    out = tmp_path / "grades"
    code, _, err = grade_cli(capsys, "slurm", fake_root / "labs" / "9.1-fake", *subs,
                             "--out", out)
    assert code == 2 and "sbatch not found: run this on a Slurm login node" in err, err
    assert "to grade" not in err and not (out / "slurm").exists()


@pytest.mark.parametrize(
    ("listed", "one"),
    [("{here}\n", True), ("{here}.cluster.edu\n", False), ("{here}\nn2\n", False), ("", False),
     ("n1\n", False)],
)
def test_one_node_here_reads_sinfo(tmp_path, monkeypatch, listed, one):
    """``one_node_here``: sinfo lists this machine's name alone (its short name as Slurm
    names it), else not; no sinfo or an empty list is not."""
    here = socket.gethostname().split(".")[0]
    # sinfo_nodes' lines: name|partition|CPUs|MB|gres
    lines = "".join(f"{n}|debug*|2|100|gpu:1\n" for n in listed.format(here=here).split())
    (tmp_path / "nodes").write_text(lines)
    (tmp_path / "sinfo").write_text(f"#!/bin/sh\ncat {shlex.quote(str(tmp_path / 'nodes'))}\n")
    (tmp_path / "sinfo").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    assert slurm.one_node_here(slurm.sinfo_nodes()) == (
        one or listed.format(here=here).strip() == socket.gethostname()
    )
    assert not slurm.one_node_here(None)  # no sinfo, or one that failed


def test_node_local_reads_paths_as_written_and_as_their_links_lead(tmp_path, monkeypatch):
    """A relative path from /tmp that leaves it is not node-local; a shared-looking path
    that is a link into /tmp is (a review's findings); /tmpdata is not /tmp."""
    monkeypatch.chdir("/tmp")
    assert not slurm._under(Path("../usr/share"), ("/tmp",))
    assert not slurm._under(Path("/tmpdata/x"), ("/tmp",))
    link = tmp_path / "looks-shared"
    local = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        link.symlink_to(local)
        assert slurm._under(link, (str(local),))  # only as the link leads
        assert not slurm._under(tmp_path / "other", (str(local),))
    finally:
        local.rmdir()

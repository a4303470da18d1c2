"""Grading a class on a Slurm cluster (issue 15): ``python3 -m grader slurm LABDIR
SUBMISSION... --out DIR [--partition P] [--gpus-per-task N] [--cpus-per-task C]
[--max-parallel K] [--time T] [--per-task M] [--mem M] [--dry-run]``.

Slurm schedules; the grader only writes job scripts and submits them with ``sbatch``:

1. **build** — the course library and the lab's judge, once, in the course tree
   (``slurm --stage build``); the gradings then find nothing to rebuild there;
2. **grade** — a job array after the build (``--dependency=afterok``): each task grades a
   shard of ``--per-task`` students with ``python3 -m grader batch LABDIR <its students>
   --out DIR`` on the node and the GPU Slurm gives it (``--gpus-per-task``; the CUDA runtime
   sees the GPU through the ``CUDA_VISIBLE_DEVICES`` Slurm sets), at most ``--max-parallel``
   tasks at once (``--array=0-N%K``), with ``--cpus-per-task`` CPUs where it is given (8 or
   more let the task's grader keep 3 for its timed runs, ``grader.cpus``; a task's batch
   grades one student per CPU it has, fewer where its GPU's memory holds fewer,
   ``grader.batch``), and with ``--mem`` where it is given; a task's students write only
   their own folders of DIR;
3. **merge** — after every task, however it ended (``--dependency=afterany``: a partial
   grade exits 3), rebuilds ``DIR/gradebook.csv`` from every student's ``batch.json``
   (``slurm --stage merge``).

Only students without a final grade in DIR go into the array (``grader.batch``'s resume
rule; ``--force`` takes them all, ``--regrade ID`` those named, each task's batch grading
them again through ``regrade.json``), so running the same command again resubmits only those.
The gradebook lists the whole class named on the command line (``roster.json``), those
graded by an earlier submission too, and no other results DIR may hold (``grader.batch``,
"The gradebook is this batch's class"); a student without a result (a task that ended
without one, or never ran) has a row whose status is ``batch.NOT_GRADED``, and the merge
names them and exits 3.

Everything the jobs need is in ``DIR/slurm/``: ``build.sbatch``, ``grade.sbatch``,
``merge.sbatch``, ``shard-<i>.txt`` (one submission path per line), ``regrade.json``,
``roster.json`` (the
class's ids, passed to every task's batch and read by the merge), the jobs' logs (named
by job id, so a resubmission's never replace an earlier one's) and ``jobs.json``, the
history of submissions, one record appended per submission, oldest first::

    {"slurm_jobs": 1,
     "submissions": [{"submitted": "2026-11-30T09:12:44Z", "students": ["alice", "bob"],
                      "tasks": 2, "build": "101", "grade": "102", "merge": "103"}, ...]}

(A ``jobs.json`` of one submission's ids, ``{"build": .., "grade": .., "merge": ..}``, as
written before, becomes the first record.) ``--dry-run`` writes the scripts and prints them
and the ``sbatch`` commands, and submits and records nothing. Progress: ``squeue -j
<ids>`` with the ids of the last record (printed on submission), and the students'
``DIR/<id>/batch.json`` as they appear. The shards and scripts are those of the last
submission: resubmit once the earlier jobs have ended.

The jobs run the same Python (``sys.executable``) and this grader package on the course
tree, with the submitting shell's environment (``sbatch``'s default ``--export=ALL``): on a
real cluster the course tree, the submissions and DIR must be on a filesystem every node
mounts (README, "What the cluster needs"); ``submit`` warns about those it finds in
``/tmp`` or another folder that is each node's own on most clusters (``node_local``).
"""

from __future__ import annotations

import calendar
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from grader import batch, build, course, manifest, tools
from grader.errors import GraderError
from grader.files import write_atomic
from grader.status import row_is_final

SCRIPTS = "slurm"
JOBS = "jobs.json"  # in DIR/slurm: the history of submissions (module docstring)
JOBS_SCHEMA = 1
ROSTER = "roster.json"  # in DIR/slurm: the class's ids, the gradebook's rows
CLASSMATES = "classmates.json"  # in DIR/slurm: every submission's path, hidden from each run
REGRADE = "regrade.json"  # in DIR/slurm: the ids --regrade grades again (each task its own)
STAGES = ("build", "grade", "merge")


@dataclass(frozen=True)
class Options:
    partition: str | None = None
    gpus_per_task: int = 1
    max_parallel: int = 8
    cpus_per_task: int | None = None  # None: the cluster's default
    time: str = "01:00:00"
    per_task: int = 1
    grade_args: tuple[str, ...] = ()  # passed on to each task's batch (--seed, --arch, ...)
    force: bool = False
    # the build and merge jobs need no GPU; some clusters refuse a job without one in a GPU
    # partition (None: ``partition``)
    cpu_partition: str | None = None
    mem: str | None = None  # each array task's memory, sbatch's --mem (None: the cluster's)
    regrade: tuple[str, ...] = ()  # ids graded again though final (--regrade)


def _header(
    name: str, log: Path, o: Options, time_limit: str, gpu: bool = False
) -> list[str]:
    """A job script's first lines; ``gpu``: the grade array's (``partition``), else a job that
    needs no GPU (``cpu_partition``, else ``partition``)."""
    lines = ["#!/usr/bin/env bash", f"#SBATCH --job-name={name}", f"#SBATCH --output={log}"]
    partition = o.partition if gpu else (o.cpu_partition or o.partition)
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    lines.append(f"#SBATCH --time={time_limit}")
    return lines


GRADER_HOME = Path(__file__).resolve().parents[1]  # the folder holding this grader package


def _grader(root: Path, *args, tail: str = "") -> str:
    """The shell lines that run this grader (from its own folder, so ``-m grader`` is this
    package; every path it is given is absolute; a node that cannot reach that folder ends
    the job with 2) and end the job with its status, but 0 for 3: a partial grade (no GPU
    on the node) is a graded outcome, not a failed job. The scripts do not use ``set -e``,
    which would end them before that line."""
    line = " ".join(shlex.quote(str(a)) for a in args) + tail
    return (
        f"cd {shlex.quote(str(GRADER_HOME))} || exit 2\n"
        f"{shlex.quote(sys.executable)} -m grader {line}\n"
        'rc=$?; [ "$rc" -eq 3 ] && rc=0; exit "$rc"'
    )


def read_jobs(folder: Path) -> list[dict]:
    """The submissions recorded in ``folder/jobs.json``, oldest first (module docstring);
    [] when there is none yet. A record of the first layout (one submission's ids) is
    returned as one record; anything else is a GraderError, so that a submission never
    replaces a history it could not read."""
    path = folder / JOBS
    if not path.exists():
        return []
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise GraderError(f"cannot read {path} ({e}): move it away and submit again")
    if isinstance(doc, dict) and doc.get("slurm_jobs") == JOBS_SCHEMA:
        records = doc.get("submissions")
        if isinstance(records, list) and all(isinstance(r, dict) for r in records):
            return records
    elif isinstance(doc, dict) and set(STAGES) <= set(doc):
        return [{name: doc[name] for name in STAGES}]
    raise GraderError(f"{path} is not a record of Slurm submissions: move it away and "
                      "submit again")


def job_ids(record: dict) -> list[str]:
    """The build, grade and merge job ids of one record of ``read_jobs`` (for squeue)."""
    return [str(record[name]) for name in STAGES]


def _record_jobs(folder: Path, records: list[dict], record: dict) -> None:
    """Appends ``record`` to the history ``records`` and writes jobs.json atomically."""
    doc = {"slurm_jobs": JOBS_SCHEMA, "submissions": [*records, record]}
    write_atomic(folder / JOBS, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


def live_jobs(records: list[dict]) -> list[str]:
    """The ids among ``records``' jobs that Slurm still lists (queued or running: ``squeue``,
    an array task's id ``JOB_TASK`` as JOB); [] when none, or when ``squeue`` is missing or
    fails (a machine that submits nothing, or a cluster that no longer knows them)."""
    ids = [i for r in records for i in job_ids(r)]
    squeue = shutil.which("squeue")
    if not ids or squeue is None:
        return []
    out = subprocess.run([squeue, "-h", "-o", "%i"], capture_output=True, text=True)
    if out.returncode != 0:
        return []
    listed = {line.strip().split("_")[0] for line in out.stdout.splitlines() if line.strip()}
    return [i for i in ids if i in listed]


def write_scripts(
    root: Path, lab_dir: Path, todo: list[batch.Submission], out: Path, o: Options,
    roster: list[str] | None = None, classmates: list[batch.Submission] | None = None,
) -> tuple[Path, int]:
    """Writes DIR/slurm/'s scripts, shards, roster (the ids the gradebook lists; default
    those of ``todo``) and classmates (the paths no task's run may read: every submission
    of the class, default ``todo``'s); returns the folder and the number of tasks.
    GraderError for an ``out`` whose absolute path holds white space: the jobs' logs are
    named in ``#SBATCH --output=`` lines, which sbatch splits at white space like a command
    line."""
    folder = out / SCRIPTS
    if any(c.isspace() for c in str(folder.absolute())):
        raise GraderError(
            f"--out {folder.absolute().parent} holds white space, which the jobs' '#SBATCH "
            "--output=' lines cannot: choose a folder whose path has none"
        )
    batch.make_private(out)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("shard-*.txt"):
        old.unlink()
    ids = sorted(roster if roster is not None else {s.id for s in todo})
    write_atomic(folder / ROSTER, json.dumps(ids, indent=1, ensure_ascii=False) + "\n")
    paths = [str(s.path.absolute()) for s in (classmates if classmates is not None else todo)]
    write_atomic(folder / CLASSMATES, json.dumps(paths, indent=1, ensure_ascii=False) + "\n")
    regrade = sorted(o.regrade)  # each task's batch grades again those of its shard
    write_atomic(folder / REGRADE, json.dumps(regrade, indent=1, ensure_ascii=False) + "\n")
    shards = [todo[i : i + o.per_task] for i in range(0, len(todo), o.per_task)]
    for i, shard in enumerate(shards):
        text = "".join(f"{s.path.absolute()}\n" for s in shard)
        write_atomic(folder / f"shard-{i}.txt", text)
    lab = lab_dir.absolute()
    # every job gets --time (a build takes minutes, a merge seconds; a fixed limit of their own
    # could be over a partition's MaxTime, which would refuse them)
    build_sh = _header("cml-build", folder / "build-%j.log", o, o.time)
    build_sh += ["set -uo pipefail", _grader(root, "slurm", lab, "--out", out, "--stage", "build",
                                              *o.grade_args)]
    grade_sh = _header("cml-grade", folder / "grade-%A_%a.log", o, o.time, gpu=True)
    grade_sh.append(f"#SBATCH --array=0-{len(shards) - 1}%{o.max_parallel}")
    grade_sh.append("#SBATCH --ntasks=1")  # --gpus-per-task needs a task count (sbatch(1))
    if o.gpus_per_task > 0:
        grade_sh.append(f"#SBATCH --gpus-per-task={o.gpus_per_task}")
    if o.cpus_per_task:  # 8 or more: the task's grader keeps 3 for its timed runs (grader.cpus)
        grade_sh.append(f"#SBATCH --cpus-per-task={o.cpus_per_task}")
    if o.mem:
        grade_sh.append(f"#SBATCH --mem={o.mem}")
    grade_sh += [
        "set -uo pipefail",
        # the submitting shell's environment is inherited: a GPU lock file of its own would tie
        # every node's tasks to one lock, and a GPU list of its own would name GPUs Slurm did
        # not give this task (with --gpus-per-task 0, none: Slurm sets none)
        "unset GRADER_GPU_LOCK",
        *([] if o.gpus_per_task > 0 else ["export CUDA_VISIBLE_DEVICES="]),
        # the throughput knobs as they were when this was written, whatever the shell that
        # runs sbatch has (an instructor's trial, session 36: pasted from another shell, they
        # were lost)
        *_knob_lines(batch.knobs_in_environment()),
        f'mapfile -t SUBS < {shlex.quote(str(folder))}/shard-"$SLURM_ARRAY_TASK_ID".txt',
        'echo "task $SLURM_ARRAY_TASK_ID on $(hostname), CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}"',
        _grader(root, "batch", lab, "--out", out, "--roster", folder / ROSTER,
                "--classmates", folder / CLASSMATES, "--regrade-from", folder / REGRADE,
                *o.grade_args,
                *(["--force"] if o.force else []), tail=' "${SUBS[@]}"'),
    ]
    merge_sh = _header("cml-merge", folder / "merge-%j.log", o, o.time)
    merge_sh += ["set -uo pipefail", _grader(root, "slurm", lab, "--out", out, "--stage", "merge")]
    for name, lines in (("build", build_sh), ("grade", grade_sh), ("merge", merge_sh)):
        write_atomic(folder / f"{name}.sbatch", "\n".join(lines) + "\n")
    return folder, len(shards)


def _knob_lines(knobs: dict[str, str]) -> list[str]:
    """The grade script's lines that set the throughput knobs ``knobs`` (name -> value) and
    unset the others (``batch.KNOB_ENVS``)."""
    lines = [f"export {k}={shlex.quote(v)}" for k, v in knobs.items()]
    unset = [k for k in batch.KNOB_ENVS if k not in knobs]
    return lines + ([f"unset {' '.join(unset)}"] if unset else [])


# folders that are each node's own on most clusters: a job on another node does not see what
# the login node keeps there
NODE_LOCAL = ("/tmp", "/var/tmp", "/dev/shm", "/run")


def sinfo_nodes() -> list[list[str]] | None:
    """sinfo's nodes, one ``[name, partition (the default one marked *), CPUs, memory in
    MB, gres]`` each (a node in two partitions twice), read once for a submission's checks
    (``unfit``, ``one_node_here``); None where sinfo is missing or fails."""
    sinfo = shutil.which("sinfo")
    if sinfo is None:
        return None
    try:
        out = subprocess.run([sinfo, "-h", "-N", "-o", "%N|%P|%c|%m|%G"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return [f for line in out.stdout.splitlines() if len(f := line.strip().split("|")) == 5]


def one_node_here(nodes: list[list[str]] | None) -> bool:
    """Whether sinfo's ``nodes`` (``sinfo_nodes``) are one node only, and it is this machine
    (a single-node cluster: its /tmp is every job's); False where sinfo is missing, fails or
    lists others."""
    names = {f[0] for f in nodes or ()}
    here = {socket.gethostname(), socket.gethostname().split(".")[0]}
    return len(names) == 1 and bool(names & here)


def node_local(root: Path, out: Path, subs: list[batch.Submission]) -> list[str]:
    """The paths the jobs need that lie in a ``NODE_LOCAL`` folder: the course tree, this
    grader's folder, its Python (``sys.executable``), ``out`` and the submissions (at most
    three of them named, then a count)."""
    named = [("the course tree", root), ("the grader's package", GRADER_HOME),
             ("its Python", Path(sys.executable)), ("--out", out)]
    found = [f"{what} {path}" for what, path in named if _under(path, NODE_LOCAL)]
    local = [s for s in subs if _under(s.path, NODE_LOCAL)]
    if local:
        found.append(f"the submissions ({batch.name_list([str(s.path) for s in local], 3)})")
    return found


def _under(path: Path, folders: tuple[str, ...]) -> bool:
    """Whether ``path``, as written (``..`` resolved: a relative path from /tmp that leaves
    it) or as its links lead, lies in one of ``folders``."""
    seen = (Path(os.path.normpath(Path(path).absolute())), Path(path).resolve())
    return any(p.is_relative_to(f) for p in seen for f in folders)


SBATCH_NOT_FOUND = "sbatch not found: run this on a Slurm login node (or use --dry-run)"


def _sbatch(args: list[str]) -> str:
    sbatch = shutil.which("sbatch")
    if sbatch is None:
        raise GraderError(SBATCH_NOT_FOUND)
    out = subprocess.run([sbatch, "--parsable", *args], capture_output=True, text=True)
    if out.returncode != 0:
        why = out.stderr.strip()
        fix = ""
        if "gres" in why.lower() or "generic resource" in why.lower():
            fix = (
                " (Slurm refused the GPU request: check that the partition has GPUs declared as "
                "a generic resource, gres, and choose one with --partition, or ask for none "
                "with --gpus-per-task 0)"
            )
        raise GraderError(f"sbatch {' '.join(args)} failed: {why}{fix}")
    return out.stdout.strip().split(";")[0]


def _cancel(ids: list[str], err) -> None:
    """scancel the jobs of a submission that could not be completed (a later sbatch was
    refused), so that no build job waits in the queue unrecorded."""
    if not ids:
        return
    scancel = shutil.which("scancel")
    if scancel is None:
        print(f"slurm: cancel jobs {', '.join(ids)} by hand (scancel not found)", file=err)
        return
    done = subprocess.run([scancel, *ids], capture_output=True, text=True)
    if done.returncode == 0:
        print(f"slurm: cancelled the jobs already submitted: {', '.join(ids)}", file=err)
    else:
        print(f"slurm: could not cancel jobs {', '.join(ids)} ({done.stderr.strip()}): cancel "
              "them by hand with scancel", file=err)


_MEM = re.compile(r"(\d+)([KMGT]?)B?", re.I)  # sbatch's --mem: a number, M by default
_MEM_MB = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}


def _mem_mb(mem: str | None) -> float:
    """MB of sbatch's ``--mem`` (``8G``, ``8000``, ``512M``); 0 for none, 0 (the node's
    whole memory) or a spelling not read here."""
    m = _MEM.fullmatch((mem or "").strip())
    return int(m.group(1)) * _MEM_MB[(m.group(2) or "M").upper()] if m else 0


def _gpus(gres: str) -> int:
    """GPUs in sinfo's %G of one node (``gpu:2``, ``gpu:a100:4(S:0-1)``, ``(null)``)."""
    count = 0
    for item in gres.split(","):
        name, _, rest = item.partition(":")
        if name.strip() == "gpu":
            last = rest.split("(")[0].rsplit(":", 1)[-1]
            count += int(last) if last.isdigit() else 0
    return count


def unfit(o: Options, nodes: list[list[str]] | None) -> str | None:
    """Why no node of the grade array's partition (``o.partition``, else the cluster's
    default one) can run one task of it: the CPUs, memory (MB) and GPUs each node has, from
    sinfo's ``nodes`` (``sinfo_nodes``), against ``--cpus-per-task``, ``--mem`` and
    ``--gpus-per-task``. Slurm accepts such an array and keeps it pending for ever (reason
    PartitionConfig; an instructor's trial with the README's values on a 2-CPU node). None
    where one node fits, or where sinfo is missing, fails or names no node of that partition
    (nothing known)."""
    room = {}
    for name, partition, cpus, mem, gres in nodes or ():
        if not (partition.rstrip("*") == o.partition if o.partition
                else partition.endswith("*")):
            continue  # without --partition, the default one's (marked *)
        try:
            room[name] = (int(cpus), int(mem.rstrip("+")), _gpus(gres))
        except ValueError:
            continue
    need = (o.cpus_per_task or 1, _mem_mb(o.mem), o.gpus_per_task)
    if not room or any(all(h >= n for h, n in zip(has, need)) for has in room.values()):
        return None
    most = [max(has[i] for has in room.values()) for i in range(3)]
    partition = f"partition {o.partition}" if o.partition else "the default partition"
    return (
        f"no node of {partition} can run one grade task: each asks for {need[0]} CPU(s)"
        + (f", {o.mem} of memory" if need[1] else "") + f" and {need[2]} GPU(s), and its "
        f"{len(room)} node(s) have at most {most[0]} CPUs, {most[1]} MB and {most[2]} GPUs "
        "(sinfo); Slurm would keep the array pending without end (PartitionConfig). Ask for "
        "what a node has (--cpus-per-task, --mem, --gpus-per-task), or choose another "
        "--partition"
    )


def _why_graded(
    folder: Path, sub: batch.Submission, o: Options, required: tuple[str, ...]
) -> str | None:
    """Why the student in ``folder`` is graded (again) by this submission, or None where
    their grade is final for what they hand in now (``batch.final_row``, ``batch.changed``,
    as ``batch`` decides): "--force", "--regrade", "no result yet", "changed since graded"
    or the status of the last row that was not final ("partial (no GPU)", "error", ...)."""
    if o.force or sub.id in o.regrade:
        return "--force" if o.force else "--regrade"
    final = batch.final_row(folder)
    if final is not None:
        return "changed since graded" if batch.changed(final, sub, required) else None
    row = batch._read_row(folder / "batch.json")
    return "no result yet" if row is None else str(row.get("status", "not final")).split(":")[0]


def submit(
    lab_dir: Path, paths: list[str], out: Path, o: Options, dry_run: bool, err, out_stream=None
) -> int:
    """Writes the scripts and submits build → grade array → merge; returns the exit status.
    A refused sbatch cancels the jobs of this submission already queued (GraderError).
    ``out_stream``: where --dry-run prints the scripts (default standard output)."""
    out_stream = out_stream or sys.stdout
    root = course.find_root(lab_dir.absolute().parent)
    if root is None:
        raise GraderError(f"cannot find the course root above {lab_dir}")
    lab = manifest.load(lab_dir)
    batch.read_knobs()  # a wrong throughput knob would fail every task: refused now
    out = out.absolute()
    subs = batch.collect(
        batch.without_out(paths, out, err, lab.required_files), lab.required_files, err
    )
    batch.check_out(out, subs, root)
    if any(s.id == SCRIPTS for s in subs):  # an instructor's trial: the dry run took it
        raise GraderError(
            f"a submission has the id '{SCRIPTS}', whose grades folder would be "
            f"{out / SCRIPTS}, where the Slurm scripts are: rename that submission"
        )
    batch.check_regrade(o.regrade, subs)
    whys = {s.id: _why_graded(out / s.id, s, o, lab.required_files) for s in subs}
    todo = [s for s in subs if whys[s.id] is not None]
    if not todo:
        print(f"slurm: every one of the {len(subs)} students has a final grade in {out} for "
              "what they hand in now; nothing to submit (--force grades them again)", file=err)
        return 0
    if not dry_run and shutil.which("sbatch") is None:  # before any script is rewritten
        raise GraderError(SBATCH_NOT_FOUND)
    records = read_jobs(out / SCRIPTS)  # before anything is written or submitted
    history = [] if dry_run else records
    live = live_jobs(records)
    if live:  # their tasks read the shards and roster that new scripts would rewrite
        raise GraderError(
            f"jobs of an earlier submission to {out} are still queued or running "
            f"({', '.join(live)}): their tasks read {out / SCRIPTS}'s shards, which this "
            f"would rewrite; wait for them (squeue -j {','.join(live)}) or cancel them "
            f"(scancel {' '.join(live)}), then run this again"
        )
    nodes = sinfo_nodes()  # read once: the fit of a task, whether the cluster is this machine
    why = unfit(o, nodes)
    if why and not dry_run:  # before any script is rewritten or job submitted
        raise GraderError(why)
    folder, n_tasks = write_scripts(root, lab_dir, todo, out, o, [s.id for s in subs], subs)
    if why:  # a dry run shows the scripts all the same
        print(f"slurm: warning: {why}", file=err)
    commands = [
        ["build.sbatch"],
        # a failed build cancels the array (afterok never met), and the merge still runs
        ["--dependency=afterok:{build}", "--kill-on-invalid-dep=yes", "grade.sbatch"],
        ["--dependency=afterany:{grade}", "merge.sbatch"],
    ]
    local = node_local(root, out, subs)
    if local and not one_node_here(nodes):  # a single-node cluster (CI's) sees them: not said
        print(f"slurm: warning: {'; '.join(local)} lie in {' or '.join(NODE_LOCAL)}, which "
              "most clusters keep apart on each node: a job on another node would not find "
              "them. Keep the course tree, the grader's Python, the class and --out on a "
              "file system every node mounts (README, \"What the cluster needs\")", file=err)
    stale = batch.stale_ids(out, lab, [s.id for s in subs])
    if stale:  # the merge's gradebook lists the class named here only: say so now
        print(batch._stale_line(stale, out, "slurm"), file=err)
    knobs = batch.knobs_in_environment()
    if knobs:  # written into grade.sbatch (write_scripts): say so, and what a task caps
        caps = [batch.UNTIMED_ENV, batch.TIMED_SETUPS_ENV]
        idle = [k for k in caps if k in knobs and int(knobs[k]) >= o.per_task]
        # those of timed runs do nothing without one (batch.knob_lines says so in each task)
        untimed = "--no-perf" in o.grade_args
        ignored = [k.env for k in batch.KNOBS if k.timed and k.env in knobs and untimed]
        print("slurm: each task grades with " + ", ".join(f"{k}={v}" for k, v in knobs.items())
              + " (written into grade.sbatch)"
              + (f"; {' and '.join(idle)} cap{'' if len(idle) > 1 else 's'} nothing where "
                 f"a task grades --per-task "
                 f"{o.per_task} student{'s' if o.per_task > 1 else ''}" if idle else "")
              + (f"; {', '.join(ignored)} ignored: {batch.NO_PERF_IGNORED}" if ignored else ""),
              file=err)
    kept = sorted({s.id for s in subs} - {s.id for s in todo})
    # why each goes again, where any has a result (an instructor's trial: a re-run's "5 of 6
    # to grade" gave no reason, and 4 of them were partial grades a GPU-less node keeps)
    counts: dict[str, int] = {}
    for sub in todo:
        counts[whys[sub.id]] = counts.get(whys[sub.id], 0) + 1
    reasons = (
        " (" + ", ".join(f"{n} {why}" for why, n in sorted(counts.items(), key=lambda w: -w[1]))
        + ")" if set(counts) != {"no result yet"} else ""
    )
    print(f"slurm: {len(todo)} of {len(subs)} students to grade{reasons}, in {n_tasks} array tasks "
          f"(at most {o.max_parallel} at once); scripts in {folder}"
          + (f"; kept, their grades final: {batch.name_list(kept)} (--force grades them "
             "again)" if kept else ""),
          file=err)
    if dry_run:  # the scripts and commands on stdout (to keep: --dry-run > scripts.txt)
        for name in ("build", "grade", "merge"):
            print(f"==> {folder / (name + '.sbatch')}", file=out_stream)
            print((folder / f"{name}.sbatch").read_text(), file=out_stream)
        for name, args in zip(STAGES, commands):  # shell lines to paste: each id in a variable
            shown = [a.format(**{n: f"${n}" for n in STAGES}) for a in args[:-1]]
            line = " ".join(["sbatch", "--parsable", *shown, shlex.quote(str(folder / args[-1]))])
            print(f"{name}=$({line})", file=out_stream)
        print("slurm: --dry-run, nothing submitted", file=err)
        return 0
    ids: dict[str, str] = {}
    # before the first sbatch: a result older than this is an earlier grading's (unrenewed)
    submitted = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for name, args in zip(STAGES, commands):
        args = [a.format(**ids) for a in args[:-1]] + [str(folder / args[-1])]
        try:
            ids[name] = _sbatch(args)
        except BaseException:  # a refused sbatch, or Ctrl-C between two: none left queued
            _cancel(list(ids.values()), err)
            raise
    record = {
        "submitted": submitted,
        "students": [s.id for s in todo],
        "tasks": n_tasks,
        **ids,
    }
    _record_jobs(folder, history, record)
    earlier = (
        f"; the {len(history)} earlier submission(s) of this folder are kept there"
        if history else ""
    )
    print(f"slurm: submitted build {ids['build']}, grade {ids['grade']} ({n_tasks} tasks), "
          f"merge {ids['merge']}; follow with: squeue -j {','.join(job_ids(record))}; the "
          f"gradebook is {out / batch.GRADEBOOK} once {ids['merge']} ends (job ids in "
          f"{folder / JOBS}{earlier})", file=err)
    return 0


def unrenewed(out: Path, missing: set[str]) -> list[str]:
    """The students of the last submission recorded in ``out``'s jobs.json whose result
    (``<id>/batch.json``) is older than that submission: their tasks wrote nothing (a task
    cancelled while it graded under --force or --regrade leaves the earlier result in place).
    ``missing``: those with no result at all, named apart. [] where jobs.json holds no
    submission or its time cannot be read."""
    try:
        records = read_jobs(out / SCRIPTS)
    except GraderError:
        return []
    if not records:
        return []
    last = records[-1]
    try:
        submitted = calendar.timegm(time.strptime(last["submitted"], "%Y-%m-%dT%H:%M:%SZ"))
    except (KeyError, TypeError, ValueError):
        return []
    older = []
    for sid in last.get("students") or []:
        if not isinstance(sid, str) or sid in missing:
            continue
        try:  # a second's slack: the record's time is rounded down
            if (out / sid / "batch.json").stat().st_mtime < submitted - 1:
                older.append(sid)
        except OSError:
            continue
    return sorted(older)


def stage(lab_dir: Path, out: Path, which: str, arch: str | None, err) -> int:
    """The build and merge jobs' work (``slurm --stage build|merge``)."""
    lab = manifest.load(lab_dir)
    if which == "build":
        root = course.find_root(lab_dir.absolute().parent)
        nvcc = tools.find("nvcc")
        if root is None or nvcc is None:
            raise GraderError("cannot build: " + ("no course root" if root is None
                                                  else tools.not_found("nvcc")))
        build.build_common(root, nvcc, arch)
        build.build_judge(root, nvcc, arch, lab.name)
        print(f"slurm: the course library and the judge of {lab.name} are built", file=err)
        return 0
    roster_path = out.absolute() / SCRIPTS / ROSTER
    roster = batch.read_roster(roster_path) if roster_path.exists() else None
    rows = batch.write_gradebook(out.absolute(), lab, roster)
    stale = batch.stale_ids(out.absolute(), lab, roster) if roster is not None else []
    if stale:
        print(batch._stale_line(stale, out.absolute()), file=err)
    missing = batch.missing_ids(rows, roster)
    statuses = [r["status"] for r in rows] + [batch.NOT_GRADED] * len(missing)
    print(batch._closing_line(statuses, out.absolute() / batch.GRADEBOOK), file=err)
    older = unrenewed(out.absolute(), set(missing))
    if older:  # their rows are an earlier grading's (an instructor's trial: nothing said)
        print(
            f"slurm: {len(older)} of the last submission's students have no result of theirs "
            f"({batch.name_list(older)}): their tasks ended without one (cancelled, out of "
            "time, or a node's failure: see slurm/grade-*.log); the gradebook shows their "
            "earlier result. Run the same command again (with --regrade ID for a grade that "
            "is final) to grade them",
            file=err,
        )
    if missing:  # listed, not graded: their tasks ended without a result (or never ran)
        print(
            f"slurm: {len(missing)} of the class's {len(roster)} have no result "
            f"({batch.name_list(missing)}): "
            "their tasks ended without one (see slurm/grade-*.log and squeue); run the same "
            "command again to grade them",
            file=err,
        )
    return 0 if all(map(row_is_final, statuses)) and not missing else 3

"""The command line: ``python3 -m grader grade | batch | slurm | selfcheck | skeleton |
dist-student | gradescope-zip``.

    grade LABDIR [--submission DIR] [--json FILE] [--gradescope FILE] [--seed S]
                 [--arch sm_90] [--no-sanitizer] [--no-perf] [--quiet] [--exercise NAME]...
    batch LABDIR SUBMISSION... --out DIR [--force] [--regrade ID]... [--jobs N] [--seed S]
          [--arch sm_90] [--no-sanitizer] [--no-perf]
    slurm LABDIR SUBMISSION... --out DIR [--partition P] [--cpu-partition P]
          [--gpus-per-task N] [--cpus-per-task C] [--mem M] [--max-parallel K] [--time T]
          [--per-task M] [--dry-run] [--force] [--regrade ID]... [--seed S] [--no-sanitizer]
          [--no-perf]
    selfcheck [--lab ID]... [--json FILE] [--seed S]
    skeleton (--check | --write) [--lab ID]...
    dist-student [--out PATH]
    gradescope-zip LAB [--out PATH]

``--gradescope FILE`` also writes Gradescope's ``results.json`` (``grader.gradescope``);
``dist-student`` writes the student release without solutions (``grader.dist``);
``gradescope-zip`` writes a Gradescope autograder zip for one lab (``grader.gradescope_zip``);
``batch`` grades a class (folders or archives, one per student) into a gradebook
(``grader.batch``, which has its exit status: 0 done, 2 usage, 3 some grade not final);
``slurm`` grades one on a Slurm cluster: a build job, a job array of batch gradings, a
merge job (``grader.slurm``).

``LABDIR`` is the pristine lab (``labs/3.3-tiling``); ``--submission`` a folder holding
the student files (default: LABDIR itself, a student's own working copy).

Exit status of ``grade`` (``grader.scoring`` has the full rule):

- 0: every check ran and every point was earned;
- 1: graded, and points were lost for certain (a compile error, a missing student file
  and a failed symbol check count: they zero the submission without any GPU);
- 2: usage or internal error (bad arguments, an invalid lab.toml, a course that does not
  build): a one-line message, never a traceback — except for a bug in the grader itself,
  which prints "grader: internal error" first, then the traceback;
- 3: nothing was lost for certain but some checks could not run (no CUDA device, no
  compute-sanitizer, no cuobjdump) or were left out: not a final grade.

``selfcheck`` exits 0 / 1 / 3 alike (expectations met / not met / no device);
``skeleton --check`` exits 1 when a labs/ file differs from its generated skeleton or a
solution has a marker error (0, with nothing to check, in a copy without solutions/),
``--write`` exits 1 on a marker error.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import traceback
from pathlib import Path

from grader import batch, course, dist, slurm, gradescope, gradescope_zip, report, selfcheck, skeleton
from grader import grade as grading
from grader.errors import GraderError


def _run_options(p: argparse.ArgumentParser) -> None:
    """The options of how a grading runs, the same for grade, batch and slurm."""
    p.add_argument(
        "--seed", type=_seed, metavar="S",
        help="derive every run's seed from S (the same S gives the same inputs again)",
    )
    p.add_argument("--arch", type=_arch, help="GPU architecture to build for (default sm_90)")
    p.add_argument("--no-sanitizer", action="store_true", help="leave out compute-sanitizer")
    p.add_argument("--no-perf", action="store_true", help="leave out the performance runs")


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer (decimal or 0x-hex)")
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError("a seed is an unsigned 64-bit integer")
    return value


def _arch(text: str) -> str:
    if not re.fullmatch(r"sm_\d+[a-z]?", text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a GPU architecture like sm_90")
    return text


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: it must be at least 1")
    return value


def _mem(text: str) -> str:
    """sbatch's --mem: a whole number with an optional unit K, M, G or T and B, in either
    case (megabytes without one; 0 asks for all the node's memory)."""
    if not re.fullmatch(r"\d+[KMGT]?B?", text, re.I):  # 0: all the node's memory (sbatch(1))
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a memory size as sbatch takes it, e.g. 64G or 16000 (megabytes)"
        )
    return text


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m grader",
        description="Autograder of the CUDA Memory Labs.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    g = sub.add_parser("grade", help="grade one submission of a lab")
    g.add_argument("labdir", metavar="LABDIR", help="the pristine lab, e.g. labs/3.3-tiling")
    g.add_argument(
        "--submission",
        metavar="DIR",
        help="folder holding the student files (default: LABDIR itself)",
    )
    g.add_argument("--json", metavar="FILE", help="also write the JSON report to FILE")
    g.add_argument(
        "--gradescope", metavar="FILE", help="also write Gradescope's results.json to FILE"
    )
    _run_options(g)
    g.add_argument("--quiet", action="store_true", help="print only the score table")
    g.add_argument(
        "--exercise",
        action="append",
        metavar="NAME",
        help="grade only this exercise (repeatable; the total is then over those)",
    )

    # the throughput knobs each batch reads from its environment, listed after the options
    knobs = {"epilog": batch.knobs_help(), "formatter_class": argparse.RawDescriptionHelpFormatter}
    b = sub.add_parser("batch", help="grade a class of submissions into a gradebook", **knobs)
    b.add_argument("labdir", metavar="LABDIR", help="the pristine lab, e.g. labs/3.3-tiling")
    b.add_argument(
        "submissions",
        nargs="+",
        metavar="SUBMISSION",
        help="one per student: a folder, .zip, .tar.gz or .tgz (the id is its name)",
    )
    b.add_argument("--out", required=True, metavar="DIR", help="gradebook and reports go here")
    b.add_argument("--force", action="store_true", help="grade again those already graded")
    b.add_argument(
        "--regrade", action="append", default=[], metavar="ID",
        help="grade this student again, keeping the others' grades (repeatable; name the "
        "whole class, so that the gradebook lists every student)",
    )
    b.add_argument(
        "--jobs", type=_jobs,
        help="parallel gradings (default: one per CPU the grader may use, fewer where the "
        "GPU's memory holds fewer at 8 GiB each)",
    )
    _run_options(b)
    # the class the gradebook lists, when it is more than these submissions (grader.slurm's
    # array tasks: a JSON list of ids)
    b.add_argument("--roster", metavar="FILE", help=argparse.SUPPRESS)
    # the whole class's submissions, a JSON list of paths, that no run may read
    # (grader.slurm's array tasks, each grading a shard)
    b.add_argument("--classmates", metavar="FILE", help=argparse.SUPPRESS)
    # the whole class's ids to grade again, a JSON list, of which this batch's are (grader.
    # slurm's array tasks, from its --regrade)
    b.add_argument("--regrade-from", metavar="FILE", help=argparse.SUPPRESS)

    u = sub.add_parser(
        "slurm", help="grade a class on a Slurm cluster (job array + merge)", **knobs
    )
    u.add_argument("labdir", metavar="LABDIR", help="the pristine lab, e.g. labs/3.3-tiling")
    u.add_argument("submissions", nargs="*", metavar="SUBMISSION", help="as for batch")
    u.add_argument("--out", required=True, metavar="DIR", help="gradebook and reports go here")
    u.add_argument("--partition", metavar="P", help="the Slurm partition (default: the cluster's)")
    u.add_argument("--cpu-partition", metavar="P",
                   help="the partition of the build and merge jobs, which need no GPU "
                   "(default: --partition)")
    u.add_argument("--gpus-per-task", type=int, default=1, metavar="N",
                   help="GPUs per array task (default 1; 0 asks for none)")
    u.add_argument("--cpus-per-task", type=_jobs, metavar="C",
                   help="CPUs per array task (default: the cluster's; 8 or more keep 3 for "
                   "timed runs)")
    u.add_argument("--max-parallel", type=_jobs, default=8, metavar="K",
                   help="array tasks running at once (default 8)")
    u.add_argument(
        "--time", default="01:00:00", metavar="T", help="per job and task (default 01:00:00)"
    )
    u.add_argument("--per-task", type=_jobs, default=1, metavar="M",
                   help="students per array task (default 1)")
    u.add_argument("--mem", type=_mem, metavar="M",
                   help="memory per array task, as sbatch's --mem, e.g. 64G (default: the "
                   "cluster's; a task grades one student per CPU, each run limited to 6 GiB "
                   "where the grader can make a cgroup)")
    u.add_argument("--force", action="store_true", help="grade again those already graded")
    u.add_argument(
        "--regrade", action="append", default=[], metavar="ID",
        help="grade this student again, keeping the others' grades (repeatable; name the "
        "whole class)",
    )
    u.add_argument("--dry-run", action="store_true", help="write and print the scripts only")
    _run_options(u)
    u.add_argument("--stage", choices=("build", "merge"), help=argparse.SUPPRESS)

    s = sub.add_parser("selfcheck", help="solutions full marks, skeletons zero (instructors)")
    s.add_argument("--lab", action="append", metavar="ID", help="only this lab (repeatable)")
    s.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    s.add_argument("--seed", type=_seed, metavar="S", help="derive every run's seed from S")
    s.add_argument("--root", metavar="DIR", help=argparse.SUPPRESS)

    k = sub.add_parser("skeleton", help="generate labs/ student files from solutions/")
    mode = k.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="fail when labs/ differs")
    mode.add_argument("--write", action="store_true", help="rewrite labs/ student files")
    k.add_argument("--lab", action="append", metavar="ID", help="only this lab (repeatable)")
    k.add_argument("--root", metavar="DIR", help=argparse.SUPPRESS)

    d = sub.add_parser("dist-student", help="the student release tarball, without solutions/")
    d.add_argument("--out", metavar="PATH", help=f"where to write it (default {dist.DEFAULT_OUT})")
    d.add_argument("--root", metavar="DIR", help=argparse.SUPPRESS)

    z = sub.add_parser("gradescope-zip", help="a Gradescope autograder zip for one lab")
    z.add_argument("lab", metavar="LAB", help="the lab's id (3.3) or folder name (3.3-tiling)")
    z.add_argument(
        "--out", metavar="PATH", help="where to write it (default build/dist/gradescope-<lab>.zip)"
    )
    z.add_argument("--root", metavar="DIR", help=argparse.SUPPRESS)
    p.commands = sub.choices  # name → its parser: run() reports its usage errors
    return p


def _root(args) -> Path:
    if args.root:
        root = course.find_root(Path(args.root))
        if root is None:
            raise GraderError(f"{args.root} is not a course root (no Makefile, common/cml_json.h)")
        return root
    return course.default_root()


def _grade(args) -> int:
    labdir = course.lab_folder(args.labdir)
    options = grading.Options(
        submission=Path(args.submission) if args.submission else None,
        seed=args.seed,
        arch=args.arch,
        sanitizer=not args.no_sanitizer,
        performance=not args.no_perf,
        exercises=tuple(args.exercise or ()),
    )
    start = time.monotonic()
    g = grading.grade(labdir, options)
    elapsed = time.monotonic() - start
    sys.stdout.write(report.text(g, quiet=args.quiet))
    if args.json:
        report.write_json(g, args.json)
    if args.gradescope:
        gradescope.write(g, elapsed, args.gradescope)
    return g.exit_code


def _batch(args) -> int:
    options = grading.Options(
        seed=args.seed,
        arch=args.arch,
        sanitizer=not args.no_sanitizer,
        performance=not args.no_perf,
        sandbox_default="auto",
    )
    roster = batch.read_roster(Path(args.roster)) if args.roster else None
    classmates = batch.read_classmates(Path(args.classmates)) if args.classmates else ()
    regrade_from = batch.read_regrade(Path(args.regrade_from)) if args.regrade_from else ()
    return batch.batch(
        Path(args.labdir), args.submissions, Path(args.out), options, args.force, args.jobs,
        roster=roster, classmates=classmates, regrade=args.regrade, regrade_from=regrade_from,
    )


def _slurm(args) -> int:
    lab_dir, out = course.lab_folder(args.labdir), Path(args.out)
    if args.stage:
        return slurm.stage(lab_dir, out, args.stage, args.arch, sys.stderr)
    if not args.submissions:
        raise GraderError("slurm: name at least one SUBMISSION")
    if args.gpus_per_task < 0:
        raise GraderError("--gpus-per-task must be 0 or more")
    passed = []
    if args.seed is not None:
        passed += ["--seed", str(args.seed)]
    if args.arch:
        passed += ["--arch", args.arch]
    passed += ["--no-sanitizer"] if args.no_sanitizer else []
    passed += ["--no-perf"] if args.no_perf else []
    o = slurm.Options(args.partition, args.gpus_per_task, args.max_parallel, args.cpus_per_task,
                      args.time, args.per_task, tuple(passed), args.force, args.cpu_partition,
                      args.mem, tuple(args.regrade))
    return slurm.submit(lab_dir, args.submissions, out, o, args.dry_run, sys.stderr)


def run(argv: list[str] | None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # with the command's own usage, not the top level's (argparse's default)
        parser.commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command == "grade":
        return _grade(args)
    if args.command == "batch":
        return _batch(args)
    if args.command == "slurm":
        return _slurm(args)
    if args.command == "selfcheck":
        return selfcheck.selfcheck(_root(args), args.lab, sys.stdout, args.json, args.seed)
    root = _root(args)
    if args.command == "dist-student":
        return dist.dist_student(root, args.out, sys.stdout, drift=skeleton.release_drift)
    if args.command == "gradescope-zip":
        return gradescope_zip.gradescope_zip(root, args.lab, args.out, sys.stdout)
    if args.check:
        return skeleton.check(root, args.lab, sys.stdout)
    return skeleton.write(root, args.lab, sys.stdout)


def main(argv: list[str] | None = None) -> int:
    try:
        return run(argv)
    except SystemExit as e:  # argparse: --help (0) or a usage error (2)
        return e.code if isinstance(e.code, int) else 2
    except GraderError as e:
        print(f"grader: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # 128 + SIGINT, the shell's own code: not a usage error
        print("grader: interrupted (a batch run again resumes: what it graded is kept)",
              file=sys.stderr)
        return 130
    except Exception:
        print("grader: internal error (a bug in the grader; please report it):", file=sys.stderr)
        traceback.print_exc()
        return 2

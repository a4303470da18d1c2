"""One grading, step by step (shared/DESIGN.md, "The grader").

assemble → build → symbol check → static (SASS, resources) → device probe → correctness →
sanitizer → performance → score. Each step's failure is a graded result:

- a missing student file or a failed build zeroes the submission (nothing else can run);
- a written report (lab.toml ``[report]``) is checked right after assembly, whatever
  happens to the code (grader.writeup): a missing or unfilled one loses only its own
  "filled" points, and its manual points are left pending for the instructor. With
  ``--exercise`` it is left out, like the exercises not chosen;
- a failed symbol check zeroes it too, and the submission is **never run** (trust
  boundary); its static checks are not run either;
- without ``nm`` the symbols cannot be checked, so the submission is not run (exit 3);
- without cuobjdump the static checks are skipped (never passed);
- without a CUDA device (the judge's ``--device-info`` says ``no_device``; asked before any
  of the submission's code runs) or without compute-sanitizer, the runtime parts are not
  run, and the report says why;
- the judge (``build/<lab>/judge``) is checked to be the file the grading built before each
  use: a submission running without the sandbox can rewrite the course's files, and a
  changed judge stops the grading (``GraderError``);
- a correctness case that timed out stops the sanitizer and performance runs of that
  exercise (they would hang the same way, under a longer limit).

``GraderError`` (a broken lab.toml, a course that does not build, a harness that breaks
its contract) propagates to the command line: exit status 2.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import copy
import dataclasses
import functools
import math
import os
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from grader import assemble as assembler
from grader import build as builder
from grader import run as runner
from grader import (
    class_figures,
    counters,
    cpus,
    plausible,
    roofs,
    cgroup,
    course,
    diagnose,
    gpu_lock,
    harness,
    launches,
    lint,
    manifest,
    sandbox,
    sanitizer,
    sass,
    scoring,
    spaces,
    symbols,
    tools,
    writeup,
)
from grader.errors import GraderError
from grader.gpu_lock import GpuLock
from grader.manifest import Exercise, Lab, display_path
from grader.results import (
    PART_NAMES,
    ExerciseResult,
    Grade,
    Part,
    ReportResult,
    Step,
)
from grader.status import (
    DID_NOT_RUN,
    LOST_FOR_CERTAIN,
    NOT_IN_EXERCISE,
    Status,
    not_in_exercise,
    ran,
    state,
)


@dataclass
class Options:
    submission: Path | None = None  # default: the lab folder itself
    seed: int | None = None
    arch: str | None = None
    sanitizer: bool = True
    performance: bool = True
    exercises: tuple[str, ...] = ()  # grade only these (default: all)
    # batch grading passes one lock for the class (grader.gpu_lock): untimed runs (device
    # probe, correctness, sanitizer) share the GPU, a performance run has it alone
    gpu_lock: GpuLock | None = None
    # the sandbox when GRADER_SANDBOX is unset (grader.sandbox): "none" for one grade,
    # "auto" for batch grading of untrusted submissions
    sandbox_default: str = "none"
    # what the submission's build and runs must not read, wherever the sandbox would show it
    # (grader.sandbox.choose): a batch's --out and its class's submissions
    private: tuple[Path, ...] = ()
    # an exercise's correctness cases with one judge and one student's process
    # (harness.run_judged_cases, issue 15), in place of a pair per case, and each sanitizer
    # tool over all its cases in one process first (sanitizer.all_clean); in a single grade
    # the exercises side by side, and each exercise's sanitizer tools beside its performance
    # run, every measuring part still alone on the GPU (Grading._pipeline); in a batch's
    # grading, the timed exercises in one judged run (Grading._timed_lab_runs). On unless
    # GRADER_ONE_PROCESS=0: every known-bad and hostile fixture got its verdict with it on an
    # H200, three stateful cheats a stricter one (docs/design-notes.md, note 26)
    one_process: bool = dataclasses.field(
        default_factory=lambda: os.environ.get("GRADER_ONE_PROCESS", "1") != "0"
    )
    # a batch's grading runs its untimed runs side by side: its sanitizer tools a thread each,
    # over the lab and in an exercise's own runs (design note 59), its correctness cases in
    # two judged runs over the lab (note 60). Off with GRADER_SIDE_BY_SIDE=0: the tools one
    # after the other, the cases in one run over the lab where one run holds them, so that
    # fewer processes share the GPU at once (note 72: the knob of an experiment, not measured
    # yet); the report is the same either way
    side_by_side: bool = dataclasses.field(
        default_factory=lambda: os.environ.get("GRADER_SIDE_BY_SIDE", "1") != "0"
    )
    # a batch's cap on its gradings in their untimed phase at once (GRADER_UNTIMED_AT_ONCE,
    # grader.batch.untimed_at_once; None: no cap): a grading takes a slot before its shared
    # hold of the untimed runs and gives it back after, so that fewer processes with a CUDA
    # context share the GPU (design note 73: the knob of an experiment, not measured yet)
    untimed_slots: threading.Semaphore | None = None
    # a batch's cap on its gradings' timed runs set up or waiting at their gates at once,
    # each holding its judge's set-up in GPU memory (GRADER_TIMED_SETUPS_AT_ONCE,
    # grader.batch.timed_setups_at_once; None: no cap; design note 87): the early timed run
    # (_EarlyTimedRuns) takes a slot without waiting, or is not made early; any run on the
    # GPU after the untimed runs (_SharedWhenNeeded: a run over the lab not made early, an
    # exercise's own, one timed again, ncu) waits for one before it takes the shared hold.
    # Each gives it back once its judge has ended. The knob of an experiment, not measured
    timed_setup_slots: threading.Semaphore | None = None
    # a batch's stray timed again (grader.batch, Batch._grade_strays_again): the first
    # grading's Grade, whose correctness and sanitizer parts this grading keeps instead of
    # making those runs again (the same seeds give the same results, but a data race may
    # answer otherwise); every other step is made again as in any grading (the build and
    # the static checks read the same source, the device probe) and the timed runs afresh,
    # so the report is the one a whole grading gives but for its timings (design note 81)
    retime: Grade | None = None
    # a batch's grading made alone, after the class (Batch._grade_alone_again, and a stray's
    # again): nothing else of the grader on the GPU, so a timed judge out of GPU memory after
    # its gate ran out beside the student's process only, the course's own solution fitting
    # the card: that exercise's timed run is the student's failure (harness.
    # run_judged_timed_cases' ``alone``, design note 88), not a grader error
    alone: bool = False


class Crowded(GraderError):
    """A batch's grading among others (not ``Options.alone``) that failed in a way other
    gradings' use of the GPU's memory may have caused: the batch writes its "error:" row
    (this error's message; a batch that ends first grades it again on its next run), then
    grades it again, alone, after the class, one at a time (``batch.Batch.
    _grade_alone_again``, design notes 88 and 89), where the same failure is no longer
    graded again. ``why``: the reason, the batch's line's and the row's (``row_key``, its key
    in the row graded alone); ``grade``: the Grade so far whose untimed parts that grading
    keeps (``Options.retime``: only its timed runs made again), or None: graded whole (its
    correctness is in question). ``said``: the "error:" row's reason where it is not
    ``why``."""

    def __init__(
        self, why: str, row_key: str, grade: Grade | None = None, said: str | None = None
    ) -> None:
        super().__init__(f"{said or why}: graded again, alone, after the class")
        self.why = why
        self.row_key = row_key
        self.grade = grade


class TimedOutOfMemory(Crowded):
    """A batch's grading among others whose timed judge ran out of GPU memory
    (``harness.JudgeOutOfMemory``: after its gate, or before it where note 84's one retry is
    spent): other gradings' judges may have held the memory (design note 88). ``grade``: the
    Grade so far, its correctness and sanitizer parts complete (its untimed runs were done
    before any timed run's gate), for ``Options.retime``; ``cause``: the judge's error; its
    row keeps ``judge_out_of_memory``."""

    def __init__(self, grade: Grade, cause: harness.JudgeOutOfMemory) -> None:
        when = "before its gate" if cause.before_gate else "during its timing"
        super().__init__(
            f"its judge ran out of GPU memory {when} beside other gradings ({cause})",
            "judge_out_of_memory",
            grade,
            said=f"its timed judge ran out of GPU memory {when} beside other gradings ({cause})",
        )
        self.cause = cause


def _untimed_crowded(e: BaseException) -> Crowded | None:
    """The ``Crowded`` of a batch grading's untimed runs (design note 89) whose judge ran out
    of GPU memory (``harness.JudgeOutOfMemory``, in its set-up or a case's: other gradings'
    runs may hold the memory), graded whole again; None for any other error."""
    if not isinstance(e, harness.JudgeOutOfMemory):
        return None
    return Crowded(
        f"its judge ran out of GPU memory in its untimed runs beside other gradings ({e})",
        "judge_out_of_memory",
    )


def _case_crowded(ex: Exercise, size, hidden: bool, gpu: tuple[int, int]) -> Crowded:
    """The ``Crowded`` of a batch grading whose correctness case (``ex`` at ``size``; a
    hidden one's size never named) failed in its student's process for want of GPU memory
    with the GPU nearly full by the judge's count, (free, total) bytes
    (``harness.crowded_out_of_memory``, design note 89): graded whole again; its row keeps
    ``process_out_of_memory``."""
    case = "a hidden case" if hidden else diagnose.size_text(size)
    free, total = (x / 2**30 for x in gpu)
    return Crowded(
        f"its correctness case of {ex.name} ({case}) ran out of GPU memory in its process "
        f"with the GPU nearly full ({free:.2f} of {total:.1f} GiB free, by the judge's "
        "count) beside other gradings",
        "process_out_of_memory",
    )


# the phases of Grade.timings a stray timed again keeps from its first grading (_runtime)
_UNTIMED_PHASES = ("correctness", "sanitizer", "untimed")


def _new_results(lab: Lab) -> dict[str, ExerciseResult]:
    results = {}
    for ex in lab.exercises:
        parts = {p: Part(p, ex.points[p]) for p in PART_NAMES}
        specs = {"static": ex.static, "sanitizer": ex.sanitizer, "performance": ex.performance}
        for name, spec in specs.items():
            if spec is None:
                parts[name].status = Status.SKIPPED
                parts[name].reason = NOT_IN_EXERCISE
        results[ex.name] = ExerciseResult(ex.name, parts)
    return results


def _set_not_run(parts, names, reason: str, status: str = Status.NOT_RUN) -> None:
    for name in names:
        part = parts[name]
        if not_in_exercise(part) or ran(part.status):
            continue
        part.status = status
        part.reason = reason


def _zero_all(results: dict[str, ExerciseResult], reason: str) -> None:
    """The submission scores 0 (a missing file, a failed build or symbol check, a binary
    that cannot start): every part that did not run is ``not_run`` with ``reason`` and a
    known fraction 0, correctness too — a certain loss, never pending (the reports say
    "not run: <reason>  (0 points, lost for certain)"). A part that already ran keeps its
    status; its points are 0 all the same."""
    for ex in results.values():
        for part in ex.parts.values():
            if not_in_exercise(part):
                continue
            part.fraction = 0
            if not ran(part.status):
                part.status = Status.NOT_RUN
                part.reason = reason
        ex.note = f"{ex.name}: 0 points: {reason}"


class Grading:
    """The state of one grading; ``run()`` returns the Grade."""

    def __init__(self, lab_dir: Path, options: Options):
        self.lab_dir = Path(lab_dir)
        self.options = options
        root = course.find_root(self.lab_dir.absolute().parent)
        if root is None:
            raise GraderError(
                f"cannot find the course root above {display_path(self.lab_dir)} (a folder "
                "with a Makefile and common/cml_json.h)"
            )
        self.root = root
        self.lab = manifest.load(self.lab_dir)
        if options.exercises:
            unknown = [
                n for n in options.exercises if n not in {e.name for e in self.lab.exercises}
            ]
            if unknown:
                names = ", ".join(e.name for e in self.lab.exercises)
                raise GraderError(
                    f"lab {self.lab.id} has no exercise {unknown[0]} (it has: {names})"
                )
            chosen = tuple(e for e in self.lab.exercises if e.name in options.exercises)
            self.lab = dataclasses.replace(self.lab, exercises=chosen)
        self.version = harness.schema_version(root)
        self.submission = Path(options.submission or self.lab_dir)
        self.seeds = harness.Seeds(options.seed)
        self.results = _new_results(self.lab)
        self.grade = Grade(
            lab=self.lab.name,
            lab_id=self.lab.id,
            title=self.lab.title,
            submission=display_path(self.submission),
            seed=options.seed,
            arch=options.arch or builder.default_arch(root),
            exercises=list(self.results.values()),
        )
        # exercises for a later GPU than this grade builds for: shown, never built or run
        self.arch_skipped = self._skip_below_arch()
        self.arch_skipped_kernels: dict[str, str] = {}  # their kernels: why (once bound)
        self.other_kernels: set[str] = set()  # kernels of exercises --exercise left out
        self.lab_launchers: tuple[str, ...] = ()  # every launcher of the lab (--list)
        self.lab_kernels: set[str] = set()  # every exercise kernel of the lab (--list)
        # the kernels of each exercise that names none (lint.exercise_kernels), and where
        # each kernel of the student files is defined: the local-memory warnings name them
        self.exercise_kernels: dict[str, list[str]] = {}
        self.kernel_lines: dict[str, tuple[str, int]] = {}
        spec = self.lab.report
        if spec is not None and not options.exercises:
            self.grade.report = ReportResult(spec.file, spec.filled, spec.manual)
        self.binary: Path | None = None
        self.judge: harness.Judge | None = None  # the course's side of every run
        self.hung: dict[str, str] = {}  # exercise: how its case did not finish (diagnose)
        self.strip_paths: list[str] = []
        self.box: sandbox.Sandbox | None = None
        # A single grade with one process pair per exercise runs its exercises side by side
        # (_pipeline) under a lock of its own, as a batch's gradings share the batch's: its
        # untimed runs share the GPU, each measuring part has it alone. With GRADER_GPU_LOCK
        # that lock binds the other grader processes on the GPU too (gpu_lock.for_process).
        # (A stray timed again takes the batch's steps, whose untimed runs it can leave out.)
        self.pipelined = (
            options.one_process and options.gpu_lock is None and options.retime is None
        )
        self.gpu_lock = options.gpu_lock or gpu_lock.for_process(
            GpuLock() if self.pipelined else None
        )
        self._books = threading.Lock()  # guards the two below (threads of the pipeline)
        self._gpu_wait = 0.0  # seconds the runs waited for the lock, summed over threads
        self._spans: dict[str, tuple[float, float]] = {}  # phase: (first start, last end)
        # (exercise, tool): the summary line of a run of that tool over the lab's sanitizer
        # cases that was clean (_sanitizer_lab_runs)
        self._lab_clean: dict[tuple[str, str], str] = {}
        # exercise: its correctness cases' runs, made over the lab's (_correctness_lab_runs)
        self._lab_runs: dict[str, list[harness.CaseRun]] = {}
        # a batch's: the lock held shared over the untimed runs, and the early timed run set
        # up under that hold (_runtime), for _let_timed_runs_pass
        self._shared_lock: GpuLock | None = None
        self._early: _EarlyTimedRuns | None = None
        # when that hold was taken, or taken back after a pass (_pass_between_processes)
        self._shared_since: float | None = None
        # a single grade's exercises whose timed judge ran out of GPU memory after its gate:
        # the judge's words, the run made again once the grading's other runs are done
        # (_time_again_alone, design note 88)
        self._oom_once: dict[str, str] = {}

    # -- helpers ---------------------------------------------------------------------

    def _skip_below_arch(self) -> dict[str, str]:
        """{exercise: why} of the exercises whose lab.toml ``arch_min`` is a later architecture
        than this grade builds for (``manifest.arch_skip_reason``; lab 3.2g needs sm_90, CI also
        grades sm_80 builds). Each of their parts is skipped with the reason and worth 0 of 0: the
        exercise stays in the report, its points are left out of the total and max, and it is
        never pending, lost or passed (docs/design-notes.md, note 27). They leave ``self.lab``
        and ``self.results`` too, so that no static check, run or zeroing touches them."""
        skipped: dict[str, str] = {}
        for ex in self.lab.exercises:
            reason = manifest.arch_skip_reason(ex, self.grade.arch)
            if reason is None:
                continue
            result = self.results.pop(ex.name)
            for part in result.parts.values():
                part.max, part.status, part.reason = 0, Status.SKIPPED, reason
            result.note = f"{ex.name}: not graded: {reason}"
            skipped[ex.name] = reason
        if skipped:
            kept = tuple(e for e in self.lab.exercises if e.name not in skipped)
            self.lab = dataclasses.replace(self.lab, exercises=kept)
        return skipped

    def step(self, name: str, status: Status, messages: list[str] | None = None) -> Step:
        s = Step(name, status, list(messages or []))
        self.grade.steps.append(s)
        return s

    def runtime_not_run(self, reason: str, only: str | None = None) -> None:
        """Every exercise's runtime parts not run for ``reason``; with ``only``, that
        exercise's alone (a thread of the pipeline writes only its own exercise's results)."""
        for ex in self.results.values():
            if only is None or ex.name == only:
                _set_not_run(ex.parts, ("correctness", "sanitizer", "performance"), reason)

    @functools.cached_property
    def _own_folder(self) -> bool:
        """Whether the lab's own folder is graded (a student's working copy in the course
        tree), not a submission handed in elsewhere."""
        return self.submission.resolve() == self.lab_dir.resolve()

    def _ignored(self) -> list[str]:
        """The line naming what the submission holds beside its student files and the lab's
        own files, which the grade never reads ([] when nothing, or when the lab's own folder
        is graded): an instructor's trial found a student's helper.cu dropped without a
        word."""
        if self._own_folder:
            return []
        try:
            # the lab's own files (a copy of the lab's folder handed in) and an archiver's
            # folder are not the student's extras
            course = {e.name for e in self.lab_dir.iterdir()} | {"__MACOSX"}
            names = sorted(
                e.name for e in self.submission.iterdir()
                if not e.name.startswith(".") and e.name not in self.lab.student_files
                and e.name not in course
            )
        except OSError:
            return []
        if not names:
            return []
        shown = ", ".join(map(assembler.shown_name, names[:8]))
        shown += f" and {len(names) - 8} more" if len(names) > 8 else ""
        only = ", ".join(self.lab.student_files)
        verb = "is" if len(self.lab.student_files) == 1 else "are"
        return [f"not graded (only {only} {verb}): {shown}"]

    def rerun_hint(self, ex: Exercise, size, seed: int) -> str:
        binary = f"build/{self.lab.name}/student/lab" if self._own_folder else "<lab binary>"
        return (
            f"reproduce: {binary} --exercise {ex.name} --size {','.join(map(str, size))} "
            f"--seed {seed}"
        )

    # -- steps -----------------------------------------------------------------------

    def run(self) -> Grade:
        with tempfile.TemporaryDirectory(prefix="grader-") as tmp:
            self._run(Path(tmp))
        self._report_without_a_gpu()
        scoring.score(self.grade)
        self._not_run_summary()
        self._pending_ramps()
        return self.grade

    def _run(self, tmp: Path) -> None:
        asm = assembler.assemble(self.lab, self.submission, tmp)
        self._report(asm)
        if not asm.ok:
            self.step("assemble", Status.FAILED, asm.problems)
            _zero_all(self.results, "; ".join(asm.problems))
            return
        # the files taken: a report that was not (missing, a link, too big) is not listed,
        # and the line after says why (its own section, below, says it too)
        report = self.lab.report.file if self.lab.report and asm.report_problem else None
        files = ", ".join(f for f in self.lab.student_files if f != report)
        taken = [f"student files: {files}"] + ([asm.report_problem] if report else [])
        self.step("assemble", Status.PASSED, [*taken, *self._ignored()])
        self.strip_paths = [str(asm.src), str(asm.src.resolve())]

        nvcc = tools.find("nvcc")
        if nvcc is None:
            raise GraderError(f"cannot build: {tools.not_found('nvcc')}")
        builder.build_common(self.root, nvcc, self.options.arch)
        self.judge = harness.Judge(
            builder.build_judge(self.root, nvcc, self.options.arch, self.lab.name)
        )
        # what lab.toml does not say (launchers, kernels, baselines, minimum repetitions)
        # comes from the judge's own --list: course code, no GPU needed
        listing = harness.course_listing(self.judge.path)
        self.lab = manifest.bind(self.lab, listing)
        # (exercise, kernel) of every exercise of the lab the listing names a kernel for
        exercise_kernels = [
            (e.get("name"), e["kernel"])
            for e in listing.get("exercises", [])
            if isinstance(e, dict) and isinstance(e.get("kernel"), str)
        ]
        # the kernels of the exercises this architecture does not grade (the spaces line)
        self.arch_skipped_kernels = {
            kernel: self.arch_skipped[name]
            for name, kernel in exercise_kernels
            if name in self.arch_skipped
        }
        # every launcher and exercise kernel of the lab, --exercise or not: what the static
        # check's reading of launches (grader.launches) starts from and may leave unlaunched
        self.lab_launchers = manifest.listing_launchers(listing)
        self.lab_kernels = {kernel for _, kernel in exercise_kernels}
        for name, lines in lint.warnings(self.lab, asm.src).items():
            self.results[name].warnings.extend(lines)
        texts = lint.student_texts(self.lab, asm.src)
        # with --exercise, the kernels of the exercises left out: not on the spaces line.
        # Those the listing names and those their launchers reach (3.1's chase_shared_kernel,
        # which latency_ladder's chase_shared launches), unless a graded exercise runs them,
        # and those no launcher of the lab reaches (a draft kernel left in the file: on no
        # exercise's account, it read as the graded one's).
        graded = {ex.name for ex in self.lab.exercises}
        left_out = [e for e in listing["exercises"] if e.get("name") not in graded]
        if left_out:  # the listing's items, checked by listing_launchers above
            theirs, ours, anyone = lint.reached_kernels(
                texts,
                manifest.listing_launchers({"exercises": left_out}),
                [n for ex in self.lab.exercises for n in ex.launchers],
                self.lab_launchers,
            )
            # (only where the graded exercises' launchers were seen to reach a kernel: a
            # launch through a table of kernels is not followed, and its kernels would go too)
            unlaunched = set(lint.kernel_lines(texts)) - set(anyone) if ours else set()
            self.other_kernels = (
                {k for n, k in exercise_kernels if n not in graded} | set(theirs) | unlaunched
            ) - {ex.kernel for ex in self.lab.exercises} - set(ours)
        self.exercise_kernels = lint.exercise_kernels(self.lab, texts)
        self.kernel_lines = lint.kernel_lines(texts)
        # the build and every run of the submission from here on are in this sandbox
        # (grader.sandbox): the preprocessor and the assembler read what the source names
        self.box = dataclasses.replace(
            sandbox.choose([self.root], self.options.sandbox_default, self.options.private),
            own_streams=self.lab.own_streams,
        )
        status = Status.PASSED if self.box.kind in ("bwrap", "user") else Status.SKIPPED
        self.step("sandbox", status, [self.box.notice, cgroup.status()])
        out_dir = tmp / "out"
        start = time.monotonic()
        # the lab's other sources as the judge's build compiled them: only the student's
        # files are compiled here
        pristine = builder.pristine_objects(
            self.root, self.options.arch, self.lab.name, self.lab.student_files
        )
        built = builder.build(
            self.root,
            asm.src,
            out_dir,
            nvcc,
            self.options.arch,
            self.box,
            reuse=pristine,
        )
        self.grade.timings["build"] = time.monotonic() - start
        if not built.ok:
            # the untouched skeleton built the same way: where it fails too, the toolchain or
            # the sandbox failed, not the submission (no certain 0 for it; a batch's row is
            # an "error:" row, graded again on its next run)
            skeleton = builder.skeleton_builds(
                self.root, self.lab, nvcc, self.options.arch, self.box, reuse=pristine
            )
            if not skeleton.ok:
                raise GraderError(
                    "the course's own skeleton of this lab does not build here either, so the "
                    "submission's build failure is not its own: "
                    + " / ".join(skeleton.summary[:3])
                    + f" (sandbox: {self.box.kind}). Check that nvcc, and the host compiler "
                    "and libraries it calls, work from a shell and sit under a path the "
                    "sandbox shows (/usr, /opt, the CUDA toolkit's own folder: one under a "
                    "site path such as /apps fails every build; README, \"What the cluster "
                    "needs\"); then grade again"
                )
            self.step("build", Status.FAILED, built.summary)
            _zero_all(self.results, "the build failed")
            return
        self.step("build", Status.PASSED, builder.warnings(built.log, asm.src, out_dir))
        self.binary = built.binary
        objects = builder.student_objects(out_dir, self.lab.student_files)

        trusted = self._symbols(objects, asm.src, out_dir, nvcc)
        if trusted is False:
            return
        self._static(objects)
        if trusted is None:
            self.runtime_not_run(
                f"the symbols could not be checked ({tools.not_found('nm')}), so the "
                "submission was not run"
            )
            return
        self._runtime()

    def _runtime(self) -> None:
        if self.pipelined:
            self._pipeline()
            return
        lock = self.gpu_lock
        t = self.grade.timings
        start = time.monotonic()
        # With a batch's lock, the timed runs over the lab are set up beside the untimed runs
        # (``_EarlyTimedRuns``, design note 45), under this one shared hold, kept until the
        # judge waits at its gate; the gate opens once the untimed runs are done and every
        # exercise it set up is still due. A queue of timed runs never comes between the
        # untimed runs and the set-up (note 44), and the set-up costs no wall time of its own.
        early = None
        # Under the shared hold no timed run holds the GPU, so the untimed runs may use the
        # CPUs kept for timed runs too, where each run's processes end with it (a cgroup
        # each: none is left behind on them; grader.cpus, design note 55).
        # the slot first, holding nothing: a thread with the shared hold that waited for a
        # slot would keep the timed runs waiting, which the slot's holder may wait for in
        # turn (let_timed_runs_pass), a deadlock
        slots = self.options.untimed_slots if lock else None
        with (
            slots if slots is not None else contextlib.nullcontext(),  # its wait is gpu_wait
            lock.shared() if lock else contextlib.nullcontext(),
            _on_every_cpu() if lock else contextlib.nullcontext(),
        ):
            self._count_wait(time.monotonic() - start)
            start = self._shared_since = time.monotonic()
            self._probe()
            if self.grade.device is None:
                t["gpu_wait"] = self._gpu_wait
                return
            kept = self.options.retime  # a stray timed again: no untimed run to make
            groups = self._lab_run_groups() if lock is not None and kept is None else {}
            # a batch's cap on the timed set-ups at once (design note 87): a slot taken
            # without waiting, or no early run (made after the untimed runs, below). Never a
            # wait here: this thread holds its shared hold, a drain waits for it, and the
            # judges holding the slots wait at their gates for the drain.
            capped = self.options.timed_setup_slots
            if groups and (capped is None or capped.acquire(blocking=False)):
                try:
                    early = _EarlyTimedRuns(
                        self, lock, [ex for g in groups.values() for ex in g], slot=capped
                    )
                except BaseException:
                    if capped is not None:  # no thread started to give it back
                        capped.release()
                    raise
            self._shared_lock, self._early = lock, early
            try:
                if kept is not None:
                    self._keep_untimed(kept)
                else:
                    self._untimed(self._correctness_lab_runs)
                    for ex in self.lab.exercises:
                        self._correctness(ex)
                    t["correctness"] = time.monotonic() - start
                    # and between the correctness and the sanitizer runs: a queue of timed
                    # runs then waits for one step of this grading, not all of it (design
                    # note 57); the wait is gpu_wait's, not the sanitizer's
                    stepped_out = (
                        self._let_timed_runs_pass() if self._sanitizer_to_run() else 0.0
                    )
                    self._sanitizer_lab_runs()
                    for ex in self.lab.exercises:
                        self._sanitizer(ex)
            except BaseException as e:
                if early is not None:
                    early.give_up()  # the grading stops: nothing more is timed
                    early.set_up_done.wait()  # its judge's GPU work ends under this hold
                crowded = _untimed_crowded(e) if self._among_others() else None
                if crowded is not None:  # graded again alone after the class (note 89)
                    raise crowded from e
                raise
            finally:
                self._shared_lock = None  # no more untimed runs: nothing to let pass
                self._shared_since = None
            if kept is not None:  # the untimed results are the first grading's: their times
                t.update((k, v) for k, v in kept.timings.items() if k in _UNTIMED_PHASES)
            else:
                t["untimed"] = time.monotonic() - start - stepped_out
                t["sanitizer"] = t["untimed"] - t["correctness"]
            if early is not None:
                early.untimed_done.set()  # its gate may open (or it gives up)
                early.set_up_done.wait()  # its set-up's GPU work is under this shared hold
        # Timed runs: each judge sets up under the shared hold, beside other gradings' untimed
        # runs, and measures under the exclusive one (its gate, GpuLock.upgrade). A judge
        # waiting at its gate stops new untimed runs (writers go first), so set-ups run side
        # by side and the timings then follow one another; alone, the judge needs no gate.
        # Two or more timed exercises are timed in one judged run, one hold (note 39).
        start, waited = time.monotonic(), self._gpu_wait
        try:
            self._timed_runs(early, lock, start, waited)
        except harness.JudgeOutOfMemory as e:
            # among a batch's other gradings, whose judges may hold the GPU's memory: graded
            # again alone after the class (design note 88); alone, or a single grade's
            # judge out of memory before its gate, the grader error it was
            if self._among_others():
                raise TimedOutOfMemory(self.grade, e) from e
            raise
        t["gpu_wait"] = self._gpu_wait

    def _among_others(self) -> bool:
        """Whether this is a batch's grading among the class's others (a batch's lock, not
        ``Options.alone``): a failure for want of GPU memory may be theirs, and the batch
        grades it again alone after the class (``Crowded``, design notes 88 and 89)."""
        return self.options.gpu_lock is not None and not self.options.alone

    def _timed_runs(self, early: _EarlyTimedRuns | None, lock, start: float, waited: float):
        """``_runtime``'s timed runs, once the untimed runs are done: the early run over the
        lab's, or that run made now, then each exercise's performance part (its own timed
        run where it has none there); a single grade's exercises whose judge ran out of GPU
        memory after its gate are timed again last (``_time_again_alone``). ``start``,
        ``waited``: when they began and ``gpu_wait`` then (``timings_s["timed"]``)."""
        t = self.grade.timings
        timed = early.result() if early is not None else None
        if early is not None and early.out_of_memory is not None:
            # its judge ran out of memory in its set-up: made below, once (design note 84)
            t["early_oom"] = early.out_of_memory
        # The shared hold is taken only for a run still to make (design note 49): grading the
        # early runs' documents needs no GPU, and must not wait behind the class's queue.
        # (with a cap on the timed set-ups at once, design note 87, ``hold`` first waits for
        # a slot, holding nothing, and keeps it as long as the hold)
        slot = self.options.timed_setup_slots if lock else None
        with _SharedWhenNeeded(lock, self._count_wait, slot) as hold:
            gate = self._timing_gate if lock else None
            # no early run, or its exercises were no longer all due, or its judge ran out of
            # memory before its gate: made here, after the untimed runs (a second failure for
            # memory is graded again alone after the class, design note 88)
            if timed is None:
                hold()
                timed = self._timed_lab_runs(gate)
            for ex in self.lab.exercises:
                self._performance(ex, gate=gate, first=timed.get(ex.name), hold=hold)
            self._time_again_alone(gate, hold)
            t["timed"] = time.monotonic() - start - (self._gpu_wait - waited)

    def _pipeline(self) -> None:
        """The runtime steps of a single grade with one process pair per exercise
        (docs/design-notes.md, note 26): the exercises side by side, a thread each; in each,
        the correctness runs, then its sanitizer tools (a thread each) beside its
        performance run, which reads ``self.hung`` and so waits for its own exercise's
        correctness. The grade's own lock orders them as a batch's orders its gradings:
        untimed runs and a timed run's set-up share the GPU, a measuring part (the judge's
        gate, an untimed performance run, ncu) has it alone, so no timing is disturbed.

        Timings (wall seconds from the start of the runtime steps; the phases overlap, so
        they do not add up): "correctness" to the end of the last exercise's correctness,
        "untimed" to the end of the last untimed run, "sanitizer" from the first sanitizer
        run's start to the last one's end, "timed" the same for the performance runs (their
        set-ups and gate waits included), "gpu_wait" the waits for the lock summed over the
        threads (more than the wall time they cost where several threads waited at once)."""
        t = self.grade.timings
        start = time.monotonic()
        with self.gpu_lock.shared():  # nothing else of this grade has started, but another
            self._probe()  # grader process's timed run may have (GRADER_GPU_LOCK)
        if self.grade.device is None:
            t["gpu_wait"] = 0.0
            return
        _side_by_side(functools.partial(self._exercise, ex) for ex in self.lab.exercises)
        if self._oom_once:  # none of the exercises' runs left: timed again alone
            with self._held("performance"):
                self._time_again_alone(self._timing_gate)
        first, last = {}, {}  # a phase that never ran: from the start, for no time
        for phase in ("correctness", "sanitizer", "performance"):
            first[phase], last[phase] = self._spans.get(phase, (start, start))
        t["correctness"] = last["correctness"] - start
        t["untimed"] = max(last["correctness"], last["sanitizer"]) - start
        t["sanitizer"] = last["sanitizer"] - first["sanitizer"]
        t["timed"] = last["performance"] - first["performance"]
        t["gpu_wait"] = self._gpu_wait

    def _exercise(self, ex: Exercise) -> None:
        """One exercise's runtime steps in the pipeline (a thread of ``_pipeline``); it writes
        only its own exercise's results: the sanitizer part once its tools are done."""
        with self._held("correctness"):
            self._correctness(ex)
        tool = self._sanitizer_tool(ex)
        names = ex.sanitizer.tools if tool is not None else ()

        def sanitize(name: str):
            with self._held("sanitizer"):
                return self._sanitizer_run(tool, ex, name)

        def perform() -> None:
            with self._held("performance"):
                self._performance(ex, gate=self._timing_gate)

        calls = [functools.partial(sanitize, n) for n in names]
        if ex.performance is not None:  # "timed" spans the exercises' performance steps
            calls.append(perform)
        runs = _side_by_side(calls)
        if tool is not None:
            self._sanitizer_part(ex, runs[: len(names)])

    @contextlib.contextmanager
    def _held(self, phase: str):
        """The grade's own lock held shared around one of the pipeline's runs of ``phase``
        ("correctness", "sanitizer", "performance"): its wait counted in ``gpu_wait``, its
        start and end in the phase's span."""
        asked = time.monotonic()
        with self.gpu_lock.shared():
            started = time.monotonic()
            self._count_wait(started - asked)
            try:
                yield
            finally:
                ended = time.monotonic()
                with self._books:
                    first, last = self._spans.get(phase, (started, ended))
                    self._spans[phase] = (min(first, started), max(last, ended))

    def _count_wait(self, seconds: float) -> None:
        with self._books:
            self._gpu_wait += seconds

    @contextlib.contextmanager
    def _timing_gate(self):
        """The lock's exclusive hold (a batch's, or a pipelined grade's own) for one judge's
        measuring part; the waits to take it and to take the shared hold back after it are
        counted as ``gpu_wait``."""
        start = time.monotonic()
        body = 0.0
        with self.gpu_lock.upgrade():
            inside = time.monotonic()
            try:
                yield
            finally:
                body = time.monotonic() - inside
        self._count_wait(time.monotonic() - start - body)

    def _report(self, asm: assembler.Assembled) -> None:
        """The written report: filled in or not (its manual points stay pending)."""
        result, spec = self.grade.report, self.lab.report
        if result is None or spec is None:
            return
        data, problem = None, asm.report_problem
        if problem is None:
            try:
                data = (asm.src / spec.file).read_bytes()
            except OSError as e:
                problem = f"cannot read {spec.file}: {e.strerror}"
        found = writeup.check(spec, data, problem)
        result.status = Status.PASSED if found.passed else Status.FAILED
        result.info = found.info + (f" ({found.note})" if found.note else "")
        result.messages = found.messages
        result.sections = found.sections

    def _report_without_a_gpu(self) -> None:
        """A report filled in but for sections that say "not measured: no GPU"
        (``writeup.waits_for_gpu``), graded where no GPU ran the submission: none here, one
        too old for the build, or a submission that never reached one (a failed build or
        symbol check, a lab binary that failed at start-up). No figure of it exists, so its
        points wait for a GPU, as the template and the handout promise, instead of being
        lost. Where a GPU ran it (the device step passed), the sections' figures were there
        to measure, and the points stay lost."""
        result = self.grade.report
        if result is None or not writeup.waits_for_gpu(result.sections):
            return
        waiting = [r["heading"] for r in result.sections if r["status"] == "not_measured"]
        ran = any(st.name == "device" and st.status == Status.PASSED for st in self.grade.steps)
        if not ran:
            result.status = Status.NOT_RUN
            result.info = (
                f"{len(result.sections)} of {len(result.sections)} sections written; the "
                f"figures of {len(waiting)} wait for a run on a GPU"
            )
        else:  # a GPU ran: the figures were there to measure
            result.messages = writeup.measured_on_gpu(result.messages)

    def _symbols(self, objects, src: Path, out_dir: Path, nvcc) -> bool | None:
        """True: trusted; False: failed (submission zeroed); None: nm missing."""
        nm = tools.find("nm")
        if nm is None:
            self.step("symbols", Status.NOT_RUN, [tools.not_found("nm")])
            return None
        sources = {}
        for name in objects:
            try:
                sources[name] = (src / name).read_text(errors="replace")
            except OSError:
                pass
        result = symbols.check_objects(
            nm, objects, self.lab.launchers, self.lab.allow_calls, sources
        )
        problems = result.problems + builder.check_includes(
            self.root, src, out_dir, self.lab.student_files, nvcc
        )
        if problems:
            self.step("symbols", Status.FAILED, problems)
            _zero_all(
                self.results,
                "the symbol check failed (see 'symbols' above), so the submission was not "
                "checked further",
            )
            return False
        self.step("symbols", Status.PASSED, ["defines and calls only what submissions may"])
        return True

    def _static(self, objects) -> None:
        cuobjdump = tools.find("cuobjdump")
        wanted = [ex for ex in self.lab.exercises if ex.static is not None]
        cu_objects = [obj for name, obj in objects.items() if name.endswith(".cu")]
        if cuobjdump is None or not cu_objects:
            reason = tools.not_found("cuobjdump") if cu_objects else "no CUDA student file"
            for ex in wanted:
                _set_not_run(self.results[ex.name].parts, ("static",), reason, Status.SKIPPED)
            return
        dumped = sass.dump(cuobjdump, cu_objects, self.options.arch)
        if dumped.error and dumped.refused:
            self._unreadable(wanted, dumped.error)
            return
        if dumped.error:  # cuobjdump did not end (a time limit, a signal): not the object's
            for ex in wanted:
                _set_not_run(
                    self.results[ex.name].parts, ("static",), dumped.error, Status.SKIPPED
                )
            return
        # evidence for the student (no points): where each kernel's data lives
        found = spaces.lines(dumped, self.arch_skipped_kernels, self.other_kernels) or [
            "no kernels of the exercises graded (--exercise)" if self.other_kernels
            else "no kernels in the student files"
        ]
        self.step("spaces", Status.INFO, [*found, f"(SASS read with {cuobjdump.path})"])
        self._local_memory(dumped)
        sources = " or ".join(n for n in self.lab.student_files if n.endswith(".cu"))
        reach = self._launches(cu_objects, dumped)
        if isinstance(reach, launches.Unreadable):
            self._unreadable(wanted, str(reach))
            return
        if isinstance(reach, str):  # no objdump, or it did not end: not run
            for ex in wanted:
                _set_not_run(self.results[ex.name].parts, ("static",), reach, Status.SKIPPED)
            return
        named = {fn.mangled for k in self.lab_kernels for fn in dumped.instances(k)}
        for ex in wanted:
            part = self.results[ex.name].parts["static"]
            res = sass.check_kernel(dumped, ex.kernel, ex.static, sources or "the student files")
            # the named kernel's own verdict, and where what it launches begins in messages
            own_passed, own_messages = res.passed, len(res.messages)
            launches.check(res, reach, dumped, ex, sources or "the student files", named)
            part.status = Status.PASSED if res.passed else Status.FAILED
            part.fraction = 1 if res.passed else 0
            part.messages = res.messages
            part.info = res.info
            part.details = [{"kernel": ex.kernel, "missing": res.missing, "found": res.forbidden}]
            own = {fn.mangled for fn in dumped.instances(ex.kernel)}
            launched = launches.launched_by(reach, ex.launchers)
            if not res.passed and spaces.unwritten(dumped, ex.kernel) and launched <= own:
                # the skeleton's kernel (no load or store at all), launched by nothing else's
                # launcher: its TODO is the cause, not each rule it breaks (a student's trial
                # of lab 3.2 read four rules' hints, 1,200 characters, after "=>" for an
                # exercise not begun); a decoy beside another kernel keeps the launch message
                part.finding = diagnose.not_implemented(self.lab, ex)
            elif not res.passed and own_passed:  # what it launches: the message holds its fix
                part.finding = f"{ex.name}: {res.messages[own_messages]}"
            elif not res.passed:
                part.finding = diagnose.static_summary(ex, res.messages, res.missing, res.forbidden)
                part.details[0]["hints"] = diagnose.static_hints(ex, res.missing, res.forbidden)

    def _local_memory(self, dumped: sass.Dump) -> None:
        """A warning (no points) on each exercise that names no kernel, for each kernel it
        runs (lint.exercise_kernels) whose SASS touches local memory, as its spaces line
        shows: no static rule reads those kernels (lab 3.5's), so nothing else says it."""
        uses = spaces.local_uses(dumped)
        for ex in self.lab.exercises:
            mine = self.exercise_kernels.get(ex.name, ())
            for kernel, shown, counts in uses:
                if kernel in mine:
                    name, line = self.kernel_lines[kernel]
                    message = spaces.LOCAL_MEMORY.format(kernel=shown, counts=counts)
                    self.results[ex.name].warnings.append(f"{name}:{line}: {message}")

    def _launches(self, cu_objects, dumped) -> launches.Reach | launches.Unreadable | str:
        """Which kernels each launcher of the lab launches (grader.launches); Unreadable
        where objdump refused the student's object; else why it was not read (no objdump,
        or it did not end): a static check that cannot tie the kernel it reads to the
        launcher's is not run (a named kernel that nothing launched passed it: a red-team
        review)."""
        objdump = tools.find("objdump")
        if objdump is None:
            return tools.not_found("objdump") + ": which kernel each launcher launches"
        kernels = {fn.mangled for fn in dumped.functions}
        try:
            return launches.read(objdump.path, cu_objects, sorted(self.lab_launchers), kernels)
        except launches.Unreadable as e:
            return e
        except OSError as e:
            return f"{e}: which kernel each launcher launches was not read"

    def _unreadable(self, wanted, error: str) -> None:
        """Static lost for each of ``wanted``: a tool failed on the student's own object.
        cuobjdump and objdump read every object nvcc makes, so the source made it
        unreadable (a section of its own, a red-team review's bogus .nv_fatbin); left
        pending, as a missing tool is, the grade would never be final."""
        message = (
            f"{error}: the object compiled from your files could not be read, so the static "
            "rules could not be checked (an object nvcc makes always can: does your source "
            "write a section of its own, with asm or an attribute?); if it does not, show "
            "this report to your instructor"
        )
        for ex in wanted:
            part = self.results[ex.name].parts["static"]
            if not_in_exercise(part):
                continue
            part.status, part.fraction, part.messages = Status.FAILED, 0, [message]
            part.finding = message

    def _probe(self) -> None:
        # the device's facts come from the judge, and first: without a device none of the
        # submission's code runs at all
        probe = harness.device_info(self.judge.path, self.version, box=harness.TRUSTED)
        if probe.doc is None:
            reason = f"the device probe (judge --device-info) {probe.problem}"
            self.step("device", Status.FAILED, [reason])
            self.runtime_not_run(reason)
            return
        if probe.doc["status"] != "ok":
            reason = "no CUDA device (the judge reported no_device)"
            self.step("device", Status.NOT_RUN, [reason])
            self.runtime_not_run(reason)
            return
        # the submission's binary must start (its static constructors run before --list);
        # what the harness says is the judge's listing, bound at the build
        listing, problem = harness.list_exercises(self.binary, box=self.box)
        if listing is None:
            reason = f"the lab binary failed at start-up ({problem})"
            self.step("device", Status.FAILED, [reason])
            _zero_all(self.results, reason)
            return
        device = probe.doc.get("device") or {}
        older = _older_than_build(device, self.grade.arch)
        if older:
            # no kernel of the build can run there: the grade waits for a GPU that can run it
            # (a mixed Slurm partition gave this task an older one), not the student's fault;
            # grade.device stays None, so no runtime step starts
            self.step("device", Status.NOT_RUN, [older])
            self.runtime_not_run(older)
            return
        self.grade.device = device
        self.step("device", Status.PASSED, [_device_text(device)])

    def _keep_untimed(self, first: Grade) -> None:
        """The correctness and sanitizer parts of ``first`` (``Options.retime``: the first
        grading of a batch's stray) in place of this grading's untimed runs, and the
        exercises whose correctness case did not finish there (``self.hung``: their timed
        runs are not made). GraderError when ``first`` lacks an exercise this grading
        grades (not the same lab, or other ``--exercise``)."""
        before = {ex.name: ex for ex in first.exercises}
        for ex in self.lab.exercises:
            if ex.name not in before:
                raise GraderError(f"the first grading has no exercise {ex.name} to keep")
            parts = self.results[ex.name].parts
            for name in ("correctness", "sanitizer"):
                parts[name] = copy.deepcopy(before[ex.name].parts[name])
            hung = [r for r in parts["correctness"].details if r.get("status") == "timeout"]
            if hung:  # as _correctness marks it (the text is read there only)
                self.hung[ex.name] = hung[0].get("message") or "timed out"

    def _correctness(self, ex: Exercise) -> None:
        er = self.results[ex.name]
        part = er.parts["correctness"]
        runs = []  # the public cases' runs (diagnose names their sizes)
        failed_hidden = []
        passed = 0
        timeout_s = self.lab.correctness_timeout_s
        cases = [(size, self.seeds.seed(ex.name, "correctness", size)) for size in ex.cases]
        together = self._lab_runs.pop(ex.name, None)  # made over the lab's cases, or:
        if together is None and self.options.one_process and ex.name not in self.hung:
            together = self._untimed(
                functools.partial(
                    harness.run_judged_cases,
                    self.judge.path, self.binary, ex.name, cases, timeout_s, self.version,
                    box=self.box, between=self._pass_between_processes,
                    launch_s=self.lab.launch_timeout_s,
                )
            )
        for i, size in enumerate(ex.cases):
            hidden = ex.is_hidden(i)
            if ex.name in self.hung:
                # One hang is enough evidence: waiting out the limit once per case would
                # make a hanging kernel cost minutes of the GPU queue (batch grading).
                row = {"hidden": True} if hidden else {"size": list(size)}
                row["status"] = Status.NOT_RUN
                row["message"] = f"not run: an earlier case of {ex.name} {self.hung[ex.name]}"
                part.details.append(row)
                continue
            seed = cases[i][1]
            run = (
                together[i]
                if together is not None
                else self._untimed(
                    functools.partial(
                        harness.run_judged,
                        self.judge.path, self.binary, ex.name, size, seed, timeout_s,
                        self.version, box=self.box, background=True,
                    )
                )
            )
            k = diagnose.kind(run)
            if k == "cuda" and run.doc is not None and self._among_others():
                # its process out of GPU memory with the GPU nearly full by the judge's own
                # count: maybe other gradings' doing, so graded again alone (design note 89)
                gpu = harness.crowded_out_of_memory(run.doc)
                if gpu is not None:
                    raise _case_crowded(ex, size, hidden, gpu)
            if k == "no_device":
                self.runtime_not_run(
                    "no CUDA device (the judge reported no_device)",
                    only=ex.name if self.pipelined else None,
                )
                return
            # a hidden case's size, seed and reproduce command never reach a report
            row = {"hidden": True} if hidden else {"size": list(size), "seed": seed}
            row["status"] = run.status
            if k == "ok":
                passed += 1
            else:
                if hidden:
                    row["message"] = diagnose.hidden_case_message(run, timeout_s)
                    failed_hidden.append(run)
                else:
                    row["message"] = diagnose.case_message(run, timeout_s)
                    row["reproduce"] = self.rerun_hint(ex, size, seed)
                if k == "timeout":
                    self.hung[ex.name] = diagnose.case_message(run, timeout_s)
            part.details.append(row)
            if not hidden:
                runs.append((size, run))
        part.fraction = Fraction(passed, len(ex.cases))
        part.status = Status.PASSED if passed == len(ex.cases) else Status.FAILED
        part.info = f"{passed} of {len(ex.cases)} sizes correct"
        part.finding = diagnose.exercise_summary(self.lab, ex, runs) or (
            diagnose.hidden_summary(self.lab, ex, failed_hidden) if failed_hidden else None
        )
        marks = (lint.EARLY_RETURN_MARK, lint.DIVERGENT_BARRIER_MARK)
        early = [w for w in er.warnings if any(mark in w for mark in marks)]
        if part.status == Status.FAILED and early:  # the cause the source shows, not a guess
            part.finding = f"{ex.name}: {early[0]}"

    def _sanitizer(self, ex: Exercise) -> None:
        """The sanitizer part of a batch's grading, its tools side by side (a thread each,
        as in the pipeline): the grading's untimed runs, which a queue of timed runs waits
        for, last as long as its slowest tool rather than all of them (design note 59)."""
        tool = self._sanitizer_tool(ex)
        if tool is not None:
            outcomes = self._untimed_together(
                (
                    functools.partial(self._sanitizer_run, tool, ex, name)
                    for name in ex.sanitizer.tools
                ),
                errors=True,
            )
            # read as the tools one after the other would have left them: an error raised
            # where its tool's turn came, nothing after a tool that could not run
            runs = []
            for outcome in outcomes:
                if isinstance(outcome, BaseException):
                    raise outcome
                runs.append(outcome)
                if outcome.not_run is not None:
                    break
            self._sanitizer_part(ex, runs)

    def _untimed_together(self, calls, errors: bool = False) -> list:
        """Untimed runs of this grading (its sanitizer tools): side by side, or one after
        another where ``Options.side_by_side`` is off; the same results either way. Each
        call is stopped and made again as ``_untimed`` says: one after another, at once
        after its drain; side by side, once every call has ended, the stopped ones
        together again."""
        together = _side_by_side if self.options.side_by_side else _one_after_another
        check = self._stop_check()
        if check is None:
            return together(calls, errors=errors)
        calls = list(calls)
        if not self.options.side_by_side:  # in this thread: each made again at once
            return together((functools.partial(self._untimed, c) for c in calls), errors=errors)
        outcomes = together((_stoppable(check, c) for c in calls), errors=errors)
        again = [i for i, outcome in enumerate(outcomes) if outcome is _STOPPED]
        if again:  # every call has ended: none of this grading's runs is on the GPU
            self._give_way_after_stop()
            with runner.stoppable(None):
                for i, outcome in zip(again, together([calls[i] for i in again], errors=errors)):
                    outcomes[i] = outcome
        return outcomes

    def _stop_check(self):
        """The stop check of this batch grading's untimed runs (``runner.stoppable``): its
        lock's ``stop_wanted`` (``GRADER_DRAIN_STOP_AFTER``, design note 78) where the grading
        could then give its hold up (``_let_timed_runs_pass``'s conditions: no early timed
        run setting up under it, a cgroup per run); None where no run is ever stopped (the
        knob unset, a single grade, the pipeline, outside the untimed runs' hold)."""
        lock = self._shared_lock
        if lock is None or lock.stop_after_s is None:
            return None

        def check(started: float) -> bool:
            # S from the drain's start for every run of a grading whose hold is older than
            # the drain, not from each run's own start: a series of runs each shorter than S
            # (fresh processes after a crash, tools one after another) kept a drain waiting
            # for the whole series (a review of note 78; design note 79)
            held = self._shared_since
            early = self._early
            return (
                lock.stop_wanted(started if held is None else min(started, held))
                and (early is None or early.idle())
                and cgroup.in_force()
            )

        return check

    def _untimed(self, call):
        """``call()``: some of a batch grading's untimed runs, made in the thread that holds
        its shared hold, with nothing else of the grading on the GPU where one of them is
        stopped. Where the lock says a drain has waited long enough for one of them
        (``_stop_check``), that run is stopped (killed as at its time limit, its result never
        read: ``runner.Stopped``), the hold given up until the timed runs waiting have had the
        GPU (``_give_way_after_stop``), and ``call`` made again from its start, with the same
        seeds and inputs and a time limit of its own, never stopped again (design note 78).
        Runs handed to threads of the call's own carry the check (``runner.carried_stops``)
        and are waited for before it ends."""
        check = self._stop_check()
        if check is None:
            return call()
        outcome = _stoppable(check, call)()
        if outcome is not _STOPPED:
            return outcome
        self._give_way_after_stop()
        with runner.stoppable(None):
            return call()

    def _give_way_after_stop(self) -> None:
        """After an untimed run stopped for a drain (``_untimed``): the timed runs waiting
        have the GPU before the grading takes its hold back (``_let_timed_runs_pass``,
        marked in the lock's count and trace)."""
        self._let_timed_runs_pass(stopped=True)

    def _correctness_lab_runs(self) -> None:
        """Every exercise's correctness cases in two judged runs side by side, the exercises
        shared between them by their cases' sizes (``_two_groups``; issue 15, the runtime
        steps of a batch's grading, ``_runtime``): a lab 3.3 grading starts 4 processes for
        its correctness instead of 8, and its correctness lasts the longer run, not both
        (design note 60). Each exercise's runs, as its own ``run_judged_cases`` would give
        them (``harness.run_judged_lab_cases``), wait in ``self._lab_runs`` for
        ``_correctness``, which makes its part from them as before. Left to the exercises'
        own runs: one exercise, or more cases than one run takes (``harness.MAX_CASES``).
        Not quite an exercise's own run: its cases follow other exercises' in the same
        student's process, with their state still there and the process's output, memory
        and CPU-time limits shared with them (as an exercise's later cases already follow
        its first; design note 37).

        The second group runs one judged run in a thread of its own; the cases a failure
        there leaves (a crash: the cases after it, in fresh processes) run after the first
        group's, in this thread. So only this thread lets the timed runs pass between fresh
        processes (``_let_timed_runs_pass``: this thread took the grading's shared hold),
        and only once the other thread's run has ended: with it still on the GPU the
        grading keeps its hold, as it did before note 54."""
        if not self.options.one_process or len(self.lab.exercises) < 2:
            return
        cases = {
            ex.name: [
                (ex.name, size, self.seeds.seed(ex.name, "correctness", size))
                for size in ex.cases
            ]
            for ex in self.lab.exercises
        }
        groups = _two_groups(self.lab.exercises)
        first, second = ([case for ex in g for case in cases[ex.name]] for g in groups)
        args = (self.lab.correctness_timeout_s, self.version)
        limits = {"box": self.box, "launch_s": self.lab.launch_timeout_s}
        # one group has no cases, or the runs side by side are off: one run over the lab
        if not first or not second or not self.options.side_by_side:
            if len(first + second) > harness.MAX_CASES:
                return
            self._lab_runs = harness.run_judged_lab_cases(
                self.judge.path, self.binary, first + second, *args, **limits,
                between=self._pass_between_processes,
            )
            return
        if max(len(first), len(second)) > harness.MAX_CASES:  # a run's limit
            return
        with _threads(1) as pool:
            other = pool.submit(
                cpus.carried(
                    runner.carried_stops(  # a stop there ends the step (_untimed)
                        functools.partial(
                            harness.lab_cases_once, self.judge.path, self.binary, second,
                            *args, **limits,
                        )
                    )
                )
            )

            def between() -> None:  # the other run on the GPU: the grading keeps its hold
                if other.done():
                    self._pass_between_processes()

            runs = harness.run_judged_lab_cases(
                self.judge.path, self.binary, first, *args, **limits, between=between
            )
            got, left = other.result()
        if left:  # after a failure in the other run: in fresh processes, passing as before
            self._pass_between_processes()
            more = harness.run_judged_lab_cases(
                self.judge.path, self.binary, left, *args, **limits,
                between=self._pass_between_processes,
            )
            for ex, ex_runs in more.items():
                got[ex] = got.get(ex, []) + ex_runs
        for ex in groups[1]:  # every exercise with cases has its list, as in one run
            if cases[ex.name]:
                runs[ex.name] = got.get(ex.name, [])
        self._lab_runs = runs

    def _let_timed_runs_pass(self, stopped: bool = False) -> float:
        """Between two of a batch's grading's untimed runs (a fresh process after a crash,
        through ``_pass_between_processes``, and between its correctness runs and its
        sanitizer runs): the timed runs waiting for the GPU go first, so that a submission
        that crashes case after case keeps them waiting for its hold's ``PASS_AFTER_S`` and
        the process then running, not all of its cases (design notes 54 and 69; g90b: one
        grading's correctness took 90 s, 18 processes), and a grading still in its
        correctness when they queue keeps them waiting for that step, not its sanitizer runs
        too (note 57). Not while the early timed run still sets up under the grading's hold
        (its GPU work must stay held) or when no hold is kept here (a single grade, the
        pipeline), nor without a cgroup per run (a process killed at its limit could still be
        tearing its GPU context down; a run's group is emptied before the run returns).
        Returns the seconds it waited (counted in gpu_wait), 0 when it did not step out.
        ``stopped``: after a run stopped for the drain (``_give_way_after_stop``)."""
        lock, early = self._shared_lock, self._early
        if lock is None or (early is not None and not early.idle()):
            return 0.0
        if not cgroup.in_force():  # a killed run's process may linger on the GPU a moment
            return 0.0
        asked = time.monotonic()
        if not lock.let_timed_runs_pass(stopped=stopped):
            return 0.0
        self._shared_since = time.monotonic()  # the hold taken back: its age starts again
        waited = self._shared_since - asked
        self._count_wait(waited)
        return waited

    def _pass_between_processes(self) -> None:
        """Before a fresh process of a grading's untimed runs (after a crash, a failed launch,
        a run killed at its limit): note 54's pass (``_let_timed_runs_pass``), once the
        grading's shared hold has lasted ``PASS_AFTER_S`` since it was taken or taken back.
        A pass costs the grading a whole turn of the class's timed runs (about 53 s in
        g105's class of 100, bench/h200-2026-12-05-session29), so a submission that fails
        every case, one process each (h05, h14, h16, k15: 11-18 processes), took one turn a
        process and ended the class minutes after the rest. Now it keeps the timed runs
        waiting up to ``PASS_AFTER_S`` and the process then running (a regular grading's
        correctness took 13.8 s, median, in g105), and takes a turn every ``PASS_AFTER_S``
        at most (design note 69)."""
        since = self._shared_since
        if since is not None and time.monotonic() - since < PASS_AFTER_S:
            return
        self._let_timed_runs_pass()

    def _sanitizer_lab_runs(self) -> None:
        """Each sanitizer tool over the sanitizer cases of every exercise that names it, in
        one process (issue 15; the runtime steps of a batch's grading, ``_runtime``): a lab
        3.3 grading starts 3 compute-sanitizer processes instead of 11. A tool clean there is
        clean for each of those exercises (``self._lab_clean``), with the seeds the exercise's
        own runs would have had; anything else, and a tool that only one exercise names, is
        left to the exercise's own runs (``_sanitizer_run``), which decide every finding as
        before. An exercise whose sanitizer part is not to run (``--no-sanitizer``, a hung
        exercise, no compute-sanitizer) is marked so by ``_sanitizer_tool`` here and left
        out. Not quite the exercise's own run: its cases run after other exercises' in the
        same process and context (their allocations and settings still there), as an
        exercise's later cases already run after its first in its own run."""
        if not self.options.one_process:
            return
        todo = [(ex, self._sanitizer_tool(ex)) for ex in self.lab.exercises]
        todo = [(ex, tool) for ex, tool in todo if tool is not None]
        names = list(dict.fromkeys(name for ex, _ in todo for name in ex.sanitizer.tools))
        runs = []  # (the tool's name, its exercises, the call that runs it over them)
        for name in names:
            exercises = [ex for ex, _ in todo if name in ex.sanitizer.tools]
            cases = [
                (size, self.seeds.seed(ex.name, f"sanitizer-{name}", size), ex.name)
                for ex in exercises
                for size in ex.sanitizer.cases
            ]
            if len(exercises) < 2 or len(cases) > harness.MAX_CASES:
                continue
            # the limit of the longest exercise's own run: a hang under the tool is found
            # there again, so it is not waited for longer here than there
            longest = max(len(ex.sanitizer.cases) for ex in exercises)
            call = functools.partial(
                sanitizer.all_clean,
                todo[0][1], name, self.binary, exercises[0].name, cases,
                self.lab.sanitizer_timeout_s, self.version, box=self.box,
                limit_s=self.lab.sanitizer_timeout_s * longest,
            )
            runs.append((name, exercises, call))
        # the tools side by side (design note 59): each run is its own process and verdict
        results = self._untimed_together(call for _, _, call in runs)
        for (name, exercises, _), (clean, summary) in zip(runs, results):
            if clean:
                for ex in exercises:
                    self._lab_clean[(ex.name, name)] = summary

    def _sanitizer_to_run(self) -> bool:
        """Whether some exercise's sanitizer part may still run (``_sanitizer_tool``'s
        conditions but the tool's presence, without marking any part): else a grading
        that steps out for the timed runs before its sanitizer runs would only lose its
        place in the queue (design note 57)."""
        return any(self._sanitizer_left_out(ex) is None for ex in self.lab.exercises)

    def _sanitizer_left_out(self, ex: Exercise) -> tuple[str, Status] | tuple[()] | None:
        """Why the exercise's sanitizer part is not to run, the tool's presence aside: ()
        where it has no sanitizer part or its part is already decided, (reason, status) to
        mark it with, None where it is to run."""
        if ex.sanitizer is None or self.results[ex.name].parts["sanitizer"].reason is not None:
            return ()
        if not self.options.sanitizer:
            return "left out (--no-sanitizer)", Status.SKIPPED
        if ex.name in self.hung:
            return "a correctness case did not finish", Status.NOT_RUN
        return None

    def _sanitizer_tool(self, ex: Exercise) -> tools.Tool | None:
        """compute-sanitizer, when the exercise's sanitizer part is to run; else None, the
        part marked skipped or not run with the reason."""
        er = self.results[ex.name]
        left_out = self._sanitizer_left_out(ex)
        if left_out is not None:
            if left_out:
                _set_not_run(er.parts, ("sanitizer",), *left_out)
            return None
        tool = tools.find("compute-sanitizer")
        if tool is None:
            _set_not_run(er.parts, ("sanitizer",), tools.not_found("compute-sanitizer"))
        return tool

    def _sanitizer_run(self, tool: tools.Tool, ex: Exercise, name: str) -> _ToolRun:
        """Sanitizer tool ``name`` on the exercise's sanitizer cases; writes no result (the
        pipeline runs an exercise's tools side by side, ``_sanitizer_part`` writes them)."""
        done = _ToolRun()
        summary = self._lab_clean.get((ex.name, name))
        if summary is not None:  # clean over the lab's cases (_sanitizer_lab_runs)
            for size in ex.sanitizer.cases:
                seed = self.seeds.seed(ex.name, f"sanitizer-{name}", size)
                done.rows.append(_sanitizer_row(name, size, seed, "clean", [], summary))
            return done
        if self.options.one_process:
            # every case in one process first; only a run that is not clean goes case by
            # case below, whose reports name the case (the same details either way)
            cases = [
                (size, self.seeds.seed(ex.name, f"sanitizer-{name}", size))
                for size in ex.sanitizer.cases
            ]
            clean, summary = sanitizer.all_clean(
                tool, name, self.binary, ex.name, cases, self.lab.sanitizer_timeout_s,
                self.version, box=self.box,
            )
            if clean:
                for size, seed in cases:
                    done.rows.append(_sanitizer_row(name, size, seed, "clean", [], summary))
                return done
        for size in ex.sanitizer.cases:
            seed = self.seeds.seed(ex.name, f"sanitizer-{name}", size)

            def run_tool(options: tuple[str, ...] = ()) -> sanitizer.SanitizerRun:
                return sanitizer.run(
                    tool,
                    name,
                    self.binary,
                    ex.name,
                    size,
                    seed,
                    self.lab.sanitizer_timeout_s,
                    self.version,
                    self.strip_paths,
                    box=self.box,
                    options=options,
                )

            r = run_tool()
            done.rows.append(_sanitizer_row(name, size, seed, r.verdict, r.report, r.summary))
            if r.verdict == "not_run":
                done.not_run = "; ".join(r.report)
                return done
            if r.verdict != "clean":
                done.clean = False
                kind = None
                if name == "racecheck" and r.verdict == "errors":
                    # the kind of race, which the default report does not say
                    kind = sanitizer.race_kind(run_tool(sanitizer.HAZARD_REPORT).hazards)
                    done.rows[-1]["race_kind"] = kind
                done.finding = diagnose.sanitizer_summary(ex, name, r.report, kind)
                done.message = f"{done.finding} (size {diagnose.size_text(size)})"
                break
        return done

    def _sanitizer_part(self, ex: Exercise, runs) -> None:
        """The sanitizer part from its tools' runs (``_ToolRun``s, in the tools' order): the
        first tool that could not run makes the part not run, with no details."""
        er = self.results[ex.name]
        part = er.parts["sanitizer"]
        clean_tools = 0
        for done in runs:
            if done.not_run is not None:
                part.details.clear()
                _set_not_run(er.parts, ("sanitizer",), done.not_run)
                return
            part.details.extend(done.rows)
            if done.message is not None:
                part.messages.append(done.message)
            part.finding = part.finding or done.finding
            clean_tools += done.clean
        part.fraction = Fraction(clean_tools, len(ex.sanitizer.tools))
        part.status = Status.PASSED if clean_tools == len(ex.sanitizer.tools) else Status.FAILED
        part.info = f"{clean_tools} of {len(ex.sanitizer.tools)} tools clean"

    def _timed_ready(self, ex: Exercise) -> bool:
        """True when ``ex`` is timed and its timed run is due: performance graded, its part
        not settled, none of its correctness cases past its limit."""
        spec = ex.performance
        return (
            spec is not None
            and spec.timed
            and self.results[ex.name].parts["performance"].reason is None
            and self.options.performance
            and ex.name not in self.hung
        )

    def _lab_run_groups(self) -> dict[int, list[Exercise]]:
        """The exercises a run over the lab times now: {reps: exercises} of those due, two or
        more with the same repetitions (one judged run each); empty without one process for
        the student's code."""
        if not self.options.one_process:
            return {}
        by_reps: dict[int, list[Exercise]] = {}
        for ex in self.lab.exercises:
            if self._timed_ready(ex):
                by_reps.setdefault(ex.performance.reps, []).append(ex)
        return {reps: group for reps, group in by_reps.items() if len(group) >= 2}

    def _timed_lab_runs(self, gate) -> dict[str, harness.TimedCase]:
        """The first timed run of every exercise whose timed run is due, when two or more
        are, in one judged run with one hold of the GPU (issue 15, docs/design-notes.md,
        note 39; exercises timed with other repetitions than the first's in runs of their
        own): {exercise: its TimedCase}, which ``_performance`` grades as the run it would
        have made itself. Empty when fewer than two are due: each makes its own."""
        runs: dict[str, harness.TimedCase] = {}
        for reps, group in self._lab_run_groups().items():
            cases = [
                (
                    ex.name,
                    ex.performance.size,
                    self.seeds.seed(ex.name, "performance", ex.performance.size),
                )
                for ex in group
            ]
            runs.update(
                harness.run_judged_timed_cases(
                    self.judge.path,
                    self.binary,
                    cases,
                    reps,
                    self.lab.run_timeout_s,
                    self.version,
                    box=self.box,
                    gate=gate,
                    info_baselines={ex.name for ex in group if ex.performance.info_baseline},
                    alone=self.options.alone,
                )
            )
        return runs

    def _time_again_alone(self, gate, hold=None) -> None:
        """A single grade's exercises whose timed judge ran out of GPU memory after its gate
        (``self._oom_once``), timed once more now that every other run of the grading is
        done, so that none of its own judges (another exercise's, set up at its gate) holds
        memory beside it (design note 88). That run is ``alone`` (its judge out of memory
        after its gate again: the student's failure, that exercise's performance lost)
        unless other grader processes share the GPU (``GRADER_GPU_LOCK``: then the grader
        error it was); never a third run. ``gate``, ``hold``: as ``_performance``'s."""
        shared = bool(os.environ.get(gpu_lock.LOCK_ENV, "").strip())
        for ex in self.lab.exercises:
            if ex.name in self._oom_once:
                self._performance(ex, gate=gate, hold=hold, alone=not shared)

    def _performance(
        self, ex: Exercise, gate=None, first: harness.TimedCase | None = None, hold=None,
        alone: bool | None = None,
    ) -> None:
        """The performance part of ``ex``: its timed (or untimed, measuring) run, graded.
        ``first``: its timed run made already in a run over the lab (``_timed_lab_runs``),
        graded as the run this would make, and timed again here, like that one, when its
        samples spread. ``hold``: called before any run of its own on the GPU (a
        ``_SharedWhenNeeded``); None where the caller holds the lock already. ``alone``:
        the GPU otherwise idle (default ``Options.alone``): a judge out of GPU memory after
        its gate is the student's failure (design note 88). Else, in a single grade, the
        first such judge leaves the part as it was and the exercise to
        ``_time_again_alone`` (``self._oom_once``); in a batch's grading, or a second time,
        ``harness.JudgeOutOfMemory`` is raised."""
        alone = self.options.alone if alone is None else alone
        er = self.results[ex.name]
        before = copy.deepcopy(er.parts["performance"])
        try:
            self._performance_part(ex, gate, first, hold, alone)
        except harness.JudgeOutOfMemory as e:
            if (
                self.options.gpu_lock is not None  # a batch's: graded again alone (_runtime)
                or alone
                or e.before_gate
                or ex.name in self._oom_once  # made again already: never a third run
            ):
                raise
            er.parts["performance"] = before
            with self._books:
                self._oom_once[ex.name] = str(e)

    def _performance_part(
        self, ex: Exercise, gate, first: harness.TimedCase | None, hold, alone: bool
    ) -> None:
        """``_performance``'s work, ``alone`` decided."""
        er = self.results[ex.name]
        part = er.parts["performance"]
        spec = ex.performance
        if spec is None or part.reason is not None:
            return
        if not self.options.performance:
            _set_not_run(er.parts, ("performance",), "left out (--no-perf)", Status.SKIPPED)
            return
        if ex.name in self.hung:
            _set_not_run(er.parts, ("performance",), "a correctness case did not finish")
            return
        seed = self.seeds.seed(ex.name, "performance", spec.size)
        # An untimed performance run still measures (lab 3.1b's latency ladder, timed part by
        # part on the judge's clock): alone on the GPU from its start, no gate needed.
        started = time.monotonic()

        def measure() -> harness.CaseRun:
            if hold is not None:
                hold()
            with gate() if gate and not spec.timed else contextlib.nullcontext():
                return harness.run_judged(
                    self.judge.path,
                    self.binary,
                    ex.name,
                    spec.size,
                    seed,
                    self.lab.run_timeout_s,
                    self.version,
                    time_reps=spec.reps if spec.timed else None,
                    box=self.box,
                    gate=gate if spec.timed else None,
                    info_baseline=spec.info_baseline,
                    alone=alone,
                )

        run = first.run if first is not None else measure()
        # the run's wall seconds: from the lab run's previous document to this one's there
        wall = first.wall_s if first is not None else time.monotonic() - started
        # A timed run whose samples spread may have been disturbed by other work
        # (plausible.spread): timed once more, and the second run graded, whatever it shows.
        # A submission can spread its own samples to force that second run, never to choose
        # the better of the two (docs/design-notes.md, note 33).
        # So is one that measured the host's delays rather than the launches (note 51).
        ratio = plausible.spread(run.doc) if spec.timed and run.status == "ok" else None
        bound = plausible.exchange_bound(run.doc) if spec.timed and run.status == "ok" else None
        # So is one whose exchange with the empty-kernel server was slowed against its time
        # alone (note 95): a passing delay of the host's is not there the second time
        if bound is None and spec.timed and run.status == "ok":
            bound = plausible.exchange_slowed(run.doc)
        row = {"size": list(spec.size), "seed": seed}
        if ex.name in self._oom_once:  # a single grade's run made again (_time_again_alone)
            row["judge_out_of_memory_first"] = self._oom_once[ex.name]
        if bound or (ratio is not None and ratio > plausible.SPREAD_LIMIT):
            row["retimed"] = (
                f"timed twice: in the first run {bound}" if bound else plausible.spread_text(ratio)
            )
            part.messages.append(row["retimed"])
            row["first_wall_s"] = round(wall, 3)
            started = time.monotonic()
            run = measure()
            wall = time.monotonic() - started
        k = diagnose.kind(run)
        row["status"] = run.status
        # where a timed run's time goes (issue 15): the grader's wall clock around the whole
        # run, and the judge's phases (docs/protocol.md, timing.phases_ms)
        row["wall_s"] = round(wall, 3)  # the graded run's
        if first is not None and first.tail_ms and "retimed" not in row:
            # the hold after the run over the lab's last document (note 80): its last case's
            row["hold_tail_ms"] = first.tail_ms
        timing = (run.doc or {}).get("timing") or {}
        phases = timing.get("phases_ms")
        if isinstance(phases, dict):
            row["phases_ms"] = phases
            cpu = timing.get("phases_cpu_ms")  # the judge's CPU in them (design note 55)
            if isinstance(cpu, dict):
                row["phases_cpu_ms"] = cpu
            # launches per sample: the student's and the baseline's (design note 47)
            row["batch"] = [timing.get("batch"), timing.get("baseline_batch")]
            # the exchange among the repetitions, the samples no longer than what was
            # subtracted (note 51), the exchange before the student's process started (design
            # note 95) and what was subtracted from each sample: at most alone + 0.25 ms (96)
            exchange = {
                "exchange_ms": "worker_overhead_ms",
                "exchange_alone_ms": "worker_overhead_alone_ms",
                "exchange_subtracted_ms": "worker_overhead_subtracted_ms",
                # the judge's own empty launch alone: a GPU busy before (design note 97)
                "empty_launch_alone_ms": "empty_launch_alone_ms",
                "under_exchange": "under_overhead",
            }
            row.update(
                (name, timing[key])
                for name, key in exchange.items()
                if isinstance(timing.get(key), (int, float))
            )
        # the course code's own figures of the run, the same for every submission on one
        # device: a batch compares them across the class (grader.class_figures)
        course = class_figures.course_figures(run.doc)
        if course:
            row["course"] = course
        part.details.append(row)
        if k == "no_device":
            _set_not_run(er.parts, ("performance",), "no CUDA device")
            return
        part.status = Status.FAILED
        part.fraction = 0
        if k != "ok":
            fresh = (
                run.doc is not None
                and run.doc["status"] == "wrong"
                and (run.doc.get("check") or {}).get("phase") == "fresh"
            )
            if fresh:
                # cml_judge.c: a launch on inputs drawn for it alone, against the baseline
                msg = (
                    "the output was wrong in the timed run at "
                    f"{diagnose.size_text(spec.size)}, in a launch on fresh inputs (compared "
                    "with the course's own result on the same inputs): "
                    + diagnose.case_message(run, self.lab.run_timeout_s)
                )
            elif run.doc is not None and run.doc["status"] == "wrong":
                msg = (
                    "the output was wrong in the timed run at "
                    f"{diagnose.size_text(spec.size)}: "
                    + diagnose.case_message(run, self.lab.run_timeout_s)
                )
            else:
                msg = f"the timed run at {diagnose.size_text(spec.size)}: " + diagnose.case_message(
                    run, self.lab.run_timeout_s
                )
            part.messages.append(msg)
            row["message"] = msg
            if run.judge_out_of_memory:  # alone, past its gate: the student's (note 88)
                row["judge_out_of_memory"] = True
                if run.held_gpu_mib is not None:
                    row["held_gpu_mib"] = run.held_gpu_mib
                part.finding = f"{ex.name}: {msg}"
                return
            if er.parts["correctness"].status == Status.PASSED:
                head = f"{ex.name}: {msg}: the kernel passed every correctness case"
                if fresh:
                    part.finding = (
                        f"{head}, so its result depends on the run (a result kept from other "
                        "inputs, or work skipped in some launches? Each timed launch gets inputs "
                        "of its own: keep nothing between calls (lab.h))"
                    )
                elif k == "edge" and "timed_edge" in ex.hints:
                    # wrong only at the far end, where the lab keeps something of the timed
                    # run's (lab 3.2's host-link check in the output's last element); a
                    # partial tile's hint would contradict the correctness cases just passed
                    part.finding = f"{head}; {ex.hints['timed_edge']}"
                else:
                    part.finding = (
                        f"{head}, so its result depends on the run (a race between threads?)"
                    )
            return
        # timings the judge does not believe (grader/plausible.py): no performance points
        at = diagnose.size_text(spec.size)
        # bound by the exchange in both runs (note 51): the host's delays or the submission's
        # (its process shares the kept CPUs with the course's): nothing is believed of it;
        # its slowed exchange is then that, not a GPU kept busy (note 95)
        bound = plausible.exchange_bound(run.doc)
        busy = plausible.disturbed(run.doc, spec.busy_ratio, exchange=bound is None)
        why = plausible.implausible(run.doc, self.grade.device)
        if busy or bound or why:
            # unscored, nothing is at stake: the figure is not to be believed, no more
            verdict = "no performance points" if spec.scored else "measured, not scored"
            if busy:
                msg = f"disturbed timing at {at}: {busy}; {verdict}"
            elif bound:
                msg = (
                    f"timing not trusted at {at} (timed twice): {bound}; {verdict} (a "
                    "process of yours busy on the CPU while its launches waited slows that "
                    "exchange; if yours does nothing but launch, ask for a grade alone on an "
                    "idle machine)"
                )
            else:
                msg = (
                    f"implausible timing at {at}: {why}; {verdict} (was the work done "
                    "outside the timed launch, or kept from an earlier one?)"
                )
            if not spec.scored:
                part.status, part.fraction, part.info = Status.INFO, None, msg
                row["message"] = msg
                return
            part.messages.append(msg)
            row["message"] = msg
            part.finding = f"{ex.name}: {msg}"
            return
        # Each criterion is a ramp; the part's fraction is their mean (docs/protocol.md).
        texts, scored, fractions, measured = [], [], [], []
        short = None  # the first criterion short of full points, and its value
        for crit in spec.criteria:
            crit = crit.for_device(self.grade.device)  # this GPU's own thresholds, if any
            value, text = diagnose.performance_text(ex, crit, run.doc, ex.baseline)
            texts.append(text)
            if value is not None:
                measured.append({"metric": crit.metric, "value": value})
            if not spec.scored:  # evidence only: no ramp (lab.toml scored = false)
                continue
            if value is None:
                part.messages.append(text)
                fractions.append(Fraction(0))
                continue
            fraction = scoring.ramp(value, crit.zero, crit.full)
            fractions.append(fraction)
            scored.append({"metric": crit.metric, "value": value, "fraction": float(fraction)})
            if fraction < 1 and part.finding is None:
                part.finding = diagnose.slow_summary(ex, crit, value)
                short = (crit, value)
        part.info = " | ".join(texts)
        # the roofline row of the report (report.roofline), scored or not: the bandwidth
        # against the copy whatever the roof, the exercise's own roof and its figures
        # (grader.roofs: the judge's metrics and device facts), and the ratio over the
        # baseline, as information
        metrics = run.doc.get("metrics") or {}
        for key in ("gbps", "copy_gbps", "pct_of_copy"):
            if isinstance(metrics.get(key), (int, float)):
                row[key] = metrics[key]
        if spec.roof is not None:  # a timed run
            row["roof"] = spec.roof
            row.update(roofs.figures(spec.roof, run.doc) or {})
        ratio = (run.doc.get("timing") or {}).get("ratio")
        if isinstance(ratio, (int, float)) and not isinstance(ratio, bool):
            row["ratio"] = ratio
        if not spec.scored or not spec.calibrated:
            row["measured"] = measured  # the figures, for the leaderboard: no ramp, no points
        if not spec.scored:  # measured, shown, never points (points.performance is 0)
            part.status, part.finding, part.fraction = Status.INFO, None, None
            part.info += f" ({manifest.NOT_SCORED})"
            row["message"] = part.info
            return
        if not spec.calibrated:  # figures without points (docs/adding-a-lab.md)
            part.finding = part.fraction = None
            part.status, part.reason = Status.NOT_RUN, manifest.UNCALIBRATED
            row["message"] = part.info
            return
        row["criteria"] = scored
        if scored:  # the first scored criterion, for readers of a single metric
            row["metric"], row["value"] = scored[0]["metric"], scored[0]["value"]
        part.fraction = sum(fractions, Fraction(0)) / len(fractions)
        part.status = Status.PASSED if part.fraction >= 1 else Status.FAILED
        # counters explain a time (a ratio, a share of a roof), not an exercise's own figure
        # (lab 3.1b's l2_over_l1: a one-thread chase is "uncoalesced" by design)
        if short is not None and ex.kernel and short[0].metric in ("ratio", *roofs.METRICS):
            self._counters(ex, part, spec.size, seed, short, gate=gate, hold=hold)

    def _counters(
        self, ex: Exercise, part, size: tuple[int, ...], seed: int, short, gate=None, hold=None
    ) -> None:
        """A slow kernel's cause from its hardware counters (grader.counters), in place of
        the lab's guess; the figures go into the part's messages either way. ``gate`` and
        ``hold`` as ``_performance``'s: ncu runs alone on the GPU, like a timing (two
        sessions at once left one without counters, docs/design-notes.md, note 24); without
        ncu nothing runs, and nothing is held."""
        ncu = tools.find("ncu")
        if ncu is None:
            part.messages.append(f"no counters measured: {tools.not_found('ncu')}")
            return
        if hold is not None:
            hold()
        with gate() if gate else contextlib.nullcontext():
            prof = counters.profile(ncu, self.binary, ex.name, ex.kernel, size, seed, box=self.box)
        if prof.counters is None:
            part.messages.append(f"no counters measured: {prof.problem}")
            return
        measured = prof.counters.text()
        part.messages.append(f"measured ({ex.kernel}, one launch under ncu): {measured}")
        cause = counters.slow_hint(prof.counters)
        if cause is None:  # neither conflicts nor uncoalesced accesses: the lab's hint stays
            cause = f"{diagnose.hint(ex, 'slow')} (measured: {measured})"
        part.finding = diagnose.slow_summary(ex, *short, cause=cause)

    def _pending_ramps(self) -> None:
        """A performance part whose points are pending (not run: no GPU, or its correctness
        did not run) says how it will be scored, so that a student grading without a GPU sees
        the bar (diagnose.ramp_text)."""
        for result in self.grade.exercises:
            part = result.parts["performance"]
            if part.status in DID_NOT_RUN and state(part).pending:
                text = diagnose.ramp_text(self.lab.exercise(result.name), self.grade.device)
                if text:
                    part.messages.append(text)

    def _not_run_summary(self) -> None:
        """ "correctness, sanitizer, performance — no CUDA device (...)" lines: the parts
        that did not run, by reason (after scoring). A reason whose parts all scored 0
        anyway (the build failed: a certain loss, nothing pending) ends with
        ``LOST_FOR_CERTAIN``, so that it never reads like the pending ones."""
        by_reason: dict[str, list[str]] = {}
        pending: dict[str, bool] = {}
        for ex in self.grade.exercises:
            if ex.name in self.arch_skipped:  # not graded at all: its note says why
                continue
            for part in ex.parts.values():
                if part.max == 0:  # nothing at stake (a speed measured, not scored)
                    continue
                if part.status in DID_NOT_RUN and not not_in_exercise(part):
                    reason = part.reason or "unknown"
                    names = by_reason.setdefault(reason, [])
                    if part.name not in names:
                        names.append(part.name)
                    pending[reason] = pending.get(reason, False) or state(part).pending
        order = {name: i for i, name in enumerate(PART_NAMES)}
        self.grade.not_run = [
            f"{', '.join(sorted(names, key=order.get))} — {reason}"
            + ("" if pending[reason] else LOST_FOR_CERTAIN)
            for reason, names in by_reason.items()
        ]
        report_ = self.grade.report
        if report_ is not None and report_.max > 0 and report_.points is None:
            why = report_.info if writeup.waits_for_gpu(report_.sections) else "not checked"
            self.grade.not_run.append(f"{report_.file} (filled in) — {why}")


@dataclass
class _ToolRun:
    """One sanitizer tool's runs on an exercise, before they are written to its part."""

    rows: list[dict] = dataclasses.field(default_factory=list)  # the details' rows
    clean: bool = True  # clean on every case
    message: str | None = None  # the finding and the case's size, when not clean
    finding: str | None = None
    not_run: str | None = None  # why the tool could not run (the part is then not run)


class _NotDue(Exception):
    """An early timed run's exercise is no longer due when its gate would open (a correctness
    case past its limit, or its performance part settled by the untimed runs)."""


class _EarlyTimedRuns:
    """A batch's timed runs over the lab (``Grading._timed_lab_runs``) started in a thread of
    their own as soon as the device is known, beside the grading's untimed runs (design note
    45). The thread takes no hold of the lock before its first gate: its judge's set-up runs
    under the grading's own shared hold, which the grading keeps until ``set_up_done`` (the
    judge at its gate with its exercises still due, or the thread ended, a judge not due
    killed first: design note 55), so a queue of timed runs never comes between them (a judge
    still setting up past its time limit is let through its gate all the same, as ``upgrade``
    lets it in the sequential order: its set-up's end may then overlap another grading's hold
    alone, off the CPUs kept for timed runs). The gate waits for ``untimed_done``, then takes
    the GPU alone (``lock.exclusive``, its wait counted) only if the grading did not give up
    and every exercise due at the start still is; leaving it, the thread holds the lock shared
    at once (a downgrade, note 49: no queue of timed runs to wait behind) for the set-up of any
    later run (a fresh run after a failure: ``lock.upgrade`` at its gate), and lets it go when
    it ends.
    Else the judge is killed before it times anything and ``result()`` is None, so that the
    grading makes its runs over the lab afterwards, as the sequential order would.
    ``result()`` is None too where the first judge ran out of memory in its set-up, before
    its gate (``harness.JudgeOutOfMemory`` with ``before_gate``, ``at_gate`` unset: other
    gradings' judges held the GPU's memory at their gates, design note 84): nothing of the
    student's had run in that judged run and nothing was timed, so the run counts as not
    made, its judge's processes gone before the thread ends, and ``out_of_memory`` holds the
    seconds it lasted. The thread never waits for memory: the grading, holding its shared
    hold, waits for it (``set_up_done``), and a drain the judges holding the memory wait in
    waits for that hold. The grading's later run is the one retry: one that fails again is
    the grader error it was before. ``result()`` re-raises any other grader error of the
    thread's.
    ``slot``: the batch's semaphore of timed set-ups at once (``Options.timed_setup_slots``,
    design note 87), acquired by the caller for this run and released when the thread ends,
    its judges ended and its own hold let go, on every path."""

    def __init__(
        self,
        grading: Grading,
        lock: GpuLock,
        due: list[Exercise],
        slot: threading.Semaphore | None = None,
    ) -> None:
        self._slot = slot
        self._grading = grading
        self._lock = lock
        self._due = due  # the exercises its runs over the lab set up (_lab_run_groups)
        self.untimed_done = threading.Event()
        self.set_up_done = threading.Event()
        self.at_gate = threading.Event()  # its judge reached its first gate, set-up done
        self.ended = threading.Event()  # the thread ended: no judge of its left
        self._given_up = False
        self._held = contextlib.ExitStack()  # this thread's shared hold after its first gate
        self._holding = False
        self._runs: dict[str, harness.TimedCase] | None = None
        self._error: BaseException | None = None
        # seconds from its start to its first judge's running out of memory before its gate,
        # where that made its runs not made (None: it did not)
        self.out_of_memory: float | None = None
        self._thread = threading.Thread(  # named after its grading's (a batch's: the student)
            target=self._run, name=f"{threading.current_thread().name} early-timed", daemon=True
        )
        self._thread.start()

    def give_up(self) -> None:
        """The grading stopped before its untimed runs were done: the judge times nothing."""
        self._given_up = True
        self.untimed_done.set()

    @contextlib.contextmanager
    def _gate(self):
        self.untimed_done.wait()
        if self._given_up or not all(self._grading._timed_ready(ex) for ex in self._due):
            # the judge is killed before the thread ends (harness._pass_gate), under the
            # grading's hold: its teardown never overlaps another grading's hold alone
            raise _NotDue()
        self.set_up_done.set()  # the judge is idle at its gate and due: the grading may let go
        asked = time.monotonic()
        # The first gate: no hold of this thread's yet (the grading's covered the set-up). It
        # ends in this thread's own shared hold at once (a downgrade, design note 49), under
        # which a later run (a fresh run after a failure, a run deferred past the judge's
        # set-up budget) is set up and upgraded at its gate; the thread lets it go when it
        # ends, so that a grading whose runs are done does not queue behind the class's
        # timed runs waiting.
        if self._holding:
            alone = self._lock.upgrade()
        else:
            alone = self._lock.exclusive(then_shared=self._held)
            self._holding = True
        with alone:
            self._grading._count_wait(time.monotonic() - asked)
            yield

    def idle(self) -> bool:
        """Whether none of its GPU work can be in flight: its judge waits at its first gate
        (not merely let through it past its set-up's time limit), or the thread ended."""
        return self.at_gate.is_set() or self.ended.is_set()

    def _run(self) -> None:
        def gate():
            return self._gate()

        gate.reached = self.at_gate.set  # harness._pass_gate: the judge wrote its gate line
        started = time.monotonic()
        try:
            # Its judges set up under a shared hold (the grading's, then this thread's own),
            # on every CPU where each run's processes end with it (a cgroup each); each is
            # moved onto the kept ones at its gate (grader.cpus).
            with _on_every_cpu():
                self._runs = self._grading._timed_lab_runs(gate)
        except _NotDue:
            self._runs = None
        except harness.JudgeOutOfMemory as e:
            # the first judge's set-up, before its gate, out of the memory other judges held:
            # not made, made again after the untimed runs (design note 84); any later judge's
            # (after a gate of this thread's) is the grader error it was
            if not e.before_gate or self.at_gate.is_set():
                self._error = e
            else:
                self._runs = None
                self.out_of_memory = time.monotonic() - started
        except BaseException as e:  # noqa: BLE001 - handed to the grading's thread
            self._error = e
        finally:
            try:
                self._held.close()
            finally:
                if self._slot is not None:  # its judges have ended (design note 87)
                    self._slot.release()
                self.ended.set()
                self.set_up_done.set()

    def result(self) -> dict[str, harness.TimedCase] | None:
        """The runs over the lab, or None when they must be made again (``_NotDue``, or the
        first judge out of memory before its gate: ``out_of_memory``)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._runs


class _SharedWhenNeeded:
    """The lock's shared hold for the end of a batch's grading (``Grading._runtime``), taken
    when first called (before a run on the GPU: a timed run not made early, one timed again,
    ncu) and held until the ``with`` block ends; never taken when nothing needs it, so that a
    grading whose timed runs are done ends at once (design note 49). ``lock`` None: nothing
    to hold. ``slots``: a batch's cap on its timed set-ups at once (``Options.
    timed_setup_slots``, design note 87): a slot is waited for before the hold, holding no
    hold of the lock (a grading that waited under its shared hold would keep the slots'
    holders from their gates), and given back after it, when every judge started under it has
    ended. Its waits (for the slot and the hold) are counted with ``count_wait(seconds)``."""

    def __init__(
        self, lock: GpuLock | None, count_wait, slots: threading.Semaphore | None = None
    ) -> None:
        self._lock = lock
        self._count_wait = count_wait
        self._slots = slots
        self._slotted = False  # a slot taken, given back when the block ends
        self._stack = contextlib.ExitStack()
        self._held = False

    def __enter__(self) -> _SharedWhenNeeded:
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def __call__(self) -> None:
        if self._lock is None or self._held:
            return
        asked = time.monotonic()
        try:
            if self._slots is not None and not self._slotted:
                self._slots.acquire()
                self._slotted = True
                self._stack.callback(self._slots.release)  # after the hold (the stack's order)
            self._stack.enter_context(self._lock.shared())
        finally:
            self._count_wait(time.monotonic() - asked)
        self._held = True


def _on_every_cpu():
    """``cpus.everywhere()`` where each run has a cgroup of its own, emptied before the run
    returns (no process of an untimed run is left behind on the CPUs kept for timed runs);
    else nothing (design note 55). For what a batch's grading starts under its shared hold."""
    return cpus.everywhere() if cgroup.in_force() else contextlib.nullcontext()


# Seconds a batch's grading keeps its shared hold over fresh processes of its untimed runs
# before it lets the timed runs waiting pass (``_pass_between_processes``, design note 69):
# about a regular lab 3.3 grading's correctness under a class's load (g105: 13.8 s median;
# a fixed choice: with few gradings on the GPU a regular one takes some 3 s).
PASS_AFTER_S = 15.0

# What a correctness case costs beside its work, in products of its sizes: its set-up, the
# exchange with the student's process, its launch and check, guessed (not measured) at some
# 35 ms, what 10^8 terms of lab 3.3's float64 reference take on one core (reference.c).
CASE_WORK = 1e8


def _two_groups(exercises: Sequence[Exercise]) -> tuple[list[Exercise], list[Exercise]]:
    """The exercises in two groups of about the same work, each in the lab's order: the
    heaviest first, each to the lighter group, an exercise's work being the sum over its
    correctness cases of their sizes' products (a matmul case M x N x K, a transpose's
    rows x cols: what its reference and its launch cost, roughly) and ``CASE_WORK`` a case
    (lab 3.3: matmul and transpose, conv2d and sgemm). Both groups hold one exercise at
    least (given two)."""
    def work(ex: Exercise) -> float:
        return sum(CASE_WORK + math.prod(size) for size in ex.cases)

    groups: tuple[list[Exercise], list[Exercise]] = ([], [])
    loads = [0, 0]
    for ex in sorted(exercises, key=work, reverse=True):
        lighter = 0 if (loads[0], len(groups[0])) <= (loads[1], len(groups[1])) else 1
        groups[lighter].append(ex)
        loads[lighter] += work(ex)
    order = {ex.name: i for i, ex in enumerate(exercises)}
    first, second = (sorted(g, key=lambda ex: order[ex.name]) for g in groups)
    return first, second


def _threads(workers: int) -> concurrent.futures.ThreadPoolExecutor:
    """A pool for runs a grading hands to threads of its own, named after the calling thread
    (the grading's: a stack dump says whose they are)."""
    return concurrent.futures.ThreadPoolExecutor(
        workers, thread_name_prefix=threading.current_thread().name
    )


def _side_by_side(calls, errors: bool = False) -> list:
    """Each of ``calls`` (no arguments) in a thread of its own (named after the calling
    thread): their results, in order, once every call has ended. The first error, in order,
    is then raised (a grader error in one thread stops the grade, the others' runs having
    ended); with ``errors`` each call's error takes its result's place instead. Each thread
    starts its runs on the CPUs the calling thread's would (``cpus.carried``)."""
    calls = [cpus.carried(call) for call in calls]
    with _threads(len(calls) or 1) as pool:
        futures = [pool.submit(call) for call in calls]
    if errors:
        return [f.exception() or f.result() for f in futures]
    return [f.result() for f in futures]


_STOPPED = object()  # a call of _stoppable's whose run was stopped (runner.Stopped)


def _stoppable(check, call):
    """``call`` (no arguments) made, in whichever thread runs it, with the stop check
    ``check`` (``runner.stoppable``): its result, or ``_STOPPED`` where a run of it was
    stopped (``Grading._untimed_together`` makes it again once the others have ended)."""

    def run():
        try:
            with runner.stoppable(check):
                return call()
        except runner.Stopped:
            return _STOPPED

    return run


def _one_after_another(calls, errors: bool = False) -> list:
    """``_side_by_side``'s results, each of ``calls`` run in turn in the calling thread
    (``Options.side_by_side`` off): the first error raised where it happens, or with
    ``errors`` put in its call's place, the later calls still made, as side by side."""
    out = []
    for call in calls:
        try:
            out.append(call())
        except Exception as e:  # a grader error too, as ``_side_by_side`` takes it
            if not errors:
                raise
            out.append(e)
    return out


def _sanitizer_row(tool: str, size, seed: int, verdict: str, report: list, summary: str) -> dict:
    """One sanitizer run's row of the report's details."""
    return {
        "tool": tool,
        "size": list(size),
        "seed": seed,
        "verdict": verdict,
        "report": report,
        "summary": summary,
    }


def _older_than_build(device: dict, arch: str | None) -> str | None:
    """Why the device cannot run a build for ``arch`` (its compute capability is below the
    architecture's: SASS runs on its own major version from its minor up, and the PTX beside
    it only on later GPUs), or None when it can or either is unknown."""
    cc = plausible.compute_capability(device)
    try:
        built = manifest.arch_number(arch or "")
    except ValueError:
        return None
    if cc is None or 10 * cc[0] + cc[1] >= built:
        return None
    major, minor = cc
    return (
        f"this GPU ({device.get('name', 'unnamed')}, compute capability {major}.{minor}) cannot "
        f"run code built for {arch}: grade on a GPU of compute capability {built // 10}."
        f"{built % 10} or later (on Slurm, a partition or --constraint with only such GPUs), "
        f"or build for this one with --arch sm_{major}{minor}"
    )


def _device_text(device: dict) -> str:
    parts = [str(device.get("name", "unknown GPU"))]
    if device.get("cc"):
        parts.append(f"compute capability {device['cc']}")
    if device.get("sm_count"):
        parts.append(f"{device['sm_count']} SMs")
    return ", ".join(parts)


def grade(lab_dir: Path, options: Options) -> Grade:
    """Grades one submission of the lab in ``lab_dir``."""
    return Grading(lab_dir, options).run()


def rejected(lab_dir: Path, options: Options, reason: str) -> Grade:
    """The Grade of a submission that was refused before assembly (an unsafe archive in
    batch grading): every part zero, the reason as a failed "assemble" step, so its
    reports read like any other zeroed submission's."""
    g = Grading(lab_dir, options)
    g.step("assemble", Status.FAILED, [reason])
    _zero_all(g.results, reason)
    if g.grade.report is not None:
        g.grade.report.status = Status.FAILED
        g.grade.report.info = "not checked"
        g.grade.report.messages = [reason]
    scoring.score(g.grade)
    g._not_run_summary()
    return g.grade

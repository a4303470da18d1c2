"""``labs/<lab>/lab.toml`` (docs/protocol.md, "Manifest") into dataclasses.

Every rule of the contract is checked here, and a violation raises ``GraderError`` with a
message naming the file, the exercise and the field, e.g.

    labs/3.3-tiling/lab.toml: exercise 'matmul_tiled': performance.criteria[0]: metric must
    be 'ratio' or a name of the run document's metrics (a C identifier), not '1.5'

Unknown keys are errors too (a misspelt ``forbidd`` would otherwise switch a check off).
Points are non-negative integers; a part with points needs its table (``static``,
``sanitizer``, ``performance``); all cases of an exercise, its sanitizer cases and its
performance size have the same number of dimensions.

lab.toml holds grading policy only. What the lab binary knows is its own ``lab --list``
(docs/protocol.md; no GPU needed): the exercises' dimensions, baselines, launchers and
kernels, the minimum repetitions and the driver's metric names. ``bind`` checks lab.toml
against that listing and returns the Lab with the launchers, kernels and baselines filled
in; a ``launchers`` or ``kernel`` key in lab.toml is refused (it would say it twice).

An optional ``labs/<lab>/hidden.toml`` (instructor-only, never in the student release) adds
hidden correctness cases to named exercises: ``load`` appends them after the exercise's
public cases (``Exercise.n_hidden`` counts them); reports never show their sizes.

An optional ``[report]`` table asks for a written report (a Markdown student file): its
sections must be headings of the lab's pristine template, in order; ``grader.writeup``
checks that a submission's copy is filled in.

``arch_min = "sm_90"`` in an exercise says it needs that GPU architecture or a later one (lab
3.2g: the Tensor Memory Accelerator and clusters), with ``arch_why`` the words of why; a grade
that builds for an older one skips every part of it (``arch_skip_reason``, grader.grade).

``skeleton = "naive"`` says the skeleton is a correct but slow starting point (lab 3.5)
rather than TODO stubs (``"stub"``, the default); selfcheck expects it to earn every
correctness point and no performance point.

``launch_timeout_s`` bounds one launch of a correctness case, the student's launcher from the
judge's RUN to its answer (docs/design-notes.md, note 65): a hang ends there, not at the
case's limit, which also covers the judge's set-up and check. At most ``case_timeout_s``.

Defaults: ``run_timeout_s`` 60, ``case_timeout_s`` = ``run_timeout_s``, ``launch_timeout_s``
none (a launch has the case's limit only),
``sanitizer_timeout_s`` 300, ``allow_calls`` empty, ``performance.reps`` 25,
``performance.timed`` true, ``performance.roof`` "copy" (grader.roofs: "copy", "fp32" or
"cublas", the roof the report's roofline measures a timed exercise against), a missing part in
``points`` is 0.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from grader import class_figures, jobs, plausible, roofs, writeup
from grader.errors import GraderError

PARTS = ("correctness", "static", "sanitizer", "performance")
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
# Performance metrics: "ratio" is the run document's timing.ratio; a metric of
# roofs.COMPUTED (pct_of_fp32, pct_of_cublas) is the grader's, computed from the document's judge figures;
# any other name is a number in its "metrics" object (the driver's pct_of_copy, gbps,
# gflops, ..., named by the binary's --list, or an exercise's extra metric,
# common/cml_lab.h), so lab.toml alone checks it only as an identifier.
# Those that need a timed run (--time) whatever the lab binary says:
TIMED_METRICS = ("ratio", *roofs.COMPUTED)
HINT_KEYS = (
    "not_implemented",
    "edge",
    "timed_edge",  # a timed run wrong only at the far end, every correctness case right
    "wrong",
    "launch",
    "timeout",
    "crash",
    "static",
    "memcheck",
    "racecheck",
    "racecheck_raw",  # racecheck's race of that kind (its hazard report), else "racecheck"
    "racecheck_war",
    "racecheck_waw",
    "synccheck",
    "initcheck",
    "slow",
)
HIDDEN_FILE = "hidden.toml"  # instructor-only cases next to lab.toml
DEFAULT_REPS = 25  # performance.reps when lab.toml gives none
# performance.baseline_spread's largest value: a process left behind slowed a DRAM-bound
# baseline 2.23 times on the H200 (plausible.BUSY_RATIO); a spread allowed near that would let
# it pass (an exercise's own is proved by a left-behind fixture: design note 95)
MAX_BASELINE_SPREAD = 2.0
# Keys the lab binary's --list gives (bind): lab.toml must not say them again.
_FROM_LISTING = {
    "launchers": "the lab binary's --list gives the launchers (cml_exercise.launchers in the "
    "lab's harness.cu); remove the key",
    "kernel": "the lab binary's --list gives the kernel the static checks read "
    "(cml_exercise.kernel in the lab's harness.cu); remove the key",
}

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LAB_KEYS = (
    "id",
    "slug",
    "title",
    "student_files",
    "run_timeout_s",
    "case_timeout_s",
    "launch_timeout_s",
    "sanitizer_timeout_s",
    "allow_calls",
    "exercise",
    "report",
    "skeleton",
)
# What the skeleton (the student's starting code) is, for selfcheck: "stub" (the default:
# TODO stubs that fail every correctness case) or "naive" (a correct but slow starting point,
# lab 3.5: it must earn every correctness point and no performance point).
SKELETON_KINDS = ("stub", "naive")
_REPORT_KEYS = ("file", "template", "sections", "need_numbers", "points")
REPORT_PARTS = ("filled", "manual")
_EXERCISE_KEYS = (
    "name",
    "todo",
    "cases",
    "points",
    "static",
    "sanitizer",
    "performance",
    "hints",
    "lint",
    "arch_min",
    "arch_why",
)
# A GPU architecture as nvcc and the grader's --arch spell it: sm_80, sm_90, sm_90a.
_ARCH = re.compile(r"sm_(\d+)[a-z]?\Z")


@dataclass(frozen=True)
class StaticRules:
    require: tuple[str, ...] = ()  # opcode patterns (matched at the start of the opcode)
    forbid: tuple[str, ...] = ()
    max_stack_bytes: int | None = None
    require_text: tuple[str, ...] = ()  # regexes searched in the whole instruction text
    forbid_text: tuple[str, ...] = ()
    # What a text pattern means, in words, for the report: ((pattern, words), ...)
    means: tuple[tuple[str, str], ...] = ()
    # every kernel the launcher launches must hold the required instructions too, not only
    # keep the forbidden ones out (grader.launches.check): an exercise of one kernel, where a
    # second is a decoy's worker (lab 3.3); elsewhere a helper kernel (a fill, a last step)
    # is a correct design
    require_in_every_kernel: bool = False

    def words(self, pattern: str) -> str:
        """A text pattern as the report names it: its words from [static.means] with the
        pattern after them, else the quoted pattern."""
        text = dict(self.means).get(pattern)
        return f"{text} ('{pattern}')" if text else f"'{pattern}'"

    @property
    def patterns(self) -> tuple[str, ...]:
        """Every pattern, in the order hints are keyed ("static.<pattern>")."""
        return (*self.require, *self.forbid, *self.require_text, *self.forbid_text)


@dataclass(frozen=True)
class SanitizerSpec:
    tools: tuple[str, ...]
    cases: tuple[tuple[int, ...], ...]


def matching_gpu(keys, device: dict | None) -> str | None:
    """The longest of ``keys`` that is part of ``device``'s name (the judge's device facts),
    or None: the GPU whose own thresholds apply (``Criterion.on``, an alternative's
    ``loses_on``). A MIG slice's name ("NVIDIA H100 80GB HBM3 MIG 1g.10gb") has a fraction
    of the GPU's bandwidth, so it matches none."""
    name = str((device or {}).get("name") or "")
    if "MIG" in name.split():
        return None
    found = [k for k in keys if k and k in name]
    return max(found, key=len) if found else None


@dataclass(frozen=True)
class Criterion:
    """One scored figure of the performance run: a linear ramp from ``zero`` (no points)
    to ``full`` (its share of the points); higher is better. The thresholds are measured on
    the course's GPU (the H200); ``on`` gives another GPU's own, where the same code measures
    otherwise (design note 76): ((name, zero, full), ...), ``name`` a part of the device's
    name as the judge reports it (cudaDeviceProp.name, e.g. "H100 80GB HBM3")."""

    metric: str
    zero: float | None  # None in a run that is measured, not scored (scored = false)
    full: float | None
    on: tuple[tuple[str, float, float], ...] = ()
    gpu: str | None = None  # set by for_device: the GPU whose own thresholds these are

    def for_device(self, device: dict | None) -> Criterion:
        """The criterion with the thresholds of ``device`` (the judge's device facts, a
        ``name`` key): those of the longest ``on`` key that is part of the device's name
        ("H100 80GB HBM3" before "H100"), else this one. ``gpu`` of the result names the GPU
        they were measured on, or None."""
        thresholds = {gpu: (zero, full) for gpu, zero, full in self.on}
        gpu = matching_gpu(thresholds, device)
        if gpu is None:
            return self
        return Criterion(self.metric, *thresholds[gpu], gpu=gpu)


@dataclass(frozen=True)
class PerformanceSpec:
    size: tuple[int, ...]
    criteria: tuple[Criterion, ...]
    reps: int = 25
    timed: bool = True  # False: run without --time, score the run's (extra) metrics
    # False: zero/full are placeholders not yet measured on the course's GPU (a new lab):
    # the run is made and its figures reported, its points stay pending (UNCALIBRATED)
    calibrated: bool = True
    # False: the figures are evidence, never points (points.performance must be 0): an effect
    # measured on the course's GPU as smaller than its run-to-run spread (lab 3.2f, 3.2g);
    # the criteria name metrics only, no zero or full
    scored: bool = True
    # the roof the report's roofline measures a timed run against (grader.roofs.ROOFS:
    # "copy", the default, or "fp32" for a compute-bound kernel); None when untimed
    roof: str | None = roofs.DEFAULT
    # the factor by which the baseline's own median launch moves between runs of the same
    # code on an idle GPU, where that is wider than the rules' defaults (design note 95: lab
    # 3.2c's on-demand page faults, 0.66-1.50 times its time alone); None: the defaults.
    # plausible.disturbed and class_figures.strays then allow it for this exercise's baseline
    # (``busy_ratio``, ``stray_tolerance``)
    baseline_spread: float | None = None

    @property
    def busy_ratio(self) -> float:
        """How many times its time alone the baseline may take among the student's
        repetitions before the run is ``plausible.disturbed``."""
        return max(plausible.BUSY_RATIO, self.baseline_spread or 0.0)

    @property
    def stray_tolerance(self) -> float:
        """How far from the class's median this exercise's baseline may be before its run
        strays (``class_figures.strays``)."""
        return max(class_figures.TOLERANCE, self.baseline_spread or 0.0)

    @property
    def info_baseline(self) -> bool:
        """The baseline's time only informs: a timed run whose every criterion is the
        percentage of a roof not timed among the repetitions (roofs.COMPUTED: the device's
        FP32 peak, cuBLAS timed before them). The judge then times it in fewer repetitions
        (``--info-baseline``): still in the report and still compared with its time alone
        (plausible.disturbed). Not for the ratio over it, nor for % of copy: the copy is
        timed in every repetition, and a GPU kept busy between the student's launches slows
        it as it slows the baseline, whose times among the repetitions must show that."""
        return self.timed and all(k.metric in roofs.COMPUTED for k in self.criteria)


@dataclass(frozen=True)
class Lint:
    """A likely mistake visible in the source: ``pattern`` (a Python regex) searched in the
    student files outside comments; ``message`` says what to do instead; ``unless`` (a
    regex) found anywhere in them silences it (what the mistake leaves out: a
    ``__constant__`` array declared and no ``cudaMemcpyToSymbol``)."""

    pattern: str
    message: str
    unless: str | None = None


@dataclass(frozen=True)
class Exercise:
    name: str
    cases: tuple[tuple[int, ...], ...]
    points: dict[str, int]
    todo: str | None = None
    kernel: str | None = None  # from the lab binary's --list (bind): the kernel static reads
    static: StaticRules | None = None
    sanitizer: SanitizerSpec | None = None
    performance: PerformanceSpec | None = None
    hints: dict[str, str] = field(default_factory=dict)
    n_hidden: int = 0  # the last n_hidden of ``cases`` come from hidden.toml
    lint: tuple[Lint, ...] = ()
    # from the lab binary's --list (bind): the launchers the exercise calls, its baseline
    launchers: tuple[str, ...] = ()
    baseline: str | None = None
    # the oldest GPU architecture it can run on ("sm_90"; None: any the course builds for),
    # and why, in a few words ("Hopper: TMA and thread-block clusters")
    arch_min: str | None = None
    arch_why: str | None = None

    def is_hidden(self, index: int) -> bool:
        """Whether ``cases[index]`` is a hidden (instructor-only) case."""
        return index >= len(self.cases) - self.n_hidden

    @property
    def max_points(self) -> int:
        return sum(self.points.values())


@dataclass(frozen=True)
class ReportSpec:
    """``[report]``: a Markdown student file the student writes (lab 3.5's REPORT.md).

    ``filled`` points are the grader's, for a report that is filled in (grader.writeup);
    ``manual`` points are held for the instructor, who grades the report by hand: the
    grader never earns or loses them, it shows them as pending manual review."""

    file: str  # one of student_files
    template: str  # the pristine template: a file of the lab folder, not a student file
    sections: tuple[str, ...]  # Markdown headings, in the template's order
    need_numbers: tuple[str, ...]  # those of sections that must quote a number
    filled: int
    manual: int
    template_text: str = field(default="", repr=False, compare=False)


@dataclass(frozen=True)
class Lab:
    dir: Path  # the lab folder (labs/<id>-<slug>)
    path: Path  # its lab.toml
    id: str
    slug: str
    title: str
    student_files: tuple[str, ...]
    run_timeout_s: float
    sanitizer_timeout_s: float
    allow_calls: tuple[str, ...]
    exercises: tuple[Exercise, ...]
    # one correctness case; after a case of an exercise times out, the exercise's other
    # cases are not run (grade.py): a hanging kernel costs one timeout, not one per case
    case_timeout_s: float | None = None
    report: ReportSpec | None = None
    skeleton: str = "stub"  # SKELETON_KINDS
    # one launch of a correctness case, RUN to answer (None: the case's limit only)
    launch_timeout_s: float | None = None
    # Filled in from the lab binary's --list by ``bind`` (empty in a Lab only loaded):
    # every launcher the harness calls (the symbol check allows the student file to define
    # them), the minimum repetitions, and whether the Lab was bound at all.
    launchers: tuple[str, ...] = ()
    min_reps: int | None = None
    bound: bool = False

    @property
    def correctness_timeout_s(self) -> float:
        return self.case_timeout_s if self.case_timeout_s is not None else self.run_timeout_s

    @property
    def name(self) -> str:
        """The lab folder's name, e.g. "3.3-tiling"."""
        return self.dir.name

    @property
    def own_streams(self) -> bool:
        """Whether submissions may make CUDA streams of their own (``allow_calls`` names a
        ``cudaStreamCreate*``): their untimed runs then keep the driver's work queues
        (grader.run.child_env; docs/design-notes.md, note 48)."""
        return any(call.startswith("cudaStreamCreate") for call in self.allow_calls)

    @property
    def max_points(self) -> int:
        """The automatic points: the exercises' and a report's ``filled`` points."""
        filled = self.report.filled if self.report else 0
        return sum(e.max_points for e in self.exercises) + filled

    @property
    def manual_points(self) -> int:
        """The points the instructor gives by hand (a report's ``manual`` points)."""
        return self.report.manual if self.report else 0

    @property
    def required_files(self) -> tuple[str, ...]:
        """The student files without which nothing can be graded: all but the report,
        whose absence costs only its own points."""
        skip = self.report.file if self.report else None
        return tuple(n for n in self.student_files if n != skip)

    def exercise(self, name: str) -> Exercise:
        for e in self.exercises:
            if e.name == name:
                return e
        raise KeyError(name)


def display_path(path: Path | str) -> str:
    """``path`` relative to the working directory when it is below it, else absolute."""
    p = Path(path).absolute()
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return str(p)


class _Checker:
    """Type checks that raise GraderError with the file and the location in the message."""

    def __init__(self, path: Path):
        self.path = display_path(path)
        self.is_lab_toml = Path(path).name == "lab.toml"

    def fail(self, where: str, message: str) -> GraderError:
        prefix = f"{self.path}: {where}: " if where else f"{self.path}: "
        return GraderError(prefix + message)

    def keys(self, where: str, table: dict, known: tuple[str, ...], name: str = "") -> None:
        for key in table:
            if key not in known and not name and key in _FROM_LISTING and self.is_lab_toml:
                raise self.fail(where, f"'{key}' is not a key of lab.toml: {_FROM_LISTING[key]}")
            if key not in known:
                label = f"{name}.{key}" if name else key
                raise self.fail(where, f"unknown key '{label}' (known: {', '.join(known)})")

    def string(self, where: str, table: dict, key: str, label: str, required: bool = True):
        if key not in table:
            if required:
                raise self.fail(where, f"{label} is missing")
            return None
        value = table[key]
        if not isinstance(value, str) or not value:
            raise self.fail(where, f"{label} must be a non-empty string")
        return value

    def ident(self, where: str, table: dict, key: str, label: str, required: bool = True):
        value = self.string(where, table, key, label, required)
        if value is not None and not _IDENT.match(value):
            raise self.fail(where, f"{label} must be a C identifier, not '{value}'")
        return value

    def number(self, where: str, value, label: str, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(where, f"{label} must be a number")
        if not math.isfinite(value):  # TOML's nan and inf: no ramp or limit can use them
            raise self.fail(where, f"{label} must be a finite number, not {value}")
        if positive and not value > 0:
            raise self.fail(where, f"{label} must be greater than 0")
        return float(value)

    def count(self, where: str, value, label: str, minimum: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            kind = "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}"
            raise self.fail(where, f"{label} must be {kind}")
        return value

    def strings(self, where: str, value, label: str, idents: bool = False) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(where, f"{label} must be a list of non-empty strings")
        if idents:
            for v in value:
                if not _IDENT.match(v):
                    raise self.fail(where, f"{label}: '{v}' is not a C identifier")
        return tuple(value)

    def size(self, where: str, value, label: str) -> tuple[int, ...]:
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)
        ):
            raise self.fail(where, f"{label} must be a non-empty list of integers >= 1")
        return tuple(value)

    def sizes(self, where: str, value, label: str) -> tuple[tuple[int, ...], ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(where, f"{label} must be a non-empty list of sizes")
        cases = tuple(self.size(where, v, f"{label}[{i}]") for i, v in enumerate(value))
        return cases

    def table(self, where: str, value, label: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(where, f"{label} must be a table")
        return value


def _pattern(c: _Checker, where: str, pattern: str, label: str) -> None:
    if label in ("static.require", "static.forbid") and jobs.is_job(pattern):
        if pattern not in jobs.JOBS:
            raise c.fail(
                where,
                f"{label}: '{pattern}' is no job (jobs: {', '.join(jobs.JOBS)}; opcode "
                "patterns are upper case)",
            )
        return
    try:
        re.compile(rf"(?:{pattern})\b")
    except re.error as e:
        raise c.fail(where, f"{label}: '{pattern}' is not a valid regular expression ({e})")


def _student_file(c: _Checker, lab_dir: Path, name: str, must_exist: bool) -> None:
    if "/" in name or "\\" in name or name in (".", "..") or name.startswith("."):
        raise c.fail("", f"student_files: '{name}' must be a plain file name in the lab folder")
    if must_exist and not (lab_dir / name).is_file():
        raise c.fail(
            "",
            f"student_files: '{name}' is not in {display_path(lab_dir)} (restore it from the "
            "course's release; in the course's repository `python3 -m grader skeleton --write` "
            "generates it from solutions/)",
        )


def _criterion(c: _Checker, where: str, t: dict, label: str, scored: bool = True) -> Criterion:
    metric = t.get("metric")
    if metric != "ratio" and (not isinstance(metric, str) or not _IDENT.match(metric)):
        raise c.fail(
            where,
            f"{label}metric must be 'ratio' or a name of the run document's metrics "
            f"(e.g. pct_of_copy, gbps) or of the grader's ({', '.join(roofs.COMPUTED)}), "
            f"not {metric!r}",
        )
    if not scored:
        if "zero" in t or "full" in t or "on" in t:
            raise c.fail(
                where,
                f"{label}zero, full and on are not given in a run measured, not scored "
                "(performance.scored = false)",
            )
        return Criterion(metric, None, None)
    for key in ("zero", "full"):
        if key not in t:
            raise c.fail(where, f"{label}{key} is missing")
    zero = c.number(where, t["zero"], f"{label}zero")
    full = c.number(where, t["full"], f"{label}full")
    if full <= zero:
        raise c.fail(where, f"{label}full must be greater than {label}zero")
    on = []
    for gpu, raw in c.table(where, t.get("on", {}), f"{label}on").items():
        item = c.table(where, raw, f"{label}on.{gpu}")
        c.keys(where, item, ("zero", "full"), f"{label}on.{gpu}")
        if not gpu.strip() or any(k not in item for k in ("zero", "full")):
            raise c.fail(
                where,
                f"{label}on.{gpu!r} must name a GPU (part of its name, e.g. \"H100 80GB HBM3\") "
                "and give both zero and full",
            )
        z = c.number(where, item["zero"], f"{label}on.{gpu}.zero")
        f = c.number(where, item["full"], f"{label}on.{gpu}.full")
        if f <= z:
            raise c.fail(where, f"{label}on.{gpu}.full must be greater than its zero")
        on.append((gpu, z, f))
    return Criterion(metric, zero, full, tuple(on))


NOT_SCORED = "measured, not scored: lab.toml performance.scored = false"

UNCALIBRATED = (
    "the lab's thresholds are not calibrated on the course's GPU yet (lab.toml: "
    "calibrated = false): figures reported, points pending"
)


def _performance(c: _Checker, where: str, raw, n_dims: int) -> PerformanceSpec:
    """[exercise.performance]: one criterion (metric, zero, full) or a criteria list, and
    the roof of a timed run (grader.roofs)."""
    t = c.table(where, raw, "performance")
    single = ("metric", "zero", "full", "on")
    c.keys(
        where,
        t,
        (
            "size", "reps", "timed", "calibrated", "scored", "roof", "criteria",
            "baseline_spread", *single,
        ),
        "performance",
    )
    scored = t.get("scored", True)
    if not isinstance(scored, bool):
        raise c.fail(where, "performance.scored must be true or false")
    size = c.size(where, t.get("size"), "performance.size")
    if len(size) != n_dims:
        raise c.fail(where, f"performance.size has {len(size)} dimensions, cases have {n_dims}")
    if "criteria" in t:
        if any(k in t for k in single):
            raise c.fail(where, "performance: give either criteria or metric/zero/full, not both")
        raw_list = t["criteria"]
        if not isinstance(raw_list, list) or not raw_list:
            raise c.fail(where, "performance.criteria must be a non-empty list of tables")
        criteria = []
        for i, item in enumerate(raw_list):
            label = f"performance.criteria[{i}]"
            item = c.table(where, item, label)
            c.keys(where, item, single, label)
            criteria.append(_criterion(c, where, item, f"{label}.", scored))
        if len({k.metric for k in criteria}) != len(criteria):
            raise c.fail(where, "performance.criteria names a metric twice")
    else:
        criteria = [_criterion(c, where, t, "performance.", scored)]
    reps = c.count(where, t.get("reps", DEFAULT_REPS), "performance.reps", 1)
    timed = t.get("timed", True)
    if not isinstance(timed, bool):
        raise c.fail(where, "performance.timed must be true or false")
    for k in criteria:
        if not timed and k.metric in TIMED_METRICS:
            raise c.fail(
                where, f"performance: the metric '{k.metric}' needs a timed run (timed = true)"
            )
    calibrated = t.get("calibrated", True)
    if not isinstance(calibrated, bool):
        raise c.fail(where, "performance.calibrated must be true or false")
    if not scored and "calibrated" in t:
        raise c.fail(where, "performance: a run measured, not scored (scored = false) has no "
                     "thresholds to calibrate: leave calibrated out")
    roof = t.get("roof", roofs.DEFAULT)
    if not isinstance(roof, str) or roof not in roofs.ROOFS:
        raise c.fail(
            where, f"performance.roof must be one of {', '.join(roofs.NAMES)}, not {roof!r}"
        )
    if not timed:
        if "roof" in t:
            raise c.fail(
                where,
                "performance.roof needs a timed run (timed = true): an untimed run is "
                "measured against no roof",
            )
        roof = None
    spread = t.get("baseline_spread")
    if spread is not None:
        if not timed:
            raise c.fail(where, "performance.baseline_spread needs a timed run (timed = true): "
                         "an untimed run times no baseline")
        if isinstance(spread, bool) or not isinstance(spread, (int, float)) or not (
            plausible.BUSY_RATIO < spread <= MAX_BASELINE_SPREAD
        ):
            raise c.fail(
                where,
                f"performance.baseline_spread must be a number above {plausible.BUSY_RATIO} "
                "(the rules' own allowance, which it widens) and at most "
                f"{MAX_BASELINE_SPREAD} (the baseline's measured spread between runs), not "
                f"{spread!r}",
            )
        spread = float(spread)
    return PerformanceSpec(
        size, tuple(criteria), reps, timed, calibrated, roof=roof, scored=scored,
        baseline_spread=spread,
    )


def _exercise(c: _Checker, index: int, raw) -> Exercise:
    where = f"exercise #{index + 1}"
    raw = c.table(where, raw, "[[exercise]]")
    name = c.ident(where, raw, "name", "name")
    where = f"exercise '{name}'"
    c.keys(where, raw, _EXERCISE_KEYS)
    todo = c.string(where, raw, "todo", "todo", required=False)
    cases = c.sizes(where, raw.get("cases"), "cases")
    n_dims = len(cases[0])
    for i, case in enumerate(cases):
        if len(case) != n_dims:
            raise c.fail(where, f"cases[{i}] has {len(case)} dimensions, cases[0] has {n_dims}")

    points_raw = c.table(where, raw.get("points", {}), "points")
    c.keys(where, points_raw, PARTS, "points")
    points = {p: c.count(where, points_raw.get(p, 0), f"points.{p}") for p in PARTS}

    static = None
    if "static" in raw:
        t = c.table(where, raw["static"], "static")
        keys = ("require", "forbid", "require_text", "forbid_text")
        c.keys(where, t, (*keys, "max_stack_bytes", "means", "require_in_every_kernel"), "static")
        every = t.get("require_in_every_kernel", False)
        if not isinstance(every, bool):
            raise c.fail(where, "static.require_in_every_kernel must be true or false")
        lists = {k: c.strings(where, t.get(k, []), f"static.{k}") for k in keys}
        for key, patterns in lists.items():
            for p in patterns:
                _pattern(c, where, p, f"static.{key}")
        stack = t.get("max_stack_bytes")
        if stack is not None:
            stack = c.count(where, stack, "static.max_stack_bytes")
        means_raw = c.table(where, t.get("means", {}), "static.means")
        for p, text in means_raw.items():
            if p not in (*lists["require_text"], *lists["forbid_text"]):
                raise c.fail(where, f"static.means names {p!r}, which is no text pattern of it")
            if not isinstance(text, str) or not text.strip():
                raise c.fail(where, f"static.means[{p!r}] must be words (a non-empty string)")
        if not any(lists.values()) and stack is None:
            raise c.fail(
                where,
                "static has no rule (require, forbid, require_text, forbid_text or "
                "max_stack_bytes)",
            )
        static = StaticRules(
            lists["require"],
            lists["forbid"],
            stack,
            lists["require_text"],
            lists["forbid_text"],
            tuple(means_raw.items()),
            every,
        )

    sanitizer = None
    if "sanitizer" in raw:
        t = c.table(where, raw["sanitizer"], "sanitizer")
        c.keys(where, t, ("tools", "cases"), "sanitizer")
        tools = c.strings(where, t.get("tools"), "sanitizer.tools")
        if not tools:
            raise c.fail(where, "sanitizer.tools must not be empty")
        for tool in tools:
            if tool not in SANITIZER_TOOLS:
                raise c.fail(
                    where,
                    f"sanitizer.tools: '{tool}' is not one of {', '.join(SANITIZER_TOOLS)}",
                )
        if len(set(tools)) != len(tools):
            raise c.fail(where, "sanitizer.tools lists a tool twice")
        s_cases = c.sizes(where, t.get("cases"), "sanitizer.cases")
        for i, case in enumerate(s_cases):
            if len(case) != n_dims:
                raise c.fail(
                    where,
                    f"sanitizer.cases[{i}] has {len(case)} dimensions, cases have {n_dims}",
                )
        sanitizer = SanitizerSpec(tools, s_cases)

    performance = None
    if "performance" in raw:
        performance = _performance(c, where, raw["performance"], n_dims)

    for part, spec in (
        ("static", static),
        ("sanitizer", sanitizer),
        ("performance", performance),
    ):
        if points[part] > 0 and spec is None:
            raise c.fail(where, f"points.{part} is {points[part]} but there is no [{part}] table")
    if performance is not None and performance.scored and points["performance"] == 0:
        raise c.fail(
            where,
            "points.performance is 0 but the run is scored (zero and full): give it points, "
            "or measure and show it without points with performance.scored = false",
        )
    if performance is not None and not performance.scored and points["performance"] > 0:
        raise c.fail(
            where,
            f"points.performance is {points['performance']} but the run is measured, not "
            "scored (performance.scored = false): give it 0 points",
        )

    hints_raw = c.table(where, raw.get("hints", {}), "hints")
    # Besides HINT_KEYS, a hint per static pattern: "static.BAR" is shown when BAR is
    # required and missing, "static.LDL" when LDL is forbidden and found.
    patterns = static.patterns if static else ()
    c.keys(where, hints_raw, (*HINT_KEYS, *(f"static.{p}" for p in patterns)), "hints")
    hints = {}
    for key, value in hints_raw.items():
        if not isinstance(value, str) or not value.strip():
            raise c.fail(where, f"hints.{key} must be a non-empty string")
        hints[key] = value.strip()

    lint = []
    lint_raw = raw.get("lint", [])
    if not isinstance(lint_raw, list):
        raise c.fail(where, "lint must be a list of tables (pattern, message)")
    for i, item in enumerate(lint_raw):
        label = f"lint[{i}]"
        item = c.table(where, item, label)
        c.keys(where, item, ("pattern", "message", "unless"), label)
        pattern = c.string(where, item, "pattern", f"{label}.pattern")
        unless = c.string(where, item, "unless", f"{label}.unless", required=False)
        for key, regex in (("pattern", pattern), ("unless", unless)):
            try:
                re.compile(regex or "")
            except re.error as e:
                raise c.fail(
                    where, f"{label}.{key}: '{regex}' is not a valid regular expression ({e})"
                )
        message = c.string(where, item, "message", f"{label}.message")
        lint.append(Lint(pattern, message, unless))

    arch_min = c.string(where, raw, "arch_min", "arch_min", required=False)
    if arch_min is not None and not _ARCH.match(arch_min):
        raise c.fail(where, f"arch_min must be a GPU architecture like 'sm_90', not {arch_min!r}")
    arch_why = c.string(where, raw, "arch_why", "arch_why", required=False)
    if arch_why is not None and arch_min is None:
        raise c.fail(where, "arch_why says why the exercise needs arch_min, which is not set")

    return Exercise(
        name,
        cases,
        points,
        todo,
        None,
        static,
        sanitizer,
        performance,
        hints,
        lint=tuple(lint),
        arch_min=arch_min,
        arch_why=arch_why,
    )


def arch_number(arch: str) -> int:
    """The number of a GPU architecture: ``sm_90`` and ``sm_90a`` -> 90. Raises ValueError for
    a name that is not ``sm_<digits>[letter]``."""
    m = _ARCH.match(arch)
    if m is None:
        raise ValueError(f"{arch!r} is not a GPU architecture like sm_90")
    return int(m.group(1))


def arch_skip_reason(ex: Exercise, arch: str | None) -> str | None:
    """Why ``ex`` is not graded in a grade that builds for ``arch`` (its ``arch_min`` is a
    later architecture), e.g. "needs sm_90 (Hopper: TMA and thread-block clusters); this grade
    builds for sm_80"; None when it is graded (no arch_min, or no arch known: the Makefile's
    default is then the course's GPU)."""
    if ex.arch_min is None or arch is None or arch_number(arch) >= arch_number(ex.arch_min):
        return None
    why = f" ({ex.arch_why})" if ex.arch_why else ""
    return f"needs {ex.arch_min}{why}; this grade builds for {arch}"


def _report(c: _Checker, lab_dir: Path, raw, student_files: tuple[str, ...]) -> ReportSpec:
    """``[report]``: file (a student file), template (a pristine file of the lab folder),
    sections (headings of the template, in its order), need_numbers (some of sections),
    points = { filled = N, manual = M }."""
    t = c.table("", raw, "[report]")
    c.keys("", t, _REPORT_KEYS, "report")
    name = c.string("", t, "file", "report.file")
    if name not in student_files:
        raise c.fail(
            "",
            f"report.file: '{name}' is not one of student_files ({', '.join(student_files)}): "
            "the report must be a file taken from the submission",
        )
    template = c.string("", t, "template", "report.template")
    if template in student_files:
        raise c.fail(
            "",
            f"report.template: '{template}' is a student file; the template must be a pristine "
            f"copy (in a student's working copy {name} is the student's own)",
        )
    if "/" in template or "\\" in template or template.startswith("."):
        raise c.fail(
            "", f"report.template: '{template}' must be a plain file name in the lab folder"
        )
    path = lab_dir / template
    try:
        with open(path, "rb") as f:
            data = f.read(writeup.MAX_TEMPLATE_BYTES + 1)
    except OSError as e:
        raise c.fail("", f"report.template: cannot read {display_path(path)}: {e.strerror}")
    if len(data) > writeup.MAX_TEMPLATE_BYTES:
        raise c.fail("", f"report.template: {display_path(path)} is larger than 1 MiB")
    text, problem, note = writeup.decode(data, display_path(path))
    if text is None or note is not None:
        raise c.fail("", f"report.template: {problem or note}")

    if "sections" not in t:
        raise c.fail("", "report.sections is missing")
    sections = c.strings("", t["sections"], "report.sections")
    if not sections:
        raise c.fail("", "report.sections must not be empty")
    keys = []
    for i, heading in enumerate(sections):
        parsed = writeup.parse_heading(heading)
        if parsed is None or not parsed[2] or not parsed[1]:
            raise c.fail(
                "",
                f"report.sections[{i}]: '{heading}' is not a Markdown heading "
                "(e.g. '## 1. GPU and method')",
            )
        if parsed[1] in keys:
            raise c.fail("", f"report.sections[{i}]: '{heading}' is listed twice")
        keys.append(parsed[1])
    found = writeup.Document(text, set(keys)).locate(keys)
    for i, (heading, at) in enumerate(zip(sections, found)):
        if at == "missing":
            raise c.fail(
                "", f"report.sections[{i}]: '{heading}' is not a heading of {display_path(path)}"
            )
        if at == "out_of_order":
            raise c.fail(
                "",
                f"report.sections[{i}]: '{heading}' comes before the section listed before it "
                f"in {display_path(path)}: list the sections in the template's order",
            )
    need = c.strings("", t.get("need_numbers", []), "report.need_numbers")
    for i, heading in enumerate(need):
        if writeup.heading_key(heading) not in keys:
            raise c.fail("", f"report.need_numbers[{i}]: '{heading}' is not one of report.sections")

    if "points" not in t:
        raise c.fail("", "report.points is missing (e.g. points = { filled = 2, manual = 8 })")
    if not isinstance(t["points"], dict):
        raise c.fail("", "report.points must be a table: points = { filled = N, manual = M }")
    c.keys("", t["points"], REPORT_PARTS, "report.points")
    points = {p: c.count("", t["points"].get(p, 0), f"report.points.{p}") for p in REPORT_PARTS}
    if not any(points.values()):
        raise c.fail("", "report.points: give filled or manual points (both are 0)")
    return ReportSpec(
        name, template, sections, need, points["filled"], points["manual"], template_text=text
    )


def _read_toml(c: _Checker, path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise c.fail("", f"not valid TOML: {e}")
    except OSError as e:
        raise c.fail("", f"cannot read: {e.strerror}")


def _merge_hidden(path: Path, exercises: tuple[Exercise, ...]) -> tuple[Exercise, ...]:
    """``exercises`` with the cases of ``hidden.toml`` (``path``) appended."""
    c = _Checker(path)
    raw = _read_toml(c, path)
    c.keys("", raw, ("exercise",))
    ex_raw = raw.get("exercise", [])
    if not isinstance(ex_raw, list):
        raise c.fail("", "exercise must be an array of tables ([[exercise]])")
    by_name = {e.name: e for e in exercises}
    extra: dict[str, tuple[tuple[int, ...], ...]] = {}
    for index, item in enumerate(ex_raw):
        where = f"exercise #{index + 1}"
        item = c.table(where, item, "[[exercise]]")
        name = c.ident(where, item, "name", "name")
        where = f"exercise '{name}'"
        c.keys(where, item, ("name", "cases"))
        if name not in by_name:
            raise c.fail(where, f"lab.toml has no such exercise (it has: {', '.join(by_name)})")
        if name in extra:
            raise c.fail("", f"exercise '{name}' is defined twice")
        cases = c.sizes(where, item.get("cases"), "cases")
        n_dims = len(by_name[name].cases[0])
        for i, case in enumerate(cases):
            if len(case) != n_dims:
                raise c.fail(
                    where, f"cases[{i}] has {len(case)} dimensions, lab.toml's cases have {n_dims}"
                )
        extra[name] = cases
    return tuple(
        (
            replace(e, cases=e.cases + extra[e.name], n_hidden=len(extra[e.name]))
            if e.name in extra
            else e
        )
        for e in exercises
    )


def load(lab_dir: Path | str, student_files_exist: bool = True) -> Lab:
    """Reads and validates ``<lab_dir>/lab.toml`` and, when there is one, ``hidden.toml``
    (HIDDEN_FILE); raises GraderError on any violation. ``student_files_exist=False`` lets
    a student file be missing (``skeleton --write`` creates it)."""
    lab_dir = Path(lab_dir)
    path = lab_dir / "lab.toml"
    c = _Checker(path)
    if not path.is_file():
        raise GraderError(f"{display_path(path)}: no such file (is {lab_dir} a lab folder?)")
    raw = _read_toml(c, path)

    c.keys("", raw, _LAB_KEYS)
    lab_id = c.string("", raw, "id", "id")
    slug = c.string("", raw, "slug", "slug")
    title = c.string("", raw, "title", "title")
    if "student_files" not in raw:
        raise c.fail("", "student_files is missing")
    student_files = c.strings("", raw["student_files"], "student_files")
    if not student_files:
        raise c.fail("", "student_files must not be empty")
    for name in student_files:
        _student_file(c, lab_dir, name, student_files_exist)
    run_timeout = c.number("", raw.get("run_timeout_s", 60), "run_timeout_s", positive=True)
    san_timeout = c.number(
        "", raw.get("sanitizer_timeout_s", 300), "sanitizer_timeout_s", positive=True
    )
    case_timeout = raw.get("case_timeout_s")
    if case_timeout is not None:
        case_timeout = c.number("", case_timeout, "case_timeout_s", positive=True)
    launch_timeout = raw.get("launch_timeout_s")
    if launch_timeout is not None:
        launch_timeout = c.number("", launch_timeout, "launch_timeout_s", positive=True)
        case_limit = case_timeout if case_timeout is not None else run_timeout
        if launch_timeout > case_limit:
            raise c.fail(
                "",
                f"launch_timeout_s ({launch_timeout:g}) is longer than a correctness case's "
                f"limit ({case_limit:g} s), which also holds the launch: make it at most that",
            )
    allow_calls = c.strings("", raw.get("allow_calls", []), "allow_calls", idents=True)

    ex_raw = raw.get("exercise")
    if not isinstance(ex_raw, list) or not ex_raw:
        raise c.fail("", "there must be at least one [[exercise]]")
    exercises = tuple(_exercise(c, i, e) for i, e in enumerate(ex_raw))
    seen = set()
    for e in exercises:
        if e.name in seen:
            raise c.fail("", f"exercise '{e.name}' is defined twice")
        seen.add(e.name)
    if (lab_dir / HIDDEN_FILE).is_file():
        exercises = _merge_hidden(lab_dir / HIDDEN_FILE, exercises)
    report = _report(c, lab_dir, raw["report"], student_files) if "report" in raw else None
    skeleton = c.string("", raw, "skeleton", "skeleton") if "skeleton" in raw else "stub"
    if skeleton not in SKELETON_KINDS:
        raise c.fail("", f"skeleton must be one of {', '.join(SKELETON_KINDS)}, not '{skeleton}'")

    return Lab(
        lab_dir,
        path,
        lab_id,
        slug,
        title,
        student_files,
        run_timeout,
        san_timeout,
        allow_calls,
        exercises,
        case_timeout,
        report,
        skeleton,
        launch_timeout,
    )


def _listing_names(where: str, value, label: str) -> tuple[str, ...]:
    """A list of C names from a --list document (course code: a bad one is a course bug)."""
    if not isinstance(value, list) or not all(
        isinstance(v, str) and _IDENT.match(v) for v in value
    ):
        raise GraderError(f"the lab binary's --list: {where}{label} are not C names: {value!r}")
    return tuple(value)


def listing_launchers(listing: dict) -> tuple[str, ...]:
    """Every launcher the lab binary's ``--list`` names (its exercises' ``launchers``, in
    order, each once): the functions its harness calls in the student files, which the
    judge's stubs stand in for (grader.stubs) and the symbol check lets the student files
    define. Raises GraderError for a listing without exercises or with a name that is no C
    identifier (a course bug)."""
    items = listing.get("exercises") if isinstance(listing, dict) else None
    if not isinstance(items, list) or not items:
        raise GraderError("the lab binary's --list gives no exercises")
    names: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            raise GraderError(
                f"the lab binary's --list gives an exercise that is no object: {item!r}"
            )
        where = f"exercise {item.get('name')!r}: "
        for n in _listing_names(where, item.get("launchers", []), "launchers"):
            if n not in names:
                names.append(n)
    return tuple(names)


MAX_ELEMS = 2**31  # CML_MAX_ELEMS (common/cml_lab.h): every array has fewer elements


def _check_dim_max(
    c: "_Checker", where: str, e: Exercise, dims: list, dim_max, arrays=None
) -> None:
    """Every size lab.toml (and hidden.toml) gives the exercise — correctness, sanitizer and
    performance cases — within the harness's bound on each dimension (``dim_max`` of the
    listing: an integer, or null for none) and with fewer than 2^31 elements in each of its
    ``arrays`` (products of dimensions, "M*K"), so a case the harness would refuse fails
    ``make test``, not a student's grade."""
    if not isinstance(dim_max, list) or len(dim_max) != len(dims):
        return  # a listing without bounds (an older lab binary): the harness still checks
    shapes = []
    for array in arrays if isinstance(arrays, list) else []:
        factors = str(array).split("*")
        if not all(f in dims for f in factors):
            raise c.fail(where, f"the lab binary's --list gives an array {array!r} of no dims")
        shapes.append((array, [dims.index(f) for f in factors]))
    sizes = [("case", s) for s in e.cases]
    if e.sanitizer is not None:
        sizes += [("sanitizer case", s) for s in e.sanitizer.cases]
    if e.performance is not None:
        sizes.append(("performance size", e.performance.size))
    for label, size in sizes:
        for name, value, bound in zip(dims, size, dim_max):
            if isinstance(bound, int) and not isinstance(bound, bool) and value > bound:
                shown = "a hidden case" if label == "case" and tuple(size) in _hidden(e) else (
                    f"{label} {','.join(map(str, size))}"
                )
                raise c.fail(
                    where, f"{shown}: {name} = {value} is over the harness's bound {bound} (lab.h)"
                )
        for array, index in shapes:
            elems = 1
            for i in index:
                elems *= size[i]
            if elems >= MAX_ELEMS:
                raise c.fail(
                    where, f"{label} {','.join(map(str, size))}: {array} = {elems} elements, "
                    "2^31 or more (lab.h: every array has fewer)"
                )


def _hidden(e: Exercise) -> set[tuple[int, ...]]:
    return {tuple(s) for i, s in enumerate(e.cases) if e.is_hidden(i)}


def bind(lab: Lab, listing: dict) -> Lab:
    """lab.toml checked against the lab binary's ``--list`` document (docs/protocol.md,
    "Harness"), and completed with what only the binary says: each exercise's launchers,
    kernel and baseline, every launcher of the lab, the minimum repetitions.

    Every exercise of lab.toml must exist in the harness, with as many dimensions as its
    cases have; an exercise with static rules needs the binary's kernel, a ``ratio`` or
    ``pct_of_fp32`` criterion its baseline (TIMED_METRICS: the harness times only an
    exercise with one); ``performance.reps`` is at least the harness's ``min_reps``
    (CML_MIN_REPS, common/cml_options.h); an untimed performance run (``timed = false``)
    cannot score one of the driver's metrics (``metrics`` of the listing: they need
    ``--time``). Raises GraderError naming lab.toml and the exercise."""
    c = _Checker(lab.path)
    if not isinstance(listing, dict):
        raise c.fail("", "the lab binary's --list is not a JSON object")
    if listing.get("lab") != lab.id:
        raise c.fail(
            "",
            f"id is {lab.id!r} but the lab binary says {listing.get('lab')!r} "
            "(cml_lab_main's lab id in harness.cu)",
        )
    launchers = listing_launchers(listing)
    min_reps = listing.get("min_reps")
    if isinstance(min_reps, bool) or not isinstance(min_reps, int) or min_reps < 1:
        raise c.fail("", f"the lab binary's --list gives no min_reps (it says {min_reps!r})")
    driver_metrics = _listing_names("", listing.get("metrics", []), "metrics")
    entries = {e["name"]: e for e in listing["exercises"] if isinstance(e.get("name"), str)}
    bound = []
    for e in lab.exercises:
        where = f"exercise '{e.name}'"
        if e.name not in entries:
            known = ", ".join(sorted(entries)) or "none"
            raise c.fail(where, f"the lab binary has no such exercise (it has: {known})")
        entry = entries[e.name]
        dims = entry.get("dims")
        if not isinstance(dims, list):
            raise c.fail(where, "the lab binary's --list gives no dims for it")
        if len(e.cases[0]) != len(dims):
            raise c.fail(
                where,
                f"cases have {len(e.cases[0])} dimensions but the harness takes "
                f"{len(dims)} ({','.join(map(str, dims))})",
            )
        _check_dim_max(c, where, e, dims, entry.get("dim_max"), entry.get("arrays"))
        own = _listing_names(f"{where}: ", entry.get("launchers", []), "launchers")
        if not own:
            raise c.fail(
                where, "the lab binary names no launcher for it (cml_exercise.launchers)"
            )
        kernel = entry.get("kernel")
        if kernel is not None and (not isinstance(kernel, str) or not _IDENT.match(kernel)):
            raise c.fail(
                where, f"the lab binary's --list gives a kernel that is no C name: {kernel!r}"
            )
        if e.static is not None and kernel is None:
            raise c.fail(
                where,
                "static rules need the kernel whose SASS they read, and the lab binary names "
                "none (cml_exercise.kernel in harness.cu)",
            )
        baseline = entry.get("baseline")
        baseline = baseline if isinstance(baseline, str) and baseline else None
        perf = e.performance
        if perf is not None and perf.reps < min_reps:
            raise c.fail(
                where,
                f"performance.reps is {perf.reps}, below the harness's minimum of {min_reps} "
                "(CML_MIN_REPS)",
            )
        for crit in perf.criteria if perf is not None else ():
            if crit.metric in TIMED_METRICS and baseline is None:
                raise c.fail(
                    where,
                    f"performance: the metric '{crit.metric}' needs a baseline (the harness "
                    "times only an exercise with one), and the lab binary has none for this "
                    "exercise",
                )
            if not perf.timed and crit.metric in driver_metrics:
                raise c.fail(
                    where,
                    f"performance: the driver's metric '{crit.metric}' needs a timed run "
                    "(timed = true)",
                )
        bound.append(replace(e, kernel=kernel, launchers=own, baseline=baseline))
    return replace(
        lab, exercises=tuple(bound), launchers=launchers, min_reps=min_reps, bound=True
    )

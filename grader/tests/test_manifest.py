"""lab.toml parsing: a valid manifest, and one precise message per kind of mistake."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from grader import class_figures, course, manifest, plausible
from grader import roofs as roofs_module
from grader.errors import GraderError
from helpers import FAKELAB, REPO, real_labs

BASE = (FAKELAB / "labs" / "9.1-fake" / "lab.toml").read_text()


def make_lab(tmp_path: Path, text: str) -> Path:
    lab = tmp_path / "labs" / "9.1-fake"
    lab.mkdir(parents=True)
    (lab / "lab.toml").write_text(text)
    (lab / "kernels.cu").write_text("// skeleton\n")
    return lab


def test_valid_manifest(tmp_path):
    lab = manifest.load(make_lab(tmp_path, BASE))
    assert (lab.id, lab.slug, lab.title) == ("9.1", "fake", "Fake lab")
    assert lab.student_files == ("kernels.cu",)
    assert lab.run_timeout_s == 5 and lab.sanitizer_timeout_s == 10
    # what the lab binary says (bind) is not known yet
    assert lab.launchers == () and not lab.bound and lab.exercises[0].kernel is None
    scale, offset = lab.exercises
    assert scale.cases[2] == (33, 65)
    assert scale.points == {"correctness": 6, "static": 2, "sanitizer": 2, "performance": 4}
    assert scale.static.require == ("LDS", "STS", "BAR")
    assert scale.static.max_stack_bytes == 0
    assert scale.sanitizer.tools == ("memcheck", "racecheck")
    (crit,) = scale.performance.criteria
    assert crit.metric == "ratio" and crit.full == 2.0 and scale.performance.timed
    assert scale.hints["edge"] == "FAKE-EDGE-HINT"
    # defaults: a missing part has 0 points, no tables
    assert offset.points == {"correctness": 3, "static": 0, "sanitizer": 0, "performance": 0}
    assert offset.static is None and offset.sanitizer is None and offset.performance is None
    assert lab.max_points == 14 + 3


def test_baseline_spread(tmp_path):
    """An exercise whose baseline moves more between runs (design note 95) widens the
    disturbed and stray rules for it alone; the others keep the defaults."""
    text = BASE.replace("full = 2.0", "full = 2.0\nbaseline_spread = 1.8")
    lab = manifest.load(make_lab(tmp_path, text))
    perf = lab.exercises[0].performance
    assert perf.baseline_spread == 1.8
    assert perf.busy_ratio == 1.8 and perf.stray_tolerance == 1.8
    plain = manifest.load(make_lab(tmp_path / "plain", BASE)).exercises[0].performance
    assert plain.baseline_spread is None
    assert plain.busy_ratio == plausible.BUSY_RATIO
    assert plain.stray_tolerance == class_figures.TOLERANCE


def test_defaults(tmp_path):
    text = BASE.replace("run_timeout_s = 5\n", "").replace("sanitizer_timeout_s = 10\n", "")
    text = text.replace("reps = 20\n", "")
    lab = manifest.load(make_lab(tmp_path, text))
    assert lab.run_timeout_s == 60 and lab.sanitizer_timeout_s == 300
    assert lab.exercises[0].performance.reps == 25
    assert lab.launch_timeout_s is None  # a launch has its case's limit only


def test_launch_timeout(tmp_path):
    text = BASE.replace("run_timeout_s = 5\n", "run_timeout_s = 5\nlaunch_timeout_s = 2\n")
    assert manifest.load(make_lab(tmp_path, text)).launch_timeout_s == 2.0


def test_skeleton_kind(tmp_path):
    assert manifest.load(make_lab(tmp_path / "a", BASE)).skeleton == "stub"
    text = BASE.replace('slug = "fake"', 'slug = "fake"\nskeleton = "naive"')
    assert manifest.load(make_lab(tmp_path / "b", text)).skeleton == "naive"
    bad = BASE.replace('slug = "fake"', 'slug = "fake"\nskeleton = "fast"')
    with pytest.raises(GraderError, match="skeleton must be one of stub, naive, not 'fast'"):
        manifest.load(make_lab(tmp_path / "c", bad))


def test_arch_min(tmp_path):
    """[[exercise]] arch_min: the oldest GPU architecture the exercise runs on (lab 3.2g:
    sm_90), with arch_why the words of why; a grade for an older architecture skips it with
    a reason naming both (arch_skip_reason), one for the same or a later one grades it."""
    old = 'todo = "9.1b"\n'
    text = BASE.replace(old, old + 'arch_min = "sm_90"\narch_why = "Hopper: clusters"\n')
    offset = manifest.load(make_lab(tmp_path / "a", text)).exercises[1]
    assert (offset.arch_min, offset.arch_why) == ("sm_90", "Hopper: clusters")
    assert manifest.arch_skip_reason(offset, "sm_80") == (
        "needs sm_90 (Hopper: clusters); this grade builds for sm_80"
    )
    for arch in ("sm_90", "sm_90a", "sm_100", None):  # None: the Makefile's default GPU
        assert manifest.arch_skip_reason(offset, arch) is None
    scale = manifest.load(make_lab(tmp_path / "a2", text)).exercises[0]
    assert scale.arch_min is None and manifest.arch_skip_reason(scale, "sm_80") is None
    bare = BASE.replace(old, old + 'arch_min = "sm_90"\n')
    offset = manifest.load(make_lab(tmp_path / "b", bare)).exercises[1]
    assert manifest.arch_skip_reason(offset, "sm_86") == "needs sm_90; this grade builds for sm_86"
    assert manifest.arch_number("sm_90a") == 90 and manifest.arch_number("sm_100") == 100
    with pytest.raises(ValueError, match="'90' is not a GPU architecture"):
        manifest.arch_number("90")
    for value, message in (
        ('"90"', "arch_min must be a GPU architecture like 'sm_90', not '90'"),
        ('"compute_90"', "arch_min must be a GPU architecture like 'sm_90', not 'compute_90'"),
    ):
        bad = BASE.replace(old, old + f"arch_min = {value}\n")
        with pytest.raises(GraderError, match=f"exercise 'offset': {message}"):
            manifest.load(make_lab(tmp_path / value.strip('"'), bad))
    why_alone = BASE.replace(old, old + 'arch_why = "Hopper"\n')
    with pytest.raises(GraderError, match="arch_why says why the exercise needs arch_min"):
        manifest.load(make_lab(tmp_path / "c", why_alone))


def test_performance_roof(tmp_path):
    """[exercise.performance] roof: "copy" when absent (the bandwidth roof), "fp32" or
    "cublas" for a compute-bound kernel, kept on the exercise's PerformanceSpec; an untimed run
    has none."""
    assert manifest.load(make_lab(tmp_path / "a", BASE)).exercises[0].performance.roof == "copy"
    for roof in ("copy", "fp32", "cublas"):
        text = BASE.replace("size = [128, 128]", f'size = [128, 128]\nroof = "{roof}"')
        perf = manifest.load(make_lab(tmp_path / roof, text)).exercises[0].performance
        assert perf.roof == roof and perf.timed
    untimed = BASE.replace('metric = "ratio"', 'metric = "l1_cycles"').replace(
        "full = 2.0", "full = 2.0\ntimed = false"
    )
    assert manifest.load(make_lab(tmp_path / "u", untimed)).exercises[0].performance.roof is None


def test_pct_of_fp32_is_a_criterion_metric(tmp_path):
    text = BASE.replace("size = [128, 128]", 'size = [128, 128]\nroof = "fp32"').replace(
        'metric = "ratio"', 'metric = "pct_of_fp32"'
    )
    lab = manifest.load(make_lab(tmp_path, text))
    (crit,) = lab.exercises[0].performance.criteria
    assert (crit.metric, crit.zero, crit.full) == ("pct_of_fp32", 1.0, 2.0)
    # the harness times only an exercise with a baseline: without one it would never score
    with pytest.raises(GraderError, match="the metric 'pct_of_fp32' needs a baseline"):
        manifest.bind(lab, _listing(scale={"baseline": None}))
    assert manifest.bind(lab, _listing()).exercises[0].performance.roof == "fp32"


def test_pct_of_cublas_is_a_criterion_metric(tmp_path):
    """roof = "cublas": pct_of_cublas is the grader's (roofs.COMPUTED), 100 * the judge's
    gflops / its cublas_gflops (an extra metric of the same document), and needs a baseline,
    since only a timed run gives gflops."""
    text = BASE.replace("size = [128, 128]", 'size = [128, 128]\nroof = "cublas"').replace(
        'metric = "ratio"', 'metric = "pct_of_cublas"'
    )
    lab = manifest.load(make_lab(tmp_path, text))
    (crit,) = lab.exercises[0].performance.criteria
    assert crit.metric == "pct_of_cublas" and "pct_of_cublas" in manifest.TIMED_METRICS
    with pytest.raises(GraderError, match="the metric 'pct_of_cublas' needs a baseline"):
        manifest.bind(lab, _listing(scale={"baseline": None}))
    assert manifest.bind(lab, _listing()).exercises[0].performance.roof == "cublas"
    doc = {"metrics": {"gflops": 35000.0, "cublas_gflops": 50000.0}}
    assert roofs_module.computed_metric(doc, "pct_of_cublas") == pytest.approx(70.0)
    untimed = {"metrics": {"cublas_gflops": 50000.0}}
    assert roofs_module.computed_metric(untimed, "pct_of_cublas") is None
    assert "not timed" in roofs_module.why_missing(untimed, "pct_of_cublas")
    no_roof = {"metrics": {"gflops": 35000.0}, "metrics_note": "cuBLAS did not start"}
    assert roofs_module.computed_metric(no_roof, "pct_of_cublas") is None
    assert "no cublas_gflops" in roofs_module.why_missing(no_roof, "pct_of_cublas")
    assert "cuBLAS did not start" in roofs_module.why_missing(no_roof, "pct_of_cublas")


def test_lab_3_3_names_its_roofs():
    lab = manifest.load(REPO / "labs" / "3.3-tiling")
    roofs = {e.name: e.performance.roof for e in lab.exercises}
    assert roofs == {
        "matmul_tiled": "fp32",
        "transpose_tiled": "copy",
        "conv2d_tiled": "copy",
        "sgemm": "cublas",
    }


def test_a_baseline_informs_where_every_criterion_is_a_computed_roof():
    """PerformanceSpec.info_baseline (the judge's --info-baseline): lab 3.3's SGEMM (% of
    cuBLAS, timed before the repetitions) only informs with its baseline; transpose (% of
    copy: the baseline shows a disturbed copy), matmul and conv2d (the ratio) do not; a speed
    measured and shown, not scored, shows its ratio in full (3.4a); an untimed run has no
    baseline to time (3.1b)."""
    info = {
        e.name: e.performance.info_baseline
        for lab in ("3.3-tiling", "3.4-constant-texture", "3.1-registers")
        for e in manifest.load(REPO / "labs" / lab).exercises
        if e.performance is not None
    }
    assert {k for k, v in info.items() if v} == {"sgemm"}
    assert info["stencil_constant"] is False and info["latency_ladder"] is False


INVALID = [
    (
        "unknown roof",
        BASE.replace("size = [128, 128]", 'size = [128, 128]\nroof = "tensor"'),
        "exercise 'scale': performance.roof must be one of copy, fp32, cublas, not 'tensor'",
    ),
    (
        "roof not a string",
        BASE.replace("size = [128, 128]", "size = [128, 128]\nroof = 1"),
        "performance.roof must be one of copy, fp32, cublas, not 1",
    ),
    (
        "roof of an untimed run",
        BASE.replace("size = [128, 128]", 'size = [128, 128]\nroof = "copy"')
        .replace('metric = "ratio"', 'metric = "l1_cycles"')
        .replace("full = 2.0", "full = 2.0\ntimed = false"),
        "performance.roof needs a timed run (timed = true)",
    ),
    (
        "untimed pct_of_fp32",
        BASE.replace('metric = "ratio"', 'metric = "pct_of_fp32"').replace(
            "full = 2.0", "full = 2.0\ntimed = false"
        ),
        "performance: the metric 'pct_of_fp32' needs a timed run (timed = true)",
    ),
    ("not toml", BASE + "\n[[[", "not valid TOML"),
    (
        "unknown top key",
        BASE.replace('slug = "fake"', 'slug = "fake"\ncolour = 1'),
        "unknown key 'colour'",
    ),
    ("missing id", BASE.replace('id = "9.1"\n', ""), "id is missing"),
    ("id not a string", BASE.replace('id = "9.1"', "id = 9"), "id must be a non-empty string"),
    (
        "student file with a path",
        BASE.replace('["kernels.cu"]', '["../kernels.cu"]'),
        "'../kernels.cu' must be a plain file name",
    ),
    ("student file absent", BASE.replace('["kernels.cu"]', '["other.cu"]'), "'other.cu' is not in"),
    ("no student files", BASE.replace('["kernels.cu"]', "[]"), "student_files must not be empty"),
    (
        "bad timeout",
        BASE.replace("run_timeout_s = 5", "run_timeout_s = 0"),
        "run_timeout_s must be greater than 0",
    ),
    (
        "launch limit over the case's",
        BASE.replace("run_timeout_s = 5", "run_timeout_s = 5\nlaunch_timeout_s = 6"),
        "launch_timeout_s (6) is longer than a correctness case's limit (5 s)",
    ),
    (
        "launch limit over case_timeout_s",
        BASE.replace(
            "run_timeout_s = 5", "run_timeout_s = 5\ncase_timeout_s = 3\nlaunch_timeout_s = 4"
        ),
        "launch_timeout_s (4) is longer than a correctness case's limit (3 s)",
    ),
    (
        "launch limit of 0",
        BASE.replace("run_timeout_s = 5", "run_timeout_s = 5\nlaunch_timeout_s = 0"),
        "launch_timeout_s must be greater than 0",
    ),
    (
        "launchers in lab.toml",
        BASE.replace('allow_calls = []', 'launchers = ["scale", "offset"]\nallow_calls = []'),
        "'launchers' is not a key of lab.toml: the lab binary's --list gives the launchers "
        "(cml_exercise.launchers in the lab's harness.cu); remove the key",
    ),
    (
        "kernel in lab.toml",
        BASE.replace('todo = "9.1a"', 'todo = "9.1a"\nkernel = "scale_kernel"'),
        "exercise 'scale': 'kernel' is not a key of lab.toml: the lab binary's --list gives "
        "the kernel",
    ),
    ("no exercises", BASE[: BASE.index("[[exercise]]")], "at least one [[exercise]]"),
    (
        "unknown exercise key",
        BASE.replace('todo = "9.1a"', 'todo = "9.1a"\ntimeout = 3'),
        "exercise 'scale': unknown key 'timeout'",
    ),
    (
        "negative points",
        BASE.replace("static = 2,", "static = -2,"),
        "exercise 'scale': points.static must be a non-negative integer",
    ),
    (
        "fractional points",
        BASE.replace("correctness = 6,", "correctness = 6.5,"),
        "exercise 'scale': points.correctness must be a non-negative integer",
    ),
    (
        "unknown part",
        BASE.replace("performance = 4 }", "performance = 4, style = 1 }"),
        "unknown key 'points.style'",
    ),
    (
        "case dims differ",
        BASE.replace("[[1, 1], [32, 32]", "[[1, 1], [32, 32, 1]"),
        "exercise 'scale': cases[1] has 3 dimensions, cases[0] has 2",
    ),
    (
        "zero size",
        BASE.replace("[[1, 1], [32, 32]", "[[0, 1], [32, 32]"),
        "cases[0] must be a non-empty list of integers >= 1",
    ),
    (
        "no cases",
        BASE.replace("cases = [[1], [100], [1000]]", "cases = []"),
        "exercise 'offset': cases must be a non-empty list",
    ),
    (
        "bad metric",
        BASE.replace('metric = "ratio"', 'metric = "1.5x"'),
        "exercise 'scale': performance.metric must be 'ratio' or a name of the run "
        "document's metrics",
    ),
    (
        "full below zero",
        BASE.replace("full = 2.0", "full = 0.5"),
        "performance.full must be greater than performance.zero",
    ),
    (
        "not scored with points",
        BASE.replace("zero = 1.0\nfull = 2.0", "scored = false"),
        "points.performance is 4 but the run is measured, not scored (performance.scored = "
        "false): give it 0 points",
    ),
    (
        "scored without points",
        BASE.replace("performance = 4 }", "performance = 0 }"),
        "points.performance is 0 but the run is scored (zero and full)",
    ),
    (
        "not scored with thresholds",
        BASE.replace("full = 2.0", "full = 2.0\nscored = false"),
        "performance.zero, full and on are not given in a run measured, not scored",
    ),
    (
        "a GPU's thresholds reversed",
        BASE.replace("full = 2.0", 'full = 2.0\non = { "H100" = { zero = 2.0, full = 1.0 } }'),
        "performance.on.H100.full must be greater than its zero",
    ),
    (
        "a GPU's thresholds not finite",
        BASE.replace("full = 2.0", 'full = 2.0\non = { "H100" = { zero = nan, full = 1.0 } }'),
        "performance.on.H100.zero must be a finite number, not nan",
    ),
    (
        "full not finite",
        BASE.replace("full = 2.0", "full = inf"),
        "performance.full must be a finite number, not inf",
    ),
    (
        "a GPU's thresholds half given",
        BASE.replace("full = 2.0", 'full = 2.0\non = { "H100" = { zero = 2.0 } }'),
        "performance.on.'H100' must name a GPU (part of its name",
    ),
    (
        "a GPU's thresholds with another key",
        BASE.replace(
            "full = 2.0", 'full = 2.0\non = { "H100" = { zero = 1, full = 2, reps = 3 } }'
        ),
        "unknown key 'performance.on.H100.reps'",
    ),
    (
        "a GPU's thresholds named by nothing",
        BASE.replace("full = 2.0", 'full = 2.0\non = { " " = { zero = 1, full = 2 } }'),
        "must name a GPU",
    ),
    (
        "not scored and uncalibrated",
        BASE.replace("zero = 1.0\nfull = 2.0", "scored = false\ncalibrated = false"),
        "has no thresholds to calibrate: leave calibrated out",
    ),
    (
        "baseline spread within the default",
        BASE.replace("full = 2.0", "full = 2.0\nbaseline_spread = 1.5"),
        "performance.baseline_spread must be a number above 1.5 (the rules' own allowance, "
        "which it widens) and at most 2.0",
    ),
    (
        "baseline spread wider than a process left behind",
        BASE.replace("full = 2.0", "full = 2.0\nbaseline_spread = 2.3"),
        "and at most 2.0 (the baseline's measured spread between runs), not 2.3",
    ),
    (
        "baseline spread not a number",
        BASE.replace("full = 2.0", 'full = 2.0\nbaseline_spread = "wide"'),
        "not 'wide'",
    ),
    (
        "baseline spread untimed",
        BASE.replace('metric = "ratio"\n', 'metric = "gbps"\n')
        .replace("full = 2.0", "full = 2.0\ntimed = false\nbaseline_spread = 1.8"),
        "performance.baseline_spread needs a timed run (timed = true)",
    ),
    (
        "scored not a bool",
        BASE.replace("full = 2.0", "full = 2.0\nscored = 1"),
        "performance.scored must be true or false",
    ),
    (
        "criteria and metric",
        BASE.replace(
            "full = 2.0", "full = 2.0\ncriteria = [{metric = 'gbps', zero = 1, full = 2}]"
        ),
        "performance: give either criteria or metric/zero/full, not both",
    ),
    (
        "untimed ratio",
        BASE.replace("full = 2.0", "full = 2.0\ntimed = false"),
        "performance: the metric 'ratio' needs a timed run (timed = true)",
    ),
    (
        "criterion key",
        BASE.replace('metric = "ratio"\n', "")
        .replace("zero = 1.0", "criteria = [{metric = 'gbps', zero = 1, full = 2, weight = 3}]")
        .replace("full = 2.0\n", ""),
        "unknown key 'performance.criteria[0].weight' (known: metric, zero, full, on)",
    ),
    (
        "bad text pattern",
        BASE.replace('require = ["LDS", "STS", "BAR"]', "require_text = ['c[0x3']"),
        "static.require_text: 'c[0x3' is not a valid regular expression",
    ),
    (
        "words for no text pattern",
        BASE.replace(
            'require = ["LDS", "STS", "BAR"]',
            "require_text = ['LDS']\nmeans = { 'STS' = 'a shared store' }",
        ),
        "static.means names 'STS', which is no text pattern of it",
    ),
    (
        "no reps",
        BASE.replace("reps = 20", "reps = 0"),
        "performance.reps must be an integer >= 1",
    ),
    (
        "perf size dims",
        BASE.replace("size = [128, 128]", "size = [128]"),
        "performance.size has 1 dimensions, cases have 2",
    ),
    (
        "bad sanitizer tool",
        BASE.replace('["memcheck", "racecheck"]', '["memcheck", "leakcheck"]'),
        "sanitizer.tools: 'leakcheck' is not one of memcheck, racecheck, synccheck, initcheck",
    ),
    (
        "sanitizer case dims",
        BASE.replace("cases = [[33, 65]]", "cases = [[33]]"),
        "sanitizer.cases[0] has 1 dimensions, cases have 2",
    ),
    (
        "unknown job",
        BASE.replace('require = ["LDS", "STS", "BAR"]', 'require = ["shared_stor"]'),
        "static.require: 'shared_stor' is no job (jobs: shared_store, shared_load, barrier",
    ),
    (
        "bad regex",
        BASE.replace('forbid = ["LDL", "STL"]', 'forbid = ["LD(L"]'),
        "static.forbid: 'LD(L' is not a valid regular expression",
    ),
    (
        "misspelt static key",
        BASE.replace('forbid = ["LDL", "STL"]', 'forbidd = ["LDL"]'),
        "unknown key 'static.forbidd'",
    ),
    (
        "points without table",
        BASE.replace(
            "points = { correctness = 3 }", "points = { correctness = 3, performance = 2 }"
        ),
        "exercise 'offset': points.performance is 2 but there is no [performance] table",
    ),
    (
        "unknown hint",
        BASE.replace('edge = "FAKE-EDGE-HINT"', 'egde = "x"'),
        "unknown key 'hints.egde'",
    ),
    (
        "duplicate exercise",
        BASE.replace('name = "offset"', 'name = "scale"'),
        "exercise 'scale' is defined twice",
    ),
]


@pytest.mark.parametrize("label,text,message", INVALID, ids=[c[0] for c in INVALID])
def test_invalid_manifest(tmp_path, label, text, message):
    assert text != BASE, f"the mutation '{label}' did not change the manifest"
    with pytest.raises(GraderError) as e:
        manifest.load(make_lab(tmp_path, text))
    assert message in str(e.value)
    assert "lab.toml" in str(e.value)  # the message names the file


def test_missing_manifest(tmp_path):
    with pytest.raises(GraderError, match="lab.toml: no such file"):
        manifest.load(tmp_path)


LISTING = {
    "schema": 1,
    "lab": "9.1",
    "min_reps": 20,
    "metrics": ["bytes", "flops", "gbps", "gflops", "baseline_gbps", "copy_gbps", "pct_of_copy"],
    "exercises": [
        {"name": "scale", "dims": ["rows", "cols"], "baseline": "scale_naive",
         "launchers": ["scale"], "kernel": "scale_kernel"},
        {"name": "offset", "dims": ["n"], "baseline": None, "launchers": ["offset", "scale"],
         "kernel": None},
        {"name": "unused", "dims": ["n"], "baseline": None, "launchers": ["extra"],
         "kernel": None},
    ],
}


def _listing(**changes):
    import copy

    listing = copy.deepcopy(LISTING)
    for name, entry in changes.items():
        (item,) = [e for e in listing["exercises"] if e["name"] == name]
        item.update(entry)
    return listing


def test_bind_fills_in_what_the_binary_says(tmp_path):
    lab = manifest.load(make_lab(tmp_path, BASE))
    bound = manifest.bind(lab, _listing())
    assert bound.bound and bound.min_reps == 20
    # every launcher of the harness, each once, in order (an exercise lab.toml leaves out too)
    assert bound.launchers == ("scale", "offset", "extra")
    scale, offset = bound.exercises
    assert (scale.kernel, scale.launchers, scale.baseline) == ("scale_kernel", ("scale",),
                                                                "scale_naive")
    assert (offset.kernel, offset.launchers, offset.baseline) == (None, ("offset", "scale"), None)
    assert scale.cases == lab.exercises[0].cases  # the policy is lab.toml's, unchanged
    assert manifest.bind(lab, _listing(offset={"dim_max": [1000]})).bound  # at the bound
    # a grading of one exercise (--exercise) still allows every launcher
    one = manifest.bind(dataclasses.replace(lab, exercises=lab.exercises[1:]), _listing())
    assert one.launchers == bound.launchers


BIND_ERRORS = [
    ("other lab id", {"lab": "7.7"}, "id is '9.1' but the lab binary says '7.7'"),
    ("no such exercise", {"drop": "offset"},
     "exercise 'offset': the lab binary has no such exercise"),
    ("dims", {"offset": {"dims": ["n", "m"]}},
     "exercise 'offset': cases have 1 dimensions but the harness takes 2"),
    ("no launcher", {"offset": {"launchers": []}},
     "exercise 'offset': the lab binary names no launcher for it"),
    ("bad launcher", {"offset": {"launchers": ["not a name"]}}, "launchers are not C names"),
    ("static without kernel", {"scale": {"kernel": None}},
     "exercise 'scale': static rules need the kernel whose SASS they read, and the lab binary "
     "names none (cml_exercise.kernel in harness.cu)"),
    ("ratio without baseline", {"scale": {"baseline": None}},
     "exercise 'scale': performance: the metric 'ratio' needs a baseline"),
    ("reps below the harness's minimum", {"min_reps": 25},
     "exercise 'scale': performance.reps is 20, below the harness's minimum of 25 (CML_MIN_REPS)"),
    ("no min_reps", {"min_reps": None}, "the lab binary's --list gives no min_reps"),
    ("case over a bound", {"offset": {"dim_max": [999]}},
     "exercise 'offset': case 1000: n = 1000 is over the harness's bound 999 (lab.h)"),
    ("performance size over a bound", {"scale": {"dim_max": [None, 127]}},
     "exercise 'scale': performance size 128,128: cols = 128 is over the harness's bound 127"),
    ("array of 2^31 elements",
     {"scale": {"dim_max": [None, None], "arrays": ["rows*cols", "rows*cols*rows*cols*rows"]}},
     "exercise 'scale': performance size 128,128: rows*cols*rows*cols*rows = 34359738368 "
     "elements, 2^31 or more"),
    ("array of unknown dims", {"scale": {"dim_max": [None, None], "arrays": ["rows*k"]}},
     "the lab binary's --list gives an array 'rows*k' of no dims"),
]


@pytest.mark.parametrize("label,change,message", BIND_ERRORS, ids=[c[0] for c in BIND_ERRORS])
def test_bind_errors(tmp_path, label, change, message):
    lab = manifest.load(make_lab(tmp_path, BASE))
    listing = _listing(**{k: v for k, v in change.items() if isinstance(v, dict)})
    for key, value in change.items():
        if key == "drop":
            listing["exercises"] = [e for e in listing["exercises"] if e["name"] != value]
        elif not isinstance(value, dict):
            listing[key] = value
    with pytest.raises(GraderError) as e:
        manifest.bind(lab, listing)
    assert message in str(e.value)


def test_an_untimed_run_cannot_score_a_driver_metric(tmp_path):
    text = BASE.replace('metric = "ratio"', 'metric = "gbps"').replace(
        "full = 2.0", "full = 2.0\ntimed = false"
    )
    lab = manifest.load(make_lab(tmp_path, text))  # lab.toml alone cannot tell
    with pytest.raises(GraderError, match="the driver's metric 'gbps' needs a timed run"):
        manifest.bind(lab, _listing())
    extra = manifest.load(make_lab(tmp_path / "x", text.replace('"gbps"', '"l1_cycles"')))
    assert manifest.bind(extra, _listing()).bound  # an exercise's own metric


def test_select_labs(tmp_path):
    make_lab(tmp_path, BASE)
    assert [p.name for p in course.select_labs(tmp_path, ["9.1"])] == ["9.1-fake"]
    assert [p.name for p in course.select_labs(tmp_path, ["9.1-fake"])] == ["9.1-fake"]
    with pytest.raises(GraderError, match="no lab '4.2'"):
        course.select_labs(tmp_path, ["4.2"])


def test_a_missing_lab_folder_names_the_labs_it_may_mean(tmp_path):
    make_lab(tmp_path, BASE)
    (tmp_path / "Makefile").write_text("")
    (tmp_path / "common").mkdir(exist_ok=True)
    (tmp_path / "common" / "cml_json.h").write_text("")
    assert course.lab_folder(tmp_path / "labs" / "9.1-fake") == tmp_path / "labs" / "9.1-fake"
    for wrong in ("9.1", "9.1-fak"):
        with pytest.raises(GraderError, match=r"labs/9\.1 ?\S* does not exist \(did you mean: "):
            course.lab_folder(tmp_path / "labs" / wrong)
    with pytest.raises(GraderError, match=r"does not exist \(the labs: .*labs/9\.1-fake\)"):
        course.lab_folder(tmp_path / "labs" / "4.2")


@pytest.mark.parametrize(
    "lab_toml", sorted(REPO.glob("labs/*/lab.toml")), ids=lambda p: p.parent.name
)
def test_real_manifests_are_valid(lab_toml):
    lab = manifest.load(lab_toml.parent)
    assert lab.exercises, f"{lab_toml} has no exercise"


def test_find_root():
    assert course.find_root(REPO / "grader" / "tests") == REPO


def test_copy_of_fake_lab_is_valid(tmp_path):
    dst = tmp_path / "lab"
    shutil.copytree(FAKELAB / "labs" / "9.1-fake", dst)
    assert manifest.load(dst).name == "lab"


def test_every_real_lab_agrees_with_its_judge_binary():
    """lab.toml against what the lab's judge says with --list (no GPU needed; make test
    builds the judges first): the same lab id and exercises, the cases' dimensions, a
    kernel for static rules, a baseline for every ratio criterion, repetitions at least the
    harness's minimum (common/cml_options.h, given by --list). The launchers --list names
    are the ones the judge's stubs define (built from the lister's --list) and the ones the
    reference solution defines; each kernel is one the solution compiles."""
    import json
    import subprocess

    from grader import symbols, tools

    nm = tools.find("nm")
    for lab_dir in real_labs():
        judge = REPO / "build" / lab_dir.name / "judge"
        if not judge.is_file():
            pytest.skip(f"{judge} is not built (make judges)")
        listing = json.loads(subprocess.run([judge, "--list"], capture_output=True,
                                            text=True, check=True).stdout)
        lab = manifest.bind(manifest.load(lab_dir), listing)
        assert {e.name for e in lab.exercises} <= {e["name"] for e in listing["exercises"]}
        stubs = (REPO / "build" / lab_dir.name / "judge_stubs.c").read_text()
        for name in lab.launchers:
            assert f"void {name}(void) {{" in stubs, f"{lab_dir.name}: no stub for {name}"
        solution = REPO / "build" / lab_dir.name / "solution"
        if nm is None or not solution.is_dir():
            continue
        for student_file in lab.student_files:
            obj = solution / f"{student_file}.o"
            if not obj.is_file():
                continue
            out = subprocess.run([str(nm.path), "-P", str(obj)], capture_output=True, text=True,
                                 check=True).stdout
            defined = {s.name for s in symbols.parse_nm(out) if s.defined}
            for name in lab.launchers:
                assert name in defined, f"{lab_dir.name}: the solution defines no {name}"
            for e in lab.exercises:
                if e.kernel:
                    assert any("__device_stub__" in d and e.kernel in d for d in defined), (
                        f"{lab_dir.name} {e.name}: the solution has no kernel {e.kernel}"
                    )


def test_only_a_lab_that_allows_streams_keeps_the_default_work_queues():
    """Lab 3.2 lets submissions make streams (allow_calls): its untimed runs keep the
    driver's CUDA work queues (grader.run.child_env, design note 48); the other labs not."""
    labs = {p.name: manifest.load(p) for p in sorted((REPO / "labs").glob("3.*"))}
    assert {name for name, lab in labs.items() if lab.own_streams} == {"3.2-global-memory"}


def test_a_criterion_takes_the_thresholds_of_the_gpu_named_in_it(tmp_path):
    """``on``: the longest key that is part of the device's name replaces zero and full and
    names its GPU (design note 76), whatever the keys' order; no device, another one, or a
    MIG slice of a named one keeps the course GPU's."""
    text = BASE.replace(
        "full = 2.0",
        'full = 2.0\non = { "H100" = { zero = 0.5, full = 0.6 }, '
        '"H100 80GB" = { zero = 1.1, full = 1.5 } }',
    )
    lab = make_lab(tmp_path, text)
    (crit,) = manifest.load(lab).exercises[0].performance.criteria
    h100 = crit.for_device({"name": "NVIDIA H100 80GB HBM3"})
    assert (h100.zero, h100.full, h100.gpu) == (1.1, 1.5, "H100 80GB")
    assert crit.for_device({"name": "NVIDIA H100 PCIe"}).zero == 0.5
    mig = {"name": "NVIDIA H100 80GB HBM3 MIG 1g.10gb"}
    for device in (None, {}, {"name": "NVIDIA H200"}, mig):
        assert crit.for_device(device) is crit and crit.gpu is None

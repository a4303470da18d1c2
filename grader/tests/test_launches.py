"""grader.launches: which kernels a launcher launches, read from an object's host code.

Each case compiles a small .cu with nvcc (as the grader builds a student's file: -O3, the
course's architecture) and reads it with objdump; skipped, visibly, without them.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest

from grader import launches, sass, tools
from grader.manifest import StaticRules

KERNELS = r"""
__global__ void tiled(float *o) {
    __shared__ float s[32];
    s[threadIdx.x] = o[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = s[31 - threadIdx.x];
}
__global__ void direct(float *o, int n) { if ((int)threadIdx.x < n) o[threadIdx.x] *= 2.0f; }
__global__ void helper(float *o) { o[0] = 0.0f; }
"""

OTHER = 'extern "C" void other(float *o) { helper<<<1, 1>>>(o); }'
TEMPLATE = """
template <int T> __global__ void tiled_t(float *o) {
    __shared__ float s[T];
    s[threadIdx.x] = o[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = s[T - 1 - threadIdx.x];
}
"""

CASES = {
    # launcher bodies (extern "C", as the labs declare them) -> the kernels each reaches
    "plain": ('extern "C" void run(float *o, int n) { tiled<<<1, 32>>>(o); }', {"tiled"}),
    "decoy": ('extern "C" void run(float *o, int n) { direct<<<1, 32>>>(o, n); }', {"direct"}),
    "nothing": ('extern "C" void run(float *o, int n) { (void)o; (void)n; }', set()),
    "never_true": (
        'extern "C" void run(float *o, int n) {\n'
        "    if (n == -12345) tiled<<<1, 32>>>(o);\n"
        "    direct<<<1, 32>>>(o, n);\n}",
        {"tiled", "direct"},
    ),
    "through_a_helper": (
        "__attribute__((noinline)) static void go(float *o, int n) { direct<<<1, 32>>>(o, n); }\n"
        'extern "C" void run(float *o, int n) { go(o, n); }',
        {"direct"},
    ),
    "launch_api": (
        'extern "C" void run(float *o, int n) {\n'
        "    void *args[] = {&o};\n"
        "    cudaLaunchKernel((const void *)helper, dim3(1), dim3(1), args, 0, 0);\n}",
        {"helper"},
    ),
    "pointer_table": (
        "typedef void (*kernel_t)(float *);\n"
        "kernel_t table[] = {tiled, helper};\n"
        'extern "C" void run(float *o, int n) { table[n & 1]<<<1, 32>>>(o); }',
        {"tiled", "helper"},
    ),
}


def _build(tmp_path: Path, body: str, extra: str = "") -> Path:
    nvcc, objdump = shutil.which("nvcc"), shutil.which("objdump")
    if nvcc is None or objdump is None:
        pytest.skip("nvcc or objdump not found")
    tmp_path.mkdir(parents=True, exist_ok=True)
    src = tmp_path / "k.cu"
    src.write_text(KERNELS + body + "\n" + extra)
    obj = tmp_path / "k.o"
    subprocess.run([nvcc, "-c", "-O3", "-arch=sm_90", str(src), "-o", str(obj)], check=True)
    return obj


def _mangled(names: set[str]) -> set[str]:
    table = {"tiled": "_Z5tiledPf", "direct": "_Z6directPfi", "helper": "_Z6helperPf"}
    return {table[n] for n in names}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_launcher_reaches_the_kernels_it_launches_and_no_other(tmp_path, case):
    body, expected = CASES[case]
    # a second launcher after the first: its kernel must not leak into the first's (a
    # placeholder target at a function's end names the next function)
    obj = _build(tmp_path, body, OTHER)
    kernels = _mangled({"tiled", "direct", "helper"})
    reach = launches.read(shutil.which("objdump"), [obj], ["run", "other", "absent"], kernels)
    assert reach.launched["run"] == _mangled(expected)
    assert reach.launched["other"] == _mangled({"helper"})
    assert reach.missing == {"absent"}
    assert reach.unreached == kernels - _mangled(expected | {"helper"})


class _Exercise:
    kernel = "tiled"
    launchers = ("run",)
    static = StaticRules(require=("LDS", "STS", "BAR"), forbid=("LDL",))


def _static(
    tmp_path: Path, case: str, every: bool = True, extra: str = "", launchers=("run",)
) -> sass.StaticResult:
    obj = _build(tmp_path, CASES[case][0], extra)
    tool = tools.find("cuobjdump")
    if tool is None:
        pytest.skip("cuobjdump not found")
    dumped = sass.dump(tool, [obj])
    assert dumped.error is None, dumped.error
    ex = _Exercise()
    ex.launchers = launchers
    ex.static = dataclasses.replace(ex.static, require_in_every_kernel=every)
    res = sass.check_kernel(dumped, ex.kernel, ex.static, "k.cu")
    reach = launches.read(
        shutil.which("objdump"), [obj], sorted({"run", "other", *launchers}),
        {fn.mangled for fn in dumped.functions},
    )
    launches.check(res, reach, dumped, ex, "k.cu", named_kernels=_mangled({"tiled"}))
    return res


def test_the_named_kernel_launched_passes(tmp_path):
    res = _static(tmp_path, "plain", every=False)
    assert res.passed, res.messages


def test_with_require_in_every_kernel_no_kernel_may_be_left_unlaunched(tmp_path):
    """Lab 3.3: a kernel no launcher reaches could be launched through an address computed
    from another's, which no reading of references sees (a review's bypass)."""
    res = _static(tmp_path, "plain", every=True)
    assert not res.passed
    assert any(m.startswith("direct, helper in k.cu are launched by no launcher")
               for m in res.messages), res.messages


def test_a_decoy_that_nothing_launches_fails_and_names_the_kernel_launched(tmp_path):
    res = _static(tmp_path, "decoy")
    assert not res.passed
    assert any("run does not launch tiled (it launches direct)" in m for m in res.messages)


def test_a_launcher_that_launches_nothing_is_said_to_be_not_implemented_yet(tmp_path):
    """A skeleton's launcher (its TODO left): the message says no kernel is launched, not
    only that the named one is not (an instructor's trial read "keep its name from the
    skeleton" for an exercise not begun)."""
    res = _static(tmp_path, "nothing", every=False)
    assert not res.passed
    assert any(m.startswith("run does not launch tiled (no kernel is launched: not implemented "
                            "yet?): the static rules read") for m in res.messages), res.messages


@pytest.mark.parametrize(
    "launchers, lead",
    [(("run", "other"), "neither run nor other launches"),
     (("run", "other", "third"), "none of run, other and third launches")],
)
def test_several_launchers_none_launching_the_kernel_are_named_together(
    tmp_path, launchers, lead
):
    """An exercise of two launchers (lab 3.4a: the coefficients' setter and the launcher), or
    more: none launching the kernel reads "neither ... nor ... launches" ("none of ... and
    ... launches"), never that the one named first must launch it (a student's trial read
    that the setter could)."""
    third = 'extern "C" void third(float *o) { helper<<<1, 1>>>(o); }'
    res = _static(tmp_path, "decoy", every=False, extra=OTHER + "\n" + third,
                  launchers=launchers)
    assert not res.passed
    assert any(
        m.startswith(f"{lead} tiled (they launch direct, helper): the static rules read "
                     "tiled's SASS, so the exercise's launcher must launch")
        for m in res.messages
    ), res.messages
    assert not any("does not launch" in m for m in res.messages)


def test_with_require_in_every_kernel_a_second_kernel_must_meet_every_rule(tmp_path):
    """Lab 3.3 (one kernel per launcher): a decoy launched under a condition never true,
    beside the kernel that does the work, fails."""
    res = _static(tmp_path, "never_true", every=True, extra=OTHER)
    assert not res.passed
    assert any(m.startswith("run also launches direct, and in this exercise every kernel")
               for m in res.messages), res.messages
    assert not any("does not launch" in m for m in res.messages)


def test_otherwise_a_helper_kernel_need_only_keep_the_forbidden_out(tmp_path):
    """Elsewhere a helper kernel (a fill, a last step) is a correct design: a student's
    trial of lab 3.4 lost 3.4e's static points to its fill and drain kernels, which held no
    texture fetch; one that spills to local memory still fails."""
    assert _static(tmp_path / "a", "never_true", every=False).passed
    spill = (
        "__global__ void spills(float *o, int n) { float a[64];\n"
        "    for (int i = 0; i < 64; ++i) a[(i * n) & 63] = o[i];\n"
        "    o[threadIdx.x] = a[threadIdx.x & 63]; }\n"
        'extern "C" void run2(float *o, int n) { spills<<<1, 32>>>(o, n); }'
    )
    ex_obj = _build(tmp_path / "b", CASES["plain"][0], spill)
    dumped = sass.dump(tools.find("cuobjdump"), [ex_obj])
    ex = _Exercise()
    ex.launchers = ("run", "run2")
    res = sass.check_kernel(dumped, ex.kernel, ex.static, "k.cu")
    reach = launches.read(
        shutil.which("objdump"), [ex_obj], ["run", "run2"], {f.mangled for f in dumped.functions}
    )
    launches.check(res, reach, dumped, ex, "k.cu")
    assert not res.passed
    assert any("also launches spills, which must keep the forbidden instructions out" in m
               for m in res.messages), res.messages


def test_a_template_kernels_instance_is_found_though_its_symbol_is_local(tmp_path):
    """A template kernel's instance (or a static kernel) is a local symbol of its file."""
    obj = _build(
        tmp_path,
        TEMPLATE
        + 'extern "C" void run(float *o, int n) { tiled_t<32><<<1, 32>>>(o); }',
    )
    kernels = _mangled({"tiled", "direct", "helper"}) | {"_Z7tiled_tILi32EEvPf"}
    reach = launches.read(shutil.which("objdump"), [obj], ["run"], kernels)
    assert reach.launched["run"] == {"_Z7tiled_tILi32EEvPf"}


BYPASSES = {
    # a review's ways to reach a kernel that a first version did not see
    "static_kernel": (
        "static __global__ void quiet(float *o) { o[0] = 1.0f; }\n"
        'extern "C" void run(float *o, int n) { quiet<<<1, 1>>>(o); }',
        {"_Z5quietPf"},
    ),
    "table_in_a_section_named_like_fini_array": (
        "typedef void (*kernel_t)(float *);\n"
        '__attribute__((section(".fini_arrayz"), used)) static kernel_t table[1] = {helper};\n'
        'extern "C" void run(float *o, int n) { (n > 0 ? table[0] : tiled)<<<1, 32>>>(o); }',
        {"_Z6helperPf"},
    ),
    "pointer_set_by_a_constructor": (
        "typedef void (*kernel_t)(float *, int);\n"
        "static kernel_t chosen;\n"
        "__attribute__((constructor)) static void pick(void) { chosen = direct; }\n"
        'extern "C" void run(float *o, int n) { chosen<<<1, 32>>>(o, n); }',
        {"_Z6directPfi"},
    ),
    "pointer_set_by_a_dynamic_initialiser": (
        "typedef void (*kernel_t)(float *, int);\n"
        "static volatile int one = 1;\n"
        "static kernel_t chosen = one ? direct : direct;\n"
        'extern "C" void run(float *o, int n) { chosen<<<1, 32>>>(o, n); }',
        {"_Z6directPfi"},
    ),
}


@pytest.mark.parametrize("case", sorted(BYPASSES))
def test_a_kernel_reached_by_a_reviews_bypass_is_launched(tmp_path, case):
    """A static kernel (its host symbol _ZL..., its SASS _Z...), a table in a loaded section
    whatever its name, and a pointer set before main (by a constructor or a dynamic
    initialiser: what startup runs counts for every launcher) all reach the kernel."""
    body, expected = BYPASSES[case]
    obj = _build(tmp_path, body)
    kernels = _mangled({"tiled", "direct", "helper"}) | {"_Z5quietPf"}
    reach = launches.read(shutil.which("objdump"), [obj], ["run"], kernels)
    assert expected <= reach.launched["run"], reach


def test_only_functions_with_a_launch_stub_are_kernels(tmp_path):
    """An extern "C" kernel (its stub mangled as a C++ name) is one; a SASS function with no
    host launch stub (a device function compiled apart) is none, so it is never "launched
    by no launcher" (a review)."""
    obj = _build(
        tmp_path,
        'extern "C" __global__ void plain_c(float *o) { o[0] = 3.0f; }\n'
        'extern "C" void run(float *o, int n) { plain_c<<<1, 1>>>(o); }',
    )
    kernels = _mangled({"tiled", "direct", "helper"}) | {"plain_c", "_Z8helperfnf"}
    reach = launches.read(shutil.which("objdump"), [obj], ["run"], kernels)
    assert reach.launched["run"] == {"plain_c"}
    assert reach.unreached == _mangled({"tiled", "direct", "helper"})


def test_a_listing_over_the_cap_is_the_objects_doing(tmp_path, monkeypatch):
    """objdump's listing is capped (a hostile object of host nops would list gigabytes into
    the batch's memory): over the cap, the object is Unreadable and static is lost."""
    obj = _build(tmp_path, CASES["plain"][0])
    monkeypatch.setattr(launches, "MAX_LISTING_BYTES", 4096)
    with pytest.raises(launches.Unreadable, match="listed more than"):
        launches.read(shutil.which("objdump"), [obj], ["run"], _mangled({"tiled"}))


def test_a_template_kernels_instances_are_named_on_the_static_line(tmp_path):
    """Each instance's resources are told apart by its template arguments (a student's
    trial read two unnamed summaries joined by ';')."""
    obj = _build(
        tmp_path,
        TEMPLATE
        + 'extern "C" void run(float *o, int n) {\n'
        "    if (n > 16) tiled_t<32><<<1, 32>>>(o); else tiled_t<16><<<1, 16>>>(o);\n}",
    )
    if tools.find("cuobjdump") is None or tools.find("c++filt") is None:
        pytest.skip("cuobjdump or c++filt not found")
    dumped = sass.dump(tools.find("cuobjdump"), [obj])
    res = sass.check_kernel(dumped, "tiled_t", _Exercise.static, "k.cu")
    assert res.passed, res.messages
    assert "tiled_t<16>: " in res.info and "tiled_t<32>: " in res.info, res.info

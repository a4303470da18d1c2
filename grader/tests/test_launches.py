"""grader.launches: which kernels a launcher launches, read from an object's host code.

Each case compiles a small .cu with nvcc (as the grader builds a student's file: -O3, the
course's architecture) and reads it with objdump; skipped, visibly, without them.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from grader import launches, sass, tools

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

CASES = {
    # launcher bodies (extern "C", as the labs declare them) -> the kernels each reaches
    "plain": ('extern "C" void run(float *o, int n) { tiled<<<1, 32>>>(o); }', {"tiled"}),
    "decoy": ('extern "C" void run(float *o, int n) { direct<<<1, 32>>>(o, n); }', {"direct"}),
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
    other = 'extern "C" void other(float *o) { helper<<<1, 1>>>(o); }'
    obj = _build(tmp_path, body, other)
    kernels = _mangled({"tiled", "direct", "helper"})
    reach = launches.read(shutil.which("objdump"), [obj], ["run", "other", "absent"], kernels)
    assert reach.launched["run"] == _mangled(expected)
    assert reach.launched["other"] == _mangled({"helper"})
    assert reach.missing == {"absent"}
    assert reach.unreached == kernels - _mangled(expected | {"helper"})


class _Exercise:
    kernel = "tiled"
    launchers = ("run",)
    static = sass.StaticRules(require=("LDS", "STS", "BAR"))


def _static(tmp_path: Path, case: str) -> sass.StaticResult:
    obj = _build(tmp_path, CASES[case][0])
    tool = tools.find("cuobjdump")
    if tool is None:
        pytest.skip("cuobjdump not found")
    dumped = sass.dump(tool, [obj])
    assert dumped.error is None, dumped.error
    ex = _Exercise()
    res = sass.check_kernel(dumped, ex.kernel, ex.static, "k.cu")
    reach = launches.read(
        shutil.which("objdump"), [obj], ["run"], {fn.mangled for fn in dumped.functions}
    )
    launches.check(res, reach, dumped, ex, "k.cu")
    return res


def test_the_named_kernel_launched_passes(tmp_path):
    res = _static(tmp_path, "plain")
    assert res.passed, res.messages


def test_a_decoy_that_nothing_launches_fails_and_names_the_kernel_launched(tmp_path):
    res = _static(tmp_path, "decoy")
    assert not res.passed
    assert any("run does not launch tiled (it launches direct)" in m for m in res.messages)


def test_a_kernel_launched_beside_the_named_one_is_held_to_its_rules(tmp_path):
    res = _static(tmp_path, "never_true")
    assert not res.passed
    assert any(m.startswith("run also launches direct, which the static rules read too")
               for m in res.messages), res.messages
    assert not any("does not launch" in m for m in res.messages)


def test_a_template_kernels_instance_is_found_though_its_symbol_is_local(tmp_path):
    """A template kernel's instance (or a static kernel) is a local symbol of its file."""
    obj = _build(
        tmp_path,
        "template <int T> __global__ void tiled_t(float *o) {\n"
        "    __shared__ float s[T];\n"
        "    s[threadIdx.x] = o[threadIdx.x];\n"
        "    __syncthreads();\n"
        "    o[threadIdx.x] = s[T - 1 - threadIdx.x];\n"
        "}\n"
        'extern "C" void run(float *o, int n) { tiled_t<32><<<1, 32>>>(o); }',
    )
    kernels = _mangled({"tiled", "direct", "helper"}) | {"_Z7tiled_tILi32EEvPf"}
    reach = launches.read(shutil.which("objdump"), [obj], ["run"], kernels)
    assert reach.launched["run"] == {"_Z7tiled_tILi32EEvPf"}

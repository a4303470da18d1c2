"""The symbol allow-list, on objects nvcc compiles here and on nm text."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from grader import symbols, tools
from grader.symbols import Symbol
from helpers import need

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

HEADER = "#include <cstdio>\n#include <cstdlib>\n#include <cuda_runtime.h>\n"
CLEAN = HEADER + r"""
#define TILE 32
__constant__ float c_filter[9];
__device__ float device_helper(float x) { return 2.0f * x; }  // its host body calls exit
__global__ void tiled_kernel(const float *a, float *b, int n) {
    __shared__ float t[TILE][TILE + 1];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[threadIdx.y][threadIdx.x] = a[i] * c_filter[0];
    __syncthreads();
    if (i < n) b[i] = device_helper(sqrtf(t[threadIdx.x][threadIdx.y]));
}
template <int T> __global__ void tmpl_kernel(float *x) { x[threadIdx.x] *= T; }
extern __shared__ float dyn[];
__global__ void dyn_kernel(float *x) {
    dyn[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = dyn[31 - threadIdx.x];
    if (threadIdx.x == 0) printf("device %f\n", x[0]);
}
extern "C" __global__ void plain_kernel(float *x) { x[threadIdx.x] = 1.0f; }
static float helper(float x) { return expf(x); }
// what the rule line says passes: internal linkage, device-side variables, C++ functions
static int s_calls;
const int k_n = 5;
constexpr float k_f = 2.0f;
namespace { int anon_count; }
__device__ int d_count;
__managed__ int m_count;
float cpp_helper(float x) { return helper(x) + 1.0f + s_calls + k_n + k_f + anon_count + m_count; }
extern "C" void launch(const float *a, float *b, int n) {
    float h[9] = {1};
    cudaMemcpyToSymbol(c_filter, h, sizeof h);
    cudaFuncSetAttribute(dyn_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
    tiled_kernel<<<(n + 31) / 32, dim3(32, 32)>>>(a, b, n);
    tmpl_kernel<32><<<1, 32>>>(b);
    dyn_kernel<<<1, 32, 64 * 1024>>>(b);
    plain_kernel<<<1, 32>>>(b);
    if (cudaGetLastError() != cudaSuccess) {
        fprintf(stderr, "launch failed: %f\n", cpp_helper(1.0f));
    }
    printf("debug\n");
}
"""

BAD = {
    "main": (CLEAN + "int main() { return 0; }\n", "defines main"),
    "fopen": (
        CLEAN.replace('printf("debug\\n");', 'FILE *f = fopen("x", "w"); fclose(f);'),
        "calls fopen",
    ),
    "system": (CLEAN.replace('printf("debug\\n");', 'system("ls");'), "calls system"),
    "abort": (CLEAN.replace('printf("debug\\n");', "abort();"), "calls abort"),
    "getenv": (CLEAN.replace('printf("debug\\n");', 'puts(getenv("HOME"));'), "calls getenv"),
    "redefine-timer": (
        CLEAN
        + 'extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)'
        " { *ms = 0.001f; return cudaSuccess; }\n",
        "defines the global symbol cudaEventElapsedTime",
    ),
    "call-timer": (
        CLEAN.replace(
            'printf("debug\\n");', "cudaEvent_t e; cudaEventCreate(&e); cudaEventRecord(e);"
        ),
        "calls cudaEventRecord",
    ),
    "own-stream": (
        CLEAN.replace('printf("debug\\n");', "cudaStream_t s; cudaStreamCreate(&s);"),
        "calls cudaStreamCreate",
    ),
    "global-variable": (CLEAN + "int counter = 3;\n", "defines the global symbol counter"),
    "inline-variable": (
        CLEAN + "inline int shared_count = 0;\nint bump() { return ++shared_count; }\n",
        "defines the global symbol shared_count, a variable: make it static",
    ),
    "kernel-named-like-harness": (
        CLEAN + 'extern "C" __global__ void cml_time_interleaved(float *x) { x[0] = 0; }\n',
        "defines the global symbol cml_time_interleaved",
    ),
    "kernel-named-like-libc": (
        CLEAN + 'extern "C" __global__ void kill(float *x) { x[0] = 0; }\n',
        "defines the global symbol kill",
    ),
}


@pytest.fixture(scope="module")
def objects(tmp_path_factory):
    need("nvcc")
    need("nm")
    d = tmp_path_factory.mktemp("symbols")
    nvcc = tools.find("nvcc").path
    sources = {"clean": CLEAN, **{k: v[0] for k, v in BAD.items()}}

    def compile_one(name):
        (d / f"{name}.cu").write_text(sources[name])
        subprocess.run(
            [nvcc, "-std=c++17", "-O3", "-arch=sm_90", "-c", f"{name}.cu", "-o", f"{name}.o"],
            cwd=d,
            check=True,
            capture_output=True,
        )
        return name, d / f"{name}.o"

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(compile_one, sources))


def check(obj, allow_calls=()):
    return symbols.check_objects(tools.find("nm"), {"kernels.cu": obj}, ("launch",), allow_calls)


def test_clean_object_passes(objects):
    result = check(objects["clean"])
    assert result.passed, result.problems


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_object_fails_naming_the_symbol(objects, name):
    result = check(objects[name])
    assert not result.passed
    assert any(BAD[name][1] in p for p in result.problems), result.problems
    assert all(p.startswith("kernels.cu ") for p in result.problems)


def test_allow_calls_admits_a_call(objects):
    assert not check(objects["getenv"]).passed
    assert check(objects["getenv"], allow_calls=("getenv",)).passed


def test_launcher_not_listed_fails(objects):
    result = symbols.check_objects(tools.find("nm"), {"kernels.cu": objects["clean"]}, (), ())
    assert any("defines the global symbol launch," in p for p in result.problems)


def test_rules_on_nm_text():
    nm_text = "\n".join(
        [
            "_Z10cpp_helperf T 300 50",
            "_ZNSt6vectorIfSaIfEE17_M_realloc_insertIJfEEEvN9__gnu_cxx17__normal_iteratorIPfS1_"
            "EEDpOT_ W 0 10",
            "_ZNSo5writeEPKcl T 0 10",
            "_Znwm T 0 10",
            "DW.ref.__gxx_personality_v0 V 0 8",
            "_Z32__device_stub__Z12plain_kernelPfPf T 1f0 20",
            "plain_kernel T 10 20",
            "local_helper t 0 10",
            "fatbinData r 0 10",
            "launch T 0 10",
            "__cudaRegisterFunction U",
            "cudaMemcpy U",
            "cudaDeviceReset U",
            "_ZSt20__throw_length_errorPKc U",
            "_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode U",
            "sqrtf U",
            "stderr U",
            "__pthread_key_create w",
        ]
    )
    syms = symbols.parse_nm(nm_text)
    assert Symbol("local_helper", "t") in syms
    problems = symbols.check_symbols(syms, ("launch",), (), "k.cu")
    joined = "\n".join(problems)
    assert "_ZNSo5writeEPKcl inside the C++ or CUDA runtime's namespace" in joined
    assert "_Znwm (a replacement of operator new/delete)" in joined
    assert "calls cudaDeviceReset" in joined
    assert "calls _ZNSt14basic_ofstream" in joined
    assert "calls __pthread_key_create" in joined
    assert len(problems) == 6, problems  # five findings, then what may be called
    assert problems[-1].startswith("k.cu may call only: the CUDA runtime")


def test_redefining_a_cuda_runtime_internal_fails():
    syms = symbols.parse_nm("__cudaPushCallConfiguration T 0 10\n__nv_helper T 0 10\n")
    problems = symbols.check_symbols(syms, (), (), "k.cu")
    assert len(problems) == 2
    assert "defines the global symbol __cudaPushCallConfiguration" in problems[0]


def test_loading_other_device_code_is_refused():
    """cudaLibraryLoadData would run kernels a submission embedded (e.g. a compiled
    reference read in with .incbin): refused like the other denied runtime calls."""
    syms = symbols.parse_nm("launch T 0 10\ncudaLibraryLoadData U\ncudaLibraryGetKernel U")
    joined = "\n".join(symbols.check_symbols(syms, ("launch",), (), "k.cu"))
    assert "calls cudaLibraryLoadData" in joined and "calls cudaLibraryGetKernel" in joined


def test_an_extern_c_kernel_may_not_take_a_system_library_name():
    # a kernel named qsort (or sin) would put its host stub in the place of the C library's
    # function in the lab binary; qsort is in no hand-written list
    library = symbols.system_library_names()
    if not library:
        pytest.skip("cannot read the C library's symbols here (cc or nm missing)")
    assert {"qsort", "sin", "printf"} <= library
    nm_text = "\n".join(
        [
            "_Z21__device_stub__Z5qsortPfPf T 0 20",
            "qsort T 10 20",
            "_Z28__device_stub__Z9my_kernelPfPf T 40 20",
            "my_kernel T 60 20",
        ]
    )
    problems = symbols.check_symbols(symbols.parse_nm(nm_text), (), (), "k.cu")
    assert len(problems) == 1, problems
    assert problems[0].startswith("k.cu defines the global symbol qsort")


def test_every_offender_is_named_with_its_line_and_what_to_do():
    # issue 14: a global variable and a renamed launcher in one file — both listed, each
    # with its line and its own advice
    source = (
        '#include "lab.h"\n'
        "// counter is mentioned in a comment first\n"
        "int counter = 3;\n"
        'extern "C" void my_launch(float *x) { (void)x; }\n'
    )
    nm_text = "counter D 0 4\nmy_launch T 0 10\nlaunch T 10 10\n"
    problems = symbols.check_symbols(symbols.parse_nm(nm_text), ("launch",), (), "k.cu", source)
    assert problems == [
        "k.cu (line 3) defines the global symbol counter, a variable: make it static (or put "
        "it in an unnamed namespace)",
        "k.cu (line 4) defines the global symbol my_launch, a function with C linkage that is "
        "none of the lab's launchers (launch): keep the skeleton's launcher names; for a "
        'helper, drop its extern "C" (a C++ function passes, static or not) or make it static',
        symbols.define_rule("k.cu", ("launch",)),
    ]


def test_many_offenders_are_listed_up_to_a_limit_then_counted_and_the_rule_said_once():
    # issue 14: every offender named (up to MAX_LISTED), the rest counted, and the rule —
    # what a student file may define — stated once, exactly: non-static C++ functions pass
    n = symbols.MAX_LISTED + 4
    nm_text = "\n".join(
        [f"v{i} B {i * 4:x} 4" for i in range(n)]
        + ["shared_count u 0 4", "_Z6helperi T 0 10", "launch T 10 10"]
    )
    problems = symbols.check_symbols(symbols.parse_nm(nm_text), ("launch",), (), "k.cu")
    listed = problems[: symbols.MAX_LISTED]
    assert [p.split("global symbol ")[1].split(",")[0] for p in listed] == [
        f"v{i}" for i in range(symbols.MAX_LISTED)
    ]
    assert all(", a variable: make it static" in p for p in listed)
    assert problems[symbols.MAX_LISTED:] == [
        "k.cu defines or calls 5 more symbols like these (not listed: fix the ones above and "
        "grade again)",
        symbols.define_rule("k.cu", ("launch",)),
    ]
    rule = problems[-1]
    assert "C++ functions (static or not, templates too)" in rule
    assert "static or const/constexpr or in an unnamed namespace" in rule
    assert "__device__, __constant__ and __shared__ variables" in rule
    assert "int counter;" in rule and 'extern "C" function that is no launcher' in rule
    # a C++17 inline variable (nm "u") is a variable, not a function with C linkage
    few = symbols.check_symbols(symbols.parse_nm("shared_count u 0 4\n"), (), (), "k.cu")
    assert few[0] == (
        "k.cu defines the global symbol shared_count, a variable: make it static (or put it "
        "in an unnamed namespace)"
    )


def test_definition_line_skips_comments():
    text = "/* foo\n   foo */ int x;\n// foo\nint foo;\n"
    assert symbols.definition_line(text, "foo") == 4
    assert symbols.definition_line(text, "bar") is None
    assert symbols.definition_line(None, "foo") is None


def test_a_denied_call_says_what_the_harness_owns():
    """A lab 3.2 student (streams allowed there) was told an event was refused because 'the
    harness owns timing, streams and device-wide state': the reason is the call's own."""
    assert "events are timing" in symbols.denied_reason("cudaEventCreateWithFlags")
    assert "streams" in symbols.denied_reason("cudaStreamCreateWithFlags")
    assert symbols.denied_reason("cudaDeviceReset") == "the harness owns the device-wide state"
    assert "IPC" in symbols.denied_reason("cudaIpcGetMemHandle")

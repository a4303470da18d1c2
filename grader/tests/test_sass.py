"""SASS and resource-usage parsing (text fixtures and nvcc-compiled objects), opcode
patterns, and the static rules of every real solution (pass) and skeleton (fail)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from grader import course, manifest, sass, tools
from grader.manifest import StaticRules
from grader.sass import Dump, Function, Instruction, check_kernel
from helpers import REPO, instructors_only_reason, need, real_labs

SASS_TEXT = """
Fatbin elf code:
=========

arch = sm_90
code version = [1,8]
host = linux
compile_size = 64bit

\tcode for sm_90
\t\tFunction : _Z19matmul_tiled_kernelILi32EEvPKfS1_Pfiii
\t.headerflags\t@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;             /* 0x00000a00ff017b82 */
                                                                      /* 0x000fe20000000800 */
        /*0050*/              @!PT LDS RZ, [RZ] ;                     /* 0x00000000ff00798e */
        /*0060*/                   LDSM.16.M88.4 R4, [R2] ;           /* 0x000000000204783b */
        /*0070*/               @P0 STS.128 [R7], R8 ;                 /* 0x0000000807007388 */
        /*0080*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;      /* 0x0000000000007b1d */
        /*0090*/                   LDG.E.128.CONSTANT R12, desc[UR4][R2.64] ;  /* 0x0 */
        /*00a0*/             @!UPT UIADD3 UR4, UR4, 0x1, URZ ;       /* 0x0 */
        /*00b0*/                   BRA 0xb0;                          /* 0xfffffffc00fc7947 */
\t\t..........

\t\tFunction : plain_kernel
        /*0000*/                   LDS.U.128 R4, [R2] ;               /* 0x0 */
        /*0010*/                   EXIT ;                             /* 0x0 */
"""

RES_TEXT = """
Resource usage:
 Common:
  GLOBAL:7 CONSTANT[3]:36
 Function _Z12spill_kernelPKiPfi:
  REG:32 STACK:1024 SHARED:0 LOCAL:0 CONSTANT[0]:548 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function plain_kernel:
  REG:8 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:536 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def test_parse_sass_text():
    fns = sass.parse_sass(SASS_TEXT)
    assert [f.name for f in fns] == ["matmul_tiled_kernel", "plain_kernel"]
    assert fns[0].arch == "sm_90"
    ops = [i.opcode for i in fns[0].instructions]
    # @!PT / @!UPT lines never execute and are dropped; other predicates are kept
    assert ops == [
        "LDC",
        "LDSM.16.M88.4",
        "STS.128",
        "BAR.SYNC.DEFER_BLOCKING",
        "LDG.E.128.CONSTANT",
        "BRA",
    ]
    assert fns[0].instructions[2].text == "@P0 STS.128 [R7], R8"
    assert fns[0].instructions[2].address == 0x70


def test_pt_predicated_instruction_does_not_satisfy_a_rule():
    dumped = sass.Dump(sass.parse_sass(SASS_TEXT), {})
    # the only plain LDS of the kernel is @!PT: LDS is missing (LDSM is another opcode)
    res = sass.check_kernel(dumped, "matmul_tiled_kernel", StaticRules(require=("LDS",)), "k.cu")
    assert not res.passed and res.missing == ["LDS"]
    res = sass.check_kernel(dumped, "plain_kernel", StaticRules(require=("LDS",)), "k.cu")
    assert res.passed


@pytest.mark.parametrize(
    "pattern,opcode,expected",
    [
        ("LDS", "LDS", True),
        ("LDS", "LDS.128", True),
        ("LDS", "LDS.U.128", True),
        ("LDS", "LDSM.16.M88.4", False),
        ("LDSM", "LDSM.16.M88.4", True),
        ("STS", "STS.128", True),
        ("BAR", "BAR.SYNC.DEFER_BLOCKING", True),
        ("LDC", "ULDC.64", False),
        (r"LDG\.E.*CONSTANT", "LDG.E.128.CONSTANT", True),
        (r"LDG\.E.*CONSTANT", "LDG.E.CONSTANT", True),
        (r"LDG\.E.*CONSTANT", "LDG.E.128", False),
        ("TEX|TLD", "TLD.LZ", True),
        ("TEX|TLD", "TLD4.R", False),
        ("LDL", "LDL.LU", True),
        ("STL", "STL.128", True),
    ],
)
def test_patterns(pattern, opcode, expected):
    assert sass.matches(pattern, opcode) is expected


@pytest.mark.parametrize(
    "mangled,name",
    [
        ("_Z19matmul_tiled_kernelILi32EEvPKfS1_Pfiii", "matmul_tiled_kernel"),
        ("_Z12tiled_kernelPKfPfi", "tiled_kernel"),
        ("_ZN2ns9ns_kernelEPf", "ns_kernel"),
        ("_ZN5outer5inner6kernelILi4EEEvPf", "kernel"),
        ("_ZL9helper_fnf", "helper_fn"),
        ("_ZNSt6vectorIfSaIfEE9push_backEOf", "push_back"),
        ("plain_kernel", "plain_kernel"),
    ],
)
def test_plain_name(mangled, name):
    assert sass.plain_name(mangled) == name


def test_parse_res_usage_text():
    usage = sass.parse_res_usage(RES_TEXT)
    assert usage["_Z12spill_kernelPKiPfi"]["STACK"] == 1024
    assert usage["plain_kernel"]["SHARED"] == 1024
    assert usage["plain_kernel"]["CONSTANT[0]"] == 536


KERNELS = r"""
#define TILE 16
__global__ void tiled_kernel(const float *a, float *c, int n) {
    __shared__ float t[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    t[threadIdx.y][threadIdx.x] = (x < n && y < n) ? a[(size_t)y * n + x] : 0.0f;
    __syncthreads();
    if (x < n && y < n) c[(size_t)y * n + x] = t[threadIdx.x][threadIdx.y];
}
__global__ void spill_kernel(const int *idx, float *out, int n) {
    float local[256];
    for (int i = 0; i < 256; ++i) local[i] = out[i * n + threadIdx.x];
    for (int j = 0; j < n; ++j) local[idx[j] & 255] += 1.0f;
    out[threadIdx.x] = local[idx[threadIdx.x] & 255];
}
__global__ void ro_kernel(const float *__restrict__ in, float *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __ldg(&in[i]) * 2.0f;
}
template <int T> __global__ void tmpl_kernel(float *x) { x[threadIdx.x] *= T; }
template __global__ void tmpl_kernel<32>(float *);
extern "C" __global__ void plain_kernel(float *x) { x[threadIdx.x] = 1.0f; }
namespace ns { __global__ void ns_kernel(float *x) { x[0] = 2.0f; } }
__constant__ float c_coef[64];
__global__ void const_uniform_kernel(float *x) { x[threadIdx.x] *= c_coef[3]; }
__global__ void const_divergent_kernel(float *x) { x[threadIdx.x] *= c_coef[threadIdx.x & 63]; }
__global__ void vec4_kernel(const float4 *in, float4 *out) { out[threadIdx.x] = in[threadIdx.x]; }
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> sass.Dump:
    return compile_and_dump(tmp_path_factory.mktemp("sass"), KERNELS)


def compile_and_dump(folder: Path, source: str) -> sass.Dump:
    """``source`` compiled for sm_90 as the course does (-O3) and read back by cuobjdump."""
    need("nvcc")
    need("cuobjdump")
    (folder / "k.cu").write_text(source)
    nvcc = tools.find("nvcc")
    subprocess.run(
        [nvcc.path, "-O3", "-arch=sm_90", "-c", "k.cu", "-o", "k.cu.o"], cwd=folder, check=True
    )
    dumped = sass.dump(tools.find("cuobjdump"), [folder / "k.cu.o"])
    assert dumped.error is None, dumped.error
    return dumped


def test_compiled_function_names(compiled):
    names = {f.name for f in compiled.functions}
    assert names == {
        "tiled_kernel",
        "spill_kernel",
        "ro_kernel",
        "tmpl_kernel",
        "plain_kernel",
        "ns_kernel",
        "const_uniform_kernel",
        "const_divergent_kernel",
        "vec4_kernel",
    }


def test_compiled_text_patterns_see_operands(compiled):
    """require_text / forbid_text read operands: the user constant bank c[0x3], and a
    register-indexed (divergent) read of it; every kernel's LDC R1, c[0x0][0x28] is not one."""
    rules = StaticRules(require_text=(r"c\[0x3\]\[",), forbid_text=(r"^LDC\S*\s.*c\[0x3\]\[R",))
    res = sass.check_kernel(compiled, "const_uniform_kernel", rules, "k.cu")
    assert res.passed, res.messages
    res = sass.check_kernel(compiled, "const_divergent_kernel", rules, "k.cu")
    assert not res.passed
    assert res.forbidden == [r"^LDC\S*\s.*c\[0x3\]\[R"]
    assert "which this exercise forbids (first: " in res.messages[0]
    res = sass.check_kernel(compiled, "plain_kernel", rules, "k.cu")
    assert res.missing == [r"c\[0x3\]\["]
    assert res.messages == [r"plain_kernel: its SASS lacks 'c\[0x3\]\['"]
    worded = StaticRules(require_text=(r"c\[0x3\]\[",), means=((r"c\[0x3\]\[", "a read of c[0x3]"),))
    res = sass.check_kernel(compiled, "plain_kernel", worded, "k.cu")
    assert res.messages == [r"plain_kernel: its SASS lacks a read of c[0x3] ('c\[0x3\]\[')"]


def test_text_pattern_ignores_the_predicate_guard():
    dumped = sass.Dump(sass.parse_sass(SASS_TEXT), {})
    rules = StaticRules(require_text=(r"^STS\.128 \[R7\]",))
    assert sass.check_kernel(dumped, "matmul_tiled_kernel", rules, "k.cu").passed


def test_compiled_tiled_kernel(compiled):
    rules = StaticRules(require=("LDS", "STS", "BAR"), forbid=("LDL", "STL"), max_stack_bytes=0)
    res = sass.check_kernel(compiled, "tiled_kernel", rules, "k.cu")
    assert res.passed, res.messages
    # its own [16][17] floats; the module has a kernel with dynamic shared memory, so
    # cuobjdump's SHARED also holds the 1 KB sm_90 reserves, named apart
    assert "1088 B static shared (+ 1 KB the GPU reserves per block; any dynamic shared memory comes on top, sized at launch)" in (
        res.info
    )
    tiled = compiled.instances("tiled_kernel")[0]
    assert compiled.usage[tiled.mangled]["SHARED"] >= 16 * 17 * 4


def test_compiled_spilling_kernel(compiled):
    spill = compiled.instances("spill_kernel")[0]
    ops = [i.opcode for i in spill.instructions]
    assert any(sass.matches("STL", op) for op in ops)
    assert any(sass.matches("LDL", op) for op in ops)
    assert compiled.usage[spill.mangled]["STACK"] > 0
    rules = StaticRules(forbid=("LDL", "STL"), max_stack_bytes=0)
    res = sass.check_kernel(compiled, "spill_kernel", rules, "k.cu")
    assert not res.passed
    assert res.forbidden == ["LDL", "STL"]
    assert any("stack frame of" in m and "at most 0" in m for m in res.messages)
    assert any("local-memory store" in m for m in res.messages)


def test_compiled_read_only_loads(compiled):
    res = sass.check_kernel(
        compiled, "ro_kernel", StaticRules(require=(r"LDG\.E.*CONSTANT",)), "k.cu"
    )
    assert res.passed, res.messages
    res = sass.check_kernel(
        compiled, "tiled_kernel", StaticRules(require=(r"LDG\.E.*CONSTANT",)), "k.cu"
    )
    assert not res.passed


def test_compiled_template_and_extern_c_and_namespace(compiled):
    rules = StaticRules(require=("STG",))
    for kernel in ("tmpl_kernel", "plain_kernel", "ns_kernel"):
        assert sass.check_kernel(compiled, kernel, rules, "k.cu").passed, kernel


def test_missing_kernel_message(compiled):
    res = sass.check_kernel(
        compiled, "matmul_tiled_kernel", StaticRules(require=("LDS",)), "kernels.cu"
    )
    assert not res.passed
    assert res.messages == [
        "kernel matmul_tiled_kernel not found in kernels.cu: keep the kernel's name from the "
        "skeleton"
    ]


def test_cuobjdump_failure_is_reported(tmp_path):
    need("cuobjdump")
    bogus = tmp_path / "x.o"
    bogus.write_bytes(b"not an object")
    dumped = sass.dump(tools.find("cuobjdump"), [bogus])
    assert dumped.error is not None and "x.o" in dumped.error


# -- the real labs ------------------------------------------------------------------------


def _static_results(lab_dir: Path, variant: str) -> dict[str, sass.StaticResult]:
    """The static rules of ``lab_dir`` on the kernels object ``make`` builds for a variant
    (``student``: the skeleton of labs/, ``solution``: solutions/), with exactly the flags of
    a grading's build (docs/design-notes.md, note 2); made up to date here, so the test needs
    no other build."""
    lab = course.load_lab(lab_dir)  # the kernels come from the judge's --list
    obj = f"build/{lab_dir.name}/{variant}/kernels.cu.o"
    made = subprocess.run(["make", "-s", "-C", str(REPO), obj], capture_output=True, text=True)
    assert made.returncode == 0, made.stdout + made.stderr
    dumped = sass.dump(tools.find("cuobjdump"), [REPO / obj])
    assert dumped.error is None
    return {
        ex.name: sass.check_kernel(dumped, ex.kernel, ex.static, "kernels")
        for ex in lab.exercises
        if ex.static is not None
    }


def _labs_or_skip() -> list[Path]:
    labs = real_labs()
    if not labs:
        pytest.skip(instructors_only_reason() or "no lab with a solution in the repository yet")
    need("nvcc")
    need("cuobjdump")
    return labs


@pytest.mark.slow
def test_real_solutions_pass_their_static_rules():
    checked = 0
    for lab_dir in _labs_or_skip():
        if not any(ex.static for ex in manifest.load(lab_dir).exercises):
            continue  # lab 3.5: the student chooses the spaces; the report lists them, unscored
        results = _static_results(lab_dir, "solution")
        assert results, f"{lab_dir.name} has no static rules"
        for name, res in results.items():
            assert res.passed, f"{lab_dir.name} {name}: {res.messages}"
        checked += 1
    assert checked >= 3, "labs 3.1, 3.3 and 3.4 have static rules"


@pytest.mark.slow
@pytest.mark.instructors
def test_tma_cluster_solution_shows_the_bulk_copy_and_the_cluster_barrier():
    """Lab 3.2g's evidence, read from the solution built for sm_90 as a grading builds it
    (no GPU needed): one bulk copy (UBLKCP), the cluster barrier's arrive and wait
    (UCGABAR_ARV, UCGABAR_WAIT: cluster.sync()), its mbarrier (SYNCS); the skeleton has none."""
    need("nvcc")
    need("cuobjdump")
    lab_dir = REPO / "labs" / "3.2-global-memory"
    opcodes = {}
    for variant in ("solution", "student"):
        obj = f"build/{lab_dir.name}/{variant}/kernels.cu.o"
        made = subprocess.run(["make", "-s", "-C", str(REPO), obj], capture_output=True, text=True)
        assert made.returncode == 0, made.stdout + made.stderr
        dumped = sass.dump(tools.find("cuobjdump"), [REPO / obj])
        assert dumped.error is None
        (fn,) = [f for f in dumped.functions if f.name == "tma_cluster_kernel"]
        assert fn.arch == "sm_90"
        opcodes[variant] = [ins.opcode for ins in fn.instructions]
    sol = opcodes["solution"]
    assert sum(op.startswith("UBLKCP") for op in sol) == 1, sol
    for mnemonic in ("UCGABAR_ARV", "UCGABAR_WAIT", "SYNCS"):
        assert any(op.startswith(mnemonic) for op in sol), mnemonic
    assert not any(op.startswith(("UBLKCP", "UCGABAR")) for op in opcodes["student"])


@pytest.mark.slow
def test_real_skeletons_fail_their_static_rules():
    for lab_dir in _labs_or_skip():
        results = _static_results(lab_dir, "student")
        lab = manifest.load(lab_dir)
        for name, res in results.items():
            if lab.exercise(name).points["static"] > 0:
                assert not res.passed, f"{lab_dir.name} {name}: the skeleton passes"


def test_memory_spaces_of_each_kernel(compiled):
    """grader.spaces: the report's evidence of where each kernel's data lives."""
    from grader import spaces

    by_kernel = {line.split(":")[0]: line for line in spaces.lines(compiled)}
    assert (
        "shared (LDS×" in by_kernel["tiled_kernel"] and "barrier (BAR×" in by_kernel["tiled_kernel"]
    )
    assert "read-only (LDG.CONSTANT×1)" in by_kernel["ro_kernel"]
    assert "local (LDL×" in by_kernel["spill_kernel"] and "STL×" in by_kernel["spill_kernel"]
    assert "constant bank c[0x3] (" in by_kernel["const_divergent_kernel"]
    assert "constant bank" not in by_kernel["plain_kernel"]  # parameters (bank 0x0) do not count
    assert by_kernel["plain_kernel"] == "plain_kernel: global (STG×1)"
    # 128-bit accesses keep their width: a student can show vectorisation
    assert by_kernel["vec4_kernel"] == "vec4_kernel: global (LDG.128×1, STG.128×1)"


def test_a_job_is_done_by_any_of_its_families():
    for opcode in ("STS", "STS.128", "LDGSTS.E.BYPASS.LTC128B.128", "STSM.16.M88.4", "UTMALDG.2D"):
        assert sass.matches("shared_store", opcode), opcode
    for opcode in ("LDS", "LDSM.16.M88.4", "STG.E", "ATOMS.ADD"):
        assert not sass.matches("shared_store", opcode), opcode
    assert sass.matches("shared_load", "LDSM.16.M88.4") and not sass.matches("LDS", "LDSM")
    assert sass.matches("barrier", "BAR.SYNC.DEFER_BLOCKING") and sass.matches("barrier", "SYNCS.ARRIVE.TRANS64")
    assert not sass.matches("no_such_job", "STS")
    # sm_90's Tensor Memory Accelerator and cluster barrier (lab 3.2g)
    assert sass.matches("bulk_copy", "UBLKCP.S.G") and sass.matches("bulk_copy", "UTMALDG.1D")
    assert not sass.matches("bulk_copy", "LDGSTS.E.BYPASS.LTC128B.128")
    assert sass.matches("cluster_barrier", "UCGABAR_WAIT")
    assert not sass.matches("cluster_barrier", "UCGABAR_ARV")  # an arrival alone waits for none
    assert not sass.matches("cluster_barrier", "BAR.SYNC.DEFER_BLOCKING")
    assert sass.describe("cluster_barrier") == (
        "a thread-block-cluster barrier's wait (UCGABAR_WAIT)"
    )
    assert sass.describe("UCGABAR_WAIT") == "UCGABAR_WAIT (thread-block-cluster barrier: wait)"
    assert sass.describe("shared_load") == "a load from shared memory (LDS or LDSM)"


def test_an_async_copy_and_its_wait_are_jobs_of_every_api():
    # lab 3.2e: cp.async waited for by DEPBAR, a block-scope cuda::pipeline or a cuda::barrier
    # waited for on an mbarrier (SYNCS.PHASECHK; a student trial's correct kernel failed the
    # rule while it named DEPBAR), a bulk copy (UBLKCP); a tile through registers does neither
    assert sass.matches("async_copy", "LDGSTS.E.BYPASS.LTC128B.128")
    assert sass.matches("async_copy", "UBLKCP.S.G")
    assert not sass.matches("async_copy", "STS.128")
    assert sass.matches("async_wait", "DEPBAR.LE")
    assert sass.matches("async_wait", "SYNCS.PHASECHK.TRANS64.TRYWAIT")
    assert not sass.matches("async_wait", "SYNCS.ARRIVE.TRANS64.RED.A1T0")  # an arrival
    assert not sass.matches("async_wait", "BAR.SYNC.DEFER_BLOCKING")
    rules = StaticRules(require=("async_copy", "async_wait", "shared_load", "barrier"))
    block_pipeline = Function(
        "_Z1kv",
        "sm_90",
        [Instruction(0, "LDGSTS.E.BYPASS.LTC128B.128", "LDGSTS.E.BYPASS.LTC128B.128 [R3], [R4.64]"),
         Instruction(16, "ARRIVES.LDGSTSBAR.64.TRANSCNT", "ARRIVES.LDGSTSBAR.64.TRANSCNT [UR13]"),
         Instruction(32, "SYNCS.PHASECHK.TRANS64.TRYWAIT",
                     "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R12+URZ+0x8], R7"),
         Instruction(48, "BAR.SYNC.DEFER_BLOCKING", "BAR.SYNC.DEFER_BLOCKING 0x0"),
         Instruction(64, "LDS.128", "LDS.128 R8, [R3]")],
    )
    assert check_kernel(Dump([block_pipeline], {}), "k", rules, "k.cu").missing == []
    no_wait = Function("_Z1kv", "sm_90", [block_pipeline.instructions[i] for i in (0, 3, 4)])
    assert check_kernel(Dump([no_wait], {}), "k", rules, "k.cu").missing == ["async_wait"]


def test_a_kernel_this_architecture_does_not_grade_is_not_called_unwritten():
    from grader import spaces

    empty = Function("_Z18tma_cluster_kernelPf", "sm_80", [])  # built without a body
    assert spaces.lines(Dump([empty], {})) == [f"tma_cluster_kernel: {spaces.NO_MEMORY}"]
    assert spaces.lines(Dump([empty], {}), {"tma_cluster_kernel": "needs sm_90"}) == [
        "tma_cluster_kernel: not graded here (needs sm_90)"
    ]


def test_the_kernels_that_touch_local_memory_are_named_with_their_counts():
    """spaces.local_uses: what lab 3.5's local-memory warning reads (grade.py), as the spaces
    line gives it; a kernel listed once per architecture is named once."""
    from grader import spaces

    ldl = Instruction(0, "LDL", "LDL R4, [R1+0x8]")
    stl = Instruction(16, "STL.128", "STL.128 [R1], R8")
    ldg = Instruction(32, "LDG.E", "LDG.E R2, desc[UR4][R2.64]")
    window = Function("_Z16blur_rows_kernelPKfPfiii", "sm_90", [ldl, ldl, stl, ldg])
    again = Function("_Z16blur_rows_kernelPKfPfiii", "sm_80", [ldl])
    clean = Function("_Z12sobel_kernelPKfPfii", "sm_90", [ldg])
    dumped = Dump([window, again, clean], {})
    assert spaces.local_uses(dumped) == [("blur_rows_kernel", "blur_rows_kernel", "LDL×2, STL.128×1")]
    assert "local (LDL×2, STL.128×1)" in spaces.lines(dumped)[0]


def test_a_kernel_is_unwritten_only_where_every_instance_has_no_memory_instruction():
    """``spaces.unwritten``: the skeleton's kernel (the spaces line's NO_MEMORY), which the
    static finding then calls "not implemented yet" rather than listing each rule's hint."""
    from grader import spaces

    arith = [Instruction(0, "FFMA", "FFMA R0, R1, R2, R3"), Instruction(16, "EXIT", "EXIT")]
    empty = Function("_Z1kPf", "sm_90", arith)
    begun = Function("_Z1kPf", "sm_80", [*arith, Instruction(32, "STG.E", "STG.E [R2.64], R0")])
    bar = Instruction(0, "BAR.SYNC.DEFER_BLOCKING", "BAR.SYNC.DEFER_BLOCKING 0x0")
    barrier = Function("_Z1kPf", "sm_90", [bar])
    assert spaces.unwritten(Dump([empty], {}), "k")
    assert not spaces.unwritten(Dump([empty, begun], {}), "k")  # one architecture's is written
    assert not spaces.unwritten(Dump([barrier], {}), "k")  # a barrier: begun
    assert not spaces.unwritten(Dump([empty], {}), "other")  # not there: its own message


def test_a_grade_of_some_exercises_leaves_the_others_kernels_off_the_spaces_line():
    from grader import spaces

    graded = Function("_Z14unified_kernelPf", "sm_90", [])
    other = Function("_Z18tma_cluster_kernelPf", "sm_90", [])
    helper = Function("_Z6helperv", "sm_90", [])  # no exercise's kernel: still shown
    dumped = Dump([graded, other, helper], {})
    assert [line.split(":")[0] for line in spaces.lines(dumped)] == [
        "unified_kernel", "tma_cluster_kernel", "helper"
    ]
    assert [line.split(":")[0] for line in spaces.lines(dumped, {}, {"tma_cluster_kernel"})] == [
        "unified_kernel", "helper"
    ]


def _spaces_kernels(out: str) -> list[str]:
    """The kernels the report's spaces line names (its first line and those below it)."""
    lines = out.split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("spaces "))
    block = [lines[at].strip()[len("spaces"):].strip()]
    for line in lines[at + 1:]:
        if not line.startswith(" " * 15):  # the next step
            break
        block.append(line.strip())
    return sorted(line.split(":")[0] for line in block if ":" in line and line[0] != "(")


@pytest.mark.instructors
def test_a_grade_of_some_exercises_leaves_the_kernels_their_launchers_reach_off(capsys):
    """Lab 3.1's latency_ladder lists chase_global_kernel, and its launcher chase_shared
    launches chase_shared_kernel: a grade of hierarchy alone named the second on its spaces
    line (a student's trial). The kernels the left-out exercises' launchers reach are off it,
    those of the exercises graded on it, and a line with none says why."""
    need("nvcc")
    need("cuobjdump")
    from helpers import grade_cli

    lab, sub = REPO / "labs" / "3.1-registers", REPO / "solutions" / "3.1-registers"
    kernels = {}
    for exercise in ("hierarchy", "latency_ladder"):
        code, out, err = grade_cli(capsys, "grade", lab, "--submission", sub, "--exercise",
                                   exercise, "--no-perf", "--no-sanitizer")
        assert "Traceback" not in out + err
        kernels[exercise] = _spaces_kernels(out)
        if exercise == "hierarchy":
            assert "no kernels of the exercises graded (--exercise)" in out, out
    assert kernels == {
        "hierarchy": [],
        "latency_ladder": ["chase_global_kernel", "chase_shared_kernel"],
    }, kernels


def test_a_grade_of_some_exercises_leaves_the_kernels_no_launcher_reaches_off(capsys, tmp_path):
    """A kernel of the student's own that no launcher of the lab reaches (a draft left in the
    file) is on no exercise's account: off the spaces line of a grade of some exercises,
    where it read as the graded exercise's; on a whole grade's, which shows every kernel."""
    need("nvcc")
    need("cuobjdump")
    from helpers import grade_cli, submission

    lab = REPO / "labs" / "3.5-project"
    draft = "\n__global__ void draft_kernel(float *x) { x[threadIdx.x] = 1.0f; }\n"
    sub = submission(tmp_path / "sub", (lab / "kernels.cu").read_text() + draft)
    kernels = {}
    for exercise in ("resample_bilinear", None):
        args = ["--exercise", exercise] if exercise else []
        code, out, err = grade_cli(capsys, "grade", lab, "--submission", sub, *args,
                                   "--no-perf", "--no-sanitizer")
        assert "Traceback" not in out + err
        kernels[exercise] = _spaces_kernels(out)
    assert kernels["resample_bilinear"] == ["resample_kernel"], kernels
    assert "draft_kernel" in kernels[None] and "sobel_kernel" in kernels[None], kernels


def test_static_message_names_the_job_not_an_instruction():
    fn = Function("_Z1kv", "sm_90", [])
    dumped = Dump([fn], {})
    res = check_kernel(dumped, "k", StaticRules(require=("shared_store", "BAR")), "k.cu")
    assert res.messages == [
        "k: its SASS has no BAR (barrier: __syncthreads) instruction, and does not show a store "
        "into shared memory "
        "(STS, STSM, LDGSTS, UBLKCP or UTMALDG)"
    ]
    assert res.missing == ["BAR", "shared_store"]


@pytest.mark.parametrize(
    "listing, expected",
    [
        pytest.param(  # atomicAdd whose result is unused: REDG on sm_90 (RED on sm_80)
            [("REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", "REDG.E.ADD.F32 [R2], R5"),
             ("RED.E.ADD", "RED.E.ADD [R2], R5")],
            {"global": {"REDG": 1, "RED": 1}},
            id="sm90-reductions",
        ),
        pytest.param(  # lab 3.2g's kernel on sm_90 (cuobjdump of the solution): the tile
            # arrives by one bulk copy, the blocks meet at the cluster's barrier
            [("UBLKCP.S.G", "UBLKCP.S.G [UR8], [UR4], UR6"),
             ("UCGABAR_ARV", "UCGABAR_ARV"),
             ("UCGABAR_WAIT", "UCGABAR_WAIT"),
             ("BAR.SYNC.DEFER_BLOCKING", "BAR.SYNC.DEFER_BLOCKING 0x0")],
            {"shared": {"UBLKCP": 1},
             "barrier": {"UCGABAR_ARV": 1, "UCGABAR_WAIT": 1, "BAR": 1}},
            id="sm90-bulk-copy-and-cluster-barrier",
        ),
        pytest.param(  # a texture kernel waits for its fetches (DEPBAR on a scoreboard),
            # cp.async code for its copies (LDGDEPBAR the commit, DEPBAR the wait): one
            # thread's, shown apart from the block's BAR
            [("TEX.SCR.LL", "TEX.SCR.LL R4, R2, R4, UR4, 2D, 0x1"),
             ("DEPBAR.LE", "DEPBAR.LE SB5, 0x0"),
             ("LDGDEPBAR", "LDGDEPBAR"),
             ("BAR.SYNC.DEFER_BLOCKING", "BAR.SYNC.DEFER_BLOCKING 0x0")],
            {"texture": {"TEX": 1}, "wait": {"DEPBAR": 1}, "commit": {"LDGDEPBAR": 1},
             "barrier": {"BAR": 1}},
            id="a-threads-own-wait-is-not-a-barrier",
        ),
        pytest.param(  # a warp's exchange through registers (__shfl_sync): shown, though
            # no memory is touched (a lab 3.5 trial's Sobel read like the naive kernel)
            [("SHFL.IDX", "SHFL.IDX PT, R5, R4, R3, 0x1f"),
             ("SHFL.DOWN", "SHFL.DOWN PT, R7, R6, 0x1, 0x1f"),
             ("LDG.E", "LDG.E R2, desc[UR4][R2.64]")],
            {"warp shuffle": {"SHFL": 2}, "global": {"LDG": 1}},
            id="warp-shuffle",
        ),
        pytest.param(  # lab 3.1b's chases: __ldcg, __ldca and a plain load, told apart
            [("LDG.E.STRONG.GPU", "LDG.E.STRONG.GPU R4, desc[UR4][R2.64]"),
             ("LDG.E.STRONG.SM", "LDG.E.STRONG.SM R5, desc[UR4][R2.64]"),
             ("LDG.E.64.STRONG.GPU", "LDG.E.64.STRONG.GPU R6, desc[UR4][R2.64]"),
             ("LDG.E", "LDG.E R7, desc[UR4][R2.64]")],
            {"global": {"LDG.STRONG.GPU": 1, "LDG.STRONG.SM": 1, "LDG.64.STRONG.GPU": 1,
                        "LDG": 1}},
            id="cache-operators",
        ),
    ],
)
def test_spaces_of_a_listing(listing, expected):
    from grader import spaces

    fn = Function(
        "_Z1kPf",
        "sm_90",
        [Instruction(16 * i, opcode, body) for i, (opcode, body) in enumerate(listing)],
    )
    assert spaces.of_function(fn) == expected


def test_a_one_family_job_is_described_with_its_instruction_as_a_student_reads_it():
    assert sass.describe("readonly_load") == (
        "a load through the read-only (non-coherent) path (LDG.E…CONSTANT)"
    )
    assert sass.describe("surface_store") == "a surface store (SUST)"
    assert sass.matches("readonly_load", "LDG.E.128.CONSTANT")
    assert not sass.matches("readonly_load", "LDG.E.128")
    assert sass.matches("texture_fetch", "TLD4.R")


RESERVED = r"""
__global__ void none_kernel(float *x) { x[threadIdx.x] = 1.0f; }
__global__ void own_kernel(float *x) {
    __shared__ float t[1024];
    t[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = t[1023 - threadIdx.x];
}
__global__ void dyn_kernel(float *x) {
    extern __shared__ float s[];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = s[31 - threadIdx.x];
}
"""


def test_static_shared_leaves_out_the_reserved_kilobyte(tmp_path):
    """Beside a kernel with dynamic shared memory, cuobjdump -res-usage counts sm_90's 1 KB of
    reserved shared memory into every kernel's SHARED (a student's FIR kernel with none read
    "1024 B static shared"): the static line gives the kernel's own bytes and names the 1 KB."""
    dumped = compile_and_dump(tmp_path, RESERVED)
    rules = StaticRules(require=(), forbid=())
    none = sass.check_kernel(dumped, "none_kernel", rules, "k.cu").info
    own = sass.check_kernel(dumped, "own_kernel", rules, "k.cu").info
    assert "0 B static shared (+ 1 KB the GPU reserves per block; any dynamic shared memory comes on top, sized at launch)" in none
    assert "4096 B static shared (+ 1 KB the GPU reserves per block" in own


def test_template_instances_are_told_apart_in_the_spaces_line():
    """Two instances of one kernel template were two lines of the same name (a student of lab
    3.5 had to guess which was <true>): each now shows its template arguments."""
    from grader import spaces

    need("c++filt")
    fns = [
        Function("_Z16blur_tile_kernelILb1EEvPKfPfiii", "sm_90"),
        Function("_Z16blur_tile_kernelILb0EEvPKfPfiii", "sm_90"),
        Function("_Z12plain_kernelPKfPf", "sm_90"),
        Function("_Z12plain_kernelPKfPf", "sm_80"),  # one kernel, two architectures: one line
    ]
    assert spaces.lines(Dump(fns, {})) == [
        f"blur_tile_kernel<true>: {spaces.NO_MEMORY}",
        f"blur_tile_kernel<false>: {spaces.NO_MEMORY}",
        f"plain_kernel: {spaces.NO_MEMORY}",
    ]


def test_many_template_instances_with_the_same_spaces_share_a_line():
    """A lab 3.5 trial's kernel templated on its radius read as 40 spaces lines of one kernel:
    beyond MAX_INSTANCES instances, those with the same spaces are one line that counts them;
    one with other spaces keeps its own line, and a template of few instances is unchanged."""
    from grader import spaces

    need("c++filt")
    fns = [Function(f"_Z11blur_kernelILi{r}EEvPKfPf", "sm_90") for r in range(1, 6)]
    fns += [Function("_Z16blur_tile_kernelILb1EEvPKfPfiii", "sm_90")]
    fns += [Function("_Z16blur_tile_kernelILb0EEvPKfPfiii", "sm_90")]
    fns[2] = Function(fns[2].mangled, "sm_90", [Instruction(0, "LDG.E", "LDG.E R0, [R2.64]")])
    assert spaces.lines(Dump(fns, {})) == [
        f"blur_kernel<1> and 3 other instances of blur_kernel: {spaces.NO_MEMORY}",
        "blur_kernel<3>: global (LDG×1)",
        f"blur_tile_kernel<true>: {spaces.NO_MEMORY}",
        f"blur_tile_kernel<false>: {spaces.NO_MEMORY}",
    ]

"""The lab's launch record (common/cml_launches.h) in a program linked as the lab binaries
are: launch_probe/probe.cu, built with nvcc against the course library and the Makefile's
``CML_LAUNCH_WRAP``, makes launches that fail for their configuration through each entry
point and prints what the record holds.

Without a GPU every launch fails ("no device"), and the record must still hold each launch's
configuration: that shows the wrappers sit on every path, ``<<<>>>`` included. With a GPU
(marked ``gpu``) the runtime must also give the kernel's name and attributes from the launch's
handle, and each launch's broken limit must be the one it was written to break.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from grader import tools
from helpers import REPO

pytestmark = pytest.mark.slow  # builds labs or runs the grader: `make test-fast` leaves it out

PROBE = Path(__file__).resolve().parent / "launch_probe" / "probe.cu"
# machine code for the course's GPUs, PTX for later ones (as common/*.cu)
GENCODE = [
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
]


def _make(*args: str) -> str:
    out = subprocess.run(
        ["make", "-C", str(REPO), "-s", "--no-print-directory", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@pytest.fixture(scope="module")
def probe_cases(tmp_path_factory) -> dict[str, dict]:
    """{case: what the probe printed about it}."""
    nvcc = tools.find("nvcc")
    if nvcc is None:
        pytest.skip(tools.not_found("nvcc"))
    _make("common")
    wrap = _make("--eval=print-launch-wrap: ; @echo $(CML_LAUNCH_WRAP)", "print-launch-wrap")
    wrap = wrap.split()
    assert "--wrap=__cudaLaunchKernel" in wrap, wrap
    binary = tmp_path_factory.mktemp("launch_probe") / "probe"
    build = subprocess.run(
        [
            str(nvcc.path),
            "-std=c++17",
            *GENCODE,
            "-I",
            str(REPO / "common"),
            *wrap,
            "-o",
            str(binary),
            str(PROBE),
            str(REPO / "build" / "common" / "libcml.a"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    cases = [json.loads(line) for line in run.stdout.splitlines()]
    return {c["case"]: c for c in cases}


LAUNCHED = {  # case: (grid, block, dynamic shared memory in bytes), as probe.cu launches it
    "grid_zero": ([0, 128, 1], [32, 8, 1], 0),
    "threads_2048": ([4, 1, 1], [32, 64, 1], 0),
    "smem_66kb": ([1, 1, 1], [256, 1, 1], 66 * 1024),
    "api_grid_zero": ([0, 1, 1], [64, 1, 1], 0),
    "ex_grid_zero": ([0, 2, 1], [64, 1, 1], 512),
    "smem_over_attribute": ([1, 1, 1], [256, 1, 1], 100 * 1024),
}


def test_every_entry_point_is_recorded(probe_cases):
    assert set(probe_cases) == set(LAUNCHED)
    for name, (grid, block, smem) in LAUNCHED.items():
        case = probe_cases[name]
        assert case["error"] != 0, case  # every probe launch fails, with or without a GPU
        assert case["recorded"] == 1, case
        assert (case["grid"], case["block"], case["dynamic_smem_bytes"]) == (grid, block, smem)


@pytest.mark.gpu
def test_record_names_the_kernel_and_the_broken_limit(probe_cases):
    expected = {
        "grid_zero": "grid_zero",
        "threads_2048": "block_threads",
        "smem_66kb": "smem_optin",
        "api_grid_zero": "grid_zero",
        "ex_grid_zero": "grid_zero",
        "smem_over_attribute": "smem_attr",
    }
    for name, limit in expected.items():
        case = probe_cases[name]
        assert case["kernel"] == "probe_kernel", case  # cudaFuncGetName on the launch's handle
        assert case["static_smem_bytes"] == 4096, case  # cudaFuncGetAttributes on it
        assert case["registers"] > 0 and case["max_threads_per_block"] > 0, case
        assert case["limit"] == limit, case
    # without the opt-in the runtime reports 48 KB less the static part (or 48 KB itself)
    assert probe_cases["smem_66kb"]["max_dynamic_smem_bytes"] in (48 * 1024 - 4096, 48 * 1024)
    # the opt-in made on the kernel's address shows in the attributes read from its handle
    assert probe_cases["smem_over_attribute"]["max_dynamic_smem_bytes"] == 70000
    # CUDA 13.0 on the H200 (2026-12-01) answers a grid of 0 with cudaErrorInvalidValue (1),
    # not cudaErrorInvalidConfiguration (9): the record, not the code, names the limit
    assert probe_cases["grid_zero"]["error"] == 1

"""Locating the external tools: PATH first, then CUDA folders, then the NVIDIA wheels."""

from __future__ import annotations

import os
import stat

import pytest

from grader import tools


def _exe(folder, name):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_path_comes_first(tmp_path):
    exe = _exe(tmp_path / "bin", "compute-sanitizer")
    found = tools.find("compute-sanitizer", {"PATH": str(tmp_path / "bin")})
    assert found == tools.Tool(str(exe))


def test_cuda_home_is_searched_and_put_on_path(tmp_path):
    exe = _exe(tmp_path / "cuda" / "bin", "cuobjdump")
    found = tools.find("cuobjdump", {"PATH": "/nonexistent", "CUDA_HOME": str(tmp_path / "cuda")})
    assert found.path == str(exe)
    env = found.env({"PATH": "/usr/bin"})
    assert env["PATH"].split(os.pathsep)[0] == str(tmp_path / "cuda" / "bin")


def test_cuobjdump_falls_back_to_the_wheel(monkeypatch, tmp_path):
    wheel_bin = tmp_path / "site" / "nvidia" / "cu13" / "bin"
    exe = _exe(wheel_bin, "cuobjdump")
    monkeypatch.setattr(tools, "_wheel_bin_dirs", lambda: [wheel_bin])
    monkeypatch.setattr(tools, "_cuda_dirs", lambda env: [])
    found = tools.find("cuobjdump", {"PATH": "/nonexistent"})
    assert found.path == str(exe) and found.extra_path == str(wheel_bin)  # nvdisasm is there


def test_missing_tool_is_none_with_an_install_hint():
    assert tools.find("nm", {"PATH": "/nonexistent"}) is None
    assert tools.not_found("cuobjdump") == (
        "cuobjdump not found (install nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm)"
    )


def test_wheel_dirs_are_real_folders():
    dirs = tools._wheel_bin_dirs()
    if not dirs:
        pytest.skip("no NVIDIA CUDA wheel installed")
    for d in dirs:
        assert d.is_dir() and d.name == "bin" and d.parent.name.startswith("cu")

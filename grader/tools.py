"""Where the external tools are: nvcc, cuobjdump, compute-sanitizer and nm.

Search order (docs/design-notes.md, note 5):

- ``nvcc``: ``PATH``, ``$CUDA_HOME/bin``, ``/usr/local/cuda/bin``.
- ``cuobjdump``: the same, then the ``nvidia-cuda-cuobjdump`` wheel
  (``<site-packages>/nvidia/cu13/bin``). ``cuobjdump -sass`` runs ``nvdisasm``, so a
  ``Tool`` carries the extra ``PATH`` entry its subprocesses need (the wheel's bin folder,
  where ``nvidia-cuda-nvdisasm`` installs ``nvdisasm``).
- ``compute-sanitizer``: ``PATH``, ``$CUDA_HOME/bin``, ``/usr/local/cuda/bin``,
  ``/usr/local/cuda/compute-sanitizer``.
- ``nm``: ``PATH`` (binutils).

A tool that is not found is ``None``; the caller reports the step it needed as skipped or
not run, with the install hint from ``INSTALL_HINTS``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINTS = {
    "nvcc": "install the CUDA toolkit, or put its bin folder on PATH or in CUDA_HOME",
    "cuobjdump": "install nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm",
    "compute-sanitizer": "install the CUDA toolkit's compute-sanitizer",
    "ncu": "install the CUDA toolkit's Nsight Compute (ncu)",
    "nm": "install binutils",
    "objdump": "install binutils",
    "c++filt": "install binutils",
}


@dataclass(frozen=True)
class Tool:
    """An executable, and the folder to put first on PATH for its subprocesses (or None)."""

    path: str
    extra_path: str | None = None

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The environment to run this tool in."""
        env = dict(os.environ if base is None else base)
        if self.extra_path:
            env["PATH"] = self.extra_path + os.pathsep + env.get("PATH", "")
        return env


def _executable(path: Path) -> str | None:
    if path.is_file() and os.access(path, os.X_OK):
        return str(path)
    return None


def _cuda_dirs(env: dict[str, str]) -> list[Path]:
    dirs = []
    if env.get("CUDA_HOME"):
        dirs.append(Path(env["CUDA_HOME"]) / "bin")
    dirs.append(Path("/usr/local/cuda/bin"))
    return dirs


def _wheel_bin_dirs() -> list[Path]:
    """``<site-packages>/nvidia/cu*/bin`` of the NVIDIA wheels, newest CUDA first."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    roots = list(spec.submodule_search_locations or [])
    if not roots and spec.origin:
        roots = [str(Path(spec.origin).parent)]
    found = []
    for root in roots:
        for sub in sorted(Path(root).glob("cu[0-9]*"), reverse=True):
            if (sub / "bin").is_dir():
                found.append(sub / "bin")
    return found


def find(name: str, env: dict[str, str] | None = None) -> Tool | None:
    """Locates ``name`` (one of INSTALL_HINTS' keys); None when it is nowhere."""
    env = dict(os.environ if env is None else env)
    on_path = shutil.which(name, path=env.get("PATH"))
    if on_path:
        return Tool(on_path)
    if name in ("nm", "c++filt", "objdump"):
        return None
    dirs = _cuda_dirs(env)
    if name == "compute-sanitizer":
        dirs.append(Path("/usr/local/cuda/compute-sanitizer"))
    for d in dirs:
        exe = _executable(d / name)
        if exe:
            return Tool(exe, str(d))
    if name == "cuobjdump":
        for d in _wheel_bin_dirs():
            exe = _executable(d / name)
            if exe:
                return Tool(exe, str(d))
    return None


def not_found(name: str) -> str:
    """The message for a missing tool: "cuobjdump not found (install ...)"."""
    return f"{name} not found ({INSTALL_HINTS[name]})"

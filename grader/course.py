"""Where the course and its labs are: the course root (the folder with a Makefile and
common/cml_json.h) and its ``labs/<lab>/`` folders, chosen by ``--lab``. A lab's own
manifest is ``grader.manifest``."""

from __future__ import annotations

from pathlib import Path

from grader.errors import GraderError
from grader.manifest import display_path


def find_labs(root: Path) -> list[Path]:
    """Every ``labs/<lab>/`` under ``root`` that has a lab.toml, sorted by name."""
    labs_dir = root / "labs"
    if not labs_dir.is_dir():
        return []
    return sorted(p for p in labs_dir.iterdir() if (p / "lab.toml").is_file())


def select_labs(root: Path, wanted: list[str] | None) -> list[Path]:
    """The labs named by ``--lab`` (an id like "3.3" or a folder name like "3.3-tiling"),
    or all labs. Raises GraderError for a name that matches no lab."""
    labs = find_labs(root)
    if not wanted:
        return labs
    chosen = []
    for w in wanted:
        match = [p for p in labs if p.name == w or p.name.split("-", 1)[0] == w]
        if not match:
            names = ", ".join(p.name for p in labs) or "none"
            raise GraderError(f"no lab '{w}' under {display_path(root / 'labs')} (labs: {names})")
        chosen.extend(m for m in match if m not in chosen)
    return chosen


def find_root(start: Path) -> Path | None:
    """The course root at or above ``start``: the folder with a Makefile and
    common/cml_json.h."""
    p = start.absolute()
    for d in (p, *p.parents):
        if (d / "Makefile").is_file() and (d / "common" / "cml_json.h").is_file():
            return d
    return None


def default_root() -> Path:
    """The course root above the working directory, else the one holding this package."""
    root = find_root(Path.cwd())
    if root is None:
        root = find_root(Path(__file__).resolve().parent)
    if root is None:
        raise GraderError(
            "cannot find the course root (a folder with a Makefile and common/cml_json.h): "
            "run the grader from inside the course repository"
        )
    return root

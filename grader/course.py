"""Where the course and its labs are: the course root (the folder with a Makefile and
common/cml_json.h) and its ``labs/<lab>/`` folders, chosen by ``--lab``. A lab's own
manifest is ``grader.manifest``; ``load_lab`` joins it to what the lab's judge says with
``--list`` (its launchers and kernels: lab.toml does not repeat them)."""

from __future__ import annotations

from pathlib import Path

from grader import build as builder
from grader import harness, manifest, tools
from grader.errors import GraderError
from grader.manifest import display_path


def load_lab(lab_dir: Path, root: Path | None = None, arch: str | None = None) -> manifest.Lab:
    """``lab_dir``'s manifest bound to its judge's ``--list`` (``manifest.bind``): the judge
    is built first when needed (``make build/<lab>/judge``, nvcc required; no GPU)."""
    lab_dir = Path(lab_dir)
    root = root or find_root(lab_dir.absolute().parent)
    if root is None:
        raise GraderError(f"cannot find the course root above {display_path(lab_dir)}")
    lab = manifest.load(lab_dir)
    nvcc = tools.find("nvcc")
    if nvcc is None:
        raise GraderError(f"cannot build the judge: {tools.not_found('nvcc')}")
    judge = builder.build_judge(root, nvcc, arch, lab.name)
    return manifest.bind(lab, harness.course_listing(judge))


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


def lab_folder(text: str | Path) -> Path:
    """The lab folder named on the command line (``labs/3.3-tiling``); GraderError (exit
    status 2) when it is not a folder, naming the labs it may have meant: those of the
    course it would sit in, else of the course around the working directory."""
    path = Path(text)
    if path.is_dir():
        return path
    if path.is_file():
        raise GraderError(
            f"lab folder {text} is a file: name the lab's folder"
            + (f" ({display_path(path.parent)})" if path.name == "lab.toml" else
               ", the one holding lab.toml (e.g. labs/3.3-tiling)")
        )
    root = find_root(path.absolute().parent)
    if root is None:
        try:
            root = default_root()
        except GraderError:
            root = None
    labs = find_labs(root) if root else []
    # "labs/3.3" or a misspelt "labs/3.3-tilling": the labs of the same number first
    same_id = [p for p in labs if p.name.split("-", 1)[0] == path.name.split("-", 1)[0]]
    names = ", ".join(display_path(p) for p in (same_id or labs)) or "none found"
    raise GraderError(
        f"lab folder {text} does not exist ({'did you mean' if same_id else 'the labs'}: {names})"
    )


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

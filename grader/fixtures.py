"""Known-bad submissions: a lab's reference solution with exact text replacements.

A fixture is ``grader/tests/known_bad/<lab>/<name>.toml`` (docs/protocol.md has the lab
contract; the fixture format is)::

    description = "what mistake this is"
    [[replace]]            # one or more
    file = "kernels.cu"    # a student file of the lab
    old = "text that occurs exactly once in solutions/<lab>/<file>"
    new = "the mistaken text"
    [expect]
    exercise = "matmul_tiled"
    lost = ["correctness"]          # parts that must lose points
    report_contains = ["..."]       # substrings of the text report
    in_class = false                # optional: left out of bench/class_batch.py's class
    alone = true                    # optional: its GPU test grades it with the GPU its alone
                                    # (no other worker's gradings beside it; note 88's hog)

An alternative (a correct design) has ``keeps`` instead of ``lost``: the parts it keeps
with all their points on the course's GPU, and may have ``loses_on = { "H100 80GB HBM3" =
["performance"] }``: the parts that another GPU's own thresholds (lab.toml's ``on``, design
note 76) take from it, as measured there (``kept_on``).

Fixtures never copy a whole solution, so they follow it when it changes, and ``apply``
fails loudly (``FixtureError``) the day an ``old`` text no longer occurs exactly once.
The grader's tests grade every fixture on a GPU; ``bench/calibrate.py`` times them.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from grader import manifest


class FixtureError(Exception):
    """A fixture that does not apply to the current solution."""


def known_bad_dir(root: Path) -> Path:
    return root / "grader" / "tests" / "known_bad"


def alternatives_dir(root: Path) -> Path:
    """Correct designs other than the reference, in the same format with ``expect.keeps``."""
    return root / "grader" / "tests" / "alternatives"


def find(root: Path, lab_name: str | None = None, *, alternatives: bool = False) -> list[Path]:
    """Every known-bad fixture, or every alternative with ``alternatives`` (of one lab folder
    name such as "3.3-tiling", or of all labs)."""
    pattern = f"{lab_name}/*.toml" if lab_name else "*/*.toml"
    folder = alternatives_dir(root) if alternatives else known_bad_dir(root)
    return sorted(folder.glob(pattern))


def kept_on(expect: dict, device: dict | None) -> list[str]:
    """The parts an alternative's ``expect`` keeps on ``device`` (the report's device facts,
    a ``name`` key): ``keeps`` less the parts of the ``loses_on`` entry that names that GPU
    (the longest key that is part of its name, as lab.toml's ``on``: manifest.matching_gpu)."""
    loses_on = expect.get("loses_on", {})
    gpu = manifest.matching_gpu(loses_on, device)
    lost = loses_on[gpu] if gpu is not None else ()
    return [p for p in expect["keeps"] if p not in lost]


def load(path: Path) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


def apply(root: Path, path: Path, dest: Path) -> Path:
    """Writes to ``dest`` a copy of solutions/<lab> with the fixture's replacements."""
    fixture = load(path)
    shutil.copytree(root / "solutions" / path.parent.name, dest)
    for rep in fixture["replace"]:
        target = dest / rep["file"]
        text = target.read_text()
        count = text.count(rep["old"])
        if count != 1:
            raise FixtureError(f"{path.name}: 'old' occurs {count} times in {rep['file']}")
        target.write_text(text.replace(rep["old"], rep["new"]))
    return dest

"""A student's earlier grading kept when the batch grades them again (``grader.batch``).

A batch writes each student's files in ``DIR/<id>/`` (``report.json``, ``report.txt``,
``results.json``, ``batch.json``) and a later run that grades the student again (a
resubmission, ``--force``, ``--regrade ID``, a grade left partial or a grader error)
writes them over. Before it does, ``keep`` copies the earlier files into
``DIR/<id>/history/<when>/``, ``<when>`` being the UTC time the earlier ``batch.json`` was
written (``20261206T131500Z``), so that an instructor answering a question about a grade
already given can still read it. Nothing here is read back by the grader: the gradebook is
built from ``DIR/*/batch.json`` only.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

HISTORY = "history"


def keep(folder: Path, names: tuple[str, ...]) -> Path | None:
    """Copies the files ``names`` that ``folder`` holds into ``folder/history/<when>/``
    (``<when>``: the UTC time, to the second, ``batch.json`` was written, else the newest
    file's) and returns that folder; None when ``folder`` holds none of them. A copy
    already kept (the same ``batch.json``: a run interrupted before the student's new files
    were written) is returned, not made again. Raises OSError when the copy cannot be
    made (the caller says so and grades on)."""
    files = [folder / n for n in names if (folder / n).is_file()]
    if not files:
        return None
    row = folder / "batch.json"
    written = row.stat().st_mtime if row in files else max(p.stat().st_mtime for p in files)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(written))
    dest, n = folder / HISTORY / stamp, 1
    while dest.exists():
        if row in files and _same(row, dest / row.name):
            return dest
        n += 1
        dest = folder / HISTORY / f"{stamp}-{n}"
    tmp = folder / HISTORY / f".{dest.name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for p in files:
        shutil.copy2(p, tmp / p.name)
    tmp.rename(dest)  # whole or not at all
    return dest


def _same(a: Path, b: Path) -> bool:
    try:
        return a.read_bytes() == b.read_bytes()
    except OSError:
        return False

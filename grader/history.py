"""A student's earlier grading kept when the batch grades them again (``grader.batch``).

A batch writes each student's files in ``DIR/<id>/`` (``report.json``, ``report.txt``,
``results.json``, ``batch.json``) and a later run that grades the student again (a
resubmission, ``--force``, ``--regrade ID``, a grade left partial or a grader error)
writes them over. Before it does, ``keep`` copies the earlier result into
``DIR/<id>/history/<when>/``, ``<when>`` being the UTC time the earlier ``batch.json`` was
written (``20261206T131500Z``), so that an instructor answering a question about a grade
already given can still read it. Every such grading adds a copy (``--force`` over a class
copies every student's): the history only grows, and an instructor deletes what they no
longer need. Nothing here is read back by the grader: the gradebook is built from
``DIR/*/batch.json`` only.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

from grader.status import row_is_error

HISTORY = "history"


def keep(folder: Path, names: tuple[str, ...]) -> Path | None:
    """Copies the files ``names`` of the last result in ``folder`` into
    ``folder/history/<when>/`` (``<when>``: the UTC second its ``batch.json`` was written,
    ``-2``, ``-3``... after it where that folder exists) and returns that folder. A result is
    its ``batch.json``, written last: None without one (a first grading stopped before it
    was written: a fragment, never a grade). After a grader error (status ``error: ...``,
    which writes ``batch.json`` only) the reports beside it are an earlier result's, kept
    when that one was graded again: only ``batch.json`` is copied. A result already kept
    (the same ``batch.json``: a run interrupted before the student's new files were
    written) is returned, not copied again. Raises OSError when the copy cannot be made
    (the caller says so and grades on); a partial copy is removed."""
    row = folder / "batch.json"
    if not row.is_file():
        return None
    try:
        error = row_is_error(json.loads(row.read_text(encoding="utf-8")).get("status", ""))
    except (ValueError, AttributeError):  # not a row the grader wrote whole: kept as it is
        error = False
    files = [row] if error else [folder / n for n in names if (folder / n).is_file()]
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(row.stat().st_mtime))
    dest, n = folder / HISTORY / stamp, 1
    while dest.exists():
        if _same(row, dest / row.name):
            return dest
        n += 1
        dest = folder / HISTORY / f"{stamp}-{n}"
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".partial-", dir=dest.parent))
    try:
        for p in files:
            shutil.copy2(p, tmp / p.name)
        tmp.rename(dest)  # whole or not at all
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def _same(a: Path, b: Path) -> bool:
    try:
        return a.read_bytes() == b.read_bytes()
    except OSError:
        return False

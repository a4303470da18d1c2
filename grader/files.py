"""Writing result files atomically: the one way the grader writes a file that someone else
(a gradebook reader, Gradescope, an interrupted batch resumed later) may read.

``write_atomic`` writes through a temporary file in the same folder, flushes it to disk and
renames it over the target with ``os.replace``, so readers see the old file or the new
one, never a part; on failure the temporary file is removed and the error propagates.
The file gets the mode a plain ``open`` would give it (0666 less the umask), not the
temporary file's 0600: a gradebook or a report is for the course staff to read.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# read once, at import (single-threaded): os.umask can only be read by setting it
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def write_atomic(path: Path | str, data: str | bytes) -> None:
    """Writes ``data`` (text as UTF-8, or bytes) to ``path`` atomically."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise

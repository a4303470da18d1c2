"""grader.files.write_atomic: whole files only, with the mode a plain open() gives."""

from __future__ import annotations

import os
import stat

from grader import files


def test_written_whole_with_the_umask_mode_not_0600(tmp_path):
    path = tmp_path / "gradebook.csv"
    files.write_atomic(path, "id,total\nalice,3\n")
    assert path.read_text() == "id,total\nalice,3\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~files._UMASK
    files.write_atomic(path, b"replaced")
    assert path.read_bytes() == b"replaced"
    assert [p.name for p in tmp_path.iterdir()] == ["gradebook.csv"]  # no temporary left

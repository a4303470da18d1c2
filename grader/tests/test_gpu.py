"""On a machine with a CUDA device: every solution full marks, every skeleton zero
correctness points without crashing (``python3 -m grader selfcheck``)."""

from __future__ import annotations

import pytest

from helpers import REPO, grade_cli, real_labs


@pytest.mark.gpu
def test_selfcheck(capsys):
    if not real_labs():
        pytest.skip("no lab with a solution in the repository yet")
    code, out, err = grade_cli(capsys, "selfcheck", "--root", REPO, timed=True)
    assert code == 0, out + err

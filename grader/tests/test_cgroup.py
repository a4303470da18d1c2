"""grader.cgroup: each run of submission code in its own pids-limited cgroup, so a fork
bomb cannot take the machine's process table (the H200 batch of 2026-11-29 showed it can
without one). Where the grader cannot make cgroups (not root, read-only /sys/fs/cgroup)
the limit tests are skipped, visibly."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from grader import cgroup
from grader import run as runner


def _running(cmdline: str) -> list[int]:
    """Pids whose /proc/PID/cmdline is exactly ``cmdline`` (NUL-separated arguments)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "cmdline").read_bytes().decode(errors="replace") == cmdline:
                    pids.append(int(d.name))
            except OSError:
                pass
    return pids


needs_cgroup = pytest.mark.skipif(
    cgroup.status().startswith("no process limit"), reason=cgroup.status()
)


@needs_cgroup
def test_a_run_cannot_start_more_than_the_limit_and_its_group_is_removed():
    parent, _ = cgroup._parent()
    script = (
        "grep -o 'cml-grader/run-[0-9a-f-]*' /proc/self/cgroup | head -n 1; "
        "n=0; while [ $n -lt 700 ]; do sleep 30 & if [ $? -ne 0 ]; then break; fi; "
        "n=$((n+1)); done; echo started $n"
    )
    out = runner.run(["/bin/sh", "-c", script], timeout_s=60, max_output=64 * 1024)
    assert out.kind == "exited", out.describe()
    assert "fork" in out.stderr.lower(), out.stderr[-400:]
    assert "started 700" not in out.stdout
    group = out.stdout.splitlines()[0].split("/", 1)[1]
    assert group.startswith("run-")
    # the sleeps are gone with the group, and so is the group (other runs on this machine
    # may have groups of their own: only this run's is checked)
    assert not _running("sleep\x0030\x00")
    assert not (parent / group).exists()


@needs_cgroup
def test_a_run_is_in_its_own_group():
    out = runner.run(["/bin/cat", "/proc/self/cgroup"], timeout_s=10)
    assert f"/{cgroup.PARENT}/run-" in out.stdout, out.stdout


def test_joining_failure_is_said_and_the_run_still_happens(tmp_path):
    argv = ["/bin/sh", "-c", cgroup.JOIN, str(tmp_path / "missing" / "cgroup.procs")]
    out = subprocess.run([*argv, "/bin/echo", "ran"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout == "ran\n"
    assert "could not join the cgroup" in out.stderr


def test_runs_without_limits_are_not_moved():
    out = runner.run(["/bin/cat", "/proc/self/cgroup"], timeout_s=10, limits=False)
    assert f"/{cgroup.PARENT}/run-" not in out.stdout

"""Running untrusted programs: process-group kills, signals by name, truncated output."""

from __future__ import annotations

import os
import time

import pytest

from grader import run
from grader.sandbox import Sandbox


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_timeout_kills_the_whole_process_group(tmp_path):
    pid_file = tmp_path / "child.pid"
    script = f"sleep 300 & echo $! > {pid_file}; wait"
    start = time.monotonic()
    out = run.run(["sh", "-c", script], timeout_s=1)
    assert out.kind == "timeout"
    assert out.describe() == "timed out after 1 s"
    assert time.monotonic() - start < 30
    child = int(pid_file.read_text())
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child), "the shell's sleeping child survived the timeout"


def test_children_left_behind_are_killed_after_a_normal_exit(tmp_path):
    pid_file = tmp_path / "child.pid"
    out = run.run(["sh", "-c", f"sleep 300 & echo $! > {pid_file}; exit 0"], timeout_s=30)
    assert out.ok
    child = int(pid_file.read_text())
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child)


def test_signal_crash_is_reported_by_name():
    out = run.run(["sh", "-c", "kill -SEGV $$"], timeout_s=30)
    assert out.kind == "signaled" and out.signal == "SIGSEGV"
    assert out.describe() == "killed by SIGSEGV"


def test_exit_status_and_output():
    out = run.run(["sh", "-c", "echo hello; echo oops >&2; exit 4"], timeout_s=30)
    assert (out.kind, out.code) == ("exited", 4)
    assert out.stdout == "hello\n" and out.stderr == "oops\n"
    assert not out.ok


def test_output_is_truncated_head_and_tail():
    script = "i=0; while [ $i -lt 5000 ]; do echo line$i; i=$((i+1)); done"
    out = run.run(["sh", "-c", script], timeout_s=60, max_output=1000)
    assert len(out.stdout) < 1200
    assert out.stdout.startswith("line0\n")
    assert out.stdout.rstrip().endswith("line4999")
    assert "bytes cut" in out.stdout


def test_resource_limits_apply_in_the_child():
    out = run.run(["sh", "-c", "ulimit -f; ulimit -c"], timeout_s=30)
    fsize, core = out.stdout.split()
    # dash reports 512-byte blocks, bash 1024-byte blocks
    assert fsize in (str(run.FSIZE_LIMIT_BYTES // 512), str(run.FSIZE_LIMIT_BYTES // 1024))
    assert core == "0"


def test_truncate_keeps_short_output():
    assert run.truncate(b"abc", 10) == "abc"


def test_a_moving_deadline_keeps_a_run_alive_while_it_advances():
    # harness.run_judged_cases: each case's limit counts from the end of the one before
    start = time.monotonic()
    moved = [start]

    def deadline() -> float:
        now = time.monotonic()
        if now - start < 1.5:
            moved[0] = now  # progress: the deadline moves on
        return moved[0] + 0.5

    out = run.run(["sh", "-c", "sleep 30"], timeout_s=0.5, deadline_fn=deadline, cpu_s=60)
    assert out.kind == "timeout" and out.timeout_s == 0.5
    assert 1.8 <= out.seconds < 10, out.seconds  # past the fixed 0.5 s, killed once it stopped


def test_background_work_runs_nicer_and_timed_work_does_not():
    """Background work (builds, correctness and sanitizer runs) yields the CPU to a timed
    run (issue 15): its child is BACKGROUND_NICE steps nicer than the grader, with or
    without the resource limits; a run that is not background keeps the grader's nice."""
    mine = os.nice(0)
    if mine + run.BACKGROUND_NICE > 19:
        pytest.skip(f"the tests run at nice {mine}: no room to be {run.BACKGROUND_NICE} nicer")
    probe = ["python3", "-c", "import os; print(os.nice(0))"]
    for limits in (True, False):
        out = run.run(probe, timeout_s=30, limits=limits, background=True)
        assert int(out.stdout) == mine + run.BACKGROUND_NICE, out.describe()
    out = run.run(probe, timeout_s=30)
    assert int(out.stdout) == mine, out.describe()


def test_untimed_runs_open_one_cuda_work_queue_and_timed_runs_the_default(monkeypatch):
    """A background child (an untimed run: correctness, sanitizer, the probe) starts with
    CUDA_DEVICE_MAX_CONNECTIONS=1, whatever the caller's or the grader's environment says;
    any other child (a timed run's) without the variable, so the driver's default applies
    (design note 48: eight queues per context are what CUDA processes started together wait
    for), and so does an untimed run of a submission that may make streams of its own."""
    probe = ["python3", "-c", "import os; print(os.environ.get('CUDA_DEVICE_MAX_CONNECTIONS'))"]
    monkeypatch.setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32")
    for env in (None, {"PATH": os.environ["PATH"], "CUDA_DEVICE_MAX_CONNECTIONS": "4"}):
        out = run.run(probe, timeout_s=30, env=env, background=True)
        assert out.stdout.strip() == "1", out.describe()
        out = run.run(probe, timeout_s=30, env=env, timed=True)
        assert out.stdout.strip() == "None", out.describe()
    # a submission whose lab lets it make streams keeps the default in its untimed runs too
    streams = Sandbox(kind="none", off=True, own_streams=True)
    out = run.run(probe, timeout_s=30, background=True, sandbox=streams)
    assert out.stdout.strip() == "None", out.describe()
    out = run.run(probe, timeout_s=30, background=True, sandbox=Sandbox(kind="none", off=True))
    assert out.stdout.strip() == "1", out.describe()
    # the caller's mapping is not changed
    mine = {"PATH": os.environ["PATH"]}
    assert run.child_env(mine, True)["CUDA_DEVICE_MAX_CONNECTIONS"] == "1"
    assert mine == {"PATH": os.environ["PATH"]}

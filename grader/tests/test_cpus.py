"""CPUs kept for the timed run (grader/cpus.py): which are kept, the grader moved off them,
a timed run's processes moved onto them."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
import time

import pytest

from grader import batch, cpus
from grader import run as runner


@pytest.fixture(autouse=True)
def _module_state_restored(monkeypatch):
    """Each test leaves the CPUs kept as it found them (``reserve`` sets ``_kept``, ``_all``)."""
    monkeypatch.setattr(cpus, "_kept", cpus._kept)
    monkeypatch.setattr(cpus, "_all", cpus._all)


def test_a_large_machine_keeps_its_last_three_cpus():
    kept, rest = cpus.split(set(range(16)))
    assert kept == {13, 14, 15}
    assert rest == set(range(13))


def test_the_cpus_kept_are_those_the_grader_may_use():
    allowed = {0, 2, 4, 6, 8, 10, 12, 14, 33}  # a cpuset with holes, as Slurm gives
    kept, rest = cpus.split(allowed)
    assert kept == {12, 14, 33} and rest == {0, 2, 4, 6, 8, 10}
    assert kept | rest == allowed and not kept & rest


@pytest.mark.parametrize("n", [1, 2, 4, 7])
def test_a_small_machine_keeps_none(n):
    kept, rest = cpus.split(set(range(n)))
    assert kept == frozenset() and rest == set(range(n))


def test_reserve_moves_the_grader_off_the_kept_cpus(monkeypatch):
    moved = []
    monkeypatch.setattr(cpus, "_kept", frozenset())
    monkeypatch.setattr(cpus, "_all", frozenset())
    monkeypatch.setattr(cpus.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: set(range(16)))
    monkeypatch.setattr(cpus.os, "sched_setaffinity", lambda pid, s: moved.append((pid, set(s))))
    assert cpus.reserve() == {13, 14, 15}
    assert moved == [(0, set(range(13)))]
    assert cpus.reserve() == {13, 14, 15} and len(moved) == 1  # once
    assert cpus.kept() == {13, 14, 15}


def test_reserve_without_taskset_keeps_nothing(monkeypatch):
    """No taskset: a student's process could not be started on the kept CPUs, so none are."""
    moved = []
    monkeypatch.setattr(cpus, "_kept", frozenset())
    monkeypatch.setattr(cpus.shutil, "which", lambda name: None)
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: set(range(16)))
    monkeypatch.setattr(cpus.os, "sched_setaffinity", lambda pid, s: moved.append(s))
    assert cpus.reserve() == frozenset() and moved == []


def test_an_unbound_slurm_task_keeps_nothing_and_counts_its_share(monkeypatch):
    """A Slurm task given 8 of a node's 16 CPUs but not bound to them (TaskPlugin=task/none:
    its affinity is the whole node): it cannot tell which CPUs are its own, so it keeps none
    for timed runs (every task of the node would keep the same 3), and a batch runs 8
    gradings at once, not 16. Bound (affinity = its 8), it keeps 3 as anywhere."""
    moved = []
    monkeypatch.setattr(cpus, "_kept", frozenset())
    monkeypatch.setattr(cpus, "_all", frozenset())
    monkeypatch.setattr(cpus.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: set(range(16)))
    monkeypatch.setattr(cpus.os, "sched_setaffinity", lambda pid, s: moved.append(s))
    monkeypatch.setenv("SLURM_CPUS_ON_NODE", "8")
    assert cpus.slurm_share() == 8
    assert cpus.reserve() == frozenset() and moved == []
    assert batch.default_jobs() == 8
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: set(range(8, 16)))
    assert cpus.slurm_share() is None
    assert cpus.reserve() == {13, 14, 15} and moved == [set(range(8, 13))]
    monkeypatch.delenv("SLURM_CPUS_ON_NODE")
    assert cpus.slurm_share() is None  # outside Slurm


def test_reserve_on_a_small_machine_moves_nothing(monkeypatch):
    moved = []
    monkeypatch.setattr(cpus, "_kept", frozenset())
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(cpus.os, "sched_setaffinity", lambda pid, s: moved.append(s))
    assert cpus.reserve() == frozenset() and moved == []
    assert cpus.prefix() == []


def _one_cpu() -> int:
    return min(os.sched_getaffinity(0))


def test_pin_moves_a_process_and_the_processes_it_started():
    cpu = _one_cpu()
    # a parent (sh) and its child (sleep), both started on every CPU the test may use
    proc = subprocess.Popen(["sh", "-c", "sleep 30 & echo $!; wait"], stdout=subprocess.PIPE)
    try:
        child = int(proc.stdout.readline())
        assert cpus.pin(proc.pid, frozenset({cpu})) >= 2
        assert os.sched_getaffinity(proc.pid) == {cpu}
        assert os.sched_getaffinity(child) == {cpu}
    finally:
        subprocess.run(["pkill", "-P", str(proc.pid)], check=False)
        proc.kill()
        proc.wait()


def test_pin_without_cpus_kept_moves_nothing(monkeypatch):
    monkeypatch.setattr(cpus, "_kept", frozenset())
    assert cpus.pin(os.getpid()) == 0


def test_pin_of_a_process_that_ended_moves_nothing():
    proc = subprocess.Popen(["true"])
    proc.wait()
    time.sleep(0.05)
    assert cpus.pin(proc.pid, frozenset({_one_cpu()})) == 0


@pytest.mark.skipif(shutil.which("taskset") is None, reason="no taskset (util-linux)")
def test_a_timed_run_starts_on_the_kept_cpus_and_background_work_does_not(monkeypatch):
    cpu = _one_cpu()
    monkeypatch.setattr(cpus, "_kept", frozenset({cpu}))
    show = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]
    timed = runner.run(show, timeout_s=30, limits=False, timed=True)
    assert timed.stdout.strip() == f"[{cpu}]"
    other = runner.run(show, timeout_s=30, limits=False, background=True)
    assert other.stdout.strip() == str(sorted(os.sched_getaffinity(0)))


def test_a_batch_grades_one_submission_per_cpu_it_may_use(monkeypatch):
    """A Slurm job's cpuset, not the node's count; the kept CPUs count (grader.batch)."""
    from grader import batch

    monkeypatch.setattr(batch.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    monkeypatch.setattr(batch.os, "cpu_count", lambda: 64)
    monkeypatch.setattr(cpus, "_kept", frozenset())
    assert batch.default_jobs() == 4
    monkeypatch.setattr(cpus, "_kept", frozenset({13, 14, 15}))
    assert batch.default_jobs() == 7


@pytest.mark.skipif(shutil.which("taskset") is None, reason="no taskset (util-linux)")
def test_untimed_runs_under_a_shared_hold_may_use_the_kept_cpus_too(monkeypatch):
    """Inside ``everywhere`` (a batch's grading holding the GPU shared, design note 55) an
    untimed child starts on every CPU the grader may use; outside it, and in another thread,
    on the grader's own; a timed one on the kept CPUs whatever the thread."""
    allowed = os.sched_getaffinity(0)
    cpu = _one_cpu()
    monkeypatch.setattr(cpus, "_kept", frozenset({cpu}))
    monkeypatch.setattr(cpus, "_all", frozenset(allowed))
    show = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]
    assert runner.priority_prefix(True) == runner.background_prefix(True)
    seen = {}
    with cpus.everywhere():
        prefix = runner.priority_prefix(True)
        assert prefix[-3:] == [shutil.which("taskset"), "-c", ",".join(map(str, sorted(allowed)))]
        # the grader's own CPUs narrowed to the others, as reserve() leaves them
        others = allowed - {cpu} or allowed
        os.sched_setaffinity(0, others)
        try:
            inside = runner.run(show, timeout_s=30, limits=False, background=True)
            timed = runner.run(show, timeout_s=30, limits=False, timed=True)
            thread = threading.Thread(
                target=lambda: seen.update(other=runner.priority_prefix(True))
            )
            thread.start()
            thread.join()
        finally:
            os.sched_setaffinity(0, allowed)
    assert inside.stdout.strip() == str(sorted(allowed))
    assert timed.stdout.strip() == f"[{cpu}]"
    assert seen["other"] == runner.background_prefix(True)  # another thread: not inside
    assert runner.priority_prefix(True) == runner.background_prefix(True)  # left again


@pytest.mark.skipif(shutil.which("taskset") is None, reason="no taskset (util-linux)")
def test_a_call_carried_to_another_thread_keeps_the_callers_cpus(monkeypatch):
    """``carried``: a call made in a thread of the grading's own (its sanitizer tools side by
    side, design note 59) starts its untimed runs where the grading's would: on every CPU
    inside ``everywhere``, on the grader's own outside it."""
    monkeypatch.setattr(cpus, "_kept", frozenset({_one_cpu()}))
    monkeypatch.setattr(cpus, "_all", frozenset(os.sched_getaffinity(0)))
    seen = {}

    def in_a_thread(name, call):
        thread = threading.Thread(target=lambda: seen.update({name: call()}))
        thread.start()
        thread.join()

    with cpus.everywhere():
        inside = cpus.untimed_prefix()
        in_a_thread("carried", cpus.carried(cpus.untimed_prefix))
        in_a_thread("plain", cpus.untimed_prefix)
    in_a_thread("outside", cpus.carried(cpus.untimed_prefix))
    assert inside and seen["carried"] == inside
    assert seen["plain"] == [] and seen["outside"] == []


def test_without_kept_cpus_everywhere_changes_nothing(monkeypatch):
    monkeypatch.setattr(cpus, "_kept", frozenset())
    with cpus.everywhere():
        assert cpus.untimed_prefix() == []


@pytest.mark.skipif(shutil.which("taskset") is None, reason="no taskset (util-linux)")
def test_a_judge_let_through_its_gate_still_setting_up_keeps_off_the_kept_cpus(monkeypatch):
    """A gated judge past its set-up's time limit, started on every CPU (design note 55), is
    moved off the kept CPUs before its gate is entered (it may set up on while another
    grading's timed run holds the GPU), and onto them once its gate is held."""
    from grader import harness

    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        pytest.skip("one CPU: nothing to keep")
    kept = frozenset(allowed[-1:])
    monkeypatch.setattr(cpus, "_kept", kept)
    monkeypatch.setattr(cpus, "_all", frozenset(allowed))
    judge = subprocess.Popen(  # never writes its gate line: still setting up
        ["sleep", "30"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
    )
    seen = {}

    @contextlib.contextmanager
    def gate():
        seen["entering"] = os.sched_getaffinity(judge.pid)
        yield

    try:
        with contextlib.ExitStack() as held:
            harness._pass_gate(judge, gate, held, timeout_s=0.2)
            seen["held"] = os.sched_getaffinity(judge.pid)
    finally:
        judge.kill()
        judge.wait()
        judge.stdout.close()
    assert seen["entering"] == set(allowed) - kept
    assert seen["held"] == kept

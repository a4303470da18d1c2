"""grader.gpu_lock: untimed runs share the GPU, a timed run has it alone, and a waiting
timed run is not starved by a stream of untimed ones."""

from __future__ import annotations

import threading
import time

from grader.gpu_lock import GpuLock


def test_untimed_runs_share_the_gpu():
    lock = GpuLock()
    inside = threading.Barrier(3, timeout=5)  # all three must be inside at once

    def untimed():
        with lock.shared():
            inside.wait()

    threads = [threading.Thread(target=untimed) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert not any(t.is_alive() for t in threads)
    assert not inside.broken


def test_a_timed_run_is_alone_and_not_starved():
    lock = GpuLock()
    events: list[str] = []
    log = threading.Lock()

    def note(what):
        with log:
            events.append(what)

    first_in = threading.Event()

    def untimed(name, hold):
        with lock.shared():
            note(f"{name}+")
            first_in.set()
            time.sleep(hold)
            note(f"{name}-")

    def timed():
        with lock.exclusive():
            note("T+")
            time.sleep(0.05)
            note("T-")

    a = threading.Thread(target=untimed, args=("a", 0.3))
    a.start()
    first_in.wait(5)
    t = threading.Thread(target=timed)
    t.start()
    time.sleep(0.05)  # the timed run is now waiting for a
    b = threading.Thread(target=untimed, args=("b", 0.0))  # arrives after the timed run
    b.start()
    for th in (a, t, b):
        th.join(5)
    # the timed run starts only when a is done, and b (which came later) waits for it
    assert events == ["a+", "a-", "T+", "T-", "b+", "b-"], events


def test_upgrade_measures_alone_and_sets_up_alongside():
    """Two gradings each set a timed run up under ``shared()`` and measure under
    ``upgrade()`` (the judge's gate): the set-ups overlap each other and an untimed run, the
    measuring parts overlap nothing, and both finish (no deadlock between two upgrades)."""
    lock = GpuLock()
    state = {"shared": 0, "alone": 0, "overlap": False, "both_set_up": False}
    guard = threading.Lock()
    set_up = threading.Barrier(2, timeout=5)

    def grading():
        with lock.shared():
            with guard:
                state["shared"] += 1
            set_up.wait()  # both set-ups at once
            with guard:
                state["both_set_up"] = True
                state["shared"] -= 1
            with lock.upgrade():
                with guard:
                    state["alone"] += 1
                    state["overlap"] |= state["alone"] > 1 or state["shared"] > 0
                time.sleep(0.05)
                with guard:
                    state["alone"] -= 1
            with guard:
                state["shared"] += 1
            with guard:
                state["shared"] -= 1

    def untimed():
        for _ in range(20):
            with lock.shared():
                with guard:
                    state["shared"] += 1
                    state["overlap"] |= state["alone"] > 0
                time.sleep(0.005)
                with guard:
                    state["shared"] -= 1

    threads = [threading.Thread(target=grading) for _ in range(2)]
    threads.append(threading.Thread(target=untimed))
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not any(t.is_alive() for t in threads), "deadlock"
    assert state["both_set_up"] and not state["overlap"]

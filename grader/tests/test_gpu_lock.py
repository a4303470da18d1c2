"""grader.gpu_lock: untimed runs share the GPU, a timed run has it alone, and a waiting
timed run is not starved by a stream of untimed ones — between the threads of a process
(GpuLock, FileGpuLock) and between processes (FileGpuLock)."""

from __future__ import annotations

import contextlib
import fcntl
import multiprocessing
import sys
import threading
import time

import pytest

from grader import gpu_lock
from grader.gpu_lock import FileGpuLock, GpuLock
from helpers import REPO


@pytest.fixture(params=["threads", "file"])
def new_lock(request, tmp_path):
    """Makes the lock under test: GpuLock, or FileGpuLock on a file of its own (the same
    rules between threads)."""
    if request.param == "threads":
        return GpuLock
    return lambda: FileGpuLock(tmp_path / "gpu.lock")


def _recorder():
    """(events, note): ``note(what)`` appends to the list ``events``, from any thread."""
    events: list[str] = []
    log = threading.Lock()

    def note(what: str) -> None:
        with log:
            events.append(what)

    return events, note


def _wait_for(predicate, what: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.002)


def _timed_note(lock, note, name) -> None:
    with lock.exclusive():
        note(name)


def _untimed_note(lock, note, name) -> None:
    with lock.shared():
        note(name)


def _started(target, *args) -> threading.Thread:
    """A daemon thread running ``target(*args)``, started."""
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


def _queue_timed(lock, note, names) -> list[threading.Thread]:
    """Starts a timed run for each name (noting the name once it holds the GPU alone), each
    one queued for the GPU before the next starts; the caller holds the GPU shared."""
    threads: list[threading.Thread] = []
    before = lock._writers_waiting
    for name in names:
        threads.append(_started(_timed_note, lock, note, name))
        queued = before + len(threads)
        _wait_for(lambda: lock._writers_waiting == queued, f"{name} queued")
    return threads


def test_untimed_runs_share_the_gpu(new_lock):
    lock = new_lock()
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


def test_a_timed_run_is_alone_and_not_starved(new_lock):
    lock = new_lock()
    events, note = _recorder()
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


def test_timed_runs_hold_the_gpu_in_the_order_they_asked(new_lock):
    """Five timed runs queue behind an untimed run, one after the other: each holds the GPU
    alone in the order it asked, not in the order the condition's wake-up happens to pick."""
    lock = new_lock()
    events, note = _recorder()
    with lock.shared():
        threads = _queue_timed(lock, note, [f"T{k}" for k in range(5)])
    for th in threads:
        th.join(5)
    assert events == [f"T{k}" for k in range(5)], events
    assert lock._writers_waiting == 0 and not lock._queue


def _waiting_untimed_runs(lock, n: int, note) -> list[threading.Thread]:
    """Starts n threads that each take ``lock.shared()`` (noting "untimed") while the caller
    holds the GPU alone, and returns once all n wait to be let in."""
    def untimed():
        with lock.shared():
            note("untimed")

    threads = [threading.Thread(target=untimed, daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 5
    while lock._waiting < n and time.monotonic() < deadline:
        time.sleep(0.002)
    assert lock._waiting == n
    return threads


def test_untimed_runs_waiting_when_the_gpu_falls_free_go_before_a_timed_run_asking_then(
    new_lock,
):
    """Design note 58 (g98: a read phase of 7 gradings where 15 waited): when a hold alone
    ends with no timed run queued, the untimed runs waiting then are all let in, and a timed
    run that asks before they wake up (here: before any can take the condition) waits for
    them. Without it that timed run held the GPU first and the others waited for it."""
    lock = new_lock()
    events, note = _recorder()
    first = lock.exclusive()
    first.__enter__()
    threads = _waiting_untimed_runs(lock, 4, note)
    with lock._cond:  # reentrant: nobody else can take it before the next timed run asks
        first.__exit__(None, None, None)
        with lock.exclusive():
            note("timed")
    for t in threads:
        t.join(5)
    assert events == ["untimed"] * 4 + ["timed"], events
    assert (lock._readers, lock._writer, lock._writers_waiting, lock._waiting) == (0, False, 0, 0)


def test_untimed_runs_wait_behind_the_next_timed_run_in_the_queue(new_lock):
    """Writers still go first: a hold alone that ends with another timed run queued lets no
    untimed run in; they come in when the last queued one ends."""
    lock = new_lock()
    events, note = _recorder()
    first = lock.exclusive()
    first.__enter__()
    threads = _waiting_untimed_runs(lock, 3, note)
    second = threading.Thread(target=lambda: _timed(lock, note), daemon=True)
    second.start()
    deadline = time.monotonic() + 5
    while lock._writers_waiting < 1 and time.monotonic() < deadline:
        time.sleep(0.002)
    first.__exit__(None, None, None)
    for t in [second, *threads]:
        t.join(5)
    assert events == ["timed"] + ["untimed"] * 3, events


def _timed(lock, note) -> None:
    with lock.exclusive():
        note("timed")


def test_a_timed_run_that_gives_up_its_wait_says_so_in_the_trace(tmp_path, monkeypatch):
    """A queued timed run that stops waiting writes the queue one shorter, under its name, so
    that lock_trace.py ends the drain there and says it was given up (a review's finding:
    without waiting untimed runs to let in, no line said so, and the drain ran on to the
    next line, laid at another thread's door)."""
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv(gpu_lock.TRACE_ENV, str(trace))
    lock = GpuLock()
    real_wait = lock._cond.wait

    def wait(*args, **kwargs):
        if threading.current_thread().name == "grade amy":
            real_wait(0.05)
            raise RuntimeError("gave up")
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(lock._cond, "wait", wait)

    def timed():
        with contextlib.suppress(RuntimeError), lock.exclusive():
            pass

    with lock.shared():
        amy = threading.Thread(target=timed, name="grade amy", daemon=True)
        amy.start()
        amy.join(5)
        time.sleep(0.05)
    lines = trace.read_text().splitlines()
    assert [line.split(maxsplit=1)[1] for line in lines[1:3]] == [
        "1 1 0 grade amy", "1 0 0 grade amy"]
    ((_, _, ended_by),) = _lock_trace().drains(lines)
    assert ended_by == "grade amy giving up its wait"


def test_a_trace_that_fails_with_stderr_gone_leaves_the_lock_whole(tmp_path, monkeypatch):
    """The trace's line never raises: its file failing, and then its report to a stderr that
    is gone too, leave every count right, and the timed run after them gets the GPU (a
    review's finding: a line that raised between two changes of state left a waiting run
    never let in, a count of -1, or a writer never let go)."""
    class Gone:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setenv(gpu_lock.TRACE_ENV, str(tmp_path / "trace.txt"))
    lock = GpuLock()
    lock._trace.close()  # every write now raises ValueError
    monkeypatch.setattr(sys, "stderr", Gone())
    with lock.shared():
        with lock.upgrade():
            pass
    assert lock._trace is None  # the trace stopped, the lock went on
    events, note = _recorder()
    first = lock.exclusive()
    first.__enter__()
    threads = _waiting_untimed_runs(lock, 2, note)
    first.__exit__(None, None, None)
    for t in threads:
        t.join(5)
    with lock.exclusive():
        note("timed")
    assert events == ["untimed", "untimed", "timed"]
    assert (lock._readers, lock._writer, lock._writers_waiting, lock._waiting) == (0, False, 0, 0)


def test_an_untimed_run_interrupted_while_it_waits_is_not_counted(monkeypatch):
    """A shared() whose wait is interrupted leaves no count behind, let in or not, and the
    timed runs after it still get the GPU."""
    lock = GpuLock()
    real_wait = lock._cond.wait

    for let_in_first in (False, True):
        first = lock.exclusive()
        first.__enter__()

        def wait(*args, **kwargs):
            if let_in_first:  # the GPU falls free (and lets this run in) just before
                lock._writer = False
                lock._let_waiting_in()
                lock._writer = True
            raise KeyboardInterrupt

        monkeypatch.setattr(lock._cond, "wait", wait)
        with pytest.raises(KeyboardInterrupt):
            with lock.shared():
                pass
        monkeypatch.setattr(lock._cond, "wait", real_wait)
        first.__exit__(None, None, None)
        assert (lock._readers, lock._writer, lock._waiting) == (0, False, 0), let_in_first
        with lock.exclusive():
            pass


def test_untimed_runs_waiting_behind_a_timed_run_that_gives_up_get_in():
    """A timed run that stops waiting (its wait raises) while untimed runs wait behind it
    lets them in at once, beside the untimed run that held the GPU (a review's finding: its
    queue's end must open the read phase, as a hold's end does)."""
    lock = GpuLock()
    real_wait, got = lock._cond.wait, threading.Event()

    def wait(*args, **kwargs):
        if threading.current_thread().name == "gives up":
            real_wait(0.1)
            raise RuntimeError("gave up")
        return real_wait(*args, **kwargs)

    lock._cond.wait = wait

    def timed():
        with contextlib.suppress(RuntimeError), lock.exclusive():
            pass

    def untimed():
        with lock.shared():
            got.set()

    with lock.shared():
        gives_up = threading.Thread(target=timed, name="gives up", daemon=True)
        gives_up.start()
        deadline = time.monotonic() + 5
        while not lock._queue and time.monotonic() < deadline:
            time.sleep(0.002)
        threading.Thread(target=untimed, daemon=True).start()
        while not lock._waiting and time.monotonic() < deadline:
            time.sleep(0.002)
        assert lock._waiting == 1
        gives_up.join(5)
        assert got.wait(5)  # while this run still holds the GPU shared
    assert (lock._readers, lock._writer, lock._writers_waiting, lock._waiting) == (0, False, 0, 0)


def test_a_failed_trace_line_as_a_reader_comes_back_leaves_one_count(monkeypatch):
    """Where the trace's line fails (its report to stderr raises) as a grading takes its
    shared hold back after its timed run (upgrade), the grading counts once and leaving
    shared() counts it out: the next timed run gets the GPU (a review's finding: counted
    twice, every later timed run waited forever)."""
    lock = GpuLock()
    note, failed = lock._note, []

    def note_failing_on_the_way_back(why=""):
        callers = {sys._getframe(k).f_code.co_name for k in (1, 2, 3)}
        if "_rejoin_shared" in callers and not failed:  # its first line, once counted in
            failed.append(1)
            raise BrokenPipeError("stderr is gone")
        note(why)

    monkeypatch.setattr(lock, "_note", note_failing_on_the_way_back)
    with pytest.raises(BrokenPipeError):
        with lock.shared():
            with lock.upgrade():
                pass
    assert failed == [1]
    assert (lock._readers, lock._writer, lock._writers_waiting, lock._waiting) == (0, False, 0, 0)
    done = threading.Event()
    threading.Thread(target=lambda: _timed(lock, lambda _: done.set()), daemon=True).start()
    assert done.wait(5)


def test_a_timed_run_that_fails_while_queued_leaves_the_queue(monkeypatch):
    """A waiting timed run that fails (here its trace line cannot be written) leaves the
    queue: the timed run behind it and later untimed runs still get the GPU."""
    lock = GpuLock()
    calls = {"n": 0}
    note = lock._note

    def failing_once(why=""):
        calls["n"] += 1
        if calls["n"] == 2:  # the first writer's "waiting" line
            raise OSError(28, "No space left on device")
        note(why)

    monkeypatch.setattr(lock, "_note", failing_once)
    with lock.shared():  # calls 1
        with pytest.raises(OSError):
            with lock.exclusive():
                pass
    assert not lock._queue and lock._writers_waiting == 0
    done = threading.Event()

    def timed():
        with lock.exclusive():
            done.set()

    threading.Thread(target=timed).start()
    assert done.wait(5)
    with lock.shared():
        pass


def test_upgrade_measures_alone_and_sets_up_alongside(new_lock):
    """Two gradings each set a timed run up under ``shared()`` and measure under
    ``upgrade()`` (the judge's gate): the set-ups overlap each other and an untimed run, the
    measuring parts overlap nothing, and both finish (no deadlock between two upgrades)."""
    lock = new_lock()
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


def test_a_hold_alone_ends_in_a_shared_hold_ahead_of_the_queue(new_lock):
    """``exclusive(then_shared=stack)`` (design note 49): leaving its hold alone, a grading
    holds the GPU shared at once, while another timed run and an untimed run wait; the
    timed run starts only when the stack closes, and the untimed run after it (writers
    first). The same when the body fails: the stack still ends the shared hold."""
    lock = new_lock()
    events, note = _recorder()
    inside, queued, release = threading.Event(), threading.Event(), threading.Event()

    def grading():
        with contextlib.ExitStack() as stack:
            with lock.exclusive(then_shared=stack):
                note("A+")
                inside.set()
                queued.wait(5)
            note("A shared")
            assert lock._readers == 1 and not lock._writer
            release.wait(5)
            note("A-")

    def timed():
        with lock.exclusive():
            note("T")

    def untimed():
        with lock.shared():
            note("U")

    a = threading.Thread(target=grading)
    a.start()
    inside.wait(5)
    t = threading.Thread(target=timed)
    t.start()
    while lock._writers_waiting == 0:
        time.sleep(0.005)
    u = threading.Thread(target=untimed)
    u.start()
    time.sleep(0.05)  # the untimed run now waits behind the timed one
    queued.set()
    time.sleep(0.2)  # A holds shared: neither may start
    assert events == ["A+", "A shared"], events
    release.set()
    for th in (a, t, u):
        th.join(5)
    assert events == ["A+", "A shared", "A-", "T", "U"], events

    with pytest.raises(RuntimeError):
        with contextlib.ExitStack() as stack:
            with lock.exclusive(then_shared=stack):
                raise RuntimeError("the timed run failed")
    assert lock._readers == 0 and not lock._writer and lock._writers_waiting == 0
    if isinstance(lock, FileGpuLock):  # the file let go too
        assert lock._shares == 0 and lock._shared_fd is None and lock._alone_fd is None
    with lock.exclusive():  # the lock is free again
        pass


def test_the_lock_file_is_held_shared_then_alone(tmp_path):
    """What another process sees of a FileGpuLock's holds: flock(2) on the same file."""
    lock = FileGpuLock(tmp_path / "gpu.lock")
    with lock.shared():
        with open(lock.path) as other:
            fcntl.flock(other, fcntl.LOCK_SH | fcntl.LOCK_NB)  # another untimed run: beside it
            fcntl.flock(other, fcntl.LOCK_UN)
            with pytest.raises(BlockingIOError):  # a timed one waits
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with lock.upgrade():  # the judge's gate: alone
            with open(lock.path) as other:
                with pytest.raises(BlockingIOError):
                    fcntl.flock(other, fcntl.LOCK_SH | fcntl.LOCK_NB)
    with open(lock.path) as other:  # all let go
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _process(path, steps, events, ready, policy=(1, 0.0)):
    """A grader process: ``steps`` of ("shared" | "alone" | "upgrade", seconds held); each
    hold's start and end go to ``events`` as (index, what, CLOCK_MONOTONIC seconds).
    ``policy``: its lock's drain (drain_at, drain_after_s)."""
    lock = FileGpuLock(path, *policy)
    ready.wait()
    for i, (what, hold) in enumerate(steps):
        if what == "upgrade":
            with lock.shared():
                with lock.upgrade():
                    events.put((i, "alone+", time.monotonic()))
                    time.sleep(hold)
                    events.put((i, "alone-", time.monotonic()))
            continue
        with lock.shared() if what == "shared" else lock.exclusive():
            events.put((i, what + "+", time.monotonic()))
            time.sleep(hold)
            events.put((i, what + "-", time.monotonic()))


def _run(path, plans, policy=(1, 0.0)):
    """Runs one process per plan (delay in seconds before it starts, steps), all released at
    once, each with the drain ``policy``; returns {(process, step, what): time}."""
    ctx = multiprocessing.get_context("fork")
    events, ready = ctx.Queue(), ctx.Event()
    procs = []
    for k, (delay, steps) in enumerate(plans):
        def body(k=k, delay=delay, steps=steps):
            time.sleep(delay)
            _process(path, steps, _Tagged(events, k), ready, policy)
        procs.append(ctx.Process(target=body))
    for p in procs:
        p.start()
    ready.set()
    for p in procs:
        p.join(20)
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]
    got = {}
    while not events.empty():
        k, i, what, t = events.get()
        got[(k, i, what)] = t
    return got


class _Tagged:
    """A queue whose items name the process that put them."""

    def __init__(self, queue, k):
        self.queue, self.k = queue, k

    def put(self, item):
        self.queue.put((self.k, *item))


def test_a_timed_run_in_one_process_excludes_untimed_runs_of_others(tmp_path):
    """Process 0 shares the GPU for 0.6 s; process 1 then asks for it alone; process 2 asks to
    share after process 1 began to wait: 1 runs after 0 and before 2 (writers first)."""
    got = _run(
        tmp_path / "gpu.lock",
        [(0.0, [("shared", 0.6)]), (0.2, [("alone", 0.3)]), (0.4, [("shared", 0.1)])],
    )
    assert got[(1, 0, "alone+")] >= got[(0, 0, "shared-")]
    assert got[(2, 0, "shared+")] >= got[(1, 0, "alone-")]


def test_untimed_runs_of_two_processes_overlap(tmp_path):
    got = _run(tmp_path / "gpu.lock", [(0.0, [("shared", 0.5)]), (0.1, [("shared", 0.5)])])
    assert got[(1, 0, "shared+")] < got[(0, 0, "shared-")]


@pytest.mark.parametrize("policy", [(1, 0.0), (3, 0.1)], ids=["drain at once", "drain at 3"])
def test_an_upgrade_is_alone_across_processes(tmp_path, policy):
    """Two processes each set up shared and measure alone (the judge's gate), a third keeps
    sharing in short holds: no hold of another process overlaps a measuring one, whether
    each drain begins at the first ask or once 3 wait or 0.1 s passed (note 77)."""
    got = _run(
        tmp_path / "gpu.lock",
        [
            (0.0, [("upgrade", 0.2)] * 2),
            (0.0, [("upgrade", 0.2)] * 2),
            (0.0, [("shared", 0.02)] * 30),
        ],
        policy,
    )
    spans = {}
    for (k, i, what), t in got.items():
        spans.setdefault((k, i), {})[what[-1]] = t
        spans[(k, i)]["alone"] = what.startswith("alone")
    alone = [(k, s["+"], s["-"]) for (k, i), s in spans.items() if s["alone"]]
    assert len(alone) == 4
    for k, start, end in alone:
        for (other, i), s in spans.items():
            if other != k:
                assert s["-"] <= start or s["+"] >= end, (k, other, i)


def test_for_process_reads_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv(gpu_lock.LOCK_ENV, raising=False)
    default = GpuLock()
    assert gpu_lock.for_process(default) is default
    assert gpu_lock.for_process() is None
    monkeypatch.setenv(gpu_lock.LOCK_ENV, str(tmp_path / "g.lock"))
    made = gpu_lock.for_process(default)
    assert isinstance(made, FileGpuLock) and made.path == tmp_path / "g.lock"


def test_a_failed_retake_after_an_upgrade_leaves_the_lock_consistent(tmp_path, monkeypatch):
    """Taking the file shared again after a measuring part fails (no descriptor left): the
    error reaches the caller, nothing is dropped twice, the file is let go, and the lock
    still works (review of design note 36)."""
    lock = FileGpuLock(tmp_path / "gpu.lock")
    real = FileGpuLock._locked
    calls = {"n": 0}

    def flaky(self, path, how):
        calls["n"] += 1
        if calls["n"] == 6:  # shared (turnstile, file), alone (turnstile, file), retake: turnstile
            raise OSError(24, "Too many open files")
        return real(self, path, how)

    monkeypatch.setattr(FileGpuLock, "_locked", flaky)
    with pytest.raises(OSError):
        with lock.shared():
            with lock.upgrade():
                pass
    assert lock._shares == 0 and lock._shared_fd is None and lock._readers == 0
    with open(lock.path) as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # let go
        fcntl.flock(other, fcntl.LOCK_UN)
    with lock.shared():  # and held again by the next shared run
        with open(lock.path) as other:
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_the_trace_records_each_state_and_lock_trace_reads_it(tmp_path, monkeypatch):
    """GRADER_GPU_LOCK_TRACE: a line per change of state, naming the thread that changed it;
    a set-up (shared), its upgrade to a hold alone while another untimed run drains, then
    the shared hold again; lock_trace.py names the run the drain waited for."""
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv(gpu_lock.TRACE_ENV, str(trace))
    lock = GpuLock()
    other_in, other_out = threading.Event(), threading.Event()

    def other():
        with lock.shared():
            other_in.set()
            other_out.wait(5)

    t = threading.Thread(target=other, name="grade bob")
    t.start()
    other_in.wait(5)
    with lock.shared():
        threading.Timer(0.2, other_out.set).start()  # the other run drains for 0.2 s
        with lock.upgrade():
            time.sleep(0.1)
    t.join()
    lines = trace.read_text().splitlines()
    rows = [tuple(int(x) for x in line.split()[1:4]) for line in lines]
    me = threading.current_thread().name
    assert [line.split(maxsplit=4)[4] for line in lines] == [
        "grade bob", me, me, me, "grade bob", me, me, me, me]
    # (readers, writers waiting, writer): other in, we in, we upgrade (drop, wait), other
    # out, we alone, we done, back to shared, out
    assert rows == [(1, 0, 0), (2, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1),
                    (0, 0, 0), (1, 0, 0), (0, 0, 0)]
    lock_trace = _lock_trace()
    spent, holds, span = lock_trace.states(trace.read_text().splitlines())
    assert holds == 1
    assert 0.15 < spent["drain"] < 1.0 and 0.08 < spent["alone"] < 1.0
    ((drained, began, ended_by),) = lock_trace.drains(trace.read_text().splitlines())
    # began: seconds from the trace's start to the drain's; 0.5 s of room for a machine whose
    # cores run two test workers each (.ci/run)
    assert drained == pytest.approx(spent["drain"]) and 0.0 <= began < 0.5
    assert ended_by == "grade bob"  # the untimed run the timed one waited for
    # the one hold alone, under the name of the thread that took it (bench's hold_gap.py)
    assert lock_trace.holds_by_thread(lines) == {me: [pytest.approx(spent["alone"])]}
    old = [" ".join(line.split()[:4]) for line in lines]  # a trace from before the names
    assert lock_trace.drains(old)[0][2] == "" and lock_trace.states(old) == (spent, holds, span)


def test_the_trace_takes_any_thread_name_on_one_line(tmp_path, monkeypatch):
    """A student id from a file name that is not UTF-8 (a surrogate) or holding a line break
    names its thread: the trace escapes it on one line, and the lock works on."""
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv(gpu_lock.TRACE_ENV, str(trace))
    monkeypatch.setenv("LC_ALL", "C")
    lock = GpuLock()

    def run(name):
        threading.current_thread().name = name
        with lock.shared():
            pass
        with lock.exclusive():
            pass

    for name in ("grade Jos\udce9", "grade a\nb"):
        t = threading.Thread(target=run, args=(name,), daemon=True)  # a deadlock fails, not hangs
        t.start()
        t.join(5)
    lines = trace.read_text(encoding="utf-8").splitlines()
    # in, out; queued, alone, out: five lines a thread, each whole
    assert len(lines) == 10 and lock._readers == 0 and not lock._writer
    assert [line.split(maxsplit=4)[4] for line in lines[::5]] == ["grade Jos\\udce9", "grade a b"]


def test_a_drain_a_timed_run_gave_up_is_said_so():
    """lock_trace.py: a drain that ends because the waiting timed run stopped waiting (its
    grading gave up) is not laid at the door of that run's thread as the one waited for."""
    lock_trace = _lock_trace()
    lines = ["0.0 1 0 0 grade bob", "1.0 1 1 0 grade amy", "3.0 1 0 0 grade amy",
             "4.0 0 0 0 grade bob"]
    assert lock_trace.drains(lines) == [(2.0, 1.0, "grade amy giving up its wait")]


@pytest.mark.parametrize("kind", ["thread", "file"])
def test_a_reader_lets_the_waiting_timed_runs_pass_and_takes_its_hold_back(tmp_path, kind):
    """let_timed_runs_pass (design note 54): without a timed run waiting it does nothing;
    with one, the reader's hold is given up until that run has had the GPU alone, then taken
    back; every hold is let go at the end (the lock file's too)."""
    lock = GpuLock() if kind == "thread" else FileGpuLock(tmp_path / "gpu.lock")
    order = []
    with lock.shared():
        assert lock.let_timed_runs_pass() is False and lock._readers == 1

        def timed():
            with lock.exclusive():
                order.append("timed alone")

        t = threading.Thread(target=timed, daemon=True)
        t.start()
        deadline = time.monotonic() + 5
        while lock._writers_waiting == 0 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert lock.let_timed_runs_pass() is True
        order.append("back")
        assert lock._readers == 1 and not lock._writer
        t.join(5)
    assert order == ["timed alone", "back"]
    assert (lock._readers, lock._writer, lock._writers_waiting) == (0, False, 0)


def test_an_interrupted_pass_leaves_the_counts_right():
    """A thread interrupted while it lets timed runs pass (a KeyboardInterrupt in its wait)
    counts itself back in, so that leaving shared() counts it out once: no negative count of
    readers for the timed runs to wait on forever (a review's finding)."""
    lock = GpuLock()
    me, got = threading.current_thread(), threading.Event()

    def timed():
        with lock.exclusive():
            got.set()

    real_wait, interrupted = lock._cond.wait, []

    def wait(*args, **kwargs):
        if threading.current_thread() is me and not interrupted:
            interrupted.append(1)
            raise RuntimeError("interrupted")
        return real_wait(*args, **kwargs)

    with pytest.raises(RuntimeError, match="interrupted"):
        with lock.shared():
            t = threading.Thread(target=timed, daemon=True)
            t.start()
            deadline = time.monotonic() + 5
            while lock._writers_waiting == 0 and not got.is_set() and time.monotonic() < deadline:
                time.sleep(0.005)
            lock._cond.wait = wait
            lock.let_timed_runs_pass()
    t.join(5)
    assert got.is_set() and interrupted
    assert (lock._readers, lock._writer, lock._writers_waiting) == (0, False, 0)


def test_lock_trace_reads_a_convoy_as_read_phases_and_holds():
    """bench/throughput/lock_trace.py's ``cycles`` (design note 55): two holds alone back to
    back after a read phase of 20 s, then a read phase of 5 s and one hold; a gap under a
    second between holds is no read phase."""
    lock_trace = _lock_trace()
    # seconds readers waiting writer
    trace = ["100 1 0 0", "110 3 1 0", "120 0 2 1", "123.5 0 1 0", "123.6 0 1 1",
             "127 1 0 0", "130 1 1 0", "132 0 0 1", "135 0 0 0"]
    holds, phases = lock_trace.cycles(trace)
    assert holds == pytest.approx([3.5, 3.4, 3.0])
    assert phases == [(0.0, 20.0), (27.0, 5.0)]
    assert lock_trace.cycles([]) == ([], [])
    assert lock_trace.cycles(trace + ["136 0 0 1", "138.5 0 1 1"])[0][-1] == pytest.approx(2.5)


def _lock_trace():
    """bench/throughput/lock_trace.py, imported from its file (bench/ is no package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "lock_trace", REPO / "bench" / "throughput" / "lock_trace.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_by_lock_state():
    """bench/throughput/load_by_lock_state.py, imported from its file (it imports
    lock_trace.py and top_by_command.py from its own folder)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "load_by_lock_state", REPO / "bench" / "throughput" / "load_by_lock_state.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _top_sample(clock: str, idle: float, command: str, cpu: float) -> str:
    return (
        f"top - {clock} up 1 day,  1 user,  load average: 1.00, 1.00, 1.00\n"
        f"%Cpu(s): {100 - idle:.1f} us,  0.0 sy,  0.0 ni, {idle:.1f} id,  0.0 wa,  0.0 hi\n"
        "\n    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n"
        f"   1234 root      20   0  100000  10000   1000 R {cpu:5.1f}   0.1   0:01.00 {command}\n"
    )


def test_load_by_lock_state_reads_top_and_dmon_by_the_locks_state(tmp_path, capsys):
    """Session 29 (design note 68): top's and dmon's samples, on the time of day, are
    counted in the lock's state that covers them (on the trace's monotonic clock, through
    the clock file), drains split by the untimed runs still in; a sample across two states
    counts in neither."""
    tool = _load_by_lock_state()
    trace = tmp_path / "trace.txt"
    trace.write_text(  # alone 100-110, a drain with 7 runs in 110-120, shared 120-130
        "100.0 0 0 1 a\n110.0 7 1 0 b\n120.0 2 0 0 c\n130.0 0 0 0 d\n")
    clock = tmp_path / "clock.txt"
    clock.write_text("100.0 3600.0\n")  # monotonic 100 s is 01:00:00
    top = tmp_path / "top.txt"
    top.write_text(
        _top_sample("01:00:04", 80.0, "judge-timed", 100.0)  # 2-4 s: alone
        + _top_sample("01:00:11", 0.0, "lab", 300.0)  # 9-11 s: across two states
        + _top_sample("01:00:14", 30.0, "judge-cases", 200.0)  # 12-14 s: the drain
        + _top_sample("01:00:24", 50.0, "lab", 100.0)  # 22-24 s: shared
    )
    dmon = tmp_path / "dmon.txt"
    dmon.write_text(
        "#Time        gpu     sm    mem     fb\n#HH:MM:SS    Idx      %      %     MB\n"
        " 01:00:02      0     95      5   1000\n 01:00:04      0     90      5   2000\n"
        " 01:00:12      0     20      1   3000\n 01:00:14      0     30      1   4000\n"
    )
    assert tool.main(["tool", str(trace), str(top), "2", str(clock), str(dmon)]) == 0
    lines = capsys.readouterr().out.splitlines()
    out = {line.split("  ")[0].strip(): line for line in lines if not line.startswith("    ")}
    assert lines[lines.index(out["alone"]) + 1] == "    CPUs by command: judge-timed 1.00"
    assert "top    1  busy  20.0 %" in out["alone"] and "sm 90.0 % mean" in out["alone"]
    assert "fb 2000 MB" in out["alone"]
    drain = out["drain, 6+ runs in"]
    assert "top    1  busy  70.0 %" in drain and "sm 30.0 % mean" in drain
    assert "top    1  busy  50.0 %" in out["shared"] and "dmon" not in out["shared"]
    assert "top    0" in out["drain, fewer"]
    # the same from MONO@HH:MM:SS
    assert tool.clock_offset("100@01:00:00") == tool.clock_offset(str(clock)) == 3500.0


@pytest.mark.parametrize("kind", ["threads", "file"])
def test_a_drain_waits_for_w_timed_runs_while_untimed_runs_keep_starting(tmp_path, kind):
    """``drain_at`` 3 (note 77): one or two timed runs waiting do not stop an untimed run from
    starting; the third begins the drain, and the three then hold the GPU back to back, in
    the order they asked, before the untimed run waiting behind them gets in."""
    lock = GpuLock(3, 60.0) if kind == "threads" else FileGpuLock(tmp_path / "gpu.lock", 3, 60.0)
    events, note = _recorder()
    with lock.shared():
        threads = _queue_timed(lock, note, ["T0", "T1"])

        now = _started(_untimed_note, lock, note, "untimed while two wait")
        now.join(2)  # two wait, no drain yet: an untimed run still starts at once
        assert not now.is_alive(), "an untimed run waited behind two timed runs, not three"
        assert not lock._draining
        threads += _queue_timed(lock, note, ["T2"])
        _wait_for(lambda: lock._draining, "the third begins the drain")

        late = _started(_untimed_note, lock, note, "untimed behind")
        _wait_for(lambda: lock._waiting == 1, "the untimed run waits behind the drain")
    for th in (*threads, late):
        th.join(5)
    assert events == ["untimed while two wait", "T0", "T1", "T2", "untimed behind"], events
    assert not lock._draining and not lock._queue


def test_a_drain_begins_when_the_first_timed_run_has_waited_t():
    """``drain_after_s``: a lone timed run behind a long untimed hold begins the drain after T
    seconds (its own wait times out), not after W others ask."""
    lock = GpuLock(8, 0.2)
    done = threading.Event()

    def timed():
        with lock.exclusive():
            done.set()

    with lock.shared():
        t = threading.Thread(target=timed, daemon=True)
        start = time.monotonic()
        t.start()
        _wait_for(lambda: lock._writers_waiting == 1, "queued")
        assert not lock._draining
        _wait_for(lambda: lock._draining, "drained after T", timeout=3)
        assert time.monotonic() - start >= 0.2
    t.join(5)
    assert done.is_set() and not lock._draining


def test_a_timed_run_on_a_free_gpu_starts_at_once_whatever_w():
    """Nothing holds the GPU: a timed run does not wait for W others or for T."""
    lock = GpuLock(8, 60.0)
    start = time.monotonic()
    with lock.exclusive():
        assert time.monotonic() - start < 1.0
    assert not lock._draining


def test_a_reader_does_not_step_out_before_the_drain_begins():
    """let_timed_runs_pass gives the hold up only once a drain has begun: a timed run
    waiting for W others does not make readers leave and come back for nothing."""
    lock = GpuLock(2, 60.0)
    with lock.shared():
        def timed():
            with lock.exclusive():
                pass

        t = threading.Thread(target=timed, daemon=True)
        t.start()
        _wait_for(lambda: lock._writers_waiting == 1, "queued")
        assert lock.let_timed_runs_pass() is False
    t.join(5)
    assert not t.is_alive()


@pytest.mark.parametrize(
    "text,policy",
    [
        ("", (1, 0.0)),
        ("8", (8, gpu_lock.DRAIN_AFTER_S)),
        (" 4 , 12.5 ", (4, 12.5)),
        ("2,0", (2, 0.0)),
    ],
)
def test_drain_policy_reads_the_environment(monkeypatch, text, policy):
    monkeypatch.setenv(gpu_lock.DRAIN_ENV, text)
    assert gpu_lock.drain_policy() == policy


@pytest.mark.parametrize("text", ["0", "-1", "x", "8,", "8,-1", "8,nan", "8,1e9", "²", "4,²"])
def test_drain_policy_refuses_what_it_cannot_read(monkeypatch, text):
    monkeypatch.setenv(gpu_lock.DRAIN_ENV, text)
    with pytest.raises(ValueError, match="give W, the timed runs that must wait"):
        gpu_lock.drain_policy()


def test_drain_policy_refuses_a_wait_beside_a_drain_at_the_first_ask(monkeypatch):
    """W = 1 drains at the first timed run's ask: a T beside it would be ignored (an
    instructor's trial, session 34), so it is refused, naming the fix."""
    monkeypatch.setenv(gpu_lock.DRAIN_ENV, "1,5")
    with pytest.raises(ValueError, match="with W = 1 a drain begins at the first"):
        gpu_lock.drain_policy()


def test_a_drain_begun_by_its_timer_is_in_the_trace(tmp_path, monkeypatch):
    """A drain that the first timed run's wait begins (T passed, not an ask) writes its line:
    lock_trace.py reads the wait before it as shared and the drain as drain (a review's
    finding: the first version wrote none, and the drain read as shared)."""
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv(gpu_lock.TRACE_ENV, str(trace))
    lock = GpuLock(8, 0.3)
    with lock.shared():
        t = threading.Thread(target=_timed_hold, args=(lock,), daemon=True)
        t.start()
        _wait_for(lambda: lock._draining, "drained after T", timeout=3)
        time.sleep(0.3)
    t.join(5)
    sys.path.insert(0, str(REPO / "bench" / "throughput"))
    import lock_trace

    spent, holds, _ = lock_trace.states(trace.read_text().splitlines())
    assert holds == 1 and spent["shared"] >= 0.25 and spent["drain"] >= 0.25, spent


def _timed_hold(lock):
    with lock.exclusive():
        pass


def test_a_timed_run_giving_up_during_a_hold_leaves_the_drain_to_the_hold(monkeypatch):
    """W = 3: A holds the GPU alone; B, the only one queued, gives up its wait (interrupted).
    The drain lasts until A's hold ends, so C, asking then, still goes before the untimed
    run R that asked before C (a review's finding: the drain ended with B's wait)."""
    lock = GpuLock(3, 60.0)
    events, note = _recorder()
    a_in, a_out = threading.Event(), threading.Event()

    def a():
        with lock.exclusive():
            a_in.set()
            a_out.wait(5)
            note("A")

    threading.Thread(target=a, daemon=True).start()
    assert a_in.wait(5) and lock._draining
    real_wait = lock._cond.wait

    def interrupted(timeout=None):
        if threading.current_thread().name == "B":
            raise KeyboardInterrupt
        return real_wait(timeout)

    monkeypatch.setattr(lock._cond, "wait", interrupted)
    b_done = threading.Event()

    def b():
        with contextlib.suppress(KeyboardInterrupt):
            with lock.exclusive():
                note("B")
        b_done.set()

    threading.Thread(target=b, name="B", daemon=True).start()
    assert b_done.wait(5) and not lock._queue
    monkeypatch.setattr(lock._cond, "wait", real_wait)

    r = _started(_untimed_note, lock, note, "R")
    _wait_for(lambda: lock._waiting == 1, "R waits behind A's hold")
    c = _started(_timed_note, lock, note, "C")
    _wait_for(lambda: lock._writers_waiting == 1, "C queued")
    a_out.set()
    for th in (r, c):
        th.join(5)
    assert events == ["A", "C", "R"], events


def test_stop_wanted_once_a_drain_has_waited_s_for_a_reader(new_lock, tmp_path, monkeypatch):
    """GRADER_DRAIN_STOP_AFTER's S (design note 78), in GpuLock and FileGpuLock alike: a run
    under a shared hold is to be stopped only once a drain has waited S for it (from the
    drain's start, or the run's own start if later), never outside a drain; the hold given
    up after a stop lets the timed run in, counts the stop and marks the trace's line, which
    lock_trace.py counts and names as the drain's end."""
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv(gpu_lock.TRACE_ENV, str(trace))
    lock = new_lock()
    lock.stop_after_s = 0.3
    events, note = _recorder()
    with lock.shared():
        started = time.monotonic()
        time.sleep(0.4)
        assert not lock.stop_wanted(started)  # no timed run waits: no drain
        t = _started(_timed_note, lock, note, "timed")
        _wait_for(lambda: lock._draining, "a drain")
        assert not lock.stop_wanted(started)  # S not yet waited, however old the run
        _wait_for(lambda: lock.stop_wanted(started), "S waited", timeout=3)
        assert time.monotonic() - lock._drain_began > 0.3
        assert not lock.stop_wanted(time.monotonic())  # a run started now has S of its own
        assert events == []
        assert lock.let_timed_runs_pass(stopped=True) is True
        assert events == ["timed"] and lock.stops == 1
        assert not lock.stop_wanted(started)  # the drain is over
    t.join(5)
    lines = trace.read_text().splitlines()
    assert lines[2].endswith(f"{threading.current_thread().name} {gpu_lock.STOPPED_MARK}")
    lock_trace = _lock_trace()
    assert lock_trace.stops(lines) == 1
    ((_, _, ended_by),) = lock_trace.drains(lines)
    assert ended_by.endswith(gpu_lock.STOPPED_MARK)


def test_no_stop_is_wanted_by_default(new_lock):
    """Without S (GRADER_DRAIN_STOP_AFTER unset) no run is ever to be stopped, however long a
    drain waits for it, and a pass counts no stop."""
    lock = new_lock()
    assert lock.stop_after_s is None
    with lock.shared():
        started = time.monotonic() - 3600
        t = _started(_timed_hold, lock)
        _wait_for(lambda: lock._draining, "a drain")
        time.sleep(0.1)
        assert not lock.stop_wanted(started)
        assert lock.let_timed_runs_pass() is True
    t.join(5)
    assert lock.stops == 0


@pytest.mark.parametrize("text,seconds", [("", None), (" ", None), ("5", 5.0), (" 0.5 ", 0.5),
                                          ("0.1", 0.1), ("600", 600.0), ("1e1", 10.0)])
def test_drain_stop_after_reads_the_environment(monkeypatch, text, seconds):
    monkeypatch.setenv(gpu_lock.STOP_ENV, text)
    assert gpu_lock.drain_stop_after() == seconds


@pytest.mark.parametrize(
    "text", ["0", "-1", "x", "600.5", "nan", "inf", "5s", "²", "５", "0.01", "0.099"]
)
def test_drain_stop_after_refuses_what_it_cannot_read(monkeypatch, text):
    """Anything but seconds from 0.1 to 600 (an instructor's trial: 0.01, a slip for seconds
    that the run's polls every 0.02 s cannot keep, was accepted), the range in the message."""
    monkeypatch.setenv(gpu_lock.STOP_ENV, text)
    with pytest.raises(ValueError, match=r"GRADER_DRAIN_STOP_AFTER=.*give S, the seconds.*"
                       r"\(0\.1 to 600\)"):
        gpu_lock.drain_stop_after()


def test_for_process_gives_its_lock_the_stop(monkeypatch, tmp_path):
    """A lock file's lock (GRADER_GPU_LOCK) gets the batch's S too."""
    monkeypatch.setenv(gpu_lock.LOCK_ENV, str(tmp_path / "gpu.lock"))
    lock = gpu_lock.for_process(GpuLock(), (1, 0.0), 2.5)
    assert isinstance(lock, FileGpuLock) and lock.stop_after_s == 2.5

"""The GPU shared by the submissions of a batch: many untimed runs, or one timed run.

Correctness and sanitizer runs only need the right answer, so several submissions may run
them on the GPU at once (each in its own process and CUDA context). A performance run
measures time, and another process's kernels on the same GPU would slow it: it must run
alone (DESIGN.md, "Timing method"; issue 6: "GPU runs one submission at a time, because
concurrent kernels would corrupt each other's timings").

``GpuLock`` is a readers–writer lock: ``shared()`` for untimed runs, ``exclusive()`` for a
timed one. Writers are preferred: once a timed run waits, no new untimed run starts, so
the performance runs of a large class are not starved by the correctness runs of the
others. Waiting timed runs hold the GPU in the order they asked for it (first come, first
served: which thread a ``notify_all`` wakes first must not decide it; design note 50). And
when the GPU falls free with no timed run waiting, every untimed run waiting then is let in
at once, counted in by the thread that freed it, so a timed run that asks before those
threads wake up waits for them (design note 58: else the first grading of a new read phase
to ask for its timed run shut out the others still waking, for a whole cycle of holds).
(Python's standard library has no readers–writer lock; this is the textbook one on a
``threading.Condition``.)

A drain (no new untimed run, the timed runs waiting for those in progress to end) starts, by
default, when the first timed run asks. ``drain_at`` W > 1 (``GRADER_DRAIN_AT``, design note
77) starts it only once W timed runs wait, or the first of them has waited ``drain_after_s``,
or no untimed run holds the GPU: until then untimed runs keep starting, and a drain once
begun lasts until every timed run waiting has had the GPU. Fewer drains: the class of
session 33 spent 118 s of 563 in drains whose last one or two untimed runs kept the machine
nearly idle. The policy is a process's own: a ``FileGpuLock``'s timed run in another process
waits for this one's untimed runs as long as this process's drain has not begun (up to T),
so processes sharing a lock file should share a policy; a single ``grade`` keeps the
default (it has one timed run at a time: W > 1 could only delay it by T).

``stop_after_s`` S (``GRADER_DRAIN_STOP_AFTER``, design note 78; default None, off) shortens a
drain: an untimed run still in once the drain has waited S seconds (from the drain's start; a
batch's grading counts every run of a hold older than the drain so) is to be stopped
(``stop_wanted``, which the run's wait loop polls: grader.run's ``stoppable``), its grading's
hold given up until the timed runs have had the GPU (``let_timed_runs_pass(stopped=True)``, its
trace line marked), and the run made again from its start afterwards, never stopped a second
time (grader.grade, ``Grading._untimed``). Like the drain's policy it acts within one process:
a ``FileGpuLock`` sees only the drains of its own process's timed runs.

``FileGpuLock`` extends it to other processes through a lock file (``GRADER_GPU_LOCK``): two
batches, or a batch and a grade, or pytest's workers grading fixtures, on one GPU
(``for_process``).
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

LOCK_ENV = "GRADER_GPU_LOCK"  # a lock file every grader process on this GPU names
DRAIN_ENV = "GRADER_DRAIN_AT"  # "W" or "W,T": drain_policy
DRAIN_AFTER_S = 30.0  # drain_policy's T when only W is given
DRAIN_AFTER_MAX_S = 3600.0  # the most T it accepts
STOP_ENV = "GRADER_DRAIN_STOP_AFTER"  # "S": drain_stop_after
STOP_MAX_S = 600.0  # the most drain_stop_after accepts
# the least it accepts: a run's wait loop asks every 0.02 s (run.POLL_S), so an S under 0.1 s
# would be off by a fifth or more, and stop every run in flight as a drain begins; such a
# value is a slip (minutes or a factor written for seconds), not an experiment
STOP_MIN_S = 0.1
STOPPED_MARK = "(stopped an untimed run for the drain)"  # ends a trace line's thread name
# A file to which each lock appends its state at every change (bench/throughput/lock_trace.py
# reads it: how long the GPU was held alone, shared, drained for a waiting timed run, idle)
TRACE_ENV = "GRADER_GPU_LOCK_TRACE"


def drain_policy() -> tuple[int, float]:
    """(W, T) from ``GRADER_DRAIN_AT`` ("W" or "W,T"; unset or empty: (1, 0), a drain at the
    first timed run's ask): a drain starts once W timed runs wait or the first has waited T
    seconds (``DRAIN_AFTER_S`` when only W is given). Raises ValueError, with what to give,
    on anything else."""
    text = os.environ.get(DRAIN_ENV, "").strip()
    if not text:
        return 1, 0.0
    head, comma, tail = text.partition(",")
    head, tail = head.strip(), tail.strip()
    ok = head.isascii() and head.isdigit() and int(head) >= 1
    after = DRAIN_AFTER_S
    if ok and comma:
        try:
            after = float(tail) if tail.isascii() else -1.0
        except ValueError:
            after = -1.0
        ok = 0 <= after <= DRAIN_AFTER_MAX_S  # (nan fails this too)
    if not ok:
        raise ValueError(
            f"{DRAIN_ENV}={text!r}: give W, the timed runs that must wait before a drain "
            "starts (a whole number, at least 1), and optionally ',T', the seconds the first "
            f"of them may wait (0 to {DRAIN_AFTER_MAX_S:g}; default {DRAIN_AFTER_S:g}): "
            "e.g. 8,20; or unset it"
        )
    if int(head) == 1 and comma:  # (an instructor's trial, session 34: T was ignored)
        raise ValueError(
            f"{DRAIN_ENV}={text!r}: with W = 1 a drain begins at the first timed run's ask, "
            f"so T means nothing: give {DRAIN_ENV}=1, or a W above 1 with its T"
        )
    return int(head), after


def drain_stop_after() -> float | None:
    """S from ``GRADER_DRAIN_STOP_AFTER`` (seconds, ``STOP_MIN_S`` to ``STOP_MAX_S``;
    unset or empty: None, no run is ever stopped): an untimed run that keeps a drain waiting
    S seconds is stopped and made again after it (the module's docstring, design note 78).
    Raises ValueError, with what to give, on anything else."""
    text = os.environ.get(STOP_ENV, "").strip()
    if not text:
        return None
    try:
        seconds = float(text) if text.isascii() else -1.0
    except ValueError:
        seconds = -1.0
    if not STOP_MIN_S <= seconds <= STOP_MAX_S:  # (nan and inf fail this too)
        raise ValueError(
            f"{STOP_ENV}={text!r}: give S, the seconds an untimed run may keep a drain for "
            f"the timed runs waiting before it is stopped and made again after the drain "
            f"({STOP_MIN_S:g} to {STOP_MAX_S:g}): e.g. 5; or unset it"
        )
    return seconds


class GpuLock:
    def __init__(
        self, drain_at: int = 1, drain_after_s: float = 0.0, stop_after_s: float | None = None
    ) -> None:
        """``drain_at``, ``drain_after_s``: when a drain starts (the module's docstring,
        ``drain_policy``); the defaults drain at the first timed run's ask.
        ``stop_after_s``: how long an untimed run may keep a drain waiting before
        ``stop_wanted`` says to stop it (``drain_stop_after``); None: never."""
        self._drain_at = max(1, drain_at)
        self._drain_after_s = drain_after_s
        self.stop_after_s = stop_after_s
        # holds given up after untimed runs were stopped for a drain (a grading's runs side
        # by side are stopped together: one each): let_timed_runs_pass(stopped=True)
        self.stops = 0
        self._draining = False  # a drain begun: lasts until no timed run waits or holds
        self._drain_began = 0.0  # when it began (monotonic)
        self._first_ask = 0.0  # when the oldest timed run now waiting asked (monotonic)
        self._cond = threading.Condition()
        self._readers = 0  # untimed runs in progress
        self._writer = False  # a timed run in progress
        self._queue: collections.deque[object] = collections.deque()  # waiting timed runs
        self._waiting = 0  # untimed runs waiting for the GPU to fall free (``_let_in``)
        self._openings = 0  # times it fell free with untimed runs waiting (``_let_waiting_in``)
        trace = os.environ.get(TRACE_ENV, "").strip()
        # UTF-8 whatever the locale, a name that cannot be encoded (a student id from a
        # file name that is not UTF-8) escaped, never an error inside the lock
        self._trace = (
            open(trace, "a", buffering=1, encoding="utf-8", errors="backslashreplace")
            if trace else None
        )

    @property
    def _writers_waiting(self) -> int:
        """Timed runs waiting for the GPU, in the order they asked (``_queue``)."""
        return len(self._queue)

    @property
    def _closed(self) -> bool:
        """No new untimed run may start: a timed run holds the GPU or a drain has begun."""
        return self._writer or self._draining

    def _maybe_drain(self, note: bool = True) -> None:
        """With ``_cond`` held: begins the drain where timed runs wait and W of them do, or
        the first has waited T, or no run of any kind holds the GPU (nothing to wait for);
        writes the trace's line for it unless ``note`` is False (the caller writes one)."""
        if self._draining or not self._queue:
            return
        if (
            len(self._queue) >= self._drain_at
            or time.monotonic() - self._first_ask >= self._drain_after_s
            or not (self._readers or self._writer)
        ):
            self._draining = True
            self._drain_began = time.monotonic()
            self._cond.notify_all()
            if note:  # the drain's start, whoever began it (a timer, the last reader)
                self._note()

    def _queue_emptied(self) -> None:
        """With ``_cond`` held, after a timed run left the queue or the GPU: the drain ends
        when no timed run waits or holds the GPU any more (one that gave up its wait while
        another held it leaves the drain to that one's end: a review's finding)."""
        if not self._queue and not self._writer:
            self._draining = False

    def _note(self, why: str = "") -> None:
        """With ``_cond`` held: appends "SECONDS READERS WRITERS_WAITING WRITER THREAD" (a
        monotonic clock, the state just reached, and the name of the thread that changed it:
        a batch's grading is named after its student; ``why``, when given, follows the name:
        ``STOPPED_MARK``) to the trace file, when ``TRACE_ENV`` names one. Never raises (but
        for an interrupt): it runs between the lock's changes of state, which a failure there
        would leave half made (a review found a count left wrong, a waiting run never let
        in, a writer never let go)."""
        if self._trace:
            name = " ".join(f"{threading.current_thread().name} {why}".split())  # one line
            try:
                # WRITERS_WAITING: those waiting once a drain has begun (lock_trace.py's
                # "drain"); before that, untimed runs still start beside them: "shared"
                waiting = self._writers_waiting if self._draining else 0
                self._trace.write(
                    f"{time.monotonic():.6f} {self._readers} {waiting} "
                    f"{int(self._writer)} {name}\n"
                )
            except Exception as e:  # a full disk: the grading goes on untraced
                self._trace = None
                with contextlib.suppress(Exception):  # (stderr may be gone too)
                    print(f"grader: the GPU lock's trace stopped: {e}", file=sys.stderr)

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        """Held around untimed GPU work (device probe, correctness, sanitizer)."""
        with self._cond:
            self._let_in()
            self._note()
        try:
            self._hold_shared()
            yield
        finally:
            self._leave_shared()

    def _let_in(self) -> None:
        """With ``_cond`` held: counts this thread among the readers, at once where no timed
        run holds the GPU or waits for it, else when the GPU next falls free with no timed run
        waiting (``_let_waiting_in``), even if one asks before this thread wakes up.
        Interrupted, it raises without having counted this thread in. Writes no trace line:
        the caller does, once it knows it counts (a line that fails must not leave the count
        in doubt: a review's finding)."""
        if not self._closed:
            self._readers += 1
            return
        opening = self._openings
        self._waiting += 1
        try:
            while self._openings == opening:
                self._cond.wait()
        except BaseException:
            if self._openings == opening:  # not let in yet: no longer waiting either
                self._waiting -= 1
            else:  # let in just as it was interrupted: counted out again
                self._count_out()
            raise

    def _let_waiting_in(self) -> None:
        """With ``_cond`` held: where no timed run holds the GPU or waits for it, lets in
        every untimed run waiting (counted among the readers here, so that a timed run that
        asks before they wake up waits for them) and wakes them."""
        if self._waiting and not self._closed:
            self._readers += self._waiting
            self._waiting = 0
            self._openings += 1
            self._cond.notify_all()
            self._note()

    def _leave_shared(self) -> None:
        """Ends one shared hold of this thread's (``shared()``, or ``exclusive``'s
        ``then_shared``)."""
        try:
            self._drop_shared()
        finally:
            self._count_out()

    def _count_out(self, why: str = "") -> None:
        """One reader fewer (a shared hold ended or given up for a while); the timed runs
        waiting are woken when it was the last. ``why``: the trace line's (``_note``)."""
        with self._cond:
            self._readers -= 1
            self._note(why)
            if self._readers == 0:
                self._maybe_drain()  # nothing left to wait for
                self._cond.notify_all()

    def _wait_alone(self) -> None:
        """With ``_cond`` held: waits until no run holds the GPU and the timed runs that asked
        before this one have had it, then holds it alone."""
        me = object()
        if not self._queue:
            self._first_ask = time.monotonic()
        self._queue.append(me)
        try:
            self._maybe_drain(note=False)  # the line below says it
            self._note()
            self._cond.notify_all()
            while (
                self._writer or self._readers or self._queue[0] is not me or not self._draining
            ):
                # the first in the queue wakes when its wait reaches T (drain_after_s)
                left = None
                if not self._draining and self._queue[0] is me:
                    left = max(0.0, self._first_ask + self._drain_after_s - time.monotonic())
                self._cond.wait(left)
                self._maybe_drain()
        except BaseException:  # interrupted (or the trace failed): the runs behind it go on
            self._queue.remove(me)  # (the first ask's time stays: the next drains no later)
            self._queue_emptied()
            self._let_waiting_in()
            self._cond.notify_all()
            self._note()  # one waiting fewer: lock_trace.py sees the drain given up
            raise
        self._queue.popleft()
        self._writer = True
        self._note()

    def let_timed_runs_pass(self, stopped: bool = False) -> bool:
        """Called by a thread inside ``shared()`` between two of its untimed runs, with no GPU
        work of its own in flight: when timed runs wait, gives its shared hold up until they
        have had the GPU, then takes it back; True when it did. So a grading whose untimed
        runs go on and on (a fresh process after each crash: design note 54) keeps the
        queue of timed runs waiting for one run at most, not for all of them (a batch's
        grading calls it there once its hold has lasted a while: note 69). Sees the timed
        runs of this process (a ``FileGpuLock``'s other processes' are not counted here).
        ``stopped``: the thread has just stopped an untimed run for the drain
        (``stop_wanted``): counted in ``stops``, and the trace's line of the hold given up
        says so (``STOPPED_MARK``)."""
        with self._cond:
            if not self._draining:  # none waits, or none has begun a drain yet
                return False
            if stopped:
                self.stops += 1
        self._step_out(STOPPED_MARK if stopped else "")
        self._rejoin_shared()
        return True

    def stop_wanted(self, since: float) -> bool:
        """Asked, again and again, by the wait loop of an untimed run that started at
        ``since`` (monotonic) under a shared hold of this lock: True once a drain has waited
        ``stop_after_s`` for it, from the drain's start or from ``since`` if later (a batch's
        grading passes the time its hold was taken or taken back, so each of its runs
        counts from the drain's start: ``Grading._stop_check``). The
        caller then stops the run, gives its hold up (``let_timed_runs_pass(stopped=True)``)
        and makes the run again afterwards (design note 78). Always False without
        ``stop_after_s`` and outside a drain; a drain of this process's timed runs only."""
        if self.stop_after_s is None:
            return False
        with self._cond:
            if not self._draining or not self._readers:
                return False
            return time.monotonic() - max(self._drain_began, since) > self.stop_after_s

    def _step_out(self, why: str = "") -> None:
        """Gives this thread's shared hold up for a while (``upgrade``,
        ``let_timed_runs_pass``), to take it back with ``_rejoin_shared``. Where giving it up
        fails it still counts as held, so that leaving ``shared()`` counts it out once.
        ``why``: the trace line's (``_note``)."""
        self._drop_shared()
        self._count_out(why)

    def _rejoin_shared(self) -> None:
        """Takes back the shared hold this thread gave up for a while (``_step_out``),
        behind the timed runs then waiting (``_let_in``). Counted back in even when its wait
        is interrupted, since leaving ``shared()`` counts it out (a review's finding: else the
        count of readers went negative and the timed runs waited forever)."""
        with self._cond:
            try:
                self._let_in()
            except BaseException:
                self._readers += 1
                self._note()
                raise
            self._note()  # counted in: leaving shared() counts it out, whatever this does
        self._hold_shared()

    @contextlib.contextmanager
    def upgrade(self) -> Iterator[None]:
        """Held, by a thread inside ``shared()``, around the measuring part of a timed run:
        gives its shared hold up, waits to hold the GPU alone, and takes the shared hold
        back afterwards (after any timed run then waiting). So a judge's set-up (inputs,
        references: host work and copies) overlaps other gradings' untimed runs, and only
        its timing excludes them (the judge's ``--gate``, grader/harness.py)."""
        self._step_out()
        try:
            with self.exclusive():
                yield
        finally:
            self._rejoin_shared()

    @contextlib.contextmanager
    def exclusive(self, then_shared: contextlib.ExitStack | None = None) -> Iterator[None]:
        """Held around timed GPU work: no other run of any kind on the GPU meanwhile.

        ``then_shared``: on leaving, the hold becomes a shared one at once, ahead of the timed
        runs waiting (a downgrade: nothing of this process starts in between; a timed run of
        another process sharing the lock file may, and this hold then waits for it), held
        until that stack closes (in this thread). For what follows a grading's own timed run:
        grading what it measured, or, rarely, a fresh run's set-up. The next timed run waits
        for it as for any untimed run, and the grading does not wait for the class's queue of
        timed runs before it can end (docs/design-notes.md, note 49)."""
        with self._cond:
            self._wait_alone()
        downgrade = False
        try:
            self._hold_alone()
            try:
                yield
            finally:
                self._drop_alone()
        finally:
            with self._cond:
                self._writer = False
                self._queue_emptied()
                if then_shared is not None:
                    self._readers += 1
                    downgrade = True
                self._let_waiting_in()  # the state first, then the trace's line
                self._cond.notify_all()
                self._note()
            if downgrade:  # here too when the body failed: the stack ends the hold
                then_shared.callback(self._leave_shared)  # first: a failed hold is undone
                self._hold_shared()

    # Other processes' share of the GPU: none here (FileGpuLock). Called outside ``_cond``:
    # _hold_shared once this thread counts among the readers, _drop_shared before it stops
    # counting; _hold_alone once it is the writer, _drop_alone before it stops being one.
    def _hold_shared(self) -> None:
        pass

    def _drop_shared(self) -> None:
        pass

    def _hold_alone(self) -> None:
        pass

    def _drop_alone(self) -> None:
        pass


class FileGpuLock(GpuLock):
    """A ``GpuLock`` that other processes naming the same lock file obey too (``flock(2)``,
    Linux). Inside the process the threads order themselves as in ``GpuLock``; the process
    holds the file shared while any of its threads holds the GPU shared, and alone while one
    holds it alone, so a timed run in one process waits for the untimed runs of all, and
    excludes them. Writers go first across processes, mostly: a writer holds a turnstile file
    (``PATH.turn``) from before it asks for the lock file alone until it holds it, and a
    process asking for its first shared hold passes the same turnstile, so it queues behind a
    writer waiting there. A process that already holds the file shared lets more of its
    threads share without the turnstile (waiting there while holding the file would deadlock
    with the writer), so a writer elsewhere waits until that process's shared holds end: for
    the GPU tests, at most about one grading's untimed phase, since each grading soon wants
    to time too. ``path``: the lock file on a local file system (over NFS Linux emulates
    ``flock`` with per-process locks, which this does not expect), made if missing (mode
    0600)."""

    def __init__(
        self, path: Path | str, drain_at: int = 1, drain_after_s: float = 0.0,
        stop_after_s: float | None = None,
    ):
        super().__init__(drain_at, drain_after_s, stop_after_s)
        self.path = Path(path)
        self._turn = self.path.with_name(self.path.name + ".turn")
        self._files = threading.Lock()  # guards the two below
        self._shares = 0  # this process's shared holds of the file, over its threads
        self._shared_fd: int | None = None
        self._alone_fd: int | None = None
        self._mine = threading.local()  # .shares: this thread's holds that were taken

    def _open(self, path: Path) -> int:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def _locked(self, path: Path, how: int) -> int:
        """A descriptor of ``path`` holding ``flock(how)``; none is left open if that fails."""
        fd = self._open(path)
        try:
            fcntl.flock(fd, how)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _pass_turnstile(self) -> None:
        os.close(self._locked(self._turn, fcntl.LOCK_EX))  # closing lets it go

    def _hold_shared(self) -> None:
        with self._files:
            if self._shares == 0:
                self._pass_turnstile()
                self._shared_fd = self._locked(self.path, fcntl.LOCK_SH)
            self._shares += 1
            self._mine.shares = getattr(self._mine, "shares", 0) + 1

    def _drop_shared(self) -> None:
        with self._files:
            if not getattr(self._mine, "shares", 0):
                return  # this thread's hold was never taken (taking it failed): nothing to drop
            self._mine.shares -= 1
            self._shares -= 1
            if self._shares == 0 and self._shared_fd is not None:
                os.close(self._shared_fd)
                self._shared_fd = None

    def _hold_alone(self) -> None:
        turn = self._locked(self._turn, fcntl.LOCK_EX)  # no new shared hold from now on
        try:
            self._alone_fd = self._locked(self.path, fcntl.LOCK_EX)
        finally:
            os.close(turn)

    def _drop_alone(self) -> None:
        if self._alone_fd is not None:
            os.close(self._alone_fd)
            self._alone_fd = None


def for_process(
    default: GpuLock | None = None, policy: tuple[int, float] = (1, 0.0),
    stop_after_s: float | None = None,
) -> GpuLock | None:
    """The lock for a grading process's runs: a ``FileGpuLock`` on the file that
    ``GRADER_GPU_LOCK`` names, when it names one (several grader processes on one GPU), else
    ``default``. ``policy``: its drain's (``drain_at``, ``drain_after_s``);
    ``stop_after_s``: its ``stop_wanted``'s S (``drain_stop_after``)."""
    path = os.environ.get(LOCK_ENV, "").strip()
    return FileGpuLock(path, *policy, stop_after_s=stop_after_s) if path else default

"""The GPU shared by the submissions of a batch: many untimed runs, or one timed run.

Correctness and sanitizer runs only need the right answer, so several submissions may run
them on the GPU at once (each in its own process and CUDA context). A performance run
measures time, and another process's kernels on the same GPU would slow it: it must run
alone (DESIGN.md, "Timing method"; issue 6: "GPU runs one submission at a time, because
concurrent kernels would corrupt each other's timings").

``GpuLock`` is a readers–writer lock: ``shared()`` for untimed runs, ``exclusive()`` for a
timed one. Writers are preferred: once a timed run waits, no new untimed run starts, so
the performance runs of a large class are not starved by the correctness runs of the
others. (Python's standard library has no readers–writer lock; this is the textbook one
on a ``threading.Condition``.)
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator


class GpuLock:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0  # untimed runs in progress
        self._writer = False  # a timed run in progress
        self._writers_waiting = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        """Held around untimed GPU work (device probe, correctness, sanitizer)."""
        with self._cond:
            while self._writer or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if self._readers == 0:
                    self._cond.notify_all()

    def _wait_alone(self) -> None:
        """With ``_cond`` held: waits until no run holds the GPU, then holds it alone."""
        self._writers_waiting += 1
        self._cond.notify_all()
        while self._writer or self._readers:
            self._cond.wait()
        self._writers_waiting -= 1
        self._writer = True

    @contextlib.contextmanager
    def upgrade(self) -> Iterator[None]:
        """Held, by a thread inside ``shared()``, around the measuring part of a timed run:
        gives its shared hold up, waits to hold the GPU alone, and takes the shared hold
        back afterwards (after any timed run then waiting). So a judge's set-up (inputs,
        references: host work and copies) overlaps other gradings' untimed runs, and only
        its timing excludes them (the judge's ``--gate``, grader/harness.py)."""
        with self._cond:
            self._readers -= 1
        try:
            with self.exclusive():
                yield
        finally:
            with self._cond:
                while self._writer or self._writers_waiting:
                    self._cond.wait()
                self._readers += 1

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Held around timed GPU work: no other run of any kind on the GPU meanwhile."""
        with self._cond:
            self._wait_alone()
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()

"""The two clocks a run goes by: simulated (SimPy) and the wall clock.

Both implement :class:`harness.seams.device.Clock` and differ only in :meth:`wait` (as SimPy's
real-time environment differs from its simulated one by its ``step``):

* :class:`SimClock` steps a SimPy environment event by event until a completion is reported
  or the deadline comes, then jumps to the deadline; a twin's subgraph processes live in the
  same environment and report their completions to it.
* :class:`WallClock` sleeps on a thread-safe queue that the device's worker threads report
  completions into, until one arrives or the deadline passes.
"""

from __future__ import annotations

import queue
import time
from collections import deque

import simpy

from harness.seams.records import Completion
from harness.seams.units import NS_PER_S


class SimClock:
    """Simulated time: integer nanoseconds of a SimPy environment. The clock steps the
    environment (nothing else may): it knows the time of each event it processes before
    processing it, so :meth:`now_ns` is that time without asking the environment."""

    def __init__(self, env: simpy.Environment) -> None:
        self.env = env
        self._done: deque[Completion] = deque()
        self._now = int(env.now)

    def now_ns(self) -> int:
        return self._now

    def report(self, done: Completion) -> None:
        self._done.append(done)

    def wait(self, until_ns: int) -> Completion | None:
        """Process events in time order until one reports a completion; with none before
        ``until_ns``, advance to ``until_ns`` (events at ``until_ns`` run first)."""
        env = self.env
        while not self._done:
            t = env.peek()
            if t > until_ns:
                if until_ns > self._now:
                    env.run(until=until_ns)
                    self._now = until_ns
                return None
            self._now = int(t)  # (the time of the event: its callbacks read it)
            env.step()
        return self._done.popleft()


class WallClock:
    """Real time: ``time.monotonic_ns()`` from an origin; completions come from threads."""

    def __init__(self, origin_ns: int | None = None) -> None:
        self.origin_ns = time.monotonic_ns() if origin_ns is None else origin_ns
        self._done: queue.Queue[Completion] = queue.Queue()

    def now_ns(self) -> int:
        return time.monotonic_ns() - self.origin_ns

    def report(self, done: Completion) -> None:
        self._done.put(done)

    def wait(self, until_ns: int) -> Completion | None:
        """Sleep until a completion arrives or ``until_ns`` passes."""
        timeout_s = max(0.0, (until_ns - self.now_ns()) / NS_PER_S)
        try:
            return self._done.get(timeout=timeout_s)
        except queue.Empty:
            return None

"""The two clocks a run goes by: simulated (SimPy) and the wall clock.

Both implement :class:`harness.seams.device.Clock` and differ only in :meth:`wait` (as SimPy's
real-time environment differs from its simulated one by its ``step``):

* :class:`SimClock` steps a SimPy environment event by event until a completion is reported
  or the deadline comes, then jumps to the deadline; a twin's subgraph processes live in the
  same environment and report their completions to it. A device may also hand the clock its
  own queue of timed events (:class:`Events`: the twin's subgraph ends, kept out of SimPy,
  whose events cost microseconds of interpreted code each); the clock takes them in time
  order among the environment's, before the environment's at the same instant.
* :class:`WallClock` sleeps on a thread-safe queue that the device's worker threads report
  completions into, until one arrives or the deadline passes.
"""

from __future__ import annotations

import queue
import time
from collections import deque
from typing import Protocol

import simpy

from harness.seams.records import Completion
from harness.seams.units import NS_PER_S


class Events(Protocol):
    """A device's own timed events, which the clock takes in time order (:class:`SimClock`)."""

    def next_ns(self) -> int:
        """When the next one is due (-1: none is)."""
        ...

    def take(self, now_ns: int) -> None:
        """Take the next one, due at ``now_ns`` (the clock's time is that)."""
        ...


class SimClock:
    """Simulated time: integer nanoseconds of a SimPy environment. The clock steps the
    environment (nothing else may): it knows the time of each event it processes before
    processing it, so :meth:`now_ns` is that time without asking the environment. With
    ``events``, it also takes those (before the environment's at the same instant); the
    environment's own time then catches up only when the environment is stepped or run, so
    a device with such events reads the time from the clock, not the environment."""

    def __init__(self, env: simpy.Environment, events: Events | None = None) -> None:
        self.env = env
        self._events = events
        self._done: deque[Completion] = deque()
        self._now = int(env.now)

    def now_ns(self) -> int:
        return self._now

    def report(self, done: Completion) -> None:
        self._done.append(done)

    def wait(self, until_ns: int) -> Completion | None:
        """Process events in time order until one reports a completion; with none before
        ``until_ns``, advance to ``until_ns`` (events at ``until_ns`` run first)."""
        env, events = self.env, self._events
        while not self._done:
            t = env.peek()
            if events is not None:
                own = events.next_ns()
                if 0 <= own <= until_ns and own <= t:
                    self._now = own
                    events.take(own)
                    continue
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

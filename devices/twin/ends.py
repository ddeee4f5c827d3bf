"""The twin's pending ends: every running subgraph's end, in time order, behind one SimPy event.

Processor sharing (:mod:`devices.twin.sharing`) moves a running subgraph's end whenever what
runs beside it changes, several times per subgraph. One SimPy event per end and per move
would leave the environment's queue full of events that fire only to be ignored, and a SimPy
event costs microseconds of interpreted code. So the ends live here, in a heap of
``(end, order, run, generation)``, and the environment holds one event, the *alarm*, at the
earliest end (or earlier: an end that moved later leaves the alarm where it was; it rings,
finds nothing due, and is set again).

**Order.** Ends due at the same instant are taken one per ring in the order they were last
set (``order`` counts :meth:`EndQueue.set` calls), as SimPy takes events of one instant in
the order they were scheduled: the sequence of ends, and what runs between them, is the one
one event per end would give. An entry whose run was set again since (its ``generation`` is
not the run's) is dropped when it reaches the top.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import simpy

from devices.twin.sharing import Run


class EndQueue:
    """Running subgraphs' ends, earliest first, rung by one SimPy event (see the module)."""

    def __init__(self, env: simpy.Environment, end: Callable[[Run], None]) -> None:
        self.env = env
        #: called with a run at its end (the environment's time is the end)
        self._end = end
        self._heap: list[tuple[int, int, Run, int]] = []
        #: how many ends were set (the order of ends due at one instant)
        self._order = 0
        #: when the live alarm rings (-1: none is set)
        self._alarm_ns = -1
        #: which alarm is the live one (the others ring to no effect)
        self._alarm = 0
        #: an end is being taken: the alarm is set once it is done
        self._ringing = False

    def set(self, run: Run, end_ns: int, now_ns: int) -> None:
        """``run`` ends at ``end_ns`` (``now_ns``: the environment's time), unless set again."""
        run.end_ns = end_ns
        run.generation += 1
        heapq.heappush(self._heap, (end_ns, self._order, run, run.generation))
        self._order += 1
        if not self._ringing and (self._alarm_ns < 0 or end_ns < self._alarm_ns):
            self._arm(end_ns, now_ns)

    def _arm(self, at_ns: int, now_ns: int) -> None:
        self._alarm += 1
        self._alarm_ns = at_ns
        alarm = self._alarm
        event = simpy.Timeout(self.env, at_ns - now_ns)
        event.callbacks.append(lambda _: self._ring(alarm, at_ns))

    def _ring(self, alarm: int, now_ns: int) -> None:
        """The alarm rings at ``now_ns``: the first end due, if any, is taken; the alarm is
        set again at the earliest end left."""
        if alarm != self._alarm:
            return
        self._alarm_ns = -1
        heap = self._heap
        top = self._top()
        if top is not None and top[0] <= now_ns:
            heapq.heappop(heap)
            self._ringing = True
            try:
                self._end(top[2])  # (may set ends)
            finally:
                self._ringing = False
            top = self._top()
        if top is not None:
            self._arm(top[0], now_ns)

    def _top(self) -> tuple[int, int, Run, int] | None:
        """The earliest live entry (stale ones above it dropped)."""
        heap = self._heap
        while heap:
            top = heap[0]
            if top[3] == top[2].generation:
                return top
            heapq.heappop(heap)
        return None

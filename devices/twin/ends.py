"""The twin's pending ends: every running subgraph's end, behind one SimPy event.

Processor sharing (:mod:`devices.twin.sharing`) moves a running subgraph's end whenever what
runs beside it changes, several times per subgraph. One SimPy event per end and per move
would leave the environment's queue full of events that fire only to be ignored, and a SimPy
event costs microseconds of interpreted code. So the ends live here, on the running
subgraphs themselves (a handful: at most a few per processor), and are taken in one of two
ways:

* **by the run's clock** (:meth:`EndQueue.clocked`): the
  :class:`~harness.seams.clocks.SimClock` takes them in time order itself
  (:class:`~harness.seams.clocks.Events`), and SimPy holds none of them;
* **by an alarm** (before that, as when a test runs the environment itself): the environment
  holds one event at the earliest end (or earlier: an end that moved later leaves the alarm
  where it was; it rings, finds nothing due, and is set again).

**Order.** Ends due at the same instant are taken one per ring in the order they were last
set (:attr:`~devices.twin.sharing.Run.order` counts :meth:`EndQueue.set` calls), as SimPy
takes events of one instant in the order they were scheduled: the sequence of ends, and what
runs between them, is the one that one event per end would give.
"""

from __future__ import annotations

from collections.abc import Callable

import simpy

from devices.twin.sharing import Run


class EndQueue:
    """Running subgraphs' ends, earliest first, rung by one SimPy event (see the module)."""

    def __init__(self, env: simpy.Environment, end: Callable[[Run], None]) -> None:
        self.env = env
        #: called with a run at its end (the environment's time is the end)
        self._end = end
        #: the runs whose end is set and not yet taken
        self._pending: list[Run] = []
        #: how many ends were set (the order of ends due at one instant)
        self._order = 0
        #: when the live alarm rings (-1: none is set)
        self._alarm_ns = -1
        #: which alarm is the live one (the others ring to no effect)
        self._alarm = 0
        #: an end is being taken: the alarm is set once it is done
        self._ringing = False
        #: the run's clock takes the ends (no alarm is set)
        self._clocked = False

    def clocked(self) -> None:
        """From now on the run's clock takes the ends (:meth:`next_ns`, :meth:`take`); a
        live alarm rings to no effect."""
        self._clocked = True
        self._alarm += 1
        self._alarm_ns = -1

    def next_ns(self) -> int:
        """When the next end is due (-1: none is pending)."""
        first = self._first()
        return -1 if first is None else first.end_ns

    def take(self, now_ns: int) -> None:
        """The first end, due at ``now_ns``, is taken."""
        first = self._first()
        assert first is not None and first.end_ns == now_ns, "no end due now"
        self._taken(first)

    def set(self, run: Run, end_ns: int, now_ns: int) -> None:
        """``run`` ends at ``end_ns`` (``now_ns``: the environment's time), unless set again."""
        if run.order < 0:
            self._pending.append(run)
        run.end_ns = end_ns
        run.order = self._order
        self._order += 1
        if self._clocked or self._ringing:
            return  # (the clock takes it; or the alarm is set once the end being taken is)
        if self._alarm_ns < 0 or end_ns < self._alarm_ns:
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
        first = self._first()
        if first is not None and first.end_ns <= now_ns:
            self._ringing = True
            try:
                self._taken(first)  # (may set ends)
            finally:
                self._ringing = False
            first = self._first()
        if first is not None:
            self._arm(first.end_ns, now_ns)

    def _taken(self, run: Run) -> None:
        self._pending.remove(run)
        run.order = -1
        self._end(run)

    def _first(self) -> Run | None:
        """The pending run that ends first (of equal ends, the one set first)."""
        first: Run | None = None
        for run in self._pending:
            if first is None or run.end_ns < first.end_ns or (
                    run.end_ns == first.end_ns and run.order < first.order):
                first = run
        return first

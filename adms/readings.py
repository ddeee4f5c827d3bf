"""What ADMS's scheduler makes of the processors at a decision (:mod:`adms.scheduler`): the hot
ones (near throttling), each one's waiting work, and the idle ones in order of preference
(``idle_order``: the device's order, its reverse, or by :mod:`adms.monitor`'s preference: not
near throttling, less loaded, cooler, then device order). A sensor
reading lasts a sensor interval, over many decisions, so what was made of it is kept until a
new reading replaces it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from adms.config import IdleOrder
from adms.monitor import near_throttle, preference
from harness.seams.records import SensorSample
from harness.seams.view import ProcessorView, SchedulerView

#: no hot processors
NONE_HOT: Final[frozenset[str]] = frozenset()


@dataclass(slots=True)
class Reading:
    """What the scheduler made of one processor's sensor reading (None: not yet needed)."""

    #: the processor's name
    name: str
    #: the reading (None without the monitor: the scheduler sees no state)
    state: SensorSample | None
    #: near throttling (:func:`~adms.monitor.near_throttle`)
    hot: bool | None = None
    #: :func:`~adms.monitor.preference` of the processor while idle
    idle_preference: tuple[bool, float, float] | None = None

    # written out: compiled (harness.native), a generated __init__ is ~16x slower
    def __init__(self, name: str, state: SensorSample | None, hot: bool | None = None,
                 idle_preference: tuple[bool, float, float] | None = None) -> None:
        self.name = name
        self.state = state
        self.hot = hot
        self.idle_preference = idle_preference


def preferred(a: Reading, b: Reading) -> bool:
    """Idle processor ``a`` comes strictly before ``b``: its preference
    (:func:`~adms.monitor.preference`: not near throttling, less loaded, cooler) is lower."""
    pa, pb = a.idle_preference, b.idle_preference
    assert pa is not None and pb is not None
    if pa[0] != pb[0]:
        return not pa[0]
    if pa[1] != pb[1]:
        return pa[1] < pb[1]
    return pa[2] < pb[2]


def idle_load(reading: Reading) -> float:
    """The load of an idle processor, as its preference read it."""
    preference = reading.idle_preference
    assert preference is not None
    return preference[1]


class Readings:
    """Processor -> what the last decision made of its reading; :meth:`read` sees them all."""

    def __init__(self, monitor: bool, margin_c: float,
                 idle_order: IdleOrder = IdleOrder.load) -> None:
        #: with the monitor (``use_monitor``); without it no processor is hot, loads are 0
        #: (idle) or 1 (busy)
        self.monitor = monitor
        #: ``thermal_margin_c``
        self.margin_c = margin_c
        #: ``idle_order``: by preference (load), in device order, or in reverse device order
        self.load_ordered = idle_order is IdleOrder.load
        self.reversed = idle_order is IdleOrder.reverse
        self._readings: dict[str, Reading] = {}

    def read(self, view: SchedulerView
             ) -> tuple[frozenset[str], dict[str, int], list[tuple[str, float]]]:
        """One pass over the processors as seen: the hot ones (near throttling; none without
        the monitor), each one's waiting work (ns from now; 0 when idle) and (name, load) of
        the idle ones in ``idle_order``: preferred first (by :func:`~adms.monitor.preference`,
        then device order), in device order, or in reverse device order."""
        monitor, margin, now_ns = self.monitor, self.margin_c, view.now_ns
        ordered = self.load_ordered
        readings = self._readings
        hot: list[str] = []
        waiting: dict[str, int] = {}
        ranked: list[Reading] = []
        for p in view.processors:
            name = p.processor.name
            reading = readings.get(name)
            if reading is None or reading.state is not (p.state if monitor else None):
                reading = readings[name] = Reading(name, p.state if monitor else None)
            if reading.hot is None:
                reading.hot = monitor and near_throttle(p.state, margin)
            if reading.hot:
                hot.append(name)
            if p.idle:
                waiting[name] = 0
                if reading.idle_preference is None:
                    reading.idle_preference = preference(self._seen(p), margin)
                # insert after every reading preferred to it or equal (device order)
                at = len(ranked)
                while ordered and at > 0 and preferred(reading, ranked[at - 1]):
                    at -= 1
                ranked.insert(at, reading)
            else:
                waiting[name] = max(0, p.available_ns - now_ns)
        if self.reversed:
            ranked.reverse()
        free = [(r.name, idle_load(r)) for r in ranked]
        return (frozenset(hot) if hot else NONE_HOT), waiting, free

    def _seen(self, proc: ProcessorView) -> ProcessorView:
        """The processor as the scheduler sees it: without the monitor, no sensor state."""
        return proc if self.monitor else replace(proc, state=None)

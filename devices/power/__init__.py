"""Power monitors: one interface for what measures a device's power from outside it.

A :class:`PowerMonitor` samples in its own thread between :meth:`~PowerMonitor.start` and
:meth:`~PowerMonitor.stop`, and returns :class:`PowerSample` rows whose ``t_ns`` is on the
run's clock (``start`` is given the host's wall-clock time, ns since the epoch, of the run's
time 0). Implementations:

* :class:`devices.power.monsoon.MonsoonMonitor`: a Monsoon HVPM powering the phone, through
  the vendor's ``monsoon`` package (``HVPM``, ``sampleEngine``);
* :class:`devices.power.rapl.RaplMonitor`: RAPL package energy counters under a sysfs root
  (the machine the harness runs on).

The twin's power is its model's (:mod:`devices.twin.power`), reported with its sensor
samples, not through a monitor. :func:`windowed` averages raw samples into windows, the rows
a run records (a Monsoon gives 5000 per second).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class PowerSample:
    """Power at one instant (or the mean over one window)."""

    t_ns: int
    power_w: float
    voltage_v: float | None = None
    current_a: float | None = None


@runtime_checkable
class PowerMonitor(Protocol):
    """Samples power in a thread of its own."""

    def start(self, t0_epoch_ns: int) -> None:
        """Begin sampling; ``t0_epoch_ns`` is the run's time 0 on the host's wall clock."""
        ...

    def stop(self) -> list[PowerSample]:
        """End sampling; every sample since :meth:`start`, on the run's clock."""
        ...

    def facts(self) -> dict[str, object]:
        """What measured, for the manifest."""
        ...


def windowed(samples: Iterable[PowerSample], window_ns: int) -> list[PowerSample]:
    """Means over consecutive windows of ``window_ns``, stamped at each window's middle."""
    groups: dict[int, list[PowerSample]] = {}
    for s in samples:
        groups.setdefault(s.t_ns // window_ns, []).append(s)
    return [_mean(k * window_ns + window_ns // 2, group) for k, group in sorted(groups.items())]


def _mean(t_ns: int, group: list[PowerSample]) -> PowerSample:
    def avg(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return sum(known) / len(known) if known else None

    power = sum(s.power_w for s in group) / len(group)
    return PowerSample(t_ns, power, avg([s.voltage_v for s in group]),
                       avg([s.current_a for s in group]))

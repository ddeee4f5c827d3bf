"""Contention probes of the ``host`` device: did other work share the cores during a run?

This machine may be shared, and another process on a worker's core slows every subgraph
there. A single-threaded interpreter runs on its worker thread, so the thread's CPU time over
the wall time it spent running subgraphs says how much of that time it actually had the core.
Profiles judge each measurement so (a contended one is retried once, and never cached:
:mod:`devices.host.profiles`). During a run each worker adds up the same two times
(:meth:`ContentionMonitor.cpu_shares`; here waits for the GIL and this process's own
scheduler thread count too), and the monitor notes the CPU time the whole machine and this
process used from the run's first subgraph on (:func:`cpu_clock`, from ``/proc/stat`` and
:func:`os.times`). :meth:`ContentionMonitor.warn` warns when other processes used more than
:data:`FOREIGN_LOAD_LIMIT` cores on average (:meth:`ContentionMonitor.foreign_load`): the
run's latencies are then inflated by work that is not the harness's.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from pathlib import Path

from devices.host.sensors import read_text

log = logging.getLogger(__name__)

#: other processes' average CPU use (in cores) above which close() warns that a run was disturbed
FOREIGN_LOAD_LIMIT = 0.2

#: (monotonic s, machine busy CPU s, this process's CPU s)
CpuClock = tuple[float, float, float]


def cpu_clock() -> CpuClock:
    """(monotonic s, CPU s the machine spent busy incl. steal, CPU s of this process);
    the machine's figure is -1 when ``/proc/stat`` cannot be read."""
    busy = _machine_busy_s()
    own = os.times()
    return time.monotonic(), busy, own.user + own.system


def _machine_busy_s() -> float:
    """CPU s all cores spent busy (incl. steal) since boot; -1 if ``/proc/stat`` is unreadable."""
    fields = (read_text(Path("/proc/stat")) or "").split("\n", 1)[0].split()
    if len(fields) <= 8 or fields[0] != "cpu":
        return -1.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def foreign_load(origin: CpuClock, now: CpuClock) -> float | None:
    """Average CPU (in cores) other processes used between two clock readings (``None``:
    no wall time passed, or ``/proc/stat`` unreadable)."""
    wall = now[0] - origin[0]
    if wall <= 0 or now[1] < 0 or origin[1] < 0:
        return None
    machine, own = now[1] - origin[1], now[2] - origin[2]
    return max(0.0, (machine - own) / wall)


class ContentionMonitor:
    """Per processor the wall and worker-thread CPU ns of the subgraphs run, and the CPU
    clock at the run's first subgraph; see the module docstring."""

    def __init__(self, threads: Mapping[str, int]) -> None:
        #: interpreter threads per processor (only single-threaded ones are judged)
        self.threads = dict(threads)
        #: per processor: wall and worker-thread CPU ns of the subgraphs run (by its worker)
        self.busy: dict[str, list[int]] = {name: [0, 0] for name in threads}
        #: the CPU clock at the first :meth:`mark_start`
        self.origin: CpuClock | None = None

    def mark_start(self) -> None:
        """Note the CPU clock, the first time only (call when a subgraph is started)."""
        if self.origin is None:
            self.origin = cpu_clock()

    def add(self, processor: str, wall_ns: int, cpu_ns: int) -> None:
        """Count one subgraph run (only the processor's worker thread calls this for it)."""
        busy = self.busy[processor]
        busy[0] += wall_ns
        busy[1] += cpu_ns

    def cpu_shares(self) -> dict[str, float | None]:
        """Per processor: the share of its subgraphs' wall time its worker thread ran
        (``None``: nothing run yet, or a multi-threaded interpreter, not judged)."""
        return {
            name: cpu / wall if wall and self.threads[name] == 1 else None
            for name, (wall, cpu) in self.busy.items()
        }

    def foreign_load(self) -> float | None:
        """Average CPU (in cores) that other processes used since :meth:`mark_start`
        (``None``: nothing started, or ``/proc/stat`` unreadable)."""
        if self.origin is None:
            return None
        return foreign_load(self.origin, cpu_clock())

    def warn(self) -> None:
        """Warn when other processes used more than :data:`FOREIGN_LOAD_LIMIT` cores."""
        foreign = self.foreign_load()
        if foreign is not None and foreign > FOREIGN_LOAD_LIMIT:
            shares = {n: f"{100 * v:.0f}%" for n, v in self.cpu_shares().items() if v is not None}
            log.warning("other processes used %.2f cores on average during this run (workers "
                        "had their cores %s of their busy time): its latencies are inflated",
                        foreign, shares)

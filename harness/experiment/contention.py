"""Contention: how much of the machine other processes used while a run measured.

On ``host`` the numbers are this machine's, so a compile or a second run beside it slows
every baseline (FINDINGS: two cores shared by several people). The session samples the
machine's busy CPU time and its own process's (children included) at the start and the end,
and records the difference per wall second: ``other_cores``, the cores other processes kept
busy on average, beside ``cores`` and the 1-minute load average at the end, in
``manifest.json`` (``contention``) and ``summary.csv``; the headline flags a busy machine
(:func:`harness.reporting.headline.busy`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import psutil


@dataclass(frozen=True, slots=True)
class Sample:
    """CPU seconds the machine and this process have spent, at one wall time."""

    busy_s: float
    own_s: float
    wall_s: float


def sample() -> Sample:
    """The machine's busy CPU seconds (all but idle and I/O wait) and this process's own
    (its children's included), now."""
    times = psutil.cpu_times()
    idle = times.idle + getattr(times, "iowait", 0.0)
    own = psutil.Process().cpu_times()
    mine = own.user + own.system + own.children_user + own.children_system
    return Sample(sum(times) - idle, mine, time.monotonic())


def measured(start: Sample, end: Sample) -> dict[str, Any]:
    """The manifest's ``contention`` between two samples."""
    wall = max(end.wall_s - start.wall_s, 1e-9)
    other = max(0.0, (end.busy_s - start.busy_s) - (end.own_s - start.own_s)) / wall
    cores = psutil.cpu_count() or 1
    return {"other_cores": round(other, 2), "cores": cores,
            "load_avg_1min": round(os.getloadavg()[0], 2), "wall_s": round(wall, 1)}

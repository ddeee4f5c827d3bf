"""What ``dry_run=true`` prints: what would run, in what order, and how long it would take.

A session runs seed by seed, and within a seed every baseline in ``run``'s order (an
interrupted run keeps whole seeds: :func:`harness.experiment.session._run_all`). Each job
covers warm-up plus measured seconds on the device's clock, so the simulated (or, on a host
or a phone, real) seconds are ``baselines x seeds x (warmup_s + duration_s)``. The wall
estimate multiplies them by a rate: on a host or a phone one wall second per second; on a
twin the rate past runs on this machine took (the runs index,
:mod:`harness.reporting.runindex`) when there are any, else :data:`TWIN_WALL_PER_S` for the
simulation core as it is installed (compiled or interpreted). Setting-up (models, plans,
windows) is not estimated: a first run on a device adds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: wall seconds per simulated second on a twin, compiled and interpreted core: measured on
#: the project's 2-core machine for the default five baselines (docs/performance.md; Band at
#: minimum subgraph size 1 takes about twice ADMS's time, so these are means over a mix)
TWIN_WALL_PER_S = {"compiled": 0.03, "interpreted": 0.25}


@dataclass(frozen=True, slots=True)
class DryRun:
    """A run's plan, before anything runs."""

    baselines: tuple[str, ...]
    seeds: tuple[int, ...]
    #: warm-up plus measured seconds per job
    span_s: float
    #: wall seconds per device second, and where the rate comes from
    wall_per_s: float
    rate_from: str

    @property
    def jobs(self) -> int:
        return len(self.baselines) * len(self.seeds)

    @property
    def device_s(self) -> float:
        return self.jobs * self.span_s

    @property
    def wall_s(self) -> float:
        return self.device_s * self.wall_per_s

    def lines(self) -> list[str]:
        """The plan in words: the order, then the estimate."""
        order = [f"  seed {seed}: {' -> '.join(self.baselines)}" for seed in self.seeds]
        return [f"dry run: {self.jobs} jobs ({len(self.baselines)} baselines x "
                f"{len(self.seeds)} seeds), seed by seed, each {self.span_s:g} s "
                "(warm-up + measured):", *order,
                f"estimate: {self.device_s:g} s on the device's clock, about "
                f"{duration(self.wall_s)} of wall time ({self.rate_from}; setting up models "
                "and plans not counted)",
                "dry run: nothing was measured"]


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 20 s``, ``1 h 05 min``."""
    s = round(seconds)
    if s < 60:
        return f"{max(s, 1)} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def rate(kind: str, core: str, measured: Sequence[float] = ()) -> tuple[float, str]:
    """Wall seconds per device second for a device ``kind`` (twin, host, adb), the
    simulation ``core`` status, and the rates past runs of the same device measured."""
    if kind != "twin":
        return 1.0, f"{kind}: real time"
    if measured:
        ordered = sorted(measured)
        return ordered[len(ordered) // 2], f"median of {len(ordered)} past run(s) on this device"
    word = "compiled" if core.startswith("compiled") else "interpreted"
    return TWIN_WALL_PER_S[word], f"twin, {word} core"


def plan(baselines: Sequence[str], seeds: Sequence[int], warmup_s: float, duration_s: float,
         kind: str, core: str, measured: Sequence[float] = ()) -> DryRun:
    wall_per_s, source = rate(kind, core, measured)
    return DryRun(tuple(baselines), tuple(seeds), warmup_s + duration_s, wall_per_s, source)

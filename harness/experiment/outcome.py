"""What a session keeps as it runs: each baseline's outcome per seed, and the run's bound.

A :class:`BaselineOutcome` is one baseline with one seed: the facts the manifest keeps
(``runs.<baseline>.<seed>``), and, for a run on the runtime, its plans with their costs and
the processors they may run on, which the run's bound over every plan that loaded needs and
the manifest does not keep. A baseline the device could not run is an outcome too
(:meth:`BaselineOutcome.failure`): the run records why and goes on.

:class:`SessionState` holds them and the run's bound per seed, and gives the manifest's
``runs`` and ``bound`` entries (:meth:`SessionState.manifest`), whose keys and values are
what older run folders hold; :mod:`harness.reporting.runfolder` reads them back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.experiment.bounds import Work

#: the key of a failed seed's entry in the manifest's ``runs``
FAILED = "failed"


@dataclass(frozen=True, slots=True)
class BaselineOutcome:
    """One baseline with one seed."""

    #: what the manifest keeps: device facts, plan counts, bounds, or ``{"failed": why}``
    facts: Mapping[str, Any]
    #: its plans with their costs (for the run's bound); None where the device ran the
    #: baseline with its own means, or it failed
    work: Work | None = None
    #: the processors the plans may run on (the bound's processors)
    processors: tuple[str, ...] = ()

    @classmethod
    def failure(cls, why: str) -> BaselineOutcome:
        """A baseline the device could not run (out of memory, say), and why."""
        return cls({FAILED: why})

    @property
    def failed(self) -> str:
        """Why it failed; "" when it ran."""
        return str(self.facts.get(FAILED, ""))


@dataclass
class SessionState:
    """Every outcome so far (baseline -> seed -> outcome) and the run's bound per seed (over
    every plan that loaded with that seed: what the manifest keeps of it)."""

    runs: dict[str, dict[int, BaselineOutcome]] = field(default_factory=dict)
    bound: dict[int, Mapping[str, object]] = field(default_factory=dict)
    #: where a wall clock stood still for the run (:class:`ClockGaps`)
    gaps: list[dict[str, Any]] = field(default_factory=list)

    def add(self, baseline: str, seed: int, outcome: BaselineOutcome) -> None:
        self.runs.setdefault(baseline, {})[seed] = outcome

    def manifest(self) -> dict[str, Any]:
        """The manifest's ``runs`` (baseline -> seed as text -> facts) and ``bound`` (seed
        as text -> bound facts)."""
        gaps = {"wall_clock_gaps": list(self.gaps)} if self.gaps else {}
        return {"runs": {b: {str(s): dict(o.facts) for s, o in by_seed.items()}
                         for b, by_seed in self.runs.items()},
                "bound": {str(s): facts for s, facts in self.bound.items()}, **gaps}


@dataclass
class ClockGaps:
    """Gaps in a wall clock's sensor samples: a run on the host samples every ``interval_ns``
    of wall time, so two samples further apart than two intervals (a whole interval with no
    sample: the process was stopped, the machine suspended, or starved) mean its timings
    there are not the system's own. Each is kept as baseline, seed, where (s) and how long
    (s), in the manifest's ``wall_clock_gaps``."""

    interval_ns: int
    found: list[dict[str, Any]]
    _last: dict[tuple[str, int], int] = field(default_factory=dict)

    def see(self, baseline: str, seed: int, now_ns: int) -> None:
        """A sample of ``baseline`` with ``seed`` at ``now_ns`` of its run."""
        last = self._last.get((baseline, seed))
        self._last[(baseline, seed)] = now_ns
        if last is not None and now_ns - last > 2 * self.interval_ns:
            self.found.append({"baseline": baseline, "seed": seed, "at_s": last / 1e9,
                               "gap_s": (now_ns - last) / 1e9})

"""Nanoseconds per unit of counted work, fitted from timed decisions.

Three numbers per policy, each a point estimate with a 95% interval, against the work the
policy counts (what the twin charges) and, where the C++ library reports it, against the
work it actually did (Band's round caches repeated chain searches, which its count, like
Band's own code, repeats):

* the **price** ``sum(ns) / sum(work)`` over all its decisions: what one unit of work must
  cost for the twin's charge (work x price, decision by decision) to add up to the time the
  decisions took. This is the value a twin's ``scheduler_ns_per_work`` takes;
* the least-squares line ``ns = fixed + slope x work``: the slope is the marginal cost of a
  unit, the intercept the fixed part of a decision (reading the view, building the answer)
  that no work count charges.

Decisions follow each other in a run (a long queue gives many large decisions in a row), so
the intervals come from a moving-block bootstrap over the decision sequence (blocks of
:data:`BLOCK` decisions, :data:`RESAMPLES` resamples, percentile interval), not from
independent resampling, which would understate them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.decision_cost.bench import Timing

#: decisions per bootstrap block, and resamples
BLOCK = 32
RESAMPLES = 1000


@dataclass(frozen=True, slots=True)
class Estimate:
    """A value with its 95% interval."""

    value: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class Prices:
    """Estimates against one measure of work."""

    #: sum(ns) / sum(work) (None when no decision counted work)
    price: Estimate | None
    #: the least-squares line (None when the work never varies)
    fixed_ns: Estimate | None
    slope_ns: Estimate | None


@dataclass(frozen=True, slots=True)
class Fit:
    """One policy's decisions, fitted."""

    decisions: int
    #: decisions that started and dropped nothing, and their mean ns and work
    idle_decisions: int
    idle_mean_ns: float
    idle_mean_work: float
    #: decisions with work 0 (charged nothing by the twin) and their mean ns
    unpriced_decisions: int
    unpriced_mean_ns: float
    #: mean ns and work of a decision
    mean_ns: float
    mean_work: float
    #: against the counted work (``Decision.work``: what the twin charges)
    counted: Prices
    #: against the work the C++ library actually did (``Timing.performed``), where it
    #: reports one (Band), else None
    performed: Prices | None
    #: mean performed work of a decision (0 where none is reported)
    mean_performed: float


def line(work: np.ndarray, ns: np.ndarray) -> tuple[float, float] | None:
    """(intercept, slope) of the least-squares line of ``ns`` on ``work``; None when work
    takes a single value."""
    if np.ptp(work) == 0:
        return None
    slope, intercept = np.polyfit(work.astype(float), ns.astype(float), 1)
    return float(intercept), float(slope)


def blocks(n: int, rng: np.random.Generator, block: int = BLOCK) -> np.ndarray:
    """Indices of one moving-block bootstrap resample of a sequence of ``n``."""
    size = min(block, n)
    starts = rng.integers(0, n - size + 1, size=-(-n // size))
    return (starts[:, None] + np.arange(size)[None, :]).ravel()[:n]


def _interval(point: float, samples: list[float]) -> Estimate:
    if not samples:
        return Estimate(point, point, point)
    low, high = np.percentile(samples, [2.5, 97.5])
    return Estimate(point, float(low), float(high))


def prices(work: np.ndarray, ns: np.ndarray, resamples: list[np.ndarray]) -> Prices:
    """The price and the line of ``ns`` on ``work``, each with its bootstrap interval."""
    price = None
    if work.sum() > 0:
        price = _interval(ns.sum() / work.sum(), [
            ns[i].sum() / work[i].sum() for i in resamples if work[i].sum() > 0])
    fixed = slope = None
    point = line(work, ns)
    if point is not None:
        lines = [got for i in resamples if (got := line(work[i], ns[i])) is not None]
        fixed = _interval(point[0], [a for a, _ in lines])
        slope = _interval(point[1], [b for _, b in lines])
    return Prices(price, fixed, slope)


def fit(rows: Sequence[Timing], seed: int = 0) -> Fit:
    """``rows`` (one policy's decisions in run order) fitted; minimum times are used."""
    work = np.array([r.work for r in rows], dtype=np.int64)
    done = np.array([r.performed for r in rows], dtype=np.int64)
    ns = np.array([r.min_ns for r in rows], dtype=np.int64)
    idle = np.array([r.starts_nothing for r in rows], dtype=bool)
    rng = np.random.default_rng(seed)
    resamples = [blocks(len(rows), rng) for _ in range(RESAMPLES)]
    reported = bool((done >= 0).any())
    performed = np.where(done >= 0, done, work)
    return Fit(len(rows), int(idle.sum()), _mean(ns[idle]), _mean(work[idle]),
               int((work == 0).sum()), _mean(ns[work == 0]), _mean(ns), _mean(work),
               prices(work, ns, resamples),
               prices(performed, ns, resamples) if reported else None,
               _mean(performed) if reported else 0.0)


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else 0.0

"""Δ%: how much a metric changed from one run to another, with its 95% interval.

Two runs are independent samples (each a mean over its own seeds), so the change is the ratio
of two independent means, ``r = mean_b / mean_a``, reported as ``100 (r - 1)`` percent. Its
interval is the delta method's: the relative variance of a ratio of independent means is the
sum of the means' relative variances (``s^2 / (n m^2)`` each), with Student's t at the
Welch-Satterthwaite degrees of freedom. With fewer than two seeds on either side there is no
interval, only the change. A change whose interval holds 0 is within the runs' noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import stdtrit

from harness.reporting.stats import CONFIDENCE

NAN = float("nan")


@dataclass(frozen=True, slots=True)
class Change:
    """A relative change in percent with its interval (NaN bounds: none)."""

    pct: float
    low: float
    high: float

    @property
    def noise(self) -> bool:
        """The interval holds 0: the runs do not tell the change from their noise."""
        return not math.isnan(self.low) and self.low <= 0 <= self.high

    def text(self) -> str:
        if math.isnan(self.pct):
            return "–"
        if math.isnan(self.low):
            return f"{self.pct:+.1f}% (no interval: <2 seeds)"
        word = " (within noise)" if self.noise else ""
        return f"{self.pct:+.1f}% ± {(self.high - self.low) / 2:.1f}%{word}"


def _kept(values: Sequence[float]) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    return array[~np.isnan(array)]


def change(reference: Sequence[float], values: Sequence[float],
           confidence: float = CONFIDENCE) -> Change:
    """The change of the mean of ``values`` from the mean of ``reference`` (module docstring)."""
    a, b = _kept(reference), _kept(values)
    if not len(a) or not len(b) or a.mean() == 0:
        return Change(NAN, NAN, NAN)
    ratio = b.mean() / a.mean()
    if len(a) < 2 or len(b) < 2 or b.mean() == 0:
        return Change(100 * (ratio - 1), NAN, NAN)
    va, vb = a.var(ddof=1) / (len(a) * a.mean() ** 2), b.var(ddof=1) / (len(b) * b.mean() ** 2)
    total = va + vb
    dof = total**2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)) if total > 0 else math.inf
    half = float(stdtrit(min(dof, 1e6), 0.5 + confidence / 2)) * ratio * math.sqrt(total)
    return Change(100 * (ratio - 1), 100 * (ratio - half - 1), 100 * (ratio + half - 1))

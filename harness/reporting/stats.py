"""Intervals over seeds: every figure the harness reports is a mean with a 95% interval.

A run repeats every baseline with several seeds (``seed.count``); each repetition gives one
value of a metric (FPS, p90 latency...). A figure is their mean with a two-sided 95%
Student-t interval, ``mean ± t(0.975, n-1) · s / sqrt(n)`` (the quantile from
``scipy.special.stdtrit``, which ``scipy.stats.t.ppf`` calls, without importing
``scipy.stats`` into every run); with one seed there is no interval (NaN bounds: one seed is
an anecdote). The per-seed values are kept beside it.

A ratio of two baselines (ADMS / TFLite FPS) pairs them seed by seed (the same seed gives
both the same traffic). With at least :data:`BOOTSTRAP_MIN_SEEDS` seeds it gets a **paired
percentile bootstrap** interval: resample the seeds with replacement :data:`RESAMPLES` times,
take the ratio of the resampled means each time, and read the 2.5th and 97.5th percentiles
(the generator is seeded, :data:`BOOTSTRAP_SEED`, so a report is reproducible). With fewer,
the resamples take a handful of distinct values (two seeds: three) and the percentiles are
far too narrow, so the ratio gets **Fieller's interval** for a ratio of paired means instead:
the ratios ρ with ``(x̄ − ρȳ)² ≤ t² · var(x − ρy) / n`` (t with n−1 degrees of freedom), which
is unbounded (±inf) when the denominator's mean is not clearly above zero. The interval's
``method`` says which one it is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import stdtrit

CONFIDENCE = 0.95
RESAMPLES = 10_000
BOOTSTRAP_SEED = 20_240_901
#: fewest paired seeds the percentile bootstrap is used with (else Fieller's interval)
BOOTSTRAP_MIN_SEEDS = 10
#: :attr:`Interval.method` of each kind of interval
T_MEAN, BOOTSTRAP, FIELLER = "t", "paired bootstrap", "Fieller"


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean over seeds with its 95% interval, and the values it came from."""

    mean: float
    low: float
    high: float
    values: tuple[float, ...]
    #: how the interval was made (:data:`T_MEAN`, :data:`BOOTSTRAP`, :data:`FIELLER`; ""
    #: without one)
    method: str = ""

    @property
    def n(self) -> int:
        return len(self.values)

    def text(self, spec: str = "{:.2f}") -> str:
        """``mean ± half-width`` (or the mean alone without an interval); "–" when unknown."""
        if math.isnan(self.mean):
            return "–"
        if math.isnan(self.low) or math.isnan(self.high):
            return spec.format(self.mean)
        return f"{spec.format(self.mean)} ± {spec.format((self.high - self.low) / 2)}"


NAN = float("nan")


def mean_ci(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """The mean of ``values`` (NaNs left out) with its Student-t interval."""
    kept = tuple(float(v) for v in values if not math.isnan(float(v)))
    if not kept:
        return Interval(NAN, NAN, NAN, ())
    mean = float(np.mean(kept))
    if len(kept) < 2:
        return Interval(mean, NAN, NAN, kept)
    half = float(stdtrit(len(kept) - 1, 0.5 + confidence / 2)
                 * np.std(kept, ddof=1) / math.sqrt(len(kept)))
    return Interval(mean, mean - half, mean + half, kept, T_MEAN)


def ratio_ci(numerator: Mapping[int, float], denominator: Mapping[int, float],
             confidence: float = CONFIDENCE, resamples: int = RESAMPLES) -> Interval:
    """Ratio of means over the seeds both have, with a paired interval (bootstrap from
    :data:`BOOTSTRAP_MIN_SEEDS` seeds, else Fieller's); ``values`` are the per-seed ratios."""
    seeds = sorted(s for s in numerator if s in denominator
                   and not math.isnan(numerator[s]) and not math.isnan(denominator[s]))
    num = np.array([numerator[s] for s in seeds], dtype=float)
    den = np.array([denominator[s] for s in seeds], dtype=float)
    if not seeds or den.mean() == 0:
        return Interval(NAN, NAN, NAN, ())
    per_seed = tuple(float(a / b) if b else NAN for a, b in zip(num, den, strict=True))
    mean = float(num.mean() / den.mean())
    if len(seeds) < 2:
        return Interval(mean, NAN, NAN, per_seed)
    if len(seeds) < BOOTSTRAP_MIN_SEEDS:
        low, high = fieller(num, den, confidence)
        return Interval(mean, low, high, per_seed, FIELLER)
    low, high = bootstrap(num, den, confidence, resamples)
    return Interval(mean, low, high, per_seed, BOOTSTRAP)


def bootstrap(num: np.ndarray, den: np.ndarray, confidence: float = CONFIDENCE,
              resamples: int = RESAMPLES) -> tuple[float, float]:
    """The paired percentile-bootstrap interval of ``mean(num) / mean(den)``."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, len(num), size=(resamples, len(num)))
    den_means = den[picks].mean(axis=1)
    ratios = num[picks].mean(axis=1) / np.where(den_means == 0, np.nan, den_means)
    tail = 100 * (1 - confidence) / 2
    low, high = np.nanpercentile(ratios, [tail, 100 - tail])
    return float(low), float(high)


def fieller(num: np.ndarray, den: np.ndarray, confidence: float = CONFIDENCE
            ) -> tuple[float, float]:
    """Fieller's interval of ``mean(num) / mean(den)`` for paired samples: the roots of
    ``a ρ² + b ρ + c = 0`` with ``a = ȳ² − q s_yy``, ``b = −2(x̄ȳ − q s_xy)``,
    ``c = x̄² − q s_xx`` and ``q = t² / n``; (−inf, inf) when ``a ≤ 0`` (the denominator's
    mean is not clearly away from zero)."""
    n = len(num)
    q = float(stdtrit(n - 1, 0.5 + confidence / 2)) ** 2 / n
    cov = np.cov(num, den, ddof=1)
    x, y = float(num.mean()), float(den.mean())
    a = y * y - q * cov[1, 1]
    b = -2 * (x * y - q * cov[0, 1])
    c = x * x - q * cov[0, 0]
    if a <= 0:
        return -math.inf, math.inf
    root = math.sqrt(max(b * b - 4 * a * c, 0.0))
    return (-b - root) / (2 * a), (-b + root) / (2 * a)

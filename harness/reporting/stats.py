"""Intervals over seeds: every figure the harness reports is a mean with a 95% interval.

A run repeats every baseline with several seeds (``seed.count``); each repetition gives one
value of a metric (FPS, p90 latency...). A figure is their mean with a two-sided 95%
Student-t interval, ``mean ± t(0.975, n-1) · s / sqrt(n)`` (the quantile from
``scipy.special.stdtrit``, which ``scipy.stats.t.ppf`` calls, without importing
``scipy.stats`` into every run); with one seed there is no interval (NaN bounds: one seed is
an anecdote). The per-seed values are kept beside it.

A ratio of two baselines (ADMS / TFLite FPS) pairs them seed by seed (the same seed gives
both the same traffic) and gets a **paired percentile bootstrap** interval: resample the
seeds with replacement :data:`RESAMPLES` times, take the ratio of the resampled means each
time, and read the 2.5th and 97.5th percentiles. The bootstrap generator is seeded
(:data:`BOOTSTRAP_SEED`), so a report is reproducible.
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


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean over seeds with its 95% interval, and the values it came from."""

    mean: float
    low: float
    high: float
    values: tuple[float, ...]

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
    return Interval(mean, mean - half, mean + half, kept)


def ratio_ci(numerator: Mapping[int, float], denominator: Mapping[int, float],
             confidence: float = CONFIDENCE, resamples: int = RESAMPLES) -> Interval:
    """Ratio of means over the seeds both have, with a paired percentile-bootstrap interval;
    ``values`` are the per-seed ratios."""
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
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, len(seeds), size=(resamples, len(seeds)))
    den_means = den[picks].mean(axis=1)
    ratios = num[picks].mean(axis=1) / np.where(den_means == 0, np.nan, den_means)
    tail = 100 * (1 - confidence) / 2
    low, high = np.nanpercentile(ratios, [tail, 100 - tail])
    return Interval(mean, float(low), float(high), per_seed)

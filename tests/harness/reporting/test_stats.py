"""Intervals over seeds, on samples whose answers are known."""

from __future__ import annotations

import math

import pytest
from scipy import stats as scipy_stats

from harness.reporting.stats import mean_ci, ratio_ci


def test_mean_ci_on_a_known_sample() -> None:
    """1..5: mean 3, s = sqrt(2.5), t(0.975, 4) = 2.7764 -> half-width 1.9632."""
    got = mean_ci([1, 2, 3, 4, 5])
    half = 2.7764451 * math.sqrt(2.5) / math.sqrt(5)
    assert got.mean == 3.0 and got.n == 5
    assert (got.low, got.high) == pytest.approx((3 - half, 3 + half), abs=1e-6)
    assert got.text() == f"3.00 ± {half:.2f}"


def test_mean_ci_matches_scipy_and_leaves_out_nan() -> None:
    sample = [41.6, 39.2, 44.0, 40.3, 42.8, float("nan")]
    kept = sample[:-1]
    low, high = scipy_stats.t.interval(0.95, len(kept) - 1, loc=sum(kept) / len(kept),
                                       scale=scipy_stats.sem(kept))
    got = mean_ci(sample)
    assert got.values == tuple(kept)
    assert (got.low, got.high) == pytest.approx((low, high))


def test_one_seed_has_no_interval() -> None:
    got = mean_ci([7.0])
    assert got.mean == 7.0 and math.isnan(got.low) and math.isnan(got.high)
    assert got.text() == "7.00"
    assert math.isnan(mean_ci([]).mean) and mean_ci([]).text() == "–"


def test_a_constant_sample_has_a_zero_width_interval() -> None:
    got = mean_ci([2.5] * 4)
    assert got.low == got.high == 2.5


def test_ratio_of_exactly_proportional_seeds_is_exact() -> None:
    """Every seed's ratio is 2, so every resample's ratio of means is 2."""
    den = {0: 10.0, 1: 12.0, 2: 9.0, 3: 11.0}
    got = ratio_ci({s: 2 * v for s, v in den.items()}, den)
    assert got.mean == pytest.approx(2.0) and (got.low, got.high) == pytest.approx((2.0, 2.0))
    assert got.values == pytest.approx((2.0,) * 4)


def test_ratio_pairs_seeds_and_brackets_the_ratio_of_means() -> None:
    num = {0: 30.0, 1: 45.0, 2: 33.0, 3: 50.0, 4: 38.0}
    den = {0: 10.0, 1: 15.0, 2: 10.0, 3: 18.0, 4: 12.0, 9: 99.0}  # seed 9 has no pair
    got = ratio_ci(num, den)
    assert got.mean == pytest.approx(196 / 65)
    assert got.low < got.mean < got.high
    assert got.n == 5
    assert ratio_ci(num, den) == got  # the bootstrap is seeded


def test_ratio_against_a_zero_or_missing_reference_is_unknown() -> None:
    assert math.isnan(ratio_ci({0: 1.0}, {0: 0.0}).mean)
    assert math.isnan(ratio_ci({0: 1.0}, {}).mean)

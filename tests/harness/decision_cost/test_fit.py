"""The decision-cost fit: a known price, line and fixed part recovered from synthetic
timings (with noise), intervals that hold the truth, and the degenerate cases."""

from __future__ import annotations

import numpy as np
import pytest

from harness.decision_cost.bench import Timing, parse
from harness.decision_cost.fit import blocks, fit, line
from harness.seams.errors import UserError


def synthetic(fixed_ns: float, slope_ns: float, n: int = 600, seed: int = 1) -> list[Timing]:
    rng = np.random.default_rng(seed)
    work = rng.integers(0, 400, size=n)
    ns = fixed_ns + slope_ns * work + rng.normal(0, 20, size=n)
    return [Timing(k, int(w), int(w % 3 == 0), 0, 5, 5, max(0, int(t)), max(0, int(t)))
            for k, (w, t) in enumerate(zip(work, ns, strict=True))]


def test_a_known_slope_and_fixed_part_are_recovered_within_their_intervals() -> None:
    got = fit(synthetic(fixed_ns=300.0, slope_ns=7.5))
    assert got.slope_ns is not None and got.fixed_ns is not None
    assert got.slope_ns.low <= 7.5 <= got.slope_ns.high
    assert got.slope_ns.high - got.slope_ns.low < 0.5
    assert got.fixed_ns.low <= 300.0 <= got.fixed_ns.high
    assert got.slope_ns.value == pytest.approx(7.5, abs=0.1)


def test_the_price_is_total_time_over_total_work() -> None:
    rows = synthetic(fixed_ns=300.0, slope_ns=7.5)
    got = fit(rows)
    assert got.price is not None
    total_ns = sum(r.min_ns for r in rows)
    total_work = sum(r.work for r in rows)
    assert got.price.value == pytest.approx(total_ns / total_work)
    # the fixed part spread over the work: above the marginal slope
    assert got.price.value > 7.5
    assert got.price.low <= got.price.value <= got.price.high


def test_decisions_without_work_have_no_price_and_no_line() -> None:
    rows = [Timing(k, 0, 0, 0, 3, 1, 100 + k, 110 + k) for k in range(50)]
    got = fit(rows)
    assert got.price is None and got.slope_ns is None and got.fixed_ns is None
    assert got.unpriced_decisions == 50 and got.idle_decisions == 50
    assert got.unpriced_mean_ns == pytest.approx(124.5)


def test_line_of_an_exact_line() -> None:
    work = np.array([0, 10, 20, 30])
    assert line(work, 5 + 2 * work) == pytest.approx((5.0, 2.0))
    assert line(np.array([4, 4]), np.array([1, 2])) is None


def test_blocks_are_contiguous_runs_within_the_sequence() -> None:
    got = blocks(100, np.random.default_rng(0), block=8)
    assert len(got) == 100 and got.min() >= 0 and got.max() < 100
    runs = got.reshape(-1, 4)[:, 1:] - got.reshape(-1, 4)[:, :-1]
    assert (runs == 1).all()


def test_parse_subtracts_the_clock_and_refuses_other_text() -> None:
    got = parse("# clock_ns 20\n3\t12\t1\t0\t4\t2\t120\t150\n")
    assert got == [Timing(3, 12, 1, 0, 4, 2, 100, 130)]
    assert not got[0].starts_nothing
    with pytest.raises(UserError, match="clock_ns"):
        parse("3\t12\t1\t0\t4\t2\t120\t150\n")

"""The decision-cost fit: a known price, line and fixed part recovered from synthetic
timings (with noise), intervals that hold the truth, and the degenerate cases."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from harness.decision_cost.bench import Timing, parse
from harness.decision_cost.fit import Prices, blocks, fit, line
from harness.seams.errors import UserError


def synthetic(fixed_ns: float, slope_ns: float, n: int = 600, seed: int = 1) -> list[Timing]:
    rng = np.random.default_rng(seed)
    work = rng.integers(0, 400, size=n)
    ns = fixed_ns + slope_ns * work + rng.normal(0, 20, size=n)
    return [Timing(k, int(w), -1, int(w % 3 == 0), 0, 5, 5, max(0, int(t)), max(0, int(t)))
            for k, (w, t) in enumerate(zip(work, ns, strict=True))]


def test_a_known_slope_and_fixed_part_are_recovered_within_their_intervals() -> None:
    got = fit(synthetic(fixed_ns=300.0, slope_ns=7.5))
    assert got.counted.slope_ns is not None and got.counted.fixed_ns is not None
    assert got.counted.slope_ns.low <= 7.5 <= got.counted.slope_ns.high
    assert got.counted.slope_ns.high - got.counted.slope_ns.low < 0.5
    assert got.counted.fixed_ns.low <= 300.0 <= got.counted.fixed_ns.high
    assert got.counted.slope_ns.value == pytest.approx(7.5, abs=0.1)


def test_the_price_is_total_time_over_total_work() -> None:
    rows = synthetic(fixed_ns=300.0, slope_ns=7.5)
    got = fit(rows)
    assert got.counted.price is not None
    total_ns = sum(r.min_ns for r in rows)
    total_work = sum(r.work for r in rows)
    assert got.counted.price.value == pytest.approx(total_ns / total_work)
    # the fixed part spread over the work: above the marginal slope
    assert got.counted.price.value > 7.5
    assert got.counted.price.low <= got.counted.price.value <= got.counted.price.high


def test_decisions_without_work_have_no_price_and_no_line() -> None:
    rows = [Timing(k, 0, -1, 0, 0, 3, 1, 100 + k, 110 + k) for k in range(50)]
    got = fit(rows)
    assert got.counted == Prices(None, None, None)
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
    got = parse("# clock_ns 20\n3\t12\t7\t1\t0\t4\t2\t120\t150\n")
    assert got == [Timing(3, 12, 7, 1, 0, 4, 2, 100, 130)]
    assert not got[0].starts_nothing
    with pytest.raises(UserError, match="clock_ns"):
        parse("3\t12\t7\t1\t0\t4\t2\t120\t150\n")


def test_performed_work_is_fitted_apart_from_the_count() -> None:
    # a cache serves half the counted work: the price per performed unit is twice as high
    rows = [dataclasses.replace(r, performed=r.work // 2)
            for r in synthetic(fixed_ns=0.0, slope_ns=4.0)]
    got = fit(rows)
    assert got.performed is not None and got.counted.price is not None
    assert got.performed.price is not None
    assert got.performed.price.value == pytest.approx(2 * got.counted.price.value, rel=0.02)
    assert fit(synthetic(0.0, 4.0)).performed is None


@pytest.mark.parametrize("args", [["repeats=0"], ["speed=2"], ["duration_s=-1"]])
def test_bad_arguments_are_one_error(args: list[str]) -> None:
    from harness.decision_cost.__main__ import parse_conf

    with pytest.raises(UserError, match="decision_cost: "):
        parse_conf(args)


def test_the_audit_finds_time_the_count_does_not_hold() -> None:
    from harness.decision_cost.audit import audit

    rng = np.random.default_rng(3)
    rows = []
    for k in range(400):
        work, read, started = int(rng.integers(0, 100)), int(rng.integers(1, 6)), k % 3
        ns = 50 + 2 * work + 300 * read + 100 * started  # read and started uncounted
        rows.append(Timing(k, work, -1, started, 0, 6, read, ns, ns))
    got = audit(rows)
    assert (got.per_decision_ns, got.per_work_ns, got.per_read_ns, got.per_started_ns) == \
        pytest.approx((50, 2, 300, 100), abs=1e-6)
    assert got.r2_all == pytest.approx(1.0) and got.r2_work < 0.5
    counted = [dataclasses.replace(r, min_ns=10 + 5 * r.work, median_ns=10 + 5 * r.work)
               for r in rows]
    assert audit(counted).r2_work == pytest.approx(1.0)

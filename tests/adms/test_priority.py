"""ADMS's priority terms (:mod:`adms.priority`, eqs. 1-4) against hand-computed values, and the
monitor's readings they take (:mod:`adms.monitor`): near throttling, and the load of eq. 3."""

from __future__ import annotations

import pytest

from adms.config import AdmsConf
from adms.monitor import load_fraction, near_throttle
from adms.priority import deadline_term, priority, resource_term, wait_term
from harness.seams.records import SensorSample
from tests.fixtures.policies import pv


def test_deadline_term() -> None:
    assert deadline_term(2.0, slo_ms=30.0, latency_ms=12.5) == pytest.approx(35.0)
    assert deadline_term(1.0, slo_ms=5.0, latency_ms=8.0) == pytest.approx(-3.0)


def test_wait_term() -> None:
    assert wait_term(1.5, now_ms=100.0, enqueue_ms=80.0, avg_ms=10.0) == pytest.approx(-3.0)
    assert wait_term(1.0, now_ms=5.0, enqueue_ms=5.0, avg_ms=2.0) == 0.0


def test_resource_term_sign_follows_half_load() -> None:
    assert resource_term(0.5, load=0.75, capacity=1.0, remaining_ms=8.0) == pytest.approx(2.0)
    assert resource_term(0.5, load=0.25, capacity=1.0, remaining_ms=8.0) == pytest.approx(-2.0)
    assert resource_term(0.5, load=0.5, capacity=1.0, remaining_ms=8.0) == 0.0
    assert resource_term(1.0, load=3.0, capacity=4.0, remaining_ms=10.0) == pytest.approx(5.0)


def test_priority_is_the_sum() -> None:
    conf = AdmsConf(alpha=1.5, gamma=2.0, delta=0.5)
    s = priority(conf, slo_ms=30.0, latency_ms=12.5, now_ms=100.0, enqueue_ms=80.0, avg_ms=10.0,
                 load=0.75, capacity=1.0, remaining_ms=8.0)
    assert s == pytest.approx(35.0 - 3.0 + 2.0)


def test_near_throttle_and_load_fallback() -> None:
    s = SensorSample("gpu", 0, temperature_c=65.5, throttle_temperature_c=68.0)
    assert near_throttle(s, 3.0) and not near_throttle(s, 2.0)
    assert near_throttle(SensorSample("gpu", 0, throttled=True), 0.0)
    assert not near_throttle(SensorSample("gpu", 0, temperature_c=90.0), 3.0)  # no threshold
    assert not near_throttle(None, 3.0)
    assert load_fraction(pv("cpu", load=0.4)) == 0.4
    assert load_fraction(pv("cpu")) == 0.0 and load_fraction(pv("cpu", busy_ms=1)) == 1.0
